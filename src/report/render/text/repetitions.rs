//! `--repeat`: after the totals, per timespan as given, each repetition's numbers, then their means
//! with 95 % confidence intervals, the outliers, the stability verdict and the steady-state test.

use std::fmt::Write as _;

use super::{MIB, NS_PER_MS, STARS};
use crate::report::{RepetitionGroup, RepetitionsReport};
use crate::stats::confidence::{STEADY_WINDOW, Spread, SteadyState};

pub(super) fn repetitions_text(out: &mut String, r: &RepetitionsReport) {
    let _ = write!(
        out,
        "\n\nRepetitions ({} runs of each timespan):\n{STARS}\n",
        r.repeat
    );
    for g in &r.groups {
        group_text(out, g, r.unstable_share);
    }
}

fn group_text(out: &mut String, g: &RepetitionGroup, unstable_share: f64) {
    let _ = writeln!(
        out,
        "\ntimespan {} ({} measured)\n run | timespan |  I/O per s |    MiB/s   |  AvgLat  |   p99",
        g.timespan,
        g.runs.len()
    );
    let _ = writeln!(out, "{}", "-".repeat(63));
    for (i, run) in g.runs.iter().enumerate() {
        let latency = |xs: &[f64]| {
            xs.get(i).map_or("     N/A".to_string(), |ns| {
                format!("{:8.3}", ns / NS_PER_MS)
            })
        };
        let _ = writeln!(
            out,
            "{:4} | {:8} | {:10.2} | {:10.2} | {} | {}{}",
            i + 1,
            run,
            g.ios_per_s[i],
            g.bytes_per_s[i] / MIB,
            latency(&g.mean_latency_ns),
            latency(&g.p99_latency_ns),
            if g.outliers.contains(&i) {
                "  outlier"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(out, "{}", "-".repeat(63));
    out.push_str("             |            mean |     95% CI +/- |        min |        max\n");
    spread_row(out, "I/O per s", &g.iops, 1.0);
    spread_row(out, "MiB/s", &g.throughput, MIB);
    if let Some(s) = &g.mean_latency {
        spread_row(out, "AvgLat (ms)", s, NS_PER_MS);
    }
    if let Some(s) = &g.p99_latency {
        spread_row(out, "p99 (ms)", s, NS_PER_MS);
    }
    out.push_str(
        "(95% CI: Student's t over the repetitions; for p99, over each repetition's own p99)\n",
    );
    if !g.outliers.is_empty() {
        let runs: Vec<String> = g.outliers.iter().map(|i| (i + 1).to_string()).collect();
        let _ = writeln!(
            out,
            "outliers: run {} (modified z-score of IOPS above 3.5, from the median and MAD)",
            runs.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "verdict: {}",
        crate::report::analysis::repetitions::verdict_words(g, unstable_share)
    );
    match &g.steady_state {
        Some(s) => steady_line(out, "runs", s),
        None => {
            let _ = writeln!(
                out,
                "steady state (SNIA PTS): needs {STEADY_WINDOW} measured runs"
            );
        }
    }
}

/// SNIA's steady-state verdict over the last rounds (`runs`, or `-D intervals`), with its numbers.
pub(super) fn steady_line(out: &mut String, rounds: &str, s: &SteadyState) {
    let _ = writeln!(
        out,
        "{}",
        crate::report::analysis::repetitions::steady_words(rounds, s)
    );
}

fn spread_row(out: &mut String, name: &str, s: &Spread, unit: f64) {
    let half = if s.n > 1 {
        format!("{:14.3}", s.ci95_half_width / unit)
    } else {
        format!("{:>14}", "N/A")
    };
    let _ = writeln!(
        out,
        "{name:<12} | {:15.3} | {half} | {:10.3} | {:10.3}",
        s.mean / unit,
        s.min / unit,
        s.max / unit
    );
}
