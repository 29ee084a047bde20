//! What only a run across hosts reports, per timespan: how its start was agreed, every rank and
//! host, and the aggregate rate counted two ways (computed by [`crate::report::analysis::cluster`]).

use serde::{Deserialize, Serialize};

use crate::report::CpuUsage;

/// How a timespan's start was agreed, as one run saw it (`--start-at`, or the ranks of a run
/// across hosts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartReport {
    /// The agreed start, RFC 3339 UTC.
    pub at: String,
    /// The same, nanoseconds since the epoch.
    pub at_unix_ns: u64,
    /// How long after it the threads began (for a merged run, the largest of the runs').
    pub lateness_ns: u64,
}

/// What only a run across hosts has, for one timespan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterReport {
    /// Every rank.
    pub ranks: Vec<RankReport>,
    /// Every host, with the ranks on it.
    pub hosts: Vec<HostReport>,
    /// How far ahead rank 0 placed the start instant when it chose it.
    pub start_margin_ns: u64,
    /// The least time any rank had left between hearing of the start and the start itself
    /// (negative: a rank heard too late, and the margin should be larger).
    pub start_slack_ns: i64,
    /// The largest difference between two ranks' actual starts.
    pub start_skew_ns: u64,
    /// The largest uncertainty of the clock offsets the starts were placed with.
    pub clock_uncertainty_ns: u64,
    /// The size of every rank's results as rank 0 gathered them at the end of the run.
    #[serde(default)]
    pub gathered_bytes: u64,
    /// How long rank 0 waited for them, from its own call (including the wait for the last rank
    /// to finish).
    #[serde(default)]
    pub gather_ns: u64,
    /// Every I/O over the common measured window.
    pub common_window: Aggregate,
    /// Every I/O over the time from the earliest rank's start to the latest rank's end, as IOR
    /// computes bandwidth.
    pub first_to_last: Aggregate,
}

/// One rank of a timespan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankReport {
    /// The MPI rank.
    pub rank: u32,
    /// Its host.
    pub host: String,
    /// Worker threads.
    pub threads: usize,
    /// Its monotonic clock minus rank 0's, measured before the start.
    pub clock_offset_ns: i64,
    /// Half the round trip of the exchange that measured it: the offset is exact to within this.
    pub clock_uncertainty_ns: u64,
    /// How much the offset changed from before the start to after the end.
    pub clock_drift_ns: i64,
    /// How long after the common start its threads began.
    pub lateness_ns: u64,
    /// Its measured window on the common timeline, from the common start.
    pub window_start_ns: u64,
    /// The end of that window.
    pub window_end_ns: u64,
    /// I/Os it completed in its window.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// I/Os per second of its window.
    pub ios_per_s: f64,
    /// Bytes per second of its window.
    pub bytes_per_s: f64,
    /// Its 99th-percentile latency of all I/O, when measured (`-L`).
    #[serde(default)]
    pub p99_ns: Option<u64>,
}

/// One host of a timespan: its ranks together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostReport {
    /// The host name.
    pub host: String,
    /// Its ranks.
    pub ranks: Vec<u32>,
    /// Their worker threads.
    pub threads: usize,
    /// I/Os they completed.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// I/Os per second of the common window.
    pub ios_per_s: f64,
    /// Bytes per second of the common window.
    pub bytes_per_s: f64,
    /// The host's CPUs over its window, averaged (every rank on a host measures the same CPUs).
    pub cpu: CpuUsage,
}

/// Every rank's I/O over one span of time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// The span.
    pub duration_s: f64,
    /// I/Os completed.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// I/Os per second of the span.
    pub ios_per_s: f64,
    /// Bytes per second of the span.
    pub bytes_per_s: f64,
}
