//! The command line exactly as typed, before sizes in blocks are resolved.
//!
//! DiskSpd resolves `8b` against the final `-b` wherever it appears, so the first level keeps sizes
//! unresolved and remembers only what was given; `profile::resolve` builds the typed profile once
//! the whole line has been read.

use std::path::PathBuf;

use super::{
    BufferSeparation, CacheMode, Counters, DistributionKind, Efficiency, Events, FlushMode, Hints,
    IoPriority, IoRing, ResultFormat, Throughput,
};
use crate::engine::EngineKind;
use crate::units::Size;

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

/// `-rdpct…`/`-rdabs…` as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistributionArg {
    /// Percent or absolute ranges.
    pub kind: DistributionKind,
    /// (IO %, span) pairs; spans in percent or as sizes.
    pub ranges: Vec<(u32, Size)>,
}

/// Every option of the command line, each `None`/`false`/empty until given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawArgs {
    /// Every option token, in order, for the rules about what may accompany `-X`.
    pub given: Vec<String>,
    /// `-?`: print usage and exit.
    pub help: bool,
    /// `--version`.
    pub version: bool,
    /// `--completions=<shell>`.
    pub completions: Option<String>,
    /// `-b`: block size in bytes.
    pub block_size: Option<u64>,
    /// `-bs`: buffer separation.
    pub buffer_separation: Option<BufferSeparation>,
    /// `-o`: outstanding I/Os per target per thread.
    pub outstanding: Option<u32>,
    /// `-oc`: completions taken per look at the completion queue.
    pub completion_depth: Option<u32>,
    /// `-O`: outstanding I/Os per thread with `-F`.
    pub requests_per_thread: Option<u32>,
    /// `--file-service=`: how a `-O` pool's I/Os choose their target.
    pub file_service: Option<super::FileService>,
    /// `--steady-state=`: end the timespan once its throughput holds steady.
    pub steady_state: Option<super::steady::SteadyRule>,
    /// `-t`: threads per target.
    pub threads_per_target: Option<u32>,
    /// `-F`: total threads, each serving every target.
    pub total_threads: Option<u32>,
    /// `-T`: start-offset stride between the threads of a target.
    pub thread_stride: Option<Size>,
    /// `--offset-increment`: thread k of a target works its own region, k × this after the first.
    pub offset_increment: Option<Size>,
    /// `-r[align]`: random I/O; the inner value is the alignment when typed.
    pub random: Option<Option<Size>>,
    /// `-rs<pct>`: percent of random I/Os in a mixed pattern.
    pub random_ratio: Option<u8>,
    /// `-rdpct…`/`-rdabs…`: distribution of random offsets.
    pub distribution: Option<DistributionArg>,
    /// `--compress=<ratio>[:<chunk>]`: compressible write data.
    pub compress: Option<crate::profile::Compress>,
    /// `--dedupe=<ratio>[:<unit>[:<sets>]][:flipflop]`: duplicate write data.
    pub dedupe: Option<crate::profile::Dedupe>,
    /// `--trim=<percent>`.
    pub trim_percent: Option<u8>,
    /// `--fsync=<N>` / `--fdatasync=<N>`.
    pub flush_every: Option<crate::profile::FlushEvery>,
    /// `--ios=<count>`: each thread's I/Os per target.
    pub work_ios: Option<u64>,
    /// `--bytes=<size>`: each thread's bytes per target.
    pub work_bytes: Option<Size>,
    /// `--bytes=<percent>%`: each thread's bytes per target as a share of its range.
    pub work_percent: Option<u32>,
    /// `--random-map`: random offsets without replacement.
    pub random_map: bool,
    /// `--invalidate`: each target's clean pages dropped from the page cache before each
    /// timespan.
    pub invalidate: bool,
    /// `--pre-read`: each target's range read once before each timespan.
    pub pre_read: bool,
    /// `--nowait`: RWF_NOWAIT on every read and write.
    pub nowait: bool,
    /// `--serialize-overlap`: overlapping I/Os of a thread wait for one another.
    pub serialize_overlap: bool,
    /// `--max-latency=`: the longest a measured read or write may take.
    pub max_latency: Option<crate::profile::max_latency::MaxLatency>,
    /// `--ioprio-split=`: shares of the I/O with priorities of their own.
    pub ioprio_split: Option<crate::profile::ioprio_split::IoprioSplit>,
    /// `--backwards`: sequential offsets move down.
    pub backwards: bool,
    /// `--zones=`: the I/O works one zone at a time.
    pub zones: Option<super::zones::Zones>,
    /// `--rate-process=poisson`: `-g`'s I/Os arrive as a Poisson process.
    pub poisson: bool,
    /// `--continue-on-error[=read|write|io]`.
    pub continue_on_error: Option<super::ContinueOn>,
    /// `--bssplit=<sizes>`: mixed block sizes.
    pub block_split: Option<crate::profile::BlockSplit>,
    /// `--distribution=zipf|pareto|normal`: skewed random offsets.
    pub skew: Option<crate::profile::Skew>,
    /// `-s[i][stride]`: sequential I/O.
    pub sequential: Option<SequentialArg>,
    /// `-p`: parallel sequential streams per outstanding I/O.
    pub parallel: bool,
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
    /// `--pattern=0x<hex>`: the bytes every write buffer repeats (lowercase hex).
    pub pattern: Option<String>,
    /// `-S`/`-Sb`/`-Su`/`-Sh`/`-h`: OS cache mode.
    pub cache_mode: Option<CacheMode>,
    /// `-Sw`/`-Sh`/`-h`: write-through (O_DSYNC).
    pub write_through: Option<bool>,
    /// `--o-sync`: writes durable with their metadata (O_SYNC).
    pub o_sync: bool,
    /// `-Sm`: memory-mapped I/O.
    pub memory_mapped: bool,
    /// `-N`: memory-mapped flush mode.
    pub flush: Option<FlushMode>,
    /// `-L`: report latency.
    pub measure_latency: bool,
    /// `-D[ms]`: IOPS interval in milliseconds.
    pub iops_interval_ms: Option<u32>,
    /// `-g`: throughput cap per thread per target.
    pub throughput: Option<Throughput>,
    /// `-i`: I/Os per burst.
    pub burst_size: Option<u32>,
    /// `-j`: microseconds between bursts.
    pub think_time: Option<u64>,
    /// `-I`: I/O priority.
    pub io_priority: Option<IoPriority>,
    /// `-f<r|s|t>`: access hints.
    pub hints: Option<Hints>,
    /// `-l`: huge-page buffers.
    pub large_pages: bool,
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
    /// `--cpu-set=`: the CPUs the threads run on, unpinned.
    pub cpu_set: Option<Vec<u32>>,
    /// `--nice=`: the run's CPU priority.
    pub nice: Option<i32>,
    /// `--lock-memory=`: bytes locked away from the rest of the machine during the run.
    pub lock_memory: Option<u64>,
    /// `--mem-policy=`: the threads' NUMA memory policy.
    pub mem_policy: Option<crate::profile::mem_policy::MemPolicy>,
    /// `--flow=`: the run's weight in a flow and its file.
    pub flow: Option<crate::profile::flow::Flow>,
    /// `--flow-sleep=`: µs a thread over its share waits.
    pub flow_sleep_us: Option<u64>,
    /// `-ac`: core-aware CPU order.
    pub core_aware: bool,
    /// `-as`: span processor groups.
    pub span_groups: bool,
    /// `-ap`/`-aP`/`-ae`/`-aE`/`-aup`: efficiency-class order.
    pub efficiency: Option<Efficiency>,
    /// `-P[n]`: progress dot every n completions per thread.
    pub progress: Option<u64>,
    /// `-v`: verbose progress log.
    pub verbose: bool,
    /// `-vs`: wait statistics.
    pub verbose_stats: bool,
    /// `-R<format>`: result format.
    pub result_format: Option<ResultFormat>,
    /// `-Rp`: print the resolved profile and stop.
    pub print_profile: bool,
    /// `-Rs`: print the system information and stop.
    pub print_system: bool,
    /// `-:`: experiment flags.
    pub experiment_flags: Option<u32>,
    /// `-e…`: counters.
    pub counters: Counters,
    /// `-y…`: named events.
    pub events: Events,
    /// `-ye<name>`: set this event and exit.
    pub set_event: Option<String>,
    /// `-u…`: io_uring wait batch and registration.
    pub io_ring: Option<IoRing>,
    /// `-X<file>`: an XML profile.
    pub xml_profile: Option<PathBuf>,
    /// `--engine=`: the I/O engine.
    pub engine: Option<EngineKind>,
    /// `--spin=`: completion polling budget in microseconds.
    pub spin_us: Option<u32>,
    /// `--output=`: report files.
    pub outputs: Vec<PathBuf>,
    /// `--percentiles=`: extra percentiles for JSON and XML.
    pub percentiles: Vec<f64>,
    /// `--force`: write to devices and files that hold data.
    pub force: bool,
    /// `--recreate`: `-c` rewrites its files even when they could be reused.
    pub recreate: bool,
    /// `--keep-existing`: `-c` creates only files that are missing or shorter than its size.
    pub keep_existing: bool,
    /// `--dry-run`: every check a run makes, then stop.
    pub dry_run: bool,
    /// `--create-only`: every check a run makes, the `-c` files laid out, then stop.
    pub create_only: bool,
    /// `--timeseries=`: the time-series CSV.
    pub timeseries: Option<PathBuf>,
    /// `--histlog=`: the HdrHistogram interval log.
    pub histlog: Option<PathBuf>,
    /// `--trace=`: the per-I/O trace.
    pub trace: Option<PathBuf>,
    /// `--checkpoint=`: seconds between rewrites of the --output files.
    pub checkpoint_s: Option<u32>,
    /// `--quiet`: no progress line.
    pub quiet: bool,
    /// `--metrics=`: where the live metrics are served.
    pub metrics: Option<std::net::SocketAddr>,
    /// `--sqpoll[=ms]`: the SQ polling thread's idle time.
    pub sqpoll_idle_ms: Option<u32>,
    /// `--sqpoll-cpu=`: the CPU of the polling kernel thread.
    pub sqpoll_cpu: Option<u32>,
    /// `--iopoll`: polled completions.
    pub iopoll: bool,
    /// `--no-device-clock`: no per-request device times.
    pub no_device_clock: bool,
    /// `--device-clock=`: every request timed (`true`), or a sample above a rate.
    pub device_clock_every: Option<bool>,
    /// `--start-at=`: the wall-clock time the run starts.
    pub start_at: Option<std::time::SystemTime>,
    /// `--peer-timeout=`: seconds to wait for the other ranks of a run across hosts.
    pub peer_timeout_s: Option<u32>,
    /// `--repeat=`: how many times the timespans run.
    pub repeat: Option<u32>,
    /// `--pause=`: seconds of idle between timespans.
    pub pause_s: Option<u32>,
    /// `--verify` (false) or `--verify=stop` (true).
    pub verify: Option<bool>,
    /// `--verify-state=`: where the written blocks are saved.
    pub verify_state: Option<PathBuf>,
    /// Target paths in command-line order.
    pub targets: Vec<PathBuf>,
}
