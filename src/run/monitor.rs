//! The main thread while the workers run: it sleeps to each phase boundary while it watches for a
//! stop request, the `-yp` event and file targets removed or truncated behind the run's back, and
//! it collects the workers' intervals, shows the progress line and writes checkpoints.

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use crate::clock::{Clock, Nanos, monotonic_now};
use crate::events;
use crate::live::Collector;
use crate::live::metrics::{self, Metrics};
use crate::live::progress::{self, Phase, Progress};
use crate::stats::{CpuTimes, LostTarget};
use crate::system::devclock::{ClockCounts, DeviceClock};

/// A device's clock counts, read and write.
type Counts = [ClockCounts; 2];
use crate::targets::PreparedTarget;
use crate::worker::Schedule;
use crate::worker::budget::Finishing;

/// Where a run stands when a periodic action (a checkpoint) runs.
#[derive(Debug, Clone)]
pub struct Moment {
    /// Wall-clock time the timespan started.
    pub start_time: SystemTime,
    /// Nanoseconds of the measured window so far.
    pub window_ns: Nanos,
    /// CPU counters at the start of the window.
    pub cpu_start: Vec<CpuTimes>,
}

/// A periodic action (checkpoints) with the collector and where the run stands.
pub type Periodic<'a> = &'a mut dyn FnMut(&Collector<'a>, &Moment);

/// How often the loop wakes.
const POLL: Nanos = 10_000_000;
/// How often the progress line changes.
const PROGRESS_EVERY: Nanos = 1_000_000_000;

/// What the main thread watches.
pub struct Monitor<'a, C: Clock> {
    clock: &'a C,
    stop: &'a AtomicU64,
    stop_event: Option<&'a str>,
    targets: &'a [PreparedTarget],
    collector: Option<Collector<'a>>,
    progress: Option<Progress>,
    schedule: Option<Schedule>,
    lost: Option<LostTarget>,
    /// What this monitor stopped the run for, when it did.
    stopped_by: Option<String>,
    shown_at: Nanos,
    /// A periodic action (checkpoints): its period, when it last ran, and the action.
    periodic: Option<(Nanos, Nanos, Periodic<'a>)>,
    /// Set when the measured window begins: the start time and the CPU counters then.
    window: Option<(SystemTime, Vec<CpuTimes>)>,
    /// The other processes of the measurement, told of this one's stop and telling of theirs.
    peers: &'a dyn super::Peers,
    /// Pinned threads on io_uring: the CPUs their kernel workers may use, and when they were last
    /// widened to them.
    io_workers: Option<(&'a [u32], Nanos)>,
    /// `--metrics`: where the phase is shown.
    metrics: Option<&'a Metrics>,
    /// The device clock, read at each interval's start for the collector; the next interval to
    /// mark.
    device_clock: Option<(Rc<DeviceClock>, u64)>,
    /// The threads bounded by work: the window ends when the last finishes.
    finishing: Option<Arc<Finishing>>,
    /// `--steady-state`: set to the time the collector's rule was met, which ends the window.
    steady_end: Option<Arc<AtomicU64>>,
}

/// How often a new io_uring worker of a pinned thread is looked for.
const WIDEN_EVERY: Nanos = 100_000_000;

impl<'a, C: Clock> Monitor<'a, C> {
    /// Watches `targets`, `stop` and `peers`; collects with `collector` and shows `progress` when
    /// given.
    pub fn new(
        clock: &'a C,
        stop: &'a AtomicU64,
        stop_event: Option<&'a str>,
        targets: &'a [PreparedTarget],
        collector: Option<Collector<'a>>,
        progress: Option<Progress>,
        peers: &'a dyn super::Peers,
    ) -> Self {
        Monitor {
            clock,
            stop,
            stop_event,
            targets,
            collector,
            progress,
            schedule: None,
            lost: None,
            stopped_by: None,
            shown_at: 0,
            periodic: None,
            window: None,
            peers,
            io_workers: None,
            metrics: None,
            device_clock: None,
            finishing: None,
            steady_end: None,
        }
    }

    /// Ends the waits when every thread bounded by work has finished it (see [`Finishing`]).
    pub fn ends_with_work(&mut self, finishing: Arc<Finishing>) {
        self.finishing = Some(finishing);
    }

    /// Ends the window when the collector's `--steady-state` rule is met, setting `end` then.
    pub fn ends_when_steady(&mut self, end: Arc<AtomicU64>) {
        self.steady_end = Some(end);
    }

    /// When the measured window was asked to end: the stop request's time, the time the last
    /// thread bounded by work finished or the time the steady state was reached, whichever came
    /// first; 0 while none has.
    pub fn end_request(&self) -> Nanos {
        let stop = self.stop.load(Ordering::Relaxed);
        let done = self.finishing.as_ref().map_or(0, |f| f.end());
        let steady = self
            .steady_end
            .as_ref()
            .map_or(0, |s| s.load(Ordering::Relaxed));
        [stop, done, steady]
            .into_iter()
            .filter(|&at| at != 0)
            .min()
            .unwrap_or(0)
    }

    /// Shows the run's phase in `metrics` from now on.
    pub fn show_phase(&mut self, metrics: &'a Metrics) {
        metrics.set_phase(metrics::Phase::Preparing);
        self.metrics = Some(metrics);
    }

    /// Keeps the kernel's io_uring workers of pinned threads free to run on any of `cpus` (see
    /// [`crate::system::widen_io_workers`]): looked at now and every tenth of a second.
    pub fn spread_io_workers(&mut self, cpus: &'a [u32]) {
        crate::system::widen_io_workers(cpus);
        self.io_workers = Some((cpus, monotonic_now()));
    }

    /// Keeps `clock`'s sampling in step with the devices' rates, and hands the collector's
    /// intervals the requests it timed on `devices` (kernel names, in the clock's order), read at
    /// each interval's edge.
    pub fn time_devices(&mut self, clock: Rc<DeviceClock>, devices: Vec<String>) {
        if let Some(collector) = &mut self.collector {
            collector.time_devices(devices);
        }
        self.device_clock = Some((clock, 1));
    }

    /// The measured window began: the clock's counts then, for the first interval. (The
    /// monitor reads those at the later edges.)
    pub fn clock_start(&mut self, counts: Vec<Counts>) {
        if let (Some(collector), Some(_)) = (&mut self.collector, &self.device_clock) {
            collector.clock_mark(0, counts);
        }
    }

    /// The measured window ended (at its end or at a stop): the clock's last counts, for the
    /// last interval.
    pub fn clock_end(&mut self, counts: Vec<Counts>) {
        if let (Some(collector), Some(_)) = (&mut self.collector, &self.device_clock) {
            collector.clock_end(counts);
        }
    }

    /// When the next interval edge the clock is read at falls, if one is still to come.
    fn next_mark(&self) -> Option<Nanos> {
        let (schedule, (_, next), collector) = (
            self.schedule?,
            self.device_clock.as_ref()?,
            self.collector.as_ref()?,
        );
        let at = schedule.warmup_end + next * collector.interval_ns();
        (at < schedule.measure_end).then_some(at)
    }

    /// The stop request it watches.
    pub fn stop(&self) -> &'a AtomicU64 {
        self.stop
    }

    /// The other processes of the measurement.
    pub fn peers(&self) -> &'a dyn super::Peers {
        self.peers
    }

    /// Runs `action` with the collector about every `period` of the measured window.
    pub fn every(&mut self, period: Nanos, action: Periodic<'a>) {
        self.periodic = Some((period, 0, action));
    }

    /// The phases are known: the measured window begins at `schedule.warmup_end`.
    pub fn start(&mut self, schedule: Schedule) {
        self.schedule = Some(schedule);
        if let Some(collector) = &mut self.collector {
            collector.end_window(schedule.measure_end - schedule.warmup_end);
        }
    }

    /// The measured window began; the timespan started at `start_time` and the CPU counters read
    /// `cpu` then.
    pub fn window_began(&mut self, start_time: SystemTime, cpu: Vec<CpuTimes>) {
        self.window = Some((start_time, cpu));
    }

    /// The collector, to tell its sinks the window began.
    pub fn collector(&mut self) -> Option<&mut Collector<'a>> {
        self.collector.as_mut()
    }

    /// Sleeps until `deadline`, a stop request, the `-yp` event, or a lost target (which requests
    /// a stop), doing the periodic work meanwhile.
    pub fn wait_until(&mut self, deadline: Nanos) {
        loop {
            let now = self.clock.now();
            self.tick(now);
            let stopped = self.stop.load(Ordering::Relaxed) != 0;
            if self.peers.poll(stopped) && !stopped {
                self.request_stop("another rank's stop");
                return;
            }
            if now >= deadline || stopped || self.end_request() != 0 {
                return;
            }
            // Awake at the clock's next interval edge, so its counts are read on time.
            let wake = self.next_mark().filter(|&at| at > now).unwrap_or(deadline);
            if self.lost.is_none()
                && let Some(lost) = self
                    .targets
                    .iter()
                    .enumerate()
                    .find_map(|(target, t)| t.lost().map(|what| LostTarget { target, what }))
            {
                self.lost = Some(lost);
                self.request_stop("a lost target");
                return;
            }
            if let Some(name) = self.stop_event
                && events::is_set(name)
            {
                self.request_stop(&format!("the -yp event '{name}'"));
                return;
            }
            self.clock.sleep((deadline.min(wake) - now).min(POLL));
        }
    }

    /// Keeps collecting until `done` says every worker has finished, and keeps passing stops
    /// between the processes: another one's stop still cuts this one's measured window if it has
    /// not ended. Sleeps in real time and does not read the run's clock, so a test clock stays
    /// deterministic.
    pub fn wait_for(&mut self, done: impl Fn() -> bool) {
        while !done() {
            if let Some(collector) = &mut self.collector {
                collector.poll();
            }
            if let Some(metrics) = self.metrics {
                self.peers.share(metrics, false);
            }
            let stopped = self.stop.load(Ordering::Relaxed) != 0;
            if self.peers.poll(stopped)
                && !stopped
                && self
                    .schedule
                    .is_none_or(|s| monotonic_now() < s.measure_end)
            {
                self.request_stop("another rank's stop");
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Clears the progress line and returns the lost target, the collector and what this
    /// monitor stopped the run for.
    pub fn finish(mut self) -> (Option<LostTarget>, Option<Collector<'a>>, Option<String>) {
        if let Some(progress) = &mut self.progress {
            progress.clear();
        }
        (self.lost, self.collector, self.stopped_by)
    }

    /// Stops the run for `why`, unless something else already did.
    fn request_stop(&mut self, why: &str) {
        let first = self
            .stop
            .compare_exchange(
                0,
                monotonic_now().max(1),
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok();
        if first {
            self.stopped_by = Some(why.to_string());
        }
    }

    fn tick(&mut self, now: Nanos) {
        if let Some((cpus, last)) = &mut self.io_workers {
            let real = monotonic_now();
            if real.saturating_sub(*last) >= WIDEN_EVERY {
                *last = real;
                crate::system::widen_io_workers(cpus);
            }
        }
        let Some(schedule) = self.schedule else {
            return;
        };
        if let Some(shown) = self.metrics {
            shown.set_phase(if now < schedule.warmup_end {
                metrics::Phase::WarmUp
            } else if now < schedule.measure_end {
                metrics::Phase::Measuring
            } else {
                metrics::Phase::CoolDown
            });
        }
        // The clock's sampling follows the devices' rates.
        if let Some((clock, _)) = &self.device_clock {
            clock.adapt(monotonic_now());
        }
        // The clock at the interval edges passed, before the intervals they end are handed on.
        if let Some(at) = self.next_mark()
            && now >= at
            && self.stop.load(Ordering::Relaxed) == 0
            && let (Some((clock, next)), Some(collector)) =
                (&mut self.device_clock, &mut self.collector)
        {
            let counts = clock.sample();
            let interval = collector.interval_ns();
            loop {
                let edge = schedule.warmup_end + *next * interval;
                if edge > now || edge >= schedule.measure_end {
                    break;
                }
                collector.clock_mark(*next, counts.clone());
                *next += 1;
            }
        }
        let stop_at = self.end_request();
        if let Some(collector) = &mut self.collector {
            if stop_at != 0 {
                collector.end_window(
                    stop_at
                        .clamp(schedule.warmup_end, schedule.measure_end)
                        .saturating_sub(schedule.warmup_end),
                );
            }
            collector.poll();
            if let Some(end) = &self.steady_end
                && collector.steady_attained()
                && end.load(Ordering::Relaxed) == 0
            {
                end.store(now.max(1), Ordering::SeqCst);
            }
        }
        if let Some(metrics) = self.metrics {
            self.peers.share(metrics, false);
        }
        if let (Some((period, last, action)), Some(collector), Some((start_time, cpu))) =
            (&mut self.periodic, &self.collector, &self.window)
            && now >= schedule.warmup_end
        {
            if *last == 0 {
                *last = schedule.warmup_end;
            }
            if now - *last >= *period {
                *last = now;
                action(
                    collector,
                    &Moment {
                        start_time: *start_time,
                        window_ns: now.min(schedule.measure_end) - schedule.warmup_end,
                        cpu_start: cpu.clone(),
                    },
                );
            }
        }
        if let Some(progress) = &mut self.progress
            && now.saturating_sub(self.shown_at) >= PROGRESS_EVERY
        {
            self.shown_at = now;
            // Time within the phase: the warm-up is not part of the measuring's elapsed time.
            let (phase, from, until) = if now < schedule.warmup_end {
                (Phase::WarmUp, schedule.start, schedule.warmup_end)
            } else if now < schedule.measure_end {
                (Phase::Measuring, schedule.warmup_end, schedule.measure_end)
            } else {
                (Phase::CoolDown, schedule.measure_end, schedule.end)
            };
            // Whole seconds spent, of the phase's length to the nearest second: `-d5` reads
            // 0:00:04/0:00:05 in its last second, not 0:00:04/0:00:04.
            let latest = self.collector.as_ref().and_then(|c| c.latest());
            progress.show(&progress::line(
                phase,
                now.saturating_sub(from) / 1_000_000_000,
                match until {
                    crate::worker::NO_LIMIT => 0,
                    _ => (until.saturating_sub(from) + 500_000_000) / 1_000_000_000,
                },
                latest.filter(|_| phase != Phase::WarmUp),
            ));
        }
    }
}
