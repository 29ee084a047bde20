//! `--bssplit`: a target's measured reads and writes by block size, each size's completions and
//! latency (count, min, max, sum, sum of squares), so the report can give IOPS, MiB/s and latency
//! per transfer size as vdbench does.

use super::intervals::Interval;
use crate::engine::Op;

/// A size's index among a split's sizes (at most two lists of
/// [`crate::profile::MAX_SIZES`]).
pub type SizeIndex = u16;

/// Per size of the split (ascending), reads and writes apart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SizeStats {
    /// The sizes, ascending.
    pub sizes: Vec<u64>,
    /// Reads of each size.
    pub read: Vec<Interval>,
    /// Writes of each size.
    pub write: Vec<Interval>,
}

impl SizeStats {
    /// Empty counts for `sizes` (ascending).
    pub fn new(sizes: Vec<u64>) -> Self {
        let n = sizes.len();
        SizeStats {
            sizes,
            read: vec![Interval::default(); n],
            write: vec![Interval::default(); n],
        }
    }

    /// One measured I/O of the size at `index` (trims and flushes are not counted here).
    #[inline]
    pub fn record(&mut self, op: Op, index: SizeIndex, latency: u64) {
        let list = match op {
            Op::Read => &mut self.read,
            Op::Write => &mut self.write,
            _ => return,
        };
        if let Some(bucket) = list.get_mut(index as usize) {
            bucket.record(latency);
        }
    }

    /// Another thread's counts on the same target (the same sizes).
    pub fn merge(&mut self, other: &SizeStats) {
        if self.sizes.is_empty() {
            *self = other.clone();
            return;
        }
        for (mine, theirs) in [
            (&mut self.read, &other.read),
            (&mut self.write, &other.write),
        ] {
            for (m, t) in mine.iter_mut().zip(theirs) {
                m.merge(t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_count_apart_and_merge() {
        let mut a = SizeStats::new(vec![4096, 65536]);
        a.record(Op::Read, 0, 100);
        a.record(Op::Read, 1, 900);
        a.record(Op::Write, 1, 500);
        a.record(Op::Trim, 0, 5);
        let mut b = SizeStats::default();
        b.merge(&a);
        b.merge(&a);
        assert_eq!(b.read[0].count, 2);
        assert_eq!((b.read[1].count, b.read[1].max_ns), (2, 900));
        assert_eq!((b.write[0].count, b.write[1].count), (0, 2));
    }
}
