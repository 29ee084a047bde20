//! The psync engine: pread/pwrite, one I/O at a time, performed in `submit` so the worker's batch
//! timestamp precedes the I/O. With `-o1` its latency is the syscall's; with more in flight the
//! I/Os of a batch run back to back. It is the fallback when io_uring is unavailable.

use std::io;
use std::os::fd::RawFd;

use super::{Completion, Engine, Io, Op, SlotMemory};
use crate::clock::Nanos;

/// Synchronous positional I/O.
pub struct Psync {
    fds: Vec<RawFd>,
    addrs: Vec<[usize; 2]>,
    staged: Vec<Io>,
    ready: Vec<Completion>,
}

impl Psync {
    /// An engine over the thread's target descriptors and slot buffers.
    pub fn new(fds: &[RawFd], memory: &impl SlotMemory) -> Self {
        let slots = memory.slots();
        Psync {
            fds: fds.to_vec(),
            addrs: (0..slots)
                .map(|s| {
                    [
                        memory.addr(s, Op::Read) as usize,
                        memory.addr(s, Op::Write) as usize,
                    ]
                })
                .collect(),
            staged: Vec::with_capacity(slots as usize),
            ready: Vec::with_capacity(slots as usize),
        }
    }

    fn perform(&self, io: &Io) -> i32 {
        let fd = self.fds[io.target as usize];
        let addr = self.addrs[io.slot as usize][io.op as usize];
        loop {
            // SAFETY: `addr` points into the slot's buffer of at least `len` bytes, owned by the
            // worker for as long as the engine exists; `fd` is open for the whole run.
            let n = unsafe {
                match io.op {
                    Op::Read => libc::pread(
                        fd,
                        addr as *mut libc::c_void,
                        io.len as usize,
                        io.offset as i64,
                    ),
                    Op::Write => libc::pwrite(
                        fd,
                        addr as *const libc::c_void,
                        io.len as usize,
                        io.offset as i64,
                    ),
                }
            };
            if n >= 0 {
                return n as i32;
            }
            let errno = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            if errno != libc::EINTR {
                return -errno;
            }
        }
    }
}

impl Engine for Psync {
    fn push(&mut self, io: Io) -> io::Result<()> {
        self.staged.push(io);
        Ok(())
    }

    fn submit(&mut self, _wait_for: u32, _timeout: Option<Nanos>) -> io::Result<()> {
        for i in 0..self.staged.len() {
            let io = self.staged[i];
            let result = self.perform(&io);
            self.ready.push(Completion {
                slot: io.slot,
                result,
            });
        }
        self.staged.clear();
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>) {
        out.append(&mut self.ready);
    }
}
