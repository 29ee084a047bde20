//! How far a result can be trusted, from repeated measurements: the mean with its 95 % confidence
//! interval (Student's t), outlying repetitions (the modified z-score from the median and the
//! median absolute deviation, as hyperfine flags them) and steady state as SNIA's Performance Test
//! Specification defines it.

use serde::{Deserialize, Serialize};

/// The two-sided 95 % quantile of Student's t (its 0.975 quantile) for `df` degrees of freedom.
/// Exact to the printed digits of the standard tables up to 30 degrees of freedom; beyond, the
/// Cornish–Fisher expansion around the normal quantile (error below 1e-4).
pub fn t_975(df: u32) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    t_quantile(&TABLE, 1.959_963_984_540_054, df)
}

/// The two-sided 99 % quantile of Student's t (its 0.995 quantile), as [`t_975`] computes its own.
pub fn t_995(df: u32) -> f64 {
    const TABLE: [f64; 30] = [
        63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169, 3.106, 3.055, 3.012,
        2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797, 2.787, 2.779,
        2.771, 2.763, 2.756, 2.750,
    ];
    t_quantile(&TABLE, 2.575_829_303_548_900_4, df)
}

/// A t quantile: from the table of its first 30 degrees of freedom, beyond from the Cornish–Fisher
/// expansion around `z`, the normal distribution's quantile at the same level.
fn t_quantile(table: &[f64; 30], z: f64, df: u32) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => table[df as usize - 1],
        _ => {
            let n = df as f64;
            let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
            z + (z3 + z) / (4.0 * n)
                + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * n * n)
                + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * n * n * n)
        }
    }
}

/// Repeated measurements of one quantity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// How many.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Their sample standard deviation (n − 1).
    pub stddev: f64,
    /// Half the width of the 95 % confidence interval of the mean: t(0.975, n − 1) × s / √n
    /// (0 for one measurement, which has no interval: check `n`).
    pub ci95_half_width: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `xs`, which must not be empty.
    pub fn of(xs: &[f64]) -> Spread {
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Spread {
            n,
            mean,
            stddev,
            ci95_half_width: if n > 1 {
                t_975(n as u32 - 1) * stddev / (n as f64).sqrt()
            } else {
                0.0
            },
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// The interval's half-width as a share of the mean (infinite for a zero mean).
    pub fn relative_half_width(&self) -> f64 {
        if self.mean == 0.0 {
            f64::INFINITY
        } else {
            self.ci95_half_width / self.mean.abs()
        }
    }
}

/// The difference of two means (new − base) with the half-width of its 95 % confidence interval,
/// by Welch's t (unequal variances; Welch–Satterthwaite degrees of freedom, rounded down).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// new − base.
    pub delta: f64,
    /// Half the 95 % interval's width.
    pub half_width: f64,
    /// The degrees of freedom used.
    pub df: u32,
}

impl Difference {
    /// Whether the interval excludes zero: a change the repetitions can detect.
    pub fn detected(&self) -> bool {
        self.delta.abs() > self.half_width
    }
}

/// The difference of the means of `new` and `base`; `None` unless both have two measurements.
pub fn difference(base: &Spread, new: &Spread) -> Option<Difference> {
    if base.n < 2 || new.n < 2 {
        return None;
    }
    let (a, b) = (
        base.stddev.powi(2) / base.n as f64,
        new.stddev.powi(2) / new.n as f64,
    );
    let se = (a + b).sqrt();
    let df = if a + b == 0.0 {
        (base.n + new.n - 2) as f64
    } else {
        (a + b).powi(2) / (a * a / (base.n - 1) as f64 + b * b / (new.n - 1) as f64)
    };
    let df = (df.floor() as u32).max(1);
    Some(Difference {
        delta: new.mean - base.mean,
        half_width: t_975(df) * se,
        df,
    })
}

/// A modified z-score above this marks an outlier (Iglewicz and Hoaglin's rule).
pub const OUTLIER_Z: f64 = 3.5;

/// The indices of the outlying measurements: |0.6745 × (x − median) / MAD| > 3.5. None when the
/// MAD is zero (more than half the measurements are equal) or there are fewer than three.
pub fn outliers(xs: &[f64]) -> Vec<usize> {
    if xs.len() < 3 {
        return Vec::new();
    }
    let m = median(xs);
    let deviations: Vec<f64> = xs.iter().map(|x| (x - m).abs()).collect();
    let mad = median(&deviations);
    if mad == 0.0 {
        return Vec::new();
    }
    xs.iter()
        .enumerate()
        .filter(|(_, x)| (0.6745 * (*x - m) / mad).abs() > OUTLIER_Z)
        .map(|(i, _)| i)
        .collect()
}

fn median(xs: &[f64]) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// SNIA PTS steady state over the last [`STEADY_WINDOW`] rounds.
pub const STEADY_WINDOW: usize = 5;

/// SNIA's steady-state test of one series: over the last five rounds, the range (max − min) must
/// be within 20 % of their average and the excursion of their least-squares line (slope × 4
/// rounds) within 10 %.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// The average over the window.
    pub average: f64,
    /// Max − min over the window, as a share of the average.
    pub range_share: f64,
    /// The least-squares line's rise over the window, as a share of the average (signed).
    pub excursion_share: f64,
    /// Both within their limits.
    pub reached: bool,
}

/// The least-squares slope of `values` against their positions 0, 1, 2 …; 0 for fewer than two.
pub fn slope(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let x_mean = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (y - mean);
        sxx += dx * dx;
    }
    if sxx > 0.0 { sxy / sxx } else { 0.0 }
}

/// The steady-state test of the last five values of `series`; `None` with fewer.
pub fn steady_state(series: &[f64]) -> Option<SteadyState> {
    let window = series.get(series.len().checked_sub(STEADY_WINDOW)?..)?;
    let n = window.len() as f64;
    let average = window.iter().sum::<f64>() / n;
    // No I/O in the window (a replay whose trace ended before it): no level to be steady at.
    if average <= 0.0 {
        return None;
    }
    let slope = slope(window);
    let max = window.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = window.iter().copied().fold(f64::INFINITY, f64::min);
    let share = |v: f64| v / average;
    let range_share = share(max - min);
    let excursion_share = share(slope * (n - 1.0));
    Some(SteadyState {
        average,
        range_share,
        excursion_share,
        reached: range_share <= 0.20 && excursion_share.abs() <= 0.10,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        assert_eq!(t_975(1), 12.706);
        assert_eq!(t_975(4), 2.776);
        assert_eq!(t_975(30), 2.042);
        // Published values beyond the table: 40 → 2.0211, 60 → 2.0003, 120 → 1.9799.
        for (df, t) in [(40, 2.0211), (60, 2.0003), (120, 1.9799), (100_000, 1.9600)] {
            assert!((t_975(df) - t).abs() < 2e-4, "df {df}: {}", t_975(df));
        }
        assert!(t_975(0).is_infinite());
        assert_eq!(t_995(1), 63.657);
        assert_eq!(t_995(9), 3.250);
        // Published 0.995 quantiles: 40 → 2.7045, 60 → 2.6603, 120 → 2.6174, ∞ → 2.5758.
        for (df, t) in [(40, 2.7045), (60, 2.6603), (120, 2.6174), (100_000, 2.5758)] {
            assert!((t_995(df) - t).abs() < 2e-4, "df {df}: {}", t_995(df));
        }
    }

    #[test]
    fn a_textbook_confidence_interval() {
        // Five measurements 10, 12, 11, 13, 9: mean 11, s = 1.5811, t(4) = 2.776, half-width
        // 2.776 × 1.5811 / √5 = 1.963.
        let s = Spread::of(&[10.0, 12.0, 11.0, 13.0, 9.0]);
        assert_eq!(s.n, 5);
        assert!((s.mean - 11.0).abs() < 1e-12);
        assert!((s.stddev - 1.581_139).abs() < 1e-6);
        assert!(
            (s.ci95_half_width - 1.962_9).abs() < 1e-3,
            "{}",
            s.ci95_half_width
        );
        assert_eq!((s.min, s.max), (9.0, 13.0));
        assert!((s.relative_half_width() - 1.962_9 / 11.0).abs() < 1e-4);
        let one = Spread::of(&[5.0]);
        assert_eq!((one.n, one.ci95_half_width, one.stddev), (1, 0.0, 0.0));
    }

    #[test]
    fn welch_difference_of_two_textbook_samples() {
        // Means 11 and 14, both variances 2.5 over 5: se 1, Welch df 8, t(8) 2.306.
        let base = Spread::of(&[10.0, 12.0, 11.0, 13.0, 9.0]);
        let new = Spread::of(&[14.0, 15.0, 13.0, 16.0, 12.0]);
        let d = difference(&base, &new).unwrap();
        assert_eq!(d.df, 8);
        assert!((d.delta - 3.0).abs() < 1e-12);
        assert!((d.half_width - 2.306).abs() < 1e-9);
        assert!(d.detected());
        let close = Spread::of(&[11.5, 10.5, 12.0, 10.0, 11.0]);
        assert!(!difference(&base, &close).unwrap().detected());
        assert!(difference(&base, &Spread::of(&[1.0])).is_none());
    }

    #[test]
    fn the_mad_rule_flags_only_the_far_value() {
        // Median 100, MAD 1: 0.6745 × 6 / 1 = 4.05 > 3.5 flags 106; 104 gives 2.7 and stays.
        assert_eq!(outliers(&[99.0, 100.0, 101.0, 100.0, 106.0]), vec![4]);
        assert_eq!(
            outliers(&[99.0, 100.0, 101.0, 100.0, 104.0]),
            Vec::<usize>::new()
        );
        // Most values equal: MAD 0, nothing is called an outlier.
        assert_eq!(outliers(&[5.0, 5.0, 5.0, 9.0]), Vec::<usize>::new());
        assert_eq!(outliers(&[1.0, 50.0]), Vec::<usize>::new());
    }

    #[test]
    fn snia_steady_state_on_crafted_series() {
        // Flat with small noise: reached.
        let flat = steady_state(&[50.0, 80.0, 100.0, 102.0, 99.0, 101.0, 98.0]).unwrap();
        assert!(flat.reached, "{flat:?}");
        assert!((flat.average - 100.0).abs() < 1e-9);
        assert!((flat.range_share - 0.04).abs() < 1e-9);
        // Range 16 % but a steady climb: slope 4 per round, excursion 16 / 100 > 10 %.
        let climbing = steady_state(&[92.0, 96.0, 100.0, 104.0, 108.0]).unwrap();
        assert!(!climbing.reached);
        assert!((climbing.excursion_share - 0.16).abs() < 1e-9);
        assert!(climbing.range_share <= 0.20);
        // No trend but a range of 30 %: not reached.
        let wide = steady_state(&[85.0, 115.0, 100.0, 115.0, 85.0]).unwrap();
        assert!(!wide.reached);
        assert!(wide.excursion_share.abs() <= 0.10);
        assert!(steady_state(&[1.0, 2.0, 3.0, 4.0]).is_none());
        // Nothing moved in the window: no level, and no shares of it (which JSON cannot carry).
        assert!(steady_state(&[9.0, 0.0, 0.0, 0.0, 0.0, 0.0]).is_none());
    }
}
