//! A keyed random permutation of `0..n` in constant memory: `--random-map`'s offsets without
//! replacement (fio's random map, which fio keeps as a bitmap or walks with an LFSR).
//!
//! On the smallest power-of-two domain `0..2^k` that holds `n`, four rounds of invertible steps
//! (xor with a key word, multiplication by an odd constant, a right xorshift, each modulo 2^k)
//! make a bijection that depends on the key; cycle walking (apply it again until the image is
//! below `n`) restricts it to `0..n`, still a bijection. `n` > 2^(k−1), so a walk takes fewer
//! than two steps on average. Each new key (drawn from the thread's generator at every pass) gives
//! another order.

/// Odd multipliers, one per round (any odd number is invertible modulo 2^k).
const MULTIPLIERS: [u64; 4] = [
    0x9E37_79B9_7F4A_7C15,
    0xD6E8_FEB8_6659_FD93,
    0xA076_1D64_78BD_642F,
    0xE703_7ED1_A0B4_28DB,
];

/// A bijection of `0..n` chosen by a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permutation {
    n: u64,
    bits: u32,
    mask: u64,
    keys: [u64; 4],
}

impl Permutation {
    /// The permutation of `0..n` (`n` ≥ 1; 0 is taken as 1) keyed by `key`.
    pub fn new(n: u64, key: u64) -> Self {
        let n = n.max(1);
        let bits = 64 - (n - 1).leading_zeros();
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        let mut state = key;
        let keys = std::array::from_fn(|_| crate::rng::splitmix64(&mut state));
        Permutation {
            n,
            bits,
            mask,
            keys,
        }
    }

    /// How many values it orders.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether it orders a single value (there is no empty permutation).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The image of `i` < n.
    #[inline]
    pub fn at(&self, i: u64) -> u64 {
        let mut x = i;
        loop {
            x = self.round_trip(x);
            if x < self.n {
                return x;
            }
        }
    }

    /// The bijection of `0..2^bits`.
    #[inline]
    fn round_trip(&self, mut x: u64) -> u64 {
        let shift = (self.bits / 2).max(1);
        for (key, multiplier) in self.keys.iter().zip(MULTIPLIERS) {
            x = (x ^ key) & self.mask;
            x = x.wrapping_mul(multiplier) & self.mask;
            x ^= x >> shift;
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_appears_once() {
        for n in [1, 2, 3, 5, 64, 65, 1000, 4097] {
            for key in [0, 1, 0xdead_beef] {
                let p = Permutation::new(n, key);
                let mut seen = vec![false; n as usize];
                for i in 0..n {
                    let v = p.at(i);
                    assert!(v < n, "n {n} key {key}: {i} → {v}");
                    assert!(!seen[v as usize], "n {n} key {key}: {v} twice");
                    seen[v as usize] = true;
                }
            }
        }
    }

    #[test]
    fn keys_give_different_orders_and_neighbours_are_spread() {
        let n = 10_000;
        let a = Permutation::new(n, 1);
        let b = Permutation::new(n, 2);
        let same = (0..n).filter(|&i| a.at(i) == b.at(i)).count();
        assert!(same < 10, "{same} of {n} equal between two keys");
        // Consecutive draws land far apart: the mean gap is about n / 3, as for independent draws.
        let gaps: u64 = (1..n).map(|i| a.at(i).abs_diff(a.at(i - 1))).sum();
        let mean = gaps as f64 / (n - 1) as f64;
        assert!(
            (n as f64 / 3.0 * 0.9..n as f64 / 3.0 * 1.1).contains(&mean),
            "{mean}"
        );
        // The first half of a pass covers both halves of the range about equally.
        let low = (0..n / 2).filter(|&i| a.at(i) < n / 2).count() as f64;
        assert!((low / (n / 2) as f64 - 0.5).abs() < 0.03, "{low}");
    }
}
