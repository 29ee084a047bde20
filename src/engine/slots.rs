//! The slots' memory as an engine holds it: the only way to the addresses the kernel is given, and
//! the only way to the bytes the worker fills and checks.
//!
//! A slot is either free or in flight. [`Slots::claim`] checks an I/O against its slot (in range,
//! free, no longer than the slot's buffer in that direction), marks it in flight and returns the
//! address for the kernel; [`Slots::release`] frees it when its completion is reaped. Slices of a
//! slot's buffers are handed out only while it is free, and borrow the table, so no slot can be
//! claimed while a slice of it lives. Dropped with I/O still in flight (a device that stopped
//! answering), the table keeps its memory: the kernel may still write into it.

use std::io;
use std::mem::ManuallyDrop;

use super::{Io, Op};

/// Memory the kernel may read and write for I/O: a read and a write buffer per slot.
///
/// # Safety
///
/// An implementation promises, from when it is made until it is dropped:
/// 1. for every `slot < slots()` and each direction, `buffer(slot, op)` returns the same pointer
///    at every call, to `len` bytes valid for reads and writes (`len` is 0 when the slot never
///    goes that way);
/// 2. the memory stays where it is when the value moves, and only the value's drop frees it;
/// 3. no two buffers overlap, except that a slot's read and write buffer may be the same bytes;
/// 4. `region(slot)` covers both buffers of the slot and nothing of another slot (it is
///    registered with the kernel as the slot's fixed buffer);
/// 5. the implementation itself touches the memory only before it is handed to [`Slots::new`].
pub unsafe trait SlotMemory: Send {
    /// Number of slots.
    fn slots(&self) -> u32;
    /// The slot's buffer for one direction: its start and its length in bytes.
    fn buffer(&self, slot: u32, op: Op) -> (*mut u8, usize);
    /// The slot's whole region, for buffer registration.
    fn region(&self, slot: u32) -> libc::iovec;
}

/// The slots of one engine: their memory, their buffers, and which are in flight.
pub struct Slots {
    memory: ManuallyDrop<Box<dyn SlotMemory>>,
    /// Per slot, the read and write buffer: address and length.
    buffers: Vec<[(usize, usize); 2]>,
    busy: Vec<bool>,
    in_flight: usize,
}

impl Slots {
    /// Takes the memory; every slot starts free.
    pub fn new(memory: impl SlotMemory + 'static) -> Self {
        let buffers = (0..memory.slots())
            .map(|slot| {
                [Op::Read, Op::Write].map(|op| {
                    let (start, len) = memory.buffer(slot, op);
                    (start as usize, len)
                })
            })
            .collect::<Vec<_>>();
        Slots {
            busy: vec![false; buffers.len()],
            buffers,
            memory: ManuallyDrop::new(Box::new(memory)),
            in_flight: 0,
        }
    }

    /// Number of slots.
    #[inline]
    pub fn len(&self) -> u32 {
        self.buffers.len() as u32
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    /// The most bytes one I/O of the slot may move, either way.
    pub fn holds(&self, slot: u32) -> usize {
        let [read, write] = self.buffers[slot as usize];
        read.1.max(write.1)
    }

    /// Slots in flight.
    #[inline]
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The slots in flight.
    pub fn in_flight_slots(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).filter(|&s| self.busy[s as usize])
    }

    /// One region per slot, for buffer registration.
    pub fn regions(&self) -> Vec<libc::iovec> {
        (0..self.len()).map(|s| self.memory.region(s)).collect()
    }

    /// Checks `io` against its slot and marks the slot in flight; the address of the `io.len`
    /// bytes the kernel may then use, until [`Slots::release`].
    #[inline]
    pub fn claim(&mut self, io: &Io) -> io::Result<*mut u8> {
        let slot = io.slot as usize;
        match self.busy.get(slot) {
            Some(false) => {}
            Some(true) => return Err(refused(io, "is in flight")),
            None => return Err(refused(io, "does not exist")),
        }
        // A trim or a flush hands the kernel no memory.
        let start = match io.op {
            Op::Read | Op::Write => {
                let (start, len) = self.buffers[slot][io.op as usize];
                if io.len as usize > len {
                    return Err(refused(io, "holds fewer bytes"));
                }
                start as *mut u8
            }
            Op::Trim | Op::Fsync | Op::Fdatasync => std::ptr::null_mut(),
        };
        self.busy[slot] = true;
        self.in_flight += 1;
        Ok(start)
    }

    /// Frees a slot whose I/O completed; false (and nothing changes) when it was not in flight.
    #[inline]
    pub fn release(&mut self, slot: u32) -> bool {
        match self.busy.get_mut(slot as usize) {
            Some(busy @ true) => {
                *busy = false;
                self.in_flight -= 1;
                true
            }
            _ => false,
        }
    }

    /// The first `len` bytes of a free slot's write buffer, to fill before a write. Panics when
    /// the slot is in flight or holds fewer bytes.
    #[inline]
    pub fn write_buffer(&mut self, slot: u32, len: usize) -> &mut [u8] {
        let start = self.free_buffer(slot, Op::Write, len);
        // SAFETY: the range lies inside the slot's write buffer (checked), which no other buffer
        // overlaps (SlotMemory's contract); the slot is free, so the kernel has no address in it,
        // and `&mut self` keeps it free and unshared while the slice lives.
        unsafe { std::slice::from_raw_parts_mut(start, len) }
    }

    /// The first `len` bytes of a free slot's read buffer, to check after its read completed.
    /// Panics when the slot is in flight or holds fewer bytes.
    #[inline]
    pub fn read_buffer(&self, slot: u32, len: usize) -> &[u8] {
        let start = self.free_buffer(slot, Op::Read, len);
        // SAFETY: the range lies inside the slot's read buffer (checked); the slot is free, and
        // claiming it needs `&mut self`, which this borrow excludes while the slice lives.
        unsafe { std::slice::from_raw_parts(start, len) }
    }

    #[inline]
    fn free_buffer(&self, slot: u32, op: Op, len: usize) -> *mut u8 {
        assert!(!self.busy[slot as usize], "slot {slot} is in flight");
        let (start, holds) = self.buffers[slot as usize][op as usize];
        assert!(len <= holds, "slot {slot} holds fewer than {len} bytes");
        start as *mut u8
    }
}

#[cold]
fn refused(io: &Io, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "refused to stage a {:?} of {} bytes: slot {} {why}",
            io.op, io.len, io.slot
        ),
    )
}

impl Drop for Slots {
    fn drop(&mut self) {
        if self.in_flight == 0 {
            // SAFETY: dropped once, here; no slot is in flight, so the kernel holds no address
            // in the memory.
            unsafe { ManuallyDrop::drop(&mut self.memory) };
        }
        // Otherwise the memory is kept for the rest of the process: I/O that never completed
        // may still be written into it.
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Two slots of 4096 bytes on the heap: slot 0 reads and writes, slot 1 only reads.
    pub(in crate::engine) struct Heap(pub(in crate::engine) Vec<u8>);

    // SAFETY: the Vec's heap block does not move with the value and is not touched after it is
    // made; the buffers are disjoint and inside it.
    unsafe impl SlotMemory for Heap {
        fn slots(&self) -> u32 {
            2
        }
        fn buffer(&self, slot: u32, op: Op) -> (*mut u8, usize) {
            let base = self.0.as_ptr() as *mut u8;
            match (slot, op) {
                (0, Op::Read) => (base, 4096),
                (0, Op::Write) => (base.wrapping_add(4096), 4096),
                (_, Op::Read) => (base.wrapping_add(8192), 4096),
                (_, Op::Write) => (base.wrapping_add(8192), 0),
                (_, Op::Trim | Op::Fsync | Op::Fdatasync) => (base, 0),
            }
        }
        fn region(&self, slot: u32) -> libc::iovec {
            libc::iovec {
                iov_base: self.0.as_ptr().wrapping_add(slot as usize * 8192) as *mut _,
                iov_len: if slot == 0 { 8192 } else { 4096 },
            }
        }
    }

    /// An I/O at offset 0 of target 0.
    pub(in crate::engine) fn io(slot: u32, op: Op, len: u32) -> Io {
        Io {
            slot,
            target: 0,
            op,
            offset: 0,
            len,
            priority: 0,
        }
    }

    #[test]
    fn an_io_is_checked_against_its_slot_where_it_is_claimed() {
        let mut slots = Slots::new(Heap(vec![0; 12288]));
        let too_long = slots.claim(&io(0, Op::Read, 4097)).unwrap_err();
        assert!(
            too_long.to_string().contains("holds fewer bytes"),
            "{too_long}"
        );
        let no_write_half = slots.claim(&io(1, Op::Write, 512)).unwrap_err();
        assert!(no_write_half.to_string().contains("holds fewer bytes"));
        let no_slot = slots.claim(&io(2, Op::Read, 512)).unwrap_err();
        assert!(no_slot.to_string().contains("does not exist"));
        assert_eq!(slots.in_flight(), 0, "a refused I/O claims nothing");

        let read = slots.claim(&io(0, Op::Read, 4096)).unwrap();
        let write = slots.claim(&io(1, Op::Read, 4096)).unwrap();
        assert_eq!(write as usize - read as usize, 8192);
        let twice = slots.claim(&io(0, Op::Write, 512)).unwrap_err();
        assert!(twice.to_string().contains("in flight"), "{twice}");
        assert_eq!(slots.in_flight(), 2);

        assert!(slots.release(0));
        assert!(!slots.release(0), "a slot is released once");
        assert!(!slots.release(7), "a completion of no slot frees nothing");
        assert_eq!(slots.in_flight(), 1);
        assert!(slots.claim(&io(0, Op::Write, 4096)).is_ok());
        assert!(slots.release(0) && slots.release(1));
    }

    #[test]
    fn buffers_are_handed_out_only_while_their_slot_is_free() {
        let mut slots = Slots::new(Heap(vec![0; 12288]));
        slots.write_buffer(0, 4096).fill(7);
        slots.claim(&io(0, Op::Write, 4096)).unwrap();
        for attempt in [
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                slots.write_buffer(0, 1).len()
            })),
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                slots.read_buffer(0, 1).len()
            })),
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                slots.read_buffer(1, 4097).len()
            })),
        ] {
            assert!(attempt.is_err());
        }
        slots.release(0);
        assert!(slots.write_buffer(0, 4096).iter().all(|&b| b == 7));
        assert_eq!(slots.read_buffer(1, 4096).len(), 4096);
    }

    #[test]
    fn memory_with_io_in_flight_is_kept_when_the_table_goes() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static FREED: AtomicUsize = AtomicUsize::new(0);
        struct Counted(Heap);
        impl Drop for Counted {
            fn drop(&mut self) {
                FREED.fetch_add(1, Ordering::SeqCst);
            }
        }
        // SAFETY: as Heap's.
        unsafe impl SlotMemory for Counted {
            fn slots(&self) -> u32 {
                self.0.slots()
            }
            fn buffer(&self, slot: u32, op: Op) -> (*mut u8, usize) {
                self.0.buffer(slot, op)
            }
            fn region(&self, slot: u32) -> libc::iovec {
                self.0.region(slot)
            }
        }
        let mut settled = Slots::new(Counted(Heap(vec![0; 12288])));
        settled.claim(&io(1, Op::Read, 512)).unwrap();
        settled.release(1);
        drop(settled);
        assert_eq!(FREED.load(Ordering::SeqCst), 1);
        let mut stuck = Slots::new(Counted(Heap(vec![0; 12288])));
        stuck.claim(&io(1, Op::Read, 512)).unwrap();
        drop(stuck);
        assert_eq!(
            FREED.load(Ordering::SeqCst),
            1,
            "kept: a read may still land in it"
        );
    }
}
