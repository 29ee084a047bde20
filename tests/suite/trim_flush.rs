//! `--trim` and `--fsync`/`--fdatasync` on loop devices and files: what iospd counts is what the
//! block layer saw (`/sys/block/<dev>/stat`: discard and flush requests), a trimmed range reads
//! back as zeros where the device promises it (a loop device punches holes in its backing file; a
//! file's trims are punched holes), and trims pass the safety gate as writes do.

use std::fs;
use std::os::unix::fs::MetadataExt;

use serde_json::Value;

use crate::util::machine::{LoopDevice, Mount, devices};
use crate::util::{assert_refused_untouched, iospd, stderr, validate_json, validate_xml};

/// `/sys/block/<dev>/stat`: (discard requests, discard merges, flush requests).
fn block_stat(device: &LoopDevice) -> (u64, u64, u64) {
    let name = device.device.file_name().unwrap().to_string_lossy();
    let text = fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    (f[11], f[12], f[15])
}

/// Runs iospd with `-Rjson` and returns the report, checked against the schema.
fn run_json(args: &[&str]) -> Value {
    let output = iospd().arg("-Rjson").args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    validate_json(&text);
    serde_json::from_str(&text).unwrap()
}

fn totals(report: &Value) -> &Value {
    &report["timespans"][0]["measured"]["totals"]
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// One thread at depth 1 (no two flushes in flight for the block layer to coalesce), no warm-up
/// or cool-down, stopped by Ctrl-C after 2,000 I/Os: every trim and flush issued in the window is
/// one the device received. The last I/O may complete after the window (issued but not
/// counted): at most one more. `-Su`, not
/// `-Sh`: `-Sh`'s write-through makes every write FUA, which a loop device turns into a write
/// and a flush of its own.
#[test]
fn the_device_receives_the_trims_and_flushes_iospd_counts() {
    let test = "the_device_receives_the_trims_and_flushes_iospd_counts";
    let Some(device) = LoopDevice::new(64, test) else {
        return;
    };
    for (flush, op) in [("--fsync=4", "fsync"), ("--fdatasync=4", "fdatasync")] {
        let before = block_stat(&device);
        // 2,000 I/Os, however long that takes on a busy machine.
        let output = iospd()
            .args([
                "-Rjson",
                "-b4K",
                "-r",
                "-w50",
                "--trim=25",
                flush,
                "--ios=2000",
                "-W0",
                "-C0",
            ])
            .args(["-o1", "-t1", "-Su", &device.arg()])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        let text = String::from_utf8(output.stdout).unwrap();
        validate_json(&text);
        let report: Value = serde_json::from_str(&text).unwrap();
        let after = block_stat(&device);
        let t = totals(&report);
        let trims = count(&t["trim"]["ios"]);
        let flushes = count(&t["flush"]["ios"]);
        let writes = count(&t["write"]["ios"]);
        assert!(trims > 100 && flushes > 100, "{op}: {t}");
        assert_eq!(count(&t["trim"]["bytes"]), trims * 4096);
        // One flush per four writes issued (the last few may be owed still).
        assert!(
            flushes.abs_diff(writes / 4) <= 1,
            "{op}: {writes} writes, {flushes}"
        );
        let discards = (after.0 - before.0) + (after.1 - before.1);
        assert!(
            (trims..=trims + 1).contains(&discards),
            "{op}: iospd counted {trims} trims, the device {discards} discards"
        );
        let device_flushes = after.2 - before.2;
        assert!(
            (flushes..=flushes + 1).contains(&device_flushes),
            "{op}: iospd counted {flushes} flushes, the device {device_flushes}"
        );
        // Trims are their own rows, not part of the total (data moved).
        assert_eq!(
            count(&t["total"]["ios"]),
            count(&t["read"]["ios"]) + writes,
            "{t}"
        );
    }
}

/// A sequential run of trims only covers the device: it reads back as zeros (a loop device
/// punches holes in its backing file, which read as zeros).
#[test]
fn a_trimmed_loop_device_reads_back_zeros() {
    let test = "a_trimmed_loop_device_reads_back_zeros";
    let Some(device) = LoopDevice::new(8, test) else {
        return;
    };
    let output = iospd()
        .args(["-b64K", "-w100", "-Zr", "-d1", "-W0", "-Sh", &device.arg()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        device.contents().iter().any(|&b| b != 0),
        "the writes wrote"
    );
    // io_uring's discard command, then psync's BLKDISCARD over new data.
    for engine in ["--engine=io_uring", "--engine=psync"] {
        let report = run_json(&[
            "-b64K",
            "--trim=100",
            "-d1",
            "-W0",
            "-Sh",
            engine,
            &device.arg(),
        ]);
        let trims = count(&totals(&report)["trim"]["ios"]);
        assert!(
            trims >= 128,
            "{engine}: one pass of 128 blocks at least: {trims}"
        );
        assert!(device.contents().iter().all(|&b| b == 0), "{engine}");
        let output = iospd()
            .args(["-b64K", "-w100", "-Zr", "-d1", "-W0", "-Sh", &device.arg()])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
}

/// A file's trims are punched holes: the file keeps its size, frees its blocks, reads zeros.
#[test]
fn a_trimmed_file_keeps_its_size_and_frees_its_blocks() {
    let dir = crate::util::TempDir::new();
    let file = dir.arg("t.dat");
    let output = iospd()
        .args(["-c16M", "-b64K", "-w100", "-Zr", "-d1", "-W0", "-Sh", &file])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let full = fs::metadata(&file).unwrap().blocks();
    let report = run_json(&["-b64K", "--trim=100", "-d1", "-W0", "-Sh", &file]);
    assert!(count(&totals(&report)["trim"]["ios"]) >= 256);
    let meta = fs::metadata(&file).unwrap();
    assert_eq!(meta.len(), 16 << 20);
    assert!(
        meta.blocks() < full / 16,
        "{} of {full} blocks left",
        meta.blocks()
    );
    assert!(fs::read(&file).unwrap().iter().all(|&b| b == 0));
}

/// Trims change a device's content: the gate refuses them where it refuses writes, a mounted
/// device or one holding a file system, and leaves the device as it was.
#[test]
fn trims_are_refused_where_writes_are() {
    let test = "trims_are_refused_where_writes_are";
    let Some(tools) = devices(test, &["mkfs.ext4"]) else {
        return;
    };
    let Some(device) = LoopDevice::with(&tools, 64, test) else {
        return;
    };
    tools.must("mkfs.ext4", &["-q", "-F", &device.arg()]);
    let trim = |device: &LoopDevice| {
        iospd()
            .args(["-d1", "-W0", "-b4K", "--trim=10", &device.arg()])
            .output()
            .unwrap()
    };
    let before = device.contents();
    let output = trim(&device);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(err.contains("it holds an ext4 file system"), "{err}");
    assert!(
        device.contents() == before,
        "the refused run changed the device"
    );
    let _mount = Mount::new(&tools, &device.arg(), "ext4", "").expect("mount ext4");
    let output = trim(&device);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(err.contains("it is mounted at"), "{err}");
}

#[test]
fn every_format_has_trim_and_flush_rows() {
    let dir = crate::util::TempDir::new();
    let file = dir.arg("f.dat");
    let args = [
        "-c8M",
        "-b4K",
        "-r",
        "-w50",
        "--trim=10",
        "--fsync=8",
        "-d1",
        "-L",
        "-D500",
    ];
    let output = iospd().args(args).args(["-Rxml", &file]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let xml = String::from_utf8(output.stdout).unwrap();
    for tag in [
        "<TrimCount>",
        "<FlushCount>",
        "<TrimMilliseconds>",
        "<FlushMilliseconds>",
    ] {
        assert!(xml.contains(tag), "{tag}");
    }
    validate_xml(&[("trim", &xml)], "every_format_has_trim_and_flush_rows");
    let output = iospd().args(args).arg(&file).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    for line in [
        "\nTrim IO\n",
        "\nFlush IO\n",
        "  %-ile |  Read (ms) | Write (ms) | Total (ms) |  Trim (ms) | Flush (ms)",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
    let csv = dir.join("f.csv");
    let output = iospd()
        .args(args)
        .arg(format!("--output={}", csv.display()))
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = fs::read_to_string(csv).unwrap();
    let header = csv.lines().next().unwrap();
    for column in [
        "trims_per_s",
        "trim_p99_us",
        "flushes_per_s",
        "flush_p99_us",
    ] {
        assert!(
            header.split(',').any(|c| c == column),
            "{column} in {header}"
        );
    }
    let html = dir.join("f.html");
    let output = iospd()
        .args(args)
        .arg(format!("--output={}", html.display()))
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let html = fs::read_to_string(html).unwrap();
    assert!(html.contains(">trim<") && html.contains(">flush<"));
    // Without the options, DiskSpd's layout is unchanged.
    let output = iospd()
        .args(["-c8M", "-b4K", "-r", "-w50", "-d1", "-L", &file])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(!text.contains("Trim IO") && !text.contains("Flush (ms)"));
}

#[test]
fn bad_trim_and_flush_are_refused_before_anything_is_written() {
    assert_refused_untouched(&[
        (vec!["--trim=0"], "1 to 100"),
        (vec!["--trim=101"], "1 to 100"),
        (vec!["--trim=ten"], "1 to 100"),
        (vec!["-w50", "--fsync=0"], "at least 1"),
        (vec!["-w50", "--fsync=4", "--fdatasync=4"], "give one"),
        (vec!["-w50", "--fdatasync=4", "--fsync=4"], "give one"),
        (vec!["-w50", "-Sm", "--trim=10"], "drop one"),
        (vec!["-w50", "-Sm", "--fsync=4"], "drop one"),
        (vec!["-w50", "--verify", "--trim=10"], "drop them to verify"),
        (vec!["-w50", "--verify", "--fsync=4"], "drop them to verify"),
        (vec!["-w50", "--dedupe=2", "--trim=10"], "use one"),
    ]);
    // A flush follows writes: a run without them is refused (and its file is not created).
    let dir = crate::util::TempDir::new();
    let file = dir.arg("r.dat");
    fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let output = iospd().args(["-d1", "--fsync=4", &file]).output().unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("add -w<percent>"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::read(&file).unwrap(), vec![7u8; 1 << 20]);
}

/// A trim changes a device: a read-only one is refused for it as for writes, one line naming the
/// fix, before any I/O; reading it still runs.
#[test]
fn a_trim_share_on_a_read_only_device_is_refused() {
    let test = "a_trim_share_on_a_read_only_device_is_refused";
    let Some(device) = LoopDevice::new(16, test) else {
        return;
    };
    let tools = device.tools();
    tools.must("blockdev", &["--setro", &device.arg()]);
    let output = iospd()
        .args(["-d1", "-W0", "-b4K", "-r", "--trim=10", &device.arg()])
        .output()
        .unwrap();
    let read = iospd()
        .args(["-d1", "-W0", "-b4K", "-r", &device.arg()])
        .output()
        .unwrap();
    tools.must("blockdev", &["--setrw", &device.arg()]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("is a read-only device") && err.contains("blockdev --setrw"),
        "{err}"
    );
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
}
