//! `iospd replay`: what the profile carries of a replay — the traces, which events, how time and
//! offsets are mapped onto the targets — and what reading the traces once found (their span,
//! devices and sizes), so the run and its report need not read them again to know.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Which of a block trace's events are the I/O: what the application queued, or what the device
/// was issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// `Q`, `block_bio_queue`: the bios as the application (or file system) queued them.
    Queued,
    /// `D`, `block_rq_issue`: the requests as the device received them, after merging.
    Issued,
}

impl Stage {
    /// blktrace's letter for it.
    pub fn letter(self) -> char {
        match self {
            Stage::Queued => 'Q',
            Stage::Issued => 'D',
        }
    }
}

/// A traced device: a block device's number (`major << 20 | minor`, the kernel's own encoding),
/// or, for formats that name files, the input file's index and the file's number in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DeviceKey(pub u64);

/// Keys of named files are above every device number.
const NAMED: u64 = 1 << 40;

impl DeviceKey {
    /// A block device.
    pub fn block(major: u32, minor: u32) -> Self {
        DeviceKey(((major as u64) << 20) | minor as u64)
    }

    /// The most files one input may name: their numbers take the key's low 24 bits.
    pub const MAX_NAMED: u32 = 1 << 24;

    /// File `number` (below [`DeviceKey::MAX_NAMED`]) of input `input`.
    pub fn named(input: usize, number: u32) -> Self {
        debug_assert!(number < Self::MAX_NAMED);
        DeviceKey(NAMED | ((input as u64) << 24) | number as u64)
    }

    /// `(input, number)` of a named file.
    pub fn named_parts(self) -> Option<(usize, u32)> {
        (self.0 >= NAMED).then(|| {
            (
                ((self.0 - NAMED) >> 24) as usize,
                (self.0 & (Self::MAX_NAMED as u64 - 1)) as u32,
            )
        })
    }

    /// `major,minor` of a block device.
    pub fn block_numbers(self) -> Option<(u32, u32)> {
        (self.0 < NAMED).then_some(((self.0 >> 20) as u32, (self.0 & 0xF_FFFF) as u32))
    }
}

/// How trace time becomes run time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Pace {
    /// Each I/O is due at start + its trace time ÷ the speed (`--speed`, 1 = as recorded).
    Speed(f64),
    /// `--speed=max`: in order, each as soon as a slot is free.
    AsFastAsPossible,
}

/// How an offset beyond the target is brought onto it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Remap {
    /// Offsets are kept; a trace that reaches past a target is refused.
    Keep,
    /// `--remap=wrap`: an I/O past the end starts again from the beginning (offset mod size).
    Wrap,
    /// `--remap=scale`: every offset is scaled by target size ÷ the traced device's extent.
    Scale,
}

/// Which kinds of I/O are replayed (`--only=read,write,trim,flush`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kinds {
    /// Reads.
    pub read: bool,
    /// Writes.
    pub write: bool,
    /// Trims.
    pub trim: bool,
    /// Flushes (fsync, fdatasync, a device's flush).
    pub flush: bool,
}

impl Kinds {
    /// Every kind.
    pub const ALL: Kinds = Kinds {
        read: true,
        write: true,
        trim: true,
        flush: true,
    };

    /// Whether `op` is kept.
    pub fn keeps(&self, op: crate::engine::Op) -> bool {
        use crate::engine::Op;
        match op {
            Op::Read => self.read,
            Op::Write => self.write,
            Op::Trim => self.trim,
            Op::Fsync | Op::Fdatasync => self.flush,
        }
    }
}

/// One traced device and the target it is replayed onto.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mapping {
    /// The device in the trace.
    pub device: DeviceKey,
    /// Its name there (`8,16`, `/dev/sdb`, `target 1`).
    pub name: String,
    /// The end of the furthest I/O on it.
    pub extent: u64,
    /// Bytes of the target it goes to (the target of the same index).
    pub target_size: u64,
}

/// A replay's slots of one buffer size (see `replay::pool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotClass {
    /// Bytes each slot's buffer holds.
    pub size: u64,
    /// How many.
    pub slots: u32,
}

/// A replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// The trace arguments as given.
    pub traces: Vec<PathBuf>,
    /// The events replayed, for formats that have stages.
    pub stage: Stage,
    /// How time is mapped.
    pub pace: Pace,
    /// How offsets are mapped.
    pub remap: Remap,
    /// The kinds replayed.
    pub kinds: Kinds,
    /// Device i of the trace goes to target i.
    pub mappings: Vec<Mapping>,
    /// Lateness above this counts as late (`--late=<µs>`), ns.
    pub late_ns: u64,
    /// The trace time of its first replayed I/O (the replay's time zero), ns.
    pub origin_ns: u64,
    /// From the first replayed I/O to the last, in trace time, ns.
    pub span_ns: u64,
    /// I/Os replayed, by kind: read, write, trim, flush.
    pub counts: [u64; 4],
    /// Every replayed offset and length is a multiple of this (a power of two, at most 4096).
    pub align: u64,
    /// The run time (from the replay's start) past which nothing is issued: `-d`, or the
    /// trace's span at its speed when `-d` is not given, ns.
    #[serde(default = "no_cut")]
    pub cut_ns: u64,
    /// The slots by buffer size (empty: every slot holds the block size).
    #[serde(default)]
    pub pool: Vec<SlotClass>,
}

fn no_cut() -> u64 {
    u64::MAX
}

impl Replay {
    /// The run time of trace time `at_ns` from the origin.
    pub fn due(&self, at_ns: u64) -> u64 {
        let since = at_ns.saturating_sub(self.origin_ns);
        match self.pace {
            Pace::Speed(s) if s != 1.0 => (since as f64 / s) as u64,
            Pace::Speed(_) => since,
            Pace::AsFastAsPossible => 0,
        }
    }

    /// Where an I/O of `len` bytes at `offset` of mapping `m` lands on its target.
    pub fn place(&self, m: &Mapping, offset: u64, len: u32) -> u64 {
        let len = len as u64;
        let size = m.target_size;
        let align = self.align.max(1);
        let last = size.saturating_sub(len) / align * align;
        let placed = match self.remap {
            Remap::Keep => return offset,
            Remap::Wrap if offset + len <= size => offset,
            Remap::Wrap => (offset % size) / align * align,
            Remap::Scale => {
                let scaled = offset as u128 * size as u128 / m.extent.max(1) as u128;
                scaled as u64 / align * align
            }
        };
        placed.min(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(remap: Remap) -> (Replay, Mapping) {
        let m = Mapping {
            device: DeviceKey::block(8, 0),
            name: "8,0".into(),
            extent: 1 << 30,
            target_size: 1 << 20,
        };
        let r = Replay {
            traces: vec![],
            stage: Stage::Queued,
            pace: Pace::Speed(2.0),
            remap,
            kinds: Kinds::ALL,
            mappings: vec![m.clone()],
            late_ns: 1000,
            origin_ns: 100,
            span_ns: 0,
            counts: [0; 4],
            align: 4096,
            cut_ns: u64::MAX,
            pool: Vec::new(),
        };
        (r, m)
    }

    #[test]
    fn offsets_wrap_or_scale_onto_the_target_aligned_and_inside() {
        let (r, m) = replay(Remap::Wrap);
        assert_eq!(r.place(&m, 8192, 4096), 8192);
        assert_eq!(r.place(&m, (1 << 20) + 12288, 4096), 12288);
        assert_eq!(r.place(&m, (1 << 20) - 4096, 8192), (1 << 20) - 8192);
        let (r, m) = replay(Remap::Scale);
        assert_eq!(r.place(&m, 1 << 29, 4096), 1 << 19);
        assert_eq!(r.place(&m, (1 << 30) - 4096, 4096), (1 << 20) - 4096);
        assert_eq!(r.place(&m, 3 * 4096 * 1024 + 5, 4096), 12288);
        assert_eq!(r.due(100 + 2_000), 1_000);
    }
}
