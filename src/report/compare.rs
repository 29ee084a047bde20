//! Comparing two results: for each timespan and direction, IOPS, MiB/s, mean latency and
//! percentiles side by side with the change in percent, and whether the change is larger than the
//! noise the runs' own interval data shows.
//!
//! Noise: each run's `-D` intervals (and time series rows for the percentiles) are cut into
//! [`BATCHES`] consecutive batches, and the batches' means are the samples: neighbouring intervals
//! are correlated (device state, caches, background work move slowly), so treating every interval
//! as an independent sample gives a standard error far too small — two identical runs back to back
//! were called "+17.55 %, noise ±10.3 %" that way. Two runs are not two halves of one run either:
//! identical back-to-back runs differ by a shift of their whole level that a confidence interval of
//! the mean (batch means over √5) covered in only 14 of 17 pairs on a VM's disk. So the noise is a
//! prediction band: each run's level is taken as one more draw of the variation its own batches
//! show, and the band is the 95 % half-width of the difference of two such draws, t · √(s²ᵦ + s²ₙ)
//! (Welch–Satterthwaite degrees of freedom). It scales with the device's own steadiness — narrow on
//! a steady device, wide on a noisy one — and covered 16 of 17 identical pairs there (20 of 20 in
//! `bench/runs/2026-11-23-2010-compare-noise.md`, 17 of 20 in a steadier later series); a change
//! outside it is called real, and so is one every batch shows (the runs' batch means separated),
//! which a band widened by one stalled batch would otherwise hide. Repeated
//! runs (`--repeat`) measure the run-to-run spread itself and give the firm verdict. Without
//! interval data (no `-D`) the noise is unknown and no change is called real.

use super::{Direction, Measured, Report};
use crate::stats::confidence::{Spread, difference};
use crate::stats::timeline::{Point, Row};

/// One metric of one direction in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// `read`, `write` or `total`.
    pub direction: &'static str,
    /// What is compared, with its unit.
    pub metric: String,
    /// The base run's value.
    pub base: f64,
    /// The new run's value.
    pub new: f64,
    /// `(new − base) / base` in percent; `None` when the base is 0.
    pub change_percent: Option<f64>,
    /// The 95 % prediction band of the difference of two runs' levels, in percent of the base;
    /// `None` without interval data.
    pub noise_percent: Option<f64>,
    /// Every batch mean of one run lies beyond every batch mean of the other: a shift no
    /// reshuffling of the batches explains (p = 2/252 for 5 against 5), whatever the band says.
    pub separated: bool,
}

impl Line {
    /// Whether the change is within the noise (unknown noise counts as not within).
    pub fn within_noise(&self) -> Option<bool> {
        Some(!self.separated && self.change_percent?.abs() <= self.noise_percent?)
    }
}

/// The comparison of one timespan.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSpanComparison {
    /// Measured seconds of each run.
    pub seconds: (f64, f64),
    /// Every metric.
    pub lines: Vec<Line>,
}

/// Batches each run's interval series is cut into.
pub const BATCHES: usize = 5;

/// The means of `BATCHES` consecutive batches of `values` (the last batches take the remainder);
/// fewer when there are fewer values.
fn batch_means(values: &[f64]) -> Vec<f64> {
    let k = BATCHES.min(values.len());
    (0..k)
        .map(|i| {
            let batch = &values[i * values.len() / k..(i + 1) * values.len() / k];
            batch.iter().sum::<f64>() / batch.len() as f64
        })
        .collect()
}

/// The half-width of the 95 % prediction band of the difference of two runs' levels, in percent of
/// `base` (each level varies like one batch mean, so the spread of a run is its batch means'
/// standard deviation, not that over √n; see the module note), and whether the two runs' batch
/// means are separated (all of one beyond all of the other: a band inflated by one stalled batch
/// cannot hide a change every batch shows); `None` unless both runs have two batches.
fn noise(base_values: &[f64], new_values: &[f64], base: f64) -> Option<(f64, bool)> {
    if base == 0.0 {
        return None;
    }
    let (a, b) = (batch_means(base_values), batch_means(new_values));
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    // `difference` divides each variance by n; a level's variance is the batches' own.
    let level = |batches: &[f64]| {
        let s = Spread::of(batches);
        Spread {
            stddev: s.stddev * (s.n as f64).sqrt(),
            ..s
        }
    };
    let (la, lb) = (level(&a), level(&b));
    let d = difference(&la, &lb)?;
    let separated = la.max < lb.min || lb.max < la.min;
    Some((d.half_width / base.abs() * 100.0, separated))
}

fn change(base: f64, new: f64) -> Option<f64> {
    (base != 0.0).then(|| (new - base) / base * 100.0)
}

/// Reads one metric of a time-series point.
type Pick = fn(&Point) -> f64;

/// Per-interval values of a time-series metric for one direction.
fn series(rows: &[Row], pick: Pick, direction: usize) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.all.total.ios > 0)
        .map(|r| {
            let p = match direction {
                0 => &r.all.read,
                1 => &r.all.write,
                _ => &r.all.total,
            };
            pick(p)
        })
        .collect()
}

fn direction_lines(
    name: &'static str,
    index: usize,
    (b, n): (&Direction, &Direction),
    (bm, nm): (&Measured, &Measured),
) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut push = |metric: &str, base: f64, new: f64, noise: Option<(f64, bool)>| {
        lines.push(Line {
            direction: name,
            metric: metric.to_string(),
            base,
            new,
            change_percent: change(base, new),
            noise_percent: noise.map(|n| n.0),
            separated: noise.is_some_and(|n| n.1),
        })
    };
    let iops = |d: &Direction| -> Vec<f64> { d.intervals.iter().map(|i| i.ios_per_s).collect() };
    // The interval byte rate: interval IOPS × the direction's mean I/O size.
    let mib = |d: &Direction| -> Vec<f64> {
        let size = if d.ios > 0 {
            d.bytes as f64 / d.ios as f64
        } else {
            0.0
        };
        d.intervals
            .iter()
            .map(|i| i.ios_per_s * size / 1_048_576.0)
            .collect()
    };
    push(
        "IOPS",
        b.ios_per_s,
        n.ios_per_s,
        noise(&iops(b), &iops(n), b.ios_per_s),
    );
    push(
        "MiB/s",
        b.bytes_per_s / 1_048_576.0,
        n.bytes_per_s / 1_048_576.0,
        noise(&mib(b), &mib(n), b.bytes_per_s / 1_048_576.0),
    );
    let (Some(bl), Some(nl)) = (&b.latency, &n.latency) else {
        return lines;
    };
    let means = |d: &Direction| -> Vec<f64> {
        d.intervals
            .iter()
            .filter(|i| i.ios > 0)
            .map(|i| i.latency_mean_ns / 1e3)
            .collect()
    };
    push(
        "mean latency (us)",
        bl.mean_ns / 1e3,
        nl.mean_ns / 1e3,
        noise(&means(b), &means(n), bl.mean_ns / 1e3),
    );
    let percentile_series: [(f64, &str, Option<Pick>); 6] = [
        (50.0, "p50 latency (us)", Some(|p| p.p50_ns as f64 / 1e3)),
        (90.0, "p90 latency (us)", None),
        (99.0, "p99 latency (us)", Some(|p| p.p99_ns as f64 / 1e3)),
        (99.9, "p99.9 latency (us)", Some(|p| p.p999_ns as f64 / 1e3)),
        (99.99, "p99.99 latency (us)", None),
        (100.0, "max latency (us)", Some(|p| p.max_ns as f64 / 1e3)),
    ];
    for (p, metric, pick) in percentile_series {
        let base = bl.at(p) as f64 / 1e3;
        let new = nl.at(p) as f64 / 1e3;
        let noise_percent = pick.and_then(|pick| {
            noise(
                &series(&bm.timeline, pick, index),
                &series(&nm.timeline, pick, index),
                base,
            )
        });
        push(metric, base, new, noise_percent);
    }
    lines
}

/// One metric of one repeated timespan in both runs, from their repetitions.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatedLine {
    /// The timespan as given, from 1.
    pub timespan: usize,
    /// What is compared, with its unit.
    pub metric: &'static str,
    /// Whether a larger value is better (rates) or worse (latency).
    pub higher_is_better: bool,
    /// The means, base and new.
    pub means: (f64, f64),
    /// The repetitions, base and new.
    pub counts: (usize, usize),
    /// new − base, with its 95 % interval (Welch's t).
    pub difference: crate::stats::confidence::Difference,
}

impl RepeatedLine {
    /// `faster`, `slower` or `no detectable change`.
    pub fn verdict(&self) -> &'static str {
        if !self.difference.detected() {
            "no detectable change"
        } else if (self.difference.delta > 0.0) == self.higher_is_better {
            "faster"
        } else {
            "slower"
        }
    }
}

/// When both runs repeated their timespans (`--repeat`): each metric's change with its 95 %
/// confidence interval, from the repetitions.
pub fn compare_repetitions(base: &Report, new: &Report) -> Vec<RepeatedLine> {
    let (Some(b), Some(n)) = (&base.repetitions, &new.repetitions) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for (bg, ng) in b.groups.iter().zip(&n.groups) {
        let metrics = [
            ("IOPS", true, Some(&bg.iops), Some(&ng.iops), 1.0),
            (
                "MiB/s",
                true,
                Some(&bg.throughput),
                Some(&ng.throughput),
                1_048_576.0,
            ),
            (
                "mean latency us",
                false,
                bg.mean_latency.as_ref(),
                ng.mean_latency.as_ref(),
                1e3,
            ),
            (
                "p99 latency us",
                false,
                bg.p99_latency.as_ref(),
                ng.p99_latency.as_ref(),
                1e3,
            ),
        ];
        for (metric, higher_is_better, bs, ns, unit) in metrics {
            let (Some(bs), Some(ns)) = (bs, ns) else {
                continue;
            };
            let Some(mut difference) = crate::stats::confidence::difference(bs, ns) else {
                continue;
            };
            difference.delta /= unit;
            difference.half_width /= unit;
            lines.push(RepeatedLine {
                timespan: bg.timespan,
                metric,
                higher_is_better,
                means: (bs.mean / unit, ns.mean / unit),
                counts: (bs.n, ns.n),
                difference,
            });
        }
    }
    lines
}

/// Compares timespan by timespan; `None` for a timespan either run did not measure.
pub fn compare(base: &Report, new: &Report) -> Vec<Option<TimeSpanComparison>> {
    base.timespans
        .iter()
        .zip(&new.timespans)
        .map(|(b, n)| {
            let (bm, nm) = (b.measured.as_ref()?, n.measured.as_ref()?);
            let mut lines = Vec::new();
            for (i, name, pick) in [
                (
                    0,
                    "read",
                    (|d| &d.read) as fn(&super::Directions) -> &Direction,
                ),
                (1, "write", |d| &d.write),
                (2, "total", |d| &d.total),
            ] {
                let (bd, nd) = (pick(&bm.totals), pick(&nm.totals));
                if bd.ios == 0 && nd.ios == 0 {
                    continue;
                }
                lines.extend(direction_lines(name, i, (bd, nd), (bm, nm)));
            }
            Some(TimeSpanComparison {
                seconds: (bm.duration_s, nm.duration_s),
                lines,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_the_prediction_band_of_the_batch_means() {
        // Ten intervals: batches of two, means 9, 10, 11, 10, 10 (variance 0.5).
        let a = [9.0, 9.0, 10.0, 10.0, 11.0, 11.0, 10.0, 10.0, 10.0, 10.0];
        assert_eq!(batch_means(&a), [9.0, 10.0, 11.0, 10.0, 10.0]);
        // Equal spreads: df = 8, t = 2.306; each level varies like one batch: √(0.5 + 0.5).
        let expected = 2.306 * (2.0 * 0.5f64).sqrt() / 10.0 * 100.0;
        let (got, separated) = noise(&a, &a, 10.0).unwrap();
        assert!(!separated, "a run is not separated from itself");
        assert!(
            (got - expected).abs() < 1e-3 * expected,
            "{got} vs {expected}"
        );
        // Slow drift that per-interval samples would hide widens the band: the same values in
        // order (a ramp) against shuffled (white noise) give the same naive SE, not the same noise.
        let ramp: Vec<f64> = (0..50).map(|i| 100.0 + i as f64).collect();
        let mut mixed = ramp.clone();
        mixed.sort_by_key(|&v| (v as u64 * 7919) % 50);
        assert!(
            noise(&ramp, &ramp, 125.0).unwrap().0 > 3.0 * noise(&mixed, &mixed, 125.0).unwrap().0
        );
        assert_eq!(noise(&[1.0], &a, 10.0), None, "one interval says nothing");
        assert_eq!(change(200.0, 250.0), Some(25.0));
        let line = Line {
            direction: "read",
            metric: "IOPS".into(),
            base: 200.0,
            new: 250.0,
            change_percent: Some(25.0),
            noise_percent: Some(10.0),
            separated: false,
        };
        assert_eq!(line.within_noise(), Some(false));
    }

    #[test]
    fn a_change_every_batch_shows_is_real_even_when_one_stalled_batch_widens_the_band() {
        // The base run stalls in one batch (a busy machine): its band passes 100 %, yet every
        // batch of the capped run is far below every batch of the base.
        let base = [400.0, 410.0, 20.0, 420.0, 405.0];
        let capped = [2.0, 2.0, 2.1, 2.0, 1.9];
        let mean = base.iter().sum::<f64>() / 5.0;
        let (band, separated) = noise(&base, &capped, mean).unwrap();
        assert!(band > 100.0, "{band}");
        assert!(separated);
        let line = Line {
            direction: "read",
            metric: "IOPS".into(),
            base: mean,
            new: 2.0,
            change_percent: change(mean, 2.0),
            noise_percent: Some(band),
            separated,
        };
        assert_eq!(line.within_noise(), Some(false));
        // Overlapping batches keep the band's verdict.
        let (_, overlapping) = noise(&base, &[380.0, 430.0, 400.0, 415.0, 395.0], mean).unwrap();
        assert!(!overlapping);
    }
}
