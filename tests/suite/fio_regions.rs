//! A fio job's region given as percentages of its target (`size=N%`, `offset=N%`): taken of the
//! target's size as fio takes it, checked against fio's own I/O log where fio is installed.

use crate::util::tools;
use crate::util::{TempDir, iospd, stderr, stdout};

/// The value of `-<letter>` in a printed iospd command line.
fn argument(line: &str, letter: &str) -> Option<u64> {
    line.split_whitespace()
        .find_map(|a| a.strip_prefix(letter)?.parse().ok())
}

/// The lowest offset and the end of the highest I/O in a fio I/O log (version 3).
fn log_bounds(log: &str) -> (u64, u64) {
    let ios: Vec<(u64, u64)> = log
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f.as_slice() {
                [_, _, "read", offset, len] => Some((offset.parse().ok()?, len.parse().ok()?)),
                _ => None,
            }
        })
        .collect();
    assert!(!ios.is_empty(), "no reads in the log:\n{log}");
    let low = ios.iter().map(|&(o, _)| o).min().unwrap();
    let high = ios.iter().map(|&(o, l)| o + l).max().unwrap();
    (low, high)
}

#[test]
fn percentages_of_a_target_are_taken_of_its_size_as_fio_takes_them() {
    let test = "percentages_of_a_target_are_taken_of_its_size_as_fio_takes_them";
    let dir = TempDir::new();
    // 10,000,000 bytes: no percentage of it is a whole number of 4 KiB blocks.
    let foreign: Vec<u8> = (0..10_000_000u32).map(|i| (i % 253) as u8).collect();
    std::fs::write(dir.join("t.dat"), &foreign).unwrap();
    let fio = tools::optional(test, "fio", "the regions against fio's own I/O log");
    let jobs: [(&[&str], u64, u64); 4] = [
        // 30 % rounded up to the block; 90 % from there, cut at the end, rounded down.
        (
            &["--rw=read", "--offset=30%", "--size=90%"],
            3_002_368,
            9_998_336,
        ),
        (&["--rw=randread", "--size=50%"], 0, 4_997_120),
        (
            &["--rw=randread", "--offset=30%", "--size=20%"],
            3_002_368,
            5_001_216,
        ),
        (
            &["--rw=read", "--offset=25%", "--size=1m"],
            2_502_656,
            3_551_232,
        ),
    ];
    for (options, start, end) in jobs {
        let common = [
            "--name=p",
            "--filename=t.dat",
            "--bs=4k",
            "--ioengine=psync",
        ];
        let printed = iospd()
            .args(["fio", "-Rp"])
            .args(common)
            .args(options)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(printed.status.code(), Some(0), "{}", stderr(&printed));
        let line = stdout(&printed);
        assert_eq!(
            argument(&line, "-B").unwrap_or(0),
            start,
            "{options:?}: {line}"
        );
        assert_eq!(argument(&line, "-c"), Some(end), "{options:?}: {line}");
        let output = iospd()
            .args(["fio", "-Rjson"])
            .args(common)
            .args(options)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        let read = &report["timespans"][0]["measured"]["totals"]["read"]["bytes"];
        assert_eq!(read.as_u64(), Some(end - start), "{options:?}");
        assert!(std::fs::read(dir.join("t.dat")).unwrap() == foreign);
        if let Some(fio) = &fio {
            // fio adds to an I/O log that is there.
            let _ = std::fs::remove_file(dir.join("fio.log"));
            let ran = fio
                .command("fio")
                .args(common)
                .args(options)
                .arg("--write_iolog=fio.log")
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert!(ran.status.success(), "{}", stderr(&ran));
            let log = std::fs::read_to_string(dir.join("fio.log")).unwrap();
            assert_eq!(
                log_bounds(&log),
                (start, end),
                "fio's region of {options:?}"
            );
        }
    }
}

#[test]
fn percentages_that_cannot_be_taken_are_refused_naming_the_targets() {
    let dir = TempDir::new();
    std::fs::write(dir.join("a.dat"), vec![1u8; 1 << 20]).unwrap();
    std::fs::write(dir.join("b.dat"), vec![1u8; 2 << 20]).unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["--filename=a.dat:b.dat", "--size=10%"],
            "targets of different sizes ('a.dat' 1048576 bytes, 'b.dat' 2097152)",
        ),
        (
            &["--filename=none.dat", "--offset=10%", "--size=10%"],
            "'none.dat', which is not there",
        ),
        (
            &["--filename=a.dat", "--offset=10%", "--offset_align=64k"],
            "offset_align=64k: a percentage offset rounded up to 65536 bytes",
        ),
    ];
    for (options, why) in cases {
        let output = iospd()
            .args(["fio", "--name=p", "--rw=read", "--bs=4k"])
            .args(options)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{options:?}");
        assert!(
            stderr(&output).contains(why),
            "{options:?}: {}",
            stderr(&output)
        );
        assert!(!dir.join("none.dat").exists());
    }
}

/// An offset as a percentage of a file not there yet: fio takes it of 0 bytes, lays the file out
/// at its size and works it from 0; iospd the same (fio's I/O log beside it where installed).
#[test]
fn a_percentage_offset_of_a_file_not_there_yet_starts_at_zero_as_in_fio() {
    let test = "a_percentage_offset_of_a_file_not_there_yet_starts_at_zero_as_in_fio";
    let fio = tools::optional(test, "fio", "the region against fio's own I/O log");
    let job = [
        "--name=p",
        "--filename=new.dat",
        "--rw=read",
        "--bs=64k",
        "--ioengine=psync",
        "--offset=25%",
        "--size=1m",
    ];
    let dir = TempDir::new();
    let output = iospd()
        .args(["fio", "-Rjson"])
        .args(job)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("takes 25% of 0 bytes"),
        "{}",
        stderr(&output)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let read = &report["timespans"][0]["measured"]["totals"]["read"]["bytes"];
    assert_eq!(read.as_u64(), Some(1 << 20));
    assert_eq!(
        std::fs::metadata(dir.join("new.dat")).unwrap().len(),
        1 << 20
    );
    let Some(fio) = fio else { return };
    let theirs = TempDir::new();
    let ran = fio
        .command("fio")
        .args(job)
        .arg("--write_iolog=fio.log")
        .current_dir(theirs.path())
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", stderr(&ran));
    let log = std::fs::read_to_string(theirs.join("fio.log")).unwrap();
    assert_eq!(log_bounds(&log), (0, 1 << 20), "fio's region");
}
