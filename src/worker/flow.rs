//! `--flow`: runs that share a flow file keep their I/O in proportion to their weights (fio's
//! `flow`). The file holds two counters every thread of every run on it shares, in memory mapped
//! by each: the I/Os they issued (from 1) and their weights added. A thread issues an I/O only
//! while its share of the I/Os is at most its share of the weight; otherwise it lets what it has
//! in flight complete and waits `--flow-sleep` before it looks again (fio's flow.c, as 3.33 has it).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the file starts with once it is ready.
const MAGIC: u64 = u64::from_le_bytes(*b"IOSPDFLW");
/// The first writer's mark while it sets the counters.
const SETTING: u64 = 1;
/// Bytes mapped: the magic, and each counter in a cache line of its own.
const LEN: usize = 4096;
const COUNTER: usize = 64;
const WEIGHT: usize = 128;

/// One flow file, mapped.
#[derive(Debug)]
pub struct FlowGroup {
    at: *mut u8,
}

// SAFETY: the mapping is only read and written through atomics.
unsafe impl Send for FlowGroup {}
// SAFETY: as above.
unsafe impl Sync for FlowGroup {}

impl FlowGroup {
    /// Whether [`FlowGroup::open`] would take the file at `path`, changing nothing: a missing file
    /// in a directory that is there, or one a run on the flow set up (or is setting up).
    pub fn check(path: &Path) -> Result<(), String> {
        let named = |why: &str| format!("--flow file '{}': {why}", path.display());
        let meta = match std::fs::symlink_metadata(path) {
            Err(_) => {
                let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
                return match parent.is_none_or(Path::is_dir) {
                    true => Ok(()),
                    false => Err(named(
                        "its directory is not there; name a file in one that is",
                    )),
                };
            }
            Ok(meta) => meta,
        };
        let mut head = [0u8; 8];
        let fits = meta.file_type().is_file()
            && match meta.len() {
                0 => true,
                n if n == LEN as u64 => std::io::Read::read_exact(
                    &mut File::open(path).map_err(|e| named(&e.to_string()))?,
                    &mut head,
                )
                .is_ok_and(|()| [0, SETTING, MAGIC].contains(&u64::from_ne_bytes(head))),
                _ => false,
            };
        match fits {
            true => Ok(()),
            false => Err(named(
                "is not a flow file iospd set up; name a new file (it is left as it is)",
            )),
        }
    }

    /// Opens (or creates, mode 0600) the flow file at `path`: a regular file that is empty (the
    /// first run on it sets it up) or that iospd set up; anything else is refused untouched.
    pub fn open(path: &Path) -> Result<FlowGroup, String> {
        let named = |why: String| format!("--flow file '{}': {why}", path.display());
        if let Ok(meta) = std::fs::symlink_metadata(path)
            && !meta.file_type().is_file()
        {
            return Err(named(
                "is not a regular file; name a new file, which the runs of the flow share".into(),
            ));
        }
        let file: File = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| named(format!("cannot be opened ({e})")))?;
        let len = file.metadata().map_err(|e| named(e.to_string()))?.len();
        if len != 0 && len != LEN as u64 {
            return Err(named(format!(
                "holds {len} bytes, which no flow file does; name a new file (it is left as it is)"
            )));
        }
        if len == 0 {
            file.set_len(LEN as u64)
                .map_err(|e| named(format!("cannot be sized ({e})")))?;
        }
        // SAFETY: a shared mapping of a file of LEN bytes, unmapped in Drop.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return Err(named(format!(
                "cannot be mapped ({})",
                io::Error::last_os_error()
            )));
        }
        let group = FlowGroup { at: at.cast() };
        let magic = group.word(0);
        match magic.compare_exchange(0, SETTING, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {
                group.word(COUNTER).store(1, Ordering::Relaxed);
                group.word(WEIGHT).store(0, Ordering::Relaxed);
                magic.store(MAGIC, Ordering::Release);
            }
            Err(_) => {
                // Another run is setting it up: it takes microseconds.
                let mut waited = 0;
                while magic.load(Ordering::Acquire) == SETTING && waited < 1_000 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    waited += 1;
                }
                if magic.load(Ordering::Acquire) != MAGIC {
                    return Err(named(
                        "is not a flow file iospd set up; name a new file (it is left as it is)"
                            .into(),
                    ));
                }
            }
        }
        Ok(group)
    }

    fn word(&self, at: usize) -> &AtomicU64 {
        // SAFETY: `at` is 8-byte aligned and inside the mapping, which lives as long as `self`;
        // every access to it is atomic.
        unsafe { &*self.at.add(at).cast::<AtomicU64>() }
    }

    /// A thread of weight `weight` (1 or more) joins the flow; with a `total`, it issues nothing
    /// until the flow's weights add up to that (every thread of it has joined).
    pub fn join(&self, weight: u32, total: Option<u32>) -> FlowMember<'_> {
        self.word(WEIGHT)
            .fetch_add(u64::from(weight), Ordering::Relaxed);
        FlowMember {
            group: self,
            weight,
            issued: 0,
            waiting_for: total.map_or(0, u64::from),
        }
    }
}

impl Drop for FlowGroup {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `open`, no longer referenced (members borrow the group).
        unsafe { libc::munmap(self.at.cast(), LEN) };
    }
}

/// A thread's place in a flow: its weight and the I/Os it issued.
#[derive(Debug)]
pub struct FlowMember<'a> {
    group: &'a FlowGroup,
    weight: u32,
    issued: u64,
    /// The weights it waits to see joined before its first I/O (0: none, or seen).
    waiting_for: u64,
}

impl FlowMember<'_> {
    /// Whether the thread may issue an I/O now: its share of the flow's I/Os is at most its
    /// share of the weight.
    #[inline]
    pub fn allows(&mut self) -> bool {
        let weight = self.group.word(WEIGHT).load(Ordering::Relaxed).max(1);
        if self.waiting_for > 0 {
            if weight < self.waiting_for {
                return false;
            }
            self.waiting_for = 0;
        }
        let all = self.group.word(COUNTER).load(Ordering::Relaxed).max(1) as f64;
        self.issued as f64 / all <= f64::from(self.weight) / weight as f64
    }

    /// Counts an I/O the thread issued.
    #[inline]
    pub fn issued(&mut self) {
        self.group.word(COUNTER).fetch_add(1, Ordering::Relaxed);
        self.issued += 1;
    }
}

impl Drop for FlowMember<'_> {
    /// Leaves the flow: its I/Os and its weight no longer count.
    fn drop(&mut self) {
        self.group
            .word(COUNTER)
            .fetch_sub(self.issued, Ordering::Relaxed);
        self.group
            .word(WEIGHT)
            .fetch_sub(u64::from(self.weight), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_to_their_weights_and_leave_the_file_as_they_found_it() {
        let dir = std::env::temp_dir().join(format!("iospd-flow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flow");
        let group = FlowGroup::open(&path).unwrap();
        let again = FlowGroup::open(&path).unwrap();
        let mut heavy = group.join(8, Some(9));
        // The first waits for the second to join.
        assert!(!heavy.allows());
        let mut light = again.join(1, None);
        let mut counts = [0u64; 2];
        // Each takes a turn whenever its share allows: 9,000 turns split 8:1.
        for _ in 0..9_000 {
            if heavy.allows() {
                heavy.issued();
                counts[0] += 1;
            }
            if light.allows() {
                light.issued();
                counts[1] += 1;
            }
        }
        let ratio = counts[0] as f64 / counts[1] as f64;
        assert!((7.5..8.5).contains(&ratio), "{counts:?}");
        drop((heavy, light));
        assert_eq!(group.word(COUNTER).load(Ordering::Relaxed), 1);
        assert_eq!(group.word(WEIGHT).load(Ordering::Relaxed), 0);
        // A file that is not a flow file is refused and left as it is.
        let other = dir.join("other");
        std::fs::write(&other, vec![7u8; LEN]).unwrap();
        let error = FlowGroup::open(&other).unwrap_err();
        assert!(error.contains("not a flow file"), "{error}");
        assert_eq!(std::fs::read(&other).unwrap(), vec![7u8; LEN]);
        std::fs::write(&other, b"notes").unwrap();
        assert!(
            FlowGroup::open(&other)
                .unwrap_err()
                .contains("holds 5 bytes")
        );
        assert!(FlowGroup::open(Path::new("/dev/null")).is_err());
        drop((group, again));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
