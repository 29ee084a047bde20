//! Real block devices, mounts and file systems for the safety tests. Every guard undoes what it
//! made when dropped, so a failing test still detaches its loop devices and unmounts.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::TempDir;

/// Whether the test can manage devices and mounts; prints why it is skipped when it cannot.
pub fn root(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        super::skip(test, "needs root to create loop devices and mounts");
    }
    root
}

/// Runs a system command; `Err` with its stderr when it fails.
pub fn sh(program: &str, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    } else {
        Err(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Runs a system command that must succeed.
pub fn must(program: &str, args: &[&str]) -> String {
    sh(program, args).unwrap_or_else(|e| panic!("{e}"))
}

/// A loop device over a zero-filled file in its own temporary directory.
pub struct LoopDevice {
    pub device: PathBuf,
    _dir: TempDir,
}

impl LoopDevice {
    /// A device of `mib` MiB; `None` (with a printed reason) when not root or without loop devices.
    pub fn new(mib: u64, test: &str) -> Option<Self> {
        if !root(test) {
            return None;
        }
        let dir = TempDir::new();
        let backing = dir.join("backing.img");
        File::create(&backing)
            .and_then(|f| f.set_len(mib << 20))
            .expect("backing file");
        match sh(
            "losetup",
            &[
                "--find",
                "--show",
                "--partscan",
                &backing.display().to_string(),
            ],
        ) {
            Ok(device) => {
                // A loop device keeps its read-only flag when it is detached and reused.
                must("blockdev", &["--setrw", &device]);
                Some(Self {
                    device: PathBuf::from(device),
                    _dir: dir,
                })
            }
            Err(e) => {
                super::skip(test, &format!("no loop device ({e})"));
                None
            }
        }
    }

    /// The device path as an argument.
    pub fn arg(&self) -> String {
        self.device.display().to_string()
    }

    /// Every byte of the device.
    pub fn contents(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        File::open(&self.device)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .expect("read the device");
        bytes
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = sh("losetup", &["--detach", &self.arg()]);
    }
}

/// A mount that is lazily unmounted when dropped.
pub struct Mount {
    pub dir: TempDir,
}

impl Mount {
    /// Mounts `source` (a device, or `tmpfs`) with `options` on a fresh directory.
    pub fn new(source: &str, fs_type: &str, options: &str) -> Result<Self, String> {
        let dir = TempDir::new();
        let target = dir.path().display().to_string();
        let mut args = vec!["-t", fs_type];
        if !options.is_empty() {
            args.extend(["-o", options]);
        }
        args.extend([source, &target]);
        sh("mount", &args)?;
        Ok(Self { dir })
    }

    /// A path inside the mount.
    pub fn join(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = sh(
            "umount",
            &["--lazy", &self.dir.path().display().to_string()],
        );
    }
}

/// A memory cgroup with a limit, for running iospd as in a container; removed when dropped.
pub struct MemoryCgroup {
    dir: PathBuf,
}

impl MemoryCgroup {
    /// A cgroup (v2 where the memory controller is there, else v1) limited to `bytes`; `None`
    /// (with the reason printed) when the machine has no memory cgroup to make one in.
    pub fn new(bytes: u64, test: &str) -> Option<Self> {
        if !root(test) {
            return None;
        }
        // One per test: tests run side by side in this process.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let name = format!(
            "iospd-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let candidates = [
            (PathBuf::from("/sys/fs/cgroup"), "memory.max"),
            (PathBuf::from("/sys/fs/cgroup/unified"), "memory.max"),
            (
                PathBuf::from("/sys/fs/cgroup/memory"),
                "memory.limit_in_bytes",
            ),
        ];
        for (root_dir, limit) in candidates {
            if !root_dir.join("cgroup.procs").exists() {
                continue;
            }
            let dir = root_dir.join(&name);
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            let group = MemoryCgroup { dir };
            if std::fs::write(group.dir.join(limit), bytes.to_string()).is_ok() {
                return Some(group);
            }
        }
        super::skip(test, "no memory cgroup can be made here");
        None
    }

    /// Makes `command`'s process join the cgroup before it starts.
    pub fn enter(&self, command: &mut Command) {
        use std::os::unix::process::CommandExt;
        let procs = std::ffi::CString::new(self.dir.join("cgroup.procs").display().to_string())
            .expect("no NUL");
        // SAFETY: open, write and close are async-signal-safe; the child has not started yet.
        unsafe {
            command.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(fd);
                Ok(())
            });
        }
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}
