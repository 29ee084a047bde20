//! What compressors and deduplication make of data: the measures behind `iospd data-check` and the
//! generator's tests.

/// A compressor real storage uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compressor {
    /// LZ4 block format (zram, ZFS, btrfs does not).
    Lz4,
    /// Zstandard, level 3 (btrfs compress=zstd's default).
    Zstd,
    /// zlib, level 6 (btrfs compress=zlib's default, gzip's).
    Zlib,
}

impl Compressor {
    /// Every compressor, in report order.
    pub const ALL: [Compressor; 3] = [Compressor::Lz4, Compressor::Zstd, Compressor::Zlib];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Compressor::Lz4 => "lz4",
            Compressor::Zstd => "zstd",
            Compressor::Zlib => "zlib",
        }
    }

    /// The compressed size of `data` on its own.
    pub fn compressed_len(self, data: &[u8]) -> usize {
        match self {
            Compressor::Lz4 => lz4_flex::block::compress(data).len(),
            Compressor::Zstd => zstd::bulk::compress(data, 3).map_or(data.len(), |c| c.len()),
            Compressor::Zlib => {
                use std::io::Write;
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
                let _ = e.write_all(data);
                e.finish().map_or(data.len(), |c| c.len())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::pattern::Compressible;
    use crate::rng::Rng;

    /// Each compressor's ratio on `blocks` of generated data, chunk by chunk.
    fn achieved(ratio: f64, chunk: usize) -> Vec<(Compressor, f64)> {
        let generator = Compressible::new(
            crate::profile::Compress {
                ratio,
                chunk: chunk as u64,
            },
            1,
        );
        let mut rng = Rng::new(2);
        let mut buf = vec![0u8; 1 << 20];
        generator.fill(&mut buf, &mut rng, 7);
        Compressor::ALL
            .iter()
            .map(|&c| {
                let total: usize = buf.chunks(chunk).map(|b| c.compressed_len(b)).sum();
                (c, buf.len() as f64 / total as f64)
            })
            .collect()
    }

    #[test]
    fn every_compressor_gets_within_5_percent_of_the_ratio_at_4k() {
        for ratio in [1.5, 2.0, 2.5, 3.0, 4.0] {
            for (c, got) in achieved(ratio, 4096) {
                let error = got / ratio - 1.0;
                assert!(
                    error.abs() < 0.05,
                    "{} at 4K: {got:.3} for {ratio} ({:+.1} %)",
                    c.name(),
                    error * 100.0
                );
            }
        }
    }

    #[test]
    fn larger_chunks_hold_the_ratio_too() {
        for chunk in [16384, 131072] {
            for ratio in [2.0, 4.0, 8.0] {
                for (c, got) in achieved(ratio, chunk) {
                    assert!(
                        (got / ratio - 1.0).abs() < 0.05,
                        "{} at {chunk}: {got:.3} for {ratio}",
                        c.name()
                    );
                }
            }
        }
    }

    #[test]
    fn incompressible_is_incompressible() {
        for (c, got) in achieved(1.0, 4096) {
            assert!((0.97..=1.0).contains(&got), "{}: {got}", c.name());
        }
    }
}
