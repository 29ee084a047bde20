//! `--bssplit`: each I/O's size drawn by weight per direction, offsets that fit the size drawn,
//! and the report's breakdown by size adding up to DiskSpd's totals.

use std::fs;

use serde_json::Value;

use crate::util::{TempDir, iospd, stderr, stdout, validate_json};

/// A run's JSON report and its trace's (offset, length, is a write) per I/O in completion order.
fn traced_run(dir: &TempDir, args: &[&str]) -> (Value, Vec<(u64, u64, bool)>) {
    let target = dir.arg("t.dat");
    let trace = dir.arg("run.trace");
    let trace_arg = format!("--trace={trace}");
    let output = iospd()
        .args(["-Rjson", "-c8M", "-W0", "--engine=null", &trace_arg])
        .args(args)
        .arg(&target)
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    validate_json(&stdout(&output));
    let report = serde_json::from_str(&stdout(&output)).unwrap();
    // After the 12-byte header, 40-byte records: offset at 16..24, length at 24..28, the
    // direction at 38.
    let ios = fs::read(&trace).unwrap()[12..]
        .chunks_exact(40)
        .map(|r| {
            let offset = u64::from_le_bytes(r[16..24].try_into().unwrap());
            let len = u32::from_le_bytes(r[24..28].try_into().unwrap()) as u64;
            (offset, len, r[38] == 1)
        })
        .collect();
    fs::remove_file(&trace).unwrap();
    (report, ios)
}

#[test]
fn sizes_are_drawn_by_weight_and_the_breakdown_adds_up_to_the_totals() {
    let dir = TempDir::new();
    let (report, ios) = traced_run(&dir, &["--bssplit=4K/75:64K/25", "-r", "--ios=40000"]);
    assert_eq!(ios.len(), 40_000);
    let small = ios.iter().filter(|io| io.1 == 4096).count();
    let large = ios.iter().filter(|io| io.1 == 65536).count();
    assert_eq!(small + large, 40_000);
    // 30,000 expected, standard deviation 87.
    assert!((29_500..=30_500).contains(&small), "{small} of 4 KiB");
    for (offset, len, _) in &ios {
        assert_eq!(
            offset % 4096,
            0,
            "random offsets are multiples of the smallest size"
        );
        assert!(offset + len <= 8 << 20, "{offset} + {len} passes the end");
    }
    let measured = &report["timespans"][0]["measured"];
    let sizes = &measured["block_sizes"][0]["sizes"];
    assert_eq!(sizes[0]["size_bytes"], 4096);
    assert_eq!(sizes[0]["read"]["ios"], small as u64);
    assert_eq!(sizes[1]["read"]["ios"], large as u64);
    let bytes: u64 = (0..2)
        .map(|i| sizes[i]["read"]["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(measured["totals"]["read"]["bytes"].as_u64(), Some(bytes));
    assert_eq!(bytes, small as u64 * 4096 + large as u64 * 65536);
    let rate: f64 = (0..2)
        .map(|i| sizes[i]["read"]["ios_per_s"].as_f64().unwrap())
        .sum();
    let total = measured["totals"]["read"]["ios_per_s"].as_f64().unwrap();
    assert!(
        (rate - total).abs() < 1e-6 * total,
        "{rate} against {total}"
    );
}

/// A run bounded by bytes ends on them exactly with mixed sizes too: an I/O that would pass them
/// gives way to the largest size that fits (as fio's random map ends a region), so a thread moves
/// exactly its `--bytes`, each I/O one of the split's sizes.
#[test]
fn mixed_sizes_end_a_run_bounded_by_bytes_exactly() {
    let dir = TempDir::new();
    let (report, ios) = traced_run(&dir, &["--bssplit=4K/50:64K/50", "-r", "--bytes=6M", "-t2"]);
    let moved: u64 = ios.iter().map(|io| io.1).sum();
    assert_eq!(moved, 2 * (6 << 20), "two threads, 6 MiB each");
    assert!(ios.iter().all(|io| io.1 == 4096 || io.1 == 65536));
    let measured = &report["timespans"][0]["measured"];
    assert_eq!(measured["totals"]["read"]["bytes"], 2 * (6 << 20));
}

#[test]
fn each_direction_draws_from_its_own_list() {
    let dir = TempDir::new();
    let (_, ios) = traced_run(
        &dir,
        &["--bssplit=4K/100,64K/100", "-r", "-w50", "--ios=2000"],
    );
    assert!(ios.iter().any(|io| io.2) && ios.iter().any(|io| !io.2));
    for (_, len, write) in ios {
        assert_eq!(len, if write { 65536 } else { 4096 });
    }
}

#[test]
fn sequential_io_follows_the_last_whatever_its_size() {
    let dir = TempDir::new();
    // One I/O in flight: completions in the order they were issued.
    let (_, ios) = traced_run(&dir, &["--bssplit=4K/50:16K/30:64K/20", "-o1", "--ios=300"]);
    let mut expected = 0;
    for (offset, len, _) in &ios {
        if expected + 65536 > 8 << 20 {
            break;
        }
        assert_eq!(*offset, expected);
        expected += len;
    }
    assert!(
        ios.iter()
            .map(|io| io.1)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == 3
    );
}

#[test]
fn a_profile_keeps_the_split_and_the_text_report_breaks_it_down() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let xml = iospd()
        .args(["-c1M", "-r", "--bssplit=4K/60:8K/", "-Rpxml", &target])
        .output()
        .unwrap();
    let xml = stdout(&xml);
    assert!(
        xml.contains("<BlockSplit>4096/60:8192/40</BlockSplit>"),
        "{xml}"
    );
    assert!(xml.contains("<BlockSize>8192</BlockSize>"), "{xml}");
    crate::util::validate_xml(&[("profile", &xml)], "a_profile_keeps_the_split");
    let profile = dir.join("p.xml");
    fs::write(&profile, &xml).unwrap();
    let output = iospd()
        .args([
            &format!("-X{}", profile.display()),
            "-Rtext",
            "-W0",
            "-d1",
            "--engine=null",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("--bssplit on "), "{text}");
    for size in ["   4KiB | read  |", "   8KiB | read  |"] {
        assert!(text.contains(size), "{size} in {text}");
    }
}

#[test]
fn splits_that_cannot_run_are_refused_before_anything_is_written() {
    crate::util::assert_refused_untouched(&[
        (vec!["--bssplit=4K/50:x/50"], "--bssplit=4K/70:64K/30"),
        (vec!["--bssplit=4K/0"], "a weight from 1"),
        (vec!["-b8K", "--bssplit=4K/100"], "drop -b"),
        (vec!["-s64K", "--bssplit=4K/100"], "drop the stride"),
        (vec!["-r", "-rs50", "--bssplit=4K/100"], "-rs"),
        (vec!["-r", "--random-map", "--bssplit=4K/100"], "drop one"),
        (
            vec!["-r", "-w50", "--verify", "--bssplit=4K/100"],
            "drop one",
        ),
        (vec!["-r", "-g100", "--bssplit=4K/100"], "-g<n>i"),
        (vec!["-t2", "-si", "--bssplit=4K/100"], "-si"),
        (
            vec!["-Su", "--bssplit=6000/50:8K/50"],
            "a size of --bssplit 6000",
        ),
    ]);
}
