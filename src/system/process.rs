//! What a run sets on its whole process before it starts: the CPU priority its threads inherit
//! (`--nice`) and memory held locked away from the rest of the machine (`--lock-memory`).

use std::io;

/// `--nice`: gives this thread, and every thread it starts after, the niceness `nice` (−20 the
/// most CPU, 19 the least); why not, in one line, when it cannot.
pub fn set_nice(nice: i32) -> Result<(), String> {
    // SAFETY: setpriority takes plain integers; who 0 with PRIO_PROCESS is the calling thread
    // on Linux, whose niceness the threads it creates inherit.
    let done = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) };
    if done != 0 {
        let error = io::Error::last_os_error();
        return Err(format!(
            "--nice={nice}: the CPU priority cannot be set ({error}); a niceness below 0 needs root or CAP_SYS_NICE (or a RLIMIT_NICE that allows it): give 0 or more"
        ));
    }
    Ok(())
}

/// The calling thread's niceness.
pub fn nice() -> i32 {
    // SAFETY: as above; getpriority only reads.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

/// `--mem-policy`: gives this thread, and every thread it starts after, the NUMA memory policy
/// (set_mempolicy(2)); why not, in one line, when a node has no memory here or the kernel refuses.
pub fn set_mem_policy(policy: &crate::profile::mem_policy::MemPolicy) -> Result<(), String> {
    const NODES: &str = "/sys/devices/system/node/has_memory";
    if !policy.nodes.is_empty() {
        let have = std::fs::read_to_string(NODES)
            .ok()
            .and_then(|list| crate::cli::flags::parse_cpu_set(list.trim()).ok())
            .unwrap_or_default();
        if let Some(node) = policy.nodes.iter().find(|n| !have.contains(n)) {
            return Err(format!(
                "--mem-policy={policy}: node {node} has no memory on this host (nodes with memory: {}); give those",
                crate::units::cpu_list(&have)
            ));
        }
    }
    let mut mask = [0u64; 16];
    for &node in &policy.nodes {
        mask[node as usize / 64] |= 1 << (node % 64);
    }
    let (at, bits) = match policy.nodes.is_empty() {
        true => (std::ptr::null(), 0),
        false => (mask.as_ptr(), mask.len() as u64 * 64 + 1),
    };
    // SAFETY: the mask outlives the call and holds `bits - 1` bits; the kernel only reads it.
    let done = unsafe { libc::syscall(libc::SYS_set_mempolicy, policy.mpol(), at, bits) };
    if done != 0 {
        let error = io::Error::last_os_error();
        return Err(format!(
            "--mem-policy={policy}: the memory policy cannot be set ({error})"
        ));
    }
    Ok(())
}

/// `--lock-memory`: anonymous memory touched and locked with mlock(2) for as long as this lives,
/// so that the page cache and everything else on the machine have that much less (fio's
/// `lockmem`).
#[derive(Debug)]
pub struct LockedMemory {
    at: *mut libc::c_void,
    len: usize,
}

impl LockedMemory {
    /// Locks `len` bytes, no more than `available` (the memory this process may still allocate):
    /// locking more would leave the kernel only the out-of-memory killer.
    pub fn lock(len: u64, available: Option<&super::Available>) -> Result<Self, String> {
        let size = crate::units::format_size(len);
        if let Some(a) = available.filter(|a| len >= a.bytes) {
            return Err(format!(
                "--lock-memory: {size} is more than the {} this process may still allocate ({}); lock less",
                crate::units::format_size(a.bytes),
                a.source
            ));
        }
        let failed = |what: &str, error: io::Error| {
            format!(
                "--lock-memory: {size} {what} ({error}); locking needs root or CAP_IPC_LOCK, or a RLIMIT_MEMLOCK (ulimit -l) of that much"
            )
        };
        let len = usize::try_from(len)
            .map_err(|_| format!("--lock-memory: {size} is too large for this machine"))?;
        // SAFETY: a new private anonymous mapping; no memory of this process is touched.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return Err(failed("cannot be mapped", io::Error::last_os_error()));
        }
        // SAFETY: the range is the mapping just made; mlock faults every page of it in. The
        // system call itself: a sanitizer's mlock wrapper does nothing, and the lock is the point.
        if unsafe { libc::syscall(libc::SYS_mlock, at, len) } != 0 {
            let error = io::Error::last_os_error();
            // SAFETY: the mapping just made, unmapped once.
            unsafe { libc::munmap(at, len) };
            return Err(failed("cannot be locked", error));
        }
        Ok(LockedMemory { at, len })
    }

    /// Bytes locked.
    pub fn bytes(&self) -> u64 {
        self.len as u64
    }
}

impl Drop for LockedMemory {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `lock`, unmapped once; unmapping unlocks it.
        unsafe { libc::munmap(self.at, self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locked_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmLck:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[test]
    fn memory_is_locked_while_held_and_freed_after() {
        let before = locked_kib();
        match LockedMemory::lock(8 << 20, None) {
            Ok(held) => {
                assert_eq!(held.bytes(), 8 << 20);
                assert!(locked_kib() >= before + 8 * 1024, "VmLck {}", locked_kib());
                drop(held);
                assert!(locked_kib() < before + 8 * 1024, "VmLck {}", locked_kib());
            }
            Err(why) => assert!(why.contains("CAP_IPC_LOCK"), "{why}"),
        }
    }

    #[test]
    fn more_than_the_process_may_allocate_is_refused_before_anything_is_mapped() {
        let available = crate::system::Available {
            bytes: 1 << 30,
            source: "MemAvailable".into(),
            caveat: None,
        };
        let why = LockedMemory::lock(2 << 30, Some(&available)).unwrap_err();
        assert!(
            why.contains("--lock-memory: 2GiB")
                && why.contains("1GiB")
                && why.contains("lock less"),
            "{why}"
        );
    }

    #[test]
    fn a_thread_started_after_the_niceness_is_set_inherits_it() {
        let own = nice();
        let (base, seen) = std::thread::spawn(|| {
            let base = nice();
            set_nice((base + 3).min(19)).unwrap();
            (base, std::thread::spawn(nice).join().unwrap())
        })
        .join()
        .unwrap();
        assert_eq!(seen, (base + 3).min(19));
        assert_eq!(nice(), own, "the test's own thread is untouched");
    }
}
