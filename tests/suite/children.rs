//! The commands that run iospd children (`preset`, `sweep --slo`, `fio`): each child gets its arguments as
//! a vector, dies with its parent, and a stop ends the whole suite with what finished reported.

use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::util::{TempDir, iospd, stderr, stdout};

/// `iospd <args>` started in `dir`, in a process group of its own (as a shell starts a job).
fn start(args: &[&str], dir: &TempDir) -> Child {
    iospd()
        .args(args)
        .current_dir(dir.path())
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The children of `pid`, once it has one (waiting up to 20 s).
fn children_of(pid: u32) -> Vec<i32> {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let found = runs_of(pid);
        if !found.is_empty() || Instant::now() > end {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits (up to 30 s) until `pid` has started its `n`th child, and that child is running
/// (`running`) or has ended.
fn wait_for_child(pid: u32, n: usize, running: bool) {
    let end = Instant::now() + Duration::from_secs(30);
    let mut seen: Vec<i32> = Vec::new();
    while Instant::now() < end {
        let now = runs_of(pid);
        for child in &now {
            if !seen.contains(child) {
                seen.push(*child);
            }
        }
        if seen.len() == n && now.is_empty() != running {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "child {n} of {pid} never {}",
        if running { "ran" } else { "ended" }
    );
}

/// Whether process `pid` is still running (not gone, not a zombie), after up to 5 s to end.
fn still_running(pid: i32) -> bool {
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s[s.rfind(')')? + 2..].chars().next());
        let running = state.is_some_and(|c| c != 'Z' && c != 'X');
        if !running || Instant::now() > end {
            return running;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The stderr of a refusal: exit 3, one line.
fn refused_in_one_line(output: &std::process::Output) -> String {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

fn signal(pid: i32, signal: libc::c_int) {
    // SAFETY: a signal to a process (or process group) this test started.
    unsafe { libc::kill(pid, signal) };
}

#[test]
fn a_preset_target_with_a_space_or_an_option_in_its_name_stays_one_path() {
    let dir = TempDir::new();
    std::fs::create_dir(dir.join("my disk")).unwrap();
    std::fs::write(dir.join("p.db"), b"a database iospd must not touch").unwrap();
    for name in ["my disk/t.dat", "p.db --force"] {
        let target = dir.arg(name);
        let output = iospd()
            .args(["preset", "latency", &target, "--size=1M", "--seconds=1"])
            .args(["--runs=1", "--pause=0"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        // The printed line quotes the path, so a shell gives it back as one argument.
        let text = stdout(&output);
        assert!(text.contains(&format!("-Rjson '{target}'\n")), "{text}");
        assert_eq!(std::fs::metadata(&target).unwrap().len(), 1 << 20, "{name}");
    }
    assert_eq!(
        std::fs::read(dir.join("p.db")).unwrap(),
        b"a database iospd must not touch"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["my disk", "p.db", "p.db --force"]);
}

#[test]
fn a_killed_preset_takes_its_child_with_it() {
    for (kill, code) in [(libc::SIGKILL, None), (libc::SIGTERM, Some(128 + 15))] {
        let dir = TempDir::new();
        let target = dir.arg("t.dat");
        let parent = start(
            &[
                "preset",
                "oltp",
                &target,
                "--size=16M",
                "--seconds=30",
                "--runs=1",
            ],
            &dir,
        );
        let children = children_of(parent.id());
        assert_eq!(children.len(), 1, "the preset started its test");
        std::thread::sleep(Duration::from_millis(500));
        signal(parent.id() as i32, kill);
        let output = parent.wait_with_output().unwrap();
        assert_eq!(output.status.code(), code, "{}", stderr(&output));
        assert!(
            !still_running(children[0]),
            "the test went on writing after its preset was killed by signal {kill}"
        );
        if kill == libc::SIGTERM {
            let err = stderr(&output);
            assert!(
                err.contains("SIGTERM stopped the preset at test 1 of 1"),
                "{err}"
            );
            assert!(stdout(&output).contains("RND8K 70/30 Q8T4   | cut short"));
        }
    }
}

#[test]
fn ctrl_c_ends_a_preset_with_the_tests_that_finished() {
    // To the job's process group (as a terminal sends it) during the second test, and to the
    // process alone during the pause after the first.
    for (group, during) in [(true, true), (false, false)] {
        let dir = TempDir::new();
        let target = dir.arg("t.dat");
        let parent = start(
            &[
                "preset",
                "cdm",
                &target,
                "--size=8M",
                "--seconds=2",
                "--runs=1",
                "--pause=3",
            ],
            &dir,
        );
        let pid = parent.id();
        wait_for_child(pid, if during { 2 } else { 1 }, during);
        signal(if group { -(pid as i32) } else { pid as i32 }, libc::SIGINT);
        let output = parent.wait_with_output().unwrap();
        let (text, err) = (stdout(&output), stderr(&output));
        assert_eq!(output.status.code(), Some(130), "{err}");
        // The first test finished; none after the interrupted one started.
        let first = text.lines().find(|l| l.starts_with("SEQ1M Q8T1")).unwrap();
        assert!(first.contains('(') && first.ends_with("not run"), "{text}");
        let second = text.lines().find(|l| l.starts_with("SEQ1M Q1T1")).unwrap();
        let cut = if during { "cut short" } else { "not run" };
        assert!(second.contains(&format!("| {cut} ")), "{text}");
        assert!(text.contains("RND4K Q1T1      | not run"), "{text}");
        let when = if during { "at" } else { "before" };
        assert!(
            err.contains(&format!("SIGINT stopped the preset {when} test 2 of 8")),
            "{err}"
        );
        assert!(
            err.contains("the summary holds the 1 that finished"),
            "{err}"
        );
    }
}

#[test]
fn ctrl_c_ends_an_slo_search_and_writes_the_steps_that_finished() {
    let dir = TempDir::new();
    let json = dir.arg("slo.json");
    let target = dir.arg("t.dat");
    let parent = start(
        &[
            "sweep",
            "--slo=p99:50ms",
            "-c16M",
            "-d2",
            "-W0",
            "-b4K",
            "-r",
            &format!("--output={json}"),
            &target,
        ],
        &dir,
    );
    let children = children_of(parent.id());
    assert!(!children.is_empty());
    // Once the ramp's first step has finished, and the second runs.
    wait_for_child(parent.id(), 2, true);
    signal(-(parent.id() as i32), libc::SIGINT);
    let output = parent.wait_with_output().unwrap();
    let (text, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(
        err.contains("the search was interrupted by SIGINT"),
        "{err}"
    );
    assert!(text.contains("interrupted during 'iospd "), "{text}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(saved["interrupted"].as_str().unwrap().starts_with("iospd "));
    // The ramp's first step finished; the search did not go on.
    assert_eq!(saved["ramp"].as_array().unwrap().len(), 1, "{saved}");
    assert!(saved["steps"].as_array().unwrap().is_empty(), "{saved}");
    for child in children {
        assert!(!still_running(child));
    }
}

/// A preset checks every test it will run before the first starts: on a file iospd did not make,
/// none runs, one line names the test and the reason, and the file is as it was.
#[test]
fn a_preset_that_cannot_run_runs_nothing() {
    let dir = TempDir::new();
    let foreign = dir.join("foreign.dat");
    std::fs::write(&foreign, b"someone's data").unwrap();
    let output = iospd()
        .args([
            "preset",
            "cdm",
            &foreign.display().to_string(),
            "--seconds=1",
        ])
        .output()
        .unwrap();
    let err = refused_in_one_line(&output);
    assert!(
        err.contains("test 1 of") && err.contains("none was run"),
        "{err}"
    );
    assert!(err.contains("refusing to recreate"), "{err}");
    assert_eq!(std::fs::read(&foreign).unwrap(), b"someone's data");
}

/// The runs `pid` has started and that are running now: children that run a measurement (not
/// the `--dry-run` checks that come before them, nor a child not yet past its exec), whichever
/// of its threads started them (`iospd fio` starts each job of a group from a thread of its own).
fn runs_of(pid: u32) -> Vec<i32> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten();
    tasks
        .flatten()
        .flat_map(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .filter(|&child| {
            let line = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = line.split(|&b| b == 0).collect();
            args.contains(&&b"-Rjson"[..]) && !args.contains(&&b"--dry-run"[..])
        })
        .collect()
}

/// The bytes process `pid` has read so far (its `rchar`), 0 once it is gone.
fn bytes_read(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()
        .and_then(|io| {
            io.lines().find_map(|l| {
                l.strip_prefix("rchar: ")
                    .and_then(|n| n.trim().parse().ok())
            })
        })
        .unwrap_or(0)
}

/// Ctrl-C in the middle of a fio job keeps what the job measured, as fio prints its results
/// when interrupted: the report of the shortened window, one line that names the job cut short
/// and the jobs it kept from starting, and exit 130.
#[test]
fn ctrl_c_ends_an_iospd_fio_run_with_the_results_of_the_job_it_cut_short() {
    let dir = TempDir::new();
    let parent = start(
        &[
            "fio",
            "--name=long",
            "--rw=randread",
            "--size=8M",
            "--filename=long.dat",
            "--runtime=600",
            "--time_based",
            "--name=later",
            "--stonewall",
            "--rw=read",
            "--size=1M",
            "--filename=later.dat",
        ],
        &dir,
    );
    let pid = parent.id();
    // The job is in its measured window (no warm-up) once it has read far more than its start
    // could: many passes over its 8 MiB file.
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        let runs = runs_of(pid);
        if runs.first().is_some_and(|&run| bytes_read(run) > 256 << 20) {
            break;
        }
        assert!(Instant::now() < end, "the job never read its file");
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(-(pid as i32), libc::SIGINT);
    let output = parent.wait_with_output().unwrap();
    let (text, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(text.contains("actual test time:"), "{text}");
    assert!(text.contains("long.dat"), "{text}");
    let said = err.lines().last().unwrap_or_default();
    assert!(
        said.starts_with("iospd: SIGINT cut 'long' short (the results above cover")
            && said.ends_with("kept 1 later job from starting"),
        "{err}"
    );
    assert!(!dir.join("later.dat").exists(), "the later job started");
}

/// A preset's own options are checked as the user typed them, before any test is printed or
/// run: never passed on to a test as `-c`, `-d` or `--repeat` for it to refuse, and never
/// silently raised (`--seconds=0` ran every test for a second).
#[test]
fn a_preset_refuses_its_own_options_in_their_own_names() {
    let dir = TempDir::new();
    for (option, says) in [
        (
            "--size=1",
            "'--size=1' is smaller than the 1MiB blocks of test SEQ1M Q8T1",
        ),
        (
            "--size=0",
            "'--size=0': the file size must be greater than 0",
        ),
        ("--size=8b", "'--size=8b': give the file size in bytes"),
        ("--seconds=0", "'--seconds=0' needs a whole number from 1"),
        ("--runs=0", "'--runs=0' needs a whole number from 1 to 1000"),
        (
            "--runs=100000",
            "'--runs=100000' needs a whole number from 1 to 1000",
        ),
        (
            "--pause=86401",
            "'--pause=86401' needs a whole number from 0 to 86400",
        ),
    ] {
        let output = iospd()
            .args(["preset", "cdm", "p.dat", option])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = refused_in_one_line(&output);
        assert!(err.contains(says), "{option}: {err}");
        assert!(stdout(&output).is_empty(), "{option}");
        assert!(!dir.join("p.dat").exists(), "{option}");
    }
}

/// A latency search whose runs the checks refuse says so in one line, before its first step
/// (not as the first step's command line wrapped around its refusal).
#[test]
fn a_search_that_cannot_run_is_refused_in_one_line_before_its_first_step() {
    let dir = TempDir::new();
    let output = iospd()
        .args(["sweep", "--slo=p99:1ms", "-d1", "missing.dat"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = refused_in_one_line(&output);
    assert!(
        err.starts_with(
            "iospd: the search cannot run, so nothing was run: 'missing.dat' does not exist"
        ),
        "{err}"
    );
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
}
