//! iospd's own `--trace`, binary or CSV: each record is a completed I/O, so its submission time is
//! its completion less its latency. Records are written in completion order, so submissions come
//! slightly out of order; a window of the next [`REORDER`] records puts them back in time order.
//! A trace holds one timespan's I/O per replay (each timespan's times start at its own window).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::{DeviceKey, Event, Source, TraceError};
use crate::engine::Op;
use crate::trace::{CSV_HEADER, MAGIC, RECORD_BYTES, Record};

/// Records held to restore submission order.
pub const REORDER: usize = 1 << 16;

/// A record waiting in the window: submitted, record number, target, kind, offset, length.
type Pending = (u64, u64, u16, u8, u64, u32);

/// Reads one iospd trace.
pub struct Reader<R> {
    path: PathBuf,
    input: R,
    input_index: usize,
    csv: bool,
    number: u64,
    line: String,
    timespan: Option<u8>,
    window: BinaryHeap<Reverse<Pending>>,
    ended: bool,
}

impl<R: BufRead + Send> Reader<R> {
    /// A binary trace: checks the header.
    pub fn binary(path: &Path, mut input: R, input_index: usize) -> Result<Self, TraceError> {
        let mut header = [0u8; 12];
        input
            .read_exact(&mut header)
            .map_err(|_| TraceError::file(path, "ends inside its 12-byte header"))?;
        let size = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes")) as usize;
        if &header[..8] != MAGIC || size != RECORD_BYTES {
            return Err(TraceError::file(
                path,
                format!(
                    "has {size}-byte records; this iospd reads {RECORD_BYTES}-byte ones (write the trace again with this version)"
                ),
            ));
        }
        Ok(Self::new(path, input, input_index, false))
    }

    /// A CSV trace: checks the header line.
    pub fn csv(path: &Path, mut input: R, input_index: usize) -> Result<Self, TraceError> {
        let mut header = String::new();
        super::read_line(&mut input, &mut header)
            .map_err(|e| TraceError::at(path, "line 1", e.to_string()))?;
        if header.trim_end() != CSV_HEADER {
            return Err(TraceError::at(
                path,
                "line 1",
                format!("the header is not iospd's trace header '{CSV_HEADER}'"),
            ));
        }
        Ok(Self::new(path, input, input_index, true))
    }

    fn new(path: &Path, input: R, input_index: usize, csv: bool) -> Self {
        Reader {
            path: path.to_path_buf(),
            input,
            input_index,
            csv,
            number: if csv { 1 } else { 0 },
            line: String::new(),
            timespan: None,
            window: BinaryHeap::with_capacity(REORDER + 1),
            ended: false,
        }
    }

    fn error(&self, why: impl Into<String>) -> TraceError {
        let at = if self.csv {
            format!("line {}", self.number)
        } else {
            format!(
                "record {} (byte {})",
                self.number,
                12 + (self.number.saturating_sub(1)) * RECORD_BYTES as u64
            )
        };
        TraceError::at(&self.path, at, why)
    }

    /// The next record in file order.
    fn record(&mut self) -> Result<Option<Record>, TraceError> {
        if self.csv {
            return self.csv_record();
        }
        let mut raw = [0u8; RECORD_BYTES];
        let mut got = 0;
        while got < RECORD_BYTES {
            match self.input.read(&mut raw[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.error(e.to_string())),
            }
        }
        if got == 0 {
            return Ok(None);
        }
        self.number += 1;
        if got < RECORD_BYTES {
            return Err(self.error(format!(
                "the file ends {got} bytes into a record (the run was stopped while writing it); iospd trace-dump reads the whole records"
            )));
        }
        let record = Record::decode(&raw);
        if record.op as u8 > Op::Fdatasync as u8 {
            return Err(self.error("an unknown kind of I/O; the file is damaged"));
        }
        Ok(Some(record))
    }

    fn csv_record(&mut self) -> Result<Option<Record>, TraceError> {
        loop {
            self.line.clear();
            let n = super::read_line(&mut self.input, &mut self.line)
                .map_err(|e| self.error(e.to_string()))?;
            if n == 0 {
                return Ok(None);
            }
            self.number += 1;
            if self.line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = self.line.trim_end().split(',').collect();
            if f.len() != 9 {
                return Err(self.error(format!(
                    "{} fields; a trace line has 9 ({CSV_HEADER})",
                    f.len()
                )));
            }
            let int = |i: usize| -> Result<u64, TraceError> {
                f[i].parse()
                    .map_err(|_| self.error(format!("'{}' is not a number", f[i])))
            };
            let us = |i: usize| -> Result<u64, TraceError> {
                let (whole, frac) = f[i].split_once('.').unwrap_or((f[i], "0"));
                let bad = || self.error(format!("'{}' is not a time in µs", f[i]));
                let whole: u64 = whole.parse().map_err(|_| bad())?;
                let frac_ns: u64 = format!("{frac:0<3}")[..3].parse().map_err(|_| bad())?;
                Ok(whole * 1000 + frac_ns)
            };
            let op = match f[4] {
                "read" => Op::Read,
                "write" => Op::Write,
                "trim" => Op::Trim,
                "fsync" => Op::Fsync,
                "fdatasync" => Op::Fdatasync,
                other => return Err(self.error(format!("'{other}' is not a direction"))),
            };
            let timespan = int(0)?;
            if timespan == 0 || timespan > 256 {
                return Err(self.error("timespans are numbered from 1"));
            }
            return Ok(Some(Record {
                completion_ns: us(1)?,
                latency_ns: us(7)?,
                offset: int(5)?,
                len: u32::try_from(int(6)?).map_err(|_| self.error("the length is too large"))?,
                result: f[8]
                    .parse()
                    .map_err(|_| self.error(format!("'{}' is not a result", f[8])))?,
                thread: int(2)? as u32,
                target: u16::try_from(int(3)?)
                    .map_err(|_| self.error("the target is too large"))?,
                op,
                timespan: (timespan - 1) as u8,
            }));
        }
    }
}

impl<R: BufRead + Send> Source for Reader<R> {
    fn here(&self, why: String) -> TraceError {
        self.error(why)
    }

    fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        while !self.ended && self.window.len() <= REORDER {
            let Some(r) = self.record()? else {
                self.ended = true;
                break;
            };
            if *self.timespan.get_or_insert(r.timespan) != r.timespan {
                return Err(self.error(format!(
                    "the trace holds timespans {} and {}; iospd replays one timespan's I/O (each starts its times at zero)",
                    self.timespan.unwrap_or(0) as u32 + 1,
                    r.timespan as u32 + 1
                )));
            }
            let submitted = r.completion_ns.saturating_sub(r.latency_ns);
            self.window.push(Reverse((
                submitted,
                self.number,
                r.target,
                r.op as u8,
                r.offset,
                r.len,
            )));
        }
        Ok(self
            .window
            .pop()
            .map(|Reverse((at_ns, _, target, op, offset, len))| {
                let op = match op {
                    0 => Op::Read,
                    1 => Op::Write,
                    2 => Op::Trim,
                    3 => Op::Fsync,
                    _ => Op::Fdatasync,
                };
                Event {
                    at_ns,
                    device: DeviceKey::named(self.input_index, target as u32),
                    op,
                    offset: if op.has_range() { offset } else { 0 },
                    len: if op.has_range() { len } else { 0 },
                    stage: None,
                }
            }))
    }

    fn name(&self, key: DeviceKey) -> Option<String> {
        let base = DeviceKey::named(self.input_index, 0).0;
        (key.0 >= base && key.0 < base + (1 << 16)).then(|| format!("target {}", key.0 - base + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(completion_ns: u64, latency_ns: u64, op: Op, offset: u64) -> Record {
        Record {
            completion_ns,
            latency_ns,
            offset,
            len: 4096,
            result: op.success(4096),
            thread: 0,
            target: 1,
            op,
            timespan: 0,
        }
    }

    #[test]
    fn binary_and_csv_give_submissions_in_time_order() {
        let records = [
            record(5_000, 4_000, Op::Read, 0),
            record(6_000, 1_000, Op::Write, 8192),
            record(7_000, 500, Op::Fsync, 0),
        ];
        let mut bin = MAGIC.to_vec();
        bin.extend((RECORD_BYTES as u32).to_le_bytes());
        let mut csv = format!("{CSV_HEADER}\n");
        for r in &records {
            r.encode(&mut bin);
            csv.push_str(&r.csv());
            csv.push('\n');
        }
        let b =
            crate::replay::all(Reader::binary(Path::new("t.bin"), &bin[..], 0).unwrap()).unwrap();
        let c = crate::replay::all(Reader::csv(Path::new("t.csv"), csv.as_bytes(), 0).unwrap())
            .unwrap();
        assert_eq!(b, c);
        let got: Vec<_> = b.iter().map(|e| (e.at_ns, e.op, e.offset)).collect();
        assert_eq!(
            got,
            [
                (1_000, Op::Read, 0),
                (5_000, Op::Write, 8192),
                (6_500, Op::Fsync, 0)
            ]
        );
        let cut = &bin[..bin.len() - 3];
        let e =
            crate::replay::all(Reader::binary(Path::new("t.bin"), cut, 0).unwrap()).unwrap_err();
        assert_eq!(e.at.as_deref(), Some("record 3 (byte 92)"));
    }
}
