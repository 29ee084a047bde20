//! The targets of a file engine (`--engine=stat|lstat|statx|unlink|create|ftruncate`), reached by
//! their directory (one descriptor for the targets in it) and name. Each name is checked to hold
//! the very file the gate cleared and the run opened — not a symbolic link to it, not another file
//! put there since — so an unlink or a create can only reach that file. For `create`, the file
//! `-c` laid out is removed here, before the run, so each I/O creates its target anew; after the
//! run, [`mark_created`] marks what the run created as iospd test files, which a later run may
//! write or remove.

use std::collections::HashMap;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::Arc;

use crate::engine::{EngineKind, FileTarget};
use crate::safety::open::{Kind, c_path, facts, facts_at};
use crate::safety::place;

/// Each target's directory and name, checked; for `create`, with the laid-out file removed.
pub(super) fn targets(
    kind: EngineKind,
    paths: &[&Path],
    fds: &[RawFd],
) -> io::Result<Vec<FileTarget>> {
    let mut dirs: HashMap<&Path, Arc<OwnedFd>> = HashMap::new();
    paths
        .iter()
        .zip(fds)
        .map(|(path, &fd)| {
            let parent = place::parent(path);
            let dir = match dirs.get(parent) {
                Some(dir) => Arc::clone(dir),
                None => {
                    let dir = Arc::new(place::open_dir(parent)?);
                    dirs.insert(parent, Arc::clone(&dir));
                    dir
                }
            };
            let target = locate(path, fd, dir)?;
            if kind == EngineKind::Create {
                // SAFETY: a directory descriptor and a NUL-terminated name, checked above to
                // hold the file the run opened.
                if unsafe { libc::unlinkat(target.dir.as_raw_fd(), target.name.as_ptr(), 0) } != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(target)
        })
        .collect()
}

/// `path`'s directory (`dir`) and name, where the name holds the file open at `fd`.
fn locate(path: &Path, fd: RawFd, dir: Arc<OwnedFd>) -> io::Result<FileTarget> {
    let shown = path.display();
    // SAFETY: the run holds `fd` open for the whole run.
    let opened = facts(unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) })?;
    if opened.kind != Kind::File {
        return Err(io::Error::other(format!(
            "'{shown}' is not a regular file; the file engines make their calls on files"
        )));
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other(format!("'{shown}' has no file name")))?;
    let name = c_path(Path::new(name))?;
    let here = facts_at(dir.as_fd(), &name, false)?;
    if here.map(|f| f.identity) != Some(opened.identity) {
        return Err(io::Error::other(format!(
            "'{shown}' does not name the file the run opened (it is a symbolic link, or was replaced); name the file itself"
        )));
    }
    Ok(FileTarget { dir, name, fd })
}

/// The directory and name of each target, kept to mark what `create` made.
pub(super) fn names(targets: &[FileTarget]) -> Vec<(Arc<OwnedFd>, CString)> {
    targets
        .iter()
        .map(|t| (Arc::clone(&t.dir), t.name.clone()))
        .collect()
}

/// Marks the files `create` made as iospd test files (a name the run did not get to holds
/// nothing, and is passed by).
pub(super) fn mark_created(names: &[(Arc<OwnedFd>, CString)]) {
    for (dir, name) in names {
        // SAFETY: a directory descriptor and a NUL-terminated name; the descriptor returned is
        // owned below.
        let fd = unsafe {
            libc::openat(
                dir.as_raw_fd(),
                name.as_ptr(),
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd >= 0 {
            // SAFETY: a fresh descriptor nobody else owns.
            let file = unsafe { File::from_raw_fd(fd) };
            let _ = crate::safety::marker::mark(&file);
        }
    }
}
