//! `iospd merge A.json B.json … [--output=M.json] [-Rtext|-Rxml|-Rjson]`: one result from many
//! runs (see [`crate::report::merge`]); JSON unless a format or an output name says otherwise.

use std::path::{Path, PathBuf};

use super::report::{check_output, emit, format_of, load};
use super::{ToolError, split_args};
use crate::profile::ResultFormat;

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str =
    "iospd merge <run.json> <run.json>… [--output=<merged.json|.xml|.txt>] [-Rjson|-Rxml|-Rtext]";

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let output = args
        .iter()
        .find_map(|a| a.strip_prefix("--output="))
        .map(PathBuf::from);
    let explicit = args.iter().any(|a| a.starts_with("-R")) || output.is_some();
    let (format, rest) = format_of(args, output.as_deref(), USAGE)?;
    let format = if explicit { format } else { ResultFormat::Json };
    let args = split_args(&rest, &["output"], USAGE)?;
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
    let merged = crate::report::merge::merge(&runs).map_err(|why| ToolError::Input {
        path: PathBuf::from(args.files.join(" ")),
        why,
    })?;
    emit(&merged, format, place)?;
    Ok(0)
}
