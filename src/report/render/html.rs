//! `--output=FILE.html`: one self-contained page that works offline: the input parameters and the
//! machine, summary tables per timespan, target and thread, IOPS and MiB/s over time, latency
//! percentiles over time, and the latency distribution as a histogram and a percentile curve, all
//! as inline SVG. No script, no font, no image is loaded from anywhere (the page's
//! Content-Security-Policy forbids it).

use std::fmt::Write as _;

use crate::report::render::svg::{Chart, Scale, Series, escape, render as svg};
use crate::report::{Direction, Directions, Measured, Report, TimeSpanReport};
use crate::stats::timeline::{Point, Row};

const READ: &str = "#1f77b4";
const WRITE: &str = "#d62728";
const TOTAL: &str = "#2ca02c";
const P50: &str = "#1f77b4";
const P99: &str = "#ff7f0e";
const P999: &str = "#d62728";
const MAX: &str = "#7f7f7f";

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;max-width:1100px}\
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}h3{font-size:15px}\
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}th,td{border:1px solid #ddd;padding:3px 8px;text-align:right}\
th{background:#f4f4f4}td.l,th.l{text-align:left}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}\
pre{background:#f8f8f8;padding:8px;overflow-x:auto}.note{color:#666;font-size:13px}.warn{color:#8a2b00;font-weight:600}\
svg{display:block;margin:8px 0 20px}svg .title{font-size:14px;font-weight:600}svg .tick{font-size:11px;fill:#555}\
svg .label{font-size:12px;fill:#333}svg .legend{font-size:12px}svg .grid{stroke:#e6e6e6}svg .axis{stroke:#888}";

/// The page.
pub fn render(report: &Report) -> String {
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>iospd: {}</title><style>{STYLE}</style></head><body>\n",
        escape(&report.profile.command_line)
    );
    let _ = writeln!(
        page,
        "<h1>iospd {} report</h1><p><code>{}</code></p>",
        escape(&report.tool.version),
        escape(&report.profile.command_line)
    );
    if let Some(stopped) = report.stopped_early() {
        let _ = writeln!(page, "<p class=\"warn\">{}</p>", escape(&stopped.line()));
    }
    if let Some(line) = report.partial_line() {
        let _ = writeln!(page, "<p class=\"note\">{}</p>", escape(&line));
    }
    if let Some(r) = &report.repetitions {
        repetitions(&mut page, r);
    }
    system(&mut page, report);
    if let Some(sweep) = &report.sweep {
        crate::report::render::sweep_html::section(&mut page, report, sweep);
    }
    let _ = writeln!(
        page,
        "<h2>Input parameters</h2><pre>{}</pre>",
        escape(crate::report::render::text::profile_text(&report.profile, &report.system).trim())
    );
    for (i, ts) in report.timespans.iter().enumerate() {
        timespan(&mut page, report, i, ts);
    }
    let _ = writeln!(
        page,
        "<h2>Full report</h2><details><summary>The DiskSpd-layout text report</summary><pre>{}</pre></details>\n</body></html>",
        escape(&crate::report::render::text::render(report))
    );
    page
}

fn system(page: &mut String, report: &Report) {
    let s = &report.system;
    let _ = writeln!(
        page,
        "<h2>System</h2><table><tr><th class=\"l\">computer</th><td class=\"l\">{}</td></tr>\
         <tr><th class=\"l\">processor</th><td class=\"l\">{}</td></tr>\
         <tr><th class=\"l\">kernel</th><td class=\"l\">{}</td></tr>\
         <tr><th class=\"l\">CPUs</th><td class=\"l\">{}</td></tr></table>",
        escape(&s.computer_name),
        escape(&s.processor_name),
        escape(&s.kernel),
        s.cpus.len()
    );
}

/// `--repeat`: each timespan's mean IOPS with its interval, the verdict and the steady state, at
/// the top, where the answer belongs.
fn repetitions(page: &mut String, r: &crate::report::RepetitionsReport) {
    let _ = writeln!(page, "<h2>Repetitions: each timespan × {}</h2>", r.repeat);
    for g in &r.groups {
        let verdict = crate::report::analysis::repetitions::verdict_words(g, r.unstable_share);
        let steady = g.steady_state.as_ref().map_or(
            format!(
                "steady state (SNIA PTS): needs {} measured runs",
                crate::stats::confidence::STEADY_WINDOW
            ),
            |s| crate::report::analysis::repetitions::steady_words("runs", s),
        );
        let class = if g.unstable { "warn" } else { "note" };
        let _ = writeln!(
            page,
            "<p>Timespan {} ({} measured): {:.2} IOPS ± {:.2} (95% CI), {:.2} MiB/s.</p><p class=\"{class}\">{}; {}</p>",
            g.timespan,
            g.runs.len(),
            g.iops.mean,
            g.iops.ci95_half_width,
            g.throughput.mean / 1_048_576.0,
            escape(&verdict),
            escape(&steady)
        );
    }
}

fn duration(ns: f64) -> String {
    crate::units::format_duration(ns)
}

/// One row of a summary table: a label and a direction's numbers.
fn row(page: &mut String, label: &str, d: &Direction) {
    let (mean, p50, p99, p999, max) = match &d.latency {
        Some(l) => (
            duration(l.mean_ns),
            duration(l.at(50.0) as f64),
            duration(l.at(99.0) as f64),
            duration(l.at(99.9) as f64),
            duration(l.max_ns as f64),
        ),
        None => Default::default(),
    };
    let _ = write!(
        page,
        "<tr><td class=\"l\">{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{mean}</td><td>{p50}</td><td>{p99}</td><td>{p999}</td><td>{max}</td></tr>",
        escape(label),
        d.ios,
        d.ios_per_s,
        d.bytes_per_s / 1_048_576.0
    );
}

fn table(page: &mut String, first: &str, rows: &[(String, &Direction)]) {
    let _ = write!(
        page,
        "<table><tr><th class=\"l\">{first}</th><th>I/Os</th><th>IOPS</th><th>MiB/s</th><th>mean</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th></tr>"
    );
    for (label, d) in rows {
        row(page, label, d);
    }
    page.push_str("</table>\n");
}

fn directions<'a>(label: &str, d: &'a Directions) -> Vec<(String, &'a Direction)> {
    [("read", &d.read), ("write", &d.write), ("total", &d.total)]
        .into_iter()
        .filter(|(_, dir)| dir.ios > 0 || std::ptr::eq(*dir, &d.total))
        .chain(
            [("trim", &d.trim), ("flush", &d.flush)]
                .into_iter()
                .filter_map(|(name, dir)| dir.as_ref().map(|dir| (name, dir))),
        )
        .map(|(name, dir)| (format!("{label}{name}"), dir))
        .collect()
}

fn timespan(page: &mut String, report: &Report, index: usize, ts: &TimeSpanReport) {
    let _ = writeln!(
        page,
        "<h2>Timespan {} — started {}</h2>",
        index + 1,
        escape(&ts.start_time_utc)
    );
    let Some(m) = &ts.measured else {
        page.push_str(
            "<p class=\"note\">Interrupted before the measured window began: no results.</p>\n",
        );
        return;
    };
    let _ = writeln!(
        page,
        "<p>{:.2} s measured, {} threads, CPU {:.1} % busy on average; queue depth {:.2} achieved of {} (time-weighted I/Os in flight).</p>",
        m.duration_s, m.thread_count, m.cpu_average.usage, m.achieved_depth, m.depth
    );
    if let Some(s) = &m.steady_state {
        let words = crate::report::analysis::repetitions::steady_words("-D intervals", s);
        let class = if s.reached { "note" } else { "warn" };
        let _ = writeln!(page, "<p class=\"{class}\">{}</p>", escape(&words));
    }
    page.push_str("<h3>Totals</h3>");
    table(page, "direction", &directions("", &m.totals));
    if let Some(r) = &m.reality {
        reality(page, r);
    }
    verify(page, &report.profile.timespans[index], ts);
    if let Some(r) = &ts.replay {
        // The replay's lines as the text report words them.
        let mut lines = String::new();
        super::text::replay::replay_text(&mut lines, r);
        let _ = write!(page, "<h3>Replay</h3><pre>{}</pre>", escape(&lines));
    }
    cluster(page, ts);
    // Past a number of ranks, the rows per rank's target and thread are there, collapsed.
    let detailed = ts.cluster.as_ref().is_none_or(|c| c.detailed());
    let (open, close) = if detailed {
        ("", "")
    } else {
        ("<details><summary>every one</summary>", "</details>")
    };
    if m.targets.len() > 1 {
        let _ = write!(page, "<h3>Targets</h3>{open}");
        let rows: Vec<(String, &Direction)> = m
            .targets
            .iter()
            .map(|t| (t.path.clone(), &t.directions.total))
            .collect();
        table(page, "target", &rows);
        page.push_str(close);
    }
    let _ = write!(page, "<h3>Threads</h3>{open}");
    let rows: Vec<(String, &Direction)> = m
        .threads
        .iter()
        .flat_map(|t| {
            t.targets
                .iter()
                .map(move |x| (format!("{} · {}", t.thread, x.path), &x.directions.total))
        })
        .collect();
    table(page, "thread · target", &rows);
    page.push_str(close);
    over_time(page, report, index, m);
    distribution(page, m);
    slowest(page, &m.slowest);
    cpu(page, m);
}

/// The window's slowest I/Os, the slowest first.
fn slowest(page: &mut String, slowest: &[crate::report::SlowIoReport]) {
    if slowest.is_empty() {
        return;
    }
    page.push_str("<h3>Slowest I/Os</h3><table><tr><th>latency</th><th>on the device</th><th>at (s)</th><th>thread</th><th class=\"l\">op</th><th>offset</th><th>bytes</th><th class=\"l\">target</th></tr>");
    for io in slowest {
        let _ = write!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{:.3}</td><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            duration(io.latency_ns as f64),
            io.device_ns.map_or("–".into(), |ns| duration(ns as f64)),
            io.completed_s,
            io.thread,
            io.op.name(),
            io.offset,
            io.bytes,
            escape(&io.path)
        );
    }
    page.push_str("</table>\n");
}

/// "Is this real": the findings first (or that there are none), then each device's counters
/// against what iospd issued, and the fingerprint.
fn reality(page: &mut String, r: &crate::report::Reality) {
    use crate::units::format_size;
    page.push_str("<h3>Is this real</h3>");
    if r.flags.is_empty() {
        let _ = write!(
            page,
            "<p class=\"note\">Nothing found that casts doubt on the result{}.</p>",
            escape(&crate::report::render::text::beyond::checked(r))
        );
    }
    for flag in &r.flags {
        let _ = write!(page, "<p class=\"warn\">{}</p>", escape(flag));
    }
    if !r.devices.is_empty() {
        page.push_str("<table><tr><th class=\"l\">device</th><th>iospd read</th><th>device read</th><th>iospd wrote</th><th>device wrote</th></tr>");
        for d in &r.devices {
            let reached = |pick: fn(&crate::system::backing::DiskStat) -> u64| {
                d.reached
                    .as_ref()
                    .map_or("?".into(), |s| format_size(pick(s)))
            };
            let _ = write!(
                page,
                "<tr><td class=\"l\">{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&d.device),
                escape(&d.paths.join(", ")),
                format_size(d.issued_read_bytes),
                reached(|s| s.read_bytes),
                format_size(d.issued_write_bytes),
                reached(|s| s.write_bytes)
            );
        }
        page.push_str("</table>");
        for d in &r.devices {
            for t in &d.time {
                let _ = write!(
                    page,
                    "<p>{}.</p>",
                    escape(&crate::report::render::text::beyond::device_time_sentence(
                        &d.device, t
                    ))
                );
                if let Some(c) = &t.clock {
                    request_times_table(page, &d.device, &t.direction, t.bio_based, c);
                }
            }
        }
        if let Some(why) = &r.clock_off {
            let _ = write!(page, "<p>Device clock: {}.</p>", escape(why));
        }
    }
    let _ = write!(
        page,
        "<p>{}.</p>",
        escape(&crate::report::render::text::beyond::cpu_sentence(&r.cpu))
    );
    let f = &r.fingerprint;
    let _ = write!(
        page,
        "<p>iospd: {:.0} ns of CPU per I/O. Fingerprint {}: {} CPUs, {} NUMA nodes, kernel {}.</p>",
        r.generator.cpu_ns_per_io,
        f.id,
        f.cpus,
        f.nodes,
        escape(&f.kernel)
    );
}

/// `--verify`: the counts, failures by kind, and the first bad blocks as the text report words
/// them.
fn verify(page: &mut String, profile_ts: &crate::profile::TimeSpan, ts: &TimeSpanReport) {
    use crate::verify::format::Kind;
    let Some(v) = &ts.verify else { return };
    let _ = write!(
        page,
        "<h3>Verify</h3><p>Run id {:#x}; every I/O of the timespan, warm-up and cool-down included.</p>         <table><tr><th class=\"l\">blocks</th><th>count</th></tr>",
        v.run_id
    );
    let rows = [
        ("written".to_string(), v.written),
        ("reads verified".into(), v.verified),
        ("reads skipped".into(), v.skipped),
        ("reads failed".into(), v.failed.total()),
    ];
    let kinds = Kind::ALL
        .iter()
        .map(|&k| (format!("failed: {}", k.name()), v.failed.of(k)));
    for (label, n) in rows.into_iter().chain(kinds) {
        let _ = write!(page, "<tr><td class=\"l\">{label}</td><td>{n}</td></tr>");
    }
    page.push_str("</table>\n");
    if !v.first.is_empty() {
        let mut lines = String::new();
        for found in &v.first {
            let path = crate::report::render::text::verify::target_name(profile_ts, found.target);
            crate::report::render::text::verify::found_text(&mut lines, &path, v.run_id, found);
        }
        let _ = writeln!(page, "<pre>{}</pre>", escape(&lines));
    }
}

/// A run across hosts: the start, both aggregates, every rank and every host.
fn cluster(page: &mut String, ts: &TimeSpanReport) {
    let Some(c) = &ts.cluster else { return };
    let _ = write!(
        page,
        "<h3>Ranks and hosts</h3><p>{} ranks on {} hosts. Start skew {}; clock offsets known to ±{}; \
         the start was placed {} ahead.</p>",
        c.ranks.len(),
        c.hosts.len(),
        duration(c.start_skew_ns as f64),
        duration(c.clock_uncertainty_ns as f64),
        duration(c.start_margin_ns as f64)
    );
    if c.started_apart() {
        let _ = write!(
            page,
            "<p class=\"warning\">The ranks did not start together: their starts spread over {}, more than the {} the start was placed ahead.</p>",
            duration(c.start_skew_ns as f64),
            duration(c.start_margin_ns as f64)
        );
    }
    page.push_str(&super::table::html(&c.aggregates_table()));
    if c.detailed() {
        page.push_str(&super::table::html(&c.ranks_table()));
    } else {
        page.push_str("<h4>Spread across ranks</h4>");
        page.push_str(&super::table::html(&c.spread_table()));
        page.push_str("<h4>Slowest ranks</h4>");
        page.push_str(&super::table::html(&c.slowest_table()));
        let _ = write!(
            page,
            "<details><summary>Every rank ({})</summary>{}</details>",
            c.ranks.len(),
            super::table::html(&c.ranks_table())
        );
    }
    page.push_str(&super::table::html(&c.hosts_table()));
    page.push('\n');
}

fn over_time(page: &mut String, report: &Report, index: usize, m: &Measured) {
    page.push_str("<h3>Over time</h3>");
    if m.timeline.is_empty() {
        let note = if report
            .profile
            .timespans
            .get(index)
            .is_some_and(|t| t.iops_interval_ms.is_some())
        {
            "No interval finished in the measured window."
        } else {
            "Run with -D (for example -D1000) to chart IOPS, throughput and latency over time."
        };
        let _ = writeln!(page, "<p class=\"note\">{note}</p>");
        return;
    }
    let t = |r: &Row| (r.start_ms + r.length_ms) / 1e3;
    let line = |name: &str, color: &'static str, pick: &dyn Fn(&Row) -> f64| Series {
        name: name.to_string(),
        color,
        points: m.timeline.iter().map(|r| (t(r), pick(r))).collect(),
    };
    let has_writes = m.totals.write.ios > 0;
    let has_reads = m.totals.read.ios > 0;
    let rates = |pick: fn(&Point) -> f64| {
        let mut series = Vec::new();
        if has_reads && has_writes {
            series.push(line("read", READ, &|r| pick(&r.all.read)));
            series.push(line("write", WRITE, &|r| pick(&r.all.write)));
        }
        series.push(line("total", TOTAL, &|r| pick(&r.all.total)));
        series
    };
    page.push_str(&svg(&Chart {
        title: "IOPS over time",
        x_label: "seconds into the measured window",
        y_label: "I/Os per second",
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        x_ticks: None,
        series: rates(|p| p.ios_per_s),
    }));
    page.push_str(&svg(&Chart {
        title: "Throughput over time",
        x_label: "seconds into the measured window",
        y_label: "MiB/s",
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        x_ticks: None,
        series: rates(|p| p.bytes_per_s / 1_048_576.0),
    }));
    if m.totals.total.latency.is_some() {
        let ms = |ns: u64| ns as f64 / 1e6;
        page.push_str(&svg(&Chart {
            title: "Latency percentiles over time (all I/O)",
            x_label: "seconds into the measured window",
            y_label: "latency, ms (log scale)",
            x_scale: Scale::Linear,
            y_scale: Scale::Log,
            x_ticks: None,
            series: vec![
                line("p50", P50, &|r| ms(r.all.total.p50_ns)),
                line("p99", P99, &|r| ms(r.all.total.p99_ns)),
                line("p99.9", P999, &|r| ms(r.all.total.p999_ns)),
                line("max", MAX, &|r| ms(r.all.total.max_ns)),
            ],
        }));
    }
    if let Some(r) = &m.reality {
        for d in &r.devices {
            device_over_time(page, d);
        }
    }
}

/// Under `-D`, with the device clock: each interval's time on the device, per direction.
fn device_over_time(page: &mut String, d: &crate::report::DeviceCheck) {
    let mut series = Vec::new();
    let colors = [("read", P50, P99), ("write", TOTAL, P999)];
    for (direction, p50, p99) in colors {
        let points = |pick: fn(&crate::report::IntervalTime) -> f64| -> Vec<(f64, f64)> {
            d.intervals
                .iter()
                .filter_map(|i| {
                    let t = i.time.iter().find(|t| t.direction == direction)?;
                    Some((i.end_ms as f64 / 1e3, pick(t) / 1e6))
                })
                .collect()
        };
        let (p50s, p99s) = (points(|t| t.p50_ns), points(|t| t.p99_ns));
        if !p50s.is_empty() {
            series.push(Series {
                name: format!("{direction} p50"),
                color: p50,
                points: p50s,
            });
            series.push(Series {
                name: format!("{direction} p99"),
                color: p99,
                points: p99s,
            });
        }
    }
    if series.is_empty() {
        return;
    }
    page.push_str(&svg(&Chart {
        title: &format!(
            "{}: each request's time on the device, per interval",
            d.device
        ),
        x_label: "seconds into the measured window",
        y_label: "time, ms (log scale)",
        x_scale: Scale::Linear,
        y_scale: Scale::Log,
        x_ticks: None,
        series,
    }));
}

fn distribution(page: &mut String, m: &Measured) {
    let pick: [(&str, &'static str, &Direction); 2] = [
        ("read", READ, &m.totals.read),
        ("write", WRITE, &m.totals.write),
    ];
    let shapes: Vec<_> = pick
        .iter()
        .filter_map(|(name, color, d)| {
            let shape = &d.latency.as_ref()?.shape;
            (!shape.bins.is_empty()).then_some((*name, *color, shape))
        })
        .collect();
    if shapes.is_empty() {
        return;
    }
    page.push_str("<h3>Latency distribution</h3>");
    page.push_str(&svg(&Chart {
        title: "Latency histogram (10 bins per decade)",
        x_label: "latency, ms (log scale)",
        y_label: "I/Os",
        x_scale: Scale::Log,
        y_scale: Scale::Linear,
        x_ticks: None,
        series: shapes
            .iter()
            .map(|(name, color, shape)| Series {
                name: name.to_string(),
                color,
                points: shape
                    .bins
                    .iter()
                    .map(|&(ns, n)| (ns / 1e6, n as f64))
                    .collect(),
            })
            .collect(),
    }));
    // Percentile curve: x in "nines" (0 = p0 … 3 = p99.9), as far as the samples reach.
    let reach = shapes
        .iter()
        .filter_map(|(_, _, shape)| shape.curve.last().map(|&(nines, _)| nines))
        .fold(1.0, f64::max);
    let ticks = nines_ticks(reach);
    page.push_str(&svg(&Chart {
        title: "Latency by percentile",
        x_label: "percentile",
        y_label: "latency, ms (log scale)",
        x_scale: Scale::Linear,
        y_scale: Scale::Log,
        x_ticks: Some(ticks),
        series: shapes
            .iter()
            .map(|(name, color, shape)| Series {
                name: name.to_string(),
                color,
                points: shape
                    .curve
                    .iter()
                    .map(|&(nines, ns)| (nines, ns as f64 / 1e6))
                    .collect(),
            })
            .collect(),
    }));
}

/// Ticks of a percentile axis in nines, up to `reach`: p0, p90, p99, p99.9 …
fn nines_ticks(reach: f64) -> Vec<(f64, String)> {
    (0..=reach as u32)
        .map(|n| {
            let label = match n {
                0 => "p0".to_string(),
                1 => "p90".to_string(),
                2 => "p99".to_string(),
                n => format!("p99.{}", "9".repeat(n as usize - 2)),
            };
            (n as f64, label)
        })
        .collect()
}

fn cpu(page: &mut String, m: &Measured) {
    page.push_str("<h3>CPU</h3><table><tr><th>CPU</th><th>usage %</th><th>user %</th><th>kernel %</th><th>idle %</th></tr>");
    for c in m.cpu.iter().chain(std::iter::once(&m.cpu_average)) {
        let label = if std::ptr::eq(c, &m.cpu_average) {
            "avg.".to_string()
        } else {
            c.cpu.to_string()
        };
        let _ = write!(
            page,
            "<tr><td>{label}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td></tr>",
            c.usage, c.user, c.kernel, c.idle
        );
    }
    page.push_str("</table>\n");
}

/// One direction of a device, each request timed: the device's, iospd's and the difference.
fn request_times_table(
    page: &mut String,
    device: &str,
    direction: &str,
    bio_based: bool,
    c: &crate::report::RequestTimes,
) {
    use crate::units::format_duration;
    let of = c
        .completed
        .filter(|&n| n > c.requests)
        .map_or(String::new(), |n| {
            format!(" of the {n} the device completed")
        });
    let (how, many) = crate::report::render::text::beyond::timed_words(c, bio_based);
    let _ = write!(
        page,
        "<table><tr><th class=\"l\">{} {direction}s, {how} ({many}{of})</th><th>mean</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th></tr>",
        escape(device),
    );
    let rows = [
        ("on the device", Some(&c.device)),
        ("iospd's latency", Some(&c.iospd)),
        ("above the device", Some(&c.stack)),
        ("queued before issue", c.queued.as_ref()),
    ];
    for (name, s) in rows.into_iter().filter_map(|(n, s)| Some((n, s?))) {
        let _ = write!(page, "<tr><td class=\"l\">{name}</td>");
        for ns in [s.mean_ns, s.p50_ns, s.p99_ns, s.p99_9_ns, s.max_ns] {
            let _ = write!(page, "<td>{}</td>", format_duration(ns));
        }
        page.push_str("</tr>");
    }
    page.push_str("</table>");
    if c.device_curve.is_empty() {
        return;
    }
    let curve = |points: &[(f64, f64)]| points.iter().map(|&(n, ns)| (n, ns / 1e6)).collect();
    let reach = c.device_curve.last().map_or(1.0, |p| p.0);
    page.push_str(&svg(&Chart {
        title: &format!("{device} {direction}s: each request on the device, and iospd's latency"),
        x_label: "percentile",
        y_label: "time, ms (log scale)",
        x_scale: Scale::Linear,
        y_scale: Scale::Log,
        x_ticks: Some(nines_ticks(reach)),
        series: vec![
            Series {
                name: "on the device".into(),
                color: P99,
                points: curve(&c.device_curve),
            },
            Series {
                name: "iospd".into(),
                color: READ,
                points: curve(&c.iospd_curve),
            },
        ],
    }));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_golden_result_renders_a_closed_page_with_its_charts() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/golden/results.json"
        ))
        .unwrap();
        let mut report: crate::report::Report = serde_json::from_str(&text).unwrap();
        report.complete().unwrap();
        let page = super::render(&report);
        assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
        assert_eq!(
            page.matches("<svg").count(),
            5,
            "3 over time, 2 distribution"
        );
        assert!(!page.contains("<script"), "no script");
        assert!(
            !page.contains("http://") || !page.contains("src="),
            "nothing fetched"
        );
        assert!(page.contains("Latency percentiles over time"));
    }
}
