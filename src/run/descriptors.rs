//! File descriptors checked before the run: one per target, per output place and stream, one
//! io_uring ring per thread, and the few the process itself holds, against `ulimit -n` (after
//! [`crate::system::raise_open_file_limit`] has raised it as far as it goes). A run past the limit
//! would fail when a thread sets up its ring, after files were created.

use super::RunError;
use crate::engine::EngineKind;
use crate::plan::ThreadPlan;
use crate::safety::Cleared;

/// What the process holds besides: the standard streams and two files read or replaced in passing
/// (/proc and /sys facts, a checkpoint or state being saved).
const PROCESS: u64 = 5;

/// Refuses a run that needs more descriptors than `limit` allows, with the numbers and the fix.
pub fn check(
    plans: &[Vec<ThreadPlan>],
    cleared: &Cleared,
    engine: EngineKind,
    limit: Option<u64>,
) -> Result<(), RunError> {
    let Some(limit) = limit else { return Ok(()) };
    let outputs = &cleared.outputs;
    // A stream holds its directory and its file; a replaced output its directory.
    let streams = [&outputs.timeseries, &outputs.histlog, &outputs.trace]
        .iter()
        .filter(|o| o.is_some())
        .count() as u64;
    let places = outputs.reports.len() as u64 + outputs.verify_state.is_some() as u64;
    let files = cleared.anchors.len() as u64 + 2 * streams + places;
    let threads = plans.iter().map(Vec::len).max().unwrap_or(0) as u64;
    let rings = if engine == EngineKind::IoUring {
        threads
    } else {
        0
    };
    let needed = PROCESS + files + rings;
    if needed <= limit {
        return Ok(());
    }
    Err(RunError::Descriptors(format!(
        "the run needs {needed} open files ({rings} io_uring rings for {threads} threads, {files} for targets and outputs, {PROCESS} for the process) and the limit is {limit}; raise it (ulimit -n {needed}) or use fewer threads (-t, -F)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_per_thread_counts_against_the_limit() {
        let cleared = Cleared::default();
        let plan = ThreadPlan {
            thread: 0,
            cpu: None,
            seed: 0,
            targets: Vec::new(),
            pool: None,
        };
        let plans = vec![vec![plan; 64]];
        let err = check(&plans, &cleared, EngineKind::IoUring, Some(16)).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "the run needs 69 open files (64 io_uring rings for 64 threads, 0 for targets"
            ),
            "{err}"
        );
        assert_eq!(err.exit_code(), crate::EXIT_BAD_INPUT);
        assert!(check(&plans, &cleared, EngineKind::IoUring, Some(69)).is_ok());
        assert!(check(&plans, &cleared, EngineKind::Psync, Some(16)).is_ok());
        assert!(check(&plans, &cleared, EngineKind::IoUring, None).is_ok());
    }
}
