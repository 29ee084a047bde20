//! `iospd replay`'s section: what was replayed onto what, and how faithfully in time.

use serde::{Deserialize, Serialize};

/// One traced device and the target it went to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayDevice {
    /// Its name in the trace.
    pub device: String,
    /// The target's path.
    pub target: String,
    /// The end of the furthest I/O on the device, bytes.
    pub extent: u64,
    /// The target's size, bytes.
    pub target_size: u64,
}

/// Lateness: each I/O's submission stamp less the time the trace scheduled it for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lateness {
    /// Median, ns.
    pub p50_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Largest, ns.
    pub max_ns: u64,
    /// Mean, ns.
    pub mean_ns: f64,
    /// The bound above which an I/O counts as late, ns.
    pub bound_ns: u64,
    /// I/Os later than the bound.
    pub late: u64,
}

/// One second of the replay against the same second of the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaySecond {
    /// From the start.
    pub second: u64,
    /// I/Os the trace scheduled in it.
    pub trace_ios: u64,
    /// I/Os the replay submitted in it.
    pub replay_ios: u64,
    /// Bytes the trace scheduled.
    pub trace_bytes: u64,
    /// Bytes the replay submitted.
    pub replay_bytes: u64,
}

/// Slots of one buffer size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaySlots {
    /// Bytes each slot's buffer holds.
    pub size_bytes: u64,
    /// How many.
    pub slots: u32,
}

/// The replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayReport {
    /// The trace arguments.
    pub traces: Vec<String>,
    /// `Q` or `D`: the events replayed.
    pub events: String,
    /// The time scale (`1`, `2`, …), or `max` for as fast as possible.
    pub speed: String,
    /// `keep`, `wrap` or `scale`.
    pub remap: String,
    /// Device → target.
    pub devices: Vec<ReplayDevice>,
    /// I/Os the trace scheduled (kept by the filters).
    pub trace_ios: u64,
    /// I/Os the replay submitted.
    pub issued: u64,
    /// From the first scheduled I/O to the last, at the replay's speed, s.
    pub trace_span_s: f64,
    /// From the first submission to the last, s.
    pub replay_span_s: f64,
    /// (replay span − trace span) ÷ trace span, %.
    pub span_error_pct: f64,
    /// Lateness; absent as fast as possible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateness: Option<Lateness>,
    /// The depth cap (slots).
    pub depth_cap: u32,
    /// I/Os that fell due while every slot was busy.
    pub held_by_depth: u64,
    /// The slots by buffer size, ascending (empty: every slot holds the block size).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<ReplaySlots>,
    /// The bytes of every slot's buffer: the replay's I/O memory.
    #[serde(default)]
    pub buffer_bytes: u64,
    /// Mean over the trace's seconds of |replay IOPS − trace IOPS| ÷ trace IOPS, %.
    pub iops_error_mean_pct: f64,
    /// The worst second's IOPS error, %.
    pub iops_error_max_pct: f64,
    /// The same for MiB/s, %.
    pub mibs_error_mean_pct: f64,
    /// Per second.
    pub seconds: Vec<ReplaySecond>,
    /// The replay was cut here (`-d`), s from its start, before the trace's end: the trace's
    /// I/O from then on was neither issued nor counted in `trace_ios`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_at_s: Option<f64>,
    /// The trace could not be read again during the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
