//! I/O engines: the thin layer between the worker loop and the kernel.
//!
//! Engines know file descriptors, buffers and the kernel; they know nothing of time, statistics or
//! the profile. The worker owns timestamps and accounting. The engine is chosen once per thread and
//! the worker loop is generic over it, so there is no dynamic dispatch per I/O.

mod files;
mod mapped;
mod null;
mod psync;
mod slots;
mod synchronous;
#[cfg(test)]
mod tests;
mod uring;

use std::fmt;
use std::io;

use crate::clock::Nanos;

pub use files::{FileTarget, Files};
pub use mapped::{MapSpec, Mapped};
pub use null::Null;
pub use psync::Psync;
pub use slots::{SlotMemory, Slots};
pub use uring::{MAX_REGISTERED_BUFFERS, Uring, probe as probe_io_uring};

/// What an I/O does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Read from the target into the slot's read buffer.
    Read = 0,
    /// Write the slot's write buffer to the target.
    Write = 1,
    /// Discard the range (`--trim`): a block device's discard, a file's punched hole. No buffer.
    Trim = 2,
    /// Make the target's written data and metadata durable (`--fsync`). No buffer, no range.
    Fsync = 3,
    /// Make the target's written data durable (`--fdatasync`). No buffer, no range.
    Fdatasync = 4,
}

impl Op {
    /// Moves data through the slot's buffer.
    #[inline]
    pub const fn moves_data(self) -> bool {
        matches!(self, Op::Read | Op::Write)
    }

    /// Has an offset and a length on the target.
    #[inline]
    pub const fn has_range(self) -> bool {
        matches!(self, Op::Read | Op::Write | Op::Trim)
    }

    /// The completion result of a successful I/O of `len` bytes: the bytes moved for reads and
    /// writes, 0 for a trim or a flush (as the kernel reports them).
    #[inline]
    pub const fn success(self, len: u32) -> i32 {
        if self.moves_data() { len as i32 } else { 0 }
    }

    /// Its name in reports and traces.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Fsync => "fsync",
            Op::Fdatasync => "fdatasync",
        }
    }
}

/// One I/O to stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// The request slot; its buffer is the slot's buffer, and it comes back in the completion.
    pub slot: u32,
    /// Index of the target in the thread's target list.
    pub target: u16,
    /// Direction.
    pub op: Op,
    /// Byte offset in the target.
    pub offset: u64,
    /// Bytes to transfer.
    pub len: u32,
    /// A priority of its own (`--ioprio-split`), for the engines that take one per I/O; 0: the
    /// target's ([`Issue::priority`]).
    pub priority: u16,
}

/// One finished I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The slot given to `push`.
    pub slot: u32,
    /// Bytes transferred, or a negative errno.
    pub result: i32,
}

/// The contract every engine keeps. An engine owns its [`Slots`]: every I/O it stages is checked
/// against its slot there, and memory the kernel may still write is never freed.
pub trait Engine {
    /// Stages one I/O (nothing reaches the device before `submit`). An I/O its slot cannot take
    /// (no such slot, in flight, longer than the slot's buffer that way) is refused.
    fn push(&mut self, io: Io) -> io::Result<()>;
    /// Hands staged I/O to the kernel, then blocks until `wait_for` completions are ready or
    /// `timeout` passes. Interruption by a signal is not an error.
    fn submit(&mut self, wait_for: u32, timeout: Option<Nanos>) -> io::Result<()>;
    /// Moves ready completions into `out`, at most `max` of them, freeing their slots; never
    /// blocks.
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize);
    /// The slots: their buffers while free, and how many are in flight.
    fn slots(&mut self) -> &mut Slots;
    /// Asks the kernel to cancel every I/O in flight; what it cancels completes through `reap`
    /// (with `-ECANCELED`). Engines that finish each I/O inside `submit` have nothing to cancel.
    fn cancel(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Cancels what is still in flight and waits up to `within` nanoseconds for it; the I/Os still in
/// flight after that (their slots' memory is then kept when the engine goes). The completions
/// reaped are dropped: the run is over.
pub fn settle<E: Engine>(engine: &mut E, within: Nanos) -> usize {
    const STEP: Nanos = 10_000_000;
    if engine.slots().in_flight() == 0 {
        return 0;
    }
    let mut done = Vec::with_capacity(engine.slots().len() as usize);
    let until = std::time::Instant::now() + std::time::Duration::from_nanos(within);
    if engine.cancel().is_ok() {
        while std::time::Instant::now() < until {
            if engine.submit(1, Some(STEP)).is_err() {
                break;
            }
            engine.reap(&mut done, usize::MAX);
            done.clear();
            if engine.slots().in_flight() == 0 {
                break;
            }
        }
    }
    engine.slots().in_flight()
}

/// Whether `fd` is a block device (its trims are discards, not punched holes).
pub fn is_block_device(fd: std::os::fd::RawFd) -> bool {
    // SAFETY: fstat writes one stat into the zeroed struct it is given.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::fstat(fd, &mut st) } == 0;
    ok && st.st_mode & libc::S_IFMT == libc::S_IFBLK
}

/// The engine to run with: io_uring when the kernel allows it, psync otherwise, with the one line
/// that says why io_uring was not used.
pub fn usable(requested: EngineKind) -> (EngineKind, Option<String>) {
    if requested != EngineKind::IoUring {
        return (requested, None);
    }
    match probe_io_uring() {
        Ok(()) => (EngineKind::IoUring, None),
        Err(error) => {
            let why = match error.raw_os_error() {
                Some(libc::ENOSYS) => "this kernel has no io_uring",
                Some(libc::EPERM) | Some(libc::EACCES) => {
                    "it is disabled (sysctl kernel.io_uring_disabled) or blocked by a seccomp filter"
                }
                _ => "it could not be set up",
            };
            (
                EngineKind::Psync,
                Some(format!(
                    "iospd: io_uring is unavailable ({why}: {error}); using the psync engine"
                )),
            )
        }
    }
}

/// `-N`: how memory-mapped writes are made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushMode {
    /// `-Nv`: msync(MS_SYNC) of the written range (FlushViewOfFile).
    ViewOfFile,
    /// `-Nn`: flush the written cache lines and fence (persistent-memory semantics).
    NonVolatileMemory,
    /// `-Ni`: flush the written cache lines without the final fence.
    NonVolatileMemoryNoDrain,
}

/// The engines a user can choose with `--engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// io_uring: one ring per thread, registered files and buffers, batched submit and reap.
    IoUring,
    /// pread/pwrite, one I/O at a time.
    Psync,
    /// No I/O: completes every request at once; measures the tool's own cost.
    Null,
    /// `-Sm`: memory-mapped targets, read and written with memcpy.
    Mapped,
    /// Each I/O is one `stat(2)` of its target; no data moves.
    Stat,
    /// Each I/O is one `lstat(2)` of its target.
    Lstat,
    /// Each I/O is one `statx(2)` of its target (every field).
    Statx,
    /// Each I/O removes its target (`unlink(2)`): one per target.
    Unlink,
    /// Each I/O creates its target, empty (`open(O_CREAT|O_EXCL)` and `close`): one per target;
    /// the file `-c` lays out is removed before the run.
    Create,
    /// Each write sets its target's length to the write's offset (`ftruncate(2)`); writes only.
    Ftruncate,
    /// Each I/O allocates or frees its range (`fallocate(2)`): a write allocates it (the file may
    /// grow), a read allocates it keeping the length, a trim punches it out.
    Fallocate,
}

impl EngineKind {
    /// Its I/Os move data between the target and the buffers (not null, not a file engine).
    pub const fn moves_data(self) -> bool {
        matches!(
            self,
            EngineKind::IoUring | EngineKind::Psync | EngineKind::Mapped
        )
    }

    /// Each I/O is a call on its target as a file, not a transfer.
    pub const fn calls_files(self) -> bool {
        matches!(
            self,
            EngineKind::Stat
                | EngineKind::Lstat
                | EngineKind::Statx
                | EngineKind::Unlink
                | EngineKind::Create
                | EngineKind::Ftruncate
                | EngineKind::Fallocate
        )
    }

    /// Its calls change the target whatever the I/O's direction (so the gate treats it as
    /// written).
    pub const fn changes_files(self) -> bool {
        matches!(
            self,
            EngineKind::Unlink | EngineKind::Create | EngineKind::Ftruncate | EngineKind::Fallocate
        )
    }

    /// A target takes one call: a second would fail (it is gone, or already there).
    pub const fn once_per_target(self) -> bool {
        matches!(self, EngineKind::Unlink | EngineKind::Create)
    }

    /// What each I/O is, for the report.
    pub const fn describe(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "synchronous I/O (pread/pwrite)",
            EngineKind::Null => "null (no I/O is performed)",
            EngineKind::Mapped => "memory-mapped I/O (mmap and memcpy)",
            EngineKind::Stat => "stat (each I/O is one stat() of its target; no data moves)",
            EngineKind::Lstat => "lstat (each I/O is one lstat() of its target; no data moves)",
            EngineKind::Statx => "statx (each I/O is one statx() of its target; no data moves)",
            EngineKind::Unlink => "unlink (each I/O removes its target; no data moves)",
            EngineKind::Create => {
                "create (each I/O creates its target, empty, and closes it; no data moves)"
            }
            EngineKind::Ftruncate => {
                "ftruncate (each write sets its target's length to its offset; no data moves)"
            }
            EngineKind::Fallocate => {
                "fallocate (each write allocates its range, each read allocates it keeping the length, each trim punches it out; no data moves)"
            }
        }
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "psync",
            EngineKind::Null => "null",
            EngineKind::Mapped => "mmap",
            EngineKind::Stat => "stat",
            EngineKind::Lstat => "lstat",
            EngineKind::Statx => "statx",
            EngineKind::Unlink => "unlink",
            EngineKind::Create => "create",
            EngineKind::Ftruncate => "ftruncate",
            EngineKind::Fallocate => "fallocate",
        })
    }
}

/// What an engine could set up on this kernel, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EngineSetup {
    /// The engine that ran.
    pub kind: EngineKind,
    /// Buffers registered with the kernel (io_uring fixed buffers).
    pub registered_buffers: bool,
    /// Files registered with the kernel (io_uring fixed files).
    pub registered_files: bool,
    /// The ring defers completion work to the submitting thread (SINGLE_ISSUER + DEFER_TASKRUN).
    pub defer_taskrun: bool,
    /// `--sqpoll`: a kernel thread polls the submission queue.
    #[serde(default)]
    pub sqpoll: bool,
    /// `--iopoll`: completions are polled from the device instead of interrupts.
    #[serde(default)]
    pub iopoll: bool,
}

/// How a target's reads and writes are issued: at an I/O priority (`-I`, `--ioprio`; 0 inherits
/// the thread's) and whether they may not wait (`--nowait`: RWF_NOWAIT, a read or write that would
/// block fails with EAGAIN instead).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Issue {
    /// The value for `ioprio_set` and io_uring's per-I/O priority.
    pub priority: u16,
    /// RWF_NOWAIT.
    pub nowait: bool,
}

impl Issue {
    /// The per-I/O flags of a read or write (`RWF_*`).
    pub fn rw_flags(self) -> i32 {
        if self.nowait { libc::RWF_NOWAIT } else { 0 }
    }
}

/// Optional io_uring fast paths (`--sqpoll`, `--iopoll`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FastPaths {
    /// `--sqpoll[=ms]`: a kernel thread polls the submission queue, sleeping after this many ms
    /// idle.
    pub sqpoll_idle_ms: Option<u32>,
    /// `--sqpoll-cpu`: the CPU each ring's polling kernel thread is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqpoll_cpu: Option<u32>,
    /// `--iopoll`: poll the device for completions (O_DIRECT on devices with poll queues).
    pub iopoll: bool,
}

impl EngineSetup {
    /// A setup with no kernel registrations (psync, null).
    pub fn plain(kind: EngineKind) -> Self {
        EngineSetup {
            kind,
            registered_buffers: false,
            registered_files: false,
            defer_taskrun: false,
            sqpoll: false,
            iopoll: false,
        }
    }
}
