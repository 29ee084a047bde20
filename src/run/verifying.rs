//! `--verify` across a run: one run id, the blocks' tables carried from timespan to timespan (so
//! a block a timespan wrote is checked in the next), and the `--verify-state` file rewritten after
//! every timespan.

use std::path::PathBuf;

use crate::profile::TimeSpan;
use crate::safety::Place;
use crate::target::PreparedTarget;
use crate::verify::Verifier;
use crate::verify::state::State;
use crate::verify::table::Blocks;

/// The run's verification state between timespans.
pub struct RunVerify {
    /// In every block the run writes.
    pub run_id: u64,
    stop_at_first: bool,
    state: Option<Place>,
    /// Per target path: its table and whether `-c --verify` created it.
    kept: Vec<(PathBuf, Blocks, bool)>,
}

impl RunVerify {
    /// A fresh run id (the clock and the process id, mixed).
    pub fn new(stop_at_first: bool, state: Option<Place>) -> Self {
        let mut seed = crate::clock::monotonic_now() ^ ((std::process::id() as u64) << 40);
        RunVerify {
            // 53 bits: JSON readers that hold numbers as doubles read it exactly.
            run_id: crate::rng::splitmix64(&mut seed) & ((1 << 53) - 1),
            stop_at_first,
            state,
            kept: Vec::new(),
        }
    }

    /// The verifier of a timespan: a target created by `-c --verify` starts afresh; one used
    /// before with the same blocks keeps its table; any other starts knowing nothing.
    pub fn verifier(&mut self, timespan: &TimeSpan, targets: &[PreparedTarget]) -> Verifier {
        let (blocks, created) = timespan
            .targets
            .iter()
            .zip(targets)
            .map(|(t, p)| {
                let (base, block) = (p.range.base, t.block_size);
                let count = p.range.usable / block;
                let kept = self.kept.iter().position(|(path, b, _)| {
                    *path == t.path && b.base == base && b.block == block && b.len() as u64 == count
                });
                match kept {
                    Some(i) if !p.created_verified => {
                        let (_, blocks, created) = self.kept.swap_remove(i);
                        (blocks, created)
                    }
                    _ => (Blocks::new(base, block, count), p.created_verified),
                }
            })
            .unzip();
        Verifier::new(self.run_id, self.stop_at_first, blocks, created)
    }

    /// Keeps the verifier's tables for the next timespan and rewrites the state file; the error
    /// when it cannot be written.
    pub fn keep(&mut self, verifier: Verifier, timespan: &TimeSpan) -> Option<String> {
        let paths: Vec<PathBuf> = timespan.targets.iter().map(|t| t.path.clone()).collect();
        let written = self.state.as_mut().and_then(|place| {
            let state = State::of(&verifier, &paths);
            let text = serde_json::to_string(&state).expect("a state serialises") + "\n";
            place.replace_with(text.as_bytes()).err().map(|e| {
                format!(
                    "cannot write the --verify-state file '{}': {e}",
                    place.path().display()
                )
            })
        });
        let (tables, created) = verifier.into_tables();
        for ((path, blocks), created) in paths.into_iter().zip(tables).zip(created) {
            self.kept.retain(|(p, _, _)| *p != path);
            self.kept.push((path, blocks, created));
        }
        written
    }
}
