//! After a timespan's results: how its start was agreed (`--start-at`, or the ranks of a run across
//! hosts) and, across hosts, every rank's clock and start, the rows per host and the aggregate
//! rate counted both ways.

use std::fmt::Write as _;

use crate::report::TimeSpanReport;
use crate::report::render::table;
use crate::report::{ClusterReport, StartReport};
use crate::system::ClockState;

pub(super) fn start_text(out: &mut String, ts: &TimeSpanReport, clock: &ClockState) {
    if ts.start.is_none() && ts.cluster.is_none() {
        return;
    }
    if let Some(start) = &ts.start {
        agreed_text(out, start, ts.cluster.is_some(), clock);
    }
    if let Some(cluster) = &ts.cluster {
        ranks_text(out, cluster);
    }
}

/// A duration in the unit that keeps it short (iospd's own section: not DiskSpd's layout).
fn duration(ns: impl Into<f64>) -> String {
    crate::units::format_duration(ns.into())
}

fn agreed_text(out: &mut String, start: &StartReport, across_hosts: bool, clock: &ClockState) {
    let _ = writeln!(
        out,
        "\n\nStart\n  agreed start:       {}\n  {:<20}{} after it",
        start.at,
        if across_hosts {
            "latest rank began:"
        } else {
            "threads began:"
        },
        duration(start.lateness_ns as f64)
    );
    let _ = writeln!(
        out,
        "  wall clock:         {} source, {} (estimated error {}, maximum {})",
        if clock.source.is_empty() {
            "unknown"
        } else {
            &clock.source
        },
        if clock.synchronised {
            "synchronised"
        } else {
            "NOT synchronised"
        },
        duration(clock.estimated_error_us as f64 * 1e3),
        duration(clock.maximum_error_us as f64 * 1e3)
    );
}

fn ranks_text(out: &mut String, c: &ClusterReport) {
    let _ = writeln!(
        out,
        "  start placed:       {} ahead (least slack of any rank {})\n  start skew:         {} between the earliest and latest rank\n  clock offsets:      measured to within +/-{}\n  results gathered:   {} bytes in {}",
        duration(c.start_margin_ns as f64),
        duration(c.start_slack_ns as f64),
        duration(c.start_skew_ns as f64),
        duration(c.clock_uncertainty_ns as f64),
        c.gathered_bytes,
        duration(c.gather_ns as f64)
    );
    if c.started_apart() {
        let _ = writeln!(
            out,
            "  WARNING: the ranks did not start together: their starts spread over {}, more than the {} the start was placed ahead{}; each rank's window is its own and the common window is shorter. Fewer ranks per CPU (or a less busy node) start together",
            duration(c.start_skew_ns as f64),
            duration(c.start_margin_ns as f64),
            if c.start_slack_ns < 0 {
                format!(
                    ", and a rank heard of the start {} after it",
                    duration(c.start_slack_ns.unsigned_abs() as f64)
                )
            } else {
                String::new()
            }
        );
    }
    let hosts = c.hosts.len();
    let _ = writeln!(
        out,
        "\nRanks ({} on {hosts} host{})",
        c.ranks.len(),
        if hosts == 1 { "" } else { "s" }
    );
    if c.detailed() {
        out.push_str(&table::text(&c.ranks_table()));
    } else {
        out.push_str(&table::text(&c.spread_table()));
        out.push_str("\nSlowest ranks\n");
        out.push_str(&table::text(&c.slowest_table()));
        out.push_str("(every rank's row is in the JSON and XML results, and in the HTML report)\n");
    }
    out.push_str("\nHosts\n");
    out.push_str(&table::text(&c.hosts_table()));
    out.push_str("\nAggregate rate of all ranks\n");
    out.push_str(&table::text(&c.aggregates_table()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_outside_diskspds_layout_scale_their_unit() {
        let start = StartReport {
            at: "2026-11-25T12:00:00Z".into(),
            at_unix_ns: 0,
            lateness_ns: 1_250_000,
        };
        let clock = ClockState {
            source: "kvm-clock".into(),
            synchronised: false,
            estimated_error_us: 16_000_000,
            maximum_error_us: 16_000_000,
        };
        let mut out = String::new();
        agreed_text(&mut out, &start, false, &clock);
        assert!(
            out.contains("threads began:      1.250ms after it"),
            "{out}"
        );
        assert!(
            out.contains("(estimated error 16.000s, maximum 16.000s)"),
            "{out}"
        );
    }

    fn cluster(skew_ms: u64, slack_ms: i64) -> ClusterReport {
        let none = crate::report::Aggregate {
            duration_s: 0.0,
            ios: 0,
            bytes: 0,
            ios_per_s: 0.0,
            bytes_per_s: 0.0,
        };
        ClusterReport {
            ranks: Vec::new(),
            hosts: Vec::new(),
            start_margin_ns: 56_000_000,
            start_slack_ns: slack_ms * 1_000_000,
            start_skew_ns: skew_ms * 1_000_000,
            clock_uncertainty_ns: 0,
            gathered_bytes: 0,
            gather_ns: 0,
            common_window: none,
            first_to_last: none,
        }
    }

    #[test]
    fn ranks_that_did_not_start_together_are_told_by_how_much() {
        let mut out = String::new();
        ranks_text(&mut out, &cluster(73, 10));
        assert!(
            out.contains("WARNING: the ranks did not start together: their starts spread over 73.000ms, more than the 56.000ms the start was placed ahead;"),
            "{out}"
        );
        let mut out = String::new();
        ranks_text(&mut out, &cluster(1, -4));
        assert!(
            out.contains("did not start together")
                && out.contains("a rank heard of the start 4.000ms after it"),
            "{out}"
        );
        let mut out = String::new();
        ranks_text(&mut out, &cluster(1, 10));
        assert!(!out.contains("did not start together"), "{out}");
    }

    #[test]
    fn past_the_detailed_ranks_the_spread_and_the_slowest_replace_the_rows() {
        let mut c = cluster(1, 10);
        c.ranks = (0..40)
            .map(|rank| crate::report::RankReport {
                rank,
                host: format!("h{}", rank / 8),
                threads: 1,
                clock_offset_ns: 0,
                clock_uncertainty_ns: 0,
                clock_drift_ns: 0,
                lateness_ns: 1_000,
                window_start_ns: 0,
                window_end_ns: 1_000_000_000,
                ios: 1000 + rank as u64,
                bytes: 0,
                ios_per_s: if rank == 17 {
                    10.0
                } else {
                    1000.0 + rank as f64
                },
                bytes_per_s: 0.0,
                p99_ns: Some(100_000 + rank as u64 * 1_000),
            })
            .collect();
        let mut out = String::new();
        ranks_text(&mut out, &c);
        assert!(out.contains("Ranks (40 on 0 hosts)"), "{out}");
        let line = |start: &str| {
            out.lines()
                .find(|l| l.starts_with(start))
                .map(str::to_string)
        };
        let iops = line("I/O per s").expect("the spread of I/O per s");
        assert!(iops.contains("10.00") && iops.contains("1039.00"), "{iops}");
        assert!(line("p99 latency").is_some(), "{out}");
        // The slowest first, by name, and no row per rank.
        let slowest = &out[out.find("Slowest ranks").unwrap()..];
        let first = slowest.lines().nth(3).unwrap();
        assert!(first.trim_start().starts_with("17 | h2"), "{slowest}");
        assert!(!out.lines().any(|l| l.starts_with("  39 |")), "{out}");
    }
}
