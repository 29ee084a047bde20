//! `System information`: the machine as DiskSpd prints it.

use std::fmt::Write as _;

use crate::plan::cpu_list;
use crate::system::{CacheInfo, CacheKind, SystemInfo, parse_cpu_list};
use crate::units::format_size;

/// The `System information` block.
pub fn system_text(system: &SystemInfo, start: &str) -> String {
    let mut out = String::from("System information:\n\n");
    let mut field = |label: &str, value: &str| {
        let _ = writeln!(out, "  {:<22}{value}", format!("{label}:"));
    };
    field("computer name", &system.computer_name);
    field("processor name", &system.processor_name);
    field("start time", start);
    // DiskSpd leaves the line out when it cannot tell.
    if !system.power_scheme.is_empty() {
        field("active power scheme", &system.power_scheme);
    }
    field("page size", &format_size(system.page_size));
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
        for (cache, cpus, suffix) in cache_rows(system) {
            let name = match cache.kind {
                CacheKind::Data => format!("L{}d", cache.level),
                CacheKind::Instruction => format!("L{}i", cache.level),
                CacheKind::Unified => format!("L{}", cache.level),
            };
            let _ = writeln!(
                out,
                "    {name:<5} | {:>8} | {:>5} | {:>6} | {cpus}{suffix}",
                format_size(cache.size),
                format_size(cache.line as u64),
                format!("{}-way", cache.ways),
            );
        }
    }
    out
}

/// What one cache serves, as DiskSpd classes it to merge rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Serves {
    /// One CPU.
    Cpu,
    /// Exactly the CPUs of one core (SMT siblings).
    Core,
    /// Anything else (a cluster, a socket).
    Other,
}

/// The cache table's rows as DiskSpd 2.3 writes them: caches of the same geometry that each serve
/// one CPU (or one core) are one row listing all their CPUs, marked `(per cpu)` (`(per core)`).
fn cache_rows(system: &SystemInfo) -> Vec<(&CacheInfo, String, &'static str)> {
    let serves = |cpus: &[u32]| match cpus {
        [_] => Serves::Cpu,
        [first, ..] => {
            let core = system.cpus.iter().find(|c| c.cpu == *first).map(|f| {
                let mut siblings: Vec<u32> = system
                    .cpus
                    .iter()
                    .filter(|c| (c.socket, c.core) == (f.socket, f.core))
                    .map(|c| c.cpu)
                    .collect();
                siblings.sort_unstable();
                siblings
            });
            if core.as_deref() == Some(cpus) {
                Serves::Core
            } else {
                Serves::Other
            }
        }
        [] => Serves::Other,
    };
    let geometry = |c: &CacheInfo| (c.level, c.kind, c.size, c.line, c.ways);
    let classes: Vec<(Vec<u32>, Serves)> = system
        .caches
        .iter()
        .map(|c| {
            let mut cpus = parse_cpu_list(&c.cpus);
            cpus.sort_unstable();
            let class = serves(&cpus);
            (cpus, class)
        })
        .collect();
    let mut emitted = vec![false; system.caches.len()];
    let mut rows = Vec::new();
    for (i, cache) in system.caches.iter().enumerate() {
        if emitted[i] {
            continue;
        }
        emitted[i] = true;
        let (cpus, class) = &classes[i];
        if *class == Serves::Other {
            rows.push((cache, cache.cpus.clone(), ""));
            continue;
        }
        let mut all = cpus.clone();
        let mut merged = false;
        for j in i + 1..system.caches.len() {
            if !emitted[j]
                && classes[j].1 == *class
                && geometry(&system.caches[j]) == geometry(cache)
            {
                all.extend(&classes[j].0);
                emitted[j] = true;
                merged = true;
            }
        }
        let suffix = match (merged, class) {
            (false, _) => "",
            (true, Serves::Core) => " (per core)",
            (true, _) => " (per cpu)",
        };
        rows.push((cache, cpu_list(&all), suffix));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(level: u8, kind: CacheKind, size: u64, cpus: &str) -> CacheInfo {
        CacheInfo {
            level,
            kind,
            size,
            line: 64,
            ways: 8,
            cpus: cpus.into(),
        }
    }

    #[test]
    fn caches_of_one_geometry_per_cpu_or_core_are_one_row() {
        // Two cores with two SMT siblings each (CPUs 0,1 and 2,3): L1 per core, and an odd L2
        // per CPU, one L3 for all.
        let cpus = (0..4)
            .map(|cpu| crate::system::CpuTopology {
                cpu,
                socket: 0,
                node: 0,
                core: cpu / 2,
                efficiency_class: 0,
            })
            .collect();
        let system = SystemInfo {
            page_size: 4096,
            cpus,
            caches: vec![
                cache(1, CacheKind::Data, 32 << 10, "0-1"),
                cache(1, CacheKind::Data, 32 << 10, "2-3"),
                cache(2, CacheKind::Unified, 1 << 20, "0"),
                cache(2, CacheKind::Unified, 1 << 20, "1"),
                cache(2, CacheKind::Unified, 1 << 20, "2"),
                cache(2, CacheKind::Unified, 2 << 20, "3"),
                cache(3, CacheKind::Unified, 32 << 20, "0-3"),
            ],
            ..SystemInfo::default()
        };
        let text = system_text(&system, "");
        let table = &text[text.find("    Cache |").unwrap()..];
        // DiskSpd's "%-5s | %8s | %5s | %6s | " and its (per core)/(per cpu) merges.
        assert_eq!(
            table,
            "    Cache |   Size   | Line  | Assoc  | CPU\n    -------------------------------------------------------\n    L1d   |    32KiB |   64B |  8-way | 0-3 (per core)\n    L2    |     1MiB |   64B |  8-way | 0-2 (per cpu)\n    L2    |     2MiB |   64B |  8-way | 3\n    L3    |    32MiB |   64B |  8-way | 0-3\n"
        );
    }

    #[test]
    fn the_power_scheme_line_is_left_out_when_linux_has_none() {
        let mut system = SystemInfo {
            power_scheme: "powersave (balance_performance)".into(),
            page_size: 4096,
            ..SystemInfo::default()
        };
        let text = system_text(&system, "2026/11/25 12:00:00 UTC");
        assert!(
            text.contains("  active power scheme:  powersave (balance_performance)\n"),
            "{text}"
        );
        system.power_scheme.clear();
        let text = system_text(&system, "2026/11/25 12:00:00 UTC");
        assert!(!text.contains("power scheme"), "{text}");
    }
}
