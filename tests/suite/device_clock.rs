//! The device clock: each request on a loop device timed in the kernel, its percentiles beside
//! iospd's and the stack's part between them, in JSON, XML and text; its reason when it cannot
//! run (no privilege, `--no-device-clock`); and nothing of it left in the kernel after a run that
//! was killed.

use serde_json::Value;

use crate::util::machine::{LoopDevice, Zram, root};
use crate::util::{TempDir, iospd, stderr, stdout, tools, traced, validate_json, validate_xml};

/// The JSON report of a run with `args` that succeeded, checked against the schema.
fn json_run(args: &[&str]) -> Value {
    let output = iospd().arg("-Rjson").args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    validate_json(&text);
    serde_json::from_str(&text).unwrap()
}

/// The five numbers of a spread, in order.
fn five(s: &Value) -> [f64; 5] {
    ["mean_ns", "p50_ns", "p99_ns", "p99_9_ns", "max_ns"]
        .map(|k| s[k].as_f64().unwrap_or_else(|| panic!("{k} in {s}")))
}

/// The ids and names of the BPF programs loaded in the kernel now (every process's).
fn loaded_programs() -> Vec<(u32, String)> {
    // bpf(2) commands and the offset of the name in struct bpf_prog_info.
    const PROG_GET_NEXT_ID: i64 = 11;
    const PROG_GET_FD_BY_ID: i64 = 13;
    const OBJ_GET_INFO_BY_FD: i64 = 15;
    const NAME: usize = 64;
    let bpf = |cmd: i64, attr: &mut [u8; 128]| {
        // SAFETY: the attribute is a 128-byte buffer the kernel reads and writes within.
        unsafe { libc::syscall(libc::SYS_bpf, cmd, attr.as_mut_ptr(), 128u32) }
    };
    let mut names = Vec::new();
    let mut id = 0u32;
    loop {
        let mut attr = [0u8; 128];
        attr[..4].copy_from_slice(&id.to_ne_bytes());
        if bpf(PROG_GET_NEXT_ID, &mut attr) != 0 {
            break;
        }
        id = u32::from_ne_bytes(attr[4..8].try_into().unwrap());
        let mut attr = [0u8; 128];
        attr[..4].copy_from_slice(&id.to_ne_bytes());
        let fd = bpf(PROG_GET_FD_BY_ID, &mut attr);
        if fd < 0 {
            continue;
        }
        let mut info = [0u8; 256];
        let mut attr = [0u8; 128];
        attr[..4].copy_from_slice(&(fd as u32).to_ne_bytes());
        attr[4..8].copy_from_slice(&256u32.to_ne_bytes());
        attr[8..16].copy_from_slice(&(info.as_mut_ptr() as u64).to_ne_bytes());
        if bpf(OBJ_GET_INFO_BY_FD, &mut attr) == 0 {
            let name = &info[NAME..NAME + 16];
            let end = name.iter().position(|&c| c == 0).unwrap_or(16);
            names.push((id, String::from_utf8_lossy(&name[..end]).into_owned()));
        }
        // SAFETY: closes the descriptor opened above.
        unsafe { libc::close(fd as i32) };
    }
    names
}

/// The ids of the BPF programs process `pid` holds (`/proc/<pid>/fdinfo`).
fn held_programs(pid: u32) -> Vec<u32> {
    let mut ids = Vec::new();
    for fd in std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
    {
        let link = std::fs::read_link(fd.path()).unwrap_or_default();
        if link.to_string_lossy() != "anon_inode:bpf-prog" {
            continue;
        }
        let info = std::fs::read_to_string(format!(
            "/proc/{pid}/fdinfo/{}",
            fd.file_name().to_string_lossy()
        ))
        .unwrap_or_default();
        ids.extend(
            info.lines()
                .filter_map(|l| l.strip_prefix("prog_id:"))
                .filter_map(|v| v.trim().parse::<u32>().ok()),
        );
    }
    ids
}

/// A run of 20,000 O_DIRECT reads on a loop device, every request timed; its report.
fn timed_reads(device: &LoopDevice, format: &str, more: &[&str]) -> String {
    let output = iospd()
        .args(["-b4K", "-r", "-o4", "-Sh", "-W0", "--ios=20000"])
        .args((!more.contains(&"--no-device-clock")).then_some("--device-clock=every"))
        .arg(format!("-R{format}"))
        .args(more)
        .arg(device.arg())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

#[test]
fn each_request_on_a_loop_device_is_timed_beside_iospd_s_latency() {
    let test = "each_request_on_a_loop_device_is_timed_beside_iospd_s_latency";
    let Some(device) = LoopDevice::new(64, test) else {
        return;
    };
    let dir = TempDir::new();
    let text = timed_reads(&device, "json", &[]);
    validate_json(&text);
    let report: Value = serde_json::from_str(&text).unwrap();
    let m = &report["timespans"][0]["measured"];
    let r = &m["reality"];
    assert!(r.get("clock_off").is_none(), "{r}");
    let d = &r["devices"][0];
    let t = &d["time"][0];
    assert_eq!(t["direction"], "read", "{r}");
    let c = &t["clock"];
    let (timed, completed) = (
        c["requests"].as_u64().unwrap(),
        c["completed"].as_u64().unwrap(),
    );
    // Every process's requests: about iospd's 20,000 (the window's edges are read a moment
    // after its threads start and after they end), each seen by the block layer too, and each
    // timed (--device-clock=every), not a sample.
    assert!(timed >= 19_000, "{c}");
    assert_eq!(c["timed"], c["requests"], "{c}");
    assert_eq!(completed, d["reached"]["reads"].as_u64().unwrap(), "{r}");
    assert!(
        timed <= completed && timed * 100 >= completed * 99,
        "the clock timed {timed} of {completed} requests: {c}"
    );
    let (device_t, own, stack) = (five(&c["device"]), five(&c["iospd"]), five(&c["stack"]));
    for s in [device_t, own] {
        assert!(
            0.0 < s[1] && s[1] <= s[2] && s[2] <= s[3] && s[3] <= s[4],
            "{c}"
        );
    }
    // The device's part of a read is less than iospd's whole latency of it.
    assert!(device_t[0] < own[0] && device_t[1] < own[1], "{c}");
    for i in 0..5 {
        assert!((stack[i] - (own[i] - device_t[i])).abs() < 1e-6, "{c}");
    }
    // iospd's side is the target's own latency.
    let lat = &m["targets"][0]["read"]["latency"];
    assert_eq!(own[0], lat["mean_ns"].as_f64().unwrap(), "{lat}");
    let p50 = lat["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["percentile"] == 50.0)
        .unwrap();
    assert_eq!(own[1], p50["value_ns"].as_f64().unwrap(), "{lat}");
    // The loop device queues each request in blk-mq before issuing it.
    assert!(five(&c["queued"])[0] > 0.0, "{c}");
    // The curves: 0.05 nines a step, as far as 20,000 and more requests reach (four nines),
    // rising, through the spread's p50 and p99 at 0.30103 and 2 nines.
    let curve = |name: &str| -> Vec<(f64, f64)> {
        c[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
            .collect()
    };
    for (name, spread) in [("device_curve", device_t), ("iospd_curve", own)] {
        let points = curve(name);
        assert_eq!(points.len(), 81, "{name}: {points:?}");
        assert!(
            points.windows(2).all(|w| w[0].1 <= w[1].1),
            "{name}: {points:?}"
        );
        assert_eq!(points[40], (2.0, spread[2]), "{name}: p99 is at 2 nines");
    }

    // Each of the slowest I/Os was found among the requests the device completed (with four
    // I/Os in flight and nothing else on the device, none is pushed out before it is looked up),
    // and its request took no longer than the I/O.
    let slowest = m["slowest"].as_array().unwrap();
    assert_eq!(slowest.len(), 10, "{slowest:?}");
    for io in slowest {
        let device_ns = io["device_ns"].as_u64();
        assert!(
            device_ns.is_some_and(|d| 0 < d && d <= io["latency_ns"].as_u64().unwrap()),
            "{io}"
        );
    }

    let xml = timed_reads(&device, "xml", &[]);
    validate_xml(&[("clock", &xml)], test);
    assert!(xml.contains("<Clock Requests=") && xml.contains("<Stack MeanNs="));
    assert!(
        xml.contains("<SlowestIOs>") && xml.contains(" DeviceNanoseconds=\""),
        "{xml}"
    );
    let html = dir.arg("r.html");
    let text = timed_reads(&device, "text", &[&format!("--output={html}")]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("reads, each request timed")
            && page.contains("<td class=\"l\">on the device</td>")
            && page.contains("reads: each request on the device, and iospd"),
        "{page}"
    );
    assert!(
        text.contains("reads, each request timed in the kernel")
            && text.contains("above the device"),
        "{text}"
    );
}

#[test]
fn without_the_clock_the_report_says_why_in_one_line() {
    let test = "without_the_clock_the_report_says_why_in_one_line";
    let Some(device) = LoopDevice::new(16, test) else {
        return;
    };
    let dir = TempDir::new();
    let text = timed_reads(&device, "json", &["--no-device-clock"]);
    let report: Value = serde_json::from_str(&text).unwrap();
    let r = &report["timespans"][0]["measured"]["reality"];
    assert!(
        r["clock_off"]
            .as_str()
            .unwrap()
            .starts_with("--no-device-clock"),
        "{r}"
    );
    assert!(r["devices"][0]["time"][0].get("clock").is_none(), "{r}");
    // Without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN the kernel refuses the programs: the run
    // goes on and says so.
    let Some(tools) = tools::need(test, &["setpriv"]) else {
        return;
    };
    let path = dir.arg("t.dat");
    let drop = "-bpf,-perfmon,-sys_admin";
    let output = tools
        .command("setpriv")
        .args(["--bounding-set", drop, "--inh-caps", drop, "--"])
        .arg(env!("CARGO_BIN_EXE_iospd"))
        .args(["-c8M", "-d1", "-W0", "-Sh", "-Rjson", &path])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let why = report["timespans"][0]["measured"]["reality"]["clock_off"]
        .as_str()
        .unwrap_or_else(|| panic!("{report}"))
        .to_string();
    assert!(
        why.contains("needs root (or CAP_BPF and CAP_PERFMON)"),
        "{why}"
    );
}

#[test]
fn a_killed_run_leaves_no_program_in_the_kernel() {
    let test = "a_killed_run_leaves_no_program_in_the_kernel";
    if !root(test) {
        return;
    }
    let Some(device) = LoopDevice::new(16, test) else {
        return;
    };
    let dir = TempDir::new();
    let trace = dir.arg("t.trace");
    let mut child = iospd()
        .args(["-b4K", "-r", "-Sh", "-W0", "-d600", "-Rjson"])
        .arg(format!("--trace={trace}"))
        .arg(device.arg())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let enough = traced(&trace, 1000);
    while !enough() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let held = held_programs(child.id());
    let names: Vec<String> = loaded_programs()
        .into_iter()
        .filter(|(id, _)| held.contains(id))
        .map(|(_, name)| name)
        .collect();
    assert_eq!(names, ["iospd_issue", "iospd_complete"], "{held:?}");
    child.kill().unwrap();
    child.wait().unwrap();
    // The kernel frees a program when its last descriptor closes, with the process (after an RCU
    // grace period): wait for that, up to a minute.
    for _ in 0..3000 {
        if !loaded_programs().iter().any(|(id, _)| held.contains(id)) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the killed run's programs {held:?} are still loaded");
}

#[test]
fn the_slowest_file_ios_are_found_on_the_disk_under_the_file() {
    // A file on the disk under the temporary directory: each I/O's place on the disk comes from
    // its file system (FIEMAP), and its request is found there.
    let test = "the_slowest_file_ios_are_found_on_the_disk_under_the_file";
    if !root(test) {
        return;
    }
    let dir = TempDir::new();
    let output = iospd()
        .args(["-c32M", "-b4K", "-r", "-o4", "-Sh", "-W0", "-d1", "-Rjson"])
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let m = &report["timespans"][0]["measured"];
    if let Some(off) = m["reality"].get("clock_off") {
        return crate::util::skip(test, &format!("the device clock did not run: {off}"));
    }
    let slowest = m["slowest"].as_array().unwrap();
    let found: Vec<u64> = slowest
        .iter()
        .filter_map(|io| {
            let device = io["device_ns"].as_u64()?;
            assert!(device <= io["latency_ns"].as_u64().unwrap(), "{io}");
            Some(device)
        })
        .collect();
    // Another process's I/O on the same disk can push a request out before it is looked up,
    // but not most of them.
    assert!(found.len() >= 5, "{slowest:?}");
}

#[test]
fn under_d_each_interval_has_its_requests_timed() {
    let test = "under_d_each_interval_has_its_requests_timed";
    let Some(device) = LoopDevice::new(64, test) else {
        return;
    };
    let output = iospd()
        .args(["-b4K", "-r", "-o4", "-Sh", "-W0", "-d2", "-D500", "-Rjson"])
        .arg(device.arg())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    validate_json(&text);
    let report: Value = serde_json::from_str(&text).unwrap();
    let d = &report["timespans"][0]["measured"]["reality"]["devices"][0];
    let window = d["time"][0]["clock"]["requests"].as_u64().unwrap();
    let intervals = d["intervals"].as_array().unwrap();
    assert!(!intervals.is_empty(), "{d}");
    // The intervals' samples are the window's edges and the points between: their requests add
    // up to the window's exactly.
    let mut sum = 0;
    for i in intervals {
        let t = &i["time"][0];
        assert_eq!(t["direction"], "read", "{i}");
        let n: Vec<f64> = ["mean_ns", "p50_ns", "p99_ns", "max_ns"]
            .iter()
            .map(|k| t[k].as_f64().unwrap())
            .collect();
        assert!(
            0.0 < n[1] && n[1] <= n[2] && n[2] <= n[3] && n[0] <= n[3],
            "{t}"
        );
        sum += t["requests"].as_u64().unwrap();
    }
    assert_eq!(sum, window, "{d}");
    let xml = iospd()
        .args(["-b4K", "-r", "-o4", "-Sh", "-W0", "-d1", "-D500", "-Rxml"])
        .arg(device.arg())
        .output()
        .unwrap();
    let xml = stdout(&xml);
    validate_xml(&[("intervals", &xml)], test);
    assert!(xml.contains("<Clock Direction=\"read\" Requests="), "{xml}");
}

#[test]
fn the_time_series_has_each_device_s_requests_per_interval() {
    let test = "the_time_series_has_each_device_s_requests_per_interval";
    let Some(device) = LoopDevice::new(64, test) else {
        return;
    };
    let dir = TempDir::new();
    let csv = dir.arg("ts.csv");
    let output = iospd()
        .args(["-b4K", "-r", "-o4", "-Sh", "-W0", "-d2", "-D500", "-Rjson"])
        .arg(format!("--timeseries={csv}"))
        .arg(device.arg())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let d = &report["timespans"][0]["measured"]["reality"]["devices"][0];
    let window = d["time"][0]["clock"]["requests"].as_u64().unwrap();
    let name = d["device"].as_str().unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let reads: Vec<&Vec<&str>> = rows
        .iter()
        .filter(|r| r[4] == "device" && r[6] == "read")
        .collect();
    let intervals = rows
        .iter()
        .filter(|r| r[4] == "0" && r[6] == "read")
        .count();
    assert_eq!(reads.len(), intervals, "a device row per interval:\n{text}");
    assert!(intervals >= 4, "{text}");
    let mut sum = 0;
    for r in &reads {
        assert_eq!(r[5], name, "{text}");
        let n: u64 = r[7].parse().unwrap();
        let us: Vec<f64> = r[11..17].iter().map(|v| v.parse().unwrap()).collect();
        // min, mean, p50, p99, p99.9, max: in order where there were requests.
        assert!(
            n == 0 || (0.0 < us[0] && us[0] <= us[2] && us[2] <= us[3] && us[3] <= us[5]),
            "{r:?}"
        );
        sum += n;
    }
    // The rows' edges are the window's edges and the points between: their requests add up to
    // the window's exactly.
    assert_eq!(sum, window, "{text}");
}

#[test]
fn above_its_rate_a_device_s_requests_are_timed_by_a_random_sample() {
    let test = "above_its_rate_a_device_s_requests_are_timed_by_a_random_sample";
    let Some(device) = LoopDevice::new(64, test) else {
        return;
    };
    let report = json_run(&["-b4K", "-r", "-o32", "-Sh", "-W0", "-d3", &device.arg()]);
    let m = &report["timespans"][0]["measured"];
    let t = &m["reality"]["devices"][0]["time"][0];
    let c = &t["clock"];
    let (requests, timed, completed) = (
        c["requests"].as_u64().unwrap(),
        c["timed"].as_u64().unwrap(),
        c["completed"].as_u64().unwrap(),
    );
    let per_s = completed as f64 / m["duration_s"].as_f64().unwrap();
    eprintln!(
        "{per_s:.0} requests a second: {timed} timed, standing for {requests} of {completed}"
    );
    if per_s > 80_000.0 {
        // A sample, each timed request counting for the ones it stands for: the estimate is
        // near the block layer's own count.
        assert!(timed < requests / 2, "{c}");
        let off = (requests as f64 / completed as f64 - 1.0).abs();
        assert!(
            off < 0.05,
            "{requests} estimated, {completed} completed: {c}"
        );
        let d = five(&c["device"]);
        assert!(0.0 < d[1] && d[1] <= d[2] && d[2] <= d[3], "{c}");
    } else if per_s < 30_000.0 {
        assert_eq!(
            timed, requests,
            "a slow device has every request timed: {c}"
        );
    }
    let output = iospd()
        .args(["-b4K", "-r", "-o32", "-Sh", "-W0", "-d1"])
        .arg(device.arg())
        .output()
        .unwrap();
    let text = stdout(&output);
    if per_s > 80_000.0 {
        assert!(
            text.contains("reads, a random sample timed in the kernel ("),
            "{text}"
        );
    }
}

#[test]
fn a_bio_based_device_has_its_bios_timed() {
    let test = "a_bio_based_device_has_its_bios_timed";
    let Some(zram) = Zram::new(test, "lz4", 64) else {
        return;
    };
    // Every bio timed, so each of the slowest I/Os has its bio; then the default, a sample
    // above the rate.
    for every in [true, false] {
        let device = zram.device();
        let mut args = vec!["-b4K", "-r", "-o4", "-Sh", "-W0", "-d1", "-w30", "--force"];
        if every {
            args.push("--device-clock=every");
        }
        args.push(&device);
        let report = json_run(&args);
        let m = &report["timespans"][0]["measured"];
        let d = &m["reality"]["devices"][0];
        for t in d["time"].as_array().unwrap() {
            assert_eq!(t["bio_based"], true, "{t}");
            let c = &t["clock"];
            let (requests, completed) = (
                c["requests"].as_u64().unwrap(),
                c["completed"].as_u64().unwrap(),
            );
            // Each bio the block layer counted (within the sample's error when sampled).
            let off = (requests as f64 / completed as f64 - 1.0).abs();
            assert!(off < if every { 0.01 } else { 0.05 }, "{c}");
            let (device_t, own) = (five(&c["device"]), five(&c["iospd"]));
            assert!(0.0 < device_t[1] && device_t[1] <= device_t[2], "{c}");
            // zram serves a bio in the submitting thread: its time is inside iospd's latency.
            assert!(device_t[0] < own[0], "{c}");
            assert!(
                c.get("queued").is_none_or(Value::is_null),
                "bios wait in no queue: {c}"
            );
        }
        if every {
            let slowest = m["slowest"].as_array().unwrap();
            let found = slowest.iter().filter(|io| io["device_ns"].is_u64()).count();
            assert!(found >= 5, "{slowest:?}");
        }
    }
}
