//! `iospd replay`'s fidelity, computed once: lateness percentiles, the span against the trace's,
//! and each second's IOPS and MiB/s against the trace's.

use crate::profile::TimeSpan;
use crate::profile::replay::{Pace, Remap, Replay};
use crate::report::{Lateness, ReplayDevice, ReplayReport, ReplaySecond};
use crate::stats::replay::ReplayStats;

/// The section, from the profile's replay and the replaying thread's timing.
pub fn report(replay: &Replay, ts: &TimeSpan, depth: u32, r: &ReplayStats) -> ReplayReport {
    let trace_span_ns = r.last_due_ns;
    let replay_span_ns = r.last_submit_ns.saturating_sub(r.first_submit_ns);
    let span_error_pct = match trace_span_ns {
        0 => 0.0,
        t => (replay_span_ns as f64 - t as f64) / t as f64 * 100.0,
    };
    let lateness = (!r.as_fast_as_possible && r.lateness.count() > 0).then(|| {
        let p = r.lateness.percentiles(&[0.5, 0.99, 0.999]);
        Lateness {
            p50_ns: p[0],
            p99_ns: p[1],
            p999_ns: p[2],
            max_ns: r.lateness.max(),
            mean_ns: r.lateness.mean(),
            bound_ns: r.late_ns,
            late: r.late,
        }
    });
    let n = r.trace_per_second.len().max(r.per_second.len());
    let at = |v: &[(u64, u64)], i: usize| v.get(i).copied().unwrap_or((0, 0));
    let seconds: Vec<ReplaySecond> = match r.as_fast_as_possible {
        true => Vec::new(),
        false => (0..n)
            .map(|i| {
                let (trace_ios, trace_bytes) = at(&r.trace_per_second, i);
                let (replay_ios, replay_bytes) = at(&r.per_second, i);
                ReplaySecond {
                    second: i as u64,
                    trace_ios,
                    replay_ios,
                    trace_bytes,
                    replay_bytes,
                }
            })
            .collect(),
    };
    let error = |f: fn(&ReplaySecond) -> (u64, u64)| {
        let errors: Vec<f64> = seconds
            .iter()
            .map(f)
            .filter(|&(trace, _)| trace > 0)
            .map(|(trace, replay)| (replay as f64 - trace as f64).abs() / trace as f64 * 100.0)
            .collect();
        let mean = match errors.len() {
            0 => 0.0,
            k => errors.iter().sum::<f64>() / k as f64,
        };
        (mean, errors.iter().copied().fold(0.0, f64::max))
    };
    let (iops_mean, iops_max) = error(|s| (s.trace_ios, s.replay_ios));
    let (mibs_mean, _) = error(|s| (s.trace_bytes, s.replay_bytes));
    ReplayReport {
        traces: replay
            .traces
            .iter()
            .map(|t| t.display().to_string())
            .collect(),
        events: replay.stage.letter().to_string(),
        speed: match replay.pace {
            Pace::Speed(s) => format!("{s}"),
            Pace::AsFastAsPossible => "max".into(),
        },
        remap: match replay.remap {
            Remap::Keep => "keep",
            Remap::Wrap => "wrap",
            Remap::Scale => "scale",
        }
        .into(),
        devices: replay
            .mappings
            .iter()
            .zip(&ts.targets)
            .map(|(m, t)| ReplayDevice {
                device: m.name.clone(),
                target: t.path.display().to_string(),
                extent: m.extent,
                target_size: m.target_size,
            })
            .collect(),
        trace_ios: r.trace_events,
        issued: r.issued,
        trace_span_s: trace_span_ns as f64 / 1e9,
        replay_span_s: replay_span_ns as f64 / 1e9,
        span_error_pct,
        lateness,
        depth_cap: depth,
        held_by_depth: r.held_by_depth,
        slots: replay
            .pool
            .iter()
            .map(|c| crate::report::ReplaySlots {
                size_bytes: c.size,
                slots: c.slots,
            })
            .collect(),
        buffer_bytes: crate::replay::pool::bytes(&replay.pool),
        iops_error_mean_pct: iops_mean,
        iops_error_max_pct: iops_max,
        mibs_error_mean_pct: mibs_mean,
        seconds,
        cut_at_s: r.cut.then_some(r.cut_ns as f64 / 1e9),
        error: r.trace_error.clone(),
    }
}

/// What casts doubt on a replay: I/O issued later than its trace asked (lateness p99 past
/// `--late`), and I/O the depth cap held back.
pub fn findings(r: &ReplayReport) -> Vec<String> {
    use crate::units::format_duration;
    let mut flags = Vec::new();
    if let Some(l) = r.lateness.as_ref().filter(|l| l.p99_ns > l.bound_ns) {
        flags.push(format!(
            "the replay fell behind its trace: lateness p99 {} (p50 {}, max {}), {} of {} I/Os later than --late={}: the device or this machine could not keep the trace's pace, so the I/O did not arrive when the trace's did; raise -o, replay slower (--speed=0.5), or read the result as the device's answer to a faster arrival",
            format_duration(l.p99_ns as f64),
            format_duration(l.p50_ns as f64),
            format_duration(l.max_ns as f64),
            l.late,
            r.issued,
            format_duration(l.bound_ns as f64)
        ));
    }
    if r.held_by_depth > 0 {
        flags.push(format!(
            "{} of {} I/Os fell due with every slot that could hold them busy (depth cap -o{}): they waited in iospd, not in the device; raise -o",
            r.held_by_depth, r.issued, r.depth_cap
        ));
    }
    flags
}
