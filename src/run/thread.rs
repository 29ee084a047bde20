//! A worker thread of a timespan: its buffers, targets and engine, the start barrier, the loop.

use super::*;

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

pub(super) fn thread_main<C: Clock>(
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
                    // DiskSpd ignores -si for a target with one thread: plain sequential.
                    (ts.threads_per_target(target) > 1).then(|| &shared_offsets[tt.target]),
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
