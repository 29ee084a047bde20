//! A target and everything the workload does to it: the per-target half of the profile.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A file or block device and the workload against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// The path as given (`*1`, `*2` … are template targets filled from the command line).
    #[serde(serialize_with = "super::lossy::path")]
    pub path: PathBuf,
    /// Bytes per I/O.
    #[serde(rename = "block_size_bytes")]
    pub block_size: u64,
    /// `-B`: first byte of the range used.
    #[serde(rename = "base_offset_bytes")]
    pub base_offset: u64,
    /// `-f`: the range ends before this offset.
    #[serde(rename = "max_size_bytes")]
    pub max_size: Option<u64>,
    /// `-c`: create the file with this size before the run.
    #[serde(rename = "create_size_bytes")]
    pub create_size: Option<u64>,
    /// `-o`: outstanding I/Os per thread on this target.
    pub requests: u32,
    /// `-t`: threads on this target (ignored with `-F`).
    pub threads_per_target: u32,
    /// `-T`: thread k starts at k × this.
    #[serde(rename = "thread_stride_bytes")]
    pub thread_stride: u64,
    /// `--offset-increment`: thread k's region starts k × this after the range's base, and ends
    /// (k − threads + 1) × this before its end: every thread's region is as long.
    #[serde(
        rename = "offset_increment_bytes",
        default,
        skip_serializing_if = "no_increment"
    )]
    pub offset_increment: u64,
    /// How offsets are chosen.
    pub access: Access,
    /// `-rdpct`/`-rdabs`: non-uniform random offsets.
    pub distribution: Option<Distribution>,
    /// `--distribution=zipf|pareto|normal`: random offsets drawn with a skew.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew: Option<Skew>,
    /// `-w`: percent of writes.
    pub write_ratio: u8,
    /// Page-cache use.
    pub cache: CacheMode,
    /// `-Sw`: every write is durable before it completes (O_DSYNC).
    pub write_through: bool,
    /// `--o-sync`: every write is durable with the metadata that finds it before it completes
    /// (O_SYNC, fio's `sync=1`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub o_sync: bool,
    /// `-Sm`: memory-mapped I/O.
    pub memory_mapped: bool,
    /// `-N`: how memory-mapped writes are flushed.
    pub flush: Option<FlushMode>,
    /// What the write buffers hold.
    pub write_buffer: WriteBuffer,
    /// `--compress`: written data compresses by this ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compress: Option<Compress>,
    /// `--dedupe`: written units repeat so that the target deduplicates by this ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedupe: Option<Dedupe>,
    /// `--trim`: percent of the I/Os that discard their block instead (the rest split by -w).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trim_percent: u8,
    /// `--fsync`/`--fdatasync`: a flush after every so many writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_every: Option<FlushEvery>,
    /// `--ios`/`--bytes`: each thread's I/O to this target ends once it has done this much in
    /// the measured window (fio's `number_ios`, `io_size`); `None` runs for the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<Work>,
    /// `--bssplit`: each I/O's size drawn from a list per direction; `block_size` is then the
    /// largest of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_split: Option<super::BlockSplit>,
    /// `--random-map`: random offsets without replacement, each aligned block once per pass
    /// over the range (fio's random map).
    #[serde(default, skip_serializing_if = "is_false")]
    pub random_map: bool,
    /// `--backwards`: sequential I/O moves down through the target by its stride, from the top,
    /// wrapping to the top again (fio's `rw=read:-<skip>`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub backwards: bool,
    /// `--max-latency`: the first measured read or write over it stops the run with ETIMEDOUT
    /// (fio's `max_latency`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_latency: Option<super::max_latency::MaxLatency>,
    /// `--ioprio-split`: shares of the reads and writes (of a size, or of every size) issued
    /// with priorities of their own (fio's `cmdprio_percentage`, `cmdprio_bssplit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ioprio_split: Option<super::ioprio_split::IoprioSplit>,
    /// `--serialize-overlap`: an I/O that overlaps one of its thread's in flight to the target
    /// waits for it to complete (fio's `serialize_overlap`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub serialize_overlap: bool,
    /// `--nowait`: reads and writes that would block fail with EAGAIN instead (RWF_NOWAIT, fio's
    /// `nowait`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub nowait: bool,
    /// `--pre-read`: the target's range is read once before the timespan starts (fio's
    /// `pre_read`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub pre_read: bool,
    /// `--invalidate`: the target's pages are dropped from the page cache before the timespan
    /// starts (fio's `invalidate`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub invalidate: bool,
    /// `--zones`: the I/O works one zone at a time (fio's `zonemode=strided`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<super::zones::Zones>,
    /// `-g`: rate cap per thread.
    pub throughput: Option<Throughput>,
    /// `--rate-process=poisson`: the `-g` rate's I/Os are due at exponentially distributed gaps
    /// (a Poisson process, fio's `rate_process=poisson`), not evenly spaced.
    #[serde(default, skip_serializing_if = "is_false")]
    pub poisson: bool,
    /// `--continue-on-error`: the failed I/Os of these directions are counted and the run goes
    /// on, instead of stopping at the first (fio's `continue_on_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_on_error: Option<ContinueOn>,
    /// `-i`/`-j`: bursts of I/O separated by think time.
    pub burst: Option<Burst>,
    /// `-I`: I/O priority.
    pub io_priority: IoPriority,
    /// `-f<r|s|t>`: access-pattern hints.
    pub hints: Hints,
    /// `-l`: I/O buffers on huge pages.
    pub large_pages: bool,
    /// Share of a `-F`/`-O` thread's I/O that goes to this target (XML `<Weight>`).
    pub weight: u32,
    /// XML `<ThreadTargets>`: the only threads that use this target, with their weights.
    pub thread_targets: Vec<ThreadTarget>,
}

impl Target {
    /// Whether I/O changes the target's content: writes or trims.
    pub fn modifies(&self) -> bool {
        self.write_ratio > 0 || self.trim_percent > 0
    }

    /// A target with DiskSpd's defaults.
    pub fn new(path: PathBuf) -> Self {
        Target {
            path,
            block_size: super::DEFAULT_BLOCK_SIZE,
            base_offset: 0,
            max_size: None,
            create_size: None,
            requests: super::DEFAULT_REQUESTS,
            threads_per_target: 1,
            thread_stride: 0,
            offset_increment: 0,
            access: Access::Sequential {
                stride: super::DEFAULT_BLOCK_SIZE,
                interlocked: false,
                parallel: false,
            },
            distribution: None,
            skew: None,
            write_ratio: 0,
            cache: CacheMode::Cached,
            write_through: false,
            o_sync: false,
            memory_mapped: false,
            flush: None,
            write_buffer: WriteBuffer::Pattern,
            compress: None,
            dedupe: None,
            trim_percent: 0,
            flush_every: None,
            work: None,
            block_split: None,
            random_map: false,
            backwards: false,
            zones: None,
            pre_read: false,
            invalidate: false,
            nowait: false,
            serialize_overlap: false,
            max_latency: None,
            ioprio_split: None,
            throughput: None,
            poisson: false,
            continue_on_error: None,
            burst: None,
            io_priority: IoPriority::Normal,
            hints: Hints::default(),
            large_pages: false,
            weight: 1,
            thread_targets: Vec::new(),
        }
    }

    /// Whether the path is a template (`*1`) still waiting for a command-line target.
    pub fn is_template(&self) -> bool {
        self.path.as_os_str().as_encoded_bytes().first() == Some(&b'*')
    }
}

/// Offset pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Access {
    /// Sequential with a stride.
    Sequential {
        /// Bytes between consecutive offsets.
        #[serde(rename = "stride_bytes")]
        stride: u64,
        /// `-si`: one shared offset per target.
        interlocked: bool,
        /// `-p`: every outstanding I/O of a thread walks its own copy of the sequence.
        parallel: bool,
    },
    /// Random offsets, multiples of `align`; with `ratio` < 100, runs of sequential I/O between
    /// random jumps (`-rs`).
    Random {
        /// Offsets are multiples of this.
        #[serde(rename = "align_bytes")]
        align: u64,
        /// Percent of I/Os at a random offset (100 = all).
        #[serde(rename = "random_percent")]
        ratio: u8,
    },
}

impl Access {
    /// With `--bssplit`: random offsets default to multiples of the smallest size, and a
    /// sequential I/O follows the last whatever its size (its stride, the smallest, is a floor
    /// the worker does not use).
    pub fn with_split(self, split: Option<&super::BlockSplit>) -> Self {
        let Some(split) = split else {
            return self;
        };
        let block = split.largest();
        match self {
            Access::Random { align, ratio } if align == block => Access::Random {
                align: split.smallest(),
                ratio,
            },
            Access::Sequential {
                stride,
                interlocked,
                parallel,
            } if stride == block => Access::Sequential {
                stride: split.smallest(),
                interlocked,
                parallel,
            },
            other => other,
        }
    }

    /// The alignment (random) or stride (sequential).
    pub fn alignment(self) -> u64 {
        match self {
            Access::Sequential { stride, .. } => stride,
            Access::Random { align, .. } => align,
        }
    }
}

/// `-rdpct`/`-rdabs`: how random I/O is spread over the target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    /// Ranges as percentages of the target or as byte lengths.
    pub kind: DistributionKind,
    /// Consecutive ranges, each with its share of the I/O. The last range absorbs what remains.
    pub ranges: Vec<DistributionRange>,
}

impl Distribution {
    /// DiskSpd's rule for a stated distribution, from the command line or a profile: when the
    /// I/O shares add up to less than 100 %, the rest of the I/O goes to the rest of the target
    /// as one more range (a percent range over the percent left, or an absolute range to the
    /// end). Validation then judges the completed list; completing twice changes nothing.
    pub fn complete(mut self) -> Self {
        let io: u32 = self.ranges.iter().map(|r| r.io_percent).sum();
        if io >= 100 {
            return self;
        }
        let span: u64 = self.ranges.iter().map(|r| r.span).sum();
        let rest = match self.kind {
            DistributionKind::Percent if span < 100 => 100 - span,
            _ => 0,
        };
        self.ranges.push(DistributionRange {
            io_percent: 100 - io,
            span: rest,
        });
        self
    }
}

/// `--distribution`: how random offsets are skewed towards a hot set of blocks (fio's
/// `random_distribution`). Parameters are finite and in range (checked when parsed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Skew {
    /// The block of popularity rank k (from 1) is drawn with probability ∝ 1/k^θ; hot blocks are
    /// scattered over the range.
    Zipf {
        /// θ > 0: the larger, the hotter the hottest blocks.
        theta: f64,
    },
    /// The hottest fraction h of the blocks takes 1 − h of the I/O (0.2: the 80/20 rule), and so
    /// on within every fraction; hot blocks are scattered over the range.
    Pareto {
        /// 0 < h < 1.
        h: f64,
    },
    /// A bell centred on the middle of the range, its standard deviation this percent of the
    /// range (draws outside the range are drawn again).
    Normal {
        /// 0 < σ ≤ 100.
        sigma_percent: f64,
    },
}

// Parameters are never NaN: they are parsed as finite numbers in range.
impl Eq for Skew {}

/// As `--distribution` takes it: `zipf:1.2`, `pareto:0.2`, `normal:10`.
impl std::fmt::Display for Skew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skew::Zipf { theta } => write!(f, "zipf:{theta}"),
            Skew::Pareto { h } => write!(f, "pareto:{h}"),
            Skew::Normal { sigma_percent } => write!(f, "normal:{sigma_percent}"),
        }
    }
}

/// `--compress=<ratio>[:<chunk>]`: every chunk of every written block compresses by `ratio`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Compress {
    /// Uncompressed over compressed size, at least 1.
    pub ratio: f64,
    /// The unit a compressor sees (zram's page, a file system's extent), bytes.
    #[serde(rename = "chunk_bytes")]
    pub chunk: u64,
}

// The ratio is parsed as a finite number (never NaN).
impl Eq for Compress {}

/// As `--compress` takes it: `2` or `2:16K`.
impl std::fmt::Display for Compress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.ratio, flag_size(self.chunk))
    }
}

/// A size as flags take it: `4K`, `1M`, `1536`.
fn flag_size(bytes: u64) -> String {
    match bytes {
        b if b % (1 << 20) == 0 => format!("{}M", b >> 20),
        b if b % 1024 == 0 => format!("{}K", b >> 10),
        b => b.to_string(),
    }
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn no_increment(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `--ios=<count>` and `--bytes=<size>`: the work a thread does on a target before its I/O to it
/// ends (whichever comes first when both are given). At least one is set, each at least 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// I/Os completed in the measured window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ios: Option<u64>,
    /// Bytes moved in the measured window (the last I/O may pass it by less than a block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Or bytes as a percentage of the target's range (`--bytes=100%`: one pass over it; 300%:
    /// three), known once the target is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_percent: Option<u32>,
}

impl Work {
    /// The I/O and byte limits on a target whose range is `range` bytes, `u64::MAX` where there
    /// is none.
    pub fn limits(work: Option<Work>, range: u64) -> (u64, u64) {
        let w = work.unwrap_or_default();
        let share = w
            .range_percent
            .map(|p| (range as u128 * p as u128 / 100).min(u64::MAX as u128) as u64);
        let bytes = match (w.bytes, share) {
            (Some(b), Some(s)) => b.min(s),
            (b, s) => b.or(s).unwrap_or(u64::MAX),
        };
        (w.ios.unwrap_or(u64::MAX), bytes.max(1))
    }
}

/// As the options take it: `--ios=1000`, `--bytes=1048576` or `--bytes=100%`, or both.
impl std::fmt::Display for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ios = self.ios.map(|n| format!("--ios={n}"));
        let bytes = match (self.bytes, self.range_percent) {
            (Some(n), _) => Some(format!("--bytes={n}")),
            (None, Some(p)) => Some(format!("--bytes={p}%")),
            (None, None) => None,
        };
        let parts: Vec<String> = ios.into_iter().chain(bytes).collect();
        f.write_str(&parts.join(" "))
    }
}

/// `--fsync=<N>` or `--fdatasync=<N>`: a thread flushes a target after every `writes` writes it
/// issued to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlushEvery {
    /// Writes between flushes, at least 1.
    pub writes: u32,
    /// `fdatasync` (data only) rather than `fsync` (data and metadata).
    pub data_only: bool,
}

/// As the options take it: `--fsync=8` or `--fdatasync=8`.
impl std::fmt::Display for FlushEvery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = if self.data_only { "fdatasync" } else { "fsync" };
        write!(f, "--{name}={}", self.writes)
    }
}

/// `--dedupe=<ratio>[:<unit>[:<sets>]][:flipflop]`: of the target's units, as many distinct
/// contents as `units / ratio`; the rest repeat one of `sets` contents (vdbench's dedupratio,
/// dedupunit, dedupsets and dedupflipflop).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Dedupe {
    /// Units over distinct contents, at least 1.
    pub ratio: f64,
    /// The unit a deduplicating device fingerprints, bytes.
    #[serde(rename = "unit_bytes")]
    pub unit: u64,
    /// How many distinct contents the duplicates share.
    pub sets: DedupeSets,
    /// A rewrite of a duplicate unit alternates between two contents of its set, so the device
    /// sees new data while the ratio holds (vdbench's flip-flop).
    #[serde(default)]
    pub flipflop: bool,
}

// The ratio is parsed as a finite number (never NaN).
impl Eq for Dedupe {}

/// `--dedupe`'s sets: a count, or a share of the distinct contents.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupeSets {
    /// This many.
    Count(u64),
    /// This percent of the distinct contents (at least one).
    Percent(f64),
}

/// The default sets: 5 % of the distinct contents, as vdbench's dedupsets.
pub const DEFAULT_DEDUPE_SETS: DedupeSets = DedupeSets::Percent(5.0);

/// As `--dedupe` takes it: `2:4K:5%` or `3:16K:64:flipflop`.
impl std::fmt::Display for Dedupe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.ratio, flag_size(self.unit))?;
        match self.sets {
            DedupeSets::Count(n) => write!(f, ":{n}")?,
            DedupeSets::Percent(p) => write!(f, ":{p}%")?,
        }
        if self.flipflop {
            f.write_str(":flipflop")?;
        }
        Ok(())
    }
}

/// Units of a distribution's ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DistributionKind {
    /// `-rdpct`: spans are percentages of the target.
    Percent,
    /// `-rdabs`: spans are byte lengths; 0 means "to the end".
    Absolute,
}

/// One range of a distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DistributionRange {
    /// Percent of the I/O (0 makes a hole).
    pub io_percent: u32,
    /// Percent of the target, or bytes (0 = to the end, absolute only).
    pub span: u64,
}

/// Page-cache use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheMode {
    /// Buffered I/O through the page cache.
    Cached,
    /// `-Su`: O_DIRECT.
    DisableOsCache,
}

pub use crate::engine::FlushMode;

/// Content of the write buffers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WriteBuffer {
    /// Bytes 0, 1, …, 255, 0, … (DiskSpd's default).
    Pattern,
    /// `-Z`: zeros.
    Zero,
    /// `--pattern=0x<hex>`: these bytes repeated from the start of every write buffer (fio's
    /// `buffer_pattern`).
    Repeat {
        /// The bytes, in hex.
        hex: String,
    },
    /// `-Z<size>[,file]`: each write copies a random window of a source buffer.
    Source {
        /// Size of the source buffer.
        #[serde(rename = "size_bytes")]
        size: u64,
        /// File the source is filled from (repeated); random data when `None`.
        #[serde(serialize_with = "super::lossy::optional_path")]
        file: Option<PathBuf>,
    },
}

/// A throughput cap per thread per target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Throughput {
    /// `-g<n>`: bytes per millisecond.
    BytesPerMs(u64),
    /// `-g<size>/s`: bytes per second (fio's `rate`).
    #[serde(rename = "bytes_per_s")]
    BytesPerS(u64),
    /// `-g<n>i`: I/Os per second.
    #[serde(rename = "ios_per_s")]
    Iops(u64),
}

/// `--continue-on-error`: which failed I/Os a run counts and goes on past: those of some
/// directions that end with one of some errors (by default `EIO`, the device's own report of a
/// failed transfer, as fio's `continue_on_error` passes). Others still stop the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContinueOn {
    /// The directions.
    pub ops: Continued,
    /// The errors passed (positive numbers, sorted, at least one).
    pub errors: Vec<i32>,
}

/// The directions `--continue-on-error` passes failures of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Continued {
    /// Reads.
    Read,
    /// Writes, trims and flushes.
    Write,
    /// Every I/O.
    Io,
}

impl ContinueOn {
    /// `[io|read|write][:ERR,…]`: the directions (every I/O when left out) and the errors, by
    /// name or number (`EIO` when left out).
    pub fn parse(text: &str) -> Result<ContinueOn, String> {
        let (ops, errors) = text.split_once(':').unwrap_or((text, ""));
        let ops = match ops {
            "" | "io" => Continued::Io,
            "read" => Continued::Read,
            "write" => Continued::Write,
            other => return Err(format!("'{other}' is not io, read or write")),
        };
        let mut numbers = Vec::new();
        for e in errors.split(',').filter(|e| !e.is_empty()) {
            numbers.push(crate::errno::parse(e).ok_or_else(|| {
                format!("'{e}' is not an error name (EIO, ENOSPC …) or a positive number")
            })?);
        }
        Ok(ContinueOn::new(ops, numbers))
    }

    /// Failures of `ops` ending with `errors` (EIO when empty).
    pub fn new(ops: Continued, mut errors: Vec<i32>) -> ContinueOn {
        if errors.is_empty() {
            errors.push(libc::EIO);
        }
        errors.sort_unstable();
        errors.dedup();
        ContinueOn { ops, errors }
    }

    /// The form `parse` reads: `write:EIO,ENOSPC`.
    pub fn text(&self) -> String {
        let ops = match self.ops {
            Continued::Read => "read",
            Continued::Write => "write",
            Continued::Io => "io",
        };
        let errors: Vec<String> = self.errors.iter().map(|&e| crate::errno::name(e)).collect();
        format!("{ops}:{}", errors.join(","))
    }

    /// Whether an I/O of `op` that ended with `result` (a negative errno, or a short count) is
    /// counted and passed.
    pub fn covers(&self, op: crate::engine::Op, result: i32) -> bool {
        let direction = match self.ops {
            Continued::Io => true,
            Continued::Read => op == crate::engine::Op::Read,
            Continued::Write => op != crate::engine::Op::Read,
        };
        direction && result < 0 && self.errors.contains(&-result)
    }
}

/// `-i`/`-j`: issue `size` I/Os, then pause `think_us`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Burst {
    /// I/Os per burst (split between the threads sharing the target).
    pub size: u32,
    /// Microseconds between bursts; in results as `think_ms`, milliseconds with a fraction
    /// where the pause is not whole milliseconds (`-j250us`).
    #[serde(rename = "think_ms", with = "micros_as_ms")]
    pub think_us: u64,
}

impl Burst {
    /// The think time in whole milliseconds, when it is (DiskSpd's `-j` and `<ThinkTime>`).
    pub fn whole_ms(&self) -> Option<u64> {
        (self.think_us % 1_000 == 0).then_some(self.think_us / 1_000)
    }
}

/// Microseconds written as milliseconds: an integer when whole, a fraction otherwise.
mod micros_as_ms {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(us: &u64, s: S) -> Result<S::Ok, S::Error> {
        match us % 1_000 {
            0 => s.serialize_u64(us / 1_000),
            _ => s.serialize_f64(*us as f64 / 1e3),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let ms = f64::deserialize(d)?;
        if !(ms >= 0.0 && ms <= u32::MAX as f64) {
            return Err(serde::de::Error::custom("think_ms is not a time in ms"));
        }
        Ok((ms * 1e3).round() as u64)
    }
}

/// `-I`: DiskSpd's I/O priority hint, mapped to Linux I/O priorities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoPriority {
    /// `-I1`: the idle class.
    VeryLow,
    /// `-I2`: best effort, lowest level (7).
    Low,
    /// `-I3`: the default.
    Normal,
    /// `--ioprio=<class>[:<level>]`: a Linux class and level.
    Class {
        /// The class.
        class: IoClass,
        /// The level within it, 0 (highest) to 7 (the idle class has none: 0).
        level: u8,
    },
}

/// Linux's I/O priority classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoClass {
    /// Real time (1): served before every other class; needs CAP_SYS_ADMIN.
    Rt,
    /// Best effort (2): the default class.
    Be,
    /// Idle (3): served only when nothing else waits.
    Idle,
}

impl IoClass {
    /// The kernel's number of the class.
    pub fn number(self) -> u16 {
        match self {
            IoClass::Rt => 1,
            IoClass::Be => 2,
            IoClass::Idle => 3,
        }
    }

    /// `rt`, `be`, `idle`.
    pub fn name(self) -> &'static str {
        match self {
            IoClass::Rt => "rt",
            IoClass::Be => "be",
            IoClass::Idle => "idle",
        }
    }
}

impl IoPriority {
    /// DiskSpd's number (1, 2, 3); a Linux class and level is DiskSpd's normal (3), its own
    /// element beside it carrying the class.
    pub fn number(self) -> u8 {
        match self {
            IoPriority::VeryLow => 1,
            IoPriority::Low => 2,
            IoPriority::Normal | IoPriority::Class { .. } => 3,
        }
    }

    /// The value for `ioprio_set` and io_uring's per-I/O priority (0 = inherit).
    pub fn linux_ioprio(self) -> u16 {
        const CLASS_SHIFT: u16 = 13;
        match self {
            IoPriority::VeryLow => 3 << CLASS_SHIFT,
            IoPriority::Low => (2 << CLASS_SHIFT) | 7,
            IoPriority::Normal => 0,
            IoPriority::Class { class, level } => (class.number() << CLASS_SHIFT) | level as u16,
        }
    }

    /// Reads `--ioprio`'s `<rt|be|idle>[:<0-7>]` (best effort's and real time's level 4, the
    /// kernel's default, unless given).
    pub fn parse_class(text: &str) -> Result<IoPriority, String> {
        let (name, level) = match text.split_once(':') {
            Some((name, level)) => (name, Some(level)),
            None => (text, None),
        };
        let class = match name.to_ascii_lowercase().as_str() {
            "rt" | "realtime" | "1" => IoClass::Rt,
            "be" | "best-effort" | "2" => IoClass::Be,
            "idle" | "3" => IoClass::Idle,
            other => {
                return Err(format!(
                    "'{other}' is not an I/O priority class (rt, be, idle)"
                ));
            }
        };
        let level = match (class, level) {
            (IoClass::Idle, Some(_)) => {
                return Err("the idle class has no levels; give --ioprio=idle".into());
            }
            (IoClass::Idle, None) => 0,
            (_, None) => 4,
            (_, Some(l)) => match l.parse::<u8>() {
                Ok(n) if n <= 7 => n,
                _ => return Err(format!("level '{l}' is not 0 (highest) to 7 (lowest)")),
            },
        };
        Ok(IoPriority::Class { class, level })
    }

    /// The form [`IoPriority::parse_class`] reads, for a class and level.
    pub fn class_text(self) -> Option<String> {
        match self {
            IoPriority::Class {
                class: IoClass::Idle,
                ..
            } => Some("idle".into()),
            IoPriority::Class { class, level } => Some(format!("{}:{level}", class.name())),
            _ => None,
        }
    }
}

/// `-f<r|s|t>`: hints passed to the kernel with posix_fadvise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hints {
    /// `s`: POSIX_FADV_SEQUENTIAL.
    pub sequential_scan: bool,
    /// `r`: POSIX_FADV_RANDOM.
    pub random_access: bool,
    /// `t`: Windows' temporary-file attribute; Linux has none, so it is recorded and ignored.
    pub temporary: bool,
}

/// XML `<ThreadTarget>`: a thread of a `-F` pool that uses the target, with its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadTarget {
    /// The thread number.
    pub thread: u32,
    /// The weight for this thread (0 = the target's weight).
    pub weight: u32,
}

/// `--pattern`'s bytes from their hex (which the option checked).
pub fn pattern_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// `--pattern=0x<hex>`: whole bytes, 1 to 4096 of them; lowercase hex.
pub fn parse_pattern(spec: &str) -> Result<String, String> {
    let hex = spec
        .strip_prefix("0x")
        .or(spec.strip_prefix("0X"))
        .ok_or_else(|| {
            format!("'{spec}' is not 0x followed by hex bytes; for example --pattern=0xdeadbeef")
        })?;
    if hex.is_empty() || hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "'{spec}': give whole bytes in hex (an even count of 0-9, a-f), for example --pattern=0xdeadbeef"
        ));
    }
    if hex.len() > 8192 {
        return Err(format!(
            "'{spec}' is {} bytes; a pattern holds at most 4096",
            hex.len() / 2
        ));
    }
    Ok(hex.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_and_level_read_back_and_become_the_kernels_value() {
        for (text, value, shown) in [
            ("rt:0", 1 << 13, "rt:0"),
            ("be", (2 << 13) | 4, "be:4"),
            ("BE:7", (2 << 13) | 7, "be:7"),
            ("idle", 3 << 13, "idle"),
            ("2:1", (2 << 13) | 1, "be:1"),
        ] {
            let p = IoPriority::parse_class(text).unwrap();
            assert_eq!(p.linux_ioprio(), value, "{text}");
            assert_eq!(p.class_text().as_deref(), Some(shown), "{text}");
            assert_eq!(p.number(), 3);
        }
        // DiskSpd's -I1 and -I2 are the idle class and best effort's lowest level.
        assert_eq!(IoPriority::VeryLow.linux_ioprio(), 3 << 13);
        assert_eq!(IoPriority::Low.linux_ioprio(), (2 << 13) | 7);
        for (text, why) in [
            ("idle:3", "no levels"),
            ("be:8", "0 (highest) to 7"),
            ("fast", "not an I/O priority class"),
        ] {
            let error = IoPriority::parse_class(text).unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
