//! `iospd sweep --slo=…` in text (the steps, the answer and the curve) and CSV (one row per step).

use std::fmt::Write as _;

use crate::report::analysis::slo::{PacedStep, SloSearch};

/// The answer line and the curve: every paced step, by target rate.
pub fn text(search: &SloSearch) -> String {
    let p = search.percentile;
    let mut out = String::new();
    if let Some(line) = &search.interrupted {
        let _ = writeln!(
            out,
            "interrupted during '{line}': only the steps below finished, so the search did not end"
        );
    }
    let _ = match search.answer() {
        Some(step) => writeln!(
            out,
            "answer: {:.2} I/O per s meets p{p} < {} (p{p} {}, upper 95% bound {}; bracket {:.0}-{:.0})",
            step.achieved_ios_per_s,
            duration(Some(search.target_ns)),
            duration(step.percentile_ns),
            duration(step.bound_ns),
            search.bracket[0],
            search.bracket[1]
        ),
        None => writeln!(
            out,
            "answer: no rate tried met p{p} < {} (the lowest tried was {:.2} I/O per s)",
            duration(Some(search.target_ns)),
            search.bracket[1]
        ),
    };
    if !search.certainty.is_empty() {
        let _ = writeln!(out, "how sure: {}", search.certainty);
    }
    let _ = writeln!(
        out,
        "\nthe curve at -o{} ({}):\n{:>14} {:>14} {:>12} {:>12}  result",
        search.depth,
        search.bound_method,
        "target I/O/s",
        "achieved",
        format!("p{p}"),
        "bound"
    );
    let mut order: Vec<&PacedStep> = search.steps.iter().collect();
    order.sort_by(|a, b| a.target_ios_per_s.total_cmp(&b.target_ios_per_s));
    for step in order {
        let _ = writeln!(
            out,
            "{:14.2} {:14.2} {:>12} {:>12}  {}",
            step.target_ios_per_s,
            step.achieved_ios_per_s,
            duration(step.percentile_ns),
            duration(step.bound_ns),
            match (step.failed_on.as_deref(), step.measured_again) {
                (Some(why), _) => format!("{why}, measured twice"),
                (None, true) => "pass when measured again".to_string(),
                (None, false) => "pass".to_string(),
            }
        );
    }
    out
}

/// One row per step, ramp first.
pub fn csv(search: &SloSearch) -> String {
    let us = |ns: Option<u64>| ns.map_or(String::new(), |ns| format!("{:.3}", ns as f64 / 1e3));
    let mut out = String::from(
        "phase,depth,target_ios_per_s,ios_per_s,samples,percentile_us,bound_us,result\n",
    );
    for r in &search.ramp {
        let _ = writeln!(
            out,
            "ramp,{},,{:.2},,{},,",
            r.depth,
            r.ios_per_s,
            us(r.percentile_ns)
        );
    }
    for (i, s) in search.steps.iter().enumerate() {
        let result = match (search.answer == Some(i), &s.failed_on) {
            (true, _) => "answer",
            (false, None) => "pass",
            (false, Some(_)) => "fail",
        };
        let _ = writeln!(
            out,
            "paced,{},{:.2},{:.2},{},{},{},{result}",
            search.depth,
            s.target_ios_per_s,
            s.achieved_ios_per_s,
            s.samples,
            us(s.percentile_ns),
            us(s.bound_ns)
        );
    }
    if search.interrupted.is_some() {
        out.push_str("interrupted,,,,,,,cut short\n");
    }
    out
}

/// A latency for people, `N/A` when there is none.
pub fn duration(ns: Option<u64>) -> String {
    ns.map_or("N/A".into(), |ns| crate::units::format_duration(ns as f64))
}
