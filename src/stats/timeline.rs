//! The time series: per interval of the measured window, what each target did in each direction,
//! summed over every thread. Computed once here from the merged interval histograms; the CSV, the
//! reports and the progress line only format these numbers.

use serde::{Deserialize, Serialize};

use super::histogram::LatencyHistogram;
use crate::clock::Nanos;

/// One direction's I/O in one interval (or a slice of it from one thread): counts and the exact
/// latency histogram, so slices from many threads merge exactly.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntervalOps {
    /// Completions.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Their latencies.
    pub latency: LatencyHistogram,
}

impl IntervalOps {
    /// Records one completion.
    #[inline]
    pub fn record(&mut self, bytes: u64, latency: Nanos) {
        self.ios += 1;
        self.bytes += bytes;
        self.latency.record(latency);
    }

    /// Adds another slice of the same interval.
    pub fn merge(&mut self, other: &IntervalOps) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.latency.merge(&other.latency);
    }

    /// Empties it for reuse, keeping its memory.
    pub fn clear(&mut self) {
        self.ios = 0;
        self.bytes = 0;
        self.latency.clear();
    }
}

/// The numbers of one direction in one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Completions.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// I/Os per second over the interval.
    pub ios_per_s: f64,
    /// Bytes per second over the interval.
    pub bytes_per_s: f64,
    /// Latency (0 when there was no I/O).
    pub min_ns: u64,
    /// Exact mean latency.
    pub mean_ns: f64,
    /// Median latency.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest latency.
    pub max_ns: u64,
}

impl Point {
    /// The numbers of `ops` over an interval of `length_ns`.
    pub fn of(ops: &IntervalOps, length_ns: Nanos) -> Point {
        let seconds = length_ns as f64 / 1e9;
        let rate = |n: u64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        let p = ops.latency.percentiles(&[0.5, 0.99, 0.999]);
        Point {
            ios: ops.ios,
            bytes: ops.bytes,
            ios_per_s: rate(ops.ios),
            bytes_per_s: rate(ops.bytes),
            min_ns: ops.latency.min(),
            mean_ns: ops.latency.mean(),
            p50_ns: p[0],
            p99_ns: p[1],
            p999_ns: p[2],
            max_ns: ops.latency.max(),
        }
    }
}

/// Read, write and both together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Directions {
    /// Reads.
    pub read: Point,
    /// Writes.
    pub write: Point,
    /// Reads and writes together.
    pub total: Point,
}

impl Directions {
    /// The three points of one target (or of all targets merged) from its read and write slices.
    pub fn of(read: &IntervalOps, write: &IntervalOps, length_ns: Nanos) -> Directions {
        let mut total = read.clone();
        total.merge(write);
        Directions {
            read: Point::of(read, length_ns),
            write: Point::of(write, length_ns),
            total: Point::of(&total, length_ns),
        }
    }
}

/// One interval of the time series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Start of the interval from the start of the measured window, in ms.
    pub start_ms: f64,
    /// Its length in ms (the last one may be cut short by the end of the window).
    pub length_ms: f64,
    /// Every target, in timespan order.
    pub targets: Vec<Directions>,
    /// All targets together.
    pub all: Directions,
}

impl Row {
    /// The row of interval `start_ns..start_ns + length_ns` from each target's read and write.
    pub fn new(start_ns: Nanos, length_ns: Nanos, targets: &[[IntervalOps; 2]]) -> Row {
        let mut read = IntervalOps::default();
        let mut write = IntervalOps::default();
        for [r, w] in targets {
            read.merge(r);
            write.merge(w);
        }
        Row {
            start_ms: start_ns as f64 / 1e6,
            length_ms: length_ns as f64 / 1e6,
            targets: targets
                .iter()
                .map(|[r, w]| Directions::of(r, w, length_ns))
                .collect(),
            all: Directions::of(&read, &write, length_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_merges_targets_and_directions_exactly() {
        let mut a = [IntervalOps::default(), IntervalOps::default()];
        let mut b = [IntervalOps::default(), IntervalOps::default()];
        for ns in 1..=1000 {
            a[0].record(4096, ns * 1000);
        }
        b[1].record(8192, 5_000_000);
        let row = Row::new(2_000_000_000, 500_000_000, &[a, b]);
        assert_eq!(row.start_ms, 2000.0);
        assert_eq!(row.targets[0].read.ios, 1000);
        assert_eq!(row.targets[0].read.ios_per_s, 2000.0);
        // Percentiles are within the histogram's 0.1 %.
        let near = |value: u64, exact: u64| value.abs_diff(exact) * 1000 <= exact;
        assert!(near(row.targets[0].read.p50_ns, 500_000));
        assert_eq!(row.targets[1].write.bytes_per_s, 16384.0);
        assert_eq!(row.all.total.ios, 1001);
        assert_eq!(row.all.total.max_ns, 5_000_000);
        assert!(near(row.all.read.p999_ns, 999_000));
        assert_eq!(row.all.write.min_ns, 5_000_000);
    }
}
