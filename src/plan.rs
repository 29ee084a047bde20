//! Profile → threads: which thread serves which targets, with which seed, on which CPU.
//!
//! With `-t` every target gets its own threads (target 0's threads first, as DiskSpd numbers them);
//! with `-F` every thread serves every target. Thread k of a target starts its sequential stream at
//! k × `-T`. Pure: the CPU list comes from the caller.

use thiserror::Error;

use crate::profile::{Affinity, TimeSpan};

/// One target as served by one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadTarget {
    /// Index of the target in the timespan.
    pub target: usize,
    /// The thread's number among the target's threads (k in k × `-T`).
    pub relative_thread: u32,
    /// Outstanding I/Os on this target.
    pub requests: u32,
}

/// Everything one worker thread needs to know about its share of the work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadPlan {
    /// Global thread number.
    pub thread: u32,
    /// CPU to pin to, if any.
    pub cpu: Option<u32>,
    /// The thread's random seed (profile seed + thread number).
    pub seed: u64,
    /// The targets it serves.
    pub targets: Vec<ThreadTarget>,
}

impl ThreadPlan {
    /// Total outstanding I/Os of the thread.
    pub fn slots(&self) -> u32 {
        self.targets.iter().map(|t| t.requests).sum()
    }
}

/// An affinity request the machine cannot satisfy.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// A CPU that is offline or outside this process's cpuset.
    #[error(
        "-a: CPU {cpu} is not available to this process (available: {available}); choose CPUs from that list"
    )]
    UnavailableCpu {
        /// The CPU asked for.
        cpu: u32,
        /// The CPUs that may be used.
        available: String,
    },
    /// No CPU at all (should not happen on a running system).
    #[error("this process may run on no CPU; check its cpuset")]
    NoCpu,
}

/// Lays out the threads of a timespan. `cpus` are the CPUs this process may run on.
pub fn threads(timespan: &TimeSpan, cpus: &[u32]) -> Result<Vec<ThreadPlan>, PlanError> {
    let mut plans = Vec::new();
    match timespan.thread_count {
        Some(count) => {
            for k in 0..count {
                let targets = timespan
                    .targets
                    .iter()
                    .enumerate()
                    .map(|(i, t)| ThreadTarget {
                        target: i,
                        relative_thread: k,
                        requests: t.requests,
                    })
                    .collect();
                plans.push(targets);
            }
        }
        None => {
            for (i, target) in timespan.targets.iter().enumerate() {
                for k in 0..target.threads_per_target {
                    plans.push(vec![ThreadTarget {
                        target: i,
                        relative_thread: k,
                        requests: target.requests,
                    }]);
                }
            }
        }
    }
    let placement = placement(&timespan.affinity, cpus)?;
    Ok(plans
        .into_iter()
        .enumerate()
        .map(|(i, targets)| ThreadPlan {
            thread: i as u32,
            cpu: (!placement.is_empty()).then(|| placement[i % placement.len()]),
            seed: timespan.seed as u64 + i as u64,
            targets,
        })
        .collect())
}

/// The CPUs threads are assigned to round-robin; empty for no pinning.
fn placement(affinity: &Affinity, cpus: &[u32]) -> Result<Vec<u32>, PlanError> {
    match affinity {
        Affinity::Disabled | Affinity::Scheduler => Ok(Vec::new()),
        Affinity::RoundRobin if cpus.is_empty() => Err(PlanError::NoCpu),
        Affinity::RoundRobin => Ok(cpus.to_vec()),
        Affinity::Cpus(list) => {
            if let Some(&cpu) = list.iter().find(|c| !cpus.contains(c)) {
                return Err(PlanError::UnavailableCpu {
                    cpu,
                    available: cpu_list(cpus),
                });
            }
            Ok(list.clone())
        }
    }
}

/// Formats CPU numbers as ranges: `0-3,7`.
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::cli::{self, Command};
    use crate::profile;

    fn timespan(args: &[&str]) -> TimeSpan {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let Command::Run(raw) = cli::parse(&args).unwrap() else {
            panic!()
        };
        profile::resolve(&raw, String::new())
            .unwrap()
            .profile
            .timespans[0]
            .clone()
    }

    #[test]
    fn threads_per_target() {
        let plans = threads(
            &timespan(&["-t2", "-o4", "-z10", "-a", "a", "b"]),
            &[0, 1, 2],
        )
        .unwrap();
        assert_eq!(plans.len(), 4);
        let summary: Vec<(u32, Option<u32>, u64, usize, u32)> = plans
            .iter()
            .map(|p| {
                (
                    p.thread,
                    p.cpu,
                    p.seed,
                    p.targets[0].target,
                    p.targets[0].relative_thread,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (0, Some(0), 10, 0, 0),
                (1, Some(1), 11, 0, 1),
                (2, Some(2), 12, 1, 0),
                (3, Some(0), 13, 1, 1)
            ]
        );
        assert_eq!(plans[0].slots(), 4);
    }

    #[test]
    fn fixed_pool_serves_every_target() {
        let plans = threads(&timespan(&["-F3", "-o2", "a", "b"]), &[0]).unwrap();
        assert_eq!(plans.len(), 3);
        assert!(plans.iter().all(|p| p.targets.len() == 2 && p.slots() == 4));
        assert_eq!(plans[2].targets[1].relative_thread, 2);
    }

    #[test]
    fn explicit_and_disabled_affinity() {
        let plans = threads(&timespan(&["-t3", "-a1", "a"]), &[0, 1]).unwrap();
        assert!(plans.iter().all(|p| p.cpu == Some(1)));
        let plans = threads(&timespan(&["-n", "a"]), &[0, 1]).unwrap();
        assert_eq!(plans[0].cpu, None);
        let plans = threads(&timespan(&["a"]), &[0, 1]).unwrap();
        assert_eq!(
            plans[0].cpu, None,
            "the scheduler places threads by default"
        );
        let err = threads(&timespan(&["-a5", "a"]), &[0, 1, 2, 3]).unwrap_err();
        assert_eq!(
            err,
            PlanError::UnavailableCpu {
                cpu: 5,
                available: "0-3".into()
            }
        );
    }

    #[test]
    fn cpu_ranges() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 7]), "0-3,7");
        assert_eq!(cpu_list(&[5, 1, 3, 2]), "1-3,5");
        assert_eq!(cpu_list(&[]), "");
    }
}
