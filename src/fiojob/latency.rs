//! fio's `latency_target` search (`latency_window`, `latency_percentile`, `latency_run`): the
//! deepest queue whose latency meets a target, found while the job runs. `iospd fio` runs it as
//! one iospd run per window (`commands::fio_latency`); here the job's options are read.

use super::reader::{Reader, Refusal, whole_seconds};
use super::translate::Draft;
use super::value::{boolean, time_ns};

/// What a job's search looks for, as fio reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencySearch {
    /// `latency_target`: the latency an I/O must stay within, ns (µs unless a unit is given).
    pub target_ns: u64,
    /// `latency_window`: how long each depth is judged, whole seconds (fio's 0, judged after
    /// every completion, is one second here).
    pub window_s: u64,
    /// `latency_percentile`: the share of a window's I/Os that must meet the target, 0–100
    /// (100: the first I/O over it fails the depth at once, and at depth 1 fails the job).
    pub percentile: f64,
    /// `latency_run`: the depth keeps being adjusted to the job's end, where fio otherwise stops
    /// at the depth it settles on after one more window.
    pub keep_adjusting: bool,
}

/// The job's search, when it sets `latency_target`; the other three options alone change nothing
/// (as in fio).
pub(super) fn latency_target(
    r: &mut Reader,
    t: &mut Draft,
) -> Result<Option<LatencySearch>, Box<Refusal>> {
    let target = match r.get("latency_target") {
        Some(s) => time_ns(s.value.as_deref().unwrap_or(""), 1_000)
            .map_err(|why| r.refuse(s, why, None))?,
        None => 0,
    };
    let window = match r.get("latency_window") {
        Some(s) => {
            let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000)
                .map_err(|why| r.refuse(s, why, None))?;
            Some(whole_seconds(
                r,
                s,
                ns,
                "latency window (one run per window, -d)",
            )?)
        }
        None => None,
    };
    let percentile = match r.get("latency_percentile") {
        Some(s) => {
            let value = s.value.as_deref().unwrap_or("").trim();
            value
                .parse::<f64>()
                .ok()
                .filter(|p| *p > 0.0 && *p <= 100.0)
                .ok_or_else(|| {
                    r.refuse(
                        s,
                        format!("'{value}' is not a percentile above 0, at most 100"),
                        None,
                    )
                })?
        }
        None => 100.0,
    };
    let keep_adjusting = match r.get("latency_run") {
        Some(s) => boolean(s.value.as_deref()).map_err(|why| r.refuse(s, why, None))?,
        None => false,
    };
    if target == 0 {
        return Ok(None);
    }
    if r.get("read_iolog").is_some() {
        return Err(r.refuse(
            r.last_of("latency_target"),
            "a replay's depth is the log's, and the search sets it",
            Some("latency_target out of the replay job"),
        ));
    }
    let window_s = match window {
        Some(0) | None => {
            t.notes.push(
                "latency_window=0: fio judges the depth after every completion; iospd judges it each second (one run per window)".into(),
            );
            1
        }
        Some(seconds) => seconds,
    };
    t.notes.push(format!(
        "latency_target: each depth runs as an iospd run of {window_s} s, from depth 1 up and back as fio's search goes; fio changes the depth of a run in place{}",
        match keep_adjusting {
            true => "; with latency_run the job's results are its last window's",
            false => "; the job's results are the window at the depth it settles on",
        }
    ));
    Ok(Some(LatencySearch {
        target_ns: target,
        window_s,
        percentile,
        keep_adjusting,
    }))
}
