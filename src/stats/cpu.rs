//! System-wide CPU time from /proc/stat, and the Usage/User/Kernel/Idle split DiskSpd prints.
//!
//! Mapping to DiskSpd's columns: User = user + nice; Kernel = system + irq + softirq; Idle = idle +
//! iowait; Usage = User + Kernel. Steal time counts in the total but in no column, so on a busy
//! virtual machine the columns can sum to less than 100 %.

use std::io;

use super::CpuTimes;

/// Reads the per-CPU lines of /proc/stat.
pub fn read_proc_stat() -> io::Result<Vec<CpuTimes>> {
    Ok(parse_proc_stat(&std::fs::read_to_string("/proc/stat")?))
}

/// Parses the `cpuN …` lines of /proc/stat (the aggregate `cpu` line is skipped).
pub fn parse_proc_stat(text: &str) -> Vec<CpuTimes> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_ascii_whitespace();
            let cpu: u32 = fields.next()?.strip_prefix("cpu")?.parse().ok()?;
            let v: Vec<u64> = fields.take(8).filter_map(|f| f.parse().ok()).collect();
            let at = |i: usize| v.get(i).copied().unwrap_or(0);
            Some(CpuTimes {
                cpu,
                user: at(0) + at(1),
                kernel: at(2) + at(5) + at(6),
                idle: at(3) + at(4),
                steal: at(7),
            })
        })
        .collect()
}

/// One CPU's shares of the measured window, in percent.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CpuUsage {
    /// The CPU number.
    pub cpu: u32,
    /// User + Kernel.
    #[serde(rename = "usage_percent")]
    pub usage: f64,
    /// User time.
    #[serde(rename = "user_percent")]
    pub user: f64,
    /// Kernel time.
    #[serde(rename = "kernel_percent")]
    pub kernel: f64,
    /// Idle time.
    #[serde(rename = "idle_percent")]
    pub idle: f64,
}

/// Percentages between two samples, per CPU present in both.
pub fn usage_between(before: &[CpuTimes], after: &[CpuTimes]) -> Vec<CpuUsage> {
    after
        .iter()
        .filter_map(|a| {
            let b = before.iter().find(|b| b.cpu == a.cpu)?;
            let user = a.user.saturating_sub(b.user) as f64;
            let kernel = a.kernel.saturating_sub(b.kernel) as f64;
            let idle = a.idle.saturating_sub(b.idle) as f64;
            let steal = a.steal.saturating_sub(b.steal) as f64;
            let total = user + kernel + idle + steal;
            if total == 0.0 {
                return Some(CpuUsage {
                    cpu: a.cpu,
                    idle: 100.0,
                    ..CpuUsage::default()
                });
            }
            let pct = |x: f64| 100.0 * x / total;
            Some(CpuUsage {
                cpu: a.cpu,
                usage: pct(user + kernel),
                user: pct(user),
                kernel: pct(kernel),
                idle: pct(idle),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_per_cpu_lines() {
        let text = "cpu  10 0 10 80 0 0 0 0 0 0\n\
                    cpu0 5 1 3 40 2 1 1 2 0 0\n\
                    cpu1 5 0 6 40 0 0 0 0 0 0\n\
                    intr 1 2 3\n";
        let cpus = parse_proc_stat(text);
        assert_eq!(cpus.len(), 2);
        assert_eq!(
            cpus[0],
            CpuTimes {
                cpu: 0,
                user: 6,
                kernel: 5,
                idle: 42,
                steal: 2
            }
        );
    }

    #[test]
    fn percentages() {
        let before = [CpuTimes {
            cpu: 0,
            user: 0,
            kernel: 0,
            idle: 0,
            steal: 0,
        }];
        let after = [CpuTimes {
            cpu: 0,
            user: 30,
            kernel: 25,
            idle: 45,
            steal: 0,
        }];
        let u = usage_between(&before, &after)[0];
        assert_eq!(
            (u.usage, u.user, u.kernel, u.idle),
            (55.0, 30.0, 25.0, 45.0)
        );
        let idle = usage_between(&before, &before)[0];
        assert_eq!(idle.idle, 100.0);
    }
}
