//! `Command Line` and `Input parameters`: the resolved profile as DiskSpd prints it (also what
//! `-Rp` prints).

use std::fmt::Write as _;

use super::{Driven, line};
use crate::engine::EngineKind;
use crate::plan::cpu_list;
use crate::profile::replay::{Pace, Replay};
use crate::profile::{
    Access, Affinity, Batch, BufferSeparation, CacheMode, DistributionKind, Efficiency, FlushMode,
    IoPriority, Profile, Spin, Target, Throughput, TimeSpan, WriteBuffer,
};
use crate::system::SystemInfo;
use crate::units::format_size;

/// `Command Line` and `Input parameters` as DiskSpd 2.3 prints them (what `-Rp` prints before
/// iospd's own lines); `system` gives the buffer separation's size.
pub fn profile_text(profile: &Profile, system: &SystemInfo) -> String {
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
    // `--repeat=N` runs the given timespans N times over: each is listed once, as given (which
    // timespans of the results are its repetitions is said after DiskSpd's report).
    for (i, ts) in given_timespans(profile).iter().enumerate() {
        let _ = writeln!(out, "  timespan: {:3}\n  -------------", i + 1);
        timespan_text(&mut out, ts, system, profile.replay.as_ref());
        out.push('\n');
    }
    out
}

/// The timespans as given on the command line or in the profile (without `--repeat`'s copies).
pub(super) fn given_timespans(profile: &Profile) -> &[TimeSpan] {
    let repeat = profile.repeat.max(1) as usize;
    let given = (profile.timespans.len() / repeat).max(1);
    &profile.timespans[..given.min(profile.timespans.len())]
}

/// A timespan's lines in `TimeSpan::GetText`'s order and wording.
fn timespan_text(out: &mut String, ts: &TimeSpan, system: &SystemInfo, replay: Option<&Replay>) {
    match replay {
        Some(r) => line(out, 4, format_args!("duration: {}", replay_duration(r))),
        None if ts.duration_s == 0 => line(out, 4, "duration: until the work is done"),
        None => line(out, 4, format_args!("duration: {}s", ts.duration_s)),
    }
    line(out, 4, format_args!("warm up time: {}s", ts.warmup_s));
    line(out, 4, format_args!("cool down time: {}s", ts.cooldown_s));
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
        line(
            out,
            4,
            format_args!(
                "number of outstanding I/O operations per thread: {}",
                ts.request_count.unwrap_or(0)
            ),
        );
    }
    if let Some(ring) = ts.io_ring {
        let batch = match ring.batch {
            Batch::Count(n) => n.to_string(),
            Batch::Percent(p) => format!("{p}%"),
        };
        let registered = if ring.registered_buffers {
            " with registered buffers"
        } else {
            ""
        };
        line(
            out,
            4,
            format_args!("using IoRing (batch size: {batch}){registered}"),
        );
    }
    affinity_text(out, &ts.affinity);
    let separation = match BufferSeparation::of(ts.buffer_separation) {
        BufferSeparation::SystemDefault => "system default".to_string(),
        BufferSeparation::ThreadOptimized => format!(
            "thread optimized ({})",
            format_size(system.buffer_separation(ts.buffer_separation))
        ),
    };
    line(out, 4, format_args!("buffer separation: {separation}"));
    if let Some(depth) = ts.completion_depth {
        line(out, 4, format_args!("completion depth: {depth}"));
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
    for target in &ts.targets {
        target_text(out, target, ts, replay);
    }
}

/// `affinity disabled`, or how threads are assigned to CPUs and, with `-a`, which CPUs.
fn affinity_text(out: &mut String, affinity: &Affinity) {
    let Affinity::Pinned { cpus, order } = affinity else {
        line(out, 4, "affinity disabled");
        return;
    };
    let efficiency = match order.efficiency {
        Efficiency::PFirst => "P-cores first",
        Efficiency::FillPFirst => "fill P-cores first",
        Efficiency::EFirst => "E-cores first",
        Efficiency::FillEFirst => "fill E-cores first",
        Efficiency::Unordered => "no P/E order",
    };
    let traversal = if order.core_aware {
        "core-aware"
    } else {
        "cpu order"
    };
    let groups = if order.span_groups {
        "span groups"
    } else {
        "fill groups"
    };
    line(
        out,
        4,
        format_args!("affinity assignment: {traversal}, {groups}, {efficiency}"),
    );
    if !cpus.is_empty() {
        line(out, 4, format_args!("affinity (cpu): {}", cpu_list(cpus)));
    }
}

/// iospd's own input lines for a timespan (after DiskSpd's report): the engine that ran, or the
/// one requested when nothing ran yet, and how its threads waited for completions.
pub(super) fn engine_text(out: &mut String, ts: &TimeSpan, driven: Driven, spin: Spin) {
    let engine = driven.engine;
    match engine.kind {
        EngineKind::IoUring => {
            let registered = if engine.registered_buffers
                || (driven.spin_ns.is_none() && ts.io_ring.is_none_or(|r| r.registered_buffers))
            {
                " with registered buffers"
            } else {
                ""
            };
            line(out, 4, format_args!("engine: io_uring{registered}"));
        }
        other => line(out, 4, format_args!("engine: {}", other.describe())),
    }
    match (driven.spin_ns, spin) {
        // pread/pwrite, memcpy and the null engine complete each I/O inside its call.
        _ if engine.kind != EngineKind::IoUring => line(
            out,
            4,
            "completion wait: none (each I/O completes within its call)",
        ),
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
}

fn target_text(out: &mut String, t: &Target, ts: &TimeSpan, replay: Option<&Replay>) {
    if t.is_template() {
        let name = t.path.display().to_string();
        line(
            out,
            4,
            format_args!("path: template target '{}'", &name[1..]),
        );
    } else {
        line(out, 4, format_args!("path: '{}'", t.path.display()));
    }
    let (think, burst) = t
        .burst
        .map_or((0.0, 0), |b| (b.think_us as f64 / 1e3, b.size));
    line(out, 6, format_args!("think time: {think}ms"));
    line(out, 6, format_args!("burst size: {burst}"));
    caching_text(out, t);
    match replay {
        Some(r) => replay_target_text(out, r),
        None => {
            buffers_text(out, t);
            pattern_text(out, t, ts);
            bounds_text(out, t, ts);
            distribution_text(out, t);
        }
    }
}

/// A replay's length: the trace's span at its speed, up to the cut.
fn replay_duration(r: &Replay) -> String {
    let cut = r.cut_ns as f64 / 1e9;
    match r.pace {
        Pace::Speed(speed) => {
            let at_speed = r.span_ns as f64 / 1e9 / speed;
            if at_speed > cut {
                format!("{cut:.0}s (-d), of the trace's {at_speed:.3}s at speed {speed}")
            } else {
                format!("the trace's {at_speed:.3}s at speed {speed}")
            }
        }
        Pace::AsFastAsPossible => {
            format!("as long as the trace takes as fast as possible (at most {cut:.0}s)")
        }
    }
}

/// What a replay issues to a target: the trace's own I/O, not a pattern.
fn replay_target_text(out: &mut String, r: &Replay) {
    let [reads, writes, trims, flushes] = r.counts;
    line(
        out,
        6,
        format_args!(
            "replaying the trace's I/O ({} events): {reads} reads, {writes} writes, {trims} trims, {flushes} flushes",
            r.stage.letter()
        ),
    );
    let largest = r.pool.iter().map(|c| c.size).max();
    line(
        out,
        6,
        format_args!(
            "offsets and sizes as traced, each a multiple of {}{}",
            format_size(r.align),
            largest.map_or(String::new(), |l| format!(", up to {}", format_size(l)))
        ),
    );
}

/// Page cache, write cache and memory mapping.
fn caching_text(out: &mut String, t: &Target) {
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
}

/// Write buffer content, and parallel I/O.
fn buffers_text(out: &mut String, t: &Target) {
    match &t.write_buffer {
        WriteBuffer::Pattern => {}
        WriteBuffer::Zero => line(out, 6, "zeroing write buffers"),
        WriteBuffer::Repeat { hex } => line(
            out,
            6,
            format_args!("write buffers repeat the pattern 0x{hex}"),
        ),
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
}

/// Direction, block size, access pattern and depth (or pool weight).
fn pattern_text(out: &mut String, t: &Target, ts: &TimeSpan) {
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
}

/// Range, stride, hints, threads, priority and pacing.
fn bounds_text(out: &mut String, t: &Target, ts: &TimeSpan) {
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
    match t.io_priority.class_text() {
        Some(class) => line(out, 6, format_args!("IO priority: {class} (--ioprio)")),
        None => line(
            out,
            6,
            match t.io_priority {
                IoPriority::VeryLow => "IO priority: very low",
                IoPriority::Low => "IO priority: low",
                _ => "IO priority: normal",
            },
        ),
    }
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
        Some(Throughput::BytesPerS(rate)) => line(
            out,
            6,
            format_args!("throughput rate-limited to {rate} B/s"),
        ),
    }
}

/// The `-rd` distribution as given.
fn distribution_text(out: &mut String, t: &Target) {
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
pub(super) fn size_or_zero(bytes: u64) -> String {
    if bytes == 0 {
        "0   ".to_string()
    } else {
        format_size(bytes)
    }
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
        target_text(&mut out, &target, &TimeSpan::new(), None);
        out[out.find("      IO Distribution:").unwrap()..].to_string()
    }

    /// The timespan lines (before the first target) that `args` resolve to.
    fn timespan_lines(args: &[&str], system: &SystemInfo) -> String {
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        let crate::cli::Command::Run(raw) = crate::cli::parse(&args).unwrap() else {
            panic!("not a run")
        };
        let profile = crate::profile::resolve(&raw, "iospd".into())
            .unwrap()
            .profile;
        let mut out = String::new();
        timespan_text(&mut out, &profile.timespans[0], system, None);
        out[..out.find("    path: ").unwrap()].to_string()
    }

    fn machine(page_size: u64) -> SystemInfo {
        SystemInfo {
            page_size,
            ..SystemInfo::default()
        }
    }

    #[test]
    fn timespan_lines_match_diskspd_2_3() {
        let four_k = machine(4096);
        // DiskSpd 2.3's Test_ParseProfile (defaults) and Test_ParseResults (-D, -u).
        assert_eq!(
            timespan_lines(&["t.dat"], &four_k),
            "    duration: 10s\n    warm up time: 5s\n    cool down time: 0s\n    random seed: 0\n    affinity assignment: cpu order, fill groups, P-cores first\n    buffer separation: thread optimized (16MiB)\n"
        );
        assert_eq!(
            timespan_lines(&["-D", "-u", "t.dat"], &four_k),
            "    duration: 10s\n    warm up time: 5s\n    cool down time: 0s\n    gathering IOPS at intervals of 1000ms\n    random seed: 0\n    using IoRing (batch size: 25%) with registered buffers\n    affinity assignment: cpu order, fill groups, P-cores first\n    buffer separation: thread optimized (16MiB)\n"
        );
        // 8KiB pages with 128-byte lines: Test_PrintProfileBufferSeparation8KPage128BLine.
        let mut eight_k = machine(8192);
        eight_k.caches.push(crate::system::CacheInfo {
            level: 3,
            kind: crate::system::CacheKind::Unified,
            size: 32 << 20,
            line: 128,
            ways: 16,
            cpus: "0".into(),
        });
        assert!(
            timespan_lines(&["t.dat"], &eight_k)
                .contains("\n    buffer separation: thread optimized (128MiB)\n")
        );
        assert!(
            timespan_lines(&["-bsn", "t.dat"], &four_k)
                .ends_with("\n    buffer separation: system default\n")
        );
        // -n in the affinity line's place; -F without -O; completion depth, then -Zr last.
        assert_eq!(
            timespan_lines(&["-n", "-F2", "-oc4", "-Zr", "-L", "t.dat"], &four_k),
            "    duration: 10s\n    warm up time: 5s\n    cool down time: 0s\n    measuring latency\n    random seed: 0\n    thread pool with 2 threads\n    number of outstanding I/O operations per thread: 0\n    affinity disabled\n    buffer separation: thread optimized (16MiB)\n    completion depth: 4\n    generating random data for each write IO\n      WARNING: this increases the CPU cost of issuing writes and should only\n               be compared to other results using the -Zr flag\n"
        );
        assert!(
            timespan_lines(&["-a1,0", "-ac", "t.dat"], &four_k).contains(
                "\n    affinity assignment: core-aware, fill groups, P-cores first\n    affinity (cpu): 0-1\n"
            )
        );
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
        target_text(&mut out, &target, &ts, None);
        assert_eq!(
            out,
            "    path: ''\n      think time: 0ms\n      burst size: 0\n      using software cache\n      using hardware write cache, writethrough off\n      performing read test\n      block size: 64KiB\n      using sequential I/O (stride: 64KiB)\n      number of outstanding I/O operations per thread: 2\n      max file size: 1.95MiB\n      thread stride size: 100KiB\n      IO priority: normal\n"
        );
    }
}
