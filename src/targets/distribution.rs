//! `-rdpct`/`-rdabs` against a real target: the ranges as they apply to its usable size, which is
//! what the worker draws from and what the report prints as the effective distribution.

use serde::{Deserialize, Serialize};

use crate::profile::{Distribution, DistributionKind};

/// One range of an effective distribution, relative to the base offset.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EffectiveRange {
    /// Share of the I/O in percent (re-normalised when ranges past the end were dropped).
    pub io_percent: f64,
    /// First byte.
    pub start: u64,
    /// Length in bytes.
    pub length: u64,
}

/// The distribution over `usable` bytes with alignment `align`; ranges that hold no aligned
/// position carry their I/O to a neighbour, absolute ranges past the end are dropped (and their
/// I/O spread over the rest), and an open-ended absolute range runs to the end.
pub fn effective(
    distribution: &Distribution,
    usable: u64,
    block: u64,
    align: u64,
) -> Vec<EffectiveRange> {
    let align = align.max(1);
    let positions = usable.saturating_sub(block) / align + 1;
    let span = positions * align;
    let mut ranges = Vec::with_capacity(distribution.ranges.len());
    match distribution.kind {
        DistributionKind::Percent => {
            let mut percent = 0u64;
            let mut carry = 0.0;
            for (i, r) in distribution.ranges.iter().enumerate() {
                let start = span * percent / 100 / align * align;
                percent += r.span;
                let end = if i + 1 == distribution.ranges.len() || percent >= 100 {
                    span
                } else {
                    span * percent / 100 / align * align
                };
                let io = r.io_percent as f64 + carry;
                if end <= start {
                    carry = io;
                    continue;
                }
                carry = 0.0;
                ranges.push(EffectiveRange {
                    io_percent: io,
                    start,
                    length: end - start,
                });
            }
            if carry > 0.0
                && let Some(last) = ranges.last_mut()
            {
                last.io_percent += carry;
            }
        }
        DistributionKind::Absolute => {
            let mut start = 0u64;
            for r in &distribution.ranges {
                if start >= span {
                    break;
                }
                let end = if r.span == 0 {
                    span
                } else {
                    start.saturating_add(r.span).min(span)
                };
                ranges.push(EffectiveRange {
                    io_percent: r.io_percent as f64,
                    start,
                    length: end - start,
                });
                start = end;
            }
            let total: f64 = ranges.iter().map(|r| r.io_percent).sum();
            if total > 0.0 && (total - 100.0).abs() > f64::EPSILON {
                for r in &mut ranges {
                    r.io_percent = r.io_percent * 100.0 / total;
                }
            }
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::DistributionRange;

    fn dist(kind: DistributionKind, ranges: &[(u32, u64)]) -> Distribution {
        Distribution {
            kind,
            ranges: ranges
                .iter()
                .map(|&(io_percent, span)| DistributionRange { io_percent, span })
                .collect(),
        }
    }

    #[test]
    fn percent_ranges_over_the_target() {
        let d = dist(DistributionKind::Percent, &[(90, 10), (10, 90)]);
        // 100 blocks of 4 KiB: positions 0..=99.
        let e = effective(&d, 100 * 4096, 4096, 4096);
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].start, e[0].length, e[0].io_percent),
            (0, 10 * 4096, 90.0)
        );
        assert_eq!(
            (e[1].start, e[1].length, e[1].io_percent),
            (10 * 4096, 90 * 4096, 10.0)
        );
    }

    #[test]
    fn degenerate_percent_ranges_carry_their_io() {
        // 10 positions: 1 % of the target holds no whole block.
        let d = dist(DistributionKind::Percent, &[(50, 1), (50, 99)]);
        let e = effective(&d, 10 * 4096, 4096, 4096);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].io_percent, 100.0);
    }

    #[test]
    fn absolute_ranges_past_the_end_are_dropped_and_renormalised() {
        let d = dist(
            DistributionKind::Absolute,
            &[(50, 1 << 20), (30, 1 << 20), (20, 0)],
        );
        let e = effective(&d, 1 << 20, 4096, 4096);
        assert_eq!(e.len(), 1);
        assert_eq!(
            (e[0].start, e[0].length, e[0].io_percent),
            (0, 1 << 20, 100.0)
        );
        let e = effective(&d, 3 << 20, 4096, 4096);
        assert_eq!(
            e.iter().map(|r| r.io_percent).collect::<Vec<_>>(),
            vec![50.0, 30.0, 20.0]
        );
        assert_eq!(e[2].start + e[2].length, 3 << 20);
    }
}
