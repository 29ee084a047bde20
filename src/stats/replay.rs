//! What a replay measured of its own timing: each I/O's lateness (its submission stamp less the
//! time the trace scheduled it for), how many were later than the stated bound, how often the
//! depth cap held a due I/O back, and the I/O issued per second next to the trace's own count.

use super::histogram::LatencyHistogram;

/// A replaying thread's timing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayStats {
    /// Submission stamp − scheduled time, per I/O (as fast as possible: none recorded).
    pub lateness: LatencyHistogram,
    /// I/Os later than `late_ns`.
    pub late: u64,
    /// The bound, ns.
    pub late_ns: u64,
    /// I/Os issued.
    pub issued: u64,
    /// I/Os that fell due while every slot was busy (the depth cap held them back).
    pub held_by_depth: u64,
    /// The first and last submission, from the replay's start, ns.
    pub first_submit_ns: u64,
    /// See `first_submit_ns`.
    pub last_submit_ns: u64,
    /// The last I/O's scheduled time from the start, ns.
    pub last_due_ns: u64,
    /// Per second of run time: I/Os issued and their bytes.
    pub per_second: Vec<(u64, u64)>,
    /// Per second of run time: I/Os and bytes the trace scheduled.
    pub trace_per_second: Vec<(u64, u64)>,
    /// I/Os the trace held (kept by the filters and mapped onto a target).
    pub trace_events: u64,
    /// The trace could not be read again during the run.
    pub trace_error: Option<String>,
    /// Whether time was ignored (`--speed=max`).
    pub as_fast_as_possible: bool,
    /// The trace was replayed to its end or to the cut (`-d`): that, not a stop, closed the
    /// measured window.
    pub ended: bool,
    /// The replay reached its cut (`-d`) before the trace's end: the trace's later I/O was not
    /// issued.
    pub cut: bool,
    /// The cut, from the replay's start, ns.
    pub cut_ns: u64,
}

impl ReplayStats {
    /// Counts an I/O submitted at `stamp` that was due at `due` (both from the start).
    #[inline]
    pub fn submitted(&mut self, due: u64, stamp: u64, len: u32) {
        if self.issued == 0 {
            self.first_submit_ns = stamp;
        }
        self.issued += 1;
        self.last_submit_ns = stamp;
        self.last_due_ns = due;
        if !self.as_fast_as_possible {
            let late = stamp.saturating_sub(due);
            self.lateness.record(late);
            if late > self.late_ns {
                self.late += 1;
            }
        }
        let second = (stamp / 1_000_000_000) as usize;
        if self.per_second.len() <= second {
            self.per_second.resize(second + 1, (0, 0));
        }
        self.per_second[second].0 += 1;
        self.per_second[second].1 += len as u64;
    }
}
