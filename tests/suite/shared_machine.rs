//! A run on a shared machine says who else used it: another process writing to the device under
//! a read run, processes burning every CPU beside the run, and a thread held back by a process on
//! its CPU — each a finding with its numbers in the report.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::Value;

use crate::util::machine::{LoopDevice, devices};
use crate::util::{TempDir, iospd, run_until, skip, stderr, traced};

/// Threads that each keep a CPU busy until dropped (the scheduler sees them as any other
/// process's work); `cpu`: all pinned to that one.
struct Burners {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Burners {
    fn start(count: usize, cpu: Option<usize>) -> Burners {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..count)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    if let Some(cpu) = cpu {
                        // SAFETY: a zeroed cpu_set_t with one bit set, for this thread alone.
                        unsafe {
                            let mut set: libc::cpu_set_t = std::mem::zeroed();
                            libc::CPU_SET(cpu, &mut set);
                            assert_eq!(
                                libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set),
                                0
                            );
                        }
                    }
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        Burners { stop, threads }
    }
}

impl Drop for Burners {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn flags(report: &Value) -> Vec<String> {
    crate::reality::flags(&report["timespans"][0]["measured"]["reality"])
}

/// Two threads on the null engine for 3 s (offsets are drawn and I/Os counted as for any engine,
/// so each thread is busy on its CPU the whole time): the JSON report.
fn two_threads(dir: &TempDir) -> Value {
    let output = iospd()
        .args([
            "-c4M",
            "-b4K",
            "-r",
            "-t2",
            "-o4",
            "-d3",
            "-W0",
            "--engine=null",
            "-Rjson",
        ])
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn a_writer_beside_a_read_run_is_named_with_what_it_wrote() {
    let test = "a_writer_beside_a_read_run_is_named_with_what_it_wrote";
    let Some(tools) = devices(test, &[]) else {
        return;
    };
    let Some(device) = LoopDevice::with(&tools, 64, test) else {
        return;
    };
    let dir = TempDir::new();
    // Another process's writes: 1 MiB blocks, direct, over the device's second half, until told.
    let (stop, written) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU64::new(0)),
    );
    let writer = {
        let (stop, written, path) = (stop.clone(), written.clone(), device.device.clone());
        std::thread::spawn(move || {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_DIRECT)
                .open(path)
                .unwrap();
            let layout = std::alloc::Layout::from_size_align(1 << 20, 4096).unwrap();
            // SAFETY: an aligned, zeroed 1 MiB block, freed below.
            let block = unsafe { std::alloc::alloc_zeroed(layout) };
            let data = unsafe { std::slice::from_raw_parts(block, 1 << 20) };
            let mut at = 0u64;
            while !stop.load(Ordering::Relaxed) {
                use std::io::Seek as _;
                file.seek(std::io::SeekFrom::Start((32 << 20) + (at % 32) * (1 << 20)))
                    .unwrap();
                file.write_all(data).unwrap();
                written.fetch_add(1 << 20, Ordering::Relaxed);
                at += 1;
            }
            // SAFETY: allocated above with this layout.
            unsafe { std::alloc::dealloc(block, layout) };
        })
    };
    // A read-only run of the first half, stopped once it read 2,000 blocks and the writer wrote
    // 64 MiB since the run's first I/O.
    let trace = dir.arg("read.trace");
    let mut command = iospd();
    command.args([
        "-b4K",
        "-r",
        "-o4",
        "-Sh",
        "-W0",
        "-d600",
        "-B0",
        "-f32M",
        "-D100",
        "-Rjson",
        &format!("--trace={trace}"),
        &device.arg(),
    ]);
    let started = traced(&trace, 1);
    let read = traced(&trace, 2000);
    let from = std::sync::OnceLock::new();
    let output = run_until(command, || {
        if !started() {
            return false;
        }
        let since = *from.get_or_init(|| written.load(Ordering::Relaxed));
        read() && written.load(Ordering::Relaxed) - since >= 64 << 20
    });
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let found = flags(&report);
    let name = device.device.display().to_string().replace("/dev/", "");
    assert!(
        found
            .iter()
            .any(|f| f.starts_with(&format!("{name} wrote "))
                && f.contains("that iospd did not during the window, beside iospd's 0B")),
        "{found:?}\n{}",
        stderr(&output)
    );
    let d = &report["timespans"][0]["measured"]["reality"]["devices"][0];
    assert!(
        d["reached"]["write_bytes"].as_u64().unwrap() >= 32 << 20,
        "{d}"
    );
    assert_eq!(d["issued_writes"], 0, "{d}");
    // Under -D the device's intervals chain from the window's first sample to its last: they add
    // up to the window exactly, and the writer's bytes are all another's.
    let intervals = d["intervals"].as_array().unwrap();
    assert!(!intervals.is_empty(), "{d}");
    let sum = |field: &str| -> u64 {
        intervals
            .iter()
            .map(|i| i["stat"][field].as_u64().unwrap())
            .sum()
    };
    for field in ["reads", "read_bytes", "writes", "write_bytes"] {
        assert_eq!(
            sum(field),
            d["reached"][field].as_u64().unwrap(),
            "{field}: {d}"
        );
    }
    let other: u64 = intervals
        .iter()
        .map(|i| i["other_write_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(other, sum("write_bytes"), "{d}");
    assert!(
        found
            .iter()
            .any(|f| f.contains(" intervals (-D), the most, ")),
        "{found:?}"
    );
}

#[test]
fn processes_burning_every_cpu_beside_a_run_are_named() {
    let dir = TempDir::new();
    let _burners = Burners::start(cpus(), None);
    // The null engine keeps its threads on their CPUs: each competes with a burner for its own.
    let report = two_threads(&dir);
    let cpu = &report["timespans"][0]["measured"]["reality"]["cpu"];
    let waited = cpu["waited"].as_array().unwrap();
    assert_eq!(waited.len(), 2, "{cpu}");
    let found = flags(&report);
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("iospd's threads waited for a CPU while ready to run (thread ")),
        "{found:?}"
    );
    assert!(cpu["others_percent"].as_f64().unwrap() >= 10.0, "{cpu}");
}

#[test]
fn a_thread_held_back_by_a_process_on_its_cpu_is_named() {
    let test = "a_thread_held_back_by_a_process_on_its_cpu_is_named";
    if cpus() < 2 {
        skip(
            test,
            "needs two CPUs: one thread's CPU is shared, the other's not",
        );
        return;
    }
    let dir = TempDir::new();
    // Threads are pinned to CPUs 0 and 1 as DiskSpd pins them; eight burners share CPU 1, so
    // thread 1 has a ninth of it at most, while the machine's other work (other tests, busy
    // processes) moves to CPU 0 and leaves thread 0 more than that.
    let _burners = Burners::start(8, Some(1));
    let report = two_threads(&dir);
    let threads = report["timespans"][0]["measured"]["threads"]
        .as_array()
        .unwrap();
    assert_eq!(threads[1]["cpu"], 1, "{threads:?}");
    let found = flags(&report);
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("threads of one workload ran unevenly: thread 1 at ")),
        "{found:?}"
    );
}
