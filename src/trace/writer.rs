//! The trace's writer thread and file.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

use super::{BATCH, BATCHES, CSV_HEADER, MAGIC, RECORD_BYTES, Record, Tracer};

/// The open trace file.
pub struct TraceFile {
    out: BufWriter<File>,
    csv: bool,
    bytes: Vec<u8>,
    /// Records written so far.
    pub written: u64,
}

impl TraceFile {
    /// Creates (truncates) the file: CSV when its name ends in `.csv`, binary otherwise.
    pub fn create(path: &Path) -> io::Result<TraceFile> {
        let csv = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
        if csv {
            writeln!(out, "{CSV_HEADER}")?;
        } else {
            out.write_all(MAGIC)?;
            out.write_all(&(RECORD_BYTES as u32).to_le_bytes())?;
        }
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

    /// Writes what is buffered to the file.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
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

impl Writer {
    /// Writes batches until every tracer is gone. After a write error it keeps taking batches
    /// (so no worker waits) and returns the error at the end.
    pub fn serve(self, file: &mut TraceFile) -> io::Result<()> {
        let mut error = None;
        while let Ok(batch) = self.from_workers.recv() {
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
        match error {
            Some(e) => Err(e),
            None => file.flush(),
        }
    }
}
