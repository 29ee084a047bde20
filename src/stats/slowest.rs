//! The slowest I/Os of a measured window, each with when and where it was: a thread keeps its
//! [`KEPT`] slowest as it goes (one compare an I/O once it holds that many), and a run keeps the
//! slowest of all its threads. A percentile says how slow the tail is; these say which I/Os it
//! was made of, so a stall can be found in a trace, a log or the device's own records.

use serde::{Deserialize, Serialize};

use crate::clock::Nanos;
use crate::engine::Op;

/// The I/Os kept.
pub const KEPT: usize = 10;

/// One slow I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowIo {
    /// From its submission to its completion being seen.
    pub latency_ns: Nanos,
    /// When it completed, from the start of the measured window.
    pub completed_ns: Nanos,
    /// Global thread number.
    pub thread: u32,
    /// Index of the target in the timespan.
    pub target: usize,
    pub op: Op,
    /// Byte offset in the target.
    pub offset: u64,
    /// Bytes it moved.
    pub len: u32,
    /// The time on the device of the request that served it, when the device clock found it.
    pub device_ns: Option<Nanos>,
}

/// The slowest I/Os seen so far, the slowest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slowest {
    ios: Vec<SlowIo>,
    /// The latency an I/O must pass to be kept: the last kept one's once [`KEPT`] are.
    floor: Nanos,
}

impl Slowest {
    /// Whether an I/O of `latency_ns` would be kept (the one compare made for every I/O).
    #[inline]
    pub fn admits(&self, latency_ns: Nanos) -> bool {
        latency_ns > self.floor
    }

    /// Keeps `io` if it is among the slowest (ties: the earlier stays).
    pub fn keep(&mut self, io: SlowIo) {
        if !self.admits(io.latency_ns) {
            return;
        }
        let at = self.ios.partition_point(|k| k.latency_ns >= io.latency_ns);
        self.ios.insert(at, io);
        self.ios.truncate(KEPT);
        if self.ios.len() == KEPT {
            self.floor = self.ios[KEPT - 1].latency_ns;
        }
    }

    /// Adds another's to these.
    pub fn merge(&mut self, other: &Slowest) {
        for &io in &other.ios {
            self.keep(io);
        }
    }

    /// The kept I/Os, the slowest first.
    pub fn ios(&self) -> &[SlowIo] {
        &self.ios
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(latency_ns: Nanos, thread: u32) -> SlowIo {
        SlowIo {
            latency_ns,
            completed_ns: latency_ns * 3,
            thread,
            target: 0,
            op: Op::Read,
            offset: latency_ns * 4096,
            len: 4096,
            device_ns: None,
        }
    }

    #[test]
    fn the_slowest_ten_are_kept_in_order_whatever_order_they_came_in() {
        let mut kept = Slowest::default();
        // 1..=1000 in a scrambled order: 7 is coprime to 1000.
        for i in 0..1000u64 {
            kept.keep(io((i * 7) % 1000 + 1, 0));
        }
        let latencies: Vec<Nanos> = kept.ios().iter().map(|k| k.latency_ns).collect();
        assert_eq!(latencies, (991..=1000).rev().collect::<Vec<_>>());
        assert!(!kept.admits(991) && kept.admits(992));
        assert_eq!(kept.ios()[0].offset, 1000 * 4096);
    }

    #[test]
    fn merging_threads_keeps_the_slowest_of_all() {
        let (mut a, mut b) = (Slowest::default(), Slowest::default());
        for i in 1..=30u64 {
            a.keep(io(i * 2, 1));
            b.keep(io(i * 2 + 1, 2));
        }
        a.merge(&b);
        let got: Vec<(Nanos, u32)> = a.ios().iter().map(|k| (k.latency_ns, k.thread)).collect();
        let want: Vec<(Nanos, u32)> = (51..=61)
            .rev()
            .take(10)
            .map(|l| (l, 2 - (l % 2 == 0) as u32))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn fewer_than_ten_are_all_kept() {
        let mut kept = Slowest::default();
        for l in [5, 9, 1] {
            kept.keep(io(l, 0));
        }
        assert_eq!(kept.ios().len(), 3);
        assert!(kept.admits(1), "the floor rises only once ten are kept");
    }
}
