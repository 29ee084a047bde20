//! `--bssplit`: each I/O's size drawn by weight from its direction's list, with the size's index
//! among the split's sizes (ascending) for the statistics by size.

use crate::engine::Op;
use crate::profile::{BlockSplit, SizeShare};
use crate::rng::Rng;
use crate::stats::sizes::SizeIndex;

/// One direction's sizes: cumulative weight, bytes, index among all sizes.
#[derive(Debug, Clone)]
struct Choices(Vec<(u64, u32, SizeIndex)>);

impl Choices {
    fn new(shares: &[SizeShare], sizes: &[u64]) -> Self {
        let mut until = 0u64;
        Choices(
            shares
                .iter()
                .map(|s| {
                    until += s.weight as u64;
                    let index = sizes.iter().position(|&x| x == s.size).unwrap_or(0);
                    (until, s.size as u32, index as SizeIndex)
                })
                .collect(),
        )
    }

    /// The largest size of the list no larger than `room` bytes.
    fn fitting(&self, room: u64) -> Option<(u32, SizeIndex)> {
        self.0
            .iter()
            .filter(|c| c.1 as u64 <= room)
            .max_by_key(|c| c.1)
            .map(|&(_, len, index)| (len, index))
    }

    #[inline]
    fn draw(&self, rng: &mut Rng) -> (u32, SizeIndex) {
        let total = self.0[self.0.len() - 1].0;
        let pick = rng.below(total);
        let i = self.0.partition_point(|c| c.0 <= pick);
        let (_, len, index) = self.0[i];
        (len, index)
    }
}

/// The sizes a target's reads and writes (and trims, with the writes) draw from.
#[derive(Debug, Clone)]
pub struct SizeDraw {
    read: Choices,
    write: Choices,
}

impl SizeDraw {
    /// Draws for `split` (its lists are never empty: the option's grammar needs a size).
    pub fn new(split: &BlockSplit) -> Self {
        let sizes = split.sizes();
        SizeDraw {
            read: Choices::new(&split.read, &sizes),
            write: Choices::new(&split.write, &sizes),
        }
    }

    /// The size of the next I/O of `op` within `room` bytes of work left: as drawn when it fits,
    /// else the largest of its list that does (so a run bounded by bytes ends on them exactly,
    /// as fio's random map ends a region with the I/Os that fit what is left of it).
    #[inline]
    pub fn draw_within(&self, op: Op, rng: &mut Rng, room: u64) -> (u32, SizeIndex) {
        let drawn = self.draw(op, rng);
        if drawn.0 as u64 <= room {
            return drawn;
        }
        let list = match op {
            Op::Read => &self.read,
            _ => &self.write,
        };
        list.fitting(room).unwrap_or(drawn)
    }

    /// The size of the next I/O of `op` and its index among the split's sizes.
    #[inline]
    pub fn draw(&self, op: Op, rng: &mut Rng) -> (u32, SizeIndex) {
        match op {
            Op::Read => self.read.draw(rng),
            _ => self.write.draw(rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::MAX_SIZES;

    #[test]
    fn sizes_are_drawn_by_weight_per_direction() {
        let split: BlockSplit = "4K/75:64K/25,128K/100".parse().unwrap();
        let draw = SizeDraw::new(&split);
        let mut rng = Rng::new(3);
        let mut small = 0;
        for _ in 0..100_000 {
            let (len, index) = draw.draw(Op::Read, &mut rng);
            match len {
                4096 => {
                    assert_eq!(index, 0);
                    small += 1;
                }
                65536 => assert_eq!(index, 1),
                other => panic!("{other}"),
            }
        }
        assert!((74_000..76_000).contains(&small), "{small}");
        assert_eq!(draw.draw(Op::Write, &mut rng), (131_072, 2));
        assert_eq!(draw.draw(Op::Trim, &mut rng), (131_072, 2));
    }

    #[test]
    fn a_size_that_does_not_fit_the_work_left_gives_way_to_the_largest_that_does() {
        let split: BlockSplit = "4K/1:16K/1:64K/98".parse().unwrap();
        let draw = SizeDraw::new(&split);
        let mut rng = Rng::new(5);
        for _ in 0..1000 {
            let (len, _) = draw.draw_within(Op::Read, &mut rng, u64::MAX);
            assert!([4096, 16384, 65536].contains(&len));
        }
        // 20 KiB left: 64 KiB never, 16 KiB or 4 KiB as drawn, never past the room.
        for _ in 0..1000 {
            let (len, index) = draw.draw_within(Op::Read, &mut rng, 20 << 10);
            assert!(
                len == 16384 && index == 1 || len == 4096 && index == 0,
                "{len}"
            );
        }
        assert_eq!(draw.draw_within(Op::Read, &mut rng, 4096), (4096, 0));
        // Less than the smallest: as drawn (the run ends past its bytes by one I/O).
        assert!(draw.draw_within(Op::Read, &mut rng, 100).0 >= 4096);
    }

    #[test]
    fn every_size_of_the_longest_lists_keeps_its_own_index() {
        // Two lists of the most sizes each, none shared: 8,192 indexes, past any byte.
        let list = |from: u64| {
            (0..MAX_SIZES as u64)
                .map(|i| format!("{}/1", (from + i) * 512))
                .collect::<Vec<_>>()
                .join(":")
        };
        let split: BlockSplit = format!("{},{}", list(1), list(1 + MAX_SIZES as u64))
            .parse()
            .unwrap();
        let sizes = split.sizes();
        assert_eq!(sizes.len(), 2 * MAX_SIZES);
        let draw = SizeDraw::new(&split);
        let mut rng = Rng::new(5);
        for op in [Op::Read, Op::Write] {
            for _ in 0..50_000 {
                let (len, index) = draw.draw(op, &mut rng);
                assert_eq!(sizes[index as usize], len as u64);
            }
        }
        let more = format!("{}:512/1", list(1));
        let refused = more.parse::<BlockSplit>().unwrap_err();
        assert!(refused.contains("more than the 4096"), "{refused}");
    }
}
