//! DiskSpd's exit statuses, which scripts test.

/// Exit status for a run that failed after starting.
pub const EXIT_RUN_ERROR: u8 = 1;
/// Exit status for bad input (DiskSpd's code for a command-line error).
pub const EXIT_BAD_INPUT: u8 = 3;

/// The exit status of a run or command stopped by `signal`: the shell's 128 + signal number (130
/// for Ctrl-C, 143 for SIGTERM), so scripts can tell a run cut short from a finished one.
pub fn interrupted_status(signal: i32) -> u8 {
    (128 + signal).clamp(129, 255) as u8
}

/// A stop signal's name.
pub fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGUSR1 => "SIGUSR1".into(),
        _ => format!("signal {signal}"),
    }
}
