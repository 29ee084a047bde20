//! fio's `latency_target` search, run as `iospd fio` runs a job: one iospd run per window, each
//! at the depth fio's search would give it (fio's io_u.c, `lat_target_*`; the options are read in
//! `fiojob::latency`).
//!
//! The search starts at depth 1 and doubles while a window meets the target (at least
//! `latency_percentile` % of its reads and writes within `latency_target`); a window that misses
//! sets the depth halfway down to the last one that met it, and then each success moves halfway up
//! to the last miss. When a success leaves the depth where it was, one more window runs at it,
//! and if that one meets the target too, its results are the job's. At percentile 100 the first
//! I/O over the target fails the window at once (each run has `--max-latency` at the target), and
//! at depth 1 that fails the job with ETIMEDOUT, as fio's does; below 100 a miss at depth 1 leaves
//! the rest of the job to run at depth 1. The job's runtime and size bound the whole search.

use super::ToolError;
use super::child::{Child, Kept};
use crate::fiojob::translate::LatencySearch;
use crate::profile::max_latency::MaxLatency;
use crate::report::{Measured, Report};

/// Where fio's search stands: the depth, and the bracket it searches in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Depths {
    depth: u32,
    /// The deepest that met the target last.
    low: u32,
    /// The shallowest that missed (the job's depth until one does).
    high: u32,
    /// The job's `iodepth`.
    max: u32,
    /// Successes in a row one below `high` (three raise it by one: fio's heuristic, so a depth
    /// that once missed is tried again).
    stable: u32,
    /// A success left the depth where it was: the next one ends the search.
    settling: bool,
    /// `latency_run`: never settles.
    keep_adjusting: bool,
}

/// What a window's judgement leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Another window, at this depth.
    Window(u32),
    /// The depth held: one more window at it, whose results are the job's if it holds again.
    Last(u32),
    /// It held again: the search is over.
    Done,
    /// A miss at depth 1: nothing shallower.
    Floor,
}

impl Depths {
    /// The search of a job of depth `max`, from depth 1.
    pub fn new(max: u32, keep_adjusting: bool) -> Self {
        Depths {
            depth: 1,
            low: 1,
            high: max.max(1),
            max: max.max(1),
            stable: 0,
            settling: false,
            keep_adjusting,
        }
    }

    /// A window met the target.
    pub fn success(&mut self) -> Next {
        let before = self.depth;
        self.low = self.depth;
        if self.depth + 1 == self.high {
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.depth = match self.high != self.max {
            true => (self.depth + self.high) / 2,
            false => self.depth.saturating_mul(2),
        }
        .min(self.max);
        if !self.keep_adjusting && self.depth == before {
            if self.settling {
                return Next::Done;
            }
            self.settling = true;
            return Next::Last(self.depth);
        }
        Next::Window(self.depth)
    }

    /// A window missed it.
    pub fn failed(&mut self) -> Next {
        if self.depth == 1 {
            return Next::Floor;
        }
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = (self.depth + self.low) / 2;
        self.stable = 0;
        Next::Window(self.depth)
    }
}

/// What is left of the job: its runtime, and its bytes or I/Os per thread and target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Budget {
    seconds: Option<u64>,
    bytes: Option<u64>,
    ios: Option<u64>,
    /// `--bytes=<n>%` of the target's range: bytes once the first window has met the target.
    percent: Option<u32>,
}

impl Budget {
    fn of(args: &[String]) -> Self {
        let number = |prefix: &str| {
            args.iter()
                .find_map(|a| a.strip_prefix(prefix)?.parse::<u64>().ok())
        };
        Budget {
            seconds: number("-d"),
            bytes: number("--bytes="),
            ios: number("--ios="),
            percent: args
                .iter()
                .find_map(|a| a.strip_prefix("--bytes=")?.strip_suffix('%')?.parse().ok()),
        }
    }

    /// A share of the range as bytes: the least a thread's target gives (its range as the run
    /// found it, `-B` to `-f` or the end).
    fn resolve(&mut self, report: &Report) {
        let (Some(percent), None, Some(m)) = (self.percent, self.bytes, measured(report)) else {
            return;
        };
        let targets = report.profile.timespans.first().map(|t| &t.targets);
        self.bytes = m
            .threads
            .iter()
            .flat_map(|t| &t.targets)
            .filter_map(|t| {
                let target = targets?.get(t.target)?;
                let end = target
                    .max_size
                    .map_or(t.size_bytes, |max| max.min(t.size_bytes));
                let range = end - target.base_offset.min(end);
                let work = crate::profile::Work {
                    range_percent: Some(percent),
                    ..Default::default()
                };
                Some(crate::profile::Work::limits(Some(work), range).1)
            })
            .min();
    }

    fn spent(&self) -> bool {
        [self.seconds, self.bytes, self.ios].contains(&Some(0))
    }

    /// Takes off what a window did: its seconds, and the most any thread did to a target.
    fn spend(&mut self, m: &Measured) {
        let most = |pick: fn(&crate::report::Direction) -> u64| {
            m.threads
                .iter()
                .flat_map(|t| &t.targets)
                .map(|t| pick(&t.directions.total))
                .max()
                .unwrap_or(0)
        };
        let seconds = m.duration_s.round() as u64;
        self.seconds = self.seconds.map(|s| s.saturating_sub(seconds));
        self.bytes = self.bytes.map(|b| b.saturating_sub(most(|d| d.bytes)));
        self.ios = self.ios.map(|n| n.saturating_sub(most(|d| d.ios)));
    }
}

/// A window's arguments: the job's, at `depth`, for `seconds` (the rest of the job's runtime when
/// `None`), bounded by what is left, warmed up only in the first window, and with `limit` as its
/// `--max-latency`.
fn window_args(
    args: &[String],
    depth: u32,
    seconds: Option<u64>,
    budget: &Budget,
    first: bool,
    limit: Option<&MaxLatency>,
) -> Vec<String> {
    let digits = |a: &str, prefix: &str| {
        a.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut out: Vec<String> = Vec::with_capacity(args.len() + 2);
    if let Some(s) = seconds.or(budget.seconds) {
        out.push(format!("-d{s}"));
    }
    if let Some(limit) = limit {
        out.push(format!("--max-latency={limit}"));
    }
    for a in args {
        if digits(a, "-o") {
            out.push(format!("-o{depth}"));
        } else if digits(a, "-W") && !first {
            out.push("-W0".into());
        } else if let (true, Some(b)) = (a.starts_with("--bytes="), budget.bytes) {
            // A share of the range is bytes once the first window has found the range.
            out.push(format!("--bytes={b}"));
        } else if let (true, Some(n)) = (a.starts_with("--ios="), budget.ios) {
            out.push(format!("--ios={n}"));
        } else if !(digits(a, "-d") || (limit.is_some() && a.starts_with("--max-latency="))) {
            out.push(a.clone());
        }
    }
    out
}

/// The job's own `--max-latency`, and each run's: at percentile 100 the target, within the job's
/// own limit.
fn limits(args: &[String], search: &LatencySearch) -> (Option<MaxLatency>, Option<MaxLatency>) {
    let own = args
        .iter()
        .find_map(|a| MaxLatency::parse(a.strip_prefix("--max-latency=")?).ok());
    if search.percentile < 100.0 {
        return (own, None);
    }
    let within =
        |side: Option<u64>| Some(side.map_or(search.target_ns, |s| s.min(search.target_ns)));
    let run = MaxLatency {
        read_ns: within(own.as_ref().and_then(|o| o.read_ns)),
        write_ns: within(own.as_ref().and_then(|o| o.write_ns)),
    };
    (own, Some(run))
}

/// A window's reads and writes within the target, and all of them.
fn within(m: &Measured, target_ns: u64) -> (u64, u64) {
    let Some(latency) = &m.totals.total.latency else {
        return (0, 0);
    };
    let Ok(histogram) = latency.histogram() else {
        return (0, latency.count);
    };
    let mut counts = [0u64; 2];
    histogram.add_to_buckets(&[target_ns], &mut counts);
    (counts[0], counts[0] + counts[1])
}

fn measured(report: &Report) -> Option<&Measured> {
    report.timespans.iter().find_map(|t| t.measured.as_ref())
}

/// Runs a `latency_target` job (`args` as `iospd fio` runs it: `-o<iodepth>`, its bounds) window
/// by window; its results, as [`Child::report_kept`] gives them: the window the search ended on.
pub fn run(
    runner: &Child,
    args: &[String],
    search: &LatencySearch,
    job: &str,
) -> Result<Kept, ToolError> {
    let max = args
        .iter()
        .find_map(|a| a.strip_prefix("-o")?.parse::<u32>().ok())
        .unwrap_or(1);
    let (own, limit) = limits(args, search);
    let mut depths = Depths::new(max, search.keep_adjusting);
    let mut budget = Budget::of(args);
    let mut depth = 1;
    let mut first = true;
    let say = |line: String| crate::console::say(&format!("iospd fio: job '{job}': {line}"));
    let target = crate::units::format_duration(search.target_ns as f64);
    loop {
        let seconds = budget
            .seconds
            .map_or(search.window_s, |s| s.min(search.window_s));
        let window = window_args(args, depth, Some(seconds), &budget, first, limit.as_ref());
        first = false;
        let kept = runner.report_kept(&window)?;
        let (report, missed) = match &kept {
            Kept::Ran(report) => (report, false),
            Kept::Cut(..) => return Ok(kept),
            // At percentile 100 the window's first I/O over the target stops it: a miss, unless
            // the job's own max_latency is what it went over.
            Kept::Failed { report, .. } => {
                let over = report
                    .timespans
                    .iter()
                    .find_map(|t| t.failure.as_ref())
                    .filter(|f| f.result == -libc::ETIMEDOUT)
                    .and_then(|f| Some((f.latency_ns?, f.op)));
                let own_limit =
                    |op: crate::engine::Op| MaxLatency::per_op(own.as_ref())[op as usize];
                match over {
                    Some((ns, op)) if limit.is_some() && ns <= own_limit(op) => (report, true),
                    _ => return Ok(kept),
                }
            }
        };
        let Some(m) = measured(report) else {
            return Ok(kept);
        };
        budget.resolve(report);
        budget.spend(m);
        let (ok, all) = within(m, search.target_ns);
        let share = if all == 0 {
            0.0
        } else {
            ok as f64 * 100.0 / all as f64
        };
        let met = !missed && all > 0 && share >= search.percentile;
        let next = if met {
            depths.success()
        } else {
            depths.failed()
        };
        let judged = match missed {
            true => format!("an I/O over {target}"),
            false => format!("{share:.2}% of {all} I/Os within {target}"),
        };
        let then = match next {
            Next::Window(d) => format!("depth {d} next"),
            Next::Last(d) => {
                format!("settled at depth {d}: one more window, whose results are the job's")
            }
            Next::Done => "held: the job's results are this window's".into(),
            Next::Floor if missed => "missed at depth 1: the job fails, as fio's does".into(),
            Next::Floor => "missed at depth 1: the rest of the job runs at depth 1".into(),
        };
        say(format!(
            "latency_target: depth {depth}: {judged} (p{} needed): {then}",
            search.percentile
        ));
        match next {
            Next::Window(d) | Next::Last(d) => depth = d,
            Next::Done => return Ok(kept),
            Next::Floor if missed => return Ok(kept),
            Next::Floor => {
                if budget.spent() {
                    return Ok(kept);
                }
                return runner.report_kept(&window_args(args, 1, None, &budget, false, None));
            }
        }
        if budget.spent() {
            say(format!(
                "latency_target: the job's {} ended before the search did: its results are the last window's, at depth {}",
                if budget.seconds == Some(0) {
                    "runtime"
                } else {
                    "size"
                },
                m.threads.first().map_or(depth, |t| t.depth)
            ));
            return Ok(kept);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Judges windows in turn (`true`: met), giving the depths the search goes through.
    fn walk(max: u32, windows: &[bool]) -> Vec<Next> {
        let mut d = Depths::new(max, false);
        windows
            .iter()
            .map(|&met| if met { d.success() } else { d.failed() })
            .collect()
    }

    #[test]
    fn the_search_doubles_to_the_job_depth_and_settles_there() {
        use Next::*;
        assert_eq!(
            walk(8, &[true, true, true, true, true]),
            [Window(2), Window(4), Window(8), Last(8), Done]
        );
    }

    #[test]
    fn a_miss_bisects_down_and_success_bisects_back_up_as_fio_does() {
        use Next::*;
        // 1, 2, 4, 8 met; 16 missed: halfway to 8 is 12; 12 met: halfway to 16 is 14; 14 missed:
        // 13; 13 met: (13+14)/2 = 13 stays: one more window, then done.
        assert_eq!(
            walk(
                64,
                &[true, true, true, true, false, true, false, true, true]
            ),
            [
                Window(2),
                Window(4),
                Window(8),
                Window(16),
                Window(12),
                Window(14),
                Window(13),
                Last(13),
                Done
            ]
        );
        // A miss at the first depth has nowhere to go.
        assert_eq!(walk(64, &[false]), [Floor]);
        // A miss where the last success was moves the bracket's floor down one: 1, 2 met, 4
        // missed → 3; 3 missed → 2; 2 (the last success) missed → low 1, 1; 1 missed.
        assert_eq!(
            walk(64, &[true, true, false, false, false, false]),
            [Window(2), Window(4), Window(3), Window(2), Window(1), Floor]
        );
    }

    #[test]
    fn three_successes_below_a_miss_try_it_again_and_latency_run_never_settles() {
        let mut d = Depths::new(64, false);
        for met in [true, true, false] {
            let _ = if met { d.success() } else { d.failed() };
        }
        // 1, 2 met; 4 missed → 3 (low 2, high 4): 3 is one below high.
        assert_eq!(d.depth, 3);
        assert_eq!(d.success(), Next::Last(3));
        assert_eq!(d.success(), Next::Done);
        let mut d = Depths::new(4, true);
        let seen: Vec<Next> = (0..5).map(|_| d.success()).collect();
        assert_eq!(
            seen,
            [
                Next::Window(2),
                Next::Window(4),
                Next::Window(4),
                Next::Window(4),
                Next::Window(4)
            ]
        );
    }

    fn strings(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn each_window_is_the_job_at_its_depth_within_what_is_left() {
        let args = strings("-Rjson -b4096 -r -d30 -W2 -C0 -L -t1 -o128 -oc8 --bytes=1048576 t.dat");
        let mut budget = Budget::of(&args);
        assert_eq!(
            budget,
            Budget {
                seconds: Some(30),
                bytes: Some(1_048_576),
                ios: None,
                percent: None,
            }
        );
        let first = window_args(&args, 4, Some(5), &budget, true, None);
        assert_eq!(
            first,
            strings("-d5 -Rjson -b4096 -r -W2 -C0 -L -t1 -o4 -oc8 --bytes=1048576 t.dat")
        );
        budget.bytes = Some(4096);
        let limit = MaxLatency::parse("2ms").unwrap();
        let later = window_args(&args, 2, None, &budget, false, Some(&limit));
        assert_eq!(
            later,
            strings(
                "-d30 --max-latency=2ms -Rjson -b4096 -r -W0 -C0 -L -t1 -o2 -oc8 --bytes=4096 t.dat"
            )
        );
        assert!(!budget.spent());
        budget.seconds = Some(0);
        assert!(budget.spent());
    }

    #[test]
    fn at_percentile_100_each_window_stops_at_the_target_within_the_jobs_own_limit() {
        let search = |percentile| LatencySearch {
            target_ns: 500_000,
            window_s: 1,
            percentile,
            keep_adjusting: false,
        };
        let (own, run) = limits(&strings("-o8 --max-latency=100us,1ms t"), &search(100.0));
        assert_eq!(own.unwrap().read_ns, Some(100_000));
        let run = run.unwrap();
        assert_eq!((run.read_ns, run.write_ns), (Some(100_000), Some(500_000)));
        assert_eq!(limits(&strings("-o8 t"), &search(99.0)), (None, None));
    }
}
