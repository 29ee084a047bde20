//! Hostile job files and inputs: a job file or include that never ends, a pipe nobody writes, an
//! option name of a mebibyte, a job the run would refuse beside one it would run, a job that fails
//! as it runs. Each is refused at once in one short line with nothing created, or (the last) leaves
//! the other jobs' results; and Ctrl-C ends a command even when it was started with SIGINT ignored.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{TempDir, iospd, stderr, stdout};

/// Long enough that a command which waits on its input is plainly stuck, whatever the load.
const STUCK: Duration = Duration::from_secs(120);

/// `command` run to its end with SIGINT ignored, as a script's background job
/// inherits them; killed (and the test failed) if it is still waiting after [`STUCK`].
fn run_ignoring_stops(mut command: Command) -> Output {
    ignore_sigint(&mut command);
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > STUCK {
            let _ = child.kill();
            panic!("{command:?} waited on its input for {STUCK:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `command` starts with SIGINT ignored.
fn ignore_sigint(command: &mut Command) {
    // SAFETY: signal is async-signal-safe; the child has not started yet.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Exit 3, one line on stderr holding `says`, nothing on stdout.
fn assert_one_line_refusal(output: &Output, says: &str, case: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(3), "{case}: {err}");
    assert_eq!(err.lines().count(), 1, "{case}: {err}");
    assert!(err.contains(says), "{case}: {says}\n{err}");
    // A dozen refused jobs, each with its place, option and reason, fit; a mebibyte of input does
    // not.
    assert!(err.len() < 4000, "{case}: {} bytes on stderr", err.len());
    assert!(stdout(output).is_empty(), "{case}: {}", stdout(output));
}

#[test]
fn job_files_and_inputs_that_never_end_are_refused_at_once() {
    let dir = TempDir::new();
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    let write = |name: &str, text: &str| {
        fs::write(dir.join(name), text).unwrap();
        dir.arg(name)
    };
    let zero = write("zero.fio", "[j]\ninclude /dev/zero\n");
    let piped = write("piped.fio", "[j]\ninclude pipe\n");
    let huge = dir.arg("huge.fio");
    fs::write(&huge, format!("[j]\n;{}\n", "x".repeat(17 << 20))).unwrap();
    // An include read a hundred times: each read counts.
    fs::write(dir.join("inc.fio"), format!(";{}\n", "x".repeat(1 << 20))).unwrap();
    let repeated = write(
        "repeated.fio",
        &format!("[j]\n{}", "include inc.fio\n".repeat(100)),
    );
    let deep = write(
        "deep.fio",
        &format!(
            "[j]\niodepth={}1{}\n",
            "(".repeat(200_000),
            ")".repeat(200_000)
        ),
    );
    let fifo_arg = fifo.display().to_string();
    let empty = write("empty.dat", "");
    let cases: [(&[&str], &str); 11] = [
        (
            &["fio", "-Rp", &deep],
            "is not arithmetic that comes to a whole number",
        ),
        (&["fio", "-Rp", &repeated], "hold more than 64MiB together"),
        (
            &["fio", &zero],
            "zero.fio:2: cannot read '/dev/zero': it is a character device",
        ),
        (
            &["fio", "/dev/zero"],
            "'/dev/zero': it is a character device",
        ),
        (&["fio", &piped], "it is a named pipe"),
        (&["fio", &fifo_arg], "it is a named pipe"),
        (&["fio", &huge], "more than any job file"),
        (&["data-check", &fifo_arg], "it is a named pipe"),
        (&["data-check", &empty], "it is empty"),
        (&["trace-dump", &fifo_arg], "it is a named pipe"),
        (&["report", &fifo_arg], "it is a named pipe"),
    ];
    for (args, says) in cases {
        let mut command = iospd();
        command.current_dir(dir.join("")).args(args);
        let output = run_ignoring_stops(command);
        assert_one_line_refusal(&output, says, &args.join(" "));
    }
    // A profile or a trace that is a pipe is refused too, with the file named as given.
    let output = run_ignoring_stops({
        let mut c = iospd();
        c.arg(format!("-X{fifo_arg}"));
        c
    });
    assert_one_line_refusal(&output, "it is a named pipe", "-X");
    let target = dir.arg("t.dat");
    let output = run_ignoring_stops({
        let mut c = iospd();
        c.args(["replay", &fifo_arg, &target]);
        c
    });
    assert_one_line_refusal(&output, "it is a named pipe", "replay");
    assert!(!Path::new(&target).exists());
    // A verify state's target that is a pipe, or a character device, is refused at its open.
    let state = dir.arg("v.state");
    let wrote = iospd()
        .args(["-c1M", "-W0", "-w100", "-b4K", "--ios=16", "--verify"])
        .arg(format!("--verify-state={state}"))
        .arg(dir.arg("v.dat"))
        .output()
        .unwrap();
    assert!(wrote.status.success(), "{}", stderr(&wrote));
    for (target, says) in [
        (fifo_arg.as_str(), "it is a named pipe"),
        ("/dev/zero", "it is a character device"),
    ] {
        let output = run_ignoring_stops({
            let mut c = iospd();
            c.args(["verify", &format!("--verify-state={state}"), target]);
            c
        });
        assert_one_line_refusal(&output, says, "verify");
    }
}

/// Sends SIGINT to `child` until it ends (one that comes before iospd runs is ignored as its
/// starter asked); its output.
fn interrupt_until_it_ends(child: std::process::Child, what: &str) -> Output {
    let started = Instant::now();
    loop {
        // SAFETY: a signal to our own child (not yet reaped, so its pid is still its own).
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        std::thread::sleep(Duration::from_millis(50));
        if fs::read_to_string(format!("/proc/{}/stat", child.id()))
            .map_or(true, |s| s.contains(") Z "))
        {
            return child.wait_with_output().unwrap();
        }
        assert!(
            started.elapsed() < STUCK,
            "{what} ignored SIGINT for {STUCK:?}"
        );
    }
}

/// Whether `pid` has `path` open.
fn has_open(pid: u32, path: &Path) -> bool {
    fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
        fds.flatten()
            .any(|fd| fs::read_link(fd.path()).is_ok_and(|l| l == path))
    })
}

/// Ctrl-C ends a command that was started with SIGINT ignored, and one that is still reading its
/// input before a run: with one line that says nothing was measured, never silently.
#[test]
fn ctrl_c_ends_every_command_and_says_so() {
    let dir = TempDir::new();
    let big = dir.join("big.dat");
    // Sparse: 64 GiB of holes read as zeros take far longer than the signals below.
    fs::File::create(&big).unwrap().set_len(64 << 30).unwrap();
    let mut command = iospd();
    command
        .args(["data-check", &big.display().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    ignore_sigint(&mut command);
    let output = interrupt_until_it_ends(command.spawn().unwrap(), "data-check");
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    assert!(stderr(&output).contains("SIGINT came before anything was measured"));
    // A replay reads its whole trace before it starts; a Ctrl-C then ends it, and says so.
    let trace = dir.join("long.iolog");
    let mut text = String::from("fio version 3 iolog\n0 /dev/sdz add\n");
    for i in 0..2_000_000u64 {
        text.push_str(&format!("{i} /dev/sdz read {} 4096\n", i % 1000 * 4096));
    }
    fs::write(&trace, text).unwrap();
    let target = dir.join("t.dat");
    let child = iospd()
        .args(["replay", "-c8M"])
        .arg(&trace)
        .arg(&target)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !has_open(child.id(), &trace) {
        assert!(
            started.elapsed() < STUCK,
            "the replay never opened its trace"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let output = interrupt_until_it_ends(child, "replay");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("SIGINT came before anything was measured"),
        "{err}"
    );
    assert!(!target.exists());
}

#[test]
fn a_message_quotes_at_most_a_hundred_characters_of_any_input() {
    let dir = TempDir::new();
    let name = "o".repeat(1 << 20);
    let job = dir.join("long.fio");
    fs::write(
        &job,
        format!("[j]\ntime_based\nruntime=1\nsize=1m\nfilename=t.dat\n{name}=1\n"),
    )
    .unwrap();
    let output = iospd()
        .args(["fio", "-Rp", &job.display().to_string()])
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(3),
        "{}",
        &err[..err.len().min(500)]
    );
    assert_eq!(err.lines().count(), 1, "{}", &err[..err.len().min(500)]);
    assert!(err.len() < 1000, "{} bytes on stderr", err.len());
    // The option itself is quoted, cut in its middle.
    assert!(err.contains("job 'j': oooo"), "{err}");
    assert!(err.contains("…[1048484 characters]…oooo"), "{err}");
    // The same from the command line (an argument may hold 128 KiB), and a line that tries to
    // forge another line.
    let name = "o".repeat(100_000);
    for arg in [
        format!("-{name}"),
        format!("--{name}"),
        "-b4\nforged line".into(),
    ] {
        let output = iospd().args([arg.as_str(), "t.dat"]).output().unwrap();
        let err = stderr(&output);
        assert_eq!(
            output.status.code(),
            Some(3),
            "{}",
            &err[..err.len().min(500)]
        );
        assert_eq!(err.lines().count(), 1, "{}", &err[..err.len().min(500)]);
        assert!(err.len() < 1000, "{} bytes on stderr", err.len());
    }
}

/// A refusal names the user's own input: the profile file that is not one.
#[test]
fn a_profile_that_is_not_one_is_named() {
    let dir = TempDir::new();
    let path = dir.join("not-a-profile.log");
    fs::write(&path, "fio version 3 iolog\n").unwrap();
    let output = iospd()
        .arg(format!("-X{}", path.display()))
        .output()
        .unwrap();
    assert_one_line_refusal(&output, "not-a-profile.log': XML profile, line 1", "-X");
}

#[test]
fn a_job_file_runs_all_of_itself_or_nothing() {
    let dir = TempDir::new();
    let job = dir.join("two.fio");
    fs::write(
        &job,
        "[global]\ntime_based\nruntime=1\nsize=1m\nioengine=psync\n\n[ok]\nrw=write\nfilename=ok.dat\n\n[big]\nrw=read\nnumjobs=100000\nfilename=big.dat\n",
    )
    .unwrap();
    let output = iospd()
        .current_dir(dir.join(""))
        .args(["fio", "two.fio"])
        .output()
        .unwrap();
    assert_one_line_refusal(
        &output,
        "two.fio:11: job 'big': numjobs=100000 at two.fio:13 (iospd -t100000): '-t100000'",
        "two.fio",
    );
    assert!(
        stderr(&output).contains("1 of 2 jobs cannot run"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("ok.dat").exists(), "the valid job ran");
    assert!(!dir.join("big.dat").exists());
    // Refused by the translation: every refused job in the one line.
    let refused = format!("{}/tests/fio/refused.fio", env!("CARGO_MANIFEST_DIR"));
    let output = iospd()
        .args(["fio", &refused])
        .env("LOAD_FACTOR", "2")
        .output()
        .unwrap();
    assert_one_line_refusal(&output, "14 jobs refused: ", "refused.fio");
    assert_eq!(
        stderr(&output).matches(" | ").count(),
        13,
        "{}",
        stderr(&output)
    );
}

/// A job that fails as it runs (killed by the CPU-time limit it reaches, where the job beside it
/// spends almost none) leaves the results of the job that ran beside it.
#[test]
fn a_job_that_fails_as_it_runs_leaves_the_others_results() {
    let dir = TempDir::new();
    fs::write(
        dir.join("spin.fio"),
        "[global]\ntime_based\nruntime=10\nsize=1m\n\n[calm]\nioengine=psync\nrw=read\nrate_iops=10\nfilename=calm.dat\n\n[spin]\nioengine=null\nrw=read\niodepth=8\nfilename=spin.dat\n",
    )
    .unwrap();
    let output = with_a_second_of_cpu(&dir, "spin.fio");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    let failure: Vec<&str> = err.lines().filter(|l| l.starts_with("iospd: ")).collect();
    assert_eq!(failure.len(), 1, "{err}");
    assert!(failure[0].contains("1 of 2 jobs failed: "), "{err}");
    assert!(
        failure[0].contains("job 'spin': killed by SIGXCPU"),
        "{err}"
    );
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let read = &report["timespans"][0]["measured"]["totals"]["read"];
    assert!(read["ios"].as_u64().unwrap() > 0, "{read}");
    assert!(
        report["command_line"].to_string().contains("calm.dat")
            || report.to_string().contains("calm.dat"),
        "the calm job's report is kept"
    );
}

/// `iospd fio <job file>` in `dir`, each process allowed one second of CPU (SIGXCPU after it):
/// a job that spins fails as it runs.
fn with_a_second_of_cpu(dir: &TempDir, job: &str) -> std::process::Output {
    let mut command = iospd();
    command
        .current_dir(dir.join(""))
        .args(["fio", "-Rjson", job]);
    // SAFETY: setrlimit is async-signal-safe; the child has not started yet.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1,
                rlim_max: libc::RLIM_INFINITY,
            };
            libc::setrlimit(libc::RLIMIT_CPU, &limit);
            Ok(())
        });
    }
    command.output().unwrap()
}

/// `exitall_on_error`: a job that fails ends the others of its group (an hour-long one cut short,
/// its results kept) and no later group runs.
#[test]
fn exitall_on_error_ends_everything_when_its_job_fails() {
    let dir = TempDir::new();
    fs::write(
        dir.join("fail.fio"),
        "[global]\nsize=1m\n\n[calm]\nioengine=psync\nrw=read\ntime_based\nruntime=3600\nrate_iops=10\nfilename=calm.dat\n\n[spin]\nexitall_on_error\nioengine=null\nrw=read\niodepth=8\ntime_based\nruntime=3600\nfilename=spin.dat\n\n[later]\nstonewall\nioengine=psync\nrw=read\nfilename=later.dat\n",
    )
    .unwrap();
    let output = with_a_second_of_cpu(&dir, "fail.fio");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("exitall: 'spin' (exitall_on_error) ended its group; 'calm' cut short (results up to then); 1 later job not run"),
        "{err}"
    );
    assert!(err.contains("job 'spin': killed by SIGXCPU"), "{err}");
    assert!(!dir.join("later.dat").exists(), "the later group ran");
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(
        report.to_string().contains("calm.dat"),
        "the calm job's report is kept"
    );
}

/// `iospd fio`'s own outputs (fio's `--output`, the jobs' logs) never land on what a job uses:
/// fio would write its report over a job's target or the job file; iospd refuses before anything
/// runs, exit 3, with nothing created or changed.
#[test]
fn the_outputs_of_iospd_fio_never_replace_a_job_file_or_a_target() {
    let dir = TempDir::new();
    let job = dir.join("j.fio");
    let kept = dir.join("kept.dat");
    fs::write(&kept, vec![7u8; 1 << 20]).unwrap();
    let text = |target: &str, log: &str| {
        format!(
            "[a]\nrw=read\nsize=1M\nfilename={target}\nruntime=1\ntime_based\nwrite_bw_log={log}\nlog_avg_msec=100\n"
        )
    };
    // (job file's target and log prefix, --output, what the refusal names)
    let cases = [
        ("kept.dat", "lg", "kept.dat", "target 'kept.dat'"),
        ("kept.dat", "lg", "j.fio", "job file"),
        ("new.dat", "lg", "new.dat", "target 'new.dat'"),
        ("kept.dat", "lg", "lg_bw.1.log", "would be the same file"),
        ("lg_bw.1.log", "lg", "out.txt", "its bw log would destroy"),
    ];
    for (target, log, output, says) in cases {
        fs::write(&job, text(target, log)).unwrap();
        let before: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        let result = iospd()
            .current_dir(dir.path())
            .args(["fio", "j.fio", &format!("--output={output}")])
            .output()
            .unwrap();
        let case = format!("{target} {output}: {}", stderr(&result));
        assert_one_line_refusal(&result, says, &case);
        let after: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(before, after, "{case}");
        assert_eq!(fs::read(&kept).unwrap(), vec![7u8; 1 << 20], "{case}");
        assert_eq!(
            fs::read_to_string(&job).unwrap(),
            text(target, log),
            "{case}"
        );
    }
}
