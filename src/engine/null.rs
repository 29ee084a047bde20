//! The null engine: every staged I/O completes at once with success and touches nothing.
//! It runs the whole worker loop, so it measures the tool's own cost per I/O.

use std::io;

use super::{Completion, Engine, Io, Slots};
use crate::clock::Nanos;

/// Completes everything immediately.
pub struct Null {
    slots: Slots,
    ready: Vec<Completion>,
}

impl Null {
    /// An engine over `slots`.
    pub fn new(slots: Slots) -> Self {
        Null {
            ready: Vec::with_capacity(slots.len() as usize),
            slots,
        }
    }
}

impl Engine for Null {
    #[inline]
    fn push(&mut self, io: Io) -> io::Result<()> {
        self.slots.claim(&io)?;
        self.ready.push(Completion {
            slot: io.slot,
            result: io.op.success(io.len),
        });
        Ok(())
    }

    #[inline]
    fn submit(&mut self, _wait_for: u32, _timeout: Option<Nanos>) -> io::Result<()> {
        Ok(())
    }

    #[inline]
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
