//! `iospd replay`'s lines under `Beyond DiskSpd:`: the trace and where it went, then how
//! faithfully in time it was replayed.

use super::line;
use crate::report::ReplayReport;
use crate::units::{format_duration, format_size};

/// The replay section of a timespan.
pub(crate) fn replay_text(out: &mut String, r: &ReplayReport) {
    line(
        out,
        4,
        format_args!(
            "replay: {} (events {}, speed {}, offsets {})",
            r.traces.join(", "),
            r.events,
            r.speed,
            r.remap
        ),
    );
    for d in &r.devices {
        line(
            out,
            6,
            format_args!(
                "{} -> {} (trace reaches {} bytes; target {} bytes)",
                d.device, d.target, d.extent, d.target_size
            ),
        );
    }
    line(
        out,
        6,
        format_args!(
            "I/Os: {} submitted of {} in the trace; span {:.6}s against {:.6}s scheduled ({:+.4}%)",
            r.issued, r.trace_ios, r.replay_span_s, r.trace_span_s, r.span_error_pct
        ),
    );
    if let Some(cut) = r.cut_at_s {
        line(
            out,
            6,
            format_args!(
                "cut at {cut:.0}s (-d): the trace's I/O after it was not issued, and is not counted above"
            ),
        );
    }
    match &r.lateness {
        Some(l) => line(
            out,
            6,
            format_args!(
                "lateness (submitted - scheduled): p50 {}, p99 {}, p99.9 {}, max {}; {} later than {}",
                format_duration(l.p50_ns as f64),
                format_duration(l.p99_ns as f64),
                format_duration(l.p999_ns as f64),
                format_duration(l.max_ns as f64),
                l.late,
                format_duration(l.bound_ns as f64)
            ),
        ),
        None => line(out, 6, "as fast as possible: no schedule, no lateness"),
    }
    line(
        out,
        6,
        format_args!(
            "depth cap {}: {} I/Os fell due with every slot that could hold them busy{}",
            r.depth_cap,
            r.held_by_depth,
            if r.held_by_depth > 0 {
                " (raise -o to replay them on time)"
            } else {
                ""
            }
        ),
    );
    if !r.slots.is_empty() {
        let sizes: Vec<String> = r
            .slots
            .iter()
            .rev()
            .map(|s| format!("{} of {}", s.slots, format_size(s.size_bytes)))
            .collect();
        let slots: u32 = r.slots.iter().map(|s| s.slots).sum();
        line(
            out,
            6,
            format_args!(
                "buffers: {} in {slots} slots ({}); an I/O takes a free slot that holds it",
                format_size(r.buffer_bytes),
                sizes.join(", ")
            ),
        );
    }
    if !r.seconds.is_empty() {
        line(
            out,
            6,
            format_args!(
                "per second against the trace: IOPS {:.2}% off on average (worst second {:.2}%), MiB/s {:.2}%",
                r.iops_error_mean_pct, r.iops_error_max_pct, r.mibs_error_mean_pct
            ),
        );
    }
    if let Some(e) = &r.error {
        line(
            out,
            6,
            format_args!("the trace could not be read again: {e}"),
        );
    }
}
