//! `--output=FILE.csv`: one row per timespan — a sweep point, a repetition, or a timespan of a
//! profile — with the swept options first, then rates, latency, CPU and achieved depth, for a
//! spreadsheet or a plotting script.

use std::fmt::Write as _;

use crate::report::Report;
use crate::report::analysis::sweep::{SweepPoint, of as sweep_of};

/// The rows.
pub fn render(report: &Report) -> String {
    let sweep = report.sweep.clone().or_else(|| sweep_of(report));
    let axes: Vec<String> = sweep.as_ref().map_or_else(Vec::new, |s| {
        s.axes
            .iter()
            .map(|a| a.trim_start_matches('-').to_string())
            .collect()
    });
    let mut out = String::from("timespan");
    for axis in &axes {
        let _ = write!(out, ",{axis}");
    }
    out.push_str(",measured,ios_per_s,ios_per_s_ci95,mib_per_s,mean_us,p50_us,p99_us,p999_us,cpu_percent,achieved_depth,knee");
    // --verify: each row's blocks written, verified, skipped and failed.
    let verified = report.timespans.iter().any(|t| t.verify.is_some());
    if verified {
        out.push_str(",blocks_written,blocks_verified,blocks_skipped,blocks_failed");
    }
    out.push('\n');
    let knees = sweep.as_ref().map_or_else(Vec::new, |s| s.knees());
    let points: Vec<SweepPoint> = match &sweep {
        Some(s) => s.points.clone(),
        None => report
            .timespans
            .iter()
            .enumerate()
            .map(|(i, ts)| crate::report::analysis::sweep::point(i + 1, &[], ts))
            .collect(),
    };
    for (i, p) in points.iter().enumerate() {
        let us = |ns: Option<f64>| ns.map_or(String::new(), |ns| format!("{:.3}", ns / 1e3));
        let _ = write!(out, "{}", p.timespan);
        for value in &p.values {
            let _ = write!(out, ",{value}");
        }
        let _ = write!(
            out,
            ",{},{:.2},{},{:.3},{},{},{},{},{:.2},{:.2},{}",
            p.measured,
            p.ios_per_s,
            p.ios_per_s_ci95
                .map_or(String::new(), |c| format!("{c:.2}")),
            p.bytes_per_s / 1_048_576.0,
            us(p.mean_ns),
            us(p.p50_ns.map(|v| v as f64)),
            us(p.p99_ns.map(|v| v as f64)),
            us(p.p999_ns.map(|v| v as f64)),
            p.cpu_percent,
            p.achieved_depth,
            knees.contains(&i)
        );
        if verified {
            let v = report
                .timespans
                .get(p.timespan.saturating_sub(1))
                .and_then(|t| t.verify.as_ref());
            let _ = match v {
                Some(v) => write!(
                    out,
                    ",{},{},{},{}",
                    v.written,
                    v.verified,
                    v.skipped,
                    v.failed.total()
                ),
                None => write!(out, ",,,,"),
            };
        }
        out.push('\n');
    }
    out
}
