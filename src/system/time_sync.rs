//! How far the machine's wall clock can be trusted: the kernel's clock source and what NTP (or
//! PTP, through the same kernel interface) last told it. A run started at a wall-clock time
//! (`--start-at`) records this, so a merge of runs from many hosts can say how well they lined up.

use serde::{Deserialize, Serialize};

/// The wall clock's state when the run started.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    /// The kernel's clock source (`tsc`, `kvm-clock`, …), or empty when unknown.
    pub source: String,
    /// Whether a time service keeps the clock synchronised (`adjtimex` does not report
    /// TIME_ERROR).
    pub synchronised: bool,
    /// The kernel's estimated error of the clock, microseconds (what the time service said).
    pub estimated_error_us: u64,
    /// The kernel's maximum error of the clock, microseconds.
    pub maximum_error_us: u64,
}

/// Reads the clock source and the kernel's synchronisation state.
pub fn clock_state() -> ClockState {
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
    // SAFETY: a zeroed timex with modes 0 only reads the kernel's state into it.
    let mut timex: libc::timex = unsafe { std::mem::zeroed() };
    let state = unsafe { libc::adjtimex(&mut timex) };
    ClockState {
        source,
        synchronised: state >= 0 && state != libc::TIME_ERROR,
        estimated_error_us: timex.esterror.max(0) as u64,
        maximum_error_us: timex.maxerror.max(0) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_state_is_read() {
        let state = clock_state();
        // Every Linux machine has a clock source; the sync state depends on the machine.
        assert!(!state.source.is_empty());
        assert!(state.maximum_error_us >= state.estimated_error_us || !state.synchronised);
    }
}
