//! The link over MPI (`--features mpi`): the launcher (`mpirun`, `srun`, the MPI Operator) starts
//! the ranks and MPI carries the messages. Only the main thread calls MPI (funneled threading), so
//! the I/O threads never wait on it.

use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::{Count, Tag, Threading};

use super::link::Link;

/// The tag of every message: one tag keeps the messages between two ranks in the order they were
/// sent.
const TAG: Tag = 17;

/// MPI, initialised for as long as it lives (dropping it finalises MPI).
pub struct MpiLink {
    world: SimpleCommunicator,
    // Declared last: dropped after the communicator, it finalises MPI.
    _universe: Universe,
}

impl MpiLink {
    /// Initialises MPI when a launcher started this process; `None` when none did, or when MPI
    /// cannot give the main thread the funneled threading it needs.
    pub fn join() -> Option<Result<MpiLink, String>> {
        if !launched() {
            return None;
        }
        let (universe, threading) = mpi::initialize_with_threading(Threading::Funneled)?;
        if threading < Threading::Funneled {
            return Some(Err(format!(
                "the MPI library offers {threading:?} threading and iospd needs Funneled (only the main thread calls MPI while the I/O threads run); use an MPI library built with thread support"
            )));
        }
        Some(Ok(MpiLink {
            world: universe.world(),
            _universe: universe,
        }))
    }
}

/// Whether an MPI launcher started this process: the variables Open MPI, MPICH/Hydra, PMI and PMIx
/// (Slurm's `srun`) set. Without one the binary runs on its own and never initialises MPI, so it
/// behaves exactly as one built without MPI.
fn launched() -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "PMI_RANK",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some())
}

impl Link for MpiLink {
    fn rank(&self) -> u32 {
        self.world.rank() as u32
    }

    fn ranks(&self) -> u32 {
        self.world.size() as u32
    }

    fn send(&self, to: u32, message: &[u8]) {
        self.world
            .process_at_rank(to as i32)
            .send_with_tag(message, TAG);
    }

    fn try_receive(&self) -> Option<(u32, Vec<u8>)> {
        let probed = self
            .world
            .any_process()
            .immediate_matched_probe_with_tag(TAG)?;
        let (bytes, status) = probed.matched_receive_vec::<u8>();
        Some((status.source_rank() as u32, bytes))
    }

    fn try_receive_from(&self, from: u32) -> Option<Vec<u8>> {
        let probed = self
            .world
            .process_at_rank(from as i32)
            .immediate_matched_probe_with_tag(TAG)?;
        Some(probed.matched_receive_vec::<u8>().0)
    }

    fn gather(&self, part: &[u8]) -> Option<super::link::Gathered> {
        let root = self.world.process_at_rank(0);
        let length = part.len() as Count;
        if self.world.rank() != 0 {
            root.gather_into(&length);
            root.gather_varcount_into(part);
            return None;
        }
        let mut lengths = vec![0 as Count; self.world.size() as usize];
        root.gather_into_root(&length, &mut lengths[..]);
        let offsets: Vec<Count> = lengths
            .iter()
            .scan(0, |at, &n| {
                let here = *at;
                *at += n;
                Some(here)
            })
            .collect();
        let total: usize = lengths.iter().map(|&n| n as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut parts = PartitionMut::new(&mut all[..], &lengths[..], &offsets[..]);
            root.gather_varcount_into_root(part, &mut parts);
        }
        Some(super::link::Gathered {
            bytes: all,
            lengths: lengths.iter().map(|&n| n as usize).collect(),
        })
    }

    fn abort(&self, code: u8) -> ! {
        self.world.abort(code as i32)
    }
}
