//! Runs iospd command lines as children of this executable and reads each one's JSON report, so
//! that every step of a suite or a search is a plain command line anyone can run again.

use std::path::PathBuf;
use std::process::Command;

use super::ToolError;
use crate::report::Report;

/// This executable, ready to run command lines.
pub struct Child {
    exe: PathBuf,
}

impl Child {
    /// The running executable.
    pub fn this() -> Result<Self, ToolError> {
        std::env::current_exe()
            .map(|exe| Child { exe })
            .map_err(|e| ToolError::Output {
                path: "iospd".into(),
                why: e.to_string(),
            })
    }

    /// Runs `iospd <args>` (which must ask for `-Rjson`) and returns its report; a failed child
    /// is [`ToolError::Failed`] with its exit code and its last words.
    pub fn report(&self, args: &[String]) -> Result<Report, ToolError> {
        let line = format!("iospd {}", args.join(" "));
        let output =
            Command::new(&self.exe)
                .args(args)
                .output()
                .map_err(|e| ToolError::Output {
                    path: self.exe.clone(),
                    why: e.to_string(),
                })?;
        if !output.status.success() {
            return Err(ToolError::Failed {
                line,
                code: output.status.code().unwrap_or(1).clamp(1, 255) as u8,
                why: String::from_utf8_lossy(&output.stderr)
                    .trim_end()
                    .to_string(),
            });
        }
        serde_json::from_slice(&output.stdout).map_err(|e| ToolError::Input {
            path: PathBuf::from(line),
            why: format!("its output is not a JSON report: {e}"),
        })
    }
}
