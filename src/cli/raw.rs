//! The command line exactly as typed, before sizes in blocks are resolved.
//!
//! DiskSpd resolves `8b` against the final `-b` wherever it appears, so the first level keeps sizes
//! unresolved and remembers only what was given; `profile::resolve` builds the typed profile once
//! the whole line has been read.

use std::path::PathBuf;

use super::units::Size;
use crate::engine::EngineKind;
use crate::profile::{CacheMode, Throughput};

/// How `-s` was typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequentialArg {
    /// `-si`: one shared offset per target for all its threads.
    pub interlocked: bool,
    /// The stride; the block size when omitted.
    pub stride: Option<Size>,
}

/// How `-Z` was typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteBufferArg {
    /// `-Z`: zero-filled write buffers.
    Zero,
    /// `-Zr`: fresh random content for every write.
    RandomEachWrite,
    /// `-Z<size>[,file]`: writes take random windows of a source buffer.
    Source {
        /// Size of the source buffer.
        size: Size,
        /// File whose content fills the source buffer (repeated); random bytes when absent.
        file: Option<PathBuf>,
    },
}

/// Every option of the command line, each `None`/`false`/empty until given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawArgs {
    /// `-?`: print usage and exit.
    pub help: bool,
    /// `-b`: block size in bytes.
    pub block_size: Option<u64>,
    /// `-o`: outstanding I/Os per target per thread.
    pub outstanding: Option<u32>,
    /// `-t`: threads per target.
    pub threads_per_target: Option<u32>,
    /// `-F`: total threads, each serving every target.
    pub total_threads: Option<u32>,
    /// `-T`: start-offset stride between the threads of a target.
    pub thread_stride: Option<Size>,
    /// `-r[align]`: random I/O; the inner value is the alignment when typed.
    pub random: Option<Option<Size>>,
    /// `-s[i][stride]`: sequential I/O.
    pub sequential: Option<SequentialArg>,
    /// `-w`: percentage of writes.
    pub write_ratio: Option<u8>,
    /// `-d`: measured seconds.
    pub duration: Option<u32>,
    /// `-W`: warm-up seconds.
    pub warmup: Option<u32>,
    /// `-C`: cool-down seconds.
    pub cooldown: Option<u32>,
    /// `-c`: create file targets of this size.
    pub create_size: Option<Size>,
    /// `-Z…`: write buffer content.
    pub write_buffers: Option<WriteBufferArg>,
    /// `-S`/`-Sb`/`-Su`/`-Sh`/`-h`: OS cache mode.
    pub cache_mode: Option<CacheMode>,
    /// `-Sw`/`-Sh`/`-h`: write-through (O_DSYNC).
    pub write_through: Option<bool>,
    /// `-L`: report latency.
    pub measure_latency: bool,
    /// `-D[ms]`: IOPS interval in milliseconds.
    pub iops_interval_ms: Option<u32>,
    /// `-g`: throughput cap per thread per target.
    pub throughput: Option<Throughput>,
    /// `-B`: base offset.
    pub base_offset: Option<Size>,
    /// `-B<base>:<length>`: length of the range after the base.
    pub base_length: Option<Size>,
    /// `-f<size>`: maximum offset (exclusive).
    pub max_size: Option<Size>,
    /// `-z[seed]`: random seed.
    pub seed: Option<u32>,
    /// `-n`: no CPU affinity.
    pub no_affinity: bool,
    /// `-a…`: explicit CPU list (empty when only the default round-robin was asked for).
    pub affinity: Vec<u32>,
    /// `-a` or `-ag` was given at all.
    pub affinity_given: bool,
    /// `-P[n]`: progress dot every n completions per thread.
    pub progress: Option<u64>,
    /// `-v`: verbose progress log.
    pub verbose: bool,
    /// `-Rp`: print the resolved profile and stop.
    pub print_profile: bool,
    /// `-R<format>` was given (text is the only format of this build).
    pub result_format_given: bool,
    /// `--engine=`: the I/O engine.
    pub engine: Option<EngineKind>,
    /// `--spin=`: completion polling budget in microseconds.
    pub spin_us: Option<u32>,
    /// Target paths in command-line order.
    pub targets: Vec<PathBuf>,
}
