//! One measured run, from a resolved profile to its exit status: the engine the kernel allows, the
//! safety gate, the run, then the report — to every `--output` file first, each one attempted, then
//! to stdout — and the line that says how the run ended. A report that cannot be written anywhere
//! is said once and makes the exit status 1; it never stops the others.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use crate::clock::Monotonic;
use crate::cluster::{Cluster, Finished};
use crate::console::{out, out_by, say};
use crate::exit::EXIT_RUN_ERROR;
use crate::live::metrics::server::Server;
use crate::live::metrics::{Metrics, Phase, RunInfo};
use crate::profile::{Action, Profile};
use crate::report::{self, Report};
use crate::safety::LinuxView;
use crate::stats::RunResults;
use crate::system::{Host, LinuxHost};
use crate::{Error, engine, events, output, run};

/// `--nice`, `--mem-policy` and `--lock-memory`, set on the whole process (and the `--flow`
/// file judged) before a run, a dry run or a layout
/// starts any thread; the locked memory is held for as long as what is returned lives.
fn claim_process(profile: &Profile) -> Result<Option<crate::system::process::LockedMemory>, Error> {
    if !matches!(
        profile.action,
        Action::Run | Action::DryRun | Action::CreateOnly
    ) {
        return Ok(None);
    }
    let invalid = crate::profile::ProfileError::Invalid;
    if let Some(nice) = profile.nice {
        crate::system::process::set_nice(nice).map_err(invalid)?;
    }
    if let Some(flow) = &profile.flow {
        crate::worker::flow::FlowGroup::check(&flow.file).map_err(invalid)?;
    }
    if let Some(policy) = &profile.mem_policy {
        crate::system::process::set_mem_policy(policy).map_err(invalid)?;
    }
    let Some(bytes) = profile.lock_memory_bytes else {
        return Ok(None);
    };
    let available = LinuxHost.memory_available();
    let locked = crate::system::process::LockedMemory::lock(bytes, available.as_ref());
    Ok(Some(locked.map_err(invalid)?))
}

/// Does what the profile asks — print the profile or the system, set an event, or measure — and
/// returns the exit status. In a run across hosts every rank measures and rank 0 reports.
pub fn act(profile: &Profile, warnings: Vec<String>, cluster: &Cluster) -> Result<u8, Error> {
    if profile.action != Action::Run {
        for warning in &warnings {
            say(warning);
        }
    }
    if matches!(
        profile.action,
        Action::Run | Action::DryRun | Action::CreateOnly
    ) && !profile.cpu_set.is_empty()
    {
        crate::system::restrict_cpus(&profile.cpu_set)
            .map_err(crate::profile::ProfileError::Invalid)?;
    }
    let _locked = claim_process(profile)?;
    let host = LinuxHost;
    let printed = match &profile.action {
        Action::Run => return measure(profile, warnings, cluster),
        Action::DryRun => return dry_run(profile, warnings, cluster),
        Action::CreateOnly => return create_only(profile, warnings, cluster),
        Action::PrintProfile => out(&report::profile_document(
            profile,
            &host.system_info(),
            profile.result_format,
        )),
        Action::PrintSystem => out(&report::system_document(
            &host.system_info(),
            host.wall_clock(),
            profile.result_format,
        )),
        Action::SetEvent(name) => {
            events::set(name).map_err(|source| run::RunError::Event {
                name: name.clone(),
                path: events::path(name),
                source,
            })?;
            // DiskSpd's -ye: set the event, say so, and exit with 1.
            let _ = out(&format!(
                "Successfully set event: '{name}'\nNow exiting...\n"
            ));
            return Ok(EXIT_RUN_ERROR);
        }
    };
    match printed {
        Ok(()) => Ok(0),
        Err(error) => {
            say(&format!("iospd: cannot write to standard output: {error}"));
            Ok(EXIT_RUN_ERROR)
        }
    }
}

/// `--dry-run`: the checks of [`measure`] up to the point where it would create its first file,
/// then one line that says the run could start.
fn dry_run(template: &Profile, warnings: Vec<String>, cluster: &Cluster) -> Result<u8, Error> {
    let (engine, fallback) = engine::usable(template.engine);
    let profile = &cluster.prepare(template).map_err(run::RunError::Refused)?;
    let mut cleared = crate::safety::check(profile, &LinuxView)?;
    // --metrics: its address must be free (the server is stopped again at once).
    drop(serve_metrics(profile, template, cluster)?);
    let said = run::dry_run(profile, &mut cleared, engine, &LinuxHost)?;
    for line in fallback.iter().chain(&warnings).chain(&said) {
        say(line);
    }
    say(
        "iospd: --dry-run: every check passed; the run could start (nothing was created or written)",
    );
    Ok(0)
}

/// `--create-only`: the checks of [`measure`], then its files laid out, and nothing measured.
fn create_only(template: &Profile, warnings: Vec<String>, cluster: &Cluster) -> Result<u8, Error> {
    let (engine, fallback) = engine::usable(template.engine);
    run::install_stop_signals();
    crate::system::raise_open_file_limit();
    let profile = &cluster.prepare(template).map_err(run::RunError::Refused)?;
    let mut cleared = crate::safety::check(profile, &LinuxView)?;
    for line in fallback.iter().chain(&warnings) {
        say(line);
    }
    let said = run::create_only(profile, &mut cleared, engine, &LinuxHost, &run::STOP)?;
    for line in &said {
        say(line);
    }
    // -Rjson: a report of the profile and the machine with no timespan measured, for what reads
    // iospd's JSON (`iospd fio`'s create_only job has fio's entry of zeros).
    if profile.result_format == crate::profile::ResultFormat::Json {
        let nothing = crate::stats::RunResults {
            timespans: Vec::new(),
            aborted: None,
            unsaved: None,
        };
        let report = Report::new(profile, &LinuxHost.system_info(), &nothing);
        if let Err(error) = out(&report.render(crate::profile::ResultFormat::Json)) {
            say(&format!("iospd: cannot write to standard output: {error}"));
            return Ok(EXIT_RUN_ERROR);
        }
    }
    Ok(0)
}

/// Runs a profile whose action is a measurement; returns the exit status.
fn measure(template: &Profile, warnings: Vec<String>, cluster: &Cluster) -> Result<u8, Error> {
    let (engine, fallback) = engine::usable(template.engine);
    if let Some(notice) = fallback {
        say(&notice);
    }
    run::install_stop_signals();
    crate::system::raise_open_file_limit();
    let host = LinuxHost;
    // Until the ranks have agreed on the checks, a refusal here is theirs to hear.
    let refuse = |error: Error| -> Error {
        run::RunError::Refused(cluster.refuse(run::Refusal {
            code: error.exit_code(),
            message: error.to_string(),
        }))
        .into()
    };
    let profile = &cluster
        .prepare(template)
        .map_err(|r| refuse(run::RunError::Refused(r).into()))?;
    let mut cleared = crate::safety::check(profile, &LinuxView).map_err(|e| refuse(e.into()))?;
    let served = serve_metrics(profile, template, cluster).map_err(refuse)?;
    let reports = Rc::new(RefCell::new(std::mem::take(&mut cleared.outputs.reports)));
    // Rank 0 of a run across ranks: what it can save when the ranks cannot end together.
    cluster.last_words({
        let (reports, profile) = (reports.clone(), profile.clone());
        Box::new(move |so_far: &RunResults, why: &str, giving_up: bool| {
            let report =
                Report::new(&profile, &host.system_info(), so_far).cut_short(why.to_string());
            for error in output::write_reports(&report, &mut reports.borrow_mut()) {
                say(&format!("iospd: {error}"));
            }
            // Standard output gets one report: this one only when the run is given up.
            if giving_up && reports.borrow().is_empty() {
                let _ = out_by(|to| report.write(profile.result_format, to));
            }
            if giving_up {
                say("iospd: rank 0 wrote its own results, marked partial, before the run was given up");
            }
        })
    });
    let log = |line: &str| {
        if profile.verbose {
            let _ = out(&format!(
                "{}: {line}\n",
                crate::wall::local_stamp(std::time::SystemTime::now())
            ));
        }
    };
    let said: RefCell<Vec<PathBuf>> = RefCell::new(Vec::new());
    let checkpoint = |so_far: &RunResults| {
        let report = Report::new(profile, &host.system_info(), so_far).checkpoint();
        for error in output::write_reports(&report, &mut reports.borrow_mut()) {
            let mut said = said.borrow_mut();
            if !said.contains(&error.path) {
                say(&format!("iospd: checkpoint not written: {error}"));
                said.push(error.path);
            }
        }
    };
    let results = run::measure(
        profile,
        &mut cleared,
        run::Context {
            engine,
            clock: &Monotonic,
            host: &host,
            stop: &run::STOP,
            messages: run::Messages {
                pending: warnings,
                warn: &|w| say(w),
                log: &log,
                checkpoint: &checkpoint,
            },
            peers: cluster,
            metrics: served.as_ref().map(|(metrics, _)| metrics),
        },
    )?;
    if let Some((metrics, _)) = &served {
        // Rank 0 takes in the other ranks' last numbers, which came with their end.
        run::Peers::share(cluster, metrics, true);
        metrics.set_phase(Phase::Done);
    }
    let report = Report::new(profile, &host.system_info(), &results);
    let (mut code, mut lines) = run::ending(profile, &results);
    // A sweep that stopped early reports the points that finished and fails: with a signal's
    // own status (128 + its number) when a signal stopped it, wherever in a point it came (a
    // single run a signal stops before its window fails, having measured nothing).
    if let Some(stopped) = report.sweep.as_ref().and_then(|s| s.stopped_at()) {
        lines.push(format!("iospd: {stopped}; the report above holds those"));
        code = match run::STOP_SIGNAL.load(std::sync::atomic::Ordering::SeqCst) {
            0 => code.max(EXIT_RUN_ERROR),
            signal => crate::exit::interrupted_status(signal),
        };
    }
    let finished = cluster
        .finish(template, report, code, lines)
        .map_err(|why| {
            run::RunError::Refused(run::Refusal {
                code: EXIT_RUN_ERROR,
                message: format!("the ranks' results cannot be merged: {why}"),
            })
        })?;
    let Some(Finished {
        report,
        code,
        lines,
    }) = finished
    else {
        // Rank 0 speaks for this rank.
        return Ok(code);
    };
    let mut unwritten = false;
    for error in output::write_reports(&report, &mut reports.borrow_mut()) {
        say(&format!("iospd: {error}"));
        unwritten = true;
    }
    if let Err(error) = out_by(|to| report.write(profile.result_format, to)) {
        say(&format!(
            "iospd: cannot write the report to standard output: {error}"
        ));
        unwritten = true;
    }
    for line in lines {
        say(&line);
    }
    if let Some((_, Some(server))) = served {
        server.finish(say);
    }
    // A report that could not be written is a failure, and a failure outranks a signal's status.
    Ok(if unwritten { EXIT_RUN_ERROR } else { code })
}

/// `--metrics`: the live numbers, and the endpoint, listening before anything is written. Every
/// rank keeps its numbers; rank 0 serves them with every other rank's added (see
/// [`crate::run::Peers::share`]).
fn serve_metrics(
    profile: &Profile,
    template: &Profile,
    cluster: &Cluster,
) -> Result<Option<(Metrics, Option<Server>)>, Error> {
    let Some(address) = profile.observe.metrics else {
        return Ok(None);
    };
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let who = cluster.whoami();
    let metrics = Metrics::new(
        RunInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            command: profile.command_line.clone(),
            run_id: format!("{}-{}-{}", who.host, std::process::id(), started.as_secs()),
            host: who.host.clone(),
        },
        who.ranks,
        template
            .timespans
            .iter()
            .map(|t| {
                t.targets
                    .iter()
                    .map(|t| t.path.display().to_string())
                    .collect()
            })
            .collect(),
    );
    if !cluster.leads() {
        return Ok(Some((metrics, None)));
    }
    let server = Server::start(address, metrics.clone()).map_err(|e| {
        run::RunError::Refused(run::Refusal {
            code: crate::exit::EXIT_BAD_INPUT,
            message: format!(
                "--metrics: cannot listen on {address}: {e}; name a free port (ss -ltn lists those in use) or an address of this host"
            ),
        })
    })?;
    Ok(Some((metrics, Some(server))))
}
