//! Opening once: a path is resolved one time, to an `O_PATH` descriptor that touches nothing, and
//! everything after that — the type check, the real open, the probes, the I/O — works on that
//! inode, reached again through `/proc/self/fd`. A path renamed, exchanged or re-pointed after the
//! first look changes nothing iospd does.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Which file or device a descriptor reaches: a block device by its device number (two nodes of
/// one disk are one target), anything else by file system and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Identity {
    /// A block device.
    Device(u64),
    /// A file (or directory, or link) on file system `.0`, inode `.1`.
    Inode(u64, u64),
}

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A block device.
    BlockDevice,
    /// A directory.
    Directory,
    /// Anything else, in words ("a character device").
    Other(&'static str),
}

/// The result of `fstat`, reduced to what the checks use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// What it is.
    pub kind: Kind,
    /// Which one it is.
    pub identity: Identity,
    /// The file system it lives on (for a file), or the device's number (for a device).
    pub dev: u64,
    /// Length in bytes of a file (a device's size comes from the device).
    pub len: u64,
}

impl Facts {
    fn from_stat(st: &libc::stat) -> Facts {
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => Kind::File,
            libc::S_IFBLK => Kind::BlockDevice,
            libc::S_IFDIR => Kind::Directory,
            libc::S_IFCHR => Kind::Other("a character device"),
            libc::S_IFIFO => Kind::Other("a FIFO"),
            libc::S_IFSOCK => Kind::Other("a socket"),
            libc::S_IFLNK => Kind::Other("a symbolic link"),
            _ => Kind::Other("of an unknown type"),
        };
        let identity = match kind {
            Kind::BlockDevice => Identity::Device(st.st_rdev),
            _ => Identity::Inode(st.st_dev, st.st_ino),
        };
        let dev = match kind {
            Kind::BlockDevice => st.st_rdev,
            _ => st.st_dev,
        };
        Facts {
            kind,
            identity,
            dev,
            len: st.st_size.max(0) as u64,
        }
    }
}

/// `fstat` on any descriptor, `O_PATH` ones included.
pub fn facts(fd: BorrowedFd<'_>) -> io::Result<Facts> {
    // SAFETY: stat is plain data, filled by the kernel for a valid descriptor.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor and a pointer to our stat.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Facts::from_stat(&st))
}

/// `fstatat` of `name` in the directory `dir`, without following a final symbolic link unless
/// `follow`. `None` when nothing is there.
pub fn facts_at(dir: BorrowedFd<'_>, name: &CString, follow: bool) -> io::Result<Option<Facts>> {
    // SAFETY: as in `facts`.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    // SAFETY: a valid directory descriptor, a NUL-terminated name and a pointer to our stat.
    if unsafe { libc::fstatat(dir.as_raw_fd(), name.as_ptr(), &mut st, flags) } != 0 {
        let error = io::Error::last_os_error();
        return match error.raw_os_error() {
            Some(libc::ENOENT) => Ok(None),
            _ => Err(error),
        };
    }
    Ok(Some(Facts::from_stat(&st)))
}

/// A path as a C string; a NUL byte inside is an error.
pub fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path contains a NUL byte"))
}

/// Resolves `path` once, following symbolic links, to a descriptor that reads and writes nothing
/// (`O_PATH`): opening it has no effect on a device, a FIFO or a tape.
pub fn locate(path: &Path) -> io::Result<OwnedFd> {
    let c = c_path(path)?;
    // SAFETY: a NUL-terminated path; the descriptor returned is owned below.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Which file or device `path` names now, if anything.
pub fn identity(path: &Path) -> Option<Identity> {
    Some(facts(locate(path).ok()?.as_fd()).ok()?.identity)
}

/// Opens the very inode `fd` reaches, with `flags` (`O_RDWR`, `O_EXCL`, `O_DIRECT` …), through
/// `/proc/self/fd`; where /proc is missing, opens `fallback` and requires the same inode. Either
/// way the result is checked to be `expected`.
pub fn reopen(
    fd: BorrowedFd<'_>,
    flags: libc::c_int,
    expected: Identity,
    fallback: &Path,
) -> io::Result<File> {
    let magic = CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd())).expect("no NUL");
    let flags = flags | libc::O_CLOEXEC | libc::O_NOCTTY;
    // SAFETY: a NUL-terminated path; the descriptor returned is owned below.
    let mut raw = unsafe { libc::open(magic.as_ptr(), flags) };
    if raw < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOENT) {
        let c = c_path(fallback)?;
        // SAFETY: as above.
        raw = unsafe { libc::open(c.as_ptr(), flags) };
    }
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let file = File::from(unsafe { OwnedFd::from_raw_fd(raw) });
    if facts(file.as_fd())?.identity != expected {
        return Err(changed());
    }
    Ok(file)
}

/// The error for a path that no longer names what was checked.
pub fn changed() -> io::Error {
    io::Error::other(
        "it changed while iospd was checking it (renamed, replaced or re-linked); nothing was written",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reopening_follows_the_inode_not_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"first").unwrap();
        std::fs::write(&b, b"second").unwrap();
        let located = locate(&a).unwrap();
        let checked = facts(located.as_fd()).unwrap();
        assert_eq!(checked.kind, Kind::File);
        // The path now names another file: the descriptor still reaches the first.
        std::fs::rename(&b, &a).unwrap();
        let file = reopen(located.as_fd(), libc::O_RDONLY, checked.identity, &a).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut &file, &mut text).unwrap();
        assert_eq!(text, "first");
    }

    #[test]
    fn kinds_and_identities() {
        let dir = tempfile::tempdir().unwrap();
        let located = locate(dir.path()).unwrap();
        assert_eq!(facts(located.as_fd()).unwrap().kind, Kind::Directory);
        let null = locate(Path::new("/dev/null")).unwrap();
        assert_eq!(
            facts(null.as_fd()).unwrap().kind,
            Kind::Other("a character device")
        );
        let name = CString::new("missing").unwrap();
        assert_eq!(facts_at(located.as_fd(), &name, false).unwrap(), None);
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        let other = locate(&file).unwrap();
        let expected = facts(located.as_fd()).unwrap().identity;
        let error = reopen(other.as_fd(), libc::O_RDONLY, expected, &file).unwrap_err();
        assert!(error.to_string().contains("changed"), "{error}");
    }
}
