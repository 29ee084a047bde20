//! Where a worker thread's measured time went, from the clock reads the loop already makes: the
//! time-weighted number of I/Os in flight (the achieved queue depth), the time inside the engine's
//! submit-and-wait calls versus in the loop itself (filling and recording), and, from the kernel,
//! the thread's CPU time over the window. No clock read is added to the loop.

use crate::clock::Nanos;
use crate::stats::WaitStats;

/// The thread's user and system CPU time so far, ns.
fn thread_cpu() -> (u64, u64) {
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) } != 0 {
        return (0, 0);
    }
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    (ns(usage.ru_utime), ns(usage.ru_stime))
}

/// The thread's time waiting on a run queue for a CPU so far, ns (the second field of
/// `/proc/thread-self/schedstat`); `None` where the kernel keeps no scheduler statistics.
fn thread_run_delay() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// The thread's CPU time (user, system) and run-queue wait so far.
fn thread_times() -> ((u64, u64), Option<u64>) {
    (thread_cpu(), thread_run_delay())
}

/// Running totals over the measured window `[start, end)`.
#[derive(Debug, Default)]
pub struct Accounting {
    start: Nanos,
    end: Nanos,
    /// When the number in flight last changed.
    last: Nanos,
    /// When the thread last returned from the engine.
    left_engine: Nanos,
    cpu_at_start: Option<((u64, u64), Option<u64>)>,
    cpu_at_end: Option<((u64, u64), Option<u64>)>,
    /// ns × I/Os in flight.
    depth_area: u128,
    in_engine: Nanos,
    in_loop: Nanos,
    spinning: Nanos,
}

impl Accounting {
    /// Accounts over the window `start..end` (the end moves earlier on a stop).
    pub fn new(start: Nanos, end: Nanos) -> Self {
        Accounting {
            start,
            end,
            last: start,
            left_engine: start,
            ..Default::default()
        }
    }

    /// The window now ends at `end` (a stop request).
    pub fn end_at(&mut self, end: Nanos) {
        self.end = self.end.min(end);
    }

    /// The part of `from..to` inside the window.
    #[inline]
    fn inside(&self, from: Nanos, to: Nanos) -> Nanos {
        to.min(self.end).saturating_sub(from.max(self.start))
    }

    /// `inflight` I/Os were in flight from the last change until `now`.
    #[inline]
    pub fn in_flight(&mut self, now: Nanos, inflight: usize) {
        self.depth_area += self.inside(self.last, now) as u128 * inflight as u128;
        self.last = now;
        if now >= self.start && self.cpu_at_start.is_none() {
            self.cpu_at_start = Some(thread_times());
        }
        if now >= self.end && self.cpu_at_end.is_none() && self.cpu_at_start.is_some() {
            self.cpu_at_end = Some(thread_times());
        }
    }

    /// The thread entered the engine at `entered` and came back at `now`.
    #[inline]
    pub fn engine_call(&mut self, entered: Nanos, now: Nanos) {
        self.in_loop += self.inside(self.left_engine, entered);
        self.in_engine += self.inside(entered, now);
        self.left_engine = now;
    }

    /// The thread polled for completions from `from` until `now` (on a CPU by choice, waiting).
    #[inline]
    pub fn spun(&mut self, from: Nanos, now: Nanos) {
        self.spinning += self.inside(from, now);
    }

    /// Adds the totals to the thread's statistics.
    pub fn finish(mut self, waits: &mut WaitStats) {
        if self.cpu_at_start.is_some() && self.cpu_at_end.is_none() {
            self.cpu_at_end = Some(thread_times());
        }
        let ((start, delay_start), (end, delay_end)) = (
            self.cpu_at_start.unwrap_or_default(),
            self.cpu_at_end.unwrap_or_default(),
        );
        waits.run_delay_ns = match (delay_start, delay_end) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        waits.depth_ns = self.depth_area.min(u64::MAX as u128) as u64;
        waits.in_engine_ns = self.in_engine;
        waits.in_loop_ns = self.in_loop;
        waits.spin_ns = self.spinning;
        waits.cpu_user_ns = end.0.saturating_sub(start.0);
        waits.cpu_system_ns = end.1.saturating_sub(start.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_and_time_count_only_inside_the_window() {
        let mut a = Accounting::new(100, 200);
        a.in_flight(50, 0); // before the window
        a.in_flight(150, 4); // 4 in flight over 100..150 → 200
        a.in_flight(250, 2); // 2 in flight over 150..200 → 100 (the rest is past the end)
        a.engine_call(120, 140); // loop 100..120, engine 120..140
        a.engine_call(160, 260); // loop 140..160, engine 160..200
        let mut w = WaitStats::default();
        a.finish(&mut w);
        assert_eq!(w.depth_ns, 4 * 50 + 2 * 50);
        assert_eq!((w.in_loop_ns, w.in_engine_ns), (40, 60));
    }
}
