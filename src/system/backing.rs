//! The block device under a target, and what its counters say: a device target is its own; a
//! file's is the device of its file system (through `/proc/self/mountinfo` where the file system
//! reports an anonymous device number, as btrfs does). `/sys/block/<dev>/stat` then counts what
//! reached the device, whatever the page cache or a file system did on the way; the mount's type
//! and options say whether the file system compresses.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A block device under one or more targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockDevice {
    /// Its kernel name (`sda1`, `loop3`, `zram0`).
    pub name: String,
    /// Its sysfs directory (holding `stat`).
    pub sysfs: PathBuf,
}

/// Where a file lives: its file system's type, options and device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mounted {
    /// `ext4`, `btrfs`, `tmpfs` …
    pub fs_type: String,
    /// The mount's options and the file system's own (`compress-force=zstd:3`).
    pub options: String,
    /// The device it is on; `None` for a file system without one (tmpfs).
    pub device: Option<BlockDevice>,
}

/// The counters of `/sys/block/<dev>/stat` that say what reached a device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskStat {
    /// Read requests completed.
    pub reads: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Write requests completed.
    pub writes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Discard requests completed.
    pub discards: u64,
    /// Flush requests completed.
    pub flushes: u64,
    /// Milliseconds spent on read requests, summed over them: each from its start in the block
    /// layer (the scheduler's queue included) to its completion.
    #[serde(default)]
    pub read_ms: u64,
    /// The same for write requests.
    #[serde(default)]
    pub write_ms: u64,
}

impl DiskStat {
    /// What happened between `self` (earlier) and `later`.
    pub fn until(&self, later: &DiskStat) -> DiskStat {
        DiskStat {
            reads: later.reads.saturating_sub(self.reads),
            read_bytes: later.read_bytes.saturating_sub(self.read_bytes),
            writes: later.writes.saturating_sub(self.writes),
            write_bytes: later.write_bytes.saturating_sub(self.write_bytes),
            discards: later.discards.saturating_sub(self.discards),
            flushes: later.flushes.saturating_sub(self.flushes),
            read_ms: later.read_ms.saturating_sub(self.read_ms),
            write_ms: later.write_ms.saturating_sub(self.write_ms),
        }
    }
}

/// Whether the device queues requests (blk-mq: an `mq` directory on it, or on the disk of a
/// partition); a bio-based one (zram, most device-mapper targets) completes bios without them.
pub fn request_based(device: &BlockDevice) -> bool {
    device.sysfs.join("mq").is_dir()
        || device
            .sysfs
            .parent()
            .is_some_and(|disk| disk.join("mq").is_dir())
}

/// Reads a device's counters (`None` when sysfs does not have them).
pub fn disk_stat(device: &BlockDevice) -> Option<DiskStat> {
    parse_stat(&fs::read_to_string(device.sysfs.join("stat")).ok()?)
}

/// The fields of a `stat` file (Documentation/block/stat.rst): sectors are 512 bytes whatever
/// the device's block size; discard fields from 4.18, flush fields from 5.5.
fn parse_stat(text: &str) -> Option<DiskStat> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|v| v.parse().ok())
        .collect::<Option<_>>()?;
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    (f.len() >= 11).then(|| DiskStat {
        reads: at(0),
        read_bytes: at(2) * 512,
        writes: at(4),
        write_bytes: at(6) * 512,
        discards: at(11),
        flushes: at(15),
        read_ms: at(3),
        write_ms: at(7),
    })
}

/// The block device numbered `dev` (a `st_rdev`, or a file system's `st_dev`).
pub fn device_of(dev: u64) -> Option<BlockDevice> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 {
        return None;
    }
    let sysfs = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let name = sysfs.file_name()?.to_string_lossy().into_owned();
    sysfs
        .join("stat")
        .exists()
        .then_some(BlockDevice { name, sysfs })
}

/// The mount that holds `path` (canonical), from `/proc/self/mountinfo`; `st_dev` is the file's.
pub fn mount_of(path: &Path, st_dev: u64) -> Option<Mounted> {
    let text = fs::read_to_string("/proc/self/mountinfo").ok()?;
    mount_in(&text, path, st_dev)
}

/// A mount point as mountinfo writes it: space, tab, newline and backslash as octal escapes.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let code = rest
            .get(at + 1..at + 4)
            .and_then(|d| u8::from_str_radix(d, 8).ok());
        match code {
            Some(c) => {
                out.push(c as char);
                rest = &rest[at + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[at + 1..];
            }
        }
    }
    out + rest
}

/// [`mount_of`] over the text of a mountinfo file: the mount whose mount point is the longest
/// prefix of `path` (the last such line: the one on top). Its device number is not the file's on
/// btrfs, whose subvolumes each report an anonymous one: the source device is looked up instead.
fn mount_in(mountinfo: &str, path: &Path, st_dev: u64) -> Option<Mounted> {
    let mut best: Option<(usize, &str)> = None;
    for line in mountinfo.lines() {
        let Some(point) = line.split_whitespace().nth(4).map(unescape) else {
            continue;
        };
        if path.starts_with(&point) && best.is_none_or(|(len, _)| point.len() >= len) {
            best = Some((point.len(), line));
        }
    }
    let (_, line) = best?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let mount_options = fields.get(5).copied().unwrap_or_default();
    let dash = fields.iter().position(|&f| f == "-")?;
    let fs_type = fields.get(dash + 1)?.to_string();
    let source = fields.get(dash + 2).copied().unwrap_or_default();
    let super_options = fields.get(dash + 3).copied().unwrap_or_default();
    let device = device_of(st_dev).or_else(|| {
        let path = Path::new(source);
        // SAFETY: stat writes one struct stat into the zeroed one given.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
        let ok = unsafe { libc::stat(c.as_ptr(), &mut st) } == 0;
        (ok && st.st_mode & libc::S_IFMT == libc::S_IFBLK)
            .then(|| device_of(st.st_rdev))
            .flatten()
    });
    Some(Mounted {
        fs_type,
        options: format!("{mount_options},{super_options}"),
        device,
    })
}

/// The device under the file or device at `path`: (the device, and for a file its mount).
pub fn backing(path: &Path) -> (Option<BlockDevice>, Option<Mounted>) {
    let Ok(meta) = fs::metadata(path) else {
        return (None, None);
    };
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    if meta.file_type().is_block_device() {
        return (device_of(meta.rdev()), None);
    }
    let canonical = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    match mount_of(&canonical, meta.dev()) {
        Some(m) => (m.device.clone(), Some(m)),
        None => (device_of(meta.dev()), None),
    }
}

/// The device's I/O scheduler (`mq-deadline`, `none` …), from its queue (a partition's is its
/// disk's).
pub fn scheduler(device: &BlockDevice) -> Option<String> {
    let text = ["queue/scheduler", "../queue/scheduler"]
        .iter()
        .find_map(|q| fs::read_to_string(device.sysfs.join(q)).ok())?;
    // The active one is in brackets: "[mq-deadline] kyber none".
    let active = text
        .split_whitespace()
        .find(|s| s.starts_with('['))
        .map(|s| s.trim_matches(|c| c == '[' || c == ']'))
        .or_else(|| text.split_whitespace().next())?;
    Some(active.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_with_an_mq_directory_or_on_such_a_disk_queues_requests() {
        let dir = tempfile::tempdir().unwrap();
        let disk = dir.path().join("vda");
        std::fs::create_dir_all(disk.join("mq")).unwrap();
        std::fs::create_dir_all(disk.join("vda1")).unwrap();
        std::fs::create_dir_all(dir.path().join("zram0")).unwrap();
        let device = |path: PathBuf| BlockDevice {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            sysfs: path,
        };
        assert!(request_based(&device(disk.clone())));
        assert!(request_based(&device(disk.join("vda1"))), "a partition");
        assert!(
            !request_based(&device(dir.path().join("zram0"))),
            "bio-based"
        );
    }

    #[test]
    fn stat_fields_are_read_in_bytes() {
        let s = parse_stat(
            "  613388        6 14533866   368425    77511   586516  7171212    43604        0    58640   420167       56        0  9527346       20    23421     8115\n",
        )
        .unwrap();
        assert_eq!(
            s,
            DiskStat {
                reads: 613388,
                read_bytes: 14533866 * 512,
                writes: 77511,
                write_bytes: 7171212 * 512,
                discards: 56,
                flushes: 23421,
                read_ms: 368425,
                write_ms: 43604,
            }
        );
        // An old kernel's 11 fields: no discards or flushes.
        let old = parse_stat("1 0 8 0 2 0 16 0 0 0 0").unwrap();
        assert_eq!((old.reads, old.write_bytes, old.flushes), (1, 16 * 512, 0));
        assert!(parse_stat("1 2 3").is_none());
        let later = DiskStat { reads: 613390, ..s };
        assert_eq!(s.until(&later).reads, 2);
    }

    #[test]
    fn a_file_is_on_the_mount_with_the_longest_point_topmost_first() {
        let info = "\
21 1 8:1 / / rw - ext4 /dev/nonexistent1 rw
22 21 0:21 / /mnt/a rw,relatime shared:1 - btrfs /dev/nonexistent rw,compress-force=zstd:3,space_cache=v2
23 21 0:21 / /mnt/a rw,noatime shared:2 - btrfs /dev/nonexistent rw,compress=lzo
24 21 0:22 / /mnt/a\\040b rw - tmpfs tmpfs rw,size=100k
";
        // btrfs: the file's device number (0:40) is not the mount's (0:21).
        let btrfs = libc::makedev(0, 40);
        let m = mount_in(info, Path::new("/mnt/a/x.dat"), btrfs).unwrap();
        assert_eq!(m.fs_type, "btrfs");
        assert!(m.options.contains("compress=lzo"), "{}", m.options);
        assert!(m.device.is_none(), "no such source device");
        let tmp = mount_in(info, Path::new("/mnt/a b/x"), libc::makedev(0, 22)).unwrap();
        assert_eq!((tmp.fs_type.as_str(), tmp.device), ("tmpfs", None));
        // /mnt/ab is not under /mnt/a: the root file system holds it.
        let root = mount_in(info, Path::new("/mnt/ab"), libc::makedev(8, 1)).unwrap();
        assert_eq!(root.fs_type, "ext4");
        assert_eq!(unescape("a\\040b\\134c"), "a b\\c");
    }

    #[test]
    fn the_root_file_system_has_a_device_with_counters() {
        let (device, mount) = backing(Path::new("/"));
        if let Some(device) = device {
            assert!(disk_stat(&device).is_some(), "{device:?}");
        }
        assert!(mount.is_some(), "/ is in every mount table");
    }
}
