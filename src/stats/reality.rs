//! The facts a run gathers to say whether it measured the device: what reached each device under
//! the targets during the measured window, what lies on each target's path (a file system or a
//! device that compresses), how compressible the data written is, and what making it costs.

use serde::{Deserialize, Serialize};

use crate::system::backing::{BlockDevice, DiskStat};
use crate::system::devclock::ClockCounts;

/// One device under the targets and its counters over the measured window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskWindow {
    /// The device.
    pub device: BlockDevice,
    /// The targets (indices in the timespan) on it.
    pub targets: Vec<usize>,
    /// What reached it in the window; `None` when its counters could not be read.
    pub window: Option<DiskStat>,
    /// Under `-D`: what reached it in each interval of the window (empty when a sample could
    /// not be read).
    #[serde(default)]
    pub intervals: Vec<DiskStat>,
    /// The device clock's counts over the window, read and write; `None` when it did not run.
    #[serde(default)]
    pub clock: Option<[ClockCounts; 2]>,
    /// Under `-D`, with the clock: its counts over each interval of the window.
    #[serde(default)]
    pub clock_intervals: Vec<[ClockCounts; 2]>,
}

/// What lies under one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathFacts {
    /// The file system's type, for a file (`None` for a device).
    pub fs_type: Option<String>,
    /// Compression on the way to the storage (`zram (lz4)`, `btrfs compress-force=zstd:3`).
    pub compression: Option<String>,
    /// The written data's own lz4 ratio (one block as the run makes it); `None` for a run that
    /// does not write.
    pub data_ratio: Option<f64>,
    /// Nanoseconds to make one written block's data, timed after the run (`None` without writes).
    pub generation_ns: Option<f64>,
}

/// Everything above, for one timespan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RealityFacts {
    /// The devices under the targets.
    pub disks: Vec<DiskWindow>,
    /// Per target.
    pub paths: Vec<PathFacts>,
    /// Why the device clock did not run, in one line (`None` when it ran, or had no device).
    #[serde(default)]
    pub clock_off: Option<String>,
}
