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
}

/// Room left under the memory cgroups this process is in (v2 `memory.max`, v1
/// `memory.limit_in_bytes`, at every level up to the root), counting reclaimable page cache as
/// free; `None` when no cgroup limits memory.
pub(super) fn cgroup_room() -> Option<(u64, u64)> {
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
