//! `--verify-state=<file>`: what a run wrote, so `iospd verify` can re-read and check it later
//! (after a power cut, a failover, a remount). JSON: the run id, whether the run was still going
//! when it was saved, and per target its path, range, block size, whether `-c --verify` created
//! it, and every block's last generation (little-endian u32s, base64).
//!
//! The run writes it as a stream from its live tables ([`write`]): no copy of a table is made, so
//! saving costs no memory the run did not already count. Reading ([`State::parse`]) checks every
//! field with checked arithmetic before it allocates anything a field sizes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::format::SECTOR;
use super::table::Blocks;

/// What the state file says `format` is.
pub const FORMAT: &str = "iospd-verify-state";

/// A saved run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Always [`FORMAT`].
    pub format: String,
    /// Its layout's version.
    pub version: u32,
    /// The run that wrote the blocks.
    pub run_id: u64,
    /// Saved while the run still wrote: a block may since have been written again, so a newer
    /// generation of this run is right too (every block must still be at least as new as saved).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Per target.
    pub targets: Vec<TargetState>,
}

/// One target's blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetState {
    /// As given on the command line.
    pub path: PathBuf,
    /// Where block 0 starts (`-B`).
    pub base: u64,
    /// Bytes per block.
    pub block: u64,
    /// Blocks tracked.
    pub blocks: u64,
    /// Created by `-c --verify` in that run: blocks with generation 0 hold the creation pattern.
    pub created: bool,
    /// Every block's generation, little-endian u32s in base64.
    pub generations: String,
}

/// One target's live table, to save.
#[derive(Clone, Copy)]
pub struct Saved<'a> {
    /// As given on the command line.
    pub path: &'a Path,
    /// Its blocks.
    pub blocks: &'a Blocks,
    /// Created by `-c --verify` in this run.
    pub created: bool,
}

/// Generations encoded per step: a multiple of 3 bytes, so the steps' base64 joins without
/// padding.
const STEP: usize = 3 * 1024;

/// Writes the state of `targets` to `out` as a stream, a step of generations at a time.
pub fn write(
    out: &mut impl Write,
    run_id: u64,
    partial: bool,
    targets: &[Saved<'_>],
) -> io::Result<()> {
    write!(
        out,
        "{{\"format\":\"{FORMAT}\",\"version\":1,\"run_id\":{run_id},"
    )?;
    if partial {
        out.write_all(b"\"partial\":true,")?;
    }
    out.write_all(b"\"targets\":[")?;
    let base64 = base64::engine::general_purpose::STANDARD;
    let mut bytes = Vec::with_capacity(STEP * 4);
    let mut text = String::with_capacity(STEP * 16 / 3);
    for (i, t) in targets.iter().enumerate() {
        let path = t.path.to_str().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "'{}' is not UTF-8, which JSON cannot hold",
                    t.path.display()
                ),
            )
        })?;
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"{\"path\":")?;
        serde_json::to_writer(&mut *out, path)?;
        write!(
            out,
            ",\"base\":{},\"block\":{},\"blocks\":{},\"created\":{},\"generations\":\"",
            t.blocks.base,
            t.blocks.block,
            t.blocks.len(),
            t.created
        )?;
        for first in (0..t.blocks.len()).step_by(STEP) {
            bytes.clear();
            for b in first..(first + STEP).min(t.blocks.len()) {
                bytes.extend_from_slice(&t.blocks.generation(b).to_le_bytes());
            }
            text.clear();
            base64.encode_string(&bytes, &mut text);
            out.write_all(text.as_bytes())?;
        }
        out.write_all(b"\"}")?;
    }
    out.write_all(b"]}\n")
}

impl State {
    /// Reads a state file's text; every field is checked before anything is sized by it.
    pub fn parse(text: &str) -> Result<State, String> {
        let state: State = serde_json::from_str(text)
            .map_err(|e| format!("it is not an iospd verify state ({e})"))?;
        if state.format != FORMAT || state.version != 1 {
            return Err(format!(
                "it is '{}' version {}, not an {FORMAT} version 1",
                state.format, state.version
            ));
        }
        if state.targets.is_empty() {
            return Err("it names no target, so it vouches for nothing".into());
        }
        for t in &state.targets {
            t.check()?;
        }
        Ok(state)
    }
}

impl TargetState {
    /// Whether its fields describe blocks `--verify` can have written, with arithmetic that
    /// cannot overflow.
    fn check(&self) -> Result<(), String> {
        let name = self.path.display();
        let sector = SECTOR as u64;
        if self.block < sector || self.block % sector != 0 || self.block >= 1 << 32 {
            return Err(format!(
                "'{name}' has a {}-byte block, which --verify never writes (a multiple of 512 bytes below 4GiB)",
                self.block
            ));
        }
        if self.blocks == 0 {
            return Err(format!("'{name}' has no blocks"));
        }
        let end = self
            .blocks
            .checked_mul(self.block)
            .and_then(|bytes| bytes.checked_add(self.base))
            .filter(|&end| end <= i64::MAX as u64);
        if end.is_none() {
            return Err(format!(
                "'{name}': {} blocks of {} bytes from offset {} end past the largest offset a file can have",
                self.blocks, self.block, self.base
            ));
        }
        // 4 bytes per block, in base64; `end` above bounds the product.
        if (self.blocks * 4).div_ceil(3) * 4 != self.generations.len() as u64 {
            return Err(format!(
                "the generations of '{name}' do not match its {} blocks",
                self.blocks
            ));
        }
        Ok(())
    }

    /// Where its last block ends.
    pub fn end(&self) -> u64 {
        self.base + self.blocks * self.block
    }

    /// The blocks as saved.
    pub fn table(&self) -> Result<Blocks, String> {
        self.check()?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.generations)
            .map_err(|e| {
                format!(
                    "the generations of '{}' are damaged ({e})",
                    self.path.display()
                )
            })?;
        if bytes.len() as u64 != self.blocks * 4 {
            return Err(format!(
                "the generations of '{}' do not match its {} blocks",
                self.path.display(),
                self.blocks
            ));
        }
        let generations: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Blocks::from_generations(
            self.base,
            self.block,
            &generations,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(blocks: &Blocks, partial: bool) -> String {
        let mut out = Vec::new();
        let target = Saved {
            path: Path::new("/t.dat"),
            blocks,
            created: true,
        };
        write(&mut out, 99, partial, &[target]).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_state_round_trips_and_damage_is_refused() {
        // More blocks than one step, and not a multiple of it.
        let blocks = Blocks::new(4096, 4096, STEP as u64 + 5);
        assert!(blocks.try_lock(1));
        blocks.unlock(1, 5);
        assert!(blocks.try_lock(STEP + 2));
        blocks.unlock(STEP + 2, 9);
        let text = saved(&blocks, false);
        let back = State::parse(&text).unwrap();
        assert_eq!((back.run_id, back.partial), (99, false));
        assert_eq!(
            back.targets[0].table().unwrap().generations(),
            blocks.generations()
        );
        assert!(State::parse(&saved(&blocks, true)).unwrap().partial);
        let short = text.replace(&back.targets[0].generations, "AAAA");
        assert!(State::parse(&short).unwrap_err().contains("do not match"));
        assert!(State::parse("{}").is_err());
    }

    #[test]
    fn a_hostile_state_is_refused_before_anything_is_sized_by_it() {
        let good = saved(&Blocks::new(0, 4096, 3), false);
        let state = State::parse(&good).unwrap();
        let with = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
            edit(&mut v);
            State::parse(&v.to_string()).unwrap_err()
        };
        let huge_block = with(&|v| v["targets"][0]["block"] = (1u64 << 40).into());
        assert!(huge_block.contains("never writes"), "{huge_block}");
        let tiny_block = with(&|v| v["targets"][0]["block"] = 0.into());
        assert!(tiny_block.contains("never writes"), "{tiny_block}");
        // 2^62 blocks: 4 bytes each wraps to 0 in 64 bits, so an empty table would match.
        let overflow = with(&|v| {
            v["targets"][0]["blocks"] = (1u64 << 62).into();
            v["targets"][0]["generations"] = "".into();
        });
        assert!(overflow.contains("end past"), "{overflow}");
        let far = with(&|v| v["targets"][0]["base"] = u64::MAX.into());
        assert!(far.contains("end past"), "{far}");
        let none = with(&|v| v["targets"] = serde_json::json!([]));
        assert!(none.contains("names no target"), "{none}");
        let empty = with(&|v| {
            v["targets"][0]["blocks"] = 0.into();
            v["targets"][0]["generations"] = "".into();
        });
        assert!(empty.contains("no blocks"), "{empty}");
        assert_eq!(state.targets[0].end(), 3 * 4096);
    }
}
