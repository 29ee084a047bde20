//! A device that stops answering mid-run, in a test binary of its own: while the FUSE daemon under
//! its loop device is stopped, every process that asks the kernel about that loop device waits
//! (`LOOP_GET_STATUS64` reads the backing file's attributes through FUSE), and iospd's safety
//! check asks about every loop device. Cargo runs test binaries one after another, so the suite's
//! runs never start while the daemon is stopped.

#[allow(dead_code)]
#[path = "suite/util/mod.rs"]
mod util;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use util::tools::Tools;
use util::{TempDir, iospd, stderr, stdout};

#[test]
fn a_device_that_stops_answering_ends_the_run_with_its_results_and_keeps_the_buffers_of_its_io() {
    let test = "a_device_that_stops_answering_ends_the_run_with_its_results_and_keeps_the_buffers_of_its_io";
    if !util::io_uring_available(test) {
        return;
    }
    let Some(tools) = util::machine::devices(test, &["bindfs", "umount"]) else {
        return;
    };
    // A loop device over a file a FUSE daemon serves: stopping the daemon stops the device.
    let Some(fuse) = FuseDir::new(&tools, test) else {
        return;
    };
    std::fs::File::create(fuse.source("disk.img"))
        .and_then(|f| f.set_len(256 << 20))
        .unwrap();
    let Some(device) = util::machine::LoopDevice::over(&tools, &fuse.served("disk.img"), test)
    else {
        return;
    };
    let mut child = iospd()
        .args(["-b4K", "-o8", "-r", "-Sh", "-d4", "-W0", &device.arg()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    fuse.stop();
    // Four seconds of run, ten of waiting for the device, one for the cancellation, and slack.
    let began = Instant::now();
    while child.try_wait().unwrap().is_none() && began.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let ended = child.try_wait().unwrap().is_some();
    if !ended {
        let _ = child.kill();
    }
    fuse.resume();
    let output = child.wait_with_output().unwrap();
    drop(device);
    assert!(
        ended,
        "the run did not end within a minute of its device stopping"
    );
    let (out, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("by thread 0 failed: no answer 10 s after the run stopped issuing"),
        "{err}"
    );
    assert!(
        err.contains("neither completed nor could be cancelled; their buffers stay allocated"),
        "the I/O the device holds keeps its buffers: {err}"
    );
    let read = util::totals(&out, "Read IO");
    assert!(
        read.ios > 0,
        "what completed before the device stopped is reported: {out}"
    );
}

/// A directory served by a FUSE file system (bindfs, in the foreground) that the test can stop and
/// resume, as a device that stops answering: every file read through it waits on the daemon.
/// Dropped, it resumes the daemon, unmounts and waits for it to exit.
pub struct FuseDir {
    source: TempDir,
    mounted: TempDir,
    daemon: std::process::Child,
    tools: Tools,
}

impl FuseDir {
    /// Serves a fresh directory with `tools` (with `bindfs` and `umount`); `None` (with a printed
    /// reason) when the mount does not appear.
    pub fn new(tools: &Tools, test: &str) -> Option<Self> {
        let (source, mounted) = (TempDir::new(), TempDir::new());
        let daemon = tools
            .command("bindfs")
            .arg("-f")
            .args([source.path(), mounted.path()])
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("start bindfs");
        let fuse = Self {
            source,
            mounted,
            daemon,
            tools: tools.clone(),
        };
        let mount_point = fuse.mounted.path().display().to_string();
        for _ in 0..500 {
            let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
            if mounts
                .lines()
                .any(|l| l.split(' ').nth(1) == Some(&mount_point) && l.contains(" fuse"))
            {
                return Some(fuse);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        util::skip(
            test,
            "bindfs did not mount a FUSE file system (no /dev/fuse?)",
        );
        None
    }

    /// A path in the served directory, written around the daemon.
    pub fn source(&self, name: &str) -> PathBuf {
        self.source.join(name)
    }

    /// The same path as the daemon serves it.
    pub fn served(&self, name: &str) -> PathBuf {
        self.mounted.join(name)
    }

    /// Stops the daemon: reads that miss the page cache wait until it resumes.
    pub fn stop(&self) {
        self.signal(libc::SIGSTOP);
    }

    /// Lets the daemon answer again.
    pub fn resume(&self) {
        self.signal(libc::SIGCONT);
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(self.daemon.id() as libc::pid_t, signal) };
    }
}

impl Drop for FuseDir {
    fn drop(&mut self) {
        self.resume();
        let _ = self.tools.run(
            "umount",
            &["--lazy", &self.mounted.path().display().to_string()],
        );
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}
