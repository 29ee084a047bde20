//! The top-level error: every stage's error, and the exit code it maps to.

use thiserror::Error;

use crate::cli::CliError;
use crate::exit::EXIT_BAD_INPUT;
use crate::profile::ProfileError;
use crate::run::RunError;
use crate::safety::SafetyError;

/// Anything that stops iospd.
#[derive(Debug, Error)]
pub enum Error {
    /// The command line cannot be read.
    #[error(transparent)]
    Cli(#[from] CliError),
    /// The options do not combine.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A write that would destroy data iospd was not told to destroy, or a target or output that
    /// cannot be used.
    #[error(transparent)]
    Safety(#[from] SafetyError),
    /// A replay's traces or options cannot be used.
    #[error(transparent)]
    Replay(#[from] crate::replay::command::ReplayError),
    /// The run could not start, or failed outside the I/O.
    #[error(transparent)]
    Run(#[from] RunError),
}

impl Error {
    /// 3 for input the user can fix, 1 for failures during the run.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Cli(_) | Error::Profile(_) | Error::Safety(_) | Error::Replay(_) => {
                EXIT_BAD_INPUT
            }
            Error::Run(e) => e.exit_code(),
        }
    }
}
