//! The null engine: every staged I/O completes at once with its full length and touches nothing.
//! It runs the whole worker loop, so it measures the tool's own cost per I/O.

use std::io;

use super::{Completion, Engine, Io};
use crate::clock::Nanos;

/// Completes everything immediately.
#[derive(Debug, Default)]
pub struct Null {
    ready: Vec<Completion>,
}

impl Null {
    /// An engine for up to `slots` I/Os in flight.
    pub fn new(slots: u32) -> Self {
        Null {
            ready: Vec::with_capacity(slots as usize),
        }
    }
}

impl Engine for Null {
    #[inline]
    fn push(&mut self, io: Io) -> io::Result<()> {
        self.ready.push(Completion {
            slot: io.slot,
            result: io.len as i32,
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
        out.extend(self.ready.drain(..n));
    }
}
