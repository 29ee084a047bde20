//! For any parameters the checks before a run admit — block and stride within the usable range —
//! and any thread start, distribution and number of draws, every offset the generator gives lies
//! inside the range with room for a whole block, on the stride.

use proptest::prelude::{
    Just, ProptestConfig, Strategy, any, prop, prop_assert, prop_assert_eq, prop_oneof, proptest,
};

use super::*;
use crate::profile::{Distribution, DistributionKind, DistributionRange};
use crate::targets::distribution::effective;

/// Draws per generated case; with the case count below, over three million in all.
const DRAWS: usize = 12_000;

fn access() -> impl Strategy<Value = Access> {
    prop_oneof![
        (any::<bool>(), any::<bool>()).prop_map(|(interlocked, parallel)| Access::Sequential {
            stride: 0,
            interlocked,
            parallel: parallel && !interlocked,
        }),
        (1u8..=100).prop_map(|ratio| Access::Random { align: 0, ratio }),
    ]
}

/// Sizes from a few bytes to the largest a file can have, with the edges well represented.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        1u64..=1 << 16,
        1u64..=1 << 40,
        Just(i64::MAX as u64),
        (0u64..=64).prop_map(|k| (i64::MAX as u64).saturating_sub(k)),
    ]
}

fn distribution() -> impl Strategy<Value = Option<Distribution>> {
    let absolute =
        prop::collection::vec((0u32..=100, size()), 1..5).prop_map(|ranges| Distribution {
            kind: DistributionKind::Absolute,
            ranges: ranges
                .into_iter()
                .map(|(io_percent, span)| DistributionRange { io_percent, span })
                .collect(),
        });
    prop_oneof![Just(None), absolute.prop_map(Some)]
}

/// (usable, block, stride): shares of any size, or the shapes people use — power-of-two blocks,
/// strides of a block, half or twice one, a byte or none, over a few blocks so that sequential
/// streams wrap many times within the draws.
fn shape() -> impl Strategy<Value = (u64, u64, u64)> {
    let shares = (size(), 0.0f64..=1.0, 0.0f64..=1.0).prop_map(|(usable, b, s)| {
        let block = ((usable as f64 * b) as u64).clamp(1, usable);
        (usable, block, ((usable as f64 * s) as u64).min(usable))
    });
    let typical =
        (9u32..=21, 1u64..=64, 0u64..=4096, 0usize..5).prop_map(|(log, blocks, extra, s)| {
            let block = 1u64 << log;
            let usable = block * blocks + extra;
            let stride = [block, block / 2, 2 * block, 1, 0][s].min(usable);
            (usable, block, stride)
        });
    prop_oneof![shares, typical]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn every_offset_leaves_room_for_its_block(
        access in access(),
        base in size(),
        (usable, block, stride) in shape(),
        start in prop_oneof![any::<u64>(), 0u64..1 << 24],
        lanes in 1usize..=8,
        distribution in distribution(),
        seed in any::<u64>(),
        shared_start in any::<u64>(),
    ) {
        let base = base.min(i64::MAX as u64 - usable.min(i64::MAX as u64));
        let access = match access {
            Access::Sequential { interlocked, parallel, .. } => Access::Sequential { stride, interlocked, parallel },
            Access::Random { ratio, .. } => Access::Random { align: stride, ratio },
        };
        let range = Range { base, usable };
        let ranges = match (&distribution, access) {
            (Some(d), Access::Random { .. }) => effective(d, usable, block, stride),
            _ => Vec::new(),
        };
        let counter = AtomicU64::new(shared_start);
        let mut generator = OffsetGen::new(access, block, range, start, lanes, &ranges, Some(&counter));
        let mut rng = Rng::new(seed);
        for i in 0..DRAWS {
            let (offset, _) = generator.next(&mut rng, i % lanes);
            prop_assert!(offset >= base, "{offset} before the base {base}");
            let end = offset.checked_add(block);
            prop_assert!(
                end.is_some_and(|end| end <= base + usable),
                "{offset} + {block} runs past {}", base + usable
            );
            if ranges.is_empty() && stride > 0 && start % stride == 0 {
                prop_assert_eq!((offset - base) % stride, 0, "off the stride");
            }
        }
    }
}
