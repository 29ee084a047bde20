//! What a target will be when its timespan starts (size, O_DIRECT alignment, the range the
//! workload may use) and whether the workload fits it: everything checked on the gate's
//! descriptors, before anything is written.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::{TargetError, TargetKind};
use crate::profile::{Access, CacheMode, Target, TimeSpan, WriteBuffer};
use crate::rng::Rng;
use crate::safety::{Anchor, Kind, device_size};
use crate::units::format_size;

/// `BLKSSZGET`: logical block size.
const BLKSSZGET: libc::c_ulong = 0x1268;

/// The byte range of a target that I/O may touch: `base .. base + usable`, inside the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// First byte (`-B`).
    pub base: u64,
    /// Bytes usable after the base.
    pub usable: u64,
}

impl Range {
    /// One past the last byte I/O may touch.
    pub fn end(&self) -> u64 {
        self.base + self.usable
    }
}

/// A target's size when its timespan starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// As it is now.
    Current,
    /// As `-c` or `<PrecreateFiles>` will have made it.
    Created(u64),
    /// It does not exist yet.
    Absent,
}

impl Size {
    /// The size of a target before any timespan.
    pub fn now(anchor: &Anchor) -> Size {
        match anchor {
            Anchor::Open { .. } => Size::Current,
            Anchor::New(_) => Size::Absent,
        }
    }
}

/// What a target will be when its timespan starts.
#[derive(Debug, Clone, Copy)]
pub struct Inspection {
    /// File or device.
    pub kind: TargetKind,
    /// Its size in bytes.
    pub size: u64,
    /// The range the workload uses.
    pub range: Range,
    /// O_DIRECT alignment for offsets and sizes, and where it comes from.
    pub direct_align: (u64, &'static str),
}

/// Looks at a target through its anchor.
pub fn inspect(target: &Target, anchor: &Anchor, size: Size) -> Result<Inspection, TargetError> {
    let path = &target.path;
    let (kind, size, direct_align) = match (anchor, size) {
        (Anchor::New(_), Size::Absent) | (Anchor::New(_), Size::Current) => {
            return Err(TargetError::Missing(path.clone()));
        }
        (Anchor::New(place), Size::Created(size)) => (
            TargetKind::File,
            size,
            device_logical_block(place.dir_dev()),
        ),
        (Anchor::Open { file, facts }, _) if facts.kind == Kind::BlockDevice => {
            let size = device_size(file).map_err(|e| open_error(path, e))?;
            let logical = ioctl_int(file, BLKSSZGET).map_err(|e| open_error(path, e))?;
            (
                TargetKind::BlockDevice,
                size,
                (logical as u64, "the device's logical block size"),
            )
        }
        (Anchor::Open { file, facts }, size) => {
            let size = match size {
                Size::Created(size) => size,
                Size::Current | Size::Absent => facts.len,
            };
            let align = statx_dio_align(file).unwrap_or_else(|| device_logical_block(facts.dev));
            (TargetKind::File, size, align)
        }
    };
    Ok(Inspection {
        kind,
        size,
        range: range(target, size),
        direct_align,
    })
}

/// The error for a target that cannot be opened or asked about, with a hint.
pub fn open_error(path: &Path, source: io::Error) -> TargetError {
    let hint = match source.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "; check its permissions, or run as a user who may open it"
        }
        Some(libc::EINVAL) => {
            "; the file system may not support O_DIRECT (-Su/-Sh): drop it or use another file system"
        }
        Some(libc::EROFS) => "; the file system is read-only: use a read test (-w0) without -c",
        Some(libc::EBUSY) => "; the device is in use",
        _ => "",
    };
    TargetError::Open {
        path: path.to_path_buf(),
        source,
        hint,
    }
}

fn ioctl_int(file: &File, request: libc::c_ulong) -> io::Result<i32> {
    let mut value: libc::c_int = 0;
    // SAFETY: the request writes one int into `value`.
    if unsafe { libc::ioctl(file.as_raw_fd(), request as _, &mut value) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(value)
}

/// The file's O_DIRECT offset alignment, from statx (Linux 6.1+ file systems report it).
fn statx_dio_align(file: &File) -> Option<(u64, &'static str)> {
    // SAFETY: statx is plain data; the kernel fills it for a valid descriptor.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor, an empty NUL-terminated path with AT_EMPTY_PATH, and our struct.
    let rc = unsafe {
        libc::statx(
            file.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &mut stx,
        )
    };
    if rc != 0 || stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return None;
    }
    Some((
        stx.stx_dio_offset_align as u64,
        "the file system's O_DIRECT alignment",
    ))
}

/// The logical block size of the device holding a file system, from sysfs; 512 when unknown.
fn device_logical_block(dev: u64) -> (u64, &'static str) {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sysfs = format!("/sys/dev/block/{major}:{minor}");
    let size = fs::read_to_string(format!("{sysfs}/queue/logical_block_size"))
        .or_else(|_| fs::read_to_string(format!("{sysfs}/../queue/logical_block_size")))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    match size {
        Some(size) => (
            size,
            "the logical block size of the device under the file system",
        ),
        None => (512, "the common 512-byte sector"),
    }
}

/// The range `-B` and `-f` leave of a target of `size` bytes (empty when `-B` is past the end).
fn range(target: &Target, size: u64) -> Range {
    let end = target.max_size.map_or(size, |max| max.min(size));
    let base = target.base_offset.min(end);
    Range {
        base,
        usable: end - base,
    }
}

/// Whether the workload fits the target: one block (or every thread's `-T` start) in the range,
/// strides that leave room for a second offset, and O_DIRECT alignment.
pub fn check_workload(
    timespan: &TimeSpan,
    target: &Target,
    inspection: &Inspection,
    warnings: &mut Vec<String>,
) -> Result<(), TargetError> {
    let path = &target.path;
    if let Some(max) = target.max_size
        && max > inspection.size
    {
        warnings.push(format!(
            "WARNING: -f{max} is past the end of '{}' ({}); using the whole target",
            path.display(),
            format_size(inspection.size)
        ));
    }
    let threads = timespan.threads_per_target(target) as u64;
    let usable = inspection.range.usable;
    let (need, why) = match target.access {
        Access::Sequential {
            interlocked: false, ..
        } if target.thread_stride > 0 => (
            target
                .thread_stride
                .saturating_mul(threads - 1)
                .saturating_add(target.block_size),
            format!(
                "{} threads × -T{} plus one block",
                threads - 1,
                target.thread_stride
            ),
        ),
        _ if target.offset_increment > 0 => (
            target
                .offset_increment
                .saturating_mul(threads - 1)
                .saturating_add(target.block_size),
            format!(
                "{} threads × --offset-increment={} plus one block",
                threads - 1,
                target.offset_increment
            ),
        ),
        _ => (target.block_size, "one block".to_string()),
    };
    if usable < need {
        return Err(TargetError::TooSmall {
            path: path.clone(),
            have: format!("{} ({usable} bytes)", format_size(usable)),
            need: format!("{} ({need} bytes)", format_size(need)),
            why,
            fix: "make it larger (-c<size> for files) or lower -b, -T, -B",
        });
    }
    if let Some(dedupe) = target.dedupe {
        crate::data::dedupe::Plan::new(&dedupe, usable / dedupe.unit).map_err(|why| {
            TargetError::Dedupe {
                path: path.clone(),
                dedupe,
                why,
            }
        })?;
    }
    let stride = target.access.alignment();
    if stride > usable {
        let what = match target.access {
            Access::Random { .. } => format!("the random alignment -r{stride}"),
            Access::Sequential {
                interlocked: true, ..
            } => format!("the interlocked stride -si{stride}"),
            Access::Sequential { .. } => format!("the stride -s{stride}"),
        };
        return Err(TargetError::Stride {
            path: path.clone(),
            what,
            usable,
        });
    }
    if let Some(zones) = target.zones {
        let largest = target
            .block_split
            .as_ref()
            .and_then(|s| s.sizes().into_iter().max())
            .unwrap_or(target.block_size)
            .max(stride);
        if zones.range > usable {
            return Err(TargetError::TooSmall {
                path: path.clone(),
                have: format!("{} ({usable} bytes)", format_size(usable)),
                need: format!("{} ({} bytes)", format_size(zones.range), zones.range),
                why: "one zone's window (--zones)".into(),
                fix: "make it larger (-c<size> for files) or give --zones a smaller range",
            });
        }
        if largest > zones.range {
            return Err(TargetError::ZoneWindow {
                path: path.clone(),
                largest,
                range: zones.range,
            });
        }
    }
    if target.cache == CacheMode::DisableOsCache {
        let (align, source_of_align) = inspection.direct_align;
        let sizes = target
            .block_split
            .as_ref()
            .map(|s| s.sizes())
            .unwrap_or_default();
        let split = sizes.iter().map(|&size| (size, "a size of --bssplit"));
        let checks = [
            (stride, "the alignment or stride (-r/-s)"),
            (target.base_offset, "the base offset (-B)"),
            (target.thread_stride, "the thread stride (-T)"),
        ];
        let block = [(target.block_size, "the block size (-b)")];
        let mut all = block
            .into_iter()
            .filter(|_| sizes.is_empty())
            .chain(split)
            .chain(checks);
        if let Some((value, what)) = all.find(|(v, _)| v % align != 0) {
            return Err(TargetError::Alignment {
                path: path.clone(),
                what: format!("{what} {value}"),
                align,
                source_of_align,
            });
        }
    }
    Ok(())
}

/// `--trim` on a block device discards: the device must take discards (`queue/discard_max_bytes`
/// above 0). A file's trims punch holes, which the file system refuses at the first trim if it
/// cannot (the run then stops with that error).
pub fn check_trim(target: &Target, anchor: &Anchor) -> Result<(), TargetError> {
    let Anchor::Open { facts, .. } = anchor else {
        return Ok(());
    };
    if target.trim_percent == 0 || facts.kind != crate::safety::open::Kind::BlockDevice {
        return Ok(());
    }
    let sys = format!(
        "/sys/dev/block/{}:{}",
        libc::major(facts.dev),
        libc::minor(facts.dev)
    );
    let max = [
        format!("{sys}/queue/discard_max_bytes"),
        format!("{sys}/../queue/discard_max_bytes"),
    ]
    .iter()
    .find_map(|p| fs::read_to_string(p).ok())
    .and_then(|s| s.trim().parse::<u64>().ok());
    match max {
        Some(0) => Err(TargetError::NoTrim {
            path: target.path.clone(),
            why: "takes no discards (its queue/discard_max_bytes is 0)",
        }),
        _ => Ok(()),
    }
}

/// `--iopoll` polls the device's queues for completions: the I/O must bypass the page cache and
/// the device under the target must have poll queues (`queue/io_poll` in sysfs).
pub fn check_iopoll(target: &Target, anchor: &Anchor) -> Result<(), TargetError> {
    let refuse = |why: String| TargetError::NoPolling {
        path: target.path.clone(),
        why,
    };
    if target.cache != CacheMode::DisableOsCache {
        return Err(refuse(
            "is not opened with O_DIRECT, which polling needs; add -Su or -Sh".into(),
        ));
    }
    let dev = match anchor {
        Anchor::Open { facts, .. } => facts.dev,
        Anchor::New(place) => place.dir_dev(),
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 {
        return Err(refuse(
            "is not on a block device (tmpfs, overlay or a network file system)".into(),
        ));
    }
    let sys = std::path::PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    // A partition's queue is its disk's.
    let queue = [sys.join("queue/io_poll"), sys.join("../queue/io_poll")]
        .into_iter()
        .find_map(|p| fs::read_to_string(p).ok());
    let name = fs::canonicalize(&sys)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| format!("{major}:{minor}"));
    match queue.as_deref().map(str::trim) {
        Some("1") => Ok(()),
        Some(_) => Err(refuse(format!(
            "is on {name}, which has no poll queues (its queue/io_poll is 0; NVMe gets them with the nvme.poll_queues module option)"
        ))),
        None => Err(refuse(format!(
            "is on {name}, whose polling support cannot be read from sysfs"
        ))),
    }
}

/// The `-Z<size>` source buffer a target writes from: random bytes, or the file repeated.
pub fn write_source(target: &Target) -> Result<Option<Vec<u8>>, TargetError> {
    let WriteBuffer::Source { size, file } = &target.write_buffer else {
        return Ok(None);
    };
    if target.write_ratio == 0 {
        return Ok(None);
    }
    let size = *size as usize;
    let mut source = vec![0u8; size];
    match file {
        None => {
            let mut rng = Rng::new(0);
            for chunk in source.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next_u64().to_ne_bytes()[..chunk.len()]);
            }
        }
        Some(path) => {
            // The file repeated fills the buffer: more of it than the buffer is never needed.
            let mut data = Vec::new();
            crate::input::open(path, true)
                .map_err(io::Error::other)
                .and_then(|f| io::Read::read_to_end(&mut io::Read::take(f, size as u64), &mut data))
                .map_err(|source| TargetError::Source {
                    path: path.clone(),
                    source,
                })?;
            if data.is_empty() {
                return Err(TargetError::Source {
                    path: path.clone(),
                    source: io::Error::new(io::ErrorKind::InvalidData, "the file is empty"),
                });
            }
            for (i, byte) in source.iter_mut().enumerate() {
                *byte = data[i % data.len()];
            }
        }
    }
    Ok(Some(source))
}

/// A warning when the range a read test covers has never been written (holes or unwritten
/// extents, which SEEK_HOLE reports on ext4, XFS, btrfs and tmpfs).
pub fn never_written(file: &File, path: &Path, range: Range) -> Option<String> {
    let end = range.end();
    // SAFETY: lseek on an open descriptor.
    let hole = unsafe { libc::lseek(file.as_raw_fd(), range.base as i64, libc::SEEK_HOLE) };
    (hole >= 0 && (hole as u64) < end).then(|| {
        format!(
            "WARNING: '{}' has never-written regions in the tested range (the first at byte {hole}): reads there return zeros from the file system without touching the device, so the numbers may not be the device's. Write the file first, or let -c create it with real data",
            path.display()
        )
    })
}
