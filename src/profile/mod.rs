//! The resolved workload: what to run, fully typed, independent of how it was written down.
//!
//! A command line (and later an XML profile) becomes one [`Profile`]; everything downstream (plan,
//! run, report) reads only this. Sizes are bytes, durations seconds, and every DiskSpd default has
//! been applied.

mod resolve;
mod validate;

use std::path::PathBuf;

use thiserror::Error;

use crate::engine::EngineKind;

pub use resolve::resolve;

/// DiskSpd's default block size.
pub const DEFAULT_BLOCK_SIZE: u64 = 64 * 1024;
/// DiskSpd's default outstanding I/Os per target per thread.
pub const DEFAULT_REQUESTS: u32 = 2;
/// DiskSpd's default measured seconds.
pub const DEFAULT_DURATION: u32 = 10;
/// DiskSpd's default warm-up seconds.
pub const DEFAULT_WARMUP: u32 = 5;

/// A whole run: global settings and one or more timespans executed in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The command line as typed, for the report header.
    pub command_line: String,
    /// `-v`: timestamped progress lines.
    pub verbose: bool,
    /// `-P`: a progress dot every this many completions per thread.
    pub progress: Option<u64>,
    /// `-Rp`: print the profile instead of running it.
    pub print_profile: bool,
    /// The requested I/O engine.
    pub engine: EngineKind,
    /// `--spin`: how threads wait for completions.
    pub spin: Spin,
    /// The timespans, run in order.
    pub timespans: Vec<TimeSpan>,
}

/// One measured run over a set of targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeSpan {
    /// Measured seconds.
    pub duration_s: u32,
    /// Warm-up seconds (load on, not counted).
    pub warmup_s: u32,
    /// Cool-down seconds (load on, not counted).
    pub cooldown_s: u32,
    /// Base random seed; thread k uses seed + k.
    pub seed: u32,
    /// `-F`: a fixed pool of threads each serving every target; `None` means threads per target.
    pub thread_count: Option<u32>,
    /// Which CPUs the threads run on.
    pub affinity: Affinity,
    /// `-L`: report latency statistics.
    pub measure_latency: bool,
    /// `-D`: interval for IOPS time series, in milliseconds.
    pub iops_interval_ms: Option<u32>,
    /// `-Zr`: fresh random data for every write.
    pub random_write_data: bool,
    /// The targets, in command-line order.
    pub targets: Vec<Target>,
}

/// Thread placement on CPUs.
///
/// DiskSpd pins every thread by default. iospd leaves placement to the scheduler unless `-a` asks
/// for pinning: a pinned thread's CPU mask is inherited by the kernel's io_uring worker threads,
/// which then compete with the thread on one CPU whenever the kernel hands I/O to them (devices
/// without non-blocking submission such as zram, buffered reads that miss the page cache). On zram
/// that halves throughput.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Affinity {
    /// No pinning: the scheduler places threads (iospd's default).
    Scheduler,
    /// `-a`/`-ag`: thread i on the i-th CPU this process may use, wrapping (DiskSpd's default).
    RoundRobin,
    /// `-a…`: thread i on list[i mod len].
    Cpus(Vec<u32>),
    /// `-n`: no pinning.
    Disabled,
}

/// A file or block device and the workload against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The path as given.
    pub path: PathBuf,
    /// Bytes per I/O.
    pub block_size: u64,
    /// `-B`: first byte of the range used.
    pub base_offset: u64,
    /// `-f`: the range ends before this offset.
    pub max_size: Option<u64>,
    /// `-c`: create the file with this size before the run.
    pub create_size: Option<u64>,
    /// `-o`: outstanding I/Os per thread on this target.
    pub requests: u32,
    /// `-t`: threads on this target (ignored with `-F`).
    pub threads_per_target: u32,
    /// `-T`: thread k starts at k × this.
    pub thread_stride: u64,
    /// How offsets are chosen.
    pub access: Access,
    /// `-w`: percent of writes.
    pub write_ratio: u8,
    /// Page-cache use.
    pub cache: CacheMode,
    /// `-Sw`: every write is durable before it completes (O_DSYNC).
    pub write_through: bool,
    /// What the write buffers hold.
    pub write_buffer: WriteBuffer,
    /// `-g`: rate cap per thread.
    pub throughput: Option<Throughput>,
}

/// Offset pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Sequential with a stride; `interlocked` shares one offset between the target's threads.
    Sequential {
        /// Bytes between consecutive offsets.
        stride: u64,
        /// `-si`: one shared offset per target.
        interlocked: bool,
    },
    /// Uniform random offsets, multiples of `align`.
    Random {
        /// Offsets are multiples of this.
        align: u64,
    },
}

impl Access {
    /// The alignment (random) or stride (sequential).
    pub fn alignment(self) -> u64 {
        match self {
            Access::Sequential { stride, .. } => stride,
            Access::Random { align } => align,
        }
    }
}

/// Page-cache use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    /// Buffered I/O through the page cache.
    Cached,
    /// `-Su`: O_DIRECT.
    DisableOsCache,
}

/// Content of the write buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteBuffer {
    /// Bytes 0, 1, …, 255, 0, … (DiskSpd's default).
    Pattern,
    /// `-Z`: zeros.
    Zero,
    /// `-Z<size>[,file]`: each write copies a random window of a source buffer.
    Source {
        /// Size of the source buffer.
        size: u64,
        /// File the source is filled from (repeated); random data when `None`.
        file: Option<PathBuf>,
    },
}

/// A throughput cap per thread per target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Throughput {
    /// `-g<n>`: bytes per millisecond.
    BytesPerMs(u64),
    /// `-g<n>i`: I/Os per second.
    Iops(u64),
}

/// How a thread waits when all its I/O is in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spin {
    /// Poll for up to [`Spin::AUTO_US`] before sleeping when there are at least two CPUs per
    /// thread (so spinning never takes a CPU that a kernel worker needs); otherwise sleep.
    Auto,
    /// `--spin=<µs>`: poll this long before sleeping; 0 always sleeps (DiskSpd's and fio's way).
    Micros(u32),
}

impl Spin {
    /// The budget of [`Spin::Auto`], in microseconds.
    pub const AUTO_US: u32 = 50;

    /// The polling budget per wait for `threads` threads on `cpus` CPUs.
    pub fn budget_ns(self, threads: usize, cpus: usize) -> u64 {
        let us = match self {
            Spin::Auto if threads * 2 <= cpus => Spin::AUTO_US,
            Spin::Auto => 0,
            Spin::Micros(us) => us,
        };
        us as u64 * 1000
    }
}

/// A combination of options that cannot run.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ProfileError {
    /// Two options that exclude each other.
    #[error("{first} and {second} cannot be combined: {why}")]
    Conflict {
        /// The first option.
        first: &'static str,
        /// The second option.
        second: &'static str,
        /// Why, and what to do.
        why: &'static str,
    },
    /// A value that is valid alone but not in this profile.
    #[error("{0}")]
    Invalid(String),
}

impl TimeSpan {
    /// Threads running against each target (`-F` threads serve every target).
    pub fn threads_per_target(&self, target: &Target) -> u32 {
        self.thread_count.unwrap_or(target.threads_per_target)
    }
}
