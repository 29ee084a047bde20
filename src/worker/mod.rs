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
//! Nothing in the loop allocates, locks or tests the configuration: disabled features are data
//! (an empty interval table, a pacer with no limit, a progress countdown that never ends).

pub mod accounting;
pub mod buffers;
pub mod offsets;
pub mod throttle;

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::rng::Rng;
use accounting::Accounting;
use buffers::{SlotBuffers, WriteFill};
use offsets::OffsetGen;
use throttle::Throttle;

use crate::clock::{Clock, Nanos};
use crate::engine::{Completion, Engine, Io, Op};
use crate::stats::{IoFailure, TargetStats, WaitStats};

/// The longest the loop sleeps at once while every slot is held back by pacing, so a stop request
/// is seen promptly.
const MAX_PAUSE: Nanos = 10_000_000;

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

impl Schedule {
    /// Phases from `start` with the given seconds of warm-up, measurement and cool-down.
    pub fn new(start: Nanos, warmup_s: u32, duration_s: u32, cooldown_s: u32) -> Self {
        let s = |secs: u32| secs as u64 * 1_000_000_000;
        let warmup_end = start + s(warmup_s);
        let measure_end = warmup_end + s(duration_s);
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
    /// Percent writes.
    pub write_ratio: u8,
    /// Bytes per I/O.
    pub block: u32,
    /// Index of the target in the timespan.
    pub index: usize,
    /// The first of this target's slots (offsets keep one lane per slot for `-p`).
    pub first_slot: u32,
    /// Direction of the current mixed (`-rs`) run.
    pub last_op: Op,
}

impl WorkerTarget<'_> {
    /// The direction and offset of the next I/O on this target from `slot`.
    #[inline]
    fn next(&mut self, rng: &mut Rng, slot: u32) -> (Op, u64) {
        let lane = slot.saturating_sub(self.first_slot) as usize;
        let (offset, fresh) = self.offsets.next(rng, lane);
        if fresh {
            self.last_op = match self.write_ratio {
                0 => Op::Read,
                100 => Op::Write,
                w if rng.below(100) < w as u64 => Op::Write,
                _ => Op::Read,
            };
        }
        (self.last_op, offset)
    }
}

/// How slots pick their target.
pub enum Assignment {
    /// Each slot belongs to one target (`-o`): slot → index into the thread's targets.
    Fixed(Vec<u16>),
    /// A `-O` pool: each I/O draws its target by weight; cumulative weights per target.
    Weighted(Vec<u64>),
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
    /// The slots' buffers.
    pub buffers: &'a SlotBuffers,
    /// The thread's generator.
    pub rng: Rng,
    /// Phase boundaries.
    pub schedule: Schedule,
    /// Set (to the time of the request) when the run must stop early.
    pub stop: &'a AtomicU64,
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
    /// Per-interval slices for the collector (time series, progress, logs); `None` when nothing
    /// needs them.
    pub feed: Option<crate::live::Feed>,
    /// `--trace`: every measured I/O; `None` without it.
    pub tracer: Option<crate::trace::Tracer>,
    /// Index of the timespan (for trace records).
    pub timespan: u8,
}

impl<C: Clock> Worker<'_, C> {
    /// Runs warm-up, the measured window and cool-down, then drains. Returns the failed I/O that
    /// stopped the run early, if any; engine errors are returned as `Err`.
    pub fn run<E: Engine>(&mut self, engine: &mut E) -> io::Result<Option<IoFailure>> {
        let mut inflight = 0usize;
        let result = self.issue_and_drain(engine, &mut inflight);
        if result.is_err() {
            // The engine failed: stop every thread, and give the kernel back every buffer it is
            // still using before they are freed.
            let _ = self.stop.compare_exchange(
                0,
                self.clock.now().max(1),
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
            let mut done = Vec::with_capacity(inflight);
            for _ in 0..1000 {
                if inflight == 0 || engine.submit(1, Some(MAX_PAUSE)).is_err() {
                    break;
                }
                engine.reap(&mut done, usize::MAX);
                inflight = inflight.saturating_sub(done.len());
                done.clear();
            }
        }
        result
    }

    #[inline]
    fn target_of(&mut self, slot: u32) -> usize {
        match &mut self.assignment {
            Assignment::Fixed(slots) => slots[slot as usize] as usize,
            Assignment::Weighted(cumulative) => {
                let pick = self.rng.below(cumulative[cumulative.len() - 1]);
                cumulative.partition_point(|&until| until <= pick)
            }
        }
    }

    fn issue_and_drain<E: Engine>(
        &mut self,
        engine: &mut E,
        inflight: &mut usize,
    ) -> io::Result<Option<IoFailure>> {
        let slots = self.buffers_slots();
        let mut free: Vec<u32> = (0..slots as u32).rev().collect();
        let mut batch: Vec<u32> = Vec::with_capacity(slots);
        let mut done: Vec<Completion> = Vec::with_capacity(slots);
        let mut started = vec![0 as Nanos; slots];
        // When the pacer said each slot's I/O was due (paced targets only).
        let mut intended = vec![0 as Nanos; slots];
        let mut offsets = vec![0u64; slots];
        let mut ops = vec![Op::Read; slots];
        let mut owner = vec![0u16; slots];
        let mut filling = true;
        let mut failure = None;
        let mut window_end = self.schedule.measure_end;
        let progress_every = if self.progress_every == 0 {
            u64::MAX
        } else {
            self.progress_every
        };
        let mut progress_left = progress_every;
        let interval_ns = if self.interval_ns == 0 {
            Nanos::MAX
        } else {
            self.interval_ns
        };
        for target in &mut self.targets {
            target.throttle.start_at(self.schedule.start);
        }
        let mut acct = Accounting::new(self.schedule.warmup_end, window_end);
        let mut now = self.clock.now();
        loop {
            if filling {
                let mut i = free.len();
                while i > 0 {
                    i -= 1;
                    let slot = free[i];
                    let t = self.target_of(slot);
                    let target = &mut self.targets[t];
                    if !target.throttle.ready(now) {
                        continue;
                    }
                    free.swap_remove(i);
                    let (op, offset) = target.next(&mut self.rng, slot);
                    if op == Op::Write {
                        let buf = self
                            .buffers
                            .slice_mut(slot, Op::Write, target.block as usize);
                        target.fill.prepare(buf, &mut self.rng);
                    }
                    intended[slot as usize] = target.throttle.due();
                    target.throttle.issued(now);
                    ops[slot as usize] = op;
                    offsets[slot as usize] = offset;
                    owner[slot as usize] = t as u16;
                    engine.push(Io {
                        slot,
                        target: t as u16,
                        op,
                        offset,
                        len: target.block,
                    })?;
                    batch.push(slot);
                }
            }
            let mut entered = now;
            if !batch.is_empty() {
                let stamp = self.clock.now();
                for &slot in &batch {
                    started[slot as usize] = stamp;
                }
                acct.in_flight(stamp, *inflight);
                *inflight += batch.len();
                batch.clear();
                entered = stamp;
            }
            if *inflight == 0 {
                if !filling {
                    break;
                }
                // Every slot is held back by pacing: sleep until the first is due.
                let due = self
                    .targets
                    .iter()
                    .map(|t| t.throttle.due())
                    .min()
                    .unwrap_or(now);
                let pause = due
                    .saturating_sub(now)
                    .min(self.schedule.end.saturating_sub(now))
                    .clamp(1, MAX_PAUSE);
                self.waits.throttle_sleeps += 1;
                self.clock.sleep(pause);
                now = self.clock.now();
                (filling, window_end) = self.phase(now, filling, window_end);
                self.advance_feed(now);
                continue;
            }
            let throttled = filling && !free.is_empty();
            let mut spun_from = 0;
            if throttled {
                let due = self
                    .targets
                    .iter()
                    .filter(|t| t.throttle.is_limited())
                    .map(|t| t.throttle.due())
                    .min()
                    .unwrap_or(now);
                let timeout = due.saturating_sub(now).clamp(1_000, MAX_PAUSE);
                self.waits.throttle_waits += 1;
                engine.submit(1, Some(timeout))?;
                engine.reap(&mut done, self.completion_depth);
            } else {
                if self.spin_ns > 0 {
                    spun_from = self.spin(engine, &mut done)?;
                }
                if done.is_empty() {
                    let wait_for = self.wait_batch.min(*inflight as u32).max(1);
                    engine.submit(wait_for, self.feed_deadline(now))?;
                    engine.reap(&mut done, self.completion_depth);
                    self.waits.record_wait(done.len());
                }
            }
            self.waits.submits += 1;
            now = self.clock.now();
            (filling, window_end) = self.phase(now, filling, window_end);
            acct.end_at(window_end);
            acct.engine_call(entered, now);
            if spun_from != 0 {
                acct.spun(spun_from, now);
            }
            acct.in_flight(now, *inflight);
            let counted = now >= self.schedule.warmup_end && now < window_end;
            let interval = (now.saturating_sub(self.schedule.warmup_end) / interval_ns) as usize;
            self.advance_feed(now);
            for completion in done.drain(..) {
                *inflight -= 1;
                let slot = completion.slot as usize;
                let t = owner[slot] as usize;
                let len = self.targets[t].block;
                if counted && let Some(tracer) = &mut self.tracer {
                    tracer.push(crate::trace::Record {
                        completion_ns: now - self.schedule.warmup_end,
                        latency_ns: now - started[slot],
                        offset: offsets[slot],
                        len,
                        result: completion.result,
                        thread: self.thread,
                        target: self.targets[t].index as u16,
                        op: ops[slot],
                        timespan: self.timespan,
                    });
                }
                if completion.result != len as i32 {
                    if failure.is_none() {
                        failure = Some(IoFailure {
                            thread: self.thread,
                            target: self.targets[t].index,
                            op: ops[slot],
                            offset: offsets[slot],
                            len,
                            result: completion.result,
                        });
                        let _ = self.stop.compare_exchange(
                            0,
                            now.max(1),
                            Ordering::SeqCst,
                            Ordering::SeqCst,
                        );
                        filling = false;
                    }
                } else if counted {
                    let latency = now - started[slot];
                    let stats = self.stats[t].op_mut(ops[slot]);
                    stats.record(len as u64, latency, interval);
                    if let Some(h) = &mut stats.from_intended {
                        h.record(now - intended[slot]);
                    }
                    if let Some(feed) = &mut self.feed {
                        feed.record(t, ops[slot], len as u64, latency);
                    }
                }
                free.push(completion.slot);
                progress_left -= 1;
                if progress_left == 0 {
                    progress_left = progress_every;
                    let _ = io::stdout().write_all(b".");
                }
            }
        }
        if let Some(feed) = self.feed.take() {
            feed.finish();
        }
        acct.finish(&mut self.waits);
        Ok(failure)
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

    fn buffers_slots(&self) -> usize {
        use crate::engine::SlotMemory;
        self.buffers.slots() as usize
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
        let stop_at = self.stop.load(Ordering::Relaxed);
        if stop_at != 0 {
            return (false, window_end.min(stop_at));
        }
        (filling && now < self.schedule.end, window_end)
    }
}
