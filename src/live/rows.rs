//! The `-D` rows kept for the final report, in bounded memory however long the run: the latest
//! [`IN_MEMORY`] rows stay in memory, and older ones go, as they come, to an unnamed file on disk
//! (`O_TMPFILE` in `$TMPDIR`, else `/var/tmp`, which is disk where `/tmp` may be memory); the file
//! is read back once, for the report (or a checkpoint), and vanishes with the process. Each row is
//! stored exactly: its numbers as 8-byte words.
//!
//! Without a disk place to spill to, the rows stay in memory, as before.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use crate::stats::timeline::Row;

/// Rows kept in memory; when twice as many are held, the older half goes to the file.
pub const IN_MEMORY: usize = 1024;

/// The rows of one timespan.
#[derive(Debug, Default)]
pub struct RowStore {
    /// The file, how many rows and bytes it holds, once rows have spilled.
    spilled: Option<(File, usize, u64)>,
    /// The spill could not be made or written: every row stays in memory.
    in_memory_only: bool,
    /// The latest rows.
    recent: Vec<Row>,
}

impl RowStore {
    /// An empty store.
    pub fn new() -> RowStore {
        RowStore::default()
    }

    /// Rows kept so far.
    pub fn len(&self) -> usize {
        self.spilled.as_ref().map_or(0, |(_, n, _)| *n) + self.recent.len()
    }

    /// Whether no row is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows held in memory now.
    pub fn in_memory(&self) -> usize {
        self.recent.len()
    }

    /// Keeps one more row.
    pub fn push(&mut self, row: Row) {
        self.recent.push(row);
        if self.recent.len() >= 2 * IN_MEMORY && !self.in_memory_only && self.spill().is_err() {
            self.in_memory_only = true;
        }
    }

    /// Every row kept, in order; the error when those on disk could not be read back (the
    /// rows still in memory are kept).
    pub fn all(&self) -> (Vec<Row>, Option<io::Error>) {
        let (mut rows, error) = match self.read_back() {
            Ok(rows) => (rows, None),
            Err(error) => (Vec::new(), Some(error)),
        };
        rows.extend(self.recent.iter().cloned());
        (rows, error)
    }

    fn spill(&mut self) -> io::Result<()> {
        if self.spilled.is_none() {
            self.spilled = Some((unnamed_file()?, 0, 0));
        }
        let (file, count, bytes) = self.spilled.as_mut().expect("just made");
        let mut batch = Vec::new();
        for row in &self.recent[..IN_MEMORY] {
            batch.extend(encode(row));
        }
        // One write per batch: the file holds whole rows only.
        file.write_all_at(&batch, *bytes)?;
        *bytes += batch.len() as u64;
        *count += IN_MEMORY;
        self.recent.drain(..IN_MEMORY);
        Ok(())
    }

    fn read_back(&self) -> io::Result<Vec<Row>> {
        let Some((file, count, bytes)) = &self.spilled else {
            return Ok(Vec::new());
        };
        let mut all = vec![0u8; *bytes as usize];
        file.read_exact_at(&mut all, 0)?;
        let mut reader = &all[..];
        (0..*count).map(|_| decode(&mut reader)).collect()
    }
}

/// A file with no name on disk, gone when closed.
fn unnamed_file() -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = std::env::var_os("TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp"));
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(dir)
}

fn encode(row: &Row) -> Vec<u8> {
    row.to_words()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

fn decode(reader: &mut impl Read) -> io::Result<Row> {
    let mut failed = None;
    let row = Row::from_words(&mut std::iter::from_fn(|| {
        let mut bytes = [0u8; 8];
        match reader.read_exact(&mut bytes) {
            Ok(()) => Some(u64::from_le_bytes(bytes)),
            Err(e) => {
                failed.get_or_insert(e);
                None
            }
        }
    }));
    row.ok_or_else(|| failed.unwrap_or_else(|| io::ErrorKind::InvalidData.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::timeline::{Directions, Point};

    fn row(i: u64) -> Row {
        let point = |k: u64| Point {
            ios: i + k,
            bytes: 4096 * (i + k),
            ios_per_s: (i + k) as f64 / 3.0,
            bytes_per_s: 0.1 + i as f64,
            min_ns: k,
            mean_ns: 1.0 / (1 + i + k) as f64,
            p50_ns: 50 + k,
            p99_ns: 99 + i,
            p999_ns: 999,
            max_ns: u64::MAX - i,
        };
        let directions = |k: u64| Directions {
            read: point(k),
            write: point(k + 1),
            total: point(k + 2),
        };
        Row {
            start_ms: i as f64 * 1000.0,
            length_ms: 1000.0 - 1.0 / (i + 1) as f64,
            targets: vec![directions(0), directions(10)],
            all: directions(20),
        }
    }

    #[test]
    fn rows_past_the_memory_bound_go_to_disk_and_come_back_exact() {
        let mut store = RowStore::new();
        let n = 5 * IN_MEMORY as u64 + 17;
        for i in 0..n {
            store.push(row(i));
            assert!(store.in_memory() < 2 * IN_MEMORY);
        }
        assert_eq!(store.len(), n as usize);
        let (all, error) = store.all();
        assert!(error.is_none());
        assert_eq!(all.len(), n as usize);
        for (i, r) in all.iter().enumerate() {
            assert_eq!(*r, row(i as u64), "row {i}");
        }
        // Read back mid-run (a checkpoint), and the rows go on after.
        store.push(row(n));
        let (all, _) = store.all();
        assert_eq!(all.last(), Some(&row(n)));
        assert_eq!(all.len(), n as usize + 1);
    }
}
