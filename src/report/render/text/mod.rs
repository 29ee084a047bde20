//! The text report, laid out like DiskSpd 2.3 so that people and parsers that read DiskSpd's output
//! read this one: the same sections, blank lines, column widths and units. One file per section:
//! the input parameters (`profile`), the system (`system`), each timespan's results (`results`)
//! and the optional tables after them (`extra`). Everything iospd adds comes after DiskSpd's whole
//! report, under `Beyond DiskSpd:` (`beyond`): the engine, achieved depth, time statistics, how the
//! start was agreed and, across hosts, the ranks and hosts (`cluster`), verification, repetitions.

pub mod beyond;
mod cluster;
mod extra;
mod failed;
mod priorities;
mod profile;
mod repetitions;
pub(crate) mod replay;
mod results;
mod steady;
mod sweep;
mod system;
pub mod verify;

use std::fmt::Write as _;

use crate::engine::EngineSetup;
use crate::report::{Report, Totals};
pub use profile::profile_text;
pub use system::system_text;

const STARS: &str =
    "*******************************************************************************";
const NS_PER_MS: f64 = 1_000_000.0;
const MIB: f64 = 1024.0 * 1024.0;

/// The whole report: profile, system information, results, and totals over timespans.
pub fn render(report: &Report) -> String {
    if let Some(s) = &report.sweep {
        let mut out = String::new();
        sweep::sweep_text(&mut out, report, s);
        if let Some(r) = &report.repetitions {
            repetitions::repetitions_text(&mut out, r);
        }
        return out;
    }
    let mut out = String::new();
    // Said first, before DiskSpd's layout, so neither a person nor a script can miss it.
    if let Some(stopped) = report.stopped_early() {
        out.push_str(&stopped.line());
        out.push_str("\n\n");
    }
    out.push_str(&profile_text(&report.profile, &report.system));
    let start = report
        .timespans
        .first()
        .map_or("", |t| t.start_time_utc.as_str());
    out.push_str(&system_text(&report.system, start));
    for (i, ts) in report.timespans.iter().enumerate() {
        let _ = write!(out, "\nResults for timespan {}:\n{STARS}\n", i + 1);
        match &ts.measured {
            None => out.push_str("The test was interrupted before the measurements began. No results are displayed.\n"),
            Some(m) => {
                // Past a number of ranks, a row per rank's thread and target is left to JSON/XML.
                let detailed = ts.cluster.as_ref().is_none_or(|c| c.detailed());
                results::results_text(&mut out, &report.profile, &report.profile.timespans[i], m, &report.system, detailed)
            }
        }
    }
    if let Some(totals) = &report.totals {
        totals_text(&mut out, totals);
    }
    beyond::report_text(&mut out, report, &driven(report));
    if let Some(r) = &report.repetitions {
        repetitions::repetitions_text(&mut out, r);
    }
    if let Some(line) = report.partial_line() {
        out.push('\n');
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// How a timespan's I/O was driven: the engine that ran and the spin budget the threads used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Driven {
    /// The engine.
    pub engine: EngineSetup,
    /// The completion polling budget; `None` shows the requested policy.
    pub spin_ns: Option<u64>,
}

/// How each timespan of `report` ran (for the input parameters, which say what ran).
pub fn driven(report: &Report) -> Vec<Driven> {
    report
        .timespans
        .iter()
        .map(|t| Driven {
            engine: t.engine,
            spin_ns: Some(t.spin_ns),
        })
        .collect()
}

fn line(out: &mut String, indent: usize, text: impl std::fmt::Display) {
    let _ = writeln!(out, "{:indent$}{text}", "");
}

fn totals_text(out: &mut String, totals: &Totals) {
    let _ = write!(out, "\n\nTotals:\n{STARS}\n\n");
    out.push_str("type   |       bytes     |     I/Os     |    MiB/s   |  I/O per s\n");
    let rule = "-".repeat(79);
    let _ = writeln!(out, "{rule}");
    for (name, sum) in [("write", &totals.write), ("read", &totals.read)] {
        let _ = writeln!(
            out,
            "{name:<6} | {:15} | {:12} | {:10.2} | {:10.2}",
            sum.bytes,
            sum.ios,
            sum.bytes_per_s / MIB,
            sum.ios_per_s
        );
    }
    let _ = writeln!(out, "{rule}");
    let t = &totals.total;
    let _ = writeln!(
        out,
        "total  | {:15} | {:12} | {:10.2} | {:10.2}",
        t.bytes,
        t.ios,
        t.bytes_per_s / MIB,
        t.ios_per_s
    );
    let _ = write!(out, "\ntotal test time:\t{:.2}s\n", totals.duration_s);
}
