//! Per-CPU time counters from /proc/stat.

use std::io;

/// One CPU's time counters from /proc/stat, in clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// The CPU number.
    pub cpu: u32,
    /// user + nice.
    pub user: u64,
    /// system + irq + softirq.
    pub kernel: u64,
    /// idle + iowait.
    pub idle: u64,
    /// steal (time taken by the hypervisor).
    pub steal: u64,
}

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
}
