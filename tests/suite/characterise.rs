//! Characterising a device: `--repeat` and the statistics of its repetitions.

use crate::util::{TempDir, iospd, stderr, stdout, validate_json, validate_xml};
use iospd::report::Report;

#[test]
fn repeat_runs_the_timespans_again_and_reports_their_agreement() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let base = [
        "-c16M",
        "-d1",
        "-W0",
        "-b4K",
        "-o4",
        "-r",
        "-L",
        "--repeat=3",
    ];
    let json = iospd()
        .args(base)
        .arg("-Rjson")
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    validate_json(&stdout(&json));
    let report: Report = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(report.timespans.len(), 3);
    let reps = report.repetitions.as_ref().expect("a repetitions section");
    assert_eq!(reps.repeat, 3);
    let group = &reps.groups[0];
    assert_eq!(group.runs, [1, 2, 3]);
    let rates: Vec<f64> = report
        .timespans
        .iter()
        .map(|t| t.measured.as_ref().unwrap().totals.total.ios_per_s)
        .collect();
    assert_eq!(group.ios_per_s, rates);
    let mean = rates.iter().sum::<f64>() / 3.0;
    assert!((group.iops.mean - mean).abs() < 1e-6 * mean);
    // Student's t with 2 degrees of freedom: 4.303 × s / √3.
    let s = (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    assert!((group.iops.ci95_half_width - 4.303 * s / 3f64.sqrt()).abs() < 1e-6 * mean);
    assert_eq!(
        group.unstable,
        group.iops.ci95_half_width > 0.05 * group.iops.mean
    );
    let p99 = group.p99_latency.expect("latency was measured");
    assert_eq!(p99.n, 3);
    assert!(group.steady_state.is_none(), "five runs are needed");

    let html = dir.join("r.html");
    let text = iospd()
        .args(&base[1..])
        .arg(&target)
        .arg(format!("--output={}", html.display()))
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let text = stdout(&text);
    // The HTML report shows the answer of a repeated run at the top, not only inside the
    // collapsed text: the mean with its interval, the verdict, the steady state; and each
    // timespan's achieved queue depth.
    let page = std::fs::read_to_string(&html).unwrap();
    let top = &page[..page.find("<h2>System").unwrap_or(page.len())];
    assert!(
        top.contains("<h2>Repetitions: each timespan × 3</h2>"),
        "{top}"
    );
    assert!(
        top.contains("(95% CI)") && top.contains("steady state (SNIA PTS"),
        "{top}"
    );
    assert!(
        page.contains("queue depth ") && page.contains(" achieved of 4 "),
        "{page}"
    );
    assert!(
        text.contains("Repetitions (3 runs of each timespan):"),
        "{text}"
    );
    assert!(text.contains("verdict: "));
    assert!(text.contains("Results for timespan 3:"));
    // "Input parameters" lists the repeated timespan once, as given; iospd's own section says
    // which given timespan each result repeats.
    let parameters = &text[..text.find("System information:").unwrap()];
    assert!(
        parameters.contains("  timespan:   1\n") && !parameters.contains("timespan:   2"),
        "{parameters}"
    );
    let beyond = &text[text.find("Beyond DiskSpd:").unwrap()..];
    assert!(
        beyond.contains(
            "  timespan:   3\n  -------------\n    --repeat: run 3 of 3 of timespan 1 as given\n"
        ),
        "{beyond}"
    );
    assert_eq!(
        parameters.matches("  timespan: ").count(),
        1,
        "{parameters}"
    );
    let xml = iospd()
        .args(&base[1..])
        .arg("-Rxml")
        .arg(&target)
        .output()
        .unwrap();
    let xml = stdout(&xml);
    assert!(xml.contains("<Repetitions Repeat=\"3\">"));
    validate_xml(
        &[("repeat", &xml)],
        "repeat_runs_the_timespans_again_and_reports_their_agreement",
    );
}

#[test]
fn repeat_takes_a_count() {
    for (value, says) in [
        ("0", "--repeat=5"),
        ("x", "not a whole number"),
        ("", "expects a count"),
    ] {
        let output = iospd()
            .arg(format!("--repeat={value}"))
            .arg("t.dat")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{value}");
        assert!(
            stderr(&output).contains(says),
            "{value}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_sweep_runs_every_point_on_one_target_and_reports_each_in_full() {
    let dir = TempDir::new();
    let (csv, json) = (dir.arg("s.csv"), dir.arg("s.json"));
    let output = iospd()
        .args([
            "sweep", "-c16M", "-o1,4", "-t1,2", "-b4K", "-r", "-L", "-d1", "-W0",
        ])
        .arg(format!("--output={csv}"))
        .arg(format!("--output={json}"))
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("\nSweep: "), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains(" | ")).count(),
        5,
        "{text}"
    );
    assert!(text.contains("knee of -t1: ") && text.contains("knee of -t2: "));
    let written = std::fs::read_to_string(&json).unwrap();
    validate_json(&written);
    let report: Report = serde_json::from_str(&written).unwrap();
    let sweep = report.sweep.as_ref().expect("a sweep section");
    assert_eq!(sweep.axes, ["-t", "-o"]);
    assert_eq!(report.timespans.len(), 4);
    for (point, ts) in sweep.points.iter().zip(&report.timespans) {
        let m = ts.measured.as_ref().unwrap();
        assert_eq!(point.ios_per_s, m.totals.total.ios_per_s);
        assert_eq!(m.threads.len(), point.values[0].parse::<usize>().unwrap());
    }
    // Each point is a whole report: `iospd report` gives back the same document.
    let again = iospd().args(["report", &json, "-Rjson"]).output().unwrap();
    assert_eq!(stdout(&again), written);
    let rows = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = rows.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("timespan,t,o,measured,ios_per_s"));
    assert!(lines[1].starts_with("1,1,1,true,"));
    assert!(lines[4].starts_with("4,2,4,true,"));
}

/// Starts a four-point sweep of 3 s points writing its JSON to `json`, lets `stop` act on it
/// 4 s after its target exists (inside the second point), and returns its exit status, stderr
/// and stdout.
fn sweep_stopped_midway(
    dir: &TempDir,
    json: &str,
    stop: impl FnOnce(u32),
) -> (Option<i32>, String, String) {
    let child = iospd()
        .args([
            "sweep",
            "-c16M",
            "-o1,2,4,8",
            "-b4K",
            "-r",
            "-L",
            "-d3",
            "-W0",
        ])
        .arg(format!("--output={json}"))
        .arg(dir.arg("t.dat"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // On a loaded machine the start alone can take seconds.
    let created = std::time::Instant::now();
    while !dir.join("t.dat").exists() && created.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_secs(4));
    stop(child.id());
    let output = child.wait_with_output().unwrap();
    (output.status.code(), stderr(&output), stdout(&output))
}

/// What a sweep stopped midway must leave: exit `expected`, the finished points in the report it
/// wrote, the point cut short named, and the points after it marked as not run.
fn assert_kept_finished_points(
    code: Option<i32>,
    expected: i32,
    err: &str,
    text: &str,
    json: &str,
) {
    assert_eq!(code, Some(expected), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("the sweep stopped at point "), "{err}");
    assert!(
        text.contains("not run (the sweep stopped before it)"),
        "{text}"
    );
    let written = std::fs::read_to_string(json).unwrap();
    validate_json(&written);
    let report: Report = serde_json::from_str(&written).unwrap();
    let sweep = report.sweep.as_ref().unwrap();
    assert_eq!(sweep.points.len(), 4);
    let cut = sweep.cut_short().expect("a point cut short");
    assert!(cut.timespan < 4, "{cut:?}");
    assert!(!sweep.points[3].measured && sweep.points[3].cut_short);
    let finished = sweep.points.iter().filter(|p| p.finished()).count();
    assert_eq!(finished, cut.timespan - 1);
    assert!(
        err.contains(&format!("{finished} of 4 points finished")),
        "{err}"
    );
    for p in &sweep.points[..finished] {
        assert!(p.ios_per_s > 0.0, "{p:?}");
    }
}

#[test]
fn a_sweep_stopped_by_a_signal_keeps_its_finished_points_and_names_the_one_cut_short() {
    let dir = TempDir::new();
    let json = dir.arg("s.json");
    let (code, err, text) = sweep_stopped_midway(&dir, &json, |pid| {
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(pid as i32, libc::SIGINT) };
    });
    // 128 + SIGINT, as for a single run cut short.
    assert_kept_finished_points(code, 130, &err, &text, &json);
}

#[test]
fn a_sweep_whose_target_is_removed_keeps_its_finished_points() {
    let dir = TempDir::new();
    let json = dir.arg("s.json");
    let (code, err, text) = sweep_stopped_midway(&dir, &json, |_| {
        std::fs::remove_file(dir.join("t.dat")).unwrap();
    });
    assert!(err.contains("was removed during the run"), "{err}");
    assert_kept_finished_points(code, 1, &err, &text, &json);
}

#[test]
fn a_repeated_sweep_reports_each_point_as_the_mean_of_its_runs_with_pauses_between() {
    let dir = TempDir::new();
    let json = dir.arg("r.json");
    let output = iospd()
        .args([
            "sweep",
            "-c16M",
            "-o1,4",
            "-b4K",
            "-r",
            "-L",
            "-d1",
            "-W0",
            "--repeat=2",
            "--pause=1",
        ])
        .arg(format!("--output={json}"))
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("±95% CI") && text.contains("Repetitions"),
        "{text}"
    );
    let written = std::fs::read_to_string(&json).unwrap();
    validate_json(&written);
    let report: Report = serde_json::from_str(&written).unwrap();
    // The whole sweep runs twice over: -o1, -o4, -o1, -o4.
    assert_eq!(report.timespans.len(), 4);
    let sweep = report.sweep.as_ref().unwrap();
    assert_eq!(sweep.points.len(), 2);
    for (k, point) in sweep.points.iter().enumerate() {
        assert_eq!(point.runs, [k + 1, k + 3]);
        let each: Vec<f64> = point
            .runs
            .iter()
            .map(|&i| {
                let m = report.timespans[i - 1].measured.as_ref().unwrap();
                m.totals.total.ios_per_s
            })
            .collect();
        assert!((point.ios_per_s - (each[0] + each[1]) / 2.0).abs() < 1e-6);
        // Two runs: t(0.975, 1) = 12.706 times the standard error.
        let half = 12.706 * (each[0] - each[1]).abs() / 2f64.sqrt() / 2f64.sqrt();
        let ci = point.ios_per_s_ci95.unwrap();
        assert!((ci - half).abs() <= 1e-3 * half.max(1.0), "{ci} vs {half}");
    }
    let groups = &report.repetitions.as_ref().unwrap().groups;
    assert_eq!(groups.len(), 2);
    // --pause=1: each timespan starts at least its 1 s and the pause after the one before.
    for pair in report.timespans.windows(2) {
        let gap = pair[1].start_unix_s - pair[0].start_unix_s;
        assert!(gap >= 1.95, "{gap}");
    }
}

#[test]
fn a_sweep_without_a_list_is_refused_with_an_example() {
    let dir = TempDir::new();
    let output = iospd()
        .args(["sweep", "-c16M", "-o32", "-b4K"])
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("iospd sweep -o1,2,4"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("t.dat").exists());
}

#[test]
fn compare_of_repeated_runs_gives_the_change_with_its_interval() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let run = |name: &str, extra: &[&str]| {
        let output = iospd()
            .args([
                "-c16M",
                "-d1",
                "-W0",
                "-b4K",
                "-r",
                "-L",
                "--repeat=3",
                "-Rjson",
            ])
            .args(extra)
            .arg(&target)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let path = dir.join(name);
        std::fs::write(&path, output.stdout).unwrap();
        path.display().to_string()
    };
    // The unpaced device, then a run paced at a quarter of its slowest repetition: slower
    // however busy the machine is (a cap is an upper bound; a stall only lowers it further).
    let fast = run("fast.json", &["-o4"]);
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fast).unwrap()).unwrap();
    let slowest = recorded["timespans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["measured"]["totals"]["total"]["ios_per_s"]
                .as_f64()
                .unwrap()
        })
        .fold(f64::INFINITY, f64::min);
    let cap = format!("-g{}i", ((slowest / 4.0) as u64).max(1));
    let slow = run("slow.json", &["-o1", &cap]);
    let compared = iospd().args(["compare", &slow, &fast]).output().unwrap();
    assert_eq!(compared.status.code(), Some(0), "{}", stderr(&compared));
    let text = stdout(&compared);
    // The means first, then each repetition's own table; latencies carry their unit.
    let means = text.find("repeated runs (--repeat)").expect("the means");
    let each = text
        .find("each repetition on its own")
        .expect("the repetitions");
    let first_table = text.find("\ntimespan 1:").expect("a table");
    assert!(means < each && each < first_table, "{text}");
    let p99 = text
        .lines()
        .find(|l| l.contains("p99 latency"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        p99.contains("µs (") || p99.contains("ms ("),
        "a unit on each mean: {p99}"
    );
    let iops = text
        .lines()
        .find(|l| l.contains("| IOPS") || l.trim_start().starts_with("1        IOPS"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(iops.ends_with("| faster"), "{iops}");
    let same = iospd().args(["compare", &fast, &fast]).output().unwrap();
    let same = stdout(&same);
    let lines: Vec<&str> = same
        .lines()
        .skip_while(|l| !l.contains("repeated runs"))
        .take_while(|l| !l.contains("each repetition on its own"))
        .filter(|l| l.contains(" | "))
        .skip(1)
        .collect();
    assert!(!lines.is_empty(), "{same}");
    assert!(
        lines.iter().all(|l| l.ends_with("no detectable change")),
        "{same}"
    );
}

#[test]
fn a_preset_prints_command_lines_that_run_unchanged() {
    let dir = TempDir::new();
    let target = dir.arg("p.dat");
    let output = iospd()
        .args([
            "preset",
            "cdm",
            &target,
            "--size=8M",
            "--seconds=1",
            "--runs=2",
            "--pause=0",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("iospd -"))
        .collect();
    assert_eq!(lines.len(), 8, "{text}");
    for name in ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"] {
        let row = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            row.matches('(').count(),
            2,
            "a read and a write cell: {row}"
        );
    }
    // One random-filled file (CrystalDiskMark's data is random too) serves every test: whole and
    // marked so, which is what lets each test reuse it rather than write it again.
    let file = std::fs::File::open(&target).unwrap();
    assert_eq!(
        iospd::safety::marker::completed(&file).unwrap(),
        Some((8 << 20, "random".to_string()))
    );
    // The last printed line (random 4K writes), run by hand, is the same test.
    let line = format!("-{}", lines[7]);
    let again = iospd().args(line.split(' ')).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let report: Report = serde_json::from_str(&stdout(&again)).unwrap();
    assert_eq!(report.timespans.len(), 2);
    let target0 = &report.profile.timespans[0].targets[0];
    assert_eq!((target0.block_size, target0.write_ratio), (4096, 100));
    assert!(report.profile.timespans[0].random_write_data);

    let unknown = iospd().args(["preset", "nope", &target]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(3));
    assert!(stderr(&unknown).contains("presets: cdm, cdm-nvme, iops, latency, oltp, olap, hci"));
}

#[test]
fn an_slo_search_brackets_the_highest_rate_that_meets_the_target() {
    let dir = TempDir::new();
    let target = dir.arg("slo.dat");
    let output = iospd()
        .args([
            "sweep",
            "--slo=p99:50ms",
            "-c16M",
            "-d1",
            "-W0",
            "-b4K",
            "-r",
            "-F2",
        ])
        .arg(format!("--output={}", dir.arg("slo.json")))
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    // The file holds the same search: the ramp, every step with its command lines, the answer.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("slo.json")).unwrap()).unwrap();
    let steps = saved["steps"].as_array().unwrap();
    assert!(!saved["ramp"].as_array().unwrap().is_empty());
    assert!(
        steps
            .iter()
            .all(|s| !s["commands"].as_array().unwrap().is_empty())
    );
    // The -F pool's two threads are counted: each step's rate is two threads' pacing.
    for step in steps {
        let command = step["commands"][0].as_str().unwrap();
        let per_thread: f64 = command
            .split(' ')
            .find_map(|a| a.strip_prefix("-g")?.strip_suffix('i'))
            .and_then(|g| g.parse().ok())
            .unwrap_or_else(|| panic!("{command}"));
        assert_eq!(
            step["target_ios_per_s"].as_f64(),
            Some(2.0 * per_thread),
            "{step}"
        );
    }
    let best = &steps[saved["answer"].as_u64().expect("an answer") as usize];
    assert_eq!(best["pass"], true);
    assert!(text.contains(&format!(
        "answer: {:.2} I/O per s",
        best["achieved_ios_per_s"].as_f64().unwrap()
    )));
    let saturation: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("saturation: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    let answer = text
        .lines()
        .find_map(|l| l.strip_prefix("answer: "))
        .unwrap_or_else(|| panic!("{text}"));
    // A 50 ms p99 is far above this file's latency: the answer is a rate the file sustains,
    // within the bracket's 2 % of the top of the search (105 % of saturation) or limited by
    // the rate a paced step achieved.
    let rate: f64 = answer.split(' ').next().unwrap().parse().unwrap();
    assert!(rate > 0.0 && rate <= saturation * 1.06, "{answer}");
    // Every step is printed as a plain command line that runs as it is.
    let step = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("$ iospd "))
        .unwrap_or_else(|| panic!("{text}"));
    let again = iospd().args(step.split(' ')).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));

    for bad in ["--slo=p99", "--slo=p99:2", "--slo=p101:1ms"] {
        let refused = iospd()
            .args(["sweep", bad, "-d1"])
            .arg(&target)
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(3), "{bad}");
        assert!(
            stderr(&refused).contains("--slo=p99:2ms"),
            "{bad}: {}",
            stderr(&refused)
        );
    }
}
