//! The memory a process may still allocate: the machine's `MemAvailable`, or less when a memory
//! cgroup (a container's limit) leaves less room.

use std::fs;
use std::path::Path;

use super::facts::read_trimmed;

/// Memory a process may still allocate, and what limits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// What sets the limit, for messages ("MemAvailable", "the memory cgroup limit of 1GiB").
    pub source: String,
    /// Why the figure may be too high (a limit that could not be read), said before the run.
    pub caveat: Option<String>,
}

/// This process's memory cgroups as /proc/self/cgroup would list them, found without /proc: the
/// directories of the cgroup hierarchies whose `cgroup.procs` hold this process's id (at most
/// 10,000 directories looked at).
pub(super) fn membership_without_proc() -> Option<String> {
    let pid = std::process::id().to_string();
    let mut lines = Vec::new();
    for (root, line) in [
        ("/sys/fs/cgroup", "0::"),
        ("/sys/fs/cgroup/unified", "0::"),
        ("/sys/fs/cgroup/memory", "1:memory:"),
    ] {
        let mut pending = vec![std::path::PathBuf::from(root)];
        let mut seen = 0;
        while let Some(dir) = pending.pop() {
            seen += 1;
            if seen > 10_000 {
                break;
            }
            let member = fs::read_to_string(dir.join("cgroup.procs"))
                .is_ok_and(|procs| procs.lines().any(|l| l.trim() == pid));
            if member {
                let relative = dir.strip_prefix(root).unwrap_or(Path::new(""));
                lines.push(format!("{line}/{}", relative.display()));
                break;
            }
            if let Ok(entries) = fs::read_dir(&dir) {
                pending.extend(
                    entries
                        .flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .map(|e| e.path()),
                );
            }
        }
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The machine's memory without /proc: free and buffer memory from sysinfo(2).
pub(super) fn sysinfo_free() -> Option<u64> {
    // SAFETY: sysinfo fills the zeroed struct it is given.
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a sysinfo struct.
    if unsafe { libc::sysinfo(&mut info) } != 0 {
        return None;
    }
    let unit = (info.mem_unit as u64).max(1);
    Some((info.freeram as u64 + info.bufferram as u64).saturating_mul(unit))
}

/// Room left under the memory cgroups this process is in (v2 `memory.max`, v1
/// `memory.limit_in_bytes`, at every level up to the root), counting reclaimable page cache as
/// free; `None` when no cgroup limits memory.
pub(super) fn cgroup_room(membership: &str) -> Option<(u64, u64)> {
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
