//! `--checkpoint=SECONDS`: the results measured so far, built from the collector's running totals
//! while the run goes, so the `--output` files can be rewritten and a run that is killed loses at
//! most one period.

use super::RunInput;
use super::monitor::Moment;
use crate::live::Collector;
use crate::stats::{ThreadResults, TimeSpanResults, WaitStats};

/// The timespan's results up to `moment`, as far as the threads have shipped their intervals.
pub fn partial(
    input: &RunInput<'_>,
    collector: &Collector<'_>,
    moment: &Moment,
    cpu_now: Vec<crate::stats::CpuTimes>,
) -> Option<TimeSpanResults> {
    let totals = collector.totals()?;
    let threads = input
        .plans
        .iter()
        .zip(totals)
        .map(|(plan, targets)| ThreadResults {
            thread: plan.thread,
            cpu: plan.cpu,
            targets: targets.clone(),
            waits: WaitStats::default(),
            depth: plan.slots(),
            replay: None,
            slowest: Default::default(),
            failed: Default::default(),
        })
        .collect();
    let mut partial = input.results(
        moment.start_time,
        Some(moment.window_ns.max(1)),
        threads,
        (moment.cpu_start.clone(), cpu_now),
        collector.rows(),
    );
    // Threads hand their --verify counts over when they end: until then a partial report would
    // show zeros, as if nothing had been checked, so it shows none.
    partial.verify = None;
    Some(partial)
}
