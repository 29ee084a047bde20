//! fio's JSON results from iospd's reports (`iospd fio --output-format=json|json+`): each job's
//! report read as fio counts — bandwidth in KiB/s, runtime in ms, the job's percentile list, the
//! share of I/Os in fio's latency ranges, and its 500 ms bandwidth and IOPS samples from the
//! report's `-D` rows when it has them.

use std::time::SystemTime;

use crate::report::Report;
use crate::report::model::fio::{
    FioDirection, FioDocument, FioJob, FioLatency, FioLatencyTarget, FioPrio, FioSync, Ordered,
};
use crate::report::model::{Direction, Directions, Latency, Measured, PriorityRow, ThreadReport};
use crate::stats::timeline::{self, Point};

/// fio's percentiles when a job names none (`percentile_list`).
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// fio's `unified_rw_reporting`: directions apart (0), added into one `mixed` (1), or both (2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unified {
    /// Reads, writes and trims apart (fio's default).
    #[default]
    Apart,
    /// One `mixed` direction instead.
    Mixed,
    /// Apart, and `mixed` as well.
    Both,
}

/// One job that ran: what fio's JSON says of it besides its numbers, and its report.
pub struct FioJobRun<'a> {
    /// The job's name.
    pub name: &'a str,
    /// Its group, from 0.
    pub group: usize,
    /// Its options as written: (name, value; empty for a bare option).
    pub options: Vec<(String, String)>,
    /// Its percentile list, 0–100.
    pub percentiles: Vec<f64>,
    /// `lat_percentiles=1`: the total latency's percentiles too.
    pub lat_percentiles: bool,
    /// An entry per clone (fio without `group_reporting`), where each clone is one thread.
    pub clones: bool,
    /// `unified_rw_reporting`.
    pub unified: Unified,
    /// `latency_target`, ns (0: none), `latency_percentile` and `latency_window` (µs), as fio
    /// reads them.
    pub latency_target: (u64, f64, u64),
    /// Its report.
    pub report: &'a Report,
}

/// The document for every job that ran, in order; `plus` adds every latency bin (`json+`).
pub fn document(jobs: &[FioJobRun], plus: bool, now: SystemTime) -> FioDocument {
    let mut built: Vec<FioJob> = jobs.iter().flat_map(|run| entries(run, plus)).collect();
    share_of_group(&mut built);
    let unix_ms = crate::wall::unix_ns(now) / 1_000_000;
    FioDocument {
        fio_version: format!("iospd-{}", env!("CARGO_PKG_VERSION")),
        timestamp: unix_ms / 1000,
        timestamp_ms: unix_ms,
        time: ctime(unix_ms / 1000),
        jobs: built,
    }
}

/// What one entry covers: the whole job, or one clone (thread) of it.
struct Part<'a> {
    /// Its reads, writes, trims and flushes.
    totals: &'a Directions,
    /// Where its 500 ms samples are: every target's (`Some(None)`), one target's, or none.
    samples: Option<Option<usize>>,
    /// The threads whose CPU time it counts.
    threads: Vec<&'a ThreadReport>,
}

/// The job's entries: one, or one per clone when `clones` asks and each clone is a thread with
/// one target.
fn entries(run: &FioJobRun, plus: bool) -> Vec<FioJob> {
    let measured = run
        .report
        .timespans
        .iter()
        .find_map(|t| t.measured.as_ref());
    let Some(m) = measured else {
        return vec![entry(run, plus, None)];
    };
    let whole = || Part {
        totals: &m.totals,
        samples: Some(None),
        threads: m.threads.iter().collect(),
    };
    if !run.clones || m.threads.len() < 2 || m.threads.iter().any(|t| t.targets.len() != 1) {
        return vec![entry(run, plus, Some((m, whole())))];
    }
    m.threads
        .iter()
        .map(|thread| {
            let target = thread.targets[0].target;
            let alone = m
                .threads
                .iter()
                .filter(|t| t.targets[0].target == target)
                .count()
                == 1;
            let part = Part {
                totals: &thread.targets[0].directions,
                samples: alone.then_some(Some(target)),
                threads: vec![thread],
            };
            entry(run, plus, Some((m, part)))
        })
        .collect()
}

fn entry(run: &FioJobRun, plus: bool, measured: Option<(&Measured, Part)>) -> FioJob {
    let mut job = FioJob {
        jobname: run.name.to_string(),
        groupid: run.group,
        error: 0,
        elapsed: 0,
        job_options: Ordered(run.options.clone()),
        read: None,
        write: None,
        trim: None,
        sync: None,
        mixed: None,
        job_runtime: 0,
        usr_cpu: 0.0,
        sys_cpu: 0.0,
        ctx: 0,
        majf: 0,
        minf: 0,
        iodepth_level: depth_levels(&[0; 7]),
        latency_ns: Ordered::default(),
        latency_us: Ordered::default(),
        latency_ms: Ordered::default(),
        total_err: None,
        first_error: None,
        latency: None,
        steadystate: None,
    };
    let apart = run.unified != Unified::Mixed;
    let Some((m, part)) = measured else {
        if apart {
            job.read = Some(FioDirection::default());
            job.write = Some(FioDirection::default());
            job.trim = Some(FioDirection::default());
            job.sync = Some(FioSync::default());
        }
        job.mixed = (run.unified != Unified::Apart).then(FioDirection::default);
        (job.latency_ns, job.latency_us, job.latency_ms) = latency_ranges(&[]);
        return job;
    };
    // The failed I/O that stopped the run: fio's error of the job (or of the clone) it ended.
    if let Some(f) = run.report.timespans.iter().find_map(|t| t.failure.as_ref())
        && part.threads.iter().any(|t| t.thread == f.thread)
    {
        job.error = if f.result < 0 { -f.result } else { libc::EIO };
    }
    // continue_on_error: the job's failed I/Os, for an entry of the whole job (the report keeps
    // no count per thread, so a clone's entry has none rather than its job's).
    if part.threads.len() == m.threads.len()
        && let Some(f) = run
            .report
            .timespans
            .iter()
            .find_map(|t| t.failed_ios.as_ref())
    {
        job.total_err = Some(f.total());
        job.first_error = Some(f.first.as_ref().map_or(0, |f| f.io.result.min(0).abs()));
    }
    // ss: the run judged every thread of the job together (a clone's entry has none).
    if part.threads.len() == m.threads.len()
        && let Some(s) = run
            .report
            .timespans
            .iter()
            .find_map(|t| t.steady_stop.as_ref())
    {
        job.steadystate = Some(steady_state(s));
    }
    let (target, percentile, window) = run.latency_target;
    job.latency = part
        .threads
        .first()
        .filter(|t| t.depth > 0)
        .map(|t| FioLatencyTarget {
            latency_depth: t.depth,
            latency_target: target,
            latency_percentile: percentile,
            latency_window: window,
        });
    let runtime_ms = (m.duration_s * 1000.0).round() as u64;
    job.elapsed = m.duration_s.ceil() as u64;
    job.job_runtime = runtime_ms;
    let spec = Spec {
        percentiles: &run.percentiles,
        lat_percentiles: run.lat_percentiles,
        plus,
    };
    // fio's samples are whole intervals: the last of a job that ended by its size, cut short,
    // is none (its log has it).
    let whole_ms = run
        .report
        .profile
        .timespans
        .first()
        .and_then(|t| t.iops_interval_ms)
        .map_or(0.0, |ms| f64::from(ms) - 1.0);
    let samples = |pick: fn(&timeline::Directions) -> &Point| match part.samples {
        None => Vec::new(),
        Some(target) => m
            .timeline
            .iter()
            .filter(|row| row.length_ms > 0.0 && row.length_ms >= whole_ms)
            .filter_map(|row| {
                let directions = match target {
                    None => Some(&row.all),
                    Some(t) => row.targets.get(t),
                };
                directions.map(|d| (pick(d), row.length_ms))
            })
            .collect::<Vec<_>>(),
    };
    let totals = part.totals;
    // Each priority's reads and writes (`cmdprio`), for an entry of the whole job; a priority
    // on several targets is listed for each.
    let whole = part.threads.len() == m.threads.len();
    let prios = |pick: fn(&PriorityRow) -> &Direction| -> Vec<(u8, u8, &Direction)> {
        m.priorities
            .iter()
            .filter(|_| whole)
            .flat_map(|p| &p.priorities)
            .map(|row| (row.class, row.level, pick(row)))
            .collect()
    };
    if apart {
        job.read = Some(direction(
            &totals.read,
            m,
            &samples(|d| &d.read),
            &spec,
            &prios(|r| &r.read),
        ));
        job.write = Some(direction(
            &totals.write,
            m,
            &samples(|d| &d.write),
            &spec,
            &prios(|r| &r.write),
        ));
        job.trim = Some(match &totals.trim {
            Some(trim) => direction(trim, m, &[], &spec, &[]),
            None => FioDirection::default(),
        });
        job.sync = Some(match &totals.flush {
            Some(flush) => FioSync {
                total_ios: flush.ios,
                // fio gives the flushes its percentiles and, in json+, its bins
                // (clat_percentiles, on by default).
                lat_ns: latency(flush.latency.as_ref(), Some(spec.percentiles), spec.plus),
            },
            None => FioSync::default(),
        });
    }
    if run.unified != Unified::Apart {
        job.mixed = Some(direction(
            &totals.total,
            m,
            &samples(|d| &d.total),
            &spec,
            &[],
        ));
    }
    let window_ns = m.duration_s * 1e9;
    if window_ns > 0.0 {
        let cpu = |f: fn(&crate::stats::WaitStats) -> u64| {
            part.threads.iter().map(|t| f(&t.waits)).sum::<u64>() as f64 / window_ns * 100.0
        };
        job.usr_cpu = cpu(|w| w.cpu_user_ns);
        job.sys_cpu = cpu(|w| w.cpu_system_ns);
    }
    let waits = part.threads.iter().map(|t| &t.waits);
    job.ctx = waits.clone().map(|w| w.context_switches).sum();
    job.majf = waits.clone().map(|w| w.major_faults).sum();
    job.minf = waits.clone().map(|w| w.minor_faults).sum();
    let mut at_depth = [0u64; 7];
    for w in waits {
        for (sum, n) in at_depth.iter_mut().zip(w.submitted_at_depth) {
            *sum += n;
        }
    }
    job.iodepth_level = depth_levels(&at_depth);
    let latencies: Vec<&Latency> = [Some(&totals.read), Some(&totals.write)]
        .into_iter()
        .chain([totals.trim.as_ref()])
        .flatten()
        .filter_map(|d| d.latency.as_ref())
        .collect();
    (job.latency_ns, job.latency_us, job.latency_ms) = latency_ranges(&latencies);
    job
}

/// fio's `iodepth_level`: the share of I/Os submitted at each depth level, percent.
fn depth_levels(at_depth: &[u64; 7]) -> Ordered<f64> {
    let total: u64 = at_depth.iter().sum();
    let names = ["1", "2", "4", "8", "16", "32", ">=64"];
    Ordered(
        names
            .iter()
            .zip(at_depth)
            .map(|(name, &n)| {
                let share = match total {
                    0 => 0.0,
                    _ => n as f64 * 100.0 / total as f64,
                };
                (name.to_string(), share)
            })
            .collect(),
    )
}

/// What a job's latency blocks hold.
struct Spec<'a> {
    percentiles: &'a [f64],
    lat_percentiles: bool,
    plus: bool,
}

/// One direction: totals over the window, latency, and the samples (`(point, length_ms)`).
fn direction(
    d: &Direction,
    m: &Measured,
    samples: &[(&Point, f64)],
    spec: &Spec,
    prios: &[(u8, u8, &Direction)],
) -> FioDirection {
    if d.ios == 0 {
        return FioDirection::default();
    }
    let runtime_ms = (m.duration_s * 1000.0).round() as u64;
    let bw_bytes = d.bytes_per_s as u64;
    let bw: Vec<f64> = samples
        .iter()
        .map(|(p, ms)| p.bytes as f64 / ms * 1000.0 / 1024.0)
        .collect();
    let iops: Vec<f64> = samples
        .iter()
        .map(|(p, ms)| p.ios as f64 / ms * 1000.0)
        .collect();
    let (bw_min, bw_max, bw_mean, bw_dev) = moments(&bw);
    let (iops_min, iops_max, iops_mean, iops_stddev) = moments(&iops);
    let percentiles = Some(spec.percentiles);
    FioDirection {
        io_bytes: d.bytes,
        io_kbytes: d.bytes / 1024,
        bw_bytes,
        bw: bw_bytes / 1024,
        iops: d.ios_per_s,
        runtime: runtime_ms,
        total_ios: d.ios,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: FioLatency::default(),
        clat_ns: latency(d.latency.as_ref(), percentiles, spec.plus),
        lat_ns: latency(
            d.latency.as_ref(),
            percentiles.filter(|_| spec.lat_percentiles),
            false,
        ),
        bw_min,
        bw_max,
        bw_agg: 0.0,
        bw_mean,
        bw_dev,
        bw_samples: bw.len() as u64,
        iops_min,
        iops_max,
        iops_mean,
        iops_stddev,
        iops_samples: iops.len() as u64,
        prios: (prios.iter().filter(|p| p.2.ios > 0).count() >= 2).then(|| {
            prios
                .iter()
                .filter(|p| p.2.ios > 0)
                .map(|&(class, level, d)| {
                    let l = latency(d.latency.as_ref(), percentiles, false);
                    FioPrio {
                        prioclass: class,
                        prio: level,
                        clat_ns: (!spec.lat_percentiles).then(|| l.clone()),
                        lat_ns: spec.lat_percentiles.then_some(l),
                    }
                })
                .collect()
        }),
    }
}

/// Smallest and largest (whole, as fio prints them), mean and sample standard deviation.
fn moments(samples: &[f64]) -> (u64, u64, f64, f64) {
    if samples.is_empty() {
        return (0, 0, 0.0, 0.0);
    }
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let dev = match samples.len() {
        1 => 0.0,
        _ => (samples.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt(),
    };
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples.iter().copied().fold(0.0, f64::max);
    (min as u64, max as u64, mean, dev)
}

/// A latency block: the exact statistics, the percentiles asked for, and with `bins` every
/// recorded value and its count.
fn latency(latency: Option<&Latency>, percentiles: Option<&[f64]>, bins: bool) -> FioLatency {
    let Some(l) = latency.filter(|l| l.count > 0) else {
        return FioLatency::default();
    };
    let histogram = l.histogram().ok();
    let percentile = percentiles.zip(histogram.as_ref()).map(|(ps, h)| {
        let fractions: Vec<f64> = ps.iter().map(|p| p / 100.0).collect();
        Ordered(
            ps.iter()
                .map(|p| format!("{p:.6}"))
                .zip(h.percentiles(&fractions))
                .collect(),
        )
    });
    let bins = histogram.as_ref().filter(|_| bins).map(|h| {
        let mut values = Vec::new();
        h.each_value(|value, count| values.push((value.to_string(), count)));
        Ordered(values)
    });
    FioLatency {
        min: l.min_ns,
        max: l.max_ns,
        mean: l.mean_ns,
        stddev: l.stddev_ns,
        n: l.count,
        percentile,
        bins,
    }
}

/// fio's latency ranges, each named by its top: below 1 µs in ns, to 1 ms in µs, then in ms.
const RANGE_TOPS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/// The share of every I/O in each of fio's latency ranges (`latency_ns`, `_us`, `_ms`), percent.
fn latency_ranges(latencies: &[&Latency]) -> (Ordered<f64>, Ordered<f64>, Ordered<f64>) {
    // Inclusive upper bounds in ns: a range [low, top) of whole units ends at top × unit − 1.
    let mut upper: Vec<u64> = Vec::new();
    for unit in [1, 1_000, 1_000_000] {
        upper.extend(RANGE_TOPS.iter().map(|top| top * unit - 1));
    }
    upper.push(2_000 * 1_000_000 - 1);
    let mut counts = vec![0u64; upper.len() + 1];
    for l in latencies {
        if let Ok(h) = l.histogram() {
            h.add_to_buckets(&upper, &mut counts);
        }
    }
    let total: u64 = counts.iter().sum();
    let share = |n: u64| match total {
        0 => 0.0,
        _ => n as f64 * 100.0 / total as f64,
    };
    let named = |range: std::ops::Range<usize>| {
        Ordered(
            RANGE_TOPS
                .iter()
                .zip(range)
                .map(|(top, i)| (top.to_string(), share(counts[i])))
                .collect(),
        )
    };
    let mut ms = named(20..30);
    ms.0.push(("2000".into(), share(counts[30])));
    ms.0.push((">=2000".into(), share(counts[31])));
    (named(0..10), named(10..20), ms)
}

/// Each job's bandwidth as a share of its group's (fio's `bw_agg`), where it has samples.
fn share_of_group(jobs: &mut [FioJob]) {
    let groups: Vec<usize> = jobs.iter().map(|j| j.groupid).collect();
    let pick: [fn(&mut FioJob) -> Option<&mut FioDirection>; 4] = [
        |j| j.read.as_mut(),
        |j| j.write.as_mut(),
        |j| j.trim.as_mut(),
        |j| j.mixed.as_mut(),
    ];
    for which in pick {
        let mut totals: std::collections::HashMap<usize, u64> = Default::default();
        for (job, group) in jobs.iter_mut().zip(&groups) {
            *totals.entry(*group).or_default() += which(job).map_or(0, |d| d.bw_bytes);
        }
        for (job, group) in jobs.iter_mut().zip(&groups) {
            let Some(d) = which(job) else { continue };
            let total = totals[group] as f64 / 1024.0;
            if d.bw_samples > 0 && total > 0.0 {
                d.bw_agg = d.bw_mean / total * 100.0;
            }
        }
    }
}

/// `ctime`'s form of a time in seconds since the epoch, in the local time zone.
fn ctime(seconds: u64) -> String {
    let time = seconds as libc::time_t;
    let mut buffer = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into the buffer, which outlives the call.
    let written = unsafe { libc::ctime_r(&time, buffer.as_mut_ptr()) };
    if written.is_null() {
        return String::new();
    }
    // SAFETY: ctime_r wrote a NUL-terminated string into the buffer.
    unsafe { std::ffi::CStr::from_ptr(buffer.as_ptr()) }
        .to_string_lossy()
        .trim_end()
        .to_string()
}

/// fio's `steadystate` object from the run's `--steady-state` outcome (fio's formats: `%f`).
fn steady_state(
    s: &crate::stats::steady::SteadyOutcome,
) -> crate::report::model::fio::FioSteadyState {
    let pct = if s.rule.percent { "%" } else { "" };
    crate::report::model::fio::FioSteadyState {
        ss: format!("{}:{:.6}{pct}", s.rule.criterion(), s.rule.limit),
        duration: s.rule.window_s,
        attained: u8::from(s.attained),
        criterion: format!(
            "{:.6}{pct}",
            s.criterion.filter(|c| c.is_finite()).unwrap_or(0.0)
        ),
        max_deviation: s.max_deviation,
        slope: s.slope,
        data: crate::report::model::fio::FioSteadyData {
            bw_mean: s.bw_mean() as u64,
            iops_mean: s.iops_mean() as u64,
            iops: s.iops.clone(),
            bw: s.bw.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_give_fios_whole_extremes_and_sample_deviation() {
        assert_eq!(moments(&[]), (0, 0, 0.0, 0.0));
        let (min, max, mean, dev) = moments(&[10.5, 20.0, 30.9]);
        assert_eq!((min, max), (10, 30));
        assert!((mean - 20.466_666).abs() < 1e-5);
        assert!((dev - 10.208_003).abs() < 1e-5, "{dev}");
    }

    #[test]
    fn latencies_fall_in_fios_ranges_by_whole_units() {
        let mut h = crate::stats::histogram::LatencyHistogram::new();
        // [0,2) ns, [2,4) µs twice, [750,1000) µs, [1,2) s, and 3 s.
        for ns in [1, 2_000, 3_999, 999_000, 1_500_000_000, 3_000_000_000] {
            h.record(ns);
        }
        let l = crate::report::analysis::build::latency_of(&h, &[50.0]).unwrap();
        let (ns, us, ms) = latency_ranges(&[&l]);
        let share = |o: &Ordered<f64>, key: &str| o.0.iter().find(|(k, _)| k == key).unwrap().1;
        let sixth = 100.0 / 6.0;
        assert!((share(&ns, "2") - sixth).abs() < 1e-9);
        assert!((share(&us, "4") - 2.0 * sixth).abs() < 1e-9);
        assert!((share(&us, "1000") - sixth).abs() < 1e-9);
        assert!((share(&ms, "2000") - sixth).abs() < 1e-9);
        assert!((share(&ms, ">=2000") - sixth).abs() < 1e-9);
        let all: f64 = [ns, us, ms]
            .iter()
            .flat_map(|o| o.0.iter().map(|e| e.1))
            .sum();
        assert!((all - 100.0).abs() < 1e-9);
    }

    #[test]
    fn ctime_has_its_fixed_shape() {
        let text = ctime(0);
        assert_eq!(text.len(), 24, "{text}");
        assert!(text.ends_with("1970") || text.ends_with("1969"), "{text}");
    }
}
