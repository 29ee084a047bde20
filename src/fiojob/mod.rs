//! fio job files: read the way fio reads them ([`read`]: sections, `[global…]` settings, comments
//! cut at `#`/`;`, `include`, `${VAR}` from the environment, fio's keywords `$ncpus`,
//! `$mb_memory`, `$pagesize` with their arithmetic, option aliases), and translated job by job
//! into iospd command lines ([`translate`]): an exact mapping, or a refusal naming the option,
//! the job, the file and line, and iospd's closest equivalent when there is one; fio's own
//! command line is read into the same jobs ([`cmdline`]). Nothing here runs I/O; `iospd fio` runs
//! the lines.

mod access;
mod blocks;
pub mod cmdline;
mod cmdprio;
mod data;
mod files;
pub mod known;
mod latency;
mod logs;
pub mod options;
pub mod origin;
mod placement;
pub mod read;
mod reader;
pub mod translate;
pub mod value;
mod work;

use std::path::PathBuf;

pub use access::{ENGINES, describe_engine};

/// Where a setting was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file.
    pub file: PathBuf,
    /// Its line, from 1.
    pub line: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            line if self.file.as_os_str() == cmdline::COMMAND_LINE => {
                write!(f, "command line argument {line}")
            }
            0 => write!(f, "{}", self.file.display()),
            line => write!(f, "{}:{line}", self.file.display()),
        }
    }
}

/// One `key=value` (or bare `key`) as fio would take it: the key under its canonical name, the
/// value with variables and keywords expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The canonical option name (aliases resolved: `readwrite` is `rw`).
    pub key: String,
    /// The name as written.
    pub written: String,
    /// The value; `None` for a bare option.
    pub value: Option<String>,
    /// Where.
    pub place: Place,
}

/// A job: its name, where its section began, and its settings — the global ones in force when
/// the section began, then its own (a later setting of the same key wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The section name.
    pub name: String,
    /// Its number among the file's jobs, from 0.
    pub number: usize,
    /// Where the section began.
    pub place: Place,
    /// Global settings, then the job's own.
    pub settings: Vec<Setting>,
}

impl Job {
    /// The last setting of `key`.
    pub fn get(&self, key: &str) -> Option<&Setting> {
        self.settings.iter().rev().find(|s| s.key == key)
    }
}

/// A job file cannot be read as fio reads it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {why}")]
pub struct JobError {
    /// Where.
    pub place: Place,
    /// What is wrong, and the fix.
    pub why: String,
}
