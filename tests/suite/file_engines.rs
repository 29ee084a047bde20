//! The file engines (`--engine=stat|lstat|statx|unlink|create|ftruncate`): each I/O is one call on
//! its target, counted and timed as an I/O; unlink and create reach only the file the gate cleared,
//! once each; nothing else in the directory changes.

use std::fs;
use std::os::unix::fs::MetadataExt;

use crate::util::{TempDir, assert_refused_untouched, run_iospd, stderr, stdout, totals};

/// One call on each target, by one thread.
const ONCE: &[&str] = &["-c4K", "-b4K", "-W0", "-C0", "--ios=1", "-F1", "-O1"];

/// `iospd <args> <targets>` in `dir`, which must succeed; its text report.
fn run(dir: &TempDir, args: &[&str], targets: &[&str]) -> String {
    let paths: Vec<String> = targets.iter().map(|t| dir.arg(t)).collect();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(paths.iter().map(String::as_str));
    let output = run_iospd(&all);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    stdout(&output)
}

#[test]
fn stat_calls_are_counted_as_reads_and_change_nothing() {
    let dir = TempDir::new();
    let made = run(&dir, &["-c64K", "-d1", "--engine=null"], &["s.dat"]);
    assert!(made.contains("Total IO"));
    let before = fs::metadata(dir.join("s.dat")).unwrap();
    let content = fs::read(dir.join("s.dat")).unwrap();
    for engine in ["stat", "lstat", "statx"] {
        let report = run(
            &dir,
            &[&format!("--engine={engine}"), "-b4K", "-W0", "--ios=500"],
            &["s.dat"],
        );
        assert!(report.contains(&format!("engine: {engine} (each I/O is one {engine}()")));
        assert_eq!(totals(&report, "Read IO").ios, 500, "{engine}");
        assert_eq!(totals(&report, "Write IO").ios, 0, "{engine}");
    }
    let output = run_iospd(&[
        "--engine=statx",
        "-W0",
        "--ios=10",
        "-Rjson",
        &dir.arg("s.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    crate::util::validate_json(&stdout(&output));
    assert!(stdout(&output).contains(r#""kind": "statx""#));
    let after = fs::metadata(dir.join("s.dat")).unwrap();
    assert_eq!((after.len(), after.mtime()), (before.len(), before.mtime()));
    assert_eq!(fs::read(dir.join("s.dat")).unwrap(), content);
}

#[test]
fn unlink_removes_each_target_once_and_nothing_else() {
    let dir = TempDir::new();
    fs::write(dir.join("keep.txt"), b"not a target").unwrap();
    let report = run(
        &dir,
        &[&["--engine=unlink"], ONCE].concat(),
        &["a.dat", "b.dat", "c.dat"],
    );
    assert_eq!(totals(&report, "Total IO").ios, 3);
    for name in ["a.dat", "b.dat", "c.dat"] {
        assert!(!dir.join(name).exists(), "{name} is still there");
    }
    assert_eq!(fs::read(dir.join("keep.txt")).unwrap(), b"not a target");
}

#[test]
fn unlink_and_create_refuse_a_file_iospd_did_not_make_and_a_link() {
    let dir = TempDir::new();
    fs::write(dir.join("theirs.dat"), b"their data").unwrap();
    std::os::unix::fs::symlink("theirs.dat", dir.join("link.dat")).unwrap();
    for engine in ["--engine=unlink", "--engine=create"] {
        let args = [engine, "-b4K", "-W0", "-C0", "--ios=1"];
        for target in ["theirs.dat", "link.dat"] {
            let output = run_iospd(&[&args[..], &[&dir.arg(target)]].concat());
            assert_eq!(output.status.code(), Some(3), "{engine} {target}");
            assert!(stderr(&output).contains("did not create it as a test file"));
        }
    }
    // A link to a test file: the gate clears the file, and the name is not the file's own.
    run(&dir, &["-c64K", "-d1", "--engine=null"], &["mine.dat"]);
    std::os::unix::fs::symlink("mine.dat", dir.join("mine-link.dat")).unwrap();
    let args = ["--engine=unlink", "-b4K", "-W0", "-C0", "--ios=1"];
    let output = run_iospd(&[&args[..], &[&dir.arg("mine-link.dat")]].concat());
    assert_ne!(output.status.code(), Some(0));
    assert!(stderr(&output).contains("does not name the file the run opened"));
    assert!(dir.join("mine.dat").exists() && dir.join("mine-link.dat").exists());
    assert_eq!(fs::read(dir.join("theirs.dat")).unwrap(), b"their data");
}

#[test]
fn create_makes_each_target_anew_and_a_second_run_may_again() {
    let dir = TempDir::new();
    let args = [&["--engine=create"], ONCE].concat();
    for round in 0..2 {
        let report = run(&dir, &args, &["a.dat", "b.dat"]);
        assert_eq!(totals(&report, "Total IO").ios, 2, "round {round}");
        for name in ["a.dat", "b.dat"] {
            let meta = fs::metadata(dir.join(name)).unwrap();
            assert_eq!(meta.len(), 0, "{name} was created empty");
        }
    }
}

#[test]
fn ftruncate_sets_the_length_to_each_writes_offset() {
    let dir = TempDir::new();
    let report = run(
        &dir,
        &[
            "--engine=ftruncate",
            "-c1M",
            "-b64K",
            "-s",
            "-w100",
            "-W0",
            "--ios=16",
        ],
        &["t.dat"],
    );
    assert_eq!(totals(&report, "Write IO").ios, 16);
    // Sequential writes at 0, 64K, … 15 × 64K: the last one leaves that length.
    assert_eq!(
        fs::metadata(dir.join("t.dat")).unwrap().len(),
        15 * 64 * 1024
    );
}

#[test]
fn fallocate_punches_with_trims_and_allocates_with_writes() {
    let dir = TempDir::new();
    let blocks = || fs::metadata(dir.join("f.dat")).unwrap().blocks() * 512;
    let each = ["-b64K", "-s", "-W0", "--ios=16"];
    run(
        &dir,
        &[&["--engine=fallocate", "-c1M", "--trim=100"], &each[..]].concat(),
        &["f.dat"],
    );
    assert_eq!(blocks(), 0, "every 64 KiB of the 1 MiB punched out");
    assert_eq!(fs::metadata(dir.join("f.dat")).unwrap().len(), 1 << 20);
    // Without -c: the punched file as it is.
    let report = run(
        &dir,
        &[&["--engine=fallocate", "-w100"], &each[..]].concat(),
        &["f.dat"],
    );
    assert_eq!(totals(&report, "Write IO").ios, 16);
    assert!(blocks() >= 1 << 20, "allocated again: {} bytes", blocks());
}

#[test]
fn file_engine_misuse_is_refused_before_anything_is_made() {
    assert_refused_untouched(&[
        (
            vec!["--engine=ftruncate"],
            "a read has no counterpart; use -w100",
        ),
        (vec!["--engine=unlink", "-W0", "-C0"], "give --ios=1"),
        (vec!["--engine=create", "--ios=1"], "use -W0 -C0"),
        (
            vec!["--engine=unlink", "-W0", "-C0", "--ios=1", "-t2"],
            "use -t1",
        ),
        (vec!["--engine=stat", "-Sm"], "drop -Sm"),
        (vec!["--engine=statx", "--trim=10"], "drop --trim"),
        (vec!["--engine=stat", "--verify"], "drop --verify"),
    ]);
}
