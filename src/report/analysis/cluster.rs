//! A run across hosts as one report: every rank's report merged exactly (the same merge as
//! `iospd merge`: counts add, histograms merge, the time series line up on the common timeline),
//! and for each timespan what only a run across hosts has — every rank's clock and start, the rows
//! per host, and the aggregate rate counted two ways.
//!
//! Times are on the common timeline: 0 is the agreed start instant, which each rank reached on its
//! own clock corrected by the offset rank 0 measured (so they agree to within that offset's
//! uncertainty). A rank's measured window runs from the later of the warm-up's end and its own
//! start (a rank released after the warm-up ended measures from then) to its own window's end.

use serde::{Deserialize, Serialize};

use crate::profile::Profile;
use crate::report::analysis::merge::merge_labelled;
use crate::report::table::{Cell, Column, Table};
use crate::report::{
    Aggregate, ClusterReport, CpuUsage, HostReport, RankHost, RankReport, Report, TimeSpanReport,
};
use crate::stats::series::Series;

impl Aggregate {
    fn over(ios: u64, bytes: u64, duration_s: f64) -> Aggregate {
        let rate = |n: u64| {
            if duration_s > 0.0 {
                n as f64 / duration_s
            } else {
                0.0
            }
        };
        Aggregate {
            duration_s,
            ios,
            bytes,
            ios_per_s: rate(ios),
            bytes_per_s: rate(bytes),
        }
    }
}

/// One rank's results and what rank 0 measured of its clock.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Rank and host.
    pub rank: RankHost,
    /// Its own report (its targets with `{rank}` and `{host}` expanded).
    pub report: Report,
    /// Per timespan it ran: its clock as rank 0 measured it.
    pub clocks: Vec<RankClock>,
}

/// One rank's clock around one timespan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankClock {
    /// Its monotonic clock minus rank 0's, before the start.
    pub offset_ns: i64,
    /// Half the round trip of the exchange that measured it.
    pub uncertainty_ns: u64,
    /// The offset after the end minus the one before the start.
    pub drift_ns: i64,
    /// How long before the start instant it heard of it.
    pub slack_ns: i64,
    /// How far ahead rank 0 placed the start when it chose it (the same for every rank).
    pub margin_ns: u64,
}

/// Ranks past which the text report shows their spread and the slowest of them rather than a
/// row per rank (and per rank's thread and target); JSON, XML and the HTML's collapsed tables
/// keep every rank.
pub const DETAILED_RANKS: usize = 16;

/// The slowest ranks the spread names.
pub const SLOWEST_RANKS: usize = 5;

impl ClusterReport {
    /// Whether the report shows every rank in detail (few enough ranks).
    pub fn detailed(&self) -> bool {
        self.ranks.len() <= DETAILED_RANKS
    }

    /// Across the ranks that measured: the least, median, 99th-percentile and largest of each
    /// rank's I/O per second, MiB/s and p99 latency.
    pub fn spread_table(&self) -> Table {
        let mut table = Table::new(vec![
            Column::new("per rank", "per_rank"),
            Column::new("min", "min"),
            Column::new("median", "median"),
            Column::new("p99", "p99"),
            Column::new("max", "max"),
        ]);
        let measured: Vec<&RankReport> = self.ranks.iter().filter(|r| r.threads > 0).collect();
        let spread = |mut values: Vec<f64>| -> Option<[f64; 4]> {
            values.sort_by(f64::total_cmp);
            let at = |p: f64| {
                values[((p * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1]
            };
            (!values.is_empty()).then(|| [values[0], at(0.5), at(0.99), values[values.len() - 1]])
        };
        let rows: [(&str, Vec<f64>, bool); 3] = [
            (
                "I/O per s",
                measured.iter().map(|r| r.ios_per_s).collect(),
                false,
            ),
            (
                "MiB/s",
                measured.iter().map(|r| r.bytes_per_s / MIB).collect(),
                false,
            ),
            (
                "p99 latency",
                measured
                    .iter()
                    .filter_map(|r| r.p99_ns)
                    .map(|v| v as f64)
                    .collect(),
                true,
            ),
        ];
        for (name, values, duration) in rows {
            let Some(values) = spread(values) else {
                continue;
            };
            let mut row = vec![Cell::Text(name.into())];
            row.extend(values.map(|v| {
                if duration {
                    Cell::Duration(Some(v))
                } else {
                    Cell::Fixed(v, 2)
                }
            }));
            table.push(row);
        }
        table
    }

    /// The ranks that did the fewest I/Os per second, slowest first.
    pub fn slowest_table(&self) -> Table {
        let mut table = Table::new(vec![
            Column::new("rank", "rank"),
            Column::new("host", "host"),
            Column::new("I/O per s", "ios_per_s"),
            Column::new("MiB/s", "mib_per_s"),
            Column::new("p99 latency", "p99_latency_us"),
            Column::new("late", "lateness_us"),
        ]);
        let mut ranks: Vec<&RankReport> = self.ranks.iter().collect();
        ranks.sort_by(|a, b| {
            a.ios_per_s
                .total_cmp(&b.ios_per_s)
                .then(a.rank.cmp(&b.rank))
        });
        for r in ranks.into_iter().take(SLOWEST_RANKS) {
            table.push(vec![
                Cell::Count(r.rank.into()),
                Cell::Text(r.host.clone()),
                Cell::Fixed(r.ios_per_s, 2),
                Cell::Fixed(r.bytes_per_s / MIB, 2),
                Cell::Duration(r.p99_ns.map(|v| v as f64)),
                Cell::Duration(Some(r.lateness_ns as f64)),
            ]);
        }
        table
    }

    /// Whether the ranks did not start together: their starts spread wider than the margin the
    /// start was placed with, or a rank heard of the start only after it.
    pub fn started_apart(&self) -> bool {
        self.start_skew_ns > self.start_margin_ns || self.start_slack_ns < 0
    }

    /// Every rank's clock, start and I/O: a row per rank.
    pub fn ranks_table(&self) -> Table {
        let mut table = Table::new(vec![
            Column::new("rank", "rank"),
            Column::new("host", "host"),
            Column::new("offset", "clock_offset_us"),
            Column::new("+/-", "clock_uncertainty_us"),
            Column::new("drift", "clock_drift_us"),
            Column::new("late", "lateness_us"),
            Column::new("threads", "threads"),
            Column::new("I/Os", "ios"),
            Column::new("MiB/s", "mib_per_s"),
            Column::new("I/O per s", "ios_per_s"),
        ]);
        for r in &self.ranks {
            table.push(vec![
                Cell::Count(r.rank.into()),
                Cell::Text(r.host.clone()),
                Cell::Duration(Some(r.clock_offset_ns as f64)),
                Cell::Duration(Some(r.clock_uncertainty_ns as f64)),
                Cell::Duration(Some(r.clock_drift_ns as f64)),
                Cell::Duration(Some(r.lateness_ns as f64)),
                Cell::Count(r.threads as u64),
                Cell::Count(r.ios),
                Cell::Fixed(r.bytes_per_s / MIB, 2),
                Cell::Fixed(r.ios_per_s, 2),
            ]);
        }
        table
    }

    /// Every host's ranks, I/O and CPU: a row per host.
    pub fn hosts_table(&self) -> Table {
        let mut table = Table::new(vec![
            Column::new("host", "host"),
            Column::new("ranks", "ranks"),
            Column::new("threads", "threads"),
            Column::new("I/Os", "ios"),
            Column::new("MiB/s", "mib_per_s"),
            Column::new("I/O per s", "ios_per_s"),
            Column::new("CPU %", "cpu_percent"),
            Column::new("User %", "user_percent"),
            Column::new("Kernel %", "kernel_percent"),
        ]);
        for h in &self.hosts {
            table.push(vec![
                Cell::Text(h.host.clone()),
                Cell::Text(crate::plan::cpu_list(&h.ranks)),
                Cell::Count(h.threads as u64),
                Cell::Count(h.ios),
                Cell::Fixed(h.bytes_per_s / MIB, 2),
                Cell::Fixed(h.ios_per_s, 2),
                Cell::Fixed(h.cpu.usage, 2),
                Cell::Fixed(h.cpu.user, 2),
                Cell::Fixed(h.cpu.kernel, 2),
            ]);
        }
        table
    }

    /// The aggregate rate of all ranks counted both ways: over the common measured window, and
    /// from the first start to the last end (as IOR counts).
    pub fn aggregates_table(&self) -> Table {
        let mut table = Table::new(vec![
            Column::new("aggregate", "aggregate"),
            Column::new("seconds", "seconds"),
            Column::new("I/Os", "ios"),
            Column::new("MiB/s", "mib_per_s"),
            Column::new("I/O per s", "ios_per_s"),
        ]);
        for (name, a) in [
            ("common measured window", &self.common_window),
            (
                "first start to last end (as IOR counts)",
                &self.first_to_last,
            ),
        ] {
            table.push(vec![
                Cell::Text(name.into()),
                Cell::Fixed(a.duration_s, 3),
                Cell::Count(a.ios),
                Cell::Fixed(a.bytes_per_s / MIB, 2),
                Cell::Fixed(a.ios_per_s, 2),
            ]);
        }
        table
    }
}

const MIB: f64 = 1_048_576.0;

/// The report of a run across hosts: `members` in rank order, merged, under `profile` (the
/// profile as given, before each rank expanded `{rank}` and `{host}`); per timespan, the `-D`
/// series every rank's added up (the members carry none, see [`take_series`]).
pub fn combine(
    profile: &Profile,
    members: &[Member],
    series: &[Option<Series>],
) -> Result<Report, String> {
    let reports: Vec<&Report> = members.iter().map(|m| &m.report).collect();
    let ranks: Vec<RankHost> = members.iter().map(|m| m.rank.clone()).collect();
    let mut merged = merge_labelled(&reports, Some(&ranks), series)?;
    merged.profile = profile.clone();
    merged.repetitions = crate::report::analysis::repetitions::of(&merged);
    merged.sweep = crate::report::analysis::sweep::of(&merged);
    for (index, timespan) in merged.timespans.iter_mut().enumerate() {
        let warmup_ns = profile
            .timespans
            .get(index)
            .map_or(0, |t| t.warmup_s as u64 * 1_000_000_000);
        let parts: Vec<(&Member, &TimeSpanReport)> = members
            .iter()
            .filter_map(|m| m.report.timespans.get(index).map(|t| (m, t)))
            .collect();
        timespan.cluster = Some(cluster_of(index, timespan, &parts, warmup_ns));
    }
    Ok(merged)
}

fn cluster_of(
    index: usize,
    merged: &TimeSpanReport,
    parts: &[(&Member, &TimeSpanReport)],
    warmup_ns: u64,
) -> ClusterReport {
    let mut ranks = Vec::with_capacity(parts.len());
    for (member, ts) in parts {
        let clock = member.clocks.get(index).copied().unwrap_or_default();
        let lateness_ns = ts.start.as_ref().map_or(0, |s| s.lateness_ns);
        let (threads, duration_ns, totals) = match &ts.measured {
            Some(m) => (
                m.thread_count,
                (m.duration_s * 1e9).round() as u64,
                Some(&m.totals.total),
            ),
            None => (0, 0, None),
        };
        let window_start_ns = warmup_ns.max(lateness_ns);
        ranks.push(RankReport {
            rank: member.rank.rank,
            host: member.rank.host.clone(),
            threads,
            clock_offset_ns: clock.offset_ns,
            clock_uncertainty_ns: clock.uncertainty_ns,
            clock_drift_ns: clock.drift_ns,
            lateness_ns,
            window_start_ns,
            window_end_ns: (warmup_ns + duration_ns).max(window_start_ns),
            ios: totals.map_or(0, |t| t.ios),
            bytes: totals.map_or(0, |t| t.bytes),
            ios_per_s: totals.map_or(0.0, |t| t.ios_per_s),
            bytes_per_s: totals.map_or(0.0, |t| t.bytes_per_s),
            p99_ns: totals
                .and_then(|t| t.latency.as_ref())
                .and_then(|l| l.percentiles.iter().find(|p| p.percentile == 99.0))
                .map(|p| p.value_ns),
        });
    }
    let (ios, bytes, common_s) = merged.measured.as_ref().map_or((0, 0, 0.0), |m| {
        (m.totals.total.ios, m.totals.total.bytes, m.duration_s)
    });
    let measured: Vec<&RankReport> = ranks.iter().filter(|r| r.threads > 0).collect();
    let first = measured
        .iter()
        .map(|r| r.window_start_ns)
        .min()
        .unwrap_or(0);
    let last = measured.iter().map(|r| r.window_end_ns).max().unwrap_or(0);
    let lateness = measured.iter().map(|r| r.lateness_ns);
    let start_skew_ns = lateness.clone().max().unwrap_or(0) - lateness.min().unwrap_or(0);
    let clocks: Vec<RankClock> = parts
        .iter()
        .map(|(m, _)| m.clocks.get(index).copied().unwrap_or_default())
        .collect();
    ClusterReport {
        hosts: hosts_of(&ranks, parts, common_s),
        start_margin_ns: clocks.iter().map(|c| c.margin_ns).max().unwrap_or(0),
        start_slack_ns: clocks.iter().map(|c| c.slack_ns).min().unwrap_or(0),
        start_skew_ns,
        clock_uncertainty_ns: clocks.iter().map(|c| c.uncertainty_ns).max().unwrap_or(0),
        gathered_bytes: 0,
        gather_ns: 0,
        common_window: Aggregate::over(ios, bytes, common_s),
        first_to_last: Aggregate::over(ios, bytes, (last - first) as f64 / 1e9),
        ranks,
    }
}

/// The rows per host, in the order hosts first appear among the ranks.
fn hosts_of(
    ranks: &[RankReport],
    parts: &[(&Member, &TimeSpanReport)],
    common_s: f64,
) -> Vec<HostReport> {
    let mut hosts: Vec<(HostReport, u32)> = Vec::new();
    for (rank, (_, ts)) in ranks.iter().zip(parts) {
        let at = match hosts.iter().position(|(h, _)| h.host == rank.host) {
            Some(at) => at,
            None => {
                hosts.push((
                    HostReport {
                        host: rank.host.clone(),
                        ranks: Vec::new(),
                        threads: 0,
                        ios: 0,
                        bytes: 0,
                        ios_per_s: 0.0,
                        bytes_per_s: 0.0,
                        cpu: CpuUsage::default(),
                    },
                    0,
                ));
                hosts.len() - 1
            }
        };
        let (host, measured_ranks) = &mut hosts[at];
        host.ranks.push(rank.rank);
        host.threads += rank.threads;
        host.ios += rank.ios;
        host.bytes += rank.bytes;
        if let Some(m) = &ts.measured {
            let cpu = &m.cpu_average;
            host.cpu.usage += cpu.usage;
            host.cpu.user += cpu.user;
            host.cpu.kernel += cpu.kernel;
            host.cpu.idle += cpu.idle;
            *measured_ranks += 1;
        }
    }
    hosts
        .into_iter()
        .map(|(mut host, measured)| {
            let share = 1.0 / measured.max(1) as f64;
            host.cpu.usage *= share;
            host.cpu.user *= share;
            host.cpu.kernel *= share;
            host.cpu.idle *= share;
            let aggregate = Aggregate::over(host.ios, host.bytes, common_s);
            host.ios_per_s = aggregate.ios_per_s;
            host.bytes_per_s = aggregate.bytes_per_s;
            host
        })
        .collect()
}

/// Takes out of a rank's report what grows with the run's length — per timespan, the `-D`
/// buckets of the totals per kind of I/O and the time-series rows, on the common timeline — and
/// leaves none behind: not the totals', the targets' or the threads' buckets (each rank's own
/// targets and threads are apart in the merged report, so their series would be as many as the
/// ranks; the run's series is the totals', added up on its way to rank 0).
pub fn take_series(report: &mut Report) -> Result<Vec<Option<Series>>, String> {
    let mut all = Vec::with_capacity(report.timespans.len());
    for (index, ts) in report.timespans.iter_mut().enumerate() {
        let profile = report.profile.timespans.get(index);
        let interval_ms = profile.and_then(|t| t.iops_interval_ms);
        let Some(m) = ts.measured.as_mut() else {
            all.push(None);
            continue;
        };
        // A rank counts its intervals and rows from the agreed start (and warm-up), however late
        // its threads began: they are on the common timeline as they are.
        let series = match interval_ms {
            Some(ms) => {
                let t = &m.totals;
                let kind =
                    |d: Option<&crate::report::Direction>| d.map(|d| d.buckets()).transpose();
                Some(Series {
                    interval_ms: ms as f64,
                    kinds: [
                        kind(Some(&t.read))?,
                        kind(Some(&t.write))?,
                        kind(t.trim.as_ref())?,
                        kind(t.flush.as_ref())?,
                    ],
                    timeline: std::mem::take(&mut m.timeline),
                })
            }
            None => None,
        };
        m.timeline.clear();
        m.totals.each_mut(|d| d.intervals.clear());
        each_rows_direction(m, |d| d.intervals.clear());
        all.push(series);
    }
    Ok(all)
}

/// Leaves out of a rank's report what rank 0 computes again from the histograms: the percentile
/// lists of its targets and threads (about an eighth of a rank's part). The totals keep theirs:
/// they give the rank's p99 in the table of ranks.
pub fn leave_out_recomputed(report: &mut Report) {
    for m in report
        .timespans
        .iter_mut()
        .filter_map(|t| t.measured.as_mut())
    {
        each_rows_direction(m, |d| {
            for latency in d.latency.iter_mut().chain(&mut d.latency_from_intended) {
                latency.percentiles.clear();
            }
        });
    }
}

/// Every direction of a measured window's rows per target and per thread's target.
fn each_rows_direction(
    m: &mut crate::report::Measured,
    mut f: impl FnMut(&mut crate::report::Direction),
) {
    let threads = m.threads.iter_mut().flat_map(|t| &mut t.targets);
    for directions in m
        .targets
        .iter_mut()
        .map(|t| &mut t.directions)
        .chain(threads.map(|t| &mut t.directions))
    {
        directions.each_mut(&mut f);
    }
}

impl crate::report::Directions {
    /// Each direction it has: read, write, total, and trims and flushes when there were any.
    fn each_mut(&mut self, mut f: impl FnMut(&mut crate::report::Direction)) {
        for d in [
            Some(&mut self.read),
            Some(&mut self.write),
            Some(&mut self.total),
            self.trim.as_mut(),
            self.flush.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            f(d);
        }
    }
}
