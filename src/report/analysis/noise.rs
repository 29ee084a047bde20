//! Run-to-run noise for `iospd compare`: how far two single runs of one workload may differ by
//! chance. Nothing inside one run measures it: identical runs back to back on a shared machine
//! shift as a whole while each is steady in itself (on a cloud VM's disk, pairs of identical
//! 3-second runs differed by 4 % root mean square one day and 11 % the next, up to 28 %, with
//! steady intervals on both sides: `bench/runs/2026-11-24-compare-noise.md`). So the floor under
//! which no change is called real comes from outside the two runs: from repetitions of the workload
//! (`--noise-from=<a result made with --repeat=N>`), or else from defaults measured on that VM,
//! which are wide because a verdict that calls noise a change misleads more than one that misses
//! a small change.
//!
//! A metric's floor is the half-width of the 99 % prediction band of the difference of two single
//! runs whose levels vary as the repetitions' do: t(0.995, n − 1) · √2 · s / mean. Each new run
//! differs from the true level by σ, so their difference by σ√2; s estimates σ from n repetitions,
//! hence Student's quantile. 99 % rather than 95 %: at 95 % one series of 20 identical pairs in four
//! would see two or more pairs called changed, and a comparison shows up to 18 lines.

use crate::report::Report;
use crate::report::analysis::metric::{DIRECTIONS, Metric};
use crate::stats::confidence::{Spread, t_995};

/// Where a comparison's floors come from.
#[derive(Debug, Clone, PartialEq)]
pub enum FloorSource {
    /// iospd's defaults ([`Metric::default_cv`]).
    Default,
    /// The repetitions of a result made with `--repeat`.
    Repetitions {
        /// The result's file, as given.
        path: String,
        /// The fewest measured repetitions any timespan had.
        runs: usize,
    },
}

/// One measured floor.
#[derive(Debug, Clone, PartialEq)]
struct Measured {
    timespan: usize,
    direction: usize,
    metric: Metric,
    percent: f64,
}

/// The run-to-run floors of a comparison, per timespan, direction and metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Floors {
    /// Where they come from.
    pub source: FloorSource,
    measured: Vec<Measured>,
}

/// How far apart, as a ratio, two single runs may fall by chance, in percent: the 99 % prediction
/// band of the difference of two runs' logarithms, q · √2 · cv, turned into a ratio, e^(q·√2·cv) − 1,
/// when runs vary with `cv` percent (coefficient of variation, which is the standard deviation of
/// the logarithm for the small spreads of runs) estimated from `n` repetitions (q: Student's
/// t(0.995, n − 1); `None`: known, the normal quantile). Runs vary by a factor, not by an amount,
/// so the floor is a ratio and holds alike for a rise and a fall.
pub fn floor_percent(cv: f64, n: Option<usize>) -> f64 {
    let quantile = match n {
        Some(n) => t_995(n.saturating_sub(1) as u32),
        None => 2.575_829_303_548_900_4,
    };
    ((quantile * std::f64::consts::SQRT_2 * cv / 100.0).exp() - 1.0) * 100.0
}

impl Floors {
    /// iospd's defaults, for comparisons without repetitions of the workload.
    pub fn defaults() -> Floors {
        Floors {
            source: FloorSource::Default,
            measured: Vec::new(),
        }
    }

    /// The floors the repetitions in `report` measure (a result made with `--repeat=N`, N ≥ 3),
    /// read from `path`; why not, as the end of a sentence about that file. Metrics the repetitions
    /// lack keep the default.
    pub fn from_repetitions(report: &Report, path: &str) -> Result<Floors, String> {
        let Some(repetitions) = &report.repetitions else {
            return Err("it holds no repetitions; make it by running the compared workload with --repeat=10 (at least 3) and -Rjson or --output=<file>.json".into());
        };
        let mut measured = Vec::new();
        let mut fewest = usize::MAX;
        for group in &repetitions.groups {
            let runs: Vec<_> = group
                .runs
                .iter()
                .filter_map(|&i| report.timespans.get(i - 1)?.measured.as_ref())
                .collect();
            if runs.len() < 3 {
                return Err(format!(
                    "it has {} measured repetitions of timespan {}; a floor needs at least 3: run it with --repeat=10",
                    runs.len(),
                    group.timespan
                ));
            }
            fewest = fewest.min(runs.len());
            for (direction, _, pick) in DIRECTIONS {
                for metric in Metric::ALL {
                    let values: Option<Vec<f64>> = runs
                        .iter()
                        .map(|m| {
                            let d = pick(&m.totals);
                            (d.ios > 0).then(|| metric.of(d)).flatten()
                        })
                        .collect();
                    let Some(values) = values else { continue };
                    let spread = Spread::of(&values);
                    if spread.mean <= 0.0 {
                        continue;
                    }
                    measured.push(Measured {
                        timespan: group.timespan - 1,
                        direction,
                        metric,
                        percent: floor_percent(spread.stddev / spread.mean * 100.0, Some(spread.n)),
                    });
                }
            }
        }
        Ok(Floors {
            source: FloorSource::Repetitions {
                path: path.to_string(),
                runs: fewest,
            },
            measured,
        })
    }

    /// The floor of `metric` in `direction` (0 read, 1 write, 2 total) of `timespan` (from 0), in
    /// percent, and whether it was measured (else it is the default).
    pub fn floor(&self, timespan: usize, direction: usize, metric: Metric) -> (f64, bool) {
        self.measured
            .iter()
            .find(|m| m.timespan == timespan && m.direction == direction && m.metric == metric)
            .map_or((floor_percent(metric.default_cv(), None), false), |m| {
                (m.percent, true)
            })
    }

    /// One line for the report's footer: where the floors come from.
    pub fn describe(&self) -> String {
        match &self.source {
            FloorSource::Default => format!(
                "floor: iospd's defaults (IOPS {:.1}%, mean latency {:.1}%, p99 {:.1}%), from identical back-to-back runs on a\n\
                 shared cloud VM; measure this machine's: run the workload with --repeat=10 --output=cal.json, then\n\
                 iospd compare --noise-from=cal.json <base.json> <new.json>",
                self.floor(0, 2, Metric::Iops).0,
                self.floor(0, 2, Metric::MeanLatency).0,
                self.floor(0, 2, Metric::P99).0,
            ),
            FloorSource::Repetitions { path, runs } => format!(
                "floor: measured from the {runs} repetitions in {path} (* = a metric it lacks: iospd's default)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_the_99_percent_prediction_band_of_a_difference_of_two_runs() {
        // 10 repetitions varying by 5 %: t(0.995, 9) = 3.250, times √2.
        let ratio = |q: f64| ((q * 2f64.sqrt() * 0.05).exp() - 1.0) * 100.0;
        assert!((floor_percent(5.0, Some(10)) - ratio(3.250)).abs() < 1e-2);
        // Known variation: the normal quantile.
        assert!((floor_percent(5.0, None) - ratio(2.5758)).abs() < 1e-3);
        // Fewer repetitions, a wider floor for the same spread.
        assert!(floor_percent(5.0, Some(3)) > 2.0 * floor_percent(5.0, Some(10)));
        let defaults = Floors::defaults();
        let (iops, measured) = defaults.floor(0, 2, Metric::Iops);
        assert!(!measured);
        assert_eq!(iops, floor_percent(Metric::Iops.default_cv(), None));
        assert!(
            defaults.floor(3, 0, Metric::Max).0 > iops,
            "a maximum varies most"
        );
    }
}
