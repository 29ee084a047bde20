//! Races against the safety gate: while iospd starts, another thread exchanges the target's name
//! with a precious file, flips a symbolic link between a test file and the precious one, or makes
//! an output's name a link to it. Every run is cut short a moment after the load starts (writes
//! begin in the warm-up), so many tries stay cheap. Whatever each try did — refused, failed or
//! wrote to the test file — the precious file (or device) is byte-for-byte unchanged at the end.

use crate::util;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::util::TempDir;
use crate::util::machine::{LoopDevice, devices};

/// Runs per race.
const TRIES: usize = 25;

/// A marked iospd test file of `len` bytes.
fn test_file(path: &Path, len: usize) {
    std::fs::write(path, vec![0x5a; len]).unwrap();
    iospd::safety::marker::mark(&std::fs::File::open(path).unwrap()).unwrap();
}

/// Bytes no probe takes for a signature and that a write test would change.
fn precious_bytes(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Repeats `flip` on another thread until the returned guard is dropped; counts the flips.
struct Flipper {
    stop: Arc<AtomicBool>,
    flips: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Flipper {
    fn start(flip: impl Fn() + Send + 'static) -> Flipper {
        let stop = Arc::new(AtomicBool::new(false));
        let flips = Arc::new(AtomicU64::new(0));
        let (s, f) = (stop.clone(), flips.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                flip();
                f.fetch_add(1, Ordering::Relaxed);
            }
        });
        Flipper {
            stop,
            flips,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        self.flips.load(Ordering::Relaxed)
    }
}

impl Drop for Flipper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Exchanges two names atomically.
fn exchange(a: &Path, b: &Path) {
    let (a, b) = (
        CString::new(a.as_os_str().as_bytes()).unwrap(),
        CString::new(b.as_os_str().as_bytes()).unwrap(),
    );
    // SAFETY: NUL-terminated paths relative to the working directory.
    unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
}

/// Points `link` at `to`, atomically (a new link renamed over it).
fn repoint(link: &Path, to: &Path) {
    let fresh = link.with_extension("new-link");
    let _ = std::fs::remove_file(&fresh);
    if symlink(to, &fresh).is_ok() {
        let _ = std::fs::rename(&fresh, link);
    }
}

/// Starts iospd with `args`, lets it run `ms` milliseconds, then asks it to stop.
fn run_briefly(args: &[String], ms: u64) {
    let mut child = util::iospd()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("iospd starts");
    std::thread::sleep(Duration::from_millis(ms));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
}

/// The run's writes begin within the warm-up, which the signal cuts short.
fn write_run(target: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["-W1", "-d1", "-w100", "-b4K", "-o4", "--quiet"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    args.push(target.display().to_string());
    args
}

/// The file among `candidates` that is `len` bytes long.
fn sized(candidates: &[PathBuf], len: usize) -> Vec<u8> {
    candidates
        .iter()
        .map(|p| std::fs::read(p).unwrap_or_default())
        .find(|bytes| bytes.len() == len)
        .expect("the precious file is still there")
}

#[test]
fn names_exchanged_during_the_checks_never_reach_the_precious_file() {
    let dir = TempDir::new();
    let (target, precious) = (dir.join("t.dat"), dir.join("precious.db"));
    test_file(&target, 1 << 20);
    let original = precious_bytes(4 << 20);
    std::fs::write(&precious, &original).unwrap();
    let (a, b) = (target.clone(), precious.clone());
    let flipper = Flipper::start(move || exchange(&a, &b));
    for _ in 0..TRIES {
        run_briefly(&write_run(&target, &[]), 150);
        run_briefly(&write_run(&target, &["-c1M"]), 150);
    }
    assert!(flipper.finish() > 1000, "the names were exchanged");
    assert!(
        sized(&[target, precious], 4 << 20) == original,
        "the precious file was written"
    );
}

#[test]
fn a_link_flipped_during_the_checks_never_reaches_the_precious_file() {
    let dir = TempDir::new();
    let (test, precious, link) = (dir.join("t.dat"), dir.join("precious.db"), dir.join("link"));
    test_file(&test, 1 << 20);
    let original = precious_bytes(4 << 20);
    std::fs::write(&precious, &original).unwrap();
    symlink(&test, &link).unwrap();
    let (l, t, p) = (link.clone(), test.clone(), precious.clone());
    let flipper = Flipper::start(move || {
        repoint(&l, &p);
        repoint(&l, &t);
    });
    let fresh = dir.join("fresh.dat");
    let (f, p) = (fresh.clone(), precious.clone());
    let creator = Flipper::start(move || {
        let _ = symlink(&p, &f);
        let _ = std::fs::remove_file(&f);
    });
    for _ in 0..TRIES {
        run_briefly(&write_run(&link, &[]), 150);
        run_briefly(&write_run(&fresh, &["-c1M"]), 150);
    }
    assert!(flipper.finish() > 1000 && creator.finish() > 1000);
    assert!(
        std::fs::read(&precious).unwrap() == original,
        "the precious file was written"
    );
}

#[test]
fn an_output_name_flipped_to_a_link_never_reaches_the_precious_file() {
    let dir = TempDir::new();
    let (target, precious) = (dir.join("t.dat"), dir.join("precious.db"));
    test_file(&target, 1 << 20);
    let original = precious_bytes(1 << 20);
    std::fs::write(&precious, &original).unwrap();
    let names: Vec<PathBuf> = ["series.csv", "log.hlog", "trace.bin", "r.json"]
        .iter()
        .map(|n| dir.join(n))
        .collect();
    let (n, p) = (names.clone(), precious.clone());
    let flipper = Flipper::start(move || {
        for name in &n {
            repoint(name, &p);
            let _ = std::fs::remove_file(name);
            let _ = std::fs::write(name, b"old");
        }
    });
    let outputs = [
        format!("--timeseries={}", names[0].display()),
        format!("--histlog={}", names[1].display()),
        format!("--trace={}", names[2].display()),
        format!("--output={}", names[3].display()),
        "--checkpoint=1".to_string(),
    ];
    for _ in 0..TRIES {
        let mut args: Vec<String> = outputs.to_vec();
        args.extend(
            write_run(&target, &["-w0", "-D100"])
                .into_iter()
                .filter(|a| a != "-w100"),
        );
        run_briefly(&args, 300);
    }
    assert!(flipper.finish() > 1000);
    assert!(
        std::fs::read(&precious).unwrap() == original,
        "the precious file was written"
    );
}

#[test]
fn a_device_link_flipped_during_the_checks_never_reaches_the_file_system() {
    let test = "a_device_link_flipped_during_the_checks_never_reaches_the_file_system";
    let Some(tools) = devices(test, &["mkfs.ext4"]) else {
        return;
    };
    let (Some(clean), Some(ext4)) = (
        LoopDevice::with(&tools, 16, test),
        LoopDevice::with(&tools, 16, test),
    ) else {
        return;
    };
    tools.must("mkfs.ext4", &["-q", "-F", &ext4.arg()]);
    let before = ext4.contents();
    let dir = TempDir::new();
    let link = dir.join("disk");
    symlink(&clean.device, &link).unwrap();
    let (l, c, e) = (link.clone(), clean.device.clone(), ext4.device.clone());
    let flipper = Flipper::start(move || {
        repoint(&l, &e);
        repoint(&l, &c);
    });
    for _ in 0..TRIES {
        run_briefly(&write_run(&link, &[]), 150);
    }
    assert!(flipper.finish() > 1000);
    assert!(ext4.contents() == before, "the ext4 device was written");
}
