//! One pass over the whole input before the run: which devices it touches and how far, how long
//! it lasts, what kinds of I/O it holds, the largest I/O and the alignment of all of them. The
//! replay is planned from this (buffers, targets, checks), and a damaged trace is refused here,
//! before anything is written.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::pool::class_of;
use super::{DeviceKey, Stage, TraceError, open_all};
use crate::engine::Op;
use crate::profile::replay::Kinds;

/// The largest read or write a replay issues: its buffers are the largest I/O rounded up to
/// 4 KiB, and a block is below 4 GiB.
pub const MAX_IO: u32 = u32::MAX - 4095;

/// What one device of the trace saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Device {
    /// Its name in the trace.
    pub name: String,
    /// I/Os on it.
    pub events: u64,
    /// The end of its furthest I/O.
    pub extent: u64,
}

/// The whole input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Devices by key (block devices by number, named files in the order met).
    pub devices: BTreeMap<DeviceKey, Device>,
    /// I/Os kept, by kind: read, write, trim, flush.
    pub counts: [u64; 4],
    /// Bytes read, written, trimmed.
    pub bytes: [u64; 3],
    /// Time of the first and the last kept I/O, ns.
    pub first_ns: u64,
    /// See `first_ns`.
    pub last_ns: u64,
    /// The largest read or write (trims move no data through a buffer).
    pub max_len: u32,
    /// The largest power of two (at most 4096) dividing every offset and length.
    pub align: u64,
    /// Events that came earlier than the one before them.
    pub out_of_order: u64,
    /// Reads and writes by size class ([`super::pool::class_of`] of the largest).
    pub sizes: BTreeMap<u64, u64>,
}

impl Summary {
    /// I/Os kept.
    pub fn events(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Index into `counts` of `op`.
    pub fn kind(op: Op) -> usize {
        match op {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim => 2,
            Op::Fsync | Op::Fdatasync => 3,
        }
    }
}

/// Reads `traces` once, keeping the events of `stage` of the kinds `kinds` (and of `only`
/// devices when given).
pub fn summarize(
    traces: &[PathBuf],
    stage: Stage,
    kinds: Kinds,
    only: Option<&[DeviceKey]>,
) -> Result<Summary, TraceError> {
    let mut merged = open_all(traces, stage)?;
    let mut s = Summary {
        align: 4096,
        ..Summary::default()
    };
    while let Some(e) = merged.next_event()? {
        if !kinds.keeps(e.op) || only.is_some_and(|o| !o.contains(&e.device)) {
            continue;
        }
        if s.events() == 0 {
            s.first_ns = e.at_ns;
        }
        s.last_ns = s.last_ns.max(e.at_ns);
        let kind = Summary::kind(e.op);
        s.counts[kind] += 1;
        let device = s.devices.entry(e.device).or_default();
        device.events += 1;
        if e.op.has_range() {
            if e.offset
                .checked_add(e.len as u64)
                .is_none_or(|end| end > i64::MAX as u64)
            {
                return Err(merged.here(format!(
                    "an I/O at byte {} of {} bytes ends past the largest offset a device or file can have (2^63 - 1); replay a trace without it",
                    e.offset, e.len
                )));
            }
            s.bytes[kind] += e.len as u64;
            device.extent = device.extent.max(e.offset + e.len as u64);
            if e.op.moves_data() {
                if e.len > MAX_IO {
                    return Err(merged.here(format!(
                        "a {} of {} bytes, more than one I/O iospd issues (at most {MAX_IO} bytes, 4 GiB - 4 KiB); replay a trace without it",
                        if e.op == Op::Read { "read" } else { "write" },
                        e.len
                    )));
                }
                s.max_len = s.max_len.max(e.len);
                *s.sizes.entry(class_of(e.len as u64, u64::MAX)).or_default() += 1;
            }
            while s.align > 1 && (e.offset % s.align != 0 || e.len as u64 % s.align != 0) {
                s.align /= 2;
            }
        }
    }
    s.out_of_order = merged.out_of_order;
    // Powers of two above the largest I/O are the largest, rounded to 4 KiB.
    let top = class_of(s.max_len as u64, s.max_len as u64);
    let above: u64 = s.sizes.split_off(&(top + 1)).values().sum();
    if above > 0 {
        *s.sizes.entry(top).or_default() += above;
    }
    for (key, device) in s.devices.iter_mut() {
        device.name = merged.name(*key);
    }
    Ok(s)
}
