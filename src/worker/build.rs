//! A worker from its thread plan: the slots' buffer shapes, which slot serves which target, and
//! per target the offset generator, pacer, write fill and statistics.

use std::sync::atomic::AtomicU64;

use super::buffers::{InitialFill, SlotShape, WriteFill};
use super::offsets::OffsetGen;
use super::skew::SkewDraw;
use super::throttle::Throttle;
use super::{Assignment, Schedule, Worker, WorkerTarget};
use crate::clock::{Clock, Nanos};
use crate::engine::Op;
use crate::live::Feed;
use crate::plan::ThreadPlan;
use crate::profile::FileService;
use crate::profile::{CacheMode, Target, TimeSpan, WriteBuffer};
use crate::rng::Rng;
use crate::stats::{TargetStats, WaitStats};
use crate::targets::{PreparedTarget, Range};
use crate::trace::Tracer;

/// The buffers one thread's slots need: in a `-O` pool every slot may serve every target, so each
/// is sized for the largest block and both directions any of them uses.
///
/// A replay's slots are its pool's: one buffer each, for reads and writes alike (its writes are
/// filled afresh), sized by class in ascending order.
pub fn slot_shapes(
    ts: &TimeSpan,
    plan: &ThreadPlan,
    replay: Option<&crate::profile::replay::Replay>,
) -> Vec<SlotShape> {
    if let Some(r) = replay.filter(|r| !r.pool.is_empty()) {
        return r
            .pool
            .iter()
            .flat_map(|c| {
                let shape = SlotShape {
                    block: c.size as usize,
                    reads: r.counts[0] > 0,
                    writes: r.counts[1] > 0,
                    fill: InitialFill::Pattern,
                    shared: true,
                };
                std::iter::repeat_n(shape, c.slots as usize)
            })
            .collect();
    }
    let shape = |targets: &[&Target]| SlotShape {
        block: targets
            .iter()
            .map(|t| t.block_size as usize)
            .max()
            .unwrap_or(0),
        reads: targets.iter().any(|t| t.write_ratio < 100),
        writes: targets.iter().any(|t| t.write_ratio > 0),
        fill: if targets.iter().all(|t| t.write_buffer == WriteBuffer::Zero) {
            InitialFill::Zero
        } else {
            InitialFill::Pattern
        },
        shared: false,
    };
    (0..plan.slots())
        .map(|slot| {
            let served: Vec<&Target> = plan
                .served_by(slot)
                .map(|i| &ts.targets[plan.targets[i].target])
                .collect();
            shape(&served)
        })
        .collect()
}

/// Everything a worker is built from besides its clock and buffers.
pub struct Plan<'a> {
    /// The timespan.
    pub timespan: &'a TimeSpan,
    /// This thread.
    pub plan: &'a ThreadPlan,
    /// The timespan's prepared targets.
    pub targets: &'a [PreparedTarget],
    /// Per target, the offset counter its threads share under `-si`.
    pub shared_offsets: &'a [AtomicU64],
    /// Set (to the time of the request) when the run must stop early.
    pub stop: &'a AtomicU64,
    /// `-P`: a dot every this many completions; 0 for none.
    pub progress: u64,
    /// Completion polling budget per wait.
    pub spin_ns: Nanos,
    /// `-D` buckets preallocated per direction.
    pub intervals: usize,
    /// The live collection feed, when something collects.
    pub feed: Option<Feed>,
    /// The trace, with `--trace`.
    pub tracer: Option<Tracer>,
    /// Index of the timespan (for trace records).
    pub timespan_index: u8,
    /// `--verify`: the timespan's verifier.
    pub verify: Option<&'a crate::verify::Verifier>,
    /// `iospd replay`: the replay this thread issues.
    pub replay: Option<&'a crate::profile::replay::Replay>,
    /// The threads bounded by work still working (see [`super::budget::Finishing`]).
    pub finishing: &'a super::budget::Finishing,
    /// `--steady-state`: when the timespan's rule was met (0 until then).
    pub steady_end: &'a AtomicU64,
    /// `--flow`: the flow file, this thread's weight in it, and how long it waits when over its
    /// share (ns).
    pub flow: Option<(&'a super::flow::FlowGroup, &'a crate::profile::flow::Flow)>,
}

impl<'a, C: Clock> Worker<'a, C> {
    /// The worker for a thread plan, to run on an engine whose slots are shaped by
    /// [`slot_shapes`]. Its schedule is set when the start barrier opens.
    pub fn from_plan(plan: Plan<'a>, clock: C) -> Self {
        let Plan {
            timespan: ts,
            plan: thread,
            targets,
            shared_offsets,
            ..
        } = plan;
        // The generator draws each --random-map's first order, then the thread's I/O.
        let mut rng = Rng::new(thread.seed);
        let worker_targets = thread
            .targets
            .iter()
            .map(|tt| {
                let target = &ts.targets[tt.target];
                let prepared = &targets[tt.target];
                let range = thread_range(
                    prepared.range,
                    target.offset_increment,
                    tt.relative_thread,
                    ts.threads_per_target(target),
                );
                let burst = target.burst.map(|b| {
                    (
                        (b.size as u64 / tt.sharing_threads.max(1) as u64).max(1),
                        b.think_us,
                    )
                });
                // With --zones, the generator works one zone's window at a time.
                let window = match target.zones {
                    Some(z) => crate::targets::Range {
                        usable: z.range.min(range.usable),
                        ..range
                    },
                    None => range,
                };
                WorkerTarget {
                    offsets: OffsetGen::new(
                        target.access,
                        target.block_size,
                        window,
                        tt.relative_thread as u64 * target.thread_stride,
                        tt.slots as usize,
                        &prepared.distribution,
                        // DiskSpd ignores -si for a target with one thread: plain sequential.
                        (ts.threads_per_target(target) > 1).then(|| &shared_offsets[tt.target]),
                    )
                    .with_skew(target.skew)
                    .with_random_map(target.random_map, &mut rng)
                    .backwards(target.backwards)
                    .zones(target.zones, range.usable, target.block_size),
                    throttle: Throttle::new(
                        target.throughput,
                        target.block_size,
                        burst,
                        target.poisson.then(|| rng.next_u64()),
                    ),
                    fill: write_fill(ts, target, prepared),
                    write_ratio: target.write_ratio,
                    trim_percent: target.trim_percent,
                    flush: target.flush_every.map(|f| super::Flusher {
                        every: f.writes,
                        op: if f.data_only {
                            Op::Fdatasync
                        } else {
                            Op::Fsync
                        },
                        writes: 0,
                    }),
                    block: target.block_size as u32,
                    index: tt.target,
                    first_slot: tt.first_slot,
                    last_op: Op::Read,
                    budget: super::budget::Budget::new(crate::profile::Work::limits(
                        target.work,
                        range.usable,
                    )),
                    sizes: target.block_split.as_ref().map(super::sizes::SizeDraw::new),
                    continue_on: target.continue_on_error.clone(),
                    max_latency: crate::profile::max_latency::MaxLatency::per_op(
                        target.max_latency.as_ref(),
                    ),
                    serialize_overlap: target.serialize_overlap,
                    priorities: target.ioprio_split.as_ref().map(|s| {
                        super::priorities::PriorityDraw::new(s, target.io_priority.linux_ioprio()).0
                    }),
                }
            })
            .collect();
        let ring = ts.io_ring;
        let mut worker = Worker {
            clock,
            thread: thread.thread,
            targets: worker_targets,
            assignment: assignment(thread, ts.file_service),
            rng,
            schedule: Schedule::new(0, 0, 0, 0),
            stop: plan.stop,
            steady_end: plan.steady_end,
            interval_ns: ts.iops_interval_ms.map_or(0, |ms| ms as u64 * 1_000_000),
            progress_every: plan.progress,
            spin_ns: if ring.is_some() { 0 } else { plan.spin_ns },
            wait_batch: ring.map_or(1, |r| r.batch.count(thread.slots())),
            completion_depth: ts.completion_depth.map_or(usize::MAX, |d| d as usize),
            stats: thread
                .targets
                .iter()
                .map(|tt| {
                    let stats = TargetStats::new(tt.target, plan.intervals);
                    let target = &ts.targets[tt.target];
                    let stats = match plan.replay {
                        Some(r) => stats.with_ops(r.counts[2] > 0, r.counts[3] > 0, plan.intervals),
                        None => stats.with_ops(
                            target.trim_percent > 0,
                            target.flush_every.is_some(),
                            plan.intervals,
                        ),
                    };
                    let stats = stats
                        .with_sizes(target.block_split.as_ref().map(|s| s.sizes()))
                        .with_priorities(target.ioprio_split.as_ref().map(|s| {
                            super::priorities::PriorityDraw::new(
                                s,
                                target.io_priority.linux_ioprio(),
                            )
                            .1
                        }));
                    match target.throughput.is_some() || target.burst.is_some() {
                        true => stats.with_intended(),
                        false => stats,
                    }
                })
                .collect(),
            waits: WaitStats::default(),
            failed: Default::default(),
            slowest: Default::default(),
            served: None,
            feed: plan.feed,
            tracer: plan.tracer,
            timespan: plan.timespan_index,
            verify: plan
                .verify
                .map(|v| v.thread(thread.thread, thread.slots() as usize)),
            replay: plan.replay.map(|r| super::replay::Replaying {
                feed: crate::replay::stream::Feed::start(r),
                stats: Box::new(crate::stats::replay::ReplayStats {
                    late_ns: r.late_ns,
                    as_fast_as_possible: r.pace == crate::profile::replay::Pace::AsFastAsPossible,
                    cut_ns: r.cut_ns,
                    ..Default::default()
                }),
            }),
            finishing: None,
            flow: plan.flow.map(|(group, f)| group.join(f.weight, f.total)),
            flow_sleep_ns: plan
                .flow
                .map_or(0, |(_, f)| f.sleep_us.saturating_mul(1_000)),
        };
        if worker.targets.iter().all(|t| !t.budget.unlimited()) && worker.replay.is_none() {
            worker.finishing = Some(plan.finishing);
        }
        for (target, stats) in worker.targets.iter().zip(&mut worker.stats) {
            stats.skew.positions = target.offsets.skewed_positions().unwrap_or(0);
        }
        worker
    }
}

/// Which slot serves which target: fixed (`-o`), or a `-O` pool whose I/Os choose their target
/// as `--file-service` says (by weight unless told otherwise).
fn assignment(thread: &ThreadPlan, service: FileService) -> Assignment {
    match (thread.pool, service) {
        (Some(_), FileService::Weighted | FileService::Random(_)) => {
            let mut until = 0u64;
            Assignment::Weighted {
                cumulative: thread
                    .targets
                    .iter()
                    .map(|tt| {
                        until += tt.weight as u64;
                        until
                    })
                    .collect(),
                current: 0,
                left: 0,
                per: match service {
                    FileService::Random(per) => per,
                    _ => 1,
                },
            }
        }
        (Some(_), FileService::Skewed(skew)) => {
            Assignment::Skewed(SkewDraw::in_order(skew, thread.targets.len() as u64))
        }
        (Some(_), FileService::RoundRobin(per)) => Assignment::InTurn {
            current: 0,
            left: per,
            per,
        },
        (Some(_), FileService::Sequential) => Assignment::InTurn {
            current: 0,
            left: u32::MAX,
            per: u32::MAX,
        },
        (None, _) => Assignment::Fixed(
            (0..thread.slots())
                .map(|slot| thread.served_by(slot).next().unwrap_or(0) as u16)
                .collect(),
        ),
    }
}

/// The part of a target's range one of its threads works: all of it, or with
/// `--offset-increment` its own region, `thread` × the increment after the base and as long as
/// every other thread's (the last ends at the range's end). Validation made the range hold them.
fn thread_range(range: Range, increment: u64, thread: u32, threads: u32) -> Range {
    if increment == 0 {
        return range;
    }
    let shift = |k: u32| increment.saturating_mul(k as u64);
    Range {
        base: range.base + shift(thread),
        usable: range
            .usable
            .saturating_sub(shift(threads.saturating_sub(1))),
    }
}

/// How a target's write buffers are refreshed before each write.
pub(crate) fn write_fill<'a>(
    ts: &TimeSpan,
    target: &Target,
    prepared: &'a PreparedTarget,
) -> WriteFill<'a> {
    if let Some(generator) = &prepared.compressible {
        return match &prepared.dedupe {
            Some(tracker) => WriteFill::Deduped {
                data: generator,
                tracker,
                base: prepared.range.base,
                unit: target.dedupe.map_or(0, |d| d.unit as usize),
            },
            None => WriteFill::Compressible(generator),
        };
    }
    match (&prepared.write_source, ts.random_write_data) {
        (_, true) => WriteFill::Random,
        (Some(source), false) => WriteFill::Window {
            source,
            step: if target.cache == CacheMode::DisableOsCache {
                512
            } else {
                1
            },
        },
        (None, false) => WriteFill::Fixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_of_an_offset_increment_works_a_region_as_long_as_the_others() {
        let range = Range {
            base: 4 << 20,
            usable: 12 << 20,
        };
        assert_eq!(thread_range(range, 0, 1, 3), range);
        let regions: Vec<(u64, u64)> = (0..3)
            .map(|k| {
                let r = thread_range(range, 2 << 20, k, 3);
                (r.base, r.end())
            })
            .collect();
        assert_eq!(
            regions,
            [
                (4 << 20, 12 << 20),
                (6 << 20, 14 << 20),
                (8 << 20, 16 << 20)
            ]
        );
    }
}
