//! What `--verify` refuses, before anything is written: blocks are verified in whole units of the
//! block size, so every I/O of a target must start on a block boundary from its base (`-B`), and
//! one file may be only one target (each target keeps its own table of generations). Written data
//! is the verifier's own, so `-Z` and `-Zr` make no sense with it.

use super::{Access, ProfileError, TimeSpan, WriteBuffer};
use crate::verify::format::SECTOR;

/// Checks one timespan of a `--verify` run.
pub fn check(ts: &TimeSpan) -> Result<(), ProfileError> {
    let refuse = |why: String| Err(ProfileError::Invalid(why));
    for (i, t) in ts.targets.iter().enumerate() {
        let block = t.block_size;
        let name = t.path.display();
        if t.block_split.is_some() {
            return refuse(format!(
                "--verify checks whole blocks of one size, and --bssplit varies the size of '{name}'s I/Os; drop one"
            ));
        }
        if block < SECTOR as u64 || block % SECTOR as u64 != 0 {
            return refuse(format!(
                "--verify stamps every 512-byte sector, and '{name}' has a {block}-byte block; give a block size that is a multiple of 512 (-b4K)"
            ));
        }
        let (what, step) = match t.access {
            Access::Random { align, .. } => ("-r alignment", align),
            Access::Sequential { stride, .. } => ("-s stride", stride),
        };
        if step % block != 0 {
            return refuse(format!(
                "--verify checks whole blocks, and the {what} of '{name}' ({step} bytes) is not a multiple of its block size ({block}): I/Os would overlap half a block; drop the alignment or stride, or make it a multiple of -b"
            ));
        }
        if t.thread_stride % block != 0 {
            return refuse(format!(
                "--verify checks whole blocks, and the -T thread stride of '{name}' ({} bytes) is not a multiple of its block size ({block}); make it one",
                t.thread_stride
            ));
        }
        if !matches!(t.write_buffer, WriteBuffer::Pattern) || ts.random_write_data {
            return refuse(format!(
                "--verify writes its own self-describing, incompressible blocks to '{name}'; drop -Z/-Zr/--pattern"
            ));
        }
        if t.trim_percent > 0 || t.flush_every.is_some() {
            return refuse(format!(
                "--verify keeps each block's last written generation, and --trim/--fsync/--fdatasync on '{name}' are not checked by it; drop them to verify"
            ));
        }
        if let Some(flag) = [
            (t.compress.is_some(), "--compress"),
            (t.dedupe.is_some(), "--dedupe"),
        ]
        .into_iter()
        .find_map(|(set, flag)| set.then_some(flag))
        {
            return refuse(format!(
                "--verify writes its own self-describing, incompressible, distinct blocks to '{name}', which {flag} would have to change; use one (iospd data-check measures what a run left)"
            ));
        }
        if let Some(other) = ts.targets[..i].iter().find(|o| o.path == t.path) {
            return refuse(format!(
                "--verify keeps one table of written blocks per target, and '{}' is named twice in one timespan; name it once (use -t for more threads)",
                other.path.display()
            ));
        }
    }
    Ok(())
}
