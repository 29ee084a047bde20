//! The command line as a user meets it: every bad input exits 3 with one line that names the
//! offending token and the fix, and creates or writes nothing.

mod util;

use std::fs;
use std::os::unix::fs::MetadataExt;

use util::{TempDir, iospd, run_iospd, stderr, stdout};

/// Command lines that must be refused, and a fragment the message must contain.
const BAD: &[(&[&str], &str)] = &[
    (&["-o0", "t.dat"], "'-o0'"),
    (&["-o32x", "t.dat"], "not a whole number"),
    (&["-o65537", "t.dat"], "out of range"),
    (&["-b0", "t.dat"], "'-b0'"),
    (&["-b4Q", "t.dat"], "unknown size suffix"),
    (&["-b4G", "t.dat"], "below 4GiB"),
    (&["-b8b", "t.dat"], "blocks"),
    (&["-c0", "t.dat"], "greater than 0"),
    (&["-c99999999999999999999", "t.dat"], "too large"),
    (&["-c17179869184G", "t.dat"], "too large"),
    (&["-d0", "t.dat"], "'-d0'"),
    (&["-d", "t.dat"], "'-d'"),
    (&["-w", "t.dat"], "-w0"),
    (&["-w101", "t.dat"], "out of range"),
    (&["-t0", "t.dat"], "'-t0'"),
    (&["-t100000", "t.dat"], "out of range"),
    (&["-F0", "t.dat"], "'-F0'"),
    (&["-T0", "-t2", "t.dat"], "greater than 0"),
    (&["-r0", "t.dat"], "greater than 0"),
    (&["-g0", "t.dat"], "'-g0'"),
    (&["-gx", "t.dat"], "'-gx'"),
    (&["-D0", "t.dat"], "'-D0'"),
    (&["-P0", "t.dat"], "'-P0'"),
    (&["-z-1", "t.dat"], "'-z-1'"),
    (&["-Z0", "t.dat"], "greater than 0"),
    (&["-Z1M,", "t.dat"], "file name"),
    (&["-Sq", "t.dat"], "not a cache flag"),
    (&["-Sbu", "t.dat"], "conflicts"),
    (&["-Su", "-h", "t.dat"], "conflicts"),
    (&["-Sr", "t.dat"], "no Linux equivalent"),
    (&["-Sy", "t.dat"], "BypassIO"),
    (&["-L", "-L", "t.dat"], "already given"),
    (&["-o4", "-o8", "t.dat"], "already given"),
    (&["-q", "t.dat"], "unknown option '-q'"),
    (&["--bogus", "t.dat"], "unknown option '--bogus'"),
    (&["--engine=libaio", "t.dat"], "io_uring, psync, null"),
    (&["-X", "t.dat"], "profile's path"),
    (&["-Rxml", "-Rjson", "t.dat"], "already given"),
    (&["-Rcsv", "t.dat"], "'-Rcsv'"),
    (&["-rs0", "t.dat"], "out of range"),
    (&["-x", "t.dat"], "Windows mechanism"),
    (&["#1"], "/dev/sdb"),
    (&["E:"], "partition"),
    (&["-F2", "-t2", "t.dat"], "-F and -t cannot be combined"),
    (&["-r", "-s", "t.dat"], "-r and -s cannot be combined"),
    (
        &["-r", "-T4K", "-t2", "t.dat"],
        "-r and -T cannot be combined",
    ),
    (
        &["-si", "-T4K", "-t2", "t.dat"],
        "-si and -T cannot be combined",
    ),
    (&["-n", "-a0", "t.dat"], "-n and -a cannot be combined"),
    (&["-B0:1G", "-f2G", "t.dat"], "cannot be combined"),
    (&["-T4K", "t.dat"], "one thread"),
    (
        &["-b8K", "-Z4K", "-w50", "t.dat"],
        "smaller than the block size",
    ),
    (&["-B1M", "-f1M", "t.dat"], "-f"),
    (&["-a99", "t.dat"], "CPU 99 is not available"),
    (&["-ag1,0", "t.dat"], "processor groups"),
    (&["-a3-1", "t.dat"], "backwards"),
    (&["t.dat", "-o4"], "comes after the target"),
    (&["-d10", "\u{2013}t16", "t.dat"], "en dash"),
    (&["-o4"], "no target"),
    (&["-"], "'-' alone"),
    (&[""], "empty argument"),
    (&["-Lx", "t.dat"], "takes no value"),
];

#[test]
fn bad_input_exits_3_with_one_line_and_touches_nothing() {
    let dir = TempDir::new();
    for (args, fragment) in BAD {
        let mut line = vec!["-c1M", "-d1", "-W0"];
        // Options must precede targets, so the creation flag goes first; for lines that test
        // option order or missing targets it does not matter.
        line.extend_from_slice(args);
        let output = iospd()
            .args(&line)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = stderr(&output);
        assert_eq!(
            output.status.code(),
            Some(3),
            "{args:?} should exit 3; stderr: {err}"
        );
        assert_eq!(
            err.lines().count(),
            1,
            "{args:?}: one line expected, got:\n{err}"
        );
        assert!(
            err.contains(fragment),
            "{args:?}: message lacks {fragment:?}: {err}"
        );
        assert!(stdout(&output).is_empty(), "{args:?}: nothing on stdout");
        assert!(
            fs::read_dir(dir.path()).unwrap().next().is_none(),
            "{args:?}: a file was created"
        );
    }
}

#[test]
fn missing_target_without_create() {
    let dir = TempDir::new();
    let output = run_iospd(&["-d1", &dir.arg("absent.dat")]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("does not exist; create it with -c"));
}

#[test]
fn directory_and_character_device_targets() {
    let dir = TempDir::new();
    let output = run_iospd(&["-d1", &dir.path().display().to_string()]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("is a directory"));
    let output = run_iospd(&["-d1", "/dev/null"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("neither a regular file nor a block device"));
}

#[test]
fn target_too_small_names_the_size_needed_and_is_untouched() {
    let dir = TempDir::new();
    let path = dir.join("small.dat");
    fs::write(&path, vec![7u8; 8192]).unwrap();
    let before = fs::metadata(&path).unwrap();
    let output = run_iospd(&[
        "-d1",
        "-W0",
        "-b64K",
        "-w100",
        "--force",
        &dir.arg("small.dat"),
    ]);
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    assert!(
        err.contains("too small") && err.contains("64KiB (65536 bytes)"),
        "{err}"
    );
    let after = fs::metadata(&path).unwrap();
    assert_eq!(
        (before.len(), before.mtime_nsec()),
        (after.len(), after.mtime_nsec())
    );
    assert_eq!(fs::read(&path).unwrap(), vec![7u8; 8192]);
}

#[test]
fn a_bad_second_target_stops_before_the_first_is_created() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        &dir.arg("first.dat"),
        &dir.arg("nodir/second.dat"),
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(!dir.join("first.dat").exists());
}

#[test]
fn direct_io_alignment_is_explained() {
    let dir = TempDir::new();
    let output = run_iospd(&["-c1M", "-d1", "-W0", "-b1000", "-Su", &dir.arg("a.dat")]);
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    assert!(
        err.contains("block size (-b) 1000 is not a multiple of"),
        "{err}"
    );
    assert!(err.contains("O_DIRECT"), "{err}");
    assert!(!dir.join("a.dat").exists());
}

#[test]
fn help_and_no_arguments() {
    let output = run_iospd(&["-?"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("Usage: iospd [options] target1"));
    let output = run_iospd(&[]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stdout(&output).contains("Usage: iospd"));
}

#[test]
fn warnings_go_to_stderr_and_the_run_continues() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "-t2",
        "--engine=null",
        &dir.arg("w.dat"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("consider -si or -T"));
}
