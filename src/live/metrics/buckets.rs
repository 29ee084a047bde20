//! The classic histogram buckets of `iospd_latency_seconds`: fixed bounds that every host shares,
//! so Prometheus can add the buckets of many hosts (`sum by (le)`) and `histogram_quantile` reads
//! a percentile of the whole fleet. Eight bounds per decade — 1, 1.5, 2, 3, 4, 5, 6, 8 — from 1 µs
//! to 80 s: a percentile read from them is within its bucket, whose upper bound is at most 1.5
//! times its lower one (iospd's own report keeps the exact histogram).

/// The steps within a decade, in tenths.
const STEPS: [u64; 8] = [10, 15, 20, 30, 40, 50, 60, 80];
/// Decades: 1 µs (10^3 ns) to 80 s (8 × 10^10 ns).
const DECADES: u32 = 8;

/// The upper bounds, ascending, in ns (the +Inf bucket follows them).
pub const UPPER_NS: [u64; STEPS.len() * DECADES as usize] = upper_ns();

const fn upper_ns() -> [u64; STEPS.len() * DECADES as usize] {
    let mut out = [0u64; STEPS.len() * DECADES as usize];
    let mut decade = 0;
    while decade < DECADES {
        let mut step = 0;
        while step < STEPS.len() {
            // 10^(decade + 3) ns × step / 10.
            out[decade as usize * STEPS.len() + step] = STEPS[step] * 10u64.pow(decade + 2);
            step += 1;
        }
        decade += 1;
    }
    out
}

/// An upper bound in seconds, as the `le` label shows it.
pub fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_bounds_per_decade_from_a_microsecond_to_eighty_seconds() {
        assert_eq!(UPPER_NS.len(), 64);
        assert_eq!(UPPER_NS[0], 1_000);
        assert_eq!(
            &UPPER_NS[..9],
            &[
                1_000, 1_500, 2_000, 3_000, 4_000, 5_000, 6_000, 8_000, 10_000
            ]
        );
        assert_eq!(*UPPER_NS.last().unwrap(), 80_000_000_000);
        assert!(
            UPPER_NS
                .windows(2)
                .all(|w| w[1] as f64 <= w[0] as f64 * 1.5)
        );
        assert_eq!(seconds(UPPER_NS[1]), 1.5e-6);
    }
}
