//! Whole runs on the null engine with a fake clock and a fake machine, compared byte for byte with
//! the committed reports in tests/golden/. `UPDATE_GOLDEN=1 cargo test --test golden` rewrites them
//! after an intended change; review the diff before committing.

use crate::util;
use crate::util::{TempDir, assert_golden, golden_run};

#[test]
fn random_read_with_latency_and_intervals() {
    let dir = TempDir::new();
    let report = golden_run(
        &[
            "-c1M",
            "-d1",
            "-W0",
            "-b4K",
            "-o4",
            "-r",
            "-L",
            "-D100",
            "<dir>/t.dat",
        ],
        &dir,
    );
    assert_golden("random_read.txt", &report);
}

#[test]
fn mixed_two_targets_two_threads_unbuffered() {
    let dir = TempDir::new();
    let report = golden_run(
        &[
            "-c2M",
            "-d1",
            "-W1",
            "-C1",
            "-b8K",
            "-o2",
            "-t2",
            "-r",
            "-w30",
            "-Sh",
            "-L",
            "-Z",
            "-z7",
            "<dir>/a.dat",
            "<dir>/b.dat",
        ],
        &dir,
    );
    assert_golden("mixed_two_targets.txt", &report);
}

#[test]
fn sequential_writes_with_thread_stride_and_bounds() {
    let dir = TempDir::new();
    let report = golden_run(
        &[
            "-c4M",
            "-d1",
            "-W0",
            "-b64K",
            "-s",
            "-T1M",
            "-t2",
            "-B64K",
            "-f3M",
            "-w100",
            "-D",
            "<dir>/seq.dat",
        ],
        &dir,
    );
    assert_golden("sequential_writes.txt", &report);
}

#[test]
fn fixed_thread_pool_over_two_targets_with_random_data() {
    let dir = TempDir::new();
    let report = golden_run(
        &[
            "-c1M",
            "-d1",
            "-W0",
            "-F2",
            "-o3",
            "-b4K",
            "-r16K",
            "-w50",
            "-Zr",
            "-L",
            "-a0",
            "<dir>/x.dat",
            "<dir>/y.dat",
        ],
        &dir,
    );
    assert_golden("thread_pool.txt", &report);
}

#[test]
fn throttled_run_without_latency() {
    let dir = TempDir::new();
    let report = golden_run(
        &["-c1M", "-d2", "-W0", "-b4K", "-o8", "-g500i", "<dir>/g.dat"],
        &dir,
    );
    assert_golden("throttled.txt", &report);
    // 500 IOPS for 2 s: the pacing, not the queue depth, decides the count.
    let totals = util::totals(&report, "Total IO");
    assert!((990..=1010).contains(&totals.ios), "{} I/Os", totals.ios);
}

#[test]
fn profile_echo() {
    let dir = TempDir::new();
    for (name, args) in [
        ("profile_defaults.txt", &["t.dat"][..]),
        (
            "profile_seed_002.txt",
            &[
                "-c50G", "-d300", "-t16", "-o32", "-b4k", "-r", "-w30", "-Sh", "-L", "E:io",
            ][..],
        ),
        (
            "profile_seed_003.txt",
            &[
                "-b256K",
                "-d3600",
                "-o32",
                "-h",
                "-L",
                "-t1",
                "-W",
                "-g31457",
                "-w0",
                "f:data2.dat",
            ][..],
        ),
        (
            "profile_seed_004.txt",
            &[
                "-t2", "-o32", "-b4k", "-r4k", "-w0", "-d120", "-Sh", "-D", "-L", "-c5G", "IO.dat",
            ][..],
        ),
    ] {
        let mut line = vec!["-Rp"];
        line.extend_from_slice(args);
        let output = util::iospd()
            .args(&line)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {}", util::stderr(&output));
        assert_golden(
            name,
            &util::stdout(&output).replace(env!("CARGO_BIN_EXE_iospd"), "iospd"),
        );
        assert!(
            std::fs::read_dir(dir.path()).unwrap().next().is_none(),
            "{name}: -Rp must not create or touch anything"
        );
    }
}

#[test]
fn pacing_is_smooth_in_every_interval() {
    let dir = TempDir::new();
    let report = util::golden_report(
        &[
            "-c1M",
            "-d3",
            "-W0",
            "-b4K",
            "-o4",
            "-r",
            "-g2000i",
            "-D100",
            "<dir>/t.dat",
        ],
        &dir,
    );
    let measured = report.timespans[0].measured.as_ref().unwrap();
    assert_eq!(measured.timeline.len(), 30);
    for row in &measured.timeline {
        // 200 I/Os are due in each 100 ms; one may complete just across the boundary.
        let ios = row.all.total.ios;
        assert!(
            (199..=201).contains(&ios),
            "{ios} I/Os at {} ms",
            row.start_ms
        );
    }
    assert_eq!(measured.totals.total.ios, 6000);
}

/// Whether `line` is one DiskSpd's `ResultParser.cpp` prints in a timespan's results (the forms of
/// its format strings): headings, rules, table headers and rows.
fn diskspd_line(line: &str) -> bool {
    const EXACT: &[&str] = &[
        "",
        "Total IO",
        "Read IO",
        "Write IO",
        "Effective IO Distributions",
        "IoRing Statistics",
        "thread |  Submits/s ",
        "Total latency distribution:",
        "  %-ile |  Read (ms) | Write (ms) | Total (ms)",
        "ETW:",
        "----",
        "Wait Statistics - Completion Wait",
        "Wait Statistics - Lookaside",
        "thread |         wait | 0 - 7+ complete per wait",
        "thread |         wait | throttle wait  -  sleep | 0 - 7+ complete per wait",
        "thread |    lookaside | 0 - 7+ complete per lookaside",
    ];
    const PREFIXES: &[&str] = &[
        "Results for timespan ",
        "actual test time:\t",
        "thread count:\t\t",
        "request count:\t\t",
        "effective affinity (cpu): ",
        "target: ",
        "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s ",
        "total:   ",
        "total: | ",
        "Latency distribution: ",
        "\t",
    ];
    let row = |l: &str| {
        let first = l.split('|').next().unwrap_or("").trim();
        l.contains(" | ") && (first.parse::<u32>().is_ok() || first == "avg.")
    };
    let percentile = |l: &str| {
        let label = l.split(" | ").next().unwrap_or("").trim();
        ["min", "max", "25th", "50th", "75th", "90th", "95th", "99th"].contains(&label)
            || label.ends_with("-nines")
    };
    let cpu = |l: &str| l.ends_with("CPU |  Usage |  User  | Kernel |  Idle") || l.contains("%|");
    EXACT.contains(&line)
        || PREFIXES.iter().any(|p| line.starts_with(p))
        || line.chars().all(|c| c == '-' || c == '*')
        || line.contains("% of IO => [")
        || row(line)
        || percentile(line)
        || cpu(line)
}

/// DiskSpd's text comes first, line for line in DiskSpd's forms; iospd's own lines (achieved depth,
/// warnings, the open-loop chart, time statistics) only follow it, under `Beyond DiskSpd:`, so a
/// parser written for DiskSpd's text reads iospd's unchanged.
#[test]
fn the_diskspd_block_comes_first_and_holds_only_diskspd_lines() {
    let dir = TempDir::new();
    let report = golden_run(
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-b4K",
            "-o4",
            "-t2",
            "-r",
            "-rdpct90/10",
            "-w30",
            "-L",
            "-D100",
            "-vs",
            "-u",
            "-eDISK_IO",
            "-g20000i",
            "<dir>/a.dat",
            "<dir>/b.dat",
        ],
        &dir,
    );
    let results = report
        .split_once("Results for timespan 1:")
        .expect("a results section")
        .1;
    let lines: Vec<&str> = results.lines().collect();
    let extras = lines
        .iter()
        .position(|l| *l == "Beyond DiskSpd:")
        .expect("iospd's own section");
    assert!(
        lines[extras..]
            .iter()
            .any(|l| l.trim_start().starts_with("queue depth:")),
        "the achieved depth is in iospd's section"
    );
    for line in &lines[..extras] {
        assert!(
            diskspd_line(line),
            "not a DiskSpd line inside DiskSpd's block: {line:?}"
        );
    }
    for heading in [
        "Total IO",
        "Write IO",
        "IoRing Statistics",
        "Latency distribution: <dir>/b.dat",
        "Total latency distribution:",
        "ETW:",
        "Wait Statistics - Lookaside",
    ] {
        let at = lines.iter().position(|l| *l == heading);
        assert!(
            at.is_some_and(|i| i < extras),
            "{heading:?} must be in DiskSpd's block, before iospd's lines"
        );
    }
    // DiskSpd prints one blank line before each latency chart's heading.
    assert!(results.contains("total:   ") && results.contains("\n\nTotal latency distribution:\n"));
    assert!(!results.contains("\n\n\nLatency distribution:"));
    for extra in ["WARNING", "Time Statistics", "from intended start"] {
        if let Some(i) = lines.iter().position(|l| l.contains(extra)) {
            assert!(i > extras, "{extra} must follow DiskSpd's block");
        }
    }
    assert!(
        lines.iter().any(|l| l.contains("from intended start")),
        "-g with -L prints the open-loop chart after the block"
    );
}
