//! A sweep's table: a row per point and each series' knee (computed by
//! [`crate::report::analysis::sweep`]).

use serde::{Deserialize, Serialize};

/// The sweep's table and knees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepReport {
    /// The swept options, outermost first.
    pub axes: Vec<String>,
    /// One per point, in run order.
    pub points: Vec<SweepPoint>,
    /// The IOPS gain below which a step is past the knee.
    pub knee_gain: f64,
    /// One per series: the points that differ only in the innermost option.
    pub series: Vec<Series>,
}

/// One point's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Its timespan in the report, from 1.
    pub timespan: usize,
    /// Its value of each axis, as typed.
    pub values: Vec<String>,
    /// Whether it reached its measured window.
    pub measured: bool,
    /// Whether a signal, a failed I/O or a lost target stopped the sweep during this point (its
    /// figures, if any, cover only part of its window), or before it began (no figures).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut_short: bool,
    /// I/Os per second.
    pub ios_per_s: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// Latency (with -L): mean, median, 99th and 99.9th percentiles, ns.
    pub mean_ns: Option<f64>,
    /// Median latency, ns.
    pub p50_ns: Option<u64>,
    /// 99th percentile, ns.
    pub p99_ns: Option<u64>,
    /// 99.9th percentile, ns.
    pub p999_ns: Option<u64>,
    /// Average CPU use, percent.
    pub cpu_percent: f64,
    /// Time-weighted I/Os in flight.
    pub achieved_depth: f64,
    /// With `--repeat`: the report's timespans that are its repetitions (from 1); its figures are
    /// their means.
    #[serde(default)]
    pub runs: Vec<usize>,
    /// With `--repeat`: half the width of the 95 % confidence interval of its mean IOPS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ios_per_s_ci95: Option<f64>,
}

/// Points that differ only in the innermost option, and their knee.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// The values of the outer axes every point of it shares.
    pub fixed: Vec<String>,
    /// Its points (indices into `points`).
    pub points: Vec<usize>,
    /// The knee (an index into `points`), or `None` when every step still gained.
    pub knee: Option<usize>,
}

impl SweepPoint {
    /// Whether it measured its whole window (a point cut short is no step of its series).
    pub fn finished(&self) -> bool {
        self.measured && !self.cut_short
    }
}

impl SweepReport {
    /// The point the sweep was stopped in (or before), if it was.
    pub fn cut_short(&self) -> Option<&SweepPoint> {
        self.points.iter().find(|p| p.cut_short)
    }

    /// One sentence on where the sweep stopped, when it stopped early: the point cut short, by its
    /// values, and how many points finished.
    pub fn stopped_at(&self) -> Option<String> {
        let at = self.cut_short()?;
        let values: Vec<String> = self
            .axes
            .iter()
            .zip(&at.values)
            .map(|(axis, value)| format!("{axis}{value}"))
            .collect();
        let finished = self.points.iter().filter(|p| p.finished()).count();
        Some(format!(
            "the sweep stopped at point {} ({}){}; {finished} of {} points finished",
            at.timespan,
            values.join(" "),
            if at.measured {
                ", whose figures cover part of its window"
            } else {
                ""
            },
            self.points.len()
        ))
    }

    /// Every series' knee (indices into `points`).
    pub fn knees(&self) -> Vec<usize> {
        self.series.iter().filter_map(|s| s.knee).collect()
    }
}
