//! What the safety checks read from the machine: a device's partitions, mounts, swap, holders,
//! loop devices and their backing files, and the signatures libblkid finds on a descriptor.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use super::blkid::{self, Signature};
use super::open::Identity;
use crate::units::format_size;

/// A device or one of its partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Device number.
    pub dev: u64,
    /// Its /dev path.
    pub name: String,
    /// Where it starts on the device the family was asked for, in bytes (0 for the device).
    pub start: u64,
    /// Its length in bytes (0: to the end, for the device itself).
    pub len: u64,
}

/// The machine as the safety checks see it.
pub trait SystemView {
    /// The device first, then the kernel's partitions of it.
    fn family(&self, dev: u64) -> Vec<Member>;
    /// Mounted file systems: (device number, mount point).
    fn mounts(&self) -> Vec<(u64, String)>;
    /// Active swap areas: (the device or file, its path in /proc/swaps).
    fn swaps(&self) -> Vec<(Identity, String)>;
    /// Devices stacked on `dev` (dm, md, LVM).
    fn holders(&self, dev: u64) -> Vec<String>;
    /// Bound loop devices: (the backing file, the loop device).
    fn loops(&self) -> Vec<(Identity, String)>;
    /// Every signature in `len` bytes of `file` from `offset` (`len` 0: to the end).
    fn signatures(&self, file: &File, offset: u64, len: u64) -> io::Result<Vec<Signature>>;
    /// Whether the block device `file` is set read-only.
    fn read_only(&self, file: &File) -> bool;
    /// Model and size, for the `--force` notice.
    fn describe(&self, dev: u64) -> String;
}

/// The running Linux system.
#[derive(Debug, Default, Clone, Copy)]
pub struct LinuxView;

fn sysfs(dev: u64) -> String {
    format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev))
}

fn parse_dev(text: &str) -> Option<u64> {
    let (major, minor) = text.trim().split_once(':')?;
    Some(libc::makedev(major.parse().ok()?, minor.parse().ok()?))
}

fn read_number(path: impl AsRef<Path>) -> Option<u64> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// What a path in /proc/swaps or a mount source names: a block device by number, else a file.
fn identity_of(path: &str) -> Option<Identity> {
    let meta = fs::metadata(path).ok()?;
    Some(if meta.file_type().is_block_device() {
        Identity::Device(meta.rdev())
    } else {
        Identity::Inode(meta.dev(), meta.ino())
    })
}

/// `/proc` escapes spaces, tabs, newlines and backslashes in paths as octal.
fn unescape(field: &str) -> String {
    field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// The kernel's `struct loop_info64`, for `LOOP_GET_STATUS64`.
#[repr(C)]
struct LoopInfo64 {
    device: u64,
    inode: u64,
    rdevice: u64,
    offset: u64,
    size_limit: u64,
    number: u32,
    encrypt_type: u32,
    encrypt_key_size: u32,
    flags: u32,
    file_name: [u8; 64],
    crypt_name: [u8; 64],
    encrypt_key: [u8; 32],
    init: [u64; 2],
}

/// The backing file of the loop device `/dev/<name>` whose number is `dev`, from the kernel.
fn loop_backing(name: &str, dev: u64) -> Option<Identity> {
    const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;
    let file = File::open(format!("/dev/{name}")).ok()?;
    if file.metadata().ok()?.rdev() != dev {
        return None;
    }
    // SAFETY: plain data, filled by the kernel.
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: the request fills one loop_info64.
    if unsafe { libc::ioctl(file.as_raw_fd(), LOOP_GET_STATUS64 as _, &mut info) } != 0 {
        return None;
    }
    Some(Identity::Inode(info.device, info.inode))
}

impl SystemView for LinuxView {
    fn family(&self, dev: u64) -> Vec<Member> {
        let base = sysfs(dev);
        let name = fs::canonicalize(&base)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let mut family = vec![Member {
            dev,
            name: format!("/dev/{name}"),
            start: 0,
            len: 0,
        }];
        if let Ok(entries) = fs::read_dir(&base) {
            for entry in entries.flatten() {
                let dir = entry.path();
                if !dir.join("partition").exists() {
                    continue;
                }
                let part = fs::read_to_string(dir.join("dev"))
                    .ok()
                    .and_then(|d| parse_dev(&d));
                let start = read_number(dir.join("start"));
                let sectors = read_number(dir.join("size"));
                if let (Some(part), Some(start), Some(sectors)) = (part, start, sectors) {
                    family.push(Member {
                        dev: part,
                        name: format!("/dev/{}", entry.file_name().to_string_lossy()),
                        start: start * 512,
                        len: sectors * 512,
                    });
                }
            }
        }
        family[1..].sort_by_key(|m| m.start);
        family
    }

    fn mounts(&self) -> Vec<(u64, String)> {
        let Ok(text) = fs::read_to_string("/proc/self/mountinfo") else {
            return Vec::new();
        };
        let mut mounts = Vec::new();
        for line in text.lines() {
            let fields: Vec<&str> = line.split(' ').collect();
            let (Some(dev), Some(point)) =
                (fields.get(2).and_then(|d| parse_dev(d)), fields.get(4))
            else {
                continue;
            };
            let point = unescape(point);
            mounts.push((dev, point.clone()));
            // btrfs and others report an anonymous device number; the source names the device.
            if let Some(sep) = fields.iter().position(|f| *f == "-")
                && let Some(source) = fields.get(sep + 2)
                && let Some(Identity::Device(rdev)) = identity_of(&unescape(source))
            {
                mounts.push((rdev, point));
            }
        }
        mounts
    }

    fn swaps(&self) -> Vec<(Identity, String)> {
        let Ok(text) = fs::read_to_string("/proc/swaps") else {
            return Vec::new();
        };
        text.lines()
            .skip(1)
            .filter_map(|line| {
                let path = unescape(line.split_whitespace().next()?);
                Some((identity_of(&path)?, path))
            })
            .collect()
    }

    fn holders(&self, dev: u64) -> Vec<String> {
        fs::read_dir(format!("{}/holders", sysfs(dev)))
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn loops(&self) -> Vec<(Identity, String)> {
        let Ok(entries) = fs::read_dir("/sys/block") else {
            return Vec::new();
        };
        let mut loops = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let sys = entry.path();
            let Ok(backing) = fs::read_to_string(sys.join("loop/backing_file")) else {
                continue;
            };
            let dev = fs::read_to_string(sys.join("dev"))
                .ok()
                .and_then(|d| parse_dev(&d));
            // The kernel's own record of the file; the path sysfs shows may have moved.
            let from_kernel = dev.and_then(|dev| loop_backing(&name, dev));
            let from_path = identity_of(backing.trim_end_matches('\n'));
            for identity in from_kernel.into_iter().chain(from_path) {
                loops.push((identity, format!("/dev/{name}")));
            }
        }
        loops
    }

    fn signatures(&self, file: &File, offset: u64, len: u64) -> io::Result<Vec<Signature>> {
        blkid::probe(file, offset, len)
    }

    fn read_only(&self, file: &File) -> bool {
        const BLKROGET: libc::c_ulong = 0x125E;
        let mut value: libc::c_int = 0;
        // SAFETY: the request writes one int into `value`.
        unsafe { libc::ioctl(file.as_raw_fd(), BLKROGET as _, &mut value) == 0 && value != 0 }
    }

    fn describe(&self, dev: u64) -> String {
        let base = sysfs(dev);
        let read = |name: &str| {
            fs::read_to_string(format!("{base}/{name}"))
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        let model = [read("device/vendor"), read("device/model")]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let sectors: u64 = read("size").parse().unwrap_or(0);
        let model = if model.is_empty() {
            "model unknown".to_string()
        } else {
            model
        };
        format!("{model}, {}", format_size(sectors * 512))
    }
}

/// A block device's size in bytes.
pub fn device_size(file: &File) -> io::Result<u64> {
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    let mut size: u64 = 0;
    // SAFETY: the request writes one u64 into `size`.
    if unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut size) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}
