//! How a repeated timespan's runs agree (computed by [`crate::report::analysis::repetitions`]).

use serde::{Deserialize, Serialize};

use crate::stats::confidence::{Spread, SteadyState};

/// Every repeated timespan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepetitionsReport {
    /// How many times each timespan was to run.
    pub repeat: u32,
    /// The half-width share above which a result is unstable.
    pub unstable_share: f64,
    /// One per timespan as given.
    pub groups: Vec<RepetitionGroup>,
}

/// One timespan's repetitions (those that reached their measured window).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepetitionGroup {
    /// The timespan as given, from 1.
    pub timespan: usize,
    /// The report's timespans that are its repetitions, from 1.
    pub runs: Vec<usize>,
    /// Each repetition's I/Os per second.
    pub ios_per_s: Vec<f64>,
    /// Each repetition's bytes per second.
    pub bytes_per_s: Vec<f64>,
    /// Each repetition's mean latency, ns (with -L).
    pub mean_latency_ns: Vec<f64>,
    /// Each repetition's 99th percentile latency, ns (with -L).
    pub p99_latency_ns: Vec<f64>,
    /// Their I/Os per second.
    pub iops: Spread,
    /// Their bytes per second.
    pub throughput: Spread,
    /// Their mean latencies (with -L).
    pub mean_latency: Option<Spread>,
    /// Their p99 latencies: a t-interval over the repetitions' own p99 (with -L).
    pub p99_latency: Option<Spread>,
    /// The repetitions whose IOPS are outliers by the modified z-score (indices into `runs`).
    pub outliers: Vec<usize>,
    /// The IOPS interval's half-width exceeds `unstable_share` of the mean (or one repetition).
    pub unstable: bool,
    /// SNIA's steady-state test over the IOPS of the last five repetitions.
    pub steady_state: Option<SteadyState>,
}
