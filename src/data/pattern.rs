//! The compressible-data generator.
//!
//! Each chunk (the unit a compressor sees) is `r` random bytes then zeros: contiguous, because
//! zeros scattered among random bytes cost compressors very different amounts (vdbench's layout
//! differs by 24 % between lz4 and gzip). A compressor spends a few bytes more than the random
//! part on its own framing (measured at 4 KiB: lz4 ≈ 30, zstd ≈ 20, zlib ≈ 70, growing slowly
//! with the chunk), so the random part is the asked share less a margin between those costs,
//! 40 bytes + 1/128 of it, which puts lz4, zstd and zlib each within a few percent of the ratio
//! asked on either side rather than all of them low (fio's layout lands 1–9 % low). The random
//! part is a window of a 4 MiB pool at a random start with a fresh 8-byte stamp, so no two chunks
//! are alike (nothing deduplicates) and chunks in one compressor window share no long run; making
//! a block costs a copy and a fill, not a random-number generator's pass.

use crate::profile::Compress;
use crate::rng::{Rng, splitmix64};

/// Random bytes every chunk's incompressible part is copied from.
pub const POOL_BYTES: usize = 4 << 20;

/// Builds blocks whose chunks each compress by `ratio`.
#[derive(Debug)]
pub struct Compressible {
    pool: Vec<u8>,
    chunk: usize,
    random_len: usize,
    /// Where shared contents (`--dedupe`'s sets) take their pool windows and stamps from.
    shared_seed: u64,
}

/// What a `--dedupe` unit's content is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Content of its own, new on every write: unit `0` of the range.
    Fresh(u64),
    /// One version of a shared content.
    Shared {
        /// The set.
        set: u64,
        /// 0 or 1 (flip-flop).
        version: u64,
    },
}

/// The first word of each chunk of a keyed unit: unique to the unit (or set and version) and the
/// chunk's place in it; bit 0 tells unique content from shared, so no two contents share it.
#[inline]
fn tag(key: Key, chunk: u64) -> u64 {
    let own = match key {
        Key::Fresh(unit) => unit << 1,
        Key::Shared { set, version } => (set << 2 | version << 1) | 1,
    };
    own ^ chunk << 52
}

/// The random bytes of a chunk of `chunk` bytes that compresses by `ratio`.
pub fn random_len(ratio: f64, chunk: usize) -> usize {
    if ratio <= 1.0 {
        return chunk;
    }
    let share = chunk as f64 / ratio;
    let margin = 40.0 + share / 128.0;
    ((share - margin).round() as usize).clamp(16, chunk)
}

impl Compressible {
    /// The generator of `--compress`, its pool drawn from `seed`.
    pub fn new(compress: Compress, seed: u64) -> Self {
        let chunk = compress.chunk as usize;
        Self::with_random_len(chunk, random_len(compress.ratio, chunk), seed)
    }

    /// Chunks of `chunk` bytes holding `random_len` random bytes each.
    pub fn with_random_len(chunk: usize, random_len: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0xc0_4d_7e_55);
        let mut pool = vec![0u8; POOL_BYTES + chunk];
        for word in pool.chunks_mut(8) {
            word.copy_from_slice(&rng.next_u64().to_le_bytes()[..word.len()]);
        }
        Compressible {
            pool,
            chunk,
            random_len: random_len.min(chunk),
            shared_seed: rng.next_u64(),
        }
    }

    /// The generator of a target's `--compress` and `--dedupe` data (`None` without either); its
    /// pool and shared contents follow `seed`, so a `-c` fill and the run's writes agree.
    pub fn for_target(target: &crate::profile::Target, seed: u64) -> Option<Self> {
        match (target.compress, target.dedupe) {
            (Some(c), _) => Some(Self::new(c, seed)),
            (None, Some(d)) => Some(Self::with_random_len(
                d.unit as usize,
                d.unit as usize,
                seed,
            )),
            (None, None) => None,
        }
    }

    /// The chunk size.
    pub fn chunk(&self) -> usize {
        self.chunk
    }

    /// Fills one `--dedupe` unit: with `Key::Fresh`, pool windows and stamps drawn from `rng`;
    /// with `Key::Shared`, the same bytes every time for the same set and version. The first
    /// 16 bytes of each chunk are its [`tag`] and a stamp, so contents differ exactly where keys do.
    #[inline]
    pub fn fill_unit(&self, unit: &mut [u8], rng: &mut Rng, key: Key) {
        let n = self.random_len;
        for (i, chunk) in unit.chunks_mut(self.chunk).enumerate() {
            let n = n.min(chunk.len());
            let (start, stamp) = match key {
                Key::Fresh(_) => (rng.next_u64(), rng.next_u64()),
                Key::Shared { .. } => {
                    let mut state = self.shared_seed ^ tag(key, i as u64);
                    (splitmix64(&mut state), splitmix64(&mut state))
                }
            };
            let start = (start % ((POOL_BYTES - n) as u64 + 1)) as usize;
            chunk[..n].copy_from_slice(&self.pool[start..start + n]);
            let mut head = [0u8; 16];
            head[..8].copy_from_slice(&tag(key, i as u64).to_le_bytes());
            head[8..].copy_from_slice(&stamp.to_le_bytes());
            let m = n.min(16);
            chunk[..m].copy_from_slice(&head[..m]);
            chunk[n..].fill(0);
        }
    }

    /// Fills `buf` chunk by chunk; `stamp` is written at the start of each chunk's random part.
    #[inline]
    pub fn fill(&self, buf: &mut [u8], rng: &mut Rng, stamp: u64) {
        let n = self.random_len;
        for (i, chunk) in buf.chunks_mut(self.chunk).enumerate() {
            let n = n.min(chunk.len());
            let start = rng.below((POOL_BYTES - n) as u64 + 1) as usize;
            chunk[..n].copy_from_slice(&self.pool[start..start + n]);
            let mark = (stamp ^ (i as u64).rotate_left(48)).to_le_bytes();
            let m = n.min(8);
            chunk[..m].copy_from_slice(&mark[..m]);
            chunk[n..].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::reduce::Compressor;

    #[test]
    fn keyed_units_are_equal_exactly_where_their_keys_are() {
        let data = Compressible::with_random_len(1024, 1024, 7);
        let mut rng = Rng::new(1);
        let unit = |key: Key, rng: &mut Rng| {
            let mut buf = vec![0u8; 4096];
            data.fill_unit(&mut buf, rng, key);
            buf
        };
        let a = unit(Key::Shared { set: 3, version: 0 }, &mut rng);
        assert_eq!(a, unit(Key::Shared { set: 3, version: 0 }, &mut rng));
        assert_ne!(a, unit(Key::Shared { set: 3, version: 1 }, &mut rng));
        assert_ne!(a, unit(Key::Shared { set: 4, version: 0 }, &mut rng));
        assert_ne!(unit(Key::Fresh(3), &mut rng), unit(Key::Fresh(3), &mut rng));
        // The same generator made again from the same seed (a -c fill, then the run) agrees.
        let again = Compressible::with_random_len(1024, 1024, 7);
        let mut b = vec![0u8; 4096];
        again.fill_unit(&mut b, &mut rng, Key::Shared { set: 3, version: 0 });
        assert_eq!(a, b);
        // A unit's chunks differ from each other.
        assert!(
            a.chunks(1024)
                .enumerate()
                .all(|(i, c)| a.chunks(1024).skip(i + 1).all(|d| d != c))
        );
    }

    #[test]
    fn keyed_units_keep_the_compression_asked() {
        let compress = Compress {
            ratio: 3.0,
            chunk: 4096,
        };
        let data = Compressible::new(compress, 5);
        let mut rng = Rng::new(2);
        let mut buf = vec![0u8; 1 << 20];
        for (i, unit) in buf.chunks_mut(16384).enumerate() {
            let key = match i % 2 {
                0 => Key::Fresh(i as u64),
                _ => Key::Shared {
                    set: i as u64,
                    version: 0,
                },
            };
            data.fill_unit(unit, &mut rng, key);
        }
        for compressor in Compressor::ALL {
            let packed: usize = buf.chunks(4096).map(|c| compressor.compressed_len(c)).sum();
            let ratio = buf.len() as f64 / packed as f64;
            assert!((ratio / 3.0 - 1.0).abs() < 0.05, "{compressor:?}: {ratio}");
        }
    }
}
