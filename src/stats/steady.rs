//! `--steady-state`: the live collector's intervals summed into one-second samples
//! of the whole timespan (every thread and target), and after each whole second the rule judged
//! over the last window of them, as fio judges its `ss` (`steadystate.c`): the largest deviation
//! from the window's mean, or the least-squares slope, against the limit (a percentage of the mean
//! when the rule says so); reached when below it.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::profile::steady::{SteadyMetric, SteadyRule};
use crate::stats::timeline::Row;

/// What the rule found: reached or not, the last judgement and the window it judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyOutcome {
    /// The rule.
    pub rule: SteadyRule,
    /// The timespan ended because the rule was met.
    pub attained: bool,
    /// Seconds of the measured window when it was met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attained_at_s: Option<u64>,
    /// The last judgement: the deviation or the slope (a percentage of the mean when the rule's
    /// limit is one); `None` before the window filled.
    pub criterion: Option<f64>,
    /// The window's largest deviation from its mean (IOPS or bytes per second).
    pub max_deviation: f64,
    /// The window's least-squares slope (per second).
    pub slope: f64,
    /// The window's I/Os per second, oldest first.
    pub iops: Vec<u64>,
    /// The window's bytes per second, oldest first.
    pub bw: Vec<u64>,
}

impl SteadyOutcome {
    /// Mean of the window's IOPS samples (0 without samples).
    pub fn iops_mean(&self) -> f64 {
        mean(&self.iops)
    }

    /// Mean of the window's bandwidth samples, bytes per second.
    pub fn bw_mean(&self) -> f64 {
        mean(&self.bw)
    }
}

fn mean(values: &[u64]) -> f64 {
    match values.len() {
        0 => 0.0,
        n => values.iter().map(|&v| v as f64).sum::<f64>() / n as f64,
    }
}

/// Judges the rule on the intervals as they come.
#[derive(Debug)]
pub struct SteadyWatch {
    rule: SteadyRule,
    /// Seconds of the measured window before samples count (the ramp less the warm-up).
    skip_s: u64,
    /// The second being summed: its index from the window's start, I/Os and bytes.
    current: Option<(u64, u64, u64)>,
    /// The window: (I/Os, bytes) of each whole second, oldest first.
    samples: VecDeque<(u64, u64)>,
    outcome: SteadyOutcome,
}

impl SteadyWatch {
    /// Watches `rule` in a timespan whose measured window starts `warmup_s` after its start.
    pub fn new(rule: SteadyRule, warmup_s: u32) -> SteadyWatch {
        SteadyWatch {
            rule,
            skip_s: u64::from(rule.ramp_s.saturating_sub(warmup_s)),
            current: None,
            samples: VecDeque::with_capacity(rule.window_s as usize + 1),
            outcome: SteadyOutcome {
                rule,
                attained: false,
                attained_at_s: None,
                criterion: None,
                max_deviation: 0.0,
                slope: 0.0,
                iops: Vec::new(),
                bw: Vec::new(),
            },
        }
    }

    /// Takes the next interval (intervals divide a second); true once the rule is met.
    pub fn interval(&mut self, row: &Row) -> bool {
        if self.outcome.attained {
            return true;
        }
        let second = (row.start_ms / 1000.0).floor() as u64;
        if let Some((at, ios, bytes)) = self.current
            && at != second
        {
            self.current = None;
            if self.second(at, ios, bytes) {
                return true;
            }
        }
        // An interval cut short by the window's end never completes its second.
        let whole_end = row.start_ms + row.length_ms >= (second + 1) as f64 * 1000.0 - 1e-6;
        let (_, ios, bytes) = self.current.get_or_insert((second, 0, 0));
        *ios += row.all.total.ios;
        *bytes += row.all.total.bytes;
        if whole_end {
            let (at, ios, bytes) = self.current.take().unwrap();
            return self.second(at, ios, bytes);
        }
        false
    }

    /// The rule was met.
    pub fn attained(&self) -> bool {
        self.outcome.attained
    }

    /// The outcome so far.
    pub fn outcome(&self) -> SteadyOutcome {
        let mut outcome = self.outcome.clone();
        outcome.iops = self.samples.iter().map(|s| s.0).collect();
        outcome.bw = self.samples.iter().map(|s| s.1).collect();
        outcome
    }

    /// Second `at` is whole: a sample once past the ramp, then the judgement.
    fn second(&mut self, at: u64, ios: u64, bytes: u64) -> bool {
        if at < self.skip_s {
            return false;
        }
        self.samples.push_back((ios, bytes));
        if self.samples.len() > self.rule.window_s as usize {
            self.samples.pop_front();
        }
        if self.samples.len() < self.rule.window_s as usize {
            return false;
        }
        let values: Vec<f64> = self
            .samples
            .iter()
            .map(|&(ios, bytes)| match self.rule.metric {
                SteadyMetric::Iops => ios as f64,
                SteadyMetric::Bandwidth => bytes as f64,
            })
            .collect();
        let (deviation, slope) = judge(&values);
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let measure = if self.rule.slope {
            slope.abs()
        } else {
            deviation
        };
        let criterion = match self.rule.percent {
            // No I/O at all is not a steady state.
            true if mean <= 0.0 => f64::INFINITY,
            true => 100.0 * measure / mean,
            false => measure,
        };
        self.outcome.criterion = Some(criterion);
        self.outcome.max_deviation = deviation;
        self.outcome.slope = slope;
        if criterion < self.rule.limit {
            self.outcome.attained = true;
            self.outcome.attained_at_s = Some(at + 1);
        }
        self.outcome.attained
    }
}

/// The largest deviation of `values` from their mean, and their least-squares slope per sample.
fn judge(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let deviation = values.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
    (deviation, super::confidence::slope(values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::timeline::{Directions, Point};

    fn row(start_ms: f64, length_ms: f64, ios: u64) -> Row {
        let point = Point {
            ios,
            bytes: ios * 4096,
            ..Default::default()
        };
        Row {
            start_ms,
            length_ms,
            targets: Vec::new(),
            all: Directions {
                total: point,
                ..Default::default()
            },
        }
    }

    fn rule(text: &str) -> SteadyRule {
        SteadyRule::parse(text).unwrap()
    }

    #[test]
    fn a_deviation_rule_is_met_when_the_whole_window_stays_near_its_mean() {
        let mut watch = SteadyWatch::new(rule("iops:10%:3s"), 0);
        // 100, 150, 100: the mean is 116.7 and 150 is 28.6 % from it.
        for (s, ios) in [(0, 100), (1, 150), (2, 100)] {
            assert!(!watch.interval(&row(s as f64 * 1000.0, 1000.0, ios)));
        }
        let seen = watch.outcome();
        assert!((seen.criterion.unwrap() - 28.571).abs() < 0.01, "{seen:?}");
        // 150, 100, 105 still deviates; 100, 105, 95 does not (mean 100, 5 %).
        assert!(!watch.interval(&row(3000.0, 1000.0, 105)));
        assert!(watch.interval(&row(4000.0, 1000.0, 95)));
        let met = watch.outcome();
        assert!(met.attained);
        assert_eq!(met.attained_at_s, Some(5));
        assert_eq!(met.iops, [100, 105, 95]);
        assert_eq!(met.bw, [409600, 430080, 389120]);
        assert!((met.criterion.unwrap() - 5.0).abs() < 1e-9);
    }

    #[test]
    fn a_slope_rule_fits_a_line_and_an_absolute_limit_is_in_the_metrics_units() {
        // 10, 20, 30, 40: a slope of 10 I/Os per second per second.
        let mut watch = SteadyWatch::new(rule("iops_slope:10.5:4s"), 0);
        for (s, ios) in [(0, 10), (1, 20), (2, 30)] {
            assert!(!watch.interval(&row(s as f64 * 1000.0, 1000.0, ios)));
        }
        assert!(watch.interval(&row(3000.0, 1000.0, 40)));
        assert!((watch.outcome().slope - 10.0).abs() < 1e-9);
        let mut falling = SteadyWatch::new(rule("iops_slope:9.5:4s"), 0);
        for (s, ios) in [(0, 40), (1, 30), (2, 20), (3, 10)] {
            assert!(!falling.interval(&row(s as f64 * 1000.0, 1000.0, ios)));
        }
        assert!((falling.outcome().slope + 10.0).abs() < 1e-9);
        assert_eq!(falling.outcome().criterion, Some(10.0));
    }

    #[test]
    fn short_intervals_are_summed_into_seconds_and_the_ramp_and_a_cut_second_are_left_out() {
        // A ramp of 3 s after a warm-up of 1 s: the window's first two seconds are left out.
        let mut watch = SteadyWatch::new(rule("iops:1%:2s:3s"), 1);
        let mut at = 0.0;
        for ios in [
            1, 1, 1, 1, 900, 900, 900, 900, 50, 50, 50, 50, 60, 60, 60, 60,
        ] {
            assert!(!watch.interval(&row(at, 250.0, ios)), "{at}");
            at += 250.0;
        }
        assert_eq!(watch.outcome().iops, [200, 240]);
        // Met when the last interval of the next second arrives.
        for i in 0..3 {
            assert!(!watch.interval(&row(at + i as f64 * 250.0, 250.0, 60)));
        }
        assert!(watch.interval(&row(at + 750.0, 250.0, 60)));
        assert_eq!(watch.outcome().attained_at_s, Some(5));
        // No I/O is never steady; an interval the window's end cut short is not a second.
        let mut idle = SteadyWatch::new(rule("iops:50%:2s"), 0);
        assert!(!idle.interval(&row(0.0, 1000.0, 0)));
        assert!(!idle.interval(&row(1000.0, 1000.0, 0)));
        assert_eq!(idle.outcome().criterion, Some(f64::INFINITY));
        let mut cut = SteadyWatch::new(rule("iops:50%:2s"), 0);
        assert!(!cut.interval(&row(0.0, 1000.0, 10)));
        assert!(!cut.interval(&row(1000.0, 400.0, 10)));
        assert_eq!(cut.outcome().iops, [10]);
    }
}
