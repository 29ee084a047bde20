//! The tables DiskSpd prints after the results when asked: counters (`-e`), time and wait
//! statistics (`-vs`), io_uring submissions.

use std::fmt::Write as _;

use crate::counters::Counter;
use crate::profile::Counters;
use crate::report::{Measured, ThreadReport};

/// A group's counters: DiskSpd's name and the Linux counter's key (empty: none, printed as 0).
type Fields<'a> = &'a [(&'a str, &'a str)];

/// DiskSpd's ETW block (`_DisplayETW`): for each `-e` group given, DiskSpd's heading and counter
/// names, in its order, filled from the Linux counters that stand in for them (`counters.rs`); a
/// counter Linux does not have prints 0. (The ETW session's buffer statistics describe Windows'
/// tracing and are left out.)
pub(super) fn counters_text(out: &mut String, groups: &Counters, counters: &[Counter]) {
    out.push_str("\n\n\nETW:\n----\n\n");
    let value = |key: &str| {
        counters
            .iter()
            .find(|c| c.key == key)
            .map_or(0, |c| c.value)
    };
    let page_faults: &[(&str, &str)] = &[
        ("Copy on Write", ""),
        ("Demand Zero fault", "memory.minor_faults"),
        ("Guard Page fault", ""),
        ("Hard page fault", "memory.major_faults"),
        ("Transition fault", ""),
    ];
    let registry: Vec<(&str, &str)> = [
        "NtCreateKey",
        "NtDeleteKey",
        "NtDeleteValueKey",
        "NtEnumerateKey",
        "NtEnumerateValueKey",
        "NtFlushKey",
        "KcbDump/create",
        "NtOpenKey",
        "NtQueryKey",
        "NtQueryMultipleValueKey",
        "NtQueryValueKey",
        "NtSetInformationKey",
        "NtSetValueKey",
    ]
    .map(|name| (name, ""))
    .to_vec();
    let tasks: &[(&str, &str)] = &[("Start", "tasks.created"), ("End", "tasks.ended")];
    let blocks: [(bool, &str, Fields); 8] = [
        (
            groups.disk_io,
            "Disk I/O",
            &[("Read", "disk.reads"), ("Write", "disk.writes")],
        ),
        (groups.image_load, "Load Image", &[("Load Image", "")]),
        (groups.memory_page_faults, "Memory Page Faults", page_faults),
        (
            groups.memory_hard_faults && !groups.memory_page_faults,
            "Memory Hard Faults",
            &[("Hard page fault", "memory.major_faults")],
        ),
        (
            groups.network,
            "Network",
            &[
                ("Accept", "net.tcp_accepts"),
                ("Connect", "net.tcp_connects"),
                ("Disconnect", "net.tcp_disconnects"),
                ("Reconnect", ""),
                ("Retransmit", "net.tcp_retransmitted"),
                ("TCP/IP Send", "net.tcp_sent"),
                ("TCP/IP Receive", "net.tcp_received"),
                ("UDP/IP Send", "net.udp_sent"),
                ("UDP/IP Receive", "net.udp_received"),
            ],
        ),
        (groups.process, "Process", tasks),
        (groups.registry, "Registry", &registry),
        (groups.thread, "Thread", tasks),
    ];
    for (given, heading, fields) in blocks {
        if !given {
            continue;
        }
        let _ = writeln!(out, "\t{heading}");
        for (name, key) in fields {
            let _ = writeln!(out, "\t\t{name}: {}", value(key));
        }
    }
}

fn histogram_cells(h: &[u64; 8]) -> String {
    h.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

/// iospd's own table (after DiskSpd's block): where each thread's time went.
pub(super) fn time_text(out: &mut String, threads: &[ThreadReport]) {
    out.push_str("\nTime Statistics\n");
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

/// DiskSpd's `-vs` wait statistics, in `_PrintWaitStats`'s layout; the lookaside table appears when
/// latency or IOPS intervals are measured, as in DiskSpd.
pub(super) fn wait_text(out: &mut String, threads: &[ThreadReport], lookaside: bool) {
    let throttled = threads
        .iter()
        .any(|t| t.waits.throttle_waits + t.waits.throttle_sleeps > 0);
    out.push_str("\nWait Statistics - Completion Wait\n");
    if throttled {
        out.push_str(
            "thread |         wait | throttle wait  -  sleep | 0 - 7+ complete per wait\n",
        );
        let _ = writeln!(out, "{}", "-".repeat(74));
    } else {
        out.push_str("thread |         wait | 0 - 7+ complete per wait\n");
        let _ = writeln!(out, "{}", "-".repeat(48));
    }
    for t in threads {
        let w = &t.waits;
        let cells = histogram_cells(&w.completions_per_wait);
        let _ = if !throttled {
            writeln!(out, "{:6} | {:12} | {cells}", t.thread, w.waits)
        } else if w.throttle_waits + w.throttle_sleeps > 0 {
            writeln!(
                out,
                "{:6} | {:12} | {:13}  - {:6} | {cells}",
                t.thread, w.waits, w.throttle_waits, w.throttle_sleeps
            )
        } else {
            writeln!(
                out,
                "{:6} | {:12} |               ---       | {cells}",
                t.thread, w.waits
            )
        };
    }
    if lookaside {
        out.push_str("\nWait Statistics - Lookaside\n");
        out.push_str("thread |    lookaside | 0 - 7+ complete per lookaside\n");
        let _ = writeln!(out, "{}", "-".repeat(53));
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
