//! `--verify` across a run: one run id, the blocks' tables carried from timespan to timespan (so
//! a block a timespan wrote is checked in the next), and the `--verify-state` file: every target
//! of every timespan so far, saved while a timespan runs (marked partial: see
//! [`crate::verify::state::State::partial`]) and after each timespan, each time atomically, so a
//! crash during a save leaves the previous one.

use std::io::{BufWriter, Write as _};
use std::path::PathBuf;

use crate::profile::TimeSpan;
use crate::safety::Place;
use crate::targets::PreparedTarget;
use crate::verify::Verifier;
use crate::verify::state::{self, Saved};
use crate::verify::table::Blocks;

/// How often the state is saved while a timespan runs, without `--checkpoint`.
pub const SAVE_PERIOD_S: u64 = 10;

/// A target's table between the timespans that use it.
struct Kept {
    path: PathBuf,
    blocks: Blocks,
    created: bool,
}

/// The run's verification state between timespans.
pub struct RunVerify {
    /// In every block the run writes.
    pub run_id: u64,
    stop_at_first: bool,
    state: Option<Place>,
    /// Every target path the run has used, in the order it first did (the state's order).
    order: Vec<PathBuf>,
    /// Per target path not in use by the running timespan: its table and whether `-c --verify`
    /// created it.
    kept: Vec<Kept>,
    /// The last save that failed, and what became of the state.
    unsaved: Option<String>,
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
            order: Vec::new(),
            kept: Vec::new(),
            unsaved: None,
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
                if !self.order.contains(&t.path) {
                    self.order.push(t.path.clone());
                }
                let (base, block) = (p.range.base, t.block_size);
                let count = p.range.usable / block;
                let kept = self.kept.iter().position(|k| {
                    let b = &k.blocks;
                    k.path == t.path
                        && b.base == base
                        && b.block == block
                        && b.len() as u64 == count
                });
                match kept {
                    Some(i) if !p.created_verified => {
                        let kept = self.kept.swap_remove(i);
                        (kept.blocks, kept.created)
                    }
                    _ => {
                        // The target's old table no longer describes it.
                        self.kept.retain(|k| k.path != t.path);
                        (Blocks::new(base, block, count), p.created_verified)
                    }
                }
            })
            .unzip();
        Verifier::new(self.run_id, self.stop_at_first, blocks, created)
    }

    /// Saves the state while `verifier` (of `timespan`) runs; its writes go on, so the save is
    /// partial.
    pub fn save_running(&mut self, verifier: &Verifier, timespan: &TimeSpan) {
        let running: Vec<Saved<'_>> = timespan
            .targets
            .iter()
            .zip(&verifier.targets)
            .zip(&verifier.created)
            .map(|((t, blocks), &created)| Saved {
                path: &t.path,
                blocks,
                created,
            })
            .collect();
        save(
            &mut self.state,
            &mut self.unsaved,
            (self.run_id, &self.order, &self.kept),
            &running,
        );
    }

    /// Keeps the verifier's tables for the next timespan and saves the state of every target so
    /// far.
    pub fn keep(&mut self, verifier: Verifier, timespan: &TimeSpan) {
        let (tables, created) = verifier.into_tables();
        for ((t, blocks), created) in timespan.targets.iter().zip(tables).zip(created) {
            self.kept.retain(|k| k.path != t.path);
            self.kept.push(Kept {
                path: t.path.clone(),
                blocks,
                created,
            });
        }
        save(
            &mut self.state,
            &mut self.unsaved,
            (self.run_id, &self.order, &self.kept),
            &[],
        );
    }

    /// Whether the run saves a state file.
    pub fn saves(&self) -> bool {
        self.state.is_some()
    }

    /// The state file could not be written (the last time it was tried): why, and where what
    /// could be saved went.
    pub fn unsaved(&self) -> Option<&str> {
        self.unsaved.as_deref()
    }
}

/// Writes the state of the kept tables and the `running` ones (a partial state when there are
/// any) to the state file, atomically; when that fails, to a file of its own in the temporary
/// directory, and `unsaved` says so. A later save that succeeds clears it.
fn save(
    place: &mut Option<Place>,
    unsaved: &mut Option<String>,
    (run_id, order, kept): (u64, &[PathBuf], &[Kept]),
    running: &[Saved<'_>],
) {
    let Some(place) = place else { return };
    let mut targets: Vec<Saved<'_>> = kept
        .iter()
        .map(|k| Saved {
            path: &k.path,
            blocks: &k.blocks,
            created: k.created,
        })
        .chain(running.iter().copied())
        .collect();
    targets.sort_by_key(|s| order.iter().position(|p| p == s.path));
    let partial = !running.is_empty();
    let write = |file: &mut std::fs::File| {
        let mut out = BufWriter::with_capacity(1 << 16, file);
        state::write(&mut out, run_id, partial, &targets)?;
        out.flush()
    };
    let Err(error) = place.replace_by(write) else {
        *unsaved = None;
        return;
    };
    let aside = std::env::temp_dir().join(format!("iospd-verify-state-{run_id:x}.json"));
    let went = Place::locate(&aside)
        .map_err(std::io::Error::other)
        .and_then(|mut p| p.replace_by(write));
    *unsaved = Some(format!(
        "cannot write the --verify-state file '{}': {error}; {}",
        place.path().display(),
        match went {
            Ok(()) => format!(
                "the state was saved to '{}' instead (give that to iospd verify)",
                aside.display()
            ),
            Err(e) => format!(
                "nor to '{}' ({e}): the state is lost, and the file keeps the last state saved, if any",
                aside.display()
            ),
        }
    ));
}
