//! Memory checked before the run: the I/O buffers, and what the statistics keep — a latency
//! histogram per thread, target and direction (two with pacing; a few bytes where the target takes
//! a few I/Os), `-D` buckets for the whole
//! duration, the live interval slices, the trace's batches, the time series rows held in memory
//! and `--verify`'s block tables — against what the process may really allocate (the memory cgroup's room in a container,
//! otherwise `MemAvailable`).

use std::mem::size_of;

use super::RunError;
use crate::plan::ThreadPlan;
use crate::profile::TimeSpan;
use crate::stats::histogram::LatencyHistogram;
use crate::stats::intervals::Interval;
use crate::stats::intervals::bucket_count;
use crate::stats::timeline::{Directions, Row};
use crate::system::Host;
use crate::units::format_size;
use crate::worker::buffers::SlotBuffers;
use crate::worker::slot_shapes;

/// What one timespan needs, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needs {
    /// I/O buffers (what io_uring registers).
    pub buffers: u64,
    /// Histograms, interval buckets, live slices, trace batches and kept rows.
    pub statistics: u64,
    /// `--verify`'s block tables, held across the run.
    pub verify_tables: u64,
    /// The `-Z<size>` write source buffers (one per writing target).
    pub sources: u64,
}

impl Needs {
    fn total(&self) -> u64 {
        self.buffers
            .saturating_add(self.statistics)
            .saturating_add(self.verify_tables)
            .saturating_add(self.sources)
    }
}

/// The bytes timespan `ts` needs with `plans` (replaying `replay`), live collection on when
/// `live`, tracing when `trace`.
pub fn needs(
    ts: &TimeSpan,
    plans: &[ThreadPlan],
    replay: Option<&crate::profile::replay::Replay>,
    live: bool,
    trace: bool,
) -> Needs {
    let buckets = ts.iops_interval_ms.map_or(0, |ms| {
        bucket_count(ts.duration_s as u64 * 1_000_000_000, ms) as u64
    });
    let mut needs = Needs {
        sources: ts
            .targets
            .iter()
            .map(source_bytes)
            .fold(0, u64::saturating_add),
        ..Needs::default()
    };
    for plan in plans {
        needs.buffers += SlotBuffers::bytes_needed(&slot_shapes(ts, plan, replay)) as u64;
        for tt in &plan.targets {
            let target = &ts.targets[tt.target];
            let paced = target.throughput.is_some() || target.burst.is_some();
            let histogram = LatencyHistogram::footprint_for(samples(target)) as u64;
            let per_direction = histogram * (1 + paced as u64)
                + buckets * size_of::<Interval>() as u64
                + if live {
                    crate::live::SLICES_PER_THREAD as u64 * histogram
                } else {
                    0
                };
            // `--bssplit`: each size's reads and writes.
            let sizes = target
                .block_split
                .as_ref()
                .map_or(0, |s| s.sizes().len() as u64);
            needs.statistics += 2 * per_direction + sizes * 2 * size_of::<Interval>() as u64;
        }
        if trace {
            needs.statistics += crate::trace::BYTES_PER_THREAD as u64;
        }
    }
    if ts.iops_interval_ms.is_some() {
        // The rows kept for the report: at most twice `IN_MEMORY` in memory while the run goes
        // (older ones wait on disk, see `live::rows`).
        let row = size_of::<Row>() + ts.targets.len() * size_of::<Directions>();
        needs.statistics += buckets.min(2 * crate::live::rows::IN_MEMORY as u64) * row as u64;
    }
    needs
}

/// The most samples a histogram of `target` holds (`--ios`, or `--bytes` in blocks), if bounded.
fn samples(target: &crate::profile::Target) -> Option<u64> {
    let work = target.work?;
    let blocks = work
        .bytes
        .filter(|_| target.block_split.is_none() && work.range_percent.is_none())
        .map(|b| b.div_ceil(target.block_size.max(1)));
    match (work.ios, blocks) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The bytes target `target`'s `-Z<size>` write source holds (none when it does not write).
fn source_bytes(target: &crate::profile::Target) -> u64 {
    match target.write_buffer {
        crate::profile::WriteBuffer::Source { size, .. } if target.write_ratio > 0 => size,
        _ => 0,
    }
}

/// Refuses a timespan whose memory would not fit in what the process may allocate, with the
/// numbers.
pub fn check(
    ts: &TimeSpan,
    plans: &[ThreadPlan],
    needs: Needs,
    host: &dyn Host,
) -> Result<(), RunError> {
    let Some(available) = host.memory_available() else {
        return Ok(());
    };
    if needs.total() <= available.bytes / 10 * 9 {
        return Ok(());
    }
    let slots: u64 = plans.iter().map(|p| p.slots() as u64).sum();
    let served: usize = plans.iter().map(|p| p.targets.len()).sum();
    let sources = match needs.sources {
        0 => String::new(),
        bytes => format!(", {} of -Z write source buffers", format_size(bytes)),
    };
    let (tables, fix) = if needs.verify_tables > 0 {
        (
            format!(
                " and {} of --verify block tables (4 bytes per block of every target)",
                format_size(needs.verify_tables)
            ),
            "; for --verify, use larger blocks (-b) or a smaller range of the target (-B, -f)",
        )
    } else {
        (String::new(), "")
    };
    let lower_z = if needs.sources > 0 {
        ", the -Z size"
    } else {
        ""
    };
    Err(RunError::Memory(format!(
        "the run needs {} of memory — {} of I/O buffers ({} threads with {slots} outstanding I/Os in all, each with a read and/or write buffer of up to {}) and {} of statistics (latency histograms for {served} thread-target pairs, interval buckets, trace buffers){sources}{tables} — but only {} may be allocated ({}); lower -t, -o or -b{lower_z}, or use fewer targets{fix}",
        format_size(needs.total()),
        format_size(needs.buffers),
        plans.len(),
        format_size(ts.targets.iter().map(|t| t.block_size).max().unwrap_or(0)),
        format_size(needs.statistics),
        format_size(available.bytes),
        available.source
    )))
}

/// The notice for a memlock limit too low to register `needed` bytes of buffers with io_uring.
pub fn memlock_notice(needed: u64, host: &dyn Host) -> Option<String> {
    let limit = host.memlock_limit()?;
    (needed > limit).then(|| {
        format!(
            "iospd: the memlock limit (ulimit -l) of {} is below the {} of I/O buffers io_uring would register, so the run uses unregistered buffers (slightly more CPU per I/O); raise the limit to register them",
            format_size(limit),
            format_size(needed)
        )
    })
}
