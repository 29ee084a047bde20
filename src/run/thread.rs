//! A worker thread of a timespan: its buffers and engine, the start barrier, the loop.

use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Counting, RunError, RunInput, StartGate, ThreadOutcome};
use crate::clock::{Clock, Nanos};
use crate::engine::{
    Engine, EngineKind, EngineSetup, Files, MapSpec, Mapped, Null, Psync, Slots, Uring,
};
use crate::plan::ThreadPlan;
use crate::profile::WriteBuffer;
use crate::stats::ThreadResults;
use crate::system::pin_current_thread;
use crate::worker::buffers::SlotBuffers;
use crate::worker::{Worker, slot_shapes};

/// A pinned thread's ring with its kernel worker started while the thread may run on any of
/// `allowed` (see [`Uring::start_worker`]); the thread is pinned to `cpu` again after. Without
/// SQPOLL only: its kernel thread does the submitting.
fn worker_off_the_threads_cpu(
    (mut engine, setup): (Uring, EngineSetup),
    cpu: u32,
    allowed: &[u32],
) -> io::Result<(Uring, EngineSetup)> {
    if setup.sqpoll || allowed.len() < 2 {
        return Ok((engine, setup));
    }
    crate::system::allow_current_thread(allowed)?;
    let started = engine.start_worker();
    pin_current_thread(cpu)?;
    started.map(|()| (engine, setup))
}

pub(super) fn thread_main<C: Clock>(
    input: &RunInput<'_>,
    plan: &ThreadPlan,
    clock: C,
    gate: &StartGate,
    shared_offsets: &[AtomicU64],
    stop: &AtomicU64,
    counting: Counting,
) -> Result<ThreadOutcome, RunError> {
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
    let large_pages = served.iter().any(|t| t.large_pages);
    let prepared = (|| {
        if let Some(cpu) = plan.cpu {
            pin_current_thread(cpu).map_err(|e| setup_error("cannot pin to its CPU", e))?;
        }
        let mut buffers = SlotBuffers::new(
            &slot_shapes(ts, plan, input.replay),
            large_pages,
            input.buffer_separation,
        ).map_err(|e| {
            let what = if large_pages {
                "cannot allocate I/O buffers on huge pages (-l needs free huge pages: raise vm.nr_hugepages)"
            } else {
                "cannot allocate I/O buffers"
            };
            setup_error(what, e)
        })?;
        // `--pattern`: the bytes its targets' writes repeat, when they all name the same.
        if let Some(WriteBuffer::Repeat { hex }) = served.first().map(|t| &t.write_buffer)
            && served
                .iter()
                .all(|t| t.write_buffer == served[0].write_buffer)
        {
            buffers.repeat_in_writes(&crate::profile::pattern_bytes(hex));
        }
        Ok(Slots::new(buffers))
    })();
    let slots = match prepared {
        Ok(buffers) => buffers,
        Err(error) => {
            gate.fail(&error);
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
    let issue: Vec<crate::engine::Issue> = served
        .iter()
        .map(|t| crate::engine::Issue {
            priority: t.io_priority.linux_ioprio(),
            nowait: t.nowait,
        })
        .collect();
    let worker = crate::worker::Plan {
        timespan: ts,
        plan,
        targets: input.targets,
        shared_offsets,
        stop,
        progress: input.progress,
        spin_ns: input.spin_ns,
        intervals: counting.intervals,
        feed: counting.feed,
        tracer: counting.tracer,
        timespan_index: counting.timespan,
        verify: input.verify,
        replay: input.replay,
        finishing: &gate.finishing,
        steady_end: &gate.steady_end,
        flow: input.flow,
    };
    let setup = |what| move |e| setup_error(what, e);
    // Each engine owns the slots: the buffers live as long as the kernel may use them.
    if served.iter().any(|t| t.memory_mapped) {
        let specs: Vec<MapSpec> = plan
            .targets
            .iter()
            .enumerate()
            .map(|(i, tt)| MapSpec {
                fd: fds[i],
                len: input.targets[tt.target].size,
                writable: served[i].modifies(),
                flush: served[i].flush,
                write_through: served[i].write_through,
            })
            .collect();
        let engine = if served.iter().all(|t| t.memory_mapped) {
            Mapped::create(&specs, slots).map_err(setup("cannot map the targets (-Sm)"))
        } else {
            Err(setup_error(
                "serves memory-mapped and ordinary targets",
                io::Error::other("use -Sm for every target of a thread, or none"),
            ))
        };
        let engine = engine.map(|e| (e, EngineSetup::plain(EngineKind::Mapped)));
        return drive(engine, Worker::from_plan(worker, clock), plan, gate);
    }
    match input.engine {
        EngineKind::IoUring => {
            let engine = Uring::new(
                &fds,
                &issue,
                slots,
                ts.io_ring.is_none_or(|r| r.registered_buffers),
                input.fast_paths,
            )
            .and_then(|engine| match plan.cpu {
                Some(cpu) => worker_off_the_threads_cpu(engine, cpu, input.worker_cpus),
                None => Ok(engine),
            })
            .map_err(setup("cannot set up io_uring"));
            drive(engine, Worker::from_plan(worker, clock), plan, gate)
        }
        EngineKind::Psync | EngineKind::Mapped => {
            let engine = Psync::create(&fds, slots, &issue)
                .map(|e| (e, EngineSetup::plain(EngineKind::Psync)))
                .map_err(setup("cannot set the I/O priority (-I)"));
            drive(engine, Worker::from_plan(worker, clock), plan, gate)
        }
        EngineKind::Null => {
            let engine = Ok((Null::new(slots), EngineSetup::plain(EngineKind::Null)));
            drive(engine, Worker::from_plan(worker, clock), plan, gate)
        }
        kind => {
            let paths: Vec<&std::path::Path> = served.iter().map(|t| t.path.as_path()).collect();
            let targets = super::file_calls::targets(kind, &paths, &fds);
            let names = match (&targets, kind) {
                (Ok(targets), EngineKind::Create) => super::file_calls::names(targets),
                _ => Vec::new(),
            };
            let engine = targets
                .map(|targets| {
                    let engine = Files::create(kind, targets, slots).expect("a file engine");
                    (engine, EngineSetup::plain(kind))
                })
                .map_err(setup("cannot reach its targets as files"));
            let outcome = drive(engine, Worker::from_plan(worker, clock), plan, gate);
            super::file_calls::mark_created(&names);
            outcome
        }
    }
}

/// Waits at the start barrier, runs the loop, and packages the results.
fn drive<E: Engine, C: Clock>(
    engine: Result<(E, EngineSetup), RunError>,
    mut worker: Worker<'_, C>,
    plan: &ThreadPlan,
    gate: &StartGate,
) -> Result<ThreadOutcome, RunError> {
    if let Err(error) = &engine {
        gate.fail(error);
    }
    gate.ready.wait();
    gate.go.wait();
    worker.served = gate.served.get().cloned();
    let (mut engine, setup) = engine?;
    let outcome = |mut worker: Worker<'_, C>, failure| {
        if let Some(v) = worker.verify.take() {
            v.done();
        }
        ThreadOutcome {
            results: ThreadResults {
                thread: plan.thread,
                cpu: plan.cpu,
                targets: worker.stats,
                waits: worker.waits,
                slowest: worker.slowest,
                failed: worker.failed,
                depth: plan.slots(),
                replay: worker.replay.map(|r| {
                    let side = r.feed.finish();
                    let mut stats = r.stats;
                    stats.trace_per_second = side.per_second;
                    stats.trace_events = side.events;
                    stats.trace_error = side.error;
                    stats.cut |= side.cut;
                    stats
                }),
            },
            engine: setup,
            failure,
            traced: worker.tracer.map(crate::trace::Tracer::finish),
        }
    };
    if gate.aborted.load(Ordering::SeqCst) {
        return Ok(outcome(worker, None));
    }
    worker.schedule = *gate
        .schedule
        .get()
        .expect("schedule is set before the gate opens");
    // A thread whose engine failed, or that panicked, ends the run: the main thread of a run
    // bounded by work has no planned end, and would wait for work this thread will never finish.
    let ends_run = EndsRunIfLost { stop: worker.stop };
    let ran = worker.run(&mut engine);
    if ran.is_err() {
        ends_run.stop_at(worker.clock.now());
    }
    // Disarmed: the thread came back.
    std::mem::forget(ends_run);
    let failure = ran.map_err(|source| RunError::Engine {
        thread: plan.thread,
        engine: setup.kind,
        source,
    })?;
    let unanswered = engine.slots().in_flight();
    if unanswered > 0 {
        // The engine keeps the memory and the ring of this I/O when it goes.
        eprintln!(
            "iospd: thread {}: {unanswered} I/O{} neither completed nor could be cancelled; {} buffers stay allocated until iospd exits",
            plan.thread,
            if unanswered == 1 { "" } else { "s" },
            if unanswered == 1 { "its" } else { "their" },
        );
    }
    drop(engine);
    Ok(outcome(worker, failure))
}

/// Requests the run's stop when dropped (at the monotonic clock's now): a worker thread that
/// unwinds from a panic drops it on its way out; one that comes back forgets it.
struct EndsRunIfLost<'a> {
    stop: &'a AtomicU64,
}

impl EndsRunIfLost<'_> {
    /// Requests the stop at `at`, unless one was requested before.
    fn stop_at(&self, at: Nanos) {
        let _ = self
            .stop
            .compare_exchange(0, at.max(1), Ordering::SeqCst, Ordering::SeqCst);
    }
}

impl Drop for EndsRunIfLost<'_> {
    fn drop(&mut self) {
        self.stop_at(crate::clock::monotonic_now());
    }
}
