//! iospd's own subcommands on real results: `report` renders any JSON result again, `merge`
//! combines runs exactly, `compare` tells a change from noise.

use crate::util;
use std::fs;

use crate::util::{TempDir, iospd, stderr, stdout};
use iospd::commands::report::load;
use iospd::report::Report;
use iospd::stats::histogram::LatencyHistogram;

/// A 2-second 4 KiB random read run with latency and 250 ms intervals, saved as JSON.
fn run(dir: &TempDir, name: &str, extra: &[&str]) -> std::path::PathBuf {
    let target = dir.arg("t.dat");
    let create = if dir.join("t.dat").exists() {
        None
    } else {
        Some("-c32M")
    };
    let mut args: Vec<&str> = create.into_iter().collect();
    args.extend(["-d2", "-W0", "-b4K", "-o4", "-r", "-L", "-D250", "-Rjson"]);
    args.extend_from_slice(extra);
    args.push(&target);
    let output = iospd().args(&args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let path = dir.join(name);
    fs::write(&path, output.stdout).unwrap();
    path
}

fn measured(report: &Report) -> &iospd::report::Measured {
    report.timespans[0].measured.as_ref().unwrap()
}

#[test]
fn report_renders_a_json_result_again_exactly() {
    let golden = "tests/golden/results.json";
    let json = iospd().args(["report", golden, "-Rjson"]).output().unwrap();
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    assert_eq!(stdout(&json), fs::read_to_string(golden).unwrap());
    let xml = iospd().args(["report", golden, "-Rxml"]).output().unwrap();
    let expected = fs::read_to_string("tests/golden/results.xml")
        .unwrap()
        .replace("DIR/", "&lt;dir&gt;/");
    assert_eq!(stdout(&xml), expected);
    let text = iospd().args(["report", golden]).output().unwrap();
    assert!(stdout(&text).contains("Total latency distribution:"));
    let bad = iospd().args(["report", "Cargo.toml"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(3));
    assert!(stderr(&bad).contains("it is not JSON"), "{}", stderr(&bad));
}

#[test]
fn merge_adds_counts_and_merges_histograms_exactly() {
    let dir = TempDir::new();
    let a = run(&dir, "a.json", &[]);
    let b = run(&dir, "b.json", &["-w30"]);
    let merged_path = dir.join("m.json");
    // A 0 % and a 30 % write run are different workloads: refused unless asked for.
    let refused = iospd()
        .args(["merge", a.to_str().unwrap(), b.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(3));
    assert!(stderr(&refused).contains("another workload") && stderr(&refused).contains("-w30"));
    let output = iospd()
        .args([
            "merge",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--allow-mixed",
        ])
        .arg(format!("--output={}", merged_path.display()))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("2 runs one after another: counts added over the sum"),
        "merge says how the runs relate: {}",
        stderr(&output)
    );
    util::validate_json(&fs::read_to_string(&merged_path).unwrap());
    let (ra, rb, m) = (
        load(&a).unwrap(),
        load(&b).unwrap(),
        load(&merged_path).unwrap(),
    );
    let (ma, mb, mm) = (measured(&ra), measured(&rb), measured(&m));
    assert_eq!(
        mm.totals.total.ios,
        ma.totals.total.ios + mb.totals.total.ios
    );
    // Each thread's rate is over its own run's window, not the merged one.
    for (merged, own) in mm.threads.iter().zip(ma.threads.iter().chain(&mb.threads)) {
        let (x, y) = (
            merged.targets[0].directions.total.ios_per_s,
            own.targets[0].directions.total.ios_per_s,
        );
        assert!((x - y).abs() <= 1e-6 * y.max(1.0), "{x} vs {y}");
    }
    // Back to back, one thread each: the depth is one run's, not the sum.
    assert_eq!(mm.depth, ma.depth);
    assert_eq!(
        mm.totals.write.bytes,
        ma.totals.write.bytes + mb.totals.write.bytes
    );
    // One run after the other: the windows add up.
    assert!((mm.duration_s - (ma.duration_s + mb.duration_s)).abs() < 1e-9);
    assert_eq!(mm.threads.len(), 2);
    assert_eq!(
        mm.timeline.len(),
        ma.timeline.len() + mb.timeline.len(),
        "time series concatenated"
    );
    assert!(
        mm.timeline
            .windows(2)
            .all(|w| w[0].start_ms < w[1].start_ms)
    );
    // The merged percentiles are those of every I/O of both runs together.
    let mut all = LatencyHistogram::new();
    for m in [ma, mb] {
        all.merge(
            &m.totals
                .total
                .latency
                .as_ref()
                .unwrap()
                .histogram()
                .unwrap(),
        );
    }
    let latency = mm.totals.total.latency.as_ref().unwrap();
    let ps: Vec<f64> = latency
        .percentiles
        .iter()
        .map(|p| p.percentile / 100.0)
        .collect();
    let expected = all.percentiles(&ps);
    let got: Vec<u64> = latency.percentiles.iter().map(|p| p.value_ns).collect();
    assert_eq!(got, expected);
    assert_eq!(latency.count, all.count());
    assert_eq!((latency.min_ns, latency.max_ns), (all.min(), all.max()));
    assert_eq!(latency.mean_ns, all.mean());
    // Rendering the merged result works in every format.
    let text = iospd()
        .args(["report", merged_path.to_str().unwrap(), "-Rtext"])
        .output()
        .unwrap();
    // One run after the other: one thread at a time, and every input's command line is listed.
    assert!(
        stdout(&text).contains("thread count:\t\t1"),
        "{}",
        stdout(&text)
    );
    assert!(
        stdout(&text).contains("--allow-mixed of ") && stdout(&text).contains("-w30"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn merging_runs_that_overlap_shares_the_window_and_adds_the_rates() {
    let dir = TempDir::new();
    let a = run(&dir, "a.json", &[]);
    let a = a.to_str().unwrap();
    // The same run twice would count its I/Os twice.
    let twice = iospd().args(["merge", a, a]).output().unwrap();
    assert_eq!(twice.status.code(), Some(3));
    assert!(
        stderr(&twice).contains("is the same run as"),
        "{}",
        stderr(&twice)
    );
    // The same measurement from another host, at the same time: the windows overlap.
    let mut other: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(a).unwrap()).unwrap();
    other["system"]["computer_name"] = "another-host".into();
    let b = dir.arg("b.json");
    fs::write(&b, other.to_string()).unwrap();
    let output = iospd().args(["merge", a, &b]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("2 runs at the same time: rates, threads and queue depths added"),
        "{}",
        stderr(&output)
    );
    let merged: Report = serde_json::from_str(&stdout(&output)).unwrap();
    let one = load(std::path::Path::new(a)).unwrap();
    let (m1, mm) = (measured(&one), measured(&merged));
    assert_eq!(mm.duration_s, m1.duration_s, "the same window");
    assert_eq!(mm.totals.total.ios, 2 * m1.totals.total.ios);
    assert!((mm.totals.total.ios_per_s - 2.0 * m1.totals.total.ios_per_s).abs() < 1e-6);
    let one_file = iospd().args(["merge", a]).output().unwrap();
    assert_eq!(one_file.status.code(), Some(3));
    assert!(stderr(&one_file).contains("at least two"));
}

#[test]
fn compare_separates_a_real_change_from_noise() {
    let dir = TempDir::new();
    let a = run(&dir, "a.json", &[]);
    // The cap is a quarter of what this machine did just now, so the second run is slower
    // however busy the machine is (a cap is an upper bound; a stall only lowers it further).
    let base_iops = measured(&load(&a).unwrap()).totals.total.ios_per_s;
    let cap = ((base_iops / 4.0) as u64).max(1);
    let cap_flag = format!("-g{cap}i");
    let throttled = run(&dir, "slow.json", &[&cap_flag]);
    let same = iospd()
        .args(["compare", a.to_str().unwrap(), a.to_str().unwrap()])
        .output()
        .unwrap();
    let text = stdout(&same);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    let iops = text.lines().find(|l| l.contains("read  IOPS")).unwrap();
    assert!(
        iops.contains("+0.00%") && iops.ends_with("within noise"),
        "{iops}"
    );
    let slower = iospd()
        .args(["compare", a.to_str().unwrap(), throttled.to_str().unwrap()])
        .output()
        .unwrap();
    let text = stdout(&slower);
    assert!(
        text.starts_with("WARNING: the runs ran different workloads") && text.contains(&cap_flag),
        "{text}"
    );
    // Never noise. Whether it is told from an unsteady base run is the business of the recorded
    // runs (`verdicts`): on a busy machine a live run of 2 s may stall.
    let iops = text.lines().find(|l| l.contains("read  IOPS")).unwrap();
    assert!(
        iops.ends_with("lower") || iops.ends_with("unsteady: cannot tell"),
        "a cap at a quarter of {base_iops} IOPS is a real change: {iops}"
    );
    // The cap held. (How near the cap the run came is the machine's; the pacing's own exactness
    // is observe::pacing_is_exact_over_the_run's.)
    let new_value: f64 = iops.split('|').nth(2).unwrap().trim().parse().unwrap();
    assert!(
        0.0 < new_value && new_value <= cap as f64 * 1.05,
        "cap {cap}: {iops}"
    );
}

/// `--noise-from` takes the floors from repetitions of the same workload: each printed floor is
/// e^(t(0.995, n − 1) · √2 · the repetitions' coefficient of variation) − 1; a file without repetitions,
/// repetitions of another workload, or no file at all are refused with nothing printed.
#[test]
fn compare_takes_its_floors_from_repetitions_of_the_workload() {
    let dir = TempDir::new();
    let a = run(&dir, "a.json", &[]);
    let b = run(&dir, "b.json", &[]);
    let cal = run(&dir, "cal.json", &["--repeat=3"]);
    let noise_from = format!("--noise-from={}", cal.display());
    let output = iospd()
        .args([
            "compare",
            &noise_from,
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("floor: measured from the 3 repetitions in"),
        "{text}"
    );
    let repetitions = load(&cal).unwrap().repetitions.unwrap();
    let iops = &repetitions.groups[0].iops;
    let expected = ((9.925 * 2f64.sqrt() * iops.stddev / iops.mean).exp() - 1.0) * 100.0;
    let line = text.lines().find(|l| l.contains("total IOPS")).unwrap();
    let floor: f64 = line
        .split('|')
        .nth(4)
        .unwrap()
        .trim()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(
        (floor - expected).abs() < 0.01,
        "{line}: expected {expected:.2}"
    );
    // Without the option: iospd's defaults, and the footer says how to measure this machine's.
    let default = iospd()
        .args(["compare", a.to_str().unwrap(), b.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(stdout(&default).contains("--repeat=10 --output=cal.json"));
    let refusals = [
        (
            format!("--noise-from={}", a.display()),
            "holds no repetitions",
        ),
        ("--noise-from=".to_string(), "--noise-from needs a file"),
        (
            format!(
                "--noise-from={}",
                run(&dir, "calsh.json", &["--repeat=3", "-Sh"]).display()
            ),
            "ran another workload",
        ),
    ];
    for (option, why) in refusals {
        let refused = iospd()
            .args(["compare", &option, a.to_str().unwrap(), b.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(3), "{option}");
        assert!(
            stderr(&refused).contains(why),
            "{option}: {}",
            stderr(&refused)
        );
        assert!(stdout(&refused).is_empty(), "{option}");
    }
}

/// Every numeric field of a result (the first elements of each list), set in turn to values no
/// run writes — the largest integer, a negative one, an absurd float, zero — is either refused
/// when read or merged and rendered in every format without a panic.
#[test]
fn hostile_numbers_in_a_result_are_refused_or_handled_never_a_panic() {
    let dir = TempDir::new();
    let path = run(&dir, "a.json", &["--engine=null", "-w30"]);
    let original: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let base: Report = serde_json::from_value(original.clone()).unwrap();
    let hostile = [
        serde_json::json!(u64::MAX),
        serde_json::json!(-1),
        serde_json::json!(1e300),
        serde_json::json!(0),
    ];
    // Paths to numeric leaves, keeping at most two elements of any list.
    fn leaves(value: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    path.push(key.clone());
                    leaves(v, path, out);
                    path.pop();
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().take(2).enumerate() {
                    path.push(i.to_string());
                    leaves(v, path, out);
                    path.pop();
                }
            }
            serde_json::Value::Number(_) => out.push(path.clone()),
            _ => {}
        }
    }
    let mut paths = Vec::new();
    leaves(&original, &mut Vec::new(), &mut paths);
    assert!(paths.len() > 100, "{} numeric fields", paths.len());
    let (mut refused, mut handled) = (0, 0);
    for (n, path) in paths.iter().enumerate() {
        let mut mutated = original.clone();
        let mut slot = &mut mutated;
        for key in path {
            slot = match slot {
                serde_json::Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
                other => &mut other[key.as_str()],
            };
        }
        *slot = hostile[n % hostile.len()].clone();
        let outcome = std::panic::catch_unwind(|| {
            let Ok(report) = serde_json::from_value::<Report>(mutated) else {
                return false;
            };
            for format in [
                iospd::profile::ResultFormat::Text,
                iospd::profile::ResultFormat::Xml,
                iospd::profile::ResultFormat::Json,
                iospd::profile::ResultFormat::Html,
            ] {
                let _ = report.render(format);
            }
            if let Ok(merged) = iospd::report::analysis::merge::merge(&[base.clone(), report]) {
                let _ = merged.render(iospd::profile::ResultFormat::Text);
            }
            true
        });
        match outcome {
            Ok(true) => handled += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("{path:?} = {} panicked", hostile[n % hostile.len()]),
        }
    }
    eprintln!("{refused} refused when read, {handled} read and handled");
}

#[test]
fn compare_warns_when_the_runs_ran_on_different_systems() {
    let dir = TempDir::new();
    let a = run(&dir, "a.json", &[]);
    let mut other: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&a).unwrap()).unwrap();
    // The same command line on another NUMA layout, kernel and iospd (DiskSpd issue #226).
    let cpus = other["system"]["cpus"].as_array_mut().unwrap();
    let mut far = cpus[0].clone();
    far["cpu"] = serde_json::json!(cpus.len());
    far["node"] = serde_json::json!(1);
    cpus.push(far);
    other["system"]["kernel"] = serde_json::json!("Linux 5.15.0");
    other["tool"]["version"] = serde_json::json!("0.0.1");
    let b = dir.join("b.json");
    fs::write(&b, serde_json::to_string(&other).unwrap()).unwrap();
    let compared = iospd()
        .args(["compare", a.to_str().unwrap(), b.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(compared.status.code(), Some(0), "{}", stderr(&compared));
    let text = stdout(&compared);
    let warning = text.lines().next().unwrap();
    assert!(
        warning.starts_with("WARNING: the runs ran on different systems (")
            && warning.contains("NUMA nodes: 2 against 1")
            && warning.contains("kernel: Linux 5.15.0 against ")
            && warning.contains("iospd: 0.0.1 against "),
        "{text}"
    );
    let same = iospd()
        .args(["compare", a.to_str().unwrap(), a.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!stdout(&same).contains("different systems"));
}
