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
/// because another stopped answering. The line is [`tidy`]: whatever input it quotes, it stays
/// one short line.
pub fn shout(line: &str) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{}", tidy(line));
}

/// The most characters of one quoted input (or one unbroken word) a message shows.
pub const QUOTED_MAX: usize = 100;

/// `message` as one line that quotes at most [`QUOTED_MAX`] characters of any one input: its
/// lines joined with "; ", control characters written as escapes (no input can move the
/// terminal's cursor or forge a line), and each quoted span ('…') or unbroken word longer than
/// the limit cut in its middle with the number of characters left out.
pub fn tidy(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4096));
    let mut lines = message.lines().map(str::trim_end).filter(|l| !l.is_empty());
    if let Some(first) = lines.next() {
        tidy_line(first, &mut out);
        for line in lines {
            out.push_str("; ");
            tidy_line(line.trim_start(), &mut out);
        }
    }
    out
}

/// One line of [`tidy`]: spans are quoted runs ('…', closed by the next quote that ends a word,
/// or the line's end) and words between them.
fn tidy_line(line: &str, out: &mut String) {
    let mut rest = line;
    while !rest.is_empty() {
        let opens_quote = rest.starts_with('\'')
            && (out.is_empty()
                || out.ends_with(|c: char| c.is_whitespace() || "(:=,[".contains(c)));
        let end = if opens_quote {
            // The closing quote: one followed by the end, a space or punctuation.
            rest.char_indices()
                .skip(1)
                .find(|&(i, c)| {
                    c == '\''
                        && rest[i + 1..]
                            .chars()
                            .next()
                            .is_none_or(|n| n.is_whitespace() || ",.;:)]".contains(n))
                })
                .map_or(rest.len(), |(i, _)| i + 1)
        } else {
            match rest.find(char::is_whitespace) {
                Some(0) => rest.chars().next().map_or(1, char::len_utf8),
                Some(i) => i,
                None => rest.len(),
            }
        };
        let (span, tail) = rest.split_at(end);
        push_clipped(span, out);
        rest = tail;
    }
}

/// `span`, escaped, cut in its middle when it is longer than [`QUOTED_MAX`] characters.
fn push_clipped(span: &str, out: &mut String) {
    let chars = span.chars().count();
    let escape = |c: char, out: &mut String| match c {
        ' ' => out.push(' '),
        '\t' => out.push_str("\\t"),
        c if c.is_control() => out.push_str(&c.escape_default().to_string()),
        c => out.push(c),
    };
    if chars <= QUOTED_MAX {
        span.chars().for_each(|c| escape(c, out));
        return;
    }
    let (head, tail) = (QUOTED_MAX * 7 / 10, QUOTED_MAX / 4);
    span.chars().take(head).for_each(|c| escape(c, out));
    out.push_str(&format!("…[{} characters]…", chars - head - tail));
    span.chars().skip(chars - tail).for_each(|c| escape(c, out));
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
    fn messages_are_one_line_and_quote_little_of_any_input() {
        assert_eq!(tidy("iospd: bad '-b0'"), "iospd: bad '-b0'");
        assert_eq!(tidy("first\n  second\n\nthird\n"), "first; second; third");
        assert_eq!(tidy("a\x1b[2Jb\rc"), "a\\u{1b}[2Jb\\rc");
        assert_eq!(tidy("a\u{85}b \u{2003}c"), "a\\u{85}b \u{2003}c");
        let name = "x".repeat(1 << 20);
        let said = tidy(&format!("job 'a': unknown option '{name}'; see the list"));
        assert!(said.len() < 200, "{said}");
        assert!(said.starts_with("job 'a': unknown option 'xxx"), "{said}");
        assert!(said.contains("…[1048483 characters]…"), "{said}");
        assert!(said.ends_with("xxx'; see the list"), "{said}");
        // Quoted input with spaces inside is one span; so is a long unquoted word.
        let spaced = format!("bad value '{}' here", "ab ".repeat(1000));
        assert!(tidy(&spaced).len() < 200, "{}", tidy(&spaced));
        let word = format!("/{}", "d/".repeat(1000));
        assert!(tidy(&format!("cannot open {word}")).len() < 200);
        // Apostrophes inside words are not quotes.
        assert_eq!(
            tidy("the trace's span isn't valid"),
            "the trace's span isn't valid"
        );
    }

    #[test]
    fn a_status_line_is_clipped_below_the_width() {
        assert_eq!(clip("iospd: measuring", 10), "iospd: me");
        assert_eq!(clip("short", 80), "short");
        assert_eq!(clip("µs µs µs", 4), "µs ");
    }
}
