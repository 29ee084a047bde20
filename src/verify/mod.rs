//! `--verify`: every block written is self-describing ([`format`]), every read of a block this
//! run wrote is checked against the generation of the last write to it that completed
//! ([`table`]), and I/O to one block is kept apart so a check never races a write. The counts
//! and the first mismatches go to the report; [`state`] saves the tables for `iospd verify`.
//!
//! The worker calls a [`ThreadVerify`] at three points: [`ThreadVerify::take`] before staging an
//! I/O (false: the block is busy, try the slot again later), [`ThreadVerify::stamp`] to fill a
//! write's buffer, [`ThreadVerify::finish`] when the I/O completes.

pub mod format;
pub mod state;
pub mod table;

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::engine::Op;
use format::{Expect, Header, Kind, Mismatch, Pattern};
use table::Blocks;

/// The first mismatches a report keeps (the counts cover all).
pub const KEPT: usize = 16;

/// The verification state of one timespan, shared by its threads.
pub struct Verifier {
    /// This run's id, in every block it writes.
    pub run_id: u64,
    /// `--verify=stop`.
    pub stop_at_first: bool,
    /// The payload source.
    pub pattern: Pattern,
    /// Per target of the timespan, its blocks.
    pub targets: Vec<Blocks>,
    /// Per target: created by `-c --verify` in this run, so blocks not written since hold the
    /// creation's generation 0 and are checked too.
    pub created: Vec<bool>,
    gathered: Mutex<VerifyCounts>,
}

impl Verifier {
    /// The verifier of a timespan's targets.
    pub fn new(run_id: u64, stop_at_first: bool, targets: Vec<Blocks>, created: Vec<bool>) -> Self {
        let max_block = targets.iter().map(|b| b.block as usize).max().unwrap_or(0);
        Verifier {
            run_id,
            stop_at_first,
            pattern: Pattern::new(run_id, max_block),
            targets,
            created,
            gathered: Mutex::new(VerifyCounts::default()),
        }
    }

    /// Its tables, and per target whether `-c --verify` created it.
    pub fn into_tables(self) -> (Vec<Blocks>, Vec<bool>) {
        (self.targets, self.created)
    }

    /// A thread's view, for `slots` slots.
    pub fn thread(&self, thread: u32, slots: usize) -> ThreadVerify<'_> {
        ThreadVerify {
            verifier: self,
            thread,
            counts: VerifyCounts::default(),
            held: vec![Held::default(); slots],
            pending: vec![None; slots],
        }
    }

    /// Adds a finished thread's counts.
    pub fn gather(&self, counts: VerifyCounts) {
        let mut all = self.gathered.lock().unwrap_or_else(|p| p.into_inner());
        all.add(counts);
    }

    /// Every thread's counts together.
    pub fn counts(&self) -> VerifyCounts {
        let mut counts = self
            .gathered
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        counts.run_id = self.run_id;
        counts
    }

    /// What a read of a block of `target` whose last write was `generation` should find, or
    /// `None` when this run knows nothing of it (never written, not created with `--verify`).
    fn expected(&self, target: usize, generation: u32, offset: u64) -> Option<Expect> {
        (generation > 0 || self.created[target]).then_some(Expect {
            run_id: self.run_id,
            offset,
            generation: generation as u64,
        })
    }
}

/// Blocks checked, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyCounts {
    /// The run id every block written carries.
    pub run_id: u64,
    /// Blocks written (stamped).
    pub written: u64,
    /// Reads checked and found right.
    pub verified: u64,
    /// Reads of blocks this run knows nothing of (never written, not created with `--verify`).
    pub skipped: u64,
    /// Reads found wrong, by kind.
    pub failed: Failed,
    /// The first mismatches found, in the order found (at most [`KEPT`]).
    pub first: Vec<Found>,
}

/// Failed reads by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    /// No valid header.
    pub garbage: u64,
    /// Another offset's block.
    pub misdirected: u64,
    /// Sectors from different writes.
    pub torn: u64,
    /// An earlier run's block.
    pub stale: u64,
    /// An older generation: a lost write.
    pub lost: u64,
    /// A newer generation than any completed write.
    pub newer: u64,
    /// Right header, wrong payload.
    pub corrupt: u64,
}

impl Failed {
    /// The count of `kind`.
    pub fn of(&self, kind: Kind) -> u64 {
        match kind {
            Kind::Garbage => self.garbage,
            Kind::Misdirected => self.misdirected,
            Kind::Torn => self.torn,
            Kind::Stale => self.stale,
            Kind::Lost => self.lost,
            Kind::Newer => self.newer,
            Kind::Corrupt => self.corrupt,
        }
    }

    fn count(&mut self, kind: Kind, n: u64) {
        *match kind {
            Kind::Garbage => &mut self.garbage,
            Kind::Misdirected => &mut self.misdirected,
            Kind::Torn => &mut self.torn,
            Kind::Stale => &mut self.stale,
            Kind::Lost => &mut self.lost,
            Kind::Newer => &mut self.newer,
            Kind::Corrupt => &mut self.corrupt,
        } += n;
    }

    /// The kinds that occurred with their counts, for a line of text ("corrupt 1, torn 2").
    pub fn describe(&self) -> String {
        Kind::ALL
            .iter()
            .filter(|&&k| self.of(k) > 0)
            .map(|&k| format!("{} {}", k.name(), self.of(k)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every failed read.
    pub fn total(&self) -> u64 {
        Kind::ALL.iter().map(|&k| self.of(k)).sum()
    }
}

/// One bad block, located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The target's index in its timespan.
    pub target: usize,
    /// Where it was read.
    pub offset: u64,
    /// Bytes read.
    pub len: u32,
    /// The thread that read it (`None` for `iospd verify`).
    pub thread: Option<u32>,
    /// What was wrong.
    pub mismatch: Mismatch,
}

impl VerifyCounts {
    /// Adds `other`, keeping the first [`KEPT`] mismatches.
    pub fn add(&mut self, other: VerifyCounts) {
        self.written += other.written;
        self.verified += other.verified;
        self.skipped += other.skipped;
        for kind in Kind::ALL {
            self.failed.count(kind, other.failed.of(kind));
        }
        let room = KEPT.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
    }

    /// Counts one check of a read.
    pub fn record(&mut self, found: Result<(), Found>) {
        match found {
            Ok(()) => self.verified += 1,
            Err(found) => {
                self.failed.count(found.mismatch.kind, 1);
                if self.first.len() < KEPT {
                    self.first.push(found);
                }
            }
        }
    }
}

/// The block a slot holds while its I/O is in flight, and its generation when taken (it cannot
/// change while the slot holds it).
#[derive(Debug, Clone, Copy, Default)]
struct Held {
    target: u16,
    block: u32,
    generation: u32,
}

/// One worker thread's side of the verifier.
pub struct ThreadVerify<'a> {
    verifier: &'a Verifier,
    thread: u32,
    /// What this thread found.
    pub counts: VerifyCounts,
    held: Vec<Held>,
    /// Per slot: an I/O drawn whose block was busy (target, direction, offset), staged when the
    /// block frees.
    pub pending: Vec<Option<(u16, Op, u64)>>,
}

impl ThreadVerify<'_> {
    /// `--verify=stop`.
    pub fn stops_at_first(&self) -> bool {
        self.verifier.stop_at_first
    }

    /// Hands this thread's counts to the verifier.
    pub fn done(self) {
        self.verifier.gather(self.counts);
    }

    /// Takes the block at `offset` of `target` for `slot`'s next I/O; false while another I/O
    /// holds it.
    #[inline]
    pub fn take(&mut self, slot: u32, target: usize, offset: u64) -> bool {
        let blocks = &self.verifier.targets[target];
        let block = blocks.index(offset);
        if !blocks.try_lock(block) {
            return false;
        }
        self.held[slot as usize] = Held {
            target: target as u16,
            block: block as u32,
            generation: blocks.generation(block),
        };
        true
    }

    /// Fills `buf` with the next generation of the block `slot` holds, at `offset`.
    #[inline]
    pub fn stamp(&mut self, slot: u32, offset: u64, buf: &mut [u8]) {
        let held = self.held[slot as usize];
        let header = Header {
            len: buf.len() as u32,
            run_id: self.verifier.run_id,
            offset,
            generation: held.generation as u64 + 1,
            target: held.target as u32,
            thread: self.thread,
            flags: 0,
        };
        format::write(buf, &header, &self.verifier.pattern);
    }

    /// Ends `slot`'s I/O: a completed write becomes the block's generation; a completed read is
    /// checked (`data` is what it read). Releases the block. True when the read was wrong.
    #[inline]
    pub fn finish(&mut self, slot: u32, op: Op, offset: u64, completed: bool, data: &[u8]) -> bool {
        let held = self.held[slot as usize];
        let (target, block) = (held.target as usize, held.block as usize);
        let blocks = &self.verifier.targets[target];
        let mut bad = false;
        match (op, completed) {
            (Op::Write, true) => {
                self.counts.written += 1;
                blocks.unlock(block, held.generation + 1);
                return false;
            }
            (Op::Read, true) => match self.verifier.expected(target, held.generation, offset) {
                None => self.counts.skipped += 1,
                Some(expect) => {
                    let checked =
                        format::check(data, &expect, &self.verifier.pattern).map_err(|mismatch| {
                            Found {
                                target,
                                offset,
                                len: data.len() as u32,
                                thread: Some(self.thread),
                                mismatch,
                            }
                        });
                    bad = checked.is_err();
                    self.counts.record(checked);
                }
            },
            // A failed I/O stops the run; the block keeps its generation.
            _ => {}
        }
        blocks.unlock(block, held.generation);
        bad
    }
}
