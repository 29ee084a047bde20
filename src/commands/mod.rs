//! iospd's own subcommands, besides DiskSpd's command line: `trace-dump`, `merge`, `report` and
//! `compare` read files iospd wrote and write text, touching no target; `preset` runs named
//! suites of plain iospd command lines, each as its own iospd process.

pub mod child;
pub mod compare;
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
    #[error("'{line}' failed (exit {code}):\n{why}")]
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

/// Runs the subcommand named by the first argument, or returns `None` when it names none.
pub fn dispatch(args: &[OsString]) -> Option<Result<u8, ToolError>> {
    let (name, rest) = args.split_first()?;
    let rest: Vec<String> = rest
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let name = name.to_str()?;
    // `<command> --help` and `iospd help [command]`; `-h` too for the commands that read results
    // (the others take DiskSpd's options, where `-h` means `-Sh`).
    let file_tool = matches!(name, "report" | "merge" | "compare" | "trace-dump");
    if rest
        .iter()
        .any(|a| a == "--help" || (file_tool && a == "-h"))
        && let Some(text) = help::command_usage(name)
    {
        return Some(say_out(&text));
    }
    // `-h` alone, where it would mean `-Sh`: nothing to run, so a request for help.
    if !file_tool && rest == ["-h"] && help::command_usage(name).is_some() {
        return Some(Err(ToolError::Usage(format!(
            "'-h' is DiskSpd's old spelling of -Sh (no caching), and nothing else was given; for usage run iospd {name} --help"
        ))));
    }
    Some(match name {
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
        // A sweep with a latency target searches; without one it is a run of many timespans.
        "sweep" if rest.iter().any(|a| a.starts_with("--slo=")) => slo::run(&rest),
        _ => return None,
    })
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
