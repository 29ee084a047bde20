//! `-e…`: DiskSpd's ETW event groups mapped to Linux counters, sampled at the edges of the measured
//! window and reported as differences.
//!
//! | DiskSpd group | Linux counter |
//! |---|---|
//! | DISK_IO | reads and writes completed by every whole disk (/proc/diskstats) |
//! | MEMORY_PAGE_FAULTS | `pgfault` and `pgmajfault` (/proc/vmstat) |
//! | MEMORY_HARD_FAULTS | `pgmajfault` |
//! | NETWORK | TCP InSegs, OutSegs, RetransSegs; UDP InDatagrams, OutDatagrams (/proc/net/snmp) |
//! | PROCESS, THREAD | tasks created (`processes` in /proc/stat; Linux creates threads as tasks) |
//! | IMAGE_LOAD, REGISTRY | none: reported as unavailable |

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::profile::Counters;

/// One counter's value, or its change over the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// Stable key, e.g. `disk.reads`.
    pub key: String,
    /// The value.
    pub value: u64,
}

/// Every counter iospd knows, read now.
pub fn sample() -> Vec<Counter> {
    let mut out = Vec::new();
    let mut push = |key: &str, value: u64| {
        out.push(Counter {
            key: key.into(),
            value,
        })
    };
    if let Ok(text) = fs::read_to_string("/proc/diskstats") {
        let (mut reads, mut writes) = (0, 0);
        for line in text.lines() {
            let f: Vec<&str> = line.split_ascii_whitespace().collect();
            // Whole disks only: partitions would count their I/O twice.
            if f.len() > 7 && Path::new("/sys/block").join(f[2]).exists() {
                reads += f[3].parse::<u64>().unwrap_or(0);
                writes += f[7].parse::<u64>().unwrap_or(0);
            }
        }
        push("disk.reads", reads);
        push("disk.writes", writes);
    }
    if let Ok(text) = fs::read_to_string("/proc/vmstat") {
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("pgfault", v)) => push("memory.page_faults", v.trim().parse().unwrap_or(0)),
                Some(("pgmajfault", v)) => {
                    push("memory.major_faults", v.trim().parse().unwrap_or(0))
                }
                _ => {}
            }
        }
    }
    if let Ok(text) = fs::read_to_string("/proc/net/snmp") {
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.chunks(2) {
            let [names, values] = pair else { continue };
            let (Some((proto, names)), Some((_, values))) =
                (names.split_once(':'), values.split_once(':'))
            else {
                continue;
            };
            let wanted: &[(&str, &str)] = match proto {
                "Tcp" => &[
                    ("InSegs", "net.tcp_received"),
                    ("OutSegs", "net.tcp_sent"),
                    ("RetransSegs", "net.tcp_retransmitted"),
                ],
                "Udp" => &[
                    ("InDatagrams", "net.udp_received"),
                    ("OutDatagrams", "net.udp_sent"),
                ],
                _ => &[],
            };
            for (name, value) in names.split_whitespace().zip(values.split_whitespace()) {
                if let Some((_, key)) = wanted.iter().find(|(n, _)| *n == name) {
                    push(key, value.parse().unwrap_or(0));
                }
            }
        }
    }
    if let Ok(text) = fs::read_to_string("/proc/stat")
        && let Some(line) = text.lines().find(|l| l.starts_with("processes "))
    {
        push("tasks.created", line[10..].trim().parse().unwrap_or(0));
    }
    out
}

/// The keys each requested group reports, in report order.
pub fn keys(groups: &Counters) -> Vec<&'static str> {
    let mut keys = Vec::new();
    if groups.disk_io {
        keys.extend(["disk.reads", "disk.writes"]);
    }
    if groups.memory_page_faults {
        keys.extend(["memory.page_faults", "memory.major_faults"]);
    } else if groups.memory_hard_faults {
        keys.push("memory.major_faults");
    }
    if groups.network {
        keys.extend([
            "net.tcp_sent",
            "net.tcp_received",
            "net.tcp_retransmitted",
            "net.udp_sent",
            "net.udp_received",
        ]);
    }
    if groups.process || groups.thread {
        keys.push("tasks.created");
    }
    keys
}

/// The change of every requested counter between two samples.
pub fn deltas(groups: &Counters, before: &[Counter], after: &[Counter]) -> Vec<Counter> {
    keys(groups)
        .into_iter()
        .filter_map(|key| {
            let b = before.iter().find(|c| c.key == key)?;
            let a = after.iter().find(|c| c.key == key)?;
            Some(Counter {
                key: key.into(),
                value: a.value.saturating_sub(b.value),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_counters_exist_and_deltas_filter_by_group() {
        let before = sample();
        assert!(before.iter().any(|c| c.key == "memory.page_faults"));
        let groups = Counters {
            memory_hard_faults: true,
            network: true,
            ..Counters::default()
        };
        let after: Vec<Counter> = before
            .iter()
            .map(|c| Counter {
                key: c.key.clone(),
                value: c.value + 3,
            })
            .collect();
        let d = deltas(&groups, &before, &after);
        assert!(d.iter().all(|c| c.value == 3));
        assert!(d.iter().any(|c| c.key == "memory.major_faults"));
        assert!(!d.iter().any(|c| c.key == "memory.page_faults"));
        assert!(d.iter().any(|c| c.key == "net.tcp_sent"));
    }
}
