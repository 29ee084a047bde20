//! How iospd recognises its own test files: `-c` sets the extended attribute
//! `user.iospd.test-file` on every file it creates. ext4, XFS, btrfs and tmpfs (Linux 6.6+) keep
//! user attributes; on a file system that cannot, iospd's files need `--force` to be written again.
//! Both calls work on an open descriptor, so the file marked or checked is the file opened.
//!
//! The value also says whether the file is whole: `-c` marks a file before it writes it (so a file
//! left half-written by a crash is still iospd's) and marks it complete, with its size and fill,
//! once every byte is on the device; a later `-c` of the same size and fill reuses such a file.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// The attribute's name.
pub const ATTRIBUTE: &str = "user.iospd.test-file";

const NAME: &std::ffi::CStr = c"user.iospd.test-file";

/// What a mark says before a file is complete.
const PLAIN: &str = concat!("iospd ", env!("CARGO_PKG_VERSION"));

/// Marks `file` as an iospd test file, not (or no longer) known to be whole.
pub fn mark(file: &File) -> io::Result<()> {
    set(file, PLAIN)
}

/// Marks `file` as an iospd test file written in full: `size` bytes of `fill`.
pub fn mark_complete(file: &File, size: u64, fill: &str) -> io::Result<()> {
    set(file, &format!("{PLAIN} complete size={size} fill={fill}"))
}

/// The size and fill `file` was marked complete with, if it was.
pub fn completed(file: &File) -> io::Result<Option<(u64, String)>> {
    let Some(value) = get(file)? else {
        return Ok(None);
    };
    let mut words = value.split(' ');
    let (Some("iospd"), Some(_version), Some("complete"), Some(size), Some(fill), None) = (
        words.next(),
        words.next(),
        words.next(),
        words.next(),
        words.next(),
        words.next(),
    ) else {
        return Ok(None);
    };
    let size = size.strip_prefix("size=").and_then(|s| s.parse().ok());
    let fill = fill.strip_prefix("fill=");
    Ok(size.zip(fill).map(|(size, fill)| (size, fill.to_string())))
}

fn set(file: &File, value: &str) -> io::Result<()> {
    // SAFETY: a valid descriptor, a NUL-terminated name and a buffer of the given length.
    let rc = unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            NAME.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether `file` carries the mark; an error when its attributes cannot be read at all.
pub fn is_test_file(file: &File) -> io::Result<bool> {
    Ok(get(file)?.is_some())
}

/// The mark's value, if `file` carries one.
fn get(file: &File) -> io::Result<Option<String>> {
    let mut value = [0u8; 128];
    // SAFETY: a valid descriptor, a NUL-terminated name and a writable buffer of the given length.
    let rc = unsafe {
        libc::fgetxattr(
            file.as_raw_fd(),
            NAME.as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    if rc >= 0 {
        return Ok(Some(
            String::from_utf8_lossy(&value[..rc as usize]).into_owned(),
        ));
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::ENODATA) => Ok(None),
        // Longer than any value iospd writes: someone else's, but the mark is there.
        Some(libc::ERANGE) => Ok(Some(String::new())),
        _ => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_recognises() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        std::fs::write(&path, b"x").unwrap();
        let file = File::open(&path).unwrap();
        assert!(!is_test_file(&file).unwrap());
        mark(&file).unwrap();
        assert!(is_test_file(&File::open(&path).unwrap()).unwrap());
        assert_eq!(completed(&file).unwrap(), None, "marked, not yet whole");
        mark_complete(&file, 1 << 30, "pattern").unwrap();
        assert!(is_test_file(&file).unwrap());
        assert_eq!(
            completed(&file).unwrap(),
            Some((1 << 30, "pattern".to_string()))
        );
        mark(&file).unwrap();
        assert_eq!(completed(&file).unwrap(), None, "no longer known whole");
    }
}
