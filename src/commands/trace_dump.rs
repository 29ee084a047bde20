//! `iospd trace-dump TRACE [--output=FILE.csv]`: a binary `--trace` file as CSV.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use super::{ToolError, split_args};
use crate::trace::{CSV_HEADER, read_binary};

const USAGE: &str = "iospd trace-dump <file.trace> [--output=<file.csv>]";

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let args = split_args(args, &["output"], USAGE)?;
    let [input] = args.files.as_slice() else {
        return Err(ToolError::Usage(format!(
            "name one trace file; usage: {USAGE}"
        )));
    };
    let input = PathBuf::from(input);
    let file = File::open(&input).map_err(|e| ToolError::Input {
        path: input.clone(),
        why: e.to_string(),
    })?;
    let output = args.option("output").map(PathBuf::from);
    let (mut out, shown): (Box<dyn Write>, PathBuf) = match &output {
        Some(path) => (
            Box::new(File::create(path).map_err(|e| ToolError::Output {
                path: path.clone(),
                why: e.to_string(),
            })?),
            path.clone(),
        ),
        None => (
            Box::new(io::stdout().lock()),
            PathBuf::from("standard output"),
        ),
    };
    let mut out = BufWriter::with_capacity(1 << 20, &mut out);
    let write_error = |e: io::Error| ToolError::Output {
        path: shown.clone(),
        why: e.to_string(),
    };
    // The header goes out with the first record, so a file that is not a trace prints nothing.
    let mut started = false;
    let result = read_binary(file, |record| {
        if !started {
            writeln!(out, "{CSV_HEADER}")?;
            started = true;
        }
        writeln!(out, "{}", record.csv())
    })
    .and_then(|_| match started {
        true => Ok(()),
        false => writeln!(out, "{CSV_HEADER}"),
    });
    match result.and_then(|()| out.flush()) {
        Ok(()) => Ok(0),
        // `iospd trace-dump t.trace | head` is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Err(ToolError::Input {
            path: input,
            why: e.to_string(),
        }),
        Err(e) => Err(write_error(e)),
    }
}
