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
        }
    }
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

/// The mount of the file system numbered `st_dev`, from `/proc/self/mountinfo`.
pub fn mount_of(st_dev: u64) -> Option<Mounted> {
    let text = fs::read_to_string("/proc/self/mountinfo").ok()?;
    mount_in(&text, st_dev)
}

/// [`mount_of`] over the text of a mountinfo file: the last mount of that device number (the one
/// on top), its type, options and source device.
fn mount_in(mountinfo: &str, st_dev: u64) -> Option<Mounted> {
    let want = format!("{}:{}", libc::major(st_dev), libc::minor(st_dev));
    let line = mountinfo
        .lines()
        .rfind(|l| l.split_whitespace().nth(2) == Some(want.as_str()))?;
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
    match mount_of(meta.dev()) {
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
    fn a_mount_is_found_by_its_device_number_topmost_first() {
        let info = "\
22 1 0:21 / /mnt/a rw,relatime shared:1 - btrfs /dev/nonexistent rw,compress-force=zstd:3,space_cache=v2
23 1 0:21 / /mnt/b rw,noatime shared:2 - btrfs /dev/nonexistent rw,compress=lzo
24 1 0:22 / /tmp rw - tmpfs tmpfs rw,size=100k
";
        let dev = libc::makedev(0, 21);
        let m = mount_in(info, dev).unwrap();
        assert_eq!(m.fs_type, "btrfs");
        assert!(m.options.contains("compress=lzo"), "{}", m.options);
        assert!(m.device.is_none(), "no such source device");
        let tmp = mount_in(info, libc::makedev(0, 22)).unwrap();
        assert_eq!((tmp.fs_type.as_str(), tmp.device), ("tmpfs", None));
        assert!(mount_in(info, libc::makedev(8, 1)).is_none());
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
