//! "Is this real": whether a measured window measured the device, from facts — the device's own
//! counters against what iospd issued, compression on the target's path against the data's own
//! compressibility, the tool's cost per I/O and per block of data, and the fingerprint of the
//! machine and the I/O path that `compare` checks.

use serde::{Deserialize, Serialize};

/// The checks of one measured window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reality {
    /// Per device under the targets: what reached it against what iospd issued.
    pub devices: Vec<DeviceCheck>,
    /// Targets with no block device under them (tmpfs: memory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deviceless: Vec<String>,
    /// Per target with compression on its path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reduction: Vec<ReductionCheck>,
    /// What iospd itself spent.
    pub generator: GeneratorCheck,
    /// Whether iospd's threads had the CPUs.
    #[serde(default)]
    pub cpu: CpuCheck,
    /// The machine and I/O path, as `compare` checks them.
    pub fingerprint: Fingerprint,
    /// Every finding that casts doubt on the result, one sentence each (empty: none).
    pub flags: Vec<String>,
    /// What was checked, so a run without findings says what it looked at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checked: Vec<String>,
    /// Why the devices' requests were not timed (no privilege, an old kernel, `--no-device-clock`),
    /// in one line; `None` when they were, or there was no device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_off: Option<String>,
}

/// Whether iospd's threads had the CPUs over the window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuCheck {
    /// Per worker thread: how long it was ready to run but waited for a CPU; empty where the
    /// kernel keeps no scheduler statistics.
    pub waited: Vec<ThreadWait>,
    /// Of all CPUs' time in the window, the busy time not spent by iospd's worker threads (other
    /// processes, interrupts, the kernel's workers, iospd's own included), percent.
    pub others_percent: f64,
    /// Of all CPUs' time in the window, the time the hypervisor took (steal), percent.
    pub steal_percent: f64,
}

/// One worker thread's wait for a CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadWait {
    /// The thread.
    pub thread: u32,
    /// The CPU it was pinned to, if any.
    pub cpu: Option<u32>,
    /// Time of the window it was ready to run but waited for a CPU, percent.
    pub waited_percent: f64,
}

/// A device's counters over the window against what iospd issued to the targets on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceCheck {
    /// Its kernel name.
    pub device: String,
    /// The targets on it.
    pub paths: Vec<String>,
    /// Bytes iospd read and wrote on those targets in the window.
    pub issued_read_bytes: u64,
    /// See above.
    pub issued_write_bytes: u64,
    /// Reads and writes iospd completed on those targets in the window.
    #[serde(default)]
    pub issued_reads: u64,
    /// See above.
    #[serde(default)]
    pub issued_writes: u64,
    /// What reached the device in the window (all processes'); `None` when unreadable.
    pub reached: Option<crate::system::backing::DiskStat>,
    /// Where the time went, per direction iospd used: the device's own time per request beside
    /// iospd's latency.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub time: Vec<DeviceTime>,
    /// Under `-D`: the device's counters in each interval of the window, and what it moved that
    /// iospd did not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<DeviceInterval>,
}

/// One `-D` interval of a device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInterval {
    /// End of the interval, from the start of the window, ms.
    pub end_ms: u64,
    /// The device's counters over it (every process's).
    pub stat: crate::system::backing::DiskStat,
    /// Bytes it read beyond iospd's reads on its targets in the interval (iospd's bytes are its
    /// I/Os times its mean I/O size of the window).
    pub other_read_bytes: u64,
    /// The same for writes.
    pub other_write_bytes: u64,
    /// With the device clock: each direction's requests timed in the interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub time: Vec<IntervalTime>,
}

/// One direction's requests in one interval, each timed by the device clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalTime {
    /// `read` or `write`.
    pub direction: String,
    /// Requests timed (every process's).
    pub requests: u64,
    /// Their time on the device, ns: mean, p50, p99, max.
    pub mean_ns: f64,
    pub p50_ns: f64,
    pub p99_ns: f64,
    pub max_ns: f64,
}

/// One direction's time on a device against iospd's latency over the same window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceTime {
    /// `read` or `write`.
    pub direction: String,
    /// Requests the device completed in the window (every process's); bios, for a bio-based
    /// device.
    pub requests: u64,
    /// The device has no requests (zram, most device-mapper targets): its times are its bios'.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bio_based: bool,
    /// The device's mean time per request, ns: the block layer's own accounting in
    /// `/sys/block/<dev>/stat`, each request from its start (the I/O scheduler's queue included)
    /// to its completion.
    pub device_mean_ns: f64,
    /// iospd's mean latency of that direction on the targets on the device, ns.
    pub iospd_mean_ns: f64,
    /// iospd's minus the device's: the time spent above the block layer (the system calls,
    /// io_uring, the file system, iospd itself), ns; negative when requests were merged, or
    /// others' requests were slower. The block layer's own queue (waiting for a tag or in the
    /// scheduler) counts in `device_mean_ns`: at depth it can be most of it.
    pub stack_mean_ns: f64,
    /// Each request timed by the device clock over the same window; `None` when it did not run
    /// (see `Reality.clock_off`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<RequestTimes>,
}

/// One direction of a device, each request timed in the kernel (issue to completion, the block
/// layer's `block_rq_issue` and `block_rq_complete`), beside iospd's latency of its I/Os to the
/// targets on the device over the same window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestTimes {
    /// Requests the times stand for (every process's; iospd's are most of them unless another
    /// I/O is named): all of them timed, or estimated from a random sample (see `timed`).
    pub requests: u64,
    /// Requests timed: as many as `requests`, or fewer when the device's rate made the clock time
    /// a random sample (each counting for the requests it stands for; see
    /// [`crate::system::devclock::TIMED_PER_S`]).
    #[serde(default)]
    pub timed: u64,
    /// Requests the block layer counted as completed over the window (`/sys/block` stat), beside
    /// `requests`: the kernel does not run the clock's program for a few completions (0.2-0.3 %
    /// under io_uring on a virtio disk, measured), and those tend to be slow ones, so a p99.9
    /// read from fewer requests can be low. `None` when the counters could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<u64>,
    /// Their time on the device: from issue to the driver to completion.
    pub device: Spread,
    /// Their time before issue, from when the block layer made them (waiting for a tag, in the
    /// I/O scheduler); `None` when the kernel keeps no start times.
    pub queued: Option<Spread>,
    /// iospd's latency of the same direction on the targets on the device.
    pub iospd: Spread,
    /// iospd's minus the device's, at each statistic: the time above the device (system calls,
    /// io_uring, the file system, the block layer's queue, iospd itself).
    pub stack: Spread,
    /// The device's percentile curve: (nines, ns) in steps of 0.05 nines (0 is p0, 1 p90, 2 p99
    /// …), as far as the requests reach (one nine more for each tenfold).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_curve: Vec<(f64, f64)>,
    /// iospd's curve at the same points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iospd_curve: Vec<(f64, f64)>,
}

/// A distribution in five numbers, ns. The device clock's percentiles are read from buckets
/// 1/128 of a power of two wide (within 0.4 %).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The mean (exact).
    pub mean_ns: f64,
    /// The median.
    pub p50_ns: f64,
    /// The 99th percentile.
    pub p99_ns: f64,
    /// The 99.9th percentile.
    pub p99_9_ns: f64,
    /// The longest.
    pub max_ns: f64,
}

impl Spread {
    /// `self` minus `other`, at each statistic.
    pub fn minus(&self, other: &Spread) -> Spread {
        Spread {
            mean_ns: self.mean_ns - other.mean_ns,
            p50_ns: self.p50_ns - other.p50_ns,
            p99_ns: self.p99_ns - other.p99_ns,
            p99_9_ns: self.p99_9_ns - other.p99_9_ns,
            max_ns: self.max_ns - other.max_ns,
        }
    }
}

/// Compression on a target's path, and how much the written data compresses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReductionCheck {
    /// The target.
    pub path: String,
    /// What compresses (`zram (lz4)`, `btrfs compress-force=zstd:3`).
    pub layer: String,
    /// The written data's own lz4 ratio; `None` for a run that does not write.
    pub data_ratio: Option<f64>,
}

/// iospd's own cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GeneratorCheck {
    /// Worker CPU time per completed I/O, ns.
    pub cpu_ns_per_io: f64,
    /// Threads busy on a CPU for nearly the whole window.
    pub busy_threads: Vec<u32>,
    /// Per writing target: the time to make one block's data and its share of the threads' time.
    pub generation: Vec<Generation>,
}

/// The cost of one target's write data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// The target.
    pub path: String,
    /// Nanoseconds per block, timed after the run.
    pub ns_per_block: f64,
    /// Blocks per second written × that, over the threads' time: percent.
    pub percent_of_thread_time: f64,
}

/// What must match for two runs to be compared as like for like.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Logical CPUs.
    pub cpus: usize,
    /// NUMA nodes.
    pub nodes: usize,
    /// Kernel release.
    pub kernel: String,
    /// Per device: its I/O scheduler.
    pub schedulers: Vec<(String, String)>,
    /// Per target: its cache mode (`buffered`, `O_DIRECT`, `O_DIRECT+O_DSYNC`, `buffered+O_DSYNC`).
    pub cache_modes: Vec<(String, String)>,
    /// A short hash of all of the above.
    pub id: String,
}
