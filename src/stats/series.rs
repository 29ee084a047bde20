//! A timespan's `-D` series as the ranks of a run across hosts add them up: the run's per-interval
//! buckets per kind of I/O and the time-series rows. These are the parts of a result that grow
//! with the run's length, so they travel up a tree of ranks, each adding its children's to its
//! own (see `cluster::reduce`), and rank 0 receives one series whatever the number of ranks,
//! instead of one per rank.
//!
//! Intervals are on the common timeline: every rank counts its intervals from the agreed start
//! (and warm-up), however late its threads began (a late rank's first intervals are empty), so
//! adding two lines them up interval by interval.

use super::intervals::Interval;
use super::timeline::Row;

/// Read, write, trim, flush: the kinds of I/O with buckets.
pub const KINDS: usize = 4;

/// One timespan's series, of one rank or of many added.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// The length of an interval, ms.
    pub interval_ms: f64,
    /// Per kind (read, write, trim, flush): the buckets from the window's start; `None` for a kind the
    /// run did not do (trims and flushes).
    pub kinds: [Option<Vec<Interval>>; KINDS],
    /// The rows, their `start_ms` on the common timeline.
    pub timeline: Vec<Row>,
}

impl Series {
    /// Adds another rank's series, interval by interval.
    pub fn add(&mut self, other: Series) {
        for (mine, theirs) in self.kinds.iter_mut().zip(other.kinds) {
            let Some(theirs) = theirs else { continue };
            let mine = mine.get_or_insert_with(Vec::new);
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), Interval::default());
            }
            for (sum, bucket) in mine.iter_mut().zip(&theirs) {
                sum.merge(bucket);
            }
        }
        let mut rows = std::mem::take(&mut self.timeline);
        rows.extend(other.timeline);
        rows.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
        self.timeline = Row::merge_coinciding(rows);
    }

    /// The series as bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut words = vec![self.interval_ms.to_bits(), self.timeline.len() as u64];
        for kind in &self.kinds {
            match kind {
                None => words.push(u64::MAX),
                Some(buckets) => {
                    words.push(buckets.len() as u64);
                    for bucket in buckets {
                        words.extend(bucket.to_words());
                    }
                }
            }
        }
        for row in &self.timeline {
            words.extend(row.to_words());
        }
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The series [`Series::encode`] gave; `None` for bytes it did not.
    pub fn decode(bytes: &[u8]) -> Option<Series> {
        if bytes.len() % 8 != 0 {
            return None;
        }
        let mut words = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
        let interval_ms = f64::from_bits(words.next()?);
        let rows = usize::try_from(words.next()?).ok()?;
        let mut kinds: [Option<Vec<Interval>>; KINDS] = Default::default();
        for kind in &mut kinds {
            let n = words.next()?;
            if n == u64::MAX {
                continue;
            }
            let n = usize::try_from(n).ok()?;
            let mut buckets = Vec::with_capacity(n.min(bytes.len() / 48));
            for _ in 0..n {
                let mut w = [0u64; 6];
                for slot in &mut w {
                    *slot = words.next()?;
                }
                buckets.push(Interval::from_words(w));
            }
            *kind = Some(buckets);
        }
        let mut timeline = Vec::with_capacity(rows.min(bytes.len() / 64));
        for _ in 0..rows {
            timeline.push(Row::from_words(&mut words)?);
        }
        if words.next().is_some() {
            return None;
        }
        Some(Series {
            interval_ms,
            kinds,
            timeline,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::timeline::TargetOps;

    fn bucket(count: u64, latency: u64) -> Interval {
        let mut b = Interval::default();
        for _ in 0..count {
            b.record(latency);
        }
        b
    }

    fn series(counts: &[u64], latency: u64) -> Series {
        let buckets: Vec<Interval> = counts.iter().map(|&n| bucket(n, latency)).collect();
        let timeline = counts
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let mut ops: Vec<TargetOps> = vec![Default::default()];
                for _ in 0..n {
                    ops[0].read.record(4096, latency);
                }
                Row::new(i as u64 * 100_000_000, 100_000_000, &ops)
            })
            .collect();
        Series {
            interval_ms: 100.0,
            kinds: [
                Some(buckets),
                Some(vec![Interval::default(); counts.len()]),
                None,
                None,
            ],
            timeline,
        }
    }

    #[test]
    fn ranks_add_interval_by_interval_on_the_common_timeline() {
        let mut sum = series(&[1, 2, 3], 1_000);
        sum.add(series(&[0, 10, 20, 30], 5_000));
        let read = sum.kinds[0].as_ref().unwrap();
        assert_eq!(
            read.iter().map(|b| b.count).collect::<Vec<_>>(),
            [1, 12, 23, 30]
        );
        assert_eq!((read[1].min_ns, read[1].max_ns), (1_000, 5_000));
        assert_eq!(read[1].sum_ns, 2 * 1_000 + 10 * 5_000);
        assert!(sum.kinds[2].is_none());
        let ios: Vec<u64> = sum.timeline.iter().map(|r| r.all.total.ios).collect();
        assert_eq!(ios, [1, 12, 23, 30]);
        let starts: Vec<f64> = sum.timeline.iter().map(|r| r.start_ms).collect();
        assert_eq!(starts, [0.0, 100.0, 200.0, 300.0]);
        // In any order, the same.
        let mut other = series(&[0, 10, 20, 30], 5_000);
        other.add(series(&[1, 2, 3], 1_000));
        assert_eq!(other, sum);
    }

    #[test]
    fn a_series_survives_the_trip_and_damage_is_refused() {
        let mut s = series(&[3, 0, 7], 2_500);
        s.kinds[3] = Some(vec![bucket(2, u64::MAX / 4)]);
        let bytes = s.encode();
        assert_eq!(Series::decode(&bytes), Some(s));
        assert_eq!(Series::decode(&bytes[..bytes.len() - 8]), None);
        assert_eq!(Series::decode(&bytes[..bytes.len() - 3]), None);
        let mut longer = bytes.clone();
        longer.extend([0; 8]);
        assert_eq!(Series::decode(&longer), None);
    }
}
