//! The run: one thread per plan, a start barrier, phases on the clock, signals, and the results.
//!
//! Each worker sets itself up (CPU pin, buffers, engine) and waits at the barrier; the controller
//! then fixes time zero and releases everyone at once. Workers place the phases themselves from
//! that schedule; the controller only samples CPU time at the window's edges and waits for the
//! workers to drain and return their statistics.

use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, OnceLock};

use crate::clock::{Clock, Nanos, monotonic_now};
use crate::engine::{Engine, EngineKind, EngineSetup, Null, Psync, Uring};
use crate::plan::ThreadPlan;
use crate::profile::{TimeSpan, WriteBuffer};
use crate::stats::intervals::bucket_count;
use crate::stats::{IoFailure, TargetStats, ThreadResults, TimeSpanResults};
use crate::system::{Host, pin_current_thread};
use crate::worker::buffers::{InitialFill, SlotBuffers, SlotShape, WriteFill};
use crate::worker::offsets::OffsetGen;
use crate::worker::rng::Rng;
use crate::worker::target::PreparedTarget;
use crate::worker::throttle::Throttle;
use crate::worker::{Schedule, Worker, WorkerTarget};

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
    /// The engine to use.
    pub engine: EngineKind,
    /// `-P`: a progress dot every this many completions per thread; 0 for none.
    pub progress: u64,
    /// Completion polling budget per wait, in nanoseconds; 0 sleeps at once.
    pub spin_ns: Nanos,
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
}

/// Runs one timespan and returns its measurements. `log` receives progress lines for `-v`.
pub fn execute<C: Clock>(
    input: &RunInput<'_>,
    clock: &C,
    host: &dyn Host,
    stop: &AtomicU64,
    log: &dyn Fn(&str),
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
    let start_time = host.wall_clock();
    let (outcomes, cpu, schedule) = std::thread::scope(|scope| {
        let handles: Vec<_> = input
            .plans
            .iter()
            .map(|plan| {
                let worker_clock = clock.clone();
                let gate = &gate;
                let shared = &shared_offsets;
                scope.spawn(move || {
                    thread_main(input, plan, worker_clock, gate, shared, stop, intervals)
                })
            })
            .collect();
        gate.ready.wait();
        let schedule = Schedule::new(clock.now(), ts.warmup_s, ts.duration_s, ts.cooldown_s);
        let _ = gate.schedule.set(schedule);
        gate.go.wait();
        let mut cpu = (Vec::new(), Vec::new());
        if !gate.aborted.load(Ordering::SeqCst) {
            if ts.warmup_s > 0 {
                log("starting warm up...");
            }
            wait_until(clock, schedule.warmup_end, stop);
            cpu.0 = host.cpu_times();
            log("starting measurements...");
            wait_until(clock, schedule.measure_end, stop);
            cpu.1 = host.cpu_times();
            if ts.cooldown_s > 0 {
                log("starting cool down...");
            }
        }
        let outcomes: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("worker thread panicked"))
            .collect();
        (outcomes, cpu, schedule)
    });
    log("finished test");
    let mut threads = Vec::with_capacity(outcomes.len());
    let mut engine = EngineSetup::plain(input.engine);
    let mut failure = None;
    for outcome in outcomes {
        let outcome = outcome?;
        engine = outcome.engine;
        failure = failure.or(outcome.failure);
        threads.push(outcome.results);
    }
    let stop_at = stop.load(Ordering::SeqCst);
    let window_end = if stop_at == 0 {
        schedule.measure_end
    } else {
        stop_at.min(schedule.measure_end)
    };
    let window = (window_end > schedule.warmup_end).then(|| window_end - schedule.warmup_end);
    Ok(TimeSpanResults {
        start_time,
        window,
        threads,
        cpu,
        engine,
        interrupted: stop_at != 0 && failure.is_none(),
        failure,
        target_sizes: input.targets.iter().map(|t| t.size).collect(),
        spin_ns: input.spin_ns,
    })
}

/// Sleeps until `deadline` or a stop request, polling every 10 ms.
fn wait_until<C: Clock>(clock: &C, deadline: Nanos, stop: &AtomicU64) {
    loop {
        let now = clock.now();
        if now >= deadline || stop.load(Ordering::Relaxed) != 0 {
            return;
        }
        clock.sleep((deadline - now).min(10_000_000));
    }
}

fn thread_main<C: Clock>(
    input: &RunInput<'_>,
    plan: &ThreadPlan,
    clock: C,
    gate: &StartGate,
    shared_offsets: &[AtomicU64],
    stop: &AtomicU64,
    intervals: usize,
) -> Result<ThreadOutcome, RunError> {
    let ts = input.timespan;
    let setup_error = |what, source| RunError::Setup {
        thread: plan.thread,
        what,
        source,
    };
    let mut shapes = Vec::with_capacity(plan.slots() as usize);
    let mut slot_target = Vec::with_capacity(plan.slots() as usize);
    for (i, tt) in plan.targets.iter().enumerate() {
        let target = &ts.targets[tt.target];
        let shape = SlotShape {
            block: target.block_size as usize,
            reads: target.write_ratio < 100,
            writes: target.write_ratio > 0,
            fill: if target.write_buffer == WriteBuffer::Zero {
                InitialFill::Zero
            } else {
                InitialFill::Pattern
            },
        };
        shapes.extend(std::iter::repeat_n(shape, tt.requests as usize));
        slot_target.extend(std::iter::repeat_n(i as u16, tt.requests as usize));
    }
    let prepared = (|| {
        if let Some(cpu) = plan.cpu {
            pin_current_thread(cpu).map_err(|e| setup_error("cannot pin to its CPU", e))?;
        }
        SlotBuffers::new(&shapes).map_err(|e| setup_error("cannot allocate I/O buffers", e))
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
    let targets = plan
        .targets
        .iter()
        .map(|tt| {
            let target = &ts.targets[tt.target];
            let prepared = &input.targets[tt.target];
            let fill = match (&prepared.write_source, ts.random_write_data) {
                (_, true) => WriteFill::Random,
                (Some(source), false) => WriteFill::Window {
                    source,
                    step: if target.cache == crate::profile::CacheMode::DisableOsCache {
                        512
                    } else {
                        1
                    },
                },
                (None, false) => WriteFill::Fixed,
            };
            WorkerTarget {
                offsets: OffsetGen::new(
                    target.access,
                    target.block_size,
                    prepared.range,
                    tt.relative_thread as u64 * target.thread_stride,
                    Some(&shared_offsets[tt.target]),
                ),
                throttle: Throttle::new(target.throughput, target.block_size),
                fill,
                write_ratio: target.write_ratio,
                block: target.block_size as u32,
                index: tt.target,
            }
        })
        .collect();
    let worker = Worker {
        clock,
        thread: plan.thread,
        targets,
        slot_target,
        buffers: &buffers,
        rng: Rng::new(plan.seed),
        schedule: Schedule::new(0, 0, 0, 0),
        stop,
        interval_ns: ts.iops_interval_ms.map_or(0, |ms| ms as u64 * 1_000_000),
        progress_every: input.progress,
        spin_ns: input.spin_ns,
        stats: plan
            .targets
            .iter()
            .map(|tt| TargetStats::new(tt.target, intervals))
            .collect(),
    };
    let setup = |what| move |e| setup_error(what, e);
    match input.engine {
        EngineKind::IoUring => drive(
            Uring::new(&fds, &buffers).map_err(setup("cannot set up io_uring")),
            worker,
            plan,
            gate,
        ),
        EngineKind::Psync => drive(
            Ok((
                Psync::new(&fds, &buffers),
                EngineSetup::plain(EngineKind::Psync),
            )),
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
    if gate.aborted.load(Ordering::SeqCst) {
        return Ok(ThreadOutcome {
            results: ThreadResults {
                thread: plan.thread,
                cpu: plan.cpu,
                targets: worker.stats,
            },
            engine: setup,
            failure: None,
        });
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
    Ok(ThreadOutcome {
        results: ThreadResults {
            thread: plan.thread,
            cpu: plan.cpu,
            targets: worker.stats,
        },
        engine: setup,
        failure,
    })
}

/// Runs every timespan of a profile: plan the threads, prepare the targets, execute. `warn`
/// receives warnings (stderr), `log` the `-v` progress lines.
pub fn measure<C: Clock>(
    profile: &crate::profile::Profile,
    engine: EngineKind,
    clock: &C,
    host: &dyn Host,
    stop: &AtomicU64,
    warn: &dyn Fn(&str),
    log: &dyn Fn(&str),
) -> Result<crate::stats::RunResults, crate::Error> {
    let mut timespans = Vec::with_capacity(profile.timespans.len());
    for timespan in &profile.timespans {
        let plans = crate::plan::threads(timespan, &host.allowed_cpus())?;
        let (targets, warnings) = crate::worker::target::prepare(timespan)?;
        for warning in &warnings {
            warn(warning);
        }
        let cpus = host.allowed_cpus().len();
        let input = RunInput {
            timespan,
            plans: &plans,
            targets: &targets,
            engine,
            progress: profile.progress.unwrap_or(0),
            spin_ns: profile.spin.budget_ns(plans.len(), cpus),
        };
        let results = execute(&input, clock, host, stop, log)?;
        let stopped = results.failure.is_some() || results.interrupted;
        timespans.push(results);
        if stopped {
            break;
        }
    }
    Ok(crate::stats::RunResults { timespans })
}
