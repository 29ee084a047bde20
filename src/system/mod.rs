//! The machine: facts for the report header (host, kernel, CPUs, caches) and the live readings the
//! run needs (per-CPU time, the CPUs this process may use, the memory it may allocate), behind one
//! trait so tests can fake it.

pub mod backing;
mod cpu;
pub mod devclock;
mod facts;
pub mod fiemap;
mod memory;
pub mod process;
mod time_sync;

use std::fs;
use std::time::SystemTime;

pub use cpu::{CpuTimes, parse_proc_stat, read_proc_stat};
pub use facts::{CacheInfo, CacheKind, CpuTopology, SystemInfo, parse_cpu_list};
use facts::{caches, power_scheme, read_trimmed, topology};
pub use memory::Available;
pub use time_sync::{ClockState, clock_state};

/// `--cpu-set`: restricts this thread, and every thread it starts after, to `cpus`, which must
/// all be CPUs this process may use; why not, in one line, when it cannot.
pub fn restrict_cpus(cpus: &[u32]) -> Result<(), String> {
    let allowed = LinuxHost.allowed_cpus();
    if let Some(cpu) = cpus.iter().find(|c| !allowed.contains(c)) {
        return Err(format!(
            "--cpu-set: CPU {cpu} is not one this process may run on (it may use {}); name CPUs of that list",
            crate::units::cpu_list(&allowed)
        ));
    }
    // SAFETY: cpu_set_t is plain data, every index is below CPU_SETSIZE (the option checks it).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    }
    // SAFETY: a valid set of its own size, for the calling thread.
    let done = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    match done {
        0 => Ok(()),
        _ => Err(format!(
            "--cpu-set: the kernel refused the set: {}",
            std::io::Error::last_os_error()
        )),
    }
}

/// Raises this process's limit on open files as far as it may go: the hard limit, or for root the
/// kernel's `fs.nr_open`. Every target is held open by the safety gate and again for I/O, so a run
/// of thousands of targets (a fio job's nrfiles) needs more than the usual 1024.
pub fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return;
    }
    // Root (CAP_SYS_RESOURCE) may raise the hard limit too, up to the kernel's fs.nr_open.
    let ceiling = std::fs::read_to_string("/proc/sys/fs/nr_open")
        .ok()
        .and_then(|t| t.trim().parse::<libc::rlim_t>().ok())
        .filter(|&n| n > limit.rlim_max);
    for max in ceiling.into_iter().chain([limit.rlim_max]) {
        if limit.rlim_cur >= max {
            return;
        }
        let raised = libc::rlimit {
            rlim_cur: max,
            rlim_max: max,
        };
        // SAFETY: setrlimit reads one rlimit; a refusal (EPERM) changes nothing.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return;
        }
    }
}

/// How many files the process may have open (`ulimit -n`); `None` when unlimited or unreadable.
pub fn open_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    (read && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
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
    /// The counters of each device now (`None` where sysfs has none).
    fn disk_stats(&self, devices: &[backing::BlockDevice]) -> Vec<Option<backing::DiskStat>> {
        devices.iter().map(backing::disk_stat).collect()
    }
    /// Starts timing the requests of `devices`; why not, in one line, when it cannot.
    fn device_clock(
        &self,
        devices: &[backing::BlockDevice],
        sampling: devclock::Sampling,
    ) -> Result<devclock::DeviceClock, String> {
        devclock::DeviceClock::start(devices, sampling)
    }
}

/// The running Linux system.
#[derive(Debug, Default, Clone, Copy)]
pub struct LinuxHost;

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
            power_scheme: power_scheme(),
            page_size,
            cpus: online.iter().map(|&c| topology(c, &big)).collect(),
            caches: caches(&online),
            clock: clock_state(),
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
        let meminfo = fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        let machine = match meminfo {
            Some(kib) => Available {
                bytes: kib * 1024,
                source: "MemAvailable".into(),
                caveat: None,
            },
            None => Available {
                bytes: memory::sysinfo_free()?,
                source: "the free memory sysinfo reports (/proc/meminfo cannot be read)".into(),
                caveat: None,
            },
        };
        // Without /proc/self/cgroup, this process's cgroups are looked for in the hierarchies;
        // when they cannot be found either, the check is said to be incomplete.
        let membership = fs::read_to_string("/proc/self/cgroup")
            .ok()
            .or_else(memory::membership_without_proc);
        let Some(membership) = membership else {
            return Some(Available {
                caveat: Some(format!(
                    "iospd: /proc is not mounted and this process is in no cgroup hierarchy iospd can read, so its memory cgroup (a container's limit) cannot be found: the run is checked against {} ({}) only, and a lower limit would kill it without a word; mount /proc to have it checked",
                    crate::units::format_size(machine.bytes),
                    machine.source
                )),
                ..machine
            });
        };
        Some(match memory::cgroup_room(&membership) {
            Some((room, limit)) if room < machine.bytes => Available {
                bytes: room,
                source: format!(
                    "the memory cgroup's limit of {}, less what the cgroup uses",
                    crate::units::format_size(limit)
                ),
                caveat: None,
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

/// This process's place among the processes a launcher started on this host (0 when alone or
/// first): where its threads' round robin over the host's CPUs starts, so that ranks sharing a
/// host do not all pin their first thread to the same CPU.
pub fn local_rank() -> usize {
    [
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "MPI_LOCALRANKID",
        "SLURM_LOCALID",
    ]
    .iter()
    .find_map(|name| std::env::var(name).ok()?.trim().parse().ok())
    .unwrap_or(0)
}

/// Pins the calling thread to one CPU.
pub fn pin_current_thread(cpu: u32) -> std::io::Result<()> {
    allow_current_thread(&[cpu])
}

/// Lets this process's io_uring worker threads (`iou-wrk-*`) that may run on fewer than `cpus` run
/// on any of them; returns how many it widened. The kernel starts a worker with the CPU mask of
/// the thread whose I/O it takes over and keeps that thread's requested mask on it: a thread
/// pinned to one CPU (DiskSpd's default) would share that CPU with every worker the kernel hands
/// its I/O to (zram, buffered reads that miss the page cache), as if the work were its own.
pub fn widen_io_workers(cpus: &[u32]) -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    let set = cpu_set(cpus);
    let wanted = cpus
        .iter()
        .filter(|&&c| (c as usize) < libc::CPU_SETSIZE as usize)
        .count() as i32;
    let mut widened = 0;
    for task in tasks.flatten() {
        let Some(tid) = task
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<i32>().ok())
        else {
            continue;
        };
        let is_worker = std::fs::read_to_string(task.path().join("comm"))
            .is_ok_and(|comm| comm.starts_with("iou-wrk-"));
        if !is_worker {
            continue;
        }
        // SAFETY: cpu_set_t is plain data, valid all zeros; the calls read and write at most its
        // size.
        unsafe {
            let mut current: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(tid, size, &mut current) == 0
                && libc::CPU_COUNT(&current) < wanted
                && libc::sched_setaffinity(tid, size, &set) == 0
            {
                widened += 1;
            }
        }
    }
    widened
}

fn cpu_set(cpus: &[u32]) -> libc::cpu_set_t {
    // SAFETY: cpu_set_t is plain data, valid all zeros; CPU_SET writes inside it for a CPU below
    // CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus
            .iter()
            .filter(|&&c| (c as usize) < libc::CPU_SETSIZE as usize)
        {
            libc::CPU_SET(cpu as usize, &mut set);
        }
        set
    }
}

/// Lets the calling thread run on any of `cpus` (those at or past `CPU_SETSIZE` cannot be named
/// and are left out).
pub fn allow_current_thread(cpus: &[u32]) -> std::io::Result<()> {
    let set = cpu_set(cpus);
    // SAFETY: sched_setaffinity reads at most the set's size.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
