//! Faults during a run: a target removed or truncated behind the run's back stops the load, names
//! the target, keeps the results measured so far and exits 1.

mod util;

use std::process::Stdio;
use std::time::{Duration, Instant};

use util::{TempDir, iospd, stderr, stdout};

/// Starts a long run on a fresh 16 MiB test file, lets it measure, does `fault` to the file, and
/// returns the run's output.
fn run_with_fault(args: &[&str], fault: impl FnOnce(&std::path::Path)) -> std::process::Output {
    let dir = TempDir::new();
    let path = dir.join("victim.dat");
    let created = iospd()
        .args(["-c16M", "-d1", "-W0", &path.display().to_string()])
        .output()
        .unwrap();
    assert_eq!(created.status.code(), Some(0), "{}", stderr(&created));
    let child = iospd()
        .args(["-d60", "-W0"])
        .args(args)
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    fault(&path);
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the run did not stop on the fault"
    );
    output
}

/// Cuts the file down to its first 4 KiB.
fn truncate_to_one_block(path: &std::path::Path) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.set_len(4096))
        .unwrap()
}

#[test]
fn a_removed_target_stops_the_run_and_keeps_the_results() {
    let output = run_with_fault(&["-w100", "-b4K"], |path| {
        std::fs::remove_file(path).unwrap()
    });
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("victim.dat' was removed during the run"),
        "{err}"
    );
    let report = stdout(&output);
    let total = util::totals(&report, "Total IO");
    assert!(total.ios > 0, "results up to the removal are kept");
}

#[test]
fn a_truncated_target_stops_a_write_test() {
    // Writes regrow a truncated file; the run notices that it shrank. Throttled so the random
    // writes cannot rewrite the last block before the next look.
    let output = run_with_fault(&["-w100", "-b4K", "-r", "-g1000i"], truncate_to_one_block);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("victim.dat' was truncated during the run (from 16777216 to "),
        "{err}"
    );
    assert!(util::totals(&stdout(&output), "Total IO").ios > 0);
}

#[test]
fn a_truncated_target_stops_a_read_test_at_the_short_read() {
    let output = run_with_fault(&["-b4K", "-r"], truncate_to_one_block);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("read of 4096 bytes at offset")
            && err.contains("victim.dat' by thread 0")
            && (err.contains("short transfer") || err.contains("was truncated")),
        "{err}"
    );
}

#[test]
fn a_signal_while_creating_removes_the_partial_file() {
    let dir = TempDir::new();
    let path = dir.join("big.dat");
    let child = iospd()
        .args(["-c2G", "-d1", &path.display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until creation has begun.
    let started = Instant::now();
    while !path.exists() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: kill with a valid pid and signal number.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("interrupted before the file was complete; the partial file was removed"),
        "{err}"
    );
    assert!(!path.exists(), "the partial file was left");
}
