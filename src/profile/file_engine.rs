//! The rules of the file engines (`--engine=stat|lstat|statx|unlink|create|ftruncate`): each I/O
//! is a call on its target as a file, so what moves data or maps it has no meaning there, and the
//! engines that remove or create a target need exactly one call on it.

use super::{Profile, ProfileError, TimeSpan};
use crate::engine::EngineKind;

/// Checks a profile run with a file engine.
pub(super) fn check(profile: &Profile) -> Result<(), ProfileError> {
    let engine = profile.engine;
    if !engine.calls_files() {
        return Ok(());
    }
    let refuse = |what: String| Err(ProfileError::Invalid(format!("--engine={engine}: {what}")));
    if profile.verify.is_some() {
        return refuse("no data moves, so there is nothing to --verify; drop --verify".into());
    }
    if profile.replay.is_some() {
        return refuse(
            "a replay reads and writes data; replay with --engine=io_uring or psync".into(),
        );
    }
    for ts in &profile.timespans {
        for target in &ts.targets {
            let path = target.path.display();
            if target.memory_mapped {
                return refuse(format!("'{path}': -Sm maps the file for memcpy; drop -Sm"));
            }
            let trims = engine == EngineKind::Fallocate;
            if (target.trim_percent > 0 && !trims) || target.flush_every.is_some() {
                return refuse(format!(
                    "'{path}': each I/O is one call on the file, not a trim or a flush; drop --trim, --fsync and --fdatasync"
                ));
            }
            if engine == EngineKind::Ftruncate && target.write_ratio != 100 {
                return refuse(format!(
                    "'{path}': each write sets the file's length to its offset, and a read has no counterpart; use -w100"
                ));
            }
            if engine.once_per_target() {
                once(engine, ts, target).map_err(|what| {
                    ProfileError::Invalid(format!("--engine={engine}: '{path}': {what}"))
                })?;
            }
        }
    }
    Ok(())
}

/// A target an unlink or a create reaches takes one call: by one thread, in the measured window.
fn once(engine: EngineKind, ts: &TimeSpan, target: &super::Target) -> Result<(), String> {
    let verb = match engine {
        EngineKind::Unlink => "removes",
        _ => "creates",
    };
    let threads = ts.threads_per_target(target);
    if threads > 1 {
        return Err(format!(
            "each I/O {verb} the file, so one thread may reach it, not {threads}; use -t1 (or -F1)"
        ));
    }
    if ts.warmup_s > 0 || ts.cooldown_s > 0 {
        return Err(format!(
            "each I/O {verb} the file once, and warm-up or cool-down would call again; use -W0 -C0"
        ));
    }
    let one = target.work.is_some_and(|w| {
        w.range_percent.is_none()
            && (w.ios == Some(1) || w.bytes.is_some_and(|b| b <= target.block_size))
    });
    if !one {
        return Err(format!(
            "each I/O {verb} the file, so a thread makes one call on it; give --ios=1"
        ));
    }
    Ok(())
}
