//! `iospd merge A.json B.json … [--output=M.json] [-Rtext|-Rxml|-Rjson] [--allow-mixed]`: one
//! result from many runs (see [`crate::report::analysis::merge`]); JSON into a pipe, text on a terminal,
//! unless a format or an output name says otherwise. The same run twice is refused, and runs of
//! different workloads unless `--allow-mixed` ([`crate::report::analysis::inputs`]).

use std::path::{Path, PathBuf};

use super::report::{check_output, emit, format_of, load};
use super::{ToolError, split_args};
use crate::profile::ResultFormat;

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str = "iospd merge <run.json> <run.json>… [--output=<merged.json|.xml|.txt|.html|.csv>] [-Rjson|-Rxml|-Rtext] [--allow-mixed]";

/// Its own options (`=`: takes a value), for the parser and the shell completions.
pub const OPTIONS: &[&str] = &["output=", "allow-mixed"];

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let output = args
        .iter()
        .find_map(|a| a.strip_prefix("--output="))
        .map(PathBuf::from);
    let (format, rest) = format_of(args, output.as_deref(), USAGE)?;
    // JSON for a pipe or a file; on a terminal, the text a person reads.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let format = match (format, terminal) {
        (Some(format), _) => format,
        (None, true) => ResultFormat::Text,
        (None, false) => ResultFormat::Json,
    };
    let args = split_args(&rest, OPTIONS, USAGE)?;
    let allow_mixed = args.option("allow-mixed").is_some();
    if args.files.len() < 2 {
        return Err(ToolError::Usage(format!(
            "name at least two JSON results; usage: {USAGE}"
        )));
    }
    let place = check_output(output.as_deref(), &args.files)?;
    let runs = args
        .files
        .iter()
        .map(|f| load(Path::new(f)))
        .collect::<Result<Vec<_>, _>>()?;
    crate::report::analysis::inputs::check(&runs, &args.files, allow_mixed)
        .map_err(ToolError::Usage)?;
    let mut merged =
        crate::report::analysis::merge::merge(&runs).map_err(|why| ToolError::Input {
            path: PathBuf::from(args.files.join(" ")),
            why,
        })?;
    if allow_mixed {
        // Every input's parameters, where the report prints its command line.
        let lines: Vec<String> = runs
            .iter()
            .zip(&args.files)
            .map(|(r, f)| format!("{f}: {}", r.profile.command_line))
            .collect();
        merged.profile.command_line = format!("iospd merge --allow-mixed of {}", lines.join(" | "));
    }
    for line in crate::report::analysis::merge::relation(&runs) {
        eprintln!("iospd merge: {line}");
    }
    emit(&merged, format, place)?;
    Ok(0)
}
