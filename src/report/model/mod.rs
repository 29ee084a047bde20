//! The report's model: every number any format prints, in base units under names that say so,
//! as the JSON results serialise it.

mod cluster;
pub mod fio;
mod reality;
mod repetitions;
mod replay;
mod sizes;
mod sweep;

pub use cluster::{Aggregate, ClusterReport, HostReport, RankReport, StartReport};
pub use reality::{
    CpuCheck, DeviceCheck, DeviceInterval, DeviceTime, Fingerprint, Generation, GeneratorCheck,
    IntervalTime, Reality, ReductionCheck, RequestTimes, Spread, ThreadWait,
};
pub use repetitions::{RepetitionGroup, RepetitionsReport};
pub use replay::{Lateness, ReplayDevice, ReplayReport, ReplaySecond, ReplaySlots};
pub use sizes::{BlockSizeReport, PriorityReport, PriorityRow, SizeOps, SizeRow};
pub use sweep::{Series, SweepPoint, SweepReport};

use serde::{Deserialize, Serialize};

use crate::counters::Counter;
use crate::engine::{EngineSetup, Op};
use crate::profile::Profile;
use crate::stats::cpu::CpuUsage;
use crate::stats::{IoFailure, LostTarget, WaitStats};
use crate::system::SystemInfo;
use crate::targets::distribution::EffectiveRange;

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
    /// `iospd sweep`: a row per point and the knees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepReport>,
    /// `--repeat`: how the repetitions of each timespan agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<RepetitionsReport>,
    /// A `--checkpoint` written while the run went on: the numbers cover it up to then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// A partial report written because the run could not end together (a rank lost): why, and
    /// whose results it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_why: Option<String>,
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
    /// What stopped the run before the measured window's end (`SIGINT`, the `-yp` event …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// The I/O that failed and stopped the run.
    pub failure: Option<IoFailure>,
    /// `--continue-on-error`: the failed I/Os the run counted and went on past.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_ios: Option<crate::stats::FailedIos>,
    /// `--steady-state`: whether the rule was met, when, and the window it judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_stop: Option<crate::stats::steady::SteadyOutcome>,
    /// The file target that was removed or truncated and stopped the run.
    pub lost_target: Option<LostTarget>,
    /// `--trace`: records written and dropped.
    pub trace: Option<crate::stats::TraceCounts>,
    /// How the start was agreed (`--start-at`, or the ranks of a run across hosts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<StartReport>,
    /// A run across hosts: every rank's clock and start, the hosts, the aggregate rates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterReport>,
    /// `--verify`: blocks written and checked over the whole timespan (warm-up and cool-down
    /// included), failures by kind, and the first bad blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::verify::VerifyCounts>,
    /// `--dedupe`: per target, the plan and what the run's writes left, counted exactly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dedupes: Vec<DedupeReport>,
    /// `iospd replay`: what was replayed and how faithfully in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplayReport>,
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
    /// The I/Os the threads keep in flight when nothing holds them back, together.
    #[serde(default)]
    pub depth: u32,
    /// The time-weighted I/Os in flight over the window, together.
    #[serde(default)]
    pub achieved_depth: f64,
    /// Engine submissions per second of window, all threads together.
    #[serde(default)]
    pub submits_per_s: f64,
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
    /// `--distribution`: per target, the hot sets' share of the measured I/O.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skews: Vec<SkewReport>,
    /// `--bssplit`: per target, its reads and writes by block size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block_sizes: Vec<BlockSizeReport>,
    /// `--ioprio-split`: per target, its reads and writes by I/O priority.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub priorities: Vec<PriorityReport>,
    /// `-D`: per interval, every thread merged: each target and all together, with percentiles.
    pub timeline: Vec<crate::stats::timeline::Row>,
    /// Whether the window measured the device ("is this real").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reality: Option<Reality>,
    /// `-D`: SNIA's steady-state test over the IOPS of the last five whole intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<crate::stats::confidence::SteadyState>,
    /// The window's slowest I/Os, the slowest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slowest: Vec<SlowIoReport>,
}

/// One of a window's slowest I/Os: when, where, and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlowIoReport {
    /// From its submission to its completion being seen.
    pub latency_ns: u64,
    /// When it completed, in seconds from the start of the measured window.
    pub completed_s: f64,
    /// The thread that issued it.
    pub thread: u32,
    /// Its target.
    pub path: String,
    pub op: crate::engine::Op,
    /// Byte offset in the target.
    pub offset: u64,
    /// Bytes it moved.
    pub bytes: u32,
    /// The time on the device of the request that served it (the device clock's), when found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_ns: Option<u64>,
}

/// Reads, writes, and both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Directions {
    /// Reads.
    pub read: Direction,
    /// Writes.
    pub write: Direction,
    /// Reads and writes together (trims and flushes move no data of their own and are apart).
    pub total: Direction,
    /// `--trim`: discards; absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<Direction>,
    /// `--fsync`/`--fdatasync`: flushes; absent without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush: Option<Direction>,
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
    /// The distribution the HTML report draws; not in the JSON, rebuilt from the histogram when a
    /// result is read back.
    #[serde(skip)]
    pub shape: Shape,
}

/// A latency distribution as charts draw it, computed once from the histogram.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shape {
    /// Ten bins per decade: (the bin's middle, ns; I/Os in it).
    pub bins: Vec<(f64, u64)>,
    /// The percentile curve in steps of 0.05 nines (0 is p0, 1 p90, 2 p99, …), as far as the
    /// samples reach: (nines, ns).
    pub curve: Vec<(f64, u64)>,
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
    /// Exact sum of the latencies, ns (a decimal string), so merged intervals are exact.
    #[serde(with = "decimal")]
    pub latency_sum_ns: u128,
    /// Exact sum of the squared latencies, ns² (a decimal string).
    #[serde(with = "decimal")]
    pub latency_sum_squares_ns2: u128,
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
    /// In a run across hosts: the rank and host that ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<RankHost>,
    /// Its targets.
    pub targets: Vec<ThreadTarget>,
}

/// One process of a run across hosts: its MPI rank and the host it ran on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankHost {
    /// The MPI rank.
    pub rank: u32,
    /// The host name.
    pub host: String,
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

/// `--distribution` on one target: what was asked, over how many positions, and the share of the
/// measured I/O its hottest positions took, measured and by the distribution's closed form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkewReport {
    /// The path.
    pub path: String,
    /// The distribution asked.
    pub distribution: crate::profile::Skew,
    /// Aligned positions the offsets were drawn from.
    pub positions: u64,
    /// Measured I/Os.
    pub ios: u64,
    /// The hottest 1 % and 10 % of the positions.
    pub hot_sets: Vec<HotSet>,
}

/// `--dedupe` on one target: the plan over the range's units, and the units the timespan wrote
/// (warm-up and cool-down included; every unit when `-c` filled the file first) with the exact
/// count of distinct contents among them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DedupeReport {
    /// The path.
    pub path: String,
    /// What was asked.
    pub dedupe: crate::profile::Dedupe,
    /// Units in the range.
    pub units: u64,
    /// Units planned with content of their own.
    pub unique_units: u64,
    /// Shared contents planned.
    pub sets: u64,
    /// `units / (unique_units + sets)`.
    pub planned_ratio: f64,
    /// `-c` wrote every unit before the run.
    pub filled: bool,
    /// Units written (by `-c` and the run).
    pub written_units: u64,
    /// Distinct contents among them.
    pub distinct_contents: u64,
    /// `written_units / distinct_contents`.
    pub written_ratio: f64,
}

/// The hottest positions of a skewed target and the I/O they took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotSet {
    /// Percent of the positions (1, 10).
    pub percent_of_positions: u64,
    /// That many positions (at least one).
    pub positions: u64,
    /// Measured I/Os on them.
    pub ios: u64,
    /// Their share of the measured I/O, percent.
    pub measured_percent: f64,
    /// Their share by the distribution's closed form, percent.
    pub expected_percent: f64,
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

impl Directions {
    /// The direction `op`, or reads and writes together for `None`; `None` for a trim or a
    /// flush the target did not have.
    pub fn get(&self, op: Option<Op>) -> Option<&Direction> {
        match op {
            Some(Op::Read) => Some(&self.read),
            Some(Op::Write) => Some(&self.write),
            Some(Op::Trim) => self.trim.as_ref(),
            Some(Op::Fsync | Op::Fdatasync) => self.flush.as_ref(),
            None => Some(&self.total),
        }
    }
}

/// A run stopped before the end of the measured window it asked for: what stopped which timespan,
/// and how much of its window the results cover.
#[derive(Debug, Clone, PartialEq)]
pub struct StoppedEarly {
    /// What stopped it: `SIGINT`, the `-yp` event …
    pub by: String,
    /// The timespan, from 1.
    pub timespan: usize,
    /// The measured window the results cover, in seconds.
    pub measured_s: f64,
    /// The window asked for (`-d`), in seconds.
    pub asked_s: u32,
}

impl StoppedEarly {
    /// One line that says so, for the top of the text report and the HTML report.
    pub fn line(&self) -> String {
        format!(
            "Cut short: {} stopped timespan {} after {:.2}s of the {}s measured window asked for (-d{}); the results cover those {:.2}s.",
            self.by, self.timespan, self.measured_s, self.asked_s, self.asked_s, self.measured_s
        )
    }
}
