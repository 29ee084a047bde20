//! `iospd fio --minimal` / `--output-format=terse`: fio's terse lines, checked against fio 3.33's
//! own on the same job file where fio is here: the same number of fields in every version, each
//! of the same kind (a number, a percentage, a `percentile%=value` pair), and the same bytes for
//! jobs bounded by their size.

use crate::util::tools;
use crate::util::{TempDir, iospd, stderr, stdout};

/// Two size-bound jobs in two groups, one with a description.
const JOBS: &str = "[global]
ioengine=psync
bs=4k
size=2m

[reads]
filename=reads.dat
rw=randread
description=reads of a laid-out file

[writes]
stonewall
filename=writes.dat
rw=write
";

/// The fields of each line.
fn lines(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

/// What kind of field it is, as a parser of terse lines sees it.
fn kind(field: &str) -> &'static str {
    if field.contains("%=") {
        "percentile"
    } else if field.ends_with('%') && field.trim_end_matches('%').parse::<f64>().is_ok() {
        "percent"
    } else if field.parse::<u64>().is_ok() {
        "integer"
    } else if field.parse::<f64>().is_ok() {
        "decimal"
    } else {
        "text"
    }
}

fn terse(dir: &TempDir, args: &[&str]) -> std::process::Output {
    iospd()
        .arg("fio")
        .args(args)
        .arg("jobs.fio")
        .current_dir(dir.path())
        .output()
        .unwrap()
}

#[test]
fn terse_lines_have_fios_fields_and_the_bytes_moved() {
    let test = "terse_lines_have_fios_fields_and_the_bytes_moved";
    let fio = tools::optional(test, "fio", "terse lines against fio's own");
    for version in ["2", "3", "4", "5"] {
        let dir = TempDir::new();
        std::fs::write(dir.join("jobs.fio"), JOBS).unwrap();
        let version_arg = format!("--terse-version={version}");
        let output = terse(&dir, &["--minimal", &version_arg]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let ours = lines(&stdout(&output));
        // Version 2 writes a description on a line of its own.
        let entries = if version == "2" { 3 } else { 2 };
        assert_eq!(ours.len(), entries, "version {version}: {ours:?}");
        let first = &ours[0];
        let header = if version == "2" { 4 } else { 5 };
        assert_eq!(first[0], version);
        assert_eq!(first[header - 3], "reads", "version {version}");
        // The reads' KiB: 2 MiB, each block once.
        assert_eq!(first[header], "2048", "version {version}: {first:?}");
        let last = ours.last().unwrap();
        assert!(last.iter().any(|f| f == "writes"), "{last:?}");
        let Some(fio) = &fio else { continue };
        let theirs_dir = TempDir::new();
        std::fs::write(theirs_dir.join("jobs.fio"), JOBS).unwrap();
        let theirs = fio
            .command("fio")
            .args(["--minimal", &version_arg, "--disk_util=0", "jobs.fio"])
            .current_dir(theirs_dir.path())
            .output()
            .unwrap();
        assert!(theirs.status.success(), "{}", stderr(&theirs));
        let theirs = lines(&stdout(&theirs));
        assert_eq!(theirs.len(), ours.len(), "version {version}");
        for (line, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a.len(), b.len(), "version {version}, line {line}");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                // The version string aside, every field is of fio's kind; the bytes moved by
                // the jobs, bounded by their size, are fio's.
                if !x.starts_with("iospd-") {
                    assert_eq!(
                        kind(x),
                        kind(y),
                        "version {version} line {line} field {i}: {x} / {y}"
                    );
                }
            }
            if line == 0 {
                assert_eq!(a[header], b[header], "version {version}: KiB read");
            }
        }
    }
}

#[test]
fn terse_options_that_cannot_be_kept_are_refused_with_nothing_run() {
    let dir = TempDir::new();
    std::fs::write(dir.join("jobs.fio"), JOBS).unwrap();
    for (args, says) in [
        (
            &["--minimal", "--terse-version=6"][..],
            "--terse-version=6: fio's terse versions are 2, 3, 4 and 5",
        ),
        (
            &["--terse-version=3"][..],
            "fio's terse output is not asked for; add --minimal",
        ),
        (
            &["--minimal", "--output-format=json"][..],
            "asks for fio's json output after another of fio's formats",
        ),
    ] {
        let output = terse(&dir, args);
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!dir.join("reads.dat").exists(), "{args:?}");
    }
}
