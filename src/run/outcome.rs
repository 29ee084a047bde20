//! How a run ended, in the words printed after the report, and the exit status.

use crate::exit::EXIT_RUN_ERROR;
use crate::profile::{CacheMode, Profile, Target};
use crate::run::{STOP, STOP_SIGNAL};
use crate::stats::{IoFailure, RunResults};

/// The exit status of a run whose report is out, and the lines that say why.
pub fn ending(profile: &Profile, results: &RunResults) -> (u8, Vec<String>) {
    let mut lines = Vec::new();
    let mut code = 0;
    if let Some((index, last)) = results.timespans.iter().enumerate().next_back() {
        let target = |i: usize| &profile.timespans[index].targets[i];
        if let Some(failure) = &last.failure {
            lines.push(format!(
                "iospd: {}",
                describe_failure(failure, target(failure.target), profile.engine)
            ));
            code = EXIT_RUN_ERROR;
        } else if let Some(lost) = &last.lost {
            lines.push(format!(
                "iospd: '{}' {}; the run stopped and the results above cover the time before that",
                target(lost.target).path.display(),
                lost.what
            ));
            code = EXIT_RUN_ERROR;
        } else if last.window.is_none() {
            lines.push("iospd: interrupted before the measured window began; no results".into());
            code = EXIT_RUN_ERROR;
        } else if let Some(by) = results.timespans.iter().find_map(|t| t.stopped_by.as_ref()) {
            lines.push(format!(
                "iospd: {by} cut the run short; the results cover the measured window up to it"
            ));
            // A signal has an exit status of its own (128 + its number), so scripts can tell a
            // shortened run from a whole one; the profile's own -yp event is a normal end.
            let signal = STOP_SIGNAL.load(std::sync::atomic::Ordering::SeqCst);
            if signal != 0 {
                code = crate::exit::interrupted_status(signal);
            }
        } else if (STOP.load(std::sync::atomic::Ordering::SeqCst) != 0 && !replay_ended(last))
            || last.interrupted
        {
            lines.push(
                "iospd: interrupted; the results cover the measured window up to the interruption"
                    .into(),
            );
        }
    }
    // --verify: every bad block, in any timespan, fails the run (after the report).
    let bad: u64 = results
        .timespans
        .iter()
        .filter_map(|t| t.verify.as_ref())
        .map(|v| v.failed.total())
        .sum();
    if bad > 0 {
        lines.push(format!(
            "iospd: --verify found {bad} bad block{} (the report lists the first with what was expected and what was found)",
            if bad == 1 { "" } else { "s" }
        ));
        code = EXIT_RUN_ERROR;
    }
    if let Some(why) = &results.unsaved {
        lines.push(format!("iospd: {why}"));
        code = EXIT_RUN_ERROR;
    }
    if let Some(why) = &results.aborted {
        lines.push(format!(
            "iospd: timespan {} could not start: {why}; the results above cover the timespans before it",
            results.timespans.len() + 1
        ));
        code = EXIT_RUN_ERROR;
    }
    (code, lines)
}

/// Whether a replay ended the timespan by reaching the end of its trace (which stops the run as
/// a request would).
fn replay_ended(results: &crate::stats::TimeSpanResults) -> bool {
    results
        .threads
        .iter()
        .any(|t| t.replay.as_ref().is_some_and(|r| r.ended))
}

/// The failed or short I/O that stopped a run: what, where, by which thread, and the kernel's word.
fn describe_failure(
    failure: &IoFailure,
    target: &Target,
    engine: crate::engine::EngineKind,
) -> String {
    let what = if let Some(ns) = failure.latency_ns {
        format!(
            "it took {}, longer than --max-latency={} allows (ETIMEDOUT, as fio's max_latency)",
            crate::units::format_duration(ns as f64),
            target
                .max_latency
                .map(|m| m.to_string())
                .unwrap_or_default()
        )
    } else if failure.result == -libc::ETIMEDOUT {
        format!(
            "no answer {} s after the run stopped issuing (has the device stopped responding?); it was cancelled, and any I/O the kernel still holds keeps its buffers until iospd exits",
            crate::worker::DRAIN_LIMIT / 1_000_000_000
        )
    } else if failure.result < 0 {
        let mut text = failure.what();
        if failure.result == -libc::EINVAL && target.cache == CacheMode::DisableOsCache {
            text.push_str(" (O_DIRECT needs offsets, sizes and buffers aligned to the device's logical block size)");
        }
        if failure.result == -libc::EFAULT && target.memory_mapped {
            text.push_str(
                " (the file shrank under its memory mapping, -Sm, and the kernel raised SIGBUS)",
            );
        }
        text
    } else {
        failure.what()
    };
    if engine.calls_files() {
        return format!(
            "the {engine} call on '{}' by thread {} failed: {what}; the run stopped and the results above cover the time before the failure",
            target.path.display(),
            failure.thread
        );
    }
    let op = failure.op.name();
    format!(
        "{op} of {} bytes at offset {} on '{}' by thread {} failed: {what}; the run stopped and the results above cover the time before the failure",
        failure.len,
        failure.offset,
        target.path.display(),
        failure.thread
    )
}
