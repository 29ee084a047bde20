//! The terminal: reports on stdout and messages on stderr, written so that a closed pipe, a full
//! disk or a closed terminal is an error to report (or, for a reader that left, to ignore), never a
//! panic that loses the run.

use std::io::{self, Write};

/// Writes `text` to stdout and flushes it. A reader that went away (`| head`) is not an error.
pub fn out(text: &str) -> io::Result<()> {
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
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}
