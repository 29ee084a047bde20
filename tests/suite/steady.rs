//! `--steady-state`: a timespan ends once its throughput has held steady over a window of
//! one-second samples (fio's `ss`); the report says whether, when, and over which samples.

use serde_json::Value;

use crate::util::{TempDir, iospd, stderr, stdout};

/// Runs iospd with `args` on a 16 MiB file in `dir`; expects success.
fn run(dir: &TempDir, args: &[&str]) -> std::process::Output {
    let target = dir.arg("t.dat");
    let output = iospd()
        .args(["-c16M", "-W0", "-b4K", "-o2", "-r"])
        .args(args)
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        stderr(&output)
    );
    output
}

#[test]
fn a_paced_run_ends_once_its_window_is_steady_and_says_so_in_every_format() {
    let dir = TempDir::new();
    // 500 I/Os a second, a limit of 25 % over 3 s: met within seconds on any machine, and the
    // 60 s limit is only the bound if the machine stalls for all of it.
    let rule = "--steady-state=iops:25%:3s";
    let output = run(&dir, &["-d60", "-g500i", "-Rjson", rule]);
    let text = stdout(&output);
    crate::util::validate_json(&text);
    let report: Value = serde_json::from_str(&text).unwrap();
    let ts = &report["timespans"][0];
    assert_eq!(ts["interrupted"], false, "{ts}");
    assert!(ts.get("stopped_by").is_none(), "{ts}");
    let stop = &ts["steady_stop"];
    assert_eq!(stop["attained"], true, "{stop}");
    let at = stop["attained_at_s"].as_u64().unwrap();
    assert!((3..60).contains(&at), "{stop}");
    // The window ended where the rule was met: the measured time is its seconds (and the moment
    // the main thread saw it), far short of -d60.
    let seconds = ts["measured"]["duration_s"].as_f64().unwrap();
    assert!(
        seconds >= at as f64 && seconds < at as f64 + 2.0,
        "{seconds} s, met at {at}"
    );
    // The criterion is the window's largest deviation from its mean, a percentage of the mean.
    let samples: Vec<f64> = stop["iops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(samples.len(), 3, "{stop}");
    let mean = samples.iter().sum::<f64>() / 3.0;
    let deviation = samples.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
    let criterion = stop["criterion"].as_f64().unwrap();
    assert!(
        (criterion - 100.0 * deviation / mean).abs() < 1e-6,
        "{stop}"
    );
    assert!(criterion < 25.0, "{stop}");
    let bw: Vec<u64> = stop["bw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(
        bw,
        samples.iter().map(|&s| s as u64 * 4096).collect::<Vec<_>>()
    );
    // The text and the XML say it too; the XML validates.
    let report_path = dir.join("r.json");
    std::fs::write(&report_path, &text).unwrap();
    let shown = iospd()
        .args(["report", report_path.to_str().unwrap()])
        .output()
        .unwrap();
    let shown = stdout(&shown);
    assert!(
        shown.contains(&format!("reached after {at}s of the measured window")),
        "{shown}"
    );
    let xml = iospd()
        .args(["report", report_path.to_str().unwrap(), "-Rxml"])
        .output()
        .unwrap();
    let xml = stdout(&xml);
    assert!(
        xml.contains(&format!(
            "<SteadyStop Rule=\"iops:25%:3s\" Attained=\"true\" AttainedAtSeconds=\"{at}\""
        )),
        "{xml}"
    );
    crate::util::validate_xml(
        &[("results.xml", &xml)],
        "a_paced_run_ends_once_its_window_is_steady_and_says_so_in_every_format",
    );
}

#[test]
fn a_rule_that_cannot_be_judged_lets_the_run_go_to_its_end_and_says_why() {
    let dir = TempDir::new();
    // Samples count only after 10 s, and the run lasts 2.
    let output = run(
        &dir,
        &["-d2", "-Rjson", "--steady-state=bw_slope:1%:2s:10s"],
    );
    assert!(
        stderr(&output)
            .contains("needs 12s before it can judge a window, and the timespan lasts 2s"),
        "{}",
        stderr(&output)
    );
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let ts = &report["timespans"][0];
    let stop = &ts["steady_stop"];
    assert_eq!(stop["attained"], false, "{stop}");
    assert!(
        stop["criterion"].is_null() && stop["iops"] == serde_json::json!([]),
        "{stop}"
    );
    let seconds = ts["measured"]["duration_s"].as_f64().unwrap();
    assert!((seconds - 2.0).abs() < 0.05, "{seconds}");
}

#[test]
fn bad_rules_are_refused_in_one_line_before_anything_is_written() {
    let dir = TempDir::new();
    let target = dir.arg("never.dat");
    for (rule, says) in [
        ("--steady-state=iops:10", "is not <iops|bw>[_slope]"),
        ("--steady-state=latency:10%:3s", "criterion 'latency'"),
        ("--steady-state=iops_slope:1%:1s", "at least 2s"),
        ("--steady-state=iops:-5%:3s", "above 0"),
    ] {
        let output = iospd().args(["-c1M", rule, &target]).output().unwrap();
        assert_eq!(output.status.code(), Some(3), "{rule}");
        assert!(
            stderr(&output).contains(says) && stderr(&output).lines().count() == 1,
            "{rule}: {}",
            stderr(&output)
        );
    }
    let output = iospd()
        .args(["-c1M", "-D300", "--steady-state=iops:10%:3s", &target])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("do not divide a second"));
    assert!(!dir.join("never.dat").exists());
}
