//! What the synchronous engines (psync, mapped) share: `push` stages an I/O, `submit` performs
//! the staged ones in order — after the worker's batch timestamp — and `reap` hands out their
//! completions. Each engine supplies only how one I/O is performed.

use std::io;

use super::{Completion, Engine, Io};
use crate::clock::Nanos;

/// How a synchronous engine performs one I/O.
pub trait Perform {
    /// Does `io` now; the bytes transferred, or a negative errno.
    fn perform(&mut self, io: &Io) -> i32;
}

/// A synchronous engine: I/O is done inside `submit`, one after the other.
pub struct Synchronous<P> {
    performer: P,
    staged: Vec<Io>,
    ready: Vec<Completion>,
}

impl<P: Perform> Synchronous<P> {
    /// An engine for up to `slots` I/Os in flight, each done by `performer`.
    pub fn new(performer: P, slots: u32) -> Self {
        Synchronous {
            performer,
            staged: Vec::with_capacity(slots as usize),
            ready: Vec::with_capacity(slots as usize),
        }
    }
}

impl<P: Perform> Engine for Synchronous<P> {
    fn push(&mut self, io: Io) -> io::Result<()> {
        self.staged.push(io);
        Ok(())
    }

    fn submit(&mut self, _wait_for: u32, _timeout: Option<Nanos>) -> io::Result<()> {
        for io in self.staged.drain(..) {
            let result = self.performer.perform(&io);
            self.ready.push(Completion {
                slot: io.slot,
                result,
            });
        }
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) {
        let n = self.ready.len().min(max);
        out.extend(self.ready.drain(..n));
    }
}
