//! `--compress` proved on a real kernel compressor: zram stores what it is written and says what
//! that took (`mm_stat`: bytes stored, their compressed size, same-filled and huge pages). A device
//! of its own from `hot_add`, written whole at each ratio by each of zram's built-in compressors,
//! and read back by `iospd data-check`; and btrfs with `compress-force=zstd`, measured by
//! `compsize`.

use std::fs;

use crate::util::machine::{self, Zram};
use crate::util::{assert_refused_untouched, iospd, stderr};

#[test]
fn zram_stores_the_ratio_asked() {
    for algorithm in ["lz4", "lzo-rle"] {
        let Some(zram) = Zram::new("zram_stores_the_ratio_asked", algorithm, 64) else {
            return;
        };
        for ratio in [2.0, 3.0, 4.0] {
            // Sequential 4 KiB writes for a second: the 64 MiB device is written whole many times.
            let output = iospd()
                .args([
                    "-b4K",
                    "-w100",
                    "-Sh",
                    "-o8",
                    "-d1",
                    "-W0",
                    &format!("--compress={ratio}"),
                    &zram.device(),
                ])
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            let (original, compressed, same, huge) = zram.stored();
            assert_eq!(
                original,
                64 << 20,
                "{algorithm}: the whole device was written"
            );
            assert_eq!(
                (same, huge),
                (0, 0),
                "{algorithm}: no zero or incompressible page"
            );
            let achieved = original as f64 / compressed as f64;
            assert!(
                (achieved / ratio - 1.0).abs() < 0.05,
                "{algorithm} stored --compress={ratio} at {achieved:.3}:1"
            );
            if algorithm == "lz4" && ratio == 2.0 {
                data_check_agrees_with_zram(&zram, achieved);
            }
        }
    }
}

/// `iospd data-check` reads the device back: its lz4 (the same format, another implementation)
/// within 2 % of the kernel's, every 4 KiB unit distinct (the stamps), no zero chunk.
fn data_check_agrees_with_zram(zram: &Zram, kernel: f64) {
    let output = iospd()
        .args(["data-check", "--json", &zram.device()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let c: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(c["read_bytes"], 64u64 << 20);
    let lz4 = c["compression"][0]["ratio"].as_f64().unwrap();
    assert_eq!(c["compression"][0]["compressor"], "lz4");
    assert!(
        (lz4 / kernel - 1.0).abs() < 0.02,
        "data-check lz4 {lz4:.3}, zram lz4 {kernel:.3}"
    );
    assert_eq!(c["units"], c["distinct_units"], "{c}");
    assert_eq!(c["zero_chunks"], 0);
}

/// btrfs mounted with `compress-force=zstd` on a loop device compresses every 128 KiB extent with
/// zstd and stores it in whole 4 KiB sectors; `compsize` reports what it stored. A file written
/// whole at `--compress=<r>:128K` (buffered, then synced) must be stored at r:1 within 5 %.
#[test]
fn btrfs_stores_the_ratio_asked() {
    let test = "btrfs_stores_the_ratio_asked";
    let Some(tools) = machine::devices(test, &["mkfs.btrfs", "compsize", "sync"]) else {
        return;
    };
    let Some(device) = machine::LoopDevice::with(&tools, 512, test) else {
        return;
    };
    tools.must("mkfs.btrfs", &["-q", "-f", &device.arg()]);
    let mount = machine::Mount::new(&tools, &device.arg(), "btrfs", "compress-force=zstd")
        .expect("mount btrfs");
    for ratio in [2.0, 3.0] {
        let file = mount.join(&format!("c{ratio}.dat"));
        let file = file.display().to_string();
        let output = iospd()
            .args([
                "-Rjson",
                "-c64M",
                "-b128K",
                "-w100",
                "-o4",
                "-d2",
                "-W0",
                &format!("--compress={ratio}:128K"),
                &file,
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        // "Is this real" names the compression on the path and the data's own ratio, and does
        // not doubt a ratio the run was asked to write.
        let run: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let reality = &run["timespans"][0]["measured"]["reality"];
        let layer = reality["reduction"][0]["layer"]
            .as_str()
            .unwrap_or_default();
        assert!(layer.starts_with("btrfs compress-force=zstd"), "{reality}");
        let own = reality["reduction"][0]["data_ratio"].as_f64().unwrap();
        assert!((own / ratio - 1.0).abs() < 0.05, "{reality}");
        assert!(
            !reality["flags"].to_string().contains("compresses"),
            "{reality}"
        );
        tools.must("sync", &[]);
        // `compsize -b`: bytes; the TOTAL row is: type, percent, disk usage, uncompressed, referenced.
        let report = tools.must("compsize", &["-b", &file]);
        let total: Vec<&str> = report
            .lines()
            .find(|l| l.starts_with("TOTAL"))
            .unwrap_or_else(|| panic!("no TOTAL row in {report}"))
            .split_whitespace()
            .collect();
        let (disk, uncompressed): (f64, f64) =
            (total[2].parse().unwrap(), total[3].parse().unwrap());
        assert_eq!(uncompressed, (64u64 << 20) as f64, "{report}");
        let achieved = uncompressed / disk;
        assert!(
            (achieved / ratio - 1.0).abs() < 0.05,
            "btrfs zstd stored --compress={ratio}:128K at {achieved:.3}:1\n{report}"
        );
    }
}

/// A run that neither writes nor creates its file has no data to shape: refused, file untouched.
#[test]
fn compression_without_writes_or_creation_is_refused() {
    let dir = crate::util::TempDir::new();
    let file = dir.arg("r.dat");
    fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let output = iospd()
        .args(["-r", "-d1", "--compress=2", &file])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("add -w<percent> or -c<size>"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::read(&file).unwrap(), vec![7u8; 1 << 20]);
}

/// `-c` fills a new file as the run's writes would: a read test of compressible data.
#[test]
fn a_created_file_holds_the_ratio_asked() {
    let dir = crate::util::TempDir::new();
    let file = dir.arg("c.dat");
    let output = iospd()
        .args(["-c16M", "-r", "-d1", "-W0", "--compress=3", &file])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = iospd()
        .args(["data-check", "--json", &file])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let c: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for x in c["compression"].as_array().unwrap() {
        let ratio = x["ratio"].as_f64().unwrap();
        assert!((ratio / 3.0 - 1.0).abs() < 0.05, "{x}");
    }
    assert_eq!(c["units"], c["distinct_units"], "{c}");
}

#[test]
fn bad_compression_is_refused_before_anything_is_written() {
    assert_refused_untouched(&[
        (vec!["-w50", "--compress=0.5"], "outside 1 to 100"),
        (vec!["-w50", "--compress=two"], "is not a ratio"),
        (vec!["-w50", "--compress=2:100"], "512 bytes to 1M"),
        (vec!["-w50", "-Zr", "--compress=2"], "use one"),
        (vec!["-w50", "-Z1M", "--compress=2"], "use one"),
        (vec!["-w50", "--verify", "--compress=2"], "use one"),
    ]);
}
