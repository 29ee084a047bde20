//! `Results for timespan N`: test time, threads and depth, CPU, the Total/Read/Write tables and the
//! latency percentiles.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{MIB, NS_PER_MS, extra};
use crate::engine::Op;
use crate::plan::cpu_list;
use crate::profile::{DistributionKind, Profile, Target, TimeSpan};
use crate::report::{Direction, Directions, DistributionReport, Latency, Measured, TEXT_ROWS};
use crate::stats::cpu::CpuUsage;
use crate::system::SystemInfo;
use crate::targets::distribution::EffectiveRange;
use crate::units::format_size;

/// DiskSpd's block, in `ResultParser.cpp`'s order and wording (so a DiskSpd text parser reads it
/// unchanged); iospd's own lines for the timespan are in the `Beyond DiskSpd` section.
pub(super) fn results_text(
    out: &mut String,
    profile: &Profile,
    ts: &TimeSpan,
    m: &Measured,
    system: &SystemInfo,
    detailed: bool,
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
        distributions_text(out, ts, &m.distributions);
    }
    let latency = ts.measure_latency;
    let iops_stddev = ts.iops_interval_ms.is_some();
    // Trims and flushes (--trim, --fsync) get tables of their own after DiskSpd's three; the
    // total stays reads and writes, the data moved.
    for (title, op) in [
        ("Total IO", None),
        ("Read IO", Some(Op::Read)),
        ("Write IO", Some(Op::Write)),
        ("Trim IO", Some(Op::Trim)),
        ("Flush IO", Some(Op::Fsync)),
    ] {
        if m.totals.get(op).is_some() {
            let _ = writeln!(out, "\n{title}");
            section_table(out, m, op, latency, iops_stddev, detailed);
        }
    }
    if ts.io_ring.is_some() {
        extra::submits_text(out, m);
    }
    if latency {
        if m.targets.len() > 1 && detailed {
            for target in &m.targets {
                let _ = writeln!(out, "\nLatency distribution: {}", target.path);
                latency_chart(out, &target.directions);
            }
        }
        out.push_str("\nTotal latency distribution:\n");
        latency_chart(out, &m.totals);
    }
    if profile.counters.any() {
        extra::counters_text(out, &profile.counters, &m.counters);
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

/// `Effective IO Distributions` as `_PrintEffectiveDistributions` writes it: targets whose
/// effective ranges are the same are listed together (each with its threads) above one set of
/// ranges, groups in the order of their ranges; ranges that get no I/O are left out, and a
/// distribution trimmed by the target's size shows every share with one decimal.
fn distributions_text(out: &mut String, ts: &TimeSpan, distributions: &[DistributionReport]) {
    out.push_str("\nEffective IO Distributions\n--------------------------\n");
    let spec = |path: &str| {
        ts.targets
            .iter()
            .find(|t| t.path.display().to_string() == path)
    };
    let mut groups: Vec<(&[EffectiveRange], Vec<&DistributionReport>)> = Vec::new();
    for d in distributions {
        match groups
            .iter_mut()
            .find(|(ranges, _)| *ranges == d.ranges.as_slice())
        {
            Some((_, members)) => members.push(d),
            None => groups.push((&d.ranges, vec![d])),
        }
    }
    groups.sort_by(|a, b| ranges_order(a.0, b.0));
    for (ranges, members) in groups {
        // One line per path, as DiskSpd keys them: a path given twice lists both its threads.
        let mut paths: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
        for d in &members {
            paths
                .entry(d.path.as_str())
                .or_default()
                .extend(d.threads.iter().copied());
        }
        for (path, threads) in &paths {
            let _ = writeln!(out, "target: {path} [thread:{}]", thread_list(threads));
        }
        let target = spec(&members[0].path);
        let base = target.map_or(0, |t| t.base_offset);
        let trimmed = target.is_some_and(|t| trimmed(t, ranges));
        for r in ranges.iter().filter(|r| r.io_percent > 0.0) {
            let share = if trimmed {
                format!("    {:.1}%", r.io_percent)
            } else {
                format!("   {:3}%", r.io_percent.round() as u64)
            };
            let start = if base + r.start == 0 {
                "     0   ".to_string()
            } else {
                format!("{:>9}", format_size(base + r.start))
            };
            let end = format_size(base + r.start + r.length);
            let _ = writeln!(out, "{share} of IO => [{start} - {end:>9})");
        }
    }
}

/// DiskSpd orders distinct distributions by their ranges: each range's cumulative I/O share, its
/// share, its start and its length, in turn.
fn ranges_order(a: &[EffectiveRange], b: &[EffectiveRange]) -> std::cmp::Ordering {
    let keys = |ranges: &[EffectiveRange]| {
        let mut before = 0.0;
        ranges
            .iter()
            .map(|r| {
                let key = (before, r.io_percent, r.start, r.length);
                before += r.io_percent;
                key
            })
            .collect::<Vec<_>>()
    };
    let (a, b) = (keys(a), keys(b));
    for (x, y) in a.iter().zip(&b) {
        let order =
            x.0.total_cmp(&y.0)
                .then(x.1.total_cmp(&y.1))
                .then(x.2.cmp(&y.2))
                .then(x.3.cmp(&y.3));
        if order.is_ne() {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// Whether an absolute distribution lost ranges past the end of the target, so that the shares
/// printed are re-scaled to the ranges left.
fn trimmed(target: &Target, ranges: &[EffectiveRange]) -> bool {
    target.distribution.as_ref().is_some_and(|d| {
        let given = d.ranges.iter().filter(|r| r.io_percent > 0).count();
        let kept = ranges.iter().filter(|r| r.io_percent > 0.0).count();
        d.kind == DistributionKind::Absolute && kept < given
    })
}

/// A thread list as `_PrintEffectiveDistributions` writes it: a run of three or more as `a - b`,
/// a pair as `a b`, and a thread alone before a gap twice (`0 0 2`: DiskSpd prints the end of the
/// run it closes even when that run is the one thread it has just printed), kept so that the text
/// is DiskSpd's for any parser that reads it.
fn thread_list(threads: &BTreeSet<u32>) -> String {
    let mut out = String::new();
    let mut last: Option<u32> = None;
    let mut run = 0;
    for &thread in threads {
        if let Some(previous) = last {
            if previous + 1 == thread {
                last = Some(thread);
                run += 1;
                continue;
            }
            if run > 1 {
                out.push_str(" -");
            }
            let _ = write!(out, " {previous}");
        }
        let _ = write!(out, " {thread}");
        last = Some(thread);
        run = 0;
    }
    if let Some(previous) = last.filter(|_| run > 0) {
        if run > 1 {
            out.push_str(" -");
        }
        let _ = write!(out, " {previous}");
    }
    out
}

fn section_table(
    out: &mut String,
    m: &Measured,
    op: Option<Op>,
    latency: bool,
    iops_stddev: bool,
    detailed: bool,
) {
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
    if !detailed {
        let _ = writeln!(
            out,
            "(the {} threads' rows are in the JSON and XML results; the spread across ranks is below)",
            m.threads.len()
        );
    }
    for thread in m.threads.iter().filter(|_| detailed) {
        for target in &thread.targets {
            let Some(d) = target.directions.get(op) else {
                continue;
            };
            let _ = writeln!(
                out,
                "{:6} | {} | {} ({})",
                thread.thread,
                columns(d),
                target.path,
                format_size(target.size_bytes)
            );
        }
    }
    if let Some(d) = m.totals.get(op) {
        let _ = writeln!(out, "{rule}\ntotal:   {}", columns(d));
    }
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
    // Trims and flushes, when the run has them, are columns after DiskSpd's.
    let extra: Vec<(&str, &Direction)> = [(" Trim (ms)", &d.trim), ("Flush (ms)", &d.flush)]
        .into_iter()
        .filter_map(|(name, dir)| dir.as_ref().map(|dir| (name, dir)))
        .collect();
    let mut head = "  %-ile |  Read (ms) | Write (ms) | Total (ms)".to_string();
    for (name, _) in &extra {
        let _ = write!(head, " | {name}");
    }
    let _ = writeln!(out, "{head}\n{}", "-".repeat(head.len()));
    let cell = |dir: &Direction, p: f64| {
        pick(dir).map_or_else(
            || "N/A".to_string(),
            |l| format!("{:.3}", l.at(p) as f64 / NS_PER_MS),
        )
    };
    for (label, p) in TEXT_ROWS {
        let total = pick(&d.total).map_or(0.0, |l| l.at(p) as f64 / NS_PER_MS);
        let _ = write!(
            out,
            "{label:>7} | {:>10} | {:>10} | {total:10.3}",
            cell(&d.read, p),
            cell(&d.write, p)
        );
        for (_, dir) in &extra {
            let _ = write!(out, " | {:>10}", cell(dir, p));
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Access, Distribution, DistributionRange};

    fn range(io_percent: f64, start: u64, length: u64) -> EffectiveRange {
        EffectiveRange {
            io_percent,
            start,
            length,
        }
    }

    fn report(path: &str, threads: &[u32], ranges: &[EffectiveRange]) -> DistributionReport {
        DistributionReport {
            path: path.into(),
            threads: threads.to_vec(),
            ranges: ranges.to_vec(),
        }
    }

    fn timespan(kind: DistributionKind, given: &[(u32, u64)], paths: &[&str]) -> TimeSpan {
        let mut ts = TimeSpan::new();
        for path in paths {
            let mut t = Target::new((*path).into());
            t.access = Access::Random {
                align: 4096,
                ratio: 100,
            };
            t.distribution = Some(Distribution {
                kind,
                ranges: given
                    .iter()
                    .map(|&(io_percent, span)| DistributionRange { io_percent, span })
                    .collect(),
            });
            ts.targets.push(t);
        }
        ts
    }

    const KIB: u64 = 1024;

    /// -rdpct10/10:10/10:0/10 on 100KiB: DiskSpd 2.3's Test_PrintEffectiveDistributionPct.
    fn pct() -> Vec<EffectiveRange> {
        vec![
            range(10.0, 0, 8 * KIB),
            range(10.0, 8 * KIB, 12 * KIB),
            range(0.0, 20 * KIB, 8 * KIB),
            range(80.0, 28 * KIB, 72 * KIB),
        ]
    }

    fn text(ts: &TimeSpan, reports: &[DistributionReport]) -> String {
        let mut out = String::new();
        distributions_text(&mut out, ts, reports);
        out
    }

    #[test]
    fn effective_distributions_print_as_diskspd_2_3() {
        let given = [(10, 10), (10, 10), (0, 10), (80, 70)];
        let ts = timespan(
            DistributionKind::Percent,
            &given,
            &["testfile.dat", "testfile2.dat"],
        );
        let ranges = "    10% of IO => [     0    -      8KiB)\n    10% of IO => [     8KiB -     20KiB)\n    80% of IO => [    28KiB -    100KiB)\n";
        let head = "\nEffective IO Distributions\n--------------------------\n";
        for (threads, list) in [
            (&[0][..], "0"),
            (&[0, 1], "0 1"),
            (&[0, 1, 2], "0 - 2"),
            (&[0, 1, 2, 4], "0 - 2 4"),
            (&[0, 1, 3], "0 1 3"),
            // DiskSpd's loop writes a lone thread before a gap twice.
            (&[0, 2], "0 0 2"),
            (&[0, 1, 2, 4, 6], "0 - 2 4 4 6"),
            (&[3, 2, 1, 0], "0 - 3"),
        ] {
            assert_eq!(
                text(&ts, &[report("testfile.dat", threads, &pct())]),
                format!("{head}target: testfile.dat [thread: {list}]\n{ranges}")
            );
        }
        // Two targets with one distribution: listed together above one set of ranges.
        assert_eq!(
            text(
                &ts,
                &[
                    report("testfile2.dat", &[2], &pct()),
                    report("testfile.dat", &[0, 1], &pct())
                ]
            ),
            format!(
                "{head}target: testfile.dat [thread: 0 1]\ntarget: testfile2.dat [thread: 2]\n{ranges}"
            )
        );
        // One path given twice (threads 0 and 2; thread 1 on another path): one line for it.
        assert_eq!(
            text(
                &ts,
                &[
                    report("testfile.dat", &[0], &pct()),
                    report("testfile2.dat", &[1], &pct()),
                    report("testfile.dat", &[2], &pct())
                ]
            ),
            format!(
                "{head}target: testfile.dat [thread: 0 0 2]\ntarget: testfile2.dat [thread: 1]\n{ranges}"
            )
        );
        // Two distributions (one target of 100KiB, one of 1MiB): each with its own ranges.
        let mib = vec![
            range(10.0, 0, 100 * KIB),
            range(10.0, 100 * KIB, 104 * KIB),
            range(0.0, 204 * KIB, 100 * KIB),
            range(80.0, 304 * KIB, 720 * KIB),
        ];
        assert_eq!(
            text(
                &ts,
                &[
                    report("testfile.dat", &[0], &pct()),
                    report("testfile2.dat", &[1], &mib)
                ]
            ),
            format!(
                "{head}target: testfile.dat [thread: 0]\n{ranges}target: testfile2.dat [thread: 1]\n    10% of IO => [     0    -    100KiB)\n    10% of IO => [   100KiB -    204KiB)\n    80% of IO => [   304KiB -      1MiB)\n"
            )
        );
    }

    #[test]
    fn a_trimmed_absolute_distribution_shows_one_decimal_on_every_row() {
        // -rdabs10/50k:20/10k:30/1G on a 100KiB target (DiskSpd 2.3's unit test); 50.0 too.
        let given = [(10, 50 * KIB), (20, 10 * KIB), (30, 1 << 30), (40, 0)];
        let ts = timespan(DistributionKind::Absolute, &given, &["testfile.dat"]);
        let ranges = [
            range(100.0 / 6.0, 0, 50 * KIB),
            range(100.0 / 3.0, 50 * KIB, 10 * KIB),
            range(50.0, 60 * KIB, 40 * KIB),
        ];
        assert_eq!(
            text(&ts, &[report("testfile.dat", &[0], &ranges)]),
            "\nEffective IO Distributions\n--------------------------\ntarget: testfile.dat [thread: 0]\n    16.7% of IO => [     0    -     50KiB)\n    33.3% of IO => [    50KiB -     60KiB)\n    50.0% of IO => [    60KiB -    100KiB)\n"
        );
    }
}
