//! DiskSpd's cross-field rules on a typed profile: errors that stop the run, warnings that do not.

use super::{Access, Profile, ProfileError, WriteBuffer};
use crate::cli::flags::MAX_THREADS;

/// Checks the profile; returns DiskSpd's warnings when it can run.
pub fn validate(profile: &Profile) -> Result<Vec<String>, ProfileError> {
    let mut warnings = Vec::new();
    for ts in &profile.timespans {
        let total_threads: u64 = match ts.thread_count {
            Some(n) => n as u64,
            None => ts.targets.iter().map(|t| t.threads_per_target as u64).sum(),
        };
        if total_threads > MAX_THREADS {
            return Err(ProfileError::Invalid(format!(
                "{total_threads} threads in all is more than the {MAX_THREADS} iospd runs; lower -t or use fewer targets"
            )));
        }
        for target in &ts.targets {
            let threads = ts.threads_per_target(target);
            let path = target.path.display();
            if target.thread_stride > 0 && threads < 2 {
                return Err(ProfileError::Invalid(format!(
                    "-T staggers the start offsets of several threads, but '{path}' has one thread; add -t2 or more, or drop -T"
                )));
            }
            if let WriteBuffer::Source { size, .. } = target.write_buffer
                && size < target.block_size
            {
                return Err(ProfileError::Invalid(format!(
                    "-Z: the write source buffer ({size} bytes) is smaller than the block size ({}); make it at least -Z{}",
                    target.block_size, target.block_size
                )));
            }
            if let Some(max) = target.max_size
                && max <= target.base_offset
            {
                return Err(ProfileError::Invalid(format!(
                    "-f{max} ends the range at or before the base offset -B{}; make -f larger than -B",
                    target.base_offset
                )));
            }
            if let Access::Sequential { interlocked, .. } = target.access {
                if interlocked && threads < 2 {
                    warnings.push(format!(
                        "WARNING: -si has no effect with a single thread on '{path}'"
                    ));
                }
                if !interlocked && threads > 1 && target.thread_stride == 0 {
                    warnings.push(format!(
                        "WARNING: {threads} threads read '{path}' sequentially from the same start, so the target does not see a sequential pattern; consider -si or -T"
                    ));
                }
            }
        }
    }
    Ok(warnings)
}
