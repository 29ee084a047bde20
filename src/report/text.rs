//! The text report, laid out like DiskSpd 2.3 so that people and parsers that read DiskSpd's output
//! read this one: the same sections, blank lines, column widths and units.

use std::fmt::Write as _;

use super::{Direction, Directions, Latency, Measured, Report, TEXT_ROWS, ThreadReport, Totals};
use crate::counters::Counter;
use crate::engine::{EngineKind, EngineSetup, Op};
use crate::plan::cpu_list;
use crate::profile::{
    Access, Affinity, Batch, BufferSeparation, CacheMode, DistributionKind, Efficiency, FlushMode,
    IoPriority, Profile, Spin, Target, Throughput, TimeSpan, WriteBuffer,
};
use crate::stats::cpu::CpuUsage;
use crate::system::{CacheKind, SystemInfo};
use crate::units::format_size;

const STARS: &str =
    "*******************************************************************************";
const NS_PER_MS: f64 = 1_000_000.0;
const MIB: f64 = 1024.0 * 1024.0;

/// The whole report: profile, system information, results, and totals over timespans.
pub fn render(report: &Report) -> String {
    let ran: Vec<Driven> = report
        .timespans
        .iter()
        .map(|t| Driven {
            engine: t.engine,
            spin_ns: Some(t.spin_ns),
        })
        .collect();
    let mut out = profile_text(&report.profile, &ran);
    let start = report
        .timespans
        .first()
        .map_or("", |t| t.start_time_utc.as_str());
    out.push_str(&system_text(&report.system, start));
    for (i, ts) in report.timespans.iter().enumerate() {
        let _ = write!(out, "\nResults for timespan {}:\n{STARS}\n", i + 1);
        match &ts.measured {
            None => out.push_str("The test was interrupted before the measurements began. No results are displayed.\n"),
            Some(m) => results_text(&mut out, &report.profile, &report.profile.timespans[i], m, &report.system),
        }
    }
    if let Some(totals) = &report.totals {
        totals_text(&mut out, totals);
    }
    if report.partial {
        out.push_str(PARTIAL);
    }
    out
}

/// The last line of a `--checkpoint` report.
pub const PARTIAL: &str = "\nPartial results: a --checkpoint written while the run went on; the numbers cover the measured window up to it.\n";

/// How a timespan's I/O was driven: the engine that ran and the spin budget the threads used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Driven {
    /// The engine.
    pub engine: EngineSetup,
    /// The completion polling budget; `None` shows the requested policy.
    pub spin_ns: Option<u64>,
}

/// `Command Line` and `Input parameters` (what `-Rp` prints). `ran` describes each timespan that
/// ran; when it is empty, the requested engine and wait policy are shown.
pub fn profile_text(profile: &Profile, ran: &[Driven]) -> String {
    let mut out = String::new();
    let _ = write!(out, "\nCommand Line: {}\n\n", profile.command_line);
    if profile.experiment_flags != 0 {
        let _ = write!(
            out,
            "Experiment Flags: 0x{:x} ({})\n\n",
            profile.experiment_flags, profile.experiment_flags
        );
    }
    out.push_str("Input parameters:\n\n");
    if profile.verbose {
        out.push_str("  using verbose mode\n");
    }
    for (i, ts) in profile.timespans.iter().enumerate() {
        let driven = ran.get(i).copied().unwrap_or(Driven {
            engine: EngineSetup::plain(profile.engine),
            spin_ns: None,
        });
        let _ = writeln!(out, "  timespan: {:3}\n  -------------", i + 1);
        timespan_text(&mut out, ts, driven, profile.spin);
        out.push('\n');
    }
    out
}

fn line(out: &mut String, indent: usize, text: impl std::fmt::Display) {
    let _ = writeln!(out, "{:indent$}{text}", "");
}

fn timespan_text(out: &mut String, ts: &TimeSpan, driven: Driven, spin: Spin) {
    line(out, 4, format_args!("duration: {}s", ts.duration_s));
    line(out, 4, format_args!("warm up time: {}s", ts.warmup_s));
    line(out, 4, format_args!("cool down time: {}s", ts.cooldown_s));
    if ts.affinity == Affinity::Disabled {
        line(out, 4, "affinity disabled");
    }
    if ts.measure_latency {
        line(out, 4, "measuring latency");
    }
    if let Some(ms) = ts.iops_interval_ms {
        line(
            out,
            4,
            format_args!("gathering IOPS at intervals of {ms}ms"),
        );
    }
    line(out, 4, format_args!("random seed: {}", ts.seed));
    if let Some(threads) = ts.thread_count {
        line(out, 4, format_args!("thread pool with {threads} threads"));
        if let Some(requests) = ts.request_count {
            line(
                out,
                4,
                format_args!("number of outstanding I/O operations per thread: {requests}"),
            );
        }
    }
    if ts.random_write_data {
        line(out, 4, "generating random data for each write IO");
        line(
            out,
            6,
            "WARNING: this increases the CPU cost of issuing writes and should only",
        );
        line(out, 15, "be compared to other results using the -Zr flag");
    }
    let engine = driven.engine;
    match engine.kind {
        EngineKind::IoUring => {
            let batch = ts.io_ring.map(|r| match r.batch {
                Batch::Count(n) => format!(" (batch size: {n})"),
                Batch::Percent(p) => format!(" (batch size: {p}%)"),
            });
            let registered = if engine.registered_buffers
                || (driven.spin_ns.is_none() && ts.io_ring.is_none_or(|r| r.registered_buffers))
            {
                " with registered buffers"
            } else {
                ""
            };
            line(
                out,
                4,
                format_args!("using io_uring{}{registered}", batch.unwrap_or_default()),
            );
        }
        EngineKind::Psync => line(out, 4, "using synchronous I/O (pread/pwrite)"),
        EngineKind::Null => line(out, 4, "using the null engine (no I/O is performed)"),
        EngineKind::Mapped => line(out, 4, "using memory-mapped I/O (mmap and memcpy)"),
    }
    match (driven.spin_ns, spin) {
        (Some(0), _) | (None, Spin::Micros(0)) => line(out, 4, "completion wait: sleep"),
        (Some(ns), _) => line(
            out,
            4,
            format_args!("completion wait: poll up to {}us, then sleep", ns / 1000),
        ),
        (None, Spin::Micros(us)) => line(
            out,
            4,
            format_args!("completion wait: poll up to {us}us, then sleep"),
        ),
        (None, Spin::Auto) => line(
            out,
            4,
            format_args!(
                "completion wait: poll up to {}us with 2+ CPUs per thread, else sleep",
                Spin::AUTO_US
            ),
        ),
    }
    if let Affinity::Pinned { cpus, order } = &ts.affinity {
        let efficiency = match order.efficiency {
            Efficiency::PFirst => "P-cores first",
            Efficiency::FillPFirst => "fill P-cores first",
            Efficiency::EFirst => "E-cores first",
            Efficiency::FillEFirst => "fill E-cores first",
            Efficiency::Unordered => "no P/E order",
        };
        line(
            out,
            4,
            format_args!(
                "affinity assignment: {}, {}, {efficiency}",
                if order.core_aware {
                    "core-aware"
                } else {
                    "cpu order"
                },
                if order.span_groups {
                    "span groups"
                } else {
                    "fill groups"
                }
            ),
        );
        if !cpus.is_empty() {
            line(out, 4, format_args!("affinity (cpu): {}", cpu_list(cpus)));
        }
    }
    match ts.buffer_separation {
        Some(BufferSeparation::ThreadOptimized) => {
            line(out, 4, "buffer separation: thread optimized")
        }
        Some(BufferSeparation::SystemDefault) => line(out, 4, "buffer separation: system default"),
        None => {}
    }
    if let Some(depth) = ts.completion_depth {
        line(out, 4, format_args!("completion depth: {depth}"));
    }
    for target in &ts.targets {
        target_text(out, target, ts);
    }
}

fn target_text(out: &mut String, t: &Target, ts: &TimeSpan) {
    line(out, 4, format_args!("path: '{}'", t.path.display()));
    let (think, burst) = t.burst.map_or((0, 0), |b| (b.think_ms, b.size));
    line(out, 6, format_args!("think time: {think}ms"));
    line(out, 6, format_args!("burst size: {burst}"));
    line(
        out,
        6,
        match t.cache {
            CacheMode::Cached => "using software cache",
            CacheMode::DisableOsCache => "software cache disabled",
        },
    );
    line(
        out,
        6,
        match (t.write_through, t.cache) {
            (false, _) => "using hardware write cache, writethrough off",
            (true, CacheMode::DisableOsCache) => "hardware write cache disabled, writethrough on",
            (true, CacheMode::Cached) => {
                "hardware and software write caches disabled, writethrough on"
            }
        },
    );
    if t.memory_mapped {
        let flush = match t.flush {
            None => "",
            Some(FlushMode::ViewOfFile) => ", flush mode: FlushViewOfFile",
            Some(FlushMode::NonVolatileMemory) => ", flush mode: FlushNonVolatileMemory",
            Some(FlushMode::NonVolatileMemoryNoDrain) => {
                ", flush mode: FlushNonVolatileMemory with no drain"
            }
        };
        line(out, 6, format_args!("memory mapped I/O enabled{flush}"));
    }
    match &t.write_buffer {
        WriteBuffer::Pattern => {}
        WriteBuffer::Zero => line(out, 6, "zeroing write buffers"),
        WriteBuffer::Source { size, file } => {
            line(
                out,
                6,
                format_args!("write buffer size: {}", format_size(*size)),
            );
            match file {
                None => line(out, 6, "write buffer source: random fill"),
                Some(path) => line(
                    out,
                    6,
                    format_args!("write buffer source: '{}'", path.display()),
                ),
            }
        }
    }
    if matches!(t.access, Access::Sequential { parallel: true, .. }) {
        line(out, 6, "using parallel async I/O");
    }
    match t.write_ratio {
        0 => line(out, 6, "performing read test"),
        100 => line(out, 6, "performing write test"),
        w => line(
            out,
            6,
            format_args!("performing mix test (read/write ratio: {}/{w})", 100 - w),
        ),
    }
    line(
        out,
        6,
        format_args!("block size: {}", format_size(t.block_size)),
    );
    match t.access {
        Access::Random { align, ratio: 100 } => line(
            out,
            6,
            format_args!("using random I/O (alignment: {})", format_size(align)),
        ),
        Access::Random { align, ratio } => line(
            out,
            6,
            format_args!(
                "using mixed random/sequential I/O ({ratio}% random) (alignment/stride: {})",
                format_size(align)
            ),
        ),
        Access::Sequential {
            stride,
            interlocked: true,
            ..
        } => line(
            out,
            6,
            format_args!(
                "using interlocked sequential I/O (stride: {})",
                format_size(stride)
            ),
        ),
        Access::Sequential { stride, .. } => line(
            out,
            6,
            format_args!("using sequential I/O (stride: {})", format_size(stride)),
        ),
    }
    if ts.request_count.is_some() && ts.thread_count.is_some() {
        line(
            out,
            6,
            format_args!("relative IO weight in thread pool: {}", t.weight),
        );
    } else {
        line(
            out,
            6,
            format_args!(
                "number of outstanding I/O operations per thread: {}",
                t.requests
            ),
        );
    }
    if t.base_offset != 0 {
        line(
            out,
            6,
            format_args!("base file offset: {}", format_size(t.base_offset)),
        );
    }
    if let Some(max) = t.max_size {
        line(out, 6, format_args!("max file size: {}", format_size(max)));
    }
    if t.thread_stride != 0 {
        line(
            out,
            6,
            format_args!("thread stride size: {}", format_size(t.thread_stride)),
        );
    }
    if t.hints.sequential_scan {
        line(out, 6, "using FILE_FLAG_SEQUENTIAL_SCAN hint");
    }
    if t.hints.random_access {
        line(out, 6, "using FILE_FLAG_RANDOM_ACCESS hint");
    }
    if t.hints.temporary {
        line(out, 6, "using FILE_ATTRIBUTE_TEMPORARY hint");
    }
    if ts.thread_count.is_none() {
        line(
            out,
            6,
            format_args!("threads per file: {}", t.threads_per_target),
        );
    }
    line(
        out,
        6,
        match t.io_priority {
            IoPriority::VeryLow => "IO priority: very low",
            IoPriority::Low => "IO priority: low",
            IoPriority::Normal => "IO priority: normal",
        },
    );
    match t.throughput {
        None => {}
        Some(Throughput::Iops(iops)) => line(
            out,
            6,
            format_args!("throughput rate-limited to {iops} IOPS"),
        ),
        Some(Throughput::BytesPerMs(rate)) => line(
            out,
            6,
            format_args!("throughput rate-limited to {rate} B/ms"),
        ),
    }
    if let Some(d) = &t.distribution {
        line(out, 6, "IO Distribution:");
        let mut start = 0u64;
        for (i, r) in d.ranges.iter().enumerate() {
            let text = match d.kind {
                DistributionKind::Percent => {
                    format!(
                        "{:>3}% of IO => [{:>2}% - {:>3}%) of target",
                        r.io_percent,
                        start,
                        start + r.span
                    )
                }
                DistributionKind::Absolute => {
                    let end = if r.span == 0 && i + 1 == d.ranges.len() {
                        "end".to_string()
                    } else {
                        size_or_zero(start + r.span)
                    };
                    format!(
                        "{:>3}% of IO => [{:>9} -{:>10})",
                        r.io_percent,
                        size_or_zero(start),
                        end
                    )
                }
            };
            line(out, 9, text);
            start += r.span;
        }
    }
}

/// DiskSpd prints a zero offset as a bare `0` padded as if it had a unit (`0   `).
fn size_or_zero(bytes: u64) -> String {
    if bytes == 0 {
        "0   ".to_string()
    } else {
        format_size(bytes)
    }
}

/// The `System information` block.
pub fn system_text(system: &SystemInfo, start: &str) -> String {
    let mut out = String::from("System information:\n\n");
    let mut field = |label: &str, value: &str| {
        let _ = writeln!(out, "  {:<22}{value}", format!("{label}:"));
    };
    field("computer name", &system.computer_name);
    field("processor name", &system.processor_name);
    field("start time", start);
    field("active power scheme", &system.power_scheme);
    field("page size", &format_size(system.page_size));
    field("kernel", &system.kernel);
    out.push('\n');
    let mut field = |label: &str, value: String| {
        let _ = writeln!(out, "  {:<22}{value}", format!("{label}:"));
    };
    field("cpu count", system.cpus.len().to_string());
    field("core count", system.core_count().to_string());
    field("group count", "1".into());
    field("node count", system.node_count().to_string());
    field("socket count", system.socket_count().to_string());
    field(
        "heterogeneous cores",
        if system.heterogeneous() { "y" } else { "n" }.into(),
    );
    if !system.caches.is_empty() {
        out.push_str("\n  cache information:\n\n");
        out.push_str("    Cache |   Size   | Line  | Assoc  | CPU\n");
        out.push_str("    -------------------------------------------------------\n");
        for cache in &system.caches {
            let name = match cache.kind {
                CacheKind::Data => format!("L{}d", cache.level),
                CacheKind::Instruction => format!("L{}i", cache.level),
                CacheKind::Unified => format!("L{}", cache.level),
            };
            let _ = writeln!(
                out,
                "    {name:<6}| {:>8} | {:>5} | {:>6} | {}",
                format_size(cache.size),
                format_size(cache.line as u64),
                format!("{}-way", cache.ways),
                cache.cpus
            );
        }
    }
    out
}

fn results_text(
    out: &mut String,
    profile: &Profile,
    ts: &TimeSpan,
    m: &Measured,
    system: &SystemInfo,
) {
    let _ = write!(
        out,
        "\nactual test time:\t{:.2}s\nthread count:\t\t{}\n",
        m.duration_s, m.thread_count
    );
    if let (Some(_), Some(requests)) = (ts.thread_count, ts.request_count) {
        let _ = writeln!(out, "request count:\t\t{requests}");
    }
    let _ = writeln!(
        out,
        "queue depth:\t\t{:.2} achieved of {} (time-weighted I/Os in flight)",
        m.achieved_depth, m.depth
    );
    for t in m.threads.iter().filter(|t| t.generator_limited()) {
        let _ = writeln!(
            out,
            "WARNING: thread {} was busy on a CPU {:.0}% of the measured time (not counting polling): iospd itself, not the device, may be the limit; add threads (-t) and compare",
            t.thread,
            t.on_cpu_percent - t.spin_percent
        );
    }
    out.push('\n');
    if !m.effective_affinity.is_empty() {
        let _ = write!(
            out,
            "effective affinity (cpu): {}\n\n",
            cpu_list(&m.effective_affinity)
        );
    }
    cpu_table(out, &m.cpu, &m.cpu_average, system);
    if !m.distributions.is_empty() {
        distributions_text(out, ts, m);
    }
    let latency = ts.measure_latency;
    let iops_stddev = ts.iops_interval_ms.is_some();
    for (title, op) in [
        ("Total IO", None),
        ("Read IO", Some(Op::Read)),
        ("Write IO", Some(Op::Write)),
    ] {
        let _ = writeln!(out, "\n{title}");
        section_table(out, m, op, latency, iops_stddev);
    }
    if latency {
        out.push_str("\n\n");
        if m.targets.len() > 1 {
            for target in &m.targets {
                let _ = writeln!(out, "Latency distribution: {}", target.path);
                latency_chart(out, &target.directions);
                out.push('\n');
            }
        }
        out.push_str("Total latency distribution:\n");
        latency_chart(out, &m.totals);
        if m.totals.total.latency_from_intended.is_some() {
            out.push_str(
                "\nTotal latency distribution from intended start (-g pacing: includes time an I/O waited to be issued):\n",
            );
            latency_chart_of(out, &m.totals, |dir| dir.latency_from_intended.as_ref());
        }
    }
    if profile.counters.any() {
        counters_text(out, &m.counters);
    }
    if profile.verbose_stats {
        wait_text(out, &m.threads);
        time_text(out, &m.threads);
    }
    if ts.io_ring.is_some() {
        submits_text(out, m);
    }
}

fn cpu_table(out: &mut String, cpus: &[CpuUsage], average: &CpuUsage, system: &SystemInfo) {
    let columns: [(bool, &str, usize); 4] = [
        (system.socket_count() > 1, "Socket | ", 9),
        (system.node_count() > 1, "Node | ", 7),
        (system.smt(), "Core | ", 7),
        (system.heterogeneous(), "Class | ", 8),
    ];
    let mut header = String::new();
    let mut dashes = 40;
    for (shown, name, width) in columns {
        if shown {
            header.push_str(name);
            dashes += width;
        }
    }
    let rule = "-".repeat(dashes);
    let _ = writeln!(
        out,
        "{header}CPU |  Usage |  User  | Kernel |  Idle\n{rule}"
    );
    let percents = |c: &CpuUsage| {
        format!(
            "| {:6.2}%| {:6.2}%| {:6.2}%| {:6.2}%",
            c.usage, c.user, c.kernel, c.idle
        )
    };
    for usage in cpus {
        let mut prefix = String::new();
        if let Some(topo) = system.cpus.iter().find(|t| t.cpu == usage.cpu) {
            let class = if topo.efficiency_class > 0 { 'P' } else { ' ' };
            let values = [
                (columns[0].0, format!("{:7}| ", topo.socket)),
                (columns[1].0, format!("{:5}| ", topo.node)),
                (columns[2].0, format!("{:5}| ", topo.core)),
                (
                    columns[3].0,
                    format!("{:5}{class}| ", topo.efficiency_class),
                ),
            ];
            for (shown, value) in values {
                if shown {
                    prefix.push_str(&value);
                }
            }
        }
        let _ = writeln!(out, "{prefix}{:4}{}", usage.cpu, percents(usage));
    }
    let pad = " ".repeat(dashes - 40);
    let _ = writeln!(out, "{rule}\n{pad}avg.{}", percents(average));
}

fn distributions_text(out: &mut String, ts: &TimeSpan, m: &Measured) {
    out.push_str("\nEffective IO Distributions\n--------------------------\n");
    for d in &m.distributions {
        let threads = match (d.threads.first(), d.threads.last()) {
            (Some(a), Some(b)) if a != b => format!("{a} - {b}"),
            (Some(a), _) => a.to_string(),
            _ => String::new(),
        };
        let _ = writeln!(out, "target: {} [thread: {threads}]", d.path);
        let base = ts
            .targets
            .iter()
            .find(|t| t.path.display().to_string() == d.path)
            .map_or(0, |t| t.base_offset);
        for r in &d.ranges {
            let io = if r.io_percent.fract() == 0.0 {
                format!("{:>3}%", r.io_percent)
            } else {
                format!("{:>5.1}%", r.io_percent)
            };
            let _ = writeln!(
                out,
                "    {io} of IO => [{:>9} -{:>10})",
                size_or_zero(base + r.start),
                format_size(base + r.start + r.length)
            );
        }
    }
}

fn section_table(out: &mut String, m: &Measured, op: Option<Op>, latency: bool, iops_stddev: bool) {
    let _ = writeln!(
        out,
        "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s {}{}{}|  file",
        if latency { "|  AvgLat  " } else { "" },
        if iops_stddev { "| IopsStdDev " } else { "" },
        if latency { "| LatStdDev " } else { "" },
    );
    let rule =
        "-".repeat(66 + 12 + if latency { 23 } else { 0 } + if iops_stddev { 13 } else { 0 });
    let columns = |d: &Direction| {
        let mut s = format!(
            "{:15} | {:12} | {:10.2} | {:10.2}",
            d.bytes,
            d.ios,
            d.bytes_per_s / MIB,
            d.ios_per_s
        );
        if latency {
            let mean = d.latency.as_ref().map_or(0.0, |l| l.mean_ns / NS_PER_MS);
            let _ = write!(s, " | {mean:8.3}");
        }
        if iops_stddev {
            let _ = write!(s, " | {:10.2}", d.ios_per_s_stddev.unwrap_or(0.0));
        }
        if latency {
            match &d.latency {
                Some(l) => {
                    let _ = write!(s, " |  {:8.3}", l.stddev_ns / NS_PER_MS);
                }
                None => s.push_str(" |       N/A"),
            }
        }
        s
    };
    let _ = writeln!(out, "{rule}");
    for thread in &m.threads {
        for target in &thread.targets {
            let _ = writeln!(
                out,
                "{:6} | {} | {} ({})",
                thread.thread,
                columns(target.directions.get(op)),
                target.path,
                format_size(target.size_bytes)
            );
        }
    }
    let _ = writeln!(out, "{rule}\ntotal:   {}", columns(m.totals.get(op)));
}

fn latency_chart(out: &mut String, d: &Directions) {
    latency_chart_of(out, d, |dir| dir.latency.as_ref());
}

/// The percentile table of the latency `pick` chooses (from submission, or from intended start).
fn latency_chart_of(out: &mut String, d: &Directions, pick: fn(&Direction) -> Option<&Latency>) {
    out.push_str("  %-ile |  Read (ms) | Write (ms) | Total (ms)\n");
    out.push_str("----------------------------------------------\n");
    let cell = |dir: &Direction, p: f64| {
        pick(dir).map_or_else(
            || "N/A".to_string(),
            |l| format!("{:.3}", l.at(p) as f64 / NS_PER_MS),
        )
    };
    for (label, p) in TEXT_ROWS {
        let total = pick(&d.total).map_or(0.0, |l| l.at(p) as f64 / NS_PER_MS);
        let _ = writeln!(
            out,
            "{label:>7} | {:>10} | {:>10} | {total:10.3}",
            cell(&d.read, p),
            cell(&d.write, p)
        );
    }
}

/// DiskSpd's ETW block, with the Linux counters that stand in for its event groups.
fn counters_text(out: &mut String, counters: &[Counter]) {
    out.push_str("\n\n\nETW:\n----\n\n");
    let value = |key: &str| counters.iter().find(|c| c.key == key).map(|c| c.value);
    let groups: [(&str, &[(&str, &str)]); 4] = [
        (
            "Disk I/O",
            &[("Read", "disk.reads"), ("Write", "disk.writes")],
        ),
        (
            "Memory Page Faults",
            &[
                ("All page faults", "memory.page_faults"),
                ("Hard page fault", "memory.major_faults"),
            ],
        ),
        (
            "Network",
            &[
                ("TCP/IP Send", "net.tcp_sent"),
                ("TCP/IP Receive", "net.tcp_received"),
                ("Retransmit", "net.tcp_retransmitted"),
                ("UDP/IP Send", "net.udp_sent"),
                ("UDP/IP Receive", "net.udp_received"),
            ],
        ),
        ("Process and Thread", &[("Tasks created", "tasks.created")]),
    ];
    for (group, fields) in groups {
        let present: Vec<(&str, u64)> = fields
            .iter()
            .filter_map(|(name, key)| value(key).map(|v| (*name, v)))
            .collect();
        if present.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\t{group}");
        for (name, v) in present {
            let _ = writeln!(out, "\t\t{name}: {v}");
        }
    }
}

fn histogram_cells(h: &[u64; 8]) -> String {
    h.iter()
        .map(|n| format!("{n:>8}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn time_text(out: &mut String, threads: &[ThreadReport]) {
    out.push_str("\n\nTime Statistics\n");
    out.push_str(
        "thread | on CPU % | spinning % | in engine % | in loop % | depth | achieved depth\n",
    );
    let _ = writeln!(out, "{}", "-".repeat(83));
    for t in threads {
        let _ = writeln!(
            out,
            "{:6} | {:8.1} | {:10.1} | {:11.1} | {:9.1} | {:5} | {:14.2}",
            t.thread,
            t.on_cpu_percent,
            t.spin_percent,
            t.in_engine_percent,
            t.in_loop_percent,
            t.depth,
            t.achieved_depth
        );
    }
}

fn wait_text(out: &mut String, threads: &[ThreadReport]) {
    let throttled = threads
        .iter()
        .any(|t| t.waits.throttle_waits + t.waits.throttle_sleeps > 0);
    out.push_str("\n\nWait Statistics - Completion Wait\n");
    let _ = writeln!(
        out,
        "thread |         wait | 0 - 7+ complete per wait{}",
        if throttled {
            " | throttle wait | throttle sleep"
        } else {
            ""
        }
    );
    let rule_len = 104 + if throttled { 32 } else { 0 };
    let _ = writeln!(out, "{}", "-".repeat(rule_len));
    for t in threads {
        let w = &t.waits;
        let _ = write!(
            out,
            "{:6} | {:12} | {}",
            t.thread,
            w.waits,
            histogram_cells(&w.completions_per_wait)
        );
        if throttled {
            let _ = write!(out, " | {:13} | {:14}", w.throttle_waits, w.throttle_sleeps);
        }
        out.push('\n');
    }
    if threads.iter().any(|t| t.waits.lookasides > 0) {
        out.push_str("\nWait Statistics - Lookaside\n");
        out.push_str("thread |    lookaside | 0 - 7+ complete per lookaside\n");
        let _ = writeln!(out, "{}", "-".repeat(104));
        for t in threads {
            let _ = writeln!(
                out,
                "{:6} | {:12} | {}",
                t.thread,
                t.waits.lookasides,
                histogram_cells(&t.waits.completions_per_lookaside)
            );
        }
    }
}

fn submits_text(out: &mut String, m: &Measured) {
    out.push_str("\n\nIoRing Statistics\nthread |  Submits/s \n--------------------\n");
    for t in &m.threads {
        let _ = writeln!(out, "{:6} | {:11.2}", t.thread, t.submits_per_s);
    }
    let _ = writeln!(
        out,
        "--------------------\ntotal: | {:11.2}",
        m.submits_per_s
    );
}

fn totals_text(out: &mut String, totals: &Totals) {
    let _ = write!(out, "\n\nTotals:\n{STARS}\n\n");
    out.push_str("type   |       bytes     |     I/Os     |    MiB/s   |  I/O per s\n");
    let rule = "-".repeat(79);
    let _ = writeln!(out, "{rule}");
    for (name, sum) in [("write", &totals.write), ("read", &totals.read)] {
        let _ = writeln!(
            out,
            "{name:<6} | {:15} | {:12} | {:10.2} | {:10.2}",
            sum.bytes,
            sum.ios,
            sum.bytes_per_s / MIB,
            sum.ios_per_s
        );
    }
    let _ = writeln!(out, "{rule}");
    let t = &totals.total;
    let _ = writeln!(
        out,
        "total  | {:15} | {:12} | {:10.2} | {:10.2}",
        t.bytes,
        t.ios,
        t.bytes_per_s / MIB,
        t.ios_per_s
    );
    let _ = write!(out, "\ntotal test time:\t{:.2}s\n", totals.duration_s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Distribution, DistributionRange};

    fn distribution_lines(kind: DistributionKind, ranges: &[(u32, u64)]) -> String {
        let mut target = Target::new("".into());
        target.access = Access::Random {
            align: 65536,
            ratio: 100,
        };
        target.distribution = Some(Distribution {
            kind,
            ranges: ranges
                .iter()
                .map(|&(io_percent, span)| DistributionRange { io_percent, span })
                .collect(),
        });
        let mut out = String::new();
        target_text(&mut out, &target, &TimeSpan::new());
        out[out.find("      IO Distribution:").unwrap()..].to_string()
    }

    #[test]
    fn distributions_print_as_diskspd_2_3() {
        // The expected lines are DiskSpd 2.3's own unit-test output.
        assert_eq!(
            distribution_lines(
                DistributionKind::Percent,
                &[(10, 10), (10, 10), (0, 10), (80, 70)]
            ),
            "      IO Distribution:\n          10% of IO => [ 0% -  10%) of target\n          10% of IO => [10% -  20%) of target\n           0% of IO => [20% -  30%) of target\n          80% of IO => [30% - 100%) of target\n"
        );
        let gib = 1 << 30;
        assert_eq!(
            distribution_lines(
                DistributionKind::Absolute,
                &[(10, gib), (10, gib), (0, 100 * gib), (80, 0)]
            ),
            "      IO Distribution:\n          10% of IO => [     0    -      1GiB)\n          10% of IO => [     1GiB -      2GiB)\n           0% of IO => [     2GiB -    102GiB)\n          80% of IO => [   102GiB -       end)\n"
        );
    }

    #[test]
    fn target_lines_match_diskspd_2_3() {
        // DiskSpd 2.3's Test_PrintTarget, for the settings Linux shares.
        let mut target = Target::new("".into());
        target.thread_stride = 100 * 1024;
        target.max_size = Some(2000 * 1024);
        let ts = TimeSpan {
            thread_count: Some(1),
            ..TimeSpan::new()
        };
        let mut out = String::new();
        target_text(&mut out, &target, &ts);
        assert_eq!(
            out,
            "    path: ''\n      think time: 0ms\n      burst size: 0\n      using software cache\n      using hardware write cache, writethrough off\n      performing read test\n      block size: 64KiB\n      using sequential I/O (stride: 64KiB)\n      number of outstanding I/O operations per thread: 2\n      max file size: 1.95MiB\n      thread stride size: 100KiB\n      IO priority: normal\n"
        );
    }
}
