//! The one gate every byte iospd writes passes: iospd never destroys data it was not clearly told
//! to destroy.
//!
//! Before anything is created or written, [`check`] opens every target once and decides on what it
//! opened (see [`open`]): a block device the run writes to is held exclusively (`O_EXCL`) and is
//! refused when it is read-only, when it or a partition is mounted, swap or held by another
//! device, or when libblkid finds any signature on it or in any of its partitions; a file is
//! refused unless iospd created it as a test file and nothing has made it a file system or a block
//! device since. Every output (reports, time series, interval log, trace) is a [`Place`]: a regular
//! file to be replaced whole, never a device, a target, an input or another output. `--force`
//! overrides the refusals that concern data, never the ones about what an output is.
//!
//! The decisions read the machine through [`SystemView`], so they are unit-tested with a fake one.

pub mod blkid;
pub mod marker;
pub mod open;
pub mod place;
mod view;

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::profile::{Profile, WriteBuffer};
pub use open::{Facts, Identity, Kind};
pub use place::Place;
pub use view::{LinuxView, Member, SystemView, device_size};

/// Why a run may not start: a refusal to destroy data, or a target or output that cannot be used.
/// Found before anything is written; exit status 3.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SafetyError {
    /// A block device in use or holding data.
    #[error(
        "refusing to write to '{path}': {found}, and writing would destroy it. {fix}, or add --force to write to it anyway"
    )]
    Device {
        /// The device.
        path: PathBuf,
        /// What was found, and where.
        found: String,
        /// What to do about it.
        fix: String,
    },
    /// An existing file iospd did not create, or one that is now in use or holds data.
    #[error("refusing to {action} '{path}': {found}; {fix}, or add --force to use it anyway")]
    File {
        /// The file.
        path: PathBuf,
        /// Write to, or recreate.
        action: &'static str,
        /// What makes it unsafe.
        found: String,
        /// What to do about it.
        fix: String,
    },
    /// A read-only block device asked to take writes.
    #[error(
        "'{0}' is a read-only device (blockdev --getro), so a write test cannot run on it; use -w0, or make it writable with blockdev --setrw"
    )]
    ReadOnly(PathBuf),
    /// No such file and no `-c`.
    #[error("'{0}' does not exist; create it with -c<size> (for example -c1G) or check the path")]
    Missing(PathBuf),
    /// A directory.
    #[error("'{0}' is a directory; name a file or a block device")]
    Directory(PathBuf),
    /// A character device, FIFO or socket.
    #[error(
        "'{path}' is {what}, neither a regular file nor a block device; name a file or a block device"
    )]
    Unsupported {
        /// The target.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// `-c` on a block device.
    #[error("-c creates files, but '{0}' is a block device; drop -c to use the device as it is")]
    CreateOnDevice(PathBuf),
    /// A target that cannot be opened.
    #[error("cannot open '{path}': {problem}{hint}")]
    Open {
        /// The target.
        path: PathBuf,
        /// What the kernel said.
        problem: String,
        /// How to fix it.
        hint: &'static str,
    },
    /// `-c` where the file cannot be created.
    #[error("cannot create '{path}': {problem}")]
    Parent {
        /// The target.
        path: PathBuf,
        /// What is wrong with its place, and the fix.
        problem: String,
    },
    /// Two targets on one disk, both written.
    #[error(
        "'{part}' is a partition of '{disk}', and this run writes to both; write to the disk or to its partitions, not to both"
    )]
    Overlap {
        /// The whole disk.
        disk: PathBuf,
        /// Its partition.
        part: PathBuf,
    },
    /// `--verify` with one file under two names: one table per name would call the other name's
    /// writes bad blocks.
    #[error(
        "'{second}' is '{first}' under another name (a hard or symbolic link, or another path to it), and --verify keeps one table of written blocks per target; name the file one way throughout the run"
    )]
    SameFile {
        /// The name the run met first.
        first: PathBuf,
        /// The other name.
        second: PathBuf,
    },
    /// An output that cannot be written where asked.
    #[error("{option}: cannot write '{path}': {problem}")]
    Output {
        /// The output.
        path: PathBuf,
        /// The option that named it.
        option: &'static str,
        /// What is wrong, and the fix.
        problem: String,
    },
}

/// A target the gate let through, held for the whole run.
#[derive(Debug)]
pub enum Anchor {
    /// It exists and is open (read-write when the run writes it; `O_EXCL` for a device written).
    Open {
        /// The descriptor every later step reaches it through.
        file: File,
        /// What it is.
        facts: Facts,
    },
    /// `-c` will create it here.
    New(Place),
}

impl Anchor {
    /// What the anchor holds, once it exists.
    pub fn facts(&self) -> Option<Facts> {
        match self {
            Anchor::Open { facts, .. } => Some(*facts),
            Anchor::New(_) => None,
        }
    }
}

/// Every output of a run, checked.
#[derive(Debug, Default)]
pub struct Outputs {
    /// `--output` files, in the order given.
    pub reports: Vec<Place>,
    /// `--timeseries`.
    pub timeseries: Option<Place>,
    /// `--histlog`.
    pub histlog: Option<Place>,
    /// `--trace`.
    pub trace: Option<Place>,
    /// `--verify-state`.
    pub verify_state: Option<Place>,
}

/// What the gate let through: every target, open once, and every output.
#[derive(Debug, Default)]
pub struct Cleared {
    /// Each target path of the profile and the anchor it reaches, in the profile's order.
    paths: Vec<(PathBuf, usize)>,
    /// The same, by path.
    by_path: HashMap<PathBuf, usize>,
    /// Per anchor, the first path that reached it (an index into `paths`).
    first_path: Vec<usize>,
    /// Anchors by the file or device they hold, and by the place `-c` will create them.
    by_identity: HashMap<Identity, usize>,
    by_place: HashMap<place::Key, usize>,
    /// The distinct targets.
    pub anchors: Vec<Anchor>,
    /// The outputs.
    pub outputs: Outputs,
    /// Notices to print once the run starts (`--force`).
    pub notices: Vec<String>,
    /// The anchors `--keep-existing` uses as they are: `-c` creates nothing there.
    pub kept: std::collections::HashSet<usize>,
}

impl Cleared {
    /// The index of the anchor a target path reaches.
    pub fn anchor_of(&self, path: &Path) -> usize {
        *self
            .by_path
            .get(path)
            .expect("every target path was cleared")
    }

    /// The first target path that reached anchor `index`.
    pub fn path_of(&self, index: usize) -> &Path {
        &self.paths[self.first_path[index]].0
    }
}

/// Opens and checks every target and output of the profile. Nothing is created or written.
pub fn check(profile: &Profile, view: &dyn SystemView) -> Result<Cleared, SafetyError> {
    // Whether any I/O writes each path, and the largest size `-c` creates it at.
    let mut roles: HashMap<&Path, (bool, Option<u64>)> = HashMap::new();
    for t in profile.timespans.iter().flat_map(|ts| &ts.targets) {
        let role = roles.entry(t.path.as_path()).or_default();
        role.0 |= t.modifies() || profile.engine.changes_files();
        role.1 = role.1.max(t.create_size);
    }
    let mut cleared = Cleared::default();
    let mut devices: Vec<(PathBuf, u64)> = Vec::new();
    for target in profile.timespans.iter().flat_map(|ts| &ts.targets) {
        let path = target.path.as_path();
        if cleared.by_path.contains_key(path) {
            continue;
        }
        let (writes, create_size) = roles[path];
        let layout = Layout {
            creates: create_size.is_some(),
            keep_from: create_size.filter(|_| profile.keep_existing),
        };
        let index = match clear_target(path, writes, layout, profile.force, &mut cleared, view)? {
            Reached::Known(index) if profile.verify.is_some() => {
                return Err(SafetyError::SameFile {
                    first: cleared.path_of(index).to_path_buf(),
                    second: path.to_path_buf(),
                });
            }
            Reached::Known(index) => index,
            Reached::Fresh(anchor) => {
                if writes
                    && let Some(Facts {
                        kind: Kind::BlockDevice,
                        dev,
                        ..
                    }) = anchor.facts()
                {
                    overlap(path, dev, &devices, view)?;
                    devices.push((path.to_path_buf(), dev));
                }
                let index = cleared.anchors.len();
                if anchor.facts().is_some_and(|f| layout.keeps(&f)) {
                    cleared.kept.insert(index);
                }
                match &anchor {
                    Anchor::Open { facts, .. } => cleared.by_identity.insert(facts.identity, index),
                    Anchor::New(place) => cleared.by_place.insert(place.key(), index),
                };
                cleared.anchors.push(anchor);
                cleared.first_path.push(cleared.paths.len());
                index
            }
        };
        cleared.by_path.insert(path.to_path_buf(), index);
        cleared.paths.push((path.to_path_buf(), index));
    }
    cleared.outputs = outputs(profile, &cleared, view)?;
    Ok(cleared)
}

/// What `-c` does to a target path.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// `-c` names it.
    creates: bool,
    /// `--keep-existing`: an existing file at least this long (or a device) is used as it is.
    keep_from: Option<u64>,
}

impl Layout {
    /// Whether `--keep-existing` uses what is there as it is.
    fn keeps(&self, facts: &Facts) -> bool {
        self.keep_from.is_some_and(|size| match facts.kind {
            Kind::BlockDevice => true,
            Kind::File => facts.len >= size,
            _ => false,
        })
    }
}

/// Where a target path leads.
enum Reached {
    /// To a target another path already reached.
    Known(usize),
    /// To a target not seen before.
    Fresh(Anchor),
}

fn clear_target(
    path: &Path,
    writes: bool,
    layout: Layout,
    force: bool,
    cleared: &mut Cleared,
    view: &dyn SystemView,
) -> Result<Reached, SafetyError> {
    let located = match open::locate(path) {
        Ok(fd) => fd,
        Err(e) if e.kind() == io::ErrorKind::NotFound && layout.creates => {
            let place = Place::locate(path).map_err(|problem| SafetyError::Parent {
                path: path.to_path_buf(),
                problem,
            })?;
            if place.identities().next().is_some() {
                return Err(SafetyError::Parent {
                    path: path.to_path_buf(),
                    problem: "it is a symbolic link to nothing, and -c creates a file only at a free name; remove the link or name the file it should point to".into(),
                });
            }
            return Ok(match cleared.by_place.get(&place.key()).copied() {
                Some(index) => Reached::Known(index),
                None => Reached::Fresh(Anchor::New(place)),
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(SafetyError::Missing(path.to_path_buf()));
        }
        Err(e) => return Err(open_error(path, e)),
    };
    let facts = open::facts(located.as_fd()).map_err(|e| open_error(path, e))?;
    if let Some(&index) = cleared.by_identity.get(&facts.identity) {
        return Ok(Reached::Known(index));
    }
    let creates = layout.creates && !layout.keeps(&facts);
    match facts.kind {
        Kind::Directory => return Err(SafetyError::Directory(path.to_path_buf())),
        Kind::Other(what) => {
            return Err(SafetyError::Unsupported {
                path: path.to_path_buf(),
                what,
            });
        }
        Kind::BlockDevice if creates => {
            return Err(SafetyError::CreateOnDevice(path.to_path_buf()));
        }
        Kind::BlockDevice | Kind::File => {}
    }
    let device = facts.kind == Kind::BlockDevice;
    let access = if writes || creates {
        libc::O_RDWR
    } else {
        libc::O_RDONLY
    };
    let reopen = |flags| open::reopen(located.as_fd(), flags, facts.identity, path);
    let exclusive = device && writes;
    let file = match reopen(access | if exclusive { libc::O_EXCL } else { 0 }) {
        Ok(file) => file,
        Err(e) if exclusive && e.raw_os_error() == Some(libc::EBUSY) => {
            // Held by someone: say by what, when the machine tells.
            let file = reopen(access).map_err(|e| open_error(path, e))?;
            let (found, fix) = device_problem(&file, facts.dev, view).unwrap_or_else(|| {
                (
                    "it cannot be opened exclusively (EBUSY): something else is using it".into(),
                    format!(
                        "Stop what has it open first (fuser -v {} shows it)",
                        path.display()
                    ),
                )
            });
            if !force {
                return Err(SafetyError::Device {
                    path: path.to_path_buf(),
                    found,
                    fix,
                });
            }
            cleared
                .notices
                .push(format!("--force: writing to {path:?} although {found}"));
            file
        }
        Err(e) => return Err(open_error(path, e)),
    };
    if writes || creates {
        let notices = &mut cleared.notices;
        match facts.kind {
            Kind::BlockDevice => check_device(path, &file, facts.dev, force, view, notices)?,
            _ => check_file(path, &file, facts, creates, force, view, notices).map_err(
                |error| match (error, layout.keep_from) {
                    (
                        SafetyError::File {
                            path,
                            action,
                            found,
                            fix,
                        },
                        Some(size),
                    ) if creates => SafetyError::File {
                        path,
                        action,
                        found: format!(
                            "it holds {}, less than the {} --keep-existing lays out, and {found}",
                            crate::units::format_size(facts.len),
                            crate::units::format_size(size)
                        ),
                        fix,
                    },
                    (error, _) => error,
                },
            )?,
        }
    }
    Ok(Reached::Fresh(Anchor::Open { file, facts }))
}

/// Refuses writing to a disk and one of its partitions in the same run.
fn overlap(
    path: &Path,
    dev: u64,
    devices: &[(PathBuf, u64)],
    view: &dyn SystemView,
) -> Result<(), SafetyError> {
    for (other, other_dev) in devices {
        let (disk, part) = if view.family(*other_dev).iter().any(|m| m.dev == dev) {
            (other.clone(), path.to_path_buf())
        } else if view.family(dev).iter().any(|m| m.dev == *other_dev) {
            (path.to_path_buf(), other.clone())
        } else {
            continue;
        };
        return Err(SafetyError::Overlap { disk, part });
    }
    Ok(())
}

fn open_error(path: &Path, source: io::Error) -> SafetyError {
    let hint = match source.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "; check its permissions, or run as a user who may open it"
        }
        Some(libc::EROFS) => "; the file system is read-only: use a read test (-w0) without -c",
        Some(libc::ETXTBSY) => "; it is in use (as swap, or a running program)",
        Some(libc::ENOTDIR) => "; a part of the path is a file, not a directory: check the path",
        Some(libc::ENAMETOOLONG) => "; shorten the path",
        Some(libc::ELOOP) => "; the path has a symbolic link loop: check the path",
        Some(libc::EMFILE) => {
            "; iospd holds each target open for the run: raise the limit (ulimit -n) or name fewer targets"
        }
        _ => "",
    };
    SafetyError::Open {
        path: path.to_path_buf(),
        problem: source.to_string(),
        hint,
    }
}

/// A block device the run writes to: read-only, in use, or holding data.
fn check_device(
    path: &Path,
    file: &File,
    dev: u64,
    force: bool,
    view: &dyn SystemView,
    notices: &mut Vec<String>,
) -> Result<(), SafetyError> {
    if view.read_only(file) {
        return Err(SafetyError::ReadOnly(path.to_path_buf()));
    }
    if let Some((found, fix)) = device_problem(file, dev, view) {
        if !force {
            return Err(SafetyError::Device {
                path: path.to_path_buf(),
                found,
                fix,
            });
        }
        notices.push(format!("--force: writing to {path:?} although {found}"));
    }
    if force {
        notices.push(format!(
            "--force: writing to {} ({})",
            path.display(),
            view.describe(dev)
        ));
    }
    Ok(())
}

/// The first reason a block device must not be written, and a hint to clear it.
fn device_problem(file: &File, dev: u64, view: &dyn SystemView) -> Option<(String, String)> {
    let family = view.family(dev);
    let which = |member: &Member| {
        if member.dev == dev {
            "it".to_string()
        } else {
            format!("its partition {}", member.name)
        }
    };
    let mounts = view.mounts();
    let swaps = view.swaps();
    for member in &family {
        if let Some((_, point)) = mounts.iter().find(|(d, _)| *d == member.dev) {
            return Some((
                format!("{} is mounted at {point}", which(member)),
                "Unmount it first".into(),
            ));
        }
        if let Some((_, swap)) = swaps
            .iter()
            .find(|(id, _)| *id == Identity::Device(member.dev))
        {
            return Some((
                format!("{} is in use as swap ({swap})", which(member)),
                format!("Run swapoff {swap} first"),
            ));
        }
        let holders = view.holders(member.dev);
        if !holders.is_empty() {
            return Some((
                format!(
                    "{} is held by {} (device mapper, MD RAID or LVM)",
                    which(member),
                    holders.join(", ")
                ),
                "Stop the array or volume group that uses it first".into(),
            ));
        }
    }
    // The device, and each partition the kernel knows (whose own table may have been erased).
    for member in &family {
        let (offset, len) = match member.dev == dev {
            true => (0, 0),
            false => (member.start, member.len),
        };
        match view.signatures(file, offset, len) {
            Ok(found) => {
                if let Some(first) = found.first() {
                    let more = match found.len() {
                        1 => String::new(),
                        n => format!(
                            " and {} more signature{}",
                            n - 1,
                            if n > 2 { "s" } else { "" }
                        ),
                    };
                    return Some((
                        format!(
                            "{} holds {} (signature at byte {}){more}",
                            which(member),
                            first.describe(),
                            offset + first.offset
                        ),
                        format!(
                            "If the data is not needed, erase the signatures with: wipefs -a {}",
                            member.name
                        ),
                    ));
                }
            }
            Err(e) => {
                return Some((
                    format!("{} cannot be probed for data ({e})", which(member)),
                    "Check that the device is readable and that libblkid (util-linux) is installed"
                        .into(),
                ));
            }
        }
    }
    None
}

/// A file the run writes to or recreates: iospd's own test file, not in use as a block device or
/// swap, and holding no file system.
fn check_file(
    path: &Path,
    file: &File,
    facts: Facts,
    creates: bool,
    force: bool,
    view: &dyn SystemView,
    notices: &mut Vec<String>,
) -> Result<(), SafetyError> {
    let action = if creates { "recreate" } else { "write to" };
    let problem = if let Some((_, device)) = view
        .loops()
        .into_iter()
        .find(|(id, _)| *id == facts.identity)
    {
        Some((
            format!("it backs the loop device {device}, which may hold a mounted file system"),
            format!("detach it first (losetup -d {device})"),
        ))
    } else if let Some((_, swap)) = view
        .swaps()
        .into_iter()
        .find(|(id, _)| *id == facts.identity)
    {
        Some((
            format!("it is in use as swap ({swap})"),
            format!("run swapoff {swap} first"),
        ))
    } else {
        match marker::is_test_file(file) {
            Ok(true) => match view.signatures(file, 0, 0) {
                Ok(found) => found.first().map(|first| {
                    (
                        format!(
                            "it holds {} (signature at byte {}), although iospd created it",
                            first.describe(),
                            first.offset
                        ),
                        "if the data is not needed, remove the file and let -c create it again"
                            .into(),
                    )
                }),
                Err(e) => Some((
                    format!("its contents cannot be probed for data ({e})"),
                    "check that libblkid (util-linux) is installed".into(),
                )),
            },
            Ok(false) => Some((
                format!(
                    "it exists and iospd did not create it as a test file (it has no {} attribute)",
                    marker::ATTRIBUTE
                ),
                "remove it and let -c create a fresh test file".into(),
            )),
            Err(e) => Some((
                format!(
                    "it exists and its {} attribute cannot be read ({e})",
                    marker::ATTRIBUTE
                ),
                "remove it and let -c create a fresh test file".into(),
            )),
        }
    };
    match problem {
        None => Ok(()),
        Some((found, _)) if force => {
            notices.push(format!(
                "--force: {action} {}, although {found}",
                path.display()
            ));
            Ok(())
        }
        Some((found, fix)) => Err(SafetyError::File {
            path: path.to_path_buf(),
            action,
            found,
            fix,
        }),
    }
}

/// Checks every output: a regular file to be replaced, not a target, an input or another output,
/// nor a file in use as a loop device's backing or as swap.
fn outputs(
    profile: &Profile,
    cleared: &Cleared,
    view: &dyn SystemView,
) -> Result<Outputs, SafetyError> {
    let observe = &profile.observe;
    let mut named: Vec<(&'static str, &PathBuf)> =
        profile.outputs.iter().map(|p| ("--output", p)).collect();
    named.extend(observe.timeseries.iter().map(|p| ("--timeseries", p)));
    named.extend(observe.histlog.iter().map(|p| ("--histlog", p)));
    named.extend(observe.trace.iter().map(|p| ("--trace", p)));
    named.extend(
        profile
            .verify
            .iter()
            .filter_map(|v| v.state.as_ref())
            .map(|p| ("--verify-state", p)),
    );
    let inputs = inputs(profile);
    let in_use: Vec<(Identity, String)> = match named.is_empty() {
        true => Vec::new(),
        false => view.loops().into_iter().chain(view.swaps()).collect(),
    };
    let mut checked: Vec<(&'static str, Place)> = Vec::with_capacity(named.len());
    for (option, path) in named {
        let refuse = |problem: String| SafetyError::Output {
            path: path.clone(),
            option,
            problem,
        };
        let place = Place::locate(path).map_err(refuse)?;
        let names = |identity: Identity| place.identities().any(|i| i == identity);
        for (target, index) in &cleared.paths {
            let same = match &cleared.anchors[*index] {
                Anchor::Open { facts, .. } => names(facts.identity),
                Anchor::New(new) => new.same_place(&place),
            };
            if same {
                return Err(refuse(format!(
                    "it is the target '{}' of this run, which the output would destroy; name another file",
                    target.display()
                )));
            }
        }
        if let Some((what, _)) = inputs.iter().find(|(_, identity)| names(*identity)) {
            return Err(refuse(format!(
                "it is this run's {what}, which the output would replace; name another file"
            )));
        }
        if let Some((_, user)) = in_use.iter().find(|(identity, _)| names(*identity)) {
            return Err(refuse(format!(
                "it is in use by {user} (a loop device or swap), and replacing it would lose that data when it is released; name another file"
            )));
        }
        if let Some((other, _)) = checked
            .iter()
            .find(|(_, p)| p.same_place(&place) || p.identities().any(names))
        {
            return Err(refuse(format!(
                "it is also the {other} file; give each output its own file"
            )));
        }
        checked.push((option, place));
    }
    let mut outputs = Outputs::default();
    for (option, place) in checked {
        match option {
            "--timeseries" => outputs.timeseries = Some(place),
            "--histlog" => outputs.histlog = Some(place),
            "--trace" => outputs.trace = Some(place),
            "--verify-state" => outputs.verify_state = Some(place),
            _ => outputs.reports.push(place),
        }
    }
    Ok(outputs)
}

/// Files the run reads its settings or data from: the `-X` profile and `-Z` source files.
fn inputs(profile: &Profile) -> Vec<(&'static str, Identity)> {
    let identity = open::identity;
    let mut inputs = Vec::new();
    if let Some(id) = profile.profile_file.as_deref().and_then(identity) {
        inputs.push(("XML profile (-X)", id));
    }
    for target in profile.timespans.iter().flat_map(|ts| &ts.targets) {
        if let WriteBuffer::Source {
            file: Some(source), ..
        } = &target.write_buffer
            && let Some(id) = identity(source)
        {
            inputs.push(("write source file (-Z)", id));
        }
    }
    inputs
}

#[cfg(test)]
mod tests;
