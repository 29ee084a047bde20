//! The verdicts of "is this real", computed once from the run's facts and the measured window:
//! each check states its numbers and, where they cast doubt on the result, one sentence that says
//! what happened and what to change.

use crate::profile::{CacheMode, Target, TimeSpan, WriteBuffer};
use crate::report::analysis::{device_time, neighbours};
use crate::report::{
    DeviceCheck, Fingerprint, Generation, GeneratorCheck, Measured, Reality, ReductionCheck,
};
use crate::stats::reality::RealityFacts;
use crate::system::SystemInfo;
use crate::units::format_size;

/// Below this many bytes issued, a device's counters say nothing either way.
const MIN_BYTES: u64 = 1 << 20;
/// Data that compresses by more than this is compressible enough to matter.
const COMPRESSIBLE: f64 = 1.1;
/// Data generation above this share of the threads' time may set the pace.
const GENERATION_LIMIT_PERCENT: f64 = 25.0;

/// The checks of a measured window.
pub(crate) fn reality(
    ts: &TimeSpan,
    facts: &RealityFacts,
    m: &Measured,
    system: &SystemInfo,
    engine: crate::engine::EngineKind,
) -> Reality {
    let mut flags = Vec::new();
    let mut checked = Vec::new();
    // The null engine and the file engines move no data: the devices' counts are not part of
    // the measurement.
    let no_io = !engine.moves_data();
    let issued = |path: &str| {
        m.targets
            .iter()
            .find(|t| t.path == path)
            .map_or([0; 4], |t| {
                let d = &t.directions;
                [d.read.bytes, d.write.bytes, d.read.ios, d.write.ios]
            })
    };
    let path_of = |i: usize| ts.targets[i].path.display().to_string();
    let mut devices = Vec::new();
    for disk in facts.disks.iter().filter(|_| !no_io) {
        let mut paths: Vec<String> = disk.targets.iter().map(|&i| path_of(i)).collect();
        paths.dedup();
        let sums = paths.iter().fold([0; 4], |mut sum, p| {
            for (s, x) in sum.iter_mut().zip(issued(p)) {
                *s += x;
            }
            sum
        });
        let bio_based = !crate::system::backing::request_based(&disk.device);
        let time = device_time::device_time(
            disk.window.as_ref(),
            disk.clock.as_ref(),
            bio_based,
            &paths,
            m,
        );
        let mut intervals = neighbours::device_intervals(&disk.intervals, &paths, m);
        for (interval, clock) in intervals.iter_mut().zip(&disk.clock_intervals) {
            interval.time = device_time::interval_times(clock);
        }
        let check = DeviceCheck {
            device: disk.device.name.clone(),
            time,
            intervals,
            paths,
            issued_read_bytes: sums[0],
            issued_write_bytes: sums[1],
            issued_reads: sums[2],
            issued_writes: sums[3],
            reached: disk.window,
        };
        let buffered = disk
            .targets
            .iter()
            .any(|&i| ts.targets[i].cache == CacheMode::Cached);
        flags.extend(device_flags(&check, buffered));
        flags.extend(neighbours::other_io(&check, buffered));
        checked.push(format!("other I/O on {}", check.device));
        devices.push(check);
    }
    let deviceless: Vec<String> = (0..ts.targets.len())
        .filter(|i| !no_io && !facts.disks.iter().any(|d| d.targets.contains(i)))
        .map(path_of)
        .collect();
    for path in &deviceless {
        flags.push(format!(
            "'{path}' has no block device under it (a memory file system such as tmpfs): this measures memory"
        ));
    }
    let mut reduction = Vec::new();
    for (i, path_facts) in facts.paths.iter().enumerate() {
        let Some(layer) = &path_facts.compression else {
            continue;
        };
        let check = ReductionCheck {
            path: path_of(i),
            layer: layer.clone(),
            data_ratio: path_facts.data_ratio,
        };
        // A ratio the run was asked for (--compress) is the point, not a doubt.
        let chosen = ts.targets[i].compress.is_some();
        if let Some(ratio) = check.data_ratio.filter(|&r| r > COMPRESSIBLE && !chosen) {
            flags.push(format!(
                "'{}' is under {layer}, which compresses, and the data written compresses {ratio:.1}:1 ({}): the result measures the compression as much as the device; write data like yours (-Zr for none, --compress=<ratio>)",
                check.path,
                data_name(&ts.targets[i])
            ));
        }
        reduction.push(check);
    }
    // Busy threads have their own warning (the text's and the HTML's); here, the data's cost.
    let generator = generator(ts, facts, m);
    for g in generator
        .generation
        .iter()
        .filter(|g| g.percent_of_thread_time >= GENERATION_LIMIT_PERCENT)
    {
        flags.push(format!(
            "making the write data of '{}' took {:.0}% of the threads' time ({:.0} ns a block): the data generator may set the pace; use lighter data (-Z<size> instead of -Zr) or more threads",
            g.path, g.percent_of_thread_time, g.ns_per_block
        ));
    }
    let (cpu, cpu_flags) = neighbours::cpu(m);
    flags.extend(cpu_flags);
    if !cpu.waited.is_empty() {
        checked.push(format!("CPU waits of {}", threads(cpu.waited.len())));
    }
    checked.push("steal".into());
    flags.extend(neighbours::balance(m));
    if m.threads.len() > 1 {
        checked.push(format!("balance of {}", threads(m.threads.len())));
    }
    checked.push("the page cache, compression and iospd's own cost".into());
    Reality {
        devices,
        deviceless,
        reduction,
        generator,
        cpu,
        fingerprint: fingerprint(ts, facts, system),
        flags,
        checked,
        clock_off: facts.clock_off.clone(),
    }
}

/// "1 thread", "2 threads".
fn threads(n: usize) -> String {
    format!("{n} thread{}", if n == 1 { "" } else { "s" })
}

/// A device that saw far less than iospd moved: a cache above it served the reads, or held the
/// writes.
fn device_flags(check: &DeviceCheck, buffered: bool) -> Vec<String> {
    let Some(device) = &check.reached else {
        return Vec::new();
    };
    let cache = if buffered {
        "the page cache (-Sb, DiskSpd's default); add -Sh or -Su to measure the device"
    } else {
        "a cache below iospd (the file system's, a controller's, a loop device's backing file)"
    };
    let said = |verb: &str, reached: u64, issued: u64, why: String| {
        (issued >= MIN_BYTES && reached * 2 < issued).then(|| {
            format!(
                "{} {verb} {} of the {} iospd {verb} ({:.1}%){why}",
                check.device,
                format_size(reached),
                format_size(issued),
                percent(reached, issued)
            )
        })
    };
    [
        said(
            "read",
            device.read_bytes,
            check.issued_read_bytes,
            format!(": the reads were served from {cache}"),
        ),
        said(
            "wrote",
            device.write_bytes,
            check.issued_write_bytes,
            format!(" during the window: the rest is held by {cache}, or reduced on the way"),
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn percent(part: u64, whole: u64) -> f64 {
    part as f64 * 100.0 / whole.max(1) as f64
}

/// What a target writes, as its options name it.
fn data_name(target: &Target) -> String {
    match (&target.compress, &target.write_buffer) {
        (Some(c), _) => format!("--compress={c}"),
        (None, WriteBuffer::Pattern) => "DiskSpd's 0..255 pattern".into(),
        (None, WriteBuffer::Zero) => "zeros, -Z".into(),
        (None, WriteBuffer::Repeat { hex }) => format!("--pattern=0x{hex}"),
        (None, WriteBuffer::Source { .. }) => "-Z<size>'s buffer".into(),
    }
}

/// CPU per I/O over the window, the threads that were the limit, and the write data's cost.
fn generator(ts: &TimeSpan, facts: &RealityFacts, m: &Measured) -> GeneratorCheck {
    let ios: u64 = m
        .threads
        .iter()
        .flat_map(|t| &t.targets)
        .map(|t| {
            let d = &t.directions;
            d.total.ios
                + d.trim.as_ref().map_or(0, |x| x.ios)
                + d.flush.as_ref().map_or(0, |x| x.ios)
        })
        .sum();
    let cpu_ns: u64 = m
        .threads
        .iter()
        .map(|t| t.waits.cpu_user_ns + t.waits.cpu_system_ns)
        .sum();
    let thread_ns = m.duration_s * 1e9 * m.threads.len().max(1) as f64;
    let generation = facts
        .paths
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let ns = p.generation_ns?;
            let path = ts.targets[i].path.display().to_string();
            let writes = m
                .targets
                .iter()
                .find(|t| t.path == path)
                .map_or(0, |t| t.directions.write.ios);
            Some(Generation {
                path,
                ns_per_block: ns,
                percent_of_thread_time: ns * writes as f64 * 100.0 / thread_ns.max(1.0),
            })
        })
        .collect();
    GeneratorCheck {
        cpu_ns_per_io: cpu_ns as f64 / ios.max(1) as f64,
        busy_threads: m
            .threads
            .iter()
            .filter(|t| t.generator_limited())
            .map(|t| t.thread)
            .collect(),
        generation,
    }
}

/// The machine and the I/O path: CPUs, NUMA nodes, kernel, each device's scheduler and each
/// target's cache mode, with a short hash of them.
fn fingerprint(ts: &TimeSpan, facts: &RealityFacts, system: &SystemInfo) -> Fingerprint {
    let schedulers = facts
        .disks
        .iter()
        .map(|d| {
            let s = crate::system::backing::scheduler(&d.device).unwrap_or_else(|| "?".into());
            (d.device.name.clone(), s)
        })
        .collect();
    let cache_modes = ts
        .targets
        .iter()
        .map(|t| {
            let mode = match (t.cache, t.write_through || t.o_sync) {
                (CacheMode::Cached, false) => "buffered",
                (CacheMode::Cached, true) => "buffered+O_DSYNC",
                (CacheMode::DisableOsCache, false) => "O_DIRECT",
                (CacheMode::DisableOsCache, true) => "O_DIRECT+O_DSYNC",
            };
            let mode = match t.o_sync {
                true => mode.replace("O_DSYNC", "O_SYNC"),
                false => mode.to_string(),
            };
            (t.path.display().to_string(), mode)
        })
        .collect();
    let mut f = Fingerprint {
        cpus: system.cpus.len(),
        nodes: system.node_count(),
        kernel: system.kernel.clone(),
        schedulers,
        cache_modes,
        id: String::new(),
    };
    let text = format!(
        "{} {} {} {:?} {:?}",
        f.cpus, f.nodes, f.kernel, f.schedulers, f.cache_modes
    );
    f.id = format!("{:016x}", fnv1a(text.as_bytes()));
    f
}

/// FNV-1a, 64 bits: the same fingerprint from every build.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What ended a window before its length or its work: a failed I/O, a file target removed or
/// truncated, a stop (a signal, a `-yp` event, another job's `exitall`). One sentence, or none for
/// a window that ran its course (a `--steady-state` rule met ends one on purpose).
pub(crate) fn cut_short(t: &crate::report::TimeSpanReport, ts: &TimeSpan) -> Option<String> {
    let m = t.measured.as_ref()?;
    let ran = if ts.duration_s > 0 {
        format!(
            "{:.2}s of the {}s window asked",
            m.duration_s, ts.duration_s
        )
    } else {
        format!("{:.2}s, before its work was done", m.duration_s)
    };
    let why = if let Some(f) = &t.failure {
        let what = match f.latency_ns {
            Some(ns) => format!(
                "a {:?} over --max-latency ({})",
                f.op,
                crate::units::format_duration(ns as f64)
            )
            .to_lowercase(),
            None => format!("a failed {:?} ({})", f.op, f.what()).to_lowercase(),
        };
        format!("{what} stopped the run after {ran}")
    } else if let Some(lost) = &t.lost_target {
        let path = ts
            .targets
            .get(lost.target)
            .map_or(String::new(), |t| t.path.display().to_string());
        format!("'{path}' {}, which stopped the run after {ran}", lost.what)
    } else if let Some(by) = t.stopped_by.as_ref().filter(|_| t.interrupted) {
        format!("{by} stopped the run after {ran}")
    } else {
        return None;
    };
    Some(format!(
        "{why}: its numbers cover only the time before, and its last moments may not be typical"
    ))
}
