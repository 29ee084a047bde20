//! The loop of `iospd replay`: an open-loop schedule of absolute deadlines. I/O n is due at the
//! start + its trace time (scaled), never at "the previous I/O + a gap", so lateness does not add
//! up. Each I/O goes out once it is due and a slot is free; the loop sleeps in the kernel
//! (waiting for completions, or on the clock) until shortly before the next deadline and polls
//! the rest, so it does not oversleep. An I/O that falls due while every slot is busy waits for
//! one and is counted as held back by the depth cap. Completions are recorded as the benchmark
//! loop records them (statistics, time series, trace).

use std::io;
use std::sync::atomic::Ordering;

use super::accounting::Accounting;
use super::{DRAIN_LIMIT, MAX_WAIT, Worker, oldest};
use crate::clock::{Clock, Nanos};
use crate::engine::{Completion, Engine, Io, Op};
use crate::replay::stream::Feed;
use crate::stats::IoFailure;
use crate::stats::replay::ReplayStats;

/// Sleep (in the kernel) only when the next deadline is further away than this; poll otherwise.
const POLL_WITHIN: Nanos = 100_000;
/// Wake this long before a deadline when sleeping towards it (wake-up delay; the thread's timer
/// slack is set to 1 µs).
const WAKE_EARLY: Nanos = 50_000;

/// A replaying worker's source and timing.
pub struct Replaying {
    /// The trace's I/O, in time order.
    pub feed: Feed,
    /// What the timing measured.
    pub stats: Box<ReplayStats>,
}

impl<C: Clock> Worker<'_, C> {
    /// Issues the trace's I/O on its schedule until it ends or a stop is requested, then drains.
    pub(super) fn replay_and_drain<E: Engine>(
        &mut self,
        engine: &mut E,
        replaying: &mut Replaying,
    ) -> io::Result<Option<IoFailure>> {
        super::precise_timers();
        let slots = engine.slots().len() as usize;
        let timed = !replaying.stats.as_fast_as_possible;
        // Time zero of the schedule: when this loop begins, so the setup between the start
        // barrier and the first look at the trace is not counted as every I/O's lateness.
        let start = self.clock.now().max(self.schedule.start);
        // Nothing is issued from the cut (`-d`) on: the window ends with the last completion.
        let cut = start.saturating_add(replaying.stats.cut_ns);
        let mut free = FreeSlots::new(engine.slots());
        let mut batch: Vec<u32> = Vec::with_capacity(slots);
        let mut done: Vec<Completion> = Vec::with_capacity(slots);
        let mut started = vec![0 as Nanos; slots];
        let mut due = vec![0 as Nanos; slots];
        let mut ops = vec![Op::Read; slots];
        let mut offsets = vec![0u64; slots];
        let mut lens = vec![0u32; slots];
        let mut owner = vec![0u16; slots];
        let mut inflight = 0usize;
        let mut filling = true;
        let mut ended = false;
        let mut failure = None;
        let mut draining_since = None;
        let mut held = false;
        let interval_ns = if self.interval_ns == 0 {
            Nanos::MAX
        } else {
            self.interval_ns
        };
        let mut acct = Accounting::new(self.schedule.warmup_end, self.schedule.measure_end);
        let mut now = self.clock.now();
        loop {
            // 1. Issue every I/O that is due, while slots are free, until the cut.
            if filling && now >= cut {
                filling = false;
                ended = true;
                replaying.stats.cut = true;
            }
            if filling {
                loop {
                    let Some(next) = replaying.feed.peek() else {
                        filling = false;
                        ended = true;
                        break;
                    };
                    let at = start + next.at_ns;
                    if timed && at > now {
                        break;
                    }
                    if now >= cut {
                        break;
                    }
                    let needs = match next.op.moves_data() {
                        true => next.len as usize,
                        false => 0,
                    };
                    let Some(slot) = free.take(needs) else {
                        if !held {
                            held = true;
                            replaying.stats.held_by_depth += 1;
                        }
                        break;
                    };
                    held = false;
                    let next = *next;
                    replaying.feed.advance();
                    let t = next.target as usize;
                    let s = slot as usize;
                    if next.op == Op::Write {
                        let buf = engine.slots().write_buffer(slot, next.len as usize);
                        self.targets[t]
                            .fill
                            .prepare(buf, &mut self.rng, next.offset);
                    }
                    (ops[s], offsets[s], lens[s], owner[s]) =
                        (next.op, next.offset, next.len, next.target);
                    due[s] = if timed { at } else { now };
                    engine.push(Io {
                        slot,
                        target: next.target,
                        op: next.op,
                        offset: next.offset,
                        len: next.len,
                        priority: 0,
                    })?;
                    batch.push(slot);
                }
            }
            // 2. Stamp the batch and hand it over at once.
            if !batch.is_empty() {
                let stamp = self.clock.now();
                acct.submitting(stamp, inflight, batch.len());
                for &slot in &batch {
                    let s = slot as usize;
                    started[s] = stamp;
                    replaying
                        .stats
                        .submitted(due[s] - start, stamp - start, lens[s]);
                }
                inflight += batch.len();
                batch.clear();
                engine.submit(0, None)?;
                engine.reap(&mut done, self.completion_depth);
            }
            if inflight == 0 && !filling {
                break;
            }
            // 3. Wait: for a completion or the next deadline, sleeping only when it is far.
            let entered = self.clock.now();
            // Waiting for a deadline close by: polled, not counted as the loop's own work.
            let mut spun = false;
            if done.is_empty() {
                // The next I/O is held back when no free slot holds it: wait for a completion.
                let next_due = match (filling, free.none() || held) {
                    (true, false) => replaying.feed.peek().map(|n| start + n.at_ns),
                    _ => None,
                };
                now = self.clock.now();
                let until = next_due.map(|d| d.saturating_sub(now));
                match (inflight, until) {
                    (_, Some(0)) => {}
                    (0, Some(gap)) if gap > POLL_WITHIN => {
                        self.waits.throttle_sleeps += 1;
                        self.clock.sleep((gap - WAKE_EARLY).min(super::MAX_PAUSE));
                    }
                    (0, _) => {
                        std::hint::spin_loop();
                        spun = true;
                    }
                    (_, Some(gap)) if gap <= POLL_WITHIN => {
                        engine.submit(0, None)?;
                        engine.reap(&mut done, self.completion_depth);
                        self.waits.record_lookaside(done.len());
                        spun = true;
                    }
                    (_, until) => {
                        let timeout = until.map_or(MAX_WAIT, |gap| gap - WAKE_EARLY);
                        let timeout = self
                            .feed_deadline(now)
                            .map_or(timeout, |f| f.min(timeout))
                            .min(MAX_WAIT);
                        engine.submit(1, Some(timeout))?;
                        engine.reap(&mut done, self.completion_depth);
                        self.waits.record_wait(done.len());
                    }
                }
            }
            self.waits.submits += 1;
            now = self.clock.now();
            let stop_at = self.stop.load(Ordering::Relaxed);
            if stop_at != 0 {
                filling = false;
                acct.end_at(stop_at);
            }
            acct.engine_call(entered, now);
            if spun {
                acct.spun(entered, now);
            }
            acct.in_flight(now, inflight);
            if !filling && inflight > 0 {
                let since = *draining_since.get_or_insert(now);
                if now - since >= DRAIN_LIMIT && done.is_empty() {
                    if let Some(s) = oldest(engine, &started).filter(|_| failure.is_none()) {
                        failure = Some(IoFailure {
                            thread: self.thread,
                            target: self.targets[owner[s] as usize].index,
                            op: ops[s],
                            offset: offsets[s],
                            len: lens[s],
                            result: -libc::ETIMEDOUT,
                            latency_ns: None,
                        });
                    }
                    break;
                }
            }
            // 4. Record what completed.
            let interval = (now.saturating_sub(self.schedule.warmup_end) / interval_ns) as usize;
            self.keep_interval(interval);
            self.advance_feed(now);
            for completion in done.drain(..) {
                inflight -= 1;
                let s = completion.slot as usize;
                let t = owner[s] as usize;
                let (op, len) = (ops[s], lens[s]);
                let latency = now - started[s];
                if let Some(tracer) = &mut self.tracer {
                    tracer.push(crate::trace::Record {
                        completion_ns: now - self.schedule.warmup_end,
                        latency_ns: latency,
                        offset: offsets[s],
                        len,
                        result: completion.result,
                        thread: self.thread,
                        target: self.targets[t].index as u16,
                        op,
                        timespan: self.timespan,
                    });
                }
                let completed = completion.result == op.success(len);
                if completed {
                    if self.slowest.admits(latency) {
                        self.keep_slow(started[s], now, t, (op, offsets[s], len));
                    }
                    self.stats[t]
                        .op_mut(op)
                        .record(len as u64, latency, interval);
                    if let Some(feed) = &mut self.feed {
                        feed.record(t, op, len as u64, latency);
                    }
                }
                // A failed I/O, or one over --max-latency (measured first), stops the replay.
                let over = completed && latency > self.targets[t].max_latency[op as usize];
                if (!completed || over) && failure.is_none() {
                    failure = Some(IoFailure {
                        thread: self.thread,
                        target: self.targets[t].index,
                        op,
                        offset: offsets[s],
                        len,
                        result: if over {
                            -libc::ETIMEDOUT
                        } else {
                            completion.result
                        },
                        latency_ns: over.then_some(latency),
                    });
                    let _ = self.stop.compare_exchange(
                        0,
                        now.max(1),
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    );
                    filling = false;
                }
                free.give_back(completion.slot);
            }
        }
        if ended && failure.is_none() {
            // The trace is over: the measured window ends with its last completion.
            let end = self.clock.now().max(1);
            if self
                .stop
                .compare_exchange(0, end, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                replaying.stats.ended = true;
                acct.end_at(end);
            }
        }
        acct.finish(&mut self.waits);
        if let Some(feed) = self.feed.take() {
            feed.finish();
        }
        Ok(failure)
    }
}

/// The free slots by the bytes they hold: a replay's slots come in sizes (its pool), and an I/O
/// takes the smallest free slot that holds it.
struct FreeSlots {
    /// The sizes, ascending.
    sizes: Vec<usize>,
    /// Per size, its free slots.
    free: Vec<Vec<u32>>,
    /// Per slot, the index of its size.
    size_of: Vec<usize>,
    count: usize,
}

impl FreeSlots {
    fn new(slots: &crate::engine::Slots) -> Self {
        let holds: Vec<usize> = (0..slots.len()).map(|s| slots.holds(s)).collect();
        let mut sizes = holds.clone();
        sizes.sort_unstable();
        sizes.dedup();
        let size_of: Vec<usize> = holds
            .iter()
            .map(|h| sizes.partition_point(|s| s < h))
            .collect();
        let mut free = vec![Vec::new(); sizes.len()];
        for slot in (0..slots.len()).rev() {
            free[size_of[slot as usize]].push(slot);
        }
        FreeSlots {
            sizes,
            free,
            size_of,
            count: slots.len() as usize,
        }
    }

    /// The smallest free slot that holds `bytes`.
    #[inline]
    fn take(&mut self, bytes: usize) -> Option<u32> {
        let from = self.sizes.partition_point(|&s| s < bytes);
        let slot = self.free[from..].iter_mut().find_map(Vec::pop)?;
        self.count -= 1;
        Some(slot)
    }

    #[inline]
    fn give_back(&mut self, slot: u32) {
        self.free[self.size_of[slot as usize]].push(slot);
        self.count += 1;
    }

    /// Whether every slot is in flight.
    #[inline]
    fn none(&self) -> bool {
        self.count == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::buffers::{InitialFill, SlotBuffers, SlotShape};

    #[test]
    fn an_io_takes_the_smallest_free_slot_that_holds_it() {
        let shape = |block| SlotShape {
            block,
            reads: true,
            writes: true,
            fill: InitialFill::Pattern,
            shared: true,
        };
        let shapes = [shape(4096), shape(4096), shape(65536), shape(1 << 20)];
        let slots = crate::engine::Slots::new(SlotBuffers::new(&shapes, false, 0).unwrap());
        let mut free = FreeSlots::new(&slots);
        assert_eq!(free.take(512), Some(0));
        assert_eq!(free.take(0), Some(1));
        // The small ones are busy: a small I/O takes the next size up.
        assert_eq!(free.take(4096), Some(2));
        assert_eq!(free.take(65537), Some(3));
        assert_eq!(free.take(1), None);
        assert!(free.none());
        free.give_back(3);
        assert_eq!(free.take(2 << 20), None);
        assert_eq!(free.take(1 << 20), Some(3));
        free.give_back(1);
        assert!(!free.none());
        assert_eq!(free.take(8192), None);
        assert_eq!(free.take(4096), Some(1));
    }
}
