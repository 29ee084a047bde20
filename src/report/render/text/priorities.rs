//! `--ioprio-split`: a target's reads and writes by the I/O priority they were issued with, a row
//! per priority and direction that did I/O, with the latency each priority saw.

use super::line;
use crate::report::PriorityReport;

/// The rows of one target.
pub(super) fn priorities_text(out: &mut String, p: &PriorityReport) {
    line(
        out,
        4,
        format_args!("--ioprio-split on {}, by I/O priority:", p.path),
    );
    line(
        out,
        6,
        "priority | dir   |     I/Os |  I/O per s |  AvgLat |     p50 |     p99 |   p99.9 |  MaxLat",
    );
    let ms = |ns: f64| format!("{:>7.3}", ns / 1e6);
    for row in &p.priorities {
        let name = match row.class {
            0 => "none".to_string(),
            1 => format!("rt/{}", row.level),
            2 => format!("be/{}", row.level),
            _ => format!("idle/{}", row.level),
        };
        for (dir, d) in [("read", &row.read), ("write", &row.write)] {
            let Some(l) = d.latency.as_ref().filter(|_| d.ios > 0) else {
                continue;
            };
            let at = |p: f64| match l.percentiles.iter().find(|x| x.percentile == p) {
                Some(x) => ms(x.value_ns as f64),
                None => format!("{:>7}", "-"),
            };
            line(
                out,
                6,
                format_args!(
                    "{name:>8} | {dir:<5} | {:>8} | {:>10.2} | {} | {} | {} | {} | {}",
                    d.ios,
                    d.ios_per_s,
                    ms(l.mean_ns),
                    at(50.0),
                    at(99.0),
                    at(99.9),
                    ms(l.max_ns as f64),
                ),
            );
        }
    }
}
