//! `iospd preset <name> <target>`: named suites of plain iospd command lines, defined as data in
//! [`PRESETS`] (the one place to add a preset). The suite prints every command line it runs, runs
//! each as its own iospd process (so a printed line reproduces its test exactly), then prints one
//! summary table. Writes use random data (`-Zr`) so compressing or deduplicating devices are not
//! flattered; CrystalDiskMark's suites read a random-filled file too, so all their tests share one
//! file, which `-c` makes once and then reuses.

use std::fmt::Write as _;

use super::{ToolError, child};
use crate::cli::line::Line;
use crate::report::Report;

/// One test of a suite: its name and its options (the suite adds size, duration, repetitions and
/// the target).
#[derive(Debug, Clone, Copy)]
pub struct Test {
    /// As the summary names it (`SEQ1M Q8T1`).
    pub name: &'static str,
    /// Whether it writes (the summary's write column).
    pub writes: bool,
    /// Its options.
    pub args: &'static str,
}

/// A named suite.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    /// Its name on the command line.
    pub name: &'static str,
    /// What it measures, and where its command lines come from.
    pub about: &'static str,
    /// The test file's size (`-c`).
    pub size: &'static str,
    /// Seconds each test measures (`-d`).
    pub seconds: u32,
    /// Warm-up seconds (`-W`).
    pub warmup: u32,
    /// Runs of each test (`--repeat`).
    pub runs: u32,
    /// Seconds between tests.
    pub pause: u32,
    /// Report the best run in decimal MB/s, as CrystalDiskMark does (else the mean and its
    /// interval).
    pub best_decimal: bool,
    /// The tests, in order.
    pub tests: &'static [Test],
}

const fn t(name: &'static str, writes: bool, args: &'static str) -> Test {
    Test { name, writes, args }
}

/// Every preset.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "cdm",
        about: "CrystalDiskMark's default four tests, reads then writes; the best run in MB/s (decimal)",
        size: "1G",
        seconds: 5,
        warmup: 0,
        runs: 3,
        pause: 5,
        best_decimal: true,
        tests: &[
            t("SEQ1M Q8T1", false, "-b1M -o8 -t1 -s -w0 -Zr -Sh"),
            t("SEQ1M Q1T1", false, "-b1M -o1 -t1 -s -w0 -Zr -Sh"),
            t("RND4K Q32T1", false, "-b4K -o32 -t1 -r -w0 -Zr -Sh"),
            t("RND4K Q1T1", false, "-b4K -o1 -t1 -r -w0 -Zr -Sh"),
            t("SEQ1M Q8T1", true, "-b1M -o8 -t1 -s -w100 -Zr -Sh"),
            t("SEQ1M Q1T1", true, "-b1M -o1 -t1 -s -w100 -Zr -Sh"),
            t("RND4K Q32T1", true, "-b4K -o32 -t1 -r -w100 -Zr -Sh"),
            t("RND4K Q1T1", true, "-b4K -o1 -t1 -r -w100 -Zr -Sh"),
        ],
    },
    Preset {
        name: "cdm-nvme",
        about: "CrystalDiskMark's NVMe SSD tests, reads then writes; the best run in MB/s (decimal)",
        size: "1G",
        seconds: 5,
        warmup: 0,
        runs: 3,
        pause: 5,
        best_decimal: true,
        tests: &[
            t("SEQ1M Q8T1", false, "-b1M -o8 -t1 -s -w0 -Zr -Sh"),
            t("SEQ128K Q32T1", false, "-b128K -o32 -t1 -s -w0 -Zr -Sh"),
            t("RND4K Q32T16", false, "-b4K -o32 -t16 -r -w0 -Zr -Sh"),
            t("RND4K Q1T1", false, "-b4K -o1 -t1 -r -w0 -Zr -Sh"),
            t("SEQ1M Q8T1", true, "-b1M -o8 -t1 -s -w100 -Zr -Sh"),
            t("SEQ128K Q32T1", true, "-b128K -o32 -t1 -s -w100 -Zr -Sh"),
            t("RND4K Q32T16", true, "-b4K -o32 -t16 -r -w100 -Zr -Sh"),
            t("RND4K Q1T1", true, "-b4K -o1 -t1 -r -w100 -Zr -Sh"),
        ],
    },
    Preset {
        name: "iops",
        about: "the IOPS test of DiskSpd's latency-and-IOPS guidance: 8 threads x 8 outstanding 4K random reads, unbuffered, no latency look-aside",
        size: "1G",
        seconds: 30,
        warmup: 5,
        runs: 3,
        pause: 0,
        best_decimal: false,
        tests: &[t("RND4K Q8T8", false, "-t8 -o8 -b4K -r -w0 -Suw")],
    },
    Preset {
        name: "latency",
        about: "the latency test of the same guidance: one thread, one outstanding 4K random read, with latency",
        size: "1G",
        seconds: 30,
        warmup: 5,
        runs: 3,
        pause: 0,
        best_decimal: false,
        tests: &[t("RND4K Q1T1", false, "-t1 -o1 -b4K -r -w0 -Suw -L")],
    },
    Preset {
        name: "oltp",
        about: "iospd's line for an OLTP-like load as SQL Server guidance describes it: 8K pages, random, 70% reads / 30% writes",
        size: "1G",
        seconds: 30,
        warmup: 5,
        runs: 3,
        pause: 0,
        best_decimal: false,
        tests: &[t(
            "RND8K 70/30 Q8T4",
            true,
            "-t4 -o8 -b8K -r -w30 -Zr -Sh -L",
        )],
    },
    Preset {
        name: "olap",
        about: "iospd's line for an OLAP-like load as SQL Server guidance describes it: 512K sequential reads (read-ahead of 64 pages), one thread per file",
        size: "1G",
        seconds: 30,
        warmup: 5,
        runs: 3,
        pause: 0,
        best_decimal: false,
        tests: &[t("SEQ512K Q8T1", false, "-t1 -o8 -b512K -s -w0 -Sh -L")],
    },
    Preset {
        name: "hci",
        about: "the hyperconverged (Azure Stack HCI) validation line: 16 threads x 32 outstanding 4K random, 30% writes, shorter than its 300 s",
        size: "1G",
        seconds: 60,
        warmup: 5,
        runs: 1,
        pause: 0,
        best_decimal: false,
        tests: &[t(
            "RND4K 70/30 Q32T16",
            true,
            "-t16 -o32 -b4K -r -w30 -Zr -Sh -L",
        )],
    },
];

/// What the command line may change in a suite.
#[derive(Debug, Default)]
struct Overrides {
    size: Option<String>,
    seconds: Option<u32>,
    runs: Option<u32>,
    pause: Option<u32>,
}

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str =
    "iospd preset <name> <target> [--size=<size>] [--seconds=<s>] [--runs=<n>] [--pause=<s>]";

fn usage_error(why: &str) -> ToolError {
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    ToolError::Usage(format!(
        "{why}; usage: {USAGE}; presets: {}",
        names.join(", ")
    ))
}

/// Refuses a `--size` that is not a size in bytes, or that is smaller than a block of one of the
/// preset's tests (named as the user typed it, not as the `-c` it becomes).
fn check_size(preset: &Preset, size: &str) -> Result<(), ToolError> {
    let arg = format!("--size={size}");
    let bytes = match crate::units::parse_size(size) {
        Ok(crate::units::Size::Bytes(b)) if b > 0 => b,
        Ok(crate::units::Size::Bytes(_)) => {
            return Err(usage_error(&format!(
                "'{arg}': the file size must be greater than 0, for example --size=1G"
            )));
        }
        Ok(crate::units::Size::Blocks(_)) => {
            return Err(usage_error(&format!(
                "'{arg}': give the file size in bytes, for example --size=1G"
            )));
        }
        Err(e) => return Err(usage_error(&format!("'{arg}': {e}, for example --size=1G"))),
    };
    let largest = preset.tests.iter().filter_map(|test| {
        let block = test
            .args
            .split_whitespace()
            .find_map(|a| a.strip_prefix("-b"))?;
        match crate::units::parse_size(block) {
            Ok(crate::units::Size::Bytes(b)) => Some((b, test.name)),
            _ => None,
        }
    });
    match largest.max() {
        Some((block, test)) if bytes < block => Err(usage_error(&format!(
            "'{arg}' is smaller than the {} blocks of test {test}; give at least --size={}",
            crate::units::format_size(block),
            crate::units::format_size(block).replace("iB", "")
        ))),
        _ => Ok(()),
    }
}

/// Each test's arguments (after `iospd`), as the suite runs it: the target is one argument
/// whatever it holds.
pub fn command_lines(
    preset: &Preset,
    target: &str,
    size: &str,
    seconds: u32,
    runs: u32,
) -> Vec<Vec<String>> {
    preset
        .tests
        .iter()
        .map(|test| {
            let words: Vec<String> = test.args.split_whitespace().map(str::to_string).collect();
            let mut line = Line::lex(&words).expect("a preset's options lex");
            // The target is the user's, one argument whatever it holds; the run reads it.
            line.add_target(target.into());
            for option in [
                format!("-c{size}"),
                format!("-d{seconds}"),
                format!("-W{}", preset.warmup),
                "-Rjson".to_string(),
            ] {
                line.set(&option);
            }
            if runs > 1 {
                line.set(&format!("--repeat={runs}"));
            }
            line.args()
        })
        .collect()
}

/// How far a suite got.
#[derive(Debug, Default)]
pub struct Progress {
    /// The reports of the tests that finished, in order.
    pub reports: Vec<Report>,
    /// The test a signal or a failure stopped (or the one a signal came before), and how.
    pub stopped: Option<(usize, Stop)>,
}

/// How a suite stopped early.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// A signal came while the test ran.
    During(i32),
    /// A signal came before the test started (in the pause before it).
    Before(i32),
    /// The test failed.
    Failed,
}

/// Its own options (`=`: takes a value), for the shell completions.
pub const OPTIONS: &[&str] = &["size=", "seconds=", "runs=", "pause="];

/// Every preset's name.
pub fn names() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.name).collect()
}

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let mut positional = Vec::new();
    let mut over = Overrides::default();
    for arg in args {
        // The ranges iospd's own -d, --repeat and --pause take.
        let number = |v: &str, (low, high): (u32, u32), example: &str| {
            v.parse::<u32>()
                .ok()
                .filter(|n| (low..=high).contains(n))
                .ok_or_else(|| {
                    usage_error(&format!(
                        "'{arg}' needs a whole number from {low} to {high}, for example {example}"
                    ))
                })
        };
        if let Some(v) = arg.strip_prefix("--size=") {
            over.size = Some(v.to_string());
        } else if let Some(v) = arg.strip_prefix("--seconds=") {
            over.seconds = Some(number(v, (1, u32::MAX), "--seconds=30")?);
        } else if let Some(v) = arg.strip_prefix("--runs=") {
            over.runs = Some(number(v, (1, 1000), "--runs=3")?);
        } else if let Some(v) = arg.strip_prefix("--pause=") {
            over.pause = Some(number(v, (0, 86_400), "--pause=5")?);
        } else if arg.starts_with('-') {
            let name = arg.trim_start_matches('-').split('=').next().unwrap_or("");
            let names = OPTIONS.iter().map(|o| o.trim_end_matches('='));
            let hint = crate::cli::closest(name, names)
                .map_or(String::new(), |meant| format!(" (did you mean --{meant}?)"));
            return Err(usage_error(&format!(
                "'{arg}' is not a preset option{hint}"
            )));
        } else {
            positional.push(arg.as_str());
        }
    }
    let [name, target] = positional.as_slice() else {
        return Err(usage_error("name a preset and one target"));
    };
    let Some(preset) = PRESETS.iter().find(|p| p.name == *name) else {
        return Err(usage_error(&format!("there is no preset '{name}'")));
    };
    let size = over.size.as_deref().unwrap_or(preset.size);
    if over.size.is_some() {
        check_size(preset, size)?;
    }
    let seconds = over.seconds.unwrap_or(preset.seconds);
    let runs = over.runs.unwrap_or(preset.runs);
    let pause = over.pause.unwrap_or(preset.pause);
    let lines = command_lines(preset, target, size, seconds, runs);
    let mut text = format!("iospd preset {}: {}\n\n", preset.name, preset.about);
    for line in &lines {
        let _ = writeln!(text, "  {}", child::shell_line(line));
    }
    super::print(&text)?;
    let runner = child::Child::this()?;
    // Every test passes the checks its run makes before the first starts: a preset does not
    // stop halfway on a test that could never have run.
    for (i, args) in lines.iter().enumerate() {
        match runner.check(args) {
            Ok(()) => {}
            Err(ToolError::Failed { why, .. }) => {
                return Err(ToolError::Usage(format!(
                    "test {} of {} ({}) cannot run, so none was run: {}",
                    i + 1,
                    lines.len(),
                    preset.tests[i].name,
                    child::last_words(&why)
                )));
            }
            Err(other) => return Err(other),
        }
    }
    let mut progress = Progress::default();
    let mut failure = None;
    for (i, args) in lines.iter().enumerate() {
        if i > 0 && pause > 0 {
            child::pause(std::time::Duration::from_secs(pause as u64));
        }
        match runner.report(args) {
            Ok(report) => progress.reports.push(report),
            Err(error) => {
                let how = match &error {
                    ToolError::Interrupted {
                        signal,
                        started: true,
                        ..
                    } => Stop::During(*signal),
                    ToolError::Interrupted { signal, .. } => Stop::Before(*signal),
                    _ => Stop::Failed,
                };
                progress.stopped = Some((i, how));
                failure = Some(error);
                break;
            }
        }
    }
    super::print(&summary(preset, &progress))?;
    match failure {
        None => Ok(0),
        Some(error) => {
            if let Some((i, how)) = progress.stopped {
                let (when, why) = match how {
                    Stop::During(signal) => ("at", child::signal_name(signal)),
                    Stop::Before(signal) => ("before", child::signal_name(signal)),
                    Stop::Failed => ("at", "a failed run".into()),
                };
                crate::console::say(&format!(
                    "iospd: {why} stopped the preset {when} test {} of {} ({}); the summary holds the {} that finished",
                    i + 1,
                    lines.len(),
                    preset.tests[i].name,
                    progress.reports.len()
                ));
            }
            Err(error)
        }
    }
}

/// One run of a test: bytes and I/Os per second, and with -L its mean and p99 latency in ns.
type RunRates = (f64, f64, Option<(f64, u64)>);

/// Each run's rates of one test's report (one per repetition).
fn runs_of(report: &Report) -> Vec<RunRates> {
    report
        .timespans
        .iter()
        .filter_map(|t| t.measured.as_ref())
        .map(|m| {
            let t = &m.totals.total;
            (
                t.bytes_per_s,
                t.ios_per_s,
                t.latency.as_ref().map(|l| (l.mean_ns, l.at(99.0))),
            )
        })
        .collect()
}

/// The outcome of test `i`: its report, or what the table says instead of numbers.
fn outcome(progress: &Progress, i: usize) -> Result<&Report, &'static str> {
    match (progress.reports.get(i), &progress.stopped) {
        (Some(report), _) => Ok(report),
        (None, Some((at, Stop::During(_)))) if *at == i => Err("cut short"),
        (None, Some((at, Stop::Failed))) if *at == i => Err("failed"),
        _ => Err("not run"),
    }
}

/// The summary table: numbers for the tests that finished, and "cut short", "failed" or "not run"
/// for the others.
pub fn summary(preset: &Preset, progress: &Progress) -> String {
    let mut out = String::from("\n");
    if preset.best_decimal {
        out.push_str("test            |   Read MB/s (min-max)      |   Write MB/s (min-max)\n");
        let _ = writeln!(out, "{}", "-".repeat(74));
        let cell = |i: Option<usize>| {
            let report = match i.map(|i| outcome(progress, i)) {
                None => return "not run".to_string(),
                Some(Err(what)) => return what.to_string(),
                Some(Ok(report)) => report,
            };
            let rates: Vec<f64> = runs_of(report).iter().map(|(b, ..)| b / 1e6).collect();
            match rates.iter().copied().reduce(f64::max) {
                Some(best) => format!(
                    "{best:10.2} ({:.2}-{:.2})",
                    rates.iter().copied().fold(f64::INFINITY, f64::min),
                    best
                ),
                None => "not run".into(),
            }
        };
        for (i, test) in preset.tests.iter().enumerate().filter(|(_, t)| !t.writes) {
            let write = preset
                .tests
                .iter()
                .position(|t| t.writes && t.name == test.name);
            let _ = writeln!(
                out,
                "{:<15} | {:<26} | {}",
                test.name,
                cell(Some(i)),
                cell(write)
            );
        }
        out.push_str("best of the runs, MB/s = 1,000,000 bytes per second as CrystalDiskMark counts; (min-max) over the runs\n");
        return out;
    }
    out.push_str("test               | runs |  I/O per s (95% CI +/-)   |    MB/s    | AvgLat ms |   p99 ms\n");
    let _ = writeln!(out, "{}", "-".repeat(92));
    for (i, test) in preset.tests.iter().enumerate() {
        let report = match outcome(progress, i) {
            Ok(report) => report,
            Err(what) => {
                let _ = writeln!(out, "{:<18} | {what}", test.name);
                continue;
            }
        };
        let runs = runs_of(report);
        let iops: Vec<f64> = runs.iter().map(|r| r.1).collect();
        let spread = crate::stats::confidence::Spread::of(&iops);
        let mean = |pick: &dyn Fn(&RunRates) -> Option<f64>| {
            let values: Vec<f64> = runs.iter().filter_map(pick).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let ms =
            |v: Option<f64>| v.map_or("      N/A".to_string(), |ns| format!("{:9.3}", ns / 1e6));
        let _ = writeln!(
            out,
            "{:<18} | {:4} | {:12.2} ({:>10}) | {:10.2} | {} | {}",
            test.name,
            runs.len(),
            spread.mean,
            if spread.n > 1 {
                format!("{:.2}", spread.ci95_half_width)
            } else {
                "N/A".into()
            },
            mean(&|r| Some(r.0)).unwrap_or(0.0) / 1e6,
            ms(mean(&|r| r.2.map(|l| l.0))),
            ms(mean(&|r| r.2.map(|l| l.1 as f64)))
        );
    }
    out.push_str("means over the runs; MB/s = 1,000,000 bytes per second; 95% CI: Student's t over the runs\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_line_is_a_valid_iospd_command() {
        for preset in PRESETS {
            assert!(!preset.tests.is_empty(), "{}", preset.name);
            for line in command_lines(
                preset,
                "/mnt/my disk/p.db --force",
                preset.size,
                preset.seconds,
                preset.runs,
            ) {
                let args: Vec<std::ffi::OsString> =
                    line.iter().map(std::ffi::OsString::from).collect();
                let line = child::shell_line(&line);
                let crate::cli::Command::Run(raw) = crate::cli::parse(&args).unwrap() else {
                    panic!("{line}");
                };
                let resolved = crate::profile::resolve(&raw, line.clone())
                    .unwrap_or_else(|e| panic!("{}: {line}: {e}", preset.name));
                assert!(!resolved.profile.force, "{line}");
                for ts in &resolved.profile.timespans {
                    assert_eq!(ts.targets.len(), 1, "{line}");
                    for target in &ts.targets {
                        assert_eq!(
                            target.path,
                            std::path::Path::new("/mnt/my disk/p.db --force"),
                            "{line}"
                        );
                        if target.write_ratio > 0 {
                            assert!(
                                ts.random_write_data
                                    || matches!(
                                        target.write_buffer,
                                        crate::profile::WriteBuffer::Source { .. }
                                    ),
                                "{}: writes must use random data: {line}",
                                preset.name
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn preset_names_are_unique() {
        for (i, p) in PRESETS.iter().enumerate() {
            assert!(
                PRESETS[i + 1..].iter().all(|q| q.name != p.name),
                "{}",
                p.name
            );
        }
    }
}
