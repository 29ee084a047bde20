//! `iospd replay`: the I/O of a recorded trace, read as a stream of [`Event`]s in time order.
//!
//! Five inputs, told apart by their first bytes ([`Format::sniff`]): blktrace's binary per-CPU
//! files (`blktrace.rs`), `blkparse`'s text and the kernel's block tracepoints as text — tracefs
//! `trace`/`trace_pipe`, `perf script` (`text.rs`) —, fio's iolog v2 and v3 (`fio_log.rs`) and
//! iospd's own `--trace` (`own.rs`). Every reader yields events one at a time from a buffered
//! file, so memory does not grow with the trace; [`Merged`] joins several files by time.
//! [`summary`] reads the whole input once before the run (devices, span, sizes, alignment), and
//! [`stream`] feeds the worker during it.

pub mod blktrace;
pub mod command;
pub mod fio_log;
pub mod own;
pub mod pool;
pub mod stream;
pub mod summary;
pub mod text;

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use crate::engine::Op;
pub use crate::profile::replay::{DeviceKey, Stage};

/// One I/O of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// Time from the trace's own origin, ns.
    pub at_ns: u64,
    /// The traced device or file: see [`DeviceKey`].
    pub device: DeviceKey,
    /// What it did: read, write, trim or a flush (`Op::Fsync`).
    pub op: Op,
    /// Byte offset (0 for a flush).
    pub offset: u64,
    /// Bytes (0 for a flush).
    pub len: u32,
    /// The stage it was recorded at, when the format has stages.
    pub stage: Option<Stage>,
}

/// A trace that cannot be read: the file, where in it, and what is wrong with the fix.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}{}: {why}", path.display(), at.as_ref().map(|a| format!(", {a}")).unwrap_or_default())]
pub struct TraceError {
    /// The file.
    pub path: PathBuf,
    /// "line 12", "record 3 (byte 144)".
    pub at: Option<String>,
    /// What is wrong, and what to do.
    pub why: String,
}

impl TraceError {
    /// An error at `at` in `path`.
    pub fn at(path: &Path, at: impl Into<String>, why: impl Into<String>) -> Self {
        TraceError {
            path: path.to_path_buf(),
            at: Some(at.into()),
            why: why.into(),
        }
    }

    /// An error about the whole file.
    pub fn file(path: &Path, why: impl Into<String>) -> Self {
        TraceError {
            path: path.to_path_buf(),
            at: None,
            why: why.into(),
        }
    }
}

/// A reader of one trace file: the next event, in the file's order.
pub trait Source: Send {
    /// The next event, `None` at the end.
    fn next_event(&mut self) -> Result<Option<Event>, TraceError>;
    /// Names of the devices or files seen so far, by key.
    fn name(&self, key: DeviceKey) -> Option<String>;
    /// An error about the event last read: its file and place (line, record).
    fn here(&self, why: String) -> TraceError;
}

/// The formats [`open`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// blktrace's binary records.
    Blktrace,
    /// fio's iolog, version 2 or 3.
    FioLog,
    /// iospd's `--trace`, binary.
    Iospd,
    /// iospd's `--trace`, CSV.
    IospdCsv,
    /// blkparse's output, tracefs text, or `perf script`.
    Text,
}

impl Format {
    /// Tells the format from the file's first bytes; `None` when it is none of them.
    pub fn sniff(head: &[u8]) -> Option<Format> {
        if head.len() >= 4 {
            let magic = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
            if magic & 0xFFFF_FF00 == blktrace::MAGIC
                || magic.swap_bytes() & 0xFFFF_FF00 == blktrace::MAGIC
            {
                return Some(Format::Blktrace);
            }
        }
        if head.starts_with(crate::trace::MAGIC) {
            return Some(Format::Iospd);
        }
        let text = String::from_utf8_lossy(head);
        if text.starts_with("fio version ") {
            return Some(Format::FioLog);
        }
        if text.starts_with(crate::trace::CSV_HEADER) {
            return Some(Format::IospdCsv);
        }
        text.lines()
            .any(text::looks_like_event)
            .then_some(Format::Text)
    }
}

/// The longest line a text trace may hold: real ones are under 200 bytes.
pub const MAX_LINE: usize = 64 << 10;

/// Reads one line of a text trace into `line`, as `BufRead::read_line` does, but refuses a line
/// longer than [`MAX_LINE`] instead of growing without end (a file with no newline at all).
pub fn read_line(input: &mut impl std::io::BufRead, line: &mut String) -> std::io::Result<usize> {
    use std::io::{BufRead as _, Read as _};
    let n = input.by_ref().take(MAX_LINE as u64 + 1).read_line(line)?;
    if n > MAX_LINE && !line.ends_with('\n') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "a line longer than {} KiB, which no trace holds; give the trace itself",
                MAX_LINE >> 10
            ),
        ));
    }
    Ok(n)
}

/// The bytes [`Format::sniff`] looks at.
pub const SNIFF_BYTES: usize = 8192;

/// The first bytes of `path`, or `None` when it cannot be read as a file.
pub fn head(path: &Path) -> Option<Vec<u8>> {
    let file = crate::input::open(path, false).ok()?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    file.take(SNIFF_BYTES as u64).read_to_end(&mut head).ok()?;
    Some(head)
}

/// The files a trace argument names: the file itself, or blktrace's per-CPU files
/// `<name>.blktrace.<cpu>` when `<name>` is given as `blkparse -i` takes it.
pub fn files_of(arg: &Path) -> Vec<PathBuf> {
    if arg.is_file() {
        return vec![arg.to_path_buf()];
    }
    let mut cpus = Vec::new();
    for cpu in 0.. {
        let file = PathBuf::from(format!("{}.blktrace.{cpu}", arg.display()));
        if !file.is_file() {
            break;
        }
        cpus.push(file);
    }
    cpus
}

/// Whether `arg` names a trace iospd reads (a file whose first bytes are one, or a blktrace base
/// name).
pub fn is_trace(arg: &Path) -> bool {
    files_of(arg)
        .first()
        .and_then(|f| head(f))
        .is_some_and(|h| Format::sniff(&h).is_some())
}

/// Opens one trace file as a source; `input` numbers it among the replay's files.
pub fn open(path: &Path, input: usize, stage: Stage) -> Result<Box<dyn Source>, TraceError> {
    let head = head(path).ok_or_else(|| {
        TraceError::file(
            path,
            "cannot be read as a file; give a trace file iospd can read",
        )
    })?;
    let format = Format::sniff(&head).ok_or_else(|| {
        TraceError::file(
            path,
            "is not a trace iospd reads (blktrace binary, blkparse text, tracefs or perf script block events, fio iolog v2/v3, iospd --trace)",
        )
    })?;
    let file = crate::input::open(path, false).map_err(|why| TraceError::file(path, why))?;
    let reader = BufReader::with_capacity(1 << 20, file);
    Ok(match format {
        Format::Blktrace => Box::new(blktrace::Reader::new(path, reader, stage)),
        Format::FioLog => Box::new(fio_log::Reader::new(path, reader, input)?),
        Format::Iospd => Box::new(own::Reader::binary(path, reader, input)?),
        Format::IospdCsv => Box::new(own::Reader::csv(path, reader, input)?),
        Format::Text => Box::new(text::Reader::new(path, reader, stage)),
    })
}

/// Several sources joined by time: each is in time order, and the earliest head goes first.
/// An event earlier than the one before it (a source out of order) keeps its place and is
/// counted.
pub struct Merged {
    sources: Vec<Box<dyn Source>>,
    heads: Vec<Option<Event>>,
    last: u64,
    /// The source of the event last returned.
    from: usize,
    /// Events that came earlier than the one before them.
    pub out_of_order: u64,
}

impl Merged {
    /// Joins `sources`.
    pub fn new(mut sources: Vec<Box<dyn Source>>) -> Result<Self, TraceError> {
        let heads = sources
            .iter_mut()
            .map(|s| s.next_event())
            .collect::<Result<_, _>>()?;
        Ok(Merged {
            sources,
            heads,
            last: 0,
            from: 0,
            out_of_order: 0,
        })
    }

    /// The next event of all sources, by time.
    pub fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        let Some(i) = (0..self.heads.len())
            .filter(|&i| self.heads[i].is_some())
            .min_by_key(|&i| self.heads[i].map(|e| e.at_ns))
        else {
            return Ok(None);
        };
        let event = self.heads[i].take().expect("a head");
        self.heads[i] = self.sources[i].next_event()?;
        self.from = i;
        if event.at_ns < self.last {
            self.out_of_order += 1;
        }
        self.last = self.last.max(event.at_ns);
        Ok(Some(event))
    }

    /// An error about the event last returned, at its place in its file (the place its reader
    /// has reached: the event's own record, or the next when a reader looks one ahead).
    pub fn here(&self, why: String) -> TraceError {
        match self.sources.get(self.from) {
            Some(source) => source.here(why),
            None => TraceError::file(Path::new(""), why),
        }
    }

    /// The name of a device, from whichever source saw it.
    pub fn name(&self, key: DeviceKey) -> String {
        self.sources
            .iter()
            .find_map(|s| s.name(key))
            .or_else(|| key.block_numbers().map(|(a, b)| format!("{a},{b}")))
            .unwrap_or_else(|| format!("{:#x}", key.0))
    }
}

/// Opens every file of every trace argument and joins them.
pub fn open_all(traces: &[PathBuf], stage: Stage) -> Result<Merged, TraceError> {
    let mut sources = Vec::new();
    for arg in traces {
        let files = files_of(arg);
        if files.is_empty() {
            return Err(TraceError::file(
                arg,
                "does not exist (nor do blktrace's per-CPU files <name>.blktrace.0 …); give the trace's path",
            ));
        }
        for file in files {
            let input = sources.len();
            sources.push(open(&file, input, stage)?);
        }
    }
    Merged::new(sources)
}

/// The events one block-trace flag string stands for, in order: a preflush, the operation, and a
/// flush after it for FUA (`rwbs` as blktrace and the tracepoints print it: `FWS`, `WFS`, `RA`,
/// `D`, `FF`, `N`). A flush request counts once.
pub fn rwbs_ops(rwbs: &str, has_data: bool) -> RwbsOps {
    let b = rwbs.as_bytes();
    let mut i = 0;
    let mut ops = RwbsOps::default();
    let preflush = b.len() > 1 && b[0] == b'F' && b"WRDFNE".contains(&b[1]);
    if preflush {
        i = 1;
        ops.push(Op::Fsync);
    }
    match b.get(i) {
        Some(b'W') if has_data => ops.push(Op::Write),
        Some(b'R') if has_data => ops.push(Op::Read),
        Some(b'D') if has_data => ops.push(Op::Trim),
        Some(b'F') if !preflush => ops.push(Op::Fsync),
        _ => {}
    }
    let op_letter = b.get(i).copied();
    if op_letter == Some(b'W') && has_data && b.get(i + 1) == Some(&b'F') {
        ops.push(Op::Fsync);
    }
    ops
}

/// Up to three operations, in order (preflush, the I/O, FUA's flush).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RwbsOps {
    ops: [Option<Op>; 3],
    len: usize,
}

impl RwbsOps {
    fn push(&mut self, op: Op) {
        self.ops[self.len] = Some(op);
        self.len += 1;
    }

    /// The operations.
    pub fn iter(&self) -> impl Iterator<Item = Op> + '_ {
        self.ops[..self.len].iter().flatten().copied()
    }
}

/// Every event of `source` (for tests and tools that want the whole trace in memory).
pub fn all(mut source: impl Source) -> Result<Vec<Event>, TraceError> {
    let mut out = Vec::new();
    while let Some(e) = source.next_event()? {
        out.push(e);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(rwbs: &str, data: bool) -> Vec<Op> {
        rwbs_ops(rwbs, data).iter().collect()
    }

    #[test]
    fn block_flags_become_operations_with_flushes_kept() {
        assert_eq!(ops("WS", true), [Op::Write]);
        assert_eq!(ops("RA", true), [Op::Read]);
        assert_eq!(ops("D", true), [Op::Trim]);
        assert_eq!(ops("FWS", true), [Op::Fsync, Op::Write]);
        assert_eq!(ops("FWS", false), [Op::Fsync]);
        assert_eq!(ops("WFS", true), [Op::Write, Op::Fsync]);
        assert_eq!(ops("FWFS", true), [Op::Fsync, Op::Write, Op::Fsync]);
        assert_eq!(ops("FF", false), [Op::Fsync]);
        assert_eq!(ops("F", false), [Op::Fsync]);
        assert_eq!(ops("N", false), []);
        assert_eq!(ops("FN", false), [Op::Fsync]);
    }

    #[test]
    fn a_line_without_end_is_refused_not_kept() {
        let long = vec![b'x'; MAX_LINE * 3];
        let mut input = std::io::BufReader::new(&long[..]);
        let mut line = String::new();
        let e = read_line(&mut input, &mut line).unwrap_err();
        assert!(e.to_string().contains("longer than 64 KiB"), "{e}");
        assert!(line.len() <= MAX_LINE + 1);
        let mut input = std::io::BufReader::new(&b"short\nnext\n"[..]);
        line.clear();
        assert_eq!(read_line(&mut input, &mut line).unwrap(), 6);
        assert_eq!(line, "short\n");
    }

    #[test]
    fn formats_are_told_by_their_first_bytes() {
        assert_eq!(
            Format::sniff(&0x6561_7407u32.to_le_bytes()),
            Some(Format::Blktrace)
        );
        assert_eq!(
            Format::sniff(&0x6561_7407u32.to_be_bytes()),
            Some(Format::Blktrace)
        );
        assert_eq!(
            Format::sniff(b"fio version 2 iolog\n"),
            Some(Format::FioLog)
        );
        assert_eq!(Format::sniff(b"IOSPDTR1\x28\0\0\0"), Some(Format::Iospd));
        assert_eq!(
            Format::sniff(
                b"  8,0    3        1     0.000000000   697  Q  WS 3417048 + 8 [kworker/u16:2]\n"
            ),
            Some(Format::Text)
        );
        assert_eq!(Format::sniff(b"hello\nworld\n"), None);
    }
}
