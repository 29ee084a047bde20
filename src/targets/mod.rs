//! Targets before the load: sizes, alignment and ranges checked for every timespan, then files
//! created (`-c`) and every target opened for I/O.
//!
//! The stage works on what the safety gate opened ([`crate::safety::Anchor`]), never on a path
//! again: a file is created where the gate checked its place, and I/O descriptors are reopened from
//! the gate's descriptor. [`check`] looks at every timespan before anything is written, so a bad
//! target in the last timespan stops the run before the first file is created. Created files hold
//! real data (never sparse or unwritten extents), so reads are served by the device rather than by
//! the file system returning zeros.

pub mod create;
pub mod distribution;
mod inspect;
mod preread;
pub mod served;

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::profile::{CacheMode, Profile, Target, TimeSpan};
use crate::safety::{Anchor, Cleared, Identity};
use distribution::{EffectiveRange, effective};
pub use inspect::Range;
use inspect::{Inspection, Size};

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
    /// `--compress` or `--dedupe`: the generator of the target's write data.
    pub compressible: Option<crate::data::pattern::Compressible>,
    /// `--dedupe`: its plan over the range's units, and which of them the run wrote.
    pub dedupe: Option<crate::data::dedupe::Tracker>,
    /// The block device under it (itself, for a device), whose counters say what reached it.
    pub device: Option<crate::system::backing::BlockDevice>,
    /// For a file: its file system's mount.
    pub mount: Option<crate::system::backing::Mounted>,
    /// The `-rd` distribution as it applies to this target (empty for uniform).
    pub distribution: Vec<EffectiveRange>,
    /// `-c --verify` created it in this run: its blocks hold generation 0 until written.
    pub created_verified: bool,
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
        let needed = self.range.end();
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

/// A target that cannot be used as the workload asks.
#[derive(Debug, Error)]
pub enum TargetError {
    /// A timespan uses a file that no earlier timespan creates.
    #[error(
        "'{0}' does not exist when its timespan starts; create it with -c<size> in that timespan or an earlier one"
    )]
    Missing(PathBuf),
    /// `--iopoll` on a target that cannot be polled.
    #[error("--iopoll: '{path}' {why}; run without --iopoll")]
    NoPolling {
        /// The target.
        path: PathBuf,
        /// What is missing.
        why: String,
    },
    /// Opening for I/O or reading its properties failed.
    #[error("cannot open '{path}': {source}{hint}")]
    Open {
        /// The target.
        path: PathBuf,
        /// What the kernel said.
        source: io::Error,
        /// How to fix it.
        hint: &'static str,
    },
    /// `--pre-read` failed.
    #[error(
        "--pre-read: cannot read '{path}': {source}; check the target, or run without --pre-read"
    )]
    PreRead {
        /// The target.
        path: PathBuf,
        /// What the kernel said.
        source: io::Error,
    },
    /// `--invalidate` failed.
    #[error(
        "--invalidate: cannot drop the page cache of '{path}': {source}; run without --invalidate"
    )]
    Invalidate {
        /// The target.
        path: PathBuf,
        /// What the kernel said.
        source: io::Error,
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
    /// A stride or alignment that does not fit in the range.
    #[error(
        "'{path}': {what} is larger than the {usable} bytes the workload may use, so no second offset fits; lower it, or use a larger range (-f, -B, or a larger target)"
    )]
    Stride {
        /// The target.
        path: PathBuf,
        /// The option and its value.
        what: String,
        /// Bytes usable.
        usable: u64,
    },
    /// A block or stride larger than a zone's window.
    #[error(
        "'{path}': a block or stride of {largest} bytes does not fit in a zone's window of {range} bytes (--zones); give --zones a range of at least {largest} bytes"
    )]
    ZoneWindow {
        /// The target.
        path: PathBuf,
        /// The largest block or stride.
        largest: u64,
        /// The zone's window.
        range: u64,
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
    /// `--trim` on a device that cannot discard.
    #[error("--trim: '{path}' {why}; run without --trim")]
    NoTrim {
        /// The target.
        path: PathBuf,
        /// What is missing.
        why: &'static str,
    },
    /// `--dedupe`'s plan does not fit the range.
    #[error("'{path}': --dedupe={dedupe}: {why}")]
    Dedupe {
        /// The target.
        path: PathBuf,
        /// The option's value.
        dedupe: crate::profile::Dedupe,
        /// What does not fit, and what to change.
        why: String,
    },
    /// `-c` sizes that cannot be written.
    #[error("-c: cannot create '{path}' of {size}: {why}; {fix}")]
    NoRoom {
        /// The target.
        path: PathBuf,
        /// The size asked.
        size: String,
        /// What stands in the way.
        why: String,
        /// What to change.
        fix: &'static str,
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

/// Every timespan's targets, checked before anything is written.
#[derive(Debug)]
pub struct Checked {
    /// Per timespan, per target.
    inspections: Vec<Vec<Inspection>>,
    /// Per timespan, per target: the `-Z` source buffer.
    sources: Vec<Vec<Option<Vec<u8>>>>,
    /// Files `<PrecreateFiles>` creates before the first timespan: anchor and size.
    precreate: Vec<(usize, u64)>,
    /// Their anchors.
    precreated: HashSet<usize>,
    /// Show creation on the terminal (not `--quiet`).
    status: bool,
    /// `--recreate`: write `-c` files even when they could be reused.
    recreate: bool,
    /// The anchors whose reuse was already said (a repeated timespan reuses its file each time).
    reuse_said: HashSet<usize>,
}

impl Checked {
    /// Whether `-c` reuses the anchor's file as it is (never with `--recreate`), and the note
    /// that says so the first time.
    fn reused(
        &mut self,
        cleared: &Cleared,
        anchor: usize,
        path: &std::path::Path,
        size: u64,
        content: create::CreateContent,
    ) -> Option<Option<String>> {
        if self.recreate {
            return None;
        }
        let note = create::reuse(&cleared.anchors[anchor], path, size, content)?;
        Some(self.reuse_said.insert(anchor).then_some(note))
    }

    /// Whether preparation is shown on the terminal (not `--quiet`).
    pub fn shows_status(&self) -> bool {
        self.status
    }

    /// The note for a buffered run (`-Sb`, DiskSpd's default) whose target fits in the memory
    /// left (`available` bytes): the page cache will serve it, so it measures memory. One note,
    /// for the first such target.
    pub fn page_cache_note(&self, profile: &Profile, available: u64) -> Option<String> {
        profile
            .timespans
            .iter()
            .zip(&self.inspections)
            .flat_map(|(ts, inspections)| ts.targets.iter().zip(inspections))
            .find(|(t, i)| {
                t.cache == crate::profile::CacheMode::Cached
                    && !t.memory_mapped
                    && i.range.usable <= available
            })
            .map(|(t, i)| {
                format!(
                    "note: '{}' ({}) fits in the memory left ({}) and is read through the page cache (-Sb, DiskSpd's default): this measures memory, not the device; add -Sh (or -Su) to measure the device",
                    t.path.display(),
                    crate::units::format_size(i.range.usable),
                    crate::units::format_size(available)
                )
            })
    }
}

impl Checked {
    /// Under `--verify`: the bytes of the block tables the run holds at its peak — one word per
    /// block of every target, a target's table kept from timespan to timespan, so the largest of
    /// each path's.
    pub fn verify_table_bytes(&self, profile: &Profile) -> u64 {
        if profile.verify.is_none() {
            return 0;
        }
        let mut largest: std::collections::HashMap<&std::path::Path, u64> = Default::default();
        for (ts, inspections) in profile.timespans.iter().zip(&self.inspections) {
            for (target, inspection) in ts.targets.iter().zip(inspections) {
                let bytes = crate::verify::table::Blocks::bytes_for(
                    inspection.range.usable / target.block_size,
                );
                let entry = largest.entry(target.path.as_path()).or_default();
                *entry = (*entry).max(bytes);
            }
        }
        largest.values().sum()
    }
}

/// Checks the targets of every timespan as they will be when that timespan starts: sizes (after
/// the `-c` and `<PrecreateFiles>` of earlier timespans), ranges, strides, O_DIRECT alignment,
/// polling, `-Z` sources, and room for the files `-c` creates. Returns warnings.
pub fn check(
    profile: &Profile,
    cleared: &Cleared,
    iopoll: bool,
) -> Result<(Checked, Vec<String>), TargetError> {
    let mut warnings = Vec::new();
    let precreate = create::precreate_plan(profile, cleared);
    let precreated: HashSet<usize> = precreate.iter().map(|(a, _)| *a).collect();
    let mut sizes: Vec<Size> = cleared.anchors.iter().map(Size::now).collect();
    for &(anchor, size) in &precreate {
        sizes[anchor] = Size::Created(size);
    }
    let mut inspections = Vec::with_capacity(profile.timespans.len());
    let mut sources = Vec::with_capacity(profile.timespans.len());
    let mut creations = Vec::new();
    for ts in &profile.timespans {
        let mut created_here: HashSet<usize> = HashSet::new();
        let mut these = Vec::with_capacity(ts.targets.len());
        for target in &ts.targets {
            let index = cleared.anchor_of(&target.path);
            if let Some(size) = target.create_size
                && !precreated.contains(&index)
                && !cleared.kept.contains(&index)
                && created_here.insert(index)
            {
                sizes[index] = Size::Created(size);
                creations.push((index, target.path.clone(), size));
            }
            let inspection = inspect::inspect(target, &cleared.anchors[index], sizes[index])?;
            inspect::check_workload(ts, target, &inspection, &mut warnings)?;
            if iopoll {
                inspect::check_iopoll(target, &cleared.anchors[index])?;
            }
            inspect::check_trim(target, &cleared.anchors[index])?;
            these.push(inspection);
        }
        inspections.push(these);
        sources.push(
            ts.targets
                .iter()
                .map(inspect::write_source)
                .collect::<Result<_, _>>()?,
        );
    }
    for &(anchor, size) in &precreate {
        let path = cleared.path_of(anchor).to_path_buf();
        creations.push((anchor, path, size));
    }
    create::check_room(&creations, cleared)?;
    Ok((
        Checked {
            inspections,
            sources,
            precreate,
            precreated,
            status: !profile.observe.quiet,
            recreate: profile.recreate,
            reuse_said: HashSet::new(),
        },
        warnings,
    ))
}

/// Creates the files `<PrecreateFiles>` asks for, before the first timespan.
pub fn precreate(
    checked: &mut Checked,
    cleared: &mut Cleared,
    stop: &AtomicU64,
) -> Result<Vec<String>, TargetError> {
    let mut warnings = Vec::new();
    for (anchor, size) in checked.precreate.clone() {
        let path = cleared.path_of(anchor).to_path_buf();
        let content = create::CreateContent::Pattern;
        if let Some(note) = checked.reused(cleared, anchor, &path, size, content) {
            warnings.extend(note);
            continue;
        }
        warnings.extend(create::create(
            &mut cleared.anchors[anchor],
            &path,
            size,
            content,
            stop,
            checked.status,
        )?);
    }
    Ok(warnings)
}

/// Creates the `-c` files of timespan `index` (in the verifiable format under `--verify`, whose
/// run id is `verify_run`) and opens all its targets for I/O.
pub fn prepare(
    timespan: &TimeSpan,
    index: usize,
    checked: &mut Checked,
    cleared: &mut Cleared,
    stop: &AtomicU64,
    verify_run: Option<u64>,
) -> Result<(Vec<PreparedTarget>, Vec<String>), TargetError> {
    let mut warnings = Vec::new();
    let mut created: HashSet<usize> = HashSet::new();
    let mut verifiable = vec![false; timespan.targets.len()];
    // `-c` wrote every unit of the `--dedupe` plan in this run.
    let mut filled = vec![false; timespan.targets.len()];
    for (i, target) in timespan.targets.iter().enumerate() {
        let anchor = cleared.anchor_of(&target.path);
        if let Some(size) = target.create_size
            && !checked.precreated.contains(&anchor)
            && !cleared.kept.contains(&anchor)
            && created.insert(anchor)
        {
            let range = checked.inspections[index][i].range;
            let content = match verify_run {
                Some(run_id) => {
                    verifiable[i] = true;
                    create::CreateContent::Verified(create::VerifiedLayout {
                        run_id,
                        target: i as u32,
                        base: range.base,
                        block: target.block_size,
                        count: range.usable / target.block_size,
                    })
                }
                None => create::create_content(timespan, target, range),
            };
            if let Some(note) = checked.reused(cleared, anchor, &target.path, size, content) {
                warnings.extend(note);
                continue;
            }
            filled[i] = target.dedupe.is_some();
            warnings.extend(create::create(
                &mut cleared.anchors[anchor],
                &target.path,
                size,
                content,
                stop,
                checked.status,
            )?);
        }
    }
    let sources = std::mem::take(&mut checked.sources[index]);
    let mut prepared = Vec::with_capacity(timespan.targets.len());
    for ((((target, inspection), source), created_verified), filled) in timespan
        .targets
        .iter()
        .zip(&checked.inspections[index])
        .zip(sources)
        .zip(verifiable)
        .zip(filled)
    {
        let anchor_index = cleared.anchor_of(&target.path);
        let Anchor::Open {
            file: anchor,
            facts,
        } = &cleared.anchors[anchor_index]
        else {
            return Err(TargetError::Missing(target.path.clone()));
        };
        let file = open_for_io(target, anchor, facts.identity)?;
        if target.invalidate {
            preread::invalidate(&file).map_err(|source| TargetError::Invalidate {
                path: target.path.clone(),
                source,
            })?;
        }
        if target.pre_read {
            let direct = target.cache == CacheMode::DisableOsCache;
            preread::pre_read(&file, inspection.range, target.block_size, direct, stop).map_err(
                |source| TargetError::PreRead {
                    path: target.path.clone(),
                    source,
                },
            )?;
        }
        // Writes that leave other content than the file's complete mark records: no longer
        // reusable as it is.
        if target.modifies()
            && let Ok(Some((_, fill))) = crate::safety::marker::completed(&file)
            && create::written_fill(timespan, target, verify_run.is_some()) != Some(fill.as_str())
        {
            let _ = crate::safety::marker::mark(&file);
        }
        let range = inspection.range;
        if target.write_ratio < 100
            && inspection.kind == TargetKind::File
            && (target.create_size.is_none() || cleared.kept.contains(&anchor_index))
            && let Some(warning) = inspect::never_written(&file, &target.path, range)
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
        let (device, mount) = crate::system::backing::backing(&target.path);
        prepared.push(PreparedTarget {
            device,
            mount,
            file,
            kind: inspection.kind,
            size: inspection.size,
            range,
            write_source: source,
            compressible: crate::data::pattern::Compressible::for_target(
                target,
                timespan.seed.into(),
            ),
            dedupe: target.dedupe.map(|d| {
                let plan = crate::data::dedupe::Plan::new(&d, range.usable / d.unit)
                    .expect("checked with the workload");
                crate::data::dedupe::Tracker::new(plan, d.flipflop, filled)
            }),
            distribution,
            seen_len: AtomicU64::new(inspection.size),
            created_verified,
        });
    }
    Ok((prepared, warnings))
}

/// A descriptor for the workload (O_DIRECT, O_DSYNC, read-write when it writes) on the very file
/// or device the gate opened. It asks for O_NOATIME, so a read test writes no access times (the
/// kernel allows it to a file's owner and to root; others get the descriptor without it).
fn open_for_io(target: &Target, anchor: &File, identity: Identity) -> Result<File, TargetError> {
    let mut flags = if target.modifies() {
        libc::O_RDWR
    } else {
        libc::O_RDONLY
    };
    if target.cache == CacheMode::DisableOsCache {
        flags |= libc::O_DIRECT;
    }
    if target.write_through && !target.memory_mapped {
        flags |= libc::O_DSYNC;
    }
    if target.o_sync {
        flags |= libc::O_SYNC;
    }
    let reopen = |flags| crate::safety::open::reopen(anchor.as_fd(), flags, identity, &target.path);
    let file = match reopen(flags | libc::O_NOATIME) {
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => reopen(flags),
        other => other,
    }
    .map_err(|e| inspect::open_error(&target.path, e))?;
    for (wanted, advice) in [
        (target.hints.random_access, libc::POSIX_FADV_RANDOM),
        (target.hints.sequential_scan, libc::POSIX_FADV_SEQUENTIAL),
    ] {
        if wanted {
            // SAFETY: plain advisory call on an open descriptor.
            unsafe { libc::posix_fadvise(std::os::fd::AsRawFd::as_raw_fd(&file), 0, 0, advice) };
        }
    }
    Ok(file)
}

/// The distinct devices under `targets`, each with the targets on it (the device clock watches
/// them in this order).
pub fn devices(
    targets: &[PreparedTarget],
) -> Vec<(crate::system::backing::BlockDevice, Vec<usize>)> {
    let mut devices: Vec<(crate::system::backing::BlockDevice, Vec<usize>)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let Some(device) = &t.device else { continue };
        match devices.iter_mut().find(|(d, _)| d == device) {
            Some((_, on)) => on.push(i),
            None => devices.push((device.clone(), vec![i])),
        }
    }
    devices
}

#[cfg(test)]
mod tests;
