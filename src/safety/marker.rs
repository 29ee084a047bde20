//! How iospd recognises its own test files: `-c` sets the extended attribute
//! `user.iospd.test-file` on every file it creates. ext4, XFS, btrfs and tmpfs (Linux 6.6+) keep
//! user attributes; on a file system that cannot, iospd's files need `--force` to be written again.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The attribute's name.
pub const ATTRIBUTE: &str = "user.iospd.test-file";

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// Marks `path` as an iospd test file.
pub fn mark(path: &Path) -> io::Result<()> {
    let path = c_path(path)?;
    let name = CString::new(ATTRIBUTE).expect("no NUL");
    let value = concat!("iospd ", env!("CARGO_PKG_VERSION"));
    // SAFETY: valid NUL-terminated strings and a buffer of the given length.
    let rc = unsafe {
        libc::setxattr(
            path.as_ptr(),
            name.as_ptr(),
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

/// Whether `path` carries the mark; an error when its attributes cannot be read at all.
pub fn is_test_file(path: &Path) -> io::Result<bool> {
    let path = c_path(path)?;
    let name = CString::new(ATTRIBUTE).expect("no NUL");
    let mut value = [0u8; 64];
    // SAFETY: valid NUL-terminated strings and a writable buffer of the given length.
    let rc = unsafe {
        libc::getxattr(
            path.as_ptr(),
            name.as_ptr(),
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
        assert!(!is_test_file(&path).unwrap());
        mark(&path).unwrap();
        assert!(is_test_file(&path).unwrap());
        assert!(is_test_file(&dir.path().join("missing")).is_err());
    }
}
