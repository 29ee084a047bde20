//! The run: one thread per plan, a start barrier, phases on the clock, signals and named events,
//! and the results.
//!
//! Each worker sets itself up (CPU pin, buffers, engine) and waits at the barrier; the controller
//! waits for a `-yr` event if asked, fixes time zero and releases everyone at once. Workers place
//! the phases themselves from that schedule; the controller only samples CPU time and counters at
//! the window's edges, sets `-ys`/`-yf` events, watches for a `-yp` event, and waits for the
//! workers to drain and return their statistics.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, OnceLock};

use crate::clock::{Clock, Nanos, monotonic_now};
use crate::counters;
use crate::engine::{EngineKind, EngineSetup};
use crate::events;
use crate::live::progress::Progress;
use crate::plan::ThreadPlan;
use crate::profile::{Events, TimeSpan};
use crate::stats::intervals::bucket_count;
use crate::stats::{IoFailure, RunResults, ThreadResults, TimeSpanResults};
use crate::system::Host;
use crate::system::devclock::ClockEdges;
use crate::targets::PreparedTarget;
use crate::worker::Schedule;
use crate::worker::budget::Finishing;
use monitor::Monitor;

/// Set by SIGINT, SIGTERM, SIGHUP and SIGUSR1 to the monotonic time of the first signal.
pub static STOP: AtomicU64 = AtomicU64::new(0);

/// The signal that set [`STOP`]; 0 when none did (a stop event, another rank, a panic).
pub static STOP_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn on_stop_signal(signal: libc::c_int) {
    let now = monotonic_now().max(1);
    if STOP
        .compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
    {
        STOP_SIGNAL.store(signal, Ordering::SeqCst);
    } else {
        // A second signal while draining: leave at once.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}

/// Routes SIGINT, SIGTERM, SIGHUP and SIGUSR1 to [`STOP`]: the run stops issuing, drains, and
/// reports what it measured. SIGUSR1 is the one MPI launchers pass on to every rank without ending
/// the job (Open MPI's `mpirun` turns a Ctrl-C into SIGTERM and, a second later, SIGKILL, and may
/// cut the output it forwards). A second signal exits immediately. A panic also requests the stop (so the other
/// threads wind down and any signal then ends the process), and SIGXFSZ is ignored, so a write past
/// the file-size limit fails with EFBIG instead of killing the process.
pub fn install_stop_signals() {
    // SAFETY: ignoring a signal has no preconditions.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        let _ = STOP.compare_exchange(
            0,
            monotonic_now().max(1),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }));
    // on_stop_signal only touches atomics and calls _exit. No SA_RESTART, so blocking waits
    // return EINTR.
    crate::exit::handle_stops(
        &[libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGUSR1],
        on_stop_signal,
        0,
    );
}

/// Everything a timespan's run reads.
pub struct RunInput<'a> {
    /// The timespan.
    pub timespan: &'a TimeSpan,
    /// The threads.
    pub plans: &'a [ThreadPlan],
    /// The opened targets, in timespan order.
    pub targets: &'a [PreparedTarget],
    /// The engine to use (memory-mapped targets use the mmap engine regardless).
    pub engine: EngineKind,
    /// `-P`: a progress dot every this many completions per thread; 0 for none.
    pub progress: u64,
    /// Completion polling budget per wait, in nanoseconds; 0 sleeps at once.
    pub spin_ns: Nanos,
    /// `-y` named events.
    pub events: &'a Events,
    /// `-e` counter groups.
    pub counters: crate::profile::Counters,
    /// `--sqpoll`, `--iopoll`.
    pub fast_paths: crate::engine::FastPaths,
    /// Time the requests on the devices under the targets, and which (see
    /// [`crate::system::devclock`]); `None` with `--no-device-clock`.
    pub device_clock: Option<crate::system::devclock::Sampling>,
    /// `--verify`: the timespan's verifier.
    pub verify: Option<&'a crate::verify::Verifier>,
    /// `iospd replay`: the trace the thread issues.
    pub replay: Option<&'a crate::profile::replay::Replay>,
    /// `-bs`: where each thread's buffers start, in bytes (a multiple of this; 0 for a page).
    pub buffer_separation: usize,
    /// The CPUs this process may use: where a pinned thread's io_uring workers may run.
    pub worker_cpus: &'a [u32],
    /// `--flow`: the flow file the threads share their I/O through, each thread's weight, and
    /// how long one over its share waits (ns).
    pub flow: Option<(
        &'a crate::worker::flow::FlowGroup,
        &'a crate::profile::flow::Flow,
    )>,
}

/// Where a run's messages go.
pub struct Messages<'a> {
    /// Warnings found while reading the command line: held back with the run's own until every
    /// check has passed, so a refused run prints its one error and nothing else.
    pub pending: Vec<String>,
    /// Prints a warning.
    pub warn: &'a dyn Fn(&str),
    /// Prints a `-v` progress line.
    pub log: &'a dyn Fn(&str),
    /// Receives the results measured so far every `--checkpoint` period.
    pub checkpoint: &'a dyn Fn(&RunResults),
}

impl Messages<'_> {
    /// Messages that go nowhere (benchmarks, tests).
    pub fn silent() -> Messages<'static> {
        Messages {
            pending: Vec::new(),
            warn: &|_| {},
            log: &|_| {},
            checkpoint: &|_| {},
        }
    }
}

/// What the main thread does for a timespan besides waiting.
pub struct Observers<'s> {
    /// Index of the timespan in the profile.
    pub timespan: usize,
    /// Interval of the live collection; `None` collects nothing.
    pub interval_ns: Option<Nanos>,
    /// Keep the time series rows for the report (`-D`).
    pub keep_rows: bool,
    /// Where finished intervals go (the CSV, the interval log).
    pub sinks: &'s mut [Box<dyn crate::live::Sink>],
    /// `--metrics`: where the phase is shown (a sink among `sinks` takes the intervals).
    pub metrics: Option<&'s crate::live::metrics::Metrics>,
    /// Show the progress line (on a terminal).
    pub progress: bool,
    /// `--trace`: the file the trace's writer thread appends to.
    pub trace: Option<&'s mut crate::trace::writer::TraceFile>,
    /// A periodic action with the collector (checkpoints): its period and the action.
    pub periodic: Option<(Nanos, monitor::Periodic<'s>)>,
    /// The other processes of the measurement: when to start, and stops passed between them.
    pub peers: &'s dyn Peers,
}

impl RunError {
    /// 3 for what the user can fix by changing the command, 1 for failures during the run.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Plan(_)
            | RunError::Memory(_)
            | RunError::Descriptors(_)
            | RunError::Flow(_) => crate::exit::EXIT_BAD_INPUT,
            RunError::Target(e) if e.is_input_error() => crate::exit::EXIT_BAD_INPUT,
            RunError::Refused(refusal) => refusal.code,
            _ => crate::exit::EXIT_RUN_ERROR,
        }
    }
}

/// How a worker counts: `-D` buckets, the live feed, the trace.
struct Counting {
    intervals: usize,
    feed: Option<crate::live::Feed>,
    tracer: Option<crate::trace::Tracer>,
    timespan: u8,
}

/// A run that could not start or failed outside the I/O itself.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The machine cannot place the threads as asked.
    #[error(transparent)]
    Plan(#[from] crate::plan::PlanError),
    /// A target cannot be used as the workload asks, or a file cannot be created.
    #[error(transparent)]
    Target(#[from] crate::targets::TargetError),
    /// The run needs more memory than the process may allocate.
    #[error("{0}")]
    Memory(String),
    /// The run needs more open files than `ulimit -n` allows.
    #[error("{0}")]
    Descriptors(String),
    /// The `--flow` file cannot be shared.
    #[error("{0}")]
    Flow(String),
    /// A worker could not set itself up.
    #[error("thread {thread}: {what}: {source}")]
    Setup {
        /// Global thread number.
        thread: u32,
        /// What it was doing.
        what: &'static str,
        /// Why it failed.
        source: io::Error,
    },
    /// The engine failed during the run.
    #[error("thread {thread}: the {engine} engine failed: {source}")]
    Engine {
        /// Global thread number.
        thread: u32,
        /// The engine.
        engine: EngineKind,
        /// Why.
        source: io::Error,
    },
    /// A streaming output (time series, interval log, trace) could not be started.
    #[error(transparent)]
    Stream(#[from] crate::live::SinkError),
    /// This process or another of the measurement refused or failed, and every one stops.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A named event could not be set.
    #[error("cannot set the event '{name}' ({path}): {source}")]
    Event {
        /// The event.
        name: String,
        /// Its file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

struct StartGate {
    ready: Barrier,
    go: Barrier,
    aborted: AtomicBool,
    /// The first thread that could not set itself up: why.
    failed: OnceLock<Refusal>,
    schedule: OnceLock<Schedule>,
    /// With the device clock: where the threads find the requests that served their slowest I/Os.
    served: OnceLock<std::sync::Arc<crate::targets::served::ServedLookup>>,
    /// The threads whose every target is bounded by work (`--ios`, `--bytes`) and that have not
    /// finished it.
    finishing: Arc<Finishing>,
    /// `--steady-state`: when the rule was met (0 until then); the threads end there.
    steady_end: Arc<AtomicU64>,
}

impl StartGate {
    /// A thread could not set itself up: the timespan does not start.
    fn fail(&self, error: &RunError) {
        let _ = self.failed.set(error.refusal());
        self.aborted.store(true, Ordering::SeqCst);
    }
}

struct ThreadOutcome {
    results: ThreadResults,
    engine: EngineSetup,
    failure: Option<IoFailure>,
    /// Trace records kept and dropped.
    traced: Option<(u64, u64)>,
}

/// CPU times and, with `-e`, the counters, at one edge of the measured window.
fn sample(
    host: &dyn Host,
    counters: crate::profile::Counters,
) -> (Vec<crate::stats::CpuTimes>, Vec<crate::counters::Counter>) {
    let samples = if counters.any() {
        host.counters()
    } else {
        Vec::new()
    };
    (host.cpu_times(), samples)
}

fn set_event(name: &Option<String>) -> Result<(), RunError> {
    match name {
        Some(name) => events::set(name).map_err(|source| RunError::Event {
            name: name.clone(),
            path: events::path(name),
            source,
        }),
        None => Ok(()),
    }
}

/// Runs one timespan and returns its measurements. `log` receives progress lines for `-v`.
pub fn execute<'s, C: Clock>(
    input: &'s RunInput<'s>,
    clock: &'s C,
    host: &dyn Host,
    stop: &'s AtomicU64,
    log: &dyn Fn(&str),
    observers: Observers<'s>,
) -> Result<TimeSpanResults, RunError> {
    let ts = input.timespan;
    let gate = StartGate {
        ready: Barrier::new(input.plans.len() + 1),
        go: Barrier::new(input.plans.len() + 1),
        aborted: AtomicBool::new(false),
        failed: OnceLock::new(),
        schedule: OnceLock::new(),
        served: OnceLock::new(),
        finishing: Arc::new(Finishing::new(bounded_threads(input))),
        steady_end: Arc::new(AtomicU64::new(0)),
    };
    let shared_offsets: Vec<AtomicU64> = ts.targets.iter().map(|_| AtomicU64::new(0)).collect();
    let intervals = ts.iops_interval_ms.map_or(0, |ms| {
        bucket_count(ts.duration_s as u64 * 1_000_000_000, ms)
    });
    let (peers, shared_metrics) = (observers.peers, observers.metrics);
    let (collector, feeds) = collection(
        input,
        observers.interval_ns,
        observers.keep_rows,
        observers.sinks,
    );
    let (trace_writer, tracers) = tracing(input, observers.trace.is_some());
    let trace_file = observers.trace;
    let mut monitor = Monitor::new(
        clock,
        stop,
        input.events.stop_on.as_deref(),
        // A file engine that removes, creates or truncates its targets changes them on purpose.
        match input.engine.changes_files() {
            true => &[],
            false => input.targets,
        },
        collector,
        Progress::on_terminal(observers.progress),
        observers.peers,
    );
    if input.engine == EngineKind::IoUring && input.plans.iter().any(|p| p.cpu.is_some()) {
        monitor.spread_io_workers(input.worker_cpus);
    }
    if let Some(metrics) = observers.metrics {
        monitor.show_phase(metrics);
    }
    monitor.ends_with_work(Arc::clone(&gate.finishing));
    if let (Some(rule), Some(collector)) = (ts.steady_state, monitor.collector()) {
        collector.watch_steady(rule, ts.warmup_s);
        monitor.ends_when_steady(Arc::clone(&gate.steady_end));
    }
    if let Some((period, action)) = observers.periodic {
        monitor.every(period, action);
        if let Some(collector) = monitor.collector() {
            collector.keep_totals(intervals);
        }
    }
    let (outcomes, phases, trace_result) = std::thread::scope(|scope| {
        let writer = trace_writer
            .zip(trace_file)
            .map(|(writer, file)| scope.spawn(move || writer.serve(file)));
        let handles: Vec<_> = input
            .plans
            .iter()
            .zip(feeds)
            .zip(tracers)
            .map(|((plan, feed), tracer)| {
                let worker_clock = clock.clone();
                let (gate, shared) = (&gate, &shared_offsets);
                let counting = Counting {
                    intervals,
                    feed,
                    tracer,
                    timespan: observers.timespan.min(255) as u8,
                };
                scope.spawn(move || {
                    thread::thread_main(input, plan, worker_clock, gate, shared, stop, counting)
                })
            })
            .collect();
        let phases = control(
            input,
            clock,
            host,
            log,
            &gate,
            &mut monitor,
            observers.timespan,
        );
        monitor.wait_for(|| handles.iter().all(|h| h.is_finished()));
        let outcomes: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("worker thread panicked"))
            .collect();
        let trace_result = writer.map(|w| w.join().expect("trace writer panicked"));
        (outcomes, phases, trace_result)
    });
    let (lost, collector, stopped_by) = monitor.finish();
    let collected = collector.map(|c| c.finish()).unwrap_or_default();
    if let Some(metrics) = shared_metrics {
        peers.share(metrics, true);
    }
    log("finished test...");
    let Phases {
        start_time,
        schedule,
        lateness_ns,
        cpu,
        samples,
        disks,
        disk_intervals,
        clock: device_clock,
        clock_intervals,
        event_error,
        refused,
    } = phases;
    if let Some(refusal) = refused {
        return Err(RunError::Refused(refusal));
    }
    event_error?;
    let (threads, engine, failure, trace) = gather(input, outcomes, trace_result)?;
    // Stopped by a request, not by a failure or a lost target; cut short when that came before
    // the measured window's end.
    // A replay that reached the end of its trace stops the run itself: not a request.
    let replay_ended = threads
        .iter()
        .any(|t| t.replay.as_ref().is_some_and(|r| r.ended));
    // So does a run whose every thread finished its work, unless a request came first.
    // So does a timespan whose throughput held steady (`--steady-state`).
    let done = match (gate.finishing.end(), gate.steady_end.load(Ordering::SeqCst)) {
        (0, at) | (at, 0) => at,
        (a, b) => a.min(b),
    };
    let (stop_at, ended_by_work) = match (stop.load(Ordering::SeqCst), done) {
        (stop_at, done) if done != 0 && (stop_at == 0 || done <= stop_at) => (done, true),
        (stop_at, _) => (stop_at, false),
    };
    let window = measured_window(&schedule, stop_at, gate.aborted.load(Ordering::SeqCst));
    let requested =
        stop_at != 0 && failure.is_none() && lost.is_none() && !replay_ended && !ended_by_work;
    let cut_short = requested && stop_at < schedule.measure_end && window.is_some();
    Ok(TimeSpanResults {
        counters: counters::deltas(&input.counters, &samples.0, &samples.1),
        engine,
        interrupted: requested,
        stopped_by: cut_short.then(|| stopped_by.unwrap_or_else(stop_request_name)),
        failure,
        lost,
        trace,
        observer_errors: collected.errors,
        steady: collected.steady,
        lateness_ns,
        reality: reality::facts(
            input.timespan,
            input.targets,
            &disks.0,
            &disks.1,
            &disk_intervals,
            device_clock,
            &clock_intervals,
        ),
        dedupes: input
            .targets
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.dedupe.as_ref().map(|d| (i, d.plan, d.tally(), d.filled)))
            .collect(),
        ..input.results(start_time, window, threads, cpu, collected.rows)
    })
}

/// The threads whose every target is bounded by work: they end by themselves.
fn bounded_threads(input: &RunInput<'_>) -> usize {
    if input.replay.is_some() {
        return 0;
    }
    let ts = input.timespan;
    input
        .plans
        .iter()
        .filter(|p| {
            p.targets
                .iter()
                .all(|tt| ts.targets[tt.target].work.is_some())
        })
        .count()
}

/// The measured window's length: from the warm-up's end to its planned end or the stop (`stop_at`,
/// 0 for none), whichever came first; none when the run was aborted or stopped before it began.
fn measured_window(schedule: &Schedule, stop_at: Nanos, aborted: bool) -> Option<Nanos> {
    let end = match stop_at {
        0 => schedule.measure_end,
        at => at.min(schedule.measure_end),
    };
    (end > schedule.warmup_end && !aborted).then(|| end - schedule.warmup_end)
}

/// What stopped the run when no observer named it: the signal, or a plain stop request.
fn stop_request_name() -> String {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => "a stop request".to_string(),
        signal => crate::exit::signal_name(signal),
    }
}

/// With `--trace`, the writer and each thread's tracer; else none.
fn tracing(
    input: &RunInput<'_>,
    traced: bool,
) -> (
    Option<crate::trace::writer::Writer>,
    Vec<Option<crate::trace::Tracer>>,
) {
    if !traced {
        return (None, input.plans.iter().map(|_| None).collect());
    }
    let threads: Vec<u32> = input.plans.iter().map(|p| p.thread).collect();
    let (writer, tracers) = crate::trace::writer::channels(&threads);
    (Some(writer), tracers.into_iter().map(Some).collect())
}

/// The live collector and each thread's feed, when something collects intervals.
fn collection<'s>(
    input: &RunInput<'_>,
    interval_ns: Option<Nanos>,
    keep_rows: bool,
    sinks: &'s mut [Box<dyn crate::live::Sink>],
) -> (
    Option<crate::live::Collector<'s>>,
    Vec<Option<crate::live::Feed>>,
) {
    let Some(interval_ns) = interval_ns else {
        return (None, input.plans.iter().map(|_| None).collect());
    };
    let thread_targets: Vec<Vec<usize>> = input
        .plans
        .iter()
        .map(|p| p.targets.iter().map(|tt| tt.target).collect())
        .collect();
    let (collector, feeds) = crate::live::channels(
        interval_ns,
        thread_targets,
        input.timespan.targets.len(),
        keep_rows,
        sinks,
    );
    (Some(collector), feeds.into_iter().map(Some).collect())
}

/// What the main thread saw of the phases.
struct Phases {
    start_time: std::time::SystemTime,
    schedule: Schedule,
    /// How long after the agreed start instant the threads were released, when there was one.
    lateness_ns: Option<Nanos>,
    cpu: (Vec<crate::stats::CpuTimes>, Vec<crate::stats::CpuTimes>),
    samples: (Vec<counters::Counter>, Vec<counters::Counter>),
    /// The counters of the devices under the targets at the window's edges.
    disks: (
        Vec<Option<crate::system::backing::DiskStat>>,
        Vec<Option<crate::system::backing::DiskStat>>,
    ),
    /// Under `-D`: the same counters at the end of each interval of the window.
    disk_intervals: Vec<Vec<Option<crate::system::backing::DiskStat>>>,
    /// The device clock's counts at the window's edges, per device and direction; or why there
    /// are none.
    clock: Result<ClockEdges, String>,
    /// Under `-D`, with the clock: its counts at the end of each interval of the window.
    clock_intervals: Vec<Vec<[crate::system::devclock::ClockCounts; 2]>>,
    event_error: Result<(), RunError>,
    /// The processes did not agree to start: why.
    refused: Option<Refusal>,
}

/// The main thread while the workers run: the start (after a `-yr` event), the schedule, the
/// window's edges (CPU and counter samples, `-ys`/`-yf` events), then the wait to the end.
fn control<C: Clock>(
    input: &RunInput<'_>,
    clock: &C,
    host: &dyn Host,
    log: &dyn Fn(&str),
    gate: &StartGate,
    monitor: &mut Monitor<'_, C>,
    timespan: usize,
) -> Phases {
    let ts = input.timespan;
    // The device clock starts while the threads set up, so the window's edges only read it.
    let devices: Vec<_> = crate::targets::devices(input.targets)
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    let device_clock = match input.device_clock {
        Some(sampling) if !devices.is_empty() && input.engine.moves_data() => {
            host.device_clock(&devices, sampling).map(std::rc::Rc::new)
        }
        Some(_) => Err(String::new()),
        None => Err("--no-device-clock: the device's means are from /sys/block".into()),
    };
    if let Ok(c) = &device_clock {
        let lookup = crate::targets::served::ServedLookup::new(c.recent(), input.targets);
        let _ = gate.served.set(std::sync::Arc::new(lookup));
        let names = devices.iter().map(|d| d.name.clone()).collect();
        monitor.time_devices(std::rc::Rc::clone(c), names);
    }
    gate.ready.wait();
    if let Some(name) = &input.events.wait_start {
        log(&format!("waiting for event '{name}'..."));
        if !events::wait(name, monitor.stop()) {
            gate.aborted.store(true, Ordering::SeqCst);
        }
    }
    let verdict = gate.failed.get().cloned().map_or(Ok(()), Err);
    let start = monitor.peers().ready(verdict);
    let agreed = start.as_ref().map_or(Start::default(), |s| *s);
    if let Some(at) = agreed.at.filter(|_| !gate.aborted.load(Ordering::SeqCst)) {
        log("waiting for the agreed start...");
        reach(clock, monitor, at);
    }
    let start_time = agreed.wall.unwrap_or_else(|| host.wall_clock());
    let schedule = Schedule::new(
        agreed.at.unwrap_or_else(|| clock.now()),
        ts.warmup_s,
        ts.duration_s,
        ts.cooldown_s,
    );
    let _ = gate.schedule.set(schedule);
    monitor.start(schedule);
    if let Some(collector) = monitor.collector() {
        let paths: Vec<String> = ts
            .targets
            .iter()
            .map(|t| t.path.to_string_lossy().into_owned())
            .collect();
        let window_start = start_time + std::time::Duration::from_secs(ts.warmup_s as u64);
        collector.begin(timespan, window_start, &paths);
    }
    let refused = start.err();
    if refused.is_some() {
        gate.aborted.store(true, Ordering::SeqCst);
    }
    gate.go.wait();
    let mut phases = Phases {
        start_time,
        schedule,
        lateness_ns: agreed.at.map(|at| clock.now().saturating_sub(at)),
        cpu: (Vec::new(), Vec::new()),
        samples: (Vec::new(), Vec::new()),
        disks: (Vec::new(), Vec::new()),
        disk_intervals: Vec::new(),
        clock_intervals: Vec::new(),
        clock: Err(String::new()),
        event_error: Ok(()),
        refused,
    };
    if gate.aborted.load(Ordering::SeqCst) {
        return phases;
    }
    // DiskSpd's progress messages (IORequestGenerator), each phase said even when it is empty.
    log("starting warm up...");
    monitor.wait_until(schedule.warmup_end);
    (phases.cpu.0, phases.samples.0) = sample(host, input.counters);
    phases.disks.0 = host.disk_stats(&devices);
    let clock_before = device_clock.as_ref().ok().map(|c| c.sample());
    if let Some(counts) = &clock_before {
        monitor.clock_start(counts.clone());
    }
    monitor.window_began(start_time, phases.cpu.0.clone());
    phases.event_error = set_event(&input.events.signal_start);
    log("starting measurements...");
    // Under -D, the devices' counters at each interval's end too (the last one is the window's).
    let every = ts.iops_interval_ms.map(|ms| u64::from(ms) * 1_000_000);
    if let Some(every) = every.filter(|_| !devices.is_empty()) {
        let mut end = schedule.warmup_end;
        while end < schedule.measure_end && monitor.end_request() == 0 {
            end = (end + every).min(schedule.measure_end);
            monitor.wait_until(end);
            if clock.now() < schedule.measure_end {
                phases.disk_intervals.push(host.disk_stats(&devices));
                if let Ok(c) = &device_clock {
                    phases.clock_intervals.push(c.sample());
                }
            }
        }
    }
    monitor.wait_until(schedule.measure_end);
    (phases.cpu.1, phases.samples.1) = sample(host, input.counters);
    phases.disks.1 = host.disk_stats(&devices);
    phases.clock = device_clock.map(|clock| (clock_before.unwrap_or_default(), clock.sample()));
    if let Ok((_, end)) = &phases.clock {
        monitor.clock_end(end.clone());
    }
    if every.is_some() && !devices.is_empty() {
        phases.disk_intervals.push(phases.disks.1.clone());
        if let Ok((_, end)) = &phases.clock {
            phases.clock_intervals.push(end.clone());
        }
    }
    let finish = set_event(&input.events.signal_finish);
    phases.event_error = std::mem::replace(&mut phases.event_error, Ok(())).and(finish);
    log("starting cool down...");
    monitor.wait_until(schedule.end);
    phases
}

/// Waits for the agreed start instant `at`: sleeps to a millisecond before it (watching for a stop
/// as the run does), then polls the clock, so the load starts within microseconds of it.
fn reach<C: Clock>(clock: &C, monitor: &mut Monitor<'_, C>, at: Nanos) {
    const SPIN: Nanos = 1_000_000;
    monitor.wait_until(at.saturating_sub(SPIN));
    while clock.now() < at && monitor.stop().load(Ordering::Relaxed) == 0 {
        std::hint::spin_loop();
    }
}

/// The threads' results in order, the engine they ran, the first failure, and the trace's counts.
#[allow(clippy::type_complexity)]
fn gather(
    input: &RunInput<'_>,
    outcomes: Vec<Result<ThreadOutcome, RunError>>,
    trace_result: Option<crate::trace::writer::Served>,
) -> Result<
    (
        Vec<ThreadResults>,
        EngineSetup,
        Option<IoFailure>,
        Option<crate::stats::TraceCounts>,
    ),
    RunError,
> {
    let mut threads = Vec::with_capacity(outcomes.len());
    let mut engine = EngineSetup::plain(input.engine);
    let mut failure = None;
    let mut trace = trace_result.map(|served| crate::stats::TraceCounts {
        records: served.written,
        dropped: 0,
        lost: served.handed - served.written,
        error: served.error.map(|e| e.to_string()),
    });
    for outcome in outcomes {
        let outcome = outcome?;
        engine = outcome.engine;
        failure = failure.or(outcome.failure);
        threads.push(outcome.results);
        if let (Some(counts), Some((_, dropped))) = (&mut trace, outcome.traced) {
            counts.dropped += dropped;
        }
    }
    Ok((threads, engine, failure, trace))
}

impl RunInput<'_> {
    /// The timespan's results as far as these measurements go: what every result of it shares
    /// (the final one and each checkpoint), with nothing yet about how it ended.
    fn results(
        &self,
        start_time: std::time::SystemTime,
        window: Option<Nanos>,
        threads: Vec<ThreadResults>,
        cpu: (Vec<crate::stats::CpuTimes>, Vec<crate::stats::CpuTimes>),
        timeline: Vec<crate::stats::timeline::Row>,
    ) -> TimeSpanResults {
        TimeSpanResults {
            verify: self.verify.map(crate::verify::Verifier::counts),
            start_time,
            lateness_ns: None,
            window,
            threads,
            cpu,
            timeline,
            engine: EngineSetup::plain(self.engine),
            counters: Vec::new(),
            failure: None,
            lost: None,
            interrupted: false,
            stopped_by: None,
            steady: None,
            trace: None,
            observer_errors: Vec::new(),
            target_sizes: self.targets.iter().map(|t| t.size).collect(),
            distributions: self
                .targets
                .iter()
                .map(|t| t.distribution.clone())
                .collect(),
            dedupes: Vec::new(),
            reality: Default::default(),
            spin_ns: self.spin_ns,
        }
    }
}

mod checkpoint;
mod descriptors;
mod file_calls;
mod measure;
pub mod memory;
pub mod monitor;
mod outcome;
pub mod peers;
mod reality;
mod thread;
mod verifying;

pub use measure::{Context, create_only, dry_run, measure};
pub use outcome::ending;
pub use peers::{Alone, Peers, Refusal, Start};

impl RunError {
    /// What the other processes of the measurement hear of this error.
    pub fn refusal(&self) -> Refusal {
        match self {
            RunError::Refused(refusal) => refusal.clone(),
            other => Refusal {
                code: other.exit_code(),
                message: other.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_ends_at_its_plan_or_the_stop_and_is_none_before_it_began() {
        let s = Schedule::new(0, 1, 2, 0);
        let second = 1_000_000_000;
        assert_eq!(measured_window(&s, 0, false), Some(2 * second));
        assert_eq!(measured_window(&s, second + 5, false), Some(5));
        assert_eq!(measured_window(&s, 9 * second, false), Some(2 * second));
        assert_eq!(measured_window(&s, second, false), None);
        assert_eq!(measured_window(&s, 0, true), None);
    }
}
