//! What the safety checks read from the machine: device numbers, partitions, mounts, swap,
//! holders, an exclusive open and the device's first and last bytes.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use super::signatures::{HEAD_BYTES, Signature, TAIL_BYTES, detect};
use crate::cli::units::format_size;

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Nothing there yet.
    Missing,
    /// A regular file.
    File,
    /// A block device with this device number.
    BlockDevice(u64),
    /// Anything else (checked elsewhere).
    Other,
}

/// The machine as the safety checks see it.
pub trait SystemView {
    /// What `path` is.
    fn kind(&self, path: &Path) -> Kind;
    /// The device and its partitions: (device number, /dev path).
    fn family(&self, dev: u64) -> Vec<(u64, String)>;
    /// Mounted file systems: (device number, mount point).
    fn mounts(&self) -> Vec<(u64, String)>;
    /// Active swap devices: (device number, path).
    fn swaps(&self) -> Vec<(u64, String)>;
    /// Devices stacked on `dev` (dm, md, LVM).
    fn holders(&self, dev: u64) -> Vec<String>;
    /// Opens `path` exclusively and closes it again; the reason when that fails.
    fn exclusive(&self, path: &Path) -> Result<(), String>;
    /// The first recognisable signature on the device.
    fn signature(&self, path: &Path) -> io::Result<Option<Signature>>;
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

fn rdev_of(path: &str) -> Option<u64> {
    let meta = fs::metadata(path).ok()?;
    meta.file_type().is_block_device().then(|| meta.rdev())
}

impl SystemView for LinuxView {
    fn kind(&self, path: &Path) -> Kind {
        match fs::metadata(path) {
            Err(_) => Kind::Missing,
            Ok(meta) if meta.file_type().is_block_device() => Kind::BlockDevice(meta.rdev()),
            Ok(meta) if meta.is_file() => Kind::File,
            Ok(_) => Kind::Other,
        }
    }

    fn family(&self, dev: u64) -> Vec<(u64, String)> {
        let base = sysfs(dev);
        let name = fs::canonicalize(&base)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let mut family = vec![(dev, format!("/dev/{name}"))];
        if let Ok(entries) = fs::read_dir(&base) {
            for entry in entries.flatten() {
                let dir = entry.path();
                if dir.join("partition").exists()
                    && let Some(part) = fs::read_to_string(dir.join("dev"))
                        .ok()
                        .and_then(|d| parse_dev(&d))
                {
                    family.push((
                        part,
                        format!("/dev/{}", entry.file_name().to_string_lossy()),
                    ));
                }
            }
        }
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
            let point = point.replace("\\040", " ");
            mounts.push((dev, point.clone()));
            // btrfs and others report an anonymous device number; the source names the device.
            if let Some(sep) = fields.iter().position(|f| *f == "-")
                && let Some(source) = fields.get(sep + 2)
                && let Some(rdev) = rdev_of(source)
            {
                mounts.push((rdev, point));
            }
        }
        mounts
    }

    fn swaps(&self) -> Vec<(u64, String)> {
        let Ok(text) = fs::read_to_string("/proc/swaps") else {
            return Vec::new();
        };
        text.lines()
            .skip(1)
            .filter_map(|line| {
                let path = line.split_whitespace().next()?;
                Some((rdev_of(path)?, path.to_string()))
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

    fn exclusive(&self, path: &Path) -> Result<(), String> {
        match fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(path)
        {
            Ok(_) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Err("EBUSY".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn signature(&self, path: &Path) -> io::Result<Option<Signature>> {
        let file = File::open(path)?;
        let size = device_size(&file)?;
        let mut head = vec![0u8; HEAD_BYTES.min(size as usize)];
        file.read_exact_at(&mut head, 0)?;
        let tail_offset = size.saturating_sub(TAIL_BYTES as u64) / 4096 * 4096;
        let mut tail = vec![0u8; (size - tail_offset) as usize];
        file.read_exact_at(&mut tail, tail_offset)?;
        Ok(detect(&head, &tail, tail_offset))
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
