//! How the inputs of `iospd merge` and `iospd compare` relate: the same run given twice, and
//! whether two runs ran the same workload (every target's block size, direction mix, access
//! pattern, depth, threads, caching and pacing; paths, durations and seeds may differ).

use crate::profile::{Access, CacheMode, Throughput, TimeSpan};
use crate::units::format_size;

use crate::report::Report;

/// The workload of each timespan of `report`, as a short DiskSpd-like description.
pub fn workload(report: &Report) -> Vec<String> {
    report.profile.timespans.iter().map(timespan).collect()
}

fn timespan(ts: &TimeSpan) -> String {
    let targets: Vec<String> = ts
        .targets
        .iter()
        .map(|t| {
            let access = match t.access {
                Access::Random { align, ratio } if ratio >= 100 => {
                    format!("-r{}", format_size(align))
                }
                Access::Random { align, ratio } => format!("-rs{ratio} -r{}", format_size(align)),
                Access::Sequential {
                    stride,
                    interlocked,
                    ..
                } => format!(
                    "-s{}{}",
                    if interlocked { "i" } else { "" },
                    format_size(stride)
                ),
            };
            let cache = match (t.cache, t.write_through) {
                (CacheMode::Cached, false) => "-Sb",
                (CacheMode::Cached, true) => "-Sw",
                (CacheMode::DisableOsCache, false) => "-Su",
                (CacheMode::DisableOsCache, true) => "-Sh",
            };
            let mut text = format!(
                "-b{} -o{} -t{} {access} -w{} {cache}",
                format_size(t.block_size),
                t.requests,
                t.threads_per_target,
                t.write_ratio
            );
            match t.throughput {
                Some(Throughput::BytesPerMs(n)) => text.push_str(&format!(" -g{n}")),
                Some(Throughput::Iops(n)) => text.push_str(&format!(" -g{n}i")),
                Some(Throughput::BytesPerS(n)) => text.push_str(&format!(" -g{n}/s")),
                None => {}
            }
            if t.distribution.is_some() {
                text.push_str(" -rd…");
            }
            if t.o_sync {
                text.push_str(" --o-sync");
            }
            text
        })
        .collect();
    targets.join(" + ")
}

/// How the systems `base` and `new` ran on differ, each as "what: new against base": the machine,
/// its processor, CPU, core and NUMA node counts, the kernel and the iospd version. One command
/// line can give twice the IOPS on another NUMA layout alone (DiskSpd issue #226).
pub fn system_differences(base: &Report, new: &Report) -> Vec<String> {
    let (b, n) = (&base.system, &new.system);
    let facts = [
        ("machine", b.computer_name.clone(), n.computer_name.clone()),
        (
            "processor",
            b.processor_name.clone(),
            n.processor_name.clone(),
        ),
        ("CPUs", b.cpus.len().to_string(), n.cpus.len().to_string()),
        (
            "cores",
            b.core_count().to_string(),
            n.core_count().to_string(),
        ),
        (
            "NUMA nodes",
            b.node_count().to_string(),
            n.node_count().to_string(),
        ),
        ("kernel", b.kernel.clone(), n.kernel.clone()),
        ("iospd", base.tool.version.clone(), new.tool.version.clone()),
    ];
    // The I/O path of the first measured timespan: each device's scheduler, each target's cache
    // mode ("is this real"'s fingerprint), where both runs have it.
    let path = |r: &Report| {
        r.timespans
            .iter()
            .find_map(|t| t.measured.as_ref()?.reality.as_ref())
            .map(|x| x.fingerprint.clone())
    };
    let list = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .map(|(what, how)| format!("{what} {how}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut path_facts = Vec::new();
    if let (Some(was), Some(now)) = (path(base), path(new)) {
        path_facts.push((
            "I/O schedulers",
            list(&was.schedulers),
            list(&now.schedulers),
        ));
        path_facts.push((
            "cache modes",
            list(&was.cache_modes),
            list(&now.cache_modes),
        ));
    }
    facts
        .into_iter()
        .chain(path_facts)
        .filter(|(_, was, now)| was != now)
        .map(|(what, was, now)| format!("{what}: {now} against {was}"))
        .collect()
}

/// The first timespan where the workloads of `base` and `new` differ, with both descriptions
/// ("nothing" for a timespan one of them lacks); `None` when they ran the same.
pub fn first_difference(base: &[String], new: &[String]) -> Option<(usize, String, String)> {
    let show = |w: &[String], k: usize| w.get(k).cloned().unwrap_or_else(|| "nothing".into());
    (0..base.len().max(new.len()))
        .find(|&k| base.get(k) != new.get(k))
        .map(|k| (k, show(base, k), show(new, k)))
}

/// Why two of `runs` cannot be merged or compared as one workload: the same run twice (always),
/// or different workloads (unless `allow_mixed`). `names` label the runs.
pub fn check(runs: &[Report], names: &[&str], allow_mixed: bool) -> Result<(), String> {
    for (j, b) in runs.iter().enumerate() {
        for (i, a) in runs[..j].iter().enumerate() {
            if same_run(a, b) {
                return Err(format!(
                    "'{}' is the same run as '{}' (same host, start time and command line): merging it would count its I/Os twice; give each run once",
                    names[j], names[i]
                ));
            }
        }
    }
    if allow_mixed {
        return Ok(());
    }
    let first = workload(&runs[0]);
    for (j, run) in runs.iter().enumerate().skip(1) {
        let other = workload(run);
        // A different number of timespans is merge's own refusal.
        let common = first.len().min(other.len());
        if let Some((k, base, new)) = first_difference(&first, &other).filter(|d| d.0 < common) {
            return Err(format!(
                "'{}' ran another workload than '{}' (timespan {}: {new} against {base}): their sum describes neither; merge runs of one workload, or pass --allow-mixed",
                names[j],
                names[0],
                k + 1,
            ));
        }
    }
    Ok(())
}

/// Whether `a` and `b` are one run: same host, same start, same command line.
fn same_run(a: &Report, b: &Report) -> bool {
    a.system.computer_name == b.system.computer_name
        && a.profile.command_line == b.profile.command_line
        && a.timespans.first().map(|t| t.start_unix_s)
            == b.timespans.first().map(|t| t.start_unix_s)
}
