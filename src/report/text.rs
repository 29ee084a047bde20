//! The text report, laid out like DiskSpd 2.3 so that people and parsers that read DiskSpd's output
//! read this one: the same sections, blank lines, column widths and units.

use std::fmt::Write as _;
use std::time::SystemTime;

use super::{LatencyTable, Measured, Report, Row, Section, utc_string};
use crate::cli::units::format_size;
use crate::engine::{EngineKind, EngineSetup};
use crate::plan::cpu_list;
use crate::profile::{
    Access, Affinity, CacheMode, Profile, Spin, Target, Throughput, TimeSpan, WriteBuffer,
};
use crate::stats::cpu::CpuUsage;
use crate::system::{CacheKind, SystemInfo};

const STARS: &str =
    "*******************************************************************************";

/// The whole report: profile, system information and results.
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
        .map_or(SystemTime::UNIX_EPOCH, |t| t.start_time);
    out.push_str(&system_text(&report.system, start));
    for (i, ts) in report.timespans.iter().enumerate() {
        let _ = write!(out, "\nResults for timespan {}:\n{STARS}\n", i + 1);
        match &ts.measured {
            None => out.push_str(
                "The test was interrupted before the measurements began. No results are displayed.\n",
            ),
            Some(m) => results_text(&mut out, &report.profile.timespans[i], m, &report.system),
        }
    }
    out
}

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
    let _ = write!(
        out,
        "\nCommand Line: {}\n\nInput parameters:\n\n",
        profile.command_line
    );
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

fn timespan_text(out: &mut String, ts: &TimeSpan, driven: Driven, spin: Spin) {
    let engine = driven.engine;
    let _ = writeln!(out, "    duration: {}s", ts.duration_s);
    let _ = writeln!(out, "    warm up time: {}s", ts.warmup_s);
    let _ = writeln!(out, "    cool down time: {}s", ts.cooldown_s);
    if ts.affinity == Affinity::Disabled {
        out.push_str("    affinity disabled\n");
    }
    if ts.measure_latency {
        out.push_str("    measuring latency\n");
    }
    if let Some(ms) = ts.iops_interval_ms {
        let _ = writeln!(out, "    gathering IOPS at intervals of {ms}ms");
    }
    let _ = writeln!(out, "    random seed: {}", ts.seed);
    if let Some(threads) = ts.thread_count {
        let _ = writeln!(out, "    thread pool with {threads} threads");
    }
    if ts.random_write_data {
        out.push_str(
            "    generating random data for each write IO\n\
             \x20     WARNING: this increases the CPU cost of issuing writes and should only\n\
             \x20              be compared to other results using the -Zr flag\n",
        );
    }
    out.push_str(match engine.kind {
        EngineKind::IoUring if engine.registered_buffers => {
            "    using io_uring with registered buffers\n"
        }
        EngineKind::IoUring => "    using io_uring\n",
        EngineKind::Psync => "    using synchronous I/O (pread/pwrite)\n",
        EngineKind::Null => "    using the null engine (no I/O is performed)\n",
        EngineKind::Mapped => "    using memory-mapped I/O (mmap and memcpy)\n",
    });
    let _ = match (driven.spin_ns, spin) {
        (Some(0), _) | (None, Spin::Micros(0)) => writeln!(out, "    completion wait: sleep"),
        (Some(ns), _) => writeln!(
            out,
            "    completion wait: poll up to {}us, then sleep",
            ns / 1000
        ),
        (None, Spin::Micros(us)) => {
            writeln!(out, "    completion wait: poll up to {us}us, then sleep")
        }
        (None, Spin::Auto) => writeln!(
            out,
            "    completion wait: poll up to {}us with 2+ CPUs per thread, else sleep",
            Spin::AUTO_US
        ),
    };
    if let Affinity::Pinned { cpus, .. } = &ts.affinity {
        if cpus.is_empty() {
            out.push_str("    affinity: round robin over the CPUs this process may use\n");
        } else {
            let _ = writeln!(out, "    affinity (cpu): {}", cpu_list(cpus));
        }
    }
    for target in &ts.targets {
        target_text(out, target, ts.thread_count.is_none());
    }
}

fn target_text(out: &mut String, t: &Target, threads_per_file: bool) {
    let _ = writeln!(out, "    path: '{}'", t.path.display());
    out.push_str("      think time: 0ms\n      burst size: 0\n");
    out.push_str(match t.cache {
        CacheMode::Cached => "      using software cache\n",
        CacheMode::DisableOsCache => "      software cache disabled\n",
    });
    out.push_str(match (t.write_through, t.cache) {
        (false, _) => "      using hardware write cache, writethrough off\n",
        (true, CacheMode::DisableOsCache) => {
            "      hardware write cache disabled, writethrough on\n"
        }
        (true, CacheMode::Cached) => {
            "      hardware and software write caches disabled, writethrough on\n"
        }
    });
    match &t.write_buffer {
        WriteBuffer::Pattern => {}
        WriteBuffer::Zero => out.push_str("      zeroing write buffers\n"),
        WriteBuffer::Source { size, file } => {
            let _ = writeln!(out, "      write buffer size: {}", format_size(*size));
            match file {
                None => out.push_str("      write buffer source: random fill\n"),
                Some(path) => {
                    let _ = writeln!(out, "      write buffer source: '{}'", path.display());
                }
            }
        }
    }
    match t.write_ratio {
        0 => out.push_str("      performing read test\n"),
        100 => out.push_str("      performing write test\n"),
        w => {
            let _ = writeln!(
                out,
                "      performing mix test (read/write ratio: {}/{w})",
                100 - w
            );
        }
    }
    let _ = writeln!(out, "      block size: {}", format_size(t.block_size));
    let _ = match t.access {
        Access::Random { align, .. } => writeln!(
            out,
            "      using random I/O (alignment: {})",
            format_size(align)
        ),
        Access::Sequential {
            stride,
            interlocked: true,
            ..
        } => {
            writeln!(
                out,
                "      using interlocked sequential I/O (stride: {})",
                format_size(stride)
            )
        }
        Access::Sequential {
            stride,
            interlocked: false,
            ..
        } => {
            writeln!(
                out,
                "      using sequential I/O (stride: {})",
                format_size(stride)
            )
        }
    };
    let _ = writeln!(
        out,
        "      number of outstanding I/O operations per thread: {}",
        t.requests
    );
    if t.base_offset != 0 {
        let _ = writeln!(
            out,
            "      base file offset: {}",
            format_size(t.base_offset)
        );
    }
    if let Some(max) = t.max_size {
        let _ = writeln!(out, "      max file size: {}", format_size(max));
    }
    if t.thread_stride != 0 {
        let _ = writeln!(
            out,
            "      thread stride size: {}",
            format_size(t.thread_stride)
        );
    }
    if threads_per_file {
        let _ = writeln!(out, "      threads per file: {}", t.threads_per_target);
    }
    out.push_str("      IO priority: normal\n");
    match t.throughput {
        None => {}
        Some(Throughput::Iops(iops)) => {
            let _ = writeln!(out, "      throughput rate-limited to {iops} IOPS");
        }
        Some(Throughput::BytesPerMs(rate)) => {
            let _ = writeln!(out, "      throughput rate-limited to {rate} B/ms");
        }
    }
}

/// The `System information` block.
pub fn system_text(system: &SystemInfo, start: SystemTime) -> String {
    let mut out = String::from("System information:\n\n");
    let mut line = |label: &str, value: &str| {
        let _ = writeln!(out, "  {:<22}{value}", format!("{label}:"));
    };
    line("computer name", &system.computer_name);
    line("processor name", &system.processor_name);
    line("start time", &utc_string(start));
    line("active power scheme", &system.power_scheme);
    line("page size", &format_size(system.page_size));
    line("kernel", &system.kernel);
    out.push('\n');
    let mut line = |label: &str, value: String| {
        let _ = writeln!(out, "  {:<22}{value}", format!("{label}:"));
    };
    line("cpu count", system.cpus.len().to_string());
    line("core count", system.core_count().to_string());
    line("group count", "1".into());
    line("node count", system.node_count().to_string());
    line("socket count", system.socket_count().to_string());
    line(
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

fn results_text(out: &mut String, ts: &TimeSpan, m: &Measured, system: &SystemInfo) {
    let _ = write!(
        out,
        "\nactual test time:\t{:.2}s\nthread count:\t\t{}\n\n",
        m.seconds, m.thread_count
    );
    if !m.effective_affinity.is_empty() {
        let _ = write!(
            out,
            "effective affinity (cpu): {}\n\n",
            cpu_list(&m.effective_affinity)
        );
    }
    cpu_table(out, &m.cpu, &m.cpu_average, system);
    let latency = ts.measure_latency;
    let iops_stddev = ts.iops_interval_ms.is_some();
    for (title, section) in [
        ("Total IO", &m.total),
        ("Read IO", &m.read),
        ("Write IO", &m.write),
    ] {
        let _ = writeln!(out, "\n{title}");
        section_table(out, section, latency, iops_stddev);
    }
    if !m.latency.is_empty() {
        out.push_str("\n\n");
        for table in &m.latency {
            latency_chart(out, table);
        }
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
        let topo = system.cpus.iter().find(|t| t.cpu == usage.cpu);
        let mut prefix = String::new();
        if let Some(topo) = topo {
            let values = [
                (columns[0].0, format!("{:7}| ", topo.socket)),
                (columns[1].0, format!("{:5}| ", topo.node)),
                (columns[2].0, format!("{:5}| ", topo.core)),
                (
                    columns[3].0,
                    format!(
                        "{:5}{}| ",
                        topo.efficiency_class,
                        if topo.efficiency_class > 0 { 'P' } else { ' ' }
                    ),
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

fn section_table(out: &mut String, section: &Section, latency: bool, iops_stddev: bool) {
    let _ = writeln!(
        out,
        "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s {}{}{}|  file",
        if latency { "|  AvgLat  " } else { "" },
        if iops_stddev { "| IopsStdDev " } else { "" },
        if latency { "| LatStdDev " } else { "" },
    );
    let rule = format!(
        "{}{}{}{}{}",
        "-".repeat(66),
        if latency {
            "-".repeat(11)
        } else {
            String::new()
        },
        if iops_stddev {
            "-".repeat(13)
        } else {
            String::new()
        },
        if latency {
            "-".repeat(12)
        } else {
            String::new()
        },
        "-".repeat(12)
    );
    let columns = |row: &Row| {
        let mut s = format!(
            "{:15} | {:12} | {:10.2} | {:10.2}",
            row.bytes, row.ios, row.mib_per_s, row.iops
        );
        if latency {
            let _ = write!(s, " | {:8.3}", row.avg_latency_ms);
        }
        if iops_stddev {
            let _ = write!(s, " | {:10.2}", row.iops_stddev);
        }
        if latency {
            match row.latency_stddev_ms {
                Some(sd) => {
                    let _ = write!(s, " |  {sd:8.3}");
                }
                None => s.push_str(" |       N/A"),
            }
        }
        s
    };
    let _ = writeln!(out, "{rule}");
    for row in &section.rows {
        let _ = writeln!(
            out,
            "{:6} | {} | {} ({})",
            row.thread,
            columns(row),
            row.path,
            format_size(row.target_size)
        );
    }
    let _ = writeln!(out, "{rule}\ntotal:   {}", columns(&section.total));
}

fn latency_chart(out: &mut String, table: &LatencyTable) {
    match &table.path {
        Some(path) => {
            let _ = writeln!(out, "Latency distribution: {path}");
        }
        None => out.push_str("Total latency distribution:\n"),
    }
    out.push_str("  %-ile |  Read (ms) | Write (ms) | Total (ms)\n");
    out.push_str("----------------------------------------------\n");
    let cell = |v: Option<f64>| v.map_or_else(|| "N/A".to_string(), |v| format!("{v:.3}"));
    for row in &table.rows {
        let _ = writeln!(
            out,
            "{:>7} | {:>10} | {:>10} | {:10.3}",
            row.label,
            cell(row.read),
            cell(row.write),
            row.total
        );
    }
    if table.path.is_some() {
        out.push('\n');
    }
}
