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

/// Lets SIGINT and SIGTERM end this process again when whoever started it ignored them
/// (a script's background job, `nohup`'s children, some CI runners pass SIG_IGN down): every
/// command of iospd ends at Ctrl-C. Commands that stop cleanly install their own handlers later.
pub fn answer_stop_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: setting a signal's disposition to the default has no preconditions.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
}

/// A stop signal's name.
pub fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGUSR1 => "SIGUSR1".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGPIPE => "SIGPIPE".into(),
        libc::SIGXCPU => "SIGXCPU (the CPU-time limit, ulimit -t)".into(),
        libc::SIGXFSZ => "SIGXFSZ (the file-size limit, ulimit -f)".into(),
        _ => format!("signal {signal}"),
    }
}
