//! The result of `iospd sweep --slo=…`: the closed-loop ramp, every paced step and the answer
//! (rendered by [`crate::report::render::slo`]; JSON is the structure itself).

use serde::{Deserialize, Serialize};

/// A whole search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SloSearch {
    /// The command line of the search.
    pub command_line: String,
    /// The percentile the target is on (0–100).
    pub percentile: f64,
    /// The latency the percentile must stay under, ns.
    pub target_ns: u64,
    /// How the upper bound of the percentile is computed.
    pub bound_method: String,
    /// Runs per paced step; a step passes only when every run passes.
    pub repeat: u32,
    /// The closed-loop ramp over queue depth.
    pub ramp: Vec<RampStep>,
    /// Saturation: the highest closed-loop IOPS of the ramp, and the depth that reached it.
    pub saturation_ios_per_s: f64,
    /// The depth of every paced step.
    pub depth: u32,
    /// The paced steps, in the order they ran.
    pub steps: Vec<PacedStep>,
    /// The passing step with the highest rate (an index into `steps`), if any passed.
    pub answer: Option<usize>,
    /// The bracket the bisection ended with: the highest passing and lowest failing target rate.
    pub bracket: [f64; 2],
    /// A signal stopped the search during this command line: the steps above finished, and the
    /// answer is only as far as they got.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// How sure the answer is, in one sentence: whether every rate agreed with itself when
    /// measured again, and how narrow the bracket is.
    #[serde(default)]
    pub certainty: String,
}

/// One closed-loop run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RampStep {
    /// Its queue depth per thread.
    pub depth: u32,
    /// I/Os per second.
    pub ios_per_s: f64,
    /// The latency percentile, ns.
    pub percentile_ns: Option<u64>,
    /// Its command line.
    pub command: String,
}

/// One paced target rate, over all its runs (the worst of each figure).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PacedStep {
    /// The target rate, I/Os per second over all threads.
    pub target_ios_per_s: f64,
    /// The lowest achieved rate of its runs.
    pub achieved_ios_per_s: f64,
    /// The fewest latency samples of its runs.
    pub samples: u64,
    /// The highest latency percentile of its runs (from each I/O's intended start), ns.
    pub percentile_ns: Option<u64>,
    /// The highest upper 95 % bound of its runs, ns; `None` when a run had too few samples.
    pub bound_ns: Option<u64>,
    /// Whether every run reached the rate and kept the bound under the target.
    pub pass: bool,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_on: Option<String>,
    /// Its runs' command lines (of both measurements when it was measured again).
    pub commands: Vec<String>,
    /// It missed once, was measured again, and this is the second measurement.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub measured_again: bool,
}

impl SloSearch {
    /// The passing step with the highest rate.
    pub fn answer(&self) -> Option<&PacedStep> {
        self.answer.map(|i| &self.steps[i])
    }
}
