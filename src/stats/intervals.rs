//! `-D` interval arithmetic: which buckets count and the standard deviation of IOPS across them.

/// The number of buckets a measured window of `window_ns` holds at `interval_ms`.
pub fn bucket_count(window_ns: u64, interval_ms: u32) -> usize {
    let interval_ns = interval_ms as u64 * 1_000_000;
    window_ns.div_ceil(interval_ns) as usize
}

/// Population standard deviation of IOPS across buckets, DiskSpd's way: buckets after the last one
/// that received an I/O are not counted; leading and middle empty buckets are.
pub fn iops_stddev(counts: &[u64], interval_ms: u32) -> f64 {
    let valid = counts
        .iter()
        .rposition(|&c| c > 0)
        .map_or(0, |last| last + 1);
    if valid == 0 {
        return 0.0;
    }
    let counts = &counts[..valid];
    let n = valid as f64;
    let mean = counts.iter().sum::<u64>() as f64 / n;
    let variance = counts
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    variance.sqrt() / (interval_ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_round_up() {
        assert_eq!(bucket_count(10_000_000_000, 1000), 10);
        assert_eq!(bucket_count(10_000_000_001, 1000), 11);
        assert_eq!(bucket_count(500_000_000, 1000), 1);
    }

    #[test]
    fn stddev_of_iops() {
        assert_eq!(iops_stddev(&[10, 10, 10], 1000), 0.0);
        // counts 1 and 3 per 500 ms = 2 and 6 IOPS: σ = 2 IOPS.
        assert_eq!(iops_stddev(&[1, 3], 500), 2.0);
        // trailing empty buckets do not count, leading ones do.
        assert_eq!(iops_stddev(&[0, 2, 0, 0], 1000), 1.0);
        assert_eq!(iops_stddev(&[], 1000), 0.0);
    }
}
