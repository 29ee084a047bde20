//! Offset generation as DiskSpd does it (reference §4.7).
//!
//! With base `B0` (`-B`), usable size `S` (target or `-f`, minus the base), alignment or stride `A`
//! and block size `B`, valid starts are multiples of `A` from 0 to `S − B`:
//! - sequential: each thread from its own start `k × T`, advancing by `A`, wrapping to the start of
//!   the range when the next block would pass the end;
//! - parallel (`-p`): the same, but every outstanding I/O of the thread walks its own copy;
//! - interlocked (`-si`): one shared ticket counter per target; ticket `n` is position
//!   `n mod positions` (the same sequence as DiskSpd's `fetch_add(A) mod S_aligned`, without a sum
//!   that can wrap);
//! - random: a uniform multiple of `A` in `0 ..= S − B`, or, with `-rd`, first a range drawn by its
//!   share of the I/O, then a uniform position inside it;
//! - mixed (`-rs`): a random offset with probability p %, else the next sequential one after it.
//!
//! Every offset is in range by construction: relative starts never exceed `S − B` (each step is a
//! checked sum compared with it, each draw is below the number of positions), so no I/O reaches
//! past `B0 + S`. The checks before the run refuse a block, stride or `-T` start that does not fit;
//! a start that does not fit anyway is replaced by 0 rather than trusted.

use std::sync::atomic::{AtomicU64, Ordering};

use super::skew::SkewDraw;
use crate::permute::Permutation;
use crate::profile::{Access, Skew};
use crate::rng::Rng;
use crate::targets::Range;
use crate::targets::distribution::EffectiveRange;

#[derive(Debug)]
enum Kind<'a> {
    Sequential,
    Parallel,
    Interlocked(&'a AtomicU64),
    Random,
    Mixed,
    /// `--random-map`: a permutation of the positions per pass, `drawn` of it taken.
    Permuted {
        map: Permutation,
        drawn: u64,
    },
}

/// A range random offsets are drawn from: `positions` aligned starts from `start`.
#[derive(Debug, Clone, Copy)]
struct Span {
    /// Cumulative I/O weight up to and including this span.
    until: u64,
    start: u64,
    positions: u64,
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
    lanes: Vec<u64>,
    spans: Vec<Span>,
    random_percent: u64,
    skew: Option<SkewDraw>,
    /// `--backwards`: sequential offsets are `mirror − o` of the forward ones, the same positions
    /// in the reverse order.
    mirror: Option<u64>,
    /// `--zones`: the offsets above are within the current zone's window.
    zone: Option<ZoneWalk>,
}

/// Where a `--zones` walk stands: the zone whose window the offsets are in, and the bytes
/// transferred there.
#[derive(Debug)]
struct ZoneWalk {
    size: u64,
    stride: u64,
    count: u64,
    block: u64,
    at: u64,
    bytes: u64,
}

impl<'a> OffsetGen<'a> {
    /// A generator for one thread: `start` is its sequential start (`k × -T`), `lanes` the number of
    /// outstanding I/Os (for `-p`), `ranges` the effective `-rd` distribution (empty for uniform).
    /// `range.usable` must be at least `block`; the stride at most `range.usable` (both checked
    /// when the target is prepared).
    pub fn new(
        access: Access,
        block: u64,
        range: Range,
        start: u64,
        lanes: usize,
        ranges: &[EffectiveRange],
        shared: Option<&'a AtomicU64>,
    ) -> Self {
        let align = access.alignment();
        let last_start = range.usable.saturating_sub(block);
        let positions = match align {
            0 => 1,
            a => last_start / a + 1,
        };
        let start = if start <= last_start { start } else { 0 };
        // Both are at most `start`, so at most `last_start`.
        let wrap_to = start.checked_rem(align).unwrap_or(0);
        let (kind, random_percent) = match (access, shared) {
            (Access::Random { ratio: 100, .. }, _) => (Kind::Random, 100),
            (Access::Random { ratio, .. }, _) => (Kind::Mixed, ratio as u64),
            (Access::Sequential { parallel: true, .. }, _) => (Kind::Parallel, 0),
            (
                Access::Sequential {
                    interlocked: true, ..
                },
                Some(counter),
            ) => (Kind::Interlocked(counter), 0),
            (Access::Sequential { .. }, _) => (Kind::Sequential, 0),
        };
        let spans = spans(ranges, align.max(1), block, last_start, positions);
        OffsetGen {
            kind,
            base: range.base,
            align,
            positions,
            last_start,
            wrap_to,
            next: start,
            lanes: vec![start; lanes],
            spans,
            random_percent,
            skew: None,
            mirror: None,
            zone: None,
        }
    }

    /// With `--zones`: the generator (made over one zone's window, `zones.range` bytes) works
    /// the whole zones of `usable` bytes one after the other, `block`-byte I/Os (or the sizes
    /// [`OffsetGen::next_sized`] is given) until `zones.size` bytes, then the next zone with every
    /// sequential cursor back at its start, and the first again after the last.
    pub fn zones(
        mut self,
        zones: Option<crate::profile::zones::Zones>,
        usable: u64,
        block: u64,
    ) -> Self {
        self.zone = zones.map(|z| ZoneWalk {
            size: z.size,
            stride: z.stride(),
            count: z.count(usable).max(1),
            block,
            at: 0,
            bytes: 0,
        });
        self
    }

    /// The offset of `relative` in the current zone, counting `len` bytes to it; the next zone
    /// when they reach its size.
    #[inline]
    fn in_zone(&mut self, relative: u64, len: u64) -> u64 {
        let Some(zone) = &mut self.zone else {
            return relative;
        };
        let offset = zone.at * zone.stride + relative;
        zone.bytes += len;
        if zone.bytes >= zone.size {
            zone.bytes = 0;
            zone.at = (zone.at + 1) % zone.count;
            self.next = self.wrap_to;
            self.lanes.fill(self.wrap_to);
        }
        offset
    }

    /// With `--backwards`: sequential offsets (each thread's, each lane's, or the shared ticket's)
    /// in the reverse order, from the top of the range down, wrapping to the top (the profile
    /// refuses it with random offsets and with mixed sizes).
    pub fn backwards(mut self, on: bool) -> Self {
        let positions = |from: u64| {
            (self.last_start - from)
                .checked_div(self.align)
                .unwrap_or(0)
        };
        self.mirror = match self.kind {
            _ if !on => None,
            // Forward: wrap_to + j × align for j in 0..=n; mirrored, wrap_to + (n − j) × align.
            Kind::Sequential | Kind::Parallel => {
                Some(2 * self.wrap_to + positions(self.wrap_to) * self.align)
            }
            Kind::Interlocked(_) => Some((self.positions - 1) * self.align),
            _ => None,
        };
        self
    }

    /// Random offsets drawn with this skew (`--distribution`) instead of uniformly.
    pub fn with_skew(mut self, skew: Option<Skew>) -> Self {
        self.skew = skew.map(|s| SkewDraw::new(s, self.positions));
        self
    }

    /// With `--random-map`: uniform random offsets without replacement, each position once per
    /// pass in an order drawn afresh for every pass (only for uniform random access; the profile
    /// refuses it with anything else).
    pub fn with_random_map(mut self, on: bool, rng: &mut Rng) -> Self {
        if on && matches!(self.kind, Kind::Random) && self.spans.is_empty() && self.skew.is_none() {
            self.kind = Kind::Permuted {
                map: Permutation::new(self.positions, rng.next_u64()),
                drawn: 0,
            };
        }
        self
    }

    /// With `--distribution`: whether `offset` lies in each hot set of
    /// [`super::skew::HOT_PERCENTS`].
    #[inline]
    pub fn hot(&self, offset: u64) -> Option<[bool; 2]> {
        let skew = self.skew.as_ref()?;
        let position = offset
            .saturating_sub(self.base)
            .checked_div(self.align)
            .unwrap_or(0);
        Some(skew.hot(position))
    }

    /// With `--distribution`: the positions drawn from.
    pub fn skewed_positions(&self) -> Option<u64> {
        self.skew.as_ref().map(|_| self.positions)
    }

    /// The offset of the next I/O on `lane` (the slot's index among the target's slots), and
    /// whether it was a fresh random draw (mixed runs keep the direction until the next one).
    #[inline]
    pub fn next(&mut self, rng: &mut Rng, lane: usize) -> (u64, bool) {
        let (relative, fresh) = self.draw(rng, lane);
        let len = self.zone.as_ref().map_or(0, |z| z.block);
        (self.base + self.in_zone(relative, len), fresh)
    }

    /// The next offset from the range's start (or the zone's), and whether it was a fresh draw.
    #[inline]
    fn draw(&mut self, rng: &mut Rng, lane: usize) -> (u64, bool) {
        let (relative, fresh) = match &mut self.kind {
            Kind::Sequential => (
                Self::advance(&mut self.next, self.align, self.last_start, self.wrap_to),
                true,
            ),
            Kind::Parallel => {
                let cursor = &mut self.lanes[lane];
                (
                    Self::advance(cursor, self.align, self.last_start, self.wrap_to),
                    true,
                )
            }
            Kind::Permuted { map, drawn } => {
                if *drawn == map.len() {
                    *map = Permutation::new(map.len(), rng.next_u64());
                    *drawn = 0;
                }
                *drawn += 1;
                (map.at(*drawn - 1) * self.align, true)
            }
            Kind::Interlocked(counter) => {
                let ticket = counter.fetch_add(1, Ordering::Relaxed);
                ((ticket % self.positions) * self.align, true)
            }
            Kind::Random => (self.random(rng), true),
            Kind::Mixed => {
                if rng.below(100) < self.random_percent {
                    let offset = self.random(rng);
                    self.next = offset;
                    (
                        Self::advance(&mut self.next, self.align, self.last_start, 0),
                        true,
                    )
                } else {
                    (
                        Self::advance(&mut self.next, self.align, self.last_start, 0),
                        false,
                    )
                }
            }
        };
        (self.mirror.map_or(relative, |top| top - relative), fresh)
    }

    /// With `--bssplit`: the offset of an I/O of `len` bytes on `lane`. Sequential I/O follows
    /// the last, whatever its size, and wraps when the next would start past the range's last
    /// start (which leaves room for the largest size); random offsets are drawn as always.
    #[inline]
    pub fn next_sized(&mut self, rng: &mut Rng, lane: usize, len: u64) -> u64 {
        let relative = match &mut self.kind {
            Kind::Sequential => Self::advance(&mut self.next, len, self.last_start, self.wrap_to),
            Kind::Parallel => {
                let cursor = &mut self.lanes[lane];
                Self::advance(cursor, len, self.last_start, self.wrap_to)
            }
            // Random offsets are drawn as always.
            _ => self.draw(rng, lane).0,
        };
        self.base + self.in_zone(relative, len)
    }

    #[inline]
    fn advance(cursor: &mut u64, align: u64, last_start: u64, wrap_to: u64) -> u64 {
        let offset = *cursor;
        *cursor = match offset.checked_add(align) {
            Some(next) if next <= last_start => next,
            _ => wrap_to,
        };
        offset
    }

    #[inline]
    fn random(&self, rng: &mut Rng) -> u64 {
        if let Some(skew) = &self.skew {
            return skew.next(rng) * self.align;
        }
        if self.spans.is_empty() {
            return rng.below(self.positions) * self.align;
        }
        let total = self.spans[self.spans.len() - 1].until;
        let pick = rng.below(total);
        let i = self.spans.partition_point(|s| s.until <= pick);
        let span = self.spans[i];
        span.start + rng.below(span.positions) * self.align
    }
}

/// Turns effective ranges into drawable spans with integer cumulative weights.
fn spans(
    ranges: &[EffectiveRange],
    align: u64,
    block: u64,
    last_start: u64,
    positions: u64,
) -> Vec<Span> {
    let mut spans = Vec::with_capacity(ranges.len());
    let mut until = 0u64;
    for r in ranges {
        let weight = (r.io_percent * 1_000_000.0).round() as u64;
        if weight == 0 || r.start > last_start {
            continue;
        }
        let usable = r.start.saturating_add(r.length).min(last_start + block) - r.start;
        let span_positions = (usable.saturating_sub(block) / align + 1).min(positions);
        until += weight;
        spans.push(Span {
            until,
            start: r.start,
            positions: span_positions,
        });
    }
    spans
}

#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    use super::*;

    fn take(generator: &mut OffsetGen<'_>, n: usize) -> Vec<u64> {
        let mut rng = Rng::new(0);
        (0..n).map(|_| generator.next(&mut rng, 0).0).collect()
    }

    fn seq(stride: u64) -> Access {
        Access::Sequential {
            stride,
            interlocked: false,
            parallel: false,
        }
    }

    fn plain(access: Access, block: u64, range: Range, start: u64) -> OffsetGen<'static> {
        OffsetGen::new(access, block, range, start, 1, &[], None)
    }

    #[test]
    fn zones_take_their_size_from_one_window_then_the_next_that_fits() {
        use crate::profile::zones::Zones;
        let window = |usable| Range {
            base: 1 << 20,
            usable,
        };
        // Windows of 16 KiB every 32 KiB of 80 KiB: zones at 0, 32 and 64 KiB; 8 KiB in each.
        let zones = Zones {
            size: 8192,
            range: 16384,
            skip: 16384,
        };
        let mut g = plain(seq(4096), 4096, window(16384), 0).zones(Some(zones), 80 << 10, 4096);
        let base = 1 << 20;
        let got: Vec<u64> = take(&mut g, 8).into_iter().map(|o| o - base).collect();
        assert_eq!(got, [0, 4096, 32768, 36864, 65536, 69632, 0, 4096]);
        // A size past the window wraps inside it before the next zone.
        let zones = Zones {
            size: 16384,
            range: 8192,
            skip: 0,
        };
        let mut g = plain(seq(4096), 4096, window(8192), 0).zones(Some(zones), 16384, 4096);
        let got: Vec<u64> = take(&mut g, 10).into_iter().map(|o| o - base).collect();
        assert_eq!(got, [0, 4096, 0, 4096, 8192, 12288, 8192, 12288, 0, 4096]);
        // Random offsets stay in the zone's window, and mixed sizes count their own bytes.
        let zones = Zones {
            size: 65536,
            range: 16384,
            skip: 1 << 20,
        };
        let random = Access::Random {
            align: 4096,
            ratio: 100,
        };
        let mut g = plain(random, 4096, window(16384), 0).zones(Some(zones), 4 << 20, 4096);
        let mut rng = Rng::new(7);
        for i in 0..64u64 {
            let relative = g.next_sized(&mut rng, 0, 8192) - base;
            // 8 I/Os of 8 KiB to a zone; zones every 1 MiB + 16 KiB, four of them fit.
            let zone = (i / 8) % 4;
            let start = zone * ((1 << 20) + 16384);
            assert!(
                (start..start + 16384 - 4096 + 1).contains(&relative),
                "{i}: {relative}"
            );
        }
    }

    #[test]
    fn sequential_wraps_before_the_end() {
        let mut g = plain(
            seq(4096),
            4096,
            Range {
                base: 0,
                usable: 16384,
            },
            0,
        );
        assert_eq!(take(&mut g, 6), vec![0, 4096, 8192, 12288, 0, 4096]);
    }

    #[test]
    fn sequential_thread_start_and_base() {
        let base = 1 << 20;
        let mut g = plain(
            seq(4096),
            4096,
            Range {
                base,
                usable: 16384,
            },
            8192,
        );
        assert_eq!(
            take(&mut g, 4),
            vec![base + 8192, base + 12288, base, base + 4096]
        );
    }

    #[test]
    fn backwards_visits_the_same_offsets_from_the_top_down() {
        let range = Range {
            base: 1 << 20,
            usable: 16384 + 1000,
        };
        let base = range.base;
        // Stride 4 KiB over 16 KiB and a bit: the top block starts at 12 KiB, as forwards.
        let mut g = plain(seq(4096), 4096, range, 0).backwards(true);
        assert_eq!(
            take(&mut g, 6),
            [12288, 8192, 4096, 0, 12288, 8192].map(|o| base + o)
        );
        // A thread that starts 4 KiB in goes down from 4 KiB below the top.
        let mut g = plain(seq(4096), 4096, range, 4096).backwards(true);
        assert_eq!(take(&mut g, 4), [8192, 4096, 0, 12288].map(|o| base + o));
        // A start off the stride keeps its phase: 1 KiB + multiples of 4 KiB that fit (13 KiB
        // would pass the end), reversed.
        let mut g = plain(seq(4096), 4096, range, 1024).backwards(true);
        assert_eq!(
            take(&mut g, 5),
            [9216, 5120, 1024, 9216, 5120].map(|o| base + o)
        );
        // The shared ticket of -si, reversed.
        let counter = AtomicU64::new(0);
        let interlocked = Access::Sequential {
            stride: 4096,
            interlocked: true,
            parallel: false,
        };
        let mut g =
            OffsetGen::new(interlocked, 4096, range, 0, 1, &[], Some(&counter)).backwards(true);
        assert_eq!(
            take(&mut g, 5),
            [12288, 8192, 4096, 0, 12288].map(|o| base + o)
        );
        // Random offsets are not moved.
        let mut forward = plain(
            Access::Random {
                align: 4096,
                ratio: 100,
            },
            4096,
            range,
            0,
        );
        let mut back = plain(
            Access::Random {
                align: 4096,
                ratio: 100,
            },
            4096,
            range,
            0,
        )
        .backwards(true);
        assert_eq!(take(&mut forward, 8), take(&mut back, 8));
    }

    #[test]
    fn sequential_stride_larger_than_block() {
        let mut g = plain(
            seq(8192),
            4096,
            Range {
                base: 0,
                usable: 20480,
            },
            0,
        );
        assert_eq!(take(&mut g, 4), vec![0, 8192, 16384, 0]);
    }

    #[test]
    fn zero_stride_repeats_one_offset() {
        let mut g = plain(
            seq(0),
            4096,
            Range {
                base: 0,
                usable: 1 << 20,
            },
            0,
        );
        assert_eq!(take(&mut g, 3), vec![0, 0, 0]);
    }

    #[test]
    fn parallel_lanes_walk_the_same_sequence_independently() {
        let access = Access::Sequential {
            stride: 4096,
            interlocked: false,
            parallel: true,
        };
        let mut g = OffsetGen::new(
            access,
            4096,
            Range {
                base: 0,
                usable: 16384,
            },
            0,
            2,
            &[],
            None,
        );
        let mut rng = Rng::new(0);
        let seen: Vec<u64> = [0, 0, 1, 0, 1, 1]
            .iter()
            .map(|&lane| g.next(&mut rng, lane).0)
            .collect();
        assert_eq!(seen, vec![0, 4096, 0, 8192, 4096, 8192]);
    }

    #[test]
    fn interlocked_threads_share_one_stream() {
        let counter = AtomicU64::new(0);
        let access = Access::Sequential {
            stride: 4096,
            interlocked: true,
            parallel: false,
        };
        let range = Range {
            base: 0,
            usable: 16384,
        };
        let mut a = OffsetGen::new(access, 4096, range, 0, 1, &[], Some(&counter));
        let mut b = OffsetGen::new(access, 4096, range, 0, 1, &[], Some(&counter));
        let mut rng = Rng::new(0);
        let seen: Vec<u64> = (0..5)
            .flat_map(|_| [a.next(&mut rng, 0).0, b.next(&mut rng, 0).0])
            .collect();
        assert_eq!(
            seen,
            vec![0, 4096, 8192, 12288, 0, 4096, 8192, 12288, 0, 4096]
        );
    }

    #[test]
    fn random_is_aligned_in_range_and_covers_it() {
        let access = Access::Random {
            align: 4096,
            ratio: 100,
        };
        let range = Range {
            base: 512,
            usable: 64 * 4096 + 100,
        };
        let mut g = plain(access, 8192, range, 0);
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
        let access = Access::Random {
            align: 4096,
            ratio: 100,
        };
        let run = |seed| {
            let mut rng = Rng::new(seed);
            let mut g = plain(
                access,
                4096,
                Range {
                    base: 0,
                    usable: 1 << 30,
                },
                0,
            );
            (0..100).map(|_| g.next(&mut rng, 0).0).collect::<Vec<_>>()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }

    #[test]
    fn mixed_pattern_makes_sequential_runs_after_random_jumps() {
        let access = Access::Random {
            align: 4096,
            ratio: 20,
        };
        let mut g = plain(
            access,
            4096,
            Range {
                base: 0,
                usable: 1 << 30,
            },
            0,
        );
        let mut rng = Rng::new(1);
        let draws: Vec<(u64, bool)> = (0..10_000).map(|_| g.next(&mut rng, 0)).collect();
        let fresh = draws.iter().filter(|d| d.1).count();
        assert!(
            (1_700..2_300).contains(&fresh),
            "{fresh} random jumps in 10000 at 20%"
        );
        for pair in draws.windows(2) {
            if !pair[1].1 {
                assert_eq!(
                    pair[1].0,
                    pair[0].0 + 4096,
                    "a sequential step follows the previous offset"
                );
            }
        }
    }

    #[test]
    fn distribution_sends_most_io_to_the_hot_range() {
        let ranges = [
            EffectiveRange {
                io_percent: 90.0,
                start: 0,
                length: 10 * 4096,
            },
            EffectiveRange {
                io_percent: 0.0,
                start: 10 * 4096,
                length: 40 * 4096,
            },
            EffectiveRange {
                io_percent: 10.0,
                start: 50 * 4096,
                length: 50 * 4096,
            },
        ];
        let access = Access::Random {
            align: 4096,
            ratio: 100,
        };
        let mut g = OffsetGen::new(
            access,
            4096,
            Range {
                base: 0,
                usable: 100 * 4096,
            },
            0,
            1,
            &ranges,
            None,
        );
        let offsets = take(&mut g, 10_000);
        let hot = offsets.iter().filter(|&&o| o < 10 * 4096).count();
        let hole = offsets
            .iter()
            .filter(|&&o| (10 * 4096..50 * 4096).contains(&o))
            .count();
        assert!(
            (8_700..9_300).contains(&hot),
            "{hot} of 10000 in the 90% range"
        );
        assert_eq!(hole, 0, "a 0% range is a hole");
        assert!(offsets.iter().all(|&o| o + 4096 <= 100 * 4096));
    }
}
