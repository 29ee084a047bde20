//! The report model: every number any format prints, computed once from the profile, the machine
//! and the measurements. Values are kept in base units (bytes, nanoseconds, per second) under
//! names that say so; the formatters (one per file) only convert units and lay numbers out. The
//! model serialises as the JSON results.

pub mod compare;
pub mod html;
pub mod json;
pub mod merge;
pub mod svg;
pub mod text;
pub mod xml;

use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::counters::Counter;
use crate::engine::{EngineSetup, Op};
use crate::profile::{Profile, ResultFormat, TimeSpan};
use crate::stats::cpu::{CpuUsage, usage_between};
use crate::stats::intervals::{Interval, iops_stddev, valid};
use crate::stats::{IoFailure, LostTarget, OpStats, RunResults, TimeSpanResults, WaitStats};
use crate::system::SystemInfo;
use crate::target::distribution::EffectiveRange;

/// The JSON schema version of [`Report`].
pub const SCHEMA_VERSION: u32 = 1;

/// DiskSpd's text percentile rows, in order, with their labels.
pub const TEXT_ROWS: [(&str, f64); 15] = [
    ("min", 0.0),
    ("25th", 25.0),
    ("50th", 50.0),
    ("75th", 75.0),
    ("90th", 90.0),
    ("95th", 95.0),
    ("99th", 99.0),
    ("3-nines", 99.9),
    ("4-nines", 99.99),
    ("5-nines", 99.999),
    ("6-nines", 99.9999),
    ("7-nines", 99.99999),
    ("8-nines", 99.999999),
    ("9-nines", 99.9999999),
    ("max", 100.0),
];

/// The nines DiskSpd's XML lists after the integer percentiles.
pub const NINES: [f64; 7] = [
    99.9, 99.99, 99.999, 99.9999, 99.99999, 99.999999, 99.9999999,
];

/// DiskSpd's XML percentiles: 0, 1, …, 99, the nines, 100.
pub fn xml_percentiles() -> Vec<f64> {
    (0..100)
        .map(f64::from)
        .chain(NINES)
        .chain([100.0])
        .collect()
}

/// The percentiles the model computes: DiskSpd's rows, every integer percentile, and `extra`.
pub fn percentile_list(extra: &[f64]) -> Vec<f64> {
    let mut list = xml_percentiles();
    list.extend(TEXT_ROWS.iter().map(|(_, p)| *p));
    list.extend_from_slice(extra);
    list.sort_by(|a, b| a.total_cmp(b));
    list.dedup();
    list
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Version of this document's layout.
    pub schema_version: u32,
    /// The program that wrote it.
    pub tool: Tool,
    /// The profile that ran, fully resolved.
    pub profile: Profile,
    /// The machine.
    pub system: SystemInfo,
    /// One entry per timespan that ran.
    pub timespans: Vec<TimeSpanReport>,
    /// Sums over every timespan that measured something (when there are several).
    pub totals: Option<Totals>,
    /// A `--checkpoint` written while the run went on: the numbers cover it up to then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// Name and version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// `iospd`.
    pub name: String,
    /// The crate version.
    pub version: String,
}

/// One timespan's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeSpanReport {
    /// When the run started, `YYYY/MM/DD HH:MM:SS UTC`.
    pub start_time_utc: String,
    /// The same, in seconds since the epoch with milliseconds.
    pub start_unix_s: f64,
    /// The engine that ran.
    pub engine: EngineSetup,
    /// The completion polling budget the threads used.
    pub spin_ns: u64,
    /// A signal or a `-yp` event cut the run short.
    pub interrupted: bool,
    /// The I/O that failed and stopped the run.
    pub failure: Option<IoFailure>,
    /// The file target that was removed or truncated and stopped the run.
    pub lost_target: Option<LostTarget>,
    /// `--trace`: records written and dropped.
    pub trace: Option<crate::stats::TraceCounts>,
    /// The measurements; `None` when the run stopped before the measured window.
    pub measured: Option<Measured>,
}

/// Numbers of a timespan that reached its measured window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Length of the measured window.
    pub duration_s: f64,
    /// Worker threads.
    pub thread_count: usize,
    /// CPUs the threads were pinned to (empty without affinity).
    pub effective_affinity: Vec<u32>,
    /// Per-CPU utilisation over the window.
    pub cpu: Vec<CpuUsage>,
    /// Mean over CPUs.
    pub cpu_average: CpuUsage,
    /// Every thread and target together.
    pub totals: Directions,
    /// Per target path, over its threads (in first-seen order).
    pub targets: Vec<TargetTotals>,
    /// Per thread and target.
    pub threads: Vec<ThreadReport>,
    /// `-e` counter changes over the window.
    pub counters: Vec<Counter>,
    /// `-rd` distributions as applied to each target.
    pub distributions: Vec<DistributionReport>,
    /// `-D`: per interval, every thread merged: each target and all together, with percentiles.
    pub timeline: Vec<crate::stats::timeline::Row>,
}

/// Reads, writes, and both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Directions {
    /// Reads.
    pub read: Direction,
    /// Writes.
    pub write: Direction,
    /// Reads and writes together.
    pub total: Direction,
}

/// Counts, rates and latency of one direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Direction {
    /// I/Os completed in the window.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// I/Os per second of window.
    pub ios_per_s: f64,
    /// Bytes per second of window.
    pub bytes_per_s: f64,
    /// Latency statistics; `None` without I/O.
    pub latency: Option<Latency>,
    /// Under `-g`: latency from each I/O's intended start (see [`OpStats::from_intended`]).
    #[serde(default)]
    pub latency_from_intended: Option<Latency>,
    /// `-D`: standard deviation of IOPS across intervals.
    pub ios_per_s_stddev: Option<f64>,
    /// `-D`: one entry per interval.
    pub intervals: Vec<IntervalReport>,
}

/// Latency of one direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Samples.
    pub count: u64,
    /// Exact minimum.
    pub min_ns: u64,
    /// Exact maximum.
    pub max_ns: u64,
    /// Exact mean.
    pub mean_ns: f64,
    /// Exact population standard deviation.
    pub stddev_ns: f64,
    /// Nearest-rank percentiles.
    pub percentiles: Vec<Percentile>,
    /// Distinct histogram buckets with samples.
    pub distinct_values: usize,
    /// The histogram in HdrHistogram's compressed V2 format, base64-encoded.
    pub histogram_v2: String,
    /// Exact sum of the latencies, ns (a decimal string: it can exceed 2^64).
    #[serde(with = "decimal")]
    pub sum_ns: u128,
    /// Exact sum of the squared latencies, ns² (a decimal string).
    #[serde(with = "decimal")]
    pub sum_squares_ns2: u128,
}

impl Latency {
    /// The histogram and exact moments back, to merge runs exactly.
    pub fn histogram(&self) -> Result<crate::stats::histogram::LatencyHistogram, String> {
        crate::stats::histogram::LatencyHistogram::decode(
            &self.histogram_v2,
            self.min_ns,
            self.max_ns,
            self.sum_ns,
            self.sum_squares_ns2,
        )
    }
}

/// 128-bit integers as decimal strings, which every JSON reader keeps exact.
mod decimal {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u128, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&value.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u128, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl Latency {
    /// The value at percentile `p` (which must be in the computed list).
    pub fn at(&self, p: f64) -> u64 {
        self.percentiles
            .iter()
            .find(|x| x.percentile == p)
            .map_or(0, |x| x.value_ns)
    }
}

/// One percentile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    /// 0 to 100.
    pub percentile: f64,
    /// Latency at that percentile.
    pub value_ns: u64,
}

/// One `-D` interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IntervalReport {
    /// End of the interval, from the start of the window.
    pub end_ms: u64,
    /// I/Os completed.
    pub ios: u64,
    /// I/Os per second in the interval.
    pub ios_per_s: f64,
    /// Latency minimum (0 without I/O).
    pub latency_min_ns: u64,
    /// Latency maximum.
    pub latency_max_ns: u64,
    /// Latency mean.
    pub latency_mean_ns: f64,
    /// Latency standard deviation.
    pub latency_stddev_ns: f64,
}

/// One target path over all its threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetTotals {
    /// The path.
    pub path: String,
    /// Reads, writes, both.
    #[serde(flatten)]
    pub directions: Directions,
}

/// One thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadReport {
    /// Global thread number.
    pub thread: u32,
    /// CPU it was pinned to.
    pub cpu: Option<u32>,
    /// How it waited.
    pub waits: WaitStats,
    /// Engine submissions per second of window.
    pub submits_per_s: f64,
    /// The I/Os it keeps in flight when nothing holds them back.
    pub depth: u32,
    /// The time-weighted average of I/Os it had in flight over the window.
    pub achieved_depth: f64,
    /// Its CPU time (user + system) as a share of the window.
    pub on_cpu_percent: f64,
    /// The share of the window it spent polling for completions (`--spin`): on a CPU, but waiting.
    pub spin_percent: f64,
    /// The share of the window it spent inside the engine's submit-and-wait calls.
    pub in_engine_percent: f64,
    /// The share of the window it spent in the loop itself (offsets, filling, recording).
    pub in_loop_percent: f64,
    /// Its targets.
    pub targets: Vec<ThreadTarget>,
}

impl ThreadReport {
    /// Whether the thread was busy on a CPU for nearly the whole window, so that the load
    /// generator rather than the device may have set the pace.
    pub fn generator_limited(&self) -> bool {
        self.on_cpu_percent - self.spin_percent >= GENERATOR_LIMIT_PERCENT
    }
}

/// A thread on a CPU for this share of the window or more may be the bottleneck itself.
pub const GENERATOR_LIMIT_PERCENT: f64 = 90.0;

/// One target of one thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadTarget {
    /// Index of the target in the timespan.
    pub target: usize,
    /// The path.
    pub path: String,
    /// Size of the file or device.
    pub size_bytes: u64,
    /// Reads, writes, both.
    #[serde(flatten)]
    pub directions: Directions,
}

/// A `-rd` distribution as applied to a target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DistributionReport {
    /// The path.
    pub path: String,
    /// Threads that use it.
    pub threads: Vec<u32>,
    /// The effective ranges, relative to the base offset.
    pub ranges: Vec<EffectiveRange>,
}

/// Sums over several timespans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Measured seconds, summed.
    pub duration_s: f64,
    /// Reads.
    pub read: Sum,
    /// Writes.
    pub write: Sum,
    /// Both.
    pub total: Sum,
}

/// Counts and rates summed over timespans.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sum {
    /// I/Os.
    pub ios: u64,
    /// Bytes.
    pub bytes: u64,
    /// I/Os per second.
    pub ios_per_s: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
}

/// Sums over every timespan that measured something, when the profile has several (`planned`).
pub(crate) fn totals_over(planned: usize, timespans: &[TimeSpanReport]) -> Option<Totals> {
    let measured: Vec<&Measured> = timespans
        .iter()
        .filter_map(|t| t.measured.as_ref())
        .collect();
    (planned > 1).then(|| {
        let duration_s: f64 = measured.iter().map(|m| m.duration_s).sum();
        let sum = |pick: fn(&Directions) -> &Direction| {
            let ios = measured.iter().map(|m| pick(&m.totals).ios).sum();
            let bytes = measured.iter().map(|m| pick(&m.totals).bytes).sum();
            Sum {
                ios,
                bytes,
                ios_per_s: rate(ios, duration_s),
                bytes_per_s: rate(bytes, duration_s),
            }
        };
        Totals {
            duration_s,
            read: sum(|d| &d.read),
            write: sum(|d| &d.write),
            total: sum(|d| &d.total),
        }
    })
}

impl Report {
    /// Builds the report from a profile, the machine and the measurements.
    pub fn new(profile: &Profile, system: &SystemInfo, results: &RunResults) -> Report {
        let percentiles = percentile_list(&profile.percentiles);
        let timespans: Vec<TimeSpanReport> = profile
            .timespans
            .iter()
            .zip(&results.timespans)
            .map(|(ts, r)| TimeSpanReport {
                start_time_utc: utc_string(r.start_time),
                start_unix_s: r
                    .start_time
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0.0, |d| (d.as_millis() as f64) / 1e3),
                engine: r.engine,
                spin_ns: r.spin_ns,
                interrupted: r.interrupted,
                failure: r.failure.clone(),
                lost_target: r.lost.clone(),
                trace: r.trace.clone(),
                measured: r
                    .window
                    .map(|w| measured(ts, r, w as f64 / 1e9, &percentiles)),
            })
            .collect();
        let totals = totals_over(profile.timespans.len(), &timespans);
        Report {
            schema_version: SCHEMA_VERSION,
            tool: Tool {
                name: "iospd".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            profile: profile.clone(),
            system: system.clone(),
            timespans,
            totals,
            partial: false,
        }
    }

    /// Checks a report read from a file: every latency histogram decodes and agrees with the
    /// exact minimum and maximum kept beside it.
    pub fn check_histograms(&self) -> Result<(), String> {
        let measured = self.timespans.iter().filter_map(|t| t.measured.as_ref());
        for m in measured {
            let all = std::iter::once(&m.totals)
                .chain(m.targets.iter().map(|t| &t.directions))
                .chain(
                    m.threads
                        .iter()
                        .flat_map(|t| t.targets.iter().map(|t| &t.directions)),
                );
            for directions in all {
                for d in [&directions.read, &directions.write, &directions.total] {
                    for latency in d.latency.iter().chain(&d.latency_from_intended) {
                        latency.histogram()?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The same report marked as a checkpoint of a run that has not finished.
    pub fn checkpoint(mut self) -> Report {
        self.partial = true;
        self
    }

    /// The report in `format`.
    pub fn render(&self, format: ResultFormat) -> String {
        match format {
            ResultFormat::Text => text::render(self),
            ResultFormat::Xml => xml::render(self),
            ResultFormat::Json => json::render(self),
            ResultFormat::Html => html::render(self),
        }
    }
}

/// What `-Rp` prints: the resolved profile in `format`.
pub fn profile_document(profile: &Profile, format: ResultFormat) -> String {
    match format {
        ResultFormat::Text | ResultFormat::Html => text::profile_text(profile, &[]),
        ResultFormat::Xml => crate::profile::xml::write_profile(profile),
        ResultFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(profile).expect("a profile always serialises");
            text.push('\n');
            text
        }
    }
}

/// What `-Rs` prints: the system information in `format`.
pub fn system_document(system: &SystemInfo, now: SystemTime, format: ResultFormat) -> String {
    let now = utc_string(now);
    match format {
        ResultFormat::Text | ResultFormat::Html => text::system_text(system, &now),
        ResultFormat::Xml => {
            let mut out = crate::profile::xml::Out::new(0);
            xml::system(&mut out, system, &now, env!("CARGO_PKG_VERSION"));
            out.text
        }
        ResultFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(system).expect("system information always serialises");
            text.push('\n');
            text
        }
    }
}

fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// The latency summary of a histogram at `percentiles`; `None` when it is empty.
fn latency_of(
    h: &crate::stats::histogram::LatencyHistogram,
    percentiles: &[f64],
) -> Option<Latency> {
    (h.count() > 0).then(|| {
        let fractions: Vec<f64> = percentiles.iter().map(|p| p / 100.0).collect();
        Latency {
            count: h.count(),
            min_ns: h.min(),
            max_ns: h.max(),
            mean_ns: h.mean(),
            stddev_ns: h.stddev(),
            percentiles: percentiles
                .iter()
                .zip(h.percentiles(&fractions))
                .map(|(&percentile, value_ns)| Percentile {
                    percentile,
                    value_ns,
                })
                .collect(),
            distinct_values: h.distinct_values(),
            histogram_v2: h.encode_v2(),
            sum_ns: h.sum(),
            sum_squares_ns2: h.sum_of_squares(),
        }
    })
}

pub(crate) fn direction(
    stats: &OpStats,
    seconds: f64,
    interval_ms: Option<u32>,
    percentiles: &[f64],
) -> Direction {
    let latency = latency_of(&stats.latency, percentiles);
    let latency_from_intended = stats
        .from_intended
        .as_deref()
        .and_then(|h| latency_of(h, percentiles));
    let intervals = match interval_ms {
        None => Vec::new(),
        Some(ms) => valid(&stats.intervals)
            .iter()
            .enumerate()
            .map(|(i, b): (usize, &Interval)| IntervalReport {
                end_ms: (i as u64 + 1) * ms as u64,
                ios: b.count,
                ios_per_s: b.count as f64 * 1000.0 / ms as f64,
                latency_min_ns: if b.count == 0 { 0 } else { b.min_ns },
                latency_max_ns: b.max_ns,
                latency_mean_ns: b.mean_ns(),
                latency_stddev_ns: b.stddev_ns(),
            })
            .collect(),
    };
    Direction {
        ios: stats.ios,
        bytes: stats.bytes,
        ios_per_s: rate(stats.ios, seconds),
        bytes_per_s: rate(stats.bytes, seconds),
        latency,
        latency_from_intended,
        ios_per_s_stddev: interval_ms.map(|ms| iops_stddev(&stats.intervals, ms)),
        intervals,
    }
}

pub(crate) fn directions(
    read: &OpStats,
    write: &OpStats,
    seconds: f64,
    interval_ms: Option<u32>,
    percentiles: &[f64],
) -> Directions {
    let mut total = read.clone();
    total.merge(write);
    Directions {
        read: direction(read, seconds, interval_ms, percentiles),
        write: direction(write, seconds, interval_ms, percentiles),
        total: direction(&total, seconds, interval_ms, percentiles),
    }
}

fn measured(
    ts: &TimeSpan,
    results: &TimeSpanResults,
    seconds: f64,
    percentiles: &[f64],
) -> Measured {
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
    let interval_ms = ts.iops_interval_ms;
    let path_of = |target: usize| ts.targets[target].path.display().to_string();
    let (mut read, mut write) = (OpStats::default(), OpStats::default());
    let mut per_path: Vec<(String, OpStats, OpStats)> = Vec::new();
    let mut threads = Vec::with_capacity(results.threads.len());
    for thread in &results.threads {
        let mut targets = Vec::with_capacity(thread.targets.len());
        for stats in &thread.targets {
            read.merge(&stats.read);
            write.merge(&stats.write);
            let path = path_of(stats.target);
            match per_path.iter_mut().find(|(p, _, _)| *p == path) {
                Some((_, r, w)) => {
                    r.merge(&stats.read);
                    w.merge(&stats.write);
                }
                None => per_path.push((path.clone(), stats.read.clone(), stats.write.clone())),
            }
            targets.push(ThreadTarget {
                target: stats.target,
                path,
                size_bytes: results.target_sizes[stats.target],
                directions: directions(
                    &stats.read,
                    &stats.write,
                    seconds,
                    interval_ms,
                    percentiles,
                ),
            });
        }
        let window_ns = seconds * 1e9;
        let share = |ns: u64| {
            if window_ns > 0.0 {
                ns as f64 / window_ns * 100.0
            } else {
                0.0
            }
        };
        let w = &thread.waits;
        threads.push(ThreadReport {
            thread: thread.thread,
            cpu: thread.cpu,
            waits: w.clone(),
            submits_per_s: rate(w.submits, seconds),
            depth: thread.depth,
            achieved_depth: if window_ns > 0.0 {
                w.depth_ns as f64 / window_ns
            } else {
                0.0
            },
            on_cpu_percent: share(w.cpu_user_ns + w.cpu_system_ns),
            spin_percent: share(w.spin_ns),
            in_engine_percent: share(w.in_engine_ns),
            in_loop_percent: share(w.in_loop_ns),
            targets,
        });
    }
    let distributions = results
        .distributions
        .iter()
        .enumerate()
        .filter(|(_, ranges)| !ranges.is_empty())
        .map(|(target, ranges)| DistributionReport {
            path: path_of(target),
            threads: results
                .threads
                .iter()
                .filter(|t| t.targets.iter().any(|s| s.target == target))
                .map(|t| t.thread)
                .collect(),
            ranges: ranges.clone(),
        })
        .collect();
    Measured {
        duration_s: seconds,
        thread_count: results.threads.len(),
        effective_affinity,
        cpu,
        cpu_average,
        totals: directions(&read, &write, seconds, interval_ms, percentiles),
        targets: per_path
            .into_iter()
            .map(|(path, r, w)| TargetTotals {
                path,
                directions: directions(&r, &w, seconds, interval_ms, percentiles),
            })
            .collect(),
        threads,
        counters: results.counters.clone(),
        distributions,
        timeline: results.timeline.clone(),
    }
}

impl Directions {
    /// The direction `op`, or both for `None`.
    pub fn get(&self, op: Option<Op>) -> &Direction {
        match op {
            Some(Op::Read) => &self.read,
            Some(Op::Write) => &self.write,
            None => &self.total,
        }
    }
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

    #[test]
    fn percentile_lists() {
        let xml = xml_percentiles();
        assert_eq!(xml.len(), 108);
        assert_eq!(
            (xml[0], xml[99], xml[100], xml[107]),
            (0.0, 99.0, 99.9, 100.0)
        );
        let list = percentile_list(&[99.5, 50.0]);
        assert!(list.contains(&99.5));
        assert_eq!(list.iter().filter(|&&p| p == 50.0).count(), 1);
        assert!(list.windows(2).all(|w| w[0] < w[1]));
    }
}
