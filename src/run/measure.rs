//! A whole run: the checks before anything is written, file creation, and each timespan in turn.

use std::sync::atomic::{AtomicU64, Ordering};

use super::peers::{Peers, Refusal};
use super::{Messages, Observers, RunError, RunInput, checkpoint, execute, monitor, verifying};
use crate::clock::Clock;
use crate::engine::EngineKind;
use crate::plan::ThreadPlan;
use crate::profile::{Profile, TimeSpan};
use crate::stats::{RunResults, TimeSpanResults};
use crate::system::Host;
use crate::targets::Checked;

/// Everything a run needs besides the profile and what the safety gate opened.
pub struct Context<'a, C: Clock> {
    /// The engine to use.
    pub engine: EngineKind,
    /// The run's clock.
    pub clock: &'a C,
    /// The machine.
    pub host: &'a dyn Host,
    /// A stop request (signals), as the monotonic time it was made.
    pub stop: &'a AtomicU64,
    /// Where messages go.
    pub messages: Messages<'a>,
    /// The other processes of the measurement ([`Alone`](super::Alone) for a run on its own).
    pub peers: &'a dyn Peers,
    /// `--metrics`: the live metrics the endpoint serves.
    pub metrics: Option<&'a crate::live::metrics::Metrics>,
}

/// Runs every timespan of a profile on the targets and outputs the safety gate cleared. First every
/// remaining check (thread placement, memory, every timespan's targets), which the peers agree on;
/// only then are the streaming outputs started and files created, then each timespan runs in turn.
/// Each timespan's end is agreed too, so every process runs the same timespans.
pub fn measure<C: Clock>(
    profile: &Profile,
    cleared: &mut crate::safety::Cleared,
    context: Context<'_, C>,
) -> Result<RunResults, RunError> {
    let Context {
        engine,
        clock,
        host,
        stop,
        messages,
        peers,
        metrics,
    } = context;
    let Messages {
        mut pending,
        warn,
        log,
        checkpoint,
    } = messages;
    pending.append(&mut cleared.notices);
    warn_when_memory_is_unknown(host, warn);
    let (cpus, plans, memlock_notice, mut checked, warnings) =
        agree(check_all(profile, cleared, engine, host), |v| {
            peers.checked(v)
        })?
        .0;
    let memlock_predicted = memlock_notice.is_some();
    pending.extend(memlock_notice);
    pending.extend(warnings);
    // Every check has passed everywhere: from here on files are created and written.
    let created = start_streams(&mut cleared.outputs).and_then(|streams| {
        let notices = crate::targets::precreate(&mut checked, cleared, stop)?;
        Ok((streams, notices))
    });
    let ((mut sinks, trace_file), notices) = match created {
        Ok(created) => created,
        Err(error) => return Err(not_ready(error, peers)),
    };
    pending.extend(notices);
    if let Some(metrics) = metrics {
        sinks.push(Box::new(metrics.sink()));
    }
    let mut runner = Runner {
        profile,
        engine,
        clock,
        host,
        stop,
        log,
        checkpoint,
        peers,
        cpus,
        allowed_cpus: host.allowed_cpus(),
        memlock_predicted,
        sinks,
        metrics,
        trace: trace_file,
        verify: profile.verify.as_ref().map(|v| {
            verifying::RunVerify::new(v.stop_at_first, cleared.outputs.verify_state.take())
        }),
        flow: match &profile.flow {
            Some(f) => Some(crate::worker::flow::FlowGroup::open(&f.file).map_err(RunError::Flow)?),
            None => None,
        },
    };
    let mut timespans = Vec::with_capacity(profile.timespans.len());
    let mut aborted = None;
    for (index, (timespan, plans)) in profile.timespans.iter().zip(plans).enumerate() {
        if index > 0 && !pause(clock, stop, profile.pause_s) {
            break;
        }
        let verify_run = runner.verify.as_ref().map(|v| v.run_id);
        // On a terminal, say what the pause before the load is (`-c` replaces the line with its
        // own progress, the run's progress line follows).
        let mut preparing = crate::console::StatusLine::on_terminal(checked.shows_status());
        if let Some(line) = &mut preparing {
            line.show(&format!(
                "iospd: timespan {}: preparing {} target{} (creating, opening, checking)",
                index + 1,
                timespan.targets.len(),
                if timespan.targets.len() == 1 { "" } else { "s" }
            ));
        }
        let prepared =
            crate::targets::prepare(timespan, index, &mut checked, cleared, stop, verify_run)
                .map_err(|error| not_ready(error.into(), peers));
        drop(preparing);
        let (targets, warnings) = match prepared {
            Ok(prepared) => prepared,
            Err(error) if timespans.is_empty() => return Err(error),
            Err(error) => {
                aborted = Some(error.to_string());
                break;
            }
        };
        // Everything is checked: what was held back is printed now, just before the load starts.
        for warning in pending.drain(..).chain(warnings) {
            warn(&warning);
        }
        let ran = runner.timespan(index, &plans, &targets, &timespans);
        let (results, stopped) = match ended(ran, &timespans, peers) {
            Ok(ended) => ended,
            Err(error) if timespans.is_empty() => return Err(error),
            Err(error) => {
                aborted = Some(error.to_string());
                break;
            }
        };
        for line in runner.remarks(timespan, &plans, &results) {
            warn(&line);
        }
        timespans.push(results);
        if stopped {
            break;
        }
    }
    let unsaved = runner
        .verify
        .as_ref()
        .and_then(|v| v.unsaved().map(str::to_string));
    Ok(RunResults {
        timespans,
        aborted,
        unsaved,
    })
}

/// The memory check in [`check_all`]: said at once when it cannot be made in full, since a run it
/// lets through may be killed before any held-back line is printed.
fn warn_when_memory_is_unknown(host: &dyn Host, warn: &dyn Fn(&str)) {
    match host.memory_available() {
        None => warn(
            "iospd: the memory this process may allocate cannot be read (no /proc/meminfo, and sysinfo failed): the run is not checked against it, and may be killed for want of memory without a word",
        ),
        Some(available) => {
            if let Some(caveat) = &available.caveat {
                warn(caveat);
            }
        }
    }
}

/// What every check before anything is written yields: the CPUs this process may use, each
/// timespan's thread plans, the note about locked memory (if any), the checked targets and the
/// warnings held back until the load starts.
type Checks = (
    usize,
    Vec<Vec<ThreadPlan>>,
    Option<String>,
    Checked,
    Vec<String>,
);

/// Every remaining check, in order: thread placement, memory (buffers and statistics), open
/// files, every timespan's targets, then memory again with `--verify`'s tables.
/// `--dry-run`: every check [`measure`] makes before it creates anything, and nothing else; the
/// notices and warnings the run would have printed.
pub fn dry_run(
    profile: &Profile,
    cleared: &mut crate::safety::Cleared,
    engine: EngineKind,
    host: &dyn Host,
) -> Result<Vec<String>, RunError> {
    let mut said = std::mem::take(&mut cleared.notices);
    let (_, _, memlock_notice, _, warnings) = check_all(profile, cleared, engine, host)?;
    said.extend(memlock_notice);
    said.extend(warnings);
    Ok(said)
}

/// `--create-only`: every check [`measure`] makes, then the files `-c` and `<PrecreateFiles>` lay
/// out (none that `--keep-existing` keeps), and nothing measured; what was said, and the line that
/// says what is ready.
pub fn create_only(
    profile: &Profile,
    cleared: &mut crate::safety::Cleared,
    engine: EngineKind,
    host: &dyn Host,
    stop: &AtomicU64,
) -> Result<Vec<String>, RunError> {
    let mut said = std::mem::take(&mut cleared.notices);
    // The warnings are about what the run would measure, and nothing is measured.
    let (_, _, _, mut checked, _) = check_all(profile, cleared, engine, host)?;
    said.extend(crate::targets::precreate(&mut checked, cleared, stop)?);
    for (index, timespan) in profile.timespans.iter().enumerate() {
        let (_, notes) =
            crate::targets::prepare(timespan, index, &mut checked, cleared, stop, None)?;
        said.extend(notes);
    }
    let named: std::collections::HashSet<usize> = profile
        .timespans
        .iter()
        .flat_map(|ts| &ts.targets)
        .filter(|t| t.create_size.is_some())
        .map(|t| cleared.anchor_of(&t.path))
        .collect();
    let kept_files = named.iter().filter(|a| cleared.kept.contains(a)).count();
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    let kept = match profile.keep_existing {
        true => format!(", {} kept as found (--keep-existing)", files(kept_files)),
        false => String::new(),
    };
    said.push(format!(
        "iospd: --create-only: {} laid out or reused{kept}; nothing was measured",
        files(named.len() - kept_files),
    ));
    Ok(said)
}

fn check_all(
    profile: &Profile,
    cleared: &crate::safety::Cleared,
    engine: EngineKind,
    host: &dyn Host,
) -> Result<Checks, RunError> {
    let allowed = host.allowed_cpus();
    let cpus: Vec<_> = host
        .system_info()
        .cpus
        .into_iter()
        .filter(|c| allowed.contains(&c.cpu))
        .collect();
    let plans: Vec<Vec<ThreadPlan>> = profile
        .timespans
        .iter()
        .map(|ts| {
            let first = crate::system::local_rank() * ts.total_threads() as usize;
            crate::plan::threads(ts, &cpus, first)
        })
        .collect::<Result<_, _>>()?;
    let memlock_notice = check_memory(profile, &plans, 0, (engine, host))?;
    super::descriptors::check(&plans, cleared, engine, crate::system::open_file_limit())?;
    let (checked, mut warnings) =
        crate::targets::check(profile, cleared, profile.fast_paths.iopoll)?;
    // `--verify`'s tables follow from the targets' sizes, known now.
    let verify_tables = checked.verify_table_bytes(profile);
    if verify_tables > 0 {
        check_memory(profile, &plans, verify_tables, (engine, host))?;
    }
    if let Some(available) = host.memory_available() {
        warnings.extend(checked.page_cache_note(profile, available.bytes));
    }
    Ok((allowed.len(), plans, memlock_notice, checked, warnings))
}

/// How a timespan ended, agreed with the peers: its results, and whether the run stops there (a
/// failure, a lost target, an interruption, or no measured window).
fn ended(
    ran: Result<TimeSpanResults, RunError>,
    before: &[TimeSpanResults],
    peers: &dyn Peers,
) -> Result<(TimeSpanResults, bool), RunError> {
    match ran {
        // The peers refused to start it: every process knows already.
        Err(RunError::Refused(refusal)) => Err(RunError::Refused(refusal)),
        ran => {
            if let Ok(current) = &ran {
                peers.keep(&|| RunResults {
                    timespans: before.iter().chain([current]).cloned().collect(),
                    aborted: None,
                    unsaved: None,
                });
            }
            let stopped = ran.as_ref().is_ok_and(|results| {
                results.failure.is_some()
                    || results.lost.is_some()
                    || results.interrupted
                    || results.window.is_none()
            });
            agree(ran, |v| peers.done(v.map(|()| stopped)))
        }
    }
}

/// `--pause`: idles between timespans in steps of 100 ms; false when a stop came meanwhile.
fn pause<C: Clock>(clock: &C, stop: &AtomicU64, seconds: u32) -> bool {
    let mut left = seconds as u64 * 1_000_000_000;
    while left > 0 {
        if stop.load(Ordering::Relaxed) != 0 {
            return false;
        }
        let step = left.min(100_000_000);
        clock.sleep(step);
        left -= step;
    }
    stop.load(Ordering::Relaxed) == 0
}

/// Puts a local result to the peers and returns it with their answer. A refusal the peers agreed
/// on comes back as this process's own error when it is the same one (always, for a run on its
/// own), so its kind survives; else as the agreed refusal, which names the process it came from.
fn agree<T, A>(
    local: Result<T, RunError>,
    ask: impl FnOnce(Result<(), Refusal>) -> Result<A, Refusal>,
) -> Result<(T, A), RunError> {
    match local {
        Ok(value) => match ask(Ok(())) {
            Ok(answer) => Ok((value, answer)),
            Err(agreed) => Err(RunError::Refused(agreed)),
        },
        Err(error) => {
            let own = error.refusal();
            match ask(Err(own.clone())) {
                Err(agreed) if agreed != own => Err(RunError::Refused(agreed)),
                _ => Err(error),
            }
        }
    }
}

/// A failure between the agreement and the start of a timespan, told to the peers as this
/// process's answer to [`Peers::ready`].
fn not_ready(error: RunError, peers: &dyn Peers) -> RunError {
    match agree::<(), _>(Err(error), |v| peers.ready(v)) {
        Err(error) => error,
        Ok(_) => unreachable!("a refusal is never agreed to as a start"),
    }
}

/// Refuses a profile whose timespans would not fit in memory with `verify_tables` bytes of
/// `--verify` tables held across them; returns the notice for a memlock limit too low to register
/// io_uring's buffers, if there is one.
fn check_memory(
    profile: &Profile,
    plans: &[Vec<ThreadPlan>],
    verify_tables: u64,
    (engine, host): (EngineKind, &dyn Host),
) -> Result<Option<String>, RunError> {
    let observe = &profile.observe;
    let live = observe.timeseries.is_some()
        || observe.histlog.is_some()
        || observe.checkpoint_s.is_some()
        || observe.metrics.is_some()
        || !observe.quiet;
    let mut notice = None;
    for (timespan, plans) in profile.timespans.iter().zip(plans) {
        let live = live || timespan.iops_interval_ms.is_some();
        let needs = super::memory::Needs {
            verify_tables,
            ..super::memory::needs(
                timespan,
                plans,
                profile.replay.as_ref(),
                live,
                observe.trace.is_some(),
            )
        };
        super::memory::check(timespan, plans, needs, host)?;
        let registers =
            engine == EngineKind::IoUring && timespan.io_ring.is_none_or(|r| r.registered_buffers);
        if registers && notice.is_none() {
            notice = super::memory::memlock_notice(needs.buffers, host);
        }
    }
    Ok(notice)
}

/// The streaming outputs once started: the live sinks and the trace file.
type Streams = (
    Vec<Box<dyn crate::live::Sink>>,
    Option<crate::trace::writer::TraceFile>,
);

/// Starts the streaming outputs (time series, interval log, trace) at their checked places.
fn start_streams(outputs: &mut crate::safety::Outputs) -> Result<Streams, RunError> {
    let sinks = crate::live::open_sinks(outputs.timeseries.as_mut(), outputs.histlog.as_mut())?;
    let trace =
        match outputs.trace.as_mut() {
            Some(place) => Some(crate::trace::writer::TraceFile::create(place).map_err(
                |source| crate::live::SinkError {
                    option: "--trace",
                    path: place.path().to_path_buf(),
                    source,
                },
            )?),
            None => None,
        };
    Ok((sinks, trace))
}

/// What runs each timespan once everything is checked and created.
struct Runner<'a, C: Clock> {
    profile: &'a Profile,
    engine: EngineKind,
    clock: &'a C,
    host: &'a dyn Host,
    stop: &'a AtomicU64,
    log: &'a dyn Fn(&str),
    checkpoint: &'a dyn Fn(&RunResults),
    peers: &'a dyn Peers,
    /// CPUs the run may use.
    cpus: usize,
    /// Which they are.
    allowed_cpus: Vec<u32>,
    /// The memlock notice was given before the run.
    memlock_predicted: bool,
    sinks: Vec<Box<dyn crate::live::Sink>>,
    metrics: Option<&'a crate::live::metrics::Metrics>,
    trace: Option<crate::trace::writer::TraceFile>,
    /// `--verify`: the run id and the tables between timespans.
    verify: Option<verifying::RunVerify>,
    /// `--flow`: the flow file, mapped for the run.
    flow: Option<crate::worker::flow::FlowGroup>,
}

impl<C: Clock> Runner<'_, C> {
    /// Runs timespan `index` on its prepared targets; `done` holds the timespans before it (for
    /// checkpoints).
    fn timespan(
        &mut self,
        index: usize,
        plans: &[ThreadPlan],
        targets: &[crate::targets::PreparedTarget],
        done: &[TimeSpanResults],
    ) -> Result<TimeSpanResults, RunError> {
        let profile = self.profile;
        let timespan = &profile.timespans[index];
        let verifier = self.verify.as_mut().map(|v| v.verifier(timespan, targets));
        let input = RunInput {
            flow: self.flow.as_ref().zip(profile.flow.as_ref()),
            verify: verifier.as_ref(),
            replay: profile.replay.as_ref(),
            timespan,
            plans,
            targets,
            engine: self.engine,
            progress: profile.progress.unwrap_or(0),
            spin_ns: profile.spin.budget_ns(plans.len(), self.cpus),
            events: &profile.events,
            counters: profile.counters,
            fast_paths: profile.fast_paths,
            device_clock: match (
                profile.observe.no_device_clock,
                profile.observe.device_clock_every,
            ) {
                (true, _) => None,
                (false, true) => Some(crate::system::devclock::Sampling::Every),
                (false, false) => Some(crate::system::devclock::Sampling::Auto),
            },
            buffer_separation: self
                .host
                .system_info()
                .buffer_separation(timespan.buffer_separation)
                as usize,
            worker_cpus: &self.allowed_cpus,
        };
        let keep_rows = timespan.iops_interval_ms.is_some();
        let progress =
            !profile.observe.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
        // Checkpoints, and the --verify-state saves while the timespan runs (with each
        // checkpoint, or every SAVE_PERIOD_S).
        let saves_state = self.verify.as_ref().is_some_and(|v| v.saves());
        let period = profile
            .observe
            .checkpoint_s
            .map(|s| s as u64)
            .or(saves_state.then_some(verifying::SAVE_PERIOD_S))
            .map(|s| s * 1_000_000_000);
        let checkpoints = profile.observe.checkpoint_s.is_some();
        let interval_ns = (keep_rows
            || progress
            || period.is_some()
            || !self.sinks.is_empty()
            || timespan.steady_state.is_some())
        .then(|| timespan.iops_interval_ms.unwrap_or(1000) as u64 * 1_000_000);
        let (host, checkpoint) = (self.host, self.checkpoint);
        let run_verify = &mut self.verify;
        let mut write_checkpoint = |collector: &crate::live::Collector<'_>,
                                    moment: &monitor::Moment| {
            if let (Some(run), Some(verifier)) = (run_verify.as_mut(), input.verify) {
                run.save_running(verifier, timespan);
            }
            if !checkpoints {
                return;
            }
            if let Some(partial) = checkpoint::partial(&input, collector, moment, host.cpu_times())
            {
                let mut so_far = done.to_vec();
                so_far.push(partial);
                checkpoint(&RunResults {
                    timespans: so_far,
                    aborted: None,
                    unsaved: None,
                });
            }
        };
        let observers = Observers {
            timespan: index,
            interval_ns,
            keep_rows,
            sinks: &mut self.sinks,
            metrics: self.metrics,
            progress,
            trace: self.trace.as_mut(),
            periodic: period.map(|p| (p, &mut write_checkpoint as monitor::Periodic<'_>)),
            peers: self.peers,
        };
        let results = execute(
            &input, self.clock, self.host, self.stop, self.log, observers,
        );
        if let (Some(verifier), Some(run)) = (verifier, &mut self.verify) {
            run.keep(verifier, timespan);
        }
        results
    }

    /// The lines printed after a timespan: live outputs that stopped, the trace's counts, and
    /// registered buffers the kernel refused.
    fn remarks(
        &self,
        timespan: &TimeSpan,
        plans: &[ThreadPlan],
        results: &TimeSpanResults,
    ) -> Vec<String> {
        let mut lines: Vec<String> = results
            .observer_errors
            .iter()
            .map(|e| format!("iospd: {e}"))
            .collect();
        if let (Some(counts), Some(path)) = (&results.trace, &self.profile.observe.trace) {
            lines.push(counts.describe(path));
        }
        let wanted = timespan.io_ring.is_none_or(|r| r.registered_buffers);
        if results.engine.kind == EngineKind::IoUring
            && wanted
            && !results.engine.registered_buffers
            && !self.memlock_predicted
        {
            let max = crate::engine::MAX_REGISTERED_BUFFERS;
            lines.push(match plans.iter().map(|p| p.slots()).max() {
                Some(slots) if slots > max => format!(
                    "iospd: a thread keeps {slots} I/Os in flight and io_uring registers at most {max} buffers per ring, so the run used unregistered buffers"
                ),
                _ => "iospd: io_uring could not register the I/O buffers (the memlock limit, ulimit -l, may be too low); the run used unregistered buffers".into(),
            });
        }
        lines
    }
}
