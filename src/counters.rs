//! `-e…`: DiskSpd's ETW event groups mapped to Linux counters, sampled at the edges of the measured
//! window and reported as differences.
//!
//! | DiskSpd group | Linux counter |
//! |---|---|
//! | DISK_IO | reads and writes completed by every whole disk (/proc/diskstats) |
//! | MEMORY_PAGE_FAULTS | `pgfault` and `pgmajfault` (/proc/vmstat): minor faults (all less major) stand for demand-zero faults, major ones for hard faults |
//! | MEMORY_HARD_FAULTS | `pgmajfault` |
//! | NETWORK | TCP PassiveOpens (accept), ActiveOpens (connect), connections closed (opens that
//! did not fail, less the change of CurrEstab), InSegs, OutSegs, RetransSegs; UDP InDatagrams,
//! OutDatagrams (/proc/net/snmp) |
//! | PROCESS, THREAD | tasks created (`processes` in /proc/stat; Linux creates threads as tasks)
//! and ended (created, less the change of the task count in /proc/loadavg) |
//! | IMAGE_LOAD, REGISTRY | none: the text report prints DiskSpd's lines with 0 |

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
                    ("ActiveOpens", "net.tcp_connects"),
                    ("PassiveOpens", "net.tcp_accepts"),
                    ("AttemptFails", "net.tcp_failed_connects"),
                    ("CurrEstab", "net.tcp_established"),
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
    // "0.52 0.58 0.59 2/345 6789": runnable/total tasks.
    if let Some(total) = fs::read_to_string("/proc/loadavg").ok().and_then(|text| {
        let field = text.split_whitespace().nth(3)?;
        field.split_once('/')?.1.parse::<u64>().ok()
    }) {
        push("tasks.total", total);
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
        keys.extend([
            "memory.page_faults",
            "memory.minor_faults",
            "memory.major_faults",
        ]);
    } else if groups.memory_hard_faults {
        keys.push("memory.major_faults");
    }
    if groups.network {
        keys.extend([
            "net.tcp_accepts",
            "net.tcp_connects",
            "net.tcp_disconnects",
            "net.tcp_sent",
            "net.tcp_received",
            "net.tcp_retransmitted",
            "net.udp_sent",
            "net.udp_received",
        ]);
    }
    if groups.process || groups.thread {
        keys.extend(["tasks.created", "tasks.ended"]);
    }
    keys
}

/// The change of every requested counter between two samples.
pub fn deltas(groups: &Counters, before: &[Counter], after: &[Counter]) -> Vec<Counter> {
    let change = |key: &str| -> Option<i128> {
        let b = before.iter().find(|c| c.key == key)?;
        let a = after.iter().find(|c| c.key == key)?;
        Some(a.value as i128 - b.value as i128)
    };
    keys(groups)
        .into_iter()
        .filter_map(|key| {
            let value = match key {
                // Tasks that ended: those created, less the growth of the task count.
                "tasks.ended" => change("tasks.created")? - change("tasks.total")?,
                // Connections closed: those opened (not failed), less the growth of the open ones.
                "net.tcp_disconnects" => {
                    change("net.tcp_connects")? + change("net.tcp_accepts")?
                        - change("net.tcp_failed_connects")?
                        - change("net.tcp_established")?
                }
                // Faults served without I/O (DiskSpd's demand-zero faults are among them).
                "memory.minor_faults" => {
                    change("memory.page_faults")? - change("memory.major_faults")?
                }
                _ => change(key)?,
            };
            Some(Counter {
                key: key.into(),
                value: value.clamp(0, u64::MAX as i128) as u64,
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
        // Every counter grew by 3; a derived one (closed connections) did not.
        assert!(
            d.iter()
                .filter(|c| c.key != "net.tcp_disconnects")
                .all(|c| c.value == 3)
        );
        assert!(d.iter().any(|c| c.key == "memory.major_faults"));
        assert!(!d.iter().any(|c| c.key == "memory.page_faults"));
        assert!(d.iter().any(|c| c.key == "net.tcp_sent"));
    }

    #[test]
    fn ends_and_disconnects_are_derived_from_gauges() {
        let at = |pairs: &[(&str, u64)]| -> Vec<Counter> {
            pairs
                .iter()
                .map(|&(key, value)| Counter {
                    key: key.into(),
                    value,
                })
                .collect()
        };
        let groups = Counters {
            thread: true,
            network: true,
            ..Counters::default()
        };
        let before = at(&[
            ("tasks.created", 100),
            ("tasks.total", 50),
            ("net.tcp_connects", 10),
            ("net.tcp_accepts", 5),
            ("net.tcp_failed_connects", 1),
            ("net.tcp_established", 4),
        ]);
        // 7 tasks created and the count grew by 2: 5 ended. 6 opened, 1 failed, 2 more open: 3
        // closed.
        let after = at(&[
            ("tasks.created", 107),
            ("tasks.total", 52),
            ("net.tcp_connects", 14),
            ("net.tcp_accepts", 7),
            ("net.tcp_failed_connects", 2),
            ("net.tcp_established", 6),
        ]);
        let d = deltas(&groups, &before, &after);
        let value = |key: &str| d.iter().find(|c| c.key == key).map(|c| c.value);
        assert_eq!(value("tasks.created"), Some(7));
        assert_eq!(value("tasks.ended"), Some(5));
        assert_eq!(value("net.tcp_disconnects"), Some(3));
    }
}
