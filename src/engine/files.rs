//! The file engines: each I/O is one call on its target as a file — `stat`, `lstat`, `statx`,
//! `unlink`, a create, `ftruncate` to the I/O's offset, or `fallocate` of its range — timed as the worker times any I/O.
//! No data moves: a call that succeeds completes as a transfer of the I/O's length would, so rates
//! count calls (fio's filestat, filedelete, filecreate, ftruncate and falloc engines). The calls that
//! name the file do so relative to its directory's descriptor, which the caller resolved and
//! checked before the run, so a path changed during the run cannot send an unlink elsewhere.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Arc;

use super::synchronous::{Perform, Synchronous};
use super::{EngineKind, Io, Op, Slots};

/// A file engine over the thread's targets.
pub type Files = Synchronous<FileCalls>;

/// A target of a file engine.
#[derive(Debug)]
pub struct FileTarget {
    /// Its directory (shared by the targets in it).
    pub dir: Arc<OwnedFd>,
    /// Its name there.
    pub name: CString,
    /// The descriptor the run opened it with (`ftruncate`).
    pub fd: RawFd,
}

/// The call each I/O makes.
pub struct FileCalls {
    kind: EngineKind,
    targets: Vec<FileTarget>,
}

impl Files {
    /// An engine making `kind`'s call on `targets`; `None` when `kind` is not a file engine.
    pub fn create(kind: EngineKind, targets: Vec<FileTarget>, slots: Slots) -> Option<Self> {
        kind.calls_files()
            .then(|| Synchronous::new(FileCalls { kind, targets }, slots))
    }
}

/// `open` flags of a create: a new file only, never through a symbolic link.
const CREATE_FLAGS: libc::c_int =
    libc::O_CREAT | libc::O_EXCL | libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC;

impl FileCalls {
    /// Makes the call for `io`; the syscall's return (negative on failure, errno set).
    fn call(&self, io: &Io) -> libc::c_long {
        let target = &self.targets[io.target as usize];
        let (dir, name) = (target.dir.as_raw_fd(), target.name.as_ptr());
        // SAFETY: valid descriptors, a NUL-terminated name, and stat buffers of the right type
        // that live through the call.
        unsafe {
            match self.kind {
                EngineKind::Stat | EngineKind::Lstat => {
                    let mut st: libc::stat = std::mem::zeroed();
                    let flags = match self.kind {
                        EngineKind::Lstat => libc::AT_SYMLINK_NOFOLLOW,
                        _ => 0,
                    };
                    libc::fstatat(dir, name, &mut st, flags).into()
                }
                EngineKind::Statx => {
                    let mut stx: libc::statx = std::mem::zeroed();
                    libc::statx(dir, name, 0, libc::STATX_ALL, &mut stx).into()
                }
                EngineKind::Unlink => libc::unlinkat(dir, name, 0).into(),
                EngineKind::Create => {
                    let fd = libc::openat(dir, name, CREATE_FLAGS, 0o600);
                    if fd >= 0 {
                        libc::close(fd);
                    }
                    fd.into()
                }
                EngineKind::Ftruncate if io.op == Op::Write => {
                    libc::ftruncate(target.fd, io.offset as libc::off_t).into()
                }
                EngineKind::Fallocate if io.op.has_range() => {
                    let mode = match io.op {
                        Op::Write => 0,
                        Op::Read => libc::FALLOC_FL_KEEP_SIZE,
                        _ => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    };
                    let (offset, len) = (io.offset as libc::off_t, libc::off_t::from(io.len));
                    libc::fallocate(target.fd, mode, offset, len).into()
                }
                _ => {
                    *libc::__errno_location() = libc::EINVAL;
                    -1
                }
            }
        }
    }
}

impl Perform for FileCalls {
    unsafe fn perform(&mut self, io: &Io, _buffer: *mut u8) -> i32 {
        loop {
            if self.call(io) >= 0 {
                return io.op.success(io.len);
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
