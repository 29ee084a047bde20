//! The Usage/User/Kernel/Idle split DiskSpd prints, from two readings of /proc/stat.
//!
//! Mapping to DiskSpd's columns: User = user + nice; Kernel = system + irq + softirq; Idle = idle +
//! iowait; Usage = User + Kernel. Steal time counts in the total but in no column, so on a busy
//! virtual machine the columns can sum to less than 100 %.

use super::CpuTimes;

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
    /// Time the hypervisor ran something else on this virtual CPU (steal), in no column above.
    #[serde(default, rename = "steal_percent")]
    pub steal: f64,
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
                steal: pct(steal),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let stolen = [CpuTimes {
            steal: 25,
            ..after[0]
        }];
        let u = usage_between(&before, &stolen)[0];
        assert_eq!((u.usage, u.steal), (44.0, 20.0));
        let idle = usage_between(&before, &before)[0];
        assert_eq!(idle.idle, 100.0);
    }
}
