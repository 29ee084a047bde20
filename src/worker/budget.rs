//! Runs bounded by work (`--ios`, `--bytes`): how much a thread may still issue to a target, and
//! the count of threads still working, whose last one ends the measured window.
//!
//! A target's budget counts what is committed: I/Os completed inside the measured window plus
//! I/Os in flight. Once the window has begun every I/O in flight completes inside it (a bounded
//! thread's window ends at its last completion), so a slot is filled only while the committed
//! count is below the limit, and the window counts exactly the limit: never more, whatever was in
//! flight when it began. An I/O that completes outside the window (warm-up, or past a `-d` limit)
//! gives its share back.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::clock::Nanos;

/// What a thread may still issue to one target.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    limit_ios: u64,
    limit_bytes: u64,
    ios: u64,
    bytes: u64,
}

impl Budget {
    /// A budget of `limit_ios` I/Os and `limit_bytes` bytes (`u64::MAX`: no limit).
    pub fn new((limit_ios, limit_bytes): (u64, u64)) -> Self {
        Budget {
            limit_ios,
            limit_bytes,
            ios: 0,
            bytes: 0,
        }
    }

    /// Whether the target has no limit at all.
    pub fn unlimited(&self) -> bool {
        self.limit_ios == u64::MAX && self.limit_bytes == u64::MAX
    }

    /// Bytes left to issue (`u64::MAX` without a byte limit).
    #[inline]
    pub fn room(&self) -> u64 {
        self.limit_bytes.saturating_sub(self.bytes)
    }

    /// Whether another I/O may be issued.
    #[inline]
    pub fn open(&self) -> bool {
        self.ios < self.limit_ios && self.bytes < self.limit_bytes
    }

    /// An I/O of `len` bytes was issued.
    #[inline]
    pub fn commit(&mut self, len: u32) {
        self.ios += 1;
        self.bytes += len as u64;
    }

    /// An I/O of `len` bytes completed outside the measured window: it does not count.
    #[inline]
    pub fn release(&mut self, len: u32) {
        self.ios -= 1;
        self.bytes -= len as u64;
    }
}

/// The threads of a timespan that end by work and have not yet finished it; when the last one
/// finishes, the time of the latest completion ends the measured window. (Not the run's stop:
/// that is a request, which ends every later timespan too and tells the other ranks to stop.)
#[derive(Debug)]
pub struct Finishing {
    left: AtomicUsize,
    latest: AtomicU64,
    end: AtomicU64,
}

impl Finishing {
    /// `threads` threads whose every target is bounded.
    pub fn new(threads: usize) -> Self {
        Finishing {
            left: AtomicUsize::new(threads),
            latest: AtomicU64::new(0),
            end: AtomicU64::new(0),
        }
    }

    /// A thread finished its work, its last I/O completed at `at`.
    pub fn finished(&self, at: Nanos) {
        self.latest.fetch_max(at, Ordering::SeqCst);
        if self.left.fetch_sub(1, Ordering::SeqCst) == 1 {
            let end = self.latest.load(Ordering::SeqCst).max(1);
            self.end.store(end, Ordering::SeqCst);
        }
    }

    /// When the last thread finished its work (its latest completion); 0 until then, and
    /// always 0 when no thread is bounded.
    pub fn end(&self) -> Nanos {
        self.end.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_closes_at_its_limit_and_reopens_for_what_did_not_count() {
        let mut b = Budget::new((3, u64::MAX));
        assert!(!b.unlimited());
        for _ in 0..3 {
            assert!(b.open());
            b.commit(4096);
        }
        assert!(!b.open());
        b.release(4096);
        assert!(b.open());
        let mut bytes = Budget::new((u64::MAX, 10_000));
        bytes.commit(4096);
        bytes.commit(4096);
        assert!(bytes.open(), "8192 of 10000 bytes: one more I/O");
        bytes.commit(4096);
        assert!(!bytes.open());
        assert!(Budget::new((u64::MAX, u64::MAX)).unlimited());
    }

    #[test]
    fn the_last_thread_to_finish_ends_the_window_at_the_latest_completion() {
        let f = Finishing::new(3);
        f.finished(500);
        f.finished(900);
        assert_eq!(f.end(), 0);
        f.finished(700);
        assert_eq!(f.end(), 900);
        assert_eq!(Finishing::new(0).end(), 0);
    }
}
