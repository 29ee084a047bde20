//! `--metrics=<addr:port>`: the run's live numbers for a Prometheus (or any OpenMetrics scraper)
//! while it goes. The collector hands each finished interval to a [`MetricsSink`], which adds it to
//! the shared [`State`] (cumulative counters, classic latency buckets, the interval's rates), and
//! with the device clock each device's requests (their time on the device, in the same buckets);
//! the monitor sets the phase. A server thread (see [`server`]) renders the state for each scrape, so
//! the I/O threads never see a client, and a client can only ever wait on the main thread's brief
//! update of one interval.

pub mod buckets;
pub mod exposition;
pub mod native;
pub mod scrapers;
pub mod server;

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use super::{DeviceSlice, Sink};
use crate::stats::timeline::{Kind, Row, TargetOps};

/// Where the run stands, as the `iospd_phase` metric says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Checks, target creation, opening: no load yet.
    Preparing = 0,
    /// The warm-up (`-W`): load, not measured.
    WarmUp = 1,
    /// The measured window.
    Measuring = 2,
    /// The cool-down (`-C`).
    CoolDown = 3,
    /// The run is over; the numbers are final.
    Done = 4,
}

impl Phase {
    /// Every phase, in order.
    pub const ALL: [Phase; 5] = [
        Phase::Preparing,
        Phase::WarmUp,
        Phase::Measuring,
        Phase::CoolDown,
        Phase::Done,
    ];

    /// The label value.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Preparing => "preparing",
            Phase::WarmUp => "warmup",
            Phase::Measuring => "measuring",
            Phase::CoolDown => "cooldown",
            Phase::Done => "done",
        }
    }
}

/// What identifies the run: the `iospd_run_info` metric's labels.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    /// iospd's version.
    pub version: String,
    /// The command line as typed.
    pub command: String,
    /// This run among others (host, process and start time).
    pub run_id: String,
    /// The host it runs on (the devices' label).
    pub host: String,
}

/// One target and direction, over the whole run (every timespan that used the target).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Series {
    /// The target's path (as typed, before `{rank}` and `{host}` are expanded, so the same
    /// target of every rank is one series).
    pub target: String,
    /// "read", "write", "trim" or "flush".
    pub direction: String,
    /// Completions measured so far.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Their latencies summed, ns.
    pub latency_sum_ns: u128,
    /// Per classic bucket (the last is +Inf): completions in it, not cumulative.
    pub buckets: Vec<u64>,
    /// The same latencies in native buckets.
    pub native: native::Native,
    /// The latest interval: I/Os and bytes per second, and the mean I/Os in flight.
    pub rates: Rates,
}

/// One device under the targets and direction: its requests' time on the device, from the
/// device clock (every request of the device, not only iospd's), over the measured windows.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DeviceSeries {
    /// The host the device is on.
    pub host: String,
    /// The device's kernel name (`vda`, `loop3`).
    pub device: String,
    /// "read" or "write".
    pub direction: String,
    /// Requests timed so far.
    pub requests: u64,
    /// Their time on the device summed, ns.
    pub time_sum_ns: u64,
    /// Per classic bucket (the last is +Inf): requests in it, not cumulative.
    pub buckets: Vec<u64>,
}

/// What one process shows: its targets' series and its devices'; what another rank sends rank 0.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Own {
    /// Per target and direction.
    pub series: Vec<Series>,
    /// Per device and direction.
    pub devices: Vec<DeviceSeries>,
}

/// The latest finished interval's numbers of one series.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rates {
    /// I/Os per second.
    pub ios_per_s: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// Mean I/Os in flight (Little's law: the interval's latencies summed over its length).
    pub in_flight: f64,
}

/// Everything the endpoint shows.
#[derive(Debug, Clone, Default)]
pub struct State {
    /// The run.
    pub info: RunInfo,
    /// The timespan running (1-based; 0 before the first).
    pub timespan: usize,
    /// Finished intervals so far, over every timespan.
    pub intervals: u64,
    /// Per target and direction, in the order first seen.
    pub series: Vec<Series>,
    /// Per device under the targets and direction, in the order first seen (with the device
    /// clock).
    pub devices: Vec<DeviceSeries>,
    /// Rank 0 of a run across ranks: every other rank's latest series.
    pub peers: std::collections::BTreeMap<u32, Own>,
    /// The ranks of the run (1 on its own).
    pub ranks: u32,
    /// Per timespan, the targets as typed: the series' names.
    pub names: Vec<Vec<String>>,
}

impl State {
    /// The index of the series of `target` and `kind`, made (at zero) if it is new.
    fn series_of(&mut self, target: &str, kind: Kind) -> usize {
        let direction = kind.name();
        if let Some(i) = self
            .series
            .iter()
            .position(|s| s.target == target && s.direction == direction)
        {
            return i;
        }
        self.series.push(Series {
            target: target.to_string(),
            direction: direction.to_string(),
            ios: 0,
            bytes: 0,
            latency_sum_ns: 0,
            buckets: vec![0; buckets::UPPER_NS.len() + 1],
            native: native::Native::default(),
            rates: Rates::default(),
        });
        self.series.len() - 1
    }

    /// This process's series and every other rank's, added by target and direction.
    pub fn merged(&self) -> Vec<Series> {
        let mut all = self.series.clone();
        for theirs in self.peers.values() {
            for series in &theirs.series {
                match all
                    .iter_mut()
                    .find(|s| s.target == series.target && s.direction == series.direction)
                {
                    Some(mine) => mine.add(series),
                    None => all.push(series.clone()),
                }
            }
        }
        all
    }

    /// This process's devices and every other rank's, by host, device and direction: ranks on
    /// one host time the same requests, so of theirs the one that timed the most is shown.
    pub fn devices_merged(&self) -> Vec<DeviceSeries> {
        let mut all = self.devices.clone();
        for theirs in self.peers.values() {
            for device in &theirs.devices {
                match all.iter_mut().find(|d| {
                    (&d.host, &d.device, &d.direction)
                        == (&device.host, &device.device, &device.direction)
                }) {
                    Some(mine) if mine.requests < device.requests => *mine = device.clone(),
                    Some(_) => {}
                    None => all.push(device.clone()),
                }
            }
        }
        all
    }
}

impl Series {
    fn add(&mut self, other: &Series) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.latency_sum_ns += other.latency_sum_ns;
        self.native.merge(&other.native);
        for (mine, theirs) in self.buckets.iter_mut().zip(&other.buckets) {
            *mine += theirs;
        }
        self.rates.ios_per_s += other.rates.ios_per_s;
        self.rates.bytes_per_s += other.rates.bytes_per_s;
        self.rates.in_flight += other.rates.in_flight;
    }
}

/// The shared state and phase; cloned handles see the same run.
#[derive(Debug, Clone)]
pub struct Metrics {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    phase: AtomicU8,
    /// Changes of the state or phase so far: what a rendering shows.
    generation: AtomicU64,
    /// Who scraped, how often, and what each was shown (for the wait for a last scrape at the
    /// end).
    scrapers: scrapers::Scrapers,
}

impl Metrics {
    /// The metrics of the run `info` across `ranks`, whose timespans' targets are typed as
    /// `names`, in the preparing phase.
    pub fn new(info: RunInfo, ranks: u32, names: Vec<Vec<String>>) -> Metrics {
        Metrics {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    info,
                    ranks,
                    names,
                    ..State::default()
                }),
                phase: AtomicU8::new(Phase::Preparing as u8),
                generation: AtomicU64::new(0),
                scrapers: scrapers::Scrapers::default(),
            }),
        }
    }

    /// Sets the phase (cheap: the monitor calls it on every wake).
    pub fn set_phase(&self, phase: Phase) {
        if self.shared.phase.swap(phase as u8, Ordering::Relaxed) != phase as u8 {
            self.changed();
        }
    }

    /// The state changed.
    fn changed(&self) {
        self.shared.generation.fetch_add(1, Ordering::Release);
    }

    /// Changes so far: a rendering of generation `g` shows every change up to `g`.
    pub fn generation(&self) -> u64 {
        self.shared.generation.load(Ordering::Acquire)
    }

    /// The phase now.
    pub fn phase(&self) -> Phase {
        let now = self.shared.phase.load(Ordering::Relaxed);
        Phase::ALL[(now as usize).min(Phase::ALL.len() - 1)]
    }

    /// The state, for a scrape or an update.
    pub fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding it cannot leave the counters half-updated in a way that matters
        // more than losing the endpoint; keep serving.
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts one answered scrape, by the scraper `key` (see [`scrapers::key`]), which showed
    /// generation `generation`.
    pub fn scraped(&self, key: String, generation: u64) {
        self.shared.scrapers.saw(key, generation);
    }

    /// Who scraped so far.
    pub fn scrapers(&self) -> &scrapers::Scrapers {
        &self.shared.scrapers
    }

    /// This process's series, for rank 0 to add up.
    pub fn own(&self) -> Own {
        let state = self.state();
        Own {
            series: state.series.clone(),
            devices: state.devices.clone(),
        }
    }

    /// Rank 0: the latest series of other ranks.
    pub fn set_peers(&self, peers: impl IntoIterator<Item = (u32, Own)>) {
        let mut state = self.state();
        let mut changed = false;
        for (rank, series) in peers {
            state.peers.insert(rank, series);
            changed = true;
        }
        drop(state);
        if changed {
            self.changed();
        }
    }

    /// The sink that feeds it from the collector.
    pub fn sink(&self) -> MetricsSink {
        MetricsSink {
            metrics: self.clone(),
            series: Vec::new(),
            rare: Vec::new(),
            names: Vec::new(),
        }
    }
}

/// Adds each finished interval to the shared state.
pub struct MetricsSink {
    metrics: Metrics,
    /// For each timespan target: its read and write series.
    series: Vec<[usize; 2]>,
    /// For each timespan target: its trim and flush series, from the first of them.
    rare: Vec<[Option<usize>; 2]>,
    /// The timespan's targets, as the series name them.
    names: Vec<String>,
}

impl Sink for MetricsSink {
    fn begin(
        &mut self,
        timespan: usize,
        _window_start: SystemTime,
        targets: &[String],
    ) -> std::io::Result<()> {
        let mut state = self.metrics.state();
        state.timespan = timespan + 1;
        let names = state
            .names
            .get(timespan)
            .filter(|names| names.len() == targets.len())
            .cloned()
            .unwrap_or_else(|| targets.to_vec());
        // Targets of an earlier timespan only: nothing now.
        for series in &mut state.series {
            series.rates = Rates::default();
        }
        self.series = names
            .iter()
            .map(|target| [Kind::Read, Kind::Write].map(|kind| state.series_of(target, kind)))
            .collect();
        self.rare = vec![[None; 2]; names.len()];
        self.names = names;
        drop(state);
        self.metrics.changed();
        Ok(())
    }

    fn interval(&mut self, row: &Row, targets: &[TargetOps]) -> std::io::Result<()> {
        let seconds = row.length_ms / 1e3;
        let per_second = |n: f64| if seconds > 0.0 { n / seconds } else { 0.0 };
        let mut state = self.metrics.state();
        state.intervals += 1;
        for (t, ops) in targets.iter().enumerate().take(self.series.len()) {
            for (kind, ops) in ops.kinds() {
                let i = match kind {
                    Kind::Read => self.series[t][0],
                    Kind::Write => self.series[t][1],
                    // Trims and flushes get their series at the first.
                    rare => {
                        let k = usize::from(rare == Kind::Flush);
                        match self.rare[t][k] {
                            Some(i) => i,
                            None if ops.ios == 0 => continue,
                            None => {
                                let i = state.series_of(&self.names[t], rare);
                                self.rare[t][k] = Some(i);
                                i
                            }
                        }
                    }
                };
                let s = &mut state.series[i];
                s.ios += ops.ios;
                s.bytes += ops.bytes;
                s.latency_sum_ns += ops.latency.sum();
                ops.latency
                    .add_to_buckets(&buckets::UPPER_NS, &mut s.buckets);
                s.native.add(&ops.latency);
                s.rates = Rates {
                    ios_per_s: per_second(ops.ios as f64),
                    bytes_per_s: per_second(ops.bytes as f64),
                    in_flight: per_second(ops.latency.sum() as f64 / 1e9),
                };
            }
        }
        drop(state);
        self.metrics.changed();
        Ok(())
    }

    fn devices(&mut self, _row: &Row, devices: &[DeviceSlice]) -> std::io::Result<()> {
        let mut state = self.metrics.state();
        for slice in devices {
            for (direction, times) in ["read", "write"].into_iter().zip(&slice.times) {
                let requests = times.requests();
                let host = state.info.host.clone();
                let found = state
                    .devices
                    .iter()
                    .position(|d| d.device == slice.name && d.direction == direction);
                let i = match found {
                    Some(i) => i,
                    None if requests == 0 => continue,
                    None => {
                        state.devices.push(DeviceSeries {
                            host,
                            device: slice.name.clone(),
                            direction: direction.into(),
                            requests: 0,
                            time_sum_ns: 0,
                            buckets: vec![0; buckets::UPPER_NS.len() + 1],
                        });
                        state.devices.len() - 1
                    }
                };
                let d = &mut state.devices[i];
                d.requests += requests;
                d.time_sum_ns += times.device_ns;
                times.add_to_buckets(&buckets::UPPER_NS, &mut d.buckets);
            }
        }
        drop(state);
        self.metrics.changed();
        Ok(())
    }

    fn describe(&self) -> String {
        "--metrics".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_flushes_get_their_series_at_the_first_and_keep_it() {
        let metrics = Metrics::new(RunInfo::default(), 1, vec![vec!["t.dat".into()]]);
        let mut sink = metrics.sink();
        sink.begin(0, SystemTime::now(), &["t.dat".into()]).unwrap();
        let mut ops = vec![TargetOps::default()];
        ops[0].read.record(4096, 1_000);
        let interval = |sink: &mut MetricsSink, ops: &[TargetOps]| {
            sink.interval(&Row::new(0, 1_000_000_000, ops), ops)
                .unwrap();
        };
        interval(&mut sink, &ops);
        let directions = |m: &Metrics| -> Vec<(String, u64)> {
            m.own()
                .series
                .iter()
                .map(|s| (s.direction.clone(), s.ios))
                .collect()
        };
        assert_eq!(
            directions(&metrics),
            [("read".into(), 1), ("write".into(), 0)]
        );
        ops[0].clear();
        ops[0].slot(Kind::Flush).record(0, 80_000);
        ops[0].slot(Kind::Flush).record(0, 120_000);
        interval(&mut sink, &ops);
        ops[0].clear();
        ops[0].slot(Kind::Trim).record(1 << 20, 9_000);
        interval(&mut sink, &ops);
        let all = metrics.own().series;
        assert_eq!(
            directions(&metrics),
            [
                ("read".into(), 1),
                ("write".into(), 0),
                ("flush".into(), 2),
                ("trim".into(), 1)
            ]
        );
        let flush = &all[2];
        assert_eq!(flush.latency_sum_ns, 200_000);
        assert_eq!(flush.buckets.iter().sum::<u64>(), 2);
        // The flush series stays, its rate zero in an interval without flushes.
        assert_eq!(flush.rates.ios_per_s, 0.0);
        assert_eq!(all[3].bytes, 1 << 20);
    }
}
