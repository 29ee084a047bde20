//! `--continue-on-error` in text: after a timespan's results, the failed I/Os the run counted and
//! went on past, by kind, and the first of them.

use std::fmt::Write as _;

use super::verify::target_name;
use crate::profile::TimeSpan;
use crate::stats::FailedIos;

pub(super) fn failed_text(out: &mut String, ts: &TimeSpan, f: &FailedIos) {
    let _ = writeln!(
        out,
        "\nFailed I/Os (--continue-on-error: counted, the run went on; every I/O of the timespan, warm-up and cool-down included):"
    );
    let _ = writeln!(out, "  reads failed:    {}", f.reads);
    let _ = writeln!(out, "  writes failed:   {}", f.writes);
    for (kind, n) in [("trims", f.trims), ("flushes", f.flushes)] {
        if n > 0 {
            let _ = writeln!(out, "  {kind} failed:{:>w$}{n}", "", w = 11 - kind.len());
        }
    }
    if let Some(first) = &f.first {
        let io = &first.io;
        let _ = writeln!(
            out,
            "  first: {} of {} bytes at offset {} on '{}' by thread {}, {:.3} s into the timespan: {}",
            io.op.name(),
            io.len,
            io.offset,
            target_name(ts, io.target),
            io.thread,
            first.at_ns as f64 / 1e9,
            io.what()
        );
    }
}
