//! `iospd fio` with `latency_target`: fio's search for the deepest queue whose latency meets a
//! target, one iospd run per window. Targets no I/O can miss (60 s) or every I/O misses (1 µs,
//! with O_DIRECT) keep the tests independent of the machine's speed; the search's steps are
//! unit-tested in `commands::fio_latency`.

use serde_json::Value;

use crate::util::tools;
use crate::util::{TempDir, iospd, stderr, stdout};

/// Runs `iospd fio` (or fio) with `job` in `dir`.
fn run(command: std::process::Command, job: &[&str], dir: &TempDir) -> std::process::Output {
    let mut command = command;
    command.args(job).current_dir(dir.path()).output().unwrap()
}

/// The first job entry of fio's JSON document (fio may say an error before it).
fn entry(output: &std::process::Output) -> Value {
    let text = stdout(output);
    let doc = &text[text
        .find('{')
        .unwrap_or_else(|| panic!("{text}{}", stderr(output)))..];
    let doc: Value = serde_json::from_str(doc).unwrap();
    doc["jobs"][0].clone()
}

/// The search's steps on stderr: each window's depth and the I/Os it judged.
fn windows(err: &str) -> Vec<(u32, u64)> {
    err.lines()
        .filter_map(|l| l.split_once("latency_target: depth ")?.1.split_once(": "))
        .filter_map(|(depth, rest)| {
            let ios = rest.split_once(" of ")?.1.split_once(' ')?.0;
            Some((depth.parse().ok()?, ios.parse().ok()?))
        })
        .collect()
}

/// A 4 KiB random-read job on `l.dat` (4 MiB) through io_uring, with fio's JSON, and `extra`.
fn job<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut job = vec![
        "--output-format=json",
        "--name=lt",
        "--rw=randread",
        "--size=4m",
        "--filename=l.dat",
        "--ioengine=io_uring",
        "--latency_window=1s",
    ];
    job.extend(extra);
    job
}

fn iospd_fio() -> std::process::Command {
    let mut c = iospd();
    c.arg("fio");
    c
}

/// A target every I/O meets: the depth doubles to the job's iodepth, holds for one more window,
/// and that window is the job's result; fio writes the same search fields.
#[test]
fn a_target_every_io_meets_doubles_the_depth_to_iodepth_and_stops_there() {
    let test = "a_target_every_io_meets_doubles_the_depth_to_iodepth_and_stops_there";
    let job = job(&[
        "--iodepth=4",
        "--latency_target=60s",
        "--latency_percentile=99",
        "--time_based",
        "--runtime=60",
    ]);
    let dir = TempDir::new();
    let output = run(iospd_fio(), &job, &dir);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    let depths: Vec<u32> = windows(&err).iter().map(|w| w.0).collect();
    assert_eq!(depths, [1, 2, 4, 4], "{err}");
    assert!(err.contains("settled at depth 4"), "{err}");
    assert!(
        err.contains("held: the job's results are this window's"),
        "{err}"
    );
    let ours = entry(&output);
    assert_eq!(ours["latency_depth"], 4, "{ours}");
    assert_eq!(ours["latency_target"], 60_000_000_000u64, "{ours}");
    assert_eq!(ours["latency_percentile"], 99.0, "{ours}");
    assert_eq!(ours["latency_window"], 1_000_000, "{ours}");
    // The last window is the result, not the 60 s runtime.
    let runtime = ours["job_runtime"].as_u64().unwrap();
    assert!((500..10_000).contains(&runtime), "{ours}");
    assert_eq!(
        ours["read"]["total_ios"].as_u64(),
        Some(windows(&err)[3].1),
        "{ours}"
    );
    let Some(fio) = tools::optional(test, "fio", "the search's fields against fio's") else {
        return;
    };
    let theirs_dir = TempDir::new();
    let theirs = entry(&run(fio.command("fio"), &job, &theirs_dir));
    for key in [
        "latency_depth",
        "latency_target",
        "latency_percentile",
        "latency_window",
    ] {
        assert_eq!(theirs[key], ours[key], "{key}: {theirs}");
    }
    // fio also stops after the window that held.
    assert!(theirs["job_runtime"].as_u64() < Some(60_000), "{theirs}");
}

/// At percentile 100 the first I/O over the target at depth 1 fails the job with ETIMEDOUT, as
/// fio's; below 100 a miss at depth 1 leaves the rest of the runtime to run at depth 1.
#[test]
fn a_miss_at_depth_1_fails_the_job_at_100_and_runs_the_rest_at_depth_1_below() {
    let job = |percentile: &'static str| {
        job(&[
            "--direct=1",
            "--iodepth=8",
            "--latency_target=1",
            percentile,
            "--time_based",
            "--runtime=3",
        ])
    };
    let dir = TempDir::new();
    let output = run(iospd_fio(), &job("--latency_percentile=100"), &dir);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("missed at depth 1: the job fails"), "{err}");
    let failed = entry(&output);
    assert_eq!(failed["error"], libc::ETIMEDOUT, "{failed}");
    assert_eq!(failed["latency_depth"], 1, "{failed}");

    let output = run(iospd_fio(), &job("--latency_percentile=50"), &dir);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(
        err.contains("missed at depth 1: the rest of the job runs at depth 1"),
        "{err}"
    );
    assert_eq!(windows(&err).len(), 1, "{err}");
    let rest = entry(&output);
    assert_eq!(rest["error"], 0, "{rest}");
    assert_eq!(rest["latency_depth"], 1, "{rest}");
    // The rest: the 2 s of the runtime the first window left.
    assert!(rest["job_runtime"].as_u64() > Some(1_000), "{rest}");
}

/// A job bounded by its size: the windows together move exactly its `io_size`, or one pass over
/// a file that has no size given (with `latency_run` the search never settles, so the size is
/// what ends it), however many windows the machine needs for it.
#[test]
fn a_size_bound_search_moves_the_jobs_bytes_across_its_windows() {
    let job = job(&[
        "--io_size=1m",
        "--iodepth=8",
        "--latency_target=60s",
        "--latency_run=1",
    ]);
    let dir = TempDir::new();
    let output = run(iospd_fio(), &job, &dir);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(!windows(&err).is_empty(), "{err}");
    let ios: u64 = windows(&err).iter().map(|w| w.1).sum();
    assert_eq!(ios, 256, "1 MiB of 4 KiB reads across the windows: {err}");
    assert!(
        err.contains("the job's size ended before the search did"),
        "{err}"
    );
    // Without a size, a file there already is one pass over it (`--bytes=100%`): the windows
    // together read it once.
    let job: Vec<&str> = job
        .into_iter()
        .filter(|o| !o.starts_with("--size") && !o.starts_with("--io_size"))
        .collect();
    let output = run(iospd_fio(), &job, &dir);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    let ios: u64 = windows(&err).iter().map(|w| w.1).sum();
    assert_eq!(ios, 1024, "the 4 MiB file, once, across the windows: {err}");
}
