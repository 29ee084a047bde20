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

/// From the first instruction of `main` until a command installs its own handling: SIGINT,
/// SIGTERM and SIGHUP end the process at once with one line that says nothing was measured, so a
/// signal that comes while iospd starts (before a run could keep anything) is never a silent exit.
/// SIGINT and SIGTERM are answered even when whoever started iospd ignored them (a script's
/// background job inherits SIGINT ignored): every command of iospd ends at Ctrl-C. A SIGHUP that
/// was ignored (`nohup`) stays ignored.
pub fn answer_stop_signals() {
    // on_early_stop calls only async-signal-safe functions (write, _exit).
    handle_stops(
        &[libc::SIGINT, libc::SIGTERM, libc::SIGHUP],
        on_early_stop,
        0,
    );
}

/// Sends each of `signals` to `handler` (which must call only async-signal-safe functions), with
/// `flags` (`SA_RESTART` or 0); a SIGHUP that was ignored (`nohup`) stays ignored.
pub(crate) fn handle_stops(
    signals: &[libc::c_int],
    handler: extern "C" fn(libc::c_int),
    flags: libc::c_int,
) {
    for &signal in signals {
        if signal == libc::SIGHUP && ignored(signal) {
            continue;
        }
        // SAFETY: the sigaction struct is fully initialised; the handler is async-signal-safe
        // as the caller promises.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as usize;
            action.sa_flags = flags;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Whether `signal` is ignored now (inherited so, or set so).
pub fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one into a zeroed struct.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

extern "C" fn on_early_stop(signal: libc::c_int) {
    let line: &[u8] = match signal {
        libc::SIGINT => {
            b"iospd: SIGINT came before anything was measured: nothing was measured or written\n"
        }
        libc::SIGTERM => {
            b"iospd: SIGTERM came before anything was measured: nothing was measured or written\n"
        }
        _ => b"iospd: SIGHUP came before anything was measured: nothing was measured or written\n",
    };
    // SAFETY: write and _exit are async-signal-safe; the buffer is static.
    unsafe {
        libc::write(libc::STDERR_FILENO, line.as_ptr().cast(), line.len());
        libc::_exit(interrupted_status(signal) as libc::c_int);
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
