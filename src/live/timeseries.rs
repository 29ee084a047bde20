//! `--timeseries=FILE.csv`: one row per interval, target and direction, written and flushed as
//! each interval finishes, so nothing accumulates in memory and a run that dies keeps its rows.
//! Directions are read, write and total (reads and writes), then trim and flush for a target from
//! its first trim or flush of the timespan on. With the device clock, each interval then has a row
//! per device under the targets and direction: target `device`, path the device's name, `ios` its
//! requests (everyone's, not only iospd's), the latency columns their time on the device, and
//! `bytes` and `mib_per_s` empty (the clock counts no bytes).

use std::fs::File;
use std::io::{self, BufWriter, Write};

use crate::safety::Place;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{DeviceSlice, Sink};
use crate::stats::timeline::{IntervalOps, Kind, Point, Row, TargetOps};
use crate::system::devclock::ClockSummary;

/// The header of the CSV.
pub const HEADER: &str = "timespan,epoch_s,start_ms,length_ms,target,path,direction,ios,bytes,iops,mib_per_s,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us";

/// Writes the time-series CSV.
pub struct TimeSeries {
    out: BufWriter<File>,
    path: std::path::PathBuf,
    timespan: usize,
    epoch_s: f64,
    paths: Vec<String>,
    /// Per target, and for all of them last: the trims and flushes seen this timespan.
    seen: Vec<[bool; 2]>,
}

/// The kinds a row may add after read, write and total.
const RARE: [Kind; 2] = [Kind::Trim, Kind::Flush];

impl TimeSeries {
    /// Puts a new file holding the header at the place.
    pub fn create(place: &mut Place) -> io::Result<TimeSeries> {
        let file = place.install(|file| writeln!(file, "{HEADER}"))?;
        Ok(TimeSeries {
            out: BufWriter::new(file),
            path: place.path().to_path_buf(),
            timespan: 0,
            epoch_s: 0.0,
            paths: Vec::new(),
            seen: Vec::new(),
        })
    }

    fn line(
        &mut self,
        row: &Row,
        target: &str,
        path: &str,
        points: &[(&str, Point)],
    ) -> io::Result<()> {
        for &(name, p) in points {
            let us = |ns: u64| ns as f64 / 1e3;
            let Point {
                ios,
                bytes,
                ios_per_s,
                bytes_per_s,
                min_ns,
                mean_ns,
                p50_ns,
                p99_ns,
                p999_ns,
                max_ns,
            } = p;
            writeln!(
                self.out,
                "{},{:.3},{:.3},{:.3},{target},{},{name},{ios},{bytes},{:.2},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3}",
                self.timespan + 1,
                self.epoch_s + row.start_ms / 1e3,
                row.start_ms,
                row.length_ms,
                quote(path),
                ios_per_s,
                bytes_per_s / 1_048_576.0,
                us(min_ns),
                mean_ns / 1e3,
                us(p50_ns),
                us(p99_ns),
                us(p999_ns),
                us(max_ns),
            )?;
        }
        Ok(())
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

impl Sink for TimeSeries {
    fn begin(
        &mut self,
        timespan: usize,
        window_start: SystemTime,
        targets: &[String],
    ) -> io::Result<()> {
        self.timespan = timespan;
        self.epoch_s = window_start
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        self.paths = targets.to_vec();
        self.seen = vec![[false; 2]; targets.len() + 1];
        Ok(())
    }

    fn interval(&mut self, row: &Row, targets: &[TargetOps]) -> io::Result<()> {
        let paths = std::mem::take(&mut self.paths);
        let length_ns = (row.length_ms * 1e6).round() as u64;
        let mut all: [Option<IntervalOps>; 2] = Default::default();
        let written = (|| {
            for (i, d) in row.targets.iter().enumerate() {
                let path = paths.get(i).map_or("", String::as_str);
                let mut points = vec![("read", d.read), ("write", d.write), ("total", d.total)];
                for (k, kind) in RARE.into_iter().enumerate() {
                    let ops = targets
                        .get(i)
                        .and_then(|t| t.get(kind))
                        .filter(|o| o.ios > 0);
                    if let Some(ops) = ops {
                        all[k].get_or_insert_with(IntervalOps::default).merge(ops);
                    }
                    if let Some(seen) = self.seen.get_mut(i) {
                        seen[k] |= ops.is_some();
                        if seen[k] {
                            let point = ops.map_or(Point::default(), |o| Point::of(o, length_ns));
                            points.push((kind.name(), point));
                        }
                    }
                }
                self.line(row, &i.to_string(), path, &points)?;
            }
            if row.targets.len() > 1 {
                let d = &row.all;
                let mut points = vec![("read", d.read), ("write", d.write), ("total", d.total)];
                if let Some(seen) = self.seen.last_mut() {
                    for (k, kind) in RARE.into_iter().enumerate() {
                        seen[k] |= all[k].is_some();
                        if seen[k] {
                            let point = all[k]
                                .as_ref()
                                .map_or(Point::default(), |o| Point::of(o, length_ns));
                            points.push((kind.name(), point));
                        }
                    }
                }
                self.line(row, "all", "", &points)?;
            }
            self.out.flush()
        })();
        self.paths = paths;
        written
    }

    fn devices(&mut self, row: &Row, devices: &[DeviceSlice]) -> io::Result<()> {
        let seconds = row.length_ms / 1e3;
        for device in devices {
            for (direction, counts) in ["read", "write"].into_iter().zip(&device.times) {
                let s = counts.summary();
                let us = |pick: fn(&ClockSummary) -> f64| s.as_ref().map_or(0.0, pick) / 1e3;
                let requests = s.as_ref().map_or(0, |s| s.requests);
                writeln!(
                    self.out,
                    "{},{:.3},{:.3},{:.3},device,{},{direction},{requests},,{:.2},,{:.3},{:.3},{:.3},{:.3},{:.3},{:.3}",
                    self.timespan + 1,
                    self.epoch_s + row.start_ms / 1e3,
                    row.start_ms,
                    row.length_ms,
                    quote(&device.name),
                    if seconds > 0.0 {
                        requests as f64 / seconds
                    } else {
                        0.0
                    },
                    us(|s| s.min_ns),
                    us(|s| s.mean_ns),
                    us(|s| s.p50_ns),
                    us(|s| s.p99_ns),
                    us(|s| s.p99_9_ns),
                    us(|s| s.max_ns),
                )?;
            }
        }
        self.out.flush()
    }

    fn describe(&self) -> String {
        format!("--timeseries '{}'", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::devclock::{BUCKETS, ClockCounts, bounds};

    #[test]
    fn rows_per_target_and_direction_flushed_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ts.csv");
        let mut sink = TimeSeries::create(&mut Place::locate(&path).unwrap()).unwrap();
        let start = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        sink.begin(0, start, &["a.dat".into(), "b,c.dat".into()])
            .unwrap();
        let mut ops = vec![TargetOps::default(), TargetOps::default()];
        ops[0].read.record(4096, 100_000);
        ops[1].write.record(1 << 20, 2_000_000);
        let row = Row::new(1_000_000_000, 1_000_000_000, &ops);
        sink.interval(&row, &ops).unwrap();
        // Flushed without closing the file.
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], HEADER);
        assert_eq!(lines.len(), 1 + 3 * 3);
        assert_eq!(
            lines[1],
            "1,1700000001.000,1000.000,1000.000,0,a.dat,read,1,4096,1.00,0.004,100.000,100.000,100.000,100.000,100.000,100.000"
        );
        assert!(lines[5].starts_with(
            "1,1700000001.000,1000.000,1000.000,1,\"b,c.dat\",write,1,1048576,1.00,1.000,"
        ));
        assert!(lines[9].starts_with("1,1700000001.000,1000.000,1000.000,all,,total,2,"));
        // A trim on target 1: from then on it (and all) has trim rows, zeros when there is none.
        ops[1].slot(Kind::Trim).record(1 << 20, 40_000);
        sink.interval(&Row::new(2_000_000_000, 1_000_000_000, &ops), &ops)
            .unwrap();
        ops[1].clear();
        sink.interval(&Row::new(3_000_000_000, 1_000_000_000, &ops), &ops)
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 3 * 3 + 2 * (3 * 3 + 2));
        let second = &lines[10..21];
        assert_eq!(second.iter().filter(|l| l.contains(",trim,")).count(), 2);
        assert!(
            second[6].starts_with(
                "1,1700000002.000,2000.000,1000.000,1,\"b,c.dat\",trim,1,1048576,1.00,1.000,40.000,"
            ),
            "{}",
            second[6]
        );
        assert!(second[10].starts_with("1,1700000002.000,2000.000,1000.000,all,,trim,1,"));
        assert!(
            lines[27]
                .starts_with("1,1700000003.000,3000.000,1000.000,1,\"b,c.dat\",trim,0,0,0.00,"),
            "{}",
            lines[27]
        );
        assert!(!text.contains(",flush,"));
    }

    #[test]
    fn each_device_has_a_row_per_direction_with_its_requests_times() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ts.csv");
        let mut sink = TimeSeries::create(&mut Place::locate(&path).unwrap()).unwrap();
        sink.begin(1, UNIX_EPOCH, &["/dev/loop7".into()]).unwrap();
        let ops = vec![TargetOps::default()];
        let row = Row::new(0, 500_000_000, &ops);
        sink.interval(&row, &ops).unwrap();
        // 100 requests of 10 µs read (the longest is 10 µs, in their one bucket), none written.
        let bucket = (0..BUCKETS).find(|&b| bounds(b).0 <= 10_000 && 10_000 <= bounds(b).1);
        let mut read = ClockCounts {
            device: vec![(bucket.unwrap(), 100)],
            device_ns: 1_000_000,
            ..ClockCounts::default()
        };
        read.longest_ns = 10_000;
        let device = DeviceSlice {
            name: "loop7".into(),
            times: [read, ClockCounts::default()],
        };
        sink.devices(&row, &[device]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 3 + 2);
        assert_eq!(
            lines[4],
            "2,0.000,0.000,500.000,device,loop7,read,100,,200.00,,10.000,10.000,10.000,10.000,10.000,10.000"
        );
        assert_eq!(
            lines[5],
            "2,0.000,0.000,500.000,device,loop7,write,0,,0.00,,0.000,0.000,0.000,0.000,0.000,0.000"
        );
    }
}
