//! How iospd recognises its own test files: `-c` sets the extended attribute
//! `user.iospd.test-file` on every file it creates. ext4, XFS, btrfs and tmpfs (Linux 6.6+) keep
//! user attributes; on a file system that cannot, iospd's files need `--force` to be written again.
//! Both calls work on an open descriptor, so the file marked or checked is the file opened.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// The attribute's name.
pub const ATTRIBUTE: &str = "user.iospd.test-file";

const NAME: &std::ffi::CStr = c"user.iospd.test-file";

/// Marks `file` as an iospd test file.
pub fn mark(file: &File) -> io::Result<()> {
    let value = concat!("iospd ", env!("CARGO_PKG_VERSION"));
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
    let mut value = [0u8; 64];
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
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::ENODATA) => Ok(false),
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
    }
}
