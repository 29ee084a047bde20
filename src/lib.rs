//! iospd: DiskSpd's command line, defaults and report on Linux, measured with io_uring.
//!
//! A run is a pipeline of plain data. The command line is split into tokens and read flag by flag
//! into [`cli::RawArgs`] (exactly what was typed); [`profile::resolve`] applies DiskSpd's defaults,
//! resolves sizes in blocks and checks the cross-option rules, giving a [`profile::Profile`].
//! [`plan::threads`] decides which thread serves which targets on which CPU;
//! [`targets::prepare`] checks, creates and opens the targets; [`run::execute`] starts the
//! threads behind a barrier, each driving its [`engine`] through the [`worker`] loop, and collects
//! [`stats::RunResults`]. [`report::Report`] computes every printed number once, and
//! [`report::text`] lays them out as DiskSpd does.

pub mod cli;
pub mod clock;
pub mod cluster;
pub mod commands;
pub mod console;
pub mod counters;
pub mod data;
pub mod engine;
pub mod errno;
mod error;
pub mod events;
mod exit;
pub mod fiojob;
pub mod input;
pub mod live;
pub mod output;
pub mod permute;
pub mod plan;
pub mod profile;
pub mod replay;
pub mod report;
pub mod rng;
pub mod run;
pub mod safety;
pub mod scatter;
pub mod session;
pub mod stats;
pub mod sweep;
pub mod system;
pub mod targets;
pub mod trace;
pub mod units;
pub mod verify;
pub mod wall;
pub mod worker;

pub use error::Error;
pub use exit::{EXIT_BAD_INPUT, EXIT_RUN_ERROR, answer_stop_signals};
