//! The result of `iospd sweep --slo=…`: the closed-loop ramp, every paced step, the answer, and
//! their renderings (text summary and curve, CSV rows; JSON is the structure itself).

use std::fmt::Write as _;

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
    /// Its runs' command lines.
    pub commands: Vec<String>,
}

impl SloSearch {
    /// The passing step with the highest rate.
    pub fn answer(&self) -> Option<&PacedStep> {
        self.answer.map(|i| &self.steps[i])
    }

    /// The answer line and the curve: every paced step, by target rate.
    pub fn render_text(&self) -> String {
        let p = self.percentile;
        let mut out = String::new();
        if let Some(line) = &self.interrupted {
            let _ = writeln!(
                out,
                "interrupted during '{line}': only the steps below finished, so the search did not end"
            );
        }
        let _ = match self.answer() {
            Some(step) => writeln!(
                out,
                "answer: {:.2} I/O per s meets p{p} < {} (p{p} {}, upper 95% bound {}; bracket {:.0}-{:.0})",
                step.achieved_ios_per_s,
                duration(Some(self.target_ns)),
                duration(step.percentile_ns),
                duration(step.bound_ns),
                self.bracket[0],
                self.bracket[1]
            ),
            None => writeln!(
                out,
                "answer: no rate tried met p{p} < {} (the lowest tried was {:.2} I/O per s)",
                duration(Some(self.target_ns)),
                self.bracket[1]
            ),
        };
        let _ = writeln!(
            out,
            "\nthe curve at -o{} ({}):\n{:>14} {:>14} {:>12} {:>12}  result",
            self.depth,
            self.bound_method,
            "target I/O/s",
            "achieved",
            format!("p{p}"),
            "bound"
        );
        let mut order: Vec<&PacedStep> = self.steps.iter().collect();
        order.sort_by(|a, b| a.target_ios_per_s.total_cmp(&b.target_ios_per_s));
        for step in order {
            let _ = writeln!(
                out,
                "{:14.2} {:14.2} {:>12} {:>12}  {}",
                step.target_ios_per_s,
                step.achieved_ios_per_s,
                duration(step.percentile_ns),
                duration(step.bound_ns),
                step.failed_on.as_deref().unwrap_or("pass")
            );
        }
        out
    }

    /// One row per step, ramp first.
    pub fn render_csv(&self) -> String {
        let us = |ns: Option<u64>| ns.map_or(String::new(), |ns| format!("{:.3}", ns as f64 / 1e3));
        let mut out = String::from(
            "phase,depth,target_ios_per_s,ios_per_s,samples,percentile_us,bound_us,result\n",
        );
        for r in &self.ramp {
            let _ = writeln!(
                out,
                "ramp,{},,{:.2},,{},,",
                r.depth,
                r.ios_per_s,
                us(r.percentile_ns)
            );
        }
        for (i, s) in self.steps.iter().enumerate() {
            let result = match (self.answer == Some(i), &s.failed_on) {
                (true, _) => "answer",
                (false, None) => "pass",
                (false, Some(_)) => "fail",
            };
            let _ = writeln!(
                out,
                "paced,{},{:.2},{:.2},{},{},{},{result}",
                self.depth,
                s.target_ios_per_s,
                s.achieved_ios_per_s,
                s.samples,
                us(s.percentile_ns),
                us(s.bound_ns)
            );
        }
        if self.interrupted.is_some() {
            out.push_str("interrupted,,,,,,,cut short\n");
        }
        out
    }
}

/// Milliseconds with three decimals, or N/A.
/// A latency for people, `N/A` when there is none.
pub fn duration(ns: Option<u64>) -> String {
    ns.map_or("N/A".into(), |ns| crate::units::format_duration(ns as f64))
}
