//! `iospd trace-dump TRACE [--output=FILE.csv]`: a binary `--trace` file as CSV.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use super::{ToolError, split_args};
use crate::trace::{CSV_HEADER, RECORD_BYTES, ReadCount, read_binary};

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str = "iospd trace-dump <file.trace> [--output=<file.csv>]";

/// Its own options (`=`: takes a value), for the parser and the shell completions.
pub const OPTIONS: &[&str] = &["output="];

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let args = split_args(args, OPTIONS, USAGE)?;
    let [input] = args.files.as_slice() else {
        return Err(ToolError::Usage(format!(
            "name one trace file; usage: {USAGE}"
        )));
    };
    let input = PathBuf::from(input);
    let file = crate::input::open(&input, false).map_err(|why| ToolError::Input {
        path: input.clone(),
        why,
    })?;
    let output = args.option("output").map(PathBuf::from);
    let place = super::report::check_output(output.as_deref(), &args.files)?;
    let (shown, dumped) = match place {
        Some(mut place) => {
            let shown = place.path().to_path_buf();
            let mut read = None;
            let dumped = place.replace_by(|out| {
                read = Some(dump(file, out)?);
                Ok(())
            });
            (shown, dumped.map(|()| read.expect("dumped")))
        }
        None => (
            PathBuf::from("standard output"),
            dump(file, &mut io::stdout().lock()),
        ),
    };
    match dumped {
        Ok(read) => {
            if read.cut > 0 {
                crate::console::say(&format!(
                    "iospd: '{}' ends inside a record ({} of its {RECORD_BYTES} bytes, after {} whole records): the run that wrote it was cut short; the whole records are dumped and the last, partial one is not",
                    input.display(),
                    read.cut,
                    read.records
                ));
            }
            Ok(0)
        }
        // `iospd trace-dump t.trace | head` is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Err(ToolError::Input {
            path: input,
            why: e.to_string(),
        }),
        Err(e) => Err(ToolError::Output {
            path: shown,
            why: e.to_string(),
        }),
    }
}

/// Writes the CSV of the trace `file` to `out`, and says what was read. The header goes out with
/// the first record, so a file that is not a trace writes nothing.
fn dump(file: File, out: &mut dyn Write) -> io::Result<ReadCount> {
    let mut out = BufWriter::with_capacity(1 << 20, out);
    let mut started = false;
    let read = read_binary(file, |record| {
        if !started {
            writeln!(out, "{CSV_HEADER}")?;
            started = true;
        }
        writeln!(out, "{}", record.csv())
    })?;
    if !started {
        writeln!(out, "{CSV_HEADER}")?;
    }
    out.flush()?;
    Ok(read)
}
