//! The page cache a timespan starts with: `--invalidate` drops each target's pages (fio's
//! `invalidate`, on by default there), `--pre-read` reads each target's range once, in order,
//! before the timespan starts (outside every measured window), through the run's own descriptor:
//! a buffered target's data is then in the page cache, as fio's `pre_read` leaves it.

use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};

use super::inspect::Range;

/// How much one read asks for.
const CHUNK: usize = 1 << 20;

/// A buffer aligned for O_DIRECT on any device (4 KiB).
struct Aligned {
    at: *mut u8,
    layout: std::alloc::Layout,
}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let layout = std::alloc::Layout::from_size_align(len, 4096).expect("a valid layout");
        // SAFETY: a layout of non-zero size.
        let at = unsafe { std::alloc::alloc_zeroed(layout) };
        if at.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Aligned { at, layout }
    }

    fn bytes(&mut self, len: usize) -> &mut [u8] {
        // SAFETY: `at` holds layout.size() bytes, owned here; len is at most that.
        unsafe { std::slice::from_raw_parts_mut(self.at, len.min(self.layout.size())) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.at, self.layout) };
    }
}

/// Drops `file`'s pages from the page cache (`posix_fadvise(POSIX_FADV_DONTNEED)` over the whole
/// file or device): clean pages go at once, dirty ones are written back first and stay until they
/// are clean, as fio's invalidate leaves them.
pub fn invalidate(file: &std::fs::File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: an advisory call on an open descriptor; it returns the error, not errno.
    match unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) } {
        0 => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

/// Reads `range` of `file` once, whole blocks of `block` only when `direct` (O_DIRECT cannot
/// read a partial one, and the I/O never touches one); returns the bytes read, fewer when a stop
/// was asked for or the target ended first.
pub fn pre_read(
    file: &std::fs::File,
    range: Range,
    block: u64,
    direct: bool,
    stop: &AtomicU64,
) -> io::Result<u64> {
    let end = match direct {
        true => range.base + range.usable / block * block,
        false => range.end(),
    };
    let chunk = match direct {
        true => (CHUNK as u64 / block).max(1) * block,
        false => CHUNK as u64,
    };
    let mut buffer = Aligned::new(chunk as usize);
    let mut at = range.base;
    while at < end && stop.load(Ordering::Relaxed) == 0 {
        let len = chunk.min(end - at) as usize;
        match file.read_at(buffer.bytes(len), at) {
            Ok(0) => break,
            Ok(n) => at += n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(at - range.base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_range_is_read_once_and_a_stop_ends_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.dat");
        std::fs::write(&path, vec![7u8; 3 * CHUNK + 100]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let go = AtomicU64::new(0);
        let range = Range {
            base: 4096,
            usable: 3 * CHUNK as u64 - 4000,
        };
        assert_eq!(
            pre_read(&file, range, 4096, false, &go).unwrap(),
            range.usable
        );
        // Direct: whole blocks only.
        let whole = range.usable / 4096 * 4096;
        assert_eq!(pre_read(&file, range, 4096, true, &go).unwrap(), whole);
        let stopped = AtomicU64::new(1);
        assert_eq!(pre_read(&file, range, 4096, false, &stopped).unwrap(), 0);
        let beyond = Range {
            base: 0,
            usable: 8 * CHUNK as u64,
        };
        assert_eq!(
            pre_read(&file, beyond, 4096, false, &go).unwrap(),
            3 * CHUNK as u64 + 100,
            "a target shorter than its range ends the read"
        );
    }
}
