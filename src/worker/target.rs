//! Targets on disk: check, create (`-c`), open and size every target before any thread starts.
//!
//! Checks come first for all targets, so a bad second target stops the run before the first one is
//! created. Created files hold real data (never sparse or unwritten extents), so reads are served
//! by the device rather than by the file system returning zeros.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::distribution::{EffectiveRange, effective};
use super::offsets::Range;
use super::rng::Rng;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::cli::units::format_size;
use crate::profile::{Access, CacheMode, Precreate, Profile, Target, TimeSpan, WriteBuffer};
use crate::safety::marker;

/// `BLKGETSIZE64`: device size in bytes.
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
/// `BLKSSZGET`: logical block size.
const BLKSSZGET: libc::c_ulong = 0x1268;
/// Bytes written per call while creating a file.
const CREATE_CHUNK: usize = 1 << 20;

/// File or block device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// A regular file.
    File,
    /// A block device.
    BlockDevice,
}

/// A target ready for the run.
#[derive(Debug)]
pub struct PreparedTarget {
    /// Open with the flags of the workload (O_DIRECT, O_DSYNC).
    pub file: File,
    /// File or device.
    pub kind: TargetKind,
    /// Size of the file or device in bytes.
    pub size: u64,
    /// The byte range the workload uses.
    pub range: Range,
    /// The `-Z<size>` source buffer, when the workload writes from one.
    pub write_source: Option<Vec<u8>>,
    /// The `-rd` distribution as it applies to this target (empty for uniform).
    pub distribution: Vec<EffectiveRange>,
    /// The file's length when [`PreparedTarget::lost`] last looked: I/O never shrinks a file,
    /// so a smaller length means someone truncated it, even if writes have since regrown it.
    seen_len: AtomicU64,
}

impl PreparedTarget {
    /// What happened to a file target behind the run's back: removed, or truncated below the
    /// range the workload uses. `None` while it is intact, and always for block devices.
    pub fn lost(&self) -> Option<String> {
        if self.kind != TargetKind::File {
            return None;
        }
        let meta = self.file.metadata().ok()?;
        let needed = self.range.base + self.range.usable;
        let before = self.seen_len.swap(meta.len(), Ordering::Relaxed);
        if meta.nlink() == 0 {
            Some("was removed during the run".to_string())
        } else if meta.len() < needed || meta.len() < before {
            Some(format!(
                "was truncated during the run (from {before} to {} bytes; the workload uses {needed})",
                meta.len()
            ))
        } else {
            None
        }
    }
}

/// A target that cannot be used.
#[derive(Debug, Error)]
pub enum TargetError {
    /// No such file and no `-c`.
    #[error("'{0}' does not exist; create it with -c<size> (for example -c1G) or check the path")]
    Missing(PathBuf),
    /// A directory.
    #[error("'{0}' is a directory; name a file or a block device")]
    Directory(PathBuf),
    /// A character device, FIFO or socket.
    #[error("'{0}' is neither a regular file nor a block device")]
    Unsupported(PathBuf),
    /// `--iopoll` on a target that cannot be polled.
    #[error("--iopoll: '{path}' {why}; run without --iopoll")]
    NoPolling {
        /// The target.
        path: PathBuf,
        /// What is missing.
        why: String,
    },
    /// `-c` into a directory that is missing or cannot be written.
    #[error("cannot create '{path}': {problem}")]
    Parent {
        /// The target.
        path: PathBuf,
        /// What is wrong with its directory, and the fix.
        problem: String,
    },
    /// `-c` on a block device.
    #[error("-c creates files, but '{0}' is a block device; drop -c to use the device as it is")]
    CreateOnDevice(PathBuf),
    /// open/stat failed.
    #[error("cannot open '{path}': {source}{hint}")]
    Open {
        /// The target.
        path: PathBuf,
        /// What the kernel said.
        source: io::Error,
        /// How to fix it.
        hint: &'static str,
    },
    /// Smaller than the workload needs.
    #[error(
        "'{path}' is too small: {have} usable, and this workload needs at least {need} ({why}); {fix}"
    )]
    TooSmall {
        /// The target.
        path: PathBuf,
        /// Usable bytes.
        have: String,
        /// Needed bytes.
        need: String,
        /// How the need is made up.
        why: String,
        /// What to change.
        fix: &'static str,
    },
    /// Misaligned for O_DIRECT.
    #[error(
        "'{path}': {what} is not a multiple of {align} bytes, which O_DIRECT (-Su/-Sh) needs on this target ({source_of_align}); use a multiple of {align}, or drop -Su/-Sh"
    )]
    Alignment {
        /// The target.
        path: PathBuf,
        /// The offending setting.
        what: String,
        /// The alignment required.
        align: u64,
        /// Where the requirement comes from.
        source_of_align: &'static str,
    },
    /// The `-Z` source file cannot be read.
    #[error("-Z: cannot read the write source '{path}': {source}")]
    Source {
        /// The source file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Writing a `-c` file failed (the partial file has been removed).
    #[error("cannot create '{path}': {source}; the partial file was removed")]
    Create {
        /// The target.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl TargetError {
    /// Whether the user can fix this by changing the command (exit 3) rather than the run failing (1).
    pub fn is_input_error(&self) -> bool {
        !matches!(self, TargetError::Create { .. })
    }
}

/// What was found at a target's path before anything is touched.
#[derive(Debug, Clone, Copy)]
struct Inspection {
    kind: TargetKind,
    /// The size the target will have when the run starts.
    size: u64,
    /// O_DIRECT alignment for offsets and sizes, and where it comes from.
    direct_align: (u64, &'static str),
}

/// XML `<PrecreateFiles>`: creates, before the first timespan, the files the policy selects, at
/// the size it selects; returns their paths, which later timespans then leave alone.
pub fn precreate(
    profile: &Profile,
    stop: &AtomicU64,
) -> Result<(Vec<PathBuf>, Vec<String>), TargetError> {
    let Some(policy) = profile.precreate else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut warnings = Vec::new();
    let mut sizes: Vec<(PathBuf, Vec<Option<u64>>)> = Vec::new();
    for ts in &profile.timespans {
        for t in &ts.targets {
            match sizes.iter_mut().find(|(p, _)| *p == t.path) {
                Some((_, seen)) => seen.push(t.create_size),
                None => sizes.push((t.path.clone(), vec![t.create_size])),
            }
        }
    }
    let mut created = Vec::new();
    for (path, seen) in sizes {
        let given: Vec<u64> = seen.iter().flatten().copied().collect();
        let constant = given.windows(2).all(|w| w[0] == w[1]);
        let size = match policy {
            Precreate::UseMaxSize => given.iter().max().copied(),
            Precreate::OnlyFilesWithConstantSizes if constant && given.len() == seen.len() => {
                given.first().copied()
            }
            Precreate::OnlyFilesWithConstantOrZeroSizes if constant => given.first().copied(),
            _ => None,
        };
        if let Some(size) = size {
            let target = profile
                .timespans
                .iter()
                .flat_map(|ts| &ts.targets)
                .find(|t| t.path == path)
                .expect("path came from a target");
            inspect(&Target {
                create_size: Some(size),
                ..target.clone()
            })?;
            warnings.extend(create_file(&path, size, CreateContent::Pattern, stop)?);
            created.push(path);
        }
    }
    Ok((created, warnings))
}

/// What [`prepare`] needs besides the timespan.
pub struct Setting<'a> {
    /// Files created up front by `<PrecreateFiles>`.
    pub precreated: &'a [PathBuf],
    /// A stop request aborts file creation.
    pub stop: &'a AtomicU64,
    /// `--force`: open a busy block device without O_EXCL.
    pub force: bool,
    /// `--iopoll`: every target must be opened O_DIRECT on a device with poll queues.
    pub iopoll: bool,
}

/// Checks every target of the timespan, creates `-c` files (except those in `precreated`), and
/// opens them all.
pub fn prepare(
    timespan: &TimeSpan,
    setting: &Setting<'_>,
) -> Result<(Vec<PreparedTarget>, Vec<String>), TargetError> {
    let precreated = setting.precreated;
    let mut warnings = Vec::new();
    let mut inspections = Vec::with_capacity(timespan.targets.len());
    for target in &timespan.targets {
        let inspection = inspect(target)?;
        check_workload(timespan, target, &inspection, &mut warnings)?;
        if setting.iopoll {
            check_iopoll(target)?;
        }
        inspections.push(inspection);
    }
    let mut sources = Vec::with_capacity(timespan.targets.len());
    for target in &timespan.targets {
        sources.push(write_source(target)?);
    }
    let mut created: Vec<&Path> = Vec::new();
    let result = (|| {
        for target in &timespan.targets {
            if let Some(size) = target.create_size
                && !created.contains(&target.path.as_path())
                && !precreated.contains(&target.path)
            {
                warnings.extend(create_file(
                    &target.path,
                    size,
                    create_content(timespan, target),
                    setting.stop,
                )?);
                created.push(&target.path);
            }
        }
        let mut prepared = Vec::with_capacity(timespan.targets.len());
        for ((target, inspection), source) in timespan.targets.iter().zip(&inspections).zip(sources)
        {
            let file = open(target, inspection.kind, setting.force)?;
            let range = range(target, inspection.size);
            if target.write_ratio < 100
                && inspection.kind == TargetKind::File
                && target.create_size.is_none()
                && let Some(warning) = never_written(&file, &target.path, range)
            {
                warnings.push(warning);
            }
            let distribution = target.distribution.as_ref().map_or_else(Vec::new, |d| {
                effective(
                    d,
                    range.usable,
                    target.block_size,
                    target.access.alignment(),
                )
            });
            prepared.push(PreparedTarget {
                file,
                kind: inspection.kind,
                size: inspection.size,
                range,
                write_source: source,
                distribution,
                seen_len: AtomicU64::new(inspection.size),
            });
        }
        Ok(prepared)
    })();
    match result {
        Ok(prepared) => Ok((prepared, warnings)),
        Err(error) => {
            for path in created {
                let _ = fs::remove_file(path);
            }
            Err(error)
        }
    }
}

fn open_error(path: &Path, source: io::Error) -> TargetError {
    let hint = match source.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "; check its permissions, or run as a user who may open it"
        }
        Some(libc::EINVAL) => {
            "; the file system may not support O_DIRECT (-Su/-Sh): drop it or use another file system"
        }
        Some(libc::EROFS) => "; the file system is read-only: use a read test (-w0) without -c",
        Some(libc::EBUSY) => "; the device is in use",
        Some(libc::ENOTDIR) => "; a part of the path is a file, not a directory: check the path",
        Some(libc::ENAMETOOLONG) => "; shorten the path",
        Some(libc::ELOOP) => "; the path has a symbolic link loop: check the path",
        _ => "",
    };
    TargetError::Open {
        path: path.to_path_buf(),
        source,
        hint,
    }
}

/// `--iopoll` polls the device's queues for completions: the I/O must bypass the page cache and
/// the device under the target must have poll queues (`queue/io_poll` in sysfs).
fn check_iopoll(target: &Target) -> Result<(), TargetError> {
    let refuse = |why: String| TargetError::NoPolling {
        path: target.path.clone(),
        why,
    };
    if target.cache != CacheMode::DisableOsCache {
        return Err(refuse(
            "is not opened with O_DIRECT, which polling needs; add -Su or -Sh".into(),
        ));
    }
    let meta = match fs::metadata(&target.path) {
        Ok(meta) => meta,
        Err(_) => crate::paths::parent(&target.path)
            .metadata()
            .map_err(|e| refuse(format!("cannot be looked at ({e})")))?,
    };
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 {
        return Err(refuse(
            "is not on a block device (tmpfs, overlay or a network file system)".into(),
        ));
    }
    let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
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

fn inspect(target: &Target) -> Result<Inspection, TargetError> {
    let path = &target.path;
    let metadata = match fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(open_error(path, e)),
    };
    let Some(metadata) = metadata else {
        let Some(size) = target.create_size else {
            return Err(TargetError::Missing(path.clone()));
        };
        let parent_meta = crate::paths::creatable(path).map_err(|problem| TargetError::Parent {
            path: path.clone(),
            problem,
        })?;
        return Ok(Inspection {
            kind: TargetKind::File,
            size,
            direct_align: device_logical_block(parent_meta.dev()),
        });
    };
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return Err(TargetError::Directory(path.clone()));
    }
    if file_type.is_block_device() {
        if target.create_size.is_some() {
            return Err(TargetError::CreateOnDevice(path.clone()));
        }
        let file = File::open(path).map_err(|e| open_error(path, e))?;
        let size = ioctl_u64(&file, BLKGETSIZE64).map_err(|e| open_error(path, e))?;
        let logical = ioctl_int(&file, BLKSSZGET).map_err(|e| open_error(path, e))?;
        return Ok(Inspection {
            kind: TargetKind::BlockDevice,
            size,
            direct_align: (logical as u64, "the device's logical block size"),
        });
    }
    if !file_type.is_file() {
        return Err(TargetError::Unsupported(path.clone()));
    }
    let direct_align =
        statx_dio_align(path).unwrap_or_else(|| device_logical_block(metadata.dev()));
    Ok(Inspection {
        kind: TargetKind::File,
        size: target.create_size.unwrap_or(metadata.len()),
        direct_align,
    })
}

fn ioctl_u64(file: &File, request: libc::c_ulong) -> io::Result<u64> {
    let mut value: u64 = 0;
    // SAFETY: the request writes one u64 into `value`.
    if unsafe { libc::ioctl(file.as_raw_fd(), request as _, &mut value) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(value)
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
fn statx_dio_align(path: &Path) -> Option<(u64, &'static str)> {
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statx is plain data; the kernel fills it for a valid path.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            c_path.as_ptr(),
            0,
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

fn range(target: &Target, size: u64) -> Range {
    let end = target.max_size.map_or(size, |max| max.min(size));
    Range {
        base: target.base_offset,
        usable: end.saturating_sub(target.base_offset),
    }
}

fn check_workload(
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
    let usable = range(target, inspection.size).usable;
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
    if target.cache == CacheMode::DisableOsCache {
        let (align, source_of_align) = inspection.direct_align;
        let checks = [
            (target.block_size, "the block size (-b)"),
            (target.access.alignment(), "the alignment or stride (-r/-s)"),
            (target.base_offset, "the base offset (-B)"),
            (target.thread_stride, "the thread stride (-T)"),
        ];
        if let Some((value, what)) = checks.into_iter().find(|(v, _)| v % align != 0) {
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

fn write_source(target: &Target) -> Result<Option<Vec<u8>>, TargetError> {
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
            let data = fs::read(path).map_err(|source| TargetError::Source {
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

/// What a `-c` file is filled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateContent {
    /// 0..255 repeating.
    Pattern,
    /// Zeros (`-Z`).
    Zero,
    /// Random bytes (`-Zr`).
    Random,
}

fn create_content(timespan: &TimeSpan, target: &Target) -> CreateContent {
    if timespan.random_write_data {
        CreateContent::Random
    } else if target.write_buffer == WriteBuffer::Zero {
        CreateContent::Zero
    } else {
        CreateContent::Pattern
    }
}

/// Creates (or recreates) a file of `size` bytes by writing every byte, marks it as an iospd test
/// file, then flushes it to the device and drops it from the page cache. A stop request (Ctrl-C)
/// or an error removes the partial file. Returns a warning when the mark cannot be set.
pub fn create_file(
    path: &Path,
    size: u64,
    content: CreateContent,
    stop: &AtomicU64,
) -> Result<Option<String>, TargetError> {
    let fail = |source| TargetError::Create {
        path: path.to_path_buf(),
        source,
    };
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(path)
        .map_err(|e| open_error(path, e))?;
    let warning = marker::mark(path).err().map(|e| {
        format!(
            "WARNING: cannot mark '{}' as an iospd test file ({e}); later runs that write to it will need --force",
            path.display()
        )
    });
    let written = (|| -> io::Result<()> {
        let mut chunk = vec![0u8; CREATE_CHUNK];
        let mut rng = Rng::new(0);
        if content == CreateContent::Pattern {
            for (i, byte) in chunk.iter_mut().enumerate() {
                *byte = i as u8;
            }
        }
        let mut offset = 0u64;
        while offset < size {
            if stop.load(Ordering::Relaxed) != 0 {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "interrupted before the file was complete",
                ));
            }
            if content == CreateContent::Random {
                for word in chunk.chunks_mut(8) {
                    word.copy_from_slice(&rng.next_u64().to_ne_bytes());
                }
            }
            let len = (size - offset).min(CREATE_CHUNK as u64) as usize;
            file.write_all_at(&chunk[..len], offset)?;
            offset += len as u64;
        }
        file.sync_all()?;
        // SAFETY: plain advisory call on an open descriptor.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        Ok(())
    })();
    if let Err(source) = written {
        drop(file);
        let _ = fs::remove_file(path);
        return Err(fail(source));
    }
    Ok(warning)
}

/// A warning when the range a read test covers has never been written (holes or unwritten
/// extents, which SEEK_HOLE reports on ext4, XFS, btrfs and tmpfs).
fn never_written(file: &File, path: &Path, range: Range) -> Option<String> {
    let end = range.base + range.usable;
    // SAFETY: lseek on an open descriptor.
    let hole = unsafe { libc::lseek(file.as_raw_fd(), range.base as i64, libc::SEEK_HOLE) };
    (hole >= 0 && (hole as u64) < end).then(|| {
        format!(
            "WARNING: '{}' has never-written regions in the tested range (the first at byte {hole}): reads there return zeros from the file system without touching the device, so the numbers may not be the device's. Write the file first, or let -c create it with real data",
            path.display()
        )
    })
}

/// Opens a target with the workload's flags; writes to a block device hold it exclusively (O_EXCL)
/// for the whole run so nothing can mount it meanwhile (with `--force`, a busy device is opened
/// without it).
fn open(target: &Target, kind: TargetKind, force: bool) -> Result<File, TargetError> {
    let exclusive = kind == TargetKind::BlockDevice && target.write_ratio > 0;
    match open_with(target, exclusive) {
        Err(TargetError::Open { source, .. })
            if exclusive && force && source.raw_os_error() == Some(libc::EBUSY) =>
        {
            open_with(target, false)
        }
        other => other,
    }
}

fn open_with(target: &Target, exclusive: bool) -> Result<File, TargetError> {
    let mut flags = libc::O_CLOEXEC;
    if exclusive {
        flags |= libc::O_EXCL;
    }
    if target.cache == CacheMode::DisableOsCache {
        flags |= libc::O_DIRECT;
    }
    if target.write_through && !target.memory_mapped {
        flags |= libc::O_DSYNC;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(target.write_ratio > 0)
        .custom_flags(flags)
        .open(&target.path)
        .map_err(|e| open_error(&target.path, e))?;
    for (wanted, advice) in [
        (target.hints.random_access, libc::POSIX_FADV_RANDOM),
        (target.hints.sequential_scan, libc::POSIX_FADV_SEQUENTIAL),
    ] {
        if wanted {
            // SAFETY: plain advisory call on an open descriptor.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, advice) };
        }
    }
    Ok(file)
}
