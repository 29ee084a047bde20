//! `iospd sweep --slo=p99:2ms <options> <target>`: the highest rate whose latency meets a target.
//!
//! 1. A closed-loop ramp doubles the queue depth (`-o1`, `-o2`, …) until IOPS gains less than 10 %
//!    a step: saturation, and the depth that reached it.
//! 2. Open loop: at that depth, each thread paced to a target rate (`-g<n>i`), latency counted from
//!    each I/O's intended start (so time spent queued behind a slow I/O is not hidden). Bisection
//!    over the rate between 0 and 105 % of saturation until the bracket is within 2 %.
//!
//! A step passes when the achieved rate is within 1.5 % of the target and the upper 95 % bound of
//! the latency percentile is under the target. The bound comes from the order statistics of the
//! step's samples: with n samples and percentile p, the k-th smallest, where
//! k = ⌈np + 1.645·√(np(1−p))⌉ + 1 (the normal approximation of the binomial, one-sided 95 %),
//! read from the step's exact histogram. A step with too few samples for that bound (k > n) runs
//! again twice as long instead of guessing. Every step is a plain iospd command line, printed as it
//! runs.

use std::fmt::Write as _;
use std::process::Command;

use super::ToolError;
use crate::report::Report;

/// A ramp step that gains less than this is saturation.
const SATURATION_GAIN: f64 = 0.10;
/// The bisection ends when the bracket is this narrow, relative to its top.
const BRACKET: f64 = 0.02;
/// A paced step must reach this share of its target rate.
const ACHIEVED: f64 = 0.985;
/// The deepest queue the ramp tries.
const MAX_DEPTH: u32 = 1024;

/// `pXX:<value><us|ms>`: the percentile (0–100) and the latency bound in ns.
pub fn parse_slo(text: &str) -> Result<(f64, u64), String> {
    let hint = "give a percentile and a latency, for example --slo=p99:2ms or --slo=p99.9:500us";
    let (p, bound) = text
        .strip_prefix('p')
        .and_then(|t| t.split_once(':'))
        .ok_or_else(|| format!("'{text}' is not a latency target; {hint}"))?;
    let p: f64 = p
        .parse()
        .ok()
        .filter(|p| *p > 0.0 && *p < 100.0)
        .ok_or_else(|| format!("'p{p}' is not a percentile between 0 and 100; {hint}"))?;
    let (number, unit) = if let Some(n) = bound.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = bound.strip_suffix("ms") {
        (n, 1e6)
    } else {
        return Err(format!("'{bound}' needs a unit, us or ms; {hint}"));
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| *v > 0.0 && v.is_finite())
        .ok_or_else(|| format!("'{bound}' is not a positive latency; {hint}"))?;
    Ok((p, (value * unit) as u64))
}

/// The one-sided upper 95 % order-statistic rank for percentile `p` (0–1) among `n` samples, or
/// `None` when `n` is too small for one.
pub fn upper_rank(n: u64, p: f64) -> Option<u64> {
    let np = n as f64 * p;
    let k = (np + 1.645 * (np * (1.0 - p)).sqrt()).ceil() as u64 + 1;
    (k <= n).then_some(k)
}

/// One step's outcome.
struct Step {
    rate: f64,
    ios: u64,
    percentile_ns: Option<u64>,
    bound_ns: Option<u64>,
}

/// Runs the search; `args` are the sweep's arguments with `--slo=` among them.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let usage = |why: String| ToolError::Usage(why);
    let slo = args
        .iter()
        .find_map(|a| a.strip_prefix("--slo="))
        .ok_or_else(|| usage("--slo=<pXX:latency> is missing".into()))?;
    let (percentile, target_ns) = parse_slo(slo).map_err(usage)?;
    let mut base: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with("--slo=") && a.as_str() != "-L")
        .cloned()
        .collect();
    if let Some(bad) = base
        .iter()
        .find(|a| a.starts_with("-o") || a.starts_with("-g") || a.starts_with("-R"))
    {
        return Err(usage(format!(
            "'{bad}' cannot be given with --slo: the search sets the depth (-o), the pacing (-g) and reads JSON results (-R)"
        )));
    }
    let threads: f64 = base
        .iter()
        .find_map(|a| a.strip_prefix("-t").and_then(|t| t.parse::<u32>().ok()))
        .unwrap_or(1) as f64;
    if base.len() < 2 {
        return Err(usage(
            "give the workload and one target, for example: iospd sweep --slo=p99:2ms -b4K -r -Sh -d10 /mnt/t.dat".into(),
        ));
    }
    base.insert(base.len() - 1, "-L".into());
    let exe = std::env::current_exe().map_err(|e| ToolError::Output {
        path: "iospd".into(),
        why: e.to_string(),
    })?;
    let mut log = format!(
        "iospd sweep --slo: the highest rate with p{percentile} latency under {:.3} ms\n\nclosed-loop ramp:\n",
        target_ns as f64 / 1e6
    );
    out(&std::mem::take(&mut log))?;
    let runner = Runner {
        exe,
        base,
        percentile,
    };
    // 1. The ramp.
    let (mut best, mut depth, mut d) = (0.0f64, 1u32, 1u32);
    while d <= MAX_DEPTH {
        let report = runner.run(&[format!("-o{d}")], None)?;
        let (iops, p_ns) = summary(&report, percentile, false);
        out(&format!(
            "  -o{d:<5} {iops:12.2} I/O per s  p{percentile} {}\n",
            ms(p_ns)
        ))?;
        if iops < best * (1.0 + SATURATION_GAIN) {
            break;
        }
        (best, depth) = (iops, d);
        d *= 2;
    }
    out(&format!(
        "saturation: {best:.2} I/O per s at -o{depth}\n\nopen loop at -o{depth}, latency from each I/O's intended start:\n"
    ))?;
    // 2. The bisection.
    let (mut lo, mut hi) = (0.0f64, best * 1.05);
    let mut passing: Option<Step> = None;
    // Without a passing step the bracket only shrinks towards 0: stop below 0.1 % of saturation.
    while hi - lo > BRACKET * hi && (passing.is_some() || hi > best / 1000.0) {
        let rate = (lo + hi) / 2.0;
        let per_thread = (rate / threads).round().max(1.0) as u64;
        let mut seconds_scale = 1;
        let step = loop {
            let report = runner.run(
                &[format!("-o{depth}"), format!("-g{per_thread}i")],
                Some(seconds_scale),
            )?;
            let step = paced(&report, percentile);
            if step.bound_ns.is_some() || seconds_scale >= 8 {
                break step;
            }
            out(&format!(
                "  {rate:12.2}  {} I/Os are too few for a 95% bound on p{percentile}: running {}x longer\n",
                step.ios,
                seconds_scale * 2
            ))?;
            seconds_scale *= 2;
        };
        let achieved = step.rate >= ACHIEVED * per_thread as f64 * threads;
        let under = step.bound_ns.is_some_and(|b| b <= target_ns);
        let pass = achieved && under;
        out(&format!(
            "  target {:12.2}  achieved {:12.2}  p{percentile} {}  upper bound {}  {}\n",
            per_thread as f64 * threads,
            step.rate,
            ms(step.percentile_ns),
            ms(step.bound_ns),
            if pass {
                "pass"
            } else if !achieved {
                "fail (rate not reached)"
            } else {
                "fail (latency)"
            }
        ))?;
        if pass {
            lo = rate;
            passing = Some(step);
        } else {
            hi = rate;
        }
    }
    let _ = match &passing {
        Some(step) => writeln!(
            log,
            "\nanswer: {:.2} I/O per s meets p{percentile} < {:.3} ms (p{percentile} {}, upper 95% bound {}; bracket {:.0}-{:.0})",
            step.rate,
            target_ns as f64 / 1e6,
            ms(step.percentile_ns),
            ms(step.bound_ns),
            lo,
            hi
        ),
        None => writeln!(
            log,
            "\nanswer: no rate tried met p{percentile} < {:.3} ms (the lowest tried was {:.2} I/O per s)",
            target_ns as f64 / 1e6,
            hi
        ),
    };
    out(&log)?;
    Ok(0)
}

struct Runner {
    exe: std::path::PathBuf,
    base: Vec<String>,
    percentile: f64,
}

impl Runner {
    /// Runs the base command with `extra` options (and `-d` scaled by `scale`), printing the line.
    fn run(&self, extra: &[String], scale: Option<u32>) -> Result<Report, ToolError> {
        let mut args: Vec<String> = self
            .base
            .iter()
            .map(|a| {
                match (
                    scale,
                    a.strip_prefix("-d").and_then(|d| d.parse::<u32>().ok()),
                ) {
                    (Some(s), Some(d)) => format!("-d{}", d * s),
                    _ => a.clone(),
                }
            })
            .collect();
        let target = args.pop().unwrap_or_default();
        args.extend(extra.iter().cloned());
        args.push(format!("--percentiles={}", self.percentile));
        args.push("-Rjson".into());
        args.push(target);
        out(&format!("    $ iospd {}\n", args.join(" ")))?;
        let output =
            Command::new(&self.exe)
                .args(&args)
                .output()
                .map_err(|e| ToolError::Output {
                    path: self.exe.clone(),
                    why: e.to_string(),
                })?;
        if !output.status.success() {
            return Err(ToolError::Usage(format!(
                "iospd {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        serde_json::from_slice(&output.stdout)
            .map_err(|e| ToolError::Usage(format!("iospd {} gave no JSON: {e}", args.join(" "))))
    }
}

fn out(text: &str) -> Result<(), ToolError> {
    crate::console::out(text).map_err(|e| ToolError::Output {
        path: "standard output".into(),
        why: e.to_string(),
    })
}

fn ms(ns: Option<u64>) -> String {
    ns.map_or("N/A".into(), |ns| format!("{:.3} ms", ns as f64 / 1e6))
}

/// IOPS and the percentile of the first timespan (from the intended start when `paced`).
fn summary(report: &Report, percentile: f64, paced: bool) -> (f64, Option<u64>) {
    let Some(m) = report.timespans.first().and_then(|t| t.measured.as_ref()) else {
        return (0.0, None);
    };
    let total = &m.totals.total;
    let latency = if paced {
        total.latency_from_intended.as_ref()
    } else {
        total.latency.as_ref()
    };
    (total.ios_per_s, latency.map(|l| l.at(percentile)))
}

fn paced(report: &Report, percentile: f64) -> Step {
    let (rate, percentile_ns) = summary(report, percentile, true);
    let latency = report
        .timespans
        .first()
        .and_then(|t| t.measured.as_ref())
        .and_then(|m| m.totals.total.latency_from_intended.as_ref());
    let ios = latency.map_or(0, |l| l.count);
    let bound_ns = latency.and_then(|l| {
        let k = upper_rank(l.count, percentile / 100.0)?;
        let h = l.histogram().ok()?;
        h.percentiles(&[k as f64 / l.count as f64]).first().copied()
    });
    Step {
        rate,
        ios,
        percentile_ns,
        bound_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_targets_parse_with_their_units() {
        assert_eq!(parse_slo("p99:2ms"), Ok((99.0, 2_000_000)));
        assert_eq!(parse_slo("p99.9:500us"), Ok((99.9, 500_000)));
        for bad in ["99:2ms", "p100:1ms", "p99:2", "p99:-1ms", "p99:xms", "p99"] {
            assert!(parse_slo(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_upper_rank_needs_enough_samples() {
        // n = 10,000, p = 0.99: np = 9,900, sd = √99 = 9.95, k = ⌈9,900 + 16.37⌉ + 1 = 9,918.
        assert_eq!(upper_rank(10_000, 0.99), Some(9_918));
        // 100 samples cannot bound p99 from above: k = ⌈99 + 1.64⌉ + 1 = 102 > 100.
        assert_eq!(upper_rank(100, 0.99), None);
        assert!(upper_rank(1_000, 0.5).unwrap() > 500);
    }
}
