//! blktrace's binary files (`<dev>.blktrace.<cpu>`, one per CPU): records of `struct
//! blk_io_trace` (48 bytes: magic | version, sequence, time ns, sector, bytes, action, pid,
//! device, cpu, error, pdu length) each followed by `pdu_len` bytes, in the byte order of the
//! machine that recorded them — told by the magic, which is `0x65617400 | version`. Version 7 is
//! the layout blktrace 1.x writes; others are refused. The action's low 16 bits are what happened
//! (queued 1, issued 7 …), the high 16 the categories (read, write, flush, FUA, discard, notify).

use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use super::{DeviceKey, Event, Source, Stage, TraceError};
use crate::engine::Op;

/// The magic, without its version byte.
pub const MAGIC: u32 = 0x6561_7400;
/// The version iospd reads.
pub const VERSION: u8 = 7;
/// Bytes of a record before its payload.
pub const RECORD: usize = 48;

/// `__BLK_TA_QUEUE`, `__BLK_TA_ISSUE`.
pub const QUEUE: u32 = 1;
/// The request was sent to the driver.
pub const ISSUE: u32 = 7;

/// Categories (`BLK_TC_*`, in the action's high 16 bits).
pub const TC_READ: u32 = 1 << 0;
/// Write.
pub const TC_WRITE: u32 = 1 << 1;
/// A flush before the I/O, or a flush request.
pub const TC_FLUSH: u32 = 1 << 2;
/// A message, not an I/O.
pub const TC_NOTIFY: u32 = 1 << 10;
/// Discard.
pub const TC_DISCARD: u32 = 1 << 13;
/// Forced unit access.
pub const TC_FUA: u32 = 1 << 15;

/// One record's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Record {
    /// Sequence number.
    pub sequence: u32,
    /// ns.
    pub time: u64,
    /// 512-byte sector.
    pub sector: u64,
    /// Bytes.
    pub bytes: u32,
    /// Categories << 16 | action.
    pub action: u32,
    /// Process.
    pub pid: u32,
    /// `major << 20 | minor`.
    pub device: u32,
    /// CPU.
    pub cpu: u32,
    /// Error.
    pub error: u16,
    /// Payload bytes after the record.
    pub pdu_len: u16,
}

impl Record {
    /// The 48 bytes of the record in the given byte order (for test files and the bench).
    pub fn encode(&self, big_endian: bool) -> [u8; RECORD] {
        let mut out = [0u8; RECORD];
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            let n = bytes.len();
            let mut b = bytes.to_vec();
            if big_endian {
                b.reverse();
            }
            out[at..at + n].copy_from_slice(&b);
            at += n;
        };
        put(&(MAGIC | VERSION as u32).to_le_bytes());
        put(&self.sequence.to_le_bytes());
        put(&self.time.to_le_bytes());
        put(&self.sector.to_le_bytes());
        put(&self.bytes.to_le_bytes());
        put(&self.action.to_le_bytes());
        put(&self.pid.to_le_bytes());
        put(&self.device.to_le_bytes());
        put(&self.cpu.to_le_bytes());
        put(&self.error.to_le_bytes());
        put(&self.pdu_len.to_le_bytes());
        out
    }
}

/// Reads one file's records.
pub struct Reader<R> {
    path: PathBuf,
    input: R,
    stage: Stage,
    /// Byte order, known from the first record.
    big_endian: Option<bool>,
    number: u64,
    offset: u64,
    pending: Vec<Event>,
    pdu: Vec<u8>,
}

impl<R: BufRead + Send> Reader<R> {
    /// A reader of `input` (from `path`) keeping `stage`'s events.
    pub fn new(path: &Path, input: R, stage: Stage) -> Self {
        Reader {
            path: path.to_path_buf(),
            input,
            stage,
            big_endian: None,
            number: 0,
            offset: 0,
            pending: Vec::new(),
            pdu: Vec::new(),
        }
    }

    fn error(&self, why: impl Into<String>) -> TraceError {
        TraceError::at(
            &self.path,
            format!("record {} (byte {})", self.number, self.offset),
            why,
        )
    }

    /// The next record, `None` at a clean end.
    fn record(&mut self) -> Result<Option<Record>, TraceError> {
        let mut raw = [0u8; RECORD];
        let got = read_full(&mut self.input, &mut raw).map_err(|e| self.error(e.to_string()))?;
        if got == 0 {
            return Ok(None);
        }
        self.number += 1;
        if got < RECORD {
            return Err(self.error(format!(
                "the file ends {got} bytes into a {RECORD}-byte record (the capture was cut short); remove the partial record or capture again"
            )));
        }
        let le = u32::from_le_bytes(raw[..4].try_into().expect("4 bytes"));
        let big = match (
            le & 0xFFFF_FF00 == MAGIC,
            le.swap_bytes() & 0xFFFF_FF00 == MAGIC,
        ) {
            (true, _) => false,
            (_, true) => true,
            _ => {
                return Err(self.error(format!(
                    "bad magic {le:#010x} (a blktrace record begins with 0x654174..); the file is damaged or not blktrace's"
                )));
            }
        };
        if *self.big_endian.get_or_insert(big) != big {
            return Err(self.error("the byte order changes within the file; it is damaged"));
        }
        let u16_at = |i: usize| {
            let b: [u8; 2] = raw[i..i + 2].try_into().expect("2 bytes");
            if big {
                u16::from_be_bytes(b)
            } else {
                u16::from_le_bytes(b)
            }
        };
        let u32_at = |i: usize| {
            let b: [u8; 4] = raw[i..i + 4].try_into().expect("4 bytes");
            if big {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let u64_at = |i: usize| {
            let b: [u8; 8] = raw[i..i + 8].try_into().expect("8 bytes");
            if big {
                u64::from_be_bytes(b)
            } else {
                u64::from_le_bytes(b)
            }
        };
        let version = (u32_at(0) & 0xFF) as u8;
        if version != VERSION {
            return Err(self.error(format!(
                "version {version:#04x}; iospd reads blktrace's version {VERSION:#04x} records (blktrace 1.x); convert with blkparse and replay its text"
            )));
        }
        let record = Record {
            sequence: u32_at(4),
            time: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            pid: u32_at(32),
            device: u32_at(36),
            cpu: u32_at(40),
            error: u16_at(44),
            pdu_len: u16_at(46),
        };
        self.pdu.resize(record.pdu_len as usize, 0);
        let got =
            read_full(&mut self.input, &mut self.pdu).map_err(|e| self.error(e.to_string()))?;
        if got < self.pdu.len() {
            return Err(self.error(format!(
                "the file ends inside the record's {}-byte payload (the capture was cut short); remove the partial record or capture again",
                record.pdu_len
            )));
        }
        self.offset += (RECORD + record.pdu_len as usize) as u64;
        Ok(Some(record))
    }
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The operations a record stands for, in order: a preflush, the I/O, a flush for FUA.
pub fn operations(action: u32, bytes: u32) -> Vec<Op> {
    let tc = action >> 16;
    let mut ops = Vec::with_capacity(2);
    if tc & TC_FLUSH != 0 {
        ops.push(Op::Fsync);
    }
    if bytes > 0 {
        if tc & TC_DISCARD != 0 {
            ops.push(Op::Trim);
        } else if tc & TC_WRITE != 0 {
            ops.push(Op::Write);
            if tc & TC_FUA != 0 {
                ops.push(Op::Fsync);
            }
        } else if tc & TC_READ != 0 {
            ops.push(Op::Read);
        }
    }
    ops
}

impl<R: BufRead + Send> Source for Reader<R> {
    fn here(&self, why: String) -> TraceError {
        self.error(why)
    }

    fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        let wanted = match self.stage {
            Stage::Queued => QUEUE,
            Stage::Issued => ISSUE,
        };
        loop {
            if let Some(event) = self.pending.pop() {
                return Ok(Some(event));
            }
            let Some(r) = self.record()? else {
                return Ok(None);
            };
            if (r.action >> 16) & TC_NOTIFY != 0 || r.action & 0xFFFF != wanted {
                continue;
            }
            let offset = r
                .sector
                .checked_mul(512)
                .ok_or_else(|| self.error(format!("sector {} is past any device", r.sector)))?;
            for op in operations(r.action, r.bytes).into_iter().rev() {
                let ranged = op != Op::Fsync;
                self.pending.push(Event {
                    at_ns: r.time,
                    device: DeviceKey(r.device as u64),
                    op,
                    offset: if ranged { offset } else { 0 },
                    len: if ranged { r.bytes } else { 0 },
                    stage: Some(self.stage),
                });
            }
        }
    }

    fn name(&self, key: DeviceKey) -> Option<String> {
        key.block_numbers().map(|(a, b)| format!("{a},{b}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(time: u64, action: u32, sector: u64, bytes: u32) -> Record {
        Record {
            time,
            action,
            sector,
            bytes,
            device: (8 << 20) | 16,
            ..Record::default()
        }
    }

    fn read(bytes: &[u8], stage: Stage) -> Result<Vec<Event>, TraceError> {
        crate::replay::all(Reader::new(Path::new("sdb.blktrace.0"), bytes, stage))
    }

    #[test]
    fn records_read_in_either_byte_order() {
        for big in [false, true] {
            let mut file = Vec::new();
            let write = ((TC_WRITE | TC_FLUSH) << 16) | QUEUE;
            file.extend(record(10, write, 8, 4096).encode(big));
            let mut notify = record(11, (TC_NOTIFY << 16) | QUEUE, 0, 0);
            notify.pdu_len = 5;
            file.extend(notify.encode(big));
            file.extend(b"hello");
            file.extend(record(12, (TC_READ << 16) | ISSUE, 16, 512).encode(big));
            file.extend(record(13, (TC_READ << 16) | QUEUE, 16, 512).encode(big));
            let q = read(&file, Stage::Queued).unwrap();
            let got: Vec<_> = q.iter().map(|e| (e.at_ns, e.op, e.offset, e.len)).collect();
            assert_eq!(
                got,
                [
                    (10, Op::Fsync, 0, 0),
                    (10, Op::Write, 4096, 4096),
                    (13, Op::Read, 8192, 512)
                ],
                "big endian: {big}"
            );
            assert_eq!(q[0].device, DeviceKey::block(8, 16));
            let d = read(&file, Stage::Issued).unwrap();
            assert_eq!(d.len(), 1);
        }
    }

    #[test]
    fn damaged_files_name_the_record() {
        let mut file = record(1, (TC_READ << 16) | QUEUE, 0, 512)
            .encode(false)
            .to_vec();
        file.extend(&record(2, (TC_READ << 16) | QUEUE, 0, 512).encode(false)[..20]);
        let e = read(&file, Stage::Queued).unwrap_err();
        assert_eq!(e.at.as_deref(), Some("record 2 (byte 48)"));
        assert!(e.why.contains("cut short"), "{e}");
        let mut wrong = record(1, 0, 0, 0).encode(false);
        wrong[0] = 0x08;
        let e = read(&wrong, Stage::Queued).unwrap_err();
        assert!(e.why.contains("version 0x08"), "{e}");
        let e = read(&[0u8; 48], Stage::Queued).unwrap_err();
        assert!(e.why.contains("bad magic"), "{e}");
    }

    #[test]
    fn discards_and_fua_writes_map_to_trims_and_flushes() {
        assert_eq!(
            operations(((TC_WRITE | TC_DISCARD) << 16) | QUEUE, 4096),
            [Op::Trim]
        );
        assert_eq!(
            operations(((TC_WRITE | TC_FUA) << 16) | QUEUE, 4096),
            [Op::Write, Op::Fsync]
        );
        assert_eq!(
            operations(((TC_WRITE | TC_FLUSH) << 16) | QUEUE, 0),
            [Op::Fsync]
        );
    }
}
