//! The resolved workload: what to run, fully typed, independent of how it was written down.
//!
//! A command line or an XML profile (`-X`) becomes one [`Profile`]; everything downstream (plan,
//! run, report) reads only this. Sizes are bytes, durations seconds, and every DiskSpd default has
//! been applied.

mod block_split;
mod file_engine;
pub mod flow;
pub mod ioprio_split;
mod lossy;
pub mod max_latency;
pub mod mem_policy;
pub mod raw;
pub mod replay;
mod resolve;
pub mod spec;
pub mod steady;
mod target;
mod validate;
mod verifiable;
pub mod xml;
pub mod zones;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::engine::EngineKind;

pub use block_split::{BlockSplit, MAX_SIZES, SizeShare};
pub use resolve::{Resolved, resolve};
pub use target::{
    Access, Burst, CacheMode, Compress, ContinueOn, Continued, DEFAULT_DEDUPE_SETS, Dedupe,
    DedupeSets, Distribution, DistributionKind, DistributionRange, FlushEvery, FlushMode, Hints,
    IoClass, IoPriority, Skew, Target, ThreadTarget, Throughput, Work, WriteBuffer, parse_pattern,
    pattern_bytes,
};
pub use validate::validate;

/// DiskSpd's default block size.
pub const DEFAULT_BLOCK_SIZE: u64 = 64 * 1024;
/// DiskSpd's default outstanding I/Os per target per thread.
pub const DEFAULT_REQUESTS: u32 = 2;
/// DiskSpd's default measured seconds.
pub const DEFAULT_DURATION: u32 = 10;
/// DiskSpd's default warm-up seconds.
pub const DEFAULT_WARMUP: u32 = 5;
/// DiskSpd's default `-D` interval.
pub const DEFAULT_IOPS_INTERVAL_MS: u32 = 1000;
/// DiskSpd's default `-P` period.
pub const DEFAULT_PROGRESS: u64 = 65536;

/// How long, by default, the ranks of a run across hosts wait for the last one to get ready (or to
/// finish) before they give up.
pub const DEFAULT_PEER_TIMEOUT: u32 = 60;

fn one() -> u32 {
    1
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn default_peer_timeout() -> u32 {
    DEFAULT_PEER_TIMEOUT
}

/// The most I/Os one thread may keep in flight: the largest io_uring submission queue (32768
/// entries, with a completion queue of twice that).
pub const MAX_OUTSTANDING: u64 = 32768;
/// The largest thread count accepted by `-t`/`-F`.
pub const MAX_THREADS: u64 = 4096;
/// The largest CPU number accepted by `-a`.
pub const MAX_CPU: u64 = 8191;

/// A whole run: global settings and one or more timespans executed in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The command line as typed, for the report header.
    pub command_line: String,
    /// `-v`: timestamped progress lines.
    pub verbose: bool,
    /// `-vs`: wait statistics in the report.
    pub verbose_stats: bool,
    /// `-P`: a progress dot every this many completions per thread.
    pub progress: Option<u64>,
    /// `-R`: the format printed on stdout.
    pub result_format: ResultFormat,
    /// What to do: run, or only print the profile or the system information.
    pub action: Action,
    /// `-:`: DiskSpd's experiment flags (echoed; iospd's pacing is always precise).
    pub experiment_flags: u32,
    /// `-e`: system counters sampled around the measured window.
    pub counters: Counters,
    /// `-y`: named events.
    pub events: Events,
    /// XML `<PrecreateFiles>`: create files before the first timespan.
    pub precreate: Option<Precreate>,
    /// `--engine`: the requested I/O engine.
    pub engine: EngineKind,
    /// `--spin`: how threads wait for completions.
    pub spin: Spin,
    /// `--output`: report files written besides stdout.
    #[serde(serialize_with = "lossy::paths")]
    pub outputs: Vec<PathBuf>,
    /// `--percentiles`: percentiles reported besides DiskSpd's rows and every integer one.
    pub percentiles: Vec<f64>,
    /// `--force`: write even where the safety checks would refuse.
    pub force: bool,
    /// `--recreate`: `-c` rewrites a file even when it is iospd's complete test file of the same
    /// size and fill, which it otherwise reuses.
    #[serde(default)]
    pub recreate: bool,
    /// `--cpu-set`: the CPUs the whole run is restricted to, its threads unpinned within them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_set: Vec<u32>,
    /// `--nice`: the niceness the run's threads have (−20 to 19; `None` leaves it as it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nice: Option<i32>,
    /// `--lock-memory`: bytes locked (mlock) for the run, so that the page cache and the rest of
    /// the machine have that much less memory (fio's `lockmem`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_memory_bytes: Option<u64>,
    /// `--mem-policy`: the NUMA memory policy the run's threads have (fio's `numa_mem_policy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_policy: Option<mem_policy::MemPolicy>,
    /// `--flow`: the run's threads keep to their share of the I/O of every run on the flow file
    /// (fio's `flow`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<flow::Flow>,
    /// `--keep-existing`: `-c` lays out only a file that is missing or shorter than its size; a
    /// longer file is used as it is, its range cut to the size (fio's layout rule).
    #[serde(default)]
    pub keep_existing: bool,
    /// Live outputs: time series, interval log, trace, checkpoints, progress.
    pub observe: Observe,
    /// `--sqpoll`, `--iopoll`.
    #[serde(default)]
    pub fast_paths: crate::engine::FastPaths,
    /// `--start-at`: the wall-clock time the first timespan starts, in nanoseconds since the epoch,
    /// so that instances started independently on many hosts run together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at_unix_ns: Option<u64>,
    /// `--peer-timeout`: how long the ranks of a run across hosts wait for one another.
    #[serde(default = "default_peer_timeout")]
    pub peer_timeout_s: u32,
    /// `iospd replay`: the trace the run replays instead of drawing I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<replay::Replay>,
    /// `iospd sweep`: what each timespan's point is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
    /// `--repeat`: the timespans below are the given ones this many times over, so that their
    /// repetitions can be compared.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub repeat: u32,
    /// `--verify`: every written block is self-describing and every read is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<Verify>,
    /// `--pause`: seconds of idle between timespans, so a device settles between points.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pause_s: u32,
    /// The timespans, run in order.
    pub timespans: Vec<TimeSpan>,
    /// `-X`: the XML profile file the run was read from (an input no output may replace).
    #[serde(skip)]
    pub profile_file: Option<PathBuf>,
}

/// The report format on stdout.
impl Profile {
    /// DiskSpd's defaults around `timespans`: text results, the run itself, io_uring, no outputs.
    /// The command line and XML profiles each start from this one profile.
    pub fn with_timespans(timespans: Vec<TimeSpan>) -> Profile {
        Profile {
            command_line: String::new(),
            verbose: false,
            verbose_stats: false,
            progress: None,
            result_format: ResultFormat::Text,
            action: Action::Run,
            experiment_flags: 0,
            counters: Counters::default(),
            events: Events::default(),
            precreate: None,
            engine: EngineKind::IoUring,
            spin: Spin::Auto,
            outputs: Vec::new(),
            percentiles: Vec::new(),
            force: false,
            recreate: false,
            keep_existing: false,
            cpu_set: Vec::new(),
            nice: None,
            lock_memory_bytes: None,
            mem_policy: None,
            flow: None,
            observe: Observe::default(),
            fast_paths: Default::default(),
            start_at_unix_ns: None,
            peer_timeout_s: DEFAULT_PEER_TIMEOUT,
            repeat: 1,
            pause_s: 0,
            verify: None,
            replay: None,
            sweep: None,
            timespans,
            profile_file: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultFormat {
    /// DiskSpd's text report.
    Text,
    /// DiskSpd's XML results.
    Xml,
    /// iospd's JSON results.
    Json,
    /// A self-contained HTML page with charts (report files only, not `-R`).
    Html,
    /// A row per timespan (a sweep point, a repetition): parameters, rates, latency, CPU (report
    /// files only, not `-R`).
    Csv,
}

impl ResultFormat {
    /// The format a report file's extension names (`.txt`, `.xml`, `.json`, `.html`).
    pub fn from_path(path: &std::path::Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "txt" => Some(ResultFormat::Text),
            "xml" => Some(ResultFormat::Xml),
            "json" => Some(ResultFormat::Json),
            "html" | "htm" => Some(ResultFormat::Html),
            "csv" => Some(ResultFormat::Csv),
            _ => None,
        }
    }
}

/// What the command asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Run the timespans.
    Run,
    /// `-Rp`: print the resolved profile in the result format and stop.
    PrintProfile,
    /// `-Rs`: print the system information in the result format and stop.
    PrintSystem,
    /// `-ye<name>`: set a named event and stop.
    SetEvent(String),
    /// `--dry-run`: make every check a run makes, then stop without creating or writing.
    DryRun,
    /// `--create-only`: make every check a run makes, lay out the `-c` files, then stop without
    /// measuring.
    CreateOnly,
}

/// `--verify`: how blocks are checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verify {
    /// `--verify=stop`: end the run at the first bad block.
    pub stop_at_first: bool,
    /// `--verify-state=`: where the written blocks are saved for `iospd verify`.
    #[serde(serialize_with = "lossy::optional_path")]
    pub state: Option<PathBuf>,
}

/// What iospd records and shows while the run goes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observe {
    /// `--timeseries=`: the time-series CSV.
    #[serde(serialize_with = "lossy::optional_path")]
    pub timeseries: Option<PathBuf>,
    /// `--histlog=`: the HdrHistogram interval log.
    #[serde(serialize_with = "lossy::optional_path")]
    pub histlog: Option<PathBuf>,
    /// `--trace=`: the per-I/O trace.
    #[serde(serialize_with = "lossy::optional_path")]
    pub trace: Option<PathBuf>,
    /// `--checkpoint=`: seconds between rewrites of the `--output` files.
    pub checkpoint_s: Option<u32>,
    /// `--quiet`: no progress line.
    pub quiet: bool,
    /// `--metrics=`: where the live metrics are served.
    #[serde(default)]
    pub metrics: Option<std::net::SocketAddr>,
    /// `--no-device-clock`: the devices' requests are not timed.
    #[serde(default)]
    pub no_device_clock: bool,
    /// `--device-clock=every`: every request timed, whatever the rate.
    #[serde(default)]
    pub device_clock_every: bool,
}

/// XML `<PrecreateFiles>`: which `<FileSize>` files are created before the first timespan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precreate {
    /// Every file at the largest size any timespan asks for.
    UseMaxSize,
    /// Only files whose size is the same in every timespan.
    OnlyFilesWithConstantSizes,
    /// Only files whose size is the same, or absent, in every timespan.
    OnlyFilesWithConstantOrZeroSizes,
}

/// `-e…`: DiskSpd's ETW event groups, mapped to Linux counters sampled around the measured window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// `-ePROCESS`: processes created (/proc/stat `processes`).
    pub process: bool,
    /// `-eTHREAD`: tasks created, the same counter (Linux creates threads as tasks).
    pub thread: bool,
    /// `-eIMAGE_LOAD`: no Linux counter; reported as unavailable.
    pub image_load: bool,
    /// `-eDISK_IO`: reads and writes completed by every disk (/proc/diskstats).
    pub disk_io: bool,
    /// `-eMEMORY_PAGE_FAULTS`: page faults (/proc/vmstat pgfault, pgmajfault).
    pub memory_page_faults: bool,
    /// `-eMEMORY_HARD_FAULTS`: major faults (/proc/vmstat pgmajfault).
    pub memory_hard_faults: bool,
    /// `-eNETWORK`: TCP segments and UDP datagrams (/proc/net/snmp).
    pub network: bool,
    /// `-eREGISTRY`: no Linux counter; reported as unavailable.
    pub registry: bool,
    /// `-ep`: ETW paged memory (meaningless on Linux; recorded).
    pub use_paged_memory: bool,
    /// `-eq`/`-es`/`-ec`: ETW clock (meaningless on Linux; recorded).
    pub timer: Option<EtwTimer>,
}

impl Counters {
    /// Whether any counter group was asked for.
    pub fn any(&self) -> bool {
        self.process
            || self.thread
            || self.image_load
            || self.disk_io
            || self.memory_page_faults
            || self.memory_hard_faults
            || self.network
            || self.registry
    }
}

/// DiskSpd's ETW clock choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EtwTimer {
    /// `-eq`: performance counter.
    PerfTimer,
    /// `-es`: system timer.
    SystemTimer,
    /// `-ec`: cycle counter.
    CyclesCounter,
}

/// `-y…`: named events, which on Linux are files in /dev/shm (see [`crate::events`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Events {
    /// `-ys`: set when the measured window starts.
    pub signal_start: Option<String>,
    /// `-yf`: set when the measured window ends.
    pub signal_finish: Option<String>,
    /// `-yr`: wait for it before starting (warm-up included).
    pub wait_start: Option<String>,
    /// `-yp`: stop the run when it is set.
    pub stop_on: Option<String>,
}

/// `--file-service`: how each I/O of a `-O` pool chooses its target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileService {
    /// Drawn by the targets' weights (DiskSpd's pool; fio's `random`).
    #[default]
    Weighted,
    /// Drawn by the targets' weights, this many I/Os (at least 2) to each target drawn (fio's
    /// `random:<n>`).
    Random(u32),
    /// Drawn with a skew over the pool's targets in order, the first the hottest for zipf and
    /// pareto, the middle one for normal (fio's `zipf:θ`, `pareto:h`, `gauss:σ`); the targets'
    /// weights do not apply.
    Skewed(Skew),
    /// In turn: this many I/Os to a target, then the next (fio's `roundrobin:<n>`).
    RoundRobin(u32),
    /// Each target until its work (`--ios`/`--bytes`) is done, then the next (fio's
    /// `sequential`).
    Sequential,
}

impl FileService {
    fn is_weighted(&self) -> bool {
        *self == FileService::Weighted
    }
}

impl std::str::FromStr for FileService {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "'{text}' is not random[:<n>], roundrobin[:<n>], sequential, zipf:<θ>, pareto:<h> or normal:<σ%>; for example --file-service=roundrobin"
            )
        };
        let turns = |n: &str| n.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(bad);
        match text.split_once(':') {
            None if text == "random" => Ok(FileService::Weighted),
            None if text == "roundrobin" => Ok(FileService::RoundRobin(1)),
            None if text == "sequential" => Ok(FileService::Sequential),
            Some(("random", n)) => Ok(match turns(n)? {
                1 => FileService::Weighted,
                n => FileService::Random(n),
            }),
            Some(("roundrobin", n)) => Ok(FileService::RoundRobin(turns(n)?)),
            Some(("zipf" | "pareto" | "normal", _)) => text
                .parse::<Skew>()
                .map(FileService::Skewed)
                .map_err(|e| e.replace("--distribution=", "--file-service=")),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for FileService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileService::Weighted => write!(f, "random"),
            FileService::Random(n) => write!(f, "random:{n}"),
            FileService::Skewed(skew) => write!(f, "{skew}"),
            FileService::RoundRobin(1) => write!(f, "roundrobin"),
            FileService::RoundRobin(n) => write!(f, "roundrobin:{n}"),
            FileService::Sequential => write!(f, "sequential"),
        }
    }
}

/// One measured run over a set of targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// `-O`: outstanding I/Os per thread of the pool, each going to a target chosen by weight.
    pub request_count: Option<u32>,
    /// Which CPUs the threads run on.
    pub affinity: Affinity,
    /// `-L`: report latency statistics.
    pub measure_latency: bool,
    /// `-D`: interval for IOPS time series, in milliseconds.
    pub iops_interval_ms: Option<u32>,
    /// `-Zr`: fresh random data for every write.
    pub random_write_data: bool,
    /// `-u`: io_uring wait batch and buffer registration.
    pub io_ring: Option<IoRing>,
    /// `-oc`: at most this many completions are taken per look at the completion queue.
    pub completion_depth: Option<u32>,
    /// `-bs`: buffer separation (every iospd thread allocates its own buffers; recorded).
    pub buffer_separation: Option<BufferSeparation>,
    /// `--file-service`: how the I/Os of a `-O` pool choose their target.
    #[serde(default, skip_serializing_if = "FileService::is_weighted")]
    pub file_service: FileService,
    /// `--steady-state`: the timespan ends once its throughput holds steady by this rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<steady::SteadyRule>,
    /// The targets, in order.
    pub targets: Vec<Target>,
}

impl TimeSpan {
    /// A timespan with DiskSpd's defaults and no targets.
    pub fn new() -> Self {
        TimeSpan {
            duration_s: DEFAULT_DURATION,
            warmup_s: DEFAULT_WARMUP,
            cooldown_s: 0,
            seed: 0,
            thread_count: None,
            request_count: None,
            affinity: Affinity::Pinned {
                cpus: Vec::new(),
                order: CpuOrder::default(),
            },
            measure_latency: false,
            iops_interval_ms: None,
            random_write_data: false,
            io_ring: None,
            completion_depth: None,
            buffer_separation: None,
            file_service: FileService::Weighted,
            steady_state: None,
            targets: Vec::new(),
        }
    }

    /// Threads running against each target (`-F` threads serve every target).
    pub fn threads_per_target(&self, target: &Target) -> u32 {
        match self.thread_count {
            Some(n) if target.thread_targets.is_empty() => n,
            Some(_) => target.thread_targets.len() as u32,
            None => target.threads_per_target,
        }
    }

    /// Total worker threads.
    pub fn total_threads(&self) -> u64 {
        match self.thread_count {
            Some(n) => n as u64,
            None => self
                .targets
                .iter()
                .map(|t| t.threads_per_target as u64)
                .sum(),
        }
    }
}

impl Default for TimeSpan {
    fn default() -> Self {
        Self::new()
    }
}

/// Thread placement on CPUs.
///
/// DiskSpd pins every thread by default, round-robin over the CPUs (the process may use), and so
/// does iospd. A pinned thread's io_uring workers are given every CPU the process may use (see
/// [`crate::engine::Uring::new`]) rather than inheriting the thread's one CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Affinity {
    /// `-n`: no pinning; the scheduler places threads. (Reports of older versions, which did not
    /// pin by default, say `scheduler`.)
    #[serde(alias = "scheduler")]
    Disabled,
    /// DiskSpd's default and `-a…`: thread i runs on the i-th CPU of the ordered list, wrapping.
    Pinned {
        /// The CPUs named with `-a`; empty means every CPU this process may use.
        cpus: Vec<u32>,
        /// How the CPUs are ordered before threads are assigned.
        order: CpuOrder,
    },
}

/// `-ac`, `-as`, `-ap`/`-aP`/`-ae`/`-aE`/`-aup`: DiskSpd 2.3's CPU orderings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuOrder {
    /// `-ac`: the first CPU of every core before any SMT sibling.
    pub core_aware: bool,
    /// `-as`: interleave processor groups (Linux has one group; recorded).
    pub span_groups: bool,
    /// Efficiency-class order on hybrid CPUs.
    pub efficiency: Efficiency,
}

impl Default for CpuOrder {
    fn default() -> Self {
        CpuOrder {
            core_aware: false,
            span_groups: false,
            efficiency: Efficiency::PFirst,
        }
    }
}

/// Order of performance (P) and efficiency (E) cores on hybrid CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Efficiency {
    /// `-ap`: P-cores first within each pass (DiskSpd 2.3's default).
    PFirst,
    /// `-aP`: every P-core pass before any E-core.
    FillPFirst,
    /// `-ae`: E-cores first within each pass.
    EFirst,
    /// `-aE`: every E-core pass before any P-core.
    FillEFirst,
    /// `-aup`: CPU order only.
    Unordered,
}

/// `-u[n][batch][p]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoRing {
    /// How many completions a blocking wait asks for.
    pub batch: Batch,
    /// Register the I/O buffers with the kernel (`n` turns it off).
    pub registered_buffers: bool,
}

/// The wait batch of `-u`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Batch {
    /// A fixed count.
    Count(u32),
    /// A percentage of the thread's outstanding I/Os (rounded up, at least 1).
    Percent(u32),
}

impl Batch {
    /// DiskSpd's default: 25 % of the outstanding I/Os.
    pub const DEFAULT: Batch = Batch::Percent(25);

    /// The number of completions to wait for with `outstanding` I/Os per thread.
    pub fn count(self, outstanding: u32) -> u32 {
        match self {
            Batch::Count(n) => n.clamp(1, outstanding.max(1)),
            Batch::Percent(p) => (outstanding * p).div_ceil(100).clamp(1, outstanding.max(1)),
        }
    }
}

/// `-bs`: DiskSpd 2.3's buffer separation policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferSeparation {
    /// `-bsn`: system default allocation.
    SystemDefault,
    /// `-bsp`: thread-optimized (every iospd thread allocates its own page-aligned buffers).
    ThreadOptimized,
}

impl BufferSeparation {
    /// The policy a timespan runs with: `-bs…` when given, else DiskSpd 2.3's thread-optimized
    /// default.
    pub fn of(given: Option<BufferSeparation>) -> BufferSeparation {
        given.unwrap_or(BufferSeparation::ThreadOptimized)
    }

    /// How far apart two threads' buffers start, in bytes (0: wherever the allocator puts them).
    /// Thread-optimized puts each thread's buffers in the span one cache line of page-directory
    /// entries maps (8-byte entries): `line / 8` entries, each mapping `page / 8` pages of `page`
    /// bytes — 16MiB with 4KiB pages and 64-byte lines, as DiskSpd 2.3 computes it.
    pub fn bytes(self, page: u64, line: u64) -> u64 {
        const ENTRY: u64 = 8;
        match self {
            BufferSeparation::SystemDefault => 0,
            BufferSeparation::ThreadOptimized => {
                let line = if line == 0 { 64 } else { line };
                (line / ENTRY) * (page / ENTRY) * page
            }
        }
    }
}

/// How a thread waits when all its I/O is in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// An XML profile that cannot be read.
    #[error("{0}")]
    Xml(#[from] xml::XmlError),
}

/// What was swept: the options that listed values, and each point's values, in run order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sweep {
    /// The listed options (`-o`, `-t` …), outermost first.
    pub axes: Vec<String>,
    /// Per point (one per timespan), its value of each axis as typed (`4K`, `32`).
    pub points: Vec<Vec<String>>,
}
