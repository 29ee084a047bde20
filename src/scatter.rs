//! A bijection of `0..n` that spreads neighbours apart: `i × stride mod n` with `stride` coprime
//! to `n` near n × 0.618 (the golden ratio's fraction, which keeps consecutive images far apart).
//! `--distribution` scatters popularity ranks over a target's positions with it, and `--dedupe`
//! scatters unique and duplicate units, so that every class keeps an exact count and no region of
//! the target holds one class alone.

/// `i ↦ i × stride mod n` and its inverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scatter {
    n: u64,
    stride: u64,
    inverse: u64,
}

impl Scatter {
    /// The scatter of `0..n` (`n` ≥ 1; 0 is taken as 1).
    pub fn new(n: u64) -> Self {
        let n = n.max(1);
        let stride = coprime_near(n, (n as f64 * 0.618_033_988_75) as u64);
        Scatter {
            n,
            stride,
            inverse: inverse_mod(stride, n),
        }
    }

    /// The identity of `0..n`: ranks stay in order (a pool's files, the first the hottest).
    pub fn identity(n: u64) -> Self {
        Scatter {
            n: n.max(1),
            stride: 1,
            inverse: 1,
        }
    }

    /// The image of `i` < n.
    #[inline]
    pub fn forward(&self, i: u64) -> u64 {
        mul_mod(i, self.stride, self.n)
    }

    /// The `i` whose image is `image` < n.
    #[inline]
    pub fn back(&self, image: u64) -> u64 {
        mul_mod(image, self.inverse, self.n)
    }
}

/// `a × b mod n` for `a`, `b` < `n`: in 64 bits when the product fits (n < 2³², every target of
/// up to 16 TiB at 4 KiB), where a 128-bit remainder is a library call.
#[inline]
fn mul_mod(a: u64, b: u64, n: u64) -> u64 {
    if n <= u32::MAX as u64 {
        a * b % n
    } else {
        (a as u128 * b as u128 % n as u128) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The first number from `near` (at least 1) that is coprime with `n`.
fn coprime_near(n: u64, near: u64) -> u64 {
    let mut s = near.max(1);
    while gcd(s, n) != 1 {
        s += 1;
    }
    s % n.max(2)
}

/// `a`⁻¹ modulo `n` for `a` coprime with `n` (0 when n = 1).
fn inverse_mod(a: u64, n: u64) -> u64 {
    if n == 1 {
        return 0;
    }
    let (mut r0, mut r1) = (n as i128, a as i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    t0.rem_euclid(n as i128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bijection_with_its_inverse() {
        for n in [1u64, 2, 3, 10, 1000, 1024, 4093, 65536] {
            let s = Scatter::new(n);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let image = s.forward(i);
                assert!(!seen[image as usize], "n={n}: {image} twice");
                seen[image as usize] = true;
                assert_eq!(s.back(image), i, "n={n}");
            }
        }
        let big = Scatter::new((1 << 40) + 7);
        for i in [0, 1, 12345, (1 << 40) + 6] {
            assert_eq!(big.back(big.forward(i)), i);
        }
    }

    #[test]
    fn neighbours_land_far_apart() {
        let n = 10_000;
        let s = Scatter::new(n);
        for i in 0..n - 1 {
            let gap = s.forward(i).abs_diff(s.forward(i + 1));
            assert!(gap.min(n - gap) > n / 10, "{i}: gap {gap}");
        }
    }
}
