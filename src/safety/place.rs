//! Places where iospd creates files: report, time-series, log and trace outputs, and `-c` test
//! files that do not exist yet.
//!
//! A place is a directory opened once and a name checked in it. A new file is only ever made with
//! `O_CREAT | O_EXCL | O_NOFOLLOW`, so nothing that appears at the name later — a file, a symbolic
//! link to a device — is opened instead. An output is written to a fresh temporary file in that
//! directory and then exchanged with what was checked at the name (`renameat2`): if the name no
//! longer holds what was checked, the exchange is undone and nothing is replaced. So an output is
//! never written through a symbolic link or into a device, and an existing output is replaced
//! whole, never truncated in place.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::open::{self, Facts, Identity, Kind};

/// A directory and a name in it, checked.
#[derive(Debug)]
pub struct Place {
    path: PathBuf,
    dir: OwnedFd,
    dir_identity: Identity,
    name: CString,
    /// What was at the name when checked (not following a symbolic link), then what iospd put
    /// there last.
    found: Option<Facts>,
    /// That file, held open (`O_PATH`) so its inode cannot be freed and its number reused by
    /// another file while iospd compares numbers.
    held: Option<OwnedFd>,
    /// What a symbolic link at the name reached.
    reached: Option<Facts>,
}

/// A directory entry: the directory and the name in it.
pub type Key = (Identity, CString);

/// The directory `path` would be created in.
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

impl Place {
    /// Checks where `path` would be created: its directory exists and may be written, and the name
    /// holds nothing, a regular file, or a symbolic link that reaches nothing or a regular file.
    /// The error says what is wrong and how to fix it.
    pub fn locate(path: &Path) -> Result<Place, String> {
        let shown = path.display();
        let name = match path.file_name() {
            Some(name) if !path.as_os_str().as_bytes().ends_with(b"/") => name,
            _ => {
                return Err(format!(
                    "'{shown}' names a directory, not a file; name a file"
                ));
            }
        };
        let dir_path = parent(path);
        let dir_shown = dir_path.display();
        let dir = open_dir(dir_path).map_err(|e| match e.raw_os_error() {
            Some(libc::ENOENT) => format!(
                "the directory '{dir_shown}' does not exist; create it first or check the path"
            ),
            Some(libc::ENOTDIR) => format!("'{dir_shown}' is not a directory; check the path"),
            Some(libc::EMFILE) => cannot_look(&dir_shown, &e),
            _ => format!("cannot look at '{dir_shown}': {e}; check the path"),
        })?;
        let dir_identity = open::facts(dir.as_fd())
            .map_err(|e| cannot_look(&dir_shown, &e))?
            .identity;
        let dot = CString::new(".").expect("no NUL");
        // SAFETY: a valid directory descriptor and a NUL-terminated name.
        if unsafe { libc::faccessat(dir.as_raw_fd(), dot.as_ptr(), libc::W_OK | libc::X_OK, 0) }
            != 0
        {
            let error = io::Error::last_os_error();
            let fix = if error.raw_os_error() == Some(libc::EROFS) {
                "the file system is read-only; choose another directory"
            } else {
                "check its permissions, or choose another directory"
            };
            return Err(format!(
                "files cannot be created in '{dir_shown}' ({error}); {fix}"
            ));
        }
        let name = CString::new(name.as_bytes()).map_err(|_| "the path contains a NUL byte")?;
        let look = |follow| {
            open::facts_at(dir.as_fd(), &name, follow).map_err(|e| cannot_look(&shown, &e))
        };
        let held = open_at(&dir, &name, libc::O_PATH | libc::O_NOFOLLOW)
            .map(Some)
            .or_else(|e| match e.raw_os_error() {
                Some(libc::ENOENT) => Ok(None),
                _ => Err(cannot_look(&shown, &e)),
            })?;
        let found = match &held {
            Some(fd) => Some(open::facts(fd.as_fd()).map_err(|e| cannot_look(&shown, &e))?),
            None => None,
        };
        let reached = match found.map(|f| f.kind) {
            Some(Kind::Other("a symbolic link")) => look(true)?,
            _ => None,
        };
        let refuse = |what: String| {
            Err(format!(
                "'{shown}' is {what}, and iospd only creates or replaces regular files; name a regular file"
            ))
        };
        match (found.map(|f| f.kind), reached.map(|f| f.kind)) {
            (None | Some(Kind::File), _) => {}
            (Some(Kind::Other("a symbolic link")), None | Some(Kind::File)) => {}
            (Some(Kind::Other("a symbolic link")), Some(kind)) => {
                return refuse(format!("a symbolic link to {}", describe(kind)));
            }
            (Some(kind), _) => return refuse(describe(kind).to_string()),
        }
        Ok(Place {
            path: path.to_path_buf(),
            dir,
            dir_identity,
            name,
            found,
            held,
            reached,
        })
    }

    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `other` names the same directory entry.
    pub fn same_place(&self, other: &Place) -> bool {
        self.dir_identity == other.dir_identity && self.name == other.name
    }

    /// The directory entry, for lookups.
    pub fn key(&self) -> Key {
        (self.dir_identity, self.name.clone())
    }

    /// The files this place names now: the entry itself and what a symbolic link there reaches.
    pub fn identities(&self) -> impl Iterator<Item = Identity> + '_ {
        self.found.iter().chain(&self.reached).map(|f| f.identity)
    }

    /// The file system the directory is on (device number).
    pub fn dir_dev(&self) -> u64 {
        match self.dir_identity {
            Identity::Inode(dev, _) | Identity::Device(dev) => dev,
        }
    }

    /// Bytes an unprivileged user may still write in the directory's file system.
    pub fn free_bytes(&self) -> io::Result<u64> {
        // SAFETY: statvfs is plain data filled by the kernel.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: a valid descriptor and a pointer to our struct.
        if unsafe { libc::fstatvfs(self.dir.as_raw_fd(), &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(st.f_bavail.saturating_mul(st.f_frsize))
    }

    /// Creates the file, which must not exist (`O_EXCL`), without following a symbolic link.
    pub fn create_new(&self) -> io::Result<File> {
        create_at(&self.dir, &self.name, libc::O_RDWR)
    }

    /// Removes the file iospd created here, if the name still holds it.
    pub fn remove_created(&self, file: &File) {
        if let (Ok(created), Ok(Some(now))) = (
            open::facts(file.as_fd()),
            open::facts_at(self.dir.as_fd(), &self.name, false),
        ) && created.identity == now.identity
        {
            // SAFETY: a valid directory descriptor and a NUL-terminated name.
            unsafe { libc::unlinkat(self.dir.as_raw_fd(), self.name.as_ptr(), 0) };
        }
    }

    /// Replaces what is at the name with `contents`, atomically and durably.
    pub fn replace_with(&mut self, contents: &[u8]) -> io::Result<()> {
        self.replace_by(|file| file.write_all(contents))
    }

    /// Replaces what is at the name with what `write` writes to a new file, atomically and
    /// durably: nothing is replaced unless all of it was written.
    pub fn replace_by(
        &mut self,
        write: impl FnOnce(&mut File) -> io::Result<()>,
    ) -> io::Result<()> {
        let (temporary, mut file) = self.temporary()?;
        let written = write(&mut file).and_then(|()| file.sync_all());
        match written.and_then(|()| self.put_in_place(&temporary, &file)) {
            Ok(()) => {
                self.sync_dir();
                Ok(())
            }
            Err(error) => {
                self.unlink(&temporary);
                Err(error)
            }
        }
    }

    /// Puts a new file at the name whose first bytes `start` writes, and returns it open for
    /// appending the rest (a stream: time series, log, trace).
    pub fn install(&mut self, start: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<File> {
        let (temporary, mut file) = self.temporary()?;
        match start(&mut file).and_then(|()| self.put_in_place(&temporary, &file)) {
            Ok(()) => Ok(file),
            Err(error) => {
                self.unlink(&temporary);
                Err(error)
            }
        }
    }

    fn temporary(&self) -> io::Result<(CString, File)> {
        let base = OsStr::from_bytes(self.name.as_bytes()).to_string_lossy();
        let mut attempt = 0u32;
        loop {
            let name = CString::new(format!(
                ".{base}.iospd-{}-{attempt}.tmp",
                std::process::id()
            ))
            .expect("no NUL");
            match create_at(&self.dir, &name, libc::O_WRONLY) {
                Err(e) if e.raw_os_error() == Some(libc::EEXIST) && attempt < 1000 => attempt += 1,
                other => return other.map(|file| (name, file)),
            }
        }
    }

    /// Moves `temporary` (holding `file`) to the name, replacing exactly what was checked there.
    fn put_in_place(&mut self, temporary: &CString, file: &File) -> io::Result<()> {
        let new = open::facts(file.as_fd())?;
        match self.found {
            None => match self.rename(temporary, libc::RENAME_NOREPLACE) {
                Err(e) if e.raw_os_error() == Some(libc::EEXIST) => return Err(open::changed()),
                other => other?,
            },
            Some(expected) => {
                self.rename(temporary, libc::RENAME_EXCHANGE)?;
                let out = open::facts_at(self.dir.as_fd(), temporary, false)?;
                if out.map(|f| f.identity) != Some(expected.identity) {
                    // Not what was checked: put it back and replace nothing.
                    self.rename(temporary, libc::RENAME_EXCHANGE)?;
                    return Err(open::changed());
                }
                self.unlink(temporary);
            }
        }
        self.found = Some(new);
        self.held = Some(OwnedFd::from(file.try_clone()?));
        self.reached = None;
        Ok(())
    }

    fn rename(&self, temporary: &CString, flags: libc::c_uint) -> io::Result<()> {
        let fd = self.dir.as_raw_fd();
        // SAFETY: a valid directory descriptor and NUL-terminated names.
        let rc = unsafe { libc::renameat2(fd, temporary.as_ptr(), fd, self.name.as_ptr(), flags) };
        if rc == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EINVAL) {
            return Err(error);
        }
        // A file system without renameat2's flags: check once more, then a plain rename.
        let now = open::facts_at(self.dir.as_fd(), &self.name, false)?;
        if now.map(|f| f.identity) != self.found.map(|f| f.identity) {
            return Err(open::changed());
        }
        // SAFETY: as above.
        if unsafe { libc::renameat(fd, temporary.as_ptr(), fd, self.name.as_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // The old file is gone with the rename; nothing is left at the temporary name.
        Ok(())
    }

    fn unlink(&self, name: &CString) {
        // SAFETY: a valid directory descriptor and a NUL-terminated name.
        unsafe { libc::unlinkat(self.dir.as_raw_fd(), name.as_ptr(), 0) };
    }

    fn sync_dir(&self) {
        if let Ok(dir) = open::reopen(
            self.dir.as_fd(),
            libc::O_RDONLY | libc::O_DIRECTORY,
            self.dir_identity,
            parent(&self.path),
        ) {
            let _ = dir.sync_all();
        }
    }
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "a regular file",
        Kind::BlockDevice => "a block device",
        Kind::Directory => "a directory",
        Kind::Other(what) => what,
    }
}

/// Why `shown` cannot be looked at, with the fix when the process ran out of descriptors.
fn cannot_look(shown: &dyn std::fmt::Display, e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EMFILE) => format!(
            "cannot look at '{shown}': {e}; iospd holds each target open for the run: raise the limit (ulimit -n) or name fewer targets"
        ),
        _ => format!("cannot look at '{shown}': {e}"),
    }
}

/// A descriptor for the directory at `path` that reads nothing (`O_PATH`).
pub fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    let c = open::c_path(path)?;
    // SAFETY: a NUL-terminated path; the descriptor is owned below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn create_at(dir: &OwnedFd, name: &CString, access: libc::c_int) -> io::Result<File> {
    open_at(
        dir,
        name,
        access | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW,
    )
    .map(File::from)
}

fn open_at(dir: &OwnedFd, name: &CString, flags: libc::c_int) -> io::Result<OwnedFd> {
    let flags = flags | libc::O_CLOEXEC;
    // SAFETY: a valid directory descriptor and a NUL-terminated name; the descriptor is owned
    // below.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, 0o644 as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn replaces_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, "old").unwrap();
        let mut place = Place::locate(&path).unwrap();
        place.replace_with(b"new").unwrap();
        place.replace_with(b"newer").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "newer");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let to_device = dir.path().join("link");
        symlink("/dev/null", &to_device).unwrap();
        let problem = Place::locate(&to_device).unwrap_err();
        assert!(
            problem.contains("a symbolic link to a character device"),
            "{problem}"
        );
        let problem = Place::locate(Path::new("/dev/null")).unwrap_err();
        assert!(problem.contains("is a character device"), "{problem}");
        let problem = Place::locate(dir.path()).unwrap_err();
        assert!(problem.contains("directory"), "{problem}");
        let missing = Place::locate(&dir.path().join("nope/r.json")).unwrap_err();
        assert!(missing.contains("does not exist"), "{missing}");
    }

    #[test]
    fn a_link_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.json");
        std::fs::write(&kept, "precious").unwrap();
        let link = dir.path().join("latest.json");
        symlink(&kept, &link).unwrap();
        let mut place = Place::locate(&link).unwrap();
        place.replace_with(b"report").unwrap();
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "report");
        assert!(!std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }

    #[test]
    fn a_swap_after_the_check_replaces_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        std::fs::write(&path, "old").unwrap();
        let mut place = Place::locate(&path).unwrap();
        // Someone puts a link to a precious file at the name after the check.
        let precious = dir.path().join("precious");
        std::fs::write(&precious, "data").unwrap();
        std::fs::remove_file(&path).unwrap();
        symlink(&precious, &path).unwrap();
        let error = place.replace_with(b"report").unwrap_err();
        assert!(error.to_string().contains("changed"), "{error}");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "data");
        assert!(std::fs::symlink_metadata(&path).unwrap().is_symlink());
        // A new place that appears after the check is not overwritten either.
        let fresh = dir.path().join("fresh.csv");
        let mut place = Place::locate(&fresh).unwrap();
        std::fs::write(&fresh, "someone's").unwrap();
        assert!(place.install(|_| Ok(())).is_err());
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "someone's");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
