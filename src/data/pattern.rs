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
use crate::rng::Rng;

/// Random bytes every chunk's incompressible part is copied from.
pub const POOL_BYTES: usize = 4 << 20;

/// Builds blocks whose chunks each compress by `ratio`.
#[derive(Debug)]
pub struct Compressible {
    pool: Vec<u8>,
    chunk: usize,
    random_len: usize,
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
