//! `--ioprio-split`: a target's reads and writes by the I/O priority each was issued with, each
//! priority's completions, bytes and latency histogram, so the report can give each its latency
//! percentiles apart (fio's `clat_prio`).

use super::OpStats;
use crate::engine::Op;

/// A priority's rank among a target's: 0 is the target's own (`-I`/`--ioprio`), then the split's
/// in order.
pub type PriorityRank = u8;

/// Per priority (its Linux value), reads and writes apart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriorityStats {
    /// The priorities by rank (the kernel's `ioprio` values; 0: none set).
    pub priorities: Vec<u16>,
    /// Reads at each.
    pub read: Vec<OpStats>,
    /// Writes at each.
    pub write: Vec<OpStats>,
}

impl PriorityStats {
    /// Empty counts for `priorities` (by rank).
    pub fn new(priorities: Vec<u16>) -> Self {
        let n = priorities.len();
        PriorityStats {
            priorities,
            read: vec![OpStats::new(0); n],
            write: vec![OpStats::new(0); n],
        }
    }

    /// One measured I/O at the priority of `rank` (trims and flushes are not counted here).
    #[inline]
    pub fn record(&mut self, op: Op, rank: PriorityRank, bytes: u64, latency: u64) {
        let list = match op {
            Op::Read => &mut self.read,
            Op::Write => &mut self.write,
            _ => return,
        };
        if let Some(stats) = list.get_mut(rank as usize) {
            stats.record(bytes, latency, 0);
        }
    }

    /// Another thread's (or run's) counts on the same target, priority by priority.
    pub fn merge(&mut self, other: &PriorityStats) {
        for (k, &priority) in other.priorities.iter().enumerate() {
            let at = match self.priorities.iter().position(|&p| p == priority) {
                Some(at) => at,
                None => {
                    self.priorities.push(priority);
                    self.read.push(OpStats::new(0));
                    self.write.push(OpStats::new(0));
                    self.priorities.len() - 1
                }
            };
            self.read[at].merge(&other.read[k]);
            self.write[at].merge(&other.write[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_priority_counts_its_own_and_merges_by_value() {
        let mut a = PriorityStats::new(vec![0, 1 << 13]);
        a.record(Op::Read, 0, 4096, 100);
        a.record(Op::Read, 1, 4096, 50);
        a.record(Op::Write, 1, 8192, 70);
        a.record(Op::Trim, 1, 4096, 5);
        assert_eq!(
            (a.read[0].ios, a.read[1].ios, a.write[1].bytes),
            (1, 1, 8192)
        );
        let mut b = PriorityStats::new(vec![0, 3 << 13]);
        b.record(Op::Read, 1, 4096, 900);
        let mut sum = a.clone();
        sum.merge(&b);
        assert_eq!(sum.priorities, [0, 1 << 13, 3 << 13]);
        assert_eq!(
            sum.read.iter().map(|s| s.ios).collect::<Vec<_>>(),
            [1, 1, 1]
        );
        assert_eq!(sum.read[2].latency.max(), 900);
    }
}
