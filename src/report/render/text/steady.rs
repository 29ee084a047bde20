//! `--steady-state` in text: after a timespan's results, whether its throughput held steady by
//! the rule, when, and the window of one-second samples that was judged.

use std::fmt::Write as _;

use crate::profile::steady::SteadyMetric;
use crate::stats::steady::SteadyOutcome;

pub(super) fn steady_text(out: &mut String, s: &SteadyOutcome) {
    let rule = &s.rule;
    let what = match (rule.slope, rule.percent) {
        (false, true) => "largest deviation from the window's mean, % of the mean",
        (false, false) => "largest deviation from the window's mean",
        (true, true) => "slope, % of the window's mean per second",
        (true, false) => "slope per second",
    };
    let _ = writeln!(out, "\nSteady-state stop (--steady-state={rule}: {what}):");
    match (s.attained, s.attained_at_s, s.criterion) {
        (true, Some(at), Some(c)) => {
            let _ = writeln!(
                out,
                "  reached after {at}s of the measured window ({c:.3} < {}): the timespan ended there",
                rule.limit
            );
        }
        (_, _, Some(c)) => {
            let _ = writeln!(
                out,
                "  not reached: the last window's criterion was {c:.3}, the limit {}",
                rule.limit
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "  not reached: the run ended before {} samples were taken",
                rule.window_s
            );
        }
    }
    let (unit, values, mean) = match rule.metric {
        SteadyMetric::Iops => ("IOPS", &s.iops, s.iops_mean()),
        SteadyMetric::Bandwidth => ("bytes/s", &s.bw, s.bw_mean()),
    };
    if values.is_empty() {
        return;
    }
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let _ = write!(
        out,
        "  {} ({unit}, oldest first): {}; mean {mean:.1}",
        if s.criterion.is_some() {
            "window"
        } else {
            "samples"
        },
        list.join(" ")
    );
    if s.criterion.is_some() {
        let _ = write!(
            out,
            ", largest deviation {:.1}, slope {:.3}/s",
            s.max_deviation, s.slope
        );
    }
    let _ = writeln!(out);
}
