//! Real block devices, mounts and file systems for the safety tests. Every guard undoes what it
//! made when dropped, so a failing test still detaches its loop devices and unmounts.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::TempDir;
use super::tools::{self, Tools};

/// Whether the test can manage devices and mounts; prints why it is skipped when it cannot.
pub fn root(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        super::skip(test, "needs root to create loop devices and mounts");
    }
    root
}

/// Root and the programs to mount and unmount, plus `extra`: `None` when anything is missing, after
/// one skip that names all of it.
pub fn mounts(test: &str, extra: &[&'static str]) -> Option<Tools> {
    let root = root(test);
    let names: Vec<&'static str> = ["mount", "umount"].iter().chain(extra).copied().collect();
    tools::need(test, &names).filter(|_| root)
}

/// [`mounts`] and the programs that make loop devices.
pub fn devices(test: &str, extra: &[&'static str]) -> Option<Tools> {
    let names: Vec<&'static str> = ["losetup", "blockdev"]
        .iter()
        .chain(extra)
        .copied()
        .collect();
    mounts(test, &names)
}

/// A loop device over a zero-filled file in its own temporary directory.
pub struct LoopDevice {
    pub device: PathBuf,
    tools: Tools,
    _dir: Option<TempDir>,
}

impl LoopDevice {
    /// A device of `mib` MiB; `None` (with a printed reason) when not root or without loop devices.
    pub fn new(mib: u64, test: &str) -> Option<Self> {
        Self::with(&devices(test, &[])?, mib, test)
    }

    /// A device of `mib` MiB made with `tools` (from [`devices`]); `None` (with a printed reason)
    /// when the machine has no loop device to give.
    pub fn with(tools: &Tools, mib: u64, test: &str) -> Option<Self> {
        let dir = TempDir::new();
        let backing = dir.join("backing.img");
        File::create(&backing)
            .and_then(|f| f.set_len(mib << 20))
            .expect("backing file");
        let mut device = Self::over(tools, &backing, test)?;
        device._dir = Some(dir);
        Some(device)
    }

    /// A device over an existing file, made with `tools` (from [`devices`]).
    pub fn over(tools: &Tools, backing: &Path, test: &str) -> Option<Self> {
        match tools.run(
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
                tools.must("blockdev", &["--setrw", &device]);
                Some(Self {
                    device: PathBuf::from(device),
                    tools: tools.clone(),
                    _dir: None,
                })
            }
            Err(e) => {
                super::skip(test, &format!("no loop device ({e})"));
                None
            }
        }
    }

    /// The programs the device was made with, for the test to go on with.
    pub fn tools(&self) -> &Tools {
        &self.tools
    }

    /// The device path as an argument.
    pub fn arg(&self) -> String {
        self.device.display().to_string()
    }

    /// The device's kernel name (`loop3`).
    pub fn name(&self) -> String {
        self.device
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
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
        let _ = self.tools.run("losetup", &["--detach", &self.arg()]);
    }
}

/// A mount that is lazily unmounted when dropped.
pub struct Mount {
    pub dir: TempDir,
    tools: Tools,
}

impl Mount {
    /// Mounts `source` (a device, or `tmpfs`) with `options` on a fresh directory, with `tools`
    /// (from [`mounts`]).
    pub fn new(tools: &Tools, source: &str, fs_type: &str, options: &str) -> Result<Self, String> {
        let dir = TempDir::new();
        let target = dir.path().display().to_string();
        let mut args = vec!["-t", fs_type];
        if !options.is_empty() {
            args.extend(["-o", options]);
        }
        args.extend([source, &target]);
        tools.run("mount", &args)?;
        Ok(Self {
            dir,
            tools: tools.clone(),
        })
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
        let _ = self.tools.run(
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

/// A zram device of its own, removed when dropped.
pub struct Zram {
    id: String,
}

impl Zram {
    /// A new device with `algorithm` and `mib` MiB; `None` (with a printed reason) when the
    /// machine cannot make one.
    pub fn new(test: &str, algorithm: &str, mib: u64) -> Option<Zram> {
        if !root(test) {
            return None;
        }
        let Ok(id) = fs::read_to_string("/sys/class/zram-control/hot_add") else {
            super::skip(
                test,
                "no zram (/sys/class/zram-control/hot_add cannot be read)",
            );
            return None;
        };
        let zram = Zram {
            id: id.trim().to_string(),
        };
        if fs::write(zram.sys("comp_algorithm"), algorithm).is_err() {
            super::skip(test, &format!("zram has no {algorithm} compressor"));
            return None;
        }
        fs::write(zram.sys("disksize"), format!("{}", mib << 20)).expect("zram disksize");
        Some(zram)
    }

    pub fn sys(&self, name: &str) -> String {
        format!("/sys/block/zram{}/{name}", self.id)
    }

    pub fn device(&self) -> String {
        format!("/dev/zram{}", self.id)
    }

    /// `mm_stat`'s bytes stored, compressed size, same-filled and huge pages.
    pub fn stored(&self) -> (u64, u64, u64, u64) {
        let text = fs::read_to_string(self.sys("mm_stat")).unwrap();
        let f: Vec<u64> = text
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        (f[0], f[1], f[5], f[7])
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        let _ = fs::write(self.sys("reset"), "1");
        let _ = fs::write("/sys/class/zram-control/hot_remove", &self.id);
    }
}

/// Tracing tests take turns: each uses its own tracefs instance, but the mount is shared.
static TRACING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A tracefs instance recording block tracepoints of one device (filtered by its device number,
/// on the monotonic clock), for the test to read; disabled and removed when dropped, and tracefs
/// unmounted again if it was mounted for it.
pub struct BlockTrace {
    dir: PathBuf,
    mounted: Option<PathBuf>,
    tools: Tools,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl BlockTrace {
    /// Records `events` (`block_bio_queue`, `block_rq_issue`) of `device` from now on.
    pub fn new(tools: &Tools, device: &Path, events: &[&str], test: &str) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let turn = TRACING.lock().unwrap_or_else(|e| e.into_inner());
        let root = PathBuf::from("/sys/kernel/tracing");
        let mut mounted = None;
        if !root.join("instances").is_dir() {
            if let Err(e) = tools.run("mount", &["-t", "tracefs", "nodev", "/sys/kernel/tracing"]) {
                super::skip(test, &format!("cannot mount tracefs ({e})"));
                return None;
            }
            mounted = Some(root.clone());
        }
        let dir = root.join(format!("instances/iospd-test-{}", std::process::id()));
        let _ = fs::remove_dir(&dir);
        fs::create_dir(&dir).expect("a tracefs instance");
        let rdev = fs::metadata(device).expect("the device").rdev();
        let dev = (libc::major(rdev) << 20) | libc::minor(rdev);
        let trace = BlockTrace {
            dir,
            mounted,
            tools: tools.clone(),
            _turn: turn,
        };
        trace.write("buffer_size_kb", "16384");
        trace.write("trace_clock", "mono");
        for event in events {
            trace.write(
                &format!("events/block/{event}/filter"),
                &format!("dev == {dev}"),
            );
            trace.write(&format!("events/block/{event}/enable"), "1");
        }
        trace.write("tracing_on", "1");
        Some(trace)
    }

    fn write(&self, file: &str, value: &str) {
        fs::write(self.dir.join(file), value)
            .unwrap_or_else(|e| panic!("tracefs {file} <- {value}: {e}"));
    }

    /// Stops recording and returns what was recorded, as tracefs prints it.
    pub fn finish(&self) -> String {
        self.write("tracing_on", "0");
        let text = fs::read_to_string(self.dir.join("trace")).expect("the instance's trace");
        assert!(
            !text.contains("LOST"),
            "the trace buffer overflowed; raise buffer_size_kb"
        );
        text
    }
}

impl Drop for BlockTrace {
    fn drop(&mut self) {
        let _ = fs::write(self.dir.join("tracing_on"), "0");
        for event in ["block_bio_queue", "block_rq_issue"] {
            let _ = fs::write(self.dir.join(format!("events/block/{event}/enable")), "0");
        }
        let _ = fs::remove_dir(&self.dir);
        if let Some(root) = &self.mounted {
            let _ = self.tools.run("umount", &[&root.display().to_string()]);
        }
    }
}
