//! `iospd sweep` in text: one table, a row per point, and each series' knee. Every point's full
//! DiskSpd report is in the JSON, XML and HTML outputs.

use std::fmt::Write as _;

use super::{MIB, STARS};
use crate::report::analysis::sweep::SweepReport;

pub(super) fn sweep_text(out: &mut String, command_line: &str, s: &SweepReport) {
    let _ = write!(out, "\nSweep: {command_line}\n{STARS}\n\n");
    out.push_str("point");
    for axis in &s.axes {
        let _ = write!(out, " | {axis:>5}");
    }
    let repeated = s.points.iter().any(|p| p.ios_per_s_ci95.is_some());
    out.push_str(" |  I/O per s");
    if repeated {
        out.push_str(" | ±95% CI ");
    }
    out.push_str(" |    MiB/s   |  AvgLat  |    p50   |    p99   |   p99.9  | CPU % | depth\n");
    let width = 5 + 8 * s.axes.len() + 96 + if repeated { 11 } else { 0 };
    let _ = writeln!(out, "{}", "-".repeat(width));
    let knees = s.knees();
    for (i, p) in s.points.iter().enumerate() {
        let _ = write!(out, "{:5}", p.timespan);
        for value in &p.values {
            let _ = write!(out, " | {value:>5}");
        }
        if !p.measured {
            out.push_str(if p.runs.is_empty() && p.cut_short {
                " | not run (the sweep stopped before it)\n"
            } else {
                " | not measured (the sweep stopped)\n"
            });
            continue;
        }
        let ms = |ns: Option<f64>| {
            format!(
                "{:>8}",
                ns.map_or("N/A".to_string(), crate::units::format_duration)
            )
        };
        let _ = write!(out, " | {:10.2}", p.ios_per_s);
        if repeated {
            let _ = write!(out, " | {:8.2}", p.ios_per_s_ci95.unwrap_or(0.0));
        }
        let _ = writeln!(
            out,
            " | {:10.2} | {} | {} | {} | {} | {:5.1} | {:6.2}{}",
            p.bytes_per_s / MIB,
            ms(p.mean_ns),
            ms(p.p50_ns.map(|v| v as f64)),
            ms(p.p99_ns.map(|v| v as f64)),
            ms(p.p999_ns.map(|v| v as f64)),
            p.cpu_percent,
            p.achieved_depth,
            if p.cut_short {
                "  <- cut short"
            } else if knees.contains(&i) {
                "  <- knee"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(out, "{}", "-".repeat(width));
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
