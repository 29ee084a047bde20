//! The tables DiskSpd prints after the results when asked: counters (`-e`), time and wait
//! statistics (`-vs`), io_uring submissions.

use std::fmt::Write as _;

use super::super::{Measured, ThreadReport};
use crate::counters::Counter;

/// DiskSpd's ETW block, with the Linux counters that stand in for its event groups.
pub(super) fn counters_text(out: &mut String, counters: &[Counter]) {
    out.push_str("\n\n\nETW:\n----\n\n");
    let value = |key: &str| counters.iter().find(|c| c.key == key).map(|c| c.value);
    let groups: [(&str, &[(&str, &str)]); 4] = [
        (
            "Disk I/O",
            &[("Read", "disk.reads"), ("Write", "disk.writes")],
        ),
        (
            "Memory Page Faults",
            &[
                ("All page faults", "memory.page_faults"),
                ("Hard page fault", "memory.major_faults"),
            ],
        ),
        (
            "Network",
            &[
                ("TCP/IP Send", "net.tcp_sent"),
                ("TCP/IP Receive", "net.tcp_received"),
                ("Retransmit", "net.tcp_retransmitted"),
                ("UDP/IP Send", "net.udp_sent"),
                ("UDP/IP Receive", "net.udp_received"),
            ],
        ),
        ("Process and Thread", &[("Tasks created", "tasks.created")]),
    ];
    for (group, fields) in groups {
        let present: Vec<(&str, u64)> = fields
            .iter()
            .filter_map(|(name, key)| value(key).map(|v| (*name, v)))
            .collect();
        if present.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\t{group}");
        for (name, v) in present {
            let _ = writeln!(out, "\t\t{name}: {v}");
        }
    }
}

fn histogram_cells(h: &[u64; 8]) -> String {
    h.iter()
        .map(|n| format!("{n:>8}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn time_text(out: &mut String, threads: &[ThreadReport]) {
    out.push_str("\n\nTime Statistics\n");
    out.push_str(
        "thread | on CPU % | spinning % | in engine % | in loop % | depth | achieved depth\n",
    );
    let _ = writeln!(out, "{}", "-".repeat(83));
    for t in threads {
        let _ = writeln!(
            out,
            "{:6} | {:8.1} | {:10.1} | {:11.1} | {:9.1} | {:5} | {:14.2}",
            t.thread,
            t.on_cpu_percent,
            t.spin_percent,
            t.in_engine_percent,
            t.in_loop_percent,
            t.depth,
            t.achieved_depth
        );
    }
}

pub(super) fn wait_text(out: &mut String, threads: &[ThreadReport]) {
    let throttled = threads
        .iter()
        .any(|t| t.waits.throttle_waits + t.waits.throttle_sleeps > 0);
    out.push_str("\n\nWait Statistics - Completion Wait\n");
    let _ = writeln!(
        out,
        "thread |         wait | 0 - 7+ complete per wait{}",
        if throttled {
            " | throttle wait | throttle sleep"
        } else {
            ""
        }
    );
    let rule_len = 104 + if throttled { 32 } else { 0 };
    let _ = writeln!(out, "{}", "-".repeat(rule_len));
    for t in threads {
        let w = &t.waits;
        let _ = write!(
            out,
            "{:6} | {:12} | {}",
            t.thread,
            w.waits,
            histogram_cells(&w.completions_per_wait)
        );
        if throttled {
            let _ = write!(out, " | {:13} | {:14}", w.throttle_waits, w.throttle_sleeps);
        }
        out.push('\n');
    }
    if threads.iter().any(|t| t.waits.lookasides > 0) {
        out.push_str("\nWait Statistics - Lookaside\n");
        out.push_str("thread |    lookaside | 0 - 7+ complete per lookaside\n");
        let _ = writeln!(out, "{}", "-".repeat(104));
        for t in threads {
            let _ = writeln!(
                out,
                "{:6} | {:12} | {}",
                t.thread,
                t.waits.lookasides,
                histogram_cells(&t.waits.completions_per_lookaside)
            );
        }
    }
}

pub(super) fn submits_text(out: &mut String, m: &Measured) {
    out.push_str("\n\nIoRing Statistics\nthread |  Submits/s \n--------------------\n");
    for t in &m.threads {
        let _ = writeln!(out, "{:6} | {:11.2}", t.thread, t.submits_per_s);
    }
    let _ = writeln!(
        out,
        "--------------------\ntotal: | {:11.2}",
        m.submits_per_s
    );
}
