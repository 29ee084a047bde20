//! `--repeat=N`: the profile's timespans run N times over, and for each timespan as given, how its
//! repetitions agree — the mean of IOPS, MiB/s, mean and p99 latency with their 95 % confidence
//! intervals, the outlying repetitions, a verdict on stability and SNIA's steady-state test.
//! Computed once from the report's own timespans, so a merged report gets the same.

use crate::report::{RepetitionGroup, RepetitionsReport, Report, TimeSpanReport};
use crate::stats::confidence::{Spread, SteadyState, outliers, steady_state};

/// A result is called unstable when the 95 % interval of its mean IOPS is wider than this share of
/// the mean on either side.
pub const UNSTABLE_SHARE: f64 = 0.05;

/// The steady-state verdict in words, for every format that shows it: `rounds` names what the
/// values are (`-D intervals`, `repetitions`).
pub fn steady_words(rounds: &str, s: &SteadyState) -> String {
    format!(
        "steady state (SNIA PTS, IOPS of the last {} {rounds}): {}: range {:.1}% of the average (limit 20%), slope excursion {:+.1}% (limit 10%)",
        crate::stats::confidence::STEADY_WINDOW,
        if s.reached { "reached" } else { "NOT reached" },
        s.range_share * 100.0,
        s.excursion_share * 100.0
    )
}

/// A group's verdict in words, for every format that shows it.
pub fn verdict_words(g: &RepetitionGroup, unstable_share: f64) -> String {
    let share = g.iops.relative_half_width() * 100.0;
    if g.iops.n < 2 {
        "one repetition measured: no interval".to_string()
    } else if g.unstable {
        format!(
            "UNSTABLE result: the IOPS interval is +/-{share:.1}% of the mean (more than {:.0}%); run longer or more times",
            unstable_share * 100.0
        )
    } else {
        format!(
            "stable: the IOPS interval is +/-{share:.1}% of the mean (at most {:.0}%)",
            unstable_share * 100.0
        )
    }
}

/// The repetitions of `report`, when its profile repeats its timespans.
pub fn of(report: &Report) -> Option<RepetitionsReport> {
    let repeat = report.profile.repeat as usize;
    if repeat < 2 {
        return None;
    }
    let given = report.profile.timespans.len() / repeat;
    let groups = (0..given)
        .map(|k| {
            let runs: Vec<(usize, &TimeSpanReport)> = report
                .timespans
                .iter()
                .enumerate()
                .filter(|(i, t)| i % given == k && t.measured.is_some())
                .map(|(i, t)| (i + 1, t))
                .collect();
            group(k + 1, &runs)
        })
        .collect();
    Some(RepetitionsReport {
        repeat: repeat as u32,
        unstable_share: UNSTABLE_SHARE,
        groups,
    })
}

fn group(timespan: usize, runs: &[(usize, &TimeSpanReport)]) -> RepetitionGroup {
    let totals: Vec<_> = runs
        .iter()
        .filter_map(|(_, t)| t.measured.as_ref().map(|m| &m.totals.total))
        .collect();
    let ios_per_s: Vec<f64> = totals.iter().map(|t| t.ios_per_s).collect();
    let bytes_per_s: Vec<f64> = totals.iter().map(|t| t.bytes_per_s).collect();
    let latencies: Vec<_> = totals.iter().filter_map(|t| t.latency.as_ref()).collect();
    let with_latency = !latencies.is_empty() && latencies.len() == totals.len();
    let (mean_latency_ns, p99_latency_ns): (Vec<f64>, Vec<f64>) = if with_latency {
        latencies
            .iter()
            .map(|l| (l.mean_ns, l.at(99.0) as f64))
            .unzip()
    } else {
        Default::default()
    };
    let spread = |xs: &[f64]| {
        if xs.is_empty() {
            None
        } else {
            Some(Spread::of(xs))
        }
    };
    let iops = spread(&ios_per_s).unwrap_or(Spread::of(&[0.0]));
    RepetitionGroup {
        timespan,
        runs: runs.iter().map(|(i, _)| *i).collect(),
        throughput: spread(&bytes_per_s).unwrap_or(Spread::of(&[0.0])),
        mean_latency: spread(&mean_latency_ns),
        p99_latency: spread(&p99_latency_ns),
        outliers: outliers(&ios_per_s),
        unstable: iops.n < 2 || iops.relative_half_width() > UNSTABLE_SHARE,
        steady_state: steady_state(&ios_per_s),
        iops,
        ios_per_s,
        bytes_per_s,
        mean_latency_ns,
        p99_latency_ns,
    }
}
