//! `iospd verify --verify-state=<file> [target…]`: re-reads every block a `--verify` run wrote
//! (and, for a file it created with `-c --verify`, every block) and checks it as the run would
//! have — the test after a power cut, a failover or a remount. Reads only; the targets are the
//! state's paths unless given (a device may come back under another name), in the state's order.
//! Exit 0 when every block is right, 1 when any is not, 3 for bad input.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::{ToolError, split_args};
use crate::report::render::text::verify::found_text;
use crate::verify::format::{self, Expect, Kind, Pattern};
use crate::verify::state::State;
use crate::verify::table::Blocks;
use crate::verify::{Found, VerifyCounts};

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str = "iospd verify --verify-state=<file> [target…]";

/// Its own options (`=`: takes a value), for the parser and the shell completions.
pub const OPTIONS: &[&str] = &["verify-state="];

/// Bytes read per call.
const CHUNK: u64 = 1 << 20;

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let args = split_args(args, OPTIONS, USAGE)?;
    let state_path = args
        .option("verify-state")
        .filter(|p| !p.is_empty())
        .ok_or_else(|| {
            ToolError::Usage(format!(
                "name the state file a --verify run saved; usage: {USAGE}"
            ))
        })?;
    let input = |why: String| ToolError::Input {
        path: PathBuf::from(state_path),
        why,
    };
    let text = crate::input::read_utf8(
        std::path::Path::new(state_path),
        crate::input::STATE_MAX,
        "verify state",
    )
    .map_err(input)?;
    let state = State::parse(&text).map_err(input)?;
    let paths: Vec<PathBuf> = match args.files.as_slice() {
        [] => state.targets.iter().map(|t| t.path.clone()).collect(),
        given if given.len() == state.targets.len() => given.iter().map(PathBuf::from).collect(),
        given => {
            return Err(ToolError::Usage(format!(
                "the state holds {} target(s) and {} were named; name none (the state's paths) or one per target, in order",
                state.targets.len(),
                given.len()
            )));
        }
    };
    let mut all = VerifyCounts {
        run_id: state.run_id,
        ..VerifyCounts::default()
    };
    let mut out = format!(
        "iospd verify: run {:#x}, {} target(s)\n",
        state.run_id,
        paths.len()
    );
    if state.partial {
        out.push_str("the state was saved while the run still wrote: a block may hold a newer write of the run than the state knows, which is right too\n");
    }
    let mut lost = 0;
    for (index, (target, path)) in state.targets.iter().zip(&paths).enumerate() {
        let blocks = target.table().map_err(input)?;
        let file = open(path)?;
        // Blocks past the target's end now (truncated, or a smaller device) are lost.
        let size = size_of(&file, path)?;
        let present = (size.saturating_sub(blocks.base) / target.block).min(blocks.len() as u64);
        let present = present as usize;
        let gone = (present..blocks.len())
            .filter(|&i| target.created || blocks.generation(i) > 0)
            .count() as u64;
        let counts = check_target(&state, index, (file, path), &blocks, present)?;
        let shown = path.display().to_string();
        out.push_str(&format!(
            "  '{shown}': {} blocks verified, {} skipped (never written), {} bad\n",
            counts.verified,
            counts.skipped,
            counts.failed.total()
        ));
        if gone > 0 {
            out.push_str(&format!(
                "  '{shown}': {gone} blocks the run wrote are lost: the target ends at {size} bytes and they reach to {}\n",
                target.end()
            ));
            lost += gone;
        }
        for found in &counts.first {
            found_text(&mut out, &shown, state.run_id, found);
        }
        all.add(counts);
    }
    let bad = all.failed.total() + lost;
    out.push_str(&verdict(&all, lost));
    super::print(&out)?;
    Ok(if bad == 0 {
        0
    } else {
        crate::exit::EXIT_RUN_ERROR
    })
}

/// Reads the first `present` blocks of target `index` in chunks and checks each against what
/// the state says the run last wrote there.
fn check_target(
    state: &State,
    index: usize,
    (mut file, path): (File, &Path),
    blocks: &Blocks,
    present: usize,
) -> Result<VerifyCounts, ToolError> {
    let target = &state.targets[index];
    let pattern = Pattern::new(state.run_id, target.block as usize);
    let mut counts = VerifyCounts::default();
    let per = (CHUNK / target.block).max(1) as usize;
    let mut buf = Aligned::new(per * target.block as usize);
    let mut i = 0;
    while i < present {
        let n = per.min(present - i);
        let offset = blocks.base + i as u64 * target.block;
        let bytes = &mut buf.slice()[..n * target.block as usize];
        let mut read = file.read_exact_at(bytes, offset);
        if read
            .as_ref()
            .is_err_and(|e| e.raw_os_error() == Some(libc::EINVAL))
        {
            // The device's logical block is larger than the run's: read through the cache.
            file = crate::input::open(path, true).map_err(|why| ToolError::Input {
                path: path.to_path_buf(),
                why,
            })?;
            read = file.read_exact_at(bytes, offset);
        }
        read.map_err(|e| ToolError::Input {
            path: path.to_path_buf(),
            why: format!("reading {} bytes at offset {offset}: {e}", bytes.len()),
        })?;
        for (j, block) in bytes.chunks(target.block as usize).enumerate() {
            let at = offset + j as u64 * target.block;
            check_block(
                state,
                index,
                (at, blocks.generation(i + j) as u64),
                block,
                &pattern,
                &mut counts,
            );
        }
        i += n;
    }
    Ok(counts)
}

/// Checks one block at `at` whose last write the state records as `generation` (0: none).
fn check_block(
    state: &State,
    index: usize,
    (at, generation): (u64, u64),
    block: &[u8],
    pattern: &Pattern,
    counts: &mut VerifyCounts,
) {
    let target = &state.targets[index];
    let unknown = generation == 0 && !target.created;
    if unknown && !state.partial {
        counts.skipped += 1;
        return;
    }
    let expect = Expect {
        run_id: state.run_id,
        offset: at,
        generation,
    };
    let checked = match format::check(block, &expect, pattern) {
        // A partial state: the run may have written the block again since.
        Err(m) if state.partial && m.kind == Kind::Newer => Ok(()),
        // A block the saved state knew nothing of: this run's only if it says so.
        Err(m) if unknown && m.found.is_none_or(|h| h.run_id != state.run_id) => {
            counts.skipped += 1;
            return;
        }
        checked => checked,
    };
    counts.record(checked.map_err(|mismatch| Found {
        target: index,
        offset: at,
        len: target.block as u32,
        thread: None,
        mismatch,
    }));
}

/// The last line: every block right, or how many were bad and how.
fn verdict(all: &VerifyCounts, lost: u64) -> String {
    let bad = all.failed.total() + lost;
    match bad {
        0 => format!("every one of {} blocks is right\n", all.verified),
        _ => format!(
            "{bad} bad block(s) of {}: {}\n",
            all.verified + bad,
            [
                all.failed.describe(),
                if lost > 0 {
                    format!("past the end {lost}")
                } else {
                    String::new()
                }
            ]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", ")
        ),
    }
}

/// A target's size now: a block device's, or a file's length.
fn size_of(file: &File, path: &Path) -> Result<u64, ToolError> {
    let meta = file.metadata().map_err(|e| ToolError::Input {
        path: path.to_path_buf(),
        why: e.to_string(),
    })?;
    if std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type()) {
        crate::safety::device_size(file).map_err(|e| ToolError::Input {
            path: path.to_path_buf(),
            why: format!("its size cannot be read: {e}"),
        })
    } else {
        Ok(meta.len())
    }
}

/// Opens a target to read, past the page cache when the file system allows (so what is checked
/// is what the device holds).
fn open(path: &Path) -> Result<File, ToolError> {
    // Not a regular file or block device (a pipe nobody writes would block the open): refused.
    crate::input::open_with(path, true, libc::O_DIRECT)
        .or_else(|_| crate::input::open(path, true))
        .map_err(|why| ToolError::Input {
            path: path.to_path_buf(),
            why: format!("{why}; name the target the run wrote (or give it as an argument)"),
        })
}

/// A page-aligned buffer for O_DIRECT reads.
struct Aligned {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Self {
        let bytes = vec![0u8; len + 4096];
        let start = bytes.as_ptr().align_offset(4096);
        Aligned { bytes, start, len }
    }

    fn slice(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + self.len]
    }
}
