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

use super::ToolError;
use crate::cli::line::Line;
use crate::report::Report;
use crate::report::analysis::slo::{PacedStep, RampStep, SloSearch};
use crate::report::render::slo::{self as render, duration};

/// A ramp step that gains less than this is saturation.
const SATURATION_GAIN: f64 = 0.10;
/// The bisection ends when the bracket is this narrow, relative to its top.
const BRACKET: f64 = 0.02;
/// A paced step must reach this share of its target rate.
const ACHIEVED: f64 = 0.985;
/// The deepest queue the ramp tries.
const MAX_DEPTH: u32 = 1024;
/// A step with too few samples for a bound runs at most this many times longer.
const MAX_SCALE: u32 = 8;

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

/// What the search looks for.
#[derive(Debug, Clone, Copy)]
pub struct Goal {
    /// The percentile (0–100).
    pub percentile: f64,
    /// The latency it must stay under, ns.
    pub target_ns: u64,
    /// Threads the paced rate is shared among (`-t`).
    pub threads: u32,
    /// Runs per paced step (`--repeat`).
    pub repeat: u32,
}

/// One paced run: the achieved rate, and the percentile of latency from each I/O's intended start
/// with its upper 95 % bound (`None` with too few samples).
#[derive(Debug, Clone, PartialEq)]
pub struct PacedRun {
    /// I/Os per second over all threads.
    pub rate: f64,
    /// Latency samples.
    pub samples: u64,
    /// The percentile, ns.
    pub percentile_ns: Option<u64>,
    /// Its upper 95 % bound, ns.
    pub bound_ns: Option<u64>,
    /// The command line that ran it.
    pub command: String,
}

/// What the search measures with: iospd runs in real use, a model of a device in tests.
pub trait Probe {
    /// A closed-loop run at `depth` per thread.
    fn closed(&mut self, depth: u32) -> Result<RampStep, ToolError>;
    /// An open-loop run at `depth`, each thread paced to `per_thread` I/Os per second, measuring
    /// `scale` times the given duration.
    fn paced(&mut self, depth: u32, per_thread: u64, scale: u32) -> Result<PacedRun, ToolError>;
}

/// Runs the search with `probe`, telling `say` each step as it ends.
pub fn search(
    probe: &mut dyn Probe,
    goal: Goal,
    command_line: String,
    say: &mut dyn FnMut(&str) -> Result<(), ToolError>,
) -> Result<SloSearch, ToolError> {
    let p = goal.percentile;
    say(&format!(
        "iospd sweep --slo: the highest rate with p{p} latency under {}\n\nclosed-loop ramp:\n",
        duration(Some(goal.target_ns))
    ))?;
    // 1. The ramp.
    let (mut ramp, mut best, mut depth, mut d) = (Vec::new(), 0.0f64, 1u32, 1u32);
    let mut interrupted = None;
    while d <= MAX_DEPTH {
        let Some(step) = unless_interrupted(probe.closed(d), &mut interrupted)? else {
            break;
        };
        say(&format!(
            "  -o{d:<5} {:12.2} I/O per s  p{p} {}\n",
            step.ios_per_s,
            duration(step.percentile_ns)
        ))?;
        let gained = step.ios_per_s >= best * (1.0 + SATURATION_GAIN);
        if gained {
            (best, depth) = (step.ios_per_s, d);
        }
        ramp.push(step);
        // A step that gains nothing is measured once more before the ramp ends there: one noisy
        // step must not set saturation.
        let again = !gained && ramp.iter().filter(|r| r.depth == d).count() < 2;
        if again {
            say(&format!(
                "  -o{d:<5} gained less than 10%: measuring it again\n"
            ))?;
            continue;
        }
        if !gained {
            break;
        }
        d *= 2;
    }
    if interrupted.is_none() {
        say(&format!(
            "saturation: {best:.2} I/O per s at -o{depth}\n\nopen loop at -o{depth}, latency from each I/O's intended start:\n"
        ))?;
    }
    // 2. The bisection.
    let threads = goal.threads.max(1) as f64;
    let (mut lo, mut hi) = (0.0f64, best * 1.05);
    let (mut steps, mut answer): (Vec<PacedStep>, Option<usize>) = (Vec::new(), None);
    // Without a passing step the bracket only shrinks towards 0: stop below 0.1 % of saturation.
    while interrupted.is_none()
        && hi - lo > BRACKET * hi
        && (answer.is_some() || hi > best / 1000.0)
    {
        let rate = (lo + hi) / 2.0;
        let per_thread = (rate / threads).round().max(1.0) as u64;
        let step = paced_step(probe, goal, depth, per_thread, say);
        let Some(mut step) = unless_interrupted(step, &mut interrupted)? else {
            break;
        };
        // A rate that misses is measured again before the search turns below it: it fails only
        // when it misses twice.
        if !step.pass {
            say(&format!(
                "  {:12.2}  missed: measuring it again before the search turns\n",
                step.target_ios_per_s
            ))?;
            let again = paced_step(probe, goal, depth, per_thread, say);
            let Some(mut again) = unless_interrupted(again, &mut interrupted)? else {
                break;
            };
            again.commands.splice(0..0, step.commands);
            again.measured_again = true;
            step = again;
        }
        if step.pass {
            lo = rate;
            answer = Some(steps.len());
        } else {
            hi = rate;
        }
        steps.push(step);
    }
    let certainty = certainty(&steps, answer, [lo, hi]);
    Ok(SloSearch {
        certainty,
        command_line,
        percentile: p,
        target_ns: goal.target_ns,
        bound_method: BOUND_METHOD.into(),
        repeat: goal.repeat,
        ramp,
        saturation_ios_per_s: best,
        depth,
        steps,
        answer,
        bracket: [lo, hi],
        interrupted,
    })
}

/// How sure the answer is: every rate that failed missed twice; a rate that passed only when
/// measured again is noise near the answer.
fn certainty(steps: &[PacedStep], answer: Option<usize>, [lo, hi]: [f64; 2]) -> String {
    let noisy = steps.iter().filter(|s| s.pass && s.measured_again).count();
    let missed_twice = steps.iter().filter(|s| !s.pass).count();
    let Some(answer) = answer else {
        return format!(
            "no rate passed; each of the {missed_twice} rates tried missed twice, so the target is out of reach at this depth"
        );
    };
    let bracket = (hi - lo) / hi.max(f64::MIN_POSITIVE) * 100.0;
    if noisy == 0 {
        format!(
            "sure: every rate that failed missed twice and every rate that passed passed at once; the answer is within {bracket:.1}% of the lowest rate that failed"
        )
    } else {
        format!(
            "less sure: {noisy} of {} rates missed once and passed when measured again{}, so the machine or device is noisy near the answer; repeat each step (--repeat=3) or run longer steps (-d) for a firmer answer (bracket {bracket:.1}%)",
            steps.len(),
            if steps[answer].measured_again {
                " (the answer among them)"
            } else {
                ""
            }
        )
    }
}

/// A step's result, or `None` when a signal stopped it (its command line kept in `interrupted`).
fn unless_interrupted<T>(
    step: Result<T, ToolError>,
    interrupted: &mut Option<String>,
) -> Result<Option<T>, ToolError> {
    match step {
        Ok(step) => Ok(Some(step)),
        Err(ToolError::Interrupted { line, .. }) => {
            *interrupted = Some(line);
            Ok(None)
        }
        Err(error) => Err(error),
    }
}

/// How the bound is computed, as the outputs say it.
const BOUND_METHOD: &str = "upper 95% bound: order statistic k = ceil(np + 1.645 sqrt(np(1-p))) + 1 of the exact histogram";

/// One target rate, run `goal.repeat` times (each longer until it has samples enough for a bound);
/// it passes only when every run does, and stops at the first run that fails.
fn paced_step(
    probe: &mut dyn Probe,
    goal: Goal,
    depth: u32,
    per_thread: u64,
    say: &mut dyn FnMut(&str) -> Result<(), ToolError>,
) -> Result<PacedStep, ToolError> {
    let p = goal.percentile;
    let target = per_thread as f64 * goal.threads.max(1) as f64;
    let mut step = PacedStep {
        target_ios_per_s: target,
        achieved_ios_per_s: f64::INFINITY,
        samples: u64::MAX,
        percentile_ns: None,
        bound_ns: None,
        pass: true,
        failed_on: None,
        commands: Vec::new(),
        measured_again: false,
    };
    for _ in 0..goal.repeat.max(1) {
        let mut scale = 1;
        let run = loop {
            let run = probe.paced(depth, per_thread, scale)?;
            step.commands.push(run.command.clone());
            if run.bound_ns.is_some() || scale >= MAX_SCALE {
                break run;
            }
            say(&format!(
                "  {target:12.2}  {} I/Os are too few for a 95% bound on p{p}: running {}x longer\n",
                run.samples,
                scale * 2
            ))?;
            scale *= 2;
        };
        let reached = run.rate >= ACHIEVED * target;
        let under = run.bound_ns.is_some_and(|b| b <= goal.target_ns);
        let failed_on = match (reached, under, run.bound_ns) {
            (false, _, _) => Some("fail (rate not reached)"),
            (_, _, None) => Some("fail (too few samples for a bound)"),
            (_, false, _) => Some("fail (latency)"),
            _ => None,
        };
        say(&format!(
            "  target {target:12.2}  achieved {:12.2}  p{p} {}  upper bound {}  {}\n",
            run.rate,
            duration(run.percentile_ns),
            duration(run.bound_ns),
            failed_on.unwrap_or("pass")
        ))?;
        step.achieved_ios_per_s = step.achieved_ios_per_s.min(run.rate);
        step.samples = step.samples.min(run.samples);
        step.percentile_ns = step.percentile_ns.max(run.percentile_ns);
        // A run without a bound fails, and nothing runs after a failure.
        step.bound_ns = run.bound_ns.and(step.bound_ns.max(run.bound_ns));
        if let Some(why) = failed_on {
            step.pass = false;
            step.failed_on = Some(why.into());
            break;
        }
    }
    Ok(step)
}

/// Runs the search; `args` are the sweep's arguments with `--slo=` among them.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let usage = |why: String| ToolError::Usage(why);
    let mut base = Line::lex(args).map_err(|e| usage(e.to_string()))?;
    // The search's own options; what is left is the workload.
    let mine = |base: &mut Line, name: &str| {
        let value = base.values(name).pop();
        base.remove(name);
        value
    };
    let slo =
        mine(&mut base, "--slo").ok_or_else(|| usage("--slo=<pXX:latency> is missing".into()))?;
    let (percentile, target_ns) = parse_slo(&slo).map_err(usage)?;
    let output = mine(&mut base, "--output");
    let repeat = match mine(&mut base, "--repeat") {
        None => 1,
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(|| {
                usage(format!(
                    "'--repeat={n}' needs a whole number from 1 to 100, for example --repeat=3"
                ))
            })?,
    };
    let (threads, duration_s) = workload(&base)?;
    let target = base.targets().pop().unwrap_or_default();
    let target = target.to_string_lossy();
    let output = output.as_deref();
    let (format, place) = match output {
        None => (None, None),
        Some(path) => {
            let format = match std::path::Path::new(path)
                .extension()
                .and_then(|e| e.to_str())
            {
                Some("json") => SloFormat::Json,
                Some("csv") => SloFormat::Csv,
                Some("txt") => SloFormat::Text,
                _ => {
                    return Err(usage(format!(
                        "'--output={path}': a search writes .json, .csv or .txt; name the file with one of these"
                    )));
                }
            };
            let place = super::report::check_output(Some(std::path::Path::new(path)), &[&target])?;
            (Some(format), place)
        }
    };
    base.set("-L");
    let mut probe = Runs {
        child: super::child::Child::this()?,
        base,
        duration_s,
        percentile,
    };
    let goal = Goal {
        percentile,
        target_ns,
        threads,
        repeat,
    };
    // The search's runs pass the checks a run makes before the first starts.
    probe.check()?;
    let line = format!("iospd sweep {}", args.join(" "));
    let result = search(&mut probe, goal, line, &mut |text| super::print(text))?;
    super::print(&format!("\n{}", render::text(&result)))?;
    if let (Some(format), Some(mut place)) = (format, place) {
        let text = match format {
            SloFormat::Json => {
                serde_json::to_string_pretty(&result).expect("a search serialises") + "\n"
            }
            SloFormat::Csv => render::csv(&result),
            SloFormat::Text => render::text(&result),
        };
        place
            .replace_with(text.as_bytes())
            .map_err(|e| ToolError::Output {
                path: place.path().to_path_buf(),
                why: e.to_string(),
            })?;
    }
    Ok(match (&result.interrupted, super::child::stopped()) {
        (Some(line), Some(signal)) => {
            crate::console::say(&format!(
                "iospd: the search was interrupted by {} during '{line}'; the results above{} hold the steps that finished",
                super::child::signal_name(signal),
                output.map_or(String::new(), |o| format!(" and in '{o}'"))
            ));
            super::child::interrupted_status(signal)
        }
        _ => 0,
    })
}

/// The formats a search's `--output` may have.
#[derive(Debug, Clone, Copy)]
enum SloFormat {
    Json,
    Csv,
    Text,
}

/// The workload's threads (`-t` per target, or a `-F` pool) and measured seconds (`-d`, or DiskSpd's
/// default when none is typed), read as a run reads them: through the one flag table and the
/// profile's rules.
fn workload(base: &Line) -> Result<(u32, u32), ToolError> {
    let refused = |why: String| ToolError::Usage(why);
    if base.targets().is_empty() {
        return Err(refused(
            "give the workload and one target, for example: iospd sweep --slo=p99:2ms -b4K -r -Sh -d10 /mnt/t.dat".into(),
        ));
    }
    let raw = base.raw().map_err(|e| refused(e.to_string()))?;
    // What the search sets itself, read by field: -o (not -oc, which it keeps), -g, -R.
    let set = [
        (raw.outstanding.is_some(), "-o", "the depth"),
        (raw.throughput.is_some(), "-g", "the pacing"),
        (
            raw.result_format.is_some(),
            "-R",
            "the result format (JSON)",
        ),
    ];
    if let Some((_, flag, what)) = set.iter().find(|(given, _, _)| *given) {
        return Err(refused(format!(
            "{flag} cannot be given with --slo: the search sets {what} of each step; drop it"
        )));
    }
    let resolved =
        crate::profile::resolve(&raw, String::new()).map_err(|e| refused(e.to_string()))?;
    let timespan = resolved
        .profile
        .timespans
        .first()
        .ok_or_else(|| refused("the workload has no timespan to search with".into()))?;
    Ok((
        timespan.total_threads().clamp(1, u32::MAX as u64) as u32,
        timespan.duration_s,
    ))
}

/// The base command line of a run `scale` times as long as its `duration_s`, whether or not `-d`
/// was typed.
fn scaled(base: &Line, duration_s: u32, scale: u32) -> Line {
    let mut line = base.clone();
    if scale > 1 {
        line.set(&format!("-d{}", duration_s.saturating_mul(scale)));
    }
    line
}

/// The probe of real use: each step an iospd run of the base command line.
struct Runs {
    child: super::child::Child,
    base: Line,
    /// The workload's measured seconds, which a longer step multiplies.
    duration_s: u32,
    percentile: f64,
}

impl Runs {
    /// Runs the base command with `extra` options (and `scale` times its duration), printing the
    /// line.
    /// A step's arguments: the base with `extra`, its length scaled by `scale`.
    fn step(&self, extra: &[String], scale: u32) -> Vec<String> {
        let mut step = scaled(&self.base, self.duration_s, scale);
        for option in extra {
            step.set(option);
        }
        step.set(&format!("--percentiles={}", self.percentile));
        step.set("-Rjson");
        step.args()
    }

    fn run(&self, extra: &[String], scale: u32) -> Result<(Report, String), ToolError> {
        let args = self.step(extra, scale);
        let line = super::child::shell_line(&args);
        super::print(&format!("    $ {line}\n"))?;
        Ok((self.child.report(&args)?, line))
    }

    /// Refuses, in one line and before anything runs, a search whose first step the checks of a
    /// run refuse (a missing target, a bad option): its later steps differ only in depth and rate.
    fn check(&self) -> Result<(), ToolError> {
        match self.child.check(&self.step(&["-o1".to_string()], 1)) {
            Err(ToolError::Failed { why, .. }) => Err(ToolError::Usage(format!(
                "the search cannot run, so nothing was run: {}",
                super::child::last_words(&why)
            ))),
            other => other,
        }
    }
}

impl Probe for Runs {
    fn closed(&mut self, depth: u32) -> Result<RampStep, ToolError> {
        let (report, command) = self.run(&[format!("-o{depth}")], 1)?;
        let total = measured(&report).map(|m| &m.totals.total);
        Ok(RampStep {
            depth,
            ios_per_s: total.map_or(0.0, |t| t.ios_per_s),
            percentile_ns: total
                .and_then(|t| t.latency.as_ref())
                .map(|l| l.at(self.percentile)),
            command,
        })
    }

    fn paced(&mut self, depth: u32, per_thread: u64, scale: u32) -> Result<PacedRun, ToolError> {
        let (report, command) =
            self.run(&[format!("-o{depth}"), format!("-g{per_thread}i")], scale)?;
        let total = measured(&report).map(|m| &m.totals.total);
        let latency = total.and_then(|t| t.latency_from_intended.as_ref());
        let samples = latency.map_or(0, |l| l.count);
        let bound_ns = latency.and_then(|l| {
            let k = upper_rank(l.count, self.percentile / 100.0)?;
            let h = l.histogram().ok()?;
            h.percentiles(&[k as f64 / l.count as f64]).first().copied()
        });
        Ok(PacedRun {
            rate: total.map_or(0.0, |t| t.ios_per_s),
            samples,
            percentile_ns: latency.map(|l| l.at(self.percentile)),
            bound_ns,
            command,
        })
    }
}

/// The first timespan's measured results.
fn measured(report: &Report) -> Option<&crate::report::Measured> {
    report.timespans.first().and_then(|t| t.measured.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Line {
        Line::lex(&line.split(' ').map(str::to_string).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn what_the_search_sets_is_refused_by_field_not_by_spelling() {
        for (line, flag) in [
            ("-o4 t.dat", "-o"),
            ("-b4K -g100i t.dat", "-g"),
            ("-Rxml t.dat", "-R"),
        ] {
            let error = workload(&words(line)).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("{flag} cannot be given with --slo")),
                "{error}"
            );
        }
        // -oc is the completion batch, which the search keeps.
        assert_eq!(workload(&words("-oc8 -d2 t.dat")).unwrap(), (1, 2));
    }

    #[test]
    fn the_workload_is_read_as_a_run_reads_it() {
        // A -F pool is the thread count; -t counts per target; no -d is DiskSpd's 10 s.
        assert_eq!(workload(&words("-F4 -b4K -r t.dat")).unwrap(), (4, 10));
        assert_eq!(workload(&words("-t2 -d3 a.dat")).unwrap(), (2, 3));
        assert_eq!(workload(&words("-t2 a.dat b.dat")).unwrap(), (4, 10));
        assert!(workload(&words("-b4Q t.dat")).is_err());
    }

    #[test]
    fn a_longer_step_runs_longer_whether_or_not_d_was_typed() {
        assert_eq!(
            scaled(&words("-b4K t.dat"), 10, 2),
            words("-b4K -d20 t.dat")
        );
        assert_eq!(
            scaled(&words("-d3 -b4K t.dat"), 3, 4),
            words("-d12 -b4K t.dat")
        );
        assert_eq!(scaled(&words("-b4K t.dat"), 10, 1), words("-b4K t.dat"));
    }

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

    /// A device of 100,000 IOPS capacity and 40 µs service time, one thread. Closed loop:
    /// IOPS = min(depth / 40 µs, capacity) (depth 4 saturates). Open loop at rate λ: latency is
    /// exponential with mean s / (1 − λ/C) (M/M/1), so its quantile q is s·ln(1/(1 − q)) / (1 − ρ);
    /// the bound is the quantile at the order statistic's rank. Every `slow_every`-th paced run
    /// has twice the service time.
    struct Device {
        seconds: f64,
        slow_every: Option<u32>,
        /// The paced run (from 1) that alone is slow: one noisy measurement.
        slow_once: Option<u32>,
        paced_runs: u32,
        scales: Vec<u32>,
    }

    const CAPACITY: f64 = 100_000.0;
    const SERVICE_S: f64 = 40e-6;

    impl Device {
        fn new(seconds: f64) -> Self {
            Device {
                seconds,
                slow_every: None,
                slow_once: None,
                paced_runs: 0,
                scales: Vec::new(),
            }
        }

        /// The latency quantile `q` at rate `rate` for a service time.
        fn quantile_ns(service_s: f64, rate: f64, q: f64) -> u64 {
            let rho = rate / (CAPACITY * SERVICE_S / service_s);
            (service_s / (1.0 - rho) * (1.0 / (1.0 - q)).ln() * 1e9) as u64
        }

        /// The upper bound of p99 from `samples` at `rate`: the quantile at the order statistic's
        /// rank (the largest sample counts as the (n − ½)/n quantile).
        fn bound_ns(service_s: f64, rate: f64, samples: u64) -> Option<u64> {
            let k = upper_rank(samples, 0.99)? as f64;
            let q = (k / samples as f64).min(1.0 - 0.5 / samples as f64);
            Some(Self::quantile_ns(service_s, rate, q))
        }
    }

    /// The highest rate whose bound (from one second of samples) meets `target_ns`, found by a
    /// fine bisection of the model itself.
    fn known_answer(service_s: f64, target_ns: u64) -> f64 {
        let (mut lo, mut hi) = (1.0, CAPACITY * SERVICE_S / service_s * 0.99);
        for _ in 0..100 {
            let mid = (lo + hi) / 2.0;
            match Device::bound_ns(service_s, mid, mid as u64) {
                Some(b) if b <= target_ns => lo = mid,
                _ => hi = mid,
            }
        }
        lo
    }

    impl Probe for Device {
        fn closed(&mut self, depth: u32) -> Result<RampStep, ToolError> {
            let ios_per_s = (depth as f64 / SERVICE_S).min(CAPACITY);
            Ok(RampStep {
                depth,
                ios_per_s,
                percentile_ns: Some((depth as f64 / ios_per_s * 4.6 * 1e9) as u64),
                command: format!("-o{depth}"),
            })
        }

        fn paced(&mut self, depth: u32, rate: u64, scale: u32) -> Result<PacedRun, ToolError> {
            self.paced_runs += 1;
            self.scales.push(scale);
            let slow = self.slow_every.is_some_and(|n| self.paced_runs % n == 0)
                || self.slow_once == Some(self.paced_runs);
            let service = if slow { 2.0 * SERVICE_S } else { SERVICE_S };
            let achieved = (rate as f64).min(CAPACITY * SERVICE_S / service * 0.99);
            let samples = (achieved * self.seconds * scale as f64) as u64;
            let bound_ns = Self::bound_ns(service, achieved, samples);
            Ok(PacedRun {
                rate: achieved,
                samples,
                percentile_ns: Some(Self::quantile_ns(service, achieved, 0.99)),
                bound_ns,
                command: format!("-o{depth} -g{rate}i"),
            })
        }
    }

    fn goal(target_ns: u64, repeat: u32) -> Goal {
        Goal {
            percentile: 99.0,
            target_ns,
            threads: 1,
            repeat,
        }
    }

    fn searched(device: &mut Device, goal: Goal) -> SloSearch {
        search(device, goal, "test".into(), &mut |_| Ok(())).unwrap()
    }

    #[test]
    fn the_search_finds_saturation_and_the_known_answer() {
        let mut device = Device::new(1.0);
        let result = searched(&mut device, goal(1_000_000, 1));
        assert_eq!(result.depth, 4);
        assert!((result.saturation_ios_per_s - CAPACITY).abs() < 1.0);
        assert_eq!(
            result.ramp.iter().map(|r| r.depth).collect::<Vec<_>>(),
            [1, 2, 4, 8, 8],
            "the step that gained nothing is measured again"
        );
        assert!(
            result.certainty.starts_with("sure: "),
            "{}",
            result.certainty
        );
        // p99 < 1 ms: 1 − ρ = 40 µs · ln 100 / 1 ms, so p99 meets it up to 81,579 IOPS; the bound
        // (a little above p99) meets it up to a little less, and the 2 % bracket may stop below.
        let ideal = known_answer(SERVICE_S, 1_000_000);
        let p99_only = CAPACITY * (1.0 - SERVICE_S * 100f64.ln() * 1e9 / 1e6);
        assert!(
            ideal < p99_only && ideal > 0.98 * p99_only,
            "{ideal} vs {p99_only}"
        );
        let answer = result.answer().expect("a rate passes").achieved_ios_per_s;
        assert!(
            answer <= ideal && answer >= ideal * 0.97,
            "{answer} vs {ideal}"
        );
        assert!(result.bracket[1] - result.bracket[0] <= BRACKET * result.bracket[1]);
        let [lo, hi] = result.bracket;
        assert!(lo <= ideal && hi >= ideal * 0.98, "{lo}-{hi} vs {ideal}");
        // Every passing step is under the target, every failing one is not.
        for step in &result.steps {
            assert_eq!(step.pass, step.bound_ns.unwrap() <= 1_000_000, "{step:?}");
        }
    }

    #[test]
    fn an_unreachable_target_ends_with_no_answer() {
        // Below the service time nothing passes; the search stops once the rate is tiny.
        let mut device = Device::new(1.0);
        let result = searched(&mut device, goal(100_000, 1));
        assert_eq!(result.answer, None);
        assert!(result.steps.len() < 20, "{}", result.steps.len());
        assert!(result.bracket[1] < CAPACITY / 1000.0 * 2.0);
        assert!(render::text(&result).contains("answer: no rate tried met p99"));
    }

    #[test]
    fn every_repetition_must_pass() {
        // One run in three is twice as slow: with --repeat=3 every step meets a slow run, so the
        // answer is the slow device's.
        let mut device = Device::new(1.0);
        device.slow_every = Some(3);
        let result = searched(&mut device, goal(1_000_000, 3));
        let slow = known_answer(2.0 * SERVICE_S, 1_000_000);
        let answer = result.answer().expect("a rate passes").achieved_ios_per_s;
        assert!(
            answer <= slow && answer >= slow * 0.97,
            "{answer} vs {slow}"
        );
        // A failing step stops at its failing run, and is measured again; a passing one ran
        // three times (after a first measurement that missed, when it was measured again).
        for step in &result.steps {
            match (step.pass, step.measured_again) {
                (true, false) => assert_eq!(step.commands.len(), 3, "{step:?}"),
                (true, true) => assert!((4..=6).contains(&step.commands.len()), "{step:?}"),
                (false, _) => assert!(step.measured_again && step.commands.len() <= 6, "{step:?}"),
            }
        }
    }

    #[test]
    fn one_noisy_measurement_does_not_turn_the_search() {
        // The first paced run (half of saturation, which the device meets) is twice as slow once:
        // it is measured again, passes, and the search goes on up to the device's answer.
        let mut device = Device::new(1.0);
        device.slow_once = Some(1);
        let result = searched(&mut device, goal(1_000_000, 1));
        let first = &result.steps[0];
        assert!(first.pass && first.measured_again, "{first:?}");
        assert_eq!(first.commands.len(), 2);
        let ideal = known_answer(SERVICE_S, 1_000_000);
        let answer = result.answer().expect("a rate passes").achieved_ios_per_s;
        assert!(
            answer <= ideal && answer >= ideal * 0.97,
            "{answer} vs {ideal}"
        );
        assert!(
            result.certainty.starts_with("less sure: 1 of "),
            "{}",
            result.certainty
        );
        assert!(render::text(&result).contains("how sure: less sure"));
        // Every failing step missed twice.
        for step in result.steps.iter().filter(|s| !s.pass) {
            assert!(step.measured_again && step.commands.len() == 2, "{step:?}");
        }
    }

    #[test]
    fn too_few_samples_run_longer_instead_of_guessing() {
        // 5 ms per run: a few hundred samples, too few to bound p99 at first.
        let mut device = Device::new(0.005);
        let result = searched(&mut device, goal(1_000_000, 1));
        assert!(device.scales.iter().any(|&s| s > 1), "{:?}", device.scales);
        assert!(device.scales.iter().all(|&s| s <= MAX_SCALE));
        assert!(result.steps.iter().any(|s| s.commands.len() > 1));
        // With the bound from fewer samples the answer is lower, never higher.
        let answer = result.answer().expect("a rate passes").achieved_ios_per_s;
        assert!(answer <= known_answer(SERVICE_S, 1_000_000), "{answer}");
    }

    #[test]
    fn the_outputs_carry_every_step() {
        let mut device = Device::new(1.0);
        let result = searched(&mut device, goal(1_000_000, 1));
        let csv = render::csv(&result);
        assert_eq!(
            csv.lines().count(),
            1 + result.ramp.len() + result.steps.len()
        );
        assert_eq!(csv.lines().filter(|l| l.ends_with(",answer")).count(), 1);
        let json = serde_json::to_string(&result).unwrap();
        let back: SloSearch = serde_json::from_str(&json).unwrap();
        assert_eq!(back, result);
    }
}
