//! Measured data: per thread × target × direction counts, bytes, latency histogram and interval
//! counts. Every type adds (`merge`), so per-thread results combine exactly at the end; nothing here
//! formats or prints.

pub mod cpu;
pub mod histogram;
pub mod intervals;

use std::time::SystemTime;

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
    /// Completions per `-D` interval (empty without `-D`).
    pub intervals: Vec<u64>,
}

impl OpStats {
    /// Empty statistics with `intervals` interval counters.
    pub fn new(intervals: usize) -> Self {
        OpStats {
            ios: 0,
            bytes: 0,
            latency: LatencyHistogram::new(),
            intervals: vec![0; intervals],
        }
    }

    /// Records one completion.
    #[inline]
    pub fn record(&mut self, bytes: u64, latency: Nanos, interval: usize) {
        self.ios += 1;
        self.bytes += bytes;
        self.latency.record(latency);
        if let Some(count) = self.intervals.get_mut(interval) {
            *count += 1;
        }
    }

    /// Adds another direction's statistics.
    pub fn merge(&mut self, other: &OpStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.latency.merge(&other.latency);
        if self.intervals.len() < other.intervals.len() {
            self.intervals.resize(other.intervals.len(), 0);
        }
        for (mine, theirs) in self.intervals.iter_mut().zip(&other.intervals) {
            *mine += theirs;
        }
    }
}

/// Both directions on one target in one thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TargetStats {
    /// Index of the target in the timespan.
    pub target: usize,
    /// Reads.
    pub read: OpStats,
    /// Writes.
    pub write: OpStats,
}

impl TargetStats {
    /// Empty statistics for a target.
    pub fn new(target: usize, intervals: usize) -> Self {
        TargetStats {
            target,
            read: OpStats::new(intervals),
            write: OpStats::new(intervals),
        }
    }

    /// The statistics of one direction.
    #[inline]
    pub fn op_mut(&mut self, op: Op) -> &mut OpStats {
        match op {
            Op::Read => &mut self.read,
            Op::Write => &mut self.write,
        }
    }

    /// Reads and writes together.
    pub fn total(&self) -> OpStats {
        let mut total = self.read.clone();
        total.merge(&self.write);
        total
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
}

/// A failed I/O that ended the run.
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

/// One CPU's time counters from /proc/stat, in clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// The CPU number.
    pub cpu: u32,
    /// user + nice.
    pub user: u64,
    /// system + irq + softirq.
    pub kernel: u64,
    /// idle + iowait.
    pub idle: u64,
    /// steal (time taken by the hypervisor).
    pub steal: u64,
}

/// The measurements of one timespan.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSpanResults {
    /// Wall-clock time the run started.
    pub start_time: SystemTime,
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
    /// Whether a signal cut the run short.
    pub interrupted: bool,
    /// Size in bytes of each target of the timespan.
    pub target_sizes: Vec<u64>,
    /// The completion polling budget the threads used, in nanoseconds.
    pub spin_ns: Nanos,
}

/// The measurements of a whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResults {
    /// One entry per timespan that ran.
    pub timespans: Vec<TimeSpanResults>,
}
