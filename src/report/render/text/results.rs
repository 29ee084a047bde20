//! `Results for timespan N`: test time, threads and depth, CPU, the Total/Read/Write tables and the
//! latency percentiles.

use std::fmt::Write as _;

use super::profile::size_or_zero;
use super::{MIB, NS_PER_MS, extra};
use crate::engine::Op;
use crate::plan::cpu_list;
use crate::profile::{Profile, TimeSpan};
use crate::report::{Direction, Directions, Latency, Measured, TEXT_ROWS};
use crate::stats::cpu::CpuUsage;
use crate::system::SystemInfo;
use crate::units::format_size;

/// DiskSpd's block, in `ResultParser.cpp`'s order and wording (so a DiskSpd text parser reads it
/// unchanged); iospd's own lines for the timespan are in the `Beyond DiskSpd` section.
pub(super) fn results_text(
    out: &mut String,
    profile: &Profile,
    ts: &TimeSpan,
    m: &Measured,
    system: &SystemInfo,
) {
    let _ = write!(
        out,
        "\nactual test time:\t{:.2}s\nthread count:\t\t{}\n",
        m.duration_s, m.thread_count
    );
    if let (Some(_), Some(requests)) = (ts.thread_count, ts.request_count) {
        let _ = writeln!(out, "request count:\t\t{requests}");
    }
    if !m.effective_affinity.is_empty() {
        let _ = writeln!(
            out,
            "\neffective affinity (cpu): {}",
            cpu_list(&m.effective_affinity)
        );
    }
    out.push('\n');
    cpu_table(out, &m.cpu, &m.cpu_average, system);
    if !m.distributions.is_empty() {
        distributions_text(out, ts, m);
    }
    let latency = ts.measure_latency;
    let iops_stddev = ts.iops_interval_ms.is_some();
    for (title, op) in [
        ("Total IO", None),
        ("Read IO", Some(Op::Read)),
        ("Write IO", Some(Op::Write)),
    ] {
        let _ = writeln!(out, "\n{title}");
        section_table(out, m, op, latency, iops_stddev);
    }
    if ts.io_ring.is_some() {
        extra::submits_text(out, m);
    }
    if latency {
        if m.targets.len() > 1 {
            for target in &m.targets {
                let _ = writeln!(out, "\nLatency distribution: {}", target.path);
                latency_chart(out, &target.directions);
            }
        }
        out.push_str("\nTotal latency distribution:\n");
        latency_chart(out, &m.totals);
    }
    if profile.counters.any() {
        extra::counters_text(out, &m.counters);
    }
    if profile.verbose_stats {
        extra::wait_text(out, &m.threads, latency || iops_stddev);
    }
}

fn cpu_table(out: &mut String, cpus: &[CpuUsage], average: &CpuUsage, system: &SystemInfo) {
    let columns: [(bool, &str, usize); 4] = [
        (system.socket_count() > 1, "Socket | ", 9),
        (system.node_count() > 1, "Node | ", 7),
        (system.smt(), "Core | ", 7),
        (system.heterogeneous(), "Class | ", 8),
    ];
    let mut header = String::new();
    let mut dashes = 40;
    for (shown, name, width) in columns {
        if shown {
            header.push_str(name);
            dashes += width;
        }
    }
    let rule = "-".repeat(dashes);
    let _ = writeln!(
        out,
        "{header}CPU |  Usage |  User  | Kernel |  Idle\n{rule}"
    );
    let percents = |c: &CpuUsage| {
        format!(
            "| {:6.2}%| {:6.2}%| {:6.2}%| {:6.2}%",
            c.usage, c.user, c.kernel, c.idle
        )
    };
    for usage in cpus {
        let mut prefix = String::new();
        if let Some(topo) = system.cpus.iter().find(|t| t.cpu == usage.cpu) {
            let class = if topo.efficiency_class > 0 { 'P' } else { ' ' };
            let values = [
                (columns[0].0, format!("{:7}| ", topo.socket)),
                (columns[1].0, format!("{:5}| ", topo.node)),
                (columns[2].0, format!("{:5}| ", topo.core)),
                (
                    columns[3].0,
                    format!("{:5}{class}| ", topo.efficiency_class),
                ),
            ];
            for (shown, value) in values {
                if shown {
                    prefix.push_str(&value);
                }
            }
        }
        let _ = writeln!(out, "{prefix}{:4}{}", usage.cpu, percents(usage));
    }
    let pad = " ".repeat(dashes - 40);
    let _ = writeln!(out, "{rule}\n{pad}avg.{}", percents(average));
}

fn distributions_text(out: &mut String, ts: &TimeSpan, m: &Measured) {
    out.push_str("\nEffective IO Distributions\n--------------------------\n");
    for d in &m.distributions {
        let threads = match (d.threads.first(), d.threads.last()) {
            (Some(a), Some(b)) if a != b => format!("{a} - {b}"),
            (Some(a), _) => a.to_string(),
            _ => String::new(),
        };
        let _ = writeln!(out, "target: {} [thread: {threads}]", d.path);
        let base = ts
            .targets
            .iter()
            .find(|t| t.path.display().to_string() == d.path)
            .map_or(0, |t| t.base_offset);
        for r in &d.ranges {
            let io = if r.io_percent.fract() == 0.0 {
                format!("{:>3}%", r.io_percent)
            } else {
                format!("{:>5.1}%", r.io_percent)
            };
            let _ = writeln!(
                out,
                "    {io} of IO => [{:>9} -{:>10})",
                size_or_zero(base + r.start),
                format_size(base + r.start + r.length)
            );
        }
    }
}

fn section_table(out: &mut String, m: &Measured, op: Option<Op>, latency: bool, iops_stddev: bool) {
    let _ = writeln!(
        out,
        "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s {}{}{}|  file",
        if latency { "|  AvgLat  " } else { "" },
        if iops_stddev { "| IopsStdDev " } else { "" },
        if latency { "| LatStdDev " } else { "" },
    );
    let rule =
        "-".repeat(66 + 12 + if latency { 23 } else { 0 } + if iops_stddev { 13 } else { 0 });
    let columns = |d: &Direction| {
        let mut s = format!(
            "{:15} | {:12} | {:10.2} | {:10.2}",
            d.bytes,
            d.ios,
            d.bytes_per_s / MIB,
            d.ios_per_s
        );
        if latency {
            let mean = d.latency.as_ref().map_or(0.0, |l| l.mean_ns / NS_PER_MS);
            let _ = write!(s, " | {mean:8.3}");
        }
        if iops_stddev {
            let _ = write!(s, " | {:10.2}", d.ios_per_s_stddev.unwrap_or(0.0));
        }
        if latency {
            match &d.latency {
                Some(l) => {
                    let _ = write!(s, " |  {:8.3}", l.stddev_ns / NS_PER_MS);
                }
                None => s.push_str(" |       N/A"),
            }
        }
        s
    };
    let _ = writeln!(out, "{rule}");
    for thread in &m.threads {
        for target in &thread.targets {
            let _ = writeln!(
                out,
                "{:6} | {} | {} ({})",
                thread.thread,
                columns(target.directions.get(op)),
                target.path,
                format_size(target.size_bytes)
            );
        }
    }
    let _ = writeln!(out, "{rule}\ntotal:   {}", columns(m.totals.get(op)));
}

fn latency_chart(out: &mut String, d: &Directions) {
    latency_chart_of(out, d, |dir| dir.latency.as_ref());
}

/// The percentile table of the latency `pick` chooses (from submission, or from intended start).
pub(super) fn latency_chart_of(
    out: &mut String,
    d: &Directions,
    pick: fn(&Direction) -> Option<&Latency>,
) {
    out.push_str("  %-ile |  Read (ms) | Write (ms) | Total (ms)\n");
    out.push_str("----------------------------------------------\n");
    let cell = |dir: &Direction, p: f64| {
        pick(dir).map_or_else(
            || "N/A".to_string(),
            |l| format!("{:.3}", l.at(p) as f64 / NS_PER_MS),
        )
    };
    for (label, p) in TEXT_ROWS {
        let total = pick(&d.total).map_or(0.0, |l| l.at(p) as f64 / NS_PER_MS);
        let _ = writeln!(
            out,
            "{label:>7} | {:>10} | {:>10} | {total:10.3}",
            cell(&d.read, p),
            cell(&d.write, p)
        );
    }
}
