//! Measurements while the run goes: each worker thread hands the collector one slice per interval
//! of the measured window (counts and an exact latency histogram per target and direction); the
//! collector, on the main thread, merges the slices of every thread for the same interval and hands
//! each finished interval to its sinks (the time-series CSV, the HdrHistogram log, the progress
//! line, the rows kept for the report) in time order.
//!
//! Intervals are numbered from the start of the measured window on the clock every thread shares,
//! so the slices of one interval describe the same time in every thread. A thread ships a slice
//! when its first completion batch of a later interval arrives, or when the wait it sleeps in times
//! out at the interval's end; a slice shipped means that thread has nothing more for that interval.
//! Slices travel through a bounded channel and come back emptied, so memory stays constant however
//! long the run lasts.

pub mod histlog;
pub mod metrics;
pub mod progress;
pub mod rows;
pub mod timeseries;

use std::collections::BTreeMap;
use std::io;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::time::SystemTime;

use crate::clock::Nanos;
use crate::engine::Op;
use crate::stats::intervals::Interval;
use crate::stats::timeline::{IntervalOps, Kind, Row, TargetOps};
use crate::stats::{OpStats, TargetStats};
use crate::system::devclock::ClockCounts;

/// Slices in flight per thread before a thread waits for the collector.
const IN_FLIGHT: usize = 8;
/// Slices a thread holds in a run the collector keeps up with: its current one, two spares and
/// one in flight (a collector that falls behind lets up to `IN_FLIGHT` per thread accumulate).
pub const SLICES_PER_THREAD: usize = 4;

/// One thread's I/O in one interval.
#[derive(Debug)]
pub struct Slice {
    /// Index of the thread in the timespan's plan.
    pub thread: usize,
    /// Interval number from the start of the measured window.
    pub index: u64,
    /// The interval the thread moved on to: it has nothing more before it.
    pub next: u64,
    /// The thread's last slice: it has finished.
    pub last: bool,
    /// Per target the thread serves (in the thread's order): its I/O by kind.
    pub ops: Vec<TargetOps>,
}

impl Slice {
    fn new(thread: usize, targets: usize) -> Box<Slice> {
        Box::new(Slice {
            thread,
            index: 0,
            next: 0,
            last: false,
            ops: (0..targets).map(|_| Default::default()).collect(),
        })
    }
}

/// A worker thread's end: where it records, and how it ships finished intervals.
pub struct Feed {
    interval_ns: Nanos,
    current: Box<Slice>,
    to_collector: SyncSender<Box<Slice>>,
    spares: Receiver<Box<Slice>>,
}

impl Feed {
    /// Length of an interval.
    pub fn interval_ns(&self) -> Nanos {
        self.interval_ns
    }

    /// The interval now being recorded.
    #[inline]
    pub fn index(&self) -> u64 {
        self.current.index
    }

    /// Records one completion of the thread's target `t` in the current interval.
    #[inline]
    pub fn record(&mut self, t: usize, op: Op, bytes: u64, latency: Nanos) {
        let ops = &mut self.current.ops[t];
        match op {
            Op::Read => ops.read.record(bytes, latency),
            Op::Write => ops.write.record(bytes, latency),
            Op::Trim => ops.slot(Kind::Trim).record(bytes, latency),
            Op::Fsync | Op::Fdatasync => ops.slot(Kind::Flush).record(bytes, latency),
        }
    }

    /// Moves on to interval `index`, shipping the current one when `index` is later.
    #[inline]
    pub fn advance(&mut self, index: u64) {
        if index > self.current.index {
            self.ship(index, false);
        }
    }

    /// Ships the last slice: the thread is done.
    pub fn finish(mut self) {
        let next = self.current.index + 1;
        self.ship(next, true);
    }

    #[cold]
    fn ship(&mut self, next: u64, last: bool) {
        let mut fresh = self
            .spares
            .try_recv()
            .unwrap_or_else(|_| Slice::new(self.current.thread, self.current.ops.len()));
        fresh.index = next;
        fresh.last = false;
        let mut done = std::mem::replace(&mut self.current, fresh);
        done.next = next;
        done.last = last;
        // Blocks only when the collector is IN_FLIGHT intervals behind; a collector that is gone
        // (the run is over) needs nothing more.
        let _ = self.to_collector.send(done);
    }
}

/// One device's requests in one interval, from the device clock (read, write).
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceSlice {
    /// The device's kernel name (`vda`, `loop3`).
    pub name: String,
    /// Its requests of the interval: read, write.
    pub times: [ClockCounts; 2],
}

/// Receives finished intervals in time order.
pub trait Sink {
    /// A timespan's measured window begins at `window_start` (wall clock), on these targets.
    fn begin(
        &mut self,
        timespan: usize,
        window_start: SystemTime,
        targets: &[String],
    ) -> io::Result<()>;
    /// One interval of the measured window, every thread merged: `targets[i]` is timespan target
    /// `i`'s I/O by kind (the row has its reads and writes).
    fn interval(&mut self, row: &Row, targets: &[TargetOps]) -> io::Result<()>;
    /// With the device clock, right after [`Sink::interval`]: the same interval's requests on
    /// each device under the targets.
    fn devices(&mut self, _row: &Row, _devices: &[DeviceSlice]) -> io::Result<()> {
        Ok(())
    }
    /// The output in words, for the message when it fails ("--timeseries 'x.csv'").
    fn describe(&self) -> String;
}

/// Adds one interval's slice to a running total, and to its `-D` bucket.
fn add(total: &mut OpStats, ops: &IntervalOps, index: u64) {
    if ops.ios == 0 {
        return;
    }
    total.ios += ops.ios;
    total.bytes += ops.bytes;
    total.latency.merge(&ops.latency);
    if let Some(bucket) = total.intervals.get_mut(index as usize) {
        bucket.merge(&Interval {
            count: ops.latency.count(),
            min_ns: ops.latency.min(),
            max_ns: ops.latency.max(),
            sum_ns: ops.latency.sum() as u64,
            sum_sq: ops.latency.sum_of_squares(),
        });
    }
}

/// A streaming output file that could not be started.
#[derive(Debug, thiserror::Error)]
#[error("{option}: cannot create '{path}': {source}")]
pub struct SinkError {
    /// The option that asked for it.
    pub option: &'static str,
    /// The file.
    pub path: std::path::PathBuf,
    /// Why.
    pub source: io::Error,
}

/// Starts the files the run writes while it goes, at the places the safety gate checked.
pub fn open_sinks(
    timeseries: Option<&mut crate::safety::Place>,
    histlog: Option<&mut crate::safety::Place>,
) -> Result<Vec<Box<dyn Sink>>, SinkError> {
    let failed = |option, place: &crate::safety::Place| {
        let path = place.path().to_path_buf();
        move |source| SinkError {
            option,
            path,
            source,
        }
    };
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    if let Some(place) = timeseries {
        let failed = failed("--timeseries", place);
        sinks.push(Box::new(
            timeseries::TimeSeries::create(place).map_err(failed)?,
        ));
    }
    if let Some(place) = histlog {
        let failed = failed("--histlog", place);
        sinks.push(Box::new(histlog::HistLog::create(place).map_err(failed)?));
    }
    Ok(sinks)
}

/// Merges the threads' slices and feeds the sinks.
pub struct Collector<'s> {
    interval_ns: Nanos,
    /// For each thread, the timespan target of each of its targets.
    thread_targets: Vec<Vec<usize>>,
    from_threads: Receiver<Box<Slice>>,
    spares: Vec<Sender<Box<Slice>>>,
    /// Per thread: the first interval it may still ship (0 before its first), `u64::MAX` once done.
    shipped: Vec<u64>,
    /// The first interval no thread has moved past (a done thread's last one included): while the
    /// window's end is unknown (a run bounded by its work), no row is made from there on.
    horizon: u64,
    pending: BTreeMap<u64, Vec<TargetOps>>,
    recycled: Vec<Vec<TargetOps>>,
    targets: usize,
    /// The first interval not yet handed to the sinks.
    next: u64,
    /// Where the measured window ended, once known (a stop can cut it short).
    window_ns: Option<Nanos>,
    sinks: &'s mut [Box<dyn Sink>],
    /// `--steady-state`: the rule judged on each interval.
    steady: Option<crate::stats::steady::SteadyWatch>,
    /// Per sink: why and after how many intervals it stopped.
    failed: Vec<Option<(u64, io::Error)>>,
    /// Rows kept for the report (with `-D`), in bounded memory.
    kept: Option<rows::RowStore>,
    /// The latest row, for the progress line.
    latest: Option<Row>,
    /// Per thread, per target it serves: everything measured so far (for checkpoints).
    totals: Option<Vec<Vec<TargetStats>>>,
    /// The device clock's devices, when it runs.
    devices: Vec<String>,
    /// The clock's counts at interval boundaries (`i`: the start of interval `i`), until the
    /// interval that ends there is handed on; and at the window's end.
    marks: BTreeMap<u64, Vec<[ClockCounts; 2]>>,
    end_mark: Option<Vec<[ClockCounts; 2]>>,
    /// Every thread has finished: what is left is handed on, counts of the clock or not.
    finishing: bool,
}

/// Creates the collector and one feed per thread. `thread_targets[t]` lists, for thread `t`, the
/// timespan target of each target it serves, in its order.
pub fn channels<'s>(
    interval_ns: Nanos,
    thread_targets: Vec<Vec<usize>>,
    targets: usize,
    keep_rows: bool,
    sinks: &'s mut [Box<dyn Sink>],
) -> (Collector<'s>, Vec<Feed>) {
    let (to_collector, from_threads) = sync_channel(IN_FLIGHT * thread_targets.len().max(1));
    let mut spares = Vec::with_capacity(thread_targets.len());
    let feeds = thread_targets
        .iter()
        .enumerate()
        .map(|(thread, served)| {
            let (give, take) = channel();
            for _ in 0..2 {
                let _ = give.send(Slice::new(thread, served.len()));
            }
            spares.push(give);
            Feed {
                interval_ns,
                current: Slice::new(thread, served.len()),
                to_collector: to_collector.clone(),
                spares: take,
            }
        })
        .collect();
    let threads = thread_targets.len();
    let collector = Collector {
        interval_ns,
        thread_targets,
        from_threads,
        spares,
        shipped: vec![0; threads],
        horizon: 0,
        pending: BTreeMap::new(),
        recycled: Vec::new(),
        targets,
        next: 0,
        window_ns: None,
        failed: sinks.iter().map(|_| None).collect(),
        sinks,
        steady: None,
        kept: keep_rows.then(rows::RowStore::new),
        latest: None,
        totals: None,
        devices: Vec::new(),
        marks: BTreeMap::new(),
        end_mark: None,
        finishing: false,
    };
    (collector, feeds)
}

/// What the collector leaves behind.
#[derive(Debug, Default)]
pub struct Collected {
    /// The rows kept for the report (empty unless asked for).
    pub rows: Vec<Row>,
    /// Each sink that failed: it stopped there, and the run went on without it.
    pub errors: Vec<String>,
    /// `--steady-state`: what the rule found.
    pub steady: Option<crate::stats::steady::SteadyOutcome>,
}

impl Collector<'_> {
    /// The measured window of timespan `timespan` began at `window_start`: tells the sinks.
    pub fn begin(&mut self, timespan: usize, window_start: SystemTime, targets: &[String]) {
        self.marks.clear();
        self.end_mark = None;
        for (sink, failed) in self.sinks.iter_mut().zip(&mut self.failed) {
            if failed.is_none()
                && let Err(error) = sink.begin(timespan, window_start, targets)
            {
                *failed = Some((self.next, error));
            }
        }
    }

    /// Judges `rule` on the intervals of a timespan whose window starts after `warmup_s`.
    pub fn watch_steady(&mut self, rule: crate::profile::steady::SteadyRule, warmup_s: u32) {
        self.steady = Some(crate::stats::steady::SteadyWatch::new(rule, warmup_s));
    }

    /// The `--steady-state` rule was met.
    pub fn steady_attained(&self) -> bool {
        self.steady.as_ref().is_some_and(|s| s.attained())
    }

    /// Length of an interval.
    pub fn interval_ns(&self) -> Nanos {
        self.interval_ns
    }

    /// The device clock runs on `devices` (kernel names, in the clock's order): each interval
    /// handed on gets their requests too, from the counts marked at its edges.
    pub fn time_devices(&mut self, devices: Vec<String>) {
        self.devices = devices;
    }

    /// The clock's counts at the start of interval `index` (the end of the one before).
    pub fn clock_mark(&mut self, index: u64, counts: Vec<[ClockCounts; 2]>) {
        if index >= self.next {
            self.marks.insert(index, counts);
        }
    }

    /// The clock's counts at the end of the measured window (the end of its last interval).
    pub fn clock_end(&mut self, counts: Vec<[ClockCounts; 2]>) {
        self.end_mark = Some(counts);
    }

    /// The latest finished interval.
    pub fn latest(&self) -> Option<&Row> {
        self.latest.as_ref()
    }

    /// The rows kept so far (with `keep_rows`), read back from disk where they spilled.
    pub fn rows(&self) -> Vec<Row> {
        self.kept.as_ref().map(|k| k.all().0).unwrap_or_default()
    }

    /// Also keeps each thread's running totals, with `intervals` `-D` buckets, for
    /// [`Collector::totals`].
    pub fn keep_totals(&mut self, intervals: usize) {
        self.totals = Some(
            self.thread_targets
                .iter()
                .map(|served| {
                    served
                        .iter()
                        .map(|&t| TargetStats::new(t, intervals))
                        .collect()
                })
                .collect(),
        );
    }

    /// Everything each thread shipped so far, per target it serves.
    pub fn totals(&self) -> Option<&[Vec<TargetStats>]> {
        self.totals.as_deref()
    }

    /// Takes every slice that has arrived and hands each interval that every thread has finished
    /// to the sinks. Returns how many intervals were handed on.
    pub fn poll(&mut self) -> usize {
        while let Ok(slice) = self.from_threads.try_recv() {
            self.take(slice);
        }
        self.emit()
    }

    /// The measured window ended after `window_ns` (the nominal duration, or earlier on a stop):
    /// intervals past it are dropped and the last one is cut to it.
    pub fn end_window(&mut self, window_ns: Nanos) {
        self.window_ns = Some(window_ns);
    }

    /// After every thread has finished: hands on what is left, and returns the kept rows and how
    /// each failed sink failed.
    pub fn finish(mut self) -> Collected {
        self.finishing = true;
        while let Ok(slice) = self.from_threads.recv() {
            self.take(slice);
            if self.shipped.iter().all(|&s| s == u64::MAX) {
                break;
            }
        }
        self.shipped.fill(u64::MAX);
        self.emit();
        let (rows, unread) = self.kept.take().map(|k| k.all()).unwrap_or_default();
        let mut errors: Vec<String> = self
            .sinks
            .iter()
            .zip(&self.failed)
            .filter_map(|(sink, failed)| {
                let (written, error) = failed.as_ref()?;
                Some(format!(
                    "{} stopped after {written} interval{} of this timespan: {error}; the file holds what was written before",
                    sink.describe(),
                    if *written == 1 { "" } else { "s" }
                ))
            })
            .collect();
        if let Some(error) = unread {
            errors.push(format!(
                "-D: the earlier intervals kept on disk could not be read back ({error}); the report's time series holds the last {} only",
                rows.len()
            ));
        }
        Collected {
            rows,
            errors,
            steady: self.steady.as_ref().map(|w| w.outcome()),
        }
    }

    fn take(&mut self, mut slice: Box<Slice>) {
        let thread = slice.thread;
        let beyond = self
            .window_ns
            .is_some_and(|w| slice.index * self.interval_ns >= w);
        if !beyond && slice.index >= self.next {
            let targets = self.targets;
            let recycled = &mut self.recycled;
            let row = self.pending.entry(slice.index).or_insert_with(|| {
                recycled
                    .pop()
                    .unwrap_or_else(|| (0..targets).map(|_| Default::default()).collect())
            });
            for (ops, &target) in slice.ops.iter().zip(&self.thread_targets[thread]) {
                row[target].merge(ops);
            }
        }
        if let Some(totals) = &mut self.totals {
            for (stats, ops) in totals[thread].iter_mut().zip(&slice.ops) {
                add(&mut stats.read, &ops.read, slice.index);
                add(&mut stats.write, &ops.write, slice.index);
                let intervals = stats.read.intervals.len();
                for (rare, ops) in [(&mut stats.trim, &ops.trim), (&mut stats.flush, &ops.flush)] {
                    if let Some(ops) = ops.as_deref().filter(|o| o.ios > 0) {
                        let rare = rare.get_or_insert_with(|| Box::new(OpStats::new(intervals)));
                        add(rare, ops, slice.index);
                    }
                }
            }
        }
        self.shipped[thread] = if slice.last { u64::MAX } else { slice.next };
        // A thread's last interval ends where the window does, not yet known: not a row yet.
        self.horizon = self
            .horizon
            .max(if slice.last { slice.index } else { slice.next });
        for ops in &mut slice.ops {
            ops.clear();
        }
        let _ = self.spares[thread].send(slice);
    }

    /// Whether the clock's counts at the end of interval `index` (the window's `last`) are in.
    fn has_end_mark(&self, index: u64, last: bool) -> bool {
        match last {
            true => self.end_mark.is_some(),
            false => self.marks.contains_key(&(index + 1)),
        }
    }

    /// The devices' requests in interval `index` (the window's `last`), from the marks at its
    /// edges, which it then no longer needs; `None` without the clock or a mark.
    fn device_slices(&mut self, index: u64, last: bool) -> Option<Vec<DeviceSlice>> {
        if self.devices.is_empty() {
            return None;
        }
        let start = self.marks.remove(&index)?;
        let end = match last {
            true => self.end_mark.as_ref(),
            false => None,
        }
        .or_else(|| self.marks.get(&(index + 1)))?;
        Some(
            self.devices
                .iter()
                .zip(start.iter().zip(end))
                .map(|(name, (a, b))| DeviceSlice {
                    name: name.clone(),
                    times: [a[0].until(&b[0]), a[1].until(&b[1])],
                })
                .collect(),
        )
    }

    fn emit(&mut self) -> usize {
        // Interval `i` is complete once every thread has moved past it; a thread that is done has
        // moved past every interval, so until the window's end is known, rows go no further than
        // the intervals the threads shipped (a run bounded by its work ends where they did).
        let shipped = self.shipped.iter().copied().min().unwrap_or(0);
        let complete = match self.window_ns {
            Some(_) => shipped,
            None => shipped.min(self.horizon),
        };
        let mut handed = 0;
        while self.next < complete {
            let index = self.next;
            let start = index * self.interval_ns;
            if self.window_ns.is_some_and(|w| start >= w) {
                self.pending.clear();
                self.next = complete;
                break;
            }
            let end = match self.window_ns {
                Some(w) => (start + self.interval_ns).min(w),
                None => start + self.interval_ns,
            };
            let last = self.window_ns == Some(end);
            // With the clock, an interval waits for the clock's counts at its end (the window's
            // last one, for the counts the main thread reads when the window ends).
            if !self.finishing && !self.devices.is_empty() && !self.has_end_mark(index, last) {
                break;
            }
            // An interval no thread completed anything in is still a row, of zeros.
            let mut ops = self
                .pending
                .remove(&index)
                .or_else(|| self.recycled.pop())
                .unwrap_or_else(|| (0..self.targets).map(|_| Default::default()).collect());
            let row = Row::new(start, end - start, &ops);
            for (sink, failed) in self.sinks.iter_mut().zip(&mut self.failed) {
                if failed.is_none()
                    && let Err(error) = sink.interval(&row, &ops)
                {
                    *failed = Some((index, error));
                }
            }
            if let Some(devices) = self.device_slices(index, last) {
                for (sink, failed) in self.sinks.iter_mut().zip(&mut self.failed) {
                    if failed.is_none()
                        && let Err(error) = sink.devices(&row, &devices)
                    {
                        *failed = Some((index, error));
                    }
                }
            }
            if let Some(kept) = &mut self.kept {
                kept.push(row.clone());
            }
            if let Some(watch) = &mut self.steady {
                watch.interval(&row);
            }
            self.latest = Some(row);
            for target in &mut ops {
                target.clear();
            }
            self.recycled.push(ops);
            self.next += 1;
            handed += 1;
            if complete == u64::MAX && self.window_ns.is_none() && self.pending.is_empty() {
                break;
            }
        }
        handed
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;

    /// (start_ms, length_ms, total ios per target) of every row.
    type Kept = Rc<RefCell<Vec<(f64, f64, Vec<u64>)>>>;

    /// Keeps every row.
    struct Keep(Kept);

    impl Sink for Keep {
        fn begin(&mut self, _: usize, _: SystemTime, _: &[String]) -> io::Result<()> {
            Ok(())
        }

        fn interval(&mut self, row: &Row, _: &[TargetOps]) -> io::Result<()> {
            self.0.borrow_mut().push((
                row.start_ms,
                row.length_ms,
                row.targets.iter().map(|d| d.total.ios).collect(),
            ));
            Ok(())
        }

        fn devices(&mut self, row: &Row, devices: &[DeviceSlice]) -> io::Result<()> {
            let requests = devices.iter().map(|d| d.times[0].requests()).collect();
            self.0.borrow_mut().push((row.start_ms, -1.0, requests));
            Ok(())
        }

        fn describe(&self) -> String {
            "the test sink".into()
        }
    }

    #[test]
    fn each_interval_gets_the_device_requests_between_the_clock_marks_at_its_edges() {
        let rows = Rc::new(RefCell::new(Vec::new()));
        let ms = 1_000_000;
        let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(Keep(rows.clone()))];
        let (mut collector, mut feeds) = channels(100 * ms, vec![vec![0]], 1, false, &mut sinks);
        collector.time_devices(vec!["loop0".into()]);
        let reads = |n: u64| {
            vec![[
                ClockCounts {
                    device: vec![(7, n)],
                    ..ClockCounts::default()
                },
                ClockCounts::default(),
            ]]
        };
        collector.clock_mark(0, reads(5));
        collector.clock_mark(1, reads(12));
        feeds[0].advance(1);
        assert_eq!(collector.poll(), 1);
        collector.end_window(150 * ms);
        collector.clock_end(reads(20));
        for feed in feeds {
            feed.finish();
        }
        collector.finish();
        assert_eq!(
            *rows.borrow(),
            vec![
                (0.0, 100.0, vec![0]),
                (0.0, -1.0, vec![7]),
                (100.0, 50.0, vec![0]),
                (100.0, -1.0, vec![8]),
            ]
        );
    }

    #[test]
    fn a_thread_done_before_the_window_is_known_makes_rows_only_as_far_as_it_went() {
        // A run bounded by its work: the thread's last slice (interval 1) arrives before the
        // main thread knows where the window ended; rows stop there, not at u64::MAX intervals.
        let rows = Rc::new(RefCell::new(Vec::new()));
        let ms = 1_000_000;
        let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(Keep(rows.clone()))];
        let (mut collector, mut feeds) = channels(100 * ms, vec![vec![0]], 1, false, &mut sinks);
        let mut feed = feeds.remove(0);
        feed.record(0, Op::Read, 4096, 10);
        feed.advance(1);
        feed.record(0, Op::Read, 4096, 10);
        feed.finish();
        assert_eq!(
            collector.poll(),
            1,
            "interval 0, and not the last until the window's end is known"
        );
        collector.end_window(150 * ms);
        collector.finish();
        assert_eq!(
            *rows.borrow(),
            vec![(0.0, 100.0, vec![1]), (100.0, 50.0, vec![1])]
        );
    }

    #[test]
    fn intervals_wait_for_every_thread_and_merge_in_time_order() {
        let rows = Rc::new(RefCell::new(Vec::new()));
        let ms = 1_000_000;
        let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(Keep(rows.clone()))];
        let (mut collector, mut feeds) =
            channels(100 * ms, vec![vec![0], vec![1, 0]], 2, true, &mut sinks);
        // Thread 0 records twice in interval 0 and moves to interval 2.
        feeds[0].record(0, Op::Read, 4096, 10);
        feeds[0].record(0, Op::Write, 4096, 20);
        feeds[0].advance(2);
        assert_eq!(collector.poll(), 0, "thread 1 has not finished interval 0");
        // Thread 1: one on target 1 and one on target 0 in interval 0, then interval 1.
        feeds[1].record(0, Op::Read, 512, 30);
        feeds[1].record(1, Op::Read, 512, 40);
        feeds[1].advance(1);
        assert_eq!(collector.poll(), 1, "interval 0 is complete");
        feeds[1].record(1, Op::Write, 512, 50);
        feeds[1].advance(3);
        assert_eq!(
            collector.poll(),
            1,
            "interval 1 is complete; thread 0 is still in 2"
        );
        collector.end_window(250 * ms);
        for feed in feeds {
            feed.finish();
        }
        let collected = collector.finish();
        assert!(collected.errors.is_empty());
        assert_eq!(collected.rows.len(), 3);
        assert_eq!(collected.rows[0].all.total.ios, 4);
        let rows = rows.borrow();
        assert_eq!(
            *rows,
            vec![
                (0.0, 100.0, vec![3, 1]),
                (100.0, 100.0, vec![1, 0]),
                (200.0, 50.0, vec![0, 0]),
            ]
        );
    }
}
