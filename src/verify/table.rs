//! Per target, per block: the generation of the last write that completed, and a lock that keeps
//! I/O to one block apart while `--verify` is on (a read never races a write in flight to the same
//! block; two writes to one block never overlap), shared by every thread and slot.

use std::sync::atomic::{AtomicU32, Ordering};

/// The lock bit of a block's word; the other 31 bits are its generation.
const LOCKED: u32 = 1 << 31;

/// The blocks of one target.
#[derive(Debug)]
pub struct Blocks {
    /// Bytes per block.
    pub block: u64,
    /// Where block 0 starts.
    pub base: u64,
    words: Vec<AtomicU32>,
}

impl Blocks {
    /// `count` blocks of `block` bytes from `base`, none written yet (generation 0).
    pub fn new(base: u64, block: u64, count: u64) -> Self {
        Blocks {
            block,
            base,
            words: (0..count).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The memory a table of `count` blocks takes.
    pub fn bytes_for(count: u64) -> u64 {
        count.saturating_mul(std::mem::size_of::<AtomicU32>() as u64)
    }

    /// Blocks tracked.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The block holding `offset`.
    #[inline]
    pub fn index(&self, offset: u64) -> usize {
        ((offset - self.base) / self.block) as usize
    }

    /// Takes block `i` for one I/O; false when another I/O holds it.
    #[inline]
    pub fn try_lock(&self, i: usize) -> bool {
        let word = &self.words[i];
        let current = word.load(Ordering::Relaxed);
        current & LOCKED == 0
            && word
                .compare_exchange(
                    current,
                    current | LOCKED,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                )
                .is_ok()
    }

    /// Releases block `i`, setting its generation to `generation` (the caller holds the lock).
    #[inline]
    pub fn unlock(&self, i: usize, generation: u32) {
        debug_assert!(generation < LOCKED);
        self.words[i].store(generation, Ordering::Release);
    }

    /// The generation of block `i`'s last completed write (0: none in this run).
    #[inline]
    pub fn generation(&self, i: usize) -> u32 {
        self.words[i].load(Ordering::Acquire) & !LOCKED
    }

    /// Every block's generation, for the state file.
    pub fn generations(&self) -> Vec<u32> {
        (0..self.words.len()).map(|i| self.generation(i)).collect()
    }

    /// Sets every generation (from a state file).
    pub fn from_generations(base: u64, block: u64, generations: &[u32]) -> Self {
        Blocks {
            block,
            base,
            words: generations.iter().map(|&g| AtomicU32::new(g)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_held_by_one_io_at_a_time_and_keeps_its_generation() {
        let blocks = Blocks::new(4096, 4096, 4);
        assert_eq!(blocks.index(4096 + 3 * 4096), 3);
        assert!(blocks.try_lock(2));
        assert!(!blocks.try_lock(2));
        assert!(blocks.try_lock(1));
        assert_eq!(blocks.generation(2), 0);
        blocks.unlock(2, 7);
        assert_eq!(blocks.generation(2), 7);
        assert!(blocks.try_lock(2));
        assert_eq!(
            blocks.generation(2),
            7,
            "the lock bit is not the generation"
        );
        blocks.unlock(2, 8);
        assert_eq!(blocks.generations(), [0, 0, 8, 0]);
    }

    #[test]
    fn threads_never_hold_one_block_together() {
        let blocks = std::sync::Arc::new(Blocks::new(0, 512, 1));
        let holders = std::sync::Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (blocks, holders) = (blocks.clone(), holders.clone());
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        if blocks.try_lock(0) {
                            assert_eq!(holders.fetch_add(1, Ordering::SeqCst), 0);
                            let g = blocks.generation(0);
                            holders.fetch_sub(1, Ordering::SeqCst);
                            blocks.unlock(0, g + 1);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(blocks.generation(0) > 0);
    }
}
