//! Runs iospd command lines as children of this executable and reads each one's JSON report, so
//! that every step of a suite or a search is a plain command line anyone can run again.
//!
//! A child gets its arguments as a vector, never as a string split again, so a target named
//! `/mnt/my disk/t.dat` or `p.db --force` stays one path. It lives and dies with its parent: it
//! runs in its own process group (a Ctrl-C at the terminal reaches the parent alone), the parent
//! passes the first SIGINT, SIGTERM or SIGHUP on to it as one SIGTERM (so it stops, drains and
//! exits), and the kernel kills it if the parent dies without doing so (`PR_SET_PDEATHSIG`). After a
//! stop no further child starts: [`Child::report`] says [`ToolError::Interrupted`]. A group of
//! children that run together can be ended by one of them ([`end_group`], fio's `exitall`): the
//! others are stopped the same way, and the parent goes on.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use super::ToolError;
pub use crate::exit::{interrupted_status, signal_name};
use crate::report::Report;

/// The signal that asked the suite to stop; 0 until one does.
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);
/// The running children's pids (several when jobs run together); 0 in a free place.
static RUNNING: [AtomicI32; MAX_CHILDREN] = [const { AtomicI32::new(0) }; MAX_CHILDREN];

/// The children running together were ended by one of them ([`end_group`]).
static GROUP_ENDED: AtomicBool = AtomicBool::new(false);

/// The most children that run at once.
pub const MAX_CHILDREN: usize = 64;

extern "C" fn on_stop(signal: libc::c_int) {
    let first = STOPPED_BY
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    let to = if first { libc::SIGTERM } else { libc::SIGKILL };
    for running in &RUNNING {
        let child = running.load(Ordering::SeqCst);
        if child > 0 {
            // SAFETY: kill is async-signal-safe; the pid is our own child's.
            unsafe { libc::kill(child, to) };
        }
    }
    if !first {
        // A second signal: leave at once, and the children with us.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + signal) };
    }
}

/// Keeps `pid` where a stop finds it; the place, to free when the child is gone.
fn register(pid: i32) -> Option<usize> {
    (0..MAX_CHILDREN).find(|&i| {
        RUNNING[i]
            .compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// The signal that stopped the suite, if one did.
pub fn stopped() -> Option<i32> {
    match STOPPED_BY.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Starts a group of children that run together: none has ended it yet.
pub fn begin_group() {
    GROUP_ENDED.store(false, Ordering::SeqCst);
}

/// Ends the group: every child running is stopped as a signal stops it (SIGTERM: it drains and
/// reports what it measured), and no child of the group starts after.
pub fn end_group() {
    GROUP_ENDED.store(true, Ordering::SeqCst);
    for running in &RUNNING {
        let child = running.load(Ordering::SeqCst);
        if child > 0 {
            // SAFETY: a signal to our own child.
            unsafe { libc::kill(child, libc::SIGTERM) };
        }
    }
}

/// Whether one of the group's children ended it.
pub fn group_ended() -> bool {
    GROUP_ENDED.load(Ordering::SeqCst)
}

/// What stops a child: a signal to the suite, or the end of its group (as SIGTERM).
fn stop() -> Option<i32> {
    stopped().or(group_ended().then_some(libc::SIGTERM))
}

/// Waits `duration` between two children, or less when a stop comes or the group ends.
pub fn pause(duration: Duration) {
    let end = Instant::now() + duration;
    while stop().is_none() {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

pub use crate::cli::line::shell_line;

/// A child's last line on stderr, without its `iospd: ` (the line that says why it stopped).
pub fn last_words(stderr: &str) -> &str {
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(stderr);
    last.strip_prefix("iospd: ").unwrap_or(last)
}

/// This executable, ready to run command lines.
pub struct Child {
    exe: PathBuf,
}

impl Child {
    /// The running executable; from here on SIGINT, SIGTERM and SIGHUP stop the suite (see the
    /// module's documentation).
    pub fn this() -> Result<Self, ToolError> {
        // on_stop touches atomics and calls kill and _exit only. SA_RESTART keeps the reads of
        // the child's pipes going.
        crate::exit::handle_stops(
            &[libc::SIGINT, libc::SIGTERM, libc::SIGHUP],
            on_stop,
            libc::SA_RESTART,
        );
        std::env::current_exe()
            .map(|exe| Child { exe })
            .map_err(|e| ToolError::Output {
                path: "iospd".into(),
                why: e.to_string(),
            })
    }

    /// Runs `iospd <args>` (which must ask for `-Rjson`) and returns its report; a failed child
    /// is [`ToolError::Failed`] with its exit code and its last words, and a child stopped by a
    /// signal to the suite (or one the suite no longer starts after it) is
    /// [`ToolError::Interrupted`].
    pub fn report(&self, args: &[String]) -> Result<Report, ToolError> {
        let (line, output) = self.run(args, false)?;
        parse(line, &output.stdout)
    }

    /// As [`Child::report`], and a child that a stop cut short after its measured window began
    /// gives its report of that shortened window, with the signal (as iospd's own run keeps
    /// what it measured); a child whose run a failed I/O stopped gives its report with the
    /// failure (as fio reports a job that ended in an error).
    pub fn report_kept(&self, args: &[String]) -> Result<Kept, ToolError> {
        let (line, output, cut) = self.finished(args, true)?;
        if !cut && !output.status.success() {
            let report = parse(line.clone(), &output.stdout)
                .ok()
                .filter(|r| r.timespans.iter().any(|t| t.failure.is_some()));
            return match (report, failure(line, &output)) {
                (Some(report), ToolError::Failed { code, why, .. }) => {
                    Ok(Kept::Failed { report, code, why })
                }
                (_, error) => Err(error),
            };
        }
        let signal = stop().filter(|_| !output.status.success());
        let report = parse(line.clone(), &output.stdout)?;
        let measured = report.timespans.iter().any(|t| t.measured.is_some());
        match signal {
            Some(signal) if !measured => Err(ToolError::Interrupted {
                signal,
                line,
                started: true,
            }),
            Some(signal) => Ok(Kept::Cut(report, signal)),
            None => Ok(Kept::Ran(report)),
        }
    }

    /// Runs `iospd --dry-run <args>`: every check the run of `args` would make, nothing created.
    /// A refusal is [`ToolError::Failed`], as from [`Child::report`].
    pub fn check(&self, args: &[String]) -> Result<(), ToolError> {
        let mut args = args.to_vec();
        let at = usize::from(args.first().is_some_and(|a| a == "replay"));
        args.insert(at, "--dry-run".into());
        self.run(&args, false).map(drop)
    }

    /// Runs `iospd verify --verify-state=<state>`: its last line (how many blocks are right), or
    /// what it found wrong as [`ToolError::Failed`] (exit 1).
    pub fn verify(&self, state: &str) -> Result<String, ToolError> {
        let args = ["verify".to_string(), format!("--verify-state={state}")];
        self.run(&args, false)
            .map(|(_, output)| last_line(&output.stdout))
    }

    /// Runs `iospd <args>` with `--create-only`: its files laid out, nothing measured.
    pub fn create_only(&self, args: &[String]) -> Result<(), ToolError> {
        let mut args = args.to_vec();
        args.insert(0, "--create-only".into());
        self.run(&args, false).map(drop)
    }

    /// Runs `iospd <args>` to its end: its command line and output when it succeeded, or (when
    /// `keep_cut`) when a stop cut it short and it printed a report.
    fn run(
        &self,
        args: &[String],
        keep_cut: bool,
    ) -> Result<(String, std::process::Output), ToolError> {
        let (line, output, cut) = self.finished(args, keep_cut)?;
        if !cut && !output.status.success() {
            return Err(failure(line, &output));
        }
        Ok((line, output))
    }

    /// As [`Child::run`], and the output of a child that failed too, and whether a stop cut it
    /// short (its output kept).
    fn finished(
        &self,
        args: &[String],
        keep_cut: bool,
    ) -> Result<(String, std::process::Output, bool), ToolError> {
        let line = shell_line(args);
        let interrupted = |signal, started| ToolError::Interrupted {
            signal,
            line: line.clone(),
            started,
        };
        if let Some(signal) = stop() {
            return Err(interrupted(signal, false));
        }
        // SAFETY: getpid is async-signal-safe.
        let parent = unsafe { libc::getpid() };
        let mut command = Command::new(&self.exe);
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        // SAFETY: between fork and exec the closure calls only async-signal-safe functions.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent died before the request took hold.
                if libc::getppid() != parent {
                    libc::_exit(libc::SIGKILL + 128);
                }
                Ok(())
            });
        }
        let spawned = command.spawn().map_err(|e| ToolError::Output {
            path: self.exe.clone(),
            why: e.to_string(),
        })?;
        let place = register(spawned.id() as i32);
        // A stop that came between the check above and the pid's store, or no place to keep it.
        if stop().is_some() || place.is_none() {
            // SAFETY: a signal to our own child.
            unsafe { libc::kill(spawned.id() as i32, libc::SIGTERM) };
        }
        let output = spawned.wait_with_output();
        if let Some(i) = place {
            RUNNING[i].store(0, Ordering::SeqCst);
        }
        let output = output.map_err(|e| ToolError::Output {
            path: self.exe.clone(),
            why: e.to_string(),
        })?;
        // A child that finished is a finished test, even when a stop came as it was being reaped;
        // the next one is then not started.
        if let (false, Some(signal)) = (output.status.success(), stop()) {
            return match keep_cut && !output.stdout.is_empty() {
                true => Ok((line, output, true)),
                false => Err(interrupted(signal, true)),
            };
        }
        Ok((line, output, false))
    }
}

/// How a child that ran and failed is told: its exit code and why, from what it said.
fn failure(line: String, output: &std::process::Output) -> ToolError {
    use std::os::unix::process::ExitStatusExt;
    let mut why = String::from_utf8_lossy(&output.stderr)
        .trim_end()
        .to_string();
    // A child that says why on stdout (iospd verify's findings): its last line.
    if why.is_empty() {
        why = last_line(&output.stdout);
    }
    // Killed: its last line is whatever it said before, so the signal is said after it.
    if let Some(signal) = output.status.signal() {
        why.push_str(&format!("\nkilled by {}", signal_name(signal)));
    }
    ToolError::Failed {
        line,
        code: output.status.code().unwrap_or(1).clamp(1, 255) as u8,
        why,
    }
}

/// What [`Child::report_kept`] kept of a run.
#[derive(Debug)]
pub enum Kept {
    /// It ran to its end.
    Ran(Report),
    /// A stop cut it short, with this signal, after its measured window began.
    Cut(Report, i32),
    /// A failed I/O stopped it: its report up to then, its exit code and why.
    Failed {
        /// The report, whose timespan names the failure.
        report: Report,
        /// The child's exit code.
        code: u8,
        /// What it said on stderr.
        why: String,
    },
}

/// The last line of what a child printed.
fn last_line(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    text.trim_end().lines().last().unwrap_or("").to_string()
}

/// The JSON report a child printed.
fn parse(line: String, stdout: &[u8]) -> Result<Report, ToolError> {
    serde_json::from_slice(stdout).map_err(|e| ToolError::Input {
        path: PathBuf::from(line),
        why: format!("its output is not a JSON report: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_lines_quote_what_a_shell_would_split() {
        let args: Vec<String> = [
            "-c1G",
            "-Rjson",
            "/mnt/my disk/t.dat",
            "p.db --force",
            "it's",
        ]
        .map(String::from)
        .to_vec();
        let line = shell_line(&args);
        assert_eq!(
            line,
            r"iospd -c1G -Rjson '/mnt/my disk/t.dat' 'p.db --force' 'it'\''s'"
        );
        // Read back by a shell, the line gives the same arguments.
        let words = line.strip_prefix("iospd ").unwrap();
        let back = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\n' {words}"))
            .output()
            .unwrap();
        let back = String::from_utf8(back.stdout).unwrap();
        assert_eq!(back.lines().collect::<Vec<_>>(), args);
    }
}
