//! The files a user gives iospd to read: job files and their includes, profiles, traces, results,
//! verify states, data sources. Each is opened without blocking and must be a regular file (a
//! named pipe nobody writes, a terminal or a socket would wait forever; `/dev/zero` never ends),
//! and a file read whole is read up to a bound that no real input of its kind comes near, so
//! no input can hang iospd or grow it without limit.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::units::format_size;

/// The largest job file (or include) iospd reads: fio's own examples are a few KiB.
pub const JOB_FILE_MAX: u64 = 16 << 20;
/// The largest XML profile: DiskSpd's are a few KiB, one with thousands of targets a few MiB.
pub const PROFILE_MAX: u64 = 64 << 20;
/// The largest verify state: a few bytes per block of the verified range.
pub const STATE_MAX: u64 = 4 << 30;

/// Opens `path` to read, refusing at once (without waiting on it) anything that is not a regular
/// file, or a block device when `devices` allows one. The message names what the path is and
/// what to give instead.
pub fn open(path: &Path, devices: bool) -> Result<File, String> {
    open_with(path, devices, 0)
}

/// As [`open`], with `flags` added to the open (`O_DIRECT`).
pub fn open_with(path: &Path, devices: bool, flags: libc::c_int) -> Result<File, String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | flags)
        .open(path)
        .map_err(|e| e.to_string())?;
    let kind = file.metadata().map_err(|e| e.to_string())?.file_type();
    let what = if kind.is_file() || (devices && kind.is_block_device()) {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a named pipe (FIFO), which iospd would wait on for as long as nobody writes")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("a block device")
    };
    if let Some(what) = what {
        let give = match devices {
            true => "a regular file or a block device",
            false => "a regular file",
        };
        let pipe = match kind.is_fifo() {
            true => " (save what the pipe carries to one first)",
            false => "",
        };
        return Err(format!("it is {what}; give {give}{pipe}"));
    }
    // Reads block again as usual: O_NONBLOCK only kept the open from waiting.
    // SAFETY: fcntl on a descriptor this function owns; F_SETFL takes an int.
    unsafe {
        let flags = libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&file), libc::F_GETFL);
        libc::fcntl(
            std::os::fd::AsRawFd::as_raw_fd(&file),
            libc::F_SETFL,
            flags & !libc::O_NONBLOCK,
        );
    }
    Ok(file)
}

/// Reads the regular file `path` whole, refusing one larger than `max` bytes (`what` names the
/// kind of input in the message).
pub fn read(path: &Path, max: u64, what: &str) -> Result<Vec<u8>, String> {
    let file = open(path, false)?;
    let size = file.metadata().map_err(|e| e.to_string())?.len();
    let too_large = |size: u64| {
        format!(
            "it holds {}, more than any {what} (at most {}); give the {what} itself",
            format_size(size),
            format_size(max)
        )
    };
    if size > max {
        return Err(too_large(size));
    }
    let mut data = Vec::with_capacity(size as usize);
    file.take(max + 1)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    if data.len() as u64 > max {
        return Err(too_large(data.len() as u64));
    }
    Ok(data)
}

/// [`read`] as UTF-8 text, refusing bytes that are not.
pub fn read_utf8(path: &Path, max: u64, what: &str) -> Result<String, String> {
    String::from_utf8(read(path, max, what)?).map_err(|e| {
        format!(
            "it is not valid UTF-8 text (the first bad byte is at offset {}); give the {what} as UTF-8 text",
            e.utf8_error().valid_up_to()
        )
    })
}

/// [`read`] as text (bytes that are not UTF-8 replaced, as a text reader shows them).
pub fn read_text(path: &Path, max: u64, what: &str) -> Result<String, String> {
    read(path, max, what).map(|data| match String::from_utf8(data) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// The size of a target a user names: a file's length, a block device's from sysfs; `None` when
/// it is not there.
pub fn size_of(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    if meta.file_type().is_block_device() {
        let rdev = meta.rdev();
        let sectors = std::fs::read_to_string(format!(
            "/sys/dev/block/{}:{}/size",
            libc::major(rdev),
            libc::minor(rdev)
        ))
        .ok()?;
        return sectors.trim().parse::<u64>().ok().map(|s| s * 512);
    }
    Some(meta.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_only_up_to_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Nobody writes the pipe: refused at once, not waited on.
        let why = read(&fifo, 100, "job file").unwrap_err();
        assert!(why.contains("named pipe"), "{why}");
        assert!(open(&fifo, true).unwrap_err().contains("named pipe"));
        assert!(
            read(Path::new("/dev/zero"), 100, "job file")
                .unwrap_err()
                .contains("character device")
        );
        assert!(
            read(dir.path(), 100, "job file")
                .unwrap_err()
                .contains("directory")
        );
        let file = dir.path().join("f");
        std::fs::write(&file, [b'x'; 101]).unwrap();
        let why = read(&file, 100, "job file").unwrap_err();
        assert!(why.contains("101 B") || why.contains("101"), "{why}");
        assert_eq!(read(&file, 101, "job file").unwrap().len(), 101);
        assert!(read(&dir.path().join("none"), 100, "x").is_err());
    }
}
