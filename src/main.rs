//! iospd: parse, dispatch, and map errors to DiskSpd's exit codes (0 success, 1 run error, 3 bad
//! input); everything else is in the library.

use std::ffi::OsString;
use std::process::ExitCode;

use iospd::cli::{self, CliError, Command};
use iospd::cluster::Cluster;
use iospd::commands::Route;
use iospd::console::{out, say};
use iospd::run::Refusal;
use iospd::{EXIT_BAD_INPUT, Error, profile, session};

fn main() -> ExitCode {
    iospd::answer_stop_signals();
    let argv: Vec<OsString> = std::env::args_os().collect();
    let route = iospd::commands::route(&argv[1..]);
    let code = match route {
        Route::Tool => match iospd::commands::dispatch(&argv[1..]) {
            Ok(code) => code,
            Err(error) => {
                say(&format!("iospd: {error}"));
                error.exit_code()
            }
        },
        Route::Sweep | Route::Replay | Route::Run => {
            let cluster = Cluster::join();
            match app(route, &argv, &cluster) {
                Ok(code) => code,
                Err(Error::Cli(CliError::NoArguments)) => {
                    let _ = out(&iospd::commands::help::usage());
                    EXIT_BAD_INPUT
                }
                Err(error) => {
                    // The other ranks of a run across hosts hear of it, if they have not yet.
                    let refusal = cluster.refuse(Refusal {
                        code: error.exit_code(),
                        message: error.to_string(),
                    });
                    say(&format!("iospd: {refusal}"));
                    refusal.code
                }
            }
        }
    };
    ExitCode::from(code)
}

fn app(route: Route, argv: &[OsString], cluster: &Cluster) -> Result<u8, Error> {
    let command_line: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if route == Route::Replay {
        let rest: Vec<String> = command_line[2..].to_vec();
        let resolved = iospd::replay::command::resolve(&rest, command_line.join(" "))?;
        return session::act(&resolved.profile, resolved.warnings, cluster);
    }
    if route == Route::Sweep {
        let resolved = iospd::sweep::resolve(&argv[2..], command_line.join(" "))?;
        return session::act(&resolved.profile, resolved.warnings, cluster);
    }
    let raw = match cli::parse(&argv[1..])? {
        Command::Help => {
            let _ = out(&iospd::commands::help::usage());
            return Ok(0);
        }
        Command::Version => {
            let _ = out(&iospd::commands::help::version());
            return Ok(0);
        }
        Command::Completions(shell) => {
            return match iospd::commands::help::completions(&shell) {
                Some(script) => {
                    let _ = out(&script);
                    Ok(0)
                }
                None => Err(Error::Cli(CliError::BadOption {
                    token: format!("--completions={shell}"),
                    reason: "iospd writes completions for bash, zsh or fish; give one of them"
                        .into(),
                })),
            };
        }
        Command::Run(raw) => raw,
    };
    let resolved = profile::resolve(&raw, command_line.join(" "))?;
    session::act(&resolved.profile, resolved.warnings, cluster)
}
