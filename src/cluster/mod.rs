//! One measurement across many hosts: the same command on every rank of an MPI job, a common
//! start, and one exact report.
//!
//! `mpirun -np N iospd <options> <targets>` starts N processes (ranks). Each expands `{rank}`,
//! `{ranks}` and `{host}` in its paths, checks everything on its own, and then they agree at the
//! points of [`crate::run::Peers`]: rank 0 collects every rank's answer and tells each what all do
//! next (see [`agree`]). Before each timespan rank 0 measures every rank's clock offset and hands
//! each the start instant on its own clock; while the load runs, a stop anywhere (a signal, a
//! failed I/O, a lost target) reaches every rank; at the end rank 0 gathers every rank's report
//! and merges them (see [`results`]). Only the main thread of each rank talks to the others; the
//! I/O threads never wait on MPI.
//!
//! Without a launcher (or without `--features mpi`) the process is alone: it agrees with itself,
//! and starts at once or at `--start-at`.

mod agree;
pub mod claims;
pub mod clocks;
pub mod expand;
pub mod link;
mod message;
#[cfg(feature = "mpi")]
mod mpi;
mod reduce;
mod results;
#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use crate::console::shout;
use crate::profile::Profile;
use crate::report::analysis::cluster::RankClock;
use crate::run::Refusal;
pub use expand::Whoami;
use link::Link;
use message::Message;
pub use results::Finished;

/// How many processes a launcher (Open MPI, MPICH/Hydra, PMI/PMIx, a Slurm step) says it started
/// alongside this one, and the variable that says so, when one does: the largest count any of its
/// variables gives. Slurm's `SLURM_STEP_NUM_TASKS` counts only inside a task of a step (with
/// `SLURM_PROCID`); `SLURM_NTASKS` alone is a batch script's allocation, not copies started.
fn launched_copies() -> Option<(&'static str, u32)> {
    let count = |name: &'static str| {
        let n: u32 = std::env::var(name).ok()?.trim().parse().ok()?;
        Some((name, n))
    };
    let slurm = std::env::var_os("SLURM_PROCID").and_then(|_| count("SLURM_STEP_NUM_TASKS"));
    ["OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"]
        .into_iter()
        .filter_map(count)
        .chain(slurm)
        .max_by_key(|&(_, n)| n)
}

/// The refusal of copies a launcher started that cannot run as one measurement, when `ranks` is
/// how many MPI sees (1 without MPI): a launcher that says more is refused, since each copy would
/// run the whole test on its own, on the same targets.
fn refuse_lone_copies(ranks: u32, with_mpi: bool) -> Option<String> {
    let (variable, copies) = launched_copies().filter(|&(_, n)| n > 1 && ranks == 1)?;
    Some(if with_mpi {
        format!(
            "iospd: the launcher started {copies} copies ({variable}={copies}) but MPI sees this one alone (a world of 1 rank): each would run the whole test on its own, on the same targets. Launch them as one MPI job: use srun --mpi=pmix or mpirun (srun --mpi=list shows what Slurm offers)"
        )
    } else {
        format!(
            "iospd: a launcher started {copies} copies ({variable}={copies}) of an iospd built without MPI; each would run the whole test on its own, on the same targets. Build with MPI (cargo build --release --features mpi; README, \"Many hosts\"), or run iospd without the launcher"
        )
    })
}

/// This process's place in the measurement: alone, or one rank of many.
pub struct Cluster {
    link: Option<Box<dyn Link>>,
    who: Whoami,
    /// The host name and boot id: what tells two machines with one name apart.
    machine: String,
    state: RefCell<State>,
    /// Rank 0: writes a partial report of its own results (see [`Cluster::last_words`]).
    last_words: RefCell<Option<LastWords>>,
    /// Rank 0: its results so far, kept for the last words.
    so_far: RefCell<Option<crate::stats::RunResults>>,
}

/// What rank 0 does with its own results when the run cannot end together: writes them as a
/// partial report saying why, to the `--output` files (and, when the run is being given up, to
/// standard output if there are none).
pub type LastWords = Box<dyn Fn(&crate::stats::RunResults, &str, bool)>;

/// What the agreements have learnt so far.
struct State {
    /// `--peer-timeout`.
    timeout: Duration,
    /// `--start-at`, for a process on its own; used by the first timespan.
    start_at: Option<SystemTime>,
    /// The paths this rank creates or writes.
    claims: Vec<claims::FileClaim>,
    /// The checks have been agreed on (or refused).
    agreed: bool,
    /// Rank 0: each rank's host, once they have said.
    hosts: Vec<String>,
    /// Rank 0: messages that arrived before their agreement.
    held: VecDeque<(u32, Message)>,
    /// A stop was heard from another rank in this timespan.
    stop_heard: bool,
    /// This rank's own stop (or rank 0's relay) has been passed on.
    stop_spread: bool,
    /// This rank stopped because another did, and did not stop on its own first.
    stopped_by_peer: bool,
    /// Rank 0: the current timespan's offsets, measured before its start.
    offsets: Vec<clocks::Offset>,
    /// Rank 0: each finished timespan's clock per rank.
    clocks: Vec<Vec<RankClock>>,
    /// How long before each timespan's start this rank heard of it, and the margin.
    slack: Vec<(i64, u64)>,
    /// Rank 0: the latest live numbers (`--metrics`) of each rank heard from, not yet taken in.
    live: std::collections::BTreeMap<u32, crate::live::metrics::Own>,
    /// Another rank: the state of its numbers last sent to rank 0, and when.
    live_sent: Option<(u64, std::time::Instant)>,
}

impl Cluster {
    /// A process on its own.
    pub fn alone() -> Cluster {
        Cluster::with(None, 0, 1)
    }

    /// Joins the MPI job that launched this process, or stays alone without one. A launched
    /// process that cannot join says why and ends.
    pub fn join() -> Cluster {
        #[cfg(feature = "mpi")]
        match mpi::MpiLink::join() {
            Some(Ok(link)) => {
                let (rank, ranks) = (link.rank(), link.ranks());
                if let Some(why) = refuse_lone_copies(ranks, true) {
                    // Leaves MPI first, so the launcher sees a plain exit.
                    drop(link);
                    shout(&why);
                    std::process::exit(crate::EXIT_BAD_INPUT as i32);
                }
                if rank != 0 {
                    crate::console::mute();
                }
                return Cluster::with(Some(Box::new(link)), rank, ranks);
            }
            Some(Err(why)) => {
                shout(&format!("iospd: {why}"));
                std::process::exit(crate::EXIT_RUN_ERROR as i32);
            }
            None => {}
        }
        if let Some(why) = refuse_lone_copies(1, cfg!(feature = "mpi")) {
            shout(&why);
            std::process::exit(crate::EXIT_BAD_INPUT as i32);
        }
        Cluster::alone()
    }

    fn with(link: Option<Box<dyn Link>>, rank: u32, ranks: u32) -> Cluster {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_default();
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
        Cluster {
            link,
            machine: format!("{host}/{}", boot.trim()),
            who: Whoami { rank, ranks, host },
            state: RefCell::new(State {
                timeout: Duration::from_secs(crate::profile::DEFAULT_PEER_TIMEOUT as u64),
                start_at: None,
                claims: Vec::new(),
                agreed: false,
                hosts: Vec::new(),
                held: VecDeque::new(),
                stop_heard: false,
                stop_spread: false,
                stopped_by_peer: false,
                offsets: Vec::new(),
                clocks: Vec::new(),
                slack: Vec::new(),
                live: std::collections::BTreeMap::new(),
                live_sent: None,
            }),
            last_words: RefCell::new(None),
            so_far: RefCell::new(None),
        }
    }

    /// Rank 0 of a run across ranks: `words` write its own results as a partial report when the
    /// run cannot end together — a rank that stops answering (before the run gives up after
    /// `--peer-timeout`), or a signal to rank 0 (a launcher ends every rank when one dies, and
    /// the final report may never come). A full report written later replaces it.
    pub fn last_words(&self, words: LastWords) {
        if self.link.is_some() && self.who.rank == 0 {
            *self.last_words.borrow_mut() = Some(words);
        }
    }

    /// Says the last words, if there are any to say; `giving_up` when the run ends here.
    fn say_last_words(&self, why: &str, giving_up: bool) {
        if let (Some(words), Some(so_far)) = (&*self.last_words.borrow(), &*self.so_far.borrow()) {
            words(so_far, why, giving_up);
        }
    }

    /// Who this process is.
    pub fn whoami(&self) -> &Whoami {
        &self.who
    }

    /// Whether this process speaks for the run: rank 0, or a process on its own.
    pub fn leads(&self) -> bool {
        self.who.rank == 0
    }

    /// The profile as this process runs it (its paths expanded), after the settings only a run
    /// across hosts has are taken in. Refuses what cannot work across ranks.
    pub fn prepare(&self, profile: &Profile) -> Result<Profile, Refusal> {
        let mut mine = expand::expand(profile, &self.who);
        {
            let mut state = self.state.borrow_mut();
            state.timeout = Duration::from_secs(profile.peer_timeout_s as u64);
            state.start_at = profile.start_at_unix_ns.map(crate::wall::from_unix_ns);
            state.claims = claims::claims(&mine);
        }
        if self.link.is_some() {
            if profile.observe.checkpoint_s.is_some() {
                return Err(Refusal {
                    code: crate::EXIT_BAD_INPUT,
                    message: "--checkpoint is not available in a run across ranks (rank 0 would write its own results only); drop it, or stream every rank's intervals with --timeseries=run-{rank}.csv".into(),
                });
            }
            if profile.start_at_unix_ns.is_some() {
                return Err(Refusal {
                    code: crate::EXIT_BAD_INPUT,
                    message: "--start-at starts independent instances together; under MPI the ranks agree on their start themselves, so drop --start-at".into(),
                });
            }
            if !self.leads() {
                // Only rank 0 writes the report files.
                mine.outputs.clear();
            }
        }
        Ok(mine)
    }

    /// A refusal found before the run could agree on its checks: the other ranks hear of it, and
    /// the refusal every rank then reports comes back (this one's own, on its own).
    pub fn refuse(&self, refusal: Refusal) -> Refusal {
        if self.state.borrow().agreed {
            return refusal;
        }
        match crate::run::Peers::checked(self, Err(refusal.clone())) {
            Err(agreed) => agreed,
            Ok(()) => refusal,
        }
    }

    /// The host of `rank`, as far as this process knows (rank 0 learns every rank's at the
    /// checks).
    fn host_of(&self, rank: u32) -> Option<String> {
        if rank == self.who.rank {
            return Some(self.who.host.clone());
        }
        self.state.borrow().hosts.get(rank as usize).cloned()
    }

    /// `rank N (host)`, or `rank N` while its host is unknown.
    fn name_of(&self, rank: u32) -> String {
        match self.host_of(rank) {
            Some(host) => format!("rank {rank} ({host})"),
            None => format!("rank {rank}"),
        }
    }

    /// Ends every rank: a rank stopped answering, so it can be neither waited for nor told.
    fn give_up(&self, why: String) -> ! {
        shout(&format!(
            "iospd: rank {} ({}): {why}",
            self.who.rank, self.who.host
        ));
        self.say_last_words(&format!(
            "{why}; this report holds rank 0's own results only, written before the run was given up"
        ), true);
        match &self.link {
            Some(link) => link.abort(crate::EXIT_RUN_ERROR),
            None => std::process::exit(crate::EXIT_RUN_ERROR as i32),
        }
    }
}
