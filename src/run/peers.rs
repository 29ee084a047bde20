//! The other processes of one measurement, as the run sees them: the points where a run that spans
//! many processes (MPI ranks) must agree before it goes on, and the stop requests they pass each
//! other. A run on its own ([`Alone`]) agrees with itself at once, and starts at once or at a
//! `--start-at` wall-clock time.
//!
//! Every process calls the points in the same order: [`Peers::checked`] once, after every check
//! and before anything is written; then for each timespan [`Peers::ready`] once its threads are set
//! up, [`Peers::poll`] while the threads run, and [`Peers::done`] once they have all returned. Each
//! point returns the same answer on every process, so they stay in step: a refusal anywhere is a
//! refusal everywhere, a stop anywhere stops everyone.

use std::time::{Duration, SystemTime};

use crate::clock::{Nanos, monotonic_now};

/// A refusal or failure the other processes must hear about: the exit status and the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{message}")]
pub struct Refusal {
    /// DiskSpd's exit status: 3 for input the user can fix, 1 for a failure.
    pub code: u8,
    /// What went wrong, and where.
    pub message: String,
}

/// When a timespan's load starts.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Start {
    /// The instant on this process's monotonic clock; `None` starts at once.
    pub at: Option<Nanos>,
    /// That instant on the reference wall clock (rank 0's, or the `--start-at` time), which every
    /// process's report then carries, so their time series line up.
    pub wall: Option<SystemTime>,
}

/// The points where the processes of one measurement agree (see the module documentation).
pub trait Peers {
    /// Every check has passed here (`Ok`) or one refused; `Ok` when every process may go on.
    fn checked(&self, verdict: Result<(), Refusal>) -> Result<(), Refusal>;
    /// This process's threads of the next timespan are set up (or could not be); when to start.
    fn ready(&self, verdict: Result<(), Refusal>) -> Result<Start, Refusal>;
    /// Polled by the main thread while the timespan runs, with whether this process has stopped;
    /// `true` when another process has, so this one must stop too.
    fn poll(&self, stopped: bool) -> bool;
    /// This process's threads have returned: cut short (`Ok(true)`), ran to the end (`Ok(false)`)
    /// or failed. `Ok(true)` when any process stopped, so no further timespan runs.
    fn done(&self, verdict: Result<bool, Refusal>) -> Result<bool, Refusal>;
    /// The results this process has so far (every finished timespan and the one about to be
    /// agreed on), handed over, when wanted, before the agreement that may not come.
    fn keep(&self, _so_far: &dyn Fn() -> crate::stats::RunResults) {}
    /// `--metrics`: passes this process's live numbers on (another rank), or takes in the other
    /// ranks' (rank 0, which serves them all). Called by the main thread as intervals finish.
    /// `last` after the timespan's final interval: those numbers always go.
    fn share(&self, _metrics: &crate::live::metrics::Metrics, _last: bool) {}
}

/// A run on its own: every answer is its own, and the start is at once or at `start_at`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Alone {
    /// `--start-at`: the wall-clock time the first timespan starts.
    pub start_at: Option<SystemTime>,
}

impl Peers for Alone {
    fn checked(&self, verdict: Result<(), Refusal>) -> Result<(), Refusal> {
        verdict
    }

    fn ready(&self, verdict: Result<(), Refusal>) -> Result<Start, Refusal> {
        verdict?;
        Ok(match self.start_at {
            Some(wall) => Start {
                at: Some(instant_of(wall, SystemTime::now(), monotonic_now())),
                wall: Some(wall),
            },
            None => Start::default(),
        })
    }

    fn poll(&self, _stopped: bool) -> bool {
        false
    }

    fn done(&self, verdict: Result<bool, Refusal>) -> Result<bool, Refusal> {
        verdict
    }
}

/// The monotonic instant of wall-clock time `wall`, given that the wall clock read `wall_now` when
/// the monotonic clock read `mono_now`. A time already past is now.
pub fn instant_of(wall: SystemTime, wall_now: SystemTime, mono_now: Nanos) -> Nanos {
    match wall.duration_since(wall_now) {
        Ok(ahead) => mono_now.saturating_add(nanos(ahead)),
        Err(_) => mono_now,
    }
}

fn nanos(d: Duration) -> Nanos {
    d.as_nanos().min(u64::MAX as u128) as Nanos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_clock_time_becomes_the_monotonic_instant_as_far_ahead() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let later = now + Duration::from_millis(1500);
        assert_eq!(instant_of(later, now, 7), 7 + 1_500_000_000);
        // A time already past starts at once.
        assert_eq!(instant_of(now - Duration::from_secs(3), now, 7), 7);
    }

    #[test]
    fn alone_agrees_with_itself() {
        let alone = Alone::default();
        let refusal = Refusal {
            code: 3,
            message: "no".into(),
        };
        assert_eq!(alone.checked(Err(refusal.clone())), Err(refusal.clone()));
        assert_eq!(alone.ready(Ok(())), Ok(Start::default()));
        assert!(!alone.poll(true));
        assert_eq!(alone.done(Ok(true)), Ok(true));
        assert_eq!(alone.done(Err(refusal.clone())), Err(refusal));
    }
}
