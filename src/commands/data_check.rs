//! `iospd data-check <file|device>`: what compressors and deduplication make of what a target
//! holds — each compressor's ratio chunk by chunk at the user's granularity, the all-zero chunks
//! (which zram and many arrays store as nothing), and the exact dedupe ratio from a 128-bit
//! fingerprint of every unit. Reads only; `--sample` reads an evenly spread share of the target.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hasher};
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use serde::Serialize;

use super::{ToolError, split_args};
use crate::data::reduce::Compressor;
use crate::units::{Size, format_size, parse_size};

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str = "iospd data-check <file|device> [--chunk=<size>] [--dedupe-unit=<size>] [--sample=<percent>] [--json]";

/// Its own options (`=`: takes a value), for the parser and the shell completions.
pub const OPTIONS: &[&str] = &["chunk=", "dedupe-unit=", "sample=", "json"];

/// Bytes read at a time (a multiple of every chunk and unit accepted).
const REGION: usize = 1 << 20;

/// What a target holds, as compressors and deduplication see it.
#[derive(Debug, Serialize)]
pub struct DataCheck {
    /// The target.
    pub path: String,
    /// Its size.
    pub size_bytes: u64,
    /// Bytes read (all, or the `--sample` share).
    pub read_bytes: u64,
    /// The compressors' unit.
    pub chunk_bytes: u64,
    /// Per compressor, every chunk compressed on its own.
    pub compression: Vec<Compression>,
    /// Chunks of only zero bytes.
    pub zero_chunks: u64,
    /// Chunks read.
    pub chunks: u64,
    /// The deduplication unit.
    pub dedupe_unit_bytes: u64,
    /// Units read.
    pub units: u64,
    /// Distinct units among them (by 128-bit fingerprint).
    pub distinct_units: u64,
    /// `units / distinct_units`.
    pub dedupe_ratio: f64,
}

/// One compressor's verdict.
#[derive(Debug, Serialize)]
pub struct Compression {
    /// lz4, zstd, zlib.
    pub compressor: &'static str,
    /// The compressed bytes of every chunk together.
    pub compressed_bytes: u64,
    /// Read bytes over compressed bytes.
    pub ratio: f64,
    /// The compressed bytes of the first copy of each distinct unit: what a device that
    /// deduplicates and then compresses stores (`None` when chunks do not tile the unit).
    pub after_dedupe_bytes: Option<u64>,
    /// Read bytes over `after_dedupe_bytes`: deduplication and compression together.
    pub after_dedupe_ratio: Option<f64>,
}

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let args = split_args(args, OPTIONS, USAGE)?;
    let [path] = args.files.as_slice() else {
        return Err(ToolError::Usage(format!(
            "name one file or device; usage: {USAGE}"
        )));
    };
    let size_of = |name: &str, default: usize| -> Result<usize, ToolError> {
        let Some(text) = args.option(name) else {
            return Ok(default);
        };
        match parse_size(text) {
            Ok(Size::Bytes(b)) if b >= 512 && b <= REGION as u64 && REGION as u64 % b == 0 => {
                Ok(b as usize)
            }
            _ => Err(ToolError::Usage(format!(
                "--{name}={text}: give a power of two from 512 to 1M, for example --{name}=4K"
            ))),
        }
    };
    let chunk = size_of("chunk", 4096)?;
    let unit = size_of("dedupe-unit", chunk)?;
    let sample = match args.option("sample") {
        None => 100,
        Some(text) => text
            .trim_end_matches('%')
            .parse::<u64>()
            .ok()
            .filter(|p| (1..=100).contains(p))
            .ok_or_else(|| {
                ToolError::Usage(format!(
                    "--sample={text}: give a percent from 1 to 100, for example --sample=10"
                ))
            })?,
    };
    let input = PathBuf::from(path);
    let check = check(&input, chunk, unit, sample).map_err(|e| ToolError::Input {
        path: input.clone(),
        why: e.to_string(),
    })?;
    let text = match args.option("json") {
        Some(_) => serde_json::to_string_pretty(&check).expect("plain data serialises") + "\n",
        None => text(&check),
    };
    super::print(&text).map(|()| 0)
}

/// Reads `path` (every region, or `sample` percent of them evenly spread) and measures it.
pub fn check(
    path: &std::path::Path,
    chunk: usize,
    unit: usize,
    sample: u64,
) -> std::io::Result<DataCheck> {
    let mut file = crate::input::open(path, true).map_err(std::io::Error::other)?;
    let size = file.seek(SeekFrom::End(0))?;
    if size == 0 {
        return Err(std::io::Error::other(
            "it is empty: there is no data to check; give a file or device that holds data",
        ));
    }
    let mut compressed = [0u64; Compressor::ALL.len()];
    // Chunks of the first copy of each unit: what a device that deduplicates, then compresses,
    // stores (when chunks tile the unit).
    let mut after_dedupe = [0u64; Compressor::ALL.len()];
    let tiled = unit % chunk == 0;
    let mut fingerprints = HashSet::new();
    let (mut read_bytes, mut chunks, mut zero_chunks, mut units) = (0u64, 0u64, 0u64, 0u64);
    let mut buf = vec![0u8; REGION];
    let regions = size.div_ceil(REGION as u64);
    for region in 0..regions {
        // Region i is read when the share read so far steps past a whole region: exactly
        // `sample` percent, evenly spread.
        if (region + 1) * sample / 100 == region * sample / 100 {
            continue;
        }
        let start = region * REGION as u64;
        let len = (size - start).min(REGION as u64) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf[..len])?;
        let data = &buf[..len];
        read_bytes += len as u64;
        let mut count = |c: &[u8], first: bool| {
            chunks += 1;
            zero_chunks += c.iter().all(|&b| b == 0) as u64;
            for (i, compressor) in Compressor::ALL.iter().enumerate() {
                let len = compressor.compressed_len(c) as u64;
                compressed[i] += len;
                after_dedupe[i] += if first { len } else { 0 };
            }
        };
        for u in data.chunks(unit) {
            units += 1;
            let first = fingerprints.insert(fingerprint(u));
            if tiled {
                u.chunks(chunk).for_each(|c| count(c, first));
            }
        }
        if !tiled {
            data.chunks(chunk).for_each(|c| count(c, false));
        }
    }
    let distinct_units = fingerprints.len() as u64;
    Ok(DataCheck {
        path: path.display().to_string(),
        size_bytes: size,
        read_bytes,
        chunk_bytes: chunk as u64,
        compression: Compressor::ALL
            .iter()
            .zip(compressed)
            .zip(after_dedupe)
            .map(|((c, bytes), after)| Compression {
                compressor: c.name(),
                compressed_bytes: bytes,
                ratio: read_bytes as f64 / bytes.max(1) as f64,
                after_dedupe_bytes: tiled.then_some(after),
                after_dedupe_ratio: tiled.then(|| read_bytes as f64 / after.max(1) as f64),
            })
            .collect(),
        zero_chunks,
        chunks,
        dedupe_unit_bytes: unit as u64,
        units,
        distinct_units,
        dedupe_ratio: units as f64 / distinct_units.max(1) as f64,
    })
}

/// 128 bits: two SipHash passes that differ by a leading byte.
fn fingerprint(data: &[u8]) -> u128 {
    let mut a = DefaultHasher::new();
    a.write(data);
    let mut b = DefaultHasher::new();
    b.write_u8(0x5a);
    b.write(data);
    (a.finish() as u128) << 64 | b.finish() as u128
}

/// The text report.
fn text(c: &DataCheck) -> String {
    let mut out = format!(
        "iospd data-check: '{}': {} read of {}, chunks of {}\n  compression, each chunk on its own:\n",
        c.path,
        format_size(c.read_bytes),
        format_size(c.size_bytes),
        format_size(c.chunk_bytes)
    );
    for x in &c.compression {
        out += &format!(
            "    {:<5} {:8.3}:1  ({} -> {} bytes)",
            x.compressor, x.ratio, c.read_bytes, x.compressed_bytes
        );
        if let Some(after) = x.after_dedupe_ratio {
            out += &format!("; after dedupe {after:.3}:1");
        }
        out.push('\n');
    }
    out += &format!(
        "  all-zero chunks: {} of {}\n  dedupe at {}: {} units, {} distinct: {:.4}:1\n",
        c.zero_chunks,
        c.chunks,
        format_size(c.dedupe_unit_bytes),
        c.units,
        c.distinct_units,
        c.dedupe_ratio
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_zeros_and_samples_are_counted_exactly() {
        let dir = std::env::temp_dir().join(format!("iospd-data-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.bin");
        // 4 MiB: 256 distinct 4 KiB units, each written 3 times, then 256 zero units.
        let mut data = Vec::new();
        for copy in 0..3 {
            for u in 0..256u32 {
                let _ = copy;
                data.extend((0..4096u32).map(|i| (i.wrapping_mul(u + 7) >> 3) as u8 ^ u as u8));
            }
        }
        data.resize(4 << 20, 0);
        std::fs::write(&path, &data).unwrap();
        let c = check(&path, 4096, 4096, 100).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!((c.read_bytes, c.chunks, c.units), (4 << 20, 1024, 1024));
        assert_eq!(c.zero_chunks, 256);
        assert_eq!(c.distinct_units, 257, "256 patterns and the zero unit");
        assert!((c.dedupe_ratio - 1024.0 / 257.0).abs() < 1e-12);
        assert!(c.compression.iter().all(|x| x.ratio > 1.0));
        // Three copies of each pattern and 256 zero units: the first copies compress to at most
        // a third of the whole.
        assert!(
            c.compression
                .iter()
                .all(|x| x.after_dedupe_bytes.unwrap() * 3 <= x.compressed_bytes),
            "{:?}",
            c.compression
        );
    }

    #[test]
    fn a_sample_reads_exactly_its_share() {
        let dir = std::env::temp_dir().join(format!("iospd-data-sample-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.bin");
        std::fs::write(&path, vec![1u8; 10 << 20]).unwrap();
        let c = check(&path, 4096, 4096, 30).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(c.read_bytes, 3 << 20);
    }
}
