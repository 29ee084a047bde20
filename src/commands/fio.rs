//! `iospd fio <job file>…`: fio's job files run with iospd's engine. Each job becomes one iospd
//! command line (`crate::fiojob`); `-Rp` prints them (one line per job, starting with `iospd`) and
//! runs nothing. Otherwise the jobs run as fio runs them: the jobs of a group together, each its
//! own iospd process, and the groups one after the other (`stonewall`); each job's report is
//! printed in the format `-R` asks for, in the order of the file. A job iospd cannot run exactly
//! is refused with the option, the job, the file and line and iospd's closest option, and then
//! nothing runs; nor does anything run when a translated job fails a check its run would make
//! (each is run with `--dry-run` first). All refusals are said in one line. A job that fails as it
//! runs leaves the other jobs' results.

use super::ToolError;
use super::child::{Child, MAX_CHILDREN};
use super::fio_files::{
    absent_targets, check_outputs, laid_out_first, other_schedulers, remove_made, write_logs,
};
use super::fio_json::FioOutput;
use crate::fiojob::cmdline;
use crate::fiojob::origin::in_job_terms;
use crate::fiojob::read::{Context, Keywords, environment, read_files};
use crate::fiojob::translate::{Translation, translate};
use crate::profile::ResultFormat;

/// The usage line.
pub const USAGE: &str = "iospd fio [-Rp | -Rtext | -Rxml | -Rjson] [<fio option>…] [<job file>…]";

/// What fio's own options ask of the run besides its jobs.
#[derive(Debug, Default)]
struct RunOptions {
    /// `--output=<file>`: the reports go there instead of stdout.
    output: Option<std::path::PathBuf>,
    /// `--parse-only`: read and translate, run nothing, print nothing.
    parse_only: bool,
    /// `--showcmd`: print each job's command line (iospd's, as `-Rp`).
    show: bool,
    /// `--readonly`: refuse every job that writes or trims.
    readonly: bool,
    /// `--output-format=json|json+|terse` (`--minimal`): fio's results in fio's format.
    fio: Option<FioOutput>,
    /// `--version`, `--cmdhelp`, `--enghelp`: an answer printed instead of running jobs.
    answer: Option<String>,
}

/// fio 3.33, whose job files, command line and results `iospd fio` follows: `--version`'s
/// answer, so scripts that check fio's version go on.
const FIO_VERSION: &str = "fio-3.33";

/// fio's own options iospd fio refuses, with why and what to do instead.
const REFUSED_RUN_OPTIONS: [(&str, &str); 19] = [
    (
        "latency-log",
        "deprecated: fio 3.33 exits on it; give write_lat_log=<prefix> in the job",
    ),
    (
        "bandwidth-log",
        "fio's bandwidth log of every job: give write_bw_log=<prefix> in the job",
    ),
    (
        "append-terse",
        "normal and terse output together: iospd fio writes one format at a time; give --output-format=terse",
    ),
    (
        "inflate-log",
        "fio's compressed logs: iospd writes its logs as text",
    ),
    (
        "profile",
        "fio's built-in workloads (tiobench, act): write the jobs out as a job file",
    ),
    (
        "server",
        "fio's client/server mode: iospd runs the jobs on this host (run it on each host, or across hosts under MPI)",
    ),
    (
        "server-internal",
        "fio's client/server mode: iospd runs the jobs on this host",
    ),
    (
        "daemonize",
        "fio's client/server mode: iospd runs the jobs on this host",
    ),
    (
        "client",
        "fio's client/server mode: iospd runs the jobs on this host (run it on each host, or across hosts under MPI)",
    ),
    (
        "remote-config",
        "fio's client/server mode: iospd runs the jobs on this host",
    ),
    (
        "cpuclock-test",
        "fio's test of its CPU clock: iospd times I/O with the kernel's monotonic clock",
    ),
    ("crctest", "fio's checksum speed test: iospd has none"),
    ("memcpytest", "fio's memcpy speed test: iospd has none"),
    (
        "idle-prof",
        "fio's CPU idleness profile (spinning threads at the lowest priority): iospd's report gives the CPUs' use over the run from the kernel's counters",
    ),
    (
        "trigger-file",
        "a command fio runs on a trigger, which iospd never does",
    ),
    (
        "trigger-timeout",
        "a command fio runs on a trigger, which iospd never does",
    ),
    (
        "trigger",
        "a command fio runs on a trigger, which iospd never does",
    ),
    (
        "trigger-remote",
        "a command fio runs on a trigger, which iospd never does",
    ),
    (
        "merge-blktrace-only",
        "fio's merge of blktrace files: iospd replay reads a trace as it is",
    ),
];

/// fio's `--output-format` (or `--minimal`) as iospd's format, and the other run options.
fn run_options(
    given: &[(String, Option<String>)],
    format: Option<ResultFormat>,
) -> Result<(Option<ResultFormat>, RunOptions), ToolError> {
    let mut options = RunOptions::default();
    let mut chosen = format;
    let mut terse_version = None;
    for (name, value) in given {
        let value = value.as_deref().unwrap_or("");
        let fio_format = match name.as_str() {
            "output-format" => Some(value),
            "minimal" => Some("terse"),
            "output" => {
                options.output = Some(value.into());
                None
            }
            "parse-only" => {
                options.parse_only = true;
                None
            }
            "showcmd" => {
                options.show = true;
                None
            }
            "readonly" => {
                options.readonly = true;
                None
            }
            "terse-version" => {
                let version = value
                    .parse()
                    .ok()
                    .filter(|v| crate::report::render::fio_terse::VERSIONS.contains(v));
                terse_version = Some(version.ok_or_else(|| {
                    ToolError::Usage(format!(
                        "--terse-version={value}: fio's terse versions are 2, 3, 4 and 5"
                    ))
                })?);
                None
            }
            "version" => {
                options.answer = Some(FIO_VERSION.to_string());
                None
            }
            "cmdhelp" => {
                options.answer = Some(cmdhelp(value));
                None
            }
            "enghelp" => {
                options.answer = Some(match value {
                    "" => crate::fiojob::ENGINES.join("\n"),
                    engine => crate::fiojob::describe_engine(engine),
                });
                None
            }
            "aux-path" => {
                return Err(ToolError::Usage(format!(
                    "--aux-path={value}: where fio keeps its own files (verify state): iospd's are named in each job's line (-Rp shows them); remove --aux-path"
                )));
            }
            other => {
                if let Some((_, why)) = REFUSED_RUN_OPTIONS.iter().find(|(n, _)| *n == other) {
                    return Err(ToolError::Usage(format!("--{other}: {why}")));
                }
                // The progress line shows the run on a terminal; fio's status, debug and memory
                // options change nothing that is measured.
                None
            }
        };
        let Some(fio_format) = fio_format else {
            continue;
        };
        let format = match fio_format {
            "normal" => ResultFormat::Text,
            "json" | "json+" | "terse" => {
                let asked = match fio_format {
                    "terse" => FioOutput::Terse(3),
                    _ => FioOutput::Json {
                        plus: fio_format == "json+",
                    },
                };
                if options.fio.is_some_and(|given| given != asked) {
                    return Err(ToolError::Usage(format!(
                        "--{name} asks for fio's {fio_format} output after another of fio's formats; give one"
                    )));
                }
                options.fio = Some(asked);
                continue;
            }
            other if other.contains(',') => {
                return Err(ToolError::Usage(format!(
                    "--output-format={other}: iospd fio writes one format at a time; give one of normal, json or json+"
                )));
            }
            other => {
                return Err(ToolError::Usage(format!(
                    "--output-format={other} is not one of fio's formats (normal, json, json+, terse); use --output-format=normal, json or json+"
                )));
            }
        };
        if chosen.is_some_and(|c| c != format) {
            return Err(ToolError::Usage(format!(
                "--{name} and -R ask for different formats; give one"
            )));
        }
        chosen = Some(format);
    }
    if options.fio.is_some() && chosen.is_some() {
        return Err(ToolError::Usage(
            "--output-format=json or terse (fio's formats) and -R or --output-format=normal ask for different formats; give one".into(),
        ));
    }
    if let Some(version) = terse_version {
        match &mut options.fio {
            Some(FioOutput::Terse(v)) => *v = version,
            _ => {
                return Err(ToolError::Usage(
                    "--terse-version: fio's terse output is not asked for; add --minimal or --output-format=terse".into(),
                ));
            }
        }
    }
    Ok((chosen, options))
}

/// `--cmdhelp[=<option>]`: what iospd fio does with one fio option, or with every one.
fn cmdhelp(option: &str) -> String {
    match option {
        "" | "all" => crate::fiojob::options::document().trim_end().to_string(),
        _ => crate::fiojob::options::describe(option).unwrap_or_else(|| {
            format!("{option}: in no table of iospd fio's: a job that sets it is refused")
        }),
    }
}

/// Runs `iospd fio <args>`.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let mut print = false;
    let mut formats = Vec::new();
    let mut fio_args = Vec::new();
    for arg in args {
        match arg.as_str() {
            "-Rp" | "-Rptext" => print = true,
            a if a.starts_with("-R") => formats.push(arg.clone()),
            a if a.starts_with('-') && !a.starts_with("--") && a != "-" => {
                return Err(ToolError::Usage(format!(
                    "'{a}' is not an option of iospd fio (fio's options are --name=value); usage: {USAGE}"
                )));
            }
            _ => fio_args.push(arg.clone()),
        }
    }
    let (format, _) = super::report::format_of(&formats, None, USAGE)?;
    let context = Context {
        env: &environment,
        keywords: Keywords::here(),
    };
    let line = cmdline::read(&fio_args, &context).map_err(|e| ToolError::Usage(e.to_string()))?;
    let (format, options) = run_options(&line.run, format)?;
    if let Some(answer) = &options.answer {
        super::print(&format!("{answer}\n"))?;
        return Ok(0);
    }
    let format = format.unwrap_or(ResultFormat::Text);
    print |= options.show;
    if line.files.is_empty() && line.jobs.is_empty() {
        return Err(ToolError::Usage(format!(
            "give a job file or a job (--name=<job> and its options); usage: {USAGE}"
        )));
    }
    let paths: Vec<std::path::PathBuf> = line.files.iter().map(Into::into).collect();
    let mut jobs = line.jobs.clone();
    jobs.extend(
        read_files(&paths, &line.defaults, &context)
            .map_err(|e| ToolError::Usage(e.to_string()))?,
    );
    if !line.sections.is_empty() {
        jobs.retain(|j| line.sections.contains(&j.name));
    }
    for (number, job) in jobs.iter_mut().enumerate() {
        job.number = number;
    }
    if jobs.is_empty() {
        let what = match line.sections.is_empty() {
            true => "no job (only [global] sections); add a [job] section or --name=<job>".into(),
            false => format!("no job is named {}", line.sections.join(" or ")),
        };
        return Err(ToolError::Usage(match line.files.is_empty() {
            true => what,
            false => format!("{}: {what}", line.files.join(", ")),
        }));
    }
    let results = translate(&jobs);
    let mut refusals = Vec::new();
    let mut lines = Vec::new();
    for (job, result) in jobs.iter().zip(&results) {
        match result {
            Ok(clones) => lines.extend(clones.iter().map(|t| (job, t))),
            Err(refusal) => refusals.push(refusal.to_string()),
        }
    }
    if print && !options.parse_only {
        let text: String = lines.iter().map(|(_, t)| t.line() + "\n").collect();
        super::print(&text)?;
    }
    if !refusals.is_empty() {
        return Err(ToolError::Usage(listed(
            &refusals,
            results.len(),
            "refused",
            "fix or remove them",
        )));
    }
    // What the translations say, once nothing is refused (a refusal is one line alone).
    // Once per job (clones that run apart say the same).
    let mut said = std::collections::BTreeSet::new();
    for (job, t) in &lines {
        if !said.insert(job.number) {
            continue;
        }
        for note in &t.notes {
            crate::console::say(&format!("note: job '{}': {note}", t.job));
        }
    }
    if options.readonly
        && let Some((job, t)) = lines.iter().find(|(_, t)| writes(&t.args))
    {
        return Err(ToolError::Usage(format!(
            "{}: job '{}' writes, and --readonly allows no write or trim; remove --readonly or the job",
            job.place, t.job
        )));
    }
    if print || options.parse_only {
        return Ok(0);
    }
    // The files iospd fio writes are judged before anything runs.
    check_outputs(options.output.as_deref(), &lines, &paths)?;
    let runner = Child::this()?;
    // Every job passes the checks its run makes before any job starts: a job file does not run
    // part of itself.
    let mut unfit = Vec::new();
    for (job, t) in &lines {
        for why in other_schedulers(t) {
            unfit.push(format!("{}: job '{}': {why}", job.place, t.job));
        }
        match runner.check(&t.args) {
            Ok(()) => {}
            Err(ToolError::Failed { why, .. }) => unfit.push(format!(
                "{}: job '{}': {}",
                job.place,
                t.job,
                in_job_terms(job, super::child::last_words(&why))
            )),
            Err(other) => return Err(other),
        }
    }
    if !unfit.is_empty() {
        return Err(ToolError::Usage(listed(
            &unfit,
            results.len(),
            "cannot run as translated (iospd fio -Rp shows the command lines)",
            "fix or remove them",
        )));
    }
    let groups = lines.last().map_or(0, |(_, t)| t.group + 1);
    // flow: the jobs' flow files, in a directory of this run's own, removed with it.
    let flows = FlowFiles::new(
        lines
            .iter()
            .any(|(_, t)| t.args.iter().any(|a| a.starts_with("--flow="))),
    )?;
    let mut kept = Results {
        format,
        fio: options.fio,
        rendered: Vec::new(),
        reports: Vec::new(),
    };
    let mut failed = Vec::new();
    // What a stop did: jobs it cut short (their windows kept), jobs it stopped before their
    // measured window began.
    let (mut cut, mut unmeasured) = (Vec::new(), Vec::new());
    let mut ran = 0;
    for group in 0..groups {
        if super::child::stopped().is_some() {
            break;
        }
        let members: Vec<&(&crate::fiojob::Job, &Translation)> =
            lines.iter().filter(|(_, t)| t.group == group).collect();
        if members.len() > MAX_CHILDREN {
            return Err(ToolError::Usage(format!(
                "a group of {} jobs runs together; iospd runs at most {MAX_CHILDREN} at once (add stonewall)",
                members.len()
            )));
        }
        // `unlink`: what the group's run makes of its jobs' files is removed after it.
        let made: Vec<std::path::PathBuf> = members
            .iter()
            .filter(|(_, t)| t.unlink)
            .flat_map(|(_, t)| absent_targets(t))
            .collect();
        // Files two jobs of the group share are laid out before either starts.
        let translations: Vec<&Translation> = members.iter().map(|(_, t)| *t).collect();
        for i in laid_out_first(&translations) {
            let (job, t) = members[i];
            if let Err(error) = runner.create_only(&t.args) {
                kept.print(options.output.as_deref())?;
                return Err(match error {
                    ToolError::Failed { line, code, why } => ToolError::Failed {
                        line,
                        code,
                        why: format!(
                            "{}: job '{}': its files cannot be laid out: {}",
                            job.place,
                            t.job,
                            in_job_terms(job, super::child::last_words(&why))
                        ),
                    },
                    other => other,
                });
            }
        }
        type Kept = Result<super::child::Kept, ToolError>;
        super::child::begin_group();
        let unfinished = Unfinished::new(members.iter().map(|(_, t)| t.job.clone()).collect());
        let reports: Vec<Kept> = std::thread::scope(|scope| {
            let handles: Vec<_> = members
                .iter()
                .map(|(_, t)| {
                    let mut args = flows.placed(&t.args, &translations);
                    let at = usize::from(args.first().is_some_and(|a| a == "replay"));
                    args.insert(at, "-Rjson".into());
                    // fio's bandwidth and IOPS samples: one per 500 ms (its bw_avg_time).
                    if options.fio.is_some() && at == 0 && !args.iter().any(|a| a.starts_with("-D"))
                    {
                        args.insert(1, "-D500".into());
                    }
                    let (runner, unfinished) = (&runner, &unfinished);
                    let (delay, exit, on_error) = (t.start_delay_ms, t.exit, t.exit_on_error);
                    scope.spawn(move || {
                        super::child::pause(std::time::Duration::from_millis(delay));
                        if let Some(waitee) = &t.wait_for {
                            unfinished.wait(waitee, &t.job);
                        }
                        let report = match &t.latency {
                            Some(search) => super::fio_latency::run(runner, &args, search, &t.job),
                            None => runner.report_kept(&args),
                        };
                        unfinished.finish(&t.job);
                        // exitall: the job's end ends the others of its group;
                        // exitall_on_error: its failure does.
                        let failed = matches!(
                            report,
                            Err(ToolError::Failed { .. }) | Ok(super::child::Kept::Failed { .. })
                        );
                        if (exit.is_some() || (on_error && failed)) && !super::child::group_ended()
                        {
                            super::child::end_group();
                        }
                        report
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a job's thread panicked"))
                .collect()
        });
        ran += members.len();
        let ended = super::child::group_ended() && super::child::stopped().is_none();
        let (cut_before, unmeasured_before) = (cut.len(), unmeasured.len());
        // The jobs whose failure ends everything (exitall_on_error).
        let mut errored = Vec::new();
        for ((job, t), report) in members.iter().zip(reports) {
            // A job that fails as it runs leaves the others' results: they are printed, and the
            // failure is said after them.
            let report = match report {
                // A job a failed I/O stopped: its results up to then, with the error, as fio
                // reports it; the failure is said after every job's results.
                Ok(super::child::Kept::Failed { report, code, why }) => {
                    if t.exit_on_error {
                        errored.push(format!("'{}' (exitall_on_error)", t.job));
                    }
                    failed.push((code, failed_job(job, t, &why)));
                    report
                }
                Ok(super::child::Kept::Cut(report, _)) => {
                    cut.push(format!("'{}'", t.job));
                    report
                }
                Ok(super::child::Kept::Ran(report)) => {
                    if let Some(state) = &t.read_back {
                        match read_back(&runner, job, t, state) {
                            Ok(()) => {}
                            Err(ToolError::Failed { code, why, .. }) => failed.push((code, why)),
                            Err(ToolError::Interrupted { .. }) => {}
                            Err(other) => {
                                kept.print(options.output.as_deref())?;
                                return Err(other);
                            }
                        }
                    }
                    report
                }
                Err(ToolError::Interrupted { .. }) => {
                    unmeasured.push(format!("'{}'", t.job));
                    continue;
                }
                Err(ToolError::Failed { why, code, .. }) => {
                    if t.exit_on_error {
                        errored.push(format!("'{}' (exitall_on_error)", t.job));
                    }
                    failed.push((code, failed_job(job, t, &why)));
                    continue;
                }
                Err(other) => {
                    kept.print(options.output.as_deref())?;
                    return Err(other);
                }
            };
            write_logs(&report, &t.logs)?;
            kept.add(job, t, report);
        }
        for note in remove_made(&made) {
            crate::console::say(&note);
        }
        if ended {
            // What exitall ended is fio's normal course, not a stop: said, and the run goes on.
            let mut by: Vec<String> = members
                .iter()
                .filter(|(_, t)| t.exit.is_some())
                .map(|(_, t)| format!("'{}'", t.job))
                .collect();
            by.extend(errored.iter().cloned());
            let all = !errored.is_empty()
                || members
                    .iter()
                    .any(|(_, t)| t.exit == Some(crate::fiojob::translate::ExitScope::All));
            let later = lines.len() - ran;
            let mut note = format!("iospd: exitall: {} ended its group", by.join(" or "));
            let cut_now: Vec<String> = cut.drain(cut_before..).collect();
            let unmeasured_now: Vec<String> = unmeasured.drain(unmeasured_before..).collect();
            if !cut_now.is_empty() {
                note.push_str(&format!(
                    "; {} cut short (results up to then)",
                    cut_now.join(", ")
                ));
            }
            if !unmeasured_now.is_empty() {
                note.push_str(&format!(
                    "; {} stopped before measuring (no results)",
                    unmeasured_now.join(", ")
                ));
            }
            if all && later > 0 {
                note.push_str(&format!(
                    "; {later} later job{} not run",
                    if later == 1 { "" } else { "s" }
                ));
            }
            if !cut_now.is_empty() || !unmeasured_now.is_empty() || (all && later > 0) {
                crate::console::say(&note);
            }
            if all {
                break;
            }
        }
    }
    kept.print(options.output.as_deref())?;
    if let Some(signal) = super::child::stopped() {
        crate::console::say(&format!(
            "iospd: {}",
            stopped_jobs(signal, &cut, &unmeasured, lines.len() - ran)
        ));
    }
    if failed.is_empty() {
        return Ok(super::child::stopped().map_or(0, super::child::interrupted_status));
    }
    let code = failed.iter().map(|(c, _)| *c).max().unwrap_or(1);
    let said: Vec<String> = failed.into_iter().map(|(_, s)| s).collect();
    crate::console::say(&format!(
        "iospd: {}",
        listed(
            &said,
            results.len(),
            "failed",
            "the others' results are above"
        )
    ));
    Ok(super::child::stopped().map_or(
        code.max(crate::EXIT_RUN_ERROR),
        super::child::interrupted_status,
    ))
}

/// One line for what a stop by `signal` did: the jobs it `cut` short (their results above cover
/// their measured windows up to it), those it stopped before their window began, and how many
/// it kept from starting.
/// The jobs of a group that have not finished, by name: `wait_for` holds a job back until every
/// job of the name it gives has.
struct Unfinished {
    left: std::sync::Mutex<Vec<String>>,
    changed: std::sync::Condvar,
}

impl Unfinished {
    fn new(names: Vec<String>) -> Self {
        Unfinished {
            left: std::sync::Mutex::new(names),
            changed: std::sync::Condvar::new(),
        }
    }

    /// One job of this name has finished.
    fn finish(&self, name: &str) {
        let mut left = self.left.lock().expect("a job's thread panicked");
        if let Some(i) = left.iter().position(|n| n == name) {
            left.remove(i);
        }
        self.changed.notify_all();
    }

    /// Waits until no job named `waitee` (other than `me`'s clones, as fio skips its own name)
    /// is unfinished, or a stop or the group's end comes.
    fn wait(&self, waitee: &str, me: &str) {
        let mut left = self.left.lock().expect("a job's thread panicked");
        while waitee != me
            && left.iter().any(|n| n == waitee)
            && super::child::stopped().is_none()
            && !super::child::group_ended()
        {
            left = self
                .changed
                .wait_timeout(left, std::time::Duration::from_millis(50))
                .expect("a job's thread panicked")
                .0;
        }
    }
}

/// fio's read-back of what a verified job wrote: `iospd verify` of its `--verify-state` after
/// its run, said in one line; the state removed when every block is right, kept (and named) when
/// one is not.
/// A failed job as the summary names it: where it is, its name, and the child's last word in the
/// job's terms.
fn failed_job(job: &crate::fiojob::Job, t: &Translation, why: &str) -> String {
    format!(
        "{}: job '{}': {}",
        job.place,
        t.job,
        in_job_terms(job, super::child::last_words(why))
    )
}

fn read_back(
    runner: &Child,
    job: &crate::fiojob::Job,
    t: &Translation,
    state: &str,
) -> Result<(), ToolError> {
    match runner.verify(state) {
        Ok(said) => {
            crate::console::say(&format!(
                "iospd: job '{}': read back after its run: {said}",
                t.job
            ));
            let _ = std::fs::remove_file(state);
            Ok(())
        }
        Err(ToolError::Failed { line, code, why }) => Err(ToolError::Failed {
            line,
            code,
            why: format!(
                "{}: job '{}': read back after its run: {} (iospd verify --verify-state={state} shows each)",
                job.place,
                t.job,
                super::child::last_words(&why)
            ),
        }),
        Err(other) => Err(other),
    }
}

fn stopped_jobs(signal: i32, cut: &[String], unmeasured: &[String], not_started: usize) -> String {
    let name = super::child::signal_name(signal);
    let mut parts = Vec::new();
    if !cut.is_empty() {
        parts.push(format!(
            "cut {} short (the results above cover the measured window up to it)",
            cut.join(", ")
        ));
    }
    if !unmeasured.is_empty() {
        parts.push(format!(
            "stopped {} before its measured window began (no results)",
            unmeasured.join(", ")
        ));
    }
    if not_started > 0 {
        parts.push(format!(
            "kept {not_started} later job{} from starting",
            if not_started == 1 { "" } else { "s" }
        ));
    }
    match parts.is_empty() {
        true => format!("{name} came as the last job ended; every result is above"),
        false => format!("{name} {}", parts.join("; ")),
    }
}

/// The reports of the jobs that ran, kept until they are printed as one document.
struct Results<'a> {
    /// iospd's format (`-R`, `--output-format=normal`).
    format: ResultFormat,
    /// `--output-format=json|json+|terse`: fio's results instead.
    fio: Option<FioOutput>,
    /// Each job's name, command line and report in `format`.
    rendered: Vec<(String, String, String)>,
    /// Under `fio`: each job, its group and its report.
    reports: Vec<(&'a crate::fiojob::Job, usize, crate::report::Report)>,
}

impl<'a> Results<'a> {
    fn add(&mut self, job: &'a crate::fiojob::Job, t: &Translation, report: crate::report::Report) {
        match self.fio {
            Some(_) => self.reports.push((job, t.group, report)),
            None => self
                .rendered
                .push((t.job.clone(), t.line(), report.render(self.format))),
        }
    }

    /// The reports as one document on stdout or in fio's `--output` file (nothing when there
    /// are none).
    fn print(&self, output: Option<&std::path::Path>) -> Result<(), ToolError> {
        let text = match self.fio {
            _ if self.rendered.is_empty() && self.reports.is_empty() => return Ok(()),
            Some(output) => {
                let ran: Vec<_> = self.reports.iter().map(|(j, g, r)| (*j, *g, r)).collect();
                super::fio_json::render(&ran, output)
            }
            None => documents(self.format, &self.rendered),
        };
        write_document(&text, output)
    }
}

/// One document on stdout, or in fio's `--output` file.
fn write_document(text: &str, output: Option<&std::path::Path>) -> Result<(), ToolError> {
    let Some(path) = output else {
        return super::print(text);
    };
    let failed = |why: String| ToolError::Output {
        path: path.to_path_buf(),
        why,
    };
    crate::safety::place::Place::locate(path)
        .map_err(failed)?
        .replace_with(text.as_bytes())
        .map_err(|e| failed(e.to_string()))
}

/// Whether a translated job writes or trims (`-w` above 0, `--trim`).
fn writes(args: &[String]) -> bool {
    args.iter().any(|a| {
        a.starts_with("--trim")
            || a.strip_prefix("-w")
                .is_some_and(|w| w.parse::<u8>().is_ok_and(|w| w > 0))
    })
}

/// One line for several jobs: "2 of 3 jobs refused: <first> | <second>; fix or remove them".
fn listed(items: &[String], jobs: usize, what: &str, then: &str) -> String {
    let of = match jobs == items.len() {
        true => String::new(),
        false => format!(" of {jobs}"),
    };
    let noun = if jobs == 1 { "job" } else { "jobs" };
    format!(
        "{}{of} {noun} {what}: {}; {then}",
        items.len(),
        items.join(" | ")
    )
}

/// Every job's report as one document: text reports one after the other, each under the job's
/// name and command line; several JSON reports as an array; XML reports in one `<Jobs>` element.
fn documents(format: ResultFormat, reports: &[(String, String, String)]) -> String {
    match (format, reports) {
        (_, [(_, _, one)]) => one.clone(),
        (ResultFormat::Json, _) => format!(
            "[\n{}\n]\n",
            reports
                .iter()
                .map(|r| r.2.trim_end())
                .collect::<Vec<_>>()
                .join(",\n")
        ),
        (ResultFormat::Xml, _) => format!(
            "<Jobs>\n{}</Jobs>\n",
            reports
                .iter()
                .map(|r| r
                    .2
                    .trim_start_matches(|c| c != '<')
                    .replace("<?xml version=\"1.0\"?>", ""))
                .collect::<String>()
        ),
        _ => reports
            .iter()
            .map(|(job, line, text)| format!("\njob '{job}': {line}\n{text}"))
            .collect(),
    }
}

/// The directory `iospd fio` keeps its jobs' flow files in for the run (`flow`), removed when
/// this goes.
struct FlowFiles {
    dir: Option<std::path::PathBuf>,
}

impl FlowFiles {
    /// A new directory under the temporary directory, when `needed`.
    fn new(needed: bool) -> Result<Self, ToolError> {
        if !needed {
            return Ok(FlowFiles { dir: None });
        }
        let dir = std::env::temp_dir().join(format!("iospd-fio-flow-{}", std::process::id()));
        use std::os::unix::fs::DirBuilderExt as _;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| ToolError::Output {
                path: dir.clone(),
                why: format!("the jobs' flow files have nowhere to go ({e})"),
            })?;
        Ok(FlowFiles { dir: Some(dir) })
    }

    /// A job's arguments with its flow file in the directory, and the weights of every thread of
    /// its group's jobs on that file added (so that they start their flow together, as fio's
    /// jobs, started at once, do).
    fn placed(&self, args: &[String], group: &[&Translation]) -> Vec<String> {
        let prefix = format!("{}.", crate::fiojob::translate::FLOW_FILE);
        let flow_of = |args: &[String]| -> Option<(u32, String)> {
            let (weight, name) = args
                .iter()
                .find_map(|a| a.strip_prefix("--flow="))?
                .split_once(':')?;
            Some((weight.parse().ok()?, name.to_string()))
        };
        let Some(dir) = &self.dir else {
            return args.to_vec();
        };
        let Some((weight, name)) = flow_of(args).filter(|(_, n)| n.starts_with(&prefix)) else {
            return args.to_vec();
        };
        let total: u32 = group
            .iter()
            .filter_map(|t| {
                let (w, n) = flow_of(&t.args)?;
                (n == name).then(|| w.saturating_mul(threads_of(&t.args)))
            })
            .sum();
        args.iter()
            .map(|a| match a.starts_with("--flow=") {
                true => format!("--flow={weight}/{total}:{}", dir.join(&name).display()),
                false => a.clone(),
            })
            .collect()
    }
}

impl Drop for FlowFiles {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The threads an iospd command line runs: a `-F` pool's, or `-t` (1 unless given) for each
/// target (the arguments after the options).
fn threads_of(args: &[String]) -> u32 {
    let value = |prefix: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(prefix)?.parse::<u32>().ok())
    };
    if let Some(pool) = value("-F") {
        return pool;
    }
    let targets = args
        .iter()
        .rev()
        .take_while(|a| !a.starts_with('-'))
        .count() as u32;
    value("-t").unwrap_or(1).saturating_mul(targets.max(1))
}
