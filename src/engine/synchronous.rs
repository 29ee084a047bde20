//! What the synchronous engines (psync, mapped) share: `push` stages an I/O, `submit` performs
//! the staged ones in order — after the worker's batch timestamp — and `reap` hands out their
//! completions. Each engine supplies only how one I/O is performed.

use std::io;

use super::{Completion, Engine, Io, Slots};
use crate::clock::Nanos;

/// How a synchronous engine performs one I/O.
pub trait Perform {
    /// Does `io` now with the slot's buffer at `buffer`; the bytes transferred, or a negative
    /// errno.
    ///
    /// # Safety
    ///
    /// `buffer` points to at least `io.len` bytes, valid for reads and writes, that nothing else
    /// uses during the call.
    unsafe fn perform(&mut self, io: &Io, buffer: *mut u8) -> i32;
}

/// A synchronous engine: I/O is done inside `submit`, one after the other.
pub struct Synchronous<P> {
    performer: P,
    slots: Slots,
    /// Staged I/O with the address of its buffer.
    staged: Vec<(Io, usize)>,
    ready: Vec<Completion>,
}

impl<P: Perform> Synchronous<P> {
    /// An engine over `slots`, each I/O done by `performer`.
    pub fn new(performer: P, slots: Slots) -> Self {
        let count = slots.len() as usize;
        Synchronous {
            performer,
            slots,
            staged: Vec::with_capacity(count),
            ready: Vec::with_capacity(count),
        }
    }
}

impl<P: Perform> Engine for Synchronous<P> {
    fn push(&mut self, io: Io) -> io::Result<()> {
        let buffer = self.slots.claim(&io)?;
        self.staged.push((io, buffer as usize));
        Ok(())
    }

    fn submit(&mut self, _wait_for: u32, _timeout: Option<Nanos>) -> io::Result<()> {
        for (io, buffer) in self.staged.drain(..) {
            // SAFETY: the slot table handed out these `io.len` bytes for this I/O's slot, and
            // keeps them for it alone until its completion is reaped.
            let result = unsafe { self.performer.perform(&io, buffer as *mut u8) };
            self.ready.push(Completion {
                slot: io.slot,
                result,
            });
        }
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) {
        let n = self.ready.len().min(max);
        for completion in self.ready.drain(..n) {
            self.slots.release(completion.slot);
            out.push(completion);
        }
    }

    fn slots(&mut self) -> &mut Slots {
        &mut self.slots
    }
}
