//! What iospd reads besides its command line — result files, trace files, the environment — can be
//! hostile or broken: every such input is refused with one line and exit 3, or said to be
//! incomplete, and nothing is written.

use std::path::Path;

use crate::util::{TempDir, iospd, stderr, stdout};

/// A real JSON result of a short run, written to `dir/<name>`.
fn result(dir: &TempDir, name: &str) -> String {
    let output = iospd()
        .args(["-c1M", "-d1", "-W0", "-Rjson"])
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let path = dir.arg(name);
    std::fs::write(&path, &output.stdout).unwrap();
    path
}

#[test]
fn results_with_numbers_no_run_measures_are_refused() {
    let dir = TempDir::new();
    let good = result(&dir, "good.json");
    let text = std::fs::read_to_string(&good).unwrap();
    let edited = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        edit(&mut v);
        let path = dir.arg(name);
        std::fs::write(&path, v.to_string()).unwrap();
        path
    };
    let measured = "/timespans/0/measured";
    let cases = [
        (
            edited("negative.json", &|v| {
                *v.pointer_mut(&format!("{measured}/duration_s")).unwrap() = (-5.0).into()
            }),
            "measured window of -5 s",
        ),
        (
            edited("zero.json", &|v| {
                *v.pointer_mut(&format!("{measured}/duration_s")).unwrap() = 0.0.into()
            }),
            "measured window of 0 s",
        ),
        (
            edited("rate.json", &|v| {
                *v.pointer_mut(&format!("{measured}/totals/total/ios_per_s"))
                    .unwrap() = (-1.0).into()
            }),
            "an I/O rate of -1",
        ),
    ];
    for (bad, says) in &cases {
        let out = dir.arg("out.json");
        let to = format!("--output={out}");
        for command in [
            vec!["merge", &good, bad, &to],
            vec!["report", bad, &to],
            vec!["compare", &good, bad],
        ] {
            let output = iospd().args(&command).output().unwrap();
            let err = stderr(&output);
            assert_eq!(output.status.code(), Some(3), "{command:?}: {err}");
            assert!(err.contains(says), "{command:?}: {err}");
            assert!(!Path::new(&out).exists(), "{command:?} wrote");
            assert!(stdout(&output).is_empty(), "{command:?}");
        }
    }
    // Out of range for a double: refused, not read as infinity.
    let huge = text.replacen("\"duration_s\": 1", "\"duration_s\": 1e999", 1);
    assert_ne!(huge, text);
    std::fs::write(dir.join("huge.json"), huge).unwrap();
    let output = iospd()
        .args(["report", &dir.arg("huge.json")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
}

#[test]
fn an_output_that_names_its_own_input_is_bad_input() {
    let dir = TempDir::new();
    let good = result(&dir, "r.json");
    let before = std::fs::read(&good).unwrap();
    for command in [
        vec!["merge", &good, &good],
        vec!["report", &good],
        vec!["trace-dump", &good],
    ] {
        let output = iospd()
            .args(&command)
            .arg(format!("--output={good}"))
            .output()
            .unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{command:?}: {err}");
        assert!(err.contains("the output would replace"), "{err}");
    }
    assert_eq!(std::fs::read(&good).unwrap(), before);
}

#[test]
fn a_start_beyond_a_week_is_refused_and_creates_nothing() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let output = iospd()
        .args(["-c1M", "-d1", "--start-at=2062-01-01T00:00:00Z", &target])
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("days away") && err.contains("at most 7 days"),
        "{err}"
    );
    assert!(!Path::new(&target).exists());
    assert!(stdout(&output).is_empty());
}

#[test]
fn a_trace_cut_inside_a_record_says_so() {
    let dir = TempDir::new();
    let trace = dir.arg("t.trace");
    let output = iospd()
        .args(["-c1M", "-d1", "-W0", "-o2", &format!("--trace={trace}")])
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let len = std::fs::metadata(&trace).unwrap().len();
    let records = (len - 12) / 40;
    assert!(records > 1, "{len}");
    // As a run killed while its writer wrote leaves it: 27 bytes of the last record.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&trace)
        .unwrap()
        .set_len(len - 13)
        .unwrap();
    let output = iospd().args(["trace-dump", &trace]).output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "ends inside a record (27 of its 40 bytes, after {} whole records)",
            records - 1
        )),
        "{err}"
    );
    // The header and the whole records.
    assert_eq!(stdout(&output).lines().count() as u64, records);
}

/// A "result" of 1 GiB in a 256 MiB container: refused with the numbers instead of being read whole
/// (and the process killed).
#[test]
fn a_result_file_larger_than_memory_allows_is_refused_before_it_is_read() {
    let test = "a_result_file_larger_than_memory_allows_is_refused_before_it_is_read";
    let Some(cgroup) = crate::util::machine::MemoryCgroup::new(256 << 20, test) else {
        return;
    };
    let dir = TempDir::new();
    let big = dir.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let mut command = iospd();
    command.arg("report").arg(&big);
    cgroup.enter(&mut command);
    let output = command.output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(err.contains("reading it takes about 3GiB"), "{err}");
}
