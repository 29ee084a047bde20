//! `--verify-state=<file>`: what a run wrote, so `iospd verify` can re-read and check it later
//! (after a power cut, a failover, a remount). JSON: the run id, and per target its path, range,
//! block size, whether `-c --verify` created it, and every block's last generation (little-endian
//! u32s, base64).

use std::path::PathBuf;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::Verifier;
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

impl State {
    /// The state of a verifier whose targets are at `paths`.
    pub fn of(verifier: &Verifier, paths: &[PathBuf]) -> State {
        let targets = verifier
            .targets
            .iter()
            .zip(paths)
            .zip(&verifier.created)
            .map(|((blocks, path), &created)| {
                let bytes: Vec<u8> = blocks
                    .generations()
                    .iter()
                    .flat_map(|g| g.to_le_bytes())
                    .collect();
                TargetState {
                    path: path.clone(),
                    base: blocks.base,
                    block: blocks.block,
                    blocks: blocks.len() as u64,
                    created,
                    generations: base64::engine::general_purpose::STANDARD.encode(bytes),
                }
            })
            .collect();
        State {
            format: FORMAT.into(),
            version: 1,
            run_id: verifier.run_id,
            targets,
        }
    }

    /// Reads a state file's text.
    pub fn parse(text: &str) -> Result<State, String> {
        let state: State = serde_json::from_str(text)
            .map_err(|e| format!("it is not an iospd verify state ({e})"))?;
        if state.format != FORMAT || state.version != 1 {
            return Err(format!(
                "it is '{}' version {}, not an {FORMAT} version 1",
                state.format, state.version
            ));
        }
        for t in &state.targets {
            t.table()?;
        }
        Ok(state)
    }
}

impl TargetState {
    /// The blocks as saved.
    pub fn table(&self) -> Result<Blocks, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.generations)
            .map_err(|e| {
                format!(
                    "the generations of '{}' are damaged ({e})",
                    self.path.display()
                )
            })?;
        if bytes.len() as u64 != self.blocks * 4 || self.block == 0 {
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

    #[test]
    fn a_state_round_trips_and_damage_is_refused() {
        let blocks = Blocks::new(4096, 4096, 3);
        assert!(blocks.try_lock(1));
        blocks.unlock(1, 5);
        let verifier = Verifier::new(99, false, vec![blocks], vec![true]);
        let state = State::of(&verifier, &[PathBuf::from("/t.dat")]);
        let text = serde_json::to_string(&state).unwrap();
        let back = State::parse(&text).unwrap();
        assert_eq!(back, state);
        assert_eq!(back.run_id, 99);
        assert_eq!(back.targets[0].table().unwrap().generations(), [0, 5, 0]);
        let short = text.replace(&state.targets[0].generations, "AAAA");
        assert!(State::parse(&short).unwrap_err().contains("do not match"));
        assert!(State::parse("{}").is_err());
    }
}
