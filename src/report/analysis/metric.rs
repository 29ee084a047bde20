//! What two results are compared on: the metrics of a direction (rates, mean and percentile
//! latencies) and the directions, with where each is read in a report and in its `-D` series.
//! Shared by [`crate::report::analysis::compare`] and [`crate::report::analysis::noise`].

use crate::report::{Direction, Directions, Measured};
use crate::stats::timeline::{Point, Row};

/// What is compared, per direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// I/Os per second.
    Iops,
    /// MiB per second.
    MibPerS,
    /// Mean latency, µs.
    MeanLatency,
    /// Median latency, µs.
    P50,
    /// 90th percentile latency, µs.
    P90,
    /// 99th percentile latency, µs.
    P99,
    /// 99.9th percentile latency, µs.
    P999,
    /// 99.99th percentile latency, µs.
    P9999,
    /// Maximum latency, µs.
    Max,
}

impl Metric {
    /// Every metric, in the report's order.
    pub const ALL: [Metric; 9] = [
        Metric::Iops,
        Metric::MibPerS,
        Metric::MeanLatency,
        Metric::P50,
        Metric::P90,
        Metric::P99,
        Metric::P999,
        Metric::P9999,
        Metric::Max,
    ];

    /// The name the report prints.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::MibPerS => "MiB/s",
            Metric::MeanLatency => "mean latency",
            Metric::P50 => "p50 latency",
            Metric::P90 => "p90 latency",
            Metric::P99 => "p99 latency",
            Metric::P999 => "p99.9 latency",
            Metric::P9999 => "p99.99 latency",
            Metric::Max => "max latency",
        }
    }

    /// Whether its values are latencies, in nanoseconds.
    pub fn is_latency(self) -> bool {
        !matches!(self, Metric::Iops | Metric::MibPerS)
    }

    /// A value of it for people: a latency in the unit that keeps it short, a rate with two
    /// decimals.
    pub fn show(self, value: f64) -> String {
        if self.is_latency() {
            crate::units::format_duration(value)
        } else {
            format!("{value:.2}")
        }
    }

    /// The percentile a latency metric reads (100 for the maximum).
    fn percentile(self) -> Option<f64> {
        match self {
            Metric::Iops | Metric::MibPerS | Metric::MeanLatency => None,
            Metric::P50 => Some(50.0),
            Metric::P90 => Some(90.0),
            Metric::P99 => Some(99.0),
            Metric::P999 => Some(99.9),
            Metric::P9999 => Some(99.99),
            Metric::Max => Some(100.0),
        }
    }

    /// Its value in `d`; `None` for a latency metric where `d` has no latency.
    pub fn of(self, d: &Direction) -> Option<f64> {
        match self {
            Metric::Iops => Some(d.ios_per_s),
            Metric::MibPerS => Some(d.bytes_per_s / 1_048_576.0),
            Metric::MeanLatency => d.latency.as_ref().map(|l| l.mean_ns),
            _ => {
                let p = self.percentile()?;
                d.latency.as_ref().map(|l| l.at(p) as f64)
            }
        }
    }

    /// The time-series pick of a percentile the rows carry.
    fn pick(self) -> Option<Pick> {
        match self {
            Metric::P50 => Some(|p| p.p50_ns as f64),
            Metric::P99 => Some(|p| p.p99_ns as f64),
            Metric::P999 => Some(|p| p.p999_ns as f64),
            Metric::Max => Some(|p| p.max_ns as f64),
            _ => None,
        }
    }

    /// Its value in each `-D` interval of direction `index` of a run (empty without interval
    /// data).
    pub(super) fn intervals(self, d: &Direction, m: &Measured, index: usize) -> Vec<f64> {
        match self {
            Metric::Iops => d.intervals.iter().map(|i| i.ios_per_s).collect(),
            // The interval byte rate: interval IOPS × the direction's mean I/O size.
            Metric::MibPerS => {
                let size = if d.ios > 0 {
                    d.bytes as f64 / d.ios as f64
                } else {
                    0.0
                };
                d.intervals
                    .iter()
                    .map(|i| i.ios_per_s * size / 1_048_576.0)
                    .collect()
            }
            Metric::MeanLatency => d
                .intervals
                .iter()
                .filter(|i| i.ios > 0)
                .map(|i| i.latency_mean_ns)
                .collect(),
            _ => self
                .pick()
                .map_or_else(Vec::new, |pick| series(&m.timeline, pick, index)),
        }
    }

    /// The run-to-run coefficient of variation, in percent, iospd assumes without repetitions to
    /// measure it: the largest of two measurements on the shared cloud VM's disk, each rounded up
    /// — 20 pairs of identical 3-second random reads (the root mean square difference over √2,
    /// `bench/runs/2026-11-24-compare-noise.md`), and 8 identical 3-second 70/30 random reads and
    /// writes (the standard deviation of the logarithm, and no pair farther apart than the floor
    /// allows: `bench/runs/2026-11-28-compare-pairs.md`). A run's tail (p99.9 and beyond, the
    /// maximum) is a few I/Os, moved by one stall of the host: its floor is wide.
    pub fn default_cv(self) -> f64 {
        match self {
            Metric::Iops | Metric::MibPerS => 9.0,
            Metric::MeanLatency => 10.0,
            Metric::P50 | Metric::P90 => 12.0,
            Metric::P99 => 25.0,
            Metric::P999 => 70.0,
            Metric::P9999 | Metric::Max => 90.0,
        }
    }
}

/// Where a run's totals keep one direction.
pub type PickDirection = fn(&Directions) -> &Direction;

/// The directions compared: index, name, and where a run's totals keep it.
pub const DIRECTIONS: [(usize, &str, PickDirection); 3] = [
    (0, "read", |d| &d.read),
    (1, "write", |d| &d.write),
    (2, "total", |d| &d.total),
];

/// Reads one metric of a time-series point.
type Pick = fn(&Point) -> f64;

/// Per-interval values of a time-series metric for one direction.
fn series(rows: &[Row], pick: Pick, direction: usize) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.all.total.ios > 0)
        .map(|r| {
            let p = match direction {
                0 => &r.all.read,
                1 => &r.all.write,
                _ => &r.all.total,
            };
            pick(p)
        })
        .collect()
}
