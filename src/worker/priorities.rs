//! `--ioprio-split`: the priority each read and write is issued with, drawn per I/O from the
//! rules of its direction and size (a size's own rules, or else those of every size); what no
//! rule draws keeps the target's.

use crate::engine::Op;
use crate::profile::ioprio_split::IoprioSplit;
use crate::rng::Rng;
use crate::stats::priorities::PriorityRank;

/// The rules of one size (or of every size, `None`): (cumulative percent, ioprio, rank).
type Group = (Option<u64>, Vec<(u8, u16, PriorityRank)>);

/// A target's draw.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorityDraw {
    read: Vec<Group>,
    write: Vec<Group>,
}

impl PriorityDraw {
    /// The draw of `split` on a target whose own priority is `own`; and the priorities by rank
    /// (rank 0 `own`).
    pub fn new(split: &IoprioSplit, own: u16) -> (Self, Vec<u16>) {
        let mut ranks = vec![own];
        ranks.extend(split.priorities().into_iter().filter(|&p| p != own));
        let groups = |op: Op| -> Vec<Group> {
            let mut groups: Vec<Group> = Vec::new();
            for rule in split.rules(op) {
                let ioprio = rule.linux_ioprio();
                let rank = ranks.iter().position(|&p| p == ioprio).unwrap_or(0) as PriorityRank;
                let at = match groups.iter().position(|g| g.0 == rule.size) {
                    Some(at) => at,
                    None => {
                        groups.push((rule.size, Vec::new()));
                        groups.len() - 1
                    }
                };
                let below = groups[at].1.last().map_or(0, |c| c.0) + rule.percent;
                groups[at].1.push((below, ioprio, rank));
            }
            groups
        };
        let draw = PriorityDraw {
            read: groups(Op::Read),
            write: groups(Op::Write),
        };
        (draw, ranks)
    }

    /// The priority of a `len`-byte I/O of `op` (0: the target's) and its rank.
    #[inline]
    pub fn draw(&self, op: Op, len: u32, rng: &mut Rng) -> (u16, PriorityRank) {
        let groups = match op {
            Op::Read => &self.read,
            Op::Write => &self.write,
            _ => return (0, 0),
        };
        let len = u64::from(len);
        let Some((_, rules)) = groups
            .iter()
            .find(|g| g.0 == Some(len))
            .or_else(|| groups.iter().find(|g| g.0.is_none()))
        else {
            return (0, 0);
        };
        let r = rng.below(100) as u8;
        rules
            .iter()
            .find(|&&(below, ..)| r < below)
            .map_or((0, 0), |&(_, ioprio, rank)| (ioprio, rank))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_size_draws_its_own_shares_and_the_rest_keep_the_targets() {
        let split = IoprioSplit::parse("64K/25/rt/1:64K/75/idle/0:10/be/0,").unwrap();
        let (draw, ranks) = PriorityDraw::new(&split, 0);
        assert_eq!(ranks, [0, 1 << 13 | 1, 3 << 13, 2 << 13]);
        let mut rng = Rng::new(7);
        let mut counts = [0u32; 4];
        for _ in 0..10_000 {
            counts[draw.draw(Op::Read, 65536, &mut rng).1 as usize] += 1;
        }
        // 64 KiB reads: a quarter real time, the rest idle, none left at the target's.
        assert_eq!(counts[0] + counts[3], 0);
        assert!((2_200..2_800).contains(&counts[1]), "{counts:?}");
        let mut other = [0u32; 4];
        for _ in 0..10_000 {
            other[draw.draw(Op::Read, 4096, &mut rng).1 as usize] += 1;
        }
        // Other sizes: a tenth best effort 0, the rest the target's.
        assert!((800..1_200).contains(&other[3]), "{other:?}");
        assert_eq!(other[0] + other[3], 10_000);
        // Writes have no rule here.
        assert_eq!(draw.draw(Op::Write, 65536, &mut rng), (0, 0));
    }
}
