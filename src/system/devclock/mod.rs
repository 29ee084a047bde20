//! The device clock: each request's time on the device (from the block layer's `block_rq_issue`
//! to its `block_rq_complete`) and its time queued before issue, counted per device and
//! direction in histograms the kernel keeps (two BPF programs on raw tracepoints); a bio-based
//! device (zram, device mapper), which makes no requests, has its bios timed the same way, from
//! `block_bio_queue` to `block_bio_complete`. Above [`TIMED_PER_S`] requests a second a device, a
//! random sample is timed. iospd reads the counts where they lie (the array is mapped into its
//! memory) at the window's edges.
//!
//! Why BPF and not a tracefs instance's raw buffer: the buffer hands every event to user space
//! (at 600 K IOPS, 1.2 M events a second to read and pair), costing 2.5–5.7 % of IOPS at QD32
//! for the recording alone (bench/runs/2026-11-28-device-time.md); here a request costs two
//! short programs and nothing crosses to user space. And a tracefs instance must be removed by
//! someone after a kill; these programs and maps are file descriptors, released by the kernel
//! when the process ends however it ends. Nothing global changes: other tracers are untouched.

mod bpf;
mod btf;
mod program;

use std::os::fd::OwnedFd;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::system::backing::BlockDevice;
use crate::system::backing::request_based;
pub use program::{BUCKETS, bounds};
use program::{Layout, Maps, Offsets, Recent, RequestOffsets, SLOTS};

/// A running clock: its programs attached, its counts mapped.
pub struct DeviceClock {
    counts: bpf::Mapped,
    recent: Arc<RecentRequests>,
    devices: usize,
    /// Every request timed, whatever the rate (else a sample above [`TIMED_PER_S`]).
    every: bool,
    /// Per device: its rate when last looked at, and the sampling shift set.
    rates: std::cell::RefCell<Vec<Rate>>,
    /// Per device slot: its sampling shift, read by the issue program.
    sampling: OwnedFd,
    // Held so the programs stay attached; dropped (detached and freed) with the clock.
    _objects: Vec<OwnedFd>,
}

/// Requests a second a device the clock times every one of; above, a random sample about this
/// large (1 in a power of two), each timed request counting for the ones it stands for. Timing a
/// request costs ~0.2 µs of CPU and more in the caches it touches: every request of a loop
/// device at 600 K a second cost 15 % of its IOPS, 1 in 16 of them 2.5 %
/// (bench/runs/2026-11-28-device-clock.md).
pub const TIMED_PER_S: u64 = 40_000;
/// How often the sampling follows the rate, ns.
const ADAPT_EVERY_NS: u64 = 100_000_000;
/// The largest sampling shift: 1 in 2^12.
const MAX_SHIFT: u32 = 12;

/// Which requests the clock times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Every request up to [`TIMED_PER_S`] a second a device; a random sample of about that
    /// many above it.
    Auto,
    /// Every request, whatever it costs.
    Every,
}

/// A device's rate as the clock last saw it.
#[derive(Debug, Clone, Copy, Default)]
struct Rate {
    /// When, ns on the monotonic clock (0: not yet).
    at: u64,
    /// The requests its counts stood for then (read and write).
    requests: u64,
    /// The sampling shift set.
    shift: u32,
    /// Looks (each adaptation and each reading of the counts) that found a sample in effect.
    sampled: u64,
}

/// One direction of one device at one moment: histograms of device and queue time, and sums.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockCounts {
    /// (bucket, requests) of the device time, buckets with requests only.
    pub device: Vec<(u32, u64)>,
    /// (bucket, requests) of the time queued before issue.
    pub queue: Vec<(u32, u64)>,
    /// Summed device time, ns.
    pub device_ns: u64,
    /// Summed queue time, ns.
    pub queue_ns: u64,
    /// The longest device time so far, ns.
    pub longest_ns: u64,
    /// The requests timed: fewer than [`requests`](Self::requests) when they were a sample, each
    /// counting in the histograms and sums for the 2^s requests it stands for.
    #[serde(default)]
    pub timed: u64,
    /// Looks at the clock that found the device sampled: none over a window means every
    /// request of it was timed (`timed` and `requests` then differ only by the requests that
    /// completed while the counts were being read).
    #[serde(default)]
    pub sampled: u64,
}

impl ClockCounts {
    /// Requests counted.
    pub fn requests(&self) -> u64 {
        self.device.iter().map(|b| b.1).sum()
    }

    /// The `q`th percentile (0 to 100) of the device time, or of the queue time, ns: the middle
    /// of the bucket the nearest rank falls in; the top one is the longest time when that lies in
    /// it. `None` without requests.
    pub fn percentile(&self, queue: bool, q: f64) -> Option<f64> {
        let histogram = if queue { &self.queue } else { &self.device };
        let n: u64 = histogram.iter().map(|b| b.1).sum();
        if n == 0 {
            return None;
        }
        // Nearest rank; the tolerance keeps 99.9 % of 1,000 at rank 999 despite binary floats.
        let rank = ((q / 100.0 * n as f64 - 1e-9).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for &(b, count) in histogram {
            seen += count;
            if seen >= rank {
                let (low, high) = bounds(b);
                let longest = self.longest_ns;
                return Some(
                    match !queue && seen == n && (low..=high).contains(&longest) {
                        true => longest as f64,
                        false => (low + high) as f64 / 2.0,
                    },
                );
            }
        }
        None
    }

    /// The device time summed up (requests, mean and percentiles); `None` without requests.
    pub fn summary(&self) -> Option<ClockSummary> {
        let requests = self.requests();
        let at = |q| self.percentile(false, q);
        Some(ClockSummary {
            requests,
            mean_ns: self.device_ns as f64 / requests.max(1) as f64,
            min_ns: at(0.0)?,
            p50_ns: at(50.0)?,
            p99_ns: at(99.0)?,
            p99_9_ns: at(99.9)?,
            max_ns: at(100.0)?,
        })
    }

    /// Adds the device times to classic histogram buckets of upper bounds `upper` (ns,
    /// ascending; `out` has one more, the +Inf bucket): each of the clock's buckets goes where
    /// its middle lies, so a count moves by at most the clock's bucket width (0.4 %).
    pub fn add_to_buckets(&self, upper: &[u64], out: &mut [u64]) {
        for &(b, n) in &self.device {
            let (low, high) = bounds(b);
            let middle = low + (high - low) / 2;
            out[upper.partition_point(|&le| le < middle)] += n;
        }
    }

    /// What was counted between `self` (earlier) and `later`; the longest is the later's.
    pub fn until(&self, later: &ClockCounts) -> ClockCounts {
        let minus = |a: &[(u32, u64)], b: &[(u32, u64)]| -> Vec<(u32, u64)> {
            b.iter()
                .map(|&(k, n)| {
                    let before = a.iter().find(|x| x.0 == k).map_or(0, |x| x.1);
                    (k, n.saturating_sub(before))
                })
                .filter(|x| x.1 > 0)
                .collect()
        };
        ClockCounts {
            device: minus(&self.device, &later.device),
            queue: minus(&self.queue, &later.queue),
            device_ns: later.device_ns.saturating_sub(self.device_ns),
            queue_ns: later.queue_ns.saturating_sub(self.queue_ns),
            longest_ns: later.longest_ns,
            timed: later.timed.saturating_sub(self.timed),
            sampled: later.sampled.saturating_sub(self.sampled),
        }
    }
}

/// One direction's device time, summed up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockSummary {
    /// Requests timed.
    pub requests: u64,
    /// Mean device time, ns.
    pub mean_ns: f64,
    /// The shortest (its bucket's middle), ns.
    pub min_ns: f64,
    /// Median, ns.
    pub p50_ns: f64,
    /// 99th percentile, ns.
    pub p99_ns: f64,
    /// 99.9th percentile, ns.
    pub p99_9_ns: f64,
    /// The longest, ns.
    pub max_ns: f64,
}

/// The counts at a window's two edges, per device and direction (read, write).
pub type ClockEdges = (Vec<[ClockCounts; 2]>, Vec<[ClockCounts; 2]>);

/// Why there is no clock, in one line.
fn why(what: &str, e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => format!(
            "the device clock needs root (or CAP_BPF and CAP_PERFMON) to {what}; the device's means are from /sys/block"
        ),
        _ => format!(
            "the device clock could not {what} ({e}); the device's means are from /sys/block"
        ),
    }
}

/// The sampling shift for a device at `per_s` requests a second: the least that keeps the
/// timed ones at [`TIMED_PER_S`] or fewer.
fn sampling_shift(per_s: f64) -> u32 {
    let mut shift = 0;
    while shift < MAX_SHIFT && per_s / f64::from(1u32 << shift) > TIMED_PER_S as f64 {
        shift += 1;
    }
    shift
}

fn dev_number(device: &BlockDevice) -> Option<u32> {
    let text = std::fs::read_to_string(device.sysfs.join("dev")).ok()?;
    let (major, minor) = text.trim().split_once(':')?;
    let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
    // The kernel's own dev_t: 12 bits of major above 20 of minor.
    Some((major << 20) | minor)
}

impl DeviceClock {
    /// Starts timing the requests of `devices` (at most [`SLOTS`]; the rest are not timed);
    /// the reason in one line when it cannot.
    pub fn start(devices: &[BlockDevice], sampling_mode: Sampling) -> Result<DeviceClock, String> {
        let btf = btf::Btf::kernel()?;
        let field = |s: &str, m: &str| {
            btf.offset(s, m)
                .map(|o| o as i32)
                .ok_or_else(|| format!("this kernel's {s} has no {m}: the device clock cannot read it; the device's means are from /sys/block"))
        };
        let offsets = Offsets {
            part: field("request", "part")?,
            cmd_flags: field("request", "cmd_flags")?,
            bd_dev: field("block_device", "bd_dev")?,
            sector: field("request", "__sector")?,
            data_len: field("request", "__data_len")?,
            request: Some(RequestOffsets {
                start_time_ns: field("request", "start_time_ns")?,
                tag: field("request", "tag")?,
                mq_hctx: field("request", "mq_hctx")?,
                queue_num: field("blk_mq_hw_ctx", "queue_num")?,
            }),
        };
        let event = |name: &str| {
            btf.typedef(&format!("btf_trace_{name}")).ok_or_else(|| {
                format!("this kernel has no {name} event: the device clock cannot run; the device's means are from /sys/block")
            })
        };
        let map = |kind, key, value, entries, flags, name| {
            bpf::map(kind, key, value, entries, flags, name).map_err(|e| why("make its maps", &e))
        };
        let started = map(
            bpf::ARRAY,
            4,
            program::STARTED,
            program::IN_FLIGHT,
            0,
            "iospd_started",
        )?;
        let counts = map(
            bpf::ARRAY,
            4,
            8,
            Layout::ENTRIES,
            bpf::MMAPABLE,
            "iospd_counts",
        )?;
        // SAFETY: sysconf has no preconditions.
        let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as u32;
        let rings = Recent::rings(cpus);
        let recent = map(
            bpf::ARRAY,
            4,
            Recent::WORDS * 8,
            Recent::entries(rings),
            bpf::MMAPABLE,
            "iospd_recent",
        )?;
        let sampling = map(bpf::ARRAY, 4, 8, SLOTS, 0, "iospd_sampling")?;
        let watched: Vec<u32> = devices
            .iter()
            .take(SLOTS as usize)
            .map(|d| dev_number(d).unwrap_or(0))
            .collect();
        // (slot, dev_t) of the devices that make requests, and of those that make none (timed
        // by their bios).
        let (mut requests, mut bios) = (Vec::new(), Vec::new());
        for (slot, (d, &dev)) in devices.iter().zip(&watched).enumerate() {
            match request_based(d) {
                true => requests.push((slot as u32, dev)),
                false => bios.push((slot as u32, dev)),
            }
        }
        use std::os::fd::AsRawFd;
        let maps = Maps {
            started: started.as_raw_fd(),
            counts: counts.as_raw_fd(),
            recent: recent.as_raw_fd(),
            sampling: sampling.as_raw_fd(),
        };
        let load = |insns: Vec<bpf::Insn>, name, event| {
            bpf::load(&insns, name, event).map_err(|(e, log)| match log.is_empty() {
                true => why("load its programs", &e),
                false => format!("the kernel refused the device clock's program ({e}): {log}"),
            })
        };
        let mut objects = Vec::new();
        let mut programs = Vec::new();
        if !requests.is_empty() {
            let (issue, complete) = (event("block_rq_issue")?, event("block_rq_complete")?);
            programs.push((
                load(
                    program::issue(offsets, maps, &requests),
                    "iospd_issue",
                    issue,
                )?,
                load(
                    program::complete(offsets, maps, rings),
                    "iospd_complete",
                    complete,
                )?,
            ));
        }
        if !bios.is_empty() {
            let (queue, complete) = (event("block_bio_queue")?, event("block_bio_complete")?);
            let iter = field("bio", "bi_iter")?;
            let bio = Offsets {
                part: field("bio", "bi_bdev")?,
                cmd_flags: field("bio", "bi_opf")?,
                bd_dev: offsets.bd_dev,
                sector: iter + field("bvec_iter", "bi_sector")?,
                data_len: iter + field("bvec_iter", "bi_size")?,
                request: None,
            };
            let started = map(
                bpf::ARRAY,
                4,
                program::STARTED,
                program::IN_FLIGHT,
                0,
                "iospd_bio_started",
            )?;
            let maps = Maps {
                started: started.as_raw_fd(),
                ..maps
            };
            programs.push((
                load(program::issue(bio, maps, &bios), "iospd_bio_queue", queue)?,
                load(
                    program::complete(bio, maps, rings),
                    "iospd_bio_done",
                    complete,
                )?,
            ));
            objects.push(started);
        }
        let mapped = bpf::Mapped::new(&counts, Layout::ENTRIES as usize)
            .map_err(|e| why("map its counts", &e))?;
        let recent_mapped =
            bpf::Mapped::new(&recent, (Recent::entries(rings) * Recent::WORDS) as usize)
                .map_err(|e| why("map its counts", &e))?;
        // Completion first, so no request is stamped without its end being watched.
        let attach = |prog: &OwnedFd| {
            bpf::attach(prog).map_err(|e| why("attach to the block layer's events", &e))
        };
        for (issue, complete) in programs {
            objects.push(attach(&complete)?);
            objects.push(attach(&issue)?);
            objects.extend([issue, complete]);
        }
        objects.extend([started, counts, recent]);
        Ok(DeviceClock {
            counts: mapped,
            recent: Arc::new(RecentRequests {
                mapped: recent_mapped,
                rings,
            }),
            devices: watched.len(),
            every: matches!(sampling_mode, Sampling::Every),
            rates: std::cell::RefCell::new(vec![Rate::default(); watched.len()]),
            sampling,
            _objects: objects,
        })
    }

    /// Follows the devices' rates (called often; looks every tenth of a second, at `now_ns` on
    /// the monotonic clock): a device above [`TIMED_PER_S`] requests a second gets a random
    /// sample of about that many timed, one below it every request.
    pub fn adapt(&self, now_ns: u64) {
        if self.every {
            return;
        }
        let mut rates = self.rates.borrow_mut();
        if rates
            .first()
            .is_some_and(|r| now_ns < r.at + ADAPT_EVERY_NS)
        {
            return;
        }
        for (slot, rate) in rates.iter_mut().enumerate() {
            let requests: u64 = [0, 1]
                .map(|dir| self.requests(slot as u32 * 2 + dir))
                .iter()
                .sum();
            rate.sampled += u64::from(rate.shift > 0);
            if rate.at != 0 {
                let per_s = (requests - rate.requests.min(requests)) as f64 * 1e9
                    / (now_ns - rate.at).max(1) as f64;
                let shift = sampling_shift(per_s);
                if shift != rate.shift
                    && bpf::set(&self.sampling, slot as u32, shift.into()).is_ok()
                {
                    rate.shift = shift;
                }
            }
            (rate.at, rate.requests) = (now_ns, requests);
        }
    }

    /// The requests a series' counts stand for.
    fn requests(&self, series: u32) -> u64 {
        (0..BUCKETS)
            .map(|b| self.counts.get(Layout::device(series, b)))
            .sum()
    }

    /// The requests completed last, for a thread to look up one of its I/Os in.
    pub fn recent(&self) -> Arc<RecentRequests> {
        Arc::clone(&self.recent)
    }

    /// The counts now, per device (in the order given to [`start`](Self::start)) and direction
    /// (read, write).
    pub fn sample(&self) -> Vec<[ClockCounts; 2]> {
        let mut rates = self.rates.borrow_mut();
        (0..self.devices as u32)
            .map(|slot| {
                let rate = &mut rates[slot as usize];
                rate.sampled += u64::from(rate.shift > 0);
                [0, 1].map(|dir| ClockCounts {
                    sampled: rate.sampled,
                    ..self.series(slot * 2 + dir)
                })
            })
            .collect()
    }

    fn series(&self, series: u32) -> ClockCounts {
        let histogram = |at: fn(u32, u32) -> usize| -> Vec<(u32, u64)> {
            (0..BUCKETS)
                .map(|b| (b, self.counts.get(at(series, b))))
                .filter(|x| x.1 > 0)
                .collect()
        };
        ClockCounts {
            device: histogram(Layout::device),
            queue: histogram(Layout::queue),
            device_ns: self.counts.get(Layout::sum(series, 0)),
            queue_ns: self.counts.get(Layout::sum(series, 1)),
            longest_ns: self.counts.get(Layout::sum(series, 2)),
            timed: self.counts.get(Layout::sum(series, 3)),
            sampled: 0,
        }
    }
}

/// The requests each CPU completed last (a few hundred a CPU), readable while the clock runs and
/// after: a thread that has just seen one of its I/Os complete finds the request that served it.
pub struct RecentRequests {
    mapped: bpf::Mapped,
    rings: u32,
}

/// A request found: when it was issued to the device and when it completed, ns (CLOCK_MONOTONIC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    pub issued_ns: u64,
    pub completed_ns: u64,
}

impl RecentRequests {
    /// The request of watched device `slot` (the order given to [`DeviceClock::start`]) and
    /// direction `write` that covered byte `at` of the disk, issued at or after `from` and
    /// completed by `to`; the newest such.
    pub fn find(&self, slot: u32, write: bool, at: u64, from: u64, to: u64) -> Option<Served> {
        let series = u64::from(slot * 2 + write as u32);
        let words = Recent::WORDS as usize;
        for ring in 0..self.rings as usize {
            let base = ring * (Recent::RING as usize + 1);
            let head = self.mapped.get(base * words);
            for back in 1..=head.min(Recent::RING as u64) {
                let record = (base + 1 + ((head - back) % Recent::RING as u64) as usize) * words;
                let completed_ns = self.mapped.get(record + 3);
                if completed_ns < from {
                    // Older records of this ring completed earlier still.
                    break;
                }
                let (sector, shape) = (self.mapped.get(record), self.mapped.get(record + 1));
                let (bytes, issued_ns) = (shape >> 32, self.mapped.get(record + 2));
                let first = sector.saturating_mul(512);
                if shape & 0xffff_ffff == series
                    && (first..first + bytes).contains(&at)
                    && issued_ns >= from
                    && completed_ns <= to
                {
                    return Some(Served {
                        issued_ns,
                        completed_ns,
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_the_difference_of_its_edges() {
        let before = ClockCounts {
            device: vec![(3, 2), (9, 1)],
            queue: vec![(1, 3)],
            device_ns: 100,
            queue_ns: 3,
            longest_ns: 9,
            timed: 3,
            sampled: 0,
        };
        let after = ClockCounts {
            device: vec![(3, 5), (9, 1), (12, 4)],
            queue: vec![(1, 10)],
            device_ns: 160,
            queue_ns: 10,
            longest_ns: 12,
            timed: 5,
            sampled: 2,
        };
        let window = before.until(&after);
        assert_eq!(window.device, vec![(3, 3), (12, 4)]);
        assert_eq!(window.queue, vec![(1, 7)]);
        assert_eq!(
            (window.device_ns, window.queue_ns, window.requests()),
            (60, 7, 7)
        );
        assert_eq!((window.timed, window.sampled), (2, 2));
    }

    #[test]
    fn a_device_is_sampled_from_40_000_requests_a_second_on() {
        assert_eq!(sampling_shift(0.0), 0);
        assert_eq!(sampling_shift(40_000.0), 0);
        assert_eq!(sampling_shift(40_001.0), 1);
        assert_eq!(sampling_shift(600_000.0), 4);
        assert_eq!(sampling_shift(1e12), MAX_SHIFT);
    }

    #[test]
    fn device_times_fold_into_classic_buckets_by_their_middle() {
        let at = |ns: u64| program::bucket(ns);
        let c = ClockCounts {
            // 200 ns, twice; 1,000 ns (on a bound: in it); 1,001 ns; 50 µs.
            device: vec![
                (at(200), 2),
                (at(1_000), 1),
                (at(1_001), 1),
                (at(50_000), 3),
            ],
            ..ClockCounts::default()
        };
        let upper = [1_000, 2_000, 40_000];
        let mut out = [0; 4];
        c.add_to_buckets(&upper, &mut out);
        // 1,000 and 1,001 ns share a clock bucket whose middle is 1,001 ns or so: both above
        // 1 µs, within the 0.4 % the clock's buckets are wide.
        assert_eq!(out, [2, 2, 0, 3]);
        let s = c.summary().unwrap();
        assert_eq!(s.requests, 7);
        assert_eq!(s.min_ns, 200.0);
        assert!((49_800.0..=50_200.0).contains(&s.max_ns), "{}", s.max_ns);
        assert_eq!(ClockCounts::default().summary(), None);
    }
}
