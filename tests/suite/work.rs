//! Runs bounded by work (`--ios`, `--bytes`): each thread ends its I/O to a target after exactly
//! its share in the measured window, the run ends when the last thread is done (or at `-d`), every
//! rate is over the time it really ran, and `--random-map` visits each block once per pass.

use std::fs;

use serde_json::Value;

use crate::util::{TempDir, iospd, stderr, stdout, test_time, totals};

/// Runs iospd with `args`, expects success, and returns its JSON report.
fn json_run(args: &[&str]) -> Value {
    let output = iospd().arg("-Rjson").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    assert!(
        !stderr(&output).contains("interrupted"),
        "{args:?}: {}",
        stderr(&output)
    );
    crate::util::validate_json(&stdout(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

/// Per thread and target of the first timespan: (read I/Os, read bytes, write I/Os).
fn counts(report: &Value) -> Vec<(u64, u64, u64)> {
    let mut all = Vec::new();
    for thread in report["timespans"][0]["measured"]["threads"]
        .as_array()
        .unwrap()
    {
        for t in thread["targets"].as_array().unwrap() {
            all.push((
                t["read"]["ios"].as_u64().unwrap(),
                t["read"]["bytes"].as_u64().unwrap(),
                t["write"]["ios"].as_u64().unwrap(),
            ));
        }
    }
    all
}

#[test]
fn every_thread_does_exactly_its_ios_on_every_target_even_after_a_warm_up() {
    let dir = TempDir::new();
    let (a, b) = (dir.arg("a.dat"), dir.arg("b.dat"));
    // A warm-up of a second leaves 16 I/Os in flight per thread and target when the window
    // begins: they count, and no more than 5000 are issued after them.
    let report = json_run(&[
        "-c1M",
        "-b4K",
        "-r",
        "-t2",
        "-o8",
        "-W1",
        "-w30",
        "--engine=null",
        "--ios=5000",
        &a,
        &b,
    ]);
    let per = counts(&report);
    assert_eq!(per.len(), 4, "{per:?}");
    for (reads, _, writes) in &per {
        assert_eq!(reads + writes, 5000, "{per:?}");
    }
    let measured = &report["timespans"][0]["measured"];
    let seconds = measured["duration_s"].as_f64().unwrap();
    let total = &measured["totals"]["total"];
    assert_eq!(total["ios"].as_u64(), Some(20_000));
    let iops = total["ios_per_s"].as_f64().unwrap();
    assert!(
        seconds > 0.0 && (iops * seconds - 20_000.0).abs() < 1e-6 * 20_000.0,
        "{iops} I/O per s over {seconds} s"
    );
    assert_eq!(report["profile"]["timespans"][0]["duration_s"], 0);
}

#[test]
fn a_byte_bound_ends_at_the_first_io_that_reaches_it_on_a_real_file() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    // 1,000,000 bytes of 4 KiB reads: 244 I/Os make 999,424 bytes, the 245th passes the bound.
    let report = json_run(&[
        "-c4M",
        "-b4K",
        "-r",
        "-o4",
        "-W0",
        "--bytes=1000000",
        &target,
    ]);
    assert_eq!(counts(&report), vec![(245, 245 * 4096, 0)]);
    // As a share of the range: 200 % of the first 512 KiB is two passes over it.
    let report = json_run(&[
        "-c4M",
        "-b4K",
        "-f512K",
        "-o4",
        "-W0",
        "--bytes=200%",
        &target,
    ]);
    assert_eq!(counts(&report), vec![(256, 1 << 20, 0)]);
    // In blocks of the run's -b: 100 blocks of 8 KiB.
    let report = json_run(&["-c4M", "-b8K", "-o4", "-W0", "--bytes=100b", &target]);
    assert_eq!(counts(&report), vec![(100, 100 * 8192, 0)]);
}

#[test]
fn the_time_limit_ends_a_bounded_run_that_has_not_finished() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let output = iospd()
        .args([
            "-c1M",
            "-b4K",
            "-r",
            "-W0",
            "-d1",
            "-g1000i",
            "--engine=null",
            "--ios=1000000000",
            &target,
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let report = stdout(&output);
    // The window is the one -d set, not cut short: 1000 I/Os a second for one second.
    assert_eq!(test_time(&report), 1.0, "{report}");
    let read = totals(&report, "Read IO");
    assert!(
        (900..=1001).contains(&read.ios),
        "{} I/Os at 1000 a second",
        read.ios
    );
    assert!(report.contains("--ios=1000000000: "), "{report}");
    assert!(!stderr(&output).contains("cut"), "{}", stderr(&output));
}

#[test]
fn each_timespan_of_a_repeated_bounded_run_does_its_work() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let report = json_run(&[
        "-c1M",
        "-r",
        "-b4K",
        "-W0",
        "--repeat=3",
        "--engine=null",
        "--ios=3000",
        &target,
    ]);
    let spans = report["timespans"].as_array().unwrap();
    assert_eq!(spans.len(), 3);
    for ts in spans {
        assert_eq!(ts["measured"]["totals"]["total"]["ios"], 3000, "{ts}");
    }
}

#[test]
fn a_profile_keeps_the_work_bound_and_the_random_map() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let xml = iospd()
        .args([
            "-c1M",
            "-r",
            "-b4K",
            "--ios=700",
            "--bytes=8M",
            "--random-map",
            "-Rpxml",
            &target,
        ])
        .output()
        .unwrap();
    let xml = stdout(&xml);
    for element in [
        "<IoCount>700</IoCount>",
        "<ByteCount>8388608</ByteCount>",
        "<RandomMap>true</RandomMap>",
        "<Duration>0</Duration>",
    ] {
        assert!(xml.contains(element), "{element} in {xml}");
    }
    crate::util::validate_xml(&[("profile", &xml)], "a_profile_keeps_the_work_bound");
    let profile = dir.join("p.xml");
    fs::write(&profile, &xml).unwrap();
    let report = json_run(&[&format!("-X{}", profile.display()), "-W0", "--engine=null"]);
    assert_eq!(counts(&report), vec![(700, 700 * 4096, 0)]);
    let t = &report["profile"]["timespans"][0]["targets"][0];
    assert_eq!(t["work"]["ios"], 700, "{t}");
    assert_eq!(t["random_map"], true, "{t}");
}

/// The blocks of a trace (`--trace`) in the order they completed.
fn traced_blocks(trace: &str) -> Vec<u64> {
    let bytes = fs::read(trace).unwrap();
    // After the 12-byte header, 40-byte records with the offset at bytes 16..24.
    bytes[12..]
        .chunks_exact(40)
        .map(|r| u64::from_le_bytes(r[16..24].try_into().unwrap()) / 4096)
        .collect()
}

#[test]
fn a_random_map_visits_every_block_once_per_pass_and_plain_random_does_not() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let blocks = 1024usize;
    let run = |map: bool| {
        let trace = dir.arg(if map { "map.trace" } else { "plain.trace" });
        // One I/O in flight: completions come in the order the offsets were drawn.
        let mut args = vec!["-c4M", "-b4K", "-r", "-o1", "-W0", "--engine=null"];
        args.push("--ios=3072");
        if map {
            args.push("--random-map");
        }
        let trace_arg = format!("--trace={trace}");
        args.extend([trace_arg.as_str(), target.as_str()]);
        let output = iospd().args(&args).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        traced_blocks(&trace)
    };
    let mapped = run(true);
    assert_eq!(mapped.len(), 3 * blocks);
    let mut orders = Vec::new();
    for pass in mapped.chunks(blocks) {
        let mut sorted = pass.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..blocks as u64).collect::<Vec<_>>());
        orders.push(pass.to_vec());
    }
    assert_ne!(orders[0], orders[1], "each pass draws a new order");
    // Without the map, a pass's worth of draws misses about 1/e of the blocks.
    let plain = run(false);
    let mut distinct = plain[..blocks].to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(
        distinct.len() < blocks * 3 / 4,
        "{} distinct",
        distinct.len()
    );
}

/// `--offset-increment` (fio's `offset_increment`): each thread works its own region, k × the
/// increment after the first, each as long; sequential threads go over their region once, a
/// random map visits each of its blocks once a pass — and the profile keeps it.
#[test]
fn each_thread_of_an_offset_increment_works_its_own_region() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let kib = 1024u64;
    // 4 MiB, from 1 MiB: three threads 1 MiB apart, each over 2 MiB (512 blocks).
    for (access, ios) in [("-s", "--ios=512"), ("-r", "--ios=1024")] {
        let trace = dir.arg("inc.trace");
        let trace_arg = format!("--trace={trace}");
        let mut args = vec![
            "-c5M", "-B1M", "-b4K", access, "-t3", "-o1", "-W0", "-w0", "-Sh", ios,
        ];
        args.extend(["--offset-increment=1M", "--random-map", "-Rjson"]);
        args.extend([trace_arg.as_str(), target.as_str()]);
        if access == "-s" {
            args.retain(|a| *a != "--random-map");
        }
        let output = iospd().args(&args).output().unwrap();
        assert!(output.status.success(), "{access}: {}", stderr(&output));
        let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        let t = &report["profile"]["timespans"][0]["targets"][0];
        assert_eq!(t["offset_increment_bytes"], 1 << 20, "{t}");
        let bytes = fs::read(&trace).unwrap();
        let mut by_thread = std::collections::BTreeMap::<u32, Vec<u64>>::new();
        for r in bytes[12..].chunks_exact(40) {
            let offset = u64::from_le_bytes(r[16..24].try_into().unwrap());
            let thread = u32::from_le_bytes(r[32..36].try_into().unwrap());
            by_thread
                .entry(thread)
                .or_default()
                .push(offset / (4 * kib));
        }
        assert_eq!(by_thread.len(), 3, "{access}");
        for (k, blocks) in by_thread.values().enumerate() {
            let first = (1024 + 1024 * k as u64) / 4;
            let region: Vec<u64> = (first..first + 512).collect();
            for pass in blocks.chunks(512) {
                let mut sorted = pass.to_vec();
                sorted.sort_unstable();
                assert_eq!(sorted, region, "{access}: thread {k}");
            }
            if access == "-s" {
                assert_eq!(blocks, &region, "thread {k} in order");
            }
        }
        fs::remove_file(&trace).unwrap();
    }
    // The XML profile keeps it, and runs it.
    let xml = iospd()
        .args([
            "-c5M",
            "-t2",
            "--ios=100",
            "--offset-increment=1M",
            "-Rpxml",
            &target,
        ])
        .output()
        .unwrap();
    let xml = stdout(&xml);
    assert!(
        xml.contains("<OffsetIncrement>1048576</OffsetIncrement>"),
        "{xml}"
    );
    crate::util::validate_xml(&[("profile", &xml)], "offset_increment");
    let profile = dir.join("p.xml");
    fs::write(&profile, &xml).unwrap();
    let report = json_run(&[&format!("-X{}", profile.display()), "-W0", "--engine=null"]);
    let t = &report["profile"]["timespans"][0]["targets"][0];
    assert_eq!(t["offset_increment_bytes"], 1 << 20, "{t}");
}

#[test]
fn work_bounds_that_cannot_run_are_refused_before_anything_is_written() {
    crate::util::assert_refused_untouched(&[
        (vec!["--ios=0"], "1"),
        (vec!["--ios=x"], "--ios=1000000"),
        (vec!["--bytes=0"], "is 0 bytes"),
        (vec!["--bytes=1Q"], "--bytes=1G"),
        (vec!["--ios=10", "-C2"], "drop -C"),
        (vec!["--random-map"], "add -r"),
        (vec!["-r", "-rs50", "--random-map"], "drop -rs"),
        (
            vec!["-r", "--distribution=zipf:1.2", "--random-map"],
            "use one",
        ),
        (vec!["--ios=5", "--ios=6"], "give each option once"),
        (vec!["--bytes=1M", "--bytes=50%"], "give each option once"),
        (vec!["--bytes=0%"], "--bytes=100%"),
    ]);
}

/// `-D` in a run bounded by its work: its intervals grow as it goes (it has no length to size
/// them by), and every I/O is in exactly one of them, in each thread's buckets and in the time
/// series, however long the machine takes.
#[test]
fn a_run_bounded_by_its_work_counts_every_io_in_its_intervals() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let output = iospd()
        .args([
            "-c4M",
            "-b4K",
            "-r",
            "-t2",
            "-o4",
            "-W0",
            "--ios=3000",
            "-D1",
            "-Rjson",
            &target,
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let m = &json["timespans"][0]["measured"];
    assert_eq!(m["totals"]["read"]["ios"], 6000);
    let sum = |buckets: &Value| -> u64 {
        buckets
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["ios"].as_u64().unwrap())
            .sum()
    };
    for thread in m["threads"].as_array().unwrap() {
        let read = &thread["targets"][0]["read"];
        assert_eq!(sum(&read["intervals"]), 3000, "{read}");
    }
    assert_eq!(sum(&m["totals"]["read"]["intervals"]), 6000);
    // The last interval ends with the window, however short the work left it.
    let window_ms = (m["duration_s"].as_f64().unwrap() * 1000.0).round() as u64;
    let last = m["totals"]["read"]["intervals"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["end_ms"]
        .as_u64()
        .unwrap();
    assert!(
        last <= window_ms + 1,
        "{last} ms after a {window_ms} ms window"
    );
    let rows: u64 = m["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["all"]["read"]["ios"].as_u64().unwrap())
        .sum();
    assert_eq!(rows, 6000);
}

/// The targets (by number) of a one-slot `-F1 -O1` pool's I/Os in the order they ran, from
/// the trace of a run over `targets` with `--file-service=<service>` and `--ios=<ios>` each.
fn pool_order(dir: &TempDir, targets: &[String], service: &str, ios: u64) -> Vec<usize> {
    let trace = dir.arg("order.csv");
    let mut args = vec![
        "-c1M".to_string(),
        "-F1".into(),
        "-O1".into(),
        "--engine=psync".into(),
        "-W0".into(),
        format!("--file-service={service}"),
        format!("--ios={ios}"),
        "-r".into(),
        "-b4K".into(),
        format!("--trace={trace}"),
    ];
    args.extend(targets.iter().cloned());
    let output = iospd().args(&args).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{service}: {}",
        stderr(&output)
    );
    let text = fs::read_to_string(&trace).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "target").unwrap();
    lines
        .map(|l| l.split(',').nth(column).unwrap().parse().unwrap())
        .collect()
}

/// `--file-service`: a `-O` pool's I/Os go to its targets in turn (`roundrobin[:n]`), each target
/// until its work is done (`sequential`), or by weight (the default), as the trace of one slot
/// shows them one after the other.
#[test]
fn a_pool_serves_its_targets_in_turn_in_order_or_by_weight() {
    let dir = TempDir::new();
    let targets: Vec<String> = (0..3).map(|i| dir.arg(&format!("f{i}.dat"))).collect();
    let order = |service: &str| -> String {
        pool_order(&dir, &targets, service, 6)
            .iter()
            .map(|t| t.to_string())
            .collect()
    };
    assert_eq!(order("roundrobin"), "012".repeat(6));
    assert_eq!(order("roundrobin:2"), "001122".repeat(3));
    assert_eq!(order("sequential"), "000000111111222222");
    let drawn = order("random");
    assert_eq!(drawn.len(), 18);
    for t in ['0', '1', '2'] {
        assert_eq!(drawn.matches(t).count(), 6, "{drawn}: each target's --ios");
    }
    // random:3: each target drawn keeps the next 3 I/Os.
    let turns = order("random:3");
    assert_eq!(turns.len(), 18);
    for chunk in turns.as_bytes().chunks(3) {
        assert!(chunk.iter().all(|&c| c == chunk[0]), "{turns}");
    }
    for t in ['0', '1', '2'] {
        assert_eq!(turns.matches(t).count(), 6, "{turns}: each target's --ios");
    }
    // Without a pool, or sequential without work to end a target: refused in one line.
    for (args, says) in [
        (&["--file-service=roundrobin", "-o1"][..], "no pool"),
        (
            &["--file-service=sequential", "-F1", "-O1", "-d1"],
            "add --ios or --bytes",
        ),
        (
            &["--file-service=zipf", "-F1", "-O1"],
            "is not random[:<n>], roundrobin[:<n>]",
        ),
        (
            &["--file-service=zipf:0", "-F1", "-O1"],
            "--file-service=zipf:1.2",
        ),
    ] {
        let output = iospd().args(args).arg(&targets[0]).output().unwrap();
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        let err = stderr(&output);
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

/// `--file-service=zipf:θ` draws each I/O's target with a skew over the targets in the order
/// given, the first the hottest: zipf:2 over three targets gives them 1 : 1/4 : 1/9 of the I/O
/// (73 %, 18 %, 8 %), counted in the trace before any target's work is done.
#[test]
fn a_pool_draws_its_targets_with_a_skew_in_their_order() {
    let dir = TempDir::new();
    let targets: Vec<String> = (0..3).map(|i| dir.arg(&format!("z{i}.dat"))).collect();
    let first: Vec<usize> = pool_order(&dir, &targets, "zipf:2", 400)
        .into_iter()
        .take(300)
        .collect();
    let mut counts = [0usize; 3];
    for t in first {
        counts[t] += 1;
    }
    // 300 draws: 220 ± 23, 55 ± 20, 25 ± 14 at five standard deviations.
    assert!((197..=243).contains(&counts[0]), "{counts:?}");
    assert!((35..=75).contains(&counts[1]), "{counts:?}");
    assert!((11..=39).contains(&counts[2]), "{counts:?}");
}

/// A run over many files, each taking a few I/Os, keeps its statistics in a few bytes per file
/// (not under a sanitizer's build, which reserves terabytes of address space):
/// 600 files in 256 MiB of address space (a histogram's full counts are about 0.5 MiB, two per
/// file).
#[test]
fn many_files_of_a_few_calls_each_fit_in_little_memory() {
    use std::os::unix::process::CommandExt;
    // In memory (/dev/shm), so that laying out the files puts no load on the disk other tests
    // time.
    let dir = tempfile::Builder::new()
        .prefix("iospd-test")
        .tempdir_in("/dev/shm")
        .unwrap();
    let names: Vec<String> = (0..600)
        .map(|k| dir.path().join(format!("f{k}")).display().to_string())
        .collect();
    let mut command = crate::util::iospd();
    command
        .args([
            "--engine=stat",
            "-c4K",
            "-b4K",
            "-W0",
            "--ios=1",
            "-F1",
            "-O1",
            "-L",
        ])
        .args(&names);
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 256 << 20,
                rlim_max: 256 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", crate::util::stderr(&output));
    assert_eq!(
        crate::util::totals(&crate::util::stdout(&output), "Read IO").ios,
        600
    );
}

/// `--max-latency`: the first measured read or write over the limit stops the run with
/// ETIMEDOUT, named; a limit of 1 ns is over for every I/O, so the test needs no slow device.
#[test]
fn the_first_io_over_max_latency_stops_the_run_and_is_named() {
    let dir = TempDir::new();
    let target = dir.arg("m.dat");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "-c1M",
            "-b4K",
            "-r",
            "-W0",
            "-t1",
            "-o4",
            "--ios=2000",
            "-Rjson",
        ];
        args.extend(extra);
        args.push(&target);
        iospd().args(&args).output().unwrap()
    };
    let output = run(&["--max-latency=1ns", "-w30"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("longer than --max-latency=1ns allows (ETIMEDOUT"),
        "{err}"
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let failure = &json["timespans"][0]["failure"];
    assert_eq!(failure["result"], -libc::ETIMEDOUT, "{failure}");
    assert!(failure["latency_ns"].as_u64() > Some(1), "{failure}");
    // Measured, as fio measures it, with the others of its batch; none issued after it.
    let ios = json["timespans"][0]["measured"]["totals"]["total"]["ios"]
        .as_u64()
        .unwrap();
    assert!((1..=4).contains(&ios), "{ios} I/Os measured at -o4");
    // "Is this real" says the window was cut short, rather than that nothing casts doubt.
    let flags = &json["timespans"][0]["measured"]["reality"]["flags"];
    assert!(
        flags
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f.as_str().is_some_and(|f| f
                .contains(" over --max-latency")
                && f.contains("stopped the run after")))),
        "{flags}"
    );
    // One direction only: reads have no limit here, so a read-only run is never over it.
    let output = run(&["--max-latency=,1ns", "-w0"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = run(&["--max-latency=,1ns", "-w100"]);
    assert!(
        stderr(&output).contains("write of 4096 bytes"),
        "{}",
        stderr(&output)
    );
    // A limit no I/O reaches changes nothing.
    let output = run(&[
        "--max-latency=60s",
        "-w30",
        &format!("--trace={}", dir.arg("m.trace")),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    // A replay of that run is held to the limit too.
    let output = iospd()
        .args(["replay", "--max-latency=1ns", &dir.arg("m.trace"), &target])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("longer than --max-latency=1ns"),
        "{}",
        stderr(&output)
    );
}

/// `--serialize-overlap`: a thread never has two I/Os on one block in flight together (each one's
/// submission comes after the completion of any it overlaps, seen in `--trace`); without it, 16
/// random writes in flight over 16 blocks collide.
#[test]
fn serialize_overlap_keeps_a_threads_overlapping_ios_apart_in_time() {
    let dir = TempDir::new();
    let target = dir.arg("s.dat");
    let collisions = |serialize: bool| -> usize {
        let trace = dir.arg(if serialize { "s.trace" } else { "p.trace" });
        let trace_arg = format!("--trace={trace}");
        let mut args = vec![
            "-c64K",
            "-b4K",
            "-r",
            "-w100",
            "-W0",
            "-t1",
            "-o16",
            "--ios=4000",
            &trace_arg,
        ];
        if serialize {
            args.push("--serialize-overlap");
        }
        args.push(&target);
        let output = iospd().args(&args).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        let bytes = fs::read(&trace).unwrap();
        // After the 12-byte header, 40-byte records: completion, latency, offset.
        let mut spans: Vec<(u64, u64, u64)> = bytes[12..]
            .chunks_exact(40)
            .map(|r| {
                let word = |at: usize| u64::from_le_bytes(r[at..at + 8].try_into().unwrap());
                let (done, latency, offset) = (word(0), word(8), word(16));
                (offset / 4096, done - latency, done)
            })
            .collect();
        assert_eq!(spans.len(), 4000);
        spans.sort_unstable();
        let mut count = 0;
        for (i, a) in spans.iter().enumerate() {
            for b in spans[i + 1..].iter().take_while(|b| b.0 == a.0) {
                count += usize::from(b.1 < a.2 && a.1 < b.2);
            }
        }
        count
    };
    assert!(
        collisions(false) > 0,
        "without the option some writes overlap in flight"
    );
    assert_eq!(collisions(true), 0, "with it none do");
}
