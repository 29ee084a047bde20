//! Facts about the machine for the report header: CPUs with their topology, caches, host and
//! kernel, read from sysfs and procfs.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::profile::BufferSeparation;

/// One logical CPU's place in the topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuTopology {
    /// Logical CPU number.
    pub cpu: u32,
    /// Physical package.
    pub socket: u32,
    /// NUMA node.
    pub node: u32,
    /// Core id within the package.
    pub core: u32,
    /// Efficiency class (0 = efficiency core on hybrid parts; every CPU 0 elsewhere).
    pub efficiency_class: u32,
}

/// Data, instruction or unified cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheKind {
    /// Data cache.
    Data,
    /// Instruction cache.
    Instruction,
    /// Unified cache.
    Unified,
}

/// One cache instance.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CacheInfo {
    /// 1, 2, 3…
    pub level: u8,
    /// What it caches.
    pub kind: CacheKind,
    /// Size in bytes.
    #[serde(rename = "size_bytes")]
    pub size: u64,
    /// Line size in bytes.
    #[serde(rename = "line_bytes")]
    pub line: u32,
    /// Associativity (ways).
    pub ways: u32,
    /// The CPUs sharing it, as a list (`0-3`).
    pub cpus: String,
}

/// Facts about the machine for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SystemInfo {
    /// Host name.
    pub computer_name: String,
    /// CPU model.
    pub processor_name: String,
    /// Kernel name and release.
    pub kernel: String,
    /// The cpufreq governor (Linux's closest thing to a power scheme) with its energy-performance
    /// preference, or empty when there is none.
    pub power_scheme: String,
    /// Page size in bytes.
    #[serde(rename = "page_size_bytes")]
    pub page_size: u64,
    /// Online CPUs.
    pub cpus: Vec<CpuTopology>,
    /// Caches, one entry per instance.
    pub caches: Vec<CacheInfo>,
    /// The wall clock's source and synchronisation when the facts were read.
    #[serde(default)]
    pub clock: super::ClockState,
}

impl SystemInfo {
    /// Bytes between threads' buffers under `-bs` (see [`BufferSeparation::bytes`]), with this
    /// machine's page size and its first cache's line size.
    pub fn buffer_separation(&self, given: Option<BufferSeparation>) -> u64 {
        let line = self.caches.first().map_or(64, |c| c.line as u64);
        BufferSeparation::of(given).bytes(self.page_size, line)
    }

    fn distinct(&self, key: impl Fn(&CpuTopology) -> (u32, u32)) -> usize {
        let mut keys: Vec<(u32, u32)> = self.cpus.iter().map(key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    }

    /// Physical cores.
    pub fn core_count(&self) -> usize {
        self.distinct(|c| (c.socket, c.core))
    }

    /// Packages.
    pub fn socket_count(&self) -> usize {
        self.distinct(|c| (c.socket, 0))
    }

    /// NUMA nodes.
    pub fn node_count(&self) -> usize {
        self.distinct(|c| (c.node, 0))
    }

    /// More than one logical CPU per core.
    pub fn smt(&self) -> bool {
        self.core_count() < self.cpus.len()
    }

    /// Cores of different efficiency classes.
    pub fn heterogeneous(&self) -> bool {
        self.distinct(|c| (c.efficiency_class, 0)) > 1
    }
}

/// What Linux has for Windows' power scheme: the cpufreq governor, with the energy-performance
/// preference in parentheses where the driver has one (`powersave (balance_performance)`); empty
/// when the machine exposes no cpufreq (a VM, most containers), and the reports leave it out.
pub(super) fn power_scheme() -> String {
    let cpufreq = "/sys/devices/system/cpu/cpu0/cpufreq";
    let Some(governor) = read_trimmed(format!("{cpufreq}/scaling_governor")) else {
        return String::new();
    };
    match read_trimmed(format!("{cpufreq}/energy_performance_preference")) {
        Some(preference) => format!("{governor} ({preference})"),
        None => governor,
    }
}

pub(super) fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

fn read_number(path: impl AsRef<Path>) -> Option<u32> {
    read_trimmed(path)?.parse().ok()
}

/// Parses a kernel CPU list (`0-3,8`).
pub fn parse_cpu_list(text: &str) -> Vec<u32> {
    text.trim()
        .split(',')
        .filter(|part| !part.is_empty())
        .flat_map(|part| {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let (a, b) = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
            a..=b
        })
        .collect()
}

fn parse_cache_size(text: &str) -> u64 {
    let (digits, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = digits.parse().unwrap_or(0);
    match unit {
        "K" => n << 10,
        "M" => n << 20,
        "G" => n << 30,
        _ => n,
    }
}

fn node_of(cpu: u32) -> u32 {
    let Ok(entries) = fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}")) else {
        return 0;
    };
    entries
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix("node")?
                .parse()
                .ok()
        })
        .next()
        .unwrap_or(0)
}

pub(super) fn topology(cpu: u32, hybrid_big: &[u32]) -> CpuTopology {
    let base = format!("/sys/devices/system/cpu/cpu{cpu}/topology");
    CpuTopology {
        cpu,
        socket: read_number(format!("{base}/physical_package_id")).unwrap_or(0),
        node: node_of(cpu),
        core: read_number(format!("{base}/core_id")).unwrap_or(cpu),
        efficiency_class: hybrid_big.contains(&cpu) as u32,
    }
}

pub(super) fn caches(cpus: &[u32]) -> Vec<CacheInfo> {
    let mut caches = Vec::new();
    for cpu in cpus {
        let Ok(entries) = fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}/cache")) else {
            continue;
        };
        for entry in entries.flatten() {
            let dir = entry.path();
            if !dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
            {
                continue;
            }
            let kind = match read_trimmed(dir.join("type")).as_deref() {
                Some("Data") => CacheKind::Data,
                Some("Instruction") => CacheKind::Instruction,
                _ => CacheKind::Unified,
            };
            let cache = CacheInfo {
                level: read_number(dir.join("level")).unwrap_or(0) as u8,
                kind,
                size: parse_cache_size(&read_trimmed(dir.join("size")).unwrap_or_default()),
                line: read_number(dir.join("coherency_line_size")).unwrap_or(0),
                ways: read_number(dir.join("ways_of_associativity")).unwrap_or(0),
                cpus: read_trimmed(dir.join("shared_cpu_list")).unwrap_or_default(),
            };
            if !caches.contains(&cache) {
                caches.push(cache);
            }
        }
    }
    caches.sort();
    caches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,8\n"), vec![0, 1, 2, 3, 8]);
        assert_eq!(parse_cpu_list("5"), vec![5]);
    }

    #[test]
    fn cache_sizes() {
        assert_eq!(parse_cache_size("48K"), 48 << 10);
        assert_eq!(parse_cache_size("307200K"), 307200 << 10);
        assert_eq!(parse_cache_size("2M"), 2 << 20);
    }
}
