//! The terminal: reports on stdout and messages on stderr, written so that a closed pipe, a full
//! disk or a closed terminal is an error to report (or, for a reader that left, to ignore), never a
//! panic that loses the run.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set on the ranks of a run across hosts other than rank 0, which speaks for them all.
static MUTED: AtomicBool = AtomicBool::new(false);

/// From now on [`out`] and [`say`] print nothing: another process speaks for this one.
pub fn mute() {
    MUTED.store(true, Ordering::Relaxed);
}

/// Writes `text` to stdout and flushes it. A reader that went away (`| head`) is not an error.
pub fn out(text: &str) -> io::Result<()> {
    if MUTED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes one line to stderr; if stderr cannot be written there is nowhere left to say so.
pub fn say(line: &str) {
    if !MUTED.load(Ordering::Relaxed) {
        shout(line);
    }
}

/// Writes one line to stderr even when muted: the last words of a process that must end the run
/// because another stopped answering.
pub fn shout(line: &str) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}
