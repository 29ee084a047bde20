//! "Is this real": each check reproduces the case it catches. Buffered reads of a loop device
//! that the page cache serves (the device's own counters show it), O_DIRECT reads that reach it
//! byte for byte, zram compressing DiskSpd's pattern, a run that the data generator bounds, and
//! `compare` naming a different cache mode.

use serde_json::Value;

use crate::util::machine::{LoopDevice, Zram};
use crate::util::{TempDir, iospd, stderr, validate_json, validate_xml};

/// Runs iospd with `-Rjson` (checked against the schema) and returns the first timespan's
/// `measured.reality`.
fn reality(args: &[&str]) -> Value {
    let output = iospd().arg("-Rjson").args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    validate_json(&text);
    let report: Value = serde_json::from_str(&text).unwrap();
    report["timespans"][0]["measured"]["reality"].clone()
}

/// The findings of a run's `reality`.
pub fn flags(r: &Value) -> Vec<String> {
    r["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

fn bytes(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn page_cached_reads_are_flagged_and_direct_reads_are_not() {
    let test = "page_cached_reads_are_flagged_and_direct_reads_are_not";
    let Some(device) = LoopDevice::new(16, test) else {
        return;
    };
    let name = device.name();
    // Buffered: the first pass reads 16 MiB from the device, the page cache serves the rest.
    let r = reality(&["-b4K", "-r", "-d1", "-W0", "-o4", &device.arg()]);
    let d = &r["devices"][0];
    assert_eq!(d["device"], name.as_str(), "{r}");
    assert!(bytes(&d["issued_read_bytes"]) > 64 << 20, "{r}");
    // The device's 16 MiB once, and a little more: a new block device is probed (udev, blkid)
    // by whoever watches for one, and those reads count too.
    assert!(bytes(&d["reached"]["read_bytes"]) <= 20 << 20, "{r}");
    let found = flags(&r);
    assert!(
        found.iter().any(
            |f| f.contains(&format!("{name} read")) && f.contains("served from the page cache")
        ),
        "{found:?}"
    );
    // O_DIRECT: every byte iospd read is a byte the device read, give or take the I/Os between
    // the workers' window edges and the counters' samples (milliseconds; tens on a machine busy
    // with other tests, so 5 %: the buffered run above reached under a third of what it issued).
    let r = reality(&["-b4K", "-r", "-d1", "-W0", "-o4", "-Sh", &device.arg()]);
    let d = &r["devices"][0];
    let (issued, reached) = (
        bytes(&d["issued_read_bytes"]),
        bytes(&d["reached"]["read_bytes"]),
    );
    assert!(issued > 1 << 20, "{r}");
    assert!(issued.abs_diff(reached) * 20 <= issued, "within 5 %: {r}");
    // Where the time went: the device's mean per request beside iospd's, and the difference.
    let t = &d["time"][0];
    assert_eq!(t["direction"], "read", "{r}");
    assert_eq!(t["requests"], d["reached"]["reads"], "{r}");
    let (device, own) = (
        t["device_mean_ns"].as_f64().unwrap(),
        t["iospd_mean_ns"].as_f64().unwrap(),
    );
    assert!(device > 0.0 && own > 0.0, "{r}");
    assert!(
        (t["stack_mean_ns"].as_f64().unwrap() - (own - device)).abs() < 1e-6,
        "{r}"
    );
    // No cache finding (a machine busy with other tests may add its own: threads that waited
    // for a CPU).
    assert!(
        !flags(&r)
            .iter()
            .any(|f| f.contains("served from") || f.contains("held by")),
        "{r}"
    );
    assert!(
        r["fingerprint"]["cache_modes"][0][1] == "O_DIRECT+O_DSYNC",
        "{r}"
    );
}

#[test]
fn zram_compressing_the_pattern_is_flagged_with_the_datas_own_ratio() {
    let test = "zram_compressing_the_pattern_is_flagged_with_the_datas_own_ratio";
    let Some(zram) = Zram::new(test, "lz4", 64) else {
        return;
    };
    let target = zram.device();
    let r = reality(&["-b4K", "-w100", "-d1", "-W0", "-Sh", &target]);
    let reduction = &r["reduction"][0];
    assert_eq!(reduction["layer"], "zram (lz4)", "{r}");
    assert!(reduction["data_ratio"].as_f64().unwrap() > 10.0, "{r}");
    let found = flags(&r);
    assert!(
        found
            .iter()
            .any(|f| f.contains("zram (lz4)") && f.contains("DiskSpd's 0..255 pattern")),
        "{found:?}"
    );
    // Random data: the same layer, incompressible data, no finding.
    let r = reality(&["-b4K", "-w100", "-d1", "-W0", "-Sh", "-Zr", &target]);
    let ratio = r["reduction"][0]["data_ratio"].as_f64().unwrap();
    assert!(ratio < 1.05, "{r}");
    assert!(!flags(&r).iter().any(|f| f.contains("compresses")), "{r}");
}

/// The null engine does no I/O, so making fresh random data (`-Zr`) for 64 KiB writes is nearly
/// all the thread does: flagged. DiskSpd's fixed pattern costs nothing: not flagged.
#[test]
fn a_run_bound_by_its_data_generator_is_flagged() {
    let dir = TempDir::new();
    let file = dir.arg("g.dat");
    let args = |data: &'static str| {
        vec![
            "-c16M",
            "-b64K",
            "-w100",
            "-d1",
            "-W0",
            "-o8",
            "--engine=null",
            data,
        ]
    };
    let mut run = args("-Zr");
    run.push(&file);
    let r = reality(&run);
    let share = |r: &Value| {
        r["generator"]["generation"][0]["percent_of_thread_time"]
            .as_f64()
            .unwrap()
    };
    let random = share(&r);
    assert!(random > 25.0, "{r}");
    let per_block = |r: &Value| {
        r["generator"]["generation"][0]["ns_per_block"]
            .as_f64()
            .unwrap()
    };
    let random_block = per_block(&r);
    // No I/O: no device to check.
    assert_eq!(r["devices"].as_array().unwrap().len(), 0, "{r}");
    assert!(
        flags(&r)
            .iter()
            .any(|f| f.contains("the data generator may set the pace")),
        "{r}"
    );
    let mut run = args("-Sb");
    run.push(&file);
    let r = reality(&run);
    // A block of the fixed pattern costs a small fraction of a random one (~40 ns against µs);
    // compared per block, not as shares of a thread's time, which a busy machine moves.
    assert!(per_block(&r) < random_block / 10.0, "{r}");
    assert!(
        !flags(&r).iter().any(|f| f.contains("data generator")),
        "{r}"
    );
    assert!(r["generator"]["cpu_ns_per_io"].as_f64().unwrap() > 0.0);
}

#[test]
fn the_text_and_xml_say_it_and_compare_names_a_different_cache_mode() {
    let dir = TempDir::new();
    let file = dir.arg("c.dat");
    let output = iospd()
        .args(["-c8M", "-b4K", "-r", "-d1", "-Rxml", &file])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let xml = String::from_utf8(output.stdout).unwrap();
    assert!(
        xml.contains("<Reality>") && xml.contains("<Fingerprint Id="),
        "{xml}"
    );
    validate_xml(&[("reality", &xml)], "the_text_and_xml_say_it");
    let output = iospd()
        .args(["-c8M", "-b4K", "-r", "-d1", &file])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("    is this real:\n"), "{text}");
    assert!(text.contains("fingerprint "), "{text}");
    // Each run judged on 4 MiB read in its window, however long the machine takes.
    let run = |name: &str, cache: &str| {
        let path = dir.join(name);
        let output = iospd()
            .args(["-b4K", "-r", "-W0", "--ios=1024", cache])
            .arg(format!("--output={}", path.display()))
            .arg(&file)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        path.display().to_string()
    };
    let html = std::fs::read_to_string(run("c.html", "-Sb")).unwrap();
    assert!(html.contains("<h3>Is this real</h3>"), "{html}");
    // Buffered reads of a small file: the page cache served them (or, where the temporary
    // directory is a memory file system, there is no device at all); either is a finding.
    assert!(
        html.contains("served from the page cache") || html.contains("no block device under it"),
        "{html}"
    );
    let (a, b) = (run("a.json", "-Sb"), run("b.json", "-Sh"));
    // Merged runs keep every run's findings.
    let output = iospd()
        .args(["merge", &a, &b, "--allow-mixed", "-Rjson"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
    let r = &merged["timespans"][0]["measured"]["reality"];
    assert!(!flags(r).is_empty(), "the buffered run's finding: {r}");
    // And every run's threads' waits for a CPU (one thread each).
    assert_eq!(r["cpu"]["waited"].as_array().unwrap().len(), 2, "{r}");
    assert!(r["fingerprint"]["id"].is_string(), "{r}");
    let output = iospd().args(["compare", &a, &b]).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
    assert!(
        text.contains("cache modes: ") && text.contains("O_DIRECT+O_DSYNC against"),
        "{text}"
    );
}

/// `--o-sync` (fio's `sync=1`) opens the target O_SYNC — seen in the running process's own
/// descriptor flags — and the fingerprint says so; fio's `sync=1` translates to it.
#[test]
fn o_sync_opens_the_target_o_sync() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let trace = dir.arg("t.trace");
    let mut child = iospd()
        .args(["-Rjson", "-c4M", "-w100", "-Su", "--o-sync", "-d600", "-W0"])
        .args([&format!("--trace={trace}"), &target])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // The flags of a descriptor of the process on the target, once it has one open for I/O.
    let synced = || -> bool {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            return false;
        };
        fds.flatten().any(|fd| {
            let on_target = std::fs::read_link(fd.path()).is_ok_and(|l| l.ends_with("t.dat"));
            let info = std::fs::read_to_string(format!(
                "/proc/{pid}/fdinfo/{}",
                fd.file_name().to_string_lossy()
            ))
            .unwrap_or_default();
            let flags = info
                .lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u64::from_str_radix(f.trim(), 8).ok())
                .unwrap_or(0);
            on_target && flags & libc::O_SYNC as u64 == libc::O_SYNC as u64
        })
    };
    // Polled until seen and the run has measured some writes; the bound only ends a run that
    // never gets there.
    let measured = crate::util::traced(&trace, 10);
    let mut polls = 0;
    while !synced() || !measured() {
        assert!(
            polls < 30_000 && child.try_wait().unwrap().is_none(),
            "no O_SYNC descriptor on the target"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
        polls += 1;
    }
    // SAFETY: a signal to our own child, not yet waited for.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let r = &report["timespans"][0]["measured"]["reality"];
    assert_eq!(
        r["fingerprint"]["cache_modes"][0][1], "O_DIRECT+O_SYNC",
        "{r}"
    );
    assert_eq!(
        report["profile"]["timespans"][0]["targets"][0]["o_sync"],
        true
    );
    let line = iospd()
        .args([
            "fio",
            "-Rp",
            "--name=j",
            "--rw=write",
            "--sync=1",
            "--direct=1",
        ])
        .args(["--size=1m", "--filename=/tmp/iospd-o-sync.dat"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&line.stdout).contains(" -Su --o-sync "),
        "{}",
        String::from_utf8_lossy(&line.stdout)
    );
}
