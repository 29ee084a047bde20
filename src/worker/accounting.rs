//! Where a worker thread's measured time went, from the clock reads the loop already makes: the
//! time-weighted number of I/Os in flight (the achieved queue depth), the time inside the engine's
//! submit-and-wait calls versus in the loop itself (filling and recording), the I/Os submitted at
//! each depth (fio's `iodepth_level`), and, from the kernel, the thread's CPU time, context
//! switches and page faults over the window. No clock read is added to the loop.

use crate::clock::Nanos;
use crate::stats::WaitStats;

/// What the kernel counts of the thread so far.
#[derive(Debug, Default, Clone, Copy)]
struct ThreadTimes {
    /// User and system CPU time, ns.
    user: u64,
    system: u64,
    /// Context switches, voluntary and not.
    switches: u64,
    /// Page faults served without I/O, and with it.
    minor_faults: u64,
    major_faults: u64,
    /// Time waiting on a run queue for a CPU, ns; `None` where the kernel keeps no scheduler
    /// statistics.
    run_delay: Option<u64>,
}

/// The thread's time waiting on a run queue for a CPU so far, ns (the second field of
/// `/proc/thread-self/schedstat`); `None` where the kernel keeps no scheduler statistics.
fn thread_run_delay() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// The thread's CPU time, switches and faults (`getrusage`) and run-queue wait so far.
fn thread_times() -> ThreadTimes {
    let run_delay = thread_run_delay();
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) } != 0 {
        return ThreadTimes {
            run_delay,
            ..ThreadTimes::default()
        };
    }
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    ThreadTimes {
        user: ns(usage.ru_utime),
        system: ns(usage.ru_stime),
        switches: (usage.ru_nvcsw + usage.ru_nivcsw) as u64,
        minor_faults: usage.ru_minflt as u64,
        major_faults: usage.ru_majflt as u64,
        run_delay,
    }
}

/// fio's depth levels (`io_u_mark_depth`): the I/Os in flight once a batch is submitted, 1, 2–3,
/// 4–7, 8–15, 16–31, 32–63, 64 and more.
#[inline]
fn depth_level(depth: usize) -> usize {
    match depth {
        0..=1 => 0,
        d => (usize::BITS - 1 - d.leading_zeros()).min(6) as usize,
    }
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
    cpu_at_start: Option<ThreadTimes>,
    cpu_at_end: Option<ThreadTimes>,
    /// I/Os submitted at each of fio's depth levels.
    at_depth: [u64; 7],
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

    /// A batch of `n` I/Os is submitted at `now` with `inflight` already in flight.
    #[inline]
    pub fn submitting(&mut self, now: Nanos, inflight: usize, n: usize) {
        self.in_flight(now, inflight);
        if now >= self.start && now < self.end {
            self.at_depth[depth_level(inflight + n)] += n as u64;
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
        let (start, end) = (
            self.cpu_at_start.unwrap_or_default(),
            self.cpu_at_end.unwrap_or_default(),
        );
        waits.run_delay_ns = match (start.run_delay, end.run_delay) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        waits.depth_ns = self.depth_area.min(u64::MAX as u128) as u64;
        waits.in_engine_ns = self.in_engine;
        waits.in_loop_ns = self.in_loop;
        waits.spin_ns = self.spinning;
        waits.cpu_user_ns = end.user.saturating_sub(start.user);
        waits.cpu_system_ns = end.system.saturating_sub(start.system);
        waits.context_switches = end.switches.saturating_sub(start.switches);
        waits.minor_faults = end.minor_faults.saturating_sub(start.minor_faults);
        waits.major_faults = end.major_faults.saturating_sub(start.major_faults);
        waits.submitted_at_depth = self.at_depth;
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

    #[test]
    fn submissions_count_at_fios_depth_levels_inside_the_window() {
        let levels: Vec<usize> = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 1000]
            .iter()
            .map(|&d| depth_level(d))
            .collect();
        assert_eq!(levels, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
        let mut a = Accounting::new(100, 200);
        a.submitting(50, 0, 8); // before the window
        a.submitting(100, 0, 1); // depth 1
        a.submitting(110, 1, 2); // depth 3
        a.submitting(120, 3, 29); // depth 32
        a.submitting(200, 0, 4); // past it
        let mut w = WaitStats::default();
        a.finish(&mut w);
        assert_eq!(w.submitted_at_depth, [1, 2, 0, 0, 0, 29, 0]);
    }
}
