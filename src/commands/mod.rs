//! iospd's own subcommands, besides DiskSpd's command line: `trace-dump`, `merge`, `report` and
//! `compare` read files iospd wrote and write text, touching no target; `preset` runs named
//! suites of plain iospd command lines, each as its own iospd process.

pub mod child;
pub mod compare;
pub mod data_check;
pub mod fio;
pub mod fio_files;
pub mod fio_hist;
pub mod fio_json;
pub mod fio_latency;
pub mod help;
pub mod merge;
pub mod preset;
pub mod report;
pub mod slo;
pub mod trace_dump;
pub mod verify;

use std::ffi::OsString;
use std::path::PathBuf;

use thiserror::Error;

use crate::cli::line::Line;

/// A subcommand that cannot do its work.
#[derive(Debug, Error)]
pub enum ToolError {
    /// Wrong arguments.
    #[error("{0}")]
    Usage(String),
    /// An input file cannot be read or is not what it should be.
    #[error("cannot read '{path}': {why}")]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong, and the fix.
        why: String,
    },
    /// A child iospd run failed.
    #[error("'{line}' failed (exit {code}): {}", child::last_words(why))]
    Failed {
        /// Its command line.
        line: String,
        /// Its exit code.
        code: u8,
        /// What it said on stderr.
        why: String,
    },
    /// A signal stopped the suite while `line` ran, or before it started.
    #[error("interrupted by {} {} '{line}'", child::signal_name(*signal), if *started { "during" } else { "before" })]
    Interrupted {
        /// The signal.
        signal: i32,
        /// The command line it stopped, or the next one.
        line: String,
        /// Whether that command line had started.
        started: bool,
    },
    /// The output cannot be written.
    #[error("cannot write '{path}': {why}")]
    Output {
        /// The file ("standard output" for stdout).
        path: PathBuf,
        /// Why.
        why: String,
    },
}

impl ToolError {
    /// 3 for input the user can fix, 1 when writing failed.
    pub fn exit_code(&self) -> u8 {
        match self {
            ToolError::Usage(_) | ToolError::Input { .. } => crate::exit::EXIT_BAD_INPUT,
            ToolError::Output { .. } => crate::exit::EXIT_RUN_ERROR,
            ToolError::Failed { code, .. } => *code,
            ToolError::Interrupted { signal, .. } => child::interrupted_status(*signal),
        }
    }
}

/// What a command line asks for. [`route`] is the one place that reads the first argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// One of iospd's own commands (`report`, `merge`, `sweep --slo`, `help`, …): [`dispatch`].
    Tool,
    /// `sweep` without `--slo`: a run of one timespan per point, on the cluster.
    Sweep,
    /// `replay`: a run of a trace's I/O.
    Replay,
    /// DiskSpd's command line: a run, on the cluster.
    Run,
}

/// What `args` (the arguments after the program name) ask for.
pub fn route(args: &[OsString]) -> Route {
    let Some(first) = args.first().and_then(|a| a.to_str()) else {
        return Route::Run;
    };
    match first {
        // A sweep with a latency target searches, one child run per step; without one it is a
        // run of many timespans. Its help (`--help`, or `-h` alone) is the command's.
        "sweep" => {
            let rest: Vec<String> = args[1..]
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let help = rest.iter().any(|a| a == "--help") || rest == ["-h"];
            // A command line the lexer refuses goes to the run's parser, which says why.
            let searches = Line::lex(&rest).is_ok_and(|line| line.has("--slo"));
            if help || searches {
                Route::Tool
            } else {
                Route::Sweep
            }
        }
        "replay" if !args[1..].iter().any(|a| a == "--help") && args.len() > 1 => Route::Replay,
        name if help::is_command(name) => Route::Tool,
        _ => Route::Run,
    }
}

/// Runs the command [`route`] found to be a [`Route::Tool`].
pub fn dispatch(args: &[OsString]) -> Result<u8, ToolError> {
    let (name, rest) = args.split_first().expect("a routed command has a name");
    let rest: Vec<String> = rest
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let name = name.to_str().expect("a routed command's name is UTF-8");
    // `<command> --help` and `iospd help [command]`; `-h` too for the commands that read results
    // (the others take DiskSpd's options, where `-h` means `-Sh`).
    let file_tool = matches!(
        name,
        "report" | "merge" | "compare" | "trace-dump" | "data-check" | "fio"
    );
    if rest
        .iter()
        .any(|a| a == "--help" || (file_tool && a == "-h"))
        && let Some(text) = help::command_usage(name)
    {
        return say_out(&text);
    }
    // `-h` alone, where it would mean `-Sh`: nothing to run, so a request for help.
    if !file_tool && rest == ["-h"] && help::command_usage(name).is_some() {
        return Err(ToolError::Usage(format!(
            "'-h' is DiskSpd's old spelling of -Sh (no caching), and nothing else was given; for usage run iospd {name} --help"
        )));
    }
    match name {
        "help" => match rest.first() {
            None => say_out(&help::usage()),
            Some(command) => match help::command_usage(command) {
                Some(text) => say_out(&text),
                None => Err(ToolError::Usage(format!(
                    "there is no command '{command}'; iospd help lists them"
                ))),
            },
        },
        "trace-dump" => trace_dump::run(&rest),
        "report" => report::run(&rest),
        "merge" => merge::run(&rest),
        "compare" => compare::run(&rest),
        "preset" => preset::run(&rest),
        "verify" => verify::run(&rest),
        "data-check" => data_check::run(&rest),
        "sweep" => slo::run(&rest),
        "fio" => fio::run(&rest),
        other => unreachable!("'{other}' is not routed to a command"),
    }
}

/// Writes a subcommand's text to stdout; a stdout that cannot be written is the command's error.
pub(crate) fn print(text: &str) -> Result<(), ToolError> {
    crate::console::out(text).map_err(|e| ToolError::Output {
        path: "standard output".into(),
        why: e.to_string(),
    })
}

/// Prints help text; exit 0.
fn say_out(text: &str) -> Result<u8, ToolError> {
    print(text).map(|()| 0)
}

/// A subcommand's arguments: files, and `--name=value` options.
pub struct Args<'a> {
    /// Positional arguments, in order.
    pub files: Vec<&'a str>,
    options: Vec<(&'a str, &'a str)>,
}

impl<'a> Args<'a> {
    /// The value of `--name=`, if given.
    pub fn option(&self, name: &str) -> Option<&'a str> {
        self.options
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
}

/// Splits `args` into positional arguments and `--name=value` options, refusing any option not
/// in `known`.
pub fn split_args<'a>(
    args: &'a [String],
    known: &[&str],
    usage: &str,
) -> Result<Args<'a>, ToolError> {
    let mut positional = Vec::new();
    let mut options = Vec::new();
    for arg in args {
        match arg.strip_prefix("--") {
            Some(option) => {
                let (name, value) = option.split_once('=').unwrap_or((option, ""));
                let names = || known.iter().map(|k| k.trim_end_matches('='));
                if !names().any(|k| k == name) {
                    let hint = crate::cli::closest(name, names())
                        .map_or(String::new(), |meant| format!("; did you mean --{meant}?"));
                    return Err(ToolError::Usage(format!(
                        "unknown option '{arg}'{hint}; usage: {usage}"
                    )));
                }
                options.push((name, value));
            }
            None => positional.push(arg.as_str()),
        }
    }
    Ok(Args {
        files: positional,
        options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_argument_is_read_in_one_place() {
        let route_of = |line: &str| route(&line.split(' ').map(OsString::from).collect::<Vec<_>>());
        assert_eq!(route_of("report r.json"), Route::Tool);
        assert_eq!(route_of("help sweep"), Route::Tool);
        assert_eq!(route_of("sweep -o1,2 -d1 t.dat"), Route::Sweep);
        assert_eq!(route_of("sweep --slo=p99:1ms -b4K t.dat"), Route::Tool);
        assert_eq!(route_of("sweep --help"), Route::Tool);
        assert_eq!(route_of("sweep -h"), Route::Tool);
        assert_eq!(route_of("-b4K -r t.dat"), Route::Run);
        assert_eq!(route_of("t.dat"), Route::Run);
    }
}
