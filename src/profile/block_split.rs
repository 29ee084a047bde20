//! `--bssplit`: I/O of mixed sizes, each I/O's size drawn by weight, with a list per direction
//! (fio's `bssplit`, vdbench's `xfersize=(4k,50,64k,50)`).
//!
//! `--bssplit=4K/70:64K/30` gives every I/O a size; `--bssplit=4K/100,64K/100` gives reads one
//! list and writes (and trims) another. A weight left empty (`4K/60:8K/:16K/`) takes an equal part
//! of what the stated weights leave of 100, as fio reads it.

use serde::{Deserialize, Serialize};

use crate::units::{Size, parse_size};

/// The most sizes one direction's list holds: what fio's `bsrange` may stand for (its multiples
/// of the low end), well above fio's own `bssplit` limit of 64. Two lists' sizes fit a 16-bit
/// index, and their weights add up within 64 bits.
pub const MAX_SIZES: usize = 4096;

/// One size of a split and its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeShare {
    /// Bytes per I/O.
    #[serde(rename = "size_bytes")]
    pub size: u64,
    /// Relative weight (at least 1).
    pub weight: u32,
}

/// The sizes reads and writes draw from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSplit {
    /// Sizes of reads.
    pub read: Vec<SizeShare>,
    /// Sizes of writes and trims.
    pub write: Vec<SizeShare>,
}

impl BlockSplit {
    /// Every size either direction uses, ascending, once each.
    pub fn sizes(&self) -> Vec<u64> {
        let mut sizes: Vec<u64> = self
            .read
            .iter()
            .chain(&self.write)
            .map(|s| s.size)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// The largest size: what a slot's buffer holds and the range's last start leaves room for.
    pub fn largest(&self) -> u64 {
        self.sizes().last().copied().unwrap_or(0)
    }

    /// The smallest size: random offsets are its multiples unless `-r<align>` says otherwise.
    pub fn smallest(&self) -> u64 {
        self.sizes().first().copied().unwrap_or(0)
    }
}

/// One direction's list: `4K/70:64K/30`.
fn list(text: &str) -> Result<Vec<SizeShare>, String> {
    let items = text.split(':').count();
    if items > MAX_SIZES {
        return Err(format!(
            "a list of {items} sizes, more than the {MAX_SIZES} one direction may have"
        ));
    }
    let mut shares = Vec::new();
    let mut empty = 0u32;
    for item in text.split(':') {
        let (size, weight) = item.split_once('/').unwrap_or((item, ""));
        let bytes = match parse_size(size) {
            Ok(Size::Bytes(b)) if b > 0 && b < 1 << 32 => b,
            Ok(Size::Blocks(_)) => {
                return Err(format!(
                    "'{size}' counts blocks, and --bssplit sets the block sizes; give bytes (4K)"
                ));
            }
            Ok(_) => return Err(format!("'{size}' is not a block size from 1 byte to 4G−1")),
            Err(e) => return Err(format!("'{size}': {e}")),
        };
        let weight = match weight {
            "" => {
                empty += 1;
                0
            }
            w => w
                .parse::<u32>()
                .ok()
                .filter(|&w| (1..=1_000_000).contains(&w))
                .ok_or_else(|| format!("'{w}' is not a weight from 1 to 1000000"))?,
        };
        shares.push(SizeShare {
            size: bytes,
            weight,
        });
    }
    if let Some(empty) = std::num::NonZeroU32::new(empty) {
        let stated: u64 = shares.iter().map(|s| s.weight as u64).sum();
        let rest = 100u64.checked_sub(stated).filter(|&r| r >= empty.get() as u64).ok_or_else(|| {
            format!("the weights given add up to {stated}, leaving nothing of 100 for the sizes without one")
        })?;
        // An equal part each, the first ones taking what does not divide.
        let (each, left) = (rest as u32 / empty, rest as u32 % empty);
        for (i, share) in shares.iter_mut().filter(|s| s.weight == 0).enumerate() {
            share.weight = each + u32::from((i as u32) < left);
        }
    }
    Ok(shares)
}

impl std::str::FromStr for BlockSplit {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let example = "; for example --bssplit=4K/70:64K/30 (reads and writes) or --bssplit=4K/100,64K/100 (reads, writes)";
        let (read, write) = match text.split_once(',') {
            Some((r, w)) => (r, w),
            None => (text, text),
        };
        if text.is_empty() || write.contains(',') {
            return Err(format!(
                "'{text}' is not a list of sizes and weights{example}"
            ));
        }
        let read = list(read).map_err(|e| format!("{e}{example}"))?;
        let write = list(write).map_err(|e| format!("{e}{example}"))?;
        Ok(BlockSplit { read, write })
    }
}

/// As `--bssplit` takes it, in bytes: `4096/70:65536/30`, with `,` and the writes' list when the
/// directions differ.
impl std::fmt::Display for BlockSplit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |shares: &[SizeShare]| {
            shares
                .iter()
                .map(|s| format!("{}/{}", s.size, s.weight))
                .collect::<Vec<_>>()
                .join(":")
        };
        f.write_str(&list(&self.read))?;
        if self.write != self.read {
            write!(f, ",{}", list(&self.write))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_read_as_fio_reads_them_and_back() {
        let s: BlockSplit = "4K/70:64K/30".parse().unwrap();
        assert_eq!(s.read, s.write);
        assert_eq!(s.to_string(), "4096/70:65536/30");
        assert_eq!((s.smallest(), s.largest()), (4096, 65536));
        let s: BlockSplit = "4K/100,8K/50:1M/50".parse().unwrap();
        assert_eq!(s.to_string(), "4096/100,8192/50:1048576/50");
        assert_eq!(s.sizes(), vec![4096, 8192, 1 << 20]);
        assert_eq!(s.to_string().parse::<BlockSplit>().unwrap(), s);
        // Empty weights share the rest of 100.
        let s: BlockSplit = "4K/60:8K/:16K/".parse().unwrap();
        let weights: Vec<u32> = s.read.iter().map(|x| x.weight).collect();
        assert_eq!(weights, vec![60, 20, 20]);
        let s: BlockSplit = "4K/:8K/:16K/".parse().unwrap();
        let weights: Vec<u32> = s.read.iter().map(|x| x.weight).collect();
        assert_eq!(weights, vec![34, 33, 33]);
        for bad in [
            "",
            "4K/0",
            "4K/x",
            "0/50",
            "4K/50,8K/50,16K/1",
            "8b/50",
            "4K/100:8K/",
            "5G/1",
        ] {
            let e = bad.parse::<BlockSplit>().unwrap_err();
            assert!(e.contains("--bssplit=4K/70:64K/30"), "{bad}: {e}");
        }
    }
}
