//! `--bssplit`: each target's reads and writes by block size, every thread (or every run merged)
//! added, as rates over the window and latency.

use crate::report::model::{BlockSizeReport, SizeOps, SizeRow};
use crate::stats::intervals::Interval;
use crate::stats::sizes::SizeStats;

/// Per path, its counts by size so far.
pub(crate) type BySize = Vec<(String, SizeStats)>;

/// Adds a thread's counts on `path`.
pub(crate) fn add(sums: &mut BySize, path: &str, stats: &SizeStats) {
    match sums.iter_mut().find(|(p, _)| p == path) {
        Some((_, sum)) => sum.merge(stats),
        None => sums.push((path.to_string(), stats.clone())),
    }
}

/// Adds what a report of a window holds (merging runs): each size's counts as it printed them.
pub(crate) fn add_reported(sums: &mut BySize, reports: &[BlockSizeReport]) {
    for r in reports {
        let back = |o: &SizeOps| Interval {
            count: o.ios,
            min_ns: o.min_ns,
            max_ns: o.max_ns,
            sum_ns: (o.mean_ns * o.ios as f64).round() as u64,
            sum_sq: ((o.stddev_ns.powi(2) + o.mean_ns.powi(2)) * o.ios as f64).round() as u128,
        };
        let stats = SizeStats {
            sizes: r.sizes.iter().map(|s| s.size_bytes).collect(),
            read: r.sizes.iter().map(|s| back(&s.read)).collect(),
            write: r.sizes.iter().map(|s| back(&s.write)).collect(),
        };
        add(sums, &r.path, &stats);
    }
}

/// The figures of each path's sizes over a window of `seconds`.
pub(crate) fn report(sums: BySize, seconds: f64) -> Vec<BlockSizeReport> {
    let rate = |n: f64| if seconds > 0.0 { n / seconds } else { 0.0 };
    let ops = |i: &Interval, size: u64| {
        let n = i.count as f64;
        let mean = if i.count > 0 {
            i.sum_ns as f64 / n
        } else {
            0.0
        };
        let variance = if i.count > 0 {
            (i.sum_sq as f64 / n - mean * mean).max(0.0)
        } else {
            0.0
        };
        SizeOps {
            ios: i.count,
            bytes: i.count * size,
            ios_per_s: rate(n),
            bytes_per_s: rate(n * size as f64),
            min_ns: if i.count > 0 { i.min_ns } else { 0 },
            mean_ns: mean,
            max_ns: i.max_ns,
            stddev_ns: variance.sqrt(),
        }
    };
    sums.into_iter()
        .map(|(path, s)| BlockSizeReport {
            path,
            sizes: s
                .sizes
                .iter()
                .enumerate()
                .map(|(k, &size)| SizeRow {
                    size_bytes: size,
                    read: ops(&s.read[k], size),
                    write: ops(&s.write[k], size),
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Op;

    #[test]
    fn sizes_become_rates_and_latency_and_merge_back() {
        let mut a = SizeStats::new(vec![4096, 65536]);
        for latency in [100, 300] {
            a.record(Op::Read, 0, latency);
        }
        a.record(Op::Write, 1, 1000);
        let mut sums = BySize::new();
        add(&mut sums, "t", &a);
        add(&mut sums, "t", &a);
        let reports = report(sums, 2.0);
        let r = &reports[0].sizes[0].read;
        assert_eq!(
            (r.ios, r.bytes, r.min_ns, r.max_ns),
            (4, 4 * 4096, 100, 300)
        );
        assert_eq!((r.ios_per_s, r.mean_ns, r.stddev_ns), (2.0, 200.0, 100.0));
        assert_eq!(reports[0].sizes[1].write.bytes_per_s, 65536.0);
        let mut again = BySize::new();
        add_reported(&mut again, &reports);
        add_reported(&mut again, &reports);
        let doubled = report(again, 4.0);
        assert_eq!(doubled[0].sizes[0].read.ios, 8);
        assert_eq!(doubled[0].sizes[0].read.stddev_ns, 100.0);
    }
}
