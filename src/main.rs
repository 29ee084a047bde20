//! iospd: parse → resolve → run → report; errors are printed once and mapped to DiskSpd's exit
//! codes (0 success, 1 run error, 3 bad input).

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use iospd::cli::{self, CliError, Command};
use iospd::clock::Monotonic;
use iospd::engine::{self, EngineKind, Op};
use iospd::profile::{Action, CacheMode, Profile, Target};
use iospd::report::{self, Report, utc_string};
use iospd::stats::IoFailure;
use iospd::system::{Host, LinuxHost};
use iospd::{EXIT_BAD_INPUT, EXIT_RUN_ERROR, Error, events, output, profile, run};

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    if let Some(result) = iospd::commands::dispatch(&argv[1..]) {
        return match result {
            Ok(code) => ExitCode::from(code),
            Err(error) => {
                eprintln!("iospd: {error}");
                ExitCode::from(error.exit_code())
            }
        };
    }
    match app(&argv) {
        Ok(code) => ExitCode::from(code),
        Err(Error::Cli(CliError::NoArguments)) => {
            print!("{}", cli::help::usage());
            ExitCode::from(EXIT_BAD_INPUT)
        }
        Err(error) => {
            eprintln!("iospd: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

fn app(argv: &[OsString]) -> Result<u8, Error> {
    let raw = match cli::parse(&argv[1..])? {
        Command::Help => {
            print!("{}", cli::help::usage());
            return Ok(0);
        }
        Command::Run(raw) => raw,
    };
    let command_line: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let resolved = profile::resolve(&raw, command_line.join(" "))?;
    let profile = resolved.profile;
    if profile.action != Action::Run {
        for warning in &resolved.warnings {
            eprintln!("{warning}");
        }
    }
    let host = LinuxHost;
    match &profile.action {
        Action::PrintProfile => {
            print!(
                "{}",
                report::profile_document(&profile, profile.result_format)
            );
            return Ok(0);
        }
        Action::PrintSystem => {
            let now = host.wall_clock();
            print!(
                "{}",
                report::system_document(&host.system_info(), now, profile.result_format)
            );
            return Ok(0);
        }
        Action::SetEvent(name) => {
            events::set(name).map_err(|source| run::RunError::Event {
                name: name.clone(),
                path: events::path(name),
                source,
            })?;
            // DiskSpd's -ye: set the event, say so, and exit with 1.
            println!("Successfully set event: '{name}'\nNow exiting...");
            return Ok(EXIT_RUN_ERROR);
        }
        Action::Run => {}
    }
    let engine = usable_engine(profile.engine);
    run::install_stop_signals();
    let verbose = profile.verbose;
    let log = |line: &str| {
        if verbose {
            println!("{}: {line}", utc_string(std::time::SystemTime::now()));
            let _ = std::io::stdout().flush();
        }
    };
    let checkpoint_failed = std::cell::Cell::new(false);
    let checkpoint = |so_far: &iospd::stats::RunResults| {
        let report = Report::new(&profile, &host.system_info(), so_far);
        if let Err(error) = output::write_outputs(&report, &profile.outputs)
            && !checkpoint_failed.replace(true)
        {
            eprintln!("iospd: checkpoint not written: {error}");
        }
    };
    let results = run::measure(
        &profile,
        engine,
        &Monotonic,
        &host,
        &iospd::safety::LinuxView,
        &run::STOP,
        run::Messages {
            pending: resolved.warnings,
            warn: &|w| eprintln!("{w}"),
            log: &log,
            checkpoint: &checkpoint,
        },
    )?;
    let report = Report::new(&profile, &host.system_info(), &results);
    print!("{}", report.render(profile.result_format));
    let _ = std::io::stdout().flush();
    output::write_outputs(&report, &profile.outputs)?;
    finish(&profile, &results)
}

/// The exit status and the closing remark after the report is out.
fn finish(profile: &Profile, results: &iospd::stats::RunResults) -> Result<u8, Error> {
    let Some((index, last)) = results.timespans.iter().enumerate().next_back() else {
        return Ok(0);
    };
    if let Some(failure) = &last.failure {
        let target = &profile.timespans[index].targets[failure.target];
        eprintln!("iospd: {}", describe_failure(failure, target));
        return Ok(EXIT_RUN_ERROR);
    }
    if let Some(lost) = &last.lost {
        let target = &profile.timespans[index].targets[lost.target];
        eprintln!(
            "iospd: '{}' {}; the run stopped and the results above cover the time before that",
            target.path.display(),
            lost.what
        );
        return Ok(EXIT_RUN_ERROR);
    }
    if last.window.is_none() {
        eprintln!("iospd: interrupted before the measured window began; no results");
        return Ok(EXIT_RUN_ERROR);
    }
    if run::STOP.load(Ordering::SeqCst) != 0 || last.interrupted {
        eprintln!(
            "iospd: interrupted; the results cover the measured window up to the interruption"
        );
    }
    Ok(0)
}

/// Chooses io_uring when the kernel allows it, psync otherwise, and says why in one line.
fn usable_engine(requested: EngineKind) -> EngineKind {
    if requested != EngineKind::IoUring {
        return requested;
    }
    match engine::probe_io_uring() {
        Ok(()) => EngineKind::IoUring,
        Err(error) => {
            let why = match error.raw_os_error() {
                Some(libc::ENOSYS) => "this kernel has no io_uring",
                Some(libc::EPERM) | Some(libc::EACCES) => {
                    "it is disabled (sysctl kernel.io_uring_disabled) or blocked by a seccomp filter"
                }
                _ => "it could not be set up",
            };
            eprintln!("iospd: io_uring is unavailable ({why}: {error}); using the psync engine");
            EngineKind::Psync
        }
    }
}

fn describe_failure(failure: &IoFailure, target: &Target) -> String {
    let what = if failure.result < 0 {
        let error = std::io::Error::from_raw_os_error(-failure.result);
        let mut text = error.to_string();
        if failure.result == -libc::EINVAL && target.cache == CacheMode::DisableOsCache {
            text.push_str(" (O_DIRECT needs offsets, sizes and buffers aligned to the device's logical block size)");
        }
        text
    } else {
        format!(
            "short transfer: {} of {} bytes (has the target shrunk?)",
            failure.result, failure.len
        )
    };
    let op = match failure.op {
        Op::Read => "read",
        Op::Write => "write",
    };
    format!(
        "{op} of {} bytes at offset {} on '{}' by thread {} failed: {what}; the run stopped and the results above cover the time before the failure",
        failure.len,
        failure.offset,
        target.path.display(),
        failure.thread
    )
}
