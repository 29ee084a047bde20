//! Faults during a run: a target removed or truncated behind the run's back stops the load, names
//! the target, keeps the results measured so far and exits 1.

use crate::util;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{TempDir, iospd, stderr, stdout};

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
    let output = finish(child);
    let report = stdout(&output);
    if report.contains("Total IO") {
        let window = util::test_time(&report);
        assert!(
            window < 59.0,
            "the fault, not -d60, ended the window ({window}s)"
        );
    }
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
    // Whichever sees it first names it: the read that came back short, or the watch on the file.
    let short_read = err.contains("read of 4096 bytes at offset")
        && err.contains("victim.dat' by thread 0")
        && err.contains("short transfer");
    let watched = err.contains("victim.dat' was truncated during the run");
    assert!(short_read || watched, "{err}");
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

#[test]
fn a_mapped_target_truncated_mid_run_ends_in_a_message_not_sigbus() {
    let output = run_with_fault(&["-Sm", "-b4K", "-r", "-o4"], truncate_to_one_block);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("SIGBUS") || err.contains("was truncated during the run"),
        "{err}"
    );
    assert!(
        util::totals(&stdout(&output), "Total IO").ios > 0,
        "results are kept"
    );
}

/// Waits for `child` up to a minute; a run that never ends is a failure, not a hung suite.
fn finish(child: std::process::Child) -> std::process::Output {
    let started = Instant::now();
    let pid = child.id() as i32;
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    while !waiter.is_finished() {
        if started.elapsed() > Duration::from_secs(60) {
            // SAFETY: kill with a valid pid and signal number.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("iospd did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    waiter.join().unwrap()
}

#[test]
fn reports_reach_every_output_when_stdout_cannot_be_written() {
    let dir = TempDir::new();
    let target = dir.join("t.dat");
    let json = dir.join("r.json");
    let run = |stdout: Stdio| {
        let child = iospd()
            .args(["-c1M", "-d1", "-W0", "--engine=null"])
            .arg(format!("--output={}", json.display()))
            .arg(&target)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        finish(child)
    };
    // A full disk behind stdout: said once, exit 1, the report file written all the same.
    let output = run(std::fs::File::create("/dev/full").unwrap().into());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write the report to standard output"),
        "{err}"
    );
    util::validate_json(&std::fs::read_to_string(&json).unwrap());
    std::fs::remove_file(&json).unwrap();
    // A reader that went away (`| head`): not an error.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = run(writer.into());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    util::validate_json(&std::fs::read_to_string(&json).unwrap());
}

#[test]
fn a_write_past_the_file_size_limit_is_refused_before_anything_is_written() {
    use std::os::unix::process::CommandExt;
    let dir = TempDir::new();
    let path = dir.join("big.dat");
    let mut command = iospd();
    command.args(["-c64M", "-d1", "-W0", "-w100"]).arg(&path);
    // SAFETY: setrlimit is async-signal-safe; the child has not started yet.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1 << 20,
                rlim_max: libc::RLIM_INFINITY,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            Ok(())
        });
    }
    let output = command.output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("the file-size limit (ulimit -f) is 1MiB"),
        "{err}"
    );
    assert!(!path.exists());
}

#[test]
fn full_disk_under_live_outputs_stops_them_honestly_and_a_signal_still_ends_the_run() {
    let test = "full_disk_under_live_outputs_stops_them_honestly";
    let Some(tools) = util::machine::mounts(test, &[]) else {
        return;
    };
    let small =
        util::machine::Mount::new(&tools, "tmpfs", "tmpfs", "size=24k").expect("mount tmpfs");
    let dir = TempDir::new();
    let target = dir.join("t.dat");
    let made = iospd()
        .args(["-c1M", "-d1", "-W0", "--engine=null"])
        .arg(&target)
        .output()
        .unwrap();
    assert!(made.status.success());
    let (series, trace, kept, lost) = (
        small.join("s.csv"),
        small.join("x.trace"),
        dir.join("kept.json"),
        small.join("lost.json"),
    );
    let child = iospd()
        .args(["-d30", "-W0", "-D50", "-b4K", "-o4", "--engine=null"])
        .arg(format!("--timeseries={}", series.display()))
        .arg(format!("--trace={}", trace.display()))
        .arg(format!("--output={}", lost.display()))
        .arg(format!("--output={}", kept.display()))
        .arg(&target)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(3000));
    // SAFETY: kill with a valid pid and signal number.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = finish(child);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "--timeseries '{}' stopped after ",
            series.display()
        )) && err.contains("No space left on device"),
        "{err}"
    );
    assert!(
        err.contains(&format!("the trace '{}' stopped after ", trace.display())),
        "{err}"
    );
    assert!(
        err.contains(&format!("cannot write the report '{}'", lost.display())),
        "every output is attempted and each failure named: {err}"
    );
    assert!(util::totals(&stdout(&output), "Total IO").ios > 0);
    // The counts are honest: the records the JSON says were written are in the file.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    let counts = &json["timespans"][0]["trace"];
    let records = counts["records"].as_u64().unwrap();
    assert!(counts["lost"].as_u64().unwrap() > 0, "{counts}");
    let size = std::fs::metadata(&trace).unwrap().len();
    assert!(
        records * 40 + 12 <= size && size < (records + 4096) * 40 + 12,
        "{records} records claimed, {size} bytes in the file"
    );
}

/// Runs iospd with `args` and `target` inside `cgroup`.
fn run_in(
    cgroup: &util::machine::MemoryCgroup,
    args: &[&str],
    target: &std::path::Path,
) -> std::process::Output {
    let mut command = iospd();
    command.args(args).arg(target);
    cgroup.enter(&mut command);
    command.output().unwrap()
}

#[test]
fn a_run_that_does_not_fit_its_container_is_refused_with_the_numbers() {
    let test = "a_run_that_does_not_fit_its_container_is_refused_with_the_numbers";
    let Some(cgroup) = util::machine::MemoryCgroup::new(256 << 20, test) else {
        return;
    };
    let dir = TempDir::new();
    let target = dir.join("t.dat");
    let output = run_in(&cgroup, &["-c1M", "-b64M", "-o4", "-d1", "-W0"], &target);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("256MiB of I/O buffers")
            && err.contains("the memory cgroup's limit of 256MiB"),
        "{err}"
    );
    assert!(!target.exists(), "nothing was created");
}

/// `--verify` keeps 4 bytes per block of every target: 512 MiB for 64 GiB of 512-byte blocks,
/// counted before the run like every other allocation.
#[test]
fn verify_tables_that_do_not_fit_the_container_are_refused_before_the_run() {
    let test = "verify_tables_that_do_not_fit_the_container_are_refused_before_the_run";
    let Some(cgroup) = util::machine::MemoryCgroup::new(256 << 20, test) else {
        return;
    };
    let dir = TempDir::new();
    let target = dir.join("sparse.dat");
    std::fs::File::create(&target)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    let output = run_in(&cgroup, &["--verify", "-b512", "-r", "-d1", "-W0"], &target);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("512MiB of --verify block tables")
            && err.contains("the memory cgroup's limit of 256MiB")
            && err.contains("larger blocks (-b)"),
        "{err}"
    );
    // The same run with 1 MiB blocks needs 256 KiB of tables: it fits and runs.
    let output = run_in(&cgroup, &["--verify", "-b1M", "-r", "-d1", "-W0"], &target);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// Makes `command` run in a mount namespace of its own where /proc is an empty tmpfs (a minimal
/// container without /proc).
fn without_proc(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: unshare and mount are async-signal-safe system calls; the strings are static.
    unsafe {
        command.pre_exec(|| {
            let fail = || Err(std::io::Error::last_os_error());
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                return fail();
            }
            let root = c"/";
            if libc::mount(
                std::ptr::null(),
                root.as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                return fail();
            }
            let (none, proc, tmpfs) = (c"none", c"/proc", c"tmpfs");
            if libc::mount(
                none.as_ptr(),
                proc.as_ptr(),
                tmpfs.as_ptr(),
                0,
                std::ptr::null(),
            ) != 0
            {
                return fail();
            }
            Ok(())
        });
    }
}

/// Without /proc the memory check finds the process's cgroup in the hierarchies: a run that does
/// not fit is refused with the numbers, not killed without a word.
#[test]
fn without_proc_a_run_that_does_not_fit_its_container_is_still_refused() {
    let test = "without_proc_a_run_that_does_not_fit_its_container_is_still_refused";
    let Some(cgroup) = util::machine::MemoryCgroup::new(256 << 20, test) else {
        return;
    };
    let dir = TempDir::new();
    let target = dir.join("t.dat");
    let mut command = iospd();
    command
        .args(["-c64M", "-b64M", "-o5", "-d1", "-W0"])
        .arg(&target);
    cgroup.enter(&mut command);
    without_proc(&mut command);
    let output = command.output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(err.contains("the memory cgroup's limit of 256MiB"), "{err}");
    assert!(!target.exists(), "nothing was created");
}

#[test]
fn a_file_size_limit_lowered_during_creation_ends_in_a_message_and_removes_the_file() {
    let dir = TempDir::new();
    let path = dir.join("big.dat");
    let child = iospd()
        .args(["-c2G", "-d1", &path.display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::fs::metadata(&path).map_or(true, |m| m.len() < 4 << 20)
        && started.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    // Another process (prlimit) lowers the limit below what is already written.
    let limit = libc::rlimit {
        rlim_cur: 1 << 20,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: prlimit on our own child with a valid rlimit.
    let rc = unsafe {
        libc::prlimit(
            child.id() as i32,
            libc::RLIMIT_FSIZE,
            &limit,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    let output = finish(child);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("File too large") && err.contains("the partial file was removed"),
        "{err}"
    );
    assert!(!path.exists(), "the partial file was left");
}

/// `ulimit -n 16` and a ring per thread for 64 threads: refused before anything is created (it
/// failed when the ninth thread set up its ring, after the file was made).
#[test]
fn too_few_open_files_for_the_threads_is_refused_before_the_run() {
    use std::os::unix::process::CommandExt;
    // The synchronous engine needs no ring per thread: nothing to refuse without io_uring.
    if !util::io_uring_available("too_few_open_files_for_the_threads_is_refused_before_the_run") {
        return;
    }
    let dir = TempDir::new();
    let target = dir.join("t.dat");
    let mut command = iospd();
    command.args(["-F64", "-c1M", "-d1", "-W0"]).arg(&target);
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 16,
                rlim_max: 16,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command.output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("open files") && err.contains("the limit is 16") && err.contains("ulimit -n"),
        "{err}"
    );
    assert!(!target.exists(), "nothing was created");
}

/// `--continue-on-error`: random writes to a 16 MiB sparse file on a 1 MiB tmpfs fail with ENOSPC
/// once it is full. Without the option the run stops at the first (exit 1, naming it); so it does
/// with the option's default (EIO only) and with reads' ENOSPC (a write is not a read); passing
/// writes' ENOSPC, the run does all 2,000 I/Os asked, counts the failed ones apart from the
/// measured ones (the two add up to 2,000), names the first, and exits 0; JSON and XML validate.
#[test]
fn failed_writes_are_counted_and_passed_with_continue_on_error() {
    let test = "failed_writes_are_counted_and_passed_with_continue_on_error";
    let Some(tools) = crate::util::machine::mounts(test, &[]) else {
        return;
    };
    let mount =
        crate::util::machine::Mount::new(&tools, "tmpfs", "tmpfs", "size=1m").expect("mount tmpfs");
    let path = mount.join("full.dat");
    let run = |extra: &[&str], format: &str| {
        // A fresh sparse file each time: nothing of the last run's blocks left allocated.
        let _ = std::fs::remove_file(&path);
        std::fs::File::create(&path)
            .unwrap()
            .set_len(16 << 20)
            .unwrap();
        iospd()
            .args([
                "--ios=2000",
                "-b4K",
                "-r",
                "-w100",
                "-W0",
                "-t1",
                "-o4",
                "--force",
            ])
            .args(extra)
            .arg(format!("-R{format}"))
            .arg(&path)
            .output()
            .unwrap()
    };
    for extra in [
        &[][..],
        &["--continue-on-error"][..],
        &["--continue-on-error=read:ENOSPC"][..],
    ] {
        let stopped = run(extra, "text");
        let err = stderr(&stopped);
        assert_eq!(stopped.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains("No space left on device"), "{err}");
    }
    let output = run(&["--continue-on-error=:ENOSPC"], "json");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    crate::util::validate_json(&stdout(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let ts = &report["timespans"][0];
    let failed = &ts["failed_ios"];
    let writes = failed["writes"].as_u64().unwrap();
    let measured = ts["measured"]["totals"]["write"]["ios"].as_u64().unwrap();
    assert!(writes > 0, "{failed}");
    assert_eq!(writes + measured, 2000, "{failed}");
    assert_eq!(failed["reads"].as_u64(), Some(0));
    assert_eq!(
        failed["first"]["result"].as_i64(),
        Some(-(libc::ENOSPC as i64))
    );
    assert_eq!(failed["first"]["op"], "write");
    assert!(ts["failure"].is_null(), "{}", ts["failure"]);
    let text = run(&["--continue-on-error=write:28"], "text");
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let report = stdout(&text);
    assert!(report.contains("writes failed:"), "{report}");
    assert!(report.contains("No space left on device"), "{report}");
    let xml = run(&["--continue-on-error=io:EIO,ENOSPC"], "xml");
    assert_eq!(xml.status.code(), Some(0), "{}", stderr(&xml));
    let xml = stdout(&xml);
    assert!(xml.contains("<FailedIOs Reads=\"0\" Writes=\""), "{xml}");
    assert!(
        xml.contains("<ContinueOnError>io:EIO,ENOSPC</ContinueOnError>"),
        "{xml}"
    );
    crate::util::validate_xml(&[("failed", &xml)], test);
    // fio's continue_on_error with ENOSPC in writes' ignore_error list: fio's total_err and
    // first_error in its JSON, on a test file of iospd's grown sparse past the tmpfs.
    let _ = std::fs::remove_file(&path);
    let made = iospd()
        .args(["-c256K", "--ios=1", "-W0"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let fio = iospd()
        .args([
            "fio",
            "--output-format=json",
            "--name=full",
            &format!("--filename={}", path.display()),
            "--rw=randwrite",
            "--bs=4k",
            "--number_ios=2000",
            "--continue_on_error=write",
            "--ignore_error=,ENOSPC",
        ])
        .output()
        .unwrap();
    assert_eq!(fio.status.code(), Some(0), "{}", stderr(&fio));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&fio)).unwrap();
    let job = &doc["jobs"][0];
    let total_err = job["total_err"].as_u64().unwrap();
    assert!(total_err > 0, "{job}");
    assert_eq!(job["first_error"].as_i64(), Some(libc::ENOSPC as i64));
    assert_eq!(
        total_err + job["write"]["total_ios"].as_u64().unwrap(),
        2000,
        "{job}"
    );
}
