//! `iospd sweep` in text: one table, a row per point, and each series' knee. Every point's full
//! DiskSpd report is in the JSON, XML and HTML outputs.

use std::fmt::Write as _;

use super::STARS;
use crate::report::Report;
use crate::report::SweepReport;
use crate::report::analysis::sweep::table;

pub(super) fn sweep_text(out: &mut String, report: &Report, s: &SweepReport) {
    let _ = write!(out, "\nSweep: {}\n{STARS}\n\n", report.profile.command_line);
    out.push_str(&crate::report::render::table::text(&table(report, Some(s))));
    let repeated = s.points.iter().any(|p| p.ios_per_s_ci95.is_some());
    let _ = writeln!(
        out,
        "latency from each I/O's start{}; the knee is the last point before a step of {} gains less than {:.0}% IOPS while p99 still rises",
        if repeated {
            "; each point is the mean of its repetitions, IOPS with its 95% confidence interval (Student's t)"
        } else {
            ""
        },
        s.axes.last().map_or("", String::as_str),
        s.knee_gain * 100.0
    );
    for series in &s.series {
        let name: Vec<String> = s
            .axes
            .iter()
            .zip(&series.fixed)
            .map(|(axis, value)| format!("{axis}{value}"))
            .collect();
        let name = if name.is_empty() {
            "the sweep".to_string()
        } else {
            name.join(" ")
        };
        let _ = match series.knee {
            Some(k) => {
                let p = &s.points[k];
                writeln!(
                    out,
                    "knee of {name}: {}{} ({:.2} I/O per s{})",
                    s.axes.last().map_or("", String::as_str),
                    p.values.last().map_or("", String::as_str),
                    p.ios_per_s,
                    p.p99_ns.map_or(String::new(), |ns| format!(
                        ", p99 {}",
                        crate::units::format_duration(ns as f64)
                    ))
                )
            }
            None => writeln!(
                out,
                "knee of {name}: not reached (every step gained at least {:.0}% IOPS, or p99 did not rise)",
                s.knee_gain * 100.0
            ),
        };
    }
    if let Some(stopped) = s.stopped_at() {
        let _ = writeln!(out, "{stopped}");
    }
    out.push_str("every point's full report: -Rjson or --output=FILE.json (.xml, .html); this table: --output=FILE.csv\n");
}
