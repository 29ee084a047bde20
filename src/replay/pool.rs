//! A replay's slots: how many of each buffer size. A trace's I/O sizes vary (a `cp -r` mixes 4 KiB
//! metadata reads with 8 MiB data writes), and a slot per I/O in flight sized for the largest
//! would hold depth × largest bytes (1 GiB at depth 128 of 8 MiB). Instead the depth's slots are
//! spread over the trace's sizes, each rounded up to a power of two (the largest to its own 4 KiB
//! multiple): every size gets a slot; beyond it, each size gets its share of [`BUDGET`] by its
//! bytes in the trace, or its share of the depth by its count of I/O when that fits in an even
//! share of the budget; what is left of the depth goes to the smallest size. Beyond one slot per
//! size the buffers hold at most twice the budget, so the slots may be fewer than the depth cap
//! asks for when the trace's I/O is large. An I/O takes a free slot of its size or larger,
//! and waits (counted as held back by the depth) when none is free.

use std::collections::BTreeMap;

/// Buffer bytes the slots beyond one per size may hold together.
pub const BUDGET: u64 = 64 << 20;

pub use crate::profile::replay::SlotClass as Class;

/// The size class of an I/O of `len` bytes, when the largest is `largest` bytes: the power of two
/// at or above it (at least 4 KiB), or the largest rounded up to 4 KiB when that is smaller.
pub fn class_of(len: u64, largest: u64) -> u64 {
    let top = largest.max(1).div_ceil(4096).saturating_mul(4096);
    len.max(4096).next_power_of_two().min(top)
}

/// At most `depth` slots over `sizes` (class size → I/Os of it, ascending), as the module says.
pub fn spread(sizes: &BTreeMap<u64, u64>, depth: u32) -> Vec<Class> {
    let Some((&largest, _)) = sizes.last_key_value() else {
        return Vec::new();
    };
    if depth as usize <= sizes.len() {
        return vec![Class {
            size: largest,
            slots: depth,
        }];
    }
    let total: u64 = sizes.values().sum();
    let bytes: u128 = sizes.iter().map(|(&s, &n)| s as u128 * n as u128).sum();
    let rest = (depth as usize - sizes.len()) as u64;
    let share = BUDGET / sizes.len() as u64;
    let mut classes: Vec<Class> = sizes
        .iter()
        .map(|(&size, &n)| {
            // A large I/O stays in flight longer than a small one: a size gets its share of the
            // budget by bytes, or its share of the depth by count when that fits in its share of
            // the budget.
            let by_count = (rest as u128 * n as u128 / total.max(1) as u128) as u64;
            let by_bytes = (BUDGET as u128 * n as u128 / bytes.max(1)) as u64;
            let extra = by_bytes.max(by_count.min(share / size));
            Class {
                size,
                slots: 1 + extra.min(rest) as u32,
            }
        })
        .collect();
    // More than the depth: the smallest sizes give slots back first (each keeps one).
    let mut over = classes
        .iter()
        .map(|c| c.slots)
        .sum::<u32>()
        .saturating_sub(depth);
    for c in classes.iter_mut() {
        let back = over.min(c.slots - 1);
        c.slots -= back;
        over -= back;
    }
    // Less: what is left of the depth goes to the smallest size, within what is left of the
    // budget.
    let given: u32 = classes.iter().map(|c| c.slots).sum();
    let spent: u64 = classes.iter().map(|c| c.size * (c.slots as u64 - 1)).sum();
    let smallest = classes[0].size;
    let affordable = ((2 * BUDGET).saturating_sub(spent) / smallest).min(u32::MAX as u64) as u32;
    classes[0].slots += (depth - given).min(affordable);
    classes
}

/// Bytes the classes' buffers hold.
pub fn bytes(classes: &[Class]) -> u64 {
    classes
        .iter()
        .map(|c| c.size.div_ceil(4096) * 4096 * c.slots as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(pairs: &[(u64, u64)]) -> BTreeMap<u64, u64> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn sizes_round_up_to_powers_of_two_below_the_largest() {
        assert_eq!(class_of(512, 8 << 20), 4096);
        assert_eq!(class_of(4097, 8 << 20), 8192);
        assert_eq!(class_of(5 << 20, 8 << 20), 8 << 20);
        assert_eq!(class_of(6 << 20, 6 << 20), 6 << 20);
        assert_eq!(
            class_of(u32::MAX as u64 - 4095, u32::MAX as u64 - 4095),
            (1 << 32) - 4096
        );
    }

    #[test]
    fn every_size_has_a_slot_and_large_ones_stay_in_the_budget() {
        // A copy: many small reads, some large writes.
        let copy = sizes(&[(4096, 90_000), (131_072, 9_000), (8 << 20, 1_000)]);
        let pool = spread(&copy, 128);
        assert_eq!(pool.iter().map(|c| c.slots).sum::<u32>(), 128);
        assert!(pool.iter().all(|c| c.slots >= 1), "{pool:?}");
        assert!(bytes(&pool) <= 2 * BUDGET + 2 * (8 << 20), "{pool:?}");
        // The large ones get their share of the budget by bytes (they stay in flight longer).
        let trace_bytes = 90_000u128 * 4096 + 9_000 * (128 << 10) + 1_000 * (8 << 20);
        assert_eq!(
            pool[2].slots as u128,
            1 + BUDGET as u128 * 1_000 / trace_bytes,
            "{pool:?}"
        );
        // Where the trace is all large I/O, the budget holds it: 17 slots of 8 MiB, not 128.
        let large = sizes(&[(8 << 20, 1_000)]);
        let pool = spread(&large, 128);
        assert_eq!(
            pool,
            [Class {
                size: 8 << 20,
                slots: 17
            }]
        );
        let mixed = sizes(&[(4096, 1), (8 << 20, 1_000)]);
        let pool = spread(&mixed, 128);
        assert_eq!(pool[1].slots, 8, "{pool:?}");
        assert!(bytes(&pool) <= BUDGET + (8 << 20) + 4096, "{pool:?}");
        // Small I/O only: the whole depth.
        let small = sizes(&[(4096, 10), (8192, 10)]);
        assert_eq!(
            spread(&small, 128).iter().map(|c| c.slots).sum::<u32>(),
            128
        );
        // A depth below the number of sizes: every slot holds the largest.
        let pool = spread(&copy, 2);
        assert_eq!(
            pool,
            [Class {
                size: 8 << 20,
                slots: 2
            }]
        );
        assert!(spread(&BTreeMap::new(), 4).is_empty());
    }
}
