//! Report files (`--output`): each written to a temporary file in the same directory, synced, then
//! renamed over the destination, so a crash or a full disk never leaves half a report behind.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::profile::ResultFormat;
use crate::report::Report;

/// A report file that could not be written.
#[derive(Debug, Error)]
#[error("cannot write the report '{path}': {source}")]
pub struct OutputError {
    /// The destination.
    pub path: PathBuf,
    /// Why.
    pub source: io::Error,
}

/// A report destination that cannot be written, found before the run starts.
#[derive(Debug, Error)]
#[error("cannot write the report '{path}': {problem}")]
pub struct DestinationError {
    /// The destination.
    pub path: PathBuf,
    /// What is wrong, and the fix.
    pub problem: String,
}

/// Checks that every `--output` file can be created, so a bad path fails before the run, not
/// after it.
pub fn check_destinations<'a>(
    paths: impl IntoIterator<Item = &'a PathBuf>,
) -> Result<(), DestinationError> {
    for path in paths {
        crate::paths::creatable(path).map_err(|problem| DestinationError {
            path: path.clone(),
            problem,
        })?;
    }
    Ok(())
}

/// Writes `contents` to `path` atomically (temporary file, fsync, rename).
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = crate::paths::parent(path);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let temporary = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = File::create(&temporary)?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        // Make the rename itself durable.
        File::open(dir)
            .and_then(|d| d.sync_all())
            .or(Ok::<(), io::Error>(()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Writes the report to every `--output` file, in the format its extension names.
pub fn write_outputs(report: &Report, paths: &[PathBuf]) -> Result<(), OutputError> {
    for path in paths {
        let format = ResultFormat::from_path(path).unwrap_or(ResultFormat::Text);
        write_atomically(path, report.render(format).as_bytes()).map_err(|source| OutputError {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        fs::write(&path, "old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        let err = write_atomically(&dir.path().join("missing/r.json"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
