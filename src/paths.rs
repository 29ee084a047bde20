//! Where iospd will create a file (a `-c` test file, an `--output` report): checked before
//! anything is written, so a typo in a directory name is a clear error, not a failed run.

use std::ffi::CString;
use std::fs;
use std::io;
use std::path::Path;

/// The directory `path` would be created in.
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks that a file can be created at `path`: its directory exists and may be written. Returns
/// the directory's metadata, or what is wrong and how to fix it.
pub fn creatable(path: &Path) -> Result<fs::Metadata, String> {
    let dir = parent(path);
    let shown = dir.display();
    let meta = match fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(format!(
                "the directory '{shown}' does not exist; create it first or check the path"
            ));
        }
        Err(e) => return Err(format!("cannot look at '{shown}': {e}; check the path")),
    };
    if !meta.is_dir() {
        return Err(format!("'{shown}' is not a directory; check the path"));
    }
    let c_dir = CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("'{shown}' contains a NUL byte"))?;
    // SAFETY: a valid NUL-terminated path.
    if unsafe { libc::access(c_dir.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        let error = io::Error::last_os_error();
        let fix = if error.raw_os_error() == Some(libc::EROFS) {
            "the file system is read-only; choose another directory"
        } else {
            "check its permissions, or choose another directory"
        };
        return Err(format!(
            "files cannot be created in '{shown}' ({error}); {fix}"
        ));
    }
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(format!("'{}' is a directory; name a file", path.display()));
    }
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_non_directory_parents_are_named() {
        let dir = tempfile::tempdir().unwrap();
        assert!(creatable(&dir.path().join("new.dat")).is_ok());
        let missing = creatable(&dir.path().join("nope/new.dat")).unwrap_err();
        assert!(missing.contains("does not exist"), "{missing}");
        let file = dir.path().join("file");
        fs::write(&file, b"x").unwrap();
        let not_dir = creatable(&file.join("new.dat")).unwrap_err();
        assert!(not_dir.contains("cannot look at") || not_dir.contains("not a directory"));
        let is_dir = creatable(dir.path()).unwrap_err();
        assert!(is_dir.contains("is a directory"), "{is_dir}");
        assert_eq!(parent(Path::new("t.dat")), Path::new("."));
    }
}
