//! How a write buffer is refreshed before each write: DiskSpd's fixed pattern, `-Zr`'s fresh
//! random bytes, windows of `-Z<size>`'s source, `--compress`'s chunks and `--dedupe`'s units.
//! The worker calls it for every write; `-c` for every chunk of a new file.

use crate::rng::Rng;

/// How a write buffer is refreshed before each write.
#[derive(Debug, Clone, Copy)]
pub enum WriteFill<'a> {
    /// Leave the initial content.
    Fixed,
    /// `-Zr`: fresh random bytes for every write.
    Random,
    /// `-Z<size>`: copy a random window of the source, starting at a multiple of `step`.
    Window {
        /// The source buffer.
        source: &'a [u8],
        /// Window starts are multiples of this (512 for O_DIRECT targets, as DiskSpd).
        step: usize,
    },
    /// `--compress`: chunks that compress by the ratio asked, each stamped afresh.
    Compressible(&'a crate::data::pattern::Compressible),
    /// `--dedupe` (with or without `--compress`): each unit of the block as its plan says.
    Deduped {
        /// Makes the units' bytes.
        data: &'a crate::data::pattern::Compressible,
        /// The plan, and which units were written with which version.
        tracker: &'a crate::data::dedupe::Tracker,
        /// The range's first byte: unit 0 starts there.
        base: u64,
        /// Bytes per unit (a block is a whole number of them).
        unit: usize,
    },
}

impl WriteFill<'_> {
    /// Prepares `buf` for the next write, at `offset`.
    #[inline]
    pub fn prepare(&self, buf: &mut [u8], rng: &mut Rng, offset: u64) {
        match *self {
            WriteFill::Fixed => {}
            WriteFill::Random => {
                for chunk in buf.chunks_mut(8) {
                    let bytes = rng.next_u64().to_ne_bytes();
                    chunk.copy_from_slice(&bytes[..chunk.len()]);
                }
            }
            WriteFill::Window { source, step } => {
                let windows = (source.len() - buf.len()) / step + 1;
                let start = rng.below(windows as u64) as usize * step;
                buf.copy_from_slice(&source[start..start + buf.len()]);
            }
            WriteFill::Compressible(generator) => {
                let stamp = rng.next_u64();
                generator.fill(buf, rng, stamp);
            }
            WriteFill::Deduped {
                data,
                tracker,
                base,
                unit,
            } => {
                use crate::data::{dedupe::Class, pattern::Key};
                let first = (offset - base) / unit as u64;
                for (i, bytes) in buf.chunks_mut(unit).enumerate() {
                    let index = first + i as u64;
                    let version = tracker.write(index);
                    let key = match tracker.plan.class(index) {
                        Class::Unique => Key::Fresh(index),
                        Class::Set(set) => Key::Shared { set, version },
                    };
                    data.fill_unit(bytes, rng, key);
                }
            }
        }
    }
}
