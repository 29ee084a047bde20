//! Slot buffers: one page-aligned allocation per thread, a read and/or write buffer per slot.
//!
//! Only the halves a target needs are allocated (a read-only test has no write buffers). Write
//! buffers start with DiskSpd's 0..255 pattern or zeros; [`WriteFill`] refreshes them per write for
//! `-Zr` and `-Z<size>`. The buffers are handed to an engine's [`crate::engine::Slots`], which
//! alone reaches them from then on and frees them when no I/O is in flight.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;

use crate::engine::{Op, SlotMemory};

/// Buffer alignment: a page, which satisfies every O_DIRECT memory alignment.
pub const ALIGN: usize = 4096;

/// Initial content of a slot's write buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitialFill {
    /// 0, 1, …, 255, 0, …
    Pattern,
    /// All zeros.
    Zero,
}

/// What one slot needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotShape {
    /// Bytes per I/O.
    pub block: usize,
    /// The slot may read.
    pub reads: bool,
    /// The slot may write.
    pub writes: bool,
    /// Initial write buffer content.
    pub fill: InitialFill,
    /// Reads and writes use the same bytes (a slot never does both at once): half the memory,
    /// for slots whose write content is made afresh for every write.
    pub shared: bool,
}

#[derive(Debug, Clone, Copy)]
struct Region {
    start: usize,
    len: usize,
    read: usize,
    read_len: usize,
    write: usize,
    write_len: usize,
}

/// Where the buffers' memory came from.
enum Memory {
    /// The global allocator.
    Heap(Layout),
    /// An anonymous huge-page mapping of this length (`-l`).
    HugePages(usize),
}

/// The slot buffers of one thread.
pub struct SlotBuffers {
    base: NonNull<u8>,
    memory: Memory,
    regions: Vec<Region>,
}

/// Huge-page size assumed for `-l` mappings (x86-64 and arm64 default).
const HUGE_PAGE: usize = 2 << 20;

// SAFETY: SlotBuffers owns its allocation exclusively and is only moved between threads as a whole.
unsafe impl Send for SlotBuffers {}

impl SlotShape {
    /// Buffers of `block` bytes the slot holds.
    fn halves(&self) -> usize {
        match self.shared {
            true => (self.reads || self.writes) as usize,
            false => self.reads as usize + self.writes as usize,
        }
    }
}

fn round_up(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

impl SlotBuffers {
    /// Bytes [`SlotBuffers::new`] would allocate for these slots.
    pub fn bytes_needed(shapes: &[SlotShape]) -> usize {
        shapes.iter().map(|s| round_up(s.block) * s.halves()).sum()
    }

    /// Allocates and initialises the buffers of every slot, on huge pages with `huge_pages`; otherwise
    /// at an address that is a multiple of `separation` (`-bs`; a page when smaller), so that two
    /// threads' buffers never share that span.
    pub fn new(shapes: &[SlotShape], huge_pages: bool, separation: usize) -> std::io::Result<Self> {
        let mut regions = Vec::with_capacity(shapes.len());
        let mut cursor = 0;
        for shape in shapes {
            let half = round_up(shape.block);
            let read = cursor;
            let write = if shape.reads && !shape.shared {
                cursor + half
            } else {
                cursor
            };
            let len = half * shape.halves().max(1);
            regions.push(Region {
                start: cursor,
                len,
                read,
                read_len: if shape.reads { half } else { 0 },
                write,
                write_len: if shape.writes { half } else { 0 },
            });
            cursor += len;
        }
        let (base, memory) = if huge_pages {
            let len = cursor.max(1).div_ceil(HUGE_PAGE) * HUGE_PAGE;
            // SAFETY: an anonymous private mapping; the result is checked before use.
            let ptr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_HUGETLB,
                    -1,
                    0,
                )
            };
            if ptr == libc::MAP_FAILED {
                return Err(std::io::Error::last_os_error());
            }
            (
                NonNull::new(ptr as *mut u8).expect("mmap succeeded"),
                Memory::HugePages(len),
            )
        } else {
            let align = separation.max(ALIGN).next_power_of_two();
            let layout = Layout::from_size_align(cursor.max(ALIGN), align)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
            // SAFETY: the layout has a non-zero size.
            let base = NonNull::new(unsafe { alloc_zeroed(layout) })
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
            (base, Memory::Heap(layout))
        };
        let buffers = SlotBuffers {
            base,
            memory,
            regions,
        };
        for (slot, shape) in shapes.iter().enumerate() {
            if shape.writes && shape.fill == InitialFill::Pattern {
                let (start, _) = buffers.buffer(slot as u32, Op::Write);
                // SAFETY: the slot's write buffer holds at least `block` bytes of this
                // allocation, which nothing else references yet.
                let buf = unsafe { std::slice::from_raw_parts_mut(start, shape.block) };
                for (i, byte) in buf.iter_mut().enumerate() {
                    *byte = i as u8;
                }
            }
        }
        Ok(buffers)
    }

    /// `--pattern`: every write half holds `pattern` repeated from its start.
    pub fn repeat_in_writes(&mut self, pattern: &[u8]) {
        if pattern.is_empty() {
            return;
        }
        for slot in 0..self.regions.len() as u32 {
            let region = self.regions[slot as usize];
            if region.read_len > 0 && region.read == region.write {
                // A shared half: its writes' content is made afresh for each.
                continue;
            }
            let (start, len) = self.buffer(slot, Op::Write);
            // SAFETY: the slot's write half holds `len` bytes of this allocation, which only
            // `self`, borrowed mutably, reaches before the buffers go to an engine.
            let buf = unsafe { std::slice::from_raw_parts_mut(start, len) };
            for (byte, value) in buf.iter_mut().zip(pattern.iter().cycle()) {
                *byte = *value;
            }
        }
    }
}

// SAFETY: the memory is one allocation (heap or mapping) that `base` owns until drop, so it does
// not move with the value; regions are laid out one after the other, each holding its slot's read
// half and then its write half (a one-way slot has one half and a zero-length other direction; a
// shared slot one half that is both, as the contract allows); after `new` fills the write halves,
// nothing here touches the memory.
unsafe impl SlotMemory for SlotBuffers {
    fn slots(&self) -> u32 {
        self.regions.len() as u32
    }

    fn buffer(&self, slot: u32, op: Op) -> (*mut u8, usize) {
        let region = self.regions[slot as usize];
        let (offset, len) = match op {
            Op::Read => (region.read, region.read_len),
            Op::Write => (region.write, region.write_len),
            // Trims and flushes use no buffer.
            Op::Trim | Op::Fsync | Op::Fdatasync => (region.start, 0),
        };
        // SAFETY: offset ≤ the allocation's size by construction.
        (unsafe { self.base.as_ptr().add(offset) }, len)
    }

    fn region(&self, slot: u32) -> libc::iovec {
        let r = self.regions[slot as usize];
        libc::iovec {
            // SAFETY: start < allocation size by construction.
            iov_base: unsafe { self.base.as_ptr().add(r.start) } as *mut libc::c_void,
            iov_len: r.len,
        }
    }
}

impl Drop for SlotBuffers {
    fn drop(&mut self) {
        match self.memory {
            // SAFETY: allocated in `new` with this layout and freed once.
            Memory::Heap(layout) => unsafe { dealloc(self.base.as_ptr(), layout) },
            // SAFETY: mapped in `new` with this length and unmapped once.
            Memory::HugePages(len) => unsafe {
                libc::munmap(self.base.as_ptr() as *mut libc::c_void, len);
            },
        }
    }
}

pub use crate::data::fill::WriteFill;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Slots;
    use crate::rng::Rng;

    fn shape(block: usize, reads: bool, writes: bool, fill: InitialFill) -> SlotShape {
        SlotShape {
            block,
            reads,
            writes,
            fill,
            shared: false,
        }
    }

    #[test]
    fn a_shared_slot_reads_and_writes_the_same_bytes() {
        let shapes = [
            SlotShape {
                shared: true,
                ..shape(8192, true, true, InitialFill::Pattern)
            },
            shape(4096, true, true, InitialFill::Pattern),
        ];
        assert_eq!(SlotBuffers::bytes_needed(&shapes), 8192 + 2 * 4096);
        let buffers = SlotBuffers::new(&shapes, false, 0).unwrap();
        assert_eq!(buffers.buffer(0, Op::Read), buffers.buffer(0, Op::Write));
        assert_eq!(buffers.buffer(0, Op::Read).1, 8192);
        assert_eq!(buffers.region(0).iov_len, 8192);
        assert_ne!(
            buffers.buffer(1, Op::Read).0,
            buffers.buffer(1, Op::Write).0
        );
    }

    #[test]
    fn halves_are_aligned_and_disjoint() {
        let shapes = vec![shape(4096, true, true, InitialFill::Pattern); 3];
        let buffers = SlotBuffers::new(&shapes, false, 0).unwrap();
        let mut addrs: Vec<usize> = (0..3)
            .flat_map(|s| {
                [Op::Read, Op::Write].map(|op| {
                    let (start, len) = buffers.buffer(s, op);
                    assert_eq!(len, 4096);
                    start as usize
                })
            })
            .collect();
        assert!(addrs.iter().all(|a| a % ALIGN == 0));
        addrs.sort();
        addrs.dedup();
        assert_eq!(addrs.len(), 6);
        assert_eq!(SlotBuffers::bytes_needed(&shapes), 6 * 4096);
        for slot in 0..3 {
            let region = buffers.region(slot);
            let base = region.iov_base as usize;
            for op in [Op::Read, Op::Write] {
                let (start, len) = buffers.buffer(slot, op);
                assert!(base <= start as usize && start as usize + len <= base + region.iov_len);
            }
        }
    }

    #[test]
    fn each_threads_buffers_start_on_the_separation() {
        let separation = 16 << 20;
        let shapes = vec![shape(4096, true, true, InitialFill::Pattern); 2];
        let a = SlotBuffers::new(&shapes, false, separation).unwrap();
        let b = SlotBuffers::new(&shapes, false, separation).unwrap();
        let (a, b) = (a.region(0).iov_base as usize, b.region(0).iov_base as usize);
        assert_eq!((a % separation, b % separation), (0, 0));
        assert!(a.abs_diff(b) >= separation);
    }

    #[test]
    fn one_way_slots_have_one_half_and_nothing_the_other_way() {
        let shapes = vec![shape(512, true, false, InitialFill::Pattern); 4];
        assert_eq!(SlotBuffers::bytes_needed(&shapes), 4 * 4096);
        let buffers = SlotBuffers::new(&shapes, false, 0).unwrap();
        assert_eq!(buffers.slots(), 4);
        assert_eq!(buffers.buffer(0, Op::Read).1, 4096);
        assert_eq!(buffers.buffer(0, Op::Write).1, 0);
        let writes =
            SlotBuffers::new(&[shape(512, false, true, InitialFill::Zero)], false, 0).unwrap();
        assert_eq!(writes.buffer(0, Op::Read).1, 0);
        assert_eq!(writes.buffer(0, Op::Write).1, 4096);
    }

    #[test]
    fn write_buffers_start_with_the_pattern_or_zeros() {
        let shapes = [
            shape(1024, false, true, InitialFill::Pattern),
            shape(1024, false, true, InitialFill::Zero),
        ];
        let mut slots = Slots::new(SlotBuffers::new(&shapes, false, 0).unwrap());
        let pattern = slots.write_buffer(0, 1024);
        assert_eq!(
            &pattern[250..260],
            &[250, 251, 252, 253, 254, 255, 0, 1, 2, 3]
        );
        assert!(slots.write_buffer(1, 1024).iter().all(|&b| b == 0));
        // A slot's buffer is its block rounded up to the alignment, and no more.
        assert_eq!(slots.write_buffer(1, 4096).len(), 4096);
        let beyond = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            slots.write_buffer(1, 4097).len()
        }));
        assert!(beyond.is_err(), "a slice past the slot's buffer is refused");
    }

    #[test]
    fn fills() {
        let mut rng = Rng::new(3);
        let mut buf = vec![0u8; 4096];
        WriteFill::Random.prepare(&mut buf, &mut rng, 0);
        let first = buf.clone();
        WriteFill::Random.prepare(&mut buf, &mut rng, 0);
        assert_ne!(first, buf);
        assert!(buf.iter().filter(|&&b| b == 0).count() < 100);

        let source: Vec<u8> = (0..8192u32).map(|i| (i / 512) as u8).collect();
        let fill = WriteFill::Window {
            source: &source,
            step: 512,
        };
        for _ in 0..100 {
            fill.prepare(&mut buf, &mut rng, 0);
            let window = buf[0] as usize;
            assert!(
                window <= 8,
                "window start {window} leaves room for the block"
            );
            assert!(
                buf.chunks(512)
                    .enumerate()
                    .all(|(i, c)| c.iter().all(|&b| b as usize == window + i))
            );
        }
    }
}
