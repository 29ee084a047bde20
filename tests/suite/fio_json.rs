//! `iospd fio --output-format=json|json+`: fio 3.x's JSON results, checked for iospd's own numbers
//! in fio's units, for fio's layout (every key iospd writes is one fio 3.33 writes, when fio is
//! here), and read by the tools people read fio's results with: fio-plot (PyPI) and fio's own
//! `tools/fio_jsonplus_clat2csv` (from its source tree, beside `IOSPD_FIO_EXAMPLES`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::tools;
use crate::util::{TempDir, iospd, skip, stderr, stdout};

/// Two groups: a job bounded by its size (1,024 random reads), then one that runs for a second
/// and writes as well (samples every 500 ms).
const JOBS: &str = "[global]
ioengine=psync
bs=4k
iodepth=1
numjobs=1

[sized]
filename=sized.dat
rw=randread
size=4m

[timed]
stonewall
filename=timed.dat
rw=randrw
size=4m
time_based
runtime=1
percentile_list=50:99:99.9
";

/// `iospd fio <format> jobs.fio` in `dir`: the document.
fn run(dir: &TempDir, format: &str) -> Value {
    std::fs::write(dir.join("jobs.fio"), JOBS).unwrap();
    let output = iospd()
        .args(["fio", &format!("--output-format={format}"), "jobs.fio"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

#[test]
fn fio_json_holds_the_measured_numbers_in_fios_units() {
    let dir = TempDir::new();
    let doc = run(&dir, "json+");
    assert!(doc["fio version"].as_str().unwrap().starts_with("iospd-"));
    assert_eq!(
        doc["timestamp"].as_u64().unwrap(),
        doc["timestamp_ms"].as_u64().unwrap() / 1000
    );
    let jobs = doc["jobs"].as_array().unwrap();
    let names: Vec<(&str, u64)> = jobs
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap(),
                j["groupid"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(names, [("sized", 0), ("timed", 1)]);

    let sized = &jobs[0];
    assert_eq!(sized["job options"]["rw"], "randread");
    assert_eq!(sized["job options"]["iodepth"], "1");
    // One I/O at a time: every one submitted at depth 1.
    let levels = &sized["iodepth_level"];
    assert_eq!(number(&levels["1"]), 100.0, "{levels}");
    assert_eq!(number(&levels[">=64"]), 0.0, "{levels}");
    for key in ["ctx", "majf", "minf"] {
        assert!(sized[key].is_u64(), "{key}: {}", sized[key]);
    }
    let read = &sized["read"];
    assert_eq!(read["total_ios"], 1024);
    assert_eq!(read["io_bytes"], 4 << 20);
    assert_eq!(read["io_kbytes"], 4096);
    let runtime_ms = number(&read["runtime"]);
    assert!(runtime_ms >= 1.0);
    // Rates over the runtime, as fio gives them (KiB/s for bw): the runtime is whole ms, so the
    // I/Os it implies are off by at most half a millisecond's worth.
    let iops = number(&read["iops"]);
    assert!(
        (iops * runtime_ms / 1000.0 - 1024.0).abs() <= iops * 0.0005 + 1e-6,
        "{iops} I/O per s over {runtime_ms} ms"
    );
    assert_eq!(
        read["bw"].as_u64().unwrap(),
        read["bw_bytes"].as_u64().unwrap() / 1024
    );
    let clat = &read["clat_ns"];
    assert_eq!(clat["N"], 1024);
    assert_eq!(read["lat_ns"]["N"], 1024);
    assert_eq!(
        read["slat_ns"]["N"], 0,
        "submission latency is not measured apart"
    );
    assert_eq!(read["lat_ns"]["mean"], clat["mean"]);
    assert!(read["lat_ns"].get("percentile").is_none());
    // fio's default percentile list, each value within the exact extremes, ascending.
    let mut percentiles: Vec<(f64, u64)> = clat["percentile"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
        .collect();
    percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
    let listed: Vec<f64> = percentiles.iter().map(|p| p.0).collect();
    assert_eq!(
        listed,
        [
            1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
            99.95, 99.99
        ]
    );
    assert!(
        clat["percentile"]
            .as_object()
            .unwrap()
            .contains_key("99.950000")
    );
    let values: Vec<u64> = percentiles.iter().map(|p| p.1).collect();
    assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
    let (min, max) = (clat["min"].as_u64().unwrap(), clat["max"].as_u64().unwrap());
    assert!(
        min <= values[0] && values[16] <= max,
        "{min} {values:?} {max}"
    );
    // json+: every recorded latency and its count, adding up to N, within the extremes.
    let bins = clat["bins"].as_object().unwrap();
    assert_eq!(
        bins.values().map(|c| c.as_u64().unwrap()).sum::<u64>(),
        1024
    );
    assert!(
        bins.keys()
            .all(|k| (min..=max).contains(&k.parse::<u64>().unwrap()))
    );
    // fio's latency ranges share every I/O out.
    let shares: f64 = ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| sized[*k].as_object().unwrap().values())
        .map(number)
        .sum();
    assert!((shares - 100.0).abs() < 1e-6, "{shares}");
    assert_eq!(sized["write"]["total_ios"], 0);
    assert_eq!(sized["write"]["clat_ns"]["N"], 0);
    // A job bounded by its size has a sample per whole 500 ms it ran (none when it ran less).
    let runtime_ms = read["runtime"].as_u64().unwrap();
    let samples = read["bw_samples"].as_u64().unwrap();
    assert!(
        [runtime_ms / 500, (runtime_ms + 1) / 500].contains(&samples),
        "{samples} samples in {runtime_ms} ms"
    );
    assert_eq!(read["iops_samples"], read["bw_samples"]);

    // The timed job: its own percentile list, both directions, a sample every 500 ms.
    let timed = &jobs[1];
    for direction in ["read", "write"] {
        let d = &timed[direction];
        let keys: Vec<&String> = d["clat_ns"]["percentile"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["50.000000", "99.000000", "99.900000"], "{direction}");
        assert_eq!(d["iops_samples"], 2, "{direction}");
        assert_eq!(d["bw_samples"], 2, "{direction}");
        let (low, mean, high) = (
            number(&d["iops_min"]),
            number(&d["iops_mean"]),
            number(&d["iops_max"]),
        );
        assert!(
            low <= mean && mean <= high + 1.0,
            "{direction}: {low} {mean} {high}"
        );
        // The only job of its group: its share of the group's bandwidth is (nearly) all of it.
        let agg = number(&d["bw_agg"]);
        assert!((90.0..=110.0).contains(&agg), "{direction}: {agg}");
    }
    assert_eq!(number(&timed["read"]["runtime"]), 1000.0);

    // Plain json: no bins.
    let plain = run(&dir, "json");
    assert!(plain["jobs"][0]["read"]["clat_ns"].get("bins").is_none());
    assert!(
        plain["jobs"][0]["read"]["clat_ns"]
            .get("percentile")
            .is_some()
    );
}

/// etcd's disk check (`--rw=write --ioengine=sync --fdatasync=1 --bs=2300`), read as its
/// guides read it: the flushes' percentiles under `sync.lat_ns.percentile`, one flush after
/// every write but the last (fio 3.33 ends the job there too), each percentile between the
/// flushes' min and max.
#[test]
fn the_flushes_have_fios_sync_percentiles() {
    let dir = TempDir::new();
    let output = iospd()
        .args([
            "fio",
            "--output-format=json",
            "--rw=write",
            "--ioengine=sync",
        ])
        .args([
            "--fdatasync=1",
            "--directory=.",
            "--size=230000",
            "--bs=2300",
        ])
        .args(["--name=mytest"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let doc: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let job = &doc["jobs"][0];
    assert_eq!(job["write"]["total_ios"], 100);
    let sync = &job["sync"];
    assert_eq!(sync["total_ios"], 99, "{sync}");
    assert_eq!(sync["lat_ns"]["N"], 99, "{sync}");
    let (min, max) = (
        number(&sync["lat_ns"]["min"]),
        number(&sync["lat_ns"]["max"]),
    );
    let p99 = number(&sync["lat_ns"]["percentile"]["99.000000"]);
    assert!(min > 0.0 && min <= p99 && p99 <= max, "{sync}");
    let p50 = number(&sync["lat_ns"]["percentile"]["50.000000"]);
    assert!(p50 <= p99, "{sync}");
}

/// A job's clones are entries of their own, as fio writes them, unless `group_reporting` adds
/// them up into one.
#[test]
fn clones_are_entries_of_their_own_unless_group_reporting() {
    let dir = TempDir::new();
    let entries = |extra: &[&str]| -> Vec<u64> {
        let output = iospd()
            .args(["fio", "--output-format=json", "--name=c", "--rw=randread"])
            .args([
                "--ioengine=psync",
                "--size=1m",
                "--numjobs=3",
                "--number_ios=100",
            ])
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let doc: Value = serde_json::from_str(&stdout(&output)).unwrap();
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                assert_eq!(j["jobname"], "c");
                j["read"]["total_ios"].as_u64().unwrap()
            })
            .collect()
    };
    assert_eq!(entries(&[]), [100, 100, 100]);
    assert_eq!(entries(&["--group_reporting"]), [300]);
}

/// fio's reporting groups: jobs of one group are entries of their own, or with `group_reporting`
/// one entry (the first job's name, the I/O of all); `new_group` starts another group.
#[test]
fn group_reporting_makes_a_reporting_group_one_entry() {
    let dir = TempDir::new();
    let entries = |global: &[&str], second: &[&str]| -> Vec<(String, u64, u64)> {
        let output = iospd()
            .args([
                "fio",
                "--output-format=json",
                "--ioengine=psync",
                "--size=1m",
            ])
            .args(["--filename=g.dat", "--rw=randread"])
            .args(global)
            .args([
                "--name=a",
                "--number_ios=100",
                "--name=b",
                "--number_ios=50",
            ])
            .args(second)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let doc: Value = serde_json::from_str(&stdout(&output)).unwrap();
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    j["groupid"].as_u64().unwrap(),
                    j["read"]["total_ios"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let own = |name: &str, group, ios| (name.to_string(), group, ios);
    assert_eq!(entries(&[], &[]), [own("a", 0, 100), own("b", 0, 50)]);
    assert_eq!(entries(&["--group_reporting"], &[]), [own("a", 0, 150)]);
    assert_eq!(
        entries(&["--group_reporting"], &["--new_group"]),
        [own("a", 0, 100), own("b", 1, 50)]
    );
}

/// Every key path of a document, the keys under maps whose keys are data (options,
/// percentiles, bins, latency ranges) left out, and the index of a list.
fn paths(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let path = format!("{at}/{k}");
                out.insert(path.clone());
                let data_keys = ["job options", "percentile", "bins"].contains(&k.as_str())
                    || k.starts_with("latency_");
                if !data_keys {
                    paths(child, &path, out);
                }
            }
        }
        Value::Array(items) => {
            for item in items.iter().take(1) {
                paths(item, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

/// Each key iospd writes is one fio writes for the same job file (fio 3.33, when it is here).
#[test]
fn every_key_of_iospds_fio_json_is_one_fio_writes() {
    let test = "every_key_of_iospds_fio_json_is_one_fio_writes";
    let Some(fio) = tools::need(test, &["fio"]) else {
        return;
    };
    let dir = TempDir::new();
    let ours = run(&dir, "json+");
    let theirs_dir = TempDir::new();
    std::fs::write(theirs_dir.join("jobs.fio"), JOBS).unwrap();
    let output = fio
        .command("fio")
        .args(["--output-format=json+", "jobs.fio"])
        .current_dir(theirs_dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let theirs: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let (mut our_paths, mut their_paths) = (BTreeSet::new(), BTreeSet::new());
    paths(&ours, "", &mut our_paths);
    paths(&theirs, "", &mut their_paths);
    let foreign: Vec<&String> = our_paths.difference(&their_paths).collect();
    assert!(foreign.is_empty(), "keys fio does not write: {foreign:?}");
    // And the shape: the same kinds of values (numbers, text, maps) under each shared key.
    for (a, b) in ours["jobs"][0]["read"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (v, &theirs["jobs"][0]["read"][k]))
    {
        assert_eq!(
            std::mem::discriminant(a),
            std::mem::discriminant(b),
            "{a} vs {b}"
        );
    }
}

/// fio's `tools/` beside the examples the suite was told of.
fn fio_tools(test: &str) -> Option<PathBuf> {
    let Some(examples) = std::env::var_os("IOSPD_FIO_EXAMPLES") else {
        skip(
            test,
            "needs fio's source tree: set IOSPD_FIO_EXAMPLES to fio's examples/ (apt-get source fio)",
        );
        return None;
    };
    Some(Path::new(&examples).join("../tools"))
}

/// fio-plot draws iospd's results as it draws fio's, and `fio_jsonplus_clat2csv` turns its json+
/// bins into CSV and validates them.
#[test]
fn fio_plot_and_fio_jsonplus_clat2csv_read_it() {
    let test = "fio_plot_and_fio_jsonplus_clat2csv_read_it";
    let Some(tools_dir) = fio_tools(test) else {
        return;
    };
    let Some(python) = tools::python_module(test, "fio_plot", "fio-plot", "reading by fio-plot")
    else {
        return;
    };
    if tools::python_module(test, "six", "six", "reading by fio_jsonplus_clat2csv").is_none() {
        return;
    }
    let dir = TempDir::new();
    let doc = run(&dir, "json+");
    let results = dir.join("results");
    std::fs::create_dir(&results).unwrap();
    std::fs::write(results.join("randread.json"), doc.to_string()).unwrap();

    let script = tools_dir.join("fio_jsonplus_clat2csv");
    let (json, csv) = (results.join("randread.json"), dir.join("clat.csv"));
    let clat2csv = |extra: &[&str]| {
        let mut args = vec![
            script.to_str().unwrap(),
            json.to_str().unwrap(),
            csv.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        python
            .run("python3", &args)
            .unwrap_or_else(|e| panic!("fio_jsonplus_clat2csv: {e}"))
    };
    let said = clat2csv(&[]);
    assert!(said.contains("clat_job0.csv generated"), "{said}");
    let said = clat2csv(&["--validate"]);
    assert!(said.contains("clat_job0.csv validated"), "{said}");
    let rows = std::fs::read_to_string(dir.join("clat_job0.csv")).unwrap();
    // A header, then a row per recorded latency with its count.
    let bins = doc["jobs"][0]["read"]["clat_ns"]["bins"]
        .as_object()
        .unwrap();
    assert_eq!(rows.lines().count(), 1 + bins.len());

    let png = dir.join("qd.png");
    let said = python
        .run(
            "python3",
            &[
                "-m",
                "fio_plot",
                "-i",
                results.to_str().unwrap(),
                "-T",
                "iospd",
                "-l",
                "-r",
                "randread",
                "-d",
                "1",
                "-n",
                "1",
                "-o",
                png.to_str().unwrap(),
            ],
        )
        .unwrap_or_else(|e| panic!("fio-plot: {e}"));
    let drawn = std::fs::read(&png).unwrap_or_else(|e| panic!("{said}: {e}"));
    assert!(
        drawn.starts_with(b"\x89PNG") && drawn.len() > 10_000,
        "{said}"
    );
}

/// fio's `iodepth_level`: each I/O counted at the depth in flight once it was submitted. A job
/// that keeps 8 in flight submits all but its last few at 8 (fio's level "8": 8 to 15).
#[test]
fn iodepth_levels_count_the_depth_each_io_was_submitted_at() {
    let dir = TempDir::new();
    let output = iospd()
        .args([
            "fio",
            "--output-format=json",
            "--name=deep",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--rw=randread",
            "--bs=4k",
            "--size=4m",
            "--filename=deep.dat",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let doc: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let levels = &doc["jobs"][0]["iodepth_level"];
    let shares: Vec<f64> = ["1", "2", "4", "8", "16", "32", ">=64"]
        .iter()
        .map(|k| number(&levels[*k]))
        .collect();
    assert!(
        (shares.iter().sum::<f64>() - 100.0).abs() < 1e-6,
        "{levels}"
    );
    // 1,024 I/Os: at most the last 7 go in below 8.
    assert!(shares[3] >= 100.0 * 1017.0 / 1024.0, "{levels}");
    assert_eq!(shares[4..], [0.0, 0.0, 0.0], "{levels}");
}

/// `unified_rw_reporting`: `mixed` (1) puts reads and writes into one `mixed` direction in place
/// of the others, `both` (2) adds it after them, in fio's JSON and terse lines as fio 3.33 does.
#[test]
fn unified_rw_reporting_adds_the_directions_into_mixed_as_fio_does() {
    let test = "unified_rw_reporting_adds_the_directions_into_mixed_as_fio_does";
    let fio = tools::optional(test, "fio", "the directions and terse fields against fio's");
    let job = |unified: &str, format: &str| {
        vec![
            format.to_string(),
            "--name=a".into(),
            "--rw=randrw".into(),
            "--bs=4k".into(),
            "--size=2m".into(),
            "--ioengine=psync".into(),
            "--filename=u.dat".into(),
            format!("--unified_rw_reporting={unified}"),
        ]
    };
    let directions = |doc: &Value| -> Vec<String> {
        let keys = ["read", "write", "trim", "sync", "mixed"];
        let entry = doc["jobs"][0].as_object().unwrap();
        keys.iter()
            .filter(|k| entry.contains_key(**k))
            .map(|k| k.to_string())
            .collect()
    };
    for (unified, want) in [
        ("mixed", &["mixed"][..]),
        ("both", &["read", "write", "trim", "sync", "mixed"][..]),
    ] {
        let dir = TempDir::new();
        let output = iospd()
            .arg("fio")
            .args(job(unified, "--output-format=json"))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let doc: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(directions(&doc), want, "{unified}");
        let mixed = &doc["jobs"][0]["mixed"];
        assert_eq!(mixed["io_bytes"], 2 << 20, "{unified}: {mixed}");
        assert_eq!(mixed["clat_ns"]["N"], 512, "{unified}");
        let terse = iospd()
            .arg("fio")
            .args(job(unified, "--minimal"))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(terse.status.code(), Some(0), "{}", stderr(&terse));
        let ours = stdout(&terse).trim_end().split(';').count();
        let Some(fio) = &fio else { continue };
        let theirs_dir = TempDir::new();
        let run = |format: &str| {
            let output = fio
                .command("fio")
                .args(job(unified, format))
                .arg("--disk_util=0")
                .current_dir(theirs_dir.path())
                .output()
                .unwrap();
            assert!(output.status.success(), "{}", stderr(&output));
            stdout(&output)
        };
        let theirs: Value = serde_json::from_str(&run("--output-format=json")).unwrap();
        assert_eq!(directions(&theirs), want, "fio, {unified}");
        assert_eq!(
            run("--minimal").trim_end().split(';').count(),
            ours,
            "terse fields, {unified}"
        );
    }
}

/// `ss` with `ss_dur`: a paced job ends once its window of one-second samples holds steady, and
/// its entry has fio's `steadystate` object, key for key and kind for kind as fio 3.33 writes it.
#[test]
fn a_steady_state_job_ends_there_and_has_fios_steadystate_object() {
    let test = "a_steady_state_job_ends_there_and_has_fios_steadystate_object";
    let Some(fio) = tools::need(test, &["fio"]) else {
        return;
    };
    let dir = TempDir::new();
    let file = dir.arg("ss.dat");
    // 400 I/Os a second, within 30 % over 3 s: met within seconds; 60 s is only a bound.
    let args = [
        "--name=ss".to_string(),
        format!("--filename={file}"),
        "--size=8m".into(),
        "--rw=randread".into(),
        "--time_based".into(),
        "--runtime=60".into(),
        "--rate_iops=400".into(),
        "--ss=iops:30%".into(),
        "--ss_dur=3".into(),
        "--output-format=json".into(),
    ];
    let ours = iospd().arg("fio").args(&args).output().unwrap();
    assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
    let ours: Value = serde_json::from_str(&stdout(&ours)).unwrap();
    let job = &ours["jobs"][0];
    let ss = &job["steadystate"];
    assert_eq!(ss["ss"], "iops:30.000000%", "{ss}");
    assert_eq!(
        (ss["duration"].as_u64(), ss["attained"].as_u64()),
        (Some(3), Some(1)),
        "{ss}"
    );
    let iops: Vec<u64> = ss["data"]["iops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(iops.len(), 3, "{ss}");
    assert_eq!(
        ss["data"]["iops_mean"].as_u64().unwrap(),
        iops.iter().sum::<u64>() / 3,
        "{ss}"
    );
    // It ended where the rule was met, long before its runtime.
    assert!(job["job_runtime"].as_u64().unwrap() < 30_000, "{job}");
    let output = fio.command("fio").args(&args).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let theirs: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let (mut our_paths, mut their_paths) = (BTreeSet::new(), BTreeSet::new());
    paths(&job["steadystate"], "", &mut our_paths);
    paths(&theirs["jobs"][0]["steadystate"], "", &mut their_paths);
    assert_eq!(our_paths, their_paths);
    for key in [
        "ss",
        "duration",
        "attained",
        "criterion",
        "max_deviation",
        "slope",
    ] {
        assert_eq!(
            std::mem::discriminant(&ss[key]),
            std::mem::discriminant(&theirs["jobs"][0]["steadystate"][key]),
            "{key}"
        );
    }
}

/// A job a failed I/O stopped keeps its entry, with fio's `error` (here `max_latency`'s
/// ETIMEDOUT, 110, over a limit of 1 µs that every I/O passes), as fio writes it; the exit code is
/// fio's too.
#[test]
fn a_job_that_failed_keeps_its_entry_with_fios_error() {
    let test = "a_job_that_failed_keeps_its_entry_with_fios_error";
    let fio = tools::optional(test, "fio", "the failed job's entry against fio's");
    let job = [
        "--output-format=json",
        "--name=slow",
        "--rw=randread",
        "--size=1m",
        "--ioengine=psync",
        "--filename=m.dat",
        "--max_latency=1",
    ];
    let entry = |output: &std::process::Output, who: &str| -> Value {
        assert_eq!(output.status.code(), Some(1), "{who}: {}", stderr(output));
        // fio says the error on stdout before its document ("fio: pid=…, err=110/…").
        let text = stdout(output);
        let doc = &text[text.find("\n{").map_or(0, |at| at + 1)..];
        let doc: Value = serde_json::from_str(doc).unwrap();
        doc["jobs"][0].clone()
    };
    let dir = TempDir::new();
    let ours = iospd()
        .arg("fio")
        .args(job)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let ours = entry(&ours, "iospd");
    assert_eq!(ours["error"], libc::ETIMEDOUT, "{ours}");
    assert!(ours["read"]["total_ios"].as_u64() >= Some(1), "{ours}");
    let Some(fio) = fio else { return };
    let theirs_dir = TempDir::new();
    let theirs = fio
        .command("fio")
        .args(job)
        .current_dir(theirs_dir.path())
        .output()
        .unwrap();
    let theirs = entry(&theirs, "fio");
    assert_eq!(theirs["error"], ours["error"], "{theirs}");
}
