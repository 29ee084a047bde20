//! The I/O loop: keep every slot busy, stamp each submitted and each reaped batch with one clock
//! read, and count only what completes inside the measured window.
//!
//! 1. Fill: every free slot whose target's pacer allows it gets a target (fixed, or drawn by weight
//!    from a `-O` pool), an offset and a direction, and is staged; one clock read stamps the whole
//!    batch just before it is submitted.
//! 2. Submit and wait for completions (with a timeout when only pacing holds slots back).
//! 3. Reap every ready completion (batched completions); one clock read stamps the reaped batch.
//! 4. Record each completion when its stamp lies in the measured window; free its slot.
//! 5. Every submit also flushes finished work into the completion ring, so the reap that follows is
//!    the look-aside: completions never wait unseen while the thread is busy submitting.
//! 6. When everything is in flight, poll for completions for up to the spin budget before sleeping
//!    in the kernel, so a wake-up delay does not end up in the measured latency.
//!
//! Nothing in the loop allocates or locks. Four options are tested per I/O, each an `Option` that
//! is `None` without it: `--verify`, `--trace`, the live feed and the intended-start histogram.
//! The other features are data when disabled (an empty interval table, a pacer with no limit, a
//! progress countdown that never ends).

pub mod accounting;
pub mod budget;
pub mod buffers;
pub(crate) mod build;
mod cycle;
pub mod flow;
pub mod offsets;
pub mod priorities;
pub mod replay;
pub mod sizes;
pub mod skew;
pub mod throttle;

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::rng::Rng;
use buffers::WriteFill;
pub use build::{Plan, slot_shapes};
use offsets::OffsetGen;
use skew::SkewDraw;
use throttle::Throttle;

use crate::clock::{Clock, Nanos};
use crate::engine::{Completion, Engine, Op, settle};
use crate::stats::sizes::SizeIndex;
use crate::stats::{IoFailure, TargetStats, WaitStats};

/// The longest the loop sleeps at once while every slot is held back by pacing, so a stop request
/// is seen promptly.
const MAX_PAUSE: Nanos = 10_000_000;
/// The longest a blocking wait for completions lasts, so a device that stops answering cannot
/// keep the loop from seeing the end of the schedule or a stop request.
const MAX_WAIT: Nanos = 100_000_000;
/// How long the loop waits for the I/O in flight once it stops issuing, before it gives up on a
/// device that does not answer (the kernel's own command timeouts are 30 s; a healthy device
/// answers in far less).
pub const DRAIN_LIMIT: Nanos = 10_000_000_000;
/// How long the I/O still in flight after the drain gave up gets to complete once cancelled.
const SETTLE_LIMIT: Nanos = 1_000_000_000;

/// The slot of the oldest I/O still in flight (stamped in `started`), when the device stopped
/// answering.
#[cold]
fn oldest<E: Engine>(engine: &mut E, started: &[Nanos]) -> Option<usize> {
    engine
        .slots()
        .in_flight_slots()
        .min_by_key(|&s| started[s as usize])
        .map(|s| s as usize)
}

/// The end of a measured window with no time limit: centuries away, with room for sums.
pub const NO_LIMIT: Nanos = Nanos::MAX / 4;

/// The phase boundaries of a timespan on the clock's axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Load starts (warm-up begins).
    pub start: Nanos,
    /// The measured window begins.
    pub warmup_end: Nanos,
    /// The measured window ends.
    pub measure_end: Nanos,
    /// Cool-down ends: stop issuing and drain.
    pub end: Nanos,
}

/// This thread's timed sleeps end within 1 µs of their deadline instead of the default 50 µs of
/// slack: for threads that wait on a schedule (pacing, think time, replay).
fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes a value and changes only this thread's timers.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong) };
}

impl Schedule {
    /// Phases from `start` with the given seconds of warm-up, measurement and cool-down; a
    /// measurement of 0 seconds has no time limit (a run bounded by work ends by itself).
    pub fn new(start: Nanos, warmup_s: u32, duration_s: u32, cooldown_s: u32) -> Self {
        let s = |secs: u32| secs as u64 * 1_000_000_000;
        let warmup_end = start + s(warmup_s);
        let measure_end = match duration_s {
            0 => NO_LIMIT,
            d => warmup_end + s(d),
        };
        Schedule {
            start,
            warmup_end,
            measure_end,
            end: measure_end + s(cooldown_s),
        }
    }
}

/// One target as this thread drives it.
pub struct WorkerTarget<'a> {
    /// Offsets for this thread.
    pub offsets: OffsetGen<'a>,
    /// `-g` pacing and `-i`/`-j` bursts.
    pub throttle: Throttle,
    /// Write buffer refresh.
    pub fill: WriteFill<'a>,
    /// Percent writes (of the I/Os that are not trims).
    pub write_ratio: u8,
    /// `--trim`: percent of the I/Os that are trims.
    pub trim_percent: u8,
    /// `--fsync`/`--fdatasync`: when this thread flushes the target.
    pub flush: Option<Flusher>,
    /// Bytes per I/O.
    pub block: u32,
    /// Index of the target in the timespan.
    pub index: usize,
    /// The first of this target's slots (offsets keep one lane per slot for `-p`).
    pub first_slot: u32,
    /// Direction of the current mixed (`-rs`) run.
    pub last_op: Op,
    /// `--ios`/`--bytes`: what this thread may still issue to the target.
    pub budget: budget::Budget,
    /// `--bssplit`: the sizes its I/Os draw from; `None`: every I/O is `block` bytes.
    pub sizes: Option<sizes::SizeDraw>,
    /// `--continue-on-error`: the failed I/Os counted and passed.
    pub continue_on: Option<crate::profile::ContinueOn>,
    /// `--max-latency`: the longest a measured I/O may take, per [`Op`] (`u64::MAX`: no limit).
    pub max_latency: [Nanos; 5],
    /// `--serialize-overlap`: an I/O overlapping one in flight to this target waits for it.
    pub serialize_overlap: bool,
    /// `--ioprio-split`: each read's and write's priority, drawn as it is issued.
    pub priorities: Option<priorities::PriorityDraw>,
}

/// `--fsync=<N>`/`--fdatasync=<N>`: counts a thread's writes to a target and owes a flush after
/// every `every` of them.
#[derive(Debug, Clone, Copy)]
pub struct Flusher {
    /// Writes between flushes.
    pub every: u32,
    /// `Op::Fsync` or `Op::Fdatasync`.
    pub op: Op,
    /// Writes issued since the last flush was owed.
    pub writes: u32,
}

impl WorkerTarget<'_> {
    /// The kind, offset and length of the next I/O on this target from `slot`, and the index of
    /// its size among `--bssplit`'s (0 without it): a flush when one is owed (offset 0, no
    /// bytes), otherwise a trim, write or read at the next offset.
    #[inline]
    fn next(&mut self, rng: &mut Rng, slot: u32) -> (Op, u64, u32, SizeIndex) {
        if let Some(flush) = &mut self.flush
            && flush.writes >= flush.every
        {
            flush.writes -= flush.every;
            return (flush.op, 0, 0, 0);
        }
        let lane = slot.saturating_sub(self.first_slot) as usize;
        let (offset, len, index) = match &self.sizes {
            None => {
                let (offset, fresh) = self.offsets.next(rng, lane);
                if fresh {
                    self.last_op = self.direction(rng);
                }
                (offset, self.block, 0)
            }
            // Mixed sizes: the direction, then its size, then an offset that fits it.
            Some(sizes) => {
                self.last_op = self.direction(rng);
                let (len, index) = sizes.draw_within(self.last_op, rng, self.budget.room());
                (self.offsets.next_sized(rng, lane, len as u64), len, index)
            }
        };
        if self.last_op == Op::Write
            && let Some(flush) = &mut self.flush
        {
            flush.writes += 1;
        }
        (self.last_op, offset, len, index)
    }

    /// A fresh direction by `--trim` and `-w`.
    #[inline]
    fn direction(&self, rng: &mut Rng) -> Op {
        match self.write_ratio {
            _ if self.trim_percent > 0 && rng.below(100) < self.trim_percent as u64 => Op::Trim,
            0 => Op::Read,
            100 => Op::Write,
            w if rng.below(100) < w as u64 => Op::Write,
            _ => Op::Read,
        }
    }

    /// Bytes an I/O of `op` covers: a block, or nothing for a flush.
    #[inline]
    fn len(&self, op: Op) -> u32 {
        if op.has_range() { self.block } else { 0 }
    }
}

/// How slots pick their target.
pub enum Assignment {
    /// Each slot belongs to one target (`-o`): slot → index into the thread's targets.
    Fixed(Vec<u16>),
    /// A `-O` pool drawing its targets by weight (cumulative weights per target): each I/O, or
    /// with `random:<per>` every `per` I/Os (`left` more to `current`).
    Weighted {
        /// Cumulative weights, one per target.
        cumulative: Vec<u64>,
        /// The target drawn last.
        current: usize,
        /// I/Os it still gets.
        left: u32,
        /// I/Os per draw.
        per: u32,
    },
    /// A `-O` pool drawing each I/O's target with a skew over the targets in order.
    Skewed(SkewDraw),
    /// A `-O` pool served in turn (`--file-service=roundrobin:<per>`, or `sequential` with `per`
    /// unbounded): `per` I/Os to the current target, then the next whose work is not done.
    InTurn {
        /// The target being served.
        current: usize,
        /// I/Os it still gets in this turn.
        left: u32,
        /// I/Os per turn.
        per: u32,
    },
}

/// One worker thread's state for a run.
pub struct Worker<'a, C: Clock> {
    /// The thread's clock.
    pub clock: C,
    /// Global thread number.
    pub thread: u32,
    /// The targets this thread serves.
    pub targets: Vec<WorkerTarget<'a>>,
    /// How slots pick targets.
    pub assignment: Assignment,
    /// The thread's generator.
    pub rng: Rng,
    /// Phase boundaries.
    pub schedule: Schedule,
    /// Set (to the time of the request) when the run must stop early.
    pub stop: &'a AtomicU64,
    /// Set (to the time) when the timespan's `--steady-state` rule was met: it ends there.
    pub steady_end: &'a AtomicU64,
    /// `-D` interval in nanoseconds; 0 without `-D`.
    pub interval_ns: Nanos,
    /// `-P`: print a dot every this many completions; 0 for never.
    pub progress_every: u64,
    /// How long to poll for a completion before sleeping; 0 sleeps at once.
    pub spin_ns: Nanos,
    /// `-u`: completions a blocking wait asks for.
    pub wait_batch: u32,
    /// `-oc`: completions taken per look (usize::MAX for all).
    pub completion_depth: usize,
    /// What was measured, one entry per target in `targets` order.
    pub stats: Vec<TargetStats>,
    /// How the thread waited.
    pub waits: WaitStats,
    /// Its slowest measured I/Os.
    pub slowest: crate::stats::slowest::Slowest,
    /// With the device clock: where each slowest I/O's request is found.
    pub served: Option<std::sync::Arc<crate::targets::served::ServedLookup>>,
    /// Per-interval slices for the collector (time series, progress, logs); `None` when nothing
    /// needs them.
    pub feed: Option<crate::live::Feed>,
    /// `--trace`: every measured I/O; `None` without it.
    pub tracer: Option<crate::trace::Tracer>,
    /// Index of the timespan (for trace records).
    pub timespan: u8,
    /// `--verify`: this thread's side of the verifier; `None` without it.
    pub verify: Option<crate::verify::ThreadVerify<'a>>,
    /// `iospd replay`: the trace this thread issues instead of drawing I/O.
    pub replay: Option<replay::Replaying>,
    /// When every target of the thread is bounded by work: where it says it has finished.
    pub finishing: Option<&'a budget::Finishing>,
    /// `--continue-on-error`: the failed I/Os this thread counted and went on past.
    pub failed: crate::stats::FailedIos,
    /// `--flow`: this thread's place in the flow; `None` without it.
    pub flow: Option<flow::FlowMember<'a>>,
    /// `--flow-sleep`: how long a thread over its share waits before it looks again.
    pub flow_sleep_ns: Nanos,
}

impl<C: Clock> Worker<'_, C> {
    /// Runs warm-up, the measured window and cool-down, then drains. Returns the failed I/O that
    /// stopped the run early, if any (an I/O the device never answered is one); engine errors are
    /// returned as `Err`. I/O still in flight after that (an engine error, a device that stopped
    /// answering) stops every thread and is cancelled; what the kernel still holds after
    /// [`SETTLE_LIMIT`] is left in flight, and the engine keeps its memory when it goes.
    pub fn run<E: Engine>(&mut self, engine: &mut E) -> io::Result<Option<IoFailure>> {
        let result = match self.replay.take() {
            Some(mut replaying) => {
                let result = self.replay_and_drain(engine, &mut replaying);
                self.replay = Some(replaying);
                result
            }
            None => self.issue_and_drain(engine),
        };
        if engine.slots().in_flight() > 0 {
            let _ = self.stop.compare_exchange(
                0,
                self.clock.now().max(1),
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
            settle(engine, SETTLE_LIMIT);
        }
        result
    }

    #[inline]
    fn target_of(&mut self, slot: u32) -> usize {
        match &mut self.assignment {
            Assignment::Fixed(slots) => slots[slot as usize] as usize,
            Assignment::Weighted {
                cumulative,
                current,
                left,
                per,
            } => {
                if *left == 0 || !self.targets[*current].budget.open() {
                    let pick = self.rng.below(cumulative[cumulative.len() - 1]);
                    *current = cumulative.partition_point(|&until| until <= pick);
                    *left = *per;
                }
                *left -= 1;
                *current
            }
            Assignment::Skewed(draw) => draw.next(&mut self.rng) as usize,
            Assignment::InTurn { current, left, per } => {
                let n = self.targets.len();
                // A turn ends after its I/Os, or early when the target's work is done.
                if *left == 0 || !self.targets[*current].budget.open() {
                    *left = *per;
                    let next = (1..=n)
                        .map(|step| (*current + step) % n)
                        .find(|&t| self.targets[t].budget.open());
                    *current = next.unwrap_or(*current);
                }
                if *per != u32::MAX {
                    *left = left.saturating_sub(1);
                }
                *current
            }
        }
    }

    /// Makes room for a counted completion in `-D` interval `interval`. A run with `-d` has
    /// every interval from the start; one bounded by its work has no length to size them by, and
    /// they grow here, at most once per interval.
    #[inline]
    fn keep_interval(&mut self, interval: usize) {
        if self.interval_ns != 0
            && self
                .stats
                .first()
                .is_some_and(|s| interval >= s.read.intervals.len())
        {
            self.grow_intervals(interval);
        }
    }

    #[cold]
    fn grow_intervals(&mut self, interval: usize) {
        let kept = self.stats.first().map_or(0, |s| s.read.intervals.len());
        let n = (interval + 1).max(kept * 2);
        for stats in &mut self.stats {
            stats.keep_intervals(n);
        }
    }

    /// Ships the feed's slice once `now` lies in a later interval of the measured window.
    #[inline]
    fn advance_feed(&mut self, now: Nanos) {
        if let Some(feed) = &mut self.feed
            && now >= self.schedule.warmup_end
        {
            feed.advance((now - self.schedule.warmup_end) / feed.interval_ns());
        }
    }

    /// How long a blocking wait may sleep so the feed ships each interval on time even when no I/O
    /// completes near its end. Only waits that begin close to the boundary carry the timeout: a
    /// timed wait costs more in the kernel, and a wait that began earlier and is still asleep at
    /// the boundary means nothing completed, so the slice it ships late is still exact.
    #[inline]
    fn feed_deadline(&self, now: Nanos) -> Option<Nanos> {
        const NEAR: Nanos = 50_000_000;
        let feed = self.feed.as_ref()?;
        let boundary = self.schedule.warmup_end + (feed.index() + 1) * feed.interval_ns();
        let left = boundary.saturating_sub(now);
        (left < NEAR).then_some(left.max(1_000))
    }

    /// Polls for completions (each poll also submits and flushes finished work) until one arrives or
    /// the spin budget runs out. Spinning keeps the scheduler's wake-up delay out of the measured
    /// latency; the caller sleeps in the kernel if nothing arrived.
    /// Returns when the polling began (0 when the first look found completions).
    fn spin<E: Engine>(&mut self, engine: &mut E, done: &mut Vec<Completion>) -> io::Result<Nanos> {
        let mut began = 0;
        loop {
            engine.submit(0, None)?;
            engine.reap(done, self.completion_depth);
            self.waits.record_lookaside(done.len());
            if !done.is_empty() {
                return Ok(began);
            }
            let now = self.clock.now();
            if began == 0 {
                began = now;
            } else if now >= began + self.spin_ns {
                return Ok(began);
            }
        }
    }

    /// Whether to keep issuing, and where the measured window ends, as of `now`.
    #[inline]
    fn phase(&self, now: Nanos, filling: bool, window_end: Nanos) -> (bool, Nanos) {
        let stop_at = match self.stop.load(Ordering::Relaxed) {
            0 => self.steady_end.load(Ordering::Relaxed),
            at => at,
        };
        if stop_at != 0 {
            return (false, window_end.min(stop_at));
        }
        (filling && now < self.schedule.end, window_end)
    }
}
