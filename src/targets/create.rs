//! `-c` and XML `<PrecreateFiles>`: test files written in full (never sparse), marked as iospd's,
//! flushed and dropped from the page cache. A file is created only where the safety gate checked
//! its place (`O_CREAT | O_EXCL`), or rewritten through the descriptor the gate opened; room for
//! it (free space, `ulimit -f`) is checked before anything is written.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::TargetError;
use super::inspect::Range;
use crate::profile::{Precreate, Profile, Target, TimeSpan, WriteBuffer};
use crate::rng::Rng;
use crate::safety::{Anchor, Cleared, Place, marker, open};
use crate::units::format_size;

/// Bytes written per call while creating a file.
const CREATE_CHUNK: usize = 1 << 20;

/// What a `-c` file is filled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateContent {
    /// 0..255 repeating.
    Pattern,
    /// Zeros (`-Z`).
    Zero,
    /// Random bytes (`-Zr`).
    Random,
    /// `--compress`/`--dedupe`: data that compresses and deduplicates as the run's writes do.
    Reduced(ReducedLayout),
    /// `-c --verify`: every block self-describing, generation 0 (see [`crate::verify::format`]).
    Verified(VerifiedLayout),
}

impl CreateContent {
    /// The fill a complete file's mark records; `None` for `--verify` blocks, which carry their
    /// run's id and are written again by every run.
    pub fn fill_name(self) -> Option<&'static str> {
        match self {
            CreateContent::Pattern => Some("pattern"),
            CreateContent::Zero => Some("zero"),
            CreateContent::Random => Some("random"),
            // Rewritten by every run: the mark names no ratio.
            CreateContent::Reduced(_) | CreateContent::Verified(_) => None,
        }
    }
}

/// The fill a file keeps when `target` writes to it in `timespan`: its writes' content, when that
/// is what `-c` would fill it with; `None` when the writes leave something else.
pub fn written_fill(timespan: &TimeSpan, target: &Target, verify: bool) -> Option<&'static str> {
    if verify || target.compress.is_some() || target.dedupe.is_some() {
        return None;
    }
    match target.write_buffer {
        WriteBuffer::Source { .. } | WriteBuffer::Repeat { .. } => None,
        _ => create_content(timespan, target, Range { base: 0, usable: 0 }).fill_name(),
    }
}

/// What `-c` writes for `--compress` and `--dedupe`: the run's generator (same seed), and the
/// dedupe plan over the range's units, each holding its first content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReducedLayout {
    /// `--compress`.
    pub compress: Option<crate::profile::Compress>,
    /// `--dedupe`.
    pub dedupe: Option<crate::profile::Dedupe>,
    /// The timespan's seed.
    pub seed: u32,
    /// The range the run uses: the dedupe plan's units.
    pub range: Range,
}

/// Where `-c --verify` puts its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifiedLayout {
    /// The run's id.
    pub run_id: u64,
    /// The target's index in its timespan.
    pub target: u32,
    /// The first block's offset (`-B`).
    pub base: u64,
    /// Bytes per block.
    pub block: u64,
    /// Blocks.
    pub count: u64,
}

/// The content `-c` writes for a target of a timespan that uses `range` of it.
pub fn create_content(timespan: &TimeSpan, target: &Target, range: Range) -> CreateContent {
    if target.compress.is_some() || target.dedupe.is_some() {
        CreateContent::Reduced(ReducedLayout {
            compress: target.compress,
            dedupe: target.dedupe,
            seed: timespan.seed,
            range,
        })
    } else if timespan.random_write_data {
        CreateContent::Random
    } else if target.write_buffer == WriteBuffer::Zero {
        CreateContent::Zero
    } else {
        CreateContent::Pattern
    }
}

/// XML `<PrecreateFiles>`: the anchors the policy creates before the first timespan, at the size
/// it selects.
pub fn precreate_plan(profile: &Profile, cleared: &Cleared) -> Vec<(usize, u64)> {
    let Some(policy) = profile.precreate else {
        return Vec::new();
    };
    // Per anchor, in the profile's order, the `-c` size of each of its uses.
    let mut sizes: Vec<(usize, Vec<Option<u64>>)> = Vec::new();
    let mut at: HashMap<usize, usize> = HashMap::new();
    for t in profile.timespans.iter().flat_map(|ts| &ts.targets) {
        let anchor = cleared.anchor_of(&t.path);
        let slot = *at.entry(anchor).or_insert_with(|| {
            sizes.push((anchor, Vec::new()));
            sizes.len() - 1
        });
        sizes[slot].1.push(t.create_size);
    }
    sizes
        .into_iter()
        .filter_map(|(anchor, seen)| {
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
            size.map(|size| (anchor, size))
        })
        .collect()
}

/// Refuses `-c` sizes that cannot be written: above the file-size limit (`ulimit -f`, which would
/// otherwise kill the process with SIGXFSZ) or above the free space of the file system.
pub fn check_room(
    creations: &[(usize, PathBuf, u64)],
    cleared: &Cleared,
) -> Result<(), TargetError> {
    let no_room = |path: &Path, size: u64, why: String, fix| TargetError::NoRoom {
        path: path.to_path_buf(),
        size: format_size(size),
        why,
        fix,
    };
    if let Some(limit) = file_size_limit()
        && let Some((_, path, size)) = creations.iter().find(|(_, _, size)| *size > limit)
    {
        return Err(no_room(
            path,
            *size,
            format!("the file-size limit (ulimit -f) is {}", format_size(limit)),
            "raise the limit, or make -c smaller",
        ));
    }
    // Per anchor the largest size asked; per file system the bytes still to be allocated.
    let mut largest: BTreeMap<usize, (&PathBuf, u64)> = BTreeMap::new();
    for (anchor, path, size) in creations {
        let entry = largest.entry(*anchor).or_insert((path, 0));
        entry.1 = entry.1.max(*size);
    }
    let mut per_fs: BTreeMap<u64, (u64, u64, &PathBuf, u64)> = BTreeMap::new();
    for (anchor, (path, size)) in largest {
        let (fs, free, allocated) = match &cleared.anchors[anchor] {
            Anchor::New(place) => (place.dir_dev(), place.free_bytes(), 0),
            Anchor::Open { file, facts } => (
                facts.dev,
                free_bytes(file),
                file.metadata().map_or(0, |m| m.blocks() * 512),
            ),
        };
        let Ok(free) = free else { continue };
        let entry = per_fs.entry(fs).or_insert((0, free, path, 0));
        entry.0 += size.saturating_sub(allocated);
        entry.3 += size;
        entry.2 = path;
    }
    for (need, free, path, size) in per_fs.into_values() {
        if need > free {
            return Err(no_room(
                path,
                size,
                format!(
                    "its file system has {} free and the files need {} more",
                    format_size(free),
                    format_size(need)
                ),
                "make -c smaller, or free some space",
            ));
        }
    }
    Ok(())
}

fn file_size_limit() -> Option<u64> {
    // SAFETY: rlimit is plain data filled by the kernel.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: a valid resource and a pointer to our struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } != 0 {
        return None;
    }
    (limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

fn free_bytes(file: &File) -> io::Result<u64> {
    // SAFETY: statvfs is plain data filled by the kernel.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor and a pointer to our struct.
    if unsafe { libc::fstatvfs(file.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.f_bavail.saturating_mul(st.f_frsize))
}

/// Creates the anchor's file, or rewrites it, with `size` bytes of `content`, marks it as an iospd
/// test file, then flushes it to the device and drops it from the page cache. A stop request
/// (Ctrl-C) or an error removes the partial file. Returns a warning when the mark cannot be set.
pub fn create(
    anchor: &mut Anchor,
    path: &Path,
    size: u64,
    content: CreateContent,
    stop: &AtomicU64,
    status: bool,
) -> Result<Option<String>, TargetError> {
    let fail = |source| TargetError::Create {
        path: path.to_path_buf(),
        source,
    };
    let file = match &*anchor {
        Anchor::New(place) => place.create_new().map_err(|e| {
            fail(if e.raw_os_error() == Some(libc::EEXIST) {
                open::changed()
            } else {
                e
            })
        })?,
        Anchor::Open { file, facts } => {
            let file =
                open::reopen(file.as_fd(), libc::O_RDWR, facts.identity, path).map_err(fail)?;
            file.set_len(0).map_err(fail)?;
            file
        }
    };
    let warning = marker::mark(&file).err().map(|e| {
        format!(
            "WARNING: cannot mark '{}' as an iospd test file ({e}); later runs that write to it will need --force",
            path.display()
        )
    });
    let mut shown = Creating::new(path, size, status);
    if let Err(source) = fill(&file, size, content, stop, &mut shown) {
        match &*anchor {
            Anchor::New(place) => place.remove_created(&file),
            Anchor::Open { .. } => {
                if let Ok(place) = Place::locate(path) {
                    place.remove_created(&file);
                }
            }
        }
        return Err(fail(source));
    }
    // Only now, with every byte on the device: a file cut short is never taken for a whole one.
    if let Some(fill) = content.fill_name() {
        let _ = marker::mark_complete(&file, size, fill);
    }
    let facts = open::facts(file.as_fd()).map_err(fail)?;
    *anchor = Anchor::Open { file, facts };
    Ok(warning)
}

/// `-c` of a file that is already iospd's complete test file of `size` bytes filled as `content`
/// fills (marked so by the `-c` that wrote it, same size on disk, every byte allocated): nothing to
/// write. Its dirty pages are flushed and its page cache dropped, as after a creation, and the line
/// that says so is returned; `None` when the file must be written.
pub fn reuse(anchor: &Anchor, path: &Path, size: u64, content: CreateContent) -> Option<String> {
    let fill = content.fill_name()?;
    let Anchor::Open { file, facts } = anchor else {
        return None;
    };
    let file = open::reopen(file.as_fd(), libc::O_RDONLY, facts.identity, path).ok()?;
    let meta = file.metadata().ok()?;
    let whole = meta.is_file() && meta.len() == size && meta.blocks().saturating_mul(512) >= size;
    if !whole || marker::completed(&file).ok()?? != (size, fill.to_string()) {
        return None;
    }
    file.sync_data().ok()?;
    // SAFETY: plain advisory call on an open descriptor.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    let filled = match fill {
        "zero" => "zeros (-Z)",
        "random" => "random bytes (-Zr)",
        _ => "DiskSpd's 0..255 pattern",
    };
    Some(format!(
        "note: reusing '{}', iospd's complete {} test file of {filled}, rather than writing it again (--recreate does)",
        path.display(),
        format_size(size)
    ))
}

/// `-c` on the terminal: bytes written, the rate and the time left, about four times a second.
struct Creating {
    line: Option<crate::console::StatusLine>,
    name: String,
    total: u64,
    started: std::time::Instant,
    shown: std::time::Instant,
}

impl Creating {
    fn new(path: &Path, total: u64, wanted: bool) -> Self {
        let now = std::time::Instant::now();
        Creating {
            line: crate::console::StatusLine::on_terminal(wanted),
            name: path.display().to_string(),
            total,
            started: now,
            shown: now,
        }
    }

    fn flushing(&mut self) {
        if let Some(line) = &mut self.line {
            line.show(&format!(
                "iospd: creating '{}': flushing {} to the device",
                self.name,
                format_size(self.total)
            ));
        }
    }

    fn written(&mut self, done: u64) {
        let Some(line) = &mut self.line else { return };
        if self.shown.elapsed() < std::time::Duration::from_millis(250) {
            return;
        }
        self.shown = std::time::Instant::now();
        let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = done as f64 / seconds;
        let left = (self.total.saturating_sub(done)) as f64 / rate.max(1.0);
        line.show(&format!(
            "iospd: creating '{}': {} of {}, {:.0} MiB/s, {}:{:02} left",
            self.name,
            format_size(done),
            format_size(self.total),
            rate / 1_048_576.0,
            left as u64 / 60,
            left as u64 % 60
        ));
    }
}

fn fill(
    file: &File,
    size: u64,
    content: CreateContent,
    stop: &AtomicU64,
    shown: &mut Creating,
) -> io::Result<()> {
    match content {
        CreateContent::Verified(layout) => fill_verified(file, size, layout, stop, shown),
        CreateContent::Reduced(layout) => fill_reduced(file, size, layout, stop, shown),
        CreateContent::Pattern => {
            let pattern: Vec<u8> = (0..CREATE_CHUNK).map(|i| i as u8).collect();
            write_whole(file, size, stop, shown, |chunk, _| {
                chunk.copy_from_slice(&pattern[..chunk.len()])
            })
        }
        CreateContent::Zero => write_whole(file, size, stop, shown, |chunk, _| chunk.fill(0)),
        CreateContent::Random => {
            let mut rng = Rng::new(0);
            write_whole(file, size, stop, shown, |chunk, _| {
                for word in chunk.chunks_mut(8) {
                    word.copy_from_slice(&rng.next_u64().to_ne_bytes()[..word.len()]);
                }
            })
        }
    }
}

/// Writes `size` bytes from offset 0, `CREATE_CHUNK` at a time as `make(chunk, offset)` fills
/// them; stops when `stop` is set; then flushes the file and drops it from the page cache.
fn write_whole(
    file: &File,
    size: u64,
    stop: &AtomicU64,
    shown: &mut Creating,
    mut make: impl FnMut(&mut [u8], u64),
) -> io::Result<()> {
    let mut chunk = vec![0u8; CREATE_CHUNK];
    let mut offset = 0u64;
    while offset < size {
        interrupted(stop)?;
        let len = (size - offset).min(CREATE_CHUNK as u64) as usize;
        make(&mut chunk[..len], offset);
        file.write_all_at(&chunk[..len], offset)?;
        offset += len as u64;
        shown.written(offset);
    }
    settle(file, shown)
}

/// An error once `stop` is set.
fn interrupted(stop: &AtomicU64) -> io::Result<()> {
    match stop.load(Ordering::Relaxed) {
        0 => Ok(()),
        _ => Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "interrupted before the file was complete",
        )),
    }
}

/// Flushes a written file and drops it from the page cache, so the run reads the device.
fn settle(file: &File, shown: &mut Creating) -> io::Result<()> {
    shown.flushing();
    file.sync_all()?;
    // SAFETY: plain advisory call on an open descriptor.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    Ok(())
}

/// `-c` with `--compress`/`--dedupe`: the run's generator; with `--dedupe`, each unit of the range
/// as its plan says, in its first content.
fn fill_reduced(
    file: &File,
    size: u64,
    layout: ReducedLayout,
    stop: &AtomicU64,
    shown: &mut Creating,
) -> io::Result<()> {
    use crate::data::fill::WriteFill;
    use crate::data::{dedupe, pattern};
    let mut target = Target::new(PathBuf::new());
    target.compress = layout.compress;
    target.dedupe = layout.dedupe;
    let generator = pattern::Compressible::for_target(&target, layout.seed.into())
        .expect("--compress or --dedupe is set");
    let tracker = layout.dedupe.map(|d| {
        let plan = dedupe::Plan::new(&d, layout.range.usable / d.unit).expect("checked");
        (dedupe::Tracker::new(plan, false, false), d.unit)
    });
    let planned = match &tracker {
        Some((tracker, unit)) => WriteFill::Deduped {
            data: &generator,
            tracker,
            base: layout.range.base,
            unit: *unit as usize,
        },
        None => WriteFill::Compressible(&generator),
    };
    let plain = WriteFill::Compressible(&generator);
    let (base, units_end) = match &tracker {
        Some((t, unit)) => (layout.range.base, layout.range.base + t.plan.units * unit),
        None => (0, size),
    };
    let mut rng = Rng::new(u64::from(layout.seed) ^ 0xc4ea7e);
    write_whole(file, size, stop, shown, |chunk, offset| {
        // Planned units are whole and aligned (the unit divides -B and 1 MiB); what lies
        // outside them gets data of its own.
        let end = offset + chunk.len() as u64;
        let mut at = offset;
        while at < end {
            let inside = (base..units_end).contains(&at);
            let to = match at < base {
                true => base.min(end),
                false if inside => units_end.min(end),
                false => end,
            };
            let bytes = &mut chunk[(at - offset) as usize..(to - offset) as usize];
            let fill = if inside { &planned } else { &plain };
            fill.prepare(bytes, &mut rng, at);
            at = to;
        }
    })
}

/// `-c --verify`: the blocks in the verifiable format, DiskSpd's pattern around them.
fn fill_verified(
    file: &File,
    size: u64,
    layout: VerifiedLayout,
    stop: &AtomicU64,
    shown: &mut Creating,
) -> io::Result<()> {
    use crate::verify::format::{self, CREATED, Header, Pattern};
    let VerifiedLayout {
        run_id,
        target,
        base,
        block,
        count,
    } = layout;
    let end = (base + count * block).min(size);
    for (mut from, to) in [(0, base.min(size)), (end, size)] {
        while from < to {
            let n = (to - from).min(CREATE_CHUNK as u64);
            let bytes: Vec<u8> = (from..from + n).map(|o| o as u8).collect();
            file.write_all_at(&bytes, from)?;
            from += n;
        }
    }
    let pattern = Pattern::new(run_id, block as usize);
    let per = (CREATE_CHUNK as u64 / block).max(1);
    let mut chunk = vec![0u8; (per * block) as usize];
    let mut k = 0;
    while k < count {
        interrupted(stop)?;
        let n = per.min(count - k);
        for (j, buf) in chunk
            .chunks_mut(block as usize)
            .take(n as usize)
            .enumerate()
        {
            let header = Header {
                len: block as u32,
                run_id,
                offset: base + (k + j as u64) * block,
                generation: 0,
                target,
                thread: 0,
                flags: CREATED,
            };
            format::write(buf, &header, &pattern);
        }
        file.write_all_at(&chunk[..(n * block) as usize], base + k * block)?;
        k += n;
        shown.written(base + k * block);
    }
    settle(file, shown)
}
