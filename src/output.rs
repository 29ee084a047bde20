//! Report files (`--output`): each written whole to a temporary file in its directory, synced, then
//! exchanged with what the safety gate checked at its name, so a crash or a full disk never leaves
//! half a report behind and nothing but the checked file is ever replaced.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use crate::profile::ResultFormat;
use crate::report::Report;
use crate::safety::Place;

/// A report file that could not be written.
#[derive(Debug, Error)]
#[error("cannot write the report '{path}': {source}")]
pub struct OutputError {
    /// The destination.
    pub path: PathBuf,
    /// Why.
    pub source: io::Error,
}

/// Writes the report to every `--output` place, in the format its extension names. Every place is
/// attempted; the failures are returned.
pub fn write_reports(report: &Report, places: &mut [Place]) -> Vec<OutputError> {
    places
        .iter_mut()
        .filter_map(|place| {
            let format = ResultFormat::from_path(place.path()).unwrap_or(ResultFormat::Text);
            place
                .replace_by(|file| report.write(format, file))
                .err()
                .map(|source| OutputError {
                    path: place.path().to_path_buf(),
                    source,
                })
        })
        .collect()
}
