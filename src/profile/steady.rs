//! `--steady-state`: a timespan that ends once its throughput has held steady over a window of
//! one-second samples (fio's `ss`, `ss_dur`, `ss_ramp`).

use serde::{Deserialize, Serialize};

/// What the samples measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyMetric {
    /// I/Os completed each second.
    Iops,
    /// Bytes moved each second.
    Bandwidth,
}

/// The rule: which criterion, its limit, the window and the time before samples count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadyRule {
    /// What the samples measure.
    pub metric: SteadyMetric,
    /// The criterion is the least-squares slope of the window's samples (per second); else their
    /// largest deviation from the window's mean.
    pub slope: bool,
    /// The criterion must be below this (its magnitude, for a slope).
    pub limit: f64,
    /// `limit` is a percentage of the window's mean; else IOPS, or bytes per second.
    pub percent: bool,
    /// Seconds in the window.
    pub window_s: u32,
    /// Seconds from the timespan's start (warm-up included) before samples are taken.
    pub ramp_s: u32,
}

// `limit` is checked finite when it is read, so equality is an equivalence.
impl Eq for SteadyRule {}

impl SteadyRule {
    /// Reads `<iops|bw>[_slope]:<limit>[%]:<window>[:<ramp>]`; the window and the ramp are
    /// seconds, with `s`, `m` or `h` if given; an absolute bandwidth limit takes K, M, G or T.
    pub fn parse(text: &str) -> Result<SteadyRule, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let (criterion, limit, window, ramp) = match parts.as_slice() {
            [c, l, w] => (*c, *l, *w, None),
            [c, l, w, r] => (*c, *l, *w, Some(*r)),
            _ => {
                return Err(format!(
                    "'{text}' is not <iops|bw>[_slope]:<limit>[%]:<window>[:<ramp>] (e.g. iops:10%:30s)"
                ));
            }
        };
        let (metric, slope) = match criterion {
            "iops" => (SteadyMetric::Iops, false),
            "iops_slope" => (SteadyMetric::Iops, true),
            "bw" => (SteadyMetric::Bandwidth, false),
            "bw_slope" => (SteadyMetric::Bandwidth, true),
            other => {
                return Err(format!(
                    "criterion '{other}' is not iops, iops_slope, bw or bw_slope"
                ));
            }
        };
        let (limit, percent) = match limit.strip_suffix('%') {
            Some(pct) => (number(pct)?, true),
            None if metric == SteadyMetric::Bandwidth => (bandwidth(limit)?, false),
            None => (number(limit)?, false),
        };
        if limit <= 0.0 {
            return Err(format!("the limit must be above 0, not {limit}"));
        }
        let window_s = seconds(window)?;
        let ramp_s = ramp.map(seconds).transpose()?.unwrap_or(0);
        if window_s == 0 || (slope && window_s < 2) {
            return Err(format!(
                "a window of {window_s}s has no {}: give it at least {}s",
                if slope { "slope" } else { "samples" },
                if slope { 2 } else { 1 }
            ));
        }
        Ok(SteadyRule {
            metric,
            slope,
            limit,
            percent,
            window_s,
            ramp_s,
        })
    }

    /// fio's name of the criterion: `iops`, `iops_slope`, `bw` or `bw_slope`.
    pub fn criterion(&self) -> &'static str {
        match (self.metric, self.slope) {
            (SteadyMetric::Iops, false) => "iops",
            (SteadyMetric::Iops, true) => "iops_slope",
            (SteadyMetric::Bandwidth, false) => "bw",
            (SteadyMetric::Bandwidth, true) => "bw_slope",
        }
    }
}

impl std::fmt::Display for SteadyRule {
    /// The form [`SteadyRule::parse`] reads back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}{}:{}s",
            self.criterion(),
            self.limit,
            if self.percent { "%" } else { "" },
            self.window_s
        )?;
        if self.ramp_s > 0 {
            write!(f, ":{}s", self.ramp_s)?;
        }
        Ok(())
    }
}

fn number(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("limit '{text}' is not a number")),
    }
}

/// Bytes per second: a number with an optional binary K, M, G or T.
fn bandwidth(text: &str) -> Result<f64, String> {
    let (digits, scale) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => {
                    return Err(format!(
                        "bandwidth limit '{text}': the unit is K, M, G or T"
                    ));
                }
            };
            (&text[..i], (1u64 << shift) as f64)
        }
        _ => (text, 1.0),
    };
    Ok(number(digits)? * scale)
}

/// Whole seconds, with an optional `s`, `m` or `h`.
fn seconds(text: &str) -> Result<u32, String> {
    let (digits, scale) = match text.chars().last() {
        Some('s') => (&text[..text.len() - 1], 1),
        Some('m') => (&text[..text.len() - 1], 60),
        Some('h') => (&text[..text.len() - 1], 3600),
        _ => (text, 1),
    };
    digits
        .parse::<u32>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("'{text}' is not whole seconds (e.g. 30s, 2m)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_back_what_they_print() {
        for text in [
            "iops:10%:30s",
            "bw_slope:1%:10s:5s",
            "iops_slope:0.5:60s",
            "bw:1048576:5s",
        ] {
            let rule = SteadyRule::parse(text).unwrap();
            assert_eq!(rule.to_string(), text);
            assert_eq!(SteadyRule::parse(&rule.to_string()).unwrap(), rule);
        }
        let rule = SteadyRule::parse("bw:2M:1m:1m").unwrap();
        assert_eq!(
            (rule.limit, rule.percent, rule.window_s, rule.ramp_s),
            (2.0 * 1048576.0, false, 60, 60)
        );
    }

    #[test]
    fn bad_rules_say_what_is_wrong() {
        for (text, why) in [
            ("iops:10%", "is not <iops|bw>"),
            ("lat:10%:30s", "criterion 'lat'"),
            ("iops:x%:30s", "is not a number"),
            ("iops:0%:30s", "above 0"),
            ("iops:10%:0s", "at least 1s"),
            ("iops_slope:1%:1s", "at least 2s"),
            ("bw:10Q:30s", "the unit is K"),
            ("iops:10%:3x", "whole seconds"),
            ("iops:inf%:3s", "is not a number"),
        ] {
            let error = SteadyRule::parse(text).unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
