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
    out_by(|stdout| stdout.write_all(text.as_bytes()))
}

/// Writes what `write` writes to stdout and flushes it, as [`out`] does.
pub fn out_by(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    if MUTED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut stdout = io::stdout().lock();
    match write(&mut stdout).and_then(|()| stdout.flush()) {
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

/// One line of status on a terminal's stderr, rewritten in place and clipped to the terminal's
/// width so it never wraps (a wrapped line leaves a stale fragment at every rewrite).
pub struct StatusLine {
    shown: bool,
}

impl StatusLine {
    /// A status line when stderr is a terminal, it is wanted, and this process speaks.
    pub fn on_terminal(wanted: bool) -> Option<StatusLine> {
        use std::io::IsTerminal;
        (wanted && !MUTED.load(Ordering::Relaxed) && io::stderr().is_terminal())
            .then_some(StatusLine { shown: false })
    }

    /// Shows `text` in place of the previous line.
    pub fn show(&mut self, text: &str) {
        let shown = clip(text, terminal_width().unwrap_or(80));
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r{shown}\x1b[K");
        let _ = err.flush();
        self.shown = true;
    }

    /// Clears the line so what follows starts on a clean one.
    pub fn clear(&mut self) {
        if self.shown {
            let mut err = io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        self.clear();
    }
}

/// `text` cut to fewer than `width` characters (the last column is left free: writing into it
/// wraps on some terminals).
pub fn clip(text: &str, width: usize) -> &str {
    match text.char_indices().nth(width.saturating_sub(1)) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The columns of the terminal on stderr.
fn terminal_width() -> Option<usize> {
    // SAFETY: winsize is plain data the kernel fills; TIOCGWINSZ only reads the descriptor's size.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_line_is_clipped_below_the_width() {
        assert_eq!(clip("iospd: measuring", 10), "iospd: me");
        assert_eq!(clip("short", 80), "short");
        assert_eq!(clip("µs µs µs", 4), "µs ");
    }
}
