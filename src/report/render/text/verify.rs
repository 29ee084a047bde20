//! `--verify` in text: after a timespan's results, the blocks written and checked, failures by
//! kind, and the first bad blocks with what was expected and what was found.

use std::fmt::Write as _;

use crate::profile::TimeSpan;
use crate::verify::{Found, VerifyCounts};

pub(super) fn verify_text(out: &mut String, ts: &TimeSpan, v: &VerifyCounts) {
    let failed = v.failed.total();
    let _ = writeln!(
        out,
        "\nVerify (run id {:#x}; every I/O of the timespan, warm-up and cool-down included):",
        v.run_id
    );
    let _ = writeln!(out, "  blocks written:  {}", v.written);
    let _ = writeln!(out, "  reads verified:  {}", v.verified);
    let _ = writeln!(
        out,
        "  reads skipped:   {} (blocks neither written in this run nor created with -c --verify)",
        v.skipped
    );
    let _ = write!(out, "  reads failed:    {failed}");
    if failed > 0 {
        let _ = write!(out, " ({})", v.failed.describe());
    }
    out.push('\n');
    if !v.first.is_empty() {
        let _ = writeln!(out, "  first bad blocks:");
        for found in &v.first {
            found_text(out, &target_name(ts, found.target), v.run_id, found);
        }
    }
}

/// The path of target `index` of `ts`.
pub fn target_name(ts: &TimeSpan, index: usize) -> String {
    ts.targets.get(index).map_or_else(
        || format!("target {index}"),
        |t| t.path.display().to_string(),
    )
}

/// One bad block in two lines: where and what kind; what was expected and what was found.
pub fn found_text(out: &mut String, path: &str, run_id: u64, f: &Found) {
    let m = &f.mismatch;
    let by = f
        .thread
        .map_or(String::new(), |t| format!(", read by thread {t}"));
    let _ = writeln!(
        out,
        "    {}: '{path}' offset {} ({} bytes){by}",
        m.kind.name(),
        f.offset,
        f.len
    );
    let _ = write!(
        out,
        "      expected run {run_id:#x} offset {} generation {}; found ",
        f.offset, m.expected_generation
    );
    let _ = match &m.found {
        Some(h) => write!(
            out,
            "run {:#x} offset {} generation {} target {} thread {}",
            h.run_id, h.offset, h.generation, h.target, h.thread
        ),
        None => write!(out, "no valid header"),
    };
    if let Some((sector, generation)) = m.torn_sector {
        let _ = write!(out, "; sector {sector} is from generation {generation}");
    }
    if let Some((at, want, got)) = m.first_difference {
        let _ = write!(
            out,
            "; first differing byte {at}: expected {want:#04x}, found {got:#04x}"
        );
    }
    out.push('\n');
}
