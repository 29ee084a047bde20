//! Who else used the machine during the measured window: I/O on the devices under the targets
//! that iospd did not issue, CPU time iospd's threads waited for while other work ran, the
//! hypervisor's steal, and threads of one workload that ran at different rates. Each finding
//! states its numbers; on a shared machine they say when a result is about the neighbours as much
//! as about the device.

use crate::report::analysis::metric::PickDirection;
use crate::report::{
    CpuCheck, DeviceCheck, DeviceInterval, Directions, Measured, ThreadReport, ThreadWait,
};
use crate::system::backing::DiskStat;
use crate::units::format_size;

/// I/O the device did beyond iospd's that is worth naming: this many bytes, and this share of
/// what iospd moved (file system journals and metadata add a few percent).
const OTHER_BYTES: u64 = 16 << 20;
const OTHER_SHARE: f64 = 0.25;
/// A thread that waited for a CPU this share of the window, or steal of this share of the CPUs,
/// held the run back.
const WAIT_PERCENT: f64 = 5.0;
const STEAL_PERCENT: f64 = 5.0;
/// Threads of one workload whose rates differ by this ratio, and by more than twice their own
/// interval spread, ran unevenly.
const UNEVEN_RATIO: f64 = 1.25;

/// What the device read or wrote that iospd did not, when it is more than its file system's
/// overhead: another process shared the device. `buffered`: a target on it goes through the page
/// cache, whose readahead and writeback move data iospd did not ask for.
pub fn other_io(check: &DeviceCheck, buffered: bool) -> Vec<String> {
    let Some(device) = &check.reached else {
        return Vec::new();
    };
    let who = if buffered {
        "another process, the page cache's readahead or writeback, or the file system"
    } else {
        "another process, or the file system"
    };
    let other = |verb: &str, noun: &str, reached: (u64, u64), issued: (u64, u64)| {
        let bytes = reached.1.saturating_sub(issued.1);
        (bytes >= OTHER_BYTES && bytes as f64 > OTHER_SHARE * issued.1 as f64).then(|| {
            format!(
                "{} {verb} {} ({} {noun}) that iospd did not during the window, beside iospd's {}{}: {who} used the device too, so the result shares it; measure on an idle device, or find who with iostat -x or iotop",
                check.device,
                format_size(bytes),
                reached.0.saturating_sub(issued.0),
                format_size(issued.1),
                when(check, verb == "read")
            )
        })
    };
    [
        other(
            "read",
            "reads",
            (device.reads, device.read_bytes),
            (check.issued_reads, check.issued_read_bytes),
        ),
        other(
            "wrote",
            "writes",
            (device.writes, device.write_bytes),
            (check.issued_writes, check.issued_write_bytes),
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Under `-D`: in which intervals the device moved what iospd did not (read or written), as
/// ", in N of M intervals (-D), the most, X, in the one ending at T ms".
fn when(check: &DeviceCheck, reads: bool) -> String {
    let other = |i: &DeviceInterval| match reads {
        true => i.other_read_bytes,
        false => i.other_write_bytes,
    };
    let moved = |i: &DeviceInterval| match reads {
        true => i.stat.read_bytes,
        false => i.stat.write_bytes,
    };
    // An interval's edges are sampled within milliseconds of the workers': past a MiB and a
    // quarter of iospd's own bytes there.
    let busy: Vec<&DeviceInterval> = check
        .intervals
        .iter()
        .filter(|i| {
            let (other, own) = (other(i), moved(i).saturating_sub(other(i)));
            other >= OTHER_BYTES / 16 && other as f64 > OTHER_SHARE * own as f64
        })
        .collect();
    let Some(most) = busy.iter().max_by_key(|i| other(i)) else {
        return String::new();
    };
    format!(
        ", in {} of {} intervals (-D), the most, {}, in the one ending at {} ms",
        busy.len(),
        check.intervals.len(),
        format_size(other(most)),
        most.end_ms
    )
}

/// Under `-D`: each interval of a device with what it moved beyond iospd's I/O on the targets
/// `paths` in the same interval (its I/Os there times its mean I/O size over the window).
pub fn device_intervals(stats: &[DiskStat], paths: &[String], m: &Measured) -> Vec<DeviceInterval> {
    let on: Vec<&Directions> = m
        .targets
        .iter()
        .filter(|t| paths.contains(&t.path))
        .map(|t| &t.directions)
        .collect();
    // iospd's bytes in interval k of one direction, over its targets on the device.
    let issued = |k: usize, pick: PickDirection| -> f64 {
        on.iter()
            .map(|d| {
                let d = pick(d);
                let size = d.bytes as f64 / d.ios.max(1) as f64;
                d.intervals.get(k).map_or(0.0, |i| i.ios as f64 * size)
            })
            .sum()
    };
    let ends: Vec<u64> = m
        .targets
        .first()
        .map(|t| {
            t.directions
                .total
                .intervals
                .iter()
                .map(|i| i.end_ms)
                .collect()
        })
        .unwrap_or_default();
    stats
        .iter()
        .enumerate()
        .map(|(k, stat)| DeviceInterval {
            end_ms: ends.get(k).copied().unwrap_or(0),
            stat: *stat,
            other_read_bytes: (stat.read_bytes as f64 - issued(k, |d| &d.read)).max(0.0) as u64,
            other_write_bytes: (stat.write_bytes as f64 - issued(k, |d| &d.write)).max(0.0) as u64,
            time: Vec::new(),
        })
        .collect()
}

/// Whether iospd's threads had the CPUs: each thread's wait for one, the CPU time others used,
/// steal; with the findings.
pub fn cpu(m: &Measured) -> (CpuCheck, Vec<String>) {
    let window_ns = m.duration_s * 1e9;
    let waited: Vec<ThreadWait> = m
        .threads
        .iter()
        .filter_map(|t| {
            Some(ThreadWait {
                thread: t.thread,
                cpu: t.cpu,
                waited_percent: t.waits.run_delay_ns? as f64 * 100.0 / window_ns.max(1.0),
            })
        })
        .collect();
    let cpus = m.cpu.len().max(1) as f64;
    let (busy, steal) = (m.cpu_average.usage, m.cpu_average.steal);
    let own_ns: u64 = m
        .threads
        .iter()
        .map(|t| t.waits.cpu_user_ns + t.waits.cpu_system_ns)
        .sum();
    let own = own_ns as f64 * 100.0 / (window_ns * cpus).max(1.0);
    let check = CpuCheck {
        waited,
        others_percent: (busy - own).max(0.0),
        steal_percent: steal,
    };
    let mut flags = Vec::new();
    let mut late: Vec<&ThreadWait> = check
        .waited
        .iter()
        .filter(|w| w.waited_percent >= WAIT_PERCENT)
        .collect();
    late.sort_by(|a, b| b.waited_percent.total_cmp(&a.waited_percent));
    if !late.is_empty() {
        let listed: Vec<String> = late
            .iter()
            .take(4)
            .map(|w| {
                let on = w.cpu.map_or(String::new(), |c| format!(" on CPU {c}"));
                format!("thread {}{on} {:.1}%", w.thread, w.waited_percent)
            })
            .collect();
        let more = if late.len() > 4 {
            format!(" and {} more", late.len() - 4)
        } else {
            String::new()
        };
        flags.push(format!(
            "iospd's threads waited for a CPU while ready to run ({}{more} of the window) and other work used {:.0}% of the CPUs' time: the result measures the machine's load as much as the device; run on an idle machine, or keep other work off iospd's CPUs",
            listed.join(", "),
            check.others_percent
        ));
    }
    if check.steal_percent >= STEAL_PERCENT {
        flags.push(format!(
            "the hypervisor took {:.1}% of the CPUs' time (steal): other guests held the host, and iospd's threads and completions waited for it",
            check.steal_percent
        ));
    }
    (check, flags)
}

/// A thread's I/O rate and the spread of its intervals' rates, over all its targets.
fn rate(t: &ThreadReport) -> (f64, Option<f64>) {
    let rate = t.targets.iter().map(|x| x.directions.total.ios_per_s).sum();
    let spread = t
        .targets
        .iter()
        .map(|x| x.directions.total.ios_per_s_stddev.map(|s| s * s))
        .sum::<Option<f64>>()
        .map(f64::sqrt);
    (rate, spread)
}

/// Threads of one workload (the same targets) whose rates differ by more than their own
/// intervals vary: something (a CPU, a path to the device) held one back.
pub fn balance(m: &Measured) -> Vec<String> {
    let mut groups: Vec<(Vec<usize>, Vec<&ThreadReport>)> = Vec::new();
    for t in &m.threads {
        let key: Vec<usize> = t.targets.iter().map(|x| x.target).collect();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(t),
            None => groups.push((key, vec![t])),
        }
    }
    let mut flags = Vec::new();
    for (_, members) in groups.iter().filter(|(_, m)| m.len() >= 2) {
        let rates: Vec<(u32, f64, Option<f64>)> = members
            .iter()
            .map(|t| {
                let (r, s) = rate(t);
                (t.thread, r, s)
            })
            .collect();
        let slowest = rates.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        let fastest = rates.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        if slowest.1 <= 0.0 || fastest.1 < UNEVEN_RATIO * slowest.1 {
            continue;
        }
        let spread = match (slowest.2, fastest.2) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if spread.is_some_and(|s| fastest.1 - slowest.1 <= 2.0 * s) {
            continue;
        }
        let beyond = spread.map_or(String::new(), |s| {
            format!(", more than twice their own intervals' spread (±{s:.0})")
        });
        flags.push(format!(
            "threads of one workload ran unevenly: thread {} at {:.0} I/O per s, thread {} at {:.0} ({:.2}x){beyond}: something held the slower back (its CPU, or its path to the device), so the total is not {} times one thread's",
            slowest.0,
            slowest.1,
            fastest.0,
            fastest.1,
            fastest.1 / slowest.1,
            members.len()
        ));
    }
    flags
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn device(reads: u64, writes: u64) -> DeviceCheck {
        DeviceCheck {
            device: "vda".into(),
            paths: vec!["/t.dat".into()],
            issued_read_bytes: 1 << 30,
            issued_write_bytes: 0,
            issued_reads: 1 << 18,
            issued_writes: 0,
            time: Vec::new(),
            intervals: Vec::new(),
            reached: Some(DiskStat {
                reads: (1 << 18) + reads / 4096,
                read_bytes: (1 << 30) + reads,
                writes: writes / 65536,
                write_bytes: writes,
                ..DiskStat::default()
            }),
        }
    }

    #[test]
    fn another_writer_on_the_device_is_named_with_its_bytes_and_a_journal_is_not() {
        assert!(other_io(&device(0, 0), false).is_empty());
        // A file system's own writes during a read run: a few MiB.
        assert!(other_io(&device(0, 8 << 20), false).is_empty());
        let flags = other_io(&device(0, 2400 << 20), false);
        assert_eq!(flags.len(), 1, "{flags:?}");
        assert!(
            flags[0].starts_with("vda wrote 2.34GiB (38400 writes) that iospd did not"),
            "{flags:?}"
        );
        // Reads beyond iospd's: past a quarter of what it read.
        assert!(other_io(&device(200 << 20, 0), false).is_empty());
        let flags = other_io(&device(300 << 20, 0), true);
        assert!(flags[0].contains("readahead"), "{flags:?}");
    }

    #[test]
    fn the_intervals_with_another_s_io_are_named_and_edge_jitter_is_not() {
        let interval = |end_ms: u64, read_bytes: u64, other_read_bytes: u64| DeviceInterval {
            end_ms,
            stat: DiskStat {
                read_bytes,
                ..DiskStat::default()
            },
            other_read_bytes,
            other_write_bytes: 0,
            time: Vec::new(),
        };
        let mut check = device(300 << 20, 0);
        check.intervals = vec![
            // iospd's 160 MiB with 1.5 MiB more at the edges: jitter, not another process.
            interval(1000, (160 << 20) + (3 << 19), 3 << 19),
            interval(2000, 460 << 20, 300 << 20),
            interval(3000, 160 << 20, 0),
        ];
        let flags = other_io(&check, false);
        assert!(
            flags[0].contains(
                ", in 1 of 3 intervals (-D), the most, 300MiB, in the one ending at 2000 ms"
            ),
            "{flags:?}"
        );
    }

    /// The golden run's measured window, with `threads` made from its one thread: (rate, spread,
    /// wait for a CPU in ns, target).
    pub(crate) fn measured(
        threads: &[(f64, Option<f64>, Option<u64>, usize)],
        steal: f64,
    ) -> Measured {
        let report: crate::report::Report =
            serde_json::from_str(include_str!("../../../tests/golden/results.json")).unwrap();
        let mut m = report.timespans[0].measured.clone().unwrap();
        let one = m.threads[0].clone();
        m.threads = threads
            .iter()
            .enumerate()
            .map(|(i, &(rate, spread, wait, target))| {
                let mut t = one.clone();
                t.thread = i as u32;
                t.cpu = Some(i as u32);
                t.waits.run_delay_ns = wait;
                t.targets[0].target = target;
                t.targets[0].directions.total.ios_per_s = rate;
                t.targets[0].directions.total.ios_per_s_stddev = spread;
                t
            })
            .collect();
        m.cpu_average.steal = steal;
        m
    }

    #[test]
    fn threads_that_waited_for_a_cpu_and_steal_are_findings_and_a_quiet_run_has_none() {
        // The golden window is 1 s: 3 ms of waiting is 0.3 %.
        let quiet = measured(&[(1e5, None, Some(3_000_000), 0); 2], 0.0);
        let (check, flags) = cpu(&quiet);
        assert!(flags.is_empty(), "{flags:?}");
        assert_eq!(check.waited.len(), 2);
        assert!((check.waited[0].waited_percent - 0.3).abs() < 1e-9);
        let held = measured(
            &[
                (1e5, None, Some(3_000_000), 0),
                (1e5, None, Some(420_000_000), 0),
            ],
            0.0,
        );
        let (_, flags) = cpu(&held);
        assert_eq!(flags.len(), 1, "{flags:?}");
        assert!(
            flags[0].contains("(thread 1 on CPU 1 42.0% of the window)"),
            "{flags:?}"
        );
        let (check, flags) = cpu(&measured(&[(1e5, None, None, 0)], 12.5));
        assert!(check.waited.is_empty(), "no scheduler statistics");
        assert_eq!(flags.len(), 1, "{flags:?}");
        assert!(
            flags[0].contains("12.5% of the CPUs' time (steal)"),
            "{flags:?}"
        );
    }

    #[test]
    fn threads_of_one_workload_at_different_rates_are_a_finding_beyond_their_spread() {
        let even = measured(
            &[(1e5, Some(150.0), None, 0), (0.99e5, Some(150.0), None, 0)],
            0.0,
        );
        assert!(balance(&even).is_empty());
        let uneven = measured(
            &[(1e5, Some(150.0), None, 0), (0.5e5, Some(150.0), None, 0)],
            0.0,
        );
        let flags = balance(&uneven);
        assert_eq!(flags.len(), 1, "{flags:?}");
        assert!(
            flags[0].starts_with("threads of one workload ran unevenly: thread 1 at 50000 I/O per s, thread 0 at 100000 (2.00x)"),
            "{flags:?}"
        );
        // Within their own intervals' spread: no finding.
        let noisy = measured(
            &[(1e5, Some(40e3), None, 0), (0.5e5, Some(40e3), None, 0)],
            0.0,
        );
        assert!(balance(&noisy).is_empty());
        // Threads of different targets are different workloads.
        let apart = measured(&[(1e5, None, None, 0), (0.5e5, None, None, 1)], 0.0);
        assert!(balance(&apart).is_empty());
    }
}
