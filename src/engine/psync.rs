//! The psync engine: pread/pwrite, one I/O at a time, performed in `submit` so the worker's batch
//! timestamp precedes the I/O. With `-o1` its latency is the syscall's; with more in flight the
//! I/Os of a batch run back to back. It is the fallback when io_uring is unavailable.

use std::io;
use std::os::fd::RawFd;

use super::synchronous::{Perform, Synchronous};
use super::{Io, Op, Slots};

/// `BLKDISCARD` (`_IO(0x12, 119)`, linux/fs.h): discard a byte range of a block device.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// Synchronous positional I/O.
pub type Psync = Synchronous<Positional>;

/// pread and pwrite on the thread's targets.
pub struct Positional {
    fds: Vec<RawFd>,
    /// Per target: the read and write flags (`RWF_NOWAIT`), which take preadv2/pwritev2.
    flags: Vec<i32>,
    /// Per target: a block device (a trim is `BLKDISCARD`), not a file (a punched hole).
    devices: Vec<bool>,
}

impl Psync {
    /// An engine over the thread's target descriptors and slots. Synchronous I/O takes the
    /// thread's I/O priority, so the lowest priority among the targets' is set for the thread.
    pub fn create(fds: &[RawFd], slots: Slots, issue: &[super::Issue]) -> io::Result<Self> {
        let priorities: Vec<u16> = issue.iter().map(|i| i.priority).collect();
        set_thread_priority(&priorities)?;
        let positional = Positional {
            fds: fds.to_vec(),
            flags: issue.iter().map(|i| i.rw_flags()).collect(),
            devices: fds.iter().map(|&fd| super::is_block_device(fd)).collect(),
        };
        Ok(Synchronous::new(positional, slots))
    }
}

impl Perform for Positional {
    unsafe fn perform(&mut self, io: &Io, buffer: *mut u8) -> i32 {
        let fd = self.fds[io.target as usize];
        let flags = self.flags[io.target as usize];
        let addr = buffer as usize;
        let vector = libc::iovec {
            iov_base: buffer.cast(),
            iov_len: io.len as usize,
        };
        loop {
            // SAFETY: `addr` points to at least `len` bytes that this call alone uses (the
            // caller's contract); a bad `fd` fails with EBADF and writes nothing.
            let n = unsafe {
                match io.op {
                    Op::Read if flags != 0 => {
                        libc::preadv2(fd, &vector, 1, io.offset as i64, flags)
                    }
                    Op::Read => libc::pread(
                        fd,
                        addr as *mut libc::c_void,
                        io.len as usize,
                        io.offset as i64,
                    ),
                    Op::Write if flags != 0 => {
                        libc::pwritev2(fd, &vector, 1, io.offset as i64, flags)
                    }
                    Op::Write => libc::pwrite(
                        fd,
                        addr as *const libc::c_void,
                        io.len as usize,
                        io.offset as i64,
                    ),
                    Op::Trim if self.devices[io.target as usize] => {
                        let range = [io.offset, u64::from(io.len)];
                        libc::ioctl(fd, BLKDISCARD, range.as_ptr()) as isize
                    }
                    Op::Trim => libc::fallocate(
                        fd,
                        libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                        io.offset as i64,
                        i64::from(io.len),
                    ) as isize,
                    Op::Fsync => libc::fsync(fd) as isize,
                    Op::Fdatasync => libc::fdatasync(fd) as isize,
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

/// Sets the calling thread's I/O priority to the lowest of `priorities` (0 means the default).
pub fn set_thread_priority(priorities: &[u16]) -> io::Result<()> {
    // Higher classes (idle = 3) and higher levels mean lower priority.
    let Some(&lowest) = priorities.iter().filter(|&&p| p != 0).max() else {
        return Ok(());
    };
    const IOPRIO_WHO_PROCESS: libc::c_int = 1;
    // SAFETY: ioprio_set takes plain integers; pid 0 is the calling thread.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0,
            lowest as libc::c_int,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
