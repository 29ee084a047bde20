//! `--checkpoint=SECONDS`: the results measured so far, built from the collector's running totals
//! while the run goes, so the `--output` files can be rewritten and a run that is killed loses at
//! most one period.

use crate::engine::EngineSetup;
use crate::live::Collector;
use crate::monitor::Moment;
use crate::run::RunInput;
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
        })
        .collect();
    Some(TimeSpanResults {
        start_time: moment.start_time,
        window: Some(moment.window_ns.max(1)),
        threads,
        cpu: (moment.cpu_start.clone(), cpu_now),
        engine: EngineSetup::plain(input.engine),
        failure: None,
        lost: None,
        interrupted: false,
        target_sizes: input.targets.iter().map(|t| t.size).collect(),
        spin_ns: input.spin_ns,
        counters: Vec::new(),
        distributions: input
            .targets
            .iter()
            .map(|t| t.distribution.clone())
            .collect(),
        timeline: collector.rows().to_vec(),
        trace: None,
        observer_errors: Vec::new(),
    })
}
