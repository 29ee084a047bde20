//! What a run sets on its whole process: `--nice` (the CPU priority of its threads) and
//! `--lock-memory` (memory held away from the machine), seen from outside in /proc while the run
//! waits for a start event, and refused before anything is written when they cannot be had.

use std::fs;
use std::process::Stdio;
use std::time::Duration;

use crate::util::{TempDir, iospd, run_iospd, stderr, stdout};

/// Field 19 of /proc/<pid>/task/<tid>/stat: the thread's niceness.
fn niceness(stat: &str) -> i32 {
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    after_name.split(' ').nth(16).unwrap().parse().unwrap()
}

fn locked_kib(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmLck:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn threads(pid: u32) -> Vec<String> {
    fs::read_dir(format!("/proc/{pid}/task"))
        .map(|dir| {
            dir.filter_map(|e| fs::read_to_string(e.ok()?.path().join("stat")).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Starts iospd with `args` and `-yrGo`: it sets up, then waits for event Go (set in `events`
/// by [`go`]) before it runs.
fn waiting(events: &TempDir, args: &[&str]) -> std::process::Child {
    iospd()
        .env("IOSPD_EVENT_DIR", events.path())
        .arg("-yrGo")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sets event Go for a [`waiting`] run and returns its output.
fn go(events: &TempDir, child: std::process::Child) -> std::process::Output {
    fs::write(events.join("iospd-event-Go"), b"").unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_runs_threads_are_niced_and_its_memory_locked_until_it_ends() {
    let dir = TempDir::new();
    let events = TempDir::new();
    let target = dir.arg("p.dat");
    let mut child = waiting(
        &events,
        &[
            "-c1M",
            "-t2",
            "-W0",
            "--ios=200",
            "--nice=7",
            "--lock-memory=64M",
            "--engine=null",
            &target,
        ],
    );
    let pid = child.id();
    // Waits for the run to hold its memory and start its two workers (they wait for the event),
    // however slowly the machine gets there.
    let mut seen = Vec::new();
    while seen.len() < 3 || locked_kib(pid) < 64 * 1024 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its start event: {}",
            stderr(&child.wait_with_output().unwrap())
        );
        std::thread::sleep(Duration::from_millis(20));
        seen = threads(pid);
    }
    let nice: Vec<i32> = seen.iter().map(|s| niceness(s)).collect();
    assert!(
        nice.iter().all(|&n| n == 7),
        "niceness of each thread: {nice:?}"
    );
    let output = go(&events, child);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = stdout(&output);
    assert!(
        report.contains("--nice=7: the threads run at this CPU niceness"),
        "{report}"
    );
    assert!(
        report.contains("--lock-memory: 64MiB of memory locked"),
        "{report}"
    );
    let json = iospd()
        .args(["--nice=3", "--lock-memory=1M", "-Rp", "-Rjson", &target])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        (json["nice"].as_i64(), json["lock_memory_bytes"].as_u64()),
        (Some(3), Some(1 << 20)),
        "{json}"
    );
}

#[test]
fn a_niceness_or_a_lock_that_cannot_be_had_is_refused_before_anything_is_written() {
    let dir = TempDir::new();
    let target = dir.arg("never.dat");
    for (args, says) in [
        (vec!["--nice=20"], "--nice=10 or --nice=-5"),
        (vec!["--nice=-21"], "--nice=10 or --nice=-5"),
        (vec!["--nice=low"], "--nice=10 or --nice=-5"),
        (vec!["--lock-memory=0"], "greater than 0"),
        (vec!["--lock-memory=8b"], "give bytes"),
        (vec!["--lock-memory=1024T"], "lock less"),
    ] {
        let mut line = args.clone();
        line.extend(["-c1M", "-d1", "--engine=null", &target]);
        let output = run_iospd(&line);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(!dir.join("never.dat").exists(), "{args:?} wrote the target");
    }
}

/// `--sqpoll-cpu`: the ring's polling kernel thread (a task of the process, `iou-sqp-<pid>`) is
/// bound to that CPU, seen while the run waits for its start event.
#[test]
fn the_polling_thread_runs_on_the_cpu_asked() {
    let dir = TempDir::new();
    let events = TempDir::new();
    let target = dir.arg("q.dat");
    let mut child = waiting(
        &events,
        &[
            "-c1M",
            "-W0",
            "--ios=100",
            "--sqpoll",
            "--sqpoll-cpu=1",
            &target,
        ],
    );
    let pid = child.id();
    let polling = loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its start event: {}",
            stderr(&child.wait_with_output().unwrap())
        );
        let found = fs::read_dir(format!("/proc/{pid}/task"))
            .ok()
            .and_then(|dir| {
                dir.filter_map(|e| e.ok())
                    .find(|e| {
                        fs::read_to_string(e.path().join("comm"))
                            .is_ok_and(|c| c.starts_with("iou-sqp"))
                    })
                    .map(|e| e.path())
            });
        if let Some(task) = found {
            break task;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let status = fs::read_to_string(polling.join("status")).unwrap();
    let cpus = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(str::trim);
    let output = go(&events, child);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(cpus, Some("1"), "{status}");
    let refused = run_iospd(&["--sqpoll-cpu=1", "-c1M", "-d1", &dir.arg("never.dat")]);
    assert_eq!(refused.status.code(), Some(3));
    assert!(
        stderr(&refused).contains("add --sqpoll"),
        "{}",
        stderr(&refused)
    );
    assert!(!dir.join("never.dat").exists());
}

/// `--mem-policy`: every task of the run has the policy (set before its threads start, which
/// inherit it), seen in each task's numa_maps while the run waits for its start event; a node the
/// host lacks is refused before anything is written; fio's `numa_mem_policy` is the same option.
#[test]
fn the_runs_threads_take_the_memory_policy_and_a_missing_node_is_refused() {
    let dir = TempDir::new();
    let events = TempDir::new();
    let target = dir.arg("m.dat");
    let mut child = waiting(
        &events,
        &[
            "-c1M",
            "-t2",
            "-W0",
            "--ios=100",
            "--mem-policy=interleave:0",
            "--engine=null",
            &target,
        ],
    );
    let pid = child.id();
    while threads(pid).len() < 3 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its start event: {}",
            stderr(&child.wait_with_output().unwrap())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let policies: Vec<String> = fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|e| fs::read_to_string(e.ok()?.path().join("numa_maps")).ok())
        .map(|maps| {
            let first = maps.lines().next().unwrap_or_default();
            first.split(' ').nth(1).unwrap_or_default().to_string()
        })
        .collect();
    assert!(
        policies.len() >= 3 && policies.iter().all(|p| p == "interleave:0"),
        "each task's policy: {policies:?}"
    );
    let output = go(&events, child);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("--mem-policy=interleave:0: the threads' memory policy"),
        "{}",
        stdout(&output)
    );
    let never = dir.arg("never.dat");
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "--mem-policy=bind:0,1023",
        "--engine=null",
        &never,
    ]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("node 1023 has no memory on this host") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!dir.join("never.dat").exists());
    let fio = iospd()
        .args([
            "fio",
            "-Rp",
            "--name=n",
            "--filename=n.dat",
            "--size=1m",
            "--numa_mem_policy=interleave:0",
        ])
        .output()
        .unwrap();
    assert!(
        stdout(&fio).contains("--mem-policy=interleave:0 "),
        "{}",
        stdout(&fio)
    );
}
