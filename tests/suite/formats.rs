//! XML and JSON results: golden documents from whole runs on the null engine with a fake clock,
//! validated against the schemas shipped in doc/, and checked for the numbers they must carry.

use crate::util;
use crate::util::{
    TempDir, assert_golden, golden_render, golden_report, validate_json, validate_xml,
};
use base64::Engine as _;
use iospd::profile::ResultFormat;

const RUN: &[&str] = &[
    "-c1M",
    "-d1",
    "-W0",
    "-b4K",
    "-o4",
    "-r",
    "-w30",
    "-L",
    "-D250",
    "-vs",
    "-eDISK_IO",
    "<dir>/t.dat",
];

#[test]
fn xml_results_are_golden_and_valid() {
    let dir = TempDir::new();
    let report = golden_report(RUN, &dir);
    let xml = golden_render(&report, ResultFormat::Xml, &dir);
    assert_golden("results.xml", &xml);
    let two = golden_render(
        &golden_report(
            &[
                "-c1M",
                "-d1",
                "-W0",
                "-t2",
                "-o2",
                "-s",
                "-T64K",
                "-w100",
                "-Z",
                "<dir>/a.dat",
                "<dir>/b.dat",
            ],
            &dir,
        ),
        ResultFormat::Xml,
        &dir,
    );
    validate_xml(
        &[("results", &xml), ("two_targets", &two)],
        "xml_results_are_golden_and_valid",
    );
    for needle in [
        "<Latency ReadHistoBuckets=",
        "<Percentile>99.9999999</Percentile>",
        "<Bucket SampleMillisecond=\"250\"",
        "<WaitStatistics>",
        "<Counter Name=\"disk.reads\">",
    ] {
        assert!(xml.contains(needle), "missing {needle}");
    }
}

#[test]
fn json_results_are_golden_valid_and_mergeable() {
    let dir = TempDir::new();
    let report = golden_report(RUN, &dir);
    let json = golden_render(&report, ResultFormat::Json, &dir);
    assert_golden("results.json", &json);
    validate_json(&json);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["schema_version"], 1);
    let total = &value["timespans"][0]["measured"]["totals"]["total"];
    let ios = total["ios"].as_u64().unwrap();
    let encoded = total["latency"]["histogram_v2"].as_str().unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    let histogram: hdrhistogram::Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .unwrap();
    assert_eq!(
        histogram.len(),
        ios,
        "the histogram holds every measured I/O"
    );
    let p99 = total["latency"]["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["percentile"] == 99.0)
        .unwrap()["value_ns"]
        .as_u64()
        .unwrap();
    let decoded_p99 = histogram.value_at_quantile(0.99);
    assert!(
        p99.abs_diff(decoded_p99) as f64 <= p99 as f64 * 0.001,
        "{p99} vs {decoded_p99}"
    );
}

#[test]
fn json_percentile_list_is_configurable() {
    let dir = TempDir::new();
    let report = golden_report(
        &[
            "-c1M",
            "-d1",
            "-W0",
            "-L",
            "--percentiles=99.5,99.95",
            "<dir>/p.dat",
        ],
        &dir,
    );
    let json = golden_render(&report, ResultFormat::Json, &dir);
    validate_json(&json);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let list: Vec<f64> =
        value["timespans"][0]["measured"]["totals"]["read"]["latency"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["percentile"].as_f64().unwrap())
            .collect();
    for p in [0.0, 1.0, 50.0, 99.0, 99.5, 99.9, 99.95, 99.9999999, 100.0] {
        assert!(list.contains(&p), "{p} missing from {list:?}");
    }
}

#[test]
fn several_outputs_in_one_run_are_written_atomically() {
    let dir = TempDir::new();
    let json = dir.arg("out/r.json");
    let xml = dir.arg("out/r.xml");
    let txt = dir.arg("out/r.txt");
    std::fs::create_dir(dir.join("out")).unwrap();
    let output = util::run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "-L",
        "--engine=null",
        &format!("--output={json}"),
        &format!("--output={xml}"),
        &format!("--output={txt}"),
        &dir.arg("o.dat"),
    ]);
    assert!(output.status.success(), "{}", util::stderr(&output));
    let stdout = util::stdout(&output);
    assert!(
        stdout.contains("Total latency distribution:"),
        "text on stdout"
    );
    validate_json(&std::fs::read_to_string(&json).unwrap());
    let xml_text = std::fs::read_to_string(&xml).unwrap();
    validate_xml(
        &[("out", &xml_text)],
        "several_outputs_in_one_run_are_written_atomically",
    );
    let text = std::fs::read_to_string(&txt).unwrap();
    assert!(text.starts_with("\nCommand Line: "));
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 3, "no temporary files left: {leftovers:?}");
    let output = util::run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "--engine=null",
        &format!("--output={}", dir.arg("missing/r.json")),
        &dir.arg("never.dat"),
    ]);
    // A destination that cannot be written is found before the run, which then never starts.
    assert_eq!(output.status.code(), Some(3));
    let err = util::stderr(&output);
    assert!(
        err.contains("--output: cannot write") && err.contains("does not exist"),
        "{err}"
    );
    assert!(util::stdout(&output).is_empty());
    assert!(!dir.join("never.dat").exists(), "the run did not start");
}

#[test]
fn system_information_alone() {
    for (format, needle) in [
        ("-Rs", "System information:"),
        ("-Rsxml", "<System>"),
        ("-Rsjson", "\"computer_name\""),
    ] {
        let output = util::run_iospd(&[format]);
        assert!(
            output.status.success(),
            "{format}: {}",
            util::stderr(&output)
        );
        assert!(util::stdout(&output).contains(needle), "{format}");
    }
    let xml = util::stdout(&util::run_iospd(&["-Rsxml"]));
    validate_xml(&[("system", &xml)], "system_information_alone");
}
