//! `--distribution`: random positions drawn with a skew, and the share of the I/O their hot set
//! takes by the distribution's closed form.
//!
//! A draw is a popularity rank (0 = hottest) over the target's `n` aligned positions:
//! - zipf:θ — rank k−1 with probability k^−θ / H(n, θ), by rejection-inversion (`rand_distr`);
//! - pareto:h — rank ⌊x·n⌋ with x = u^p, u uniform in [0, 1), p = ln h / ln(1 − h), so that the
//!   hottest fraction f of the positions takes f^(1/p) of the I/O (h → 1 − h);
//! - normal:σ — a position ⌊n/2 + σ·n·z⌋ with z standard normal, drawn again outside the range.
//!
//! Zipf and pareto ranks are scattered over the range by a bijection, `rank × stride mod n` with
//! `stride` coprime to `n` (near n × 0.618, [`crate::scatter`]), so hot blocks are spread as in real data sets yet each
//! block keeps exactly its rank's probability (a hash modulo n, as fio uses, folds ranks together
//! and skews the result). The scatter is the same for every thread and run: the hot set is a
//! property of the target, the draws follow each thread's seed. Normal is left centred: a bell is
//! a statement about locality.
//!
//! The hot sets reported are the hottest 1 % and 10 % of the positions (at least one each).

use rand_distr::Distribution as _;

use crate::profile::Skew;
use crate::rng::Rng;
use crate::scatter::Scatter;

/// The hot-set fractions the report states, in percent of the positions.
pub const HOT_PERCENTS: [u64; 2] = [1, 10];

/// The hottest `percent` % of `n` positions, at least one.
pub fn hot_blocks(n: u64, percent: u64) -> u64 {
    (n / 100 * percent + n % 100 * percent / 100).max(1).min(n)
}

#[derive(Debug, Clone)]
enum Kind {
    Zipf(rand_distr::Zipf<f64>),
    Pareto { power: f64 },
    Normal { sigma: f64 },
}

/// Draws skewed positions over `n` aligned positions and tells a position's hot set.
#[derive(Debug, Clone)]
pub struct SkewDraw {
    kind: Kind,
    n: u64,
    /// Rank → position.
    scatter: Scatter,
    /// Ranks below these are in the hot sets of [`HOT_PERCENTS`] (zipf, pareto); for normal, the
    /// hot set is the central run of that many positions starting at `centre_from`.
    hot: [u64; 2],
    centre_from: [u64; 2],
}

impl SkewDraw {
    /// A draw over `n` ≥ 1 positions.
    pub fn new(skew: Skew, n: u64) -> Self {
        let n = n.max(1);
        let kind = match skew {
            Skew::Zipf { theta } => Kind::Zipf(
                rand_distr::Zipf::new(n as f64, theta).expect("θ > 0 and n ≥ 1 are checked"),
            ),
            Skew::Pareto { h } => Kind::Pareto {
                power: h.ln() / (1.0 - h).ln(),
            },
            Skew::Normal { sigma_percent } => Kind::Normal {
                sigma: sigma_percent / 100.0 * n as f64,
            },
        };
        let hot = HOT_PERCENTS.map(|p| hot_blocks(n, p));
        SkewDraw {
            kind,
            n,
            scatter: Scatter::new(n),
            hot,
            centre_from: hot.map(|k| (n - k) / 2),
        }
    }

    /// A draw over `n` ≥ 1 positions whose ranks stay in order: position 0 the hottest for zipf
    /// and pareto (a pool's files, as fio serves them by a distribution).
    pub fn in_order(skew: Skew, n: u64) -> Self {
        SkewDraw {
            scatter: Scatter::identity(n),
            ..SkewDraw::new(skew, n)
        }
    }

    /// The next position, in `0..n`.
    #[inline]
    pub fn next(&self, rng: &mut Rng) -> u64 {
        match &self.kind {
            Kind::Zipf(zipf) => {
                let rank = (zipf.sample(rng) as u64).clamp(1, self.n) - 1;
                self.scatter(rank)
            }
            Kind::Pareto { power } => {
                let x = unit(rng).powf(*power);
                self.scatter(((x * self.n as f64) as u64).min(self.n - 1))
            }
            Kind::Normal { sigma } => loop {
                let z: f64 = rand_distr::StandardNormal.sample(rng);
                let at = self.n as f64 / 2.0 + sigma * z;
                if at >= 0.0 && at < self.n as f64 {
                    break at as u64;
                }
            },
        }
    }

    /// Whether `position` lies in each hot set of [`HOT_PERCENTS`].
    #[inline]
    pub fn hot(&self, position: u64) -> [bool; 2] {
        match self.kind {
            Kind::Normal { .. } => {
                [0, 1].map(|i| position.wrapping_sub(self.centre_from[i]) < self.hot[i])
            }
            _ => {
                let rank = self.scatter.back(position % self.n);
                self.hot.map(|k| rank < k)
            }
        }
    }

    #[inline]
    fn scatter(&self, rank: u64) -> u64 {
        self.scatter.forward(rank)
    }
}

/// A uniform number in [0, 1).
#[inline]
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The share of the I/O the hottest `k` of `n` positions take, by the distribution's closed form.
pub fn expected_share(skew: Skew, n: u64, k: u64) -> f64 {
    let n = n.max(1);
    let k = k.min(n);
    match skew {
        Skew::Zipf { theta } => harmonic(k, theta) / harmonic(n, theta),
        Skew::Pareto { h } => {
            let power = h.ln() / (1.0 - h).ln();
            (k as f64 / n as f64).powf(1.0 / power)
        }
        Skew::Normal { sigma_percent } => {
            let sigma = sigma_percent / 100.0 * n as f64;
            let cdf =
                |x: f64| 0.5 * (1.0 + libm::erf((x - n as f64 / 2.0) / (sigma * 2f64.sqrt())));
            let from = ((n - k) / 2) as f64;
            (cdf(from + k as f64) - cdf(from)) / (cdf(n as f64) - cdf(0.0))
        }
    }
}

/// H(m, θ) = Σ_{i=1..m} i^−θ: summed exactly up to a million terms, the rest by Euler–Maclaurin
/// (error below 10^−18 of the sum there).
fn harmonic(m: u64, theta: f64) -> f64 {
    const EXACT: u64 = 1 << 20;
    let head: f64 = (1..=m.min(EXACT)).map(|i| (i as f64).powf(-theta)).sum();
    if m <= EXACT {
        return head;
    }
    let (a, b) = (EXACT as f64, m as f64);
    let integral = if (theta - 1.0).abs() < 1e-12 {
        b.ln() - a.ln()
    } else {
        (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
    };
    let f = |x: f64| x.powf(-theta);
    let df = |x: f64| -theta * x.powf(-theta - 1.0);
    head + integral + (f(b) - f(a)) / 2.0 + (df(b) - df(a)) / 12.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upper 0.1 % point of χ² with `dof` degrees of freedom (Wilson–Hilferty).
    fn chi_square_limit(dof: f64) -> f64 {
        let z = 3.090_232;
        let c = 2.0 / (9.0 * dof);
        dof * (1.0 - c + z * c.sqrt()).powi(3)
    }

    /// Draws `draws` positions and tests them against the closed-form probability of each
    /// position (χ², every position a bin), and the hot sets' shares against the closed form.
    fn fits(skew: Skew, n: u64, draws: u64, probability: impl Fn(u64) -> f64) {
        let d = SkewDraw::new(skew, n);
        let mut rng = Rng::new(42);
        let mut hits = vec![0u64; n as usize];
        let mut hot = [0u64; 2];
        for _ in 0..draws {
            let p = d.next(&mut rng);
            hits[p as usize] += 1;
            for (i, h) in d.hot(p).into_iter().enumerate() {
                hot[i] += h as u64;
            }
        }
        // χ² with every position a bin; positions expecting fewer than 5 hits pooled into one.
        let (mut chi, mut bins, mut pooled, mut pooled_hits) = (0.0, 0u64, 0.0, 0u64);
        for p in 0..n {
            let expected = probability(p) * draws as f64;
            if expected < 5.0 {
                pooled += expected;
                pooled_hits += hits[p as usize];
                continue;
            }
            chi += (hits[p as usize] as f64 - expected).powi(2) / expected;
            bins += 1;
        }
        if pooled >= 5.0 {
            chi += (pooled_hits as f64 - pooled).powi(2) / pooled;
            bins += 1;
        }
        assert!(
            bins >= 100,
            "{skew:?}: only {bins} bins of {n} expect 5 hits"
        );
        let limit = chi_square_limit((bins - 1) as f64);
        assert!(
            chi < limit,
            "{skew:?}: χ² {chi:.0} over {limit:.0} ({n} bins)"
        );
        // The hot sets hold the positions with the most hits (up to ties and noise).
        let mut sorted = hits.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        for (i, percent) in HOT_PERCENTS.into_iter().enumerate() {
            let k = hot_blocks(n, percent);
            let expected = expected_share(skew, n, k);
            let measured = hot[i] as f64 / draws as f64;
            let top = sorted[..k as usize].iter().sum::<u64>() as f64 / draws as f64;
            let sd = (expected * (1.0 - expected) / draws as f64).sqrt();
            assert!(
                (measured - expected).abs() < 5.0 * sd + 1e-9,
                "{skew:?} hottest {percent} %: measured {measured:.5}, closed form {expected:.5}"
            );
            assert!(
                (top - expected).abs() < 0.01,
                "{skew:?} top {percent} % by hits {top:.4}, closed form {expected:.4}"
            );
        }
    }

    #[test]
    fn in_order_draws_keep_rank_order() {
        // A pool of 8 files by zipf:1.1, fio's default: file k is drawn ∝ 1/(k+1)^1.1, so each
        // file is drawn less than the one before it.
        let d = SkewDraw::in_order(Skew::Zipf { theta: 1.1 }, 8);
        let mut rng = Rng::new(7);
        let mut hits = [0u64; 8];
        for _ in 0..200_000 {
            hits[d.next(&mut rng) as usize] += 1;
        }
        assert!(hits.windows(2).all(|w| w[0] > w[1]), "{hits:?}");
        let share = hits[0] as f64 / 200_000.0;
        let expected = 1.0 / harmonic(8, 1.1);
        assert!((share - expected).abs() < 0.01, "{share} vs {expected}");
    }

    #[test]
    fn zipf_fits_its_closed_form() {
        let n = 2000;
        for theta in [0.8, 1.0, 1.2] {
            let skew = Skew::Zipf { theta };
            let d = SkewDraw::new(skew, n);
            let total = harmonic(n, theta);
            fits(skew, n, 1_000_000, |p| {
                let rank = d.scatter.back(p) + 1;
                (rank as f64).powf(-theta) / total
            });
        }
    }

    #[test]
    fn pareto_fits_its_closed_form() {
        let n = 1000;
        for h in [0.1, 0.2, 0.3] {
            let skew = Skew::Pareto { h };
            let d = SkewDraw::new(skew, n);
            let power = h.ln() / (1.0 - h).ln();
            let cdf = |r: u64| (r as f64 / n as f64).powf(1.0 / power);
            fits(skew, n, 1_000_000, |p| {
                let rank = d.scatter.back(p);
                cdf(rank + 1) - cdf(rank)
            });
        }
    }

    #[test]
    fn normal_fits_its_closed_form() {
        let n = 1000;
        for sigma_percent in [5.0, 10.0, 30.0] {
            let skew = Skew::Normal { sigma_percent };
            let sigma = sigma_percent / 100.0 * n as f64;
            let cdf =
                |x: f64| 0.5 * (1.0 + libm::erf((x - n as f64 / 2.0) / (sigma * 2f64.sqrt())));
            let inside = cdf(n as f64) - cdf(0.0);
            fits(skew, n, 2_000_000, |p| {
                (cdf(p as f64 + 1.0) - cdf(p as f64)) / inside
            });
        }
    }

    #[test]
    fn the_hot_share_of_the_80_20_rule_and_of_a_big_target() {
        // pareto:0.2 is the 80/20 rule: the hottest 20 % take 80 %.
        let share = expected_share(Skew::Pareto { h: 0.2 }, 1000, 200);
        assert!((share - 0.8).abs() < 1e-12, "{share}");
        // Euler–Maclaurin's tail against the exact sum, past the exact head.
        let m = (1 << 20) + 12_345;
        let exact: f64 = (1..=m).map(|i| (i as f64).powf(-1.1)).sum();
        assert!((harmonic(m, 1.1) - exact).abs() < 1e-9 * exact);
        let exact: f64 = (1..=m).map(|i| 1.0 / i as f64).sum();
        assert!((harmonic(m, 1.0) - exact).abs() < 1e-9 * exact);
    }

    #[test]
    fn scatter_is_a_bijection_and_the_same_for_every_draw() {
        for n in [1u64, 2, 6, 100, 4096, 1_000_003] {
            let d = SkewDraw::new(Skew::Zipf { theta: 1.0 }, n);
            let mut seen = vec![false; n.min(5000) as usize];
            for rank in 0..n.min(5000) {
                let p = d.scatter(rank);
                assert!(p < n);
                assert_eq!(d.scatter.back(p), rank, "n={n}");
                if n <= 5000 {
                    assert!(!seen[p as usize], "n={n}: two ranks on {p}");
                    seen[p as usize] = true;
                }
            }
        }
    }
}
