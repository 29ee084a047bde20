//! `--bssplit`: a target's reads and writes by block size, every thread added.

use serde::{Deserialize, Serialize};

/// One target's sizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockSizeReport {
    /// The path.
    pub path: String,
    /// Each size of the split, ascending.
    pub sizes: Vec<SizeRow>,
}

/// One size: its reads and writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeRow {
    /// Bytes per I/O.
    pub size_bytes: u64,
    /// Reads of this size.
    pub read: SizeOps,
    /// Writes of this size.
    pub write: SizeOps,
}

/// The measured I/Os of one size and direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeOps {
    /// Completed in the measured window.
    pub ios: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Per second of the window.
    pub ios_per_s: f64,
    /// Bytes per second of the window.
    pub bytes_per_s: f64,
    /// Smallest latency (0 without I/O).
    pub min_ns: u64,
    /// Mean latency.
    pub mean_ns: f64,
    /// Largest latency.
    pub max_ns: u64,
    /// Standard deviation of the latency.
    pub stddev_ns: f64,
}
