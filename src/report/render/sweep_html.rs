//! The sweep section of the HTML report: IOPS against latency (p50 and p99, log latency axis), one
//! line per series, IOPS against queue depth when the depth was swept, and the table of points.

use std::fmt::Write as _;

use crate::report::Report;
use crate::report::SweepReport;
use crate::report::analysis::sweep::table;
use crate::report::render::svg::{Chart, Scale, Series, render as svg};

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The section, for a report that is a sweep.
pub fn section(page: &mut String, report: &Report, s: &SweepReport) {
    page.push_str("<h2>Sweep</h2>");
    let name = |fixed: &[String]| -> String {
        let parts: Vec<String> = s
            .axes
            .iter()
            .zip(fixed)
            .map(|(a, v)| format!("{a}{v}"))
            .collect();
        if parts.is_empty() {
            "all points".into()
        } else {
            parts.join(" ")
        }
    };
    let mut latency = Vec::new();
    let mut depth = Vec::new();
    for (i, series) in s.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let measured: Vec<_> = series
            .points
            .iter()
            .map(|&p| &s.points[p])
            .filter(|p| p.finished())
            .collect();
        for (label, pick) in [
            (
                "p50",
                (|p: &crate::report::SweepPoint| p.p50_ns) as fn(&_) -> Option<u64>,
            ),
            ("p99", |p| p.p99_ns),
        ] {
            let points: Vec<(f64, f64)> = measured
                .iter()
                .filter_map(|p| Some((p.ios_per_s, pick(p)? as f64 / 1e6)))
                .filter(|(_, ms)| *ms > 0.0)
                .collect();
            if !points.is_empty() {
                latency.push(Series {
                    name: format!("{} {label}", name(&series.fixed)),
                    color,
                    points,
                });
            }
        }
        if s.axes.last().is_some_and(|a| a == "-o") {
            let points: Vec<(f64, f64)> = measured
                .iter()
                .filter_map(|p| Some((p.values.last()?.parse::<f64>().ok()?, p.ios_per_s)))
                .collect();
            depth.push(Series {
                name: name(&series.fixed),
                color,
                points,
            });
        }
    }
    if !latency.is_empty() {
        page.push_str(&svg(&Chart {
            title: "Latency against IOPS (p50 and p99 of each point)",
            x_label: "I/Os per second",
            y_label: "latency, ms (log scale)",
            x_scale: Scale::Linear,
            y_scale: Scale::Log,
            x_ticks: None,
            series: latency,
        }));
    }
    if !depth.is_empty() {
        page.push_str(&svg(&Chart {
            title: "IOPS against queue depth",
            x_label: "outstanding I/Os per thread (-o, log scale)",
            y_label: "I/Os per second",
            x_scale: Scale::Log,
            y_scale: Scale::Linear,
            x_ticks: None,
            series: depth,
        }));
    }
    page.push_str(&super::table::html(&table(report, Some(s))));
    let _ = writeln!(
        page,
        "<p class=\"note\">The knee of a series is the last point before a step gains less than {:.0}% IOPS while p99 still rises.</p>",
        s.knee_gain * 100.0
    );
}
