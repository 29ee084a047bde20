//! `--histlog=FILE`: the HdrHistogram interval log, one compressed histogram per interval, in the
//! text format the HdrHistogram libraries' log readers and processors take. The untagged line of an
//! interval holds every I/O of the interval; tagged lines (`Tag=t0-read`, `Tag=t0-write`) hold each
//! target and direction. Values are nanoseconds; the `Interval_Max` column is in milliseconds.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use crate::safety::Place;
use std::time::{SystemTime, UNIX_EPOCH};

use super::Sink;
use crate::stats::histogram::LatencyHistogram;
use crate::stats::timeline::{Kind, Row, TargetOps};

/// Writes the interval log.
pub struct HistLog {
    out: BufWriter<File>,
    path: std::path::PathBuf,
    /// Wall-clock seconds of the first window's start: the log's StartTime and BaseTime.
    base_s: Option<f64>,
    /// This timespan's window start, from the base.
    offset_s: f64,
    all: LatencyHistogram,
}

impl HistLog {
    /// Puts a new, empty file at the place.
    pub fn create(place: &mut Place) -> io::Result<HistLog> {
        Ok(HistLog {
            out: BufWriter::new(place.install(|_| Ok(()))?),
            path: place.path().to_path_buf(),
            base_s: None,
            offset_s: 0.0,
            all: LatencyHistogram::new(),
        })
    }

    fn line(
        &mut self,
        tag: Option<&str>,
        start_s: f64,
        length_s: f64,
        h: &LatencyHistogram,
    ) -> io::Result<()> {
        if let Some(tag) = tag {
            write!(self.out, "Tag={tag},")?;
        }
        writeln!(
            self.out,
            "{start_s:.3},{length_s:.3},{:.3},{}",
            h.max() as f64 / 1e6,
            h.encode_v2()
        )
    }
}

impl Sink for HistLog {
    fn begin(&mut self, timespan: usize, window_start: SystemTime, _: &[String]) -> io::Result<()> {
        let start_s = window_start
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        match self.base_s {
            None => {
                self.base_s = Some(start_s);
                writeln!(
                    self.out,
                    "#[Logged with iospd {}]",
                    env!("CARGO_PKG_VERSION")
                )?;
                writeln!(self.out, "#[Histogram log format version 1.3]")?;
                writeln!(self.out, "#[StartTime: {start_s:.3} (seconds since epoch)]")?;
                writeln!(self.out, "#[BaseTime: {start_s:.3} (seconds since epoch)]")?;
                writeln!(self.out, "#[MaxValueDivisor: 1000000.000]")?;
                writeln!(
                    self.out,
                    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""
                )?;
            }
            Some(base) => {
                self.offset_s = start_s - base;
                writeln!(self.out, "#[timespan {} starts]", timespan + 1)?;
            }
        }
        self.out.flush()
    }

    fn interval(&mut self, row: &Row, targets: &[TargetOps]) -> io::Result<()> {
        let start = self.offset_s + row.start_ms / 1e3;
        let length = row.length_ms / 1e3;
        let mut all = std::mem::take(&mut self.all);
        all.clear();
        for t in targets {
            all.merge(&t.read.latency);
            all.merge(&t.write.latency);
        }
        self.line(None, start, length, &all)?;
        self.all = all;
        for (i, t) in targets.iter().enumerate() {
            for (kind, ops) in t.kinds() {
                // Reads and writes every interval; trims and flushes in those that had some.
                if matches!(kind, Kind::Read | Kind::Write) || ops.ios > 0 {
                    let tag = format!("t{i}-{}", kind.name());
                    self.line(Some(&tag), start, length, &ops.latency)?;
                }
            }
        }
        self.out.flush()
    }

    fn describe(&self) -> String {
        format!("--histlog '{}'", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

    use super::*;

    #[test]
    fn the_log_reads_back_with_hdrhistograms_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        let mut log = HistLog::create(&mut Place::locate(&path).unwrap()).unwrap();
        let start = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        log.begin(0, start, &["a".into()]).unwrap();
        let mut ops = vec![TargetOps::default()];
        for ns in [1_000, 2_000, 3_000] {
            ops[0].read.record(4096, ns);
        }
        ops[0].write.record(4096, 9_000_000);
        let row = Row::new(0, 1_000_000_000, &ops);
        log.interval(&row, &ops).unwrap();
        ops[0].slot(Kind::Flush).record(0, 250_000);
        let row = Row::new(1_000_000_000, 500_000_000, &ops);
        log.interval(&row, &ops).unwrap();
        let text = std::fs::read(&path).unwrap();
        let mut histograms = Vec::new();
        for entry in IntervalLogIterator::new(&text) {
            match entry.unwrap() {
                LogEntry::Interval(h) => histograms.push((
                    h.tag().map(|t| t.as_str().to_string()),
                    h.start_timestamp().as_secs_f64(),
                    h.duration().as_secs_f64(),
                    h.encoded_histogram().to_string(),
                )),
                LogEntry::StartTime(t) => assert_eq!(t.as_secs(), 1_700_000_000),
                LogEntry::BaseTime(t) => assert_eq!(t.as_secs(), 1_700_000_000),
            }
        }
        assert_eq!(histograms.len(), 7);
        assert_eq!(histograms[0].0, None);
        assert_eq!(histograms[1].0.as_deref(), Some("t0-read"));
        assert_eq!(histograms[6].0.as_deref(), Some("t0-flush"));
        assert_eq!((histograms[3].1, histograms[3].2), (1.0, 0.5));
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&histograms[0].3)
            .unwrap();
        let h: hdrhistogram::Histogram<u64> = Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .unwrap();
        assert_eq!(h.len(), 4);
        assert!(h.max() >= 9_000_000);
    }
}
