//! `--trace=FILE`: every measured I/O, one record each. Worker threads fill fixed batches and hand
//! them to a writer thread through a bounded set of buffers; when the disk cannot keep up and no
//! empty buffer is back, records are dropped and counted, never silently lost and never allowed to
//! grow memory. The file is compact binary (`iospd trace-dump` turns it into CSV), or CSV directly
//! when its name ends in `.csv`.
//!
//! Binary layout, little-endian: the 8-byte magic `IOSPDTR1`, the record size (u32, 40), then
//! records of: completion time from the start of the measured window (u64 ns), latency (u64 ns),
//! offset (u64), length (u32), result (i32: bytes, or a negative errno), thread (u32), target
//! (u16), kind (u8: 0 read, 1 write, 2 trim, 3 fsync, 4 fdatasync), timespan (u8, from 0).

pub mod writer;

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SyncSender};

use crate::engine::Op;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"IOSPDTR1";
/// Bytes per binary record.
pub const RECORD_BYTES: usize = 40;
/// Records per batch a worker hands over.
pub const BATCH: usize = 4096;
/// Batches per thread: one filling, the rest with the writer or waiting to be reused.
pub const BATCHES: usize = 8;
/// Memory a thread's trace batches take.
pub const BYTES_PER_THREAD: usize = BATCH * BATCHES * std::mem::size_of::<Record>();
/// The CSV header (of `--trace=x.csv` and `iospd trace-dump`).
pub const CSV_HEADER: &str =
    "timespan,completion_us,thread,target,direction,offset,length,latency_us,result";

/// One completed I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Completion time from the start of the measured window, ns.
    pub completion_ns: u64,
    /// Latency, ns.
    pub latency_ns: u64,
    /// Offset in the target.
    pub offset: u64,
    /// Bytes requested.
    pub len: u32,
    /// The kernel's result: bytes transferred or a negative errno.
    pub result: i32,
    /// Global thread number.
    pub thread: u32,
    /// Index of the target in the timespan.
    pub target: u16,
    /// Direction.
    pub op: Op,
    /// Index of the timespan.
    pub timespan: u8,
}

impl Record {
    /// The binary form.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.completion_ns.to_le_bytes());
        out.extend_from_slice(&self.latency_ns.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.result.to_le_bytes());
        out.extend_from_slice(&self.thread.to_le_bytes());
        out.extend_from_slice(&self.target.to_le_bytes());
        out.push(self.op as u8);
        out.push(self.timespan);
    }

    /// Reads one binary record.
    pub fn decode(bytes: &[u8; RECORD_BYTES]) -> Record {
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        Record {
            completion_ns: u64_at(0),
            latency_ns: u64_at(8),
            offset: u64_at(16),
            len: u32_at(24),
            result: u32_at(28) as i32,
            thread: u32_at(32),
            target: u16::from_le_bytes([bytes[36], bytes[37]]),
            op: match bytes[38] {
                0 => Op::Read,
                1 => Op::Write,
                2 => Op::Trim,
                3 => Op::Fsync,
                _ => Op::Fdatasync,
            },
            timespan: bytes[39],
        }
    }

    /// The CSV line (without the line break).
    pub fn csv(&self) -> String {
        let mut line = Vec::with_capacity(96);
        self.write_csv(&mut line);
        String::from_utf8(line).expect("ASCII")
    }

    /// Appends the CSV line (without the line break); microseconds are printed from integer
    /// nanoseconds, which is exact and much cheaper than formatting floats.
    pub fn write_csv(&self, out: &mut Vec<u8>) {
        use std::io::Write as _;
        let us = |ns: u64| (ns / 1000, ns % 1000);
        let (c, c_frac) = us(self.completion_ns);
        let (l, l_frac) = us(self.latency_ns);
        let _ = write!(
            out,
            "{},{c}.{c_frac:03},{},{},{},{},{},{l}.{l_frac:03},{}",
            self.timespan as u32 + 1,
            self.thread,
            self.target,
            self.op.name(),
            self.offset,
            self.len,
            self.result
        );
    }
}

/// What [`read_binary`] read: whole records, and the bytes of a last record the file ends inside
/// (a run killed while its writer wrote).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadCount {
    /// Whole records.
    pub records: u64,
    /// Bytes after the last whole record (0 to 39).
    pub cut: usize,
}

/// Reads a binary trace: checks the header, then calls `each` for every record.
pub fn read_binary(
    mut input: impl Read,
    mut each: impl FnMut(Record) -> io::Result<()>,
) -> io::Result<ReadCount> {
    let mut header = [0u8; 12];
    input.read_exact(&mut header).map_err(|_| not_a_trace())?;
    if &header[..8] != MAGIC
        || u32::from_le_bytes(header[8..12].try_into().expect("4")) as usize != RECORD_BYTES
    {
        return Err(not_a_trace());
    }
    let mut input = io::BufReader::with_capacity(1 << 20, input);
    let mut record = [0u8; RECORD_BYTES];
    let mut records = 0;
    loop {
        let mut filled = 0;
        while filled < RECORD_BYTES {
            match input.read(&mut record[filled..]) {
                Ok(0) => {
                    return Ok(ReadCount {
                        records,
                        cut: filled,
                    });
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        each(Record::decode(&record))?;
        records += 1;
    }
}

fn not_a_trace() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "not an iospd binary trace (it does not start with IOSPDTR1 and 40-byte records)",
    )
}

/// A worker thread's end of the trace.
pub struct Tracer {
    batch: Vec<Record>,
    to_writer: SyncSender<Vec<Record>>,
    spares: Receiver<Vec<Record>>,
    /// Records handed to the writer or waiting in the batch.
    pub kept: u64,
    /// Records dropped because no empty batch was back from the writer.
    pub dropped: u64,
}

impl Tracer {
    /// A tracer sending full batches to `to_writer` and taking empty ones from `spares`.
    pub fn new(to_writer: SyncSender<Vec<Record>>, spares: Receiver<Vec<Record>>) -> Tracer {
        Tracer {
            batch: Vec::with_capacity(BATCH),
            to_writer,
            spares,
            kept: 0,
            dropped: 0,
        }
    }

    /// Records one I/O.
    #[inline]
    pub fn push(&mut self, record: Record) {
        if self.batch.len() < BATCH {
            self.batch.push(record);
            self.kept += 1;
        } else {
            self.hand_over(record);
        }
    }

    #[cold]
    fn hand_over(&mut self, record: Record) {
        match self.spares.try_recv() {
            Ok(mut empty) => {
                empty.clear();
                let full = std::mem::replace(&mut self.batch, empty);
                // There are never more batches than the channel holds, so this does not block.
                let _ = self.to_writer.send(full);
                self.batch.push(record);
                self.kept += 1;
            }
            Err(_) => self.dropped += 1,
        }
    }

    /// Hands over what is left; returns (kept, dropped).
    pub fn finish(self) -> (u64, u64) {
        if !self.batch.is_empty() {
            let _ = self.to_writer.send(self.batch);
        }
        (self.kept, self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_through_the_binary_form() {
        let record = Record {
            completion_ns: 1_234_567_890,
            latency_ns: 98_765,
            offset: 1 << 40,
            len: 4096,
            result: -5,
            thread: 7,
            target: 3,
            op: Op::Write,
            timespan: 1,
        };
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&(RECORD_BYTES as u32).to_le_bytes());
        record.encode(&mut bytes);
        assert_eq!(bytes.len(), 12 + RECORD_BYTES);
        let mut seen = Vec::new();
        let n = read_binary(bytes.as_slice(), |r| {
            seen.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!((n, seen), (ReadCount { records: 1, cut: 0 }, vec![record]));
        // A file that ends inside its second record: the whole one, and the bytes cut.
        bytes.extend_from_slice(&[7u8; 13]);
        let n = read_binary(bytes.as_slice(), |_| Ok(())).unwrap();
        assert_eq!(
            n,
            ReadCount {
                records: 1,
                cut: 13
            }
        );
        assert_eq!(
            record.csv(),
            "2,1234567.890,7,3,write,1099511627776,4096,98.765,-5"
        );
        assert!(read_binary(&b"IOSPDTR2\x28\0\0\0"[..], |_| Ok(())).is_err());
        // Every kind of I/O keeps its kind and its name.
        for op in [Op::Read, Op::Write, Op::Trim, Op::Fsync, Op::Fdatasync] {
            let mut one = Vec::new();
            Record { op, ..record }.encode(&mut one);
            let decoded = Record::decode(one.as_slice().try_into().unwrap());
            assert_eq!(decoded.op, op);
            assert!(decoded.csv().contains(&format!(",{},", op.name())));
        }
    }

    #[test]
    fn a_full_tracer_drops_and_counts_instead_of_growing() {
        let (to_writer, from_workers) = std::sync::mpsc::sync_channel(BATCHES);
        let (give, spares) = std::sync::mpsc::channel();
        let mut tracer = Tracer::new(to_writer, spares);
        let record = Record {
            completion_ns: 0,
            latency_ns: 0,
            offset: 0,
            len: 0,
            result: 0,
            thread: 0,
            target: 0,
            op: Op::Read,
            timespan: 0,
        };
        // No empty batch ever comes back: everything past the first batch is dropped.
        for _ in 0..BATCH + 10 {
            tracer.push(record);
        }
        assert_eq!((tracer.kept, tracer.dropped), (BATCH as u64, 10));
        // One comes back: the full batch goes to the writer and recording resumes.
        give.send(Vec::with_capacity(BATCH)).unwrap();
        tracer.push(record);
        assert_eq!(from_workers.try_recv().unwrap().len(), BATCH);
        assert_eq!(tracer.finish(), (BATCH as u64 + 1, 10));
        assert_eq!(from_workers.try_recv().unwrap().len(), 1);
    }
}
