//! The memory-mapped engine (`-Sm`): every target is mapped shared, reads copy from the mapping
//! into the slot buffer and writes copy the other way, inside `submit` so that the batch stamp
//! precedes them. `-N` makes writes durable: `v` with msync of the written pages, `n` by flushing
//! the written cache lines and fencing (persistent-memory semantics), `i` without the fence.
//! `-Sw` with `-Sm` also msyncs every write.
//!
//! A mapped file that someone truncates under the run makes the next copy touch a page past its
//! end, and the kernel raises SIGBUS. The handler here puts a blank page at that address (so the
//! copy can finish) and notes the fault; the copy then completes as a failed I/O (`EFAULT`), which
//! stops the run with its results, as any failed I/O does. A SIGBUS anywhere else keeps its default
//! action.

use std::io;
use std::os::fd::RawFd;

use std::cell::Cell;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::FlushMode;
use super::synchronous::{Perform, Synchronous};
use super::{Io, Op, Slots};

/// One mapped target.
struct Mapping {
    base: *mut u8,
    len: usize,
    flush: Option<FlushMode>,
    sync_writes: bool,
    /// Its entry in [`REGIONS`].
    region: Option<usize>,
}

/// Mapped ranges (start, end) the SIGBUS handler may repair; (0, 0) is a free entry.
static REGIONS: [(AtomicUsize, AtomicUsize); 256] =
    [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; 256];
thread_local! {
    /// The address of this thread's last repaired fault, 0 when none is pending. SIGBUS from a
    /// memory access is delivered to the thread that made it, so each thread sees only its own
    /// faults, however many fault at once. (A `const` thread-local without a destructor is a
    /// plain TLS slot: safe to touch from the handler.)
    static FAULT: Cell<usize> = const { Cell::new(0) };
}

extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
    let address = unsafe { (*info).si_addr() } as usize;
    let ours = REGIONS.iter().any(|(start, end)| {
        let (start, end) = (start.load(Ordering::Acquire), end.load(Ordering::Acquire));
        start <= address && address < end
    });
    // SAFETY: sysconf and mmap are plain system calls; the page replaced lies inside a mapping
    // this engine owns, and MAP_FIXED over it changes nothing else.
    unsafe {
        if !ours {
            // Not a mapped target: the default action, when the instruction runs again.
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
            return;
        }
        let page = libc::sysconf(libc::_SC_PAGESIZE).max(4096) as usize;
        let blank = libc::mmap(
            (address / page * page) as *mut libc::c_void,
            page,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if blank == libc::MAP_FAILED {
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
            return;
        }
    }
    FAULT.with(|fault| fault.set(address));
}

fn install_sigbus_handler() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        // SAFETY: the handler only reads atomics and makes system calls; the struct is fully
        // initialised.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
}

/// Claims a free entry of [`REGIONS`] for `len` bytes at `base`.
fn register(base: usize, len: usize) -> Option<usize> {
    let index = REGIONS.iter().position(|(start, _)| {
        start
            .compare_exchange(0, base, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })?;
    REGIONS[index].1.store(base + len, Ordering::Release);
    Some(index)
}

/// Whether a fault of this thread's was repaired in `len` bytes at `base`; clears it if so.
fn faulted_in(base: *mut u8, len: usize) -> bool {
    let address = FAULT.with(Cell::get);
    let hit = address != 0 && (base as usize..base as usize + len).contains(&address);
    if hit {
        FAULT.with(|fault| fault.set(0));
    }
    hit
}

/// Copies to and from shared mappings.
pub type Mapped = Synchronous<Mappings>;

/// The thread's mapped targets.
pub struct Mappings {
    maps: Vec<Mapping>,
    page: usize,
}

/// How one target is mapped.
#[derive(Debug, Clone, Copy)]
pub struct MapSpec {
    /// The open descriptor.
    pub fd: RawFd,
    /// Bytes to map.
    pub len: u64,
    /// Map writable.
    pub writable: bool,
    /// `-N`.
    pub flush: Option<FlushMode>,
    /// `-Sw`: msync every write.
    pub write_through: bool,
}

impl Mapped {
    /// Maps every target of the thread.
    pub fn create(targets: &[MapSpec], slots: Slots) -> io::Result<Self> {
        install_sigbus_handler();
        // Built up in place, so a mapping that fails unmaps the ones before it.
        let mut mappings = Mappings {
            maps: Vec::with_capacity(targets.len()),
            // SAFETY: sysconf has no preconditions.
            page: unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize,
        };
        for spec in targets {
            let prot = libc::PROT_READ | if spec.writable { libc::PROT_WRITE } else { 0 };
            // SAFETY: a shared mapping of an open descriptor; checked before use, unmapped on drop.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    spec.len as usize,
                    prot,
                    libc::MAP_SHARED,
                    spec.fd,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            mappings.maps.push(Mapping {
                base: base as *mut u8,
                len: spec.len as usize,
                flush: spec.flush,
                sync_writes: spec.write_through,
                region: register(base as usize, spec.len as usize),
            });
        }
        Ok(Synchronous::new(mappings, slots))
    }
}

impl Perform for Mappings {
    unsafe fn perform(&mut self, io: &Io, buffer: *mut u8) -> i32 {
        let map = &self.maps[io.target as usize];
        let offset = io.offset as usize;
        let len = io.len as usize;
        if offset.checked_add(len).is_none_or(|end| end > map.len) {
            return -libc::EINVAL;
        }
        // SAFETY: the range lies inside the mapping (checked above) and `buffer` holds at least
        // `len` bytes for this call alone (the caller's contract); the two never overlap.
        unsafe {
            let mapped = map.base.add(offset);
            match io.op {
                Op::Read => std::ptr::copy_nonoverlapping(mapped, buffer, len),
                Op::Write => {
                    std::ptr::copy_nonoverlapping(buffer, mapped, len);
                    if let Err(errno) = self.flush(map, offset, len) {
                        return -errno;
                    }
                }
                // Refused with -Sm before the run.
                Op::Trim | Op::Fsync | Op::Fdatasync => return -libc::EOPNOTSUPP,
            }
        }
        if faulted_in(map.base, map.len) {
            return -libc::EFAULT;
        }
        len as i32
    }
}

impl Mappings {
    /// Makes `len` written bytes at `offset` durable as `-N` and `-Sw` ask.
    fn flush(&self, map: &Mapping, offset: usize, len: usize) -> Result<(), i32> {
        let msync = map.sync_writes || map.flush == Some(FlushMode::ViewOfFile);
        if msync {
            let start = offset / self.page * self.page;
            // SAFETY: the page-aligned range lies inside the mapping.
            let rc = unsafe {
                libc::msync(
                    map.base.add(start) as *mut libc::c_void,
                    offset + len - start,
                    libc::MS_SYNC,
                )
            };
            if rc != 0 {
                return Err(io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO));
            }
        }
        if let Some(mode @ (FlushMode::NonVolatileMemory | FlushMode::NonVolatileMemoryNoDrain)) =
            map.flush
        {
            flush_cache_lines(
                map.base.wrapping_add(offset),
                len,
                mode == FlushMode::NonVolatileMemory,
            );
        }
        Ok(())
    }
}

/// Writes back the cache lines of a range (CLFLUSH), then fences if `drain`.
#[cfg(target_arch = "x86_64")]
fn flush_cache_lines(start: *mut u8, len: usize, drain: bool) {
    use std::arch::x86_64::{_mm_clflush, _mm_sfence};
    const LINE: usize = 64;
    let first = start as usize / LINE * LINE;
    let end = start as usize + len;
    let mut line = first;
    while line < end {
        // SAFETY: every line lies inside the mapped range being flushed.
        unsafe { _mm_clflush(line as *const u8) };
        line += LINE;
    }
    if drain {
        // SAFETY: a plain store fence.
        unsafe { _mm_sfence() };
    }
}

/// Elsewhere, a sequentially consistent fence stands in for the cache-line flush.
#[cfg(not(target_arch = "x86_64"))]
fn flush_cache_lines(_start: *mut u8, _len: usize, _drain: bool) {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

impl Drop for Mappings {
    fn drop(&mut self) {
        for map in &self.maps {
            if let Some(index) = map.region {
                REGIONS[index].1.store(0, Ordering::Release);
                REGIONS[index].0.store(0, Ordering::Release);
            }
            // SAFETY: mapped in `new` with this length, unmapped once.
            unsafe { libc::munmap(map.base as *mut libc::c_void, map.len) };
        }
    }
}

// SAFETY: the mappings are owned by this engine, which lives on one worker thread.
unsafe impl Send for Mappings {}
