//! Offset generation as DiskSpd does it (reference §4.7).
//!
//! With base `B0` (`-B`), usable size `S` (target or `-f`, minus the base), alignment or stride `A`
//! and block size `B`, valid starts are multiples of `A` from 0 to `S − B`:
//! - sequential: each thread from its own start `k × T`, advancing by `A`, wrapping to the start of
//!   the range when the next block would pass the end;
//! - interlocked (`-si`): one shared counter per target, `fetch_add(A) mod S_aligned`;
//! - random: a uniform multiple of `A` in `0 ..= S − B`.

use std::sync::atomic::{AtomicU64, Ordering};

use super::rng::Rng;
use crate::profile::Access;

/// The byte range of a target that I/O may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// First byte (`-B`).
    pub base: u64,
    /// Bytes usable after the base.
    pub usable: u64,
}

#[derive(Debug)]
enum Kind<'a> {
    Sequential,
    Interlocked(&'a AtomicU64),
    Random,
}

/// The next offset for one thread on one target.
#[derive(Debug)]
pub struct OffsetGen<'a> {
    kind: Kind<'a>,
    base: u64,
    align: u64,
    positions: u64,
    last_start: u64,
    wrap_to: u64,
    next: u64,
}

impl<'a> OffsetGen<'a> {
    /// A generator for relative thread `k` (`start = k × thread_stride`). `range.usable` must be at
    /// least `block + start` (checked when the target is prepared).
    pub fn new(
        access: Access,
        block: u64,
        range: Range,
        start: u64,
        shared: Option<&'a AtomicU64>,
    ) -> Self {
        let align = access.alignment();
        let last_start = range.usable.saturating_sub(block);
        let positions = match align {
            0 => 1,
            a => last_start / a + 1,
        };
        let kind = match (access, shared) {
            (Access::Random { .. }, _) => Kind::Random,
            (
                Access::Sequential {
                    interlocked: true, ..
                },
                Some(counter),
            ) => Kind::Interlocked(counter),
            (Access::Sequential { .. }, _) => Kind::Sequential,
        };
        OffsetGen {
            kind,
            base: range.base,
            align,
            positions,
            last_start,
            wrap_to: start.checked_rem(align).unwrap_or(0),
            next: start,
        }
    }

    /// The offset of the next I/O.
    #[inline]
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        let relative = match self.kind {
            Kind::Sequential => {
                let offset = self.next;
                self.next += self.align;
                if self.next > self.last_start {
                    self.next = self.wrap_to;
                }
                offset
            }
            Kind::Interlocked(counter) => {
                let ticket = counter.fetch_add(self.align, Ordering::Relaxed);
                ticket.checked_rem(self.positions * self.align).unwrap_or(0)
            }
            Kind::Random => rng.below(self.positions) * self.align,
        };
        self.base + relative
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(generator: &mut OffsetGen<'_>, n: usize) -> Vec<u64> {
        let mut rng = Rng::new(0);
        (0..n).map(|_| generator.next(&mut rng)).collect()
    }

    const SEQ: Access = Access::Sequential {
        stride: 4096,
        interlocked: false,
    };

    #[test]
    fn sequential_wraps_before_the_end() {
        let range = Range {
            base: 0,
            usable: 16384,
        };
        let mut g = OffsetGen::new(SEQ, 4096, range, 0, None);
        assert_eq!(take(&mut g, 6), vec![0, 4096, 8192, 12288, 0, 4096]);
    }

    #[test]
    fn sequential_thread_start_and_base() {
        let range = Range {
            base: 1 << 20,
            usable: 16384,
        };
        let mut g = OffsetGen::new(SEQ, 4096, range, 8192, None);
        let base = 1 << 20;
        assert_eq!(
            take(&mut g, 4),
            vec![base + 8192, base + 12288, base, base + 4096]
        );
    }

    #[test]
    fn sequential_stride_larger_than_block() {
        let access = Access::Sequential {
            stride: 8192,
            interlocked: false,
        };
        let range = Range {
            base: 0,
            usable: 20480,
        };
        let mut g = OffsetGen::new(access, 4096, range, 0, None);
        assert_eq!(take(&mut g, 4), vec![0, 8192, 16384, 0]);
    }

    #[test]
    fn zero_stride_repeats_one_offset() {
        let access = Access::Sequential {
            stride: 0,
            interlocked: false,
        };
        let mut g = OffsetGen::new(
            access,
            4096,
            Range {
                base: 0,
                usable: 1 << 20,
            },
            0,
            None,
        );
        assert_eq!(take(&mut g, 3), vec![0, 0, 0]);
    }

    #[test]
    fn interlocked_threads_share_one_stream() {
        let counter = AtomicU64::new(0);
        let access = Access::Sequential {
            stride: 4096,
            interlocked: true,
        };
        let range = Range {
            base: 0,
            usable: 16384,
        };
        let mut a = OffsetGen::new(access, 4096, range, 0, Some(&counter));
        let mut b = OffsetGen::new(access, 4096, range, 0, Some(&counter));
        let mut rng = Rng::new(0);
        let seen: Vec<u64> = (0..5)
            .flat_map(|_| [a.next(&mut rng), b.next(&mut rng)])
            .collect();
        assert_eq!(
            seen,
            vec![0, 4096, 8192, 12288, 0, 4096, 8192, 12288, 0, 4096]
        );
    }

    #[test]
    fn random_is_aligned_in_range_and_covers_it() {
        let access = Access::Random { align: 4096 };
        let range = Range {
            base: 512,
            usable: 64 * 4096 + 100,
        };
        let mut g = OffsetGen::new(access, 8192, range, 0, None);
        let mut seen = std::collections::BTreeSet::new();
        for offset in take(&mut g, 20_000) {
            let relative = offset - 512;
            assert_eq!(relative % 4096, 0);
            assert!(
                relative + 8192 <= 64 * 4096 + 100,
                "{relative} runs past the end"
            );
            seen.insert(relative);
        }
        assert_eq!(seen.len(), 63, "every aligned start 0..=62×4096 is drawn");
    }

    #[test]
    fn same_seed_same_random_offsets() {
        let access = Access::Random { align: 4096 };
        let range = Range {
            base: 0,
            usable: 1 << 30,
        };
        let run = |seed| {
            let mut rng = Rng::new(seed);
            let mut g = OffsetGen::new(access, 4096, range, 0, None);
            (0..100).map(|_| g.next(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }
}
