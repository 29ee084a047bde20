//! Measured data: per thread × target × direction counts, bytes, latency histogram and interval
//! counts. Every type adds (`merge`), so per-thread results combine exactly at the end; nothing here
//! formats or prints.

pub mod confidence;
pub mod cpu;
pub mod histogram;
pub mod intervals;
pub mod priorities;
pub mod reality;
pub mod replay;
pub mod series;
pub mod sizes;
pub mod slowest;
pub mod steady;
pub mod timeline;

use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::clock::Nanos;
use crate::engine::{EngineSetup, Op};

pub use histogram::LatencyHistogram;

/// One direction on one target in one thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpStats {
    /// Completed I/Os inside the measured window.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Their latencies.
    pub latency: LatencyHistogram,
    /// Completions and latency per `-D` interval (empty without `-D`).
    pub intervals: Vec<intervals::Interval>,
    /// Under `-g` pacing: latency from each I/O's intended start (when the schedule said it was
    /// due) rather than its submission, so a stall that delays submissions is not hidden
    /// (coordinated omission). `None` for unpaced targets.
    pub from_intended: Option<Box<LatencyHistogram>>,
}

impl OpStats {
    /// Empty statistics with `intervals` interval counters.
    pub fn new(intervals: usize) -> Self {
        OpStats {
            ios: 0,
            bytes: 0,
            latency: LatencyHistogram::new(),
            intervals: vec![intervals::Interval::default(); intervals],
            from_intended: None,
        }
    }

    /// Also keeps latency from the intended start (paced targets).
    pub fn with_intended(mut self) -> Self {
        self.from_intended = Some(Box::default());
        self
    }

    /// Records one completion.
    #[inline]
    pub fn record(&mut self, bytes: u64, latency: Nanos, interval: usize) {
        self.ios += 1;
        self.bytes += bytes;
        self.latency.record(latency);
        if let Some(bucket) = self.intervals.get_mut(interval) {
            bucket.record(latency);
        }
    }

    /// Adds another direction's statistics read from files, refusing sums that would not fit
    /// (results a run could not have measured: corrupt or crafted input).
    pub fn try_merge(&mut self, other: &OpStats) -> Result<(), Overflow> {
        let fits = self.ios.checked_add(other.ios).is_some()
            && self.bytes.checked_add(other.bytes).is_some()
            && self.latency.can_merge(&other.latency)
            && match (&self.from_intended, &other.from_intended) {
                (Some(mine), Some(theirs)) => mine.can_merge(theirs),
                _ => true,
            }
            && self
                .intervals
                .iter()
                .zip(&other.intervals)
                .all(|(mine, theirs)| mine.can_merge(theirs));
        if !fits {
            return Err(Overflow);
        }
        self.merge(other);
        Ok(())
    }

    /// Adds another direction's statistics.
    pub fn merge(&mut self, other: &OpStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.latency.merge(&other.latency);
        if let Some(theirs) = &other.from_intended {
            self.from_intended
                .get_or_insert_with(Box::default)
                .merge(theirs);
        }
        if self.intervals.len() < other.intervals.len() {
            self.intervals
                .resize(other.intervals.len(), intervals::Interval::default());
        }
        for (mine, theirs) in self.intervals.iter_mut().zip(&other.intervals) {
            mine.merge(theirs);
        }
    }
}

/// Counts too large to add: results no run could have measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "their counts are too large to add (over 2^64): they cannot come from real runs; check the files"
)]
pub struct Overflow;

/// Every kind of I/O on a target, or on several together: reads and writes, and trims and
/// flushes where a target has them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpSet {
    /// Reads.
    pub read: OpStats,
    /// Writes.
    pub write: OpStats,
    /// `--trim`.
    pub trim: Option<OpStats>,
    /// `--fsync`/`--fdatasync`.
    pub flush: Option<OpStats>,
}

impl OpSet {
    /// Adds another set's statistics.
    pub fn merge(&mut self, other: &OpSet) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        for (mine, theirs) in [
            (&mut self.trim, &other.trim),
            (&mut self.flush, &other.flush),
        ] {
            if let Some(theirs) = theirs {
                mine.get_or_insert_with(OpStats::default).merge(theirs);
            }
        }
    }
}

/// Every kind of I/O on one target in one thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TargetStats {
    /// Index of the target in the timespan.
    pub target: usize,
    /// Reads.
    pub read: OpStats,
    /// Writes.
    pub write: OpStats,
    /// `--trim`: discards (their bytes are the ranges discarded); `None` without it.
    pub trim: Option<Box<OpStats>>,
    /// `--fsync`/`--fdatasync`: flushes (no bytes); `None` without them.
    pub flush: Option<Box<OpStats>>,
    /// `--distribution`: how the measured I/Os fell on the hot sets.
    pub skew: SkewCounts,
    /// `--bssplit`: the reads and writes by size; `None` without it.
    pub by_size: Option<Box<sizes::SizeStats>>,
    /// `--ioprio-split`: the reads and writes by I/O priority; `None` without it.
    pub by_priority: Option<Box<priorities::PriorityStats>>,
}

/// `--distribution`: the measured I/Os of a target and how many fell in each of its hot sets (the
/// hottest 1 % and 10 % of its positions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkewCounts {
    /// The aligned positions offsets were drawn from (0 without `--distribution`).
    pub positions: u64,
    /// Measured I/Os.
    pub ios: u64,
    /// Of those, in the hottest 1 % and 10 % of the positions.
    pub hot: [u64; 2],
}

impl SkewCounts {
    /// One measured I/O, in these hot sets.
    #[inline]
    pub fn count(&mut self, hot: [bool; 2]) {
        self.ios += 1;
        self.hot[0] += hot[0] as u64;
        self.hot[1] += hot[1] as u64;
    }

    /// Another thread's or run's counts on the same target.
    pub fn merge(&mut self, other: &SkewCounts) {
        self.positions = self.positions.max(other.positions);
        self.ios += other.ios;
        self.hot[0] += other.hot[0];
        self.hot[1] += other.hot[1];
    }
}

impl TargetStats {
    /// Empty statistics for a target.
    pub fn new(target: usize, intervals: usize) -> Self {
        TargetStats {
            target,
            read: OpStats::new(intervals),
            write: OpStats::new(intervals),
            trim: None,
            flush: None,
            skew: SkewCounts::default(),
            by_size: None,
            by_priority: None,
        }
    }

    /// Keeps at least `n` `-D` intervals in every direction (a run bounded by its work, which has
    /// no length to size them by, grows them as it goes).
    pub fn keep_intervals(&mut self, n: usize) {
        let trim = self.trim.as_deref_mut();
        let flush = self.flush.as_deref_mut();
        for op in [Some(&mut self.read), Some(&mut self.write), trim, flush]
            .into_iter()
            .flatten()
        {
            if op.intervals.len() < n {
                op.intervals.resize(n, intervals::Interval::default());
            }
        }
    }

    /// Also counts reads and writes by size (`--bssplit`'s sizes, ascending).
    pub fn with_sizes(mut self, sizes: Option<Vec<u64>>) -> Self {
        self.by_size = sizes.map(|s| Box::new(sizes::SizeStats::new(s)));
        self
    }

    /// Also counts reads and writes by I/O priority (`--ioprio-split`'s, by rank).
    pub fn with_priorities(mut self, priorities: Option<Vec<u16>>) -> Self {
        self.by_priority = priorities.map(|p| Box::new(priorities::PriorityStats::new(p)));
        self
    }

    /// Also keeps statistics of trims (`trim`) and flushes (`flush`).
    pub fn with_ops(mut self, trim: bool, flush: bool, intervals: usize) -> Self {
        self.trim = trim.then(|| Box::new(OpStats::new(intervals)));
        self.flush = flush.then(|| Box::new(OpStats::new(intervals)));
        self
    }

    /// Also keeps latency from the intended start, in both directions (paced targets).
    pub fn with_intended(mut self) -> Self {
        self.read = self.read.with_intended();
        self.write = self.write.with_intended();
        self
    }

    /// The statistics of one direction.
    #[inline]
    pub fn op_mut(&mut self, op: Op) -> &mut OpStats {
        match op {
            Op::Read => &mut self.read,
            Op::Write => &mut self.write,
            Op::Trim => self
                .trim
                .as_mut()
                .expect("a target that trims keeps trim statistics"),
            Op::Fsync | Op::Fdatasync => self
                .flush
                .as_mut()
                .expect("a target that flushes keeps flush statistics"),
        }
    }

    /// Every kind of I/O of the target, apart.
    pub fn ops(&self) -> OpSet {
        OpSet {
            read: self.read.clone(),
            write: self.write.clone(),
            trim: self.trim.as_deref().cloned(),
            flush: self.flush.as_deref().cloned(),
        }
    }

    /// Reads and writes together.
    pub fn total(&self) -> OpStats {
        let mut total = self.read.clone();
        total.merge(&self.write);
        total
    }
}

/// How a thread waited for completions (`-vs`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitStats {
    /// Blocking waits for completions with every slot in flight.
    pub waits: u64,
    /// How many completions each blocking wait returned: 0, 1, … 6, 7 or more.
    pub completions_per_wait: [u64; 8],
    /// Non-blocking looks at the completion queue while polling.
    pub lookasides: u64,
    /// How many completions each look returned: 0, 1, … 6, 7 or more.
    pub completions_per_lookaside: [u64; 8],
    /// Waits with a timeout while pacing held slots back.
    pub throttle_waits: u64,
    /// Sleeps with nothing in flight while pacing held every slot back.
    pub throttle_sleeps: u64,
    /// Submissions to the engine (io_uring_enter calls for io_uring).
    pub submits: u64,
    /// Nanoseconds × I/Os in flight over the measured window (÷ the window = achieved depth).
    #[serde(default)]
    pub depth_ns: u64,
    /// Time of the window spent inside the engine's submit-and-wait calls.
    #[serde(default)]
    pub in_engine_ns: u64,
    /// Time of the window spent in the loop itself: choosing offsets, filling, recording.
    #[serde(default)]
    pub in_loop_ns: u64,
    /// Time of the window spent polling for completions (`--spin`), on a CPU but waiting.
    #[serde(default)]
    pub spin_ns: u64,
    /// The thread's user CPU time over the window.
    #[serde(default)]
    pub cpu_user_ns: u64,
    /// The thread's system CPU time over the window.
    #[serde(default)]
    pub cpu_system_ns: u64,
    /// Time of the window the thread was ready to run but waited for a CPU (the kernel's
    /// scheduler statistics); `None` where the kernel keeps none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_delay_ns: Option<u64>,
    /// The thread's context switches over the window, voluntary and not.
    #[serde(default)]
    pub context_switches: u64,
    /// Its page faults over the window served without I/O.
    #[serde(default)]
    pub minor_faults: u64,
    /// And with I/O.
    #[serde(default)]
    pub major_faults: u64,
    /// I/Os submitted in the window by the depth in flight once submitted, at fio's levels: 1,
    /// 2–3, 4–7, 8–15, 16–31, 32–63, 64 and more.
    #[serde(default)]
    pub submitted_at_depth: [u64; 7],
}

impl WaitStats {
    /// Counts one blocking wait that returned `n` completions.
    #[inline]
    pub fn record_wait(&mut self, n: usize) {
        self.waits += 1;
        self.completions_per_wait[n.min(7)] += 1;
    }

    /// Counts one look that returned `n` completions.
    #[inline]
    pub fn record_lookaside(&mut self, n: usize) {
        self.lookasides += 1;
        self.completions_per_lookaside[n.min(7)] += 1;
    }

    /// Adds another thread's counts.
    pub fn merge(&mut self, other: &WaitStats) {
        self.waits += other.waits;
        self.lookasides += other.lookasides;
        self.throttle_waits += other.throttle_waits;
        self.throttle_sleeps += other.throttle_sleeps;
        self.submits += other.submits;
        self.depth_ns += other.depth_ns;
        self.in_engine_ns += other.in_engine_ns;
        self.in_loop_ns += other.in_loop_ns;
        self.spin_ns += other.spin_ns;
        self.cpu_user_ns += other.cpu_user_ns;
        self.cpu_system_ns += other.cpu_system_ns;
        self.context_switches += other.context_switches;
        self.minor_faults += other.minor_faults;
        self.major_faults += other.major_faults;
        for (mine, theirs) in self
            .submitted_at_depth
            .iter_mut()
            .zip(other.submitted_at_depth)
        {
            *mine += theirs;
        }
        self.run_delay_ns = match (self.run_delay_ns, other.run_delay_ns) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        for i in 0..8 {
            self.completions_per_wait[i] += other.completions_per_wait[i];
            self.completions_per_lookaside[i] += other.completions_per_lookaside[i];
        }
    }
}

/// What one worker thread measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadResults {
    /// Global thread number.
    pub thread: u32,
    /// The CPU it was pinned to.
    pub cpu: Option<u32>,
    /// One entry per target the thread served, in the thread's order.
    pub targets: Vec<TargetStats>,
    /// How it waited.
    pub waits: WaitStats,
    /// The I/Os it kept in flight when nothing held them back (its slots).
    pub depth: u32,
    /// `iospd replay`: the replay's timing.
    pub replay: Option<Box<replay::ReplayStats>>,
    /// Its slowest I/Os in the measured window.
    pub slowest: slowest::Slowest,
    /// `--continue-on-error`: the failed I/Os it counted and went on past.
    pub failed: FailedIos,
}

/// `--continue-on-error`: the failed I/Os a run counted and went on past, over the whole
/// timespan (warm-up and cool-down too: a failure is one wherever it falls). They count toward
/// `--ios`/`--bytes` (a failed write of a full device is work done, or the run would not end),
/// never toward IOPS, bytes or latency.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedIos {
    /// Failed reads.
    pub reads: u64,
    /// Failed writes.
    pub writes: u64,
    /// Failed trims.
    pub trims: u64,
    /// Failed flushes.
    pub flushes: u64,
    /// The first of them: when it completed (ns after the timespan's start) and what it was.
    pub first: Option<FirstFailed>,
}

/// The first failed I/O a run went on past.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstFailed {
    /// When it completed, ns after the timespan's start.
    pub at_ns: u64,
    /// The I/O and the kernel's result.
    #[serde(flatten)]
    pub io: IoFailure,
}

impl IoFailure {
    /// The kernel's word for it: the error's text, or the short transfer.
    pub fn what(&self) -> String {
        if self.result < 0 {
            std::io::Error::from_raw_os_error(-self.result).to_string()
        } else {
            format!(
                "short transfer: {} of {} bytes (has the target shrunk?)",
                self.result, self.len
            )
        }
    }
}

impl FailedIos {
    /// Counts a failed I/O seen `at_ns` after the timespan's start.
    #[cold]
    pub fn count(&mut self, at_ns: u64, io: IoFailure) {
        *match io.op {
            Op::Read => &mut self.reads,
            Op::Write => &mut self.writes,
            Op::Trim => &mut self.trims,
            Op::Fsync | Op::Fdatasync => &mut self.flushes,
        } += 1;
        if self.first.as_ref().is_none_or(|f| at_ns < f.at_ns) {
            self.first = Some(FirstFailed { at_ns, io });
        }
    }

    /// Adds another thread's (or run's) counts; the first is the earlier.
    pub fn add(&mut self, other: &FailedIos) {
        self.reads += other.reads;
        self.writes += other.writes;
        self.trims += other.trims;
        self.flushes += other.flushes;
        if let Some(f) = &other.first
            && self.first.as_ref().is_none_or(|mine| f.at_ns < mine.at_ns)
        {
            self.first = Some(f.clone());
        }
    }

    /// Every failed I/O counted.
    pub fn total(&self) -> u64 {
        self.reads + self.writes + self.trims + self.flushes
    }
}

/// A failed I/O: the one that ended the run, or the first a run went on past.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoFailure {
    /// Global thread number.
    pub thread: u32,
    /// Index of the target in the timespan.
    pub target: usize,
    /// Direction.
    pub op: Op,
    /// Offset of the I/O.
    pub offset: u64,
    /// Bytes requested.
    pub len: u32,
    /// The kernel's result: a negative errno or a short byte count.
    pub result: i32,
    /// `--max-latency`: how long the I/O took when that is why it stopped the run (its result
    /// is then ETIMEDOUT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<u64>,
}

/// What the per-I/O trace kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceCounts {
    /// Records the file took.
    pub records: u64,
    /// Records dropped because the writer could not keep up.
    pub dropped: u64,
    /// Records not written because the file failed (`error`).
    #[serde(default)]
    pub lost: u64,
    /// Why the file is incomplete, if it is.
    pub error: Option<String>,
}

impl TraceCounts {
    /// The one line printed after a traced timespan.
    pub fn describe(&self, path: &std::path::Path) -> String {
        let path = path.display();
        match (&self.error, self.dropped) {
            (Some(error), _) => format!(
                "iospd: the trace '{path}' stopped after {} I/Os: {error}; {} more were not written and {} were dropped",
                self.records, self.lost, self.dropped
            ),
            (None, 0) => format!(
                "iospd: trace: {} I/Os recorded in '{path}', none dropped",
                self.records
            ),
            (None, dropped) => format!(
                "iospd: trace: {} I/Os recorded in '{path}', {dropped} dropped ({:.2} %) because the file could not be written fast enough",
                self.records,
                dropped as f64 * 100.0 / (self.records + dropped) as f64
            ),
        }
    }
}

/// A target that disappeared from under the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LostTarget {
    /// Index of the target in the timespan.
    pub target: usize,
    /// What happened to it, as a phrase ("was removed during the run").
    pub what: String,
}

pub use crate::system::CpuTimes;

/// The measurements of one timespan.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSpanResults {
    /// `--verify`: the blocks written and checked, and what was wrong.
    pub verify: Option<crate::verify::VerifyCounts>,
    /// Wall-clock time the run started.
    pub start_time: SystemTime,
    /// How long after an agreed start instant (`--start-at`, or the one the ranks of a run across
    /// hosts agreed on) the threads began; `None` when the run started at once.
    pub lateness_ns: Option<Nanos>,
    /// Length of the measured window; `None` when the run stopped before it began.
    pub window: Option<Nanos>,
    /// Every thread's results, in thread order.
    pub threads: Vec<ThreadResults>,
    /// CPU counters at the start and end of the measured window.
    pub cpu: (Vec<CpuTimes>, Vec<CpuTimes>),
    /// The engine that ran.
    pub engine: EngineSetup,
    /// The I/O that failed, if one did.
    pub failure: Option<IoFailure>,
    /// A file target removed or truncated during the run, which stopped it.
    pub lost: Option<LostTarget>,
    /// `--trace`: records written and dropped.
    pub trace: Option<TraceCounts>,
    /// The time series, every thread merged (with `-D`).
    pub timeline: Vec<timeline::Row>,
    /// Each live output file (time series, interval log) that stopped, and why.
    pub observer_errors: Vec<String>,
    /// Whether a signal cut the run short.
    pub interrupted: bool,
    /// What stopped the run before the measured window's end (`SIGINT`, the `-yp` event …).
    pub stopped_by: Option<String>,
    /// `--steady-state`: what the rule found.
    pub steady: Option<crate::stats::steady::SteadyOutcome>,
    /// Size in bytes of each target of the timespan.
    pub target_sizes: Vec<u64>,
    /// The completion polling budget the threads used, in nanoseconds.
    pub spin_ns: Nanos,
    /// `-e`: counter changes over the measured window.
    pub counters: Vec<crate::counters::Counter>,
    /// `-rd`: the effective distribution of each target (empty without one).
    pub distributions: Vec<Vec<crate::targets::distribution::EffectiveRange>>,
    /// Whether the run measured the device: its counters, the targets' paths, the data.
    pub reality: reality::RealityFacts,
    /// `--dedupe`: per target that has it, its plan and the exact count of what the run wrote
    /// (every unit, when `-c` filled it first).
    pub dedupes: Vec<(
        usize,
        crate::data::dedupe::Plan,
        crate::data::dedupe::Tally,
        bool,
    )>,
}

/// The measurements of a whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResults {
    /// One entry per timespan that ran.
    pub timespans: Vec<TimeSpanResults>,
    /// Why a later timespan could not start, after earlier ones ran.
    pub aborted: Option<String>,
    /// `--verify-state`: why the state file could not be written, and where the state went.
    pub unsaved: Option<String>,
}
