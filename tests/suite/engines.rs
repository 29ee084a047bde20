//! Real I/O on temporary files with both engines, the fallback when io_uring is unavailable,
//! interruption by signals, and a failing target. Tests that need io_uring probe it first and say
//! so when they skip.

use crate::util;
use std::fs;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use crate::util::{
    TempDir, io_uring_available, iospd, run_iospd, stderr, stdout, test_time, totals,
};

/// Timing-sensitive tests run one at a time so that they do not load each other's CPUs.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn create_writes_real_data_not_a_sparse_file() {
    let dir = TempDir::new();
    let output = run_iospd(&["-c4M", "-d1", "-W0", "--engine=null", &dir.arg("c.dat")]);
    assert!(output.status.success(), "{}", stderr(&output));
    let meta = fs::metadata(dir.join("c.dat")).unwrap();
    assert_eq!(meta.len(), 4 << 20);
    assert!(
        meta.blocks() * 512 >= 4 << 20,
        "allocated {} bytes",
        meta.blocks() * 512
    );
    let data = fs::read(dir.join("c.dat")).unwrap();
    assert!(
        data.iter().enumerate().all(|(i, &b)| b == i as u8),
        "0..255 pattern"
    );

    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "-Zr",
        "--engine=null",
        &dir.arg("r.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let data = fs::read(dir.join("r.dat")).unwrap();
    let zeros = data.iter().filter(|&&b| b == 0).count();
    assert!(
        zeros < data.len() / 100,
        "-Zr creates random content ({zeros} zeros)"
    );
}

/// Puts `byte` at `offset` behind iospd's back, so a rewrite of the file shows.
fn poke(path: &std::path::Path, offset: u64, byte: u8) {
    use std::os::unix::fs::FileExt as _;
    let file = fs::OpenOptions::new().write(true).open(path).unwrap();
    file.write_all_at(&[byte], offset).unwrap();
    file.sync_all().unwrap();
}

fn byte_at(path: &std::path::Path, offset: u64) -> u8 {
    fs::read(path).unwrap()[offset as usize]
}

#[test]
fn c_reuses_its_own_complete_file_of_the_same_size_and_fill_and_nothing_else() {
    let dir = TempDir::new();
    let path = dir.join("t.dat");
    let arg = path.display().to_string();
    let create = |extra: &[&str]| {
        let mut args = vec!["-c8M", "-d1", "-W0", "-b4K", "-Sh"];
        args.extend_from_slice(extra);
        args.push(&arg);
        let output = run_iospd(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        stderr(&output).contains("note: reusing '")
    };
    assert!(!create(&[]), "made, not reused");
    // The same size and fill: reused, said in one line, the byte poked behind its back kept.
    poke(&path, 100, 0xaa);
    assert!(create(&[]));
    assert_eq!(byte_at(&path, 100), 0xaa, "reused, not rewritten");
    // --recreate writes it again.
    assert!(!create(&["--recreate"]));
    assert_eq!(byte_at(&path, 100), 100, "DiskSpd's pattern again");
    // Another fill or another size: written again.
    poke(&path, 100, 0xaa);
    assert!(!create(&["-Z"]));
    assert_eq!(byte_at(&path, 100), 0);
    poke(&path, 100, 0xaa);
    assert!(create(&["-Z"]), "zeros again: reused");
    assert!(!create(&["-Zr"]));
    let reused = run_iospd(&["-c16M", "-d1", "-W0", "-b4K", "-Sh", "-Zr", &arg]);
    assert!(!stderr(&reused).contains("reusing"));
    assert_eq!(fs::metadata(&path).unwrap().len(), 16 << 20);
    // Writes that leave other content (random windows of a -Z source) take the mark of a whole
    // file away: the next -c writes it again. Writes of the fill itself keep it.
    assert!(!create(&["-w100", "-Z1M"]));
    assert!(!create(&[]), "after -Z1M writes");
    assert!(create(&["-w100", "-r"]), "pattern writes keep the pattern");
    assert!(create(&[]));
    // A file marked but not yet whole (as a crash leaves it) is never reused.
    iospd::safety::marker::mark(&fs::File::open(&path).unwrap()).unwrap();
    poke(&path, 100, 0xaa);
    assert!(!create(&[]));
    assert_eq!(byte_at(&path, 100), 100);
}

/// `--create-only` lays out the `-c` files and measures nothing; `--keep-existing` lays out only
/// a missing or short file and uses a longer one as it is, whoever made it, up to the `-c` size.
#[test]
fn create_only_lays_out_and_keep_existing_keeps_what_is_long_enough() {
    let dir = TempDir::new();
    let (made, foreign) = (dir.arg("made.dat"), dir.arg("foreign.dat"));
    let bytes: Vec<u8> = (0..4u32 << 20).map(|i| (i % 253) as u8).collect();
    fs::write(&foreign, &bytes).unwrap();
    let output = run_iospd(&["-c2M", "--keep-existing", "--create-only", &made, &foreign]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).is_empty(),
        "nothing measured, nothing reported"
    );
    assert!(
        stderr(&output).contains("1 file laid out or reused, 1 file kept as found"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::metadata(&made).unwrap().len(), 2 << 20);
    assert!(fs::read(&foreign).unwrap() == bytes, "kept as it was");
    // A read of the kept file uses its first 2 MiB: the trace's offsets stay below.
    let trace = dir.arg("r.trace");
    let output = run_iospd(&[
        "-c2M",
        "--keep-existing",
        "--ios=2000",
        "-r",
        "-b4K",
        "-Sh",
        &format!("--trace={trace}"),
        &foreign,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let records = fs::read(&trace).unwrap();
    let highest = records[12..]
        .chunks_exact(40)
        .map(|r| u64::from_le_bytes(r[16..24].try_into().unwrap()))
        .max()
        .unwrap();
    assert!((1 << 20..2 << 20).contains(&highest), "{highest}");
    // Shorter than -c: judged as -c judges a file it would write again.
    let output = run_iospd(&["-c8M", "--keep-existing", "--create-only", &foreign]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("it holds 4MiB, less than the 8MiB"));
    assert!(fs::read(&foreign).unwrap() == bytes);
    // Beside --dry-run: checked as it would be laid out, and nothing written (the file stays
    // 2 MiB, below).
    let checked = run_iospd(&["-c1M", "--create-only", "--dry-run", made.as_str()]);
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
    // Without -c, or beside --verify or --recreate: refused in one line.
    for args in [
        &["--create-only", made.as_str()][..],
        &["--keep-existing", made.as_str()],
        &["-c1M", "--create-only", "--verify", "-w50", made.as_str()],
        &["-c1M", "--keep-existing", "--recreate", made.as_str()],
    ] {
        let output = run_iospd(args);
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        assert_eq!(stderr(&output).lines().count(), 1, "{args:?}");
    }
    assert_eq!(fs::metadata(&made).unwrap().len(), 2 << 20);
}

#[test]
fn a_creation_killed_midway_leaves_a_file_that_is_not_reused() {
    let dir = TempDir::new();
    let path = dir.join("big.dat");
    let arg = path.display().to_string();
    let mut child = util::iospd()
        .args(["-c2G", "-d1", "-W0", "-Sh", &arg])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while fs::metadata(&path).map_or(0, |m| m.len()) < 1 << 20 {
        assert!(started.elapsed() < Duration::from_secs(60), "never started");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let file = fs::File::open(&path).unwrap();
    assert!(
        iospd::safety::marker::is_test_file(&file).unwrap(),
        "still iospd's"
    );
    assert_eq!(
        iospd::safety::marker::completed(&file).unwrap(),
        None,
        "a file cut short is never marked whole"
    );
}

fn random_reads(engine: &str) -> String {
    let dir = TempDir::new();
    let engine = format!("--engine={engine}");
    let output = run_iospd(&[
        "-c16M",
        "-d1",
        "-W0",
        "-b4K",
        "-o8",
        "-r",
        "-Sh",
        "-L",
        &engine,
        &dir.arg("r.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = stdout(&output);
    let read = totals(&report, "Read IO");
    let write = totals(&report, "Write IO");
    assert!(read.ios > 100, "{} reads", read.ios);
    assert_eq!(read.bytes, read.ios * 4096);
    assert_eq!(write.ios, 0);
    assert!(read.avg_latency_ms.unwrap() > 0.0);
    report
}

#[test]
fn io_uring_random_reads() {
    if !io_uring_available("io_uring_random_reads") {
        return;
    }
    let _guard = serial();
    let report = random_reads("io_uring");
    assert!(report.contains("    engine: io_uring"), "{report}");
}

#[test]
fn psync_random_reads() {
    let _guard = serial();
    let report = random_reads("psync");
    assert!(report.contains("engine: synchronous I/O (pread/pwrite)"));
}

fn zero_blocks(path: &std::path::Path) -> usize {
    let mut data = Vec::new();
    fs::File::open(path)
        .unwrap()
        .read_to_end(&mut data)
        .unwrap();
    data.chunks(4096)
        .filter(|block| block.iter().all(|&b| b == 0))
        .count()
}

fn writes_reach_the_target(engine: &str) {
    let dir = TempDir::new();
    let engine = format!("--engine={engine}");
    let output = run_iospd(&[
        "-c4M",
        "-d1",
        "-W0",
        "-b4K",
        "-o4",
        "-r",
        "-w100",
        "-Z",
        "-Sh",
        &engine,
        &dir.arg("w.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let written = totals(&stdout(&output), "Write IO").ios;
    let zeroed = zero_blocks(&dir.join("w.dat"));
    assert!(
        written > 0 && zeroed > 0,
        "{written} writes, {zeroed} zeroed blocks"
    );
    assert!(zeroed <= 1024);
}

#[test]
fn io_uring_writes_reach_the_target() {
    if io_uring_available("io_uring_writes_reach_the_target") {
        let _guard = serial();
        writes_reach_the_target("io_uring");
    }
}

#[test]
fn psync_writes_reach_the_target() {
    let _guard = serial();
    writes_reach_the_target("psync");
}

/// Little's law: mean latency × IOPS is the mean number of I/Os in flight. iospd's latency runs
/// from the batch stamp just before submission to the stamp just after reaping, so the only time a
/// slot is busy but not inside a latency interval is the recording and refilling between a reap
/// and the next submission (about a microsecond per batch). With O_DIRECT 4 KiB I/O the device
/// time dominates, so the product must lie within 20 % below the depth (the bookkeeping gap and a
/// loaded CI machine) and at most 5 % above it (window-edge effects only).
#[test]
fn littles_law_holds_at_depth_8() {
    if !io_uring_available("littles_law_holds_at_depth_8") {
        return;
    }
    let _guard = serial();
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c64M",
        "-d2",
        "-W1",
        "-b4K",
        "-o8",
        "-r",
        "-Su",
        "-L",
        &dir.arg("l.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let total = totals(&stdout(&output), "Total IO");
    let in_flight = total.iops * total.avg_latency_ms.unwrap() / 1000.0;
    assert!(
        (0.8 * 8.0..=1.05 * 8.0).contains(&in_flight),
        "mean latency × IOPS = {in_flight:.2}, expected ≈ 8"
    );
}

#[cfg(target_arch = "x86_64")]
fn block_io_uring_setup() -> std::io::Result<()> {
    // A seccomp filter that makes io_uring_setup fail with EPERM, as a container runtime does.
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    const ALLOW: u32 = 0x7fff_0000;
    const ERRNO: u32 = 0x0005_0000;
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    let filter = [
        libc::sock_filter {
            code: LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 4,
        },
        libc::sock_filter {
            code: JEQ_K,
            jt: 1,
            jf: 0,
            k: AUDIT_ARCH_X86_64,
        },
        libc::sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: ALLOW,
        },
        libc::sock_filter {
            code: LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
        libc::sock_filter {
            code: JEQ_K,
            jt: 0,
            jf: 1,
            k: libc::SYS_io_uring_setup as u32,
        },
        libc::sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: ERRNO | libc::EPERM as u32,
        },
        libc::sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: ALLOW,
        },
    ];
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: called in the child between fork and exec; the program outlives the prctl call.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &program) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(target_arch = "x86_64")]
#[test]
fn io_uring_blocked_by_seccomp_falls_back_to_psync() {
    use std::os::unix::process::CommandExt;
    let dir = TempDir::new();
    let mut command = iospd();
    // Unbuffered, so the only line is the fallback's (a buffered 1 MiB file also gets the note
    // that it measures the page cache).
    command.args(["-c1M", "-d1", "-W0", "-b4K", "-r", "-Sh", &dir.arg("f.dat")]);
    // SAFETY: the closure only calls async-signal-safe prctl.
    unsafe { command.pre_exec(block_io_uring_setup) };
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("io_uring is unavailable") && err.contains("psync"),
        "{err}"
    );
    let report = stdout(&output);
    assert!(report.contains("engine: synchronous I/O"));
    assert!(totals(&report, "Read IO").ios > 0);
}

fn interrupt_after(args: &[&str], delay: Duration, signal: libc::c_int) -> std::process::Output {
    let child = iospd()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, signal) };
    child.wait_with_output().unwrap()
}

#[test]
fn interrupt_inside_the_window_reports_the_shortened_window() {
    let _guard = serial();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let dir = TempDir::new();
        let path = dir.arg("i.dat");
        let output = interrupt_after(
            &[
                "-c4M",
                "-d30",
                "-W0",
                "-b4K",
                "-o4",
                "-r",
                "--engine=psync",
                &path,
                &format!("--output={}", dir.arg("r.xml")),
                &format!("--output={}", dir.arg("r.html")),
                &format!("--output={}", dir.arg("r.json")),
            ],
            Duration::from_millis(1500),
            signal,
        );
        // A status of its own, 128 + the signal, so scripts can tell.
        assert_eq!(
            output.status.code(),
            Some(128 + signal),
            "signal {signal}: {}",
            stderr(&output)
        );
        let report = stdout(&output);
        let seconds = test_time(&report);
        // Said first, with what was measured and what was asked for.
        let name = match signal {
            libc::SIGINT => "SIGINT",
            libc::SIGTERM => "SIGTERM",
            _ => "SIGHUP",
        };
        let first = report.lines().next().unwrap();
        assert_eq!(
            first,
            format!(
                "Cut short: {name} stopped timespan 1 after {seconds:.2}s of the 30s measured window asked for (-d30); the results cover those {seconds:.2}s."
            ),
            "{report}"
        );
        assert!(
            seconds > 0.0 && seconds < 29.0,
            "signal {signal}: the window ({seconds}s) ends at the signal, not after -d30"
        );
        let total = totals(&report, "Total IO");
        assert!(total.ios > 0);
        assert!(
            (total.iops - total.ios as f64 / seconds).abs() / total.iops < 0.01,
            "rate uses the shortened window"
        );
        // Every format says so too.
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        let xml = read("r.xml");
        assert!(
            xml.contains(&format!("<By>{name}</By>")) && xml.contains("<AskedSeconds>30<"),
            "{xml}"
        );
        util::validate_xml(&[("cut", &xml)], "interrupt_inside_the_window");
        assert!(read("r.html").contains(first), "the HTML report's banner");
        let json: serde_json::Value = serde_json::from_str(&read("r.json")).unwrap();
        assert_eq!(json["timespans"][0]["stopped_by"], name);
        util::validate_json(&read("r.json"));
        assert!(
            stderr(&output).contains(&format!("{name} cut the run short")),
            "{}",
            stderr(&output)
        );
    }
}

/// A Ctrl-C at any point of a run, from its first instruction to its end: the run either says
/// that nothing was measured (and why), or keeps what it measured (the report and every
/// `--output`). Only a signal that comes before iospd itself is running ends it silently, and
/// then nothing was made.
#[test]
fn a_signal_at_any_point_says_nothing_was_measured_or_keeps_what_was() {
    let delays_ms = [
        0, 1, 2, 3, 5, 8, 12, 20, 30, 50, 80, 120, 200, 300, 500, 800, 1200, 1600, 2200, 3000,
    ];
    for delay in delays_ms {
        let dir = TempDir::new();
        let json = dir.join("r.json");
        let output = interrupt_after(
            &[
                "-c8M",
                "-d1",
                "-W1",
                "-b4K",
                "--engine=psync",
                &format!("--output={}", json.display()),
                &dir.arg("t.dat"),
            ],
            Duration::from_millis(delay),
            libc::SIGINT,
        );
        let (err, report) = (stderr(&output), stdout(&output));
        let case = format!("SIGINT after {delay} ms: {:?}\n{err}", output.status);
        if output.status.signal().is_some() {
            // Before iospd's first instruction: nothing can have been made.
            assert!(err.is_empty(), "{case}");
            assert!(!dir.join("t.dat").exists() && !json.exists(), "{case}");
            continue;
        }
        let said = |s: &str| {
            err.lines()
                .any(|l| l.starts_with("iospd: ") && l.contains(s))
        };
        let nothing = said("nothing was measured")
            || said("no results")
            || said("the partial file was removed");
        let kept = !report.is_empty() && json.exists();
        assert!(nothing || kept, "{case}");
        if said("cut the run short") || output.status.code() == Some(0) {
            assert!(kept, "{case}");
            util::validate_json(&std::fs::read_to_string(&json).unwrap());
        }
    }
}

#[test]
fn interrupt_during_warm_up_reports_nothing_and_fails() {
    let dir = TempDir::new();
    let output = interrupt_after(
        &[
            "-c1M",
            "-d5",
            "-W30",
            "-b4K",
            "--engine=psync",
            &dir.arg("w.dat"),
        ],
        Duration::from_millis(1000),
        libc::SIGINT,
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains(
        "The test was interrupted before the measurements began. No results are displayed."
    ));
    assert!(stderr(&output).contains("no results"));
}

#[test]
fn verbose_and_progress_dots() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "-W1",
        "-v",
        "-P1000",
        "--engine=null",
        &dir.arg("v.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    // DiskSpd 2.3's progress lines: local "YYYY-MM-DDTHH:MM:SS: " and its messages, every phase
    // said (a cool-down of 0 s too), in order. Progress dots run on before a stamp, as DiskSpd's do.
    let stamped = |l: &str| -> Option<usize> {
        (0..l.len().saturating_sub(20)).find(|&i| {
            let b = &l.as_bytes()[i..i + 21];
            b.iter().enumerate().all(|(k, c)| match k {
                4 | 7 => *c == b'-',
                10 => *c == b'T',
                13 | 16 | 19 => *c == b':',
                20 => *c == b' ',
                _ => c.is_ascii_digit(),
            })
        })
    };
    let said: Vec<&str> = out
        .lines()
        .filter_map(|l| stamped(l).map(|i| &l[i + 21..]))
        .collect();
    assert_eq!(
        said,
        [
            "starting warm up...",
            "starting measurements...",
            "starting cool down...",
            "finished test...",
        ],
        "{out}"
    );
    assert!(out.contains("......"), "progress dots");
}

#[test]
fn a_low_memlock_limit_is_predicted_and_the_run_uses_unregistered_buffers() {
    let test = "a_low_memlock_limit_is_predicted";
    // Every reason is listed, not just the first.
    let (root, uring) = (util::machine::root(test), io_uring_available(test));
    let Some(tools) = util::tools::need(test, &["setpriv"]).filter(|_| root && uring) else {
        return;
    };
    let dir = TempDir::new();
    let path = dir.arg("t.dat");
    // Without CAP_IPC_LOCK and with a 64 KiB limit, 32 × 64 KiB buffers cannot be registered.
    let mut command = tools.command("setpriv");
    command
        .args([
            "--bounding-set",
            "-ipc_lock",
            "--inh-caps",
            "-ipc_lock",
            "--",
        ])
        .arg(env!("CARGO_BIN_EXE_iospd"))
        .args(["-c8M", "-d1", "-W0", "-o32", "-Rjson", &path]);
    use std::os::unix::process::CommandExt as _;
    // SAFETY: setrlimit is async-signal-safe; the child has not started yet.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 64 << 10,
                rlim_max: 64 << 10,
            };
            if libc::setrlimit(libc::RLIMIT_MEMLOCK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command.output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains("memlock limit (ulimit -l) of 64KiB is below the 2MiB"),
        "{err}"
    );
    assert!(stdout(&output).contains("\"registered_buffers\": false"));
}

#[test]
fn sqpoll_runs_and_iopoll_is_explained_when_the_device_cannot_poll() {
    let test = "sqpoll_runs_and_iopoll_is_explained";
    if !io_uring_available(test) {
        return;
    }
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let output = run_iospd(&[
        "-c8M", "-d1", "-W0", "-b4K", "-o4", "-r", "--sqpoll", "-Rjson", &target,
    ]);
    if output.status.code() == Some(1) && stderr(&output).contains("--sqpoll:") {
        // Refused by this kernel: the message says why and how to go on.
        assert!(
            stderr(&output).contains("run without --sqpoll"),
            "{}",
            stderr(&output)
        );
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let timespan = &report["timespans"][0];
    assert_eq!(timespan["engine"]["sqpoll"], true);
    assert!(
        timespan["measured"]["totals"]["total"]["ios"]
            .as_u64()
            .unwrap()
            > 0
    );
    // A file on this machine's disk or tmpfs: either way polling is refused with the reason.
    let output = run_iospd(&["-d1", "-W0", "-b4K", "-Su", "--iopoll", &target]);
    let err = stderr(&output);
    if output.status.code() == Some(3) {
        assert!(
            err.contains("--iopoll: ") && err.contains("run without --iopoll"),
            "{err}"
        );
    } else {
        assert_eq!(output.status.code(), Some(0), "{err}");
    }
}
