//! The io_uring engine: one ring per thread, created by that thread.
//!
//! It asks for SINGLE_ISSUER + DEFER_TASKRUN (completion work runs only when this thread enters the
//! kernel, so it never interrupts submission), registers the thread's files and slot buffers, and
//! reads completions straight from the shared completion ring. Every `io_uring_enter` carries
//! GETEVENTS, so each submit also flushes finished work into the ring: the look-aside that follows
//! costs no extra syscall.

use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::RawFd;
use std::time::Duration;

use io_uring::types::{self, SubmitArgs, Timespec};
use io_uring::{IoUring, opcode, squeue};

use super::{Completion, Engine, EngineKind, EngineSetup, FastPaths, Io, Op, Slots};
use crate::clock::Nanos;

/// `IORING_ENTER_GETEVENTS` from the kernel ABI.
const ENTER_GETEVENTS: u32 = 1;
/// The kernel's limit on registered buffers (`IORING_MAX_REG_BUFFERS`).
pub const MAX_REGISTERED_BUFFERS: u32 = 1 << 14;
/// The kernel's limit on submission queue entries.
const MAX_SQ_ENTRIES: u32 = 32768;
/// `BLOCK_URING_CMD_DISCARD` (`_IO(0x12, 0)`, linux/fs.h): a block device's async discard.
const BLOCK_URING_CMD_DISCARD: u32 = 0x12 << 8;
/// The user data of cancel requests, which are no slot's.
const CANCEL: u64 = u64::MAX;

/// A per-thread ring. It is closed when it goes only if no I/O is in flight; otherwise it stays
/// open, with its registrations, for the rest of the process, as the slots' memory does.
pub struct Uring {
    ring: ManuallyDrop<IoUring>,
    slots: Slots,
    fds: Vec<RawFd>,
    /// Per target: a block device (a trim is a discard command), not a file (a punched hole).
    devices: Vec<bool>,
    issue: Vec<super::Issue>,
    fixed_files: bool,
    fixed_buffers: bool,
    sqpoll: bool,
}

/// Checks that this kernel and process may use io_uring at all.
pub fn probe() -> io::Result<()> {
    IoUring::new(2).map(drop)
}

impl Uring {
    /// Sets up a ring for the calling thread over its targets (with how each is issued to) and
    /// slots, registering the slots' buffers when `register_buffers` and the kernel allow it.
    pub fn new(
        fds: &[RawFd],
        issue: &[super::Issue],
        slots: Slots,
        register_buffers: bool,
        fast: FastPaths,
    ) -> io::Result<(Uring, EngineSetup)> {
        let count = slots.len().max(1);
        let entries = count.next_power_of_two().min(MAX_SQ_ENTRIES);
        let cq_entries = (count.next_power_of_two() * 2).max(entries * 2);
        let (ring, defer_taskrun) = build_ring(entries, cq_entries, fast)?;
        let fixed_files = ring.submitter().register_files(fds).is_ok();
        let regions = slots.regions();
        let fixed_buffers = register_buffers
            && count <= MAX_REGISTERED_BUFFERS
            // SAFETY: the regions are the slots' memory, which this engine owns: it is freed only
            // after the ring has unregistered it and closed, or never (I/O still in flight).
            && unsafe { ring.submitter().register_buffers(&regions) }.is_ok();
        let setup = EngineSetup {
            kind: EngineKind::IoUring,
            registered_buffers: fixed_buffers,
            registered_files: fixed_files,
            defer_taskrun,
            sqpoll: fast.sqpoll_idle_ms.is_some(),
            iopoll: fast.iopoll,
        };
        Ok((
            Uring {
                ring: ManuallyDrop::new(ring),
                slots,
                fds: fds.to_vec(),
                devices: fds.iter().map(|&fd| super::is_block_device(fd)).collect(),
                issue: issue.to_vec(),
                fixed_files,
                fixed_buffers,
                sqpoll: fast.sqpoll_idle_ms.is_some(),
            },
            setup,
        ))
    }

    /// Starts the kernel's worker thread for this ring's thread (io-wq) now, by passing it a no-op
    /// and waiting for it. A worker copies the CPU mask of the thread that starts it, and the
    /// kernel keeps a mask the thread asked for on every worker it starts later (even one given
    /// with `IORING_REGISTER_IOWQ_AFF`): a thread pinned to one CPU (DiskSpd's default) would
    /// share that CPU with every worker the kernel hands its I/O to (zram, buffered reads that miss
    /// the page cache). Started while the thread may still run anywhere, the worker keeps that mask
    /// after the thread is pinned, and one worker serves the I/O that does not block.
    pub fn start_worker(&mut self) -> io::Result<()> {
        let nop = opcode::Nop::new()
            .build()
            .flags(squeue::Flags::ASYNC)
            .user_data(u64::MAX);
        // SAFETY: a no-op refers to no memory.
        unsafe { self.ring.submission().push(&nop) }.map_err(|_| io::Error::other("ring full"))?;
        self.ring.submitter().submit_and_wait(1)?;
        let mut seen = false;
        for cqe in self.ring.completion() {
            seen |= cqe.user_data() == u64::MAX;
        }
        if seen {
            Ok(())
        } else {
            Err(io::Error::other("the no-op did not complete"))
        }
    }

    #[inline]
    fn entry(&self, io: &Io, addr: *mut u8) -> squeue::Entry {
        let issue = self.issue[io.target as usize];
        let priority = match io.priority {
            0 => issue.priority,
            own => own,
        };
        let flags = issue.rw_flags();
        macro_rules! rw {
            ($fd:expr) => {
                match (io.op, self.fixed_buffers) {
                    (Op::Read, true) => opcode::ReadFixed::new($fd, addr, io.len, io.slot as u16)
                        .offset(io.offset)
                        .ioprio(priority)
                        .rw_flags(flags)
                        .build(),
                    (Op::Read, false) => opcode::Read::new($fd, addr, io.len)
                        .offset(io.offset)
                        .ioprio(priority)
                        .rw_flags(flags)
                        .build(),
                    (Op::Write, true) => opcode::WriteFixed::new($fd, addr, io.len, io.slot as u16)
                        .offset(io.offset)
                        .ioprio(priority)
                        .rw_flags(flags)
                        .build(),
                    (Op::Write, false) => opcode::Write::new($fd, addr, io.len)
                        .offset(io.offset)
                        .ioprio(priority)
                        .rw_flags(flags)
                        .build(),
                    // The block layer's discard command takes the range in `addr` and `addr3`
                    // (the first word of the command area) and refuses an I/O priority.
                    (Op::Trim, _) if self.devices[io.target as usize] => {
                        let mut length = [0u8; 16];
                        length[..8].copy_from_slice(&u64::from(io.len).to_le_bytes());
                        opcode::UringCmd16::new($fd, BLOCK_URING_CMD_DISCARD)
                            .addr(Some(io.offset))
                            .cmd(length)
                            .build()
                    }
                    (Op::Trim, _) => opcode::Fallocate::new($fd, u64::from(io.len))
                        .offset(io.offset)
                        .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                        .build(),
                    (Op::Fsync, _) => opcode::Fsync::new($fd).build(),
                    (Op::Fdatasync, _) => opcode::Fsync::new($fd)
                        .flags(types::FsyncFlags::DATASYNC)
                        .build(),
                }
            };
        }
        let entry = if self.fixed_files {
            rw!(types::Fixed(io.target as u32))
        } else {
            rw!(types::Fd(self.fds[io.target as usize]))
        };
        entry.user_data(io.slot as u64)
    }

    fn enter(&mut self, wait_for: u32, timeout: Option<Nanos>) -> io::Result<()> {
        let result = match timeout {
            // The kernel thread submits; enter only to wake it and to wait.
            None if self.sqpoll => self.ring.submitter().submit_and_wait(wait_for as usize),
            None => {
                let to_submit = self.ring.submission().len() as u32;
                // SAFETY: no extended argument is passed; the flags are a valid kernel ABI value.
                unsafe {
                    self.ring.submitter().enter::<libc::sigset_t>(
                        to_submit,
                        wait_for,
                        ENTER_GETEVENTS,
                        None,
                    )
                }
            }
            Some(ns) => {
                let ts = Timespec::from(Duration::from_nanos(ns));
                let args = SubmitArgs::new().timespec(&ts);
                self.ring
                    .submitter()
                    .submit_with_args(wait_for.max(1) as usize, &args)
            }
        };
        match result {
            Ok(_) => Ok(()),
            Err(e) => match e.raw_os_error() {
                // Interrupted, timed out, or the completion ring is full: the caller reaps and
                // comes back; nothing staged is lost.
                Some(libc::EINTR | libc::ETIME | libc::EBUSY | libc::EAGAIN) => Ok(()),
                _ => Err(e),
            },
        }
    }
}

fn build_ring(entries: u32, cq_entries: u32, fast: FastPaths) -> io::Result<(IoUring, bool)> {
    let base = || {
        let mut builder = IoUring::builder();
        builder.setup_cqsize(cq_entries);
        if let Some(idle) = fast.sqpoll_idle_ms {
            builder.setup_sqpoll(idle);
            if let Some(cpu) = fast.sqpoll_cpu {
                builder.setup_sqpoll_cpu(cpu);
            }
        }
        if fast.iopoll {
            builder.setup_iopoll();
        }
        builder
    };
    if fast.sqpoll_idle_ms.is_some() {
        // DEFER_TASKRUN needs the submitting thread to run completion work, which SQPOLL's
        // kernel thread does instead.
        let ring = base()
            .setup_single_issuer()
            .build(entries)
            .or_else(|_| base().build(entries));
        return ring
            .map(|r| (r, false))
            .map_err(|e| fast_path_error(e, "--sqpoll"));
    }
    if let Ok(ring) = base()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
    {
        return Ok((ring, true));
    }
    if let Ok(ring) = base().setup_coop_taskrun().build(entries) {
        return Ok((ring, false));
    }
    let ring = base().build(entries).map_err(|e| {
        if fast.iopoll {
            fast_path_error(e, "--iopoll")
        } else {
            e
        }
    })?;
    Ok((ring, false))
}

/// Why the kernel refused a fast path, in words.
fn fast_path_error(e: io::Error, option: &str) -> io::Error {
    let why = match e.raw_os_error() {
        Some(libc::EPERM) => "the kernel requires privileges for it (CAP_SYS_NICE or root)",
        Some(libc::EINVAL) => "this kernel does not support it with the other ring settings",
        _ => "the kernel refused it",
    };
    io::Error::new(
        e.kind(),
        format!("{option}: {why} ({e}); run without {option}"),
    )
}

impl Drop for Uring {
    /// Gives the registered files and buffers back before the ring goes: unregistering drops the
    /// file references on this thread, at once, whereas a closing ring hands them to a kernel
    /// worker that releases them tens of milliseconds after the process has exited (a device
    /// would still look busy to the next run). With I/O still in flight the ring is left open
    /// and registered (unregistering would wait for that I/O on some kernels), and the slots
    /// keep their memory.
    fn drop(&mut self) {
        if self.slots.in_flight() > 0 {
            return;
        }
        let submitter = self.ring.submitter();
        if self.fixed_files {
            let _ = submitter.unregister_files();
        }
        if self.fixed_buffers {
            let _ = submitter.unregister_buffers();
        }
        // SAFETY: dropped once, here; nothing is in flight.
        unsafe { ManuallyDrop::drop(&mut self.ring) };
    }
}

impl Engine for Uring {
    #[inline]
    fn push(&mut self, io: Io) -> io::Result<()> {
        let addr = self.slots.claim(&io)?;
        let entry = self.entry(&io, addr);
        loop {
            // SAFETY: the entry's buffer is the `io.len` bytes the slot table handed out for this
            // slot; the table keeps them for the kernel alone until the slot's completion is
            // reaped, and keeps them allocated for good if it never is.
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                return Ok(());
            }
            if let Err(e) = self.enter(0, None) {
                self.slots.release(io.slot);
                return Err(e);
            }
        }
    }

    #[inline]
    fn submit(&mut self, wait_for: u32, timeout: Option<Nanos>) -> io::Result<()> {
        self.enter(wait_for, timeout)
    }

    #[inline]
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) {
        for cqe in self.ring.completion().take(max) {
            let slot = cqe.user_data();
            if slot != CANCEL && self.slots.release(slot as u32) {
                out.push(Completion {
                    slot: slot as u32,
                    result: cqe.result(),
                });
            }
        }
    }

    fn slots(&mut self) -> &mut Slots {
        &mut self.slots
    }

    fn cancel(&mut self) -> io::Result<()> {
        let busy: Vec<u32> = self.slots.in_flight_slots().collect();
        for slot in busy {
            let entry = opcode::AsyncCancel::new(slot as u64)
                .build()
                .user_data(CANCEL);
            // SAFETY: a cancel request carries no buffer.
            while unsafe { self.ring.submission().push(&entry) }.is_err() {
                self.enter(0, None)?;
            }
        }
        self.enter(0, None)
    }
}
