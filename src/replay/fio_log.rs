//! fio's iolog: `fio version 2 iolog` (`<file> <action> [<offset> <length>]`, no times: a `wait`
//! line holds the next I/O back by its offset field in µs) and `fio version 3 iolog` (each line
//! first carries the µs since the log began, as fio's `write_iolog` writes them). Actions: `add`,
//! `open`, `close` (files), `read`, `write`, `trim`, `sync`, `datasync`, `wait`.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::{DeviceKey, Event, Source, TraceError};
use crate::engine::Op;

/// Reads one iolog.
pub struct Reader<R> {
    path: PathBuf,
    input: R,
    input_index: usize,
    version: u8,
    line: String,
    number: u64,
    files: HashMap<String, u32>,
    names: Vec<String>,
    /// v2: the time so far (the sum of `wait`s), ns.
    clock_ns: u64,
}

impl<R: BufRead + Send> Reader<R> {
    /// Reads the header line of `input` (from `path`, input `input_index` of the replay).
    pub fn new(path: &Path, mut input: R, input_index: usize) -> Result<Self, TraceError> {
        let mut header = String::new();
        super::read_line(&mut input, &mut header)
            .map_err(|e| TraceError::at(path, "line 1", e.to_string()))?;
        let version = match header.trim_end() {
            "fio version 2 iolog" => 2,
            "fio version 3 iolog" => 3,
            other => {
                return Err(TraceError::at(
                    path,
                    "line 1",
                    format!(
                        "'{other}': iospd reads fio's iolog versions 2 and 3 ('fio version 2 iolog', 'fio version 3 iolog')"
                    ),
                ));
            }
        };
        Ok(Reader {
            path: path.to_path_buf(),
            input,
            input_index,
            version,
            line: String::new(),
            number: 1,
            files: HashMap::new(),
            names: Vec::new(),
            clock_ns: 0,
        })
    }

    fn error(&self, why: impl Into<String>) -> TraceError {
        TraceError::at(&self.path, format!("line {}", self.number), why)
    }

    /// The number of file `name`, known from its `add` line (or its first use).
    fn file(&mut self, name: &str) -> Result<u32, TraceError> {
        if let Some(&n) = self.files.get(name) {
            return Ok(n);
        }
        let n = self.names.len() as u32;
        if n == DeviceKey::MAX_NAMED {
            return Err(self.error(format!(
                "the log names more than {} files; replay a log of fewer files",
                DeviceKey::MAX_NAMED
            )));
        }
        self.files.insert(name.to_string(), n);
        self.names.push(name.to_string());
        Ok(n)
    }
}

impl<R: BufRead + Send> Source for Reader<R> {
    fn here(&self, why: String) -> TraceError {
        self.error(why)
    }

    fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        loop {
            self.line.clear();
            let read = super::read_line(&mut self.input, &mut self.line)
                .map_err(|e| self.error(e.to_string()))?;
            if read == 0 {
                return Ok(None);
            }
            self.number += 1;
            let line = std::mem::take(&mut self.line);
            let mut fields: Vec<&str> = line.split_whitespace().collect();
            if fields.is_empty() {
                self.line = line;
                continue;
            }
            let number = |me: &Self, text: &str, what: &str| -> Result<u64, TraceError> {
                text.parse()
                    .map_err(|_| me.error(format!("'{text}' is not a number ({what})")))
            };
            if self.version == 3 {
                let at_us = number(self, fields[0], "the time in µs")?;
                self.clock_ns = at_us.saturating_mul(1000);
                fields.remove(0);
            }
            let (name, action) = match (fields.first(), fields.get(1)) {
                (Some(n), Some(a)) => (n.to_string(), a.to_string()),
                _ => {
                    return Err(self.error(if self.version == 3 {
                        "a line reads '<µs> <file> <action> [<offset> <length>]'"
                    } else {
                        "a line reads '<file> <action> [<offset> <length>]'"
                    }));
                }
            };
            let op = match action.as_str() {
                "add" | "open" | "close" => {
                    self.file(&name)?;
                    self.line = line;
                    continue;
                }
                "wait" => {
                    let us = number(self, fields.get(2).unwrap_or(&"0"), "the wait in µs")?;
                    self.clock_ns += us * 1000;
                    self.line = line;
                    continue;
                }
                "read" => Op::Read,
                "write" => Op::Write,
                "trim" => Op::Trim,
                "sync" => Op::Fsync,
                "datasync" => Op::Fdatasync,
                other => {
                    return Err(self.error(format!(
                        "'{other}' is not an iolog action (add, open, close, read, write, trim, sync, datasync, wait)"
                    )));
                }
            };
            let (offset, len) = if op.has_range() {
                let (Some(o), Some(l)) = (fields.get(2), fields.get(3)) else {
                    return Err(self.error(format!("'{action}' needs an offset and a length")));
                };
                let offset = number(self, o, "the offset")?;
                let len = number(self, l, "the length")?;
                let len = u32::try_from(len)
                    .map_err(|_| self.error(format!("{len} bytes is more than one I/O can be")))?;
                (offset, len)
            } else {
                (0, 0)
            };
            let file = self.file(&name)?;
            self.line = line;
            return Ok(Some(Event {
                at_ns: self.clock_ns,
                device: DeviceKey::named(self.input_index, file),
                op,
                offset,
                len,
                stage: None,
            }));
        }
    }

    fn name(&self, key: DeviceKey) -> Option<String> {
        let (input, n) = key.named_parts()?;
        (input == self.input_index)
            .then(|| self.names.get(n as usize).cloned())
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<Event>, TraceError> {
        crate::replay::all(Reader::new(Path::new("job.log"), text.as_bytes(), 0)?)
    }

    #[test]
    fn version_3_times_are_microseconds() {
        let log = "fio version 3 iolog\n2 /dev/sdb add\n872 /dev/sdb open\n878 /dev/sdb write 0 16384\n900 /dev/sdb sync 0 0\n950 /dev/sdc read 4096 512\n10001677 /dev/sdb close\n";
        let e = read(log).unwrap();
        let got: Vec<_> = e.iter().map(|e| (e.at_ns, e.op, e.offset, e.len)).collect();
        assert_eq!(
            got,
            [
                (878_000, Op::Write, 0, 16384),
                (900_000, Op::Fsync, 0, 0),
                (950_000, Op::Read, 4096, 512)
            ]
        );
        assert_eq!(e[0].device, DeviceKey::named(0, 0));
        assert_eq!(e[2].device, DeviceKey::named(0, 1));
    }

    #[test]
    fn version_2_waits_hold_the_next_io_back() {
        let log =
            "fio version 2 iolog\nf add\nf open\nf read 0 4096\nf wait 250 0\nf trim 8192 4096\n";
        let e = read(log).unwrap();
        assert_eq!((e[0].at_ns, e[1].at_ns, e[1].op), (0, 250_000, Op::Trim));
    }

    #[test]
    fn file_names_are_found_by_their_key() {
        let mut log = String::from("fio version 2 iolog\n");
        for i in 0..1000 {
            log.push_str(&format!("f{i} add\n"));
        }
        let mut reader = Reader::new(Path::new("job.log"), log.as_bytes(), 3).unwrap();
        while reader.next_event().unwrap().is_some() {}
        assert_eq!(
            reader.name(DeviceKey::named(3, 999)).as_deref(),
            Some("f999")
        );
        assert_eq!(reader.name(DeviceKey::named(3, 0)).as_deref(), Some("f0"));
        assert_eq!(reader.name(DeviceKey::named(2, 0)), None);
        assert_eq!(reader.name(DeviceKey::named(3, 1000)), None);
        assert_eq!(reader.name(DeviceKey::block(8, 0)), None);
    }

    #[test]
    fn bad_lines_name_their_number() {
        let e = read("fio version 3 iolog\n1 f add\nx f read 0 1\n").unwrap_err();
        assert_eq!(e.at.as_deref(), Some("line 3"));
        let e = read("fio version 3 iolog\n1 f frobnicate 0 1\n").unwrap_err();
        assert!(e.why.contains("'frobnicate'"), "{e}");
        let e = read("fio version 4 iolog\n").unwrap_err();
        assert_eq!(e.at.as_deref(), Some("line 1"));
    }
}
