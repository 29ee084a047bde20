//! Time: one trait so that whole runs can be driven by a fake clock and compared byte for byte.
//!
//! The worker reads the clock once per submitted batch and once per reaped batch; the run
//! controller reads it to place the phases. Times are nanoseconds on one monotonic axis.

use std::cell::Cell;
use std::time::Duration;

/// Nanoseconds on a monotonic axis.
pub type Nanos = u64;

/// A source of monotonic time, cloned into every worker thread.
pub trait Clock: Clone + Send {
    /// The current time.
    fn now(&self) -> Nanos;
    /// Pauses the calling thread (the fake clock just moves forward).
    fn sleep(&self, duration: Nanos);
}

/// CLOCK_MONOTONIC, read through the vDSO (~20 ns, no syscall).
#[derive(Debug, Clone, Copy, Default)]
pub struct Monotonic;

impl Clock for Monotonic {
    #[inline]
    fn now(&self) -> Nanos {
        monotonic_now()
    }

    fn sleep(&self, duration: Nanos) {
        std::thread::sleep(Duration::from_nanos(duration));
    }
}

/// CLOCK_MONOTONIC in nanoseconds; async-signal-safe, so signal handlers may call it.
#[inline]
pub fn monotonic_now() -> Nanos {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A seed for bare `-z`: DiskSpd uses the tick count; so do we (milliseconds, truncated to 32 bits).
pub fn coarse_seed() -> u32 {
    (monotonic_now() / 1_000_000) as u32
}

/// A deterministic clock for tests: every read moves time forward by a pseudo-random step drawn
/// from a fixed sequence, so latencies vary but every run is identical.
#[derive(Debug, Clone)]
pub struct FakeClock {
    now: Cell<Nanos>,
    state: Cell<u64>,
    mean_step: Nanos,
}

impl FakeClock {
    /// A clock starting at `start` whose reads advance by `mean_step / 2 .. 3 * mean_step / 2`.
    pub fn new(start: Nanos, mean_step: Nanos) -> Self {
        FakeClock {
            now: Cell::new(start),
            state: Cell::new(0x9E37_79B9_7F4A_7C15),
            mean_step: mean_step.max(2),
        }
    }

    fn step(&self) -> Nanos {
        // xorshift64: fixed sequence, no dependency on anything outside the clock.
        let mut x = self.state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state.set(x);
        self.mean_step / 2 + x % self.mean_step
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Nanos {
        let t = self.now.get() + self.step();
        self.now.set(t);
        t
    }

    fn sleep(&self, duration: Nanos) {
        self.now.set(self.now.get() + duration);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_moves_forward() {
        let a = Monotonic.now();
        let b = Monotonic.now();
        assert!(b >= a);
    }

    #[test]
    fn fake_clock_is_deterministic_and_bounded() {
        let a = FakeClock::new(1000, 100);
        let b = a.clone();
        let steps_a: Vec<Nanos> = (0..100).map(|_| a.now()).collect();
        let steps_b: Vec<Nanos> = (0..100).map(|_| b.now()).collect();
        assert_eq!(steps_a, steps_b);
        let mut last = 1000;
        for t in steps_a {
            assert!((50..150).contains(&(t - last)), "step {}", t - last);
            last = t;
        }
        a.sleep(1_000_000);
        assert!(a.now() > last + 1_000_000);
    }
}
