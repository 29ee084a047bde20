//! The trace's writer thread and file.

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

use super::{BATCH, BATCHES, CSV_HEADER, MAGIC, RECORD_BYTES, Record, Tracer};

/// The open trace file. Each batch (4096 records) is written with one call, so no buffer sits
/// between the records and the file.
pub struct TraceFile {
    out: File,
    csv: bool,
    bytes: Vec<u8>,
    /// Records the file has taken whole.
    pub written: u64,
}

impl TraceFile {
    /// Puts a new file with its header at the place: CSV when its name ends in `.csv`, binary
    /// otherwise.
    pub fn create(place: &mut crate::safety::Place) -> io::Result<TraceFile> {
        let csv = place
            .path()
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let out = place.install(|file| {
            if csv {
                writeln!(file, "{CSV_HEADER}")
            } else {
                file.write_all(MAGIC)?;
                file.write_all(&(RECORD_BYTES as u32).to_le_bytes())
            }
        })?;
        Ok(TraceFile {
            out,
            csv,
            bytes: Vec::with_capacity(BATCH * RECORD_BYTES),
            written: 0,
        })
    }

    fn write(&mut self, batch: &[Record]) -> io::Result<()> {
        self.bytes.clear();
        for record in batch {
            if self.csv {
                record.write_csv(&mut self.bytes);
                self.bytes.push(b'\n');
            } else {
                record.encode(&mut self.bytes);
            }
        }
        self.out.write_all(&self.bytes)?;
        self.written += batch.len() as u64;
        Ok(())
    }
}

/// The writer's end for one timespan: full batches in, empty batches back to their thread.
pub struct Writer {
    from_workers: Receiver<Vec<Record>>,
    /// Global thread number → where its empty batches go.
    owners: Vec<(u32, Sender<Vec<Record>>)>,
}

/// A writer and one tracer per thread (`threads` holds their global numbers).
pub fn channels(threads: &[u32]) -> (Writer, Vec<Tracer>) {
    let (to_writer, from_workers): (SyncSender<Vec<Record>>, _) =
        sync_channel(BATCHES * threads.len().max(1));
    let mut owners = Vec::with_capacity(threads.len());
    let tracers = threads
        .iter()
        .map(|&thread| {
            let (give, spares) = channel();
            for _ in 1..BATCHES {
                let _ = give.send(Vec::with_capacity(BATCH));
            }
            owners.push((thread, give));
            Tracer::new(to_writer.clone(), spares)
        })
        .collect();
    (
        Writer {
            from_workers,
            owners,
        },
        tracers,
    )
}

/// What the writer did with the records it was handed.
#[derive(Debug)]
pub struct Served {
    /// Records handed to it.
    pub handed: u64,
    /// Records the file took.
    pub written: u64,
    /// The error that stopped the file, if one did.
    pub error: Option<io::Error>,
}

impl Writer {
    /// Writes batches until every tracer is gone. After a write error it stops writing but keeps
    /// taking batches (so no worker waits), and counts what the file did not take.
    pub fn serve(self, file: &mut TraceFile) -> Served {
        let mut error = None;
        let mut handed = 0;
        let before = file.written;
        while let Ok(batch) = self.from_workers.recv() {
            handed += batch.len() as u64;
            if error.is_none()
                && let Err(e) = file.write(&batch)
            {
                error = Some(e);
            }
            if let Some(thread) = batch.first().map(|r| r.thread)
                && let Some((_, owner)) = self.owners.iter().find(|(t, _)| *t == thread)
            {
                let _ = owner.send(batch);
            }
        }
        Served {
            handed,
            written: file.written - before,
            error,
        }
    }
}
