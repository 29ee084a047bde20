//! The machine: facts for the report header (host, kernel, CPUs, caches) and the live readings the
//! run needs (per-CPU time, the CPUs this process may use), behind one trait so tests can fake it.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::stats::CpuTimes;
use crate::stats::cpu::read_proc_stat;

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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemInfo {
    /// Host name.
    pub computer_name: String,
    /// CPU model.
    pub processor_name: String,
    /// Kernel name and release.
    pub kernel: String,
    /// The cpufreq governor (Linux's closest thing to a power scheme), or empty.
    pub power_scheme: String,
    /// Page size in bytes.
    #[serde(rename = "page_size_bytes")]
    pub page_size: u64,
    /// Online CPUs.
    pub cpus: Vec<CpuTopology>,
    /// Caches, one entry per instance.
    pub caches: Vec<CacheInfo>,
}

impl SystemInfo {
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

/// Memory a process may still allocate, and what limits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// What sets the limit, for messages ("MemAvailable", "the memory cgroup limit of 1GiB").
    pub source: String,
}

/// Room left under the memory cgroups this process is in (v2 `memory.max`, v1
/// `memory.limit_in_bytes`, at every level up to the root), counting reclaimable page cache as
/// free; `None` when no cgroup limits memory.
fn cgroup_room() -> Option<(u64, u64)> {
    let membership = fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut best: Option<(u64, u64)> = None;
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let (roots, limit, usage, cache): (&[&str], _, _, _) = match controllers {
            "" => (
                &["/sys/fs/cgroup", "/sys/fs/cgroup/unified"],
                "memory.max",
                "memory.current",
                "inactive_file",
            ),
            c if c.split(',').any(|c| c == "memory") => (
                &["/sys/fs/cgroup/memory"],
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "total_inactive_file",
            ),
            _ => continue,
        };
        for root in roots {
            let mut dir = Path::new(root).join(path.trim_start_matches('/'));
            loop {
                let max = read_trimmed(dir.join(limit)).and_then(|s| s.parse::<u64>().ok());
                // Limits near 2^63 mean "none" in cgroup v1.
                if let Some(max) = max.filter(|&m| m < 1 << 62) {
                    let used: u64 = read_trimmed(dir.join(usage))
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(0);
                    let reclaimable: u64 = fs::read_to_string(dir.join("memory.stat"))
                        .ok()
                        .and_then(|stat| {
                            stat.lines()
                                .find_map(|l| l.strip_prefix(cache)?.trim().parse::<u64>().ok())
                        })
                        .unwrap_or(0);
                    let room = max.saturating_sub(used.saturating_sub(reclaimable));
                    if best.is_none_or(|(r, _)| room < r) {
                        best = Some((room, max));
                    }
                }
                if !dir.pop() || !dir.starts_with(root) || dir == Path::new(root) {
                    break;
                }
            }
        }
    }
    best
}

/// Raises this process's soft limit on open files to its hard limit: every target is held open
/// by the safety gate and again for I/O, so a run of thousands of targets needs more than the
/// usual 1024.
pub fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write one rlimit each.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Where the run reads machine facts and live counters.
pub trait Host: Sync {
    /// Facts for the report header.
    fn system_info(&self) -> SystemInfo;
    /// Per-CPU time counters now.
    fn cpu_times(&self) -> Vec<CpuTimes>;
    /// CPUs this process may be scheduled on.
    fn allowed_cpus(&self) -> Vec<u32>;
    /// Wall-clock time now.
    fn wall_clock(&self) -> SystemTime;
    /// Every `-e` counter, now.
    fn counters(&self) -> Vec<crate::counters::Counter>;
    /// Memory this process may still allocate: `MemAvailable`, or less when a memory cgroup (a
    /// container's limit) leaves less room.
    fn memory_available(&self) -> Option<Available>;
    /// How many bytes io_uring may pin for registered buffers (`ulimit -l`); `None` when no limit
    /// applies (unlimited, or the process has CAP_IPC_LOCK).
    fn memlock_limit(&self) -> Option<u64>;
}

/// The running Linux system.
#[derive(Debug, Default, Clone, Copy)]
pub struct LinuxHost;

fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
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

fn topology(cpu: u32, hybrid_big: &[u32]) -> CpuTopology {
    let base = format!("/sys/devices/system/cpu/cpu{cpu}/topology");
    CpuTopology {
        cpu,
        socket: read_number(format!("{base}/physical_package_id")).unwrap_or(0),
        node: node_of(cpu),
        core: read_number(format!("{base}/core_id")).unwrap_or(cpu),
        efficiency_class: hybrid_big.contains(&cpu) as u32,
    }
}

fn caches(cpus: &[u32]) -> Vec<CacheInfo> {
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

impl Host for LinuxHost {
    fn system_info(&self) -> SystemInfo {
        let online = parse_cpu_list(
            &read_trimmed("/sys/devices/system/cpu/online").unwrap_or_else(|| "0".into()),
        );
        // Hybrid parts list their performance cores under cpu_core.
        let big = read_trimmed("/sys/devices/cpu_core/cpus")
            .map(|s| parse_cpu_list(&s))
            .unwrap_or_default();
        let processor_name = fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_default();
        let kernel = format!(
            "{} {}",
            read_trimmed("/proc/sys/kernel/ostype").unwrap_or_else(|| "Linux".into()),
            read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_default()
        );
        // SAFETY: sysconf has no memory-safety preconditions.
        let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
        SystemInfo {
            computer_name: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_default(),
            processor_name,
            kernel,
            power_scheme: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
                .unwrap_or_default(),
            page_size,
            cpus: online.iter().map(|&c| topology(c, &big)).collect(),
            caches: caches(&online),
        }
    }

    fn cpu_times(&self) -> Vec<CpuTimes> {
        read_proc_stat().unwrap_or_default()
    }

    fn allowed_cpus(&self) -> Vec<u32> {
        // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most its size.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let ok =
            unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) }
                == 0;
        if !ok {
            return parse_cpu_list(
                &read_trimmed("/sys/devices/system/cpu/online").unwrap_or_else(|| "0".into()),
            );
        }
        (0..libc::CPU_SETSIZE as u32)
            // SAFETY: the index is below CPU_SETSIZE.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu as usize, &set) })
            .collect()
    }

    fn wall_clock(&self) -> SystemTime {
        SystemTime::now()
    }

    fn counters(&self) -> Vec<crate::counters::Counter> {
        crate::counters::sample()
    }

    fn memory_available(&self) -> Option<Available> {
        let text = fs::read_to_string("/proc/meminfo").ok()?;
        let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        let machine = Available {
            bytes: kib * 1024,
            source: "MemAvailable".into(),
        };
        Some(match cgroup_room() {
            Some((room, limit)) if room < machine.bytes => Available {
                bytes: room,
                source: format!(
                    "the memory cgroup's limit of {}, less what the cgroup uses",
                    crate::cli::units::format_size(limit)
                ),
            },
            _ => machine,
        })
    }

    fn memlock_limit(&self) -> Option<u64> {
        const CAP_IPC_LOCK: u32 = 14;
        let status = fs::read_to_string("/proc/self/status").ok()?;
        let effective = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
        let caps = u64::from_str_radix(effective.trim(), 16).ok()?;
        if caps & (1 << CAP_IPC_LOCK) != 0 {
            return None;
        }
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit into the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut limit) } != 0
            || limit.rlim_cur == libc::RLIM_INFINITY
        {
            return None;
        }
        Some(limit.rlim_cur)
    }
}

/// Pins the calling thread to one CPU.
pub fn pin_current_thread(cpu: u32) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET writes inside it for cpu < CPU_SETSIZE (checked by
    // the option parser's limit); sched_setaffinity reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
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

    #[test]
    fn live_host_reads_something() {
        let host = LinuxHost;
        let info = host.system_info();
        assert!(!info.cpus.is_empty());
        assert!(info.core_count() >= 1 && info.socket_count() >= 1);
        assert!(!host.allowed_cpus().is_empty());
        assert!(!host.cpu_times().is_empty());
    }
}
