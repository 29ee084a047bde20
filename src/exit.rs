//! DiskSpd's exit statuses, which scripts test.

/// Exit status for a run that failed after starting.
pub const EXIT_RUN_ERROR: u8 = 1;
/// Exit status for bad input (DiskSpd's code for a command-line error).
pub const EXIT_BAD_INPUT: u8 = 3;
