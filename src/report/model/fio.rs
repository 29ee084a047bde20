//! fio 3.x's JSON results (`iospd fio --output-format=json|json+`): the layout tools that read
//! fio's results expect, under fio's own key names. Only what iospd measured is written; the
//! fields fio has and iospd has no counterpart for are left out (`doc/fio-json.md` lists both).

use serde::ser::{Serialize, SerializeMap, Serializer};

/// The whole document.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioDocument {
    /// The program that wrote it (`iospd-<version>`).
    #[serde(rename = "fio version")]
    pub fio_version: String,
    /// When the document was written, seconds since the epoch.
    pub timestamp: u64,
    /// The same in milliseconds.
    pub timestamp_ms: u64,
    /// The same as `ctime` prints it.
    pub time: String,
    /// One entry per job (or per job clone, as fio reports them without `group_reporting`).
    pub jobs: Vec<FioJob>,
}

/// One job's numbers.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioJob {
    /// The job's name.
    pub jobname: String,
    /// Its group (jobs between two `stonewall`s), from 0.
    pub groupid: usize,
    /// 0: the job ran to its end (a job that failed has no entry).
    pub error: i32,
    /// Seconds from the job's start to its end.
    pub elapsed: u64,
    /// Its options as written (the `[global]` ones in force, then its own).
    #[serde(rename = "job options")]
    pub job_options: Ordered<String>,
    /// Reads (absent, with writes, trims and flushes, when `unified_rw_reporting=mixed` adds
    /// them into `mixed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<FioDirection>,
    /// Writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<FioDirection>,
    /// Trims.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<FioDirection>,
    /// `fsync`/`fdatasync`: the flushes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<FioSync>,
    /// `unified_rw_reporting=mixed|both`: reads and writes as one direction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed: Option<FioDirection>,
    /// Milliseconds the job ran.
    pub job_runtime: u64,
    /// The job's threads' user CPU time, as a share of its runtime.
    pub usr_cpu: f64,
    /// Their system CPU time, the same way.
    pub sys_cpu: f64,
    /// Their context switches over the window.
    pub ctx: u64,
    /// Their page faults that needed I/O.
    pub majf: u64,
    /// And that did not.
    pub minf: u64,
    /// The share of I/Os submitted with 1, 2–3, 4–7, … 32–63, 64 or more in flight, percent
    /// (keys `1`, `2`, `4`, `8`, `16`, `32`, `>=64`).
    pub iodepth_level: Ordered<f64>,
    /// The share of I/Os (all directions) in each latency range below 1 µs, by the range's top.
    pub latency_ns: Ordered<f64>,
    /// The same from 1 µs to 1 ms.
    pub latency_us: Ordered<f64>,
    /// The same from 1 ms, the last range open-ended (`>=2000`).
    pub latency_ms: Ordered<f64>,
    /// `continue_on_error`: the failed I/Os the job counted and went on past.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_err: Option<u64>,
    /// `continue_on_error`: the first one's error number (0: none failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<i32>,
    /// The depth it ran at, with the `latency_target` search's options (fio writes them for every
    /// job: depth `iodepth`, target 0, where it searched nothing).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub latency: Option<FioLatencyTarget>,
    /// `ss`: the steady-state rule, whether it was met and the window it judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<FioSteadyState>,
}

/// fio's `latency_target` fields.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioLatencyTarget {
    /// The depth the job ran at: the search's last, or its `iodepth`.
    pub latency_depth: u32,
    /// `latency_target`, ns (0: none).
    pub latency_target: u64,
    /// `latency_percentile` (100 unless set).
    pub latency_percentile: f64,
    /// `latency_window`, µs.
    pub latency_window: u64,
}

/// One priority's latency, in fio's `prios` list.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioPrio {
    /// Linux's class (0: none set).
    pub prioclass: u8,
    /// Its level.
    pub prio: u8,
    /// Its latency with the job's percentiles (`lat_ns` under `lat_percentiles`, as fio).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clat_ns: Option<FioLatency>,
    /// The same, under `lat_percentiles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lat_ns: Option<FioLatency>,
}

/// fio's `steadystate` object.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioSteadyState {
    /// The criterion and limit as fio prints them (`iops:10.000000%`).
    pub ss: String,
    /// The window, seconds.
    pub duration: u32,
    /// 1 when the rule was met (the job ended there).
    pub attained: u8,
    /// The last judgement (`1.270000%`).
    pub criterion: String,
    /// The window's largest deviation from its mean.
    pub max_deviation: f64,
    /// The window's least-squares slope per second.
    pub slope: f64,
    /// The window's samples.
    pub data: FioSteadyData,
}

/// The samples of fio's `steadystate` window, oldest first.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioSteadyData {
    /// Mean bytes per second (whole).
    pub bw_mean: u64,
    /// Mean I/Os per second (whole).
    pub iops_mean: u64,
    /// I/Os each second.
    pub iops: Vec<u64>,
    /// Bytes each second.
    pub bw: Vec<u64>,
}

/// One direction of a job.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct FioDirection {
    /// Bytes moved.
    pub io_bytes: u64,
    /// The same in KiB.
    pub io_kbytes: u64,
    /// Bytes per second of runtime.
    pub bw_bytes: u64,
    /// KiB per second of runtime.
    pub bw: u64,
    /// I/Os per second of runtime.
    pub iops: f64,
    /// Milliseconds the direction ran (the job's runtime; 0 without I/O).
    pub runtime: u64,
    /// I/Os completed.
    pub total_ios: u64,
    /// Short I/Os (iospd counts a short transfer as a failure, so none here).
    pub short_ios: u64,
    /// I/Os dropped (none).
    pub drop_ios: u64,
    /// Submission latency: not measured apart (`N` is 0).
    pub slat_ns: FioLatency,
    /// Completion latency: iospd's latency, from submission to completion.
    pub clat_ns: FioLatency,
    /// Total latency: the same measurement.
    pub lat_ns: FioLatency,
    /// `cmdprio_*` (`--ioprio-split`): each priority's latency, where two or more did I/O.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prios: Option<Vec<FioPrio>>,
    /// Smallest bandwidth sample, KiB/s.
    pub bw_min: u64,
    /// Largest bandwidth sample.
    pub bw_max: u64,
    /// The job's share of its group's bandwidth, percent.
    pub bw_agg: f64,
    /// Mean bandwidth sample.
    pub bw_mean: f64,
    /// Their standard deviation.
    pub bw_dev: f64,
    /// Bandwidth samples (one per 500 ms interval; 0 when the job had none).
    pub bw_samples: u64,
    /// Smallest IOPS sample.
    pub iops_min: u64,
    /// Largest IOPS sample.
    pub iops_max: u64,
    /// Mean IOPS sample.
    pub iops_mean: f64,
    /// Their standard deviation.
    pub iops_stddev: f64,
    /// IOPS samples.
    pub iops_samples: u64,
}

/// A latency's statistics; `percentile` and `bins` only where fio writes them.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct FioLatency {
    /// Smallest, ns.
    pub min: u64,
    /// Largest.
    pub max: u64,
    /// Mean.
    pub mean: f64,
    /// Population standard deviation.
    pub stddev: f64,
    /// Samples.
    #[serde(rename = "N")]
    pub n: u64,
    /// The job's percentile list (`%f` keys) and each value, ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentile: Option<Ordered<u64>>,
    /// `json+`: every latency recorded (ns) and its count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bins: Option<Ordered<u64>>,
}

/// The flushes of a job.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct FioSync {
    /// Flushes completed.
    pub total_ios: u64,
    /// Their latency.
    pub lat_ns: FioLatency,
}

/// A JSON object whose keys keep their order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ordered<T>(pub Vec<(String, T)>);

impl<T: Serialize> Serialize for Ordered<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}
