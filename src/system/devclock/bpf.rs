//! The few `bpf(2)` commands the device clock uses: make a map, load a program (with the
//! verifier's log when it refuses), attach it to a raw tracepoint, and map an array's values into
//! this process's memory. Every object is a file descriptor: closing it (or the process ending,
//! however it ends) detaches and frees it, so nothing stays loaded after a run.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `bpf(2)` commands.
const MAP_CREATE: u32 = 0;
const MAP_UPDATE_ELEM: u32 = 2;
const PROG_LOAD: u32 = 5;
const RAW_TRACEPOINT_OPEN: u32 = 17;

/// Map type.
pub const ARRAY: u32 = 2;
/// An array whose values this process can map.
pub const MMAPABLE: u32 = 1 << 10;

/// `BPF_PROG_TYPE_TRACING` attached as `BPF_TRACE_RAW_TP`: its context is the tracepoint's
/// arguments, typed by the kernel's BTF, so the program reads kernel structures directly.
const TRACING: u32 = 26;
const TRACE_RAW_TP: u32 = 23;

/// The attribute union's size this code fills; the kernel takes any size whose tail is zero.
const ATTR: usize = 128;

/// One instruction, as the kernel reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub code: u8,
    /// Destination register in the low nibble, source in the high one.
    pub regs: u8,
    pub off: i16,
    pub imm: i32,
}

/// The attribute union, as bytes the commands fill at their offsets.
struct Attr([u8; ATTR]);

impl Attr {
    fn new() -> Attr {
        Attr([0; ATTR])
    }

    fn u32(mut self, at: usize, v: u32) -> Attr {
        self.0[at..at + 4].copy_from_slice(&v.to_ne_bytes());
        self
    }

    fn u64(mut self, at: usize, v: u64) -> Attr {
        self.0[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        self
    }

    fn name(mut self, at: usize, name: &str) -> Attr {
        let n = name.len().min(15);
        self.0[at..at + n].copy_from_slice(&name.as_bytes()[..n]);
        self
    }

    fn call(&self, cmd: u32) -> io::Result<i64> {
        // SAFETY: the attribute is a zeroed buffer of ATTR bytes whose pointers (set by the
        // callers) point at memory that outlives the call.
        let r = unsafe { libc::syscall(libc::SYS_bpf, cmd, self.0.as_ptr(), ATTR as u32) };
        match r < 0 {
            true => Err(io::Error::last_os_error()),
            false => Ok(r),
        }
    }

    fn fd(&self, cmd: u32) -> io::Result<OwnedFd> {
        let fd = self.call(cmd)?;
        // SAFETY: the kernel returned a new descriptor this process owns.
        Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
    }
}

/// A new map.
pub fn map(
    kind: u32,
    key: u32,
    value: u32,
    entries: u32,
    flags: u32,
    name: &str,
) -> io::Result<OwnedFd> {
    Attr::new()
        .u32(0, kind)
        .u32(4, key)
        .u32(8, value)
        .u32(12, entries)
        .u32(16, flags)
        .name(28, name)
        .fd(MAP_CREATE)
}

/// Sets value `key` of the array `map` (of u64 values) to `value`.
pub fn set(map: &OwnedFd, key: u32, value: u64) -> io::Result<()> {
    Attr::new()
        .u32(0, map.as_raw_fd() as u32)
        .u64(8, &key as *const u32 as u64)
        .u64(16, &value as *const u64 as u64)
        .call(MAP_UPDATE_ELEM)
        .map(|_| ())
}

/// Loads a program for the tracepoint whose `btf_trace_<event>` typedef is `attach` in the
/// kernel's BTF; when the verifier refuses it, the error carries the last lines of its log.
pub fn load(insns: &[Insn], name: &str, attach: u32) -> Result<OwnedFd, (io::Error, String)> {
    // The tracing helpers are offered to GPL-compatible programs only.
    let license = c"Dual MIT/GPL";
    let attempt = |log: &mut [u8], level: u32| {
        Attr::new()
            .u32(0, TRACING)
            .u32(4, insns.len() as u32)
            .u64(8, insns.as_ptr() as u64)
            .u64(16, license.as_ptr() as u64)
            .u32(24, level)
            .u32(28, log.len() as u32)
            // No buffer is a null pointer: the kernel refuses a pointer without a size.
            .u64(
                32,
                if log.is_empty() {
                    0
                } else {
                    log.as_mut_ptr() as u64
                },
            )
            .name(48, name)
            .u32(68, TRACE_RAW_TP)
            .u32(108, attach)
            .fd(PROG_LOAD)
    };
    attempt(&mut [], 0).or_else(|first| {
        let mut log = vec![0u8; 1 << 20];
        attempt(&mut log, 1).map_err(|second| {
            let end = log.iter().position(|&c| c == 0).unwrap_or(log.len());
            let text = String::from_utf8_lossy(&log[..end]);
            let tail: Vec<&str> = text.lines().rev().take(12).collect();
            let error = match second.raw_os_error() {
                Some(libc::ENOSPC) => first,
                _ => second,
            };
            (error, tail.into_iter().rev().collect::<Vec<_>>().join("\n"))
        })
    })
}

/// Attaches `prog` to the tracepoint it was loaded for; detached when the returned descriptor
/// closes.
pub fn attach(prog: &OwnedFd) -> io::Result<OwnedFd> {
    Attr::new()
        .u32(8, prog.as_raw_fd() as u32)
        .fd(RAW_TRACEPOINT_OPEN)
}

/// An array map's u64 values, mapped read-only into this process.
pub struct Mapped {
    ptr: *const u64,
    len: usize,
}

// SAFETY: the mapping is read-only here and lives until drop; reads are atomic loads.
unsafe impl Send for Mapped {}
// SAFETY: as above.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Maps the `entries` u64 values of the array `map` (made with [`MMAPABLE`]).
    pub fn new(map: &OwnedFd, entries: usize) -> io::Result<Mapped> {
        let bytes = entries * 8;
        // SAFETY: a fresh shared read-only mapping of the map's own pages; checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ,
                libc::MAP_SHARED,
                map.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapped {
            ptr: ptr as *const u64,
            len: entries,
        })
    }

    /// The value at `i` now (the kernel adds to it atomically).
    pub fn get(&self, i: usize) -> u64 {
        assert!(i < self.len);
        // SAFETY: in bounds of the mapping, 8-byte aligned (page-aligned base); the kernel
        // writes these words atomically, so an atomic load reads a whole value.
        unsafe {
            (*(self.ptr.add(i) as *const std::sync::atomic::AtomicU64))
                .load(std::sync::atomic::Ordering::Relaxed)
        }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len * 8) };
    }
}
