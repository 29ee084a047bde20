//! `iospd sweep`: one row per point (a timespan of the report, or with `--repeat` the means over
//! its repetitions) with its parameters and results,
//! and the knee of each series — the last point before another step of queue depth (or of the
//! innermost swept option) gains less than [`KNEE_GAIN`] in IOPS while p99 latency still rises.

use crate::report::table::{Audience, Cell, Column, Table};
use crate::report::{Report, Series, SweepPoint, SweepReport, TimeSpanReport};
use crate::stats::confidence::Spread;

/// A step that gains less than this share of IOPS (while p99 rises) is past the knee.
pub const KNEE_GAIN: f64 = 0.10;

/// The sweep of `report`, when its profile is one.
pub fn of(report: &Report) -> Option<SweepReport> {
    let sweep = report.profile.sweep.as_ref()?;
    let given = sweep.points.len().max(1);
    let points: Vec<SweepPoint> = sweep
        .points
        .iter()
        .enumerate()
        .map(|(k, values)| {
            // Repetitions run the whole sweep over, so point k's runs are every given-th timespan.
            let runs: Vec<(usize, &TimeSpanReport)> = report
                .timespans
                .iter()
                .enumerate()
                .filter(|(i, _)| i % given == k)
                .map(|(i, t)| (i + 1, t))
                .collect();
            match runs.as_slice() {
                // The sweep stopped before this point began.
                [] => not_run(k + 1, values),
                [(i, ts)] => point(*i, values, ts),
                _ => repeated(values, &runs),
            }
        })
        .collect();
    let mut series: Vec<Series> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let fixed = p.values[..p.values.len() - 1].to_vec();
        match series.iter_mut().find(|s| s.fixed == fixed) {
            Some(s) => s.points.push(i),
            None => series.push(Series {
                fixed,
                points: vec![i],
                knee: None,
            }),
        }
    }
    for s in &mut series {
        s.knee = knee(&points, &s.points);
    }
    Some(SweepReport {
        axes: sweep.axes.clone(),
        points,
        knee_gain: KNEE_GAIN,
        series,
    })
}

/// The table of points every format shows (text and HTML for a sweep; CSV for any run, a row per
/// timespan when it is no sweep): parameters, rates, latency, CPU, achieved depth, and whether a
/// point is a knee or was cut short.
pub fn table(report: &Report, sweep: Option<&SweepReport>) -> Table {
    let points: Vec<SweepPoint> = match sweep {
        Some(s) => s.points.clone(),
        None => report
            .timespans
            .iter()
            .enumerate()
            .map(|(i, ts)| point(i + 1, &[], ts))
            .collect(),
    };
    let axes: &[String] = sweep.map_or(&[], |s| &s.axes);
    let knees = sweep.map_or_else(Vec::new, SweepReport::knees);
    let repeated = points.iter().any(|p| p.ios_per_s_ci95.is_some());
    let verified = report.timespans.iter().any(|t| t.verify.is_some());
    // --trim and --fsync/--fdatasync: their rates and tails, next to the data's.
    let totals = |t: &crate::report::TimeSpanReport| t.measured.as_ref().map(|m| m.totals.clone());
    let trims = report
        .timespans
        .iter()
        .any(|t| totals(t).is_some_and(|d| d.trim.is_some()));
    let flushes = report
        .timespans
        .iter()
        .any(|t| totals(t).is_some_and(|d| d.flush.is_some()));
    let mut columns = vec![Column::new("point", "timespan")];
    columns.extend(
        axes.iter()
            .map(|a| Column::new(a, a.trim_start_matches('-'))),
    );
    let ci = Column::new("±95% CI", "ios_per_s_ci95");
    columns.extend([
        Column::new("measured", "measured").only(Audience::Programs),
        Column::new("I/O per s", "ios_per_s"),
        if repeated {
            ci
        } else {
            ci.only(Audience::Programs)
        },
        Column::new("MiB/s", "mib_per_s"),
        Column::new("AvgLat", "mean_us"),
        Column::new("p50", "p50_us"),
        Column::new("p99", "p99_us"),
        Column::new("p99.9", "p999_us"),
        Column::new("CPU %", "cpu_percent"),
        Column::new("depth", "achieved_depth"),
        Column::new("knee", "knee").only(Audience::Programs),
    ]);
    if verified {
        for key in [
            "blocks_written",
            "blocks_verified",
            "blocks_skipped",
            "blocks_failed",
        ] {
            columns.push(Column::new(key, key).only(Audience::Programs));
        }
    }
    for (shown, name, plural) in [(trims, "trim", "trims"), (flushes, "flush", "flushes")] {
        if shown {
            columns.push(Column::new(
                &format!("{plural}/s"),
                &format!("{plural}_per_s"),
            ));
            columns.push(Column::new(
                &format!("{name} p99"),
                &format!("{name}_p99_us"),
            ));
        }
    }
    columns.push(Column::new("", "note").only(Audience::People));
    let mut table = Table::new(columns);
    for (i, p) in points.iter().enumerate() {
        let mut row = vec![Cell::Count(p.timespan as u64)];
        row.extend(p.values.iter().map(|v| Cell::Value(v.clone())));
        let figure = |cell: Cell| if p.measured { cell } else { Cell::Empty };
        let latency = |ns: Option<f64>| figure(Cell::Duration(ns));
        let knee = knees.contains(&i);
        row.extend([
            Cell::Flag(p.measured),
            figure(Cell::Fixed(p.ios_per_s, 2)),
            p.ios_per_s_ci95.map_or(Cell::Empty, |c| Cell::Fixed(c, 2)),
            figure(Cell::Fixed(p.bytes_per_s / 1_048_576.0, 2)),
            latency(p.mean_ns),
            latency(p.p50_ns.map(|v| v as f64)),
            latency(p.p99_ns.map(|v| v as f64)),
            latency(p.p999_ns.map(|v| v as f64)),
            figure(Cell::Fixed(p.cpu_percent, 2)),
            figure(Cell::Fixed(p.achieved_depth, 2)),
            Cell::Flag(knee),
        ]);
        if verified {
            let v = report
                .timespans
                .get(p.timespan.saturating_sub(1))
                .and_then(|t| t.verify.as_ref());
            match v {
                Some(v) => row
                    .extend([v.written, v.verified, v.skipped, v.failed.total()].map(Cell::Count)),
                None => row.extend([Cell::Empty, Cell::Empty, Cell::Empty, Cell::Empty]),
            }
        }
        let directions = report
            .timespans
            .get(p.timespan.saturating_sub(1))
            .and_then(totals);
        for (shown, pick) in [
            (
                trims,
                (|d: &crate::report::Directions| d.trim.clone()) as fn(&_) -> _,
            ),
            (flushes, |d: &crate::report::Directions| d.flush.clone()),
        ] {
            if shown {
                let dir = directions.as_ref().and_then(pick);
                row.push(
                    dir.as_ref()
                        .map_or(Cell::Empty, |d| figure(Cell::Fixed(d.ios_per_s, 2))),
                );
                row.push(latency(
                    dir.and_then(|d| d.latency).map(|l| l.at(99.0) as f64),
                ));
            }
        }
        let note = match (p.measured, p.cut_short) {
            (false, true) if p.runs.is_empty() => "not run (the sweep stopped before it)",
            (false, _) => "not measured (the sweep stopped)",
            (true, true) => "<- cut short",
            (true, false) if knee => "<- knee",
            (true, false) => "",
        };
        row.push(match note {
            "" => Cell::Empty,
            note => Cell::Text(note.into()),
        });
        table.push(row);
    }
    table
}

/// A point the sweep never reached.
fn not_run(timespan: usize, values: &[String]) -> SweepPoint {
    SweepPoint {
        timespan,
        values: values.to_vec(),
        measured: false,
        cut_short: true,
        ios_per_s: 0.0,
        bytes_per_s: 0.0,
        mean_ns: None,
        p50_ns: None,
        p99_ns: None,
        p999_ns: None,
        cpu_percent: 0.0,
        achieved_depth: 0.0,
        runs: Vec::new(),
        ios_per_s_ci95: None,
    }
}

/// Whether something stopped the run during this timespan.
fn stopped(ts: &TimeSpanReport) -> bool {
    ts.interrupted || ts.failure.is_some() || ts.lost_target.is_some() || ts.measured.is_none()
}

fn point(timespan: usize, values: &[String], ts: &TimeSpanReport) -> SweepPoint {
    let m = ts.measured.as_ref();
    let total = m.map(|m| &m.totals.total);
    let latency = total.and_then(|t| t.latency.as_ref());
    SweepPoint {
        timespan,
        values: values.to_vec(),
        measured: m.is_some(),
        cut_short: stopped(ts),
        ios_per_s: total.map_or(0.0, |t| t.ios_per_s),
        bytes_per_s: total.map_or(0.0, |t| t.bytes_per_s),
        mean_ns: latency.map(|l| l.mean_ns),
        p50_ns: latency.map(|l| l.at(50.0)),
        p99_ns: latency.map(|l| l.at(99.0)),
        p999_ns: latency.map(|l| l.at(99.9)),
        cpu_percent: m.map_or(0.0, |m| m.cpu_average.usage),
        achieved_depth: m.map_or(0.0, |m| m.achieved_depth),
        runs: Vec::new(),
        ios_per_s_ci95: None,
    }
}

/// A point that ran several times: the means of its measured runs' figures, and the confidence
/// interval of its IOPS.
fn repeated(values: &[String], runs: &[(usize, &TimeSpanReport)]) -> SweepPoint {
    let each: Vec<SweepPoint> = runs
        .iter()
        .map(|(i, t)| point(*i, values, t))
        .filter(|p| p.measured && !p.cut_short)
        .collect();
    let first = runs.first().map_or(0, |(i, _)| *i);
    let cut_short = runs.iter().any(|(_, t)| stopped(t));
    if each.is_empty() {
        let mut p = point(first, values, runs[0].1);
        p.cut_short = true;
        p.runs = runs.iter().map(|(i, _)| *i).collect();
        return p;
    }
    let mean = |f: &dyn Fn(&SweepPoint) -> f64| each.iter().map(f).sum::<f64>() / each.len() as f64;
    let mean_of = |f: &dyn Fn(&SweepPoint) -> Option<f64>| {
        let xs: Vec<f64> = each.iter().filter_map(f).collect();
        (xs.len() == each.len()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
    };
    let ios: Vec<f64> = each.iter().map(|p| p.ios_per_s).collect();
    SweepPoint {
        timespan: first,
        values: values.to_vec(),
        measured: true,
        cut_short,
        ios_per_s: mean(&|p| p.ios_per_s),
        bytes_per_s: mean(&|p| p.bytes_per_s),
        mean_ns: mean_of(&|p| p.mean_ns),
        p50_ns: mean_of(&|p| p.p50_ns.map(|v| v as f64)).map(|v| v as u64),
        p99_ns: mean_of(&|p| p.p99_ns.map(|v| v as f64)).map(|v| v as u64),
        p999_ns: mean_of(&|p| p.p999_ns.map(|v| v as f64)).map(|v| v as u64),
        cpu_percent: mean(&|p| p.cpu_percent),
        achieved_depth: mean(&|p| p.achieved_depth),
        runs: each.iter().map(|p| p.timespan).collect(),
        ios_per_s_ci95: Some(Spread::of(&ios).ci95_half_width),
    }
}

/// The first point after which a step gains less than [`KNEE_GAIN`] in IOPS while p99 rises (or,
/// without latency, only gains less).
pub fn knee(points: &[SweepPoint], series: &[usize]) -> Option<usize> {
    series.windows(2).find_map(|pair| {
        let (a, b) = (&points[pair[0]], &points[pair[1]]);
        if !a.finished() || !b.finished() || a.ios_per_s <= 0.0 {
            return None;
        }
        let gain = b.ios_per_s / a.ios_per_s - 1.0;
        let rising = match (a.p99_ns, b.p99_ns) {
            (Some(x), Some(y)) => y > x,
            _ => true,
        };
        (gain < KNEE_GAIN && rising).then_some(pair[0])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(depth: u32, ios_per_s: f64, p99_ns: u64) -> SweepPoint {
        SweepPoint {
            timespan: 1,
            values: vec![depth.to_string()],
            measured: true,
            cut_short: false,
            ios_per_s,
            bytes_per_s: ios_per_s * 4096.0,
            mean_ns: Some(p99_ns as f64 / 2.0),
            p50_ns: Some(p99_ns / 2),
            p99_ns: Some(p99_ns),
            p999_ns: Some(p99_ns * 2),
            cpu_percent: 10.0,
            achieved_depth: depth as f64,
            runs: Vec::new(),
            ios_per_s_ci95: None,
        }
    }

    /// A device of capacity 100,000 IOPS and 40 µs service time: IOPS = min(depth / 40 µs,
    /// capacity), latency = depth / IOPS (Little's law).
    fn modelled(depths: &[u32]) -> Vec<SweepPoint> {
        depths
            .iter()
            .map(|&d| {
                let iops = (d as f64 / 40e-6).min(100_000.0);
                at(d, iops, (d as f64 / iops * 1e9 * 1.5) as u64)
            })
            .collect()
    }

    #[test]
    fn the_knee_is_the_last_depth_before_capacity() {
        // Depth 4 gives 100,000; depth 8 gains nothing and doubles latency.
        let points = modelled(&[1, 2, 4, 8, 16, 32]);
        let all: Vec<usize> = (0..points.len()).collect();
        assert_eq!(knee(&points, &all), Some(2));
        assert_eq!(points[2].values, ["4"]);
    }

    #[test]
    fn no_knee_while_every_step_gains() {
        let points = modelled(&[1, 2]);
        assert_eq!(knee(&points, &[0, 1]), None);
        // A flat step whose latency falls is not a knee (noise, not queueing).
        let flat = vec![at(1, 1000.0, 500), at(2, 1010.0, 400), at(4, 2000.0, 450)];
        assert_eq!(knee(&flat, &[0, 1, 2]), None);
    }
}
