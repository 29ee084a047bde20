//! The time series: per interval of the measured window, what each target did in each direction,
//! summed over every thread. Computed once here from the merged interval histograms; the CSV, the
//! reports and the progress line only format these numbers.

use serde::{Deserialize, Serialize};

use super::histogram::LatencyHistogram;
use crate::clock::Nanos;

/// One direction's I/O in one interval (or a slice of it from one thread): counts and the exact
/// latency histogram, so slices from many threads merge exactly.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntervalOps {
    /// Completions.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Their latencies.
    pub latency: LatencyHistogram,
}

impl IntervalOps {
    /// Records one completion.
    #[inline]
    pub fn record(&mut self, bytes: u64, latency: Nanos) {
        self.ios += 1;
        self.bytes += bytes;
        self.latency.record(latency);
    }

    /// Adds another slice of the same interval.
    pub fn merge(&mut self, other: &IntervalOps) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.latency.merge(&other.latency);
    }

    /// Empties it for reuse, keeping its memory.
    pub fn clear(&mut self) {
        self.ios = 0;
        self.bytes = 0;
        self.latency.clear();
    }
}

/// The kinds of I/O [`TargetOps`] keeps apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Reads.
    Read,
    /// Writes.
    Write,
    /// Trims (discards).
    Trim,
    /// Flushes (`fsync`, `fdatasync`).
    Flush,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 4] = [Kind::Read, Kind::Write, Kind::Trim, Kind::Flush];

    /// Its name, as the reports and the metrics' `direction` label say it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Trim => "trim",
            Kind::Flush => "flush",
        }
    }
}

/// One target's I/O in one interval (or a thread's slice of it), per kind. Reads and writes are
/// always there; the histograms of trims and flushes are made at the first one, so a run without
/// them carries none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TargetOps {
    /// Reads.
    pub read: IntervalOps,
    /// Writes.
    pub write: IntervalOps,
    /// Trims, once there was one.
    pub trim: Option<Box<IntervalOps>>,
    /// Flushes, once there was one.
    pub flush: Option<Box<IntervalOps>>,
}

impl TargetOps {
    /// Reads and writes, nothing else.
    pub fn of(read: IntervalOps, write: IntervalOps) -> TargetOps {
        TargetOps {
            read,
            write,
            ..TargetOps::default()
        }
    }

    /// The slot of `kind`, made when it is the first.
    #[inline]
    pub fn slot(&mut self, kind: Kind) -> &mut IntervalOps {
        match kind {
            Kind::Read => &mut self.read,
            Kind::Write => &mut self.write,
            Kind::Trim => self.trim.get_or_insert_with(Box::default),
            Kind::Flush => self.flush.get_or_insert_with(Box::default),
        }
    }

    /// The I/O of `kind`, if there is a slot for it.
    pub fn get(&self, kind: Kind) -> Option<&IntervalOps> {
        match kind {
            Kind::Read => Some(&self.read),
            Kind::Write => Some(&self.write),
            Kind::Trim => self.trim.as_deref(),
            Kind::Flush => self.flush.as_deref(),
        }
    }

    /// Every kind that has a slot, with its I/O.
    pub fn kinds(&self) -> impl Iterator<Item = (Kind, &IntervalOps)> {
        Kind::ALL
            .into_iter()
            .filter_map(|kind| Some((kind, self.get(kind)?)))
    }

    /// Adds another slice of the same interval.
    pub fn merge(&mut self, other: &TargetOps) {
        for (kind, theirs) in other.kinds() {
            if kind == Kind::Read || kind == Kind::Write || theirs.ios > 0 {
                self.slot(kind).merge(theirs);
            }
        }
    }

    /// Empties it for reuse, keeping its memory.
    pub fn clear(&mut self) {
        self.read.clear();
        self.write.clear();
        for rare in [&mut self.trim, &mut self.flush].into_iter().flatten() {
            rare.clear();
        }
    }
}

/// The numbers of one direction in one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Completions.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// I/Os per second over the interval.
    pub ios_per_s: f64,
    /// Bytes per second over the interval.
    pub bytes_per_s: f64,
    /// Latency (0 when there was no I/O).
    pub min_ns: u64,
    /// Exact mean latency.
    pub mean_ns: f64,
    /// Median latency.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest latency.
    pub max_ns: u64,
}

impl Point {
    /// The numbers of `ops` over an interval of `length_ns`.
    pub fn of(ops: &IntervalOps, length_ns: Nanos) -> Point {
        let seconds = length_ns as f64 / 1e9;
        let rate = |n: u64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        let p = ops.latency.percentiles(&[0.5, 0.99, 0.999]);
        Point {
            ios: ops.ios,
            bytes: ops.bytes,
            ios_per_s: rate(ops.ios),
            bytes_per_s: rate(ops.bytes),
            min_ns: ops.latency.min(),
            mean_ns: ops.latency.mean(),
            p50_ns: p[0],
            p99_ns: p[1],
            p999_ns: p[2],
            max_ns: ops.latency.max(),
        }
    }
}

impl Point {
    /// Its ten numbers as words (floats by their bits), for a compact exact copy.
    pub fn to_words(&self) -> [u64; 10] {
        [
            self.ios,
            self.bytes,
            self.ios_per_s.to_bits(),
            self.bytes_per_s.to_bits(),
            self.min_ns,
            self.mean_ns.to_bits(),
            self.p50_ns,
            self.p99_ns,
            self.p999_ns,
            self.max_ns,
        ]
    }

    /// The point [`Point::to_words`] gave.
    pub fn from_words(w: [u64; 10]) -> Point {
        Point {
            ios: w[0],
            bytes: w[1],
            ios_per_s: f64::from_bits(w[2]),
            bytes_per_s: f64::from_bits(w[3]),
            min_ns: w[4],
            mean_ns: f64::from_bits(w[5]),
            p50_ns: w[6],
            p99_ns: w[7],
            p999_ns: w[8],
            max_ns: w[9],
        }
    }
}

impl Point {
    /// Adds the same interval of another run: counts and rates add; minimum, mean and maximum stay
    /// exact; the percentiles become the larger of the two (an upper bound, since a row keeps no
    /// histogram to merge).
    fn add(&mut self, other: &Point) {
        if other.ios == 0 {
            self.bytes = self.bytes.saturating_add(other.bytes);
            self.bytes_per_s += other.bytes_per_s;
            return;
        }
        let ios = self.ios.saturating_add(other.ios);
        self.mean_ns =
            (self.mean_ns * self.ios as f64 + other.mean_ns * other.ios as f64) / ios as f64;
        self.min_ns = if self.ios == 0 {
            other.min_ns
        } else {
            self.min_ns.min(other.min_ns)
        };
        self.ios = ios;
        self.bytes = self.bytes.saturating_add(other.bytes);
        self.ios_per_s += other.ios_per_s;
        self.bytes_per_s += other.bytes_per_s;
        self.p50_ns = self.p50_ns.max(other.p50_ns);
        self.p99_ns = self.p99_ns.max(other.p99_ns);
        self.p999_ns = self.p999_ns.max(other.p999_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }
}

/// Read, write and both together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Directions {
    /// Reads.
    pub read: Point,
    /// Writes.
    pub write: Point,
    /// Reads and writes together.
    pub total: Point,
}

impl Directions {
    /// The three points of one target (or of all targets merged) from its read and write slices.
    pub fn of(read: &IntervalOps, write: &IntervalOps, length_ns: Nanos) -> Directions {
        let mut total = read.clone();
        total.merge(write);
        Directions {
            read: Point::of(read, length_ns),
            write: Point::of(write, length_ns),
            total: Point::of(&total, length_ns),
        }
    }
}

/// One interval of the time series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Start of the interval from the start of the measured window, in ms.
    pub start_ms: f64,
    /// Its length in ms (the last one may be cut short by the end of the window).
    pub length_ms: f64,
    /// Every target, in timespan order.
    pub targets: Vec<Directions>,
    /// All targets together.
    pub all: Directions,
}

impl Directions {
    fn add(&mut self, other: &Directions) {
        self.read.add(&other.read);
        self.write.add(&other.write);
        self.total.add(&other.total);
    }
}

/// SNIA's steady-state test over the IOPS of the last five whole intervals of `rows` (an interval
/// the end of the window cut short is left out).
pub fn steady_state(rows: &[Row]) -> Option<crate::stats::confidence::SteadyState> {
    let nominal = rows.first()?.length_ms;
    let iops: Vec<f64> = rows
        .iter()
        .filter(|r| r.length_ms >= nominal * 0.999)
        .map(|r| r.all.total.ios_per_s)
        .collect();
    crate::stats::confidence::steady_state(&iops)
}

impl Row {
    /// Its numbers as words (floats by their bits): start, length, target count, then read, write
    /// and total of every target and of all.
    pub fn to_words(&self) -> Vec<u64> {
        let mut words = vec![
            self.start_ms.to_bits(),
            self.length_ms.to_bits(),
            self.targets.len() as u64,
        ];
        for directions in self.targets.iter().chain([&self.all]) {
            for point in [&directions.read, &directions.write, &directions.total] {
                words.extend(point.to_words());
            }
        }
        words
    }

    /// The row [`Row::to_words`] gave, from the front of `words`; `None` when they end early.
    pub fn from_words(words: &mut impl Iterator<Item = u64>) -> Option<Row> {
        let start_ms = f64::from_bits(words.next()?);
        let length_ms = f64::from_bits(words.next()?);
        let targets = usize::try_from(words.next()?).ok()?;
        let mut point = || -> Option<Point> {
            let mut w = [0u64; 10];
            for slot in &mut w {
                *slot = words.next()?;
            }
            Some(Point::from_words(w))
        };
        let mut all = Vec::with_capacity(targets.min(1 << 16) + 1);
        for _ in 0..=targets {
            all.push(Directions {
                read: point()?,
                write: point()?,
                total: point()?,
            });
        }
        let last = all.pop()?;
        Some(Row {
            start_ms,
            length_ms,
            targets: all,
            all: last,
        })
    }

    /// Rows of runs that ran at the same time, in time order, with the rows of one interval
    /// (the same start) added together (see [`Point`]'s merge).
    pub fn merge_coinciding(rows: Vec<Row>) -> Vec<Row> {
        let mut merged: Vec<Row> = Vec::with_capacity(rows.len());
        for row in rows {
            match merged.last_mut() {
                Some(last) if last.start_ms == row.start_ms => {
                    for (i, target) in row.targets.iter().enumerate() {
                        match last.targets.get_mut(i) {
                            Some(mine) => mine.add(target),
                            None => last.targets.push(*target),
                        }
                    }
                    last.all.add(&row.all);
                    last.length_ms = last.length_ms.max(row.length_ms);
                }
                _ => merged.push(row),
            }
        }
        merged
    }

    /// The row of interval `start_ns..start_ns + length_ns` from each target's read and write.
    pub fn new(start_ns: Nanos, length_ns: Nanos, targets: &[TargetOps]) -> Row {
        let mut read = IntervalOps::default();
        let mut write = IntervalOps::default();
        for t in targets {
            read.merge(&t.read);
            write.merge(&t.write);
        }
        Row {
            start_ms: start_ns as f64 / 1e6,
            length_ms: length_ns as f64 / 1e6,
            targets: targets
                .iter()
                .map(|t| Directions::of(&t.read, &t.write, length_ns))
                .collect(),
            all: Directions::of(&read, &write, length_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_one_interval_from_concurrent_runs_add_up() {
        let ops = |latencies: &[u64]| {
            let mut ops = IntervalOps::default();
            for &ns in latencies {
                ops.record(4096, ns);
            }
            ops
        };
        let row = |start_ns, read: &[u64]| {
            Row::new(
                start_ns,
                1_000_000_000,
                &[TargetOps::of(ops(read), IntervalOps::default())],
            )
        };
        let rows = vec![
            row(0, &[100, 200]),
            row(0, &[50, 1000, 3000]),
            row(1_000_000_000, &[10]),
        ];
        let merged = Row::merge_coinciding(rows);
        assert_eq!(merged.len(), 2);
        let read = merged[0].targets[0].read;
        assert_eq!((read.ios, read.bytes, read.ios_per_s), (5, 5 * 4096, 5.0));
        assert_eq!((read.min_ns, read.max_ns), (50, 3000));
        assert!((read.mean_ns - 4350.0 / 5.0).abs() < 1e-9);
        // An upper bound: the larger of the two runs' medians.
        assert!(read.p50_ns >= 1000 * 999 / 1000);
        assert_eq!(merged[0].all.total.ios, 5);
        assert_eq!(merged[1].targets[0].read.ios, 1);
    }

    #[test]
    fn steady_state_uses_the_last_five_whole_intervals() {
        let row = |i: u64, ios: u64, length_ns: u64| {
            let mut ops = IntervalOps::default();
            for _ in 0..ios {
                ops.record(4096, 1000);
            }
            Row::new(
                i * 1_000_000_000,
                length_ns,
                &[TargetOps::of(ops, IntervalOps::default())],
            )
        };
        // A ramp, then five flat intervals, then a cut-short one with few I/Os: steady.
        let mut rows: Vec<Row> = [10, 50, 100, 100, 101, 99, 100, 100]
            .iter()
            .enumerate()
            .map(|(i, &n)| row(i as u64, n, 1_000_000_000))
            .collect();
        rows.push(row(8, 3, 100_000_000));
        let s = steady_state(&rows).unwrap();
        assert!(s.reached, "{s:?}");
        assert!((s.average - 100.0).abs() < 1e-9);
        // The ramp within the last five: not steady.
        let s = steady_state(&rows[..5]).unwrap();
        assert!(!s.reached && s.range_share > 0.2, "{s:?}");
        assert_eq!(steady_state(&rows[..4]), None);
    }

    #[test]
    fn a_row_merges_targets_and_directions_exactly() {
        let mut a = TargetOps::default();
        let mut b = TargetOps::default();
        for ns in 1..=1000 {
            a.read.record(4096, ns * 1000);
        }
        b.write.record(8192, 5_000_000);
        let row = Row::new(2_000_000_000, 500_000_000, &[a, b]);
        assert_eq!(row.start_ms, 2000.0);
        assert_eq!(row.targets[0].read.ios, 1000);
        assert_eq!(row.targets[0].read.ios_per_s, 2000.0);
        // Percentiles are within the histogram's 0.1 %.
        let near = |value: u64, exact: u64| value.abs_diff(exact) * 1000 <= exact;
        assert!(near(row.targets[0].read.p50_ns, 500_000));
        assert_eq!(row.targets[1].write.bytes_per_s, 16384.0);
        assert_eq!(row.all.total.ios, 1001);
        assert_eq!(row.all.total.max_ns, 5_000_000);
        assert!(near(row.all.read.p999_ns, 999_000));
        assert_eq!(row.all.write.min_ns, 5_000_000);
    }

    #[test]
    fn trims_and_flushes_get_a_slot_at_their_first_and_merge_apart() {
        let mut a = TargetOps::default();
        assert_eq!(a.kinds().count(), 2, "no trim or flush slot before one");
        a.slot(Kind::Trim).record(1 << 20, 7_000);
        let mut b = TargetOps::default();
        b.slot(Kind::Flush).record(0, 90_000);
        b.slot(Kind::Flush).record(0, 110_000);
        // An empty slot of the other adds nothing and makes nothing.
        let mut c = TargetOps::default();
        c.slot(Kind::Trim);
        let mut sum = TargetOps::default();
        for t in [&a, &b, &c] {
            sum.merge(t);
        }
        let ios = |kind| sum.get(kind).map(|o| o.ios);
        assert_eq!(ios(Kind::Trim), Some(1));
        assert_eq!(ios(Kind::Flush), Some(2));
        assert_eq!((ios(Kind::Read), ios(Kind::Write)), (Some(0), Some(0)));
        assert_eq!(sum.get(Kind::Flush).unwrap().latency.max(), 110_000);
        // Cleared, the slots stay for the next interval, empty.
        sum.clear();
        assert_eq!(sum.kinds().map(|(_, o)| o.ios).sum::<u64>(), 0);
        assert_eq!(sum.kinds().count(), 4);
        let mut none = TargetOps::default();
        none.merge(&c);
        assert!(none.trim.is_none());
    }
}
