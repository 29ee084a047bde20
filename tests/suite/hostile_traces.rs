//! Hostile traces for `iospd replay`: a clock that says anything, a trace longer than `-d`, a
//! trace that names millions of files. Each either runs in memory bounded by what the run keeps
//! or is refused in one line before anything is created; and `-d` ends a replay at its time with
//! rates over the time it ran.

use std::fs;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::util::{TempDir, iospd_within, stderr, validate_json};

/// Memory a replay of a tiny trace fits in, with room to spare (its own ~20 MB, io_uring's
/// rings, thread stacks reserved).
const BOUND: u64 = 1 << 30;

/// A fio v3 iolog of 4 KiB reads of `/dev/sdz`, at the given µs.
fn iolog(dir: &TempDir, name: &str, times_us: &[u64]) -> String {
    let mut text = String::from("fio version 3 iolog\n0 /dev/sdz add\n");
    for (i, t) in times_us.iter().enumerate() {
        text.push_str(&format!("{t} /dev/sdz read {} 4096\n", i as u64 * 4096));
    }
    let path = dir.arg(name);
    fs::write(&path, text).unwrap();
    path
}

/// `iospd replay -Rjson <args>` within [`BOUND`]: its exit code, stderr, and report when it
/// ran.
fn replay(args: &[&str]) -> (Option<i32>, String, Option<Value>) {
    let output = iospd_within(BOUND)
        .arg("replay")
        .arg("-Rjson")
        .args(args)
        .output()
        .unwrap();
    let report = (output.status.code() == Some(0)).then(|| {
        let text = String::from_utf8(output.stdout.clone()).unwrap();
        validate_json(&text);
        serde_json::from_str(&text).unwrap()
    });
    (output.status.code(), stderr(&output), report)
}

#[test]
fn a_trace_clock_at_its_limits_is_refused_or_cut_never_sized() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    for (name, last_us) in [
        ("max.iolog", u64::MAX),
        ("far.iolog", 1_000_000_000_000_000),
        ("eight-days.iolog", 8 * 86_400 * 1_000_000),
    ] {
        let log = iolog(&dir, name, &[0, 1000, last_us]);
        // Without -d the span is the run's length: refused, nothing created.
        let (code, err, _) = replay(&["-c1M", &log, &target]);
        assert_eq!(code, Some(3), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains("longer than a replay may run"), "{err}");
        assert!(err.contains("-d<seconds>"), "{err}");
        assert!(!Path::new(&target).exists(), "{name}: the target was made");
        // With -d the replay is cut there, and what lies beyond is never read into memory.
        let (code, err, report) = replay(&["-c1M", "-d1", &log, &target]);
        assert_eq!(code, Some(0), "{name}: {err}");
        let r = &report.unwrap()["timespans"][0]["replay"];
        assert_eq!(r["trace_ios"], 2, "{name}: {r}");
        assert_eq!(r["issued"], 2, "{name}: {r}");
        assert_eq!(r["cut_at_s"], 1.0, "{name}: {r}");
        assert!(r["seconds"].as_array().unwrap().len() <= 2, "{name}: {r}");
        fs::remove_file(&target).unwrap();
    }
    // -d past what a replay may run is refused too.
    let log = iolog(&dir, "short.iolog", &[0, 1000]);
    let (code, err, _) = replay(&["-c1M", "-d99999999999", &log, &target]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("-d99999999999"), "{err}");
    assert!(!Path::new(&target).exists());
}

/// A steady 20 s trace, 10 I/Os a second, replayed with -d2: nothing is issued past 2 s, the
/// trace's I/O counted is the cut's, and every rate is over the time the replay ran.
#[test]
fn d_cuts_a_replay_and_its_rates_are_over_the_time_it_ran() {
    let dir = TempDir::new();
    let times: Vec<u64> = (0..200).map(|i| i * 100_000).collect();
    let log = iolog(&dir, "steady.iolog", &times);
    let target = dir.arg("t.dat");
    let (code, err, report) = replay(&["-c1M", "-d2", &log, &target]);
    assert_eq!(code, Some(0), "{err}");
    let ts = &report.unwrap()["timespans"][0];
    let r = &ts["replay"];
    assert_eq!(r["trace_ios"], 20, "{r}");
    assert_eq!(r["cut_at_s"], 2.0, "{r}");
    let issued = r["issued"].as_u64().unwrap();
    assert!((1..=20).contains(&issued), "{r}");
    let totals = &ts["measured"]["totals"]["read"];
    assert_eq!(totals["ios"].as_u64(), Some(issued), "{totals}");
    let seconds = ts["measured"]["duration_s"].as_f64().unwrap();
    let iops = totals["ios_per_s"].as_f64().unwrap();
    assert!(
        (iops * seconds - issued as f64).abs() < 0.01 * issued as f64 + 0.01,
        "{iops} IOPS over {seconds} s is not the {issued} I/Os issued"
    );
    // The window is the replay's: its last completion, not the -d it was given.
    assert!(seconds <= 2.0 + 10.0, "{seconds}");
    assert!(seconds >= r["replay_span_s"].as_f64().unwrap(), "{ts}");
}

/// A log that names a million files is read in time linear in its size: each name is found by
/// its key, not by a scan of every name.
#[test]
fn a_trace_of_a_million_files_is_read_in_linear_time() {
    let dir = TempDir::new();
    let path = dir.arg("many.iolog");
    let mut out = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    writeln!(out, "fio version 3 iolog").unwrap();
    for i in 0..1_000_000u64 {
        writeln!(out, "{i} /f/{i} read 0 4096").unwrap();
    }
    drop(out);
    let target = dir.arg("t.dat");
    // One target for a million files: refused once every name is known, naming a few.
    let (code, err, _) = replay(&["-c1M", &path, &target]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("1000000 devices"), "{err}");
    assert!(err.contains("and 999992 more"), "{err}");
    assert!(err.len() < 600, "{err}");
}

/// A refusal names what the user gave: the option as typed, the trace and its record.
#[test]
fn replay_refusals_name_the_users_own_input() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let log = iolog(&dir, "ok.iolog", &[0, 1000]);
    let huge = dir.arg("huge.iolog");
    fs::write(
        &huge,
        "fio version 3 iolog\n0 /dev/sdz add\n0 /dev/sdz read 0 4096\n5 /dev/sdz read 0 4294967295\n",
    )
    .unwrap();
    let far = dir.arg("far.txt");
    fs::write(
        &far,
        "  8,0    3        1     0.000000000   697  Q  R 36028797018963967 + 8 [a]\n",
    )
    .unwrap();
    let long = dir.arg("long.txt");
    fs::write(
        &long,
        "  8,0    3        1     0.000000000   697  Q  R 8 + 99999999999999999 [a]\n",
    )
    .unwrap();
    let cases: [(&[&str], &str, &str); 6] = [
        (
            &["--remap=wrap", &far, &target],
            "far.txt, line 1: an I/O at byte 18446744073709551104",
            "panicked",
        ),
        (
            &[&long, &target],
            "long.txt, line 1: 99999999999999999 sectors",
            "panicked",
        ),
        (&["-o0", &log, &target], "'-o0'", "-O"),
        (&["-o99999999999", &log, &target], "'-o99999999999'", "-O"),
        (
            &[&huge, &target],
            "huge.iolog, line 4: a read of 4294967295 bytes",
            "-b",
        ),
        (&["-d0", &log, &target], "-d0", "-d1"),
    ];
    for (args, says, never) in cases {
        let (code, err, _) = replay(&[&["-c1M"], args].concat());
        assert_eq!(code, Some(3), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains(never), "{args:?}: names '{never}': {err}");
        assert!(!Path::new(&target).exists());
    }
}

/// A trace that mixes many small I/Os with a few of 8 MiB at depth 128: its slots come in sizes,
/// so the replay holds tens of MiB of buffers, not 128 × 8 MiB, says how much, and still issues
/// every I/O.
#[test]
fn replay_buffers_are_sized_by_what_the_trace_holds_not_its_largest_io() {
    let dir = TempDir::new();
    let mut text = String::from("fio version 3 iolog\n0 /dev/sdz add\n");
    for i in 0..2000u64 {
        let (action, len) = match i % 100 {
            0 => ("write", 8 << 20),
            1..=9 => ("write", 128 << 10),
            _ => ("read", 4096),
        };
        let offset = (i % 64) * (8 << 20);
        text.push_str(&format!("{} /dev/sdz {action} {offset} {len}\n", i * 50));
    }
    let log = dir.arg("copy.iolog");
    fs::write(&log, text).unwrap();
    let target = dir.arg("t.dat");
    let (code, err, report) = replay(&["-c520M", "-Su", &log, &target]);
    assert_eq!(code, Some(0), "{err}");
    let r = &report.unwrap()["timespans"][0]["replay"];
    assert_eq!(r["issued"], 2000, "{r}");
    let bytes = r["buffer_bytes"].as_u64().unwrap();
    assert!(bytes <= 96 << 20, "{bytes} bytes of buffers: {r}");
    let slots = r["slots"].as_array().unwrap();
    let sizes: Vec<u64> = slots
        .iter()
        .map(|s| s["size_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [4096, 128 << 10, 8 << 20], "{r}");
    let count: u64 = slots.iter().map(|s| s["slots"].as_u64().unwrap()).sum();
    assert_eq!(Some(count), r["depth_cap"].as_u64(), "{r}");
}

/// A text trace whose line never ends (2 GiB of a sparse file after the header) is refused at
/// the line's bound, never read whole into memory.
#[test]
fn a_trace_line_that_never_ends_is_refused_within_bounded_memory() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    for (name, header) in [
        (
            "endless.iolog",
            "fio version 3 iolog\n0 /dev/sdz add\n0 /dev/sdz read 0 4096\n",
        ),
        (
            "endless.txt",
            "  8,0    3        1     0.000000000   697  Q  WS 3417048 + 8 [a]\n",
        ),
    ] {
        let path = dir.join(name);
        let mut file = fs::File::create(&path).unwrap();
        file.write_all(header.as_bytes()).unwrap();
        file.set_len(header.len() as u64 + (2 << 30)).unwrap();
        let (code, err, _) = replay(&["-c1M", &path.display().to_string(), &target]);
        assert_eq!(code, Some(3), "{name}: {err}");
        assert!(err.contains("a line longer than 64 KiB"), "{name}: {err}");
        assert!(!Path::new(&target).exists());
    }
}
