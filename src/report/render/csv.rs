//! `--output=FILE.csv`: one row per timespan — a sweep point, a repetition, or a timespan of a
//! profile — with the swept options first, then rates, latency, CPU and achieved depth, for a
//! spreadsheet or a plotting script: the sweep's table ([`crate::report::analysis::sweep::table`])
//! in its columns for programs.

use crate::report::Report;
use crate::report::analysis::sweep::{of as sweep_of, table};

/// The rows.
pub fn render(report: &Report) -> String {
    let sweep = report.sweep.clone().or_else(|| sweep_of(report));
    super::table::csv(&table(report, sweep.as_ref()))
}
