//! `--ioprio-split`: each target's reads and writes by I/O priority, every thread (or every run
//! merged) added, as rates over the window and latency percentiles.

use crate::report::model::{PriorityReport, PriorityRow};
use crate::stats::priorities::PriorityStats;

/// Per path, its counts by priority so far.
pub(crate) type ByPriority = Vec<(String, PriorityStats)>;

/// Adds a thread's counts on `path`.
pub(crate) fn add(sums: &mut ByPriority, path: &str, stats: &PriorityStats) {
    match sums.iter_mut().find(|(p, _)| p == path) {
        Some((_, sum)) => sum.merge(stats),
        None => sums.push((path.to_string(), stats.clone())),
    }
}

/// Adds what a report of a window holds (merging runs): each priority's statistics rebuilt from
/// its exact histogram.
pub(crate) fn add_reported(
    sums: &mut ByPriority,
    reports: &[PriorityReport],
) -> Result<(), String> {
    for r in reports {
        let mut stats = PriorityStats::new(r.priorities.iter().map(PriorityRow::ioprio).collect());
        for (k, row) in r.priorities.iter().enumerate() {
            stats.read[k] = row.read.stats()?;
            stats.write[k] = row.write.stats()?;
        }
        add(sums, &r.path, &stats);
    }
    Ok(())
}

/// The figures of each path's priorities over a window of `seconds`.
pub(crate) fn report(sums: ByPriority, seconds: f64, percentiles: &[f64]) -> Vec<PriorityReport> {
    let of = |s: &crate::stats::OpStats| super::build::direction(s, seconds, None, percentiles);
    sums.into_iter()
        .map(|(path, s)| PriorityReport {
            path,
            priorities: s
                .priorities
                .iter()
                .enumerate()
                .map(|(k, &p)| PriorityRow {
                    class: (p >> 13) as u8,
                    level: (p & 7) as u8,
                    read: of(&s.read[k]),
                    write: of(&s.write[k]),
                })
                .collect(),
        })
        .collect()
}
