//! `iospd compare BASE.json NEW.json`: the two runs side by side (see
//! [`crate::report::analysis::compare`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::report::load;
use super::{ToolError, split_args};
use crate::report::Report;
use crate::report::analysis::compare::{
    RepeatedLine, TimeSpanComparison, compare, compare_repetitions,
};
use crate::report::analysis::inputs::{first_difference, system_differences, workload};
use crate::report::analysis::noise::{FloorSource, Floors};

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str = "iospd compare [--noise-from=<repeated.json>] <base.json> <new.json>";

/// Its own options (`=`: takes a value), for the parser and the shell completions.
pub const OPTIONS: &[&str] = &["noise-from="];

/// Lays the comparison out as text: the change of the means of repeated runs (`--repeat`) first,
/// then a table per timespan; `floors` says where the run-to-run floors come from.
pub fn render(
    base: &str,
    new: &str,
    repeated: &[RepeatedLine],
    timespans: &[Option<TimeSpanComparison>],
    floors: &Floors,
) -> String {
    let mut out = format!("base: {base}\nnew:  {new}\n");
    out.push_str(&render_repetitions(repeated));
    if !repeated.is_empty() {
        out.push_str("\neach repetition on its own:\n");
    }
    for (i, ts) in timespans.iter().enumerate() {
        let _ = writeln!(out, "\ntimespan {}:", i + 1);
        let Some(ts) = ts else {
            out.push_str("  not measured in both runs\n");
            continue;
        };
        let _ = writeln!(
            out,
            "  measured {:.2}s (base) and {:.2}s (new)\n",
            ts.seconds.0, ts.seconds.1
        );
        let _ = writeln!(
            out,
            "  {:<5} {:<20} | {:>14} | {:>14} | {:>9} | {:>8} | {:>8} | verdict",
            "", "metric", "base", "new", "change", "floor ±", "band ±"
        );
        let _ = writeln!(out, "  {}", "-".repeat(107));
        let measured = !matches!(floors.source, FloorSource::Default);
        for line in &ts.lines {
            let change = line
                .change_percent
                .map_or("n/a".to_string(), |c| format!("{c:+.2}%"));
            let floor = format!(
                "{:.2}%{}",
                line.floor_percent,
                if measured && !line.floor_measured {
                    "*"
                } else {
                    ""
                }
            );
            let band = line
                .band_percent
                .map_or("?".to_string(), |n| format!("{n:.2}%"));
            let verdict = line.verdict().label();
            let _ = writeln!(
                out,
                "  {:<5} {:<20} | {:>14} | {:>14} | {change:>9} | {floor:>8} | {band:>8} | {verdict}",
                line.direction,
                line.metric.label(),
                line.metric.show(line.base),
                line.metric.show(line.new)
            );
        }
    }
    out.push_str(
        "\nHow each verdict is reached. floor: how far apart, as a ratio, two runs of this workload fall with nothing\n\
         changed (the 99% prediction band of the difference of two single runs; a fall counts as the rise of the same\n\
         ratio, so a halving is a 100% ratio). band: each run's own steadiness, the 95% band (Welch's t) for the\n\
         difference of two levels that vary as the means of 5 consecutive batches of the run's -D intervals do (? = no\n\
         interval data). within noise: the change's ratio is inside the floor. higher/lower: past the floor, and past\n\
         the band or with every batch of one run beyond every batch of the other. unsteady: past the floor but inside\n\
         the band, so the runs vary within themselves as much as they differ: run longer, or repeat both (--repeat).\n",
    );
    out.push_str(&floors.describe());
    out.push('\n');
    out
}

/// The changes the repetitions of both runs (`--repeat`) show, with their intervals; nothing when
/// either run has none.
fn render_repetitions(lines: &[RepeatedLine]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\nrepeated runs (--repeat): change of the means with its 95% confidence interval (Welch's t)\n",
    );
    let _ = writeln!(
        out,
        "  {:<8} {:<16} | {:>14} | {:>14} | {:>22} | verdict",
        "timespan", "metric", "base mean (n)", "new mean (n)", "change (95% CI)"
    );
    let _ = writeln!(out, "  {}", "-".repeat(104));
    for l in lines {
        let d = &l.difference;
        let base = l.means.0;
        let show = |v: f64| {
            if l.latency {
                crate::units::format_duration(v)
            } else {
                format!("{v:.2}")
            }
        };
        let percent = |v: f64| {
            if base == 0.0 {
                0.0
            } else {
                v / base.abs() * 100.0
            }
        };
        let _ = writeln!(
            out,
            "  {:<8} {:<16} | {:>14} | {:>14} | {:>22} | {}",
            l.timespan,
            l.metric,
            format!("{} ({})", show(l.means.0), l.counts.0),
            format!("{} ({})", show(l.means.1), l.counts.1),
            format!("{:+.2}% ± {:.2}%", percent(d.delta), percent(d.half_width)),
            l.verdict()
        );
    }
    out
}

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let args = split_args(args, OPTIONS, USAGE)?;
    let [base, new] = args.files.as_slice() else {
        return Err(ToolError::Usage(format!(
            "name two JSON results, the base first; usage: {USAGE}"
        )));
    };
    let (b, n) = (load(Path::new(base))?, load(Path::new(new))?);
    let floors = match args.option("noise-from") {
        None => Floors::defaults(),
        Some("") => {
            return Err(ToolError::Usage(format!(
                "--noise-from needs a file: --noise-from=<result made with --repeat=10>; usage: {USAGE}"
            )));
        }
        Some(path) => calibration(path, &b, base)?,
    };
    let mut text = String::new();
    let (wb, wn) = (workload(&b), workload(&n));
    if let Some((k, was, now)) = first_difference(&wb, &wn) {
        text.push_str(&format!(
            "WARNING: the runs ran different workloads (timespan {}: {now} against {was}); a change below is a change of workload, not only of the system\n",
            k + 1,
        ));
    }
    let systems = system_differences(&b, &n);
    if !systems.is_empty() {
        text.push_str(&format!(
            "WARNING: the runs ran on different systems ({}); a change below may come from the system, not only from what you changed\n",
            systems.join("; ")
        ));
    }
    let repeated = compare_repetitions(&b, &n);
    text.push_str(&render(
        base,
        new,
        &repeated,
        &compare(&b, &n, &floors),
        &floors,
    ));
    super::print(&text)?;
    Ok(0)
}

/// The floors measured by the repetitions in `path`, which must have run the workload of `base`
/// (named `base_name`).
fn calibration(path: &str, base: &Report, base_name: &str) -> Result<Floors, ToolError> {
    let report = load(Path::new(path))?;
    let refuse = |why: String| ToolError::Input {
        path: PathBuf::from(path),
        why,
    };
    let floors = Floors::from_repetitions(&report, path).map_err(refuse)?;
    // A repeated result lists its timespans once per repetition, one group per timespan as given:
    // the first of each are the workload.
    let given = report.repetitions.as_ref().map_or(0, |r| r.groups.len());
    let repeated = workload(&report);
    if let Some((k, theirs, ours)) = first_difference(&workload(base), &repeated[..given]) {
        return Err(refuse(format!(
            "its repetitions ran another workload than '{base_name}' (timespan {}: {ours} against {theirs}), so they say nothing of its noise; repeat the compared command line with --repeat=10",
            k + 1
        )));
    }
    Ok(floors)
}
