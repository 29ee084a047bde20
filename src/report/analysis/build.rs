//! Building the report: every printed number computed once from the profile, the machine and
//! the measurements (rates over the measured window, percentiles from the merged histograms,
//! per-thread and per-target rows, totals over timespans).

use std::time::SystemTime;

use crate::profile::{Profile, Skew, TimeSpan};
use crate::report::{
    CpuUsage, Direction, Directions, DistributionReport, HotSet, IntervalReport, Latency, Measured,
    Percentile, Report, SCHEMA_VERSION, Shape, SkewReport, SlowIoReport, StoppedEarly, Sum,
    TargetTotals, ThreadReport, ThreadTarget, TimeSpanReport, Tool, Totals, percentile_list,
    utc_string,
};
use crate::stats::cpu::usage_between;
use crate::stats::intervals::{Interval, iops_stddev, valid};
use crate::stats::{OpSet, OpStats, RunResults, SkewCounts, TimeSpanResults};
use crate::system::SystemInfo;
use crate::worker::skew::{HOT_PERCENTS, expected_share, hot_blocks};

/// Sums over every timespan that measured something, when the profile has several (`planned`).
pub(crate) fn totals_over(planned: usize, timespans: &[TimeSpanReport]) -> Option<Totals> {
    let measured: Vec<&Measured> = timespans
        .iter()
        .filter_map(|t| t.measured.as_ref())
        .collect();
    (planned > 1).then(|| {
        let duration_s: f64 = measured.iter().map(|m| m.duration_s).sum();
        let sum = |pick: fn(&Directions) -> &Direction| {
            let ios = measured.iter().map(|m| pick(&m.totals).ios).sum();
            let bytes = measured.iter().map(|m| pick(&m.totals).bytes).sum();
            Sum {
                ios,
                bytes,
                ios_per_s: rate(ios, duration_s),
                bytes_per_s: rate(bytes, duration_s),
            }
        };
        Totals {
            duration_s,
            read: sum(|d| &d.read),
            write: sum(|d| &d.write),
            total: sum(|d| &d.total),
        }
    })
}

impl Report {
    /// Builds the report from a profile, the machine and the measurements.
    pub fn new(profile: &Profile, system: &SystemInfo, results: &RunResults) -> Report {
        let percentiles = percentile_list(&profile.percentiles);
        let timespans: Vec<TimeSpanReport> = profile
            .timespans
            .iter()
            .zip(&results.timespans)
            .map(|(ts, r)| TimeSpanReport {
                start_time_utc: utc_string(r.start_time),
                start_unix_s: r
                    .start_time
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0.0, |d| (d.as_millis() as f64) / 1e3),
                engine: r.engine,
                spin_ns: r.spin_ns,
                interrupted: r.interrupted,
                stopped_by: r.stopped_by.clone(),
                failure: r.failure.clone(),
                failed_ios: ts
                    .targets
                    .iter()
                    .any(|t| t.continue_on_error.is_some())
                    .then(|| {
                        let mut all = crate::stats::FailedIos::default();
                        for t in &r.threads {
                            all.add(&t.failed);
                        }
                        all
                    }),
                steady_stop: r.steady.clone(),
                lost_target: r.lost.clone(),
                trace: r.trace.clone(),
                start: r.lateness_ns.map(|lateness_ns| crate::report::StartReport {
                    at: crate::wall::rfc3339(r.start_time),
                    at_unix_ns: crate::wall::unix_ns(r.start_time),
                    lateness_ns,
                }),
                cluster: None,
                verify: r.verify.clone(),
                dedupes: r
                    .dedupes
                    .iter()
                    .map(
                        |&(target, plan, tally, filled)| crate::report::DedupeReport {
                            path: ts.targets[target].path.display().to_string(),
                            dedupe: ts.targets[target]
                                .dedupe
                                .expect("a plan comes from --dedupe"),
                            units: plan.units,
                            unique_units: plan.unique,
                            sets: plan.sets,
                            planned_ratio: plan.ratio(),
                            filled,
                            written_units: tally.written,
                            distinct_contents: tally.distinct,
                            written_ratio: tally.ratio(),
                        },
                    )
                    .collect(),
                replay: profile.replay.as_ref().and_then(|replay| {
                    r.threads.iter().find_map(|t| {
                        t.replay
                            .as_deref()
                            .map(|stats| super::replay::report(replay, ts, t.depth, stats))
                    })
                }),
                measured: r.window.map(|w| {
                    let mut m = measured(ts, r, w as f64 / 1e9, &percentiles);
                    // Facts are gathered at the end of a run (not for a checkpoint).
                    if r.reality.paths.len() == ts.targets.len() {
                        m.reality = Some(super::reality::reality(
                            ts,
                            &r.reality,
                            &m,
                            system,
                            r.engine.kind,
                        ));
                    }
                    m
                }),
            })
            .collect();
        let mut timespans = timespans;
        // A window cut short joins its findings: its numbers cover only the time before.
        for (t, ts) in timespans.iter_mut().zip(&profile.timespans) {
            let cut = super::reality::cut_short(t, ts);
            if let Some(reality) = t.measured.as_mut().and_then(|m| m.reality.as_mut()) {
                reality.flags.extend(cut);
                reality.checked.push("how the window ended".into());
            }
        }
        // A replay's own findings join its window's: late I/O, I/O held by the depth cap.
        for t in &mut timespans {
            let reality = t.measured.as_mut().and_then(|m| m.reality.as_mut());
            if let (Some(replay), Some(reality)) = (&t.replay, reality) {
                reality.flags.extend(super::replay::findings(replay));
                reality.checked.push("the replay's timing".into());
            }
        }
        let totals = totals_over(profile.timespans.len(), &timespans);
        let mut report = Report {
            schema_version: SCHEMA_VERSION,
            tool: Tool {
                name: "iospd".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            profile: profile.clone(),
            system: system.clone(),
            timespans,
            totals,
            repetitions: None,
            sweep: None,
            partial: false,
            partial_why: None,
        };
        report.repetitions = crate::report::analysis::repetitions::of(&report);
        report.sweep = crate::report::analysis::sweep::of(&report);
        report
    }

    /// The same report marked as a checkpoint of a run that has not finished.
    pub fn checkpoint(mut self) -> Report {
        self.partial = true;
        self
    }

    /// The same report marked as all that could be saved of a run that could not end: `why`.
    pub fn cut_short(mut self, why: String) -> Report {
        self.partial = true;
        self.partial_why = Some(why);
        self
    }

    /// The timespan that a stop cut short of its measured window, if one was.
    pub fn stopped_early(&self) -> Option<StoppedEarly> {
        self.timespans.iter().enumerate().find_map(|(i, ts)| {
            Some(StoppedEarly {
                by: ts.stopped_by.clone()?,
                timespan: i + 1,
                measured_s: ts.measured.as_ref()?.duration_s,
                asked_s: self.profile.timespans.get(i)?.duration_s,
            })
        })
    }

    /// The line that says a report is partial, and why.
    pub fn partial_line(&self) -> Option<String> {
        self.partial.then(|| match &self.partial_why {
            Some(why) => format!("Partial results: {why}"),
            None => "Partial results: a --checkpoint written while the run went on; the numbers cover the measured window up to it.".to_string(),
        })
    }
}

fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// The latency summary of a histogram at `percentiles`; `None` when it is empty.
pub(crate) fn latency_of(
    h: &crate::stats::histogram::LatencyHistogram,
    percentiles: &[f64],
) -> Option<Latency> {
    (h.count() > 0).then(|| {
        let fractions: Vec<f64> = percentiles.iter().map(|p| p / 100.0).collect();
        Latency {
            count: h.count(),
            min_ns: h.min(),
            max_ns: h.max(),
            mean_ns: h.mean(),
            stddev_ns: h.stddev(),
            percentiles: percentiles
                .iter()
                .zip(h.percentiles(&fractions))
                .map(|(&percentile, value_ns)| Percentile {
                    percentile,
                    value_ns,
                })
                .collect(),
            distinct_values: h.distinct_values(),
            histogram_v2: h.encode_v2(),
            sum_ns: h.sum(),
            sum_squares_ns2: h.sum_of_squares(),
            shape: shape(h),
        }
    })
}

/// The histogram's bins (ten per decade) and percentile curve, as far as its samples reach (one
/// more nine for each tenfold of samples, up to nine nines).
fn shape(h: &crate::stats::histogram::LatencyHistogram) -> Shape {
    let reach = (h.count().max(1) as f64).log10().floor().clamp(1.0, 9.0);
    let steps: Vec<f64> = (0..=(reach * 20.0) as u32)
        .map(|i| i as f64 / 20.0)
        .collect();
    let fractions: Vec<f64> = steps.iter().map(|n| 1.0 - 10f64.powf(-n)).collect();
    Shape {
        bins: h.log_bins(10),
        curve: steps.into_iter().zip(h.percentiles(&fractions)).collect(),
    }
}

impl Report {
    /// Completes a report read back from a file: checks that every latency histogram decodes and
    /// agrees with the exact minimum and maximum beside it, and rebuilds what the JSON leaves out
    /// (the charts' shapes).
    pub fn complete(&mut self) -> Result<(), String> {
        self.check_numbers()?;
        for m in self
            .timespans
            .iter_mut()
            .filter_map(|t| t.measured.as_mut())
        {
            let all = std::iter::once(&mut m.totals)
                .chain(m.targets.iter_mut().map(|t| &mut t.directions))
                .chain(
                    m.threads
                        .iter_mut()
                        .flat_map(|t| t.targets.iter_mut().map(|t| &mut t.directions)),
                );
            for directions in all {
                for d in [
                    &mut directions.read,
                    &mut directions.write,
                    &mut directions.total,
                ] {
                    for latency in d.latency.iter_mut().chain(&mut d.latency_from_intended) {
                        latency.shape = shape(&latency.histogram()?);
                    }
                }
            }
        }
        Ok(())
    }
}

impl Report {
    /// Refuses a read result whose numbers no run can have: a window that is not a positive,
    /// finite length, or a rate, depth or latency that is negative or not finite. (Its histograms
    /// are checked where they are decoded.)
    pub(crate) fn check_numbers(&self) -> Result<(), String> {
        let finite = |what: &str, timespan: usize, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "timespan {timespan} has {what} {v}, which no run measures"
                ))
            }
        };
        for (k, ts) in self.timespans.iter().enumerate() {
            let k = k + 1;
            finite("a start time of", k, ts.start_unix_s)?;
            let Some(m) = &ts.measured else { continue };
            if !(m.duration_s.is_finite() && m.duration_s > 0.0) {
                return Err(format!(
                    "timespan {k} has a measured window of {} s, which no run measures",
                    m.duration_s
                ));
            }
            finite("an achieved depth of", k, m.achieved_depth)?;
            finite("a submission rate of", k, m.submits_per_s)?;
            let all = std::iter::once(&m.totals)
                .chain(m.targets.iter().map(|t| &t.directions))
                .chain(
                    m.threads
                        .iter()
                        .flat_map(|t| t.targets.iter().map(|t| &t.directions)),
                );
            for directions in all {
                for d in [&directions.read, &directions.write, &directions.total] {
                    finite("an I/O rate of", k, d.ios_per_s)?;
                    finite("a byte rate of", k, d.bytes_per_s)?;
                    for l in d.latency.iter().chain(&d.latency_from_intended) {
                        finite("a mean latency of", k, l.mean_ns)?;
                        finite("a latency deviation of", k, l.stddev_ns)?;
                    }
                }
            }
        }
        Ok(())
    }
}

pub(crate) fn direction(
    stats: &OpStats,
    seconds: f64,
    interval_ms: Option<u32>,
    percentiles: &[f64],
) -> Direction {
    let latency = latency_of(&stats.latency, percentiles);
    let latency_from_intended = stats
        .from_intended
        .as_deref()
        .and_then(|h| latency_of(h, percentiles));
    // The intervals wholly inside the window: a run that ended by its work (no -d) cuts its last
    // one short, which counts over its own length and stays out of the deviation.
    let window_ms = seconds * 1000.0;
    let whole = interval_ms.map_or(0, |ms| ((window_ms + 1.0) / f64::from(ms)).floor() as usize);
    let intervals = match interval_ms {
        None => Vec::new(),
        Some(ms) => valid(&stats.intervals)
            .iter()
            .enumerate()
            .map(|(i, b): (usize, &Interval)| IntervalReport {
                end_ms: match i < whole {
                    true => (i as u64 + 1) * ms as u64,
                    false => window_ms.round() as u64,
                },
                ios: b.count,
                ios_per_s: b.count as f64 * 1000.0
                    / match i < whole {
                        true => f64::from(ms),
                        false => (window_ms - (i as f64) * f64::from(ms)).max(1.0),
                    },
                latency_min_ns: if b.count == 0 { 0 } else { b.min_ns },
                latency_max_ns: b.max_ns,
                latency_mean_ns: b.mean_ns(),
                latency_stddev_ns: b.stddev_ns(),
                latency_sum_ns: b.sum_ns as u128,
                latency_sum_squares_ns2: b.sum_sq,
            })
            .collect(),
    };
    Direction {
        ios: stats.ios,
        bytes: stats.bytes,
        ios_per_s: rate(stats.ios, seconds),
        bytes_per_s: rate(stats.bytes, seconds),
        latency,
        latency_from_intended,
        ios_per_s_stddev: interval_ms.map(|ms| {
            let kept = valid(&stats.intervals);
            match whole > 0 && whole < kept.len() {
                true => iops_stddev(&kept[..whole], ms),
                false => iops_stddev(kept, ms),
            }
        }),
        intervals,
    }
}

pub(crate) fn directions(
    ops: &OpSet,
    seconds: f64,
    interval_ms: Option<u32>,
    percentiles: &[f64],
) -> Directions {
    let mut total = ops.read.clone();
    total.merge(&ops.write);
    let of = |stats: &OpStats| direction(stats, seconds, interval_ms, percentiles);
    Directions {
        read: of(&ops.read),
        write: of(&ops.write),
        total: of(&total),
        trim: ops.trim.as_ref().map(of),
        flush: ops.flush.as_ref().map(of),
    }
}

fn measured(
    ts: &TimeSpan,
    results: &TimeSpanResults,
    seconds: f64,
    percentiles: &[f64],
) -> Measured {
    let cpu = usage_between(&results.cpu.0, &results.cpu.1);
    let n = cpu.len().max(1) as f64;
    let cpu_average = CpuUsage {
        cpu: 0,
        usage: cpu.iter().map(|c| c.usage).sum::<f64>() / n,
        user: cpu.iter().map(|c| c.user).sum::<f64>() / n,
        kernel: cpu.iter().map(|c| c.kernel).sum::<f64>() / n,
        idle: cpu.iter().map(|c| c.idle).sum::<f64>() / n,
        steal: cpu.iter().map(|c| c.steal).sum::<f64>() / n,
    };
    let effective_affinity: Vec<u32> = results.threads.iter().filter_map(|t| t.cpu).collect();
    let interval_ms = ts.iops_interval_ms;
    let path_of = |target: usize| ts.targets[target].path.display().to_string();
    let mut ops = OpSet::default();
    let mut per_path: Vec<(String, OpSet)> = Vec::new();
    let mut skews = Vec::new();
    let mut by_size = super::sizes::BySize::new();
    let mut by_priority = super::priorities::ByPriority::new();
    let mut threads = Vec::with_capacity(results.threads.len());
    for thread in &results.threads {
        let mut targets = Vec::with_capacity(thread.targets.len());
        for stats in &thread.targets {
            let these = stats.ops();
            ops.merge(&these);
            let path = path_of(stats.target);
            match per_path.iter_mut().find(|(p, _)| *p == path) {
                Some((_, sum)) => sum.merge(&these),
                None => per_path.push((path.clone(), these.clone())),
            }
            if let Some(skew) = ts.targets[stats.target].skew {
                add_skew(&mut skews, &path, skew, &stats.skew);
            }
            if let Some(sizes) = &stats.by_size {
                super::sizes::add(&mut by_size, &path, sizes);
            }
            if let Some(priorities) = &stats.by_priority {
                super::priorities::add(&mut by_priority, &path, priorities);
            }
            targets.push(ThreadTarget {
                target: stats.target,
                path,
                size_bytes: results.target_sizes[stats.target],
                directions: directions(&these, seconds, interval_ms, percentiles),
            });
        }
        let window_ns = seconds * 1e9;
        let share = |ns: u64| {
            if window_ns > 0.0 {
                ns as f64 / window_ns * 100.0
            } else {
                0.0
            }
        };
        let w = &thread.waits;
        threads.push(ThreadReport {
            thread: thread.thread,
            cpu: thread.cpu,
            waits: w.clone(),
            submits_per_s: rate(w.submits, seconds),
            depth: thread.depth,
            achieved_depth: if window_ns > 0.0 {
                w.depth_ns as f64 / window_ns
            } else {
                0.0
            },
            on_cpu_percent: share(w.cpu_user_ns + w.cpu_system_ns),
            spin_percent: share(w.spin_ns),
            in_engine_percent: share(w.in_engine_ns),
            in_loop_percent: share(w.in_loop_ns),
            host: None,
            targets,
        });
    }
    let distributions = results
        .distributions
        .iter()
        .enumerate()
        .filter(|(_, ranges)| !ranges.is_empty())
        .map(|(target, ranges)| DistributionReport {
            path: path_of(target),
            threads: results
                .threads
                .iter()
                .filter(|t| t.targets.iter().any(|s| s.target == target))
                .map(|t| t.thread)
                .collect(),
            ranges: ranges.clone(),
        })
        .collect();
    Measured::new(
        MeasuredParts {
            seconds,
            interval_ms,
            load: Load::of(&threads),
            ops,
            per_path: per_path
                .into_iter()
                .map(|(path, o)| TargetTotals {
                    path,
                    directions: directions(&o, seconds, interval_ms, percentiles),
                })
                .collect(),
            threads,
            cpu_average,
            cpu,
            effective_affinity,
            counters: results.counters.clone(),
            distributions,
            skews,
            by_size,
            by_priority,
            timeline: results.timeline.clone(),
            slowest: slowest(results, &path_of),
        },
        percentiles,
    )
}

/// The slowest I/Os of all threads, named by their targets' paths.
fn slowest(results: &TimeSpanResults, path_of: &dyn Fn(usize) -> String) -> Vec<SlowIoReport> {
    let mut all = crate::stats::slowest::Slowest::default();
    for thread in &results.threads {
        all.merge(&thread.slowest);
    }
    all.ios()
        .iter()
        .map(|io| SlowIoReport {
            latency_ns: io.latency_ns,
            completed_s: io.completed_ns as f64 / 1e9,
            thread: io.thread,
            path: path_of(io.target),
            op: io.op,
            offset: io.offset,
            bytes: io.len,
            device_ns: io.device_ns,
        })
        .collect()
}

/// How many threads ran a measured window, how many I/Os they kept in flight (asked and
/// time-weighted) and how often they submitted.
pub(crate) struct Load {
    pub threads: usize,
    pub depth: u32,
    pub achieved_depth: f64,
    pub submits_per_s: f64,
}

impl Load {
    /// Threads that ran side by side: their sums.
    pub(crate) fn of(threads: &[ThreadReport]) -> Load {
        Load {
            threads: threads.len(),
            depth: threads.iter().map(|t| t.depth).sum(),
            achieved_depth: threads.iter().map(|t| t.achieved_depth).sum(),
            submits_per_s: threads.iter().map(|t| t.submits_per_s).sum(),
        }
    }
}

/// What a measured window is made of: its length, its statistics (all, and per path) and what was
/// seen on the machine. [`Measured::new`] computes every printed figure from it, for one run's
/// results and for runs merged alike.
pub(crate) struct MeasuredParts {
    pub seconds: f64,
    pub interval_ms: Option<u32>,
    pub load: Load,
    pub ops: OpSet,
    /// Per target path, its directions (rendered by whoever added them up, so that what it
    /// added can go as soon as each is done).
    pub per_path: Vec<TargetTotals>,
    pub threads: Vec<ThreadReport>,
    pub cpu_average: CpuUsage,
    pub cpu: Vec<CpuUsage>,
    /// The CPUs threads ran on, in any order, repeats allowed.
    pub effective_affinity: Vec<u32>,
    pub counters: Vec<crate::counters::Counter>,
    pub distributions: Vec<DistributionReport>,
    /// `--distribution`: per path, the skew and its hot-set counts.
    pub skews: Vec<(String, Skew, SkewCounts)>,
    /// `--bssplit`: per path, its counts by size.
    pub by_size: super::sizes::BySize,
    /// `--ioprio-split`: per path, its counts by priority.
    pub by_priority: super::priorities::ByPriority,
    pub timeline: Vec<crate::stats::timeline::Row>,
    /// The slowest I/Os, the slowest first.
    pub slowest: Vec<SlowIoReport>,
}

/// Adds a thread's (or a run's) hot-set counts on `path` to those of the others.
pub(crate) fn add_skew(
    skews: &mut Vec<(String, Skew, SkewCounts)>,
    path: &str,
    skew: Skew,
    counts: &SkewCounts,
) {
    match skews.iter_mut().find(|(p, _, _)| p == path) {
        Some((_, _, sum)) => sum.merge(counts),
        None => skews.push((path.to_string(), skew, *counts)),
    }
}

/// The hot sets of a skewed target: measured shares against the closed form.
fn skew_report((path, skew, counts): (String, Skew, SkewCounts)) -> SkewReport {
    let share = |ios: u64| match counts.ios {
        0 => 0.0,
        all => ios as f64 / all as f64 * 100.0,
    };
    let hot_sets = HOT_PERCENTS
        .iter()
        .zip(counts.hot)
        .map(|(&percent, ios)| {
            let positions = hot_blocks(counts.positions, percent);
            HotSet {
                percent_of_positions: percent,
                positions,
                ios,
                measured_percent: share(ios),
                expected_percent: expected_share(skew, counts.positions, positions) * 100.0,
            }
        })
        .collect();
    SkewReport {
        path,
        distribution: skew,
        positions: counts.positions,
        ios: counts.ios,
        hot_sets,
    }
}

impl Measured {
    /// The figures of a measured window: totals and per-path directions with their percentiles,
    /// the CPUs threads ran on, the steady state of its time series.
    pub(crate) fn new(parts: MeasuredParts, percentiles: &[f64]) -> Measured {
        let MeasuredParts {
            seconds,
            interval_ms,
            load,
            ops,
            per_path,
            threads,
            cpu_average,
            cpu,
            mut effective_affinity,
            counters,
            distributions,
            skews,
            by_size,
            by_priority,
            timeline,
            slowest,
        } = parts;
        effective_affinity.sort_unstable();
        effective_affinity.dedup();
        Measured {
            duration_s: seconds,
            thread_count: load.threads,
            depth: load.depth,
            achieved_depth: load.achieved_depth,
            submits_per_s: load.submits_per_s,
            effective_affinity,
            cpu,
            cpu_average,
            totals: directions(&ops, seconds, interval_ms, percentiles),
            targets: per_path,
            threads,
            counters,
            distributions,
            skews: skews.into_iter().map(skew_report).collect(),
            block_sizes: super::sizes::report(by_size, seconds),
            priorities: super::priorities::report(by_priority, seconds, percentiles),
            reality: None,
            steady_state: crate::stats::timeline::steady_state(&timeline),
            timeline,
            slowest,
        }
    }
}
