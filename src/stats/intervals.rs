//! `-D` intervals: completions and latency per interval of the measured window, which buckets
//! count, and the standard deviation of IOPS across them.

use serde::{Deserialize, Serialize};

/// One interval of one direction on one target in one thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interval {
    /// Completions.
    pub count: u64,
    /// Smallest latency, ns (meaningless when `count` is 0).
    pub min_ns: u64,
    /// Largest latency, ns.
    pub max_ns: u64,
    /// Sum of latencies, ns.
    pub sum_ns: u64,
    /// Sum of squared latencies, ns².
    pub sum_sq: u128,
}

impl Interval {
    /// Its numbers as six words, for a compact exact copy.
    pub fn to_words(&self) -> [u64; 6] {
        [
            self.count,
            self.min_ns,
            self.max_ns,
            self.sum_ns,
            self.sum_sq as u64,
            (self.sum_sq >> 64) as u64,
        ]
    }

    /// The interval [`Interval::to_words`] gave.
    pub fn from_words(w: [u64; 6]) -> Interval {
        Interval {
            count: w[0],
            min_ns: w[1],
            max_ns: w[2],
            sum_ns: w[3],
            sum_sq: w[4] as u128 | (w[5] as u128) << 64,
        }
    }

    /// Records one completion.
    #[inline]
    pub fn record(&mut self, latency: u64) {
        self.min_ns = if self.count == 0 {
            latency
        } else {
            self.min_ns.min(latency)
        };
        self.max_ns = self.max_ns.max(latency);
        self.count += 1;
        self.sum_ns += latency;
        self.sum_sq += latency as u128 * latency as u128;
    }

    /// Adds another interval covering the same time.
    /// Whether [`Interval::merge`] with `other` keeps every sum in range.
    pub fn can_merge(&self, other: &Interval) -> bool {
        self.count.checked_add(other.count).is_some()
            && self.sum_ns.checked_add(other.sum_ns).is_some()
            && self.sum_sq.checked_add(other.sum_sq).is_some()
    }

    /// Adds another bucket.
    pub fn merge(&mut self, other: &Interval) {
        if other.count == 0 {
            return;
        }
        self.min_ns = if self.count == 0 {
            other.min_ns
        } else {
            self.min_ns.min(other.min_ns)
        };
        self.max_ns = self.max_ns.max(other.max_ns);
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.sum_sq += other.sum_sq;
    }

    /// Mean latency in ns (0 without completions).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    /// Population standard deviation of latency in ns.
    pub fn stddev_ns(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = self.count as u128;
        let spread = (n * self.sum_sq).saturating_sub(self.sum_ns as u128 * self.sum_ns as u128);
        (spread as f64).sqrt() / self.count as f64
    }
}

/// The number of buckets a measured window of `window_ns` holds at `interval_ms`.
pub fn bucket_count(window_ns: u64, interval_ms: u32) -> usize {
    let interval_ns = interval_ms as u64 * 1_000_000;
    window_ns.div_ceil(interval_ns) as usize
}

/// The buckets that count, DiskSpd's way: those after the last one that received an I/O are
/// dropped; leading and middle empty buckets are kept.
pub fn valid(intervals: &[Interval]) -> &[Interval] {
    let valid = intervals
        .iter()
        .rposition(|i| i.count > 0)
        .map_or(0, |last| last + 1);
    &intervals[..valid]
}

/// Population standard deviation of IOPS across the valid buckets.
pub fn iops_stddev(intervals: &[Interval], interval_ms: u32) -> f64 {
    let counts = valid(intervals);
    if counts.is_empty() {
        return 0.0;
    }
    let n = counts.len() as f64;
    let mean = counts.iter().map(|i| i.count).sum::<u64>() as f64 / n;
    let variance = counts
        .iter()
        .map(|i| (i.count as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    variance.sqrt() / (interval_ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(c: &[u64]) -> Vec<Interval> {
        c.iter()
            .map(|&count| Interval {
                count,
                ..Interval::default()
            })
            .collect()
    }

    #[test]
    fn buckets_round_up() {
        assert_eq!(bucket_count(10_000_000_000, 1000), 10);
        assert_eq!(bucket_count(10_000_000_001, 1000), 11);
        assert_eq!(bucket_count(500_000_000, 1000), 1);
    }

    #[test]
    fn stddev_of_iops() {
        assert_eq!(iops_stddev(&counts(&[10, 10, 10]), 1000), 0.0);
        // counts 1 and 3 per 500 ms = 2 and 6 IOPS: σ = 2 IOPS.
        assert_eq!(iops_stddev(&counts(&[1, 3]), 500), 2.0);
        // trailing empty buckets do not count, leading ones do.
        assert_eq!(iops_stddev(&counts(&[0, 2, 0, 0]), 1000), 1.0);
        assert_eq!(iops_stddev(&[], 1000), 0.0);
    }

    #[test]
    fn latency_per_interval() {
        let mut a = Interval::default();
        for ns in [2, 4, 4, 4] {
            a.record(ns);
        }
        let mut b = Interval::default();
        for ns in [5, 5, 7, 9] {
            b.record(ns);
        }
        a.merge(&b);
        assert_eq!((a.count, a.min_ns, a.max_ns), (8, 2, 9));
        assert_eq!(a.mean_ns(), 5.0);
        assert_eq!(a.stddev_ns(), 2.0);
        let mut empty = Interval::default();
        empty.merge(&a);
        assert_eq!(empty, a);
    }
}
