//! `-y…`: DiskSpd's named events on Linux.
//!
//! A named event is a file, `/dev/shm/iospd-event-<name>` (or under `$IOSPD_EVENT_DIR` when set):
//! it is set when the file exists and clear when it does not. Any process can set one
//! (`iospd -ye<name>` or `touch`), wait for one, or clear it (`rm`), across containers that share
//! the directory. Like DiskSpd's manual-reset events, setting an event that is already set does
//! nothing, and iospd never clears an event itself.

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The file that represents event `name`.
pub fn path(name: &str) -> PathBuf {
    let dir = std::env::var_os("IOSPD_EVENT_DIR")
        .map_or_else(|| PathBuf::from("/dev/shm"), PathBuf::from);
    dir.join(format!("iospd-event-{name}"))
}

/// Sets event `name`: creates its file, empty, never through a symbolic link and never touching
/// what is already there.
pub fn set(name: &str) -> io::Result<()> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path(name))
        .map(drop)
}

/// Whether event `name` is set.
pub fn is_set(name: &str) -> bool {
    path(name).exists()
}

/// Waits until event `name` is set; returns false if a stop request came first.
pub fn wait(name: &str, stop: &AtomicU64) -> bool {
    loop {
        if is_set(name) {
            return true;
        }
        if stop.load(Ordering::Relaxed) != 0 {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_wait() {
        let name = format!("unit-{}", std::process::id());
        let _ = std::fs::remove_file(path(&name));
        assert!(!is_set(&name));
        let stop = AtomicU64::new(1);
        assert!(!wait(&name, &stop), "a stop request ends the wait");
        set(&name).unwrap();
        set(&name).unwrap();
        assert!(is_set(&name));
        assert!(wait(&name, &AtomicU64::new(0)));
        std::fs::remove_file(path(&name)).unwrap();
    }
}
