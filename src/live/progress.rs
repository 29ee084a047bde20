//! The live progress line on a terminal: phase, elapsed and remaining time, and the IOPS, MiB/s
//! and p99 latency of the last finished interval, rewritten in place on stderr about once a
//! second. Off when stderr is not a terminal or with `--quiet`.

use crate::stats::timeline::Row;

/// Where the run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Load on, not counted.
    WarmUp,
    /// The measured window.
    Measuring,
    /// Load on after the window.
    CoolDown,
}

/// The text of the line (without the carriage return): the phase, the time spent in it and its
/// length.
/// `length_s` is 0 for a phase with no set length.
pub fn line(phase: Phase, elapsed_s: u64, length_s: u64, last: Option<&Row>) -> String {
    let phase = match phase {
        Phase::WarmUp => "warm-up",
        Phase::Measuring => "measuring",
        Phase::CoolDown => "cool-down",
    };
    let clock = |s: u64| format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    // Short enough for 80 columns with six-digit IOPS; narrower terminals clip it.
    // A phase of no set length (a run bounded by work, no -d) shows the time spent alone.
    let mut text = match length_s {
        0 => format!("iospd: {phase} {}", clock(elapsed_s)),
        _ => format!("iospd: {phase} {}/{}", clock(elapsed_s), clock(length_s)),
    };
    if let Some(row) = last {
        let t = &row.all.total;
        text.push_str(&format!(
            " | {:.0} IOPS, {:.1} MiB/s, p99 {}",
            t.ios_per_s,
            t.bytes_per_s / 1_048_576.0,
            crate::units::format_duration(t.p99_ns as f64)
        ));
    }
    text
}

/// Rewrites the line on stderr, clipped to the terminal's width.
pub type Progress = crate::console::StatusLine;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::timeline::TargetOps;

    #[test]
    fn the_line_says_phase_time_and_the_last_interval() {
        assert_eq!(
            line(Phase::WarmUp, 3, 3665, None),
            "iospd: warm-up 0:00:03/1:01:05"
        );
        let mut ops = TargetOps::default();
        for _ in 0..1000 {
            ops.read.record(1 << 20, 1_500_000);
        }
        let row = Row::new(0, 1_000_000_000, &[ops]);
        assert_eq!(
            line(Phase::Measuring, 10, 60, Some(&row)),
            "iospd: measuring 0:00:10/0:01:00 | 1000 IOPS, 1000.0 MiB/s, p99 1.500ms"
        );
        assert_eq!(
            line(Phase::Measuring, 75, 0, None),
            "iospd: measuring 0:01:15"
        );
    }
}
