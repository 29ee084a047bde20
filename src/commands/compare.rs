//! `iospd compare BASE.json NEW.json`: the two runs side by side (see
//! [`crate::report::compare`]).

use std::fmt::Write as _;
use std::path::Path;

use super::report::load;
use super::{ToolError, split_args};
use crate::report::compare::{RepeatedLine, TimeSpanComparison, compare, compare_repetitions};

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str = "iospd compare <base.json> <new.json>";

/// Lays the comparison out as a text table.
pub fn render(base: &str, new: &str, timespans: &[Option<TimeSpanComparison>]) -> String {
    let mut out = format!("base: {base}\nnew:  {new}\n");
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
            "  {:<5} {:<20} | {:>14} | {:>14} | {:>9} | {:>8} | verdict",
            "", "metric", "base", "new", "change", "noise ±"
        );
        let _ = writeln!(out, "  {}", "-".repeat(96));
        for line in &ts.lines {
            let change = line
                .change_percent
                .map_or("n/a".to_string(), |c| format!("{c:+.2}%"));
            let noise = line
                .noise_percent
                .map_or("?".to_string(), |n| format!("{n:.2}%"));
            let verdict = match line.within_noise() {
                Some(true) => "within noise",
                Some(false) if line.change_percent.unwrap_or(0.0) > 0.0 => "higher",
                Some(false) => "lower",
                None => "noise unknown",
            };
            let _ = writeln!(
                out,
                "  {:<5} {:<20} | {:>14.2} | {:>14.2} | {change:>9} | {noise:>8} | {verdict}",
                line.direction, line.metric, line.base, line.new
            );
        }
    }
    out.push_str(
        "\nnoise: how far two runs of this workload may differ by chance: the 95% band (Welch's t) for the difference of two\n\
         runs' levels, each varying as much as the means of its own -D intervals in 5 consecutive batches do;\n\
         for a firm verdict, compare runs made with --repeat\n\
         (rates, mean, p50, p99, p99.9 and max have interval data when both runs used -D; ? = none)\n",
    );
    out
}

/// The changes the repetitions of both runs (`--repeat`) show, with their intervals; nothing when
/// either run has none.
pub fn render_repetitions(lines: &[RepeatedLine]) -> String {
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
            format!("{:.2} ({})", l.means.0, l.counts.0),
            format!("{:.2} ({})", l.means.1, l.counts.1),
            format!("{:+.2}% ± {:.2}%", percent(d.delta), percent(d.half_width)),
            l.verdict()
        );
    }
    out
}

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let args = split_args(args, &[], USAGE)?;
    let [base, new] = args.files.as_slice() else {
        return Err(ToolError::Usage(format!(
            "name two JSON results, the base first; usage: {USAGE}"
        )));
    };
    let (b, n) = (load(Path::new(base))?, load(Path::new(new))?);
    let mut text = String::new();
    let (wb, wn) = (
        crate::report::inputs::workload(&b),
        crate::report::inputs::workload(&n),
    );
    if let Some((k, was, now)) = crate::report::inputs::first_difference(&wb, &wn) {
        text.push_str(&format!(
            "WARNING: the runs ran different workloads (timespan {}: {now} against {was}); a change below is a change of workload, not only of the system\n",
            k + 1,
        ));
    }
    text.push_str(&render(base, new, &compare(&b, &n)));
    text.push_str(&render_repetitions(&compare_repetitions(&b, &n)));
    super::print(&text)?;
    Ok(0)
}
