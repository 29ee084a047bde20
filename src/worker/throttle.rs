//! `-g` pacing and `-i`/`-j` bursts: each thread's I/O to a target is due at `start + n × cost`,
//! with exact rational arithmetic in nanoseconds, so the long-run rate is exact and no millisecond
//! tick is involved; under `--rate-process=poisson` each gap is instead drawn from the exponential
//! distribution of the same mean, from the last due time (fio's `rate_process=poisson`), so the
//! long-run rate is the asked one; after each burst the next I/O is due no earlier than the think
//! time. The
//! schedule starts again with the first I/O of the measured window, so time lost in warm-up (a
//! late start, a thread kept off its CPU) is not made up by a burst the window would count.

use crate::clock::Nanos;
use crate::profile::Throughput;
use crate::rng::Rng;

/// When the next I/O to one target may be issued.
#[derive(Debug, Clone)]
pub struct Throttle {
    start: Nanos,
    numerator: u128,
    denominator: u128,
    issued: u64,
    due: Nanos,
    /// When the schedule starts again (the measured window's start); `Nanos::MAX` once it has.
    restart: Nanos,
    burst: u64,
    think_ns: Nanos,
    in_burst: u64,
    /// `--rate-process=poisson`: the generator of its gaps.
    poisson: Option<Rng>,
}

impl Throttle {
    /// A pacer for one thread and target; `None` never holds I/O back. `burst` is this thread's
    /// share of a `-i`/`-j` burst: (I/Os, think time in µs); `poisson` seeds exponential gaps.
    pub fn new(
        rate: Option<Throughput>,
        block: u64,
        burst: Option<(u64, u64)>,
        poisson: Option<u64>,
    ) -> Self {
        let (numerator, denominator) = match rate {
            None => (0, 1),
            Some(Throughput::BytesPerMs(bytes)) => (block as u128 * 1_000_000, bytes as u128),
            Some(Throughput::BytesPerS(bytes)) => (block as u128 * 1_000_000_000, bytes as u128),
            Some(Throughput::Iops(iops)) => (1_000_000_000, iops as u128),
        };
        Throttle {
            start: 0,
            numerator,
            denominator,
            issued: 0,
            due: 0,
            restart: Nanos::MAX,
            burst: burst.map_or(u64::MAX, |(n, _)| n.max(1)),
            think_ns: burst.map_or(0, |(_, us)| us * 1_000),
            in_burst: 0,
            poisson: poisson.filter(|_| rate.is_some()).map(Rng::new),
        }
    }

    /// Starts the schedule at `start` (the beginning of warm-up), and again with the first I/O
    /// issued at or after `window` (the beginning of the measured window).
    pub fn start_at(&mut self, start: Nanos, window: Nanos) {
        self.start = start;
        self.due = start;
        self.restart = if window > start { window } else { Nanos::MAX };
    }

    /// Whether this pacer limits anything.
    pub fn is_limited(&self) -> bool {
        self.numerator != 0 || self.think_ns != 0
    }

    /// The time the next I/O is due.
    #[inline]
    pub fn due(&self) -> Nanos {
        self.due
    }

    /// Whether an I/O may be issued at `now`.
    #[inline]
    pub fn ready(&self, now: Nanos) -> bool {
        now >= self.due
    }

    /// Accounts one I/O issued at `now`.
    #[inline]
    pub fn issued(&mut self, now: Nanos) {
        if self.numerator != 0 {
            if now >= self.restart {
                self.restart = Nanos::MAX;
                self.start = now;
                self.issued = 0;
                self.due = now;
            }
            self.issued += 1;
            self.due = match &mut self.poisson {
                // -ln(1 − U), U uniform in [0, 1): an exponential gap of mean 1.
                Some(rng) => {
                    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    let mean = self.numerator as f64 / self.denominator as f64;
                    self.due + (-(1.0 - u).ln() * mean) as Nanos
                }
                None => {
                    self.start + (self.issued as u128 * self.numerator / self.denominator) as u64
                }
            };
        }
        self.in_burst += 1;
        if self.in_burst == self.burst {
            self.in_burst = 0;
            self.due = self.due.max(now + self.think_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_is_always_ready() {
        let mut t = Throttle::new(None, 4096, None, None);
        t.start_at(1000, 1000);
        for _ in 0..10 {
            assert!(t.ready(1000));
            t.issued(1000);
        }
        assert!(!t.is_limited());
    }

    #[test]
    fn iops_schedule_is_exact() {
        let mut t = Throttle::new(Some(Throughput::Iops(3)), 4096, None, None);
        t.start_at(0, 0);
        let dues: Vec<Nanos> = (0..4)
            .map(|_| {
                t.issued(0);
                t.due()
            })
            .collect();
        assert_eq!(
            dues,
            vec![333_333_333, 666_666_666, 1_000_000_000, 1_333_333_333]
        );
    }

    #[test]
    fn bytes_per_ms() {
        // 4096 bytes per I/O at 4096 bytes/ms: one I/O per millisecond.
        let mut t = Throttle::new(Some(Throughput::BytesPerMs(4096)), 4096, None, None);
        t.start_at(5, 5);
        assert!(t.ready(5));
        t.issued(5);
        assert!(!t.ready(1_000_004));
        assert!(t.ready(1_000_005));
    }

    #[test]
    fn bursts_pause_for_the_think_time() {
        let mut t = Throttle::new(None, 4096, Some((3, 10_000)), None);
        t.start_at(0, 0);
        assert!(t.is_limited());
        for now in [0, 1, 2] {
            assert!(t.ready(now));
            t.issued(now);
        }
        assert!(!t.ready(2), "the burst is spent");
        assert!(!t.ready(10_000_001));
        assert!(
            t.ready(10_000_002),
            "think time after the last I/O of the burst"
        );
    }

    #[test]
    fn think_time_is_microseconds() {
        let mut t = Throttle::new(None, 4096, Some((1, 250)), None);
        t.start_at(0, 0);
        assert!(t.ready(0));
        t.issued(0);
        assert!(!t.ready(249_999));
        assert!(t.ready(250_000), "250 µs after the I/O");
    }

    #[test]
    fn time_lost_in_warm_up_is_not_made_up_in_the_window() {
        // 1000 I/Os per second from 0, the window opening at 1 s: a thread that issued nothing
        // until 1.5 s owes 1,500 I/Os by the old schedule, and may issue just one, then one per ms.
        let mut t = Throttle::new(Some(Throughput::Iops(1000)), 4096, None, None);
        t.start_at(0, 1_000_000_000);
        let late = 1_500_000_000;
        assert!(t.ready(late));
        t.issued(late);
        assert!(!t.ready(late + 999_999), "the debt of warm-up is forgiven");
        assert!(t.ready(late + 1_000_000));
        // Within the window the schedule is kept: time lost there is made up.
        t.issued(late + 5_000_000);
        assert_eq!(t.due(), late + 2_000_000);
        // In warm-up, before the window, a late thread catches up as before.
        let mut w = Throttle::new(Some(Throughput::Iops(1000)), 4096, None, None);
        w.start_at(0, 1_000_000_000);
        w.issued(500_000_000);
        assert_eq!(w.due(), 1_000_000);
    }

    #[test]
    fn poisson_gaps_keep_the_mean_rate_and_vary() {
        // 1000 I/Os per second: gaps of 1 ms on average, exponentially distributed.
        let mut t = Throttle::new(Some(Throughput::Iops(1000)), 4096, None, Some(7));
        t.start_at(0, 0);
        let n = 100_000u64;
        let mut gaps = Vec::with_capacity(n as usize);
        let mut last = 0;
        for _ in 0..n {
            t.issued(t.due());
            gaps.push(t.due() - last);
            last = t.due();
        }
        let mean = last as f64 / n as f64;
        assert!((mean - 1e6).abs() < 1e6 * 0.02, "mean gap {mean} ns");
        // An exponential's median is ln 2 of its mean, and e^-2 of its gaps exceed twice it.
        gaps.sort_unstable();
        let median = gaps[gaps.len() / 2] as f64;
        assert!(
            (median / 1e6 - std::f64::consts::LN_2).abs() < 0.02,
            "{median}"
        );
        let long = gaps.iter().filter(|&&g| g > 2_000_000).count() as f64 / n as f64;
        assert!((long - (-2f64).exp()).abs() < 0.01, "{long}");
        // The same seed, the same schedule; another seed, another.
        assert_eq!(gaps_first(7), gaps_first(7));
        assert_ne!(gaps_first(7), gaps_first(8));
    }

    /// The first due time of a 1000 I/O/s Poisson pacer seeded `seed`.
    fn gaps_first(seed: u64) -> Nanos {
        let mut t = Throttle::new(Some(Throughput::Iops(1000)), 4096, None, Some(seed));
        t.start_at(0, 0);
        t.issued(0);
        t.due()
    }
}
