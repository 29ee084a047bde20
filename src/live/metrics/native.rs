//! The native histogram of `iospd_latency_seconds`, for a scraper that asks for Prometheus's
//! protobuf format (Prometheus with `--enable-feature=native-histograms`): sparse exponential
//! buckets of schema 5, 32 per doubling, so each is at most 2.2 % wide (2^(1/32)) against the
//! classic buckets' 50 %; only buckets with I/O are kept and sent. Bucket `i` holds latencies in
//! (2^((i−1)/32), 2^(i/32)] seconds, the same on every host, so buckets of many ranks add. A
//! latency of 0 ns (none is measured, but a clock may say so) goes to the zero bucket.

use std::collections::BTreeMap;

use crate::stats::histogram::LatencyHistogram;

/// Buckets per doubling are 2^SCHEMA.
pub const SCHEMA: i32 = 5;

/// The index of the bucket holding `ns`, `None` for 0 (the zero bucket).
pub fn index(ns: u64) -> Option<i32> {
    if ns == 0 {
        return None;
    }
    let seconds = ns as f64 / 1e9;
    Some((seconds.log2() * f64::from(1 << SCHEMA)).ceil() as i32)
}

/// A native histogram's buckets with I/O, and its zero bucket.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Native {
    /// Per bucket index, the I/Os in it.
    pub buckets: BTreeMap<i32, u64>,
    /// I/Os of 0 ns.
    pub zero: u64,
}

impl Native {
    /// Adds an interval's latencies.
    pub fn add(&mut self, latency: &LatencyHistogram) {
        latency.each_value(|ns, count| match index(ns) {
            Some(i) => *self.buckets.entry(i).or_default() += count,
            None => self.zero += count,
        });
    }

    /// Adds another rank's.
    pub fn merge(&mut self, other: &Native) {
        for (&i, &count) in &other.buckets {
            *self.buckets.entry(i).or_default() += count;
        }
        self.zero += other.zero;
    }

    /// The buckets as the protobuf carries them: spans of consecutive buckets (the first's offset
    /// is its index, each later one's the gap after the span before) and each bucket's count as
    /// the difference from the bucket before it.
    pub fn spans(&self) -> (Vec<(i32, u32)>, Vec<i64>) {
        let mut spans: Vec<(i32, u32)> = Vec::new();
        let mut deltas = Vec::with_capacity(self.buckets.len());
        let (mut last, mut previous) = (None::<i32>, 0i64);
        for (&i, &count) in self.buckets.iter().filter(|(_, c)| **c > 0) {
            match last {
                Some(l) if i == l + 1 => spans.last_mut().expect("a span is open").1 += 1,
                Some(l) => spans.push((i - l - 1, 1)),
                None => spans.push((i, 1)),
            }
            deltas.push(count as i64 - previous);
            previous = count as i64;
            last = Some(i);
        }
        (spans, deltas)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_is_a_32nd_of_a_doubling_and_holds_its_upper_bound() {
        assert_eq!(index(1_000_000_000), Some(0));
        assert_eq!(index(2_000_000_000), Some(32));
        assert_eq!(index(500_000_000), Some(-32));
        assert_eq!(index(1_000_000_001), Some(1));
        assert_eq!(index(0), None);
        // 100 µs: 2^(i/32) s is the first bound at or above it.
        let i = index(100_000).unwrap();
        let upper = 2f64.powf(f64::from(i) / 32.0);
        let lower = 2f64.powf(f64::from(i - 1) / 32.0);
        assert!(lower < 100e-6 && 100e-6 <= upper, "{lower} {upper}");
        assert!(upper / lower < 1.022);
    }

    #[test]
    fn spans_and_deltas_as_prometheus_reads_them() {
        let native = Native {
            buckets: BTreeMap::from([(-3, 2), (-2, 5), (-1, 0), (4, 1), (5, 4), (9, 3)]),
            zero: 0,
        };
        let (spans, deltas) = native.spans();
        assert_eq!(spans, vec![(-3, 2), (5, 2), (3, 1)]);
        assert_eq!(deltas, vec![2, 3, -4, 3, -1]);
        // Rebuilt from spans and deltas: the same buckets.
        let mut rebuilt = BTreeMap::new();
        let (mut at, mut count, mut d) = (0i32, 0i64, deltas.iter());
        for (k, &(offset, length)) in spans.iter().enumerate() {
            at += offset + if k == 0 { 0 } else { 1 };
            for j in 0..length {
                count += d.next().unwrap();
                rebuilt.insert(at + j as i32, count as u64);
            }
            at += length as i32 - 1;
        }
        let nonzero: BTreeMap<i32, u64> =
            native.buckets.into_iter().filter(|(_, c)| *c > 0).collect();
        assert_eq!(rebuilt, nonzero);
    }

    #[test]
    fn latencies_and_ranks_add() {
        let mut h = LatencyHistogram::new();
        for ns in [1_000, 1_000, 250_000] {
            h.record(ns);
        }
        let mut a = Native::default();
        a.add(&h);
        let mut b = a.clone();
        b.merge(&a);
        assert_eq!(b.buckets.values().sum::<u64>(), 6);
        assert_eq!(b.buckets[&index(1_000).unwrap()], 4);
        assert_eq!(b.zero, 0);
    }
}
