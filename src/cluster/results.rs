//! The end of a run across hosts: every rank hands rank 0 its report, how its run ended and when
//! it heard of each start; rank 0 merges them into the one report (see
//! [`crate::report::analysis::cluster`]) and words how the whole run ended.

use serde::{Deserialize, Serialize};

use super::Cluster;
use crate::profile::Profile;
use crate::report::Report;
use crate::report::analysis::cluster::{Member, combine, leave_out_recomputed, take_series};

/// What one rank hands rank 0.
#[derive(Debug, Serialize, Deserialize)]
struct Part {
    /// Its report, its own paths.
    report: Report,
    /// Its exit status.
    code: u8,
    /// The lines that say how its run ended.
    lines: Vec<String>,
    /// It stopped because another rank did (so that rank's lines explain it).
    stopped_by_peer: bool,
    /// Per timespan: how long before the start it heard of it, and rank 0's margin.
    slack: Vec<(i64, u64)>,
    /// Its host.
    host: String,
}

/// A run's outcome as the process that speaks for it reports it.
#[derive(Debug)]
pub struct Finished {
    /// The report (of every rank, merged).
    pub report: Report,
    /// The exit status.
    pub code: u8,
    /// The lines that say how it ended.
    pub lines: Vec<String>,
}

impl Cluster {
    /// The run's outcome from this process's own: for a process on its own, that; for the ranks
    /// of a run across hosts, rank 0 gets every rank's merged under `profile` (the profile as
    /// given) and the others `None`.
    pub fn finish(
        &self,
        profile: &Profile,
        report: Report,
        code: u8,
        lines: Vec<String>,
    ) -> Result<Option<Finished>, String> {
        let Some(link) = self.link.as_deref() else {
            return Ok(Some(Finished {
                report,
                code,
                lines,
            }));
        };
        let began = crate::clock::monotonic_now();
        let mut report = report;
        // What grows with the run's length is added up a tree of ranks, not gathered.
        let series = take_series(&mut report)?;
        leave_out_recomputed(&mut report);
        let series = self.reduce(link, series)?;
        let part = {
            let state = self.state.borrow();
            Part {
                report,
                code,
                lines,
                stopped_by_peer: state.stopped_by_peer,
                slack: state.slack.clone(),
                host: self.who.host.clone(),
            }
        };
        let bytes = serde_json::to_vec(&part).map_err(|e| e.to_string())?;
        drop(part);
        let Some(parts) = link.gather(&bytes) else {
            return Ok(None);
        };
        let gather_ns = crate::clock::monotonic_now() - began;
        let gathered_bytes = parts.bytes.len() as u64;
        // Each report moves into its member; the bytes go once all are read.
        let state = self.state.borrow();
        let mut members = Vec::with_capacity(parts.lengths.len());
        let mut endings = Vec::with_capacity(parts.lengths.len());
        for (rank, bytes) in parts.parts().enumerate() {
            let part: Part = serde_json::from_slice(bytes)
                .map_err(|e| format!("the results of rank {rank} cannot be read: {e}"))?;
            // Not `complete`: the charts' shapes of a part are never drawn, and its histograms are
            // checked as the merge decodes them.
            part.report
                .check_numbers()
                .map_err(|e| format!("the results of rank {rank} are inconsistent: {e}"))?;
            let clocks = state
                .clocks
                .iter()
                .zip(&part.slack)
                .map(|(clocks, &(slack_ns, margin_ns))| {
                    let mut clock = clocks.get(rank).copied().unwrap_or_default();
                    clock.slack_ns = slack_ns;
                    clock.margin_ns = margin_ns;
                    clock
                })
                .collect();
            members.push(Member {
                rank: crate::report::RankHost {
                    rank: rank as u32,
                    host: part.host.clone(),
                },
                report: part.report,
                clocks,
            });
            endings.push(Ending {
                code: part.code,
                lines: part.lines,
                stopped_by_peer: part.stopped_by_peer,
                host: part.host,
            });
        }
        let mut report = combine(profile, &members, &series.unwrap_or_default())?;
        for cluster in report
            .timespans
            .iter_mut()
            .filter_map(|t| t.cluster.as_mut())
        {
            cluster.gathered_bytes = gathered_bytes;
            cluster.gather_ns = gather_ns;
        }
        let code = endings.iter().map(|p| p.code).max().unwrap_or(0);
        Ok(Some(Finished {
            report,
            code,
            lines: ending_lines(&endings),
        }))
    }
}

/// How one rank's run ended.
#[derive(Debug)]
struct Ending {
    code: u8,
    lines: Vec<String>,
    stopped_by_peer: bool,
    host: String,
}

/// How the whole run ended: each rank's lines once — as they are when every rank said them, else
/// with the rank and host that did — leaving out the ranks that only stopped because another did.
fn ending_lines(parts: &[Ending]) -> Vec<String> {
    let speaking: Vec<(usize, &Ending)> = parts
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.stopped_by_peer)
        .collect();
    let mut lines: Vec<String> = Vec::new();
    let mut said: Vec<&str> = Vec::new();
    for (_, part) in &speaking {
        for line in &part.lines {
            if said.contains(&line.as_str()) {
                continue;
            }
            said.push(line);
            let by: Vec<usize> = speaking
                .iter()
                .filter(|(_, p)| p.lines.contains(line))
                .map(|(rank, _)| *rank)
                .collect();
            if by.len() == parts.len() {
                lines.push(line.clone());
                continue;
            }
            for rank in by {
                let text = line.strip_prefix("iospd: ").unwrap_or(line);
                lines.push(format!("iospd: rank {rank} ({}): {text}", parts[rank].host));
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(lines: &[&str], stopped_by_peer: bool) -> Ending {
        Ending {
            code: 0,
            lines: lines.iter().map(|l| l.to_string()).collect(),
            stopped_by_peer,
            host: "h".into(),
        }
    }

    #[test]
    fn a_line_every_rank_said_is_said_once_and_others_name_their_rank() {
        let interrupted =
            "iospd: interrupted; the results cover the measured window up to the interruption";
        let parts = [part(&[interrupted], false), part(&[interrupted], false)];
        assert_eq!(ending_lines(&parts), vec![interrupted.to_string()]);
        let parts = [
            part(&[interrupted], true),
            part(&[], false),
            part(&["iospd: read of 4096 bytes failed"], false),
        ];
        assert_eq!(
            ending_lines(&parts),
            vec!["iospd: rank 2 (h): read of 4096 bytes failed".to_string()]
        );
    }
}
