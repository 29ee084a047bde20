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

/// `--ioprio-split`: one target's reads and writes by the I/O priority they were issued with,
/// every thread added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriorityReport {
    /// The path.
    pub path: String,
    /// Each priority: the target's own first, then the split's.
    pub priorities: Vec<PriorityRow>,
}

/// One priority: its class and level, its reads and writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriorityRow {
    /// Linux's class: 0 none set (the kernel's default, best effort 4), 1 real time, 2 best
    /// effort, 3 idle.
    pub class: u8,
    /// The level, 0 (highest) to 7.
    pub level: u8,
    /// Reads at it.
    pub read: super::Direction,
    /// Writes at it.
    pub write: super::Direction,
}

impl PriorityRow {
    /// Linux's `ioprio` value.
    pub fn ioprio(&self) -> u16 {
        u16::from(self.class) << 13 | u16::from(self.level)
    }
}
