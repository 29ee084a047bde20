//! Watching a run while it goes: the time series (CSV, JSON, XML), the HdrHistogram interval log,
//! and the progress line on a terminal.

use crate::util;
use crate::util::tools;
use std::fs;

use crate::util::{TempDir, iospd, stderr, stdout};

/// A 3-second random 70/30 run on a fresh file with 500 ms intervals and `extra` options.
fn observed_run(dir: &TempDir, extra: &[&str]) -> std::process::Output {
    let target = dir.arg("t.dat");
    let mut args = vec![
        "-c32M", "-d3", "-W0", "-b4K", "-o4", "-t2", "-r", "-w30", "-D500",
    ];
    args.extend_from_slice(extra);
    args.push(&target);
    let output = iospd().args(&args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    output
}

#[test]
fn the_time_series_csv_json_and_xml_agree_with_the_totals() {
    let dir = TempDir::new();
    let csv = dir.arg("ts.csv");
    let output = observed_run(&dir, &["-Rjson", &format!("--timeseries={csv}")]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    util::validate_json(&stdout(&output));
    let measured = &report["timespans"][0]["measured"];
    let total_ios = measured["totals"]["total"]["ios"].as_u64().unwrap();
    let timeline = measured["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 6, "3 s in 500 ms intervals");
    let in_timeline: u64 = timeline
        .iter()
        .map(|row| row["all"]["total"]["ios"].as_u64().unwrap())
        .sum();
    assert_eq!(
        in_timeline, total_ios,
        "every measured I/O is in one interval"
    );
    for (i, row) in timeline.iter().enumerate() {
        assert_eq!(row["start_ms"].as_f64().unwrap(), i as f64 * 500.0);
        let total = &row["all"]["total"];
        assert!(total["p50_ns"].as_u64() <= total["p99_ns"].as_u64());
        assert!(total["p99_ns"].as_u64() <= total["p999_ns"].as_u64());
        assert!(total["p999_ns"].as_u64() <= total["max_ns"].as_u64());
    }
    let text = fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(iospd::live::timeseries::HEADER));
    let (devices, rows): (Vec<Vec<&str>>, Vec<Vec<&str>>) = lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .partition(|r| r[4] == "device");
    assert_eq!(rows.len(), 6 * 3, "one row per interval and direction");
    // With the device clock (root), the disk under the file: a row per interval and direction.
    assert!(devices.is_empty() || devices.len() == 6 * 2, "{devices:?}");
    let csv_total: u64 = rows
        .iter()
        .filter(|r| r[6] == "total")
        .map(|r| r[7].parse::<u64>().unwrap())
        .sum();
    assert_eq!(csv_total, total_ios);
    // The same intervals as the JSON, with the same percentiles (in µs).
    let p99_json = timeline[2]["all"]["total"]["p99_ns"].as_u64().unwrap() as f64 / 1e3;
    let p99_csv: f64 = rows[2 * 3 + 2][14].parse().unwrap();
    assert!(
        (p99_json - p99_csv).abs() < 0.001,
        "{p99_json} vs {p99_csv}"
    );

    let output = observed_run(&dir, &["-Rxml"]);
    let xml = stdout(&output);
    util::validate_xml(
        &[("results", &xml)],
        "the_time_series_csv_json_and_xml_agree",
    );
    assert_eq!(xml.matches("TotalP99LatencyMilliseconds=").count(), 6);
}

#[test]
fn the_interval_log_reads_back_with_the_hdrhistogram_python_reader() {
    let test = "the_interval_log_reads_back_with_the_hdrhistogram_python_reader";
    let dir = TempDir::new();
    let log = dir.arg("run.hlog");
    let output = observed_run(&dir, &["-Rjson", &format!("--histlog={log}")]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let total_ios = report["timespans"][0]["measured"]["totals"]["total"]["ios"]
        .as_u64()
        .unwrap();
    let text = fs::read_to_string(&log).unwrap();
    assert!(text.contains("#[StartTime: "), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("Tag=t0-read,"))
            .count(),
        6
    );
    let unchecked = "the log read back by HdrHistogram's own reader";
    let Some(tools) = tools::python_module(test, "hdrh", "hdrhistogram", unchecked) else {
        return;
    };
    let script = format!(
        "from hdrh.log import HistogramLogReader\n\
         from hdrh.histogram import HdrHistogram\n\
         r = HistogramLogReader('{log}', HdrHistogram(1, 3600 * 10**9, 3))\n\
         n = total = 0\n\
         while True:\n\
         \x20   h = r.get_next_interval_histogram()\n\
         \x20   if h is None: break\n\
         \x20   if h.get_tag() is None:\n\
         \x20       n += 1\n\
         \x20       total += h.get_total_count()\n\
         print(n, total)\n"
    );
    let read = tools
        .command("python3")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", stderr(&read));
    assert_eq!(stdout(&read).trim(), format!("6 {total_ios}"));
}

#[test]
fn the_progress_line_shows_on_a_terminal_only() {
    let test = "the_progress_line_shows_on_a_terminal_only";
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let command = format!(
        "{} -c16M -d3 -W1 -b4K -r {target} >/dev/null",
        env!("CARGO_BIN_EXE_iospd")
    );
    let Some(tools) = tools::need(test, &["script"]) else {
        return;
    };
    // `script` gives the command a terminal and copies what it writes there.
    let on_terminal = tools
        .command("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    let seen = stdout(&on_terminal);
    assert!(
        seen.contains("iospd: timespan 1: preparing 1 target "),
        "the pause before the load says what it is: {seen:?}"
    );
    assert!(seen.contains("iospd: warm-up 0:00:0"), "{seen:?}");
    assert!(seen.contains("iospd: measuring 0:00:0"), "{seen:?}");
    // Every second of -d3 shows the phase's whole length, the last one too.
    for shown in seen.split("iospd: measuring ").skip(1) {
        assert_eq!(&shown[7..15], "/0:00:03", "{seen:?}");
    }
    assert!(
        seen.contains(" IOPS, ") && seen.contains("MiB/s, p99 "),
        "{seen:?}"
    );
    assert!(
        seen.contains("\r\x1b[K"),
        "the line is cleared before the report"
    );
    // On a 40-column terminal the line is clipped (never wraps), and -c shows the creation.
    let narrow = tools
        .command("script")
        .args([
            "-qec",
            &format!(
                "stty cols 40; {}",
                command.replace("-c16M", "-c512M").replace(" -d3 ", " -d1 ")
            ),
            "/dev/null",
        ])
        .output()
        .unwrap();
    let seen = stdout(&narrow);
    assert!(seen.contains("iospd: creating '"), "{seen:?}");
    // Every status line (written as "\r<text>\x1b[K"); other messages wrap as usual.
    let lines: Vec<&str> = seen
        .split('\r')
        .filter_map(|s| s.strip_suffix("\x1b[K"))
        .filter(|s| s.starts_with("iospd: "))
        .collect();
    assert!(lines.len() >= 2, "{seen:?}");
    for text in lines {
        assert!(
            text.chars().count() < 40,
            "wider than the terminal: {text:?}"
        );
    }
    let quiet = tools
        .command("script")
        .args([
            "-qec",
            &command.replace(" -r ", " -r --quiet "),
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert!(!stdout(&quiet).contains("iospd: measuring"), "--quiet");
    let piped = iospd()
        .args(["-d1", "-W0", "-b4K", "-Sh", &target])
        .output()
        .unwrap();
    assert!(
        stderr(&piped).is_empty(),
        "nothing when stderr is not a terminal"
    );
}

#[test]
fn the_trace_holds_every_measured_io_in_binary_and_csv() {
    let dir = TempDir::new();
    let binary = dir.arg("run.trace");
    let output = observed_run(&dir, &["-Rjson", &format!("--trace={binary}")]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let timespan = &report["timespans"][0];
    let total_ios = timespan["measured"]["totals"]["total"]["ios"]
        .as_u64()
        .unwrap();
    let records = timespan["trace"]["records"].as_u64().unwrap();
    let dropped = timespan["trace"]["dropped"].as_u64().unwrap();
    assert_eq!(
        records + dropped,
        total_ios,
        "every measured I/O is kept or counted"
    );
    assert!(stderr(&output).contains(&format!("trace: {records} I/Os recorded in ")));
    let size = fs::metadata(&binary).unwrap().len();
    assert_eq!(size, 12 + 40 * records, "header and fixed records");

    let dump = iospd().args(["trace-dump", &binary]).output().unwrap();
    assert_eq!(dump.status.code(), Some(0), "{}", stderr(&dump));
    let text = stdout(&dump);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(iospd::trace::CSV_HEADER));
    let mut reads = 0;
    let mut count = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let completion_us: f64 = f[1].parse().unwrap();
        assert!((0.0..3_000_000.0).contains(&completion_us), "{line}");
        assert!(f[2] == "0" || f[2] == "1", "thread: {line}");
        assert_eq!((f[3], f[6], f[8]), ("0", "4096", "4096"), "{line}");
        assert_eq!(f[5].parse::<u64>().unwrap() % 4096, 0, "aligned offset");
        reads += (f[4] == "read") as u64;
        count += 1;
    }
    assert_eq!(count, records);
    let json_reads = timespan["measured"]["totals"]["read"]["ios"]
        .as_u64()
        .unwrap();
    if dropped == 0 {
        assert_eq!(reads, json_reads);
    }

    let csv = dir.arg("run.csv");
    let output = observed_run(&dir, &[&format!("--trace={csv}")]);
    let text = fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with(iospd::trace::CSV_HEADER));
    assert!(stderr(&output).contains("I/Os recorded in"));

    let not_a_trace = iospd()
        .args(["trace-dump", &dir.arg("t.dat")])
        .output()
        .unwrap();
    assert_eq!(not_a_trace.status.code(), Some(3));
    assert!(stdout(&not_a_trace).is_empty());
    assert!(stderr(&not_a_trace).contains("not an iospd binary trace"));
}

#[test]
fn checkpoints_keep_what_was_measured_when_the_run_is_killed() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let report = dir.arg("cp.json");
    let mut child = iospd()
        .args([
            "-c16M", "-d60", "-W0", "-b4K", "-o4", "-r", "-L", "-D500", "--verify",
        ])
        .args(["--checkpoint=1", &format!("--output={report}"), &target])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the second checkpoint, then kill the run without a chance to clean up.
    let started = std::time::Instant::now();
    let seconds = |path: &str| -> Option<f64> {
        let value: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(path).ok()?).ok()?;
        value["timespans"][0]["measured"]["duration_s"].as_f64()
    };
    while seconds(&report).is_none_or(|s| s < 1.9) && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = fs::read_to_string(&report).unwrap();
    util::validate_json(&text);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["partial"], true, "a checkpoint says it is partial");
    let measured = &value["timespans"][0]["measured"];
    let duration = measured["duration_s"].as_f64().unwrap();
    assert!((1.9..10.0).contains(&duration), "{duration}");
    let ios = measured["totals"]["total"]["ios"].as_u64().unwrap();
    assert!(ios > 0);
    let rows = measured["timeline"].as_array().unwrap();
    let in_rows: u64 = rows
        .iter()
        .map(|r| r["all"]["total"]["ios"].as_u64().unwrap())
        .sum();
    assert_eq!(in_rows, ios, "the totals are the finished intervals");
    // Threads hand their --verify counts over when they end: a checkpoint shows none rather than
    // zeros.
    assert!(
        value["timespans"][0]["verify"].is_null(),
        "{}",
        value["timespans"][0]["verify"]
    );
}

/// Pacing on a real clock: the long-run rate is exact. (Smoothness per interval is checked on the
/// fake clock, in tests/golden.rs: a loaded machine may delay any one interval's I/O.)
#[test]
fn pacing_is_exact_over_the_run() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let output = iospd()
        .args([
            "-c16M", "-d3", "-W0", "-b4K", "-o4", "-r", "-L", "-g2000i", "-D100", "-Rjson", &target,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let measured = &report["timespans"][0]["measured"];
    let rows = measured["timeline"].as_array().unwrap();
    assert_eq!(rows.len(), 30);
    let rate = measured["totals"]["total"]["ios_per_s"].as_f64().unwrap();
    assert!((rate - 2000.0).abs() <= 20.0, "long-run rate {rate}");
    let total = &measured["totals"]["total"];
    assert!(total["latency_from_intended"]["count"].as_u64() == total["latency"]["count"].as_u64());
}

/// `--rate-process=poisson`: the same mean rate, its I/Os at exponential gaps, so the count per
/// interval varies as a Poisson count does (variance about its mean; an even pacer's barely does).
#[test]
fn poisson_pacing_keeps_the_rate_and_varies_the_gaps() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let output = iospd()
        .args([
            "-c16M",
            "-d3",
            "-W0",
            "-b4K",
            "-o8",
            "-r",
            "-g1000i",
            "--rate-process=poisson",
            "-D100",
            "-Rjson",
            &target,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    crate::util::validate_json(&stdout(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report["profile"]["timespans"][0]["targets"][0]["poisson"],
        true
    );
    let measured = &report["timespans"][0]["measured"];
    let rate = measured["totals"]["total"]["ios_per_s"].as_f64().unwrap();
    // 3,000 arrivals expected: their count's deviation is about 55 (1.8 %).
    assert!((rate - 1000.0).abs() <= 100.0, "long-run rate {rate}");
    let counts: Vec<f64> = measured["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["all"]["total"]["ios"].as_f64().unwrap())
        .collect();
    let mean = counts.iter().sum::<f64>() / counts.len() as f64;
    let variance = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / counts.len() as f64;
    assert!(
        variance / mean > 0.4,
        "{counts:?}: dispersion {}",
        variance / mean
    );
    let echo = iospd()
        .args([
            "-c16M",
            "--ios=10",
            "-g1000i",
            "--rate-process=poisson",
            "-Rtext",
            &target,
        ])
        .output()
        .unwrap();
    assert!(
        stdout(&echo).contains("--rate-process=poisson:"),
        "{}",
        stdout(&echo)
    );
    // The profile keeps it: in the XML results (valid against doc/iospd.xsd) and read back.
    let xml = iospd()
        .args([
            "-c16M",
            "--ios=10",
            "-g1000i",
            "--rate-process=poisson",
            "-Rxml",
            &target,
        ])
        .output()
        .unwrap();
    assert_eq!(xml.status.code(), Some(0), "{}", stderr(&xml));
    let xml = stdout(&xml);
    assert!(xml.contains("<RateProcess>poisson</RateProcess>"), "{xml}");
    crate::util::validate_xml(
        &[("poisson", &xml)],
        "poisson_pacing_keeps_the_rate_and_varies_the_gaps",
    );
}

/// A long series (here 5,000 intervals of 1 ms) is kept on disk past what memory holds, and the
/// report gets every row back, in order, adding up to the totals.
#[test]
fn a_series_longer_than_memory_holds_comes_back_whole() {
    let dir = TempDir::new();
    let output = iospd()
        .args(["-c8M", "-d5", "-W0", "-b4K", "-o2", "-r", "-D1", "-Rjson"])
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let measured = &report["timespans"][0]["measured"];
    let rows = measured["timeline"].as_array().unwrap();
    assert_eq!(rows.len(), 5000);
    assert!(rows.len() > 2 * iospd::live::rows::IN_MEMORY);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["start_ms"].as_f64(), Some(i as f64), "row {i}");
    }
    let sum: u64 = rows
        .iter()
        .map(|r| r["all"]["total"]["ios"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, measured["totals"]["total"]["ios"].as_u64().unwrap());
}

/// Trims and flushes are in the live outputs as their own directions (CSV rows, interval-log tags)
/// and in a checkpoint's totals, not only in the final report.
#[test]
fn trims_and_flushes_are_in_the_live_series_and_the_checkpoints() {
    let dir = TempDir::new();
    let (csv, hlog) = (dir.arg("ts.csv"), dir.arg("h.hlog"));
    let ops = ["--trim=10", "--fsync=50"];
    let mut extra = vec!["-Rjson", "-L"];
    extra.extend(ops);
    let (csv_arg, hlog_arg) = (format!("--timeseries={csv}"), format!("--histlog={hlog}"));
    extra.extend([csv_arg.as_str(), hlog_arg.as_str()]);
    let output = observed_run(&dir, &extra);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let totals = &report["timespans"][0]["measured"]["totals"];
    let text = fs::read_to_string(&csv).unwrap();
    let in_csv = |direction: &str| -> u64 {
        text.lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|r| r[4] == "0" && r[6] == direction)
            .map(|r| r[7].parse::<u64>().unwrap())
            .sum()
    };
    for direction in ["trim", "flush", "write"] {
        let ios = totals[direction]["ios"].as_u64().unwrap();
        assert!(ios > 0, "{direction}: {totals}");
        assert_eq!(in_csv(direction), ios, "{direction}");
    }
    let log = fs::read_to_string(&hlog).unwrap();
    assert!(log.contains("Tag=t0-trim,") && log.contains("Tag=t0-flush,"));

    // A checkpoint's totals (made from the finished intervals) hold them too.
    let report = dir.arg("cp.json");
    let mut child = iospd()
        .args([
            "-c16M", "-d60", "-W0", "-b4K", "-o4", "-w100", "-L", "-D500",
        ])
        .args(ops)
        .args([
            "--checkpoint=1",
            &format!("--output={report}"),
            &dir.arg("t.dat"),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let checkpoint = || -> Option<serde_json::Value> {
        let value: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&report).ok()?).ok()?;
        value["timespans"][0]["measured"]["duration_s"].as_f64()?;
        Some(value)
    };
    while checkpoint().is_none() && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let value = checkpoint().expect("a checkpoint within 30 s");
    assert_eq!(value["partial"], true);
    let totals = &value["timespans"][0]["measured"]["totals"];
    for direction in ["trim", "flush"] {
        assert!(
            totals[direction]["ios"].as_u64() > Some(0),
            "{direction}: {totals}"
        );
    }
}

#[test]
fn the_slowest_ios_listed_are_the_slowest_the_trace_holds() {
    let dir = TempDir::new();
    let binary = dir.arg("run.trace");
    let output = observed_run(&dir, &["-Rjson", &format!("--trace={binary}")]);
    let json = stdout(&output);
    util::validate_json(&json);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let timespan = &report["timespans"][0];
    let slowest = timespan["measured"]["slowest"].as_array().unwrap();
    assert_eq!(slowest.len(), 10, "{slowest:?}");
    // (latency ns, completion ns, thread, direction, offset) of each.
    let listed: Vec<(u64, u64, u64, String, u64)> = slowest
        .iter()
        .map(|s| {
            assert_eq!(s["bytes"], 4096);
            assert!(s["path"].as_str().unwrap().ends_with("t.dat"));
            (
                s["latency_ns"].as_u64().unwrap(),
                (s["completed_s"].as_f64().unwrap() * 1e9).round() as u64,
                s["thread"].as_u64().unwrap(),
                s["op"].as_str().unwrap().to_string(),
                s["offset"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(listed.windows(2).all(|w| w[0].0 >= w[1].0), "slowest first");
    let dump = iospd().args(["trace-dump", &binary]).output().unwrap();
    assert_eq!(dump.status.code(), Some(0), "{}", stderr(&dump));
    let ns = |us: &str| (us.parse::<f64>().unwrap() * 1000.0).round() as u64;
    let mut traced: Vec<(u64, u64, u64, String, u64)> = stdout(&dump)
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                ns(f[7]),
                ns(f[1]),
                f[2].parse().unwrap(),
                f[4].to_string(),
                f[5].parse().unwrap(),
            )
        })
        .collect();
    for io in &listed {
        assert!(traced.contains(io), "{io:?} is not in the trace");
    }
    if timespan["trace"]["dropped"].as_u64() == Some(0) {
        traced.sort_by_key(|t| std::cmp::Reverse(t.0));
        let top: Vec<u64> = traced.iter().take(10).map(|t| t.0).collect();
        let got: Vec<u64> = listed.iter().map(|t| t.0).collect();
        assert_eq!(got, top, "the ten longest latencies of the trace");
    } else {
        eprintln!("the trace dropped records: only that each listed I/O is in it was checked");
    }
    let text = iospd()
        .args([
            "-c32M",
            "-d1",
            "-W0",
            "-b4K",
            "-o4",
            "-r",
            &dir.arg("t.dat"),
        ])
        .output()
        .unwrap();
    assert!(
        stdout(&text).contains("slowest I/Os of the measured window ("),
        "{}",
        stdout(&text)
    );
}

/// `-j<n>us`: a think time under a millisecond (fio's `thinktime` is in microseconds). Each I/O
/// waits 500 µs after the one before completes, so 200 of them, one at a time, cannot take less
/// than 199 pauses however fast the machine; the results say `think_ms` 0.5 and validate.
#[test]
fn think_time_in_microseconds_holds_each_burst_back() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let output = iospd()
        .args([
            "-c1M",
            "--ios=200",
            "-W0",
            "-b4K",
            "-o1",
            "-t1",
            "-r",
            "-i1",
            "-j500us",
            "-Rjson",
            &target,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    crate::util::validate_json(&stdout(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let burst = &report["profile"]["timespans"][0]["targets"][0]["burst"];
    assert_eq!(burst["think_ms"].as_f64(), Some(0.5), "{burst}");
    let measured = &report["timespans"][0]["measured"];
    assert_eq!(measured["totals"]["total"]["ios"].as_u64(), Some(200));
    let seconds = measured["duration_s"].as_f64().unwrap();
    assert!(seconds >= 199.0 * 500e-6, "{seconds} s for 200 I/Os");
}
