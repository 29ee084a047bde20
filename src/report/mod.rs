//! The report model: every number any format prints, computed once from the profile and the
//! measurements. Formatters (one per file) only lay these numbers out.

pub mod text;

use std::time::SystemTime;

use crate::engine::EngineSetup;
use crate::profile::{Profile, TimeSpan};
use crate::stats::cpu::{CpuUsage, usage_between};
use crate::stats::intervals::iops_stddev;
use crate::stats::{OpStats, RunResults, TargetStats, TimeSpanResults};
use crate::system::SystemInfo;

/// DiskSpd's percentile rows, in order, with their labels (min and max come from the exact values).
pub const PERCENTILE_ROWS: [(&str, f64); 15] = [
    ("min", 0.0),
    ("25th", 0.25),
    ("50th", 0.50),
    ("75th", 0.75),
    ("90th", 0.90),
    ("95th", 0.95),
    ("99th", 0.99),
    ("3-nines", 0.999),
    ("4-nines", 0.9999),
    ("5-nines", 0.99999),
    ("6-nines", 0.999999),
    ("7-nines", 0.9999999),
    ("8-nines", 0.99999999),
    ("9-nines", 0.999999999),
    ("max", 1.0),
];

/// The whole report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The profile that ran.
    pub profile: Profile,
    /// The machine.
    pub system: SystemInfo,
    /// One entry per timespan.
    pub timespans: Vec<TimeSpanReport>,
}

/// One timespan's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSpanReport {
    /// When the run started.
    pub start_time: SystemTime,
    /// The engine that ran.
    pub engine: EngineSetup,
    /// The completion polling budget the threads used, in nanoseconds.
    pub spin_ns: u64,
    /// The measurements; `None` when the run stopped before the measured window.
    pub measured: Option<Measured>,
}

/// Numbers of a timespan that reached its measured window.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Length of the measured window in seconds.
    pub seconds: f64,
    /// Worker threads.
    pub thread_count: usize,
    /// CPUs the threads were pinned to (empty without affinity).
    pub effective_affinity: Vec<u32>,
    /// Per-CPU utilisation over the window.
    pub cpu: Vec<CpuUsage>,
    /// Mean over CPUs.
    pub cpu_average: CpuUsage,
    /// Reads and writes.
    pub total: Section,
    /// Reads.
    pub read: Section,
    /// Writes.
    pub write: Section,
    /// Percentile tables: one per target path when there are several, then the total.
    pub latency: Vec<LatencyTable>,
}

/// A Total/Read/Write table.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// One row per thread and target.
    pub rows: Vec<Row>,
    /// The sum over rows.
    pub total: Row,
}

/// One line of a Total/Read/Write table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Global thread number.
    pub thread: u32,
    /// Target path.
    pub path: String,
    /// Target size in bytes.
    pub target_size: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// I/Os completed.
    pub ios: u64,
    /// MiB per second.
    pub mib_per_s: f64,
    /// I/Os per second.
    pub iops: f64,
    /// Mean latency in milliseconds.
    pub avg_latency_ms: f64,
    /// Standard deviation of IOPS across `-D` intervals.
    pub iops_stddev: f64,
    /// Standard deviation of latency in milliseconds; `None` without samples.
    pub latency_stddev_ms: Option<f64>,
}

/// One percentile table.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyTable {
    /// The target path, or `None` for the total over all targets.
    pub path: Option<String>,
    /// One row per entry of [`PERCENTILE_ROWS`].
    pub rows: Vec<LatencyRow>,
}

/// One percentile across directions, in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyRow {
    /// `min`, `25th`, … `max`.
    pub label: &'static str,
    /// Reads; `None` without reads.
    pub read: Option<f64>,
    /// Writes; `None` without writes.
    pub write: Option<f64>,
    /// Both.
    pub total: f64,
}

const NS_PER_MS: f64 = 1_000_000.0;

impl Report {
    /// Builds the report from a profile, the machine and the measurements.
    pub fn new(profile: &Profile, system: &SystemInfo, results: &RunResults) -> Report {
        let timespans = profile
            .timespans
            .iter()
            .zip(&results.timespans)
            .map(|(ts, r)| TimeSpanReport {
                start_time: r.start_time,
                engine: r.engine,
                spin_ns: r.spin_ns,
                measured: r.window.map(|window| measured(ts, r, window as f64 / 1e9)),
            })
            .collect();
        Report {
            profile: profile.clone(),
            system: system.clone(),
            timespans,
        }
    }
}

#[derive(Clone, Copy)]
enum Direction {
    Total,
    Read,
    Write,
}

fn pick(stats: &TargetStats, direction: Direction) -> OpStats {
    match direction {
        Direction::Total => stats.total(),
        Direction::Read => stats.read.clone(),
        Direction::Write => stats.write.clone(),
    }
}

fn measured(ts: &TimeSpan, results: &TimeSpanResults, seconds: f64) -> Measured {
    let cpu = usage_between(&results.cpu.0, &results.cpu.1);
    let n = cpu.len().max(1) as f64;
    let cpu_average = CpuUsage {
        cpu: 0,
        usage: cpu.iter().map(|c| c.usage).sum::<f64>() / n,
        user: cpu.iter().map(|c| c.user).sum::<f64>() / n,
        kernel: cpu.iter().map(|c| c.kernel).sum::<f64>() / n,
        idle: cpu.iter().map(|c| c.idle).sum::<f64>() / n,
    };
    let mut effective_affinity: Vec<u32> = results.threads.iter().filter_map(|t| t.cpu).collect();
    effective_affinity.sort_unstable();
    effective_affinity.dedup();
    let section = |direction| section(ts, results, seconds, direction);
    Measured {
        seconds,
        thread_count: results.threads.len(),
        effective_affinity,
        cpu,
        cpu_average,
        total: section(Direction::Total),
        read: section(Direction::Read),
        write: section(Direction::Write),
        latency: if ts.measure_latency {
            latency_tables(ts, results)
        } else {
            Vec::new()
        },
    }
}

fn row(
    thread: u32,
    path: String,
    target_size: u64,
    stats: &OpStats,
    seconds: f64,
    interval_ms: u32,
) -> Row {
    let latency = &stats.latency;
    Row {
        thread,
        path,
        target_size,
        bytes: stats.bytes,
        ios: stats.ios,
        mib_per_s: stats.bytes as f64 / (1024.0 * 1024.0) / seconds,
        iops: stats.ios as f64 / seconds,
        avg_latency_ms: latency.mean() / NS_PER_MS,
        iops_stddev: iops_stddev(&stats.intervals, interval_ms),
        latency_stddev_ms: (latency.count() > 0).then(|| latency.stddev() / NS_PER_MS),
    }
}

fn section(
    ts: &TimeSpan,
    results: &TimeSpanResults,
    seconds: f64,
    direction: Direction,
) -> Section {
    let interval_ms = ts.iops_interval_ms.unwrap_or(1000);
    let mut rows = Vec::new();
    let mut sum = OpStats::default();
    for thread in &results.threads {
        for stats in &thread.targets {
            let op = pick(stats, direction);
            let path = ts.targets[stats.target].path.display().to_string();
            rows.push(row(
                thread.thread,
                path,
                results.target_sizes[stats.target],
                &op,
                seconds,
                interval_ms,
            ));
            sum.merge(&op);
        }
    }
    Section {
        rows,
        total: row(0, String::new(), 0, &sum, seconds, interval_ms),
    }
}

fn latency_table(path: Option<String>, read: &OpStats, write: &OpStats) -> LatencyTable {
    let mut total = read.clone();
    total.merge(write);
    let ps: Vec<f64> = PERCENTILE_ROWS.iter().map(|(_, p)| *p).collect();
    let values = |stats: &OpStats| -> Option<Vec<f64>> {
        (stats.latency.count() > 0).then(|| {
            stats
                .latency
                .percentiles(&ps)
                .into_iter()
                .map(|ns| ns as f64 / NS_PER_MS)
                .collect()
        })
    };
    let (r, w) = (values(read), values(write));
    let t = values(&total).unwrap_or_else(|| vec![0.0; ps.len()]);
    let rows = PERCENTILE_ROWS
        .iter()
        .enumerate()
        .map(|(i, (label, _))| LatencyRow {
            label,
            read: r.as_ref().map(|v| v[i]),
            write: w.as_ref().map(|v| v[i]),
            total: t[i],
        })
        .collect();
    LatencyTable { path, rows }
}

fn latency_tables(ts: &TimeSpan, results: &TimeSpanResults) -> Vec<LatencyTable> {
    let mut paths: Vec<String> = Vec::new();
    let mut per_path: Vec<(OpStats, OpStats)> = Vec::new();
    let (mut read, mut write) = (OpStats::default(), OpStats::default());
    for thread in &results.threads {
        for stats in &thread.targets {
            let path = ts.targets[stats.target].path.display().to_string();
            let i = paths.iter().position(|p| *p == path).unwrap_or_else(|| {
                paths.push(path);
                per_path.push((OpStats::default(), OpStats::default()));
                paths.len() - 1
            });
            per_path[i].0.merge(&stats.read);
            per_path[i].1.merge(&stats.write);
            read.merge(&stats.read);
            write.merge(&stats.write);
        }
    }
    let mut tables = Vec::new();
    if paths.len() > 1 {
        for (path, (r, w)) in paths.into_iter().zip(&per_path) {
            tables.push(latency_table(Some(path), r, w));
        }
    }
    tables.push(latency_table(None, &read, &write));
    tables
}

/// Formats a wall-clock time as DiskSpd does: `2024/06/13 12:34:56 UTC`.
pub fn utc_string(time: SystemTime) -> String {
    let secs = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!(
        "{year:04}/{month:02}/{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn utc_dates() {
        let at = |s| utc_string(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970/01/01 00:00:00 UTC");
        assert_eq!(at(1_718_282_096), "2024/06/13 12:34:56 UTC");
        assert_eq!(at(1_709_164_800), "2024/02/29 00:00:00 UTC");
    }
}
