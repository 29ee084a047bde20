//! The run: one thread per plan, a start barrier, phases on the clock, signals and named events,
//! and the results.
//!
//! Each worker sets itself up (CPU pin, buffers, engine) and waits at the barrier; the controller
//! waits for a `-yr` event if asked, fixes time zero and releases everyone at once. Workers place
//! the phases themselves from that schedule; the controller only samples CPU time and counters at
//! the window's edges, sets `-ys`/`-yf` events, watches for a `-yp` event, and waits for the
//! workers to drain and return their statistics.

use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, OnceLock};

use crate::clock::{Clock, Nanos, monotonic_now};
use crate::counters;
use crate::engine::{Engine, EngineKind, EngineSetup, MapSpec, Mapped, Null, Psync, Uring};
use crate::events;
use crate::live::progress::Progress;
use crate::monitor::Monitor;
use crate::plan::ThreadPlan;
use crate::profile::{CacheMode, Events, Profile, TimeSpan, WriteBuffer};
use crate::stats::intervals::bucket_count;
use crate::stats::{IoFailure, RunResults, TargetStats, ThreadResults, TimeSpanResults, WaitStats};
use crate::system::{Host, pin_current_thread};
use crate::worker::buffers::{InitialFill, SlotBuffers, SlotShape, WriteFill};
use crate::worker::offsets::OffsetGen;
use crate::worker::rng::Rng;
use crate::worker::target::PreparedTarget;
use crate::worker::throttle::Throttle;
use crate::worker::{Assignment, Schedule, Worker, WorkerTarget};

/// Set by SIGINT, SIGTERM and SIGHUP to the monotonic time of the first signal.
pub static STOP: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_stop_signal(_: libc::c_int) {
    let now = monotonic_now().max(1);
    if STOP
        .compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // A second signal while draining: leave at once.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}

/// Routes SIGINT, SIGTERM and SIGHUP to [`STOP`]: the run stops issuing, drains, and reports what
/// it measured. A second signal exits immediately.
pub fn install_stop_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only touches an atomic and calls async-signal-safe functions; the
        // sigaction struct is fully initialised. No SA_RESTART, so blocking waits return EINTR.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop_signal as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
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
    /// Show the progress line (on a terminal).
    pub progress: bool,
    /// `--trace`: the file the trace's writer thread appends to.
    pub trace: Option<&'s mut crate::trace::writer::TraceFile>,
    /// A periodic action with the collector (checkpoints): its period and the action.
    pub periodic: Option<(Nanos, crate::monitor::Periodic<'s>)>,
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
    schedule: OnceLock<Schedule>,
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
        schedule: OnceLock::new(),
    };
    let shared_offsets: Vec<AtomicU64> = ts.targets.iter().map(|_| AtomicU64::new(0)).collect();
    let intervals = ts.iops_interval_ms.map_or(0, |ms| {
        bucket_count(ts.duration_s as u64 * 1_000_000_000, ms)
    });
    let mut start_time = host.wall_clock();
    let thread_targets: Vec<Vec<usize>> = input
        .plans
        .iter()
        .map(|p| p.targets.iter().map(|tt| tt.target).collect())
        .collect();
    let (collector, feeds) = match observers.interval_ns {
        Some(interval_ns) => {
            let (collector, feeds) = crate::live::channels(
                interval_ns,
                thread_targets,
                ts.targets.len(),
                observers.keep_rows,
                observers.sinks,
            );
            (Some(collector), feeds.into_iter().map(Some).collect())
        }
        None => (None, input.plans.iter().map(|_| None).collect::<Vec<_>>()),
    };
    let (trace_writer, tracers) = match &observers.trace {
        Some(_) => {
            let threads: Vec<u32> = input.plans.iter().map(|p| p.thread).collect();
            let (writer, tracers) = crate::trace::writer::channels(&threads);
            (Some(writer), tracers.into_iter().map(Some).collect())
        }
        None => (None, input.plans.iter().map(|_| None).collect::<Vec<_>>()),
    };
    let trace_file = observers.trace;
    let mut monitor = Monitor::new(
        clock,
        stop,
        input.events.stop_on.as_deref(),
        input.targets,
        collector,
        Progress::on_terminal(observers.progress),
    );
    if let Some((period, action)) = observers.periodic {
        monitor.every(period, action);
        if let Some(collector) = monitor.collector() {
            collector.keep_totals(intervals);
        }
    }
    let (outcomes, cpu, samples, schedule, event_error, trace_result) =
        std::thread::scope(|scope| {
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
                    let gate = &gate;
                    let shared = &shared_offsets;
                    let counting = Counting {
                        intervals,
                        feed,
                        tracer,
                        timespan: observers.timespan.min(255) as u8,
                    };
                    scope.spawn(move || {
                        thread_main(input, plan, worker_clock, gate, shared, stop, counting)
                    })
                })
                .collect();
            gate.ready.wait();
            if let Some(name) = &input.events.wait_start {
                log(&format!("waiting for event '{name}'..."));
                if !events::wait(name, stop) {
                    gate.aborted.store(true, Ordering::SeqCst);
                }
            }
            start_time = host.wall_clock();
            let schedule = Schedule::new(clock.now(), ts.warmup_s, ts.duration_s, ts.cooldown_s);
            let _ = gate.schedule.set(schedule);
            monitor.start(schedule);
            if let Some(collector) = monitor.collector() {
                let paths: Vec<String> = ts
                    .targets
                    .iter()
                    .map(|t| t.path.to_string_lossy().into_owned())
                    .collect();
                let window_start = start_time + std::time::Duration::from_secs(ts.warmup_s as u64);
                collector.begin(observers.timespan, window_start, &paths);
            }
            gate.go.wait();
            let mut cpu = (Vec::new(), Vec::new());
            let mut samples = (Vec::new(), Vec::new());
            let mut event_error = Ok(());
            if !gate.aborted.load(Ordering::SeqCst) {
                if ts.warmup_s > 0 {
                    log("starting warm up...");
                }
                monitor.wait_until(schedule.warmup_end);
                (cpu.0, samples.0) = sample(host, input.counters);
                monitor.window_began(start_time, cpu.0.clone());
                event_error = set_event(&input.events.signal_start);
                log("starting measurements...");
                monitor.wait_until(schedule.measure_end);
                (cpu.1, samples.1) = sample(host, input.counters);
                event_error = event_error.and(set_event(&input.events.signal_finish));
                if ts.cooldown_s > 0 {
                    log("starting cool down...");
                }
                monitor.wait_until(schedule.end);
            }
            monitor.wait_for(|| handles.iter().all(|h| h.is_finished()));
            let outcomes: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("worker thread panicked"))
                .collect();
            let trace_result = writer.map(|w| w.join().expect("trace writer panicked"));
            (outcomes, cpu, samples, schedule, event_error, trace_result)
        });
    let (lost, collector) = monitor.finish();
    let collected = collector.map(|c| c.finish()).unwrap_or_default();
    log("finished test");
    event_error?;
    let mut threads = Vec::with_capacity(outcomes.len());
    let mut engine = EngineSetup::plain(input.engine);
    let mut failure = None;
    let mut trace = trace_result.map(|written| crate::stats::TraceCounts {
        records: 0,
        dropped: 0,
        error: written.err().map(|e| e.to_string()),
    });
    for outcome in outcomes {
        let outcome = outcome?;
        engine = outcome.engine;
        failure = failure.or(outcome.failure);
        threads.push(outcome.results);
        if let (Some(counts), Some((kept, dropped))) = (&mut trace, outcome.traced) {
            counts.records += kept;
            counts.dropped += dropped;
        }
    }
    let stop_at = stop.load(Ordering::SeqCst);
    let window_end = if stop_at == 0 {
        schedule.measure_end
    } else {
        stop_at.min(schedule.measure_end)
    };
    let window = (window_end > schedule.warmup_end && !gate.aborted.load(Ordering::SeqCst))
        .then(|| window_end - schedule.warmup_end);
    Ok(TimeSpanResults {
        start_time,
        window,
        threads,
        counters: counters::deltas(&input.counters, &samples.0, &samples.1),
        cpu,
        engine,
        interrupted: stop_at != 0 && failure.is_none() && lost.is_none(),
        failure,
        lost,
        timeline: collected.rows,
        trace,
        observer_error: collected.error.map(|e| e.to_string()),
        target_sizes: input.targets.iter().map(|t| t.size).collect(),
        distributions: input
            .targets
            .iter()
            .map(|t| t.distribution.clone())
            .collect(),
        spin_ns: input.spin_ns,
    })
}

/// The buffers one thread's slots need: in a `-O` pool every slot may serve every target, so each
/// is sized for the largest block and both directions any of them uses.
pub fn slot_shapes(ts: &TimeSpan, plan: &ThreadPlan) -> Vec<SlotShape> {
    let shape = |targets: &[&crate::profile::Target]| SlotShape {
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
    };
    let served: Vec<&crate::profile::Target> = plan
        .targets
        .iter()
        .map(|tt| &ts.targets[tt.target])
        .collect();
    match plan.pool {
        Some(pool) => vec![shape(&served); pool as usize],
        None => plan
            .targets
            .iter()
            .enumerate()
            .flat_map(|(i, tt)| std::iter::repeat_n(shape(&served[i..=i]), tt.requests as usize))
            .collect(),
    }
}

/// Refuses a run whose I/O buffers would not fit in the memory available, with the numbers;
/// returns the bytes they need.
fn check_memory(ts: &TimeSpan, plans: &[ThreadPlan], host: &dyn Host) -> Result<u64, crate::Error> {
    let needed: u64 = plans
        .iter()
        .map(|p| SlotBuffers::bytes_needed(&slot_shapes(ts, p)) as u64)
        .sum();
    let Some(available) = host.memory_available() else {
        return Ok(needed);
    };
    if needed > available / 10 * 9 {
        let size = crate::cli::units::format_size;
        let slots: u64 = plans.iter().map(|p| p.slots() as u64).sum();
        return Err(crate::Error::Memory(format!(
            "the I/O buffers need {} ({} threads with {slots} outstanding I/Os in all, each with a read and/or write buffer of up to {}), but only {} of memory is available; lower -t, -o or -b",
            size(needed),
            plans.len(),
            size(ts.targets.iter().map(|t| t.block_size).max().unwrap_or(0)),
            size(available)
        )));
    }
    Ok(needed)
}

/// The notice for a memlock limit too low to register `needed` bytes of buffers with io_uring.
fn memlock_notice(needed: u64, host: &dyn Host) -> Option<String> {
    let limit = host.memlock_limit()?;
    let size = crate::cli::units::format_size;
    (needed > limit).then(|| {
        format!(
            "iospd: the memlock limit (ulimit -l) of {} is below the {} of I/O buffers io_uring would register, so the run uses unregistered buffers (slightly more CPU per I/O); raise the limit to register them",
            size(limit),
            size(needed)
        )
    })
}

fn thread_main<C: Clock>(
    input: &RunInput<'_>,
    plan: &ThreadPlan,
    clock: C,
    gate: &StartGate,
    shared_offsets: &[AtomicU64],
    stop: &AtomicU64,
    counting: Counting,
) -> Result<ThreadOutcome, RunError> {
    let Counting {
        intervals,
        feed,
        tracer,
        timespan,
    } = counting;
    let ts = input.timespan;
    let setup_error = |what, source| RunError::Setup {
        thread: plan.thread,
        what,
        source,
    };
    let served: Vec<&crate::profile::Target> = plan
        .targets
        .iter()
        .map(|tt| &ts.targets[tt.target])
        .collect();
    let shapes = slot_shapes(ts, plan);
    let mut first_slots = Vec::with_capacity(plan.targets.len());
    let assignment = match plan.pool {
        Some(_) => {
            first_slots.extend(std::iter::repeat_n(0, plan.targets.len()));
            let mut until = 0u64;
            Assignment::Weighted(
                plan.targets
                    .iter()
                    .map(|tt| {
                        until += tt.weight as u64;
                        until
                    })
                    .collect(),
            )
        }
        None => {
            let mut slot_target = Vec::with_capacity(plan.slots() as usize);
            for (i, tt) in plan.targets.iter().enumerate() {
                first_slots.push(slot_target.len() as u32);
                slot_target.extend(std::iter::repeat_n(i as u16, tt.requests as usize));
            }
            Assignment::Fixed(slot_target)
        }
    };
    let large_pages = served.iter().any(|t| t.large_pages);
    let prepared = (|| {
        if let Some(cpu) = plan.cpu {
            pin_current_thread(cpu).map_err(|e| setup_error("cannot pin to its CPU", e))?;
        }
        SlotBuffers::new(&shapes, large_pages).map_err(|e| {
            let what = if large_pages {
                "cannot allocate I/O buffers on huge pages (-l needs free huge pages: raise vm.nr_hugepages)"
            } else {
                "cannot allocate I/O buffers"
            };
            setup_error(what, e)
        })
    })();
    let buffers = match prepared {
        Ok(buffers) => buffers,
        Err(error) => {
            gate.aborted.store(true, Ordering::SeqCst);
            gate.ready.wait();
            gate.go.wait();
            return Err(error);
        }
    };
    let fds: Vec<i32> = plan
        .targets
        .iter()
        .map(|tt| input.targets[tt.target].file.as_raw_fd())
        .collect();
    let priorities: Vec<u16> = served
        .iter()
        .map(|t| t.io_priority.linux_ioprio())
        .collect();
    let lanes = |tt: &crate::plan::ThreadTarget| plan.pool.unwrap_or(tt.requests) as usize;
    let targets = plan
        .targets
        .iter()
        .enumerate()
        .map(|(i, tt)| {
            let target = served[i];
            let prepared = &input.targets[tt.target];
            let fill = match (&prepared.write_source, ts.random_write_data) {
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
            };
            let burst = target.burst.map(|b| {
                (
                    (b.size as u64 / tt.sharing_threads.max(1) as u64).max(1),
                    b.think_ms as u64,
                )
            });
            WorkerTarget {
                offsets: OffsetGen::new(
                    target.access,
                    target.block_size,
                    prepared.range,
                    tt.relative_thread as u64 * target.thread_stride,
                    lanes(tt),
                    &prepared.distribution,
                    Some(&shared_offsets[tt.target]),
                ),
                throttle: Throttle::new(target.throughput, target.block_size, burst),
                fill,
                write_ratio: target.write_ratio,
                block: target.block_size as u32,
                index: tt.target,
                first_slot: first_slots[i],
                last_op: crate::engine::Op::Read,
            }
        })
        .collect();
    let ring = ts.io_ring;
    let worker = Worker {
        clock,
        thread: plan.thread,
        targets,
        assignment,
        buffers: &buffers,
        rng: Rng::new(plan.seed),
        schedule: Schedule::new(0, 0, 0, 0),
        stop,
        interval_ns: ts.iops_interval_ms.map_or(0, |ms| ms as u64 * 1_000_000),
        progress_every: input.progress,
        spin_ns: if ring.is_some() { 0 } else { input.spin_ns },
        wait_batch: ring.map_or(1, |r| r.batch.count(plan.slots())),
        completion_depth: ts.completion_depth.map_or(usize::MAX, |d| d as usize),
        stats: plan
            .targets
            .iter()
            .map(|tt| {
                let stats = TargetStats::new(tt.target, intervals);
                let target = &ts.targets[tt.target];
                match target.throughput.is_some() || target.burst.is_some() {
                    true => stats.with_intended(),
                    false => stats,
                }
            })
            .collect(),
        waits: WaitStats::default(),
        feed,
        tracer,
        timespan,
    };
    let setup = |what| move |e| setup_error(what, e);
    if served.iter().any(|t| t.memory_mapped) {
        let specs: Vec<MapSpec> = plan
            .targets
            .iter()
            .enumerate()
            .map(|(i, tt)| MapSpec {
                fd: fds[i],
                len: input.targets[tt.target].size,
                writable: served[i].write_ratio > 0,
                flush: served[i].flush,
                write_through: served[i].write_through,
            })
            .collect();
        let engine = if served.iter().all(|t| t.memory_mapped) {
            Mapped::new(&specs, &buffers).map_err(setup("cannot map the targets (-Sm)"))
        } else {
            Err(setup_error(
                "serves memory-mapped and ordinary targets",
                io::Error::other("use -Sm for every target of a thread, or none"),
            ))
        };
        return drive(
            engine.map(|e| (e, EngineSetup::plain(EngineKind::Mapped))),
            worker,
            plan,
            gate,
        );
    }
    match input.engine {
        EngineKind::IoUring => drive(
            Uring::new(
                &fds,
                &priorities,
                &buffers,
                ring.is_none_or(|r| r.registered_buffers),
                input.fast_paths,
            )
            .map_err(setup("cannot set up io_uring")),
            worker,
            plan,
            gate,
        ),
        EngineKind::Psync | EngineKind::Mapped => drive(
            Psync::new(&fds, &buffers, &priorities)
                .map(|e| (e, EngineSetup::plain(EngineKind::Psync)))
                .map_err(setup("cannot set the I/O priority (-I)")),
            worker,
            plan,
            gate,
        ),
        EngineKind::Null => drive(
            Ok((
                Null::new(plan.slots()),
                EngineSetup::plain(EngineKind::Null),
            )),
            worker,
            plan,
            gate,
        ),
    }
}

/// Waits at the start barrier, runs the loop, and packages the results.
fn drive<E: Engine, C: Clock>(
    engine: Result<(E, EngineSetup), RunError>,
    mut worker: Worker<'_, C>,
    plan: &ThreadPlan,
    gate: &StartGate,
) -> Result<ThreadOutcome, RunError> {
    if engine.is_err() {
        gate.aborted.store(true, Ordering::SeqCst);
    }
    gate.ready.wait();
    gate.go.wait();
    let (mut engine, setup) = engine?;
    let outcome = |worker: Worker<'_, C>, failure| ThreadOutcome {
        results: ThreadResults {
            thread: plan.thread,
            cpu: plan.cpu,
            targets: worker.stats,
            waits: worker.waits,
            depth: plan.slots(),
        },
        engine: setup,
        failure,
        traced: worker.tracer.map(crate::trace::Tracer::finish),
    };
    if gate.aborted.load(Ordering::SeqCst) {
        return Ok(outcome(worker, None));
    }
    worker.schedule = *gate
        .schedule
        .get()
        .expect("schedule is set before the gate opens");
    let failure = worker.run(&mut engine).map_err(|source| RunError::Engine {
        thread: plan.thread,
        engine: setup.kind,
        source,
    })?;
    drop(engine);
    Ok(outcome(worker, failure))
}

/// Runs every timespan of a profile: create files the profile asks to create up front, then per
/// timespan plan the threads, prepare the targets and execute. `warn` receives warnings (stderr),
/// `log` the `-v` progress lines.
#[allow(clippy::too_many_arguments)]
pub fn measure<C: Clock>(
    profile: &Profile,
    engine: EngineKind,
    clock: &C,
    host: &dyn Host,
    view: &dyn crate::safety::SystemView,
    stop: &AtomicU64,
    messages: Messages<'_>,
) -> Result<RunResults, crate::Error> {
    let Messages {
        mut pending,
        warn,
        log,
        checkpoint,
    } = messages;
    let allowed = host.allowed_cpus();
    let cpus: Vec<_> = host
        .system_info()
        .cpus
        .into_iter()
        .filter(|c| allowed.contains(&c.cpu))
        .collect();
    let observe = &profile.observe;
    crate::output::check_destinations(
        profile
            .outputs
            .iter()
            .chain(&observe.timeseries)
            .chain(&observe.histlog)
            .chain(&observe.trace),
    )?;
    pending.extend(crate::safety::check(profile, profile.force, view)?);
    let plans: Vec<Vec<ThreadPlan>> = profile
        .timespans
        .iter()
        .map(|ts| crate::plan::threads(ts, &cpus))
        .collect::<Result<_, _>>()?;
    let mut memlock_predicted = false;
    for (timespan, plans) in profile.timespans.iter().zip(&plans) {
        let needed = check_memory(timespan, plans, host)?;
        let registers =
            engine == EngineKind::IoUring && timespan.io_ring.is_none_or(|r| r.registered_buffers);
        if registers
            && !memlock_predicted
            && let Some(notice) = memlock_notice(needed, host)
        {
            pending.push(notice);
            memlock_predicted = true;
        }
    }
    let mut sinks = crate::live::open_sinks(&profile.observe)?;
    let mut trace_file = match &observe.trace {
        Some(path) => Some(crate::trace::writer::TraceFile::create(path).map_err(|e| {
            crate::output::DestinationError {
                path: path.clone(),
                problem: e.to_string(),
            }
        })?),
        None => None,
    };
    let (precreated, warnings) = crate::worker::target::precreate(profile, stop)?;
    pending.extend(warnings);
    let mut timespans = Vec::with_capacity(profile.timespans.len());
    for (index, (timespan, plans)) in profile.timespans.iter().zip(plans).enumerate() {
        let setting = crate::worker::target::Setting {
            precreated: &precreated,
            stop,
            force: profile.force,
            iopoll: profile.fast_paths.iopoll,
        };
        let (targets, warnings) = crate::worker::target::prepare(timespan, &setting)?;
        // Everything is checked: what was held back is printed now, just before the load starts.
        for warning in pending.drain(..).chain(warnings) {
            warn(&warning);
        }
        let input = RunInput {
            timespan,
            plans: &plans,
            targets: &targets,
            engine,
            progress: profile.progress.unwrap_or(0),
            spin_ns: profile.spin.budget_ns(plans.len(), allowed.len()),
            events: &profile.events,
            counters: profile.counters,
            fast_paths: profile.fast_paths,
        };
        let keep_rows = timespan.iops_interval_ms.is_some();
        let progress =
            !profile.observe.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
        let period = profile
            .observe
            .checkpoint_s
            .map(|s| s as u64 * 1_000_000_000);
        let interval_ns = (keep_rows || progress || period.is_some() || !sinks.is_empty())
            .then(|| timespan.iops_interval_ms.unwrap_or(1000) as u64 * 1_000_000);
        let done = &timespans;
        let mut write_checkpoint =
            |collector: &crate::live::Collector<'_>, moment: &crate::monitor::Moment| {
                if let Some(partial) =
                    crate::checkpoint::partial(&input, collector, moment, host.cpu_times())
                {
                    let mut so_far = done.clone();
                    so_far.push(partial);
                    checkpoint(&RunResults { timespans: so_far });
                }
            };
        let observers = Observers {
            timespan: index,
            interval_ns,
            keep_rows,
            sinks: &mut sinks,
            progress,
            trace: trace_file.as_mut(),
            periodic: period.map(|p| (p, &mut write_checkpoint as crate::monitor::Periodic<'_>)),
        };
        let results = execute(&input, clock, host, stop, log, observers)?;
        if let Some(error) = &results.observer_error {
            warn(&format!("iospd: a live output file is incomplete: {error}"));
        }
        if let (Some(counts), Some(path)) = (&results.trace, &observe.trace) {
            warn(&counts.describe(path));
        }
        let wanted = timespan.io_ring.is_none_or(|r| r.registered_buffers);
        if results.engine.kind == EngineKind::IoUring
            && wanted
            && !results.engine.registered_buffers
            && !memlock_predicted
        {
            warn(
                "iospd: io_uring could not register the I/O buffers (the memlock limit, ulimit -l, may be too low); the run used unregistered buffers",
            );
        }
        let stopped = results.failure.is_some()
            || results.lost.is_some()
            || results.interrupted
            || results.window.is_none();
        timespans.push(results);
        if stopped {
            break;
        }
    }
    Ok(RunResults { timespans })
}
