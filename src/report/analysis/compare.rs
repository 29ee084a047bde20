//! Comparing two results: for each timespan and direction, IOPS, MiB/s, mean latency and
//! percentiles side by side with the change in percent, and whether the change is larger than
//! chance explains.
//!
//! A change is real only when it passes two tests. First the run-to-run floor
//! ([`crate::report::analysis::noise`]): how far two single runs of the workload differ with nothing changed, which
//! nothing inside the two runs can tell (identical back-to-back runs shift as a whole while each is
//! steady), so it is measured from repetitions or else iospd's wide defaults. Then each run's own
//! steadiness: its `-D` intervals (and time series rows for the percentiles) are cut into
//! [`BATCHES`] consecutive batches, whose means are the samples (neighbouring intervals are
//! correlated, so single intervals would give a standard error far too small), and the band is the
//! 95 % prediction band of the difference of two runs' levels, each varying like one batch mean:
//! t · √(s²ᵦ + s²ₙ), Welch–Satterthwaite degrees of freedom. A run that stalls or drifts widens it
//! past the floor. The band yields when the two runs' batch means are separated (every batch of one
//! beyond every batch of the other): one stalled batch cannot hide a change every batch shows.
//! Repeated runs on both sides (`--repeat`) give the firm verdict from the spread between runs.

use crate::report::analysis::metric::{DIRECTIONS, Metric};
use crate::report::analysis::noise::Floors;
use crate::report::{Direction, Measured, Report};
use crate::stats::confidence::{Spread, difference};

/// One metric of one direction in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// `read`, `write` or `total`.
    pub direction: &'static str,
    /// What is compared.
    pub metric: Metric,
    /// The base run's value.
    pub base: f64,
    /// The new run's value.
    pub new: f64,
    /// `(new − base) / base` in percent; `None` when the base is 0.
    pub change_percent: Option<f64>,
    /// How far two runs of the workload differ by chance, in percent ([`crate::report::analysis::noise`]).
    pub floor_percent: f64,
    /// The floor was measured from repetitions, not iospd's default.
    pub floor_measured: bool,
    /// The 95 % prediction band of the difference of the two runs' levels from their own batches,
    /// in percent of the base; `None` without interval data.
    pub band_percent: Option<f64>,
    /// Every batch mean of one run lies beyond every batch mean of the other: a shift no
    /// reshuffling of the batches explains (p = 2/252 for 5 against 5), whatever the band says.
    pub separated: bool,
}

/// What a line's change is, by the rule in the module note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No larger than two runs of the workload differ with nothing changed (the floor).
    WithinNoise,
    /// Past the floor, and past the runs' own band or with every batch of one run beyond every
    /// batch of the other: a real rise or fall.
    Higher,
    /// See [`Verdict::Higher`].
    Lower,
    /// Past the floor but inside the band of runs that vary this much within themselves: neither
    /// noise nor a change can be told; run longer or repeat (`--repeat`).
    Unsteady,
    /// The base is 0: no change to judge.
    NothingToJudge,
}

impl Verdict {
    /// The verdict as the comparison prints it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::WithinNoise => "within noise",
            Verdict::Higher => "higher",
            Verdict::Lower => "lower",
            Verdict::Unsteady => "unsteady: cannot tell",
            Verdict::NothingToJudge => "no change to judge",
        }
    }
}

impl Line {
    /// The change as a ratio, in percent: how much larger the larger value is than the smaller,
    /// so a fall is judged as the rise of the same ratio (a halving counts as 100 %, like a
    /// doubling; a fall from 40,735 to 2,000 as 1,937 %); `None` when the base is 0.
    pub fn ratio_percent(&self) -> Option<f64> {
        self.change_percent?;
        let (small, large) = if self.new < self.base {
            (self.new, self.base)
        } else {
            (self.base, self.new)
        };
        Some(if small <= 0.0 {
            f64::INFINITY
        } else {
            (large / small - 1.0) * 100.0
        })
    }

    /// The verdict: within noise when the change's ratio is inside the floor (a ratio, see
    /// [`crate::report::analysis::noise::floor_percent`]); else real when the change is past the
    /// band too (or there is no band: no interval data), or every batch of one run lies beyond
    /// every batch of the other; else unsteady.
    pub fn verdict(&self) -> Verdict {
        let (Some(ratio), Some(change)) = (self.ratio_percent(), self.change_percent) else {
            return Verdict::NothingToJudge;
        };
        if ratio <= self.floor_percent {
            Verdict::WithinNoise
        } else if self.separated || self.band_percent.is_none_or(|band| change.abs() > band) {
            if change > 0.0 {
                Verdict::Higher
            } else {
                Verdict::Lower
            }
        } else {
            Verdict::Unsteady
        }
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
fn band(base_values: &[f64], new_values: &[f64], base: f64) -> Option<(f64, bool)> {
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

/// The lines of direction `index` of `timespan` (from 0).
fn direction_lines(
    (timespan, index, name): (usize, usize, &'static str),
    (b, n): (&Direction, &Direction),
    (bm, nm): (&Measured, &Measured),
    floors: &Floors,
) -> Vec<Line> {
    Metric::ALL
        .into_iter()
        .filter_map(|metric| {
            let (base, new) = (metric.of(b)?, metric.of(n)?);
            let band = band(
                &metric.intervals(b, bm, index),
                &metric.intervals(n, nm, index),
                base,
            );
            let (floor_percent, floor_measured) = floors.floor(timespan, index, metric);
            Some(Line {
                direction: name,
                metric,
                base,
                new,
                change_percent: change(base, new),
                floor_percent,
                floor_measured,
                band_percent: band.map(|b| b.0),
                separated: band.is_some_and(|b| b.1),
            })
        })
        .collect()
}

/// One metric of one repeated timespan in both runs, from their repetitions.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatedLine {
    /// The timespan as given, from 1.
    pub timespan: usize,
    /// What is compared.
    pub metric: &'static str,
    /// Whether the means are latencies, in nanoseconds.
    pub latency: bool,
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
                "mean latency",
                false,
                bg.mean_latency.as_ref(),
                ng.mean_latency.as_ref(),
                1.0,
            ),
            (
                "p99 latency",
                false,
                bg.p99_latency.as_ref(),
                ng.p99_latency.as_ref(),
                1.0,
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
                latency: !higher_is_better,
                higher_is_better,
                means: (bs.mean / unit, ns.mean / unit),
                counts: (bs.n, ns.n),
                difference,
            });
        }
    }
    lines
}

/// Compares timespan by timespan against the run-to-run `floors`; `None` for a timespan either
/// run did not measure.
pub fn compare(base: &Report, new: &Report, floors: &Floors) -> Vec<Option<TimeSpanComparison>> {
    base.timespans
        .iter()
        .zip(&new.timespans)
        .enumerate()
        .map(|(k, (b, n))| {
            let (bm, nm) = (b.measured.as_ref()?, n.measured.as_ref()?);
            let mut lines = Vec::new();
            for (i, name, pick) in DIRECTIONS {
                let (bd, nd) = (pick(&bm.totals), pick(&nm.totals));
                if bd.ios == 0 && nd.ios == 0 {
                    continue;
                }
                lines.extend(direction_lines((k, i, name), (bd, nd), (bm, nm), floors));
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
    use crate::report::analysis::noise::floor_percent;

    fn line(change_percent: f64, floor: f64, band: Option<f64>, separated: bool) -> Line {
        Line {
            direction: "read",
            metric: Metric::Iops,
            base: 100.0,
            new: 100.0 + change_percent,
            change_percent: Some(change_percent),
            floor_percent: floor,
            floor_measured: true,
            band_percent: band,
            separated,
        }
    }

    #[test]
    fn the_band_is_the_prediction_band_of_the_batch_means() {
        // Ten intervals: batches of two, means 9, 10, 11, 10, 10 (variance 0.5).
        let a = [9.0, 9.0, 10.0, 10.0, 11.0, 11.0, 10.0, 10.0, 10.0, 10.0];
        assert_eq!(batch_means(&a), [9.0, 10.0, 11.0, 10.0, 10.0]);
        // Equal spreads: df = 8, t = 2.306; each level varies like one batch: √(0.5 + 0.5).
        let expected = 2.306 * (2.0 * 0.5f64).sqrt() / 10.0 * 100.0;
        let (got, separated) = band(&a, &a, 10.0).unwrap();
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
            band(&ramp, &ramp, 125.0).unwrap().0 > 3.0 * band(&mixed, &mixed, 125.0).unwrap().0
        );
        assert_eq!(band(&[1.0], &a, 10.0), None, "one interval says nothing");
        assert_eq!(change(200.0, 250.0), Some(25.0));
    }

    #[test]
    fn a_change_is_real_only_past_the_floor_and_past_the_runs_own_band() {
        use Verdict::*;
        // Two steady runs a level apart: their batches separate, yet the shift is within what
        // runs of this workload differ by.
        assert_eq!(line(6.0, 10.0, Some(2.0), true).verdict(), WithinNoise);
        // Past the floor and past a steady band: real, either way.
        assert_eq!(line(-15.0, 10.0, Some(2.0), false).verdict(), Lower);
        assert_eq!(line(15.0, 10.0, Some(2.0), true).verdict(), Higher);
        // Past the floor but inside an unsteady run's band: neither noise nor a change.
        assert_eq!(line(15.0, 10.0, Some(40.0), false).verdict(), Unsteady);
        // Without interval data the floor decides.
        assert_eq!(line(15.0, 10.0, None, false).verdict(), Higher);
        assert_eq!(line(5.0, 10.0, None, false).verdict(), WithinNoise);
        // A zero base: no change to judge.
        let zero = Line {
            change_percent: None,
            ..line(0.0, 10.0, None, false)
        };
        assert_eq!(zero.verdict(), NothingToJudge);
    }

    #[test]
    fn a_fall_is_judged_by_its_ratio_so_a_halving_is_never_noise() {
        use Verdict::*;
        // −9.5 % is a ratio of 10.5 %: past a 10 % floor.
        assert_eq!(line(-9.5, 10.0, None, false).verdict(), Lower);
        let halved = line(-50.0, 33.8, Some(30.0), false);
        assert_eq!(halved.ratio_percent(), Some(100.0));
        assert_eq!(halved.verdict(), Lower);
        // 40,735 → 2,000 IOPS against a band of 343 %: a ratio of 1,937 %, past any floor, but
        // inside the band of a run that varied that much: it cannot be told, it is not noise.
        let capped = Line {
            base: 40_735.0,
            new: 2_000.0,
            change_percent: change(40_735.0, 2_000.0),
            ..line(0.0, 33.8, Some(343.0), false)
        };
        assert!((capped.ratio_percent().unwrap() - 1_936.75).abs() < 0.01);
        assert_eq!(capped.verdict(), Unsteady);
        // Whatever the band, a halving is not within noise while the floor is under 100 %.
        for band in [None, Some(10.0), Some(99.0), Some(500.0)] {
            assert_ne!(line(-50.0, 99.0, band, false).verdict(), WithinNoise);
        }
    }

    #[test]
    fn a_change_every_batch_shows_is_real_even_when_one_stalled_batch_widens_the_band() {
        // The base run stalls in one batch (a busy machine): its band passes 100 %, yet every
        // batch of the capped run is far below every batch of the base.
        let base = [400.0, 410.0, 20.0, 420.0, 405.0];
        let capped = [2.0, 2.0, 2.1, 2.0, 1.9];
        let mean = base.iter().sum::<f64>() / 5.0;
        let (width, separated) = band(&base, &capped, mean).unwrap();
        assert!(width > 100.0, "{width}");
        assert!(separated);
        let change = change(mean, 2.0).unwrap();
        assert_eq!(
            line(change, 30.0, Some(width), separated).verdict(),
            Verdict::Lower
        );
        // Overlapping batches keep the band's verdict.
        let (_, overlapping) = band(&base, &[380.0, 430.0, 400.0, 415.0, 395.0], mean).unwrap();
        assert!(!overlapping);
    }

    /// A modelled machine like the shared VM measured in `bench/runs/2026-11-24-compare-noise.md`:
    /// each run's level moves by `cv` percent from run to run (normal), and its 30 intervals scatter
    /// around that level by 10 %. Returns the level and the intervals.
    fn modelled_run(rng: &mut crate::rng::Rng, cv: f64, level: f64) -> (f64, Vec<f64>) {
        let mut normal = || {
            // Box–Muller from two uniforms in (0, 1].
            let u = |r: &mut crate::rng::Rng| (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let (a, b) = (1.0 - u(rng), u(rng));
            (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
        };
        let run_level = level * (1.0 + cv / 100.0 * normal());
        let intervals: Vec<f64> = (0..30)
            .map(|_| run_level * (1.0 + 0.10 * normal()))
            .collect();
        let mean = intervals.iter().sum::<f64>() / intervals.len() as f64;
        (mean, intervals)
    }

    /// How many of 20 identical pairs the verdict does not call higher or lower, with the floor
    /// measured by 10 repetitions of the same modelled workload (or none).
    fn identical_pairs_within(rng: &mut crate::rng::Rng, cv: f64, with_floor: bool) -> usize {
        let reps: Vec<f64> = (0..10).map(|_| modelled_run(rng, cv, 1000.0).0).collect();
        let s = Spread::of(&reps);
        let floor = if with_floor {
            floor_percent(s.stddev / s.mean * 100.0, Some(s.n))
        } else {
            0.0
        };
        (0..20)
            .filter(|_| {
                let (a, ia) = modelled_run(rng, cv, 1000.0);
                let (b, ib) = modelled_run(rng, cv, 1000.0);
                let (width, separated) = band(&ia, &ib, a).unwrap();
                let verdict = line(change(a, b).unwrap(), floor, Some(width), separated).verdict();
                !matches!(verdict, Verdict::Higher | Verdict::Lower)
            })
            .count()
    }

    #[test]
    fn identical_runs_are_within_noise_19_times_in_20_when_runs_shift_as_a_whole() {
        let mut rng = crate::rng::Rng::new(20261124);
        // 200 series of 20 identical pairs each, on a machine whose runs shift by 8 %.
        let series = 200;
        let passing = (0..series)
            .filter(|_| identical_pairs_within(&mut rng, 8.0, true) >= 19)
            .count();
        assert!(
            passing >= series * 9 / 10,
            "19 of 20 in {passing} of {series} series"
        );
        // Without the floor the runs' own bands miss the shift in most series: the floor is what
        // makes the verdict right.
        let without = (0..series)
            .filter(|_| identical_pairs_within(&mut rng, 8.0, false) >= 19)
            .count();
        assert!(without < series / 2, "19 of 20 in {without} of {series}");
        // A real change of 50 % on that machine is still called in almost every pair.
        let reps: Vec<f64> = (0..10)
            .map(|_| modelled_run(&mut rng, 8.0, 1000.0).0)
            .collect();
        let s = Spread::of(&reps);
        let floor = floor_percent(s.stddev / s.mean * 100.0, Some(s.n));
        let called = (0..200)
            .filter(|_| {
                let (a, ia) = modelled_run(&mut rng, 8.0, 1000.0);
                let (b, ib) = modelled_run(&mut rng, 8.0, 500.0);
                let (width, separated) = band(&ia, &ib, a).unwrap();
                line(change(a, b).unwrap(), floor, Some(width), separated).verdict()
                    == Verdict::Lower
            })
            .count();
        assert!(called >= 195, "a halving called in {called} of 200 pairs");
    }
}
