//! What the report computes: the model built from the measurements ([`build`]), runs merged
//! ([`merge`]), compared ([`compare`], [`noise`], [`metric`]), repeated ([`repetitions`]), swept
//! ([`sweep`]), searched ([`slo`]) and gathered across ranks ([`cluster`]). Nothing here formats.

pub(crate) mod build;
pub mod cluster;
pub mod compare;
pub(crate) mod device_time;
pub mod fio;
pub mod inputs;
pub mod merge;
pub mod metric;
pub(crate) mod neighbours;
pub mod noise;
pub(crate) mod priorities;
pub(crate) mod reality;
pub mod repetitions;
pub mod replay;
pub(crate) mod sizes;
pub mod slo;
pub mod sweep;
