//! Block events as text: `blkparse`'s default output (`8,0 3 1 0.000000000 697 Q WS 3417048 + 8
//! [kworker]`), and the kernel's block tracepoints as tracefs prints them (`dd-2895 [001] .....
//! 16708.112154: block_bio_queue: 7,0 WS 0 + 128 [dd]`, `block_rq_issue: 7,0 WS 65536 () 0 + 128
//! be,0,4 [dd]`) and as `perf script` prints them (`dd 2895 [001] 16708.112154123:
//! block:block_bio_queue: …`). The stage picks the events: `Q`/`block_bio_queue` or
//! `D`/`block_rq_issue`. Other events and comment lines are passed over; blkparse's closing
//! summary ends the events; any other line is an error naming its number.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::{DeviceKey, Event, Source, Stage, TraceError, rwbs_ops};
use crate::engine::Op;

/// Whether a line is a block event in one of the text forms (for [`super::Format::sniff`]).
pub fn looks_like_event(line: &str) -> bool {
    tracepoint(line).is_some() || blkparse(line).is_some()
}

/// Reads block events from text.
pub struct Reader<R> {
    path: PathBuf,
    input: R,
    stage: Stage,
    line: String,
    number: u64,
    /// Operations of the last line not handed out yet.
    pending: Vec<Event>,
    ended: bool,
}

impl<R: BufRead + Send> Reader<R> {
    /// A reader of `input` (from `path`), keeping the events of `stage`.
    pub fn new(path: &Path, input: R, stage: Stage) -> Self {
        Reader {
            path: path.to_path_buf(),
            input,
            stage,
            line: String::new(),
            number: 0,
            pending: Vec::new(),
            ended: false,
        }
    }

    fn error(&self, why: impl Into<String>) -> TraceError {
        TraceError::at(&self.path, format!("line {}", self.number), why)
    }
}

/// The parts of an event line.
struct Parsed<'a> {
    stage: Stage,
    time: &'a str,
    payload: &'a str,
}

/// `… <time>: block_bio_queue: <payload>` (tracefs) or `… <time>: block:block_bio_queue: …`
/// (perf script). Other tracepoints give `None`, as do lines of no tracepoint.
fn tracepoint(line: &str) -> Option<Parsed<'_>> {
    for (name, stage) in [
        ("block_bio_queue:", Stage::Queued),
        ("block_rq_issue:", Stage::Issued),
    ] {
        let Some(at) = line.find(name) else {
            continue;
        };
        let before = line[..at].trim_end();
        let before = before.strip_suffix("block:").unwrap_or(before).trim_end();
        let time = before
            .rsplit(char::is_whitespace)
            .next()?
            .strip_suffix(':')?;
        return Some(Parsed {
            stage,
            time,
            payload: line[at + name.len()..].trim(),
        });
    }
    None
}

/// A line of some other tracepoint in tracefs or perf form: `[cpu]` then a `secs.frac:` token.
fn other_tracepoint(line: &str) -> bool {
    let mut tokens = line.split_whitespace();
    tokens.any(|t| {
        t.starts_with('[')
            && t.ends_with(']')
            && t[1..t.len() - 1].bytes().all(|b| b.is_ascii_digit())
    }) && tokens.any(|t| t.strip_suffix(':').is_some_and(|t| seconds(t).is_some()))
}

/// `dev cpu seq time pid action rwbs payload…` (blkparse's default format); only Q and D lines
/// carry what is replayed, the rest give their action so they can be passed over.
fn blkparse(line: &str) -> Option<(&str, Parsed<'_>)> {
    let mut rest = line.trim_start();
    let mut field = || {
        let t = rest.trim_start();
        let end = t.find(char::is_whitespace).unwrap_or(t.len());
        let (token, after) = t.split_at(end);
        rest = after;
        (!token.is_empty()).then_some(token)
    };
    let dev = field()?;
    let (major, minor) = dev.split_once(',')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || !digits(minor) {
        return None;
    }
    let (cpu, seq) = (field()?, field()?);
    let time = field()?;
    let pid = field()?;
    let action = field()?;
    if !digits(cpu) || !digits(seq) || seconds(time).is_none() || !digits(pid) {
        return None;
    }
    let stage = match action {
        "D" => Stage::Issued,
        _ => Stage::Queued,
    };
    // What follows the action starts with the flags (RWBS).
    let payload = line[line.len() - rest.len()..].trim();
    Some((
        action,
        Parsed {
            stage,
            time,
            payload,
        },
    ))
}

/// `secs.frac` → ns.
fn seconds(text: &str) -> Option<u64> {
    let (secs, frac) = text.split_once('.')?;
    if secs.is_empty() || frac.is_empty() || frac.len() > 9 {
        return None;
    }
    if !secs.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    let mut ns: u64 = frac.parse().ok()?;
    for _ in frac.len()..9 {
        ns *= 10;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// `maj,min` → key.
fn device(text: &str) -> Option<DeviceKey> {
    let (a, b) = text.split_once(',')?;
    Some(DeviceKey::block(a.parse().ok()?, b.parse().ok()?))
}

/// `… <sector> + <sectors> …` → (sector, sectors); `None` when the line has no range (a flush).
fn range(tokens: &[&str]) -> Result<Option<(u64, u64)>, String> {
    let Some(plus) = tokens.iter().position(|t| *t == "+") else {
        return Ok(None);
    };
    let number = |i: usize| -> Result<u64, String> {
        let t = tokens
            .get(i)
            .ok_or("a range 'sector + count' is cut short")?;
        t.parse()
            .map_err(|_| format!("'{t}' is not a sector number; the range reads 'sector + count'"))
    };
    if plus == 0 {
        return Err("a range 'sector + count' has no sector".into());
    }
    Ok(Some((number(plus - 1)?, number(plus + 1)?)))
}

impl<R: BufRead + Send> Reader<R> {
    /// The events of the line in `self.line`, if it holds one of the stage's.
    fn parse_line(&mut self) -> Result<(), TraceError> {
        let line = self.line.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            return Ok(());
        }
        let (at_ns, dev, rwbs, tokens) = if let Some(p) = tracepoint(line) {
            if p.stage != self.stage {
                return Ok(());
            }
            let time = seconds(p.time)
                .ok_or_else(|| self.error(format!("'{}' is not a time in seconds", p.time)))?;
            let tokens: Vec<&str> = p.payload.split_whitespace().collect();
            let (dev, rwbs) = match (tokens.first(), tokens.get(1)) {
                (Some(d), Some(r)) => (*d, *r),
                _ => return Err(self.error("the event has no device and flags")),
            };
            (time, dev, rwbs, tokens[2..].to_vec())
        } else if let Some((action, p)) = blkparse(line) {
            let wanted = match self.stage {
                Stage::Queued => "Q",
                Stage::Issued => "D",
            };
            if action != wanted {
                return Ok(());
            }
            let dev = line.split_whitespace().next().expect("a device field");
            let time = seconds(p.time).expect("checked by blkparse()");
            let tokens: Vec<&str> = p.payload.split_whitespace().collect();
            let Some(rwbs) = tokens.first() else {
                return Err(self.error("the event has no flags (RWBS)"));
            };
            (time, dev, *rwbs, tokens[1..].to_vec())
        } else if line.starts_with("CPU") || line.starts_with("Total") {
            // blkparse's summary follows the events.
            self.ended = true;
            return Ok(());
        } else if other_tracepoint(line) {
            return Ok(());
        } else {
            return Err(self.error(
                "is not a block event (blkparse's default format, tracefs or perf script block_bio_queue/block_rq_issue); give the trace as those tools print it",
            ));
        };
        let device = device(dev)
            .ok_or_else(|| self.error(format!("'{dev}' is not a device number major,minor")))?;
        let range = range(&tokens).map_err(|why| self.error(why))?;
        let (sector, sectors) = range.unwrap_or((0, 0));
        let offset = sector
            .checked_mul(512)
            .ok_or_else(|| self.error(format!("sector {sector} is past any device")))?;
        let len = u32::try_from(sectors.saturating_mul(512)).map_err(|_| {
            self.error(format!(
                "{sectors} sectors is more than one I/O can be (4 GiB)"
            ))
        })?;
        for op in rwbs_ops(rwbs, len > 0).iter() {
            let ranged = op != Op::Fsync;
            self.pending.push(Event {
                at_ns,
                device,
                op,
                offset: if ranged { offset } else { 0 },
                len: if ranged { len } else { 0 },
                stage: Some(self.stage),
            });
        }
        self.pending.reverse();
        Ok(())
    }
}

impl<R: BufRead + Send> Source for Reader<R> {
    fn here(&self, why: String) -> TraceError {
        self.error(why)
    }

    fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        loop {
            if let Some(event) = self.pending.pop() {
                return Ok(Some(event));
            }
            if self.ended {
                return Ok(None);
            }
            self.line.clear();
            let read = super::read_line(&mut self.input, &mut self.line)
                .map_err(|e| self.error(e.to_string()))?;
            if read == 0 {
                return Ok(None);
            }
            self.number += 1;
            self.parse_line()?;
        }
    }

    fn name(&self, key: DeviceKey) -> Option<String> {
        key.block_numbers().map(|(a, b)| format!("{a},{b}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, stage: Stage) -> Result<Vec<Event>, TraceError> {
        crate::replay::all(Reader::new(Path::new("t.txt"), text.as_bytes(), stage))
    }

    const TRACEFS: &str = "# tracer: nop
#
              dd-2895    [001] ..... 16708.112154: block_bio_queue: 7,0 WS 0 + 128 [dd]
              dd-2895    [001] ..... 16708.112160: block_rq_issue: 7,0 WS 65536 () 0 + 128 be,0,4 [dd]
            sync-2897    [001] ..... 16708.116280: block_bio_queue: 7,0 FWS 0 + 0 [sync]
    kworker/1:2H-24441   [001] ..... 16708.116307: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [kworker/1:2H]
      blkdiscard-2898    [001] ..... 16708.118581: block_bio_queue: 7,0 RA 130944 + 8 [blkdiscard]
  kworker/u4:1 sched-12  [000] ..... 16708.118600: sched_switch: prev_comm=a
";

    #[test]
    fn tracefs_lines_give_the_chosen_stage() {
        let q = read(TRACEFS, Stage::Queued).unwrap();
        assert_eq!(q.len(), 3);
        assert_eq!(
            (q[0].at_ns, q[0].op, q[0].offset, q[0].len),
            (16_708_112_154_000, Op::Write, 0, 65536)
        );
        assert_eq!(q[0].device, DeviceKey::block(7, 0));
        assert_eq!((q[1].op, q[1].len), (Op::Fsync, 0));
        assert_eq!(
            (q[2].op, q[2].offset, q[2].len),
            (Op::Read, 130944 * 512, 4096)
        );
        let d = read(TRACEFS, Stage::Issued).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(
            (d[0].op, d[0].len, d[0].at_ns),
            (Op::Write, 65536, 16_708_112_160_000)
        );
        assert_eq!(d[1].op, Op::Fsync);
    }

    #[test]
    fn perf_script_and_blkparse_lines_read_alike() {
        let perf =
            "      dd  2895 [001] 16708.112154123:   block:block_bio_queue: 7,0 WFS 8 + 8 [dd]\n";
        let e = read(perf, Stage::Queued).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].op, e[0].offset, e[0].at_ns),
            (Op::Write, 4096, 16_708_112_154_123)
        );
        assert_eq!(e[1].op, Op::Fsync);
        let blk = "  8,0    3        1     0.000000000   697  Q  WS 3417048 + 8 [kworker/u16:2]
  8,0    3        2     0.000001000   697  G  WS 3417048 + 8 [kworker/u16:2]
  8,0    3        3     0.000004000   697  D  WS 3417048 + 8 [kworker/u16:2]
  8,16   1        4     0.000100000   700  Q FWS [jbd2/sda1-8]
CPU0 (8,0):
 Reads Queued:           0,        0KiB\n";
        let q = read(blk, Stage::Queued).unwrap();
        assert_eq!(q.len(), 2);
        assert_eq!((q[0].offset, q[0].len), (3_417_048 * 512, 4096));
        assert_eq!(
            (q[1].device, q[1].op, q[1].at_ns),
            (DeviceKey::block(8, 16), Op::Fsync, 100_000)
        );
        let d = read(blk, Stage::Issued).unwrap();
        assert_eq!((d.len(), d[0].at_ns), (1, 4000));
    }

    #[test]
    fn a_line_of_nothing_known_names_its_number() {
        let bad = "  8,0 3 1 0.0 697 Q WS 34 + 8 [x]\nthis is not a trace\n";
        let e = read(bad, Stage::Queued).unwrap_err();
        assert_eq!(e.at.as_deref(), Some("line 2"));
        let bad = "  8,0 3 1 0.000000000 697 Q WS x1 + 8 [x]\n";
        let e = read(bad, Stage::Queued).unwrap_err();
        assert!(e.why.contains("'x1'"), "{e}");
    }
}
