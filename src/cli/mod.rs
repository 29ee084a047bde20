//! The command line: argv → tokens → [`RawArgs`], by DiskSpd's grammar.
//!
//! This layer knows the syntax of each option and nothing of how options combine; cross-option rules
//! and sizes in blocks are the profile's business. Every error names the offending token and the fix.

pub mod flags;
pub mod help;
pub mod lex;
pub mod line;

use std::ffi::OsString;

use thiserror::Error;

pub use crate::profile::raw::RawArgs;

use lex::Token;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `-?`, `--help`: print usage.
    Help,
    /// `--version`.
    Version,
    /// `--completions=<shell>`.
    Completions(String),
    /// Everything else: a run (or a profile echo with `-Rp`).
    Run(Box<RawArgs>),
}

/// A command line that cannot be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CliError {
    /// No arguments at all.
    #[error("no options or targets given; run 'iospd -?' for usage")]
    NoArguments,
    /// An option that is not valid UTF-8.
    #[error("option '{0}' is not valid UTF-8; retype it")]
    NotUtf8(String),
    /// A DiskSpd letter after the first target.
    #[error(
        "option '{option}' comes after the target '{target}'; put DiskSpd's options before the targets (only --long options may follow them)"
    )]
    OptionAfterTarget {
        /// The option.
        option: String,
        /// The first target.
        target: String,
    },
    /// A token starting with a dash look-alike.
    #[error("'{token}' starts with {dash}, not '-'; retype it as '{fixed}'")]
    LookalikeDash {
        /// The token as typed.
        token: String,
        /// Which character it was.
        dash: &'static str,
        /// The token with a plain hyphen.
        fixed: String,
    },
    /// An empty string argument.
    #[error("an empty argument was given; remove it or quote the intended path")]
    EmptyArgument,
    /// A target of nothing but white space.
    #[error("the target {0} is only white space; remove it or quote the intended path")]
    BlankTarget(String),
    /// `-` alone.
    #[error("'-' alone is not an option; write the letter and its value together, e.g. -o32")]
    LoneDash,
    /// An unknown letter or long name.
    #[error("unknown option '{0}'; run 'iospd -?' for the list of options")]
    UnknownOption(String),
    /// A long name close to a known one.
    #[error("unknown option '{given}'; did you mean --{meant}?")]
    Misspelled {
        /// The option as typed.
        given: String,
        /// The known name closest to it.
        meant: &'static str,
    },
    /// A Windows disk or volume name as a target.
    #[error("'{token}' {what}; on Linux name {linux}")]
    WindowsTarget {
        /// The target as typed.
        token: String,
        /// What it means on Windows.
        what: &'static str,
        /// The Linux way.
        linux: &'static str,
    },
    /// A known option with a bad value.
    #[error("'{token}': {reason}")]
    BadOption {
        /// The token as typed.
        token: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// Options but no target.
    #[error(
        "no target given; name a file or block device after the options, e.g. iospd -c1G -d10 test.dat (iospd -? lists the options)"
    )]
    NoTarget,
    /// `-h` alone: DiskSpd's old spelling of `-Sh`, most likely meant as a request for help.
    #[error(
        "no target given, and '-h' is DiskSpd's old spelling of -Sh (no caching); for usage run iospd -? or iospd --help"
    )]
    HelpMeant,
    /// A letter's value given as the next word: `-w 30`.
    #[error(
        "'{letter} {value}': DiskSpd's options take their value glued to the letter; write {letter}{value}"
    )]
    DetachedValue {
        /// The option letter with its dash.
        letter: String,
        /// The word after it.
        value: String,
    },
}

/// Reads the command line (without the program name).
pub fn parse(args: &[OsString]) -> Result<Command, CliError> {
    if args.is_empty() {
        return Err(CliError::NoArguments);
    }
    check_detached_values(args)?;
    let mut raw = RawArgs::default();
    for token in lex::lex(args)? {
        match token {
            Token::Target(path) => {
                check_not_windows(&path)?;
                raw.targets.push(path);
            }
            Token::Short { letter, value } => {
                let text = format!("-{letter}{value}");
                let flag =
                    flags::find(letter).ok_or_else(|| CliError::UnknownOption(text.clone()))?;
                (flag.apply)(&value, &mut raw).map_err(|reason| CliError::BadOption {
                    token: text.clone(),
                    reason,
                })?;
                raw.given.push(text);
            }
            Token::Long { name, value } => {
                let text = match &value {
                    Some(value) => format!("--{name}={value}"),
                    None => format!("--{name}"),
                };
                let flag = flags::find_long(&name).ok_or_else(|| {
                    let names = flags::LONG_FLAGS.iter().map(|f| f.name);
                    match closest(&name, names) {
                        Some(meant) => CliError::Misspelled {
                            given: text.clone(),
                            meant,
                        },
                        None => CliError::UnknownOption(text.clone()),
                    }
                })?;
                (flag.apply)(value.as_deref(), &mut raw).map_err(|reason| CliError::BadOption {
                    token: text.clone(),
                    reason,
                })?;
                raw.given.push(text);
            }
        }
    }
    if raw.help {
        return Ok(Command::Help);
    }
    if raw.version {
        return Ok(Command::Version);
    }
    if let Some(shell) = raw.completions.take() {
        return Ok(Command::Completions(shell));
    }
    let needs_target = raw.xml_profile.is_none() && !raw.print_system && raw.set_event.is_none();
    if needs_target && raw.targets.is_empty() {
        if raw.given.iter().any(|g| g == "-h") {
            return Err(CliError::HelpMeant);
        }
        return Err(CliError::NoTarget);
    }
    Ok(Command::Run(Box::new(raw)))
}

/// Refuses `-w 30`: a letter that needs a value, alone, followed by a word that reads as one (it
/// starts with a digit). Without this the value would become the first target and the next option
/// "comes after the target '30'".
fn check_detached_values(args: &[OsString]) -> Result<(), CliError> {
    for pair in args.windows(2) {
        let (Some(option), Some(next)) = (pair[0].to_str(), pair[1].to_str()) else {
            continue;
        };
        let mut letters = option.chars();
        let (Some('-'), Some(letter), None) = (letters.next(), letters.next(), letters.next())
        else {
            continue;
        };
        let needs_value = flags::find(letter)
            .is_some_and(|flag| (flag.apply)("", &mut RawArgs::default()).is_err());
        if needs_value && next.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(CliError::DetachedValue {
                letter: option.to_string(),
                value: next.to_string(),
            });
        }
    }
    Ok(())
}

/// The name among `known` that `typed` most likely misspells: close by Jaro-Winkler similarity (the
/// measure behind clap's and cargo's suggestions), else `None`.
pub fn closest<'a>(typed: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .map(|name| (strsim::jaro_winkler(typed, name), name))
        .filter(|(similarity, _)| *similarity > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| name)
}

/// Refuses DiskSpd's `#<n>` (physical drive) and `X:` (volume) targets with the Linux way.
fn check_not_windows(path: &std::path::Path) -> Result<(), CliError> {
    let Some(text) = path.to_str() else {
        return Ok(());
    };
    let token = text.to_string();
    let bytes = text.as_bytes();
    if bytes.len() > 1 && bytes[0] == b'#' && bytes[1..].iter().all(u8::is_ascii_digit) {
        return Err(CliError::WindowsTarget {
            token,
            what: "names a Windows physical drive",
            linux: "the block device, e.g. /dev/sdb or /dev/nvme1n1 (lsblk lists them)",
        });
    }
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if drive && bytes.len() == 2 {
        return Err(CliError::WindowsTarget {
            token,
            what: "names a Windows volume",
            linux: "the partition's device (e.g. /dev/sdb1) or a file on its mount point",
        });
    }
    if drive && matches!(bytes[2], b'\\' | b'/') {
        return Err(CliError::WindowsTarget {
            token,
            what: "is a Windows drive path (on Linux it would create a file of that literal name)",
            linux: "a Linux path, e.g. /mnt/data/t.dat (a file on the disk's mount point)",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, CliError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args)
    }

    #[test]
    fn a_typical_line() {
        let Command::Run(raw) = parse_strs(&[
            "-b4k",
            "-o32",
            "-t2",
            "-r",
            "-w30",
            "-Sh",
            "-L",
            "-c5G",
            "/mnt/t.dat",
        ])
        .unwrap() else {
            panic!("expected a run");
        };
        assert_eq!(raw.block_size, Some(4096));
        assert_eq!(raw.outstanding, Some(32));
        assert_eq!(raw.targets.len(), 1);
    }

    #[test]
    fn a_value_after_a_space_says_to_glue_it_on() {
        for (line, says) in [
            (&["-w", "30", "-d1", "sql.dat"][..], "write -w30"),
            (&["-o", "32", "t.dat"][..], "write -o32"),
            (&["-b", "4K", "t.dat"][..], "write -b4K"),
        ] {
            let err = parse_strs(line).unwrap_err();
            assert!(matches!(err, CliError::DetachedValue { .. }), "{err}");
            assert!(err.to_string().contains(says), "{err}");
        }
        // A letter that needs no value may be followed by a target whose name starts with a digit.
        assert!(parse_strs(&["-r", "-d1", "1.dat"]).is_ok());
        assert!(parse_strs(&["-d1", "-r", "1.dat"]).is_ok());
    }

    #[test]
    fn help_wins() {
        assert_eq!(parse_strs(&["-?"]).unwrap(), Command::Help);
    }

    #[test]
    fn errors_name_the_token() {
        let err = parse_strs(&["-o0", "x"]).unwrap_err();
        assert!(err.to_string().starts_with("'-o0': "), "{err}");
        assert_eq!(
            parse_strs(&["-q", "x"]).unwrap_err(),
            CliError::UnknownOption("-q".into())
        );
        assert!(matches!(
            parse_strs(&["#1"]).unwrap_err(),
            CliError::WindowsTarget { .. }
        ));
        assert!(matches!(
            parse_strs(&["E:"]).unwrap_err(),
            CliError::WindowsTarget { .. }
        ));
        assert!(
            parse_strs(&["E:io"]).is_ok(),
            "a file named E:io is a Linux path"
        );
        for windows in ["C:\\t.dat", "C:/t.dat", "d:\\"] {
            let err = parse_strs(&["-c1G", windows]).unwrap_err();
            assert!(matches!(err, CliError::WindowsTarget { .. }), "{windows}");
            assert!(err.to_string().contains("/mnt/data/t.dat"), "{err}");
        }
        // Long options may follow the targets; DiskSpd's letters may not.
        let Command::Run(raw) = parse_strs(&["-d2", "t.dat", "--output=r.json"]).unwrap() else {
            panic!("a run");
        };
        assert_eq!(raw.outputs.len(), 1);
        assert!(matches!(
            parse_strs(&["t.dat", "-d2"]).unwrap_err(),
            CliError::OptionAfterTarget { .. }
        ));
        assert!(parse_strs(&["-Rs"]).is_ok(), "-Rs needs no target");
        assert!(
            parse_strs(&["-Xp.xml"]).is_ok(),
            "profiles name their targets"
        );
        assert_eq!(parse_strs(&["-o4"]).unwrap_err(), CliError::NoTarget);
        assert_eq!(parse_strs(&["-h"]).unwrap_err(), CliError::HelpMeant);
        assert!(parse_strs(&["-h", "t.dat"]).is_ok(), "-h is DiskSpd's -Sh");
        assert_eq!(parse_strs(&[]).unwrap_err(), CliError::NoArguments);
        assert!(matches!(
            parse_strs(&["--bogus", "x"]).unwrap_err(),
            CliError::UnknownOption(_)
        ));
        // A near miss names what was meant.
        for (typed, meant) in [
            ("--timeseris=t.csv", "timeseries"),
            ("--time-series=t.csv", "timeseries"),
            ("--outptu=r.json", "output"),
            ("--forse", "force"),
        ] {
            assert_eq!(
                parse_strs(&["-d1", typed, "x"]).unwrap_err().to_string(),
                format!("unknown option '{typed}'; did you mean --{meant}?")
            );
        }
    }
}
