//! The top-level error: every module's error, and the exit code it maps to.

use thiserror::Error;

use crate::cli::CliError;
use crate::plan::PlanError;
use crate::profile::ProfileError;
use crate::run::RunError;
use crate::target::TargetError;

/// Exit status for a run that failed after starting.
pub const EXIT_RUN_ERROR: u8 = 1;
/// Exit status for bad input (DiskSpd's code for a command-line error).
pub const EXIT_BAD_INPUT: u8 = 3;

/// Anything that stops iospd.
#[derive(Debug, Error)]
pub enum Error {
    /// The command line cannot be read.
    #[error(transparent)]
    Cli(#[from] CliError),
    /// The options do not combine.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The machine cannot place the threads as asked.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A target cannot be used or created.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A write that would destroy data iospd was not told to destroy.
    #[error(transparent)]
    Safety(#[from] crate::safety::SafetyError),
    /// The run needs more memory than the machine has.
    #[error("{0}")]
    Memory(String),
    /// A report file could not be written.
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
}

impl Error {
    /// 3 for input the user can fix, 1 for failures during the run.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Cli(_)
            | Error::Profile(_)
            | Error::Plan(_)
            | Error::Safety(_)
            | Error::Memory(_) => EXIT_BAD_INPUT,
            Error::Target(e) if e.is_input_error() => EXIT_BAD_INPUT,
            Error::Target(_) | Error::Run(_) | Error::Output(_) => EXIT_RUN_ERROR,
        }
    }
}
