//! `--dedupe` proved by reading back: `iospd data-check` fingerprints every unit of what a run
//! left, and the distinct units it counts must equal the report's exact count, and the asked ratio
//! within 1 %. With `--compress` the two compose; with flip-flop, rewrites of duplicates change
//! the target's content and the report still counts it exactly.

use serde_json::Value;

use crate::util::{assert_refused_untouched, iospd, stderr, validate_json, validate_xml};

/// Runs iospd with `args` on `file` with `-Rjson` (checked against the schema) and returns the
/// timespan's `dedupes[0]`.
fn run(args: &[&str], file: &str) -> Value {
    let output = iospd().args(args).args(["-Rjson", file]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    validate_json(&text);
    let report: Value = serde_json::from_str(&text).unwrap();
    report["timespans"][0]["dedupes"][0].clone()
}

/// `iospd data-check --json` of `file` at `unit`.
fn data_check(file: &str, unit: &str) -> Value {
    let output = iospd()
        .args([
            "data-check",
            "--json",
            &format!("--dedupe-unit={unit}"),
            file,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn a_filled_and_rewritten_target_deduplicates_exactly_as_reported() {
    let dir = crate::util::TempDir::new();
    for (spec, unit, ratio) in [("2", "4K", 2.0), ("3:8K:64", "8K", 3.0), ("1.5", "4K", 1.5)] {
        let file = dir.arg(&format!("d{ratio}.dat"));
        let dedupe = format!("--dedupe={spec}");
        let d = run(
            &[
                "-c32M", "-b16K", "-r", "-w100", "-d1", "-W0", "-o4", &dedupe,
            ],
            &file,
        );
        let units = u(&d["units"]);
        assert_eq!(units, (32 << 20) / u(&d["dedupe"]["unit_bytes"]), "{d}");
        assert_eq!(d["filled"], true);
        assert_eq!(u(&d["written_units"]), units);
        // Without flip-flop a rewrite of a duplicate writes its set's content again.
        assert_eq!(
            u(&d["distinct_contents"]),
            u(&d["unique_units"]) + u(&d["sets"])
        );
        let check = data_check(&file, unit);
        assert_eq!(u(&check["units"]), units, "{check}");
        assert_eq!(
            check["distinct_units"], d["distinct_contents"],
            "{check}\n{d}"
        );
        let achieved = check["dedupe_ratio"].as_f64().unwrap();
        assert!((achieved / ratio - 1.0).abs() < 0.01, "{spec}: {achieved}");
        if spec == "3:8K:64" {
            assert_eq!(u(&d["sets"]), 64);
        }
    }
}

#[test]
fn dedupe_and_compression_compose() {
    let dir = crate::util::TempDir::new();
    let file = dir.arg("dc.dat");
    let d = run(
        &[
            "-c32M",
            "-b8K",
            "-r",
            "-w100",
            "-d1",
            "-W0",
            "--dedupe=2:8K",
            "--compress=2",
        ],
        &file,
    );
    let check = data_check(&file, "8K");
    assert_eq!(check["distinct_units"], d["distinct_contents"]);
    let dedupe = check["dedupe_ratio"].as_f64().unwrap();
    assert!((dedupe / 2.0 - 1.0).abs() < 0.01, "{check}");
    for c in check["compression"].as_array().unwrap() {
        let ratio = c["ratio"].as_f64().unwrap();
        assert!((ratio / 2.0 - 1.0).abs() < 0.05, "{c}");
        // Of the written bytes, what is left after dedupe and then compression: 4:1.
        let reduced = c["after_dedupe_ratio"].as_f64().unwrap();
        assert!((reduced / 4.0 - 1.0).abs() < 0.06, "{c}");
    }
}

/// Flip-flop: each rewrite of a duplicate moves it to its set's other content. Read back, the
/// target holds exactly the contents the report counts.
#[test]
fn flip_flop_changes_duplicates_and_the_report_counts_them() {
    let dir = crate::util::TempDir::new();
    let file = dir.arg("ff.dat");
    let args = |extra: &'static str| {
        vec![
            "-c8M",
            "-b4K",
            "-w100",
            "-d1",
            "-W0",
            extra,
            "--dedupe=4:4K:16:flipflop",
        ]
    };
    // Random rewrites over a filled target: a set's units, rewritten an odd or even number of
    // times, hold both of its contents (without flip-flop they hold one: the test above).
    let d = run(&args("-r"), &file);
    let planned = u(&d["unique_units"]) + u(&d["sets"]);
    let check = data_check(&file, "4K");
    assert_eq!(check["distinct_units"], d["distinct_contents"], "{d}");
    let distinct = u(&d["distinct_contents"]);
    assert!(
        distinct > planned && distinct <= planned + u(&d["sets"]),
        "{d}"
    );
}

#[test]
fn the_xml_results_carry_the_dedupe_counts() {
    let dir = crate::util::TempDir::new();
    let file = dir.arg("x.dat");
    let output = iospd()
        .args([
            "-c4M",
            "-b4K",
            "-r",
            "-w100",
            "-d1",
            "--dedupe=2",
            "-Rxml",
            &file,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let xml = String::from_utf8(output.stdout).unwrap();
    assert!(
        xml.contains("<Dedupe Path=")
            && xml.contains("Units=\"1024\" UniqueUnits=\"486\" Sets=\"26\""),
        "{xml}"
    );
    validate_xml(
        &[("dedupe", &xml)],
        "the_xml_results_carry_the_dedupe_counts",
    );
    let output = iospd()
        .args(["-c4M", "-b4K", "-r", "-w100", "-d1", "--dedupe=2", &file])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("planned as 486 unique + 26 shared contents: 2.0000:1"),
        "{text}"
    );
}

#[test]
fn bad_dedupe_is_refused_before_anything_is_written() {
    assert_refused_untouched(&[
        (vec!["-w50", "--dedupe=0.5"], "outside 1 to 1000"),
        (vec!["-w50", "--dedupe=two"], "is not a ratio"),
        (vec!["-w50", "--dedupe=2:3K"], "power of two"),
        (vec!["-w50", "--dedupe=2:4K:0"], "at least 1"),
        (vec!["-w50", "--dedupe=2:4K:0%"], "above 0"),
        (vec!["-w50", "--dedupe=2:4K:1:2"], "too many fields"),
        (vec!["-w50", "-b6K", "--dedupe=2"], "not a multiple"),
        (vec!["-w50", "-b8K", "-r2K", "--dedupe=2"], "not a multiple"),
        (
            vec!["-w50", "--dedupe=2:4K", "--compress=2:8K"],
            "must divide",
        ),
        (vec!["-w50", "--dedupe=2:4K:500"], "use fewer sets"),
        (vec!["-w50", "-Zr", "--dedupe=2"], "use one"),
        (vec!["-w50", "--verify", "--dedupe=2"], "use one"),
        (vec!["-Sm", "-w50", "--dedupe=2"], "drop one"),
    ]);
}
