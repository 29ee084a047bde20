//! The DiskSpd options beyond the core set, exercised through whole runs: memory-mapped I/O,
//! bursts, weighted thread pools, counters, named events, wait statistics, io_uring batching,
//! huge pages, and the options that are echoed.

use std::fs;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{TempDir, iospd, run_iospd, stderr, stdout, test_time, totals};

fn zero_blocks(path: &std::path::Path) -> usize {
    fs::read(path)
        .unwrap()
        .chunks(4096)
        .filter(|b| b.iter().all(|&x| x == 0))
        .count()
}

#[test]
fn memory_mapped_reads_and_writes_reach_the_file() {
    let dir = TempDir::new();
    for flush in ["", "-Nv", "-Nn", "-Ni"] {
        let path = dir.arg(&format!("m{flush}.dat"));
        let mut args = vec![
            "-c2M", "-d1", "-W0", "-b4K", "-o2", "-r", "-w50", "-Z", "-Sm", "-L",
        ];
        if !flush.is_empty() {
            args.push(flush);
        }
        args.push(&path);
        let output = run_iospd(&args);
        assert!(output.status.success(), "{flush}: {}", stderr(&output));
        let report = stdout(&output);
        assert!(report.contains("engine: memory-mapped I/O"), "{flush}");
        assert!(totals(&report, "Read IO").ios > 0 && totals(&report, "Write IO").ios > 0);
        assert!(
            zero_blocks(std::path::Path::new(&path)) > 0,
            "{flush}: zeroed writes reach the file"
        );
    }
    let output = run_iospd(&["-c1M", "-d1", "-Sm", "-Su", &dir.arg("x.dat")]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("cannot be used with memory-mapped"));
}

#[test]
fn bursts_pace_the_load() {
    let dir = TempDir::new();
    // 10 I/Os, then 100 ms of think time: about 100 I/Os per second.
    let output = run_iospd(&[
        "-c1M",
        "-d2",
        "-W0",
        "-o4",
        "-i10",
        "-j100",
        "--engine=null",
        &dir.arg("b.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let iops = totals(&stdout(&output), "Total IO").iops;
    assert!(
        (60.0..=130.0).contains(&iops),
        "{iops} IOPS with 10-I/O bursts every 100 ms"
    );
}

#[test]
fn weighted_pool_spreads_io_by_weight() {
    let dir = TempDir::new();
    let profile = "<Profile><TimeSpans><TimeSpan><Duration>1</Duration><Warmup>0</Warmup>\
        <ThreadCount>2</ThreadCount><RequestCount>8</RequestCount><Targets>\
        <Target><Path>*1</Path><BlockSize>4096</BlockSize><FileSize>1048576</FileSize><Random>4096</Random><Weight>3</Weight></Target>\
        <Target><Path>*2</Path><BlockSize>4096</BlockSize><FileSize>1048576</FileSize><Random>4096</Random><Weight>1</Weight></Target>\
        </Targets></TimeSpan></TimeSpans></Profile>";
    fs::write(dir.join("pool.xml"), profile).unwrap();
    let output = run_iospd(&[
        &format!("-X{}", dir.arg("pool.xml")),
        "--engine=null",
        "-Rjson",
        &dir.arg("a.dat"),
        &dir.arg("b.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let targets = json["timespans"][0]["measured"]["targets"]
        .as_array()
        .unwrap();
    let a = targets[0]["total"]["ios"].as_f64().unwrap();
    let b = targets[1]["total"]["ios"].as_f64().unwrap();
    assert!((2.8..3.2).contains(&(a / b)), "weights 3:1 gave {a}:{b}");
}

/// `-e…`: DiskSpd's ETW block, for every group, with DiskSpd's headings and counter names in
/// `_DisplayETW`'s order (the numbers are Linux's counters, or 0 where Linux has none).
#[test]
fn counters_for_the_etw_groups() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "-eTHREAD",
        "-eREGISTRY",
        "-eNETWORK",
        "-eMEMORY_HARD_FAULTS",
        "-eMEMORY_PAGE_FAULTS",
        "-eIMAGE_LOAD",
        "-eDISK_IO",
        "-ePROCESS",
        "--engine=null",
        &dir.arg("c.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = stdout(&output);
    let block = &report[report.find("\n\n\nETW:\n").expect("the ETW block")..];
    let header = "\n\n\nETW:\n----\n\n".len();
    let block = &block[..block[header..]
        .find("\n\n")
        .map_or(block.len(), |i| header + i + 1)];
    // Each counter's value as DiskSpd prints it ("%I64u"): digits only.
    let shape: String = block
        .lines()
        .map(|l| match l.rsplit_once(": ") {
            Some((name, value)) if value.chars().all(|c| c.is_ascii_digit()) => {
                format!("{name}: N\n")
            }
            _ => format!("{l}\n"),
        })
        .collect();
    let expected = "\n\n\nETW:\n----\n\n\tDisk I/O\n\t\tRead: N\n\t\tWrite: N\n\tLoad Image\n\t\tLoad Image: N\n\tMemory Page Faults\n\t\tCopy on Write: N\n\t\tDemand Zero fault: N\n\t\tGuard Page fault: N\n\t\tHard page fault: N\n\t\tTransition fault: N\n\tNetwork\n\t\tAccept: N\n\t\tConnect: N\n\t\tDisconnect: N\n\t\tReconnect: N\n\t\tRetransmit: N\n\t\tTCP/IP Send: N\n\t\tTCP/IP Receive: N\n\t\tUDP/IP Send: N\n\t\tUDP/IP Receive: N\n\tProcess\n\t\tStart: N\n\t\tEnd: N\n\tRegistry\n\t\tNtCreateKey: N\n\t\tNtDeleteKey: N\n\t\tNtDeleteValueKey: N\n\t\tNtEnumerateKey: N\n\t\tNtEnumerateValueKey: N\n\t\tNtFlushKey: N\n\t\tKcbDump/create: N\n\t\tNtOpenKey: N\n\t\tNtQueryKey: N\n\t\tNtQueryMultipleValueKey: N\n\t\tNtQueryValueKey: N\n\t\tNtSetInformationKey: N\n\t\tNtSetValueKey: N\n\tThread\n\t\tStart: N\n\t\tEnd: N\n";
    assert_eq!(shape, expected, "{block}");
    // Hard faults alone get their own heading.
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "-eMEMORY_HARD_FAULTS",
        "--engine=null",
        &dir.arg("c.dat"),
    ]);
    assert!(
        stdout(&output).contains("----\n\n\tMemory Hard Faults\n\t\tHard page fault: "),
        "{}",
        stdout(&output)
    );
}

fn event_command(dir: &TempDir) -> std::process::Command {
    let mut command = iospd();
    command.env("IOSPD_EVENT_DIR", dir.path());
    command
}

#[test]
fn named_events_signal_wait_and_stop() {
    let dir = TempDir::new();
    let events = TempDir::new();
    let output = event_command(&events)
        .args([
            "-c1M",
            "-d1",
            "-W0",
            "-ysStarted",
            "-yfFinished",
            "--engine=null",
            &dir.arg("e.dat"),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        events.join("iospd-event-Started").exists() && events.join("iospd-event-Finished").exists()
    );

    // -yr: nothing starts until the event is set; -ye sets it from another process.
    let begun = Instant::now();
    let child = event_command(&events)
        .args([
            "-c1M",
            "-d1",
            "-W0",
            "-yrGo",
            "--engine=null",
            &dir.arg("e.dat"),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    let set = event_command(&events).arg("-yeGo").output().unwrap();
    assert_eq!(set.status.code(), Some(1), "DiskSpd's -ye exits 1");
    assert!(stdout(&set).contains("Successfully set event: 'Go'"));
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert!(
        begun.elapsed() >= Duration::from_millis(1700),
        "the run waited for the event"
    );

    // -yp: the event stops the run early, with results for the shortened window.
    let child = event_command(&events)
        .args([
            "-c1M",
            "-d30",
            "-W0",
            "-ypHalt",
            "--engine=null",
            &dir.arg("e.dat"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    event_command(&events).arg("-yeHalt").output().unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(test_time(&stdout(&output)) < 10.0);
}

#[test]
fn wait_statistics_and_io_uring_batches() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c4M",
        "-d1",
        "-W0",
        "-b4K",
        "-o16",
        "-r",
        "-vs",
        "-u4",
        "-oc8",
        &dir.arg("w.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = stdout(&output);
    for needle in [
        "Wait Statistics - Completion Wait",
        "0 - 7+ complete per wait",
        "IoRing Statistics",
        "Submits/s",
        "completion depth: 8",
        "(batch size: 4)",
    ] {
        assert!(report.contains(needle), "missing {needle:?} in\n{report}");
    }
}

#[test]
fn huge_page_buffers_or_a_clear_refusal() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c4M",
        "-d1",
        "-W0",
        "-b64K",
        "-o4",
        "-l",
        &dir.arg("l.dat"),
    ]);
    let pages: u64 = fs::read_to_string("/proc/sys/vm/nr_hugepages")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    if output.status.success() {
        assert!(pages > 0, "huge pages were available");
    } else {
        assert_eq!(output.status.code(), Some(1));
        assert!(
            stderr(&output).contains("vm.nr_hugepages"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn echoed_and_linux_mapped_options_run() {
    let dir = TempDir::new();
    let path = dir.arg("h.dat");
    for args in [
        vec!["-frst", "-I1"],
        vec!["-I2", "--engine=psync"],
        vec!["--ioprio=rt:1"],
        vec!["--ioprio=be:3", "--engine=psync"],
        vec!["--ioprio=idle"],
        vec!["-:1"],
        vec!["-bsn"],
        vec!["-a", "-ac"],
        vec!["-aup"],
        vec!["-rs30", "-r4K", "-w20"],
        vec!["-r", "-rdpct90/10"],
        vec!["-p", "-o4"],
        vec!["-P100"],
    ] {
        let mut line = vec!["-c1M", "-d1", "-W0", "-b4K"];
        line.extend(&args);
        line.push(&path);
        let output = run_iospd(&line);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        assert!(totals(&stdout(&output), "Total IO").ios > 0, "{args:?}");
    }
    let output = run_iospd(&["-c1M", "-d1", "-W0", "-:1", "--engine=null", &path]);
    assert!(stdout(&output).contains("Experiment Flags: 0x1 (1)"));
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "-r",
        "-rdpct90/10",
        "--engine=null",
        &path,
    ]);
    assert!(stdout(&output).contains("Effective IO Distributions"));
}

/// `--cpu-set`: every thread of the run may use only the CPUs of the set, unpinned (fio's
/// `cpus_allowed`), as the kernel shows each of the running process's threads.
#[test]
fn a_cpu_set_holds_every_thread_of_the_run() {
    let dir = TempDir::new();
    let trace = dir.arg("set.trace");
    let mut child = iospd()
        .args([
            "--cpu-set=0",
            "-c1M",
            "-t2",
            "-o1",
            "-d600",
            "-W0",
            "-r",
            "-b4K",
        ])
        .arg(format!("--trace={trace}"))
        .arg(dir.arg("set.dat"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tasks = format!("/proc/{}/task", child.id());
    let lists = loop {
        assert!(child.try_wait().unwrap().is_none(), "the run ended first");
        // Once both threads have done I/O, every thread of the run exists.
        if crate::util::traced(&trace, 200)() {
            let lists: Vec<String> = fs::read_dir(&tasks)
                .unwrap()
                .filter_map(|task| {
                    let status = fs::read_to_string(task.ok()?.path().join("status")).ok()?;
                    let line = status
                        .lines()
                        .find(|l| l.starts_with("Cpus_allowed_list:"))?;
                    Some(line.split_whitespace().nth(1)?.to_string())
                })
                .collect();
            break lists;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // SAFETY: kill(2) on our own child, not yet waited for.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(lists.len() >= 3, "{lists:?}");
    assert!(lists.iter().all(|l| l == "0"), "{lists:?}");
}

/// `--pattern`: every write holds the bytes repeated from the buffer's start (fio's
/// `buffer_pattern`), whatever the pattern's length.
#[test]
fn a_pattern_fills_every_write() {
    let dir = TempDir::new();
    let file = dir.arg("pattern.dat");
    let output = run_iospd(&[
        "-c64K",
        "-w100",
        "--pattern=0xDEADBEEF01",
        "--ios=16",
        "-s",
        "-b4K",
        "-Sh",
        &file,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = fs::read(&file).unwrap();
    let pattern = [0xde, 0xad, 0xbe, 0xef, 0x01];
    for (i, block) in written.chunks(4096).enumerate() {
        assert!(
            block
                .iter()
                .zip(pattern.iter().cycle())
                .all(|(a, b)| a == b),
            "block {i}: {:02x?}",
            &block[..8]
        );
    }
    assert_eq!(written.len(), 64 << 10);
    for (spec, says) in [("0xabc", "whole bytes"), ("dead", "is not 0x")] {
        let output = run_iospd(&["-w100", &format!("--pattern={spec}"), &file]);
        assert_eq!(output.status.code(), Some(3));
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
    }
}
