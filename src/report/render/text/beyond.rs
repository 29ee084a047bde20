//! `Beyond DiskSpd:`: what iospd adds, printed after DiskSpd's whole report so that a script
//! written for DiskSpd's text reads everything above the heading unchanged. Run-wide lines first,
//! then each timespan's additions under its number: the engine and how its threads waited, the
//! achieved depth, generator warnings, the open-loop chart, time statistics, steady state, the
//! `--verify` counts and how the start was agreed.

use std::fmt::Write as _;

use super::profile::{engine_text, given_timespans};
use super::{Driven, cluster, extra, failed, line, results, steady, verify};
use crate::engine::EngineSetup;
use crate::profile::Profile;
use crate::report::{DedupeReport, Measured, Report, SkewReport};
use crate::system::SystemInfo;

/// The heading a parser can stop at.
pub const HEADING: &str = "Beyond DiskSpd:";

/// The section for a report that ran: every timespan of the results.
pub(super) fn report_text(out: &mut String, report: &Report, ran: &[Driven]) {
    heading(out, &report.system);
    let profile = &report.profile;
    for (i, ts) in report.timespans.iter().enumerate() {
        let spec = &profile.timespans[i];
        timespan_heading(out, profile, i);
        if let Some(driven) = ran.get(i) {
            engine_text(out, spec, *driven, profile.spin);
        }
        // The skew is stated with its measured hot sets below.
        placement_text(out, profile, spec);
        workload_text(out, spec, false);
        if let Some(m) = &ts.measured {
            measured_text(out, profile, spec.measure_latency, m);
        }
        if let Some(f) = &ts.failed_ios {
            failed::failed_text(out, spec, f);
        }
        if let Some(s) = &ts.steady_stop {
            steady::steady_text(out, s);
        }
        if let Some(v) = &ts.verify {
            verify::verify_text(out, spec, v);
        }
        for d in &ts.dedupes {
            dedupe_text(out, d);
        }
        if let Some(r) = &ts.replay {
            super::replay::replay_text(out, r);
        }
        cluster::start_text(out, ts, &report.system.clock);
    }
}

/// The section for `-Rp`: the engine each given timespan asks for. Like DiskSpd's `-Rp`, it says
/// nothing of the machine (no kernel line), so a profile prints the same wherever it is read.
pub fn profile_text(out: &mut String, profile: &Profile) {
    let _ = writeln!(out, "\n{HEADING}");
    for (i, ts) in given_timespans(profile).iter().enumerate() {
        timespan_heading(out, profile, i);
        let requested = Driven {
            engine: EngineSetup::plain(profile.engine),
            spin_ns: None,
        };
        engine_text(out, ts, requested, profile.spin);
        placement_text(out, profile, ts);
        workload_text(out, ts, true);
    }
}

/// Where the threads run (`--cpu-set`, `--nice`, `--lock-memory`), how a pool's I/Os choose their target
/// (`--file-service`), when not by DiskSpd's rules, and when the timespan ends early (`--steady-state`).
fn placement_text(out: &mut String, profile: &Profile, ts: &crate::profile::TimeSpan) {
    if !profile.cpu_set.is_empty() {
        line(
            out,
            4,
            format_args!(
                "--cpu-set={}: the threads run unpinned on these CPUs only",
                crate::units::cpu_list(&profile.cpu_set)
            ),
        );
    }
    if let Some(nice) = profile.nice {
        line(
            out,
            4,
            format_args!("--nice={nice}: the threads run at this CPU niceness"),
        );
    }
    if let Some(policy) = &profile.mem_policy {
        line(
            out,
            4,
            format_args!("--mem-policy={policy}: the threads' memory policy (NUMA)"),
        );
    }
    if let Some(bytes) = profile.lock_memory_bytes {
        line(
            out,
            4,
            format_args!(
                "--lock-memory: {} of memory locked away from the machine during the run",
                crate::units::format_size(bytes)
            ),
        );
    }
    if ts.file_service != crate::profile::FileService::Weighted {
        line(
            out,
            4,
            format_args!(
                "--file-service={}: each I/O of the pool goes to its targets {}",
                ts.file_service,
                match ts.file_service {
                    crate::profile::FileService::Sequential =>
                        "one after the other, each until its work is done",
                    _ => "in turn",
                }
            ),
        );
    }
    if let Some(rule) = &ts.steady_state {
        line(
            out,
            4,
            format_args!(
                "--steady-state={rule}: the timespan ends once its {} holds steady over {}s",
                match rule.metric {
                    crate::profile::steady::SteadyMetric::Iops => "IOPS",
                    crate::profile::steady::SteadyMetric::Bandwidth => "bandwidth",
                },
                rule.window_s
            ),
        );
    }
}

/// iospd's own workload options, per target: `--compress`, `--dedupe`, and `--distribution` with
/// `skew`.
fn workload_text(out: &mut String, ts: &crate::profile::TimeSpan, skew: bool) {
    for t in &ts.targets {
        if let Some(compress) = t.compress {
            line(
                out,
                4,
                format_args!(
                    "--compress={compress}: {} (written chunks compress {}:1)",
                    t.path.display(),
                    compress.ratio
                ),
            );
        }
        if let Some(dedupe) = t.dedupe {
            line(
                out,
                4,
                format_args!(
                    "--dedupe={dedupe}: {} (written units deduplicate {}:1{})",
                    t.path.display(),
                    dedupe.ratio,
                    if dedupe.flipflop {
                        "; rewrites of a duplicate alternate its two contents"
                    } else {
                        ""
                    }
                ),
            );
        }
        if t.trim_percent > 0 {
            line(
                out,
                4,
                format_args!(
                    "--trim={}: {} ({}; Trim IO, apart from the total of reads and writes)",
                    t.trim_percent,
                    t.path.display(),
                    "a discard on a device, a punched hole in a file"
                ),
            );
        }
        if let Some(flush) = t.flush_every {
            line(
                out,
                4,
                format_args!(
                    "{flush}: {} (a flush after every {} writes a thread issues to it, covering the writes completed before it; Flush IO)",
                    t.path.display(),
                    flush.writes
                ),
            );
        }
        if let Some(work) = t.work {
            line(
                out,
                4,
                format_args!(
                    "{work}: {} (each thread's I/O to it ends once that much completed in the measured window)",
                    t.path.display()
                ),
            );
        }
        if let Some(split) = &t.block_split {
            line(
                out,
                4,
                format_args!(
                    "--bssplit={split}: {} (each I/O's size drawn by weight; DiskSpd's tables add every size)",
                    t.path.display()
                ),
            );
        }
        if t.o_sync {
            line(
                out,
                4,
                format_args!(
                    "--o-sync: {} (opened O_SYNC: each write durable with its metadata before it completes)",
                    t.path.display()
                ),
            );
        }
        if t.offset_increment > 0 {
            line(
                out,
                4,
                format_args!(
                    "--offset-increment={}: {} (thread k of the target works its own region, k × {} after the first; each as long)",
                    t.offset_increment,
                    t.path.display(),
                    crate::units::format_size(t.offset_increment)
                ),
            );
        }
        if t.backwards {
            line(
                out,
                4,
                format_args!(
                    "--backwards: {} (sequential offsets move down by the stride, from the top)",
                    t.path.display()
                ),
            );
        }
        if let Some(z) = t.zones {
            use crate::units::format_size;
            line(
                out,
                4,
                format_args!(
                    "--zones={z}: {} (each thread moves {} in a {} window, then goes {} on to the next)",
                    t.path.display(),
                    format_size(z.size),
                    format_size(z.range),
                    format_size(z.stride())
                ),
            );
        }
        if let Some(s) = &t.ioprio_split {
            line(
                out,
                4,
                format_args!(
                    "--ioprio-split={s}: {} (those shares of its I/O at their own priorities)",
                    t.path.display()
                ),
            );
        }
        if let Some(m) = &t.max_latency {
            line(
                out,
                4,
                format_args!(
                    "--max-latency={m}: {} (the first measured read or write over it stops the run)",
                    t.path.display()
                ),
            );
        }
        if t.serialize_overlap {
            line(
                out,
                4,
                format_args!(
                    "--serialize-overlap: {} (an I/O overlapping one in flight from its thread waits for it)",
                    t.path.display()
                ),
            );
        }
        if t.nowait {
            line(
                out,
                4,
                format_args!(
                    "--nowait: {} (a read or write that would block fails with EAGAIN)",
                    t.path.display()
                ),
            );
        }
        if t.invalidate {
            line(
                out,
                4,
                format_args!(
                    "--invalidate: {} (its pages dropped from the page cache before the timespan starts)",
                    t.path.display()
                ),
            );
        }
        if t.pre_read {
            line(
                out,
                4,
                format_args!(
                    "--pre-read: {} (its range is read once before the timespan starts)",
                    t.path.display()
                ),
            );
        }
        if t.random_map {
            line(
                out,
                4,
                format_args!(
                    "--random-map: {} (each thread's random offsets visit every aligned block once per pass)",
                    t.path.display()
                ),
            );
        }
        if t.poisson {
            line(
                out,
                4,
                format_args!(
                    "--rate-process=poisson: {} (the -g rate's I/Os due at exponential gaps of its mean)",
                    t.path.display()
                ),
            );
        }
        if let Some(c) = &t.continue_on_error {
            line(
                out,
                4,
                format_args!(
                    "--continue-on-error={}: {} (failed I/Os counted, the run goes on)",
                    c.text(),
                    t.path.display()
                ),
            );
        }
        if let Some(skew) = t.skew.filter(|_| skew) {
            line(
                out,
                4,
                format_args!("--distribution={skew}: {}", t.path.display()),
            );
        }
    }
}

fn heading(out: &mut String, system: &SystemInfo) {
    let _ = write!(out, "\n{HEADING}\n\n");
    line(out, 2, format_args!("kernel: {}", system.kernel));
}

/// `timespan: N` as DiskSpd numbers them; with `--repeat`, which given timespan a run repeats.
fn timespan_heading(out: &mut String, profile: &Profile, index: usize) {
    let _ = writeln!(out, "\n  timespan: {:3}\n  -------------", index + 1);
    let repeat = profile.repeat.max(1) as usize;
    if repeat > 1 {
        let given = given_timespans(profile).len();
        line(
            out,
            4,
            format_args!(
                "--repeat: run {} of {repeat} of timespan {} as given",
                index / given + 1,
                index % given + 1
            ),
        );
    }
}

/// "is this real": each device's counters against what iospd issued, compression on the way,
/// iospd's own cost, the fingerprint, and the findings that cast doubt.
fn reality_text(out: &mut String, r: &crate::report::Reality) {
    use crate::units::format_size;
    line(out, 4, format_args!("is this real:"));
    for d in &r.devices {
        let reached = match &d.reached {
            Some(s) => format!(
                "the device read {} and wrote {} ({} reads, {} writes, {} discards, {} flushes)",
                format_size(s.read_bytes),
                format_size(s.write_bytes),
                s.reads,
                s.writes,
                s.discards,
                s.flushes
            ),
            None => "its counters could not be read".into(),
        };
        line(
            out,
            6,
            format_args!(
                "{} under {}: iospd read {} and wrote {}; {reached}",
                d.device,
                d.paths.join(", "),
                format_size(d.issued_read_bytes),
                format_size(d.issued_write_bytes)
            ),
        );
        for t in &d.time {
            line(
                out,
                8,
                format_args!("{}", device_time_sentence(&d.device, t)),
            );
            if let Some(c) = &t.clock {
                for row in request_times_rows(&d.device, &t.direction, t.bio_based, c) {
                    line(out, 10, format_args!("{row}"));
                }
            }
        }
    }
    if let Some(why) = &r.clock_off {
        line(out, 6, format_args!("device clock: {why}"));
    }
    for c in &r.reduction {
        let data = c.data_ratio.map_or("it is not written".to_string(), |x| {
            format!("the data written compresses {x:.2}:1 (lz4)")
        });
        line(
            out,
            6,
            format_args!("{}: {} compresses; {data}", c.path, c.layer),
        );
    }
    let g = &r.generator;
    let mut cost = format!("iospd: {:.0} ns of CPU per I/O", g.cpu_ns_per_io);
    for x in &g.generation {
        cost += &format!(
            "; data for {}: {:.0} ns a block, {:.1}% of the threads' time",
            x.path, x.ns_per_block, x.percent_of_thread_time
        );
    }
    line(out, 6, format_args!("{cost}"));
    let f = &r.fingerprint;
    let mut path: Vec<String> = f
        .schedulers
        .iter()
        .map(|(d, s)| format!("{d} {s}"))
        .collect();
    path.extend(f.cache_modes.iter().map(|(p, m)| format!("{p} {m}")));
    line(
        out,
        6,
        format_args!(
            "fingerprint {}: {} CPUs, {} NUMA nodes, kernel {}, {}",
            f.id,
            f.cpus,
            f.nodes,
            f.kernel,
            path.join(", ")
        ),
    );
    line(out, 6, format_args!("{}", cpu_sentence(&r.cpu)));
    if r.flags.is_empty() {
        line(
            out,
            6,
            format_args!("nothing found that casts doubt on the result{}", checked(r)),
        );
    }
    for flag in &r.flags {
        line(out, 6, format_args!("WARNING: {flag}"));
    }
}

/// Where one direction's time went on a device, in one sentence.
pub(crate) fn device_time_sentence(device: &str, t: &crate::report::DeviceTime) -> String {
    use crate::units::format_duration;
    let (unit, bio) = match t.bio_based {
        true => ("bio", "; a bio-based device: no requests"),
        false => ("request", ""),
    };
    format!(
        "{device} {}s: the block layer and device took {} a {unit} (from its start, queue included: {} {unit}s, /sys/block stat{bio}), iospd {} an I/O: {} above the block layer",
        t.direction,
        format_duration(t.device_mean_ns),
        t.requests,
        format_duration(t.iospd_mean_ns),
        format_duration(t.stack_mean_ns),
    )
}

/// Where one direction's time went, each request timed: a heading and a row per distribution.
/// The window's slowest I/Os, one a line: how long, when, which thread, what and where.
fn slowest_text(out: &mut String, slowest: &[crate::report::SlowIoReport]) {
    if slowest.is_empty() {
        return;
    }
    line(
        out,
        4,
        format_args!(
            "slowest I/Os of the measured window (device: the request's own time there, when the device clock found it):"
        ),
    );
    line(
        out,
        6,
        format_args!(
            "{:>11}{:>11}{:>11}{:>8}  {:<10}{:>16}{:>9}  target",
            "latency", "device", "at", "thread", "op", "offset", "bytes"
        ),
    );
    for io in slowest {
        line(
            out,
            6,
            format_args!(
                "{:>11}{:>11}{:>10.3}s{:>8}  {:<10}{:>16}{:>9}  {}",
                crate::units::format_duration(io.latency_ns as f64),
                io.device_ns
                    .map_or("-".into(), |ns| crate::units::format_duration(ns as f64)),
                io.completed_s,
                io.thread,
                io.op.name(),
                io.offset,
                io.bytes,
                io.path
            ),
        );
    }
}

/// How the clock timed a direction's requests (a bio-based device's bios), and how many: "each
/// request timed" and "975530 requests", or "a random sample timed" and "61000 of ~975530
/// requests".
pub(crate) fn timed_words(
    c: &crate::report::RequestTimes,
    bio_based: bool,
) -> (&'static str, String) {
    let (each, unit) = match bio_based {
        true => ("each bio timed", "bios"),
        false => ("each request timed", "requests"),
    };
    match c.timed > 0 && c.timed < c.requests {
        true => (
            "a random sample timed",
            format!("{} of ~{} {unit}", c.timed, c.requests),
        ),
        false => (each, format!("{} {unit}", c.requests)),
    }
}

pub(crate) fn request_times_rows(
    device: &str,
    direction: &str,
    bio_based: bool,
    c: &crate::report::RequestTimes,
) -> Vec<String> {
    use crate::units::format_duration;
    let row = |name: &str, s: &crate::report::Spread| {
        let cells: String = [s.mean_ns, s.p50_ns, s.p99_ns, s.p99_9_ns, s.max_ns]
            .iter()
            .map(|&ns| format!("{:>11}", format_duration(ns)))
            .collect();
        format!("{name:<22}{cells}")
    };
    let of = match c.completed {
        Some(n) if n > c.requests => format!(" of the {n} the device completed"),
        _ => String::new(),
    };
    let mut rows = vec![
        format!(
            "{device} {direction}s, {} in the kernel ({}{of}):",
            timed_words(c, bio_based).0,
            timed_words(c, bio_based).1
        ),
        format!(
            "{:<22}{:>11}{:>11}{:>11}{:>11}{:>11}",
            "", "mean", "p50", "p99", "p99.9", "max"
        ),
        row("on the device", &c.device),
        row("iospd's latency", &c.iospd),
        row("above the device", &c.stack),
    ];
    if let Some(q) = &c.queued {
        rows.push(row("queued before issue", q));
    }
    rows
}

/// Whether iospd's threads had the CPUs, in one sentence.
pub(crate) fn cpu_sentence(c: &crate::report::CpuCheck) -> String {
    let waited = c.waited.iter().map(|w| w.waited_percent);
    let wait = match (waited.clone().reduce(f64::min), waited.reduce(f64::max)) {
        (Some(lo), Some(hi)) => {
            format!("iospd's threads waited for a CPU {lo:.1}%-{hi:.1}% of the window")
        }
        _ => "the kernel keeps no scheduler statistics of iospd's threads".to_string(),
    };
    format!(
        "CPUs: {wait}; other work used {:.1}% of the CPUs' time; steal {:.1}%",
        c.others_percent, c.steal_percent
    )
}

/// " (checked: …)" when the run lists its checks.
pub(crate) fn checked(r: &crate::report::Reality) -> String {
    if r.checked.is_empty() {
        String::new()
    } else {
        format!(" (checked: {})", r.checked.join(", "))
    }
}

/// `--distribution`: the hot sets' share of the measured I/O against the closed form.
fn skew_text(out: &mut String, s: &SkewReport) {
    line(
        out,
        4,
        format_args!(
            "--distribution={} on {}: {} I/Os over {} positions",
            s.distribution, s.path, s.ios, s.positions
        ),
    );
    for h in &s.hot_sets {
        line(
            out,
            6,
            format_args!(
                "hottest {:>2}% ({} positions): {:6.2}% of the I/O (closed form {:6.2}%)",
                h.percent_of_positions, h.positions, h.measured_percent, h.expected_percent
            ),
        );
    }
}

/// `--bssplit`: a row per size and direction that did I/O, as DiskSpd's tables show a thread's.
fn sizes_text(out: &mut String, b: &crate::report::BlockSizeReport) {
    line(
        out,
        4,
        format_args!("--bssplit on {}, by block size:", b.path),
    );
    line(
        out,
        6,
        "   size | dir   |     I/Os |  I/O per s |    MiB/s |  AvgLat | LatStdDev |  MaxLat",
    );
    let ms = |ns: f64| ns / 1e6;
    for row in &b.sizes {
        for (dir, o) in [("read", &row.read), ("write", &row.write)] {
            if o.ios == 0 {
                continue;
            }
            line(
                out,
                6,
                format_args!(
                    "{:>7} | {dir:<5} | {:>8} | {:>10.2} | {:>8.2} | {:>7.3} | {:>9.3} | {:>7.3}",
                    crate::units::format_size(row.size_bytes),
                    o.ios,
                    o.ios_per_s,
                    o.bytes_per_s / 1_048_576.0,
                    ms(o.mean_ns),
                    ms(o.stddev_ns),
                    ms(o.max_ns as f64),
                ),
            );
        }
    }
}

/// `--dedupe`: the plan, and the exact ratio of what the timespan's writes left.
fn dedupe_text(out: &mut String, d: &DedupeReport) {
    line(
        out,
        4,
        format_args!(
            "--dedupe={} on {}: {} units of {} planned as {} unique + {} shared contents: {:.4}:1",
            d.dedupe,
            d.path,
            d.units,
            crate::units::format_size(d.dedupe.unit),
            d.unique_units,
            d.sets,
            d.planned_ratio
        ),
    );
    let whole = match (d.filled, d.written_units == d.units) {
        (true, _) => " (every unit: -c filled them first)",
        (false, true) => " (every unit)",
        (false, false) => "",
    };
    line(
        out,
        6,
        format_args!(
            "written: {} units{whole}, {} distinct contents: {:.4}:1 exactly",
            d.written_units, d.distinct_contents, d.written_ratio
        ),
    );
}

/// What a measured timespan adds: achieved depth, generator warnings, the open-loop chart, time
/// statistics, steady state.
fn measured_text(out: &mut String, profile: &Profile, latency: bool, m: &Measured) {
    line(
        out,
        4,
        format_args!(
            "queue depth: {:.2} achieved of {} (time-weighted I/Os in flight)",
            m.achieved_depth, m.depth
        ),
    );
    for s in &m.skews {
        skew_text(out, s);
    }
    for b in &m.block_sizes {
        sizes_text(out, b);
    }
    for p in &m.priorities {
        super::priorities::priorities_text(out, p);
    }
    if let Some(r) = &m.reality {
        reality_text(out, r);
    }
    slowest_text(out, &m.slowest);
    for t in m.threads.iter().filter(|t| t.generator_limited()) {
        line(
            out,
            4,
            format_args!(
                "WARNING: thread {} was busy on a CPU {:.0}% of the measured time (not counting polling): iospd itself, not the device, may be the limit; add threads (-t) and compare",
                t.thread,
                t.on_cpu_percent - t.spin_percent
            ),
        );
    }
    if latency && m.totals.total.latency_from_intended.is_some() {
        out.push_str(
            "\nLatency from intended start (-g pacing: includes time an I/O waited to be issued):\n",
        );
        results::latency_chart_of(out, &m.totals, |dir| dir.latency_from_intended.as_ref());
    }
    if profile.verbose_stats {
        extra::time_text(out, &m.threads);
    }
    if let Some(s) = &m.steady_state {
        out.push('\n');
        super::repetitions::steady_line(out, "-D intervals", s);
    }
}
