//! Profile → threads: which thread serves which targets, with how many I/Os in flight, which seed,
//! and which CPU.
//!
//! With `-t` every target gets its own threads (target 0's threads first, as DiskSpd numbers them);
//! with `-F` every thread serves every target (or, with XML `<ThreadTargets>`, the targets that
//! name it), each with its own `-o` I/Os, or sharing a pool of `-O` I/Os between targets chosen by
//! weight. Thread k of a target starts its sequential stream at k × `-T`. Pure: the CPUs come from
//! the caller.

use thiserror::Error;

use crate::profile::{Affinity, CpuOrder, Efficiency, TimeSpan};
use crate::system::CpuTopology;

/// One target as served by one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadTarget {
    /// Index of the target in the timespan.
    pub target: usize,
    /// The thread's number among the target's threads (k in k × `-T`).
    pub relative_thread: u32,
    /// The first of the thread's slots that serve this target.
    pub first_slot: u32,
    /// How many slots, from `first_slot`, serve it: its `-o` depth, or the whole `-O` pool.
    pub slots: u32,
    /// Share of the pool's I/O (`-O`), relative to the other targets of the thread.
    pub weight: u32,
    /// Threads sharing the target (bursts are divided between them).
    pub sharing_threads: u32,
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
    /// `-O`: outstanding I/Os shared by all the thread's targets, each I/O's target chosen by weight.
    pub pool: Option<u32>,
}

impl ThreadPlan {
    /// Total outstanding I/Os of the thread.
    pub fn slots(&self) -> u32 {
        self.targets
            .iter()
            .map(|t| t.first_slot + t.slots)
            .max()
            .unwrap_or(0)
    }

    /// The targets (indices into `targets`) the slot serves: one with `-o`, all with `-O`.
    pub fn served_by(&self, slot: u32) -> impl Iterator<Item = usize> + '_ {
        self.targets
            .iter()
            .enumerate()
            .filter(move |(_, t)| (t.first_slot..t.first_slot + t.slots).contains(&slot))
            .map(|(i, _)| i)
    }
}

/// Lays out a thread's slots, the one place they are counted: with a `-O` pool every target is
/// served by all of them; with `-o` each target gets the next `-o` slots. Returns the thread's
/// total.
fn lay_out_slots(targets: &mut [ThreadTarget], pool: Option<u32>) -> u64 {
    let mut next = 0u64;
    for target in targets {
        match pool {
            Some(pool) => (target.first_slot, target.slots) = (0, pool),
            None => {
                target.first_slot = next.min(u32::MAX as u64) as u32;
                next += target.slots as u64;
            }
        }
    }
    pool.map_or(next, u64::from)
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
    /// A `-F` thread that no target names in `<ThreadTargets>`.
    #[error(
        "thread {0} of the pool has no target: every thread must appear in some target's <ThreadTargets>, or lower <ThreadCount>"
    )]
    IdleThread(u32),
    /// A `-F` thread whose targets' `-o` add up to more than one ring holds.
    #[error(
        "thread {thread} would keep {slots} I/Os in flight (the -o of each of its targets added up), more than the {max} one io_uring ring holds; lower -o, or use -O to give the pool's threads one depth"
    )]
    TooDeep {
        /// The thread.
        thread: u32,
        /// Its I/Os in flight.
        slots: u64,
        /// The limit.
        max: u64,
    },
}

/// Lays out the threads of a timespan. `cpus` are the CPUs this process may run on.
///
/// Thread i is pinned to the `(first + i)`-th CPU of the placement, wrapping: `first` is where
/// this process's round robin starts (0 on its own; further on for a second process on the host).
pub fn threads(
    timespan: &TimeSpan,
    cpus: &[CpuTopology],
    first: usize,
) -> Result<Vec<ThreadPlan>, PlanError> {
    let mut plans: Vec<(Vec<ThreadTarget>, Option<u32>)> = Vec::new();
    match timespan.thread_count {
        Some(count) => {
            for k in 0..count {
                let mut targets = Vec::new();
                for (i, t) in timespan.targets.iter().enumerate() {
                    let (relative_thread, weight) = if t.thread_targets.is_empty() {
                        (k, t.weight)
                    } else {
                        match t.thread_targets.iter().position(|tt| tt.thread == k) {
                            Some(pos) => {
                                let tt = t.thread_targets[pos];
                                (
                                    pos as u32,
                                    if tt.weight == 0 { t.weight } else { tt.weight },
                                )
                            }
                            None => continue,
                        }
                    };
                    targets.push(ThreadTarget {
                        target: i,
                        relative_thread,
                        first_slot: 0,
                        slots: t.requests,
                        weight,
                        sharing_threads: timespan.threads_per_target(t),
                    });
                }
                if targets.is_empty() {
                    return Err(PlanError::IdleThread(k));
                }
                plans.push((targets, timespan.request_count));
            }
        }
        None => {
            for (i, target) in timespan.targets.iter().enumerate() {
                for k in 0..target.threads_per_target {
                    plans.push((
                        vec![ThreadTarget {
                            target: i,
                            relative_thread: k,
                            first_slot: 0,
                            slots: target.requests,
                            weight: target.weight,
                            sharing_threads: target.threads_per_target,
                        }],
                        None,
                    ));
                }
            }
        }
    }
    let max = crate::profile::MAX_OUTSTANDING;
    for (thread, (targets, pool)) in plans.iter_mut().enumerate() {
        let slots = lay_out_slots(targets, *pool);
        if slots > max {
            return Err(PlanError::TooDeep {
                thread: thread as u32,
                slots,
                max,
            });
        }
    }
    let placement = placement(&timespan.affinity, cpus)?;
    Ok(plans
        .into_iter()
        .enumerate()
        .map(|(i, (targets, pool))| ThreadPlan {
            thread: i as u32,
            cpu: (!placement.is_empty()).then(|| placement[(first + i) % placement.len()]),
            seed: timespan.seed as u64 + i as u64,
            targets,
            pool,
        })
        .collect())
}

/// The CPUs threads are assigned to round-robin, in order; empty for no pinning.
pub fn placement(affinity: &Affinity, cpus: &[CpuTopology]) -> Result<Vec<u32>, PlanError> {
    let Affinity::Pinned {
        cpus: wanted,
        order,
    } = affinity
    else {
        return Ok(Vec::new());
    };
    if cpus.is_empty() {
        return Err(PlanError::NoCpu);
    }
    let chosen: Vec<CpuTopology> = if wanted.is_empty() {
        cpus.to_vec()
    } else {
        let mut chosen = Vec::with_capacity(wanted.len());
        for &cpu in wanted {
            let topo =
                cpus.iter()
                    .find(|c| c.cpu == cpu)
                    .ok_or_else(|| PlanError::UnavailableCpu {
                        cpu,
                        available: cpu_list(&cpus.iter().map(|c| c.cpu).collect::<Vec<_>>()),
                    })?;
            chosen.push(*topo);
        }
        chosen
    };
    Ok(ordered(&chosen, *order))
}

/// DiskSpd 2.3's ordering: a stable sort by SMT pass (core-aware), efficiency class (P- or E-cores
/// first, within each pass or across all passes), then the original order.
fn ordered(cpus: &[CpuTopology], order: CpuOrder) -> Vec<u32> {
    let hybrid = cpus
        .iter()
        .any(|c| c.efficiency_class != cpus[0].efficiency_class);
    let top_class = cpus.iter().map(|c| c.efficiency_class).max().unwrap_or(0);
    let keyed: Vec<(u32, u32, usize, u32)> = cpus
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let pass = if order.core_aware {
                cpus[..i]
                    .iter()
                    .filter(|o| (o.socket, o.core) == (c.socket, c.core))
                    .count() as u32
            } else {
                0
            };
            let performance = c.efficiency_class == top_class;
            let class = match order.efficiency {
                _ if !hybrid => 0,
                Efficiency::PFirst | Efficiency::FillPFirst => !performance as u32,
                Efficiency::EFirst | Efficiency::FillEFirst => performance as u32,
                Efficiency::Unordered => 0,
            };
            (pass, class, i, c.cpu)
        })
        .collect();
    let mut keyed = keyed;
    match order.efficiency {
        Efficiency::FillPFirst | Efficiency::FillEFirst => {
            keyed.sort_by_key(|&(pass, class, i, _)| (class, pass, i))
        }
        _ => keyed.sort_by_key(|&(pass, class, i, _)| (pass, class, i)),
    }
    keyed.into_iter().map(|(_, _, _, cpu)| cpu).collect()
}

pub use crate::units::cpu_list;

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::cli::{self, Command};
    use crate::profile::{self, ThreadTarget as XmlThreadTarget};

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

    fn flat(n: u32) -> Vec<CpuTopology> {
        (0..n)
            .map(|cpu| CpuTopology {
                cpu,
                socket: 0,
                node: 0,
                core: cpu,
                efficiency_class: 0,
            })
            .collect()
    }

    #[test]
    fn threads_per_target() {
        let plans = threads(
            &timespan(&["-t2", "-o4", "-z10", "-a", "a", "b"]),
            &flat(3),
            0,
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
        assert_eq!(plans[0].targets[0].sharing_threads, 2);
    }

    #[test]
    fn fixed_pool_serves_every_target() {
        let plans = threads(&timespan(&["-F3", "-o2", "a", "b"]), &flat(1), 0).unwrap();
        assert_eq!(plans.len(), 3);
        assert!(
            plans
                .iter()
                .all(|p| p.targets.len() == 2 && p.slots() == 4 && p.pool.is_none())
        );
        assert_eq!(plans[2].targets[1].relative_thread, 2);
        // Each target has its own two slots, one after the other.
        let layout: Vec<(u32, u32)> = plans[0]
            .targets
            .iter()
            .map(|t| (t.first_slot, t.slots))
            .collect();
        assert_eq!(layout, [(0, 2), (2, 2)]);
        let served: Vec<Vec<usize>> = (0..4).map(|s| plans[0].served_by(s).collect()).collect();
        assert_eq!(served, [vec![0], vec![0], vec![1], vec![1]]);
    }

    #[test]
    fn request_pool_with_weights_and_thread_targets() {
        let mut ts = timespan(&["-F2", "-O8", "a", "b"]);
        assert!(
            threads(&ts, &flat(1), 0)
                .unwrap()
                .iter()
                .all(|p| p.pool == Some(8) && p.slots() == 8)
        );
        // Every slot of a pool serves every target.
        let pooled = &threads(&ts, &flat(1), 0).unwrap()[0];
        assert!(
            pooled
                .targets
                .iter()
                .all(|t| (t.first_slot, t.slots) == (0, 8))
        );
        assert!((0..8).all(|s| pooled.served_by(s).count() == 2));
        ts.targets[0].weight = 3;
        ts.targets[1].thread_targets = vec![XmlThreadTarget {
            thread: 1,
            weight: 5,
        }];
        let plans = threads(&ts, &flat(1), 0).unwrap();
        assert_eq!(plans[0].targets.len(), 1, "thread 0 does not use b");
        assert_eq!(
            plans[1]
                .targets
                .iter()
                .map(|t| t.weight)
                .collect::<Vec<_>>(),
            vec![3, 5]
        );
        assert_eq!(plans[1].targets[1].relative_thread, 0);
        ts.targets[0].thread_targets = vec![XmlThreadTarget {
            thread: 1,
            weight: 0,
        }];
        assert_eq!(
            threads(&ts, &flat(1), 0).unwrap_err(),
            PlanError::IdleThread(0)
        );
    }

    #[test]
    fn explicit_and_disabled_affinity() {
        let plans = threads(&timespan(&["-t3", "-a1", "a"]), &flat(2), 0).unwrap();
        assert!(plans.iter().all(|p| p.cpu == Some(1)));
        let plans = threads(&timespan(&["-n", "a"]), &flat(2), 0).unwrap();
        assert_eq!(plans[0].cpu, None);
        // DiskSpd's default: round-robin over the CPUs this process may use, in CPU order.
        let plans = threads(&timespan(&["-t3", "a"]), &flat(2), 0).unwrap();
        let cpus: Vec<_> = plans.iter().map(|p| p.cpu).collect();
        assert_eq!(cpus, [Some(0), Some(1), Some(0)]);
        // A second process on the host starts its round robin after the first one's threads.
        let plans = threads(&timespan(&["-t3", "a"]), &flat(4), 3).unwrap();
        let cpus: Vec<_> = plans.iter().map(|p| p.cpu).collect();
        assert_eq!(cpus, [Some(3), Some(0), Some(1)]);
        let err = threads(&timespan(&["-a5", "a"]), &flat(4), 0).unwrap_err();
        assert_eq!(
            err,
            PlanError::UnavailableCpu {
                cpu: 5,
                available: "0-3".into()
            }
        );
    }

    #[test]
    fn core_aware_and_hybrid_orders() {
        // Two cores with two SMT siblings each: CPUs 0,1 on core 0 and 2,3 on core 1.
        let smt: Vec<CpuTopology> = (0..4)
            .map(|cpu| CpuTopology {
                cpu,
                socket: 0,
                node: 0,
                core: cpu / 2,
                efficiency_class: 0,
            })
            .collect();
        let order = |o: CpuOrder, cpus: &[CpuTopology]| ordered(cpus, o);
        assert_eq!(order(CpuOrder::default(), &smt), vec![0, 1, 2, 3]);
        let core_aware = CpuOrder {
            core_aware: true,
            ..CpuOrder::default()
        };
        assert_eq!(order(core_aware, &smt), vec![0, 2, 1, 3]);
        // Hybrid: CPUs 0-1 are E-cores (class 0), 2-3 P-cores (class 1).
        let hybrid: Vec<CpuTopology> = (0..4)
            .map(|cpu| CpuTopology {
                cpu,
                socket: 0,
                node: 0,
                core: cpu,
                efficiency_class: (cpu >= 2) as u32,
            })
            .collect();
        assert_eq!(
            order(CpuOrder::default(), &hybrid),
            vec![2, 3, 0, 1],
            "P-cores first"
        );
        let e_first = CpuOrder {
            efficiency: Efficiency::EFirst,
            ..CpuOrder::default()
        };
        assert_eq!(order(e_first, &hybrid), vec![0, 1, 2, 3]);
        let unordered = CpuOrder {
            efficiency: Efficiency::Unordered,
            ..CpuOrder::default()
        };
        assert_eq!(order(unordered, &hybrid), vec![0, 1, 2, 3]);
    }

    #[test]
    fn cpu_ranges() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 7]), "0-3,7");
        assert_eq!(cpu_list(&[5, 1, 3, 2]), "1-3,5");
        assert_eq!(cpu_list(&[]), "");
    }
}
