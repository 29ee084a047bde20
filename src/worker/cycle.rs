//! The loop itself: fill the free slots, stamp the batch, wait (or pause for pacing), record what
//! completed — until the schedule ends and everything in flight has drained.
//!
//! The steps stay in one function over local variables, marked in it. Split into functions over a
//! shared state struct (tried several ways), the compiler keeps that state in memory and stops
//! inlining HdrHistogram's recording into the loop: 329–355 instructions per I/O against 292 for
//! this shape (callgrind, the worker thread's instructions ÷ its I/Os, null engine, QD32 4 KiB
//! random reads), so the loop stays whole.

use std::io::{self, Write};
use std::sync::atomic::Ordering;

use super::accounting::Accounting;
use super::{DRAIN_LIMIT, MAX_PAUSE, MAX_WAIT, Worker, oldest};
use crate::clock::{Clock, Nanos};
use crate::engine::{Completion, Engine, Io, Op};
use crate::stats::IoFailure;
use crate::stats::priorities::PriorityRank;
use crate::stats::sizes::SizeIndex;

/// An I/O drawn for a slot: its target (among the thread's), direction, offset, length and size.
type Drawn = (u16, Op, u64, u32, SizeIndex);

impl<C: Clock> Worker<'_, C> {
    /// Issues until the schedule ends or a stop is requested, then drains every slot in flight,
    /// for up to [`DRAIN_LIMIT`]: an I/O still unanswered then is the run's failure.
    pub(super) fn issue_and_drain<E: Engine>(
        &mut self,
        engine: &mut E,
    ) -> io::Result<Option<IoFailure>> {
        let slots = engine.slots().len() as usize;
        let mut inflight: usize = 0;
        // When the loop stopped issuing.
        let mut draining_since = None;
        // Slots ready to be filled (taken from the end), staged since the last stamp, reaped.
        let mut free: Vec<u32> = (0..slots as u32).rev().collect();
        let mut batch: Vec<u32> = Vec::with_capacity(slots);
        let mut done: Vec<Completion> = Vec::with_capacity(slots);
        // Per slot: submitted when, due when (its pacer's time), where, which way, whose.
        let mut started = vec![0 as Nanos; slots];
        let mut intended = vec![0 as Nanos; slots];
        let mut offsets = vec![0u64; slots];
        let mut ops = vec![Op::Read; slots];
        let mut lens = vec![0u32; slots];
        let mut size_index: Vec<SizeIndex> = vec![0; slots];
        // --ioprio-split: each slot's priority among its target's (empty when no target has one);
        // --flow: whether the thread is in one. Asked once, so the loop pays a register test.
        let split = self.targets.iter().any(|t| t.priorities.is_some());
        let mut priority_rank: Vec<PriorityRank> = vec![0; if split { slots } else { 0 }];
        let flowing = self.flow.is_some();
        // Either: what an issue asks beyond the common path, tested once per I/O.
        let extras = split || flowing;
        let mut owner = vec![0u16; slots];
        // --serialize-overlap: which slots are staged or in flight, and per slot an I/O drawn but
        // held back because it overlaps one of them (empty when no target asks).
        let serialize = self.targets.iter().any(|t| t.serialize_overlap);
        let mut busy = vec![false; if serialize { slots } else { 0 }];
        let mut held: Vec<Option<Drawn>> = vec![None; if serialize { slots } else { 0 }];
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
            target
                .throttle
                .start_at(self.schedule.start, self.schedule.warmup_end);
        }
        if self.targets.iter().any(|t| t.throttle.is_limited()) {
            // Paced I/O is due at its time, not up to 50 µs after (a -j250us pause).
            super::precise_timers();
        }
        let mut acct = Accounting::new(self.schedule.warmup_end, window_end);
        let mut now = self.clock.now();
        loop {
            // 1. Fill: every free slot whose target's pacer allows it gets a target, a direction
            //    and an offset (and, for a write, fresh buffer content), and is staged.
            // --flow: over its share, the thread issues nothing until the others catch up.
            let mut flow_held = false;
            if filling {
                let mut i = free.len();
                while i > 0 {
                    i -= 1;
                    if extras && flowing && self.flow.as_mut().is_some_and(|f| !f.allows()) {
                        flow_held = true;
                        break;
                    }
                    let slot = free[i];
                    // Under --verify, an I/O drawn earlier whose block was busy goes first.
                    let pending = self.verify.as_ref().and_then(|v| v.pending[slot as usize]);
                    let kept = if serialize { held[slot as usize] } else { None };
                    let t = match (kept, pending) {
                        (Some((t, ..)), _) | (None, Some((t, _, _))) => t as usize,
                        (None, None) => self.target_of(slot),
                    };
                    let target = &mut self.targets[t];
                    if !target.budget.open() || !target.throttle.ready(now) {
                        continue;
                    }
                    let (op, offset, len, index) = match (kept, pending) {
                        (Some((_, op, offset, len, index)), _) => (op, offset, len, index),
                        (None, Some((_, op, offset))) => (op, offset, target.len(op), 0),
                        (None, None) => target.next(&mut self.rng, slot),
                    };
                    if serialize {
                        let overlaps = target.serialize_overlap
                            && op.has_range()
                            && (0..slots).any(|j| {
                                busy[j]
                                    && owner[j] as usize == t
                                    && ops[j].has_range()
                                    && offsets[j] < offset + u64::from(len)
                                    && offset < offsets[j] + u64::from(lens[j])
                            });
                        if overlaps {
                            // Kept for this slot until what it overlaps completes.
                            held[slot as usize] = Some((t as u16, op, offset, len, index));
                            continue;
                        }
                        held[slot as usize] = None;
                    }
                    if let Some(v) = &mut self.verify {
                        v.pending[slot as usize] = None;
                        if !v.take(slot, target.index, offset) {
                            v.pending[slot as usize] = Some((t as u16, op, offset));
                            continue;
                        }
                    }
                    free.swap_remove(i);
                    if op == Op::Write {
                        let buf = engine.slots().write_buffer(slot, len as usize);
                        match &mut self.verify {
                            Some(v) => v.stamp(slot, offset, buf),
                            None => target.fill.prepare(buf, &mut self.rng, offset),
                        }
                    }
                    if op.has_range() {
                        target.budget.commit(len);
                    }
                    intended[slot as usize] = target.throttle.due();
                    target.throttle.issued(now);
                    ops[slot as usize] = op;
                    lens[slot as usize] = len;
                    size_index[slot as usize] = index;
                    offsets[slot as usize] = offset;
                    owner[slot as usize] = t as u16;
                    if serialize {
                        busy[slot as usize] = true;
                    }
                    let priority = match extras {
                        true => {
                            if let Some(flow) = &mut self.flow {
                                flow.issued();
                            }
                            match &self.targets[t].priorities {
                                Some(draw) => {
                                    let (priority, rank) = draw.draw(op, len, &mut self.rng);
                                    priority_rank[slot as usize] = rank;
                                    priority
                                }
                                None => 0,
                            }
                        }
                        false => 0,
                    };
                    engine.push(Io {
                        slot,
                        target: t as u16,
                        op,
                        offset,
                        len,
                        priority,
                    })?;
                    batch.push(slot);
                }
            }
            // 2. Stamp: one clock read for the whole batch, just before it is submitted.
            let mut entered = now;
            if !batch.is_empty() {
                let stamp = self.clock.now();
                for &slot in &batch {
                    started[slot as usize] = stamp;
                }
                acct.submitting(stamp, inflight, batch.len());
                inflight += batch.len();
                batch.clear();
                entered = stamp;
            }
            if inflight == 0 {
                if !filling {
                    break;
                }
                if let Some(finishing) = self.finishing
                    && self.targets.iter().all(|t| !t.budget.open())
                {
                    // Every target's work is done: the last completion ends this thread's window.
                    finishing.finished(now);
                    break;
                }
                if flow_held {
                    // Nothing in flight and over its share: wait, then look again.
                    self.clock.sleep(self.flow_sleep_ns.max(1));
                    now = self.clock.now();
                    (filling, window_end) = self.phase(now, filling, window_end);
                    self.advance_feed(now);
                    continue;
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
            // 3. Wait: submit and take completions — with a timeout at the next due time when
            //    pacing holds free slots back; else polling up to the spin budget, then sleeping.
            let throttled = filling && !free.is_empty() && !flow_held;
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
                    let wait_for = self.wait_batch.min(inflight as u32).max(1);
                    let timeout = self.feed_deadline(now).unwrap_or(MAX_WAIT);
                    engine.submit(wait_for, Some(timeout))?;
                    engine.reap(&mut done, self.completion_depth);
                    self.waits.record_wait(done.len());
                }
            }
            self.waits.submits += 1;
            now = self.clock.now();
            (filling, window_end) = self.phase(now, filling, window_end);
            if !filling {
                let since = *draining_since.get_or_insert(now);
                if now - since >= DRAIN_LIMIT && done.is_empty() {
                    // The device stopped answering: the oldest I/O in flight is the failure.
                    if let Some(slot) = oldest(engine, &started).filter(|_| failure.is_none()) {
                        let (t, io) =
                            (owner[slot] as usize, (ops[slot], offsets[slot], lens[slot]));
                        failure = Some(self.failure(t, io, -libc::ETIMEDOUT));
                    }
                    break;
                }
            }
            acct.end_at(window_end);
            acct.engine_call(entered, now);
            if spun_from != 0 {
                acct.spun(spun_from, now);
            }
            acct.in_flight(now, inflight);
            // 4. Record: each completion stamped `now` goes to the trace, or stops the run when
            //    it failed, or counts when it lies in the measured window; its slot is free again.
            let counted = now >= self.schedule.warmup_end && now < window_end;
            let interval = (now.saturating_sub(self.schedule.warmup_end) / interval_ns) as usize;
            if counted {
                self.keep_interval(interval);
            }
            self.advance_feed(now);
            for completion in done.drain(..) {
                inflight -= 1;
                let slot = completion.slot as usize;
                let t = owner[slot] as usize;
                let len = lens[slot];
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
                let completed = completion.result == ops[slot].success(len);
                if let Some(v) = &mut self.verify {
                    let data = match (ops[slot], completed) {
                        (Op::Read, true) => {
                            engine.slots().read_buffer(completion.slot, len as usize)
                        }
                        _ => &[],
                    };
                    if v.finish(completion.slot, ops[slot], offsets[slot], completed, data)
                        && v.stops_at_first()
                    {
                        let _ = self.stop.compare_exchange(
                            0,
                            now.max(1),
                            Ordering::SeqCst,
                            Ordering::SeqCst,
                        );
                        filling = false;
                    }
                }
                if !completed
                    && self.targets[t]
                        .continue_on
                        .as_ref()
                        .is_some_and(|c| c.covers(ops[slot], completion.result))
                {
                    // Counted and passed: the work it was stays done (`--ios`/`--bytes`).
                    let io = (ops[slot], offsets[slot], len);
                    let failed = self.failure(t, io, completion.result);
                    self.failed
                        .count(now.saturating_sub(self.schedule.start), failed);
                } else if !completed {
                    if failure.is_none() {
                        let io = (ops[slot], offsets[slot], len);
                        failure = Some(self.failure(t, io, completion.result));
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
                    if ops[slot].has_range()
                        && let Some(hot) = self.targets[t].offsets.hot(offsets[slot])
                    {
                        self.stats[t].skew.count(hot);
                    }
                    if self.slowest.admits(latency) {
                        let io = (ops[slot], offsets[slot], len);
                        self.keep_slow(started[slot], now, t, io);
                    }
                    if let Some(by_size) = &mut self.stats[t].by_size {
                        by_size.record(ops[slot], size_index[slot], latency);
                    }
                    if split && let Some(by_priority) = &mut self.stats[t].by_priority {
                        by_priority.record(ops[slot], priority_rank[slot], len as u64, latency);
                    }
                    let stats = self.stats[t].op_mut(ops[slot]);
                    stats.record(len as u64, latency, interval);
                    if let Some(h) = &mut stats.from_intended {
                        h.record(now - intended[slot]);
                    }
                    if let Some(feed) = &mut self.feed {
                        feed.record(t, ops[slot], len as u64, latency);
                    }
                    // --max-latency: measured, and the run's failure (fio's max_latency).
                    if latency > self.targets[t].max_latency[ops[slot] as usize]
                        && failure.is_none()
                    {
                        let io = (ops[slot], offsets[slot], len);
                        let mut over = self.failure(t, io, -libc::ETIMEDOUT);
                        over.latency_ns = Some(latency);
                        failure = Some(over);
                        let _ = self.stop.compare_exchange(
                            0,
                            now.max(1),
                            Ordering::SeqCst,
                            Ordering::SeqCst,
                        );
                        filling = false;
                    }
                } else if ops[slot].has_range() {
                    self.targets[t].budget.release(len);
                }
                if serialize {
                    busy[slot] = false;
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

    /// Keeps a measured I/O of target `t` (index among the thread's targets), submitted at `from`
    /// and seen complete at `now`, among the thread's slowest, with its request's time on the
    /// device when the device clock finds it.
    #[cold]
    pub(super) fn keep_slow(&mut self, from: Nanos, now: Nanos, t: usize, io: (Op, u64, u32)) {
        let (op, offset, len) = io;
        let target = self.targets[t].index;
        let device_ns = self
            .served
            .as_ref()
            .and_then(|s| s.device_ns(target, op, offset, from, now));
        self.slowest.keep(crate::stats::slowest::SlowIo {
            latency_ns: now - from,
            completed_ns: now - self.schedule.warmup_end,
            thread: self.thread,
            target,
            op,
            offset,
            len,
            device_ns,
        });
    }

    /// The failed I/O that stops the run: `io` (direction, offset, length) on target `t` (index
    /// among the thread's targets), which ended with `result`.
    #[cold]
    fn failure(&self, t: usize, io: (Op, u64, u32), result: i32) -> IoFailure {
        let (op, offset, len) = io;
        IoFailure {
            thread: self.thread,
            target: self.targets[t].index,
            op,
            offset,
            len,
            result,
            latency_ns: None,
        }
    }
}
