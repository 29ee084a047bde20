//! Merging JSON results of several runs into one, exactly: counts and bytes add, latency
//! histograms merge (so the merged percentiles are those of every I/O together), and every printed
//! number is recomputed by the same functions that built the original reports.
//!
//! Timespan `i` of every run merges into timespan `i` of the result. The merged measured window is
//! the union of the runs' windows on the wall clock: runs one after the other (24 one-hour chunks)
//! add their durations, and their time series rows and `-D` buckets are concatenated in time
//! order; runs at the same time (one per machine, started together with `--start-at` or by MPI)
//! share theirs, so their rates add, and their series are aligned on the common timeline — each
//! run's intervals move by the whole number of intervals its window started after the first — and
//! interval `k` of the result is interval `k` of every run together: counts, rates, minimum, mean
//! and maximum exactly; the time series' percentiles are the largest of the runs' (an upper bound:
//! those rows keep no histogram). Threads are renumbered after each other; CPU utilisation is
//! averaged, weighted by each run's duration.

use std::collections::BTreeMap;

use crate::report::analysis::build::{Load, MeasuredParts};
use crate::report::{
    CpuUsage, Direction, Directions, Measured, RankHost, Report, TargetTotals, ThreadReport,
    ThreadTarget, TimeSpanReport, directions, percentile_list, totals_over,
};
use crate::stats::intervals::Interval;
use crate::stats::series::Series as RankSeries;
use crate::stats::{OpSet, OpStats};

impl Direction {
    /// Its `-D` buckets, rebuilt from their exact sums.
    pub fn buckets(&self) -> Result<Vec<Interval>, String> {
        self.intervals
            .iter()
            .map(|b| {
                Ok(Interval {
                    count: b.ios,
                    min_ns: b.latency_min_ns,
                    max_ns: b.latency_max_ns,
                    sum_ns: u64::try_from(b.latency_sum_ns)
                        .map_err(|_| crate::stats::Overflow.to_string())?,
                    sum_sq: b.latency_sum_squares_ns2,
                })
            })
            .collect()
    }

    /// The statistics behind this direction, rebuilt from the report: exact counts, bytes,
    /// latency histogram and `-D` buckets (from their exact sums).
    pub fn stats(&self) -> Result<OpStats, String> {
        let latency = match &self.latency {
            Some(l) => l.histogram()?,
            None => Default::default(),
        };
        let intervals = self.buckets()?;
        let from_intended = match &self.latency_from_intended {
            Some(l) => Some(Box::new(l.histogram()?)),
            None => None,
        };
        Ok(OpStats {
            ios: self.ios,
            bytes: self.bytes,
            latency,
            intervals,
            from_intended,
        })
    }
}

/// Statistics of every kind of I/O being merged.
#[derive(Default, Clone)]
struct Pair(OpSet);

impl Pair {
    /// Adds a run's directions: its `-D` buckets after ours (`Concatenate`), or merged with ours
    /// bucket by bucket, moved by a number of buckets (`Align`).
    fn add(&mut self, d: &Directions, series: Series) -> Result<(), String> {
        let ops = &mut self.0;
        let mut pairs = vec![(&mut ops.read, &d.read), (&mut ops.write, &d.write)];
        for (mine, theirs) in [(&mut ops.trim, &d.trim), (&mut ops.flush, &d.flush)] {
            if let Some(theirs) = theirs {
                pairs.push((mine.get_or_insert_with(OpStats::default), theirs));
            }
        }
        for (mine, theirs) in pairs {
            let mut theirs = theirs.stats()?;
            if let Series::Align(shift) = series
                && shift > 0
                && !theirs.intervals.is_empty()
            {
                // Runs at the same time begin within the first one's window, so within its
                // buckets: a later start says the result's times and buckets disagree (and is
                // never used to size the series).
                let held = mine.intervals.len().max(theirs.intervals.len());
                if shift > held + 1 {
                    return Err(format!(
                        "its measured window began {shift} -D intervals after the first run's, whose windows overlap it by their start times and durations but hold {held} intervals: the times and the -D series disagree, so the results were edited or damaged"
                    ));
                }
                let mut moved = vec![Interval::default(); shift];
                moved.extend_from_slice(&theirs.intervals);
                theirs.intervals = moved;
            }
            if series == Series::Concatenate {
                let mut intervals = std::mem::take(&mut mine.intervals);
                intervals.extend_from_slice(&theirs.intervals);
                mine.try_merge(&OpStats {
                    intervals: Vec::new(),
                    ..theirs
                })
                .map_err(|e| e.to_string())?;
                mine.intervals = intervals;
            } else {
                mine.try_merge(&theirs).map_err(|e| e.to_string())?;
            }
        }
        // Reads and writes add up to the total too.
        self.0
            .read
            .clone()
            .try_merge(&self.0.write)
            .map_err(|e| e.to_string())
    }
}

/// How a run's time series joins the others'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Series {
    /// After them: the runs were one after the other.
    Concatenate,
    /// With them, bucket by bucket, this many buckets later: the runs were at the same time.
    Align(usize),
}

/// The length of the union of `[start, end)` windows.
fn union_length(mut windows: Vec<(f64, f64)>) -> f64 {
    windows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut total = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for (start, end) in windows {
        match &mut current {
            Some((_, e)) if start <= *e => *e = e.max(end),
            _ => {
                if let Some((s, e)) = current {
                    total += e - s;
                }
                current = Some((start, end));
            }
        }
    }
    total + current.map_or(0.0, |(s, e)| e - s)
}

/// Where the measured window of timespan `index` of a run begins on the wall clock.
fn window_start(index: usize, report: &Report, ts: &TimeSpanReport) -> f64 {
    let warmup = report
        .profile
        .timespans
        .get(index)
        .map_or(0, |t| t.warmup_s);
    ts.start_unix_s + warmup as f64
}

/// The measured windows of timespan `index` of each run that measured it, on the wall clock.
fn windows(index: usize, parts: &[(&Report, &TimeSpanReport)]) -> Vec<(f64, f64)> {
    parts
        .iter()
        .filter_map(|(report, ts)| {
            let begin = window_start(index, report, ts);
            ts.measured.as_ref().map(|m| (begin, begin + m.duration_s))
        })
        .collect()
}

/// No two windows overlap: the runs were one after another.
fn disjoint(windows: &[(f64, f64)]) -> bool {
    let mut sorted = windows.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    sorted.windows(2).all(|w| w[0].1 <= w[1].0)
}

/// How the runs relate in each timespan and what merging them therefore adds, one line per
/// timespan, for `iospd merge` to say.
pub fn relation(runs: &[Report]) -> Vec<String> {
    let count = runs.first().map_or(0, |r| r.timespans.len());
    (0..count)
        .map(|index| {
            let parts: Vec<(&Report, &TimeSpanReport)> = runs
                .iter()
                .filter_map(|r| Some((r, r.timespans.get(index)?)))
                .collect();
            let windows = windows(index, &parts);
            let seconds = union_length(windows.clone());
            if windows.len() < 2 {
                format!(
                    "timespan {}: measured by {} of the runs: nothing combined",
                    index + 1,
                    windows.len()
                )
            } else if disjoint(&windows) {
                format!(
                    "timespan {}: {} runs one after another: counts added over the sum of their windows ({seconds:.2}s); thread counts and queue depths are one run's, not added",
                    index + 1,
                    windows.len()
                )
            } else {
                format!(
                    "timespan {}: {} runs at the same time: rates, threads and queue depths added over their shared window ({seconds:.2}s)",
                    index + 1,
                    windows.len()
                )
            }
        })
        .collect()
}

/// Merges runs into one report. Every run must have the same number of timespans.
pub fn merge(runs: &[Report]) -> Result<Report, String> {
    merge_labelled(&runs.iter().collect::<Vec<_>>(), None, &[])
}

/// Merges runs, each the work of one rank of a run across hosts (`ranks`, in the runs' order):
/// each thread row says which.
pub(crate) fn merge_labelled(
    runs: &[&Report],
    ranks: Option<&[RankHost]>,
    series: &[Option<RankSeries>],
) -> Result<Report, String> {
    let first = runs.first().ok_or("no runs to merge")?;
    let count = first.timespans.len();
    if let Some(odd) = runs.iter().position(|r| r.timespans.len() != count) {
        return Err(format!(
            "run {} has {} timespans and run 1 has {count}; merge runs of the same profile",
            odd + 1,
            runs[odd].timespans.len()
        ));
    }
    let percentiles = percentile_list(&first.profile.percentiles);
    let mut timespans = Vec::with_capacity(count);
    for index in 0..count {
        let parts: Vec<(&Report, &TimeSpanReport)> =
            runs.iter().map(|&r| (r, &r.timespans[index])).collect();
        let series = series.get(index).and_then(Option::as_ref);
        timespans.push(merge_timespan(index, &parts, &percentiles, ranks, series)?);
    }
    // The totals over timespans add again: they must fit too.
    for pick in [
        |d: &Directions| (d.read.ios, d.read.bytes),
        |d: &Directions| (d.write.ios, d.write.bytes),
        |d: &Directions| (d.total.ios, d.total.bytes),
    ] {
        let (mut ios, mut bytes) = (0u64, 0u64);
        for (i, b) in timespans
            .iter()
            .filter_map(|t| t.measured.as_ref())
            .map(|m| pick(&m.totals))
        {
            ios = ios
                .checked_add(i)
                .ok_or_else(|| crate::stats::Overflow.to_string())?;
            bytes = bytes
                .checked_add(b)
                .ok_or_else(|| crate::stats::Overflow.to_string())?;
        }
    }
    let mut profile = first.profile.clone();
    profile.command_line = format!(
        "iospd merge ({} runs) of: {}",
        runs.len(),
        profile.command_line
    );
    let mut merged = Report {
        totals: totals_over(profile.timespans.len(), &timespans),
        schema_version: first.schema_version,
        tool: first.tool.clone(),
        profile,
        system: first.system.clone(),
        timespans,
        repetitions: None,
        sweep: None,
        partial: runs.iter().any(|r| r.partial),
        partial_why: runs.iter().find_map(|r| r.partial_why.clone()),
    };
    merged.repetitions = crate::report::analysis::repetitions::of(&merged);
    merged.sweep = crate::report::analysis::sweep::of(&merged);
    Ok(merged)
}

fn merge_timespan(
    index: usize,
    parts: &[(&Report, &TimeSpanReport)],
    percentiles: &[f64],
    ranks: Option<&[RankHost]>,
    series: Option<&RankSeries>,
) -> Result<TimeSpanReport, String> {
    let mut merged = outcome(parts);
    merged.measured = merge_measured(index, parts, percentiles, ranks, series)?;
    if merged.measured.is_some() {
        merged.trace = merge_traces(parts)?;
    }
    Ok(merged)
}

/// What the timespan's runs say about how it went: the earliest start, and any interruption,
/// failure, lost target or verify counts among them.
fn outcome(parts: &[(&Report, &TimeSpanReport)]) -> TimeSpanReport {
    let first = parts[0].1;
    let earliest = parts
        .iter()
        .map(|(_, ts)| *ts)
        .min_by(|a, b| a.start_unix_s.total_cmp(&b.start_unix_s))
        .expect("at least one run")
        .clone();
    TimeSpanReport {
        start_time_utc: earliest.start_time_utc,
        start_unix_s: earliest.start_unix_s,
        engine: first.engine,
        spin_ns: first.spin_ns,
        interrupted: parts.iter().any(|(_, t)| t.interrupted),
        stopped_by: parts.iter().find_map(|(_, t)| t.stopped_by.clone()),
        failure: parts.iter().find_map(|(_, t)| t.failure.clone()),
        // Counts add; the first is the earliest after its run's start (the ranks of a run
        // across hosts share theirs).
        failed_ios: parts
            .iter()
            .filter_map(|(_, t)| t.failed_ios.as_ref())
            .fold(None, |sum: Option<crate::stats::FailedIos>, f| {
                let mut sum = sum.unwrap_or_default();
                sum.add(f);
                Some(sum)
            }),
        // Each run judged its own throughput: the first run's verdict stands for the timespan.
        steady_stop: first.steady_stop.clone(),
        lost_target: parts.iter().find_map(|(_, t)| t.lost_target.clone()),
        trace: None,
        start: parts
            .iter()
            .filter_map(|(_, t)| t.start.clone())
            .max_by_key(|s| s.lateness_ns),
        cluster: None,
        verify: parts
            .iter()
            .filter_map(|(_, t)| t.verify.clone())
            .reduce(|mut all, v| {
                all.add(v);
                all
            }),
        dedupes: parts
            .iter()
            .flat_map(|(_, t)| t.dedupes.iter().cloned())
            .collect(),
        // One replay's timing is its own: kept when one run is merged, not added across runs.
        replay: match parts {
            [(_, t)] => t.replay.clone(),
            _ => None,
        },
        measured: None,
    }
}

/// The `--trace` counts of the runs that traced, added up.
fn merge_traces(
    parts: &[(&Report, &TimeSpanReport)],
) -> Result<Option<crate::stats::TraceCounts>, String> {
    let traced: Vec<_> = parts.iter().filter_map(|(_, t)| t.trace.as_ref()).collect();
    if traced.is_empty() {
        return Ok(None);
    }
    let sum = |pick: fn(&crate::stats::TraceCounts) -> u64| {
        traced
            .iter()
            .try_fold(0u64, |sum, t| sum.checked_add(pick(t)))
            .ok_or_else(|| crate::stats::Overflow.to_string())
    };
    Ok(Some(crate::stats::TraceCounts {
        records: sum(|t| t.records)?,
        dropped: sum(|t| t.dropped)?,
        lost: sum(|t| t.lost)?,
        error: traced.iter().find_map(|t| t.error.clone()),
    }))
}

/// One run's measured window, where it began, and the rank that ran it.
type Window<'a> = (f64, &'a Measured, Option<&'a RankHost>);

/// The measured results of the timespan's runs together; `None` when none measured anything.
fn merge_measured(
    index: usize,
    parts: &[(&Report, &TimeSpanReport)],
    percentiles: &[f64],
    ranks: Option<&[RankHost]>,
    series: Option<&RankSeries>,
) -> Result<Option<Measured>, String> {
    let windows = windows(index, parts);
    let disjoint = disjoint(&windows);
    let seconds = union_length(windows.clone());
    // Runs in time order, so concatenated series come out in order.
    let mut measured: Vec<Window> = parts
        .iter()
        .enumerate()
        .filter_map(|(run, (report, ts))| {
            let rank = ranks.and_then(|r| r.get(run));
            ts.measured
                .as_ref()
                .map(|m| (window_start(index, report, ts), m, rank))
        })
        .collect();
    measured.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some(&(origin, first, _)) = measured.first() else {
        return Ok(None);
    };
    let interval_ms = parts[0]
        .0
        .profile
        .timespans
        .get(index)
        .and_then(|t| t.iops_interval_ms);
    let mut path_runs = BTreeMap::new();
    for (_, m, _) in &measured {
        for target in &m.targets {
            *path_runs.entry(target.path.clone()).or_insert(0) += 1;
        }
    }
    let mut sums = Sums {
        seconds,
        path_runs,
        ..Sums::default()
    };
    for &(start, m, rank) in &measured {
        // Concurrent runs: how many `-D` buckets later this one's window began.
        let series = match interval_ms {
            _ if disjoint => Series::Concatenate,
            Some(ms) => Series::Align(((start - origin) * 1e3 / ms as f64).round() as usize),
            None => Series::Align(0),
        };
        sums.add(m, rank, series, interval_ms, percentiles)?;
        sums.add_timeline(m, (start - origin) * 1e3, disjoint);
    }
    let Sums {
        mut totals,
        per_path,
        threads,
        mut timeline,
        cpu,
        counters,
        ..
    } = sums;
    timeline.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    if !disjoint {
        timeline = crate::stats::timeline::Row::merge_coinciding(timeline);
    }
    // Ranks whose series were added up on their way here (the runs carry none of their own).
    if let Some(series) = series {
        let ops = &mut totals.0;
        let [read, write, trim, flush] = series.kinds.clone();
        ops.read.intervals = read.unwrap_or_default();
        ops.write.intervals = write.unwrap_or_default();
        for (mine, theirs) in [(&mut ops.trim, trim), (&mut ops.flush, flush)] {
            if let (Some(mine), Some(theirs)) = (mine.as_mut(), theirs) {
                mine.intervals = theirs;
            }
        }
        timeline = series.timeline.clone();
    }
    let (cpu, cpu_average) = cpu_means(cpu);
    let effective_affinity: Vec<u32> = measured
        .iter()
        .flat_map(|(_, m, _)| m.effective_affinity.iter().copied())
        .collect();
    let reality = realities(&measured);
    let mut merged = Measured::new(
        MeasuredParts {
            seconds,
            interval_ms,
            load: load(disjoint, &measured, &threads, seconds),
            ops: totals.0,
            per_path: per_path
                .into_iter()
                .map(|(path, sum)| match sum {
                    PathSum::Done(totals) => *totals,
                    PathSum::Open(pair, _) => TargetTotals {
                        path,
                        directions: directions(&pair.0, seconds, interval_ms, percentiles),
                    },
                })
                .collect(),
            threads,
            cpu_average,
            cpu,
            effective_affinity,
            counters,
            distributions: first.distributions.clone(),
            skews: skews(&measured),
            by_size: {
                let mut sums = super::sizes::BySize::new();
                for (_, m, _) in &measured {
                    super::sizes::add_reported(&mut sums, &m.block_sizes);
                }
                sums
            },
            by_priority: {
                let mut sums = super::priorities::ByPriority::new();
                for (_, m, _) in &measured {
                    super::priorities::add_reported(&mut sums, &m.priorities)?;
                }
                sums
            },
            slowest: slowest(&measured),
            timeline,
        },
        percentiles,
    );
    merged.reality = reality;
    Ok(Some(merged))
}

/// Every run's "is this real" together: each one's devices, paths and findings, named by rank
/// and host where the runs were ranks; the first run's fingerprint; CPU per I/O over them all.
fn realities(measured: &[Window]) -> Option<crate::report::Reality> {
    let mut all: Option<crate::report::Reality> = None;
    let (mut cpu_ns, mut ios) = (0.0, 0.0);
    for (_, m, rank) in measured {
        let Some(r) = &m.reality else { continue };
        let name = |s: &str| match rank {
            Some(rh) => format!("rank {} ({}): {s}", rh.rank, rh.host),
            None => s.to_string(),
        };
        let n = m.totals.total.ios as f64;
        cpu_ns += r.generator.cpu_ns_per_io * n;
        ios += n;
        let sum = all.get_or_insert_with(|| crate::report::Reality {
            fingerprint: r.fingerprint.clone(),
            ..Default::default()
        });
        sum.devices
            .extend(r.devices.iter().map(|d| crate::report::DeviceCheck {
                device: name(&d.device),
                ..d.clone()
            }));
        sum.deviceless.extend(r.deviceless.iter().map(|p| name(p)));
        sum.reduction.extend(r.reduction.iter().cloned());
        sum.generator
            .generation
            .extend(r.generator.generation.iter().cloned());
        for flag in &r.flags {
            let flag = name(flag);
            if !sum.flags.contains(&flag) {
                sum.flags.push(flag);
            }
        }
        // Each run's threads' waits; the CPUs' figures of the busiest run.
        sum.cpu.waited.extend(r.cpu.waited.iter().cloned());
        sum.cpu.others_percent = sum.cpu.others_percent.max(r.cpu.others_percent);
        sum.cpu.steal_percent = sum.cpu.steal_percent.max(r.cpu.steal_percent);
        for checked in &r.checked {
            if !sum.checked.contains(checked) {
                sum.checked.push(checked.clone());
            }
        }
    }
    if let Some(sum) = &mut all {
        sum.generator.cpu_ns_per_io = if ios > 0.0 { cpu_ns / ios } else { 0.0 };
    }
    all
}

/// The runs' hot-set counts together, per path.
/// The slowest I/Os of the merged windows: the slowest of each's.
fn slowest(measured: &[Window]) -> Vec<crate::report::SlowIoReport> {
    let mut all: Vec<_> = measured
        .iter()
        .flat_map(|(_, m, _)| m.slowest.iter().cloned())
        .collect();
    all.sort_by_key(|io| std::cmp::Reverse(io.latency_ns));
    all.truncate(crate::stats::slowest::KEPT);
    all
}

fn skews(measured: &[Window]) -> Vec<(String, crate::profile::Skew, crate::stats::SkewCounts)> {
    let mut sums = Vec::new();
    for (_, m, _) in measured {
        for r in &m.skews {
            let counts = crate::stats::SkewCounts {
                positions: r.positions,
                ios: r.ios,
                hot: [0, 1].map(|i| r.hot_sets.get(i).map_or(0, |h| h.ios)),
            };
            super::build::add_skew(&mut sums, &r.path, r.distribution, &counts);
        }
    }
    sums
}

/// A run across ranks hands rank 0 no `-D` buckets of its threads (see
/// `analysis::cluster::take_series`): their IOPS deviation across intervals is the one each rank
/// measured.
fn keep_iops_stddev(rendered: &mut Directions, measured: &Directions) {
    let pairs = [
        (Some(&mut rendered.read), Some(&measured.read)),
        (Some(&mut rendered.write), Some(&measured.write)),
        (Some(&mut rendered.total), Some(&measured.total)),
        (rendered.trim.as_mut(), measured.trim.as_ref()),
        (rendered.flush.as_mut(), measured.flush.as_ref()),
    ];
    for (mine, theirs) in pairs {
        if let (Some(mine), Some(theirs)) = (mine, theirs)
            && mine.intervals.is_empty()
            && theirs.intervals.is_empty()
        {
            mine.ios_per_s_stddev = theirs.ios_per_s_stddev;
        }
    }
}

/// A target path's sum: open while runs that measured it are still to come, then rendered (so
/// its histograms go: a run across ranks has a path per rank).
enum PathSum {
    Open(Box<Pair>, usize),
    Done(Box<TargetTotals>),
}

/// What the runs' measured windows add up to, run by run.
#[derive(Default)]
struct Sums {
    totals: Pair,
    per_path: Vec<(String, PathSum)>,
    /// The merged window's length, for rendering paths as they are done.
    seconds: f64,
    /// How many runs measured each path.
    path_runs: BTreeMap<String, usize>,
    threads: Vec<ThreadReport>,
    timeline: Vec<crate::stats::timeline::Row>,
    /// Per CPU: seconds of runs that saw it, and its usage weighted by them.
    cpu: BTreeMap<u32, (f64, CpuUsage)>,
    counters: Vec<crate::counters::Counter>,
}

impl Sums {
    /// How many of the runs measured `path`.
    fn runs_of(&self, path: &str) -> usize {
        self.path_runs.get(path).copied().unwrap_or(1)
    }

    /// Adds one run's totals, targets, threads (renumbered after those before), CPU use and
    /// counters.
    fn add(
        &mut self,
        m: &Measured,
        rank: Option<&RankHost>,
        series: Series,
        interval_ms: Option<u32>,
        percentiles: &[f64],
    ) -> Result<(), String> {
        self.totals.add(&m.totals, series)?;
        for target in &m.targets {
            let at = match self.per_path.iter().position(|(p, _)| *p == target.path) {
                Some(at) => at,
                None => {
                    let runs = self.runs_of(&target.path);
                    self.per_path
                        .push((target.path.clone(), PathSum::Open(Box::default(), runs)));
                    self.per_path.len() - 1
                }
            };
            let seconds = self.seconds;
            let slot = &mut self.per_path[at].1;
            if let PathSum::Open(pair, left) = slot {
                pair.add(&target.directions, series)?;
                *left = left.saturating_sub(1);
                if *left == 0 {
                    *slot = PathSum::Done(Box::new(TargetTotals {
                        path: target.path.clone(),
                        directions: directions(&pair.0, seconds, interval_ms, percentiles),
                    }));
                }
            }
        }
        for thread in &m.threads {
            let mut targets = Vec::with_capacity(thread.targets.len());
            for t in &thread.targets {
                let mut pair = Pair::default();
                pair.add(&t.directions, series)?;
                // A thread's rates are over its own run's window, not the merged one.
                let mut rendered = directions(&pair.0, m.duration_s, interval_ms, percentiles);
                keep_iops_stddev(&mut rendered, &t.directions);
                targets.push(ThreadTarget {
                    directions: rendered,
                    ..t.clone()
                });
            }
            self.threads.push(ThreadReport {
                thread: self.threads.len() as u32,
                cpu: thread.cpu,
                depth: thread.depth,
                achieved_depth: thread.achieved_depth,
                on_cpu_percent: thread.on_cpu_percent,
                spin_percent: thread.spin_percent,
                in_engine_percent: thread.in_engine_percent,
                in_loop_percent: thread.in_loop_percent,
                waits: thread.waits.clone(),
                submits_per_s: if m.duration_s > 0.0 {
                    thread.waits.submits as f64 / m.duration_s
                } else {
                    0.0
                },
                host: rank.cloned().or_else(|| thread.host.clone()),
                targets,
            });
        }
        for usage in &m.cpu {
            let entry = self.cpu.entry(usage.cpu).or_insert((
                0.0,
                CpuUsage {
                    cpu: usage.cpu,
                    ..Default::default()
                },
            ));
            add_weighted(&mut entry.1, usage, m.duration_s);
            entry.0 += m.duration_s;
        }
        for counter in &m.counters {
            match self.counters.iter_mut().find(|c| c.key == counter.key) {
                Some(c) => {
                    c.value = c
                        .value
                        .checked_add(counter.value)
                        .ok_or_else(|| crate::stats::Overflow.to_string())?
                }
                None => self.counters.push(counter.clone()),
            }
        }
        Ok(())
    }

    /// Adds one run's `-D` rows, moved to where its window began (`offset_ms` after the first).
    fn add_timeline(&mut self, m: &Measured, offset_ms: f64, disjoint: bool) {
        for row in &m.timeline {
            let mut row = row.clone();
            row.start_ms += if disjoint || row.length_ms <= 0.0 {
                offset_ms
            } else {
                // Whole intervals, so that concurrent runs' rows coincide.
                (offset_ms / row.length_ms).round() * row.length_ms
            };
            self.timeline.push(row);
        }
    }
}

/// Each CPU's usage over the runs that saw it, and their mean.
fn cpu_means(cpu: BTreeMap<u32, (f64, CpuUsage)>) -> (Vec<CpuUsage>, CpuUsage) {
    let cpu: Vec<CpuUsage> = cpu
        .into_values()
        .map(|(weight, mut usage)| {
            scale(&mut usage, if weight > 0.0 { 1.0 / weight } else { 0.0 });
            usage
        })
        .collect();
    let n = cpu.len().max(1) as f64;
    let mut average = CpuUsage::default();
    for usage in &cpu {
        add_weighted(&mut average, usage, 1.0 / n);
    }
    (cpu, average)
}

/// Runs at the same time add their threads and depths; runs one after another do not (only one
/// ran at a time): the most of any run, and the time-weighted depth and submit rate.
fn load(disjoint: bool, measured: &[Window], threads: &[ThreadReport], seconds: f64) -> Load {
    if disjoint {
        let weight = |m: &Measured| m.duration_s / seconds.max(f64::MIN_POSITIVE);
        Load {
            threads: measured
                .iter()
                .map(|(_, m, _)| m.thread_count)
                .max()
                .unwrap_or(0),
            depth: measured.iter().map(|(_, m, _)| m.depth).max().unwrap_or(0),
            achieved_depth: measured
                .iter()
                .map(|(_, m, _)| m.achieved_depth * weight(m))
                .sum(),
            submits_per_s: measured
                .iter()
                .map(|(_, m, _)| m.submits_per_s * weight(m))
                .sum(),
        }
    } else {
        Load::of(threads)
    }
}

fn add_weighted(sum: &mut CpuUsage, usage: &CpuUsage, weight: f64) {
    sum.usage += usage.usage * weight;
    sum.user += usage.user * weight;
    sum.kernel += usage.kernel * weight;
    sum.idle += usage.idle * weight;
}

fn scale(usage: &mut CpuUsage, factor: f64) {
    usage.usage *= factor;
    usage.user *= factor;
    usage.kernel *= factor;
    usage.idle *= factor;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_one_after_the_other_add_and_overlapping_ones_share() {
        assert_eq!(union_length(vec![(0.0, 10.0), (20.0, 30.0)]), 20.0);
        assert_eq!(union_length(vec![(0.0, 10.0), (5.0, 12.0)]), 12.0);
        assert_eq!(union_length(vec![(0.0, 10.0), (0.0, 10.0)]), 10.0);
    }

    #[test]
    fn interval_buckets_merge_from_their_exact_sums() {
        let bucket = |latencies: &[u64]| {
            let mut interval = Interval::default();
            for &ns in latencies {
                interval.record(ns);
            }
            interval
        };
        // Latencies whose mean is not a whole number of nanoseconds: rebuilding the sums from the
        // printed mean and deviation would lose them.
        let slow = 3_000_000_001u64;
        let (a, b) = (bucket(&[1, 2, 2]), bucket(&[slow, slow + 3]));
        let report = |i: &Interval| {
            let stats = OpStats {
                intervals: vec![*i],
                ios: i.count,
                ..OpStats::default()
            };
            crate::report::analysis::build::direction(&stats, 1.0, Some(1000), &[])
        };
        let mut merged = report(&a).stats().unwrap();
        merged.try_merge(&report(&b).stats().unwrap()).unwrap();
        let bucket = merged.intervals[0];
        assert_eq!((bucket.count, bucket.sum_ns), (5, 5 + 2 * slow + 3));
        let (s, t) = (slow as u128, slow as u128 + 3);
        assert_eq!(bucket.sum_sq, 9 + s * s + t * t);
        assert_eq!((bucket.min_ns, bucket.max_ns), (1, slow + 3));
    }
}
