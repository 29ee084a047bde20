//! A whole run: the checks before anything is written, file creation, and each timespan in turn.

use super::*;

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
