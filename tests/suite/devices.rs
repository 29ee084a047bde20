//! The safety checks on real block devices, mounts and file systems: loop devices made from files,
//! as root. Each test prints why it is skipped when it cannot run here, and its guards detach,
//! unmount and delete what it made even when it fails.

use crate::util;
use std::fs::{self, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;

use crate::util::machine::{LoopDevice, Mount, devices, mounts};
use crate::util::{run_iospd, stderr, tools};

/// A one-second 4 KiB write test against `target`, plus `extra` options.
fn write_test(target: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["-d1", "-W0", "-w100", "-b4K", "-o4"];
    args.extend_from_slice(extra);
    args.push(target);
    run_iospd(&args)
}

/// A 64 MiB loop device holding an ext4 file system, its tools with `extra` as well.
fn ext4_device(test: &str, extra: &[&'static str]) -> Option<LoopDevice> {
    let names: Vec<&'static str> = ["mkfs.ext4"].iter().chain(extra).copied().collect();
    let device = LoopDevice::with(&devices(test, &names)?, 64, test)?;
    device
        .tools()
        .must("mkfs.ext4", &["-q", "-F", &device.arg()]);
    Some(device)
}

/// Asserts a refusal: exit status 3 and one line on stderr that contains every piece of `says`.
fn assert_refused(output: &std::process::Output, says: &[&str]) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one message: {err}");
    for piece in says {
        assert!(err.contains(piece), "expected {piece:?} in: {err}");
    }
}

#[test]
fn mounted_ext4_device_is_refused_but_may_be_read() {
    let Some(device) = ext4_device("mounted_ext4_device_is_refused_but_may_be_read", &[]) else {
        return;
    };
    let mount = Mount::new(device.tools(), &device.arg(), "ext4", "").expect("mount ext4");
    let output = write_test(&device.arg(), &[]);
    assert_refused(
        &output,
        &[
            &device.arg(),
            &format!("it is mounted at {}", mount.path().display()),
            "Unmount it first, or add --force",
        ],
    );
    let read = run_iospd(&["-d1", "-W0", "-b4K", &device.arg()]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
}

#[test]
fn unmounted_ext4_device_is_refused_and_left_byte_for_byte_unchanged() {
    let Some(device) = ext4_device("unmounted_ext4_device_is_refused_and_left_unchanged", &[])
    else {
        return;
    };
    let before = device.contents();
    let output = write_test(&device.arg(), &[]);
    assert_refused(
        &output,
        &[
            "it holds an ext4 file system (signature at byte 1080)",
            &format!(
                "erase the signatures with: wipefs -a {}, or add --force",
                device.arg()
            ),
        ],
    );
    // A profile of several targets where only the last is dangerous writes nothing either.
    let output = run_iospd(&["-d1", "-W0", "-w50", &device.arg()]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        device.contents() == before,
        "the refused runs changed the device"
    );
}

#[test]
fn wiped_device_is_accepted_and_written() {
    let Some(device) = ext4_device("wiped_device_is_accepted_and_written", &["wipefs"]) else {
        return;
    };
    device.tools().must("wipefs", &["-q", "-a", &device.arg()]);
    let before = device.contents();
    let output = write_test(&device.arg(), &["-Sh"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(device.contents() != before, "the write test wrote nothing");
}

#[test]
fn force_overrides_and_names_the_device_before_starting() {
    let Some(device) = ext4_device("force_overrides_and_names_the_device", &[]) else {
        return;
    };
    let output = write_test(&device.arg(), &["--force"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("holds an ext4 file system"), "{err}");
    assert!(
        err.contains(&format!("--force: writing to {} (", device.arg())) && err.contains("64MiB"),
        "model and size: {err}"
    );
}

#[test]
fn a_device_held_open_exclusively_is_refused() {
    let test = "a_device_held_open_exclusively_is_refused";
    let Some(device) = LoopDevice::new(16, test) else {
        return;
    };
    let _holder = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&device.device)
        .expect("exclusive open");
    let output = write_test(&device.arg(), &[]);
    assert_refused(
        &output,
        &["cannot be opened exclusively", "something else", "fuser -v"],
    );
}

#[test]
fn a_device_in_use_as_swap_is_refused() {
    let test = "a_device_in_use_as_swap_is_refused";
    let Some(tools) = devices(test, &["mkswap", "swapon", "swapoff"]) else {
        return;
    };
    let Some(device) = LoopDevice::with(&tools, 16, test) else {
        return;
    };
    tools.must("mkswap", &["-q", &device.arg()]);
    if let Err(e) = tools.run("swapon", &[&device.arg()]) {
        util::skip(test, &format!("swapon is not allowed here ({e})"));
        return;
    }
    struct SwapOff<'a>(&'a LoopDevice);
    impl Drop for SwapOff<'_> {
        fn drop(&mut self) {
            let _ = self.0.tools().run("swapoff", &[&self.0.arg()]);
        }
    }
    let _swap = SwapOff(&device);
    let output = write_test(&device.arg(), &[]);
    assert_refused(&output, &["is in use as swap", "swapoff"]);
}

#[test]
fn a_disk_whose_partition_is_mounted_is_refused() {
    let test = "a_disk_whose_partition_is_mounted_is_refused";
    let Some(tools) = devices(test, &["sfdisk", "partx", "mkfs.ext4"]) else {
        return;
    };
    let Some(device) = LoopDevice::with(&tools, 64, test) else {
        return;
    };
    tools.must_with_input("sfdisk", &["-q", &device.arg()], b"label: gpt\n,,L\n");
    let _ = tools.run("partx", &["-u", &device.arg()]);
    let partition = format!("{}p1", device.arg());
    if !std::path::Path::new(&partition).exists() {
        util::skip(
            test,
            &format!("the kernel made no partition node {partition}"),
        );
        return;
    }
    tools.must("mkfs.ext4", &["-q", "-F", &partition]);
    let _mount = Mount::new(&tools, &partition, "ext4", "").expect("mount the partition");
    let output = write_test(&device.arg(), &[]);
    assert_refused(
        &output,
        &[&format!("its partition {partition} is mounted at")],
    );
}

#[test]
fn test_files_are_recognised_on_ext4_xfs_and_tmpfs() {
    let test = "test_files_are_recognised_on_ext4_xfs_and_tmpfs";
    let Some(tools) = devices(test, &["mkfs.ext4"]) else {
        return;
    };
    let mut checked = 0;
    for (fs_type, mkfs) in [("ext4", "mkfs.ext4"), ("xfs", "mkfs.xfs"), ("tmpfs", "")] {
        let device;
        let mount = if fs_type == "tmpfs" {
            Mount::new(&tools, "tmpfs", "tmpfs", "size=64m").expect("mount tmpfs")
        } else {
            let on = format!("a test file on {fs_type}");
            let Some(mkfs_tools) = tools::optional(test, mkfs, &on) else {
                continue;
            };
            let tools = tools.clone().and(&mkfs_tools);
            let Some(made) = LoopDevice::with(&tools, 320, test) else {
                return;
            };
            device = made;
            tools.must(mkfs, &["-q", &device.arg()]);
            Mount::new(&tools, &device.arg(), fs_type, "").expect("mount")
        };
        let made = mount.join("made.dat").display().to_string();
        let output = write_test(&made, &["-c8M"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{fs_type}: {}",
            stderr(&output)
        );
        let again = write_test(&made, &[]);
        assert_eq!(
            again.status.code(),
            Some(0),
            "{fs_type}: {}",
            stderr(&again)
        );
        let recreate = write_test(&made, &["-c8M"]);
        assert_eq!(recreate.status.code(), Some(0), "{fs_type}");

        let foreign = mount.join("database.dat");
        fs::write(&foreign, vec![0x5au8; 8 << 20]).unwrap();
        let path = foreign.display().to_string();
        let refused = write_test(&path, &[]);
        assert_refused(
            &refused,
            &["did not create it as a test file", "add --force"],
        );
        let recreate = write_test(&path, &["-c8M"]);
        assert_refused(&recreate, &["refusing to recreate"]);
        assert!(fs::read(&foreign).unwrap() == vec![0x5au8; 8 << 20]);
        let read = run_iospd(&["-d1", "-W0", &path]);
        assert_eq!(read.status.code(), Some(0), "reads are always allowed");
        let forced = write_test(&path, &["--force"]);
        assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
        checked += 1;
    }
    assert!(checked >= 2, "at least ext4 and tmpfs were checked");
}

#[test]
fn running_out_of_space_while_creating_removes_the_partial_file() {
    let test = "running_out_of_space_while_creating_removes_the_partial_file";
    let Some(tools) = mounts(test, &[]) else {
        return;
    };
    let mount = Mount::new(&tools, "tmpfs", "tmpfs", "size=4m").expect("mount tmpfs");
    let path = mount.join("big.dat");
    // Known before anything is written: refused, nothing created.
    let output = run_iospd(&["-c64M", "-d1", "-W0", "-w100", &path.display().to_string()]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("its file system has 4MiB free") && err.contains("big.dat"),
        "{err}"
    );
    assert!(!path.exists());
    // Space taken by someone else while the file is written: the partial file is removed.
    let place = iospd::safety::Place::locate(&path).unwrap();
    let mut anchor = iospd::safety::Anchor::New(place);
    let stop = std::sync::atomic::AtomicU64::new(0);
    let content = iospd::targets::create::CreateContent::Pattern;
    let error = iospd::targets::create::create(&mut anchor, &path, 64 << 20, content, &stop, false)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("No space left on device") && error.contains("partial file was removed"),
        "{error}"
    );
    assert!(!path.exists(), "the partial file was left");
}

#[test]
fn running_out_of_space_mid_run_reports_the_io_and_keeps_the_results() {
    let test = "running_out_of_space_mid_run_reports_the_io";
    let Some(tools) = mounts(test, &[]) else {
        return;
    };
    let mount = Mount::new(&tools, "tmpfs", "tmpfs", "size=2m").expect("mount tmpfs");
    let sparse = mount.join("sparse.dat");
    fs::File::create(&sparse)
        .and_then(|f| f.set_len(256 << 20))
        .unwrap();
    let output = run_iospd(&[
        "-d5",
        "-W0",
        "-w100",
        "-b64K",
        "-si",
        "--force",
        &sparse.display().to_string(),
    ]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("write of 65536 bytes at offset")
            && err.contains("by thread 0")
            && err.contains("No space left on device"),
        "{err}"
    );
    assert!(
        util::stdout(&output).contains("Total IO"),
        "results printed"
    );
}

#[test]
fn a_stall_under_pacing_shows_in_the_intended_start_percentiles() {
    let test = "a_stall_under_pacing_shows_in_the_intended_start_percentiles";
    let Some(device) = ext4_device(test, &["fsfreeze"]) else {
        return;
    };
    let tools = device.tools();
    let mount = Mount::new(tools, &device.arg(), "ext4", "").expect("mount ext4");
    let file = mount.join("paced.dat").display().to_string();
    let made = util::run_iospd(&["-c16M", "-d1", "-W0", &file]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    // 1000 writes a second, 4 in flight; the file system is frozen for one second in the middle.
    let child = util::iospd()
        .args([
            "-d6", "-W0", "-b4K", "-o4", "-r", "-w100", "-Sh", "-L", "-g1000i", "-Rjson",
        ])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let mount_point = mount.path().display().to_string();
    struct Thaw<'a>(&'a tools::Tools, String);
    impl Drop for Thaw<'_> {
        fn drop(&mut self) {
            let _ = self.0.run("fsfreeze", &["-u", &self.1]);
        }
    }
    tools.must("fsfreeze", &["-f", &mount_point]);
    let thaw = Thaw(tools, mount_point);
    std::thread::sleep(std::time::Duration::from_secs(1));
    drop(thaw);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let write = &report["timespans"][0]["measured"]["totals"]["write"];
    let at = |latency: &serde_json::Value, p: f64| {
        latency["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["percentile"].as_f64() == Some(p))
            .unwrap()["value_ns"]
            .as_u64()
            .unwrap()
    };
    let (submitted, intended) = (&write["latency"], &write["latency_from_intended"]);
    let ms = 1_000_000;
    // From submission only the few I/Os in flight saw the freeze: it is in the max, while the
    // p99 stays far below what the schedule's I/Os waited (a busy machine raises both alike).
    assert!(
        submitted["max_ns"].as_u64().unwrap() > 500 * ms,
        "{submitted}"
    );
    assert!(
        at(submitted, 99.0) * 4 < at(intended, 99.0),
        "p99 from submission {} against {} from the intended start",
        at(submitted, 99.0),
        at(intended, 99.0)
    );
    // From the intended start, every I/O the schedule wanted during the freeze waited for it.
    assert!(
        at(intended, 99.0) > 500 * ms,
        "p99 from intended start: {}",
        at(intended, 99.0)
    );
    assert!(
        at(intended, 90.0) > 50 * ms,
        "p90 from intended start: {}",
        at(intended, 90.0)
    );
}

/// Fills `device` with bytes no probe takes for a signature.
fn fill_with_noise(device: &LoopDevice) {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..device.contents().len())
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    fs::write(&device.device, noise).expect("fill the device");
}

#[test]
fn writes_stay_inside_base_and_max_size_and_the_guard_regions_are_untouched() {
    let test = "writes_stay_inside_base_and_max_size_and_the_guard_regions_are_untouched";
    let Some(device) = LoopDevice::new(32, test) else {
        return;
    };
    let mib = 1usize << 20;
    // (options, first byte, end of the range) — every pattern that computes offsets.
    let cases: &[(&[&str], usize, usize)] = &[
        (&["-t2", "-si", "-o8", "-f16M"], 0, 16 * mib),
        (&["-t3", "-T1M", "-f10M", "-b64K"], 0, 10 * mib),
        (
            &["-t2", "-r", "--offset-increment=4M", "-B4M", "-f16M"],
            4 * mib,
            16 * mib,
        ),
        (&["-s1M", "-p", "-o4", "-B4M", "-f20M"], 4 * mib, 20 * mib),
        (&["-r", "-o8", "-B8M", "-f24M"], 8 * mib, 24 * mib),
        (&["-rs30", "-b8K", "-o8", "-B1M", "-f9M"], mib, 9 * mib),
        (
            &["-r", "-rdpct90/10:10/90", "-o8", "-B2M", "-f12M"],
            2 * mib,
            12 * mib,
        ),
        (
            &["-r", "-rdabs70/1M", "-o8", "-B3M", "-f7M"],
            3 * mib,
            7 * mib,
        ),
    ];
    let target = device.arg();
    let run = |options: &[&str]| {
        let mut args = vec!["-d1", "-W0", "-w100"];
        args.extend_from_slice(options);
        if !options.iter().any(|o| o.starts_with("-b")) {
            args.push("-b4K");
        }
        args.push(&target);
        run_iospd(&args)
    };
    for (options, start, end) in cases {
        fill_with_noise(&device);
        let before = device.contents();
        let output = run(options);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{options:?}: {}",
            stderr(&output)
        );
        let after = device.contents();
        assert!(
            after[*start..*end] != before[*start..*end],
            "{options:?} wrote nothing"
        );
        assert!(
            after[..*start] == before[..*start] && after[*end..] == before[*end..],
            "{options:?} wrote outside {start}..{end}"
        );
    }
    // A stride past the range, which once wrapped the shared counter and wrote every 32 MiB.
    let before = device.contents();
    let output = run(&["-f1M", "-t2", "-si9223372036871553024"]);
    assert_refused(&output, &["-si9223372036871553024", "is larger than"]);
    assert!(device.contents() == before, "a refused run wrote");
}

#[test]
fn ten_write_runs_in_a_row_on_one_device_all_start() {
    let test = "ten_write_runs_in_a_row_on_one_device_all_start";
    let Some(device) = LoopDevice::new(16, test) else {
        return;
    };
    for run in 0..10 {
        let output = run_iospd(&["-d1", "-W0", "-w100", "-b4K", "-o32", &device.arg()]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "run {run}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_read_only_device_is_refused_before_a_write_test_starts() {
    let Some(device) = LoopDevice::new(16, "a_read_only_device_is_refused") else {
        return;
    };
    let tools = device.tools();
    tools.must("blockdev", &["--setro", &device.arg()]);
    let output = write_test(&device.arg(), &[]);
    tools.must("blockdev", &["--setrw", &device.arg()]);
    assert_refused(&output, &["is a read-only device", "blockdev --setrw"]);
    let read = run_iospd(&["-d1", "-W0", "-b4K", &device.arg()]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
}

#[test]
fn one_device_under_two_names_is_held_once() {
    let Some(device) = LoopDevice::new(16, "one_device_under_two_names_is_held_once") else {
        return;
    };
    let dir = util::TempDir::new();
    let link = dir.join("disk");
    std::os::unix::fs::symlink(&device.device, &link).unwrap();
    let output = write_test(&device.arg(), &[&link.display().to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn a_disk_and_its_partition_written_together_are_refused_by_name() {
    let test = "a_disk_and_its_partition_written_together_are_refused_by_name";
    let Some(tools) = devices(test, &["sfdisk", "partx"]) else {
        return;
    };
    let Some(device) = LoopDevice::with(&tools, 64, test) else {
        return;
    };
    tools.must_with_input("sfdisk", &["-q", &device.arg()], b"label: dos\n,32M\n");
    let _ = tools.run("partx", &["-u", &device.arg()]);
    let part = format!("{}p1", device.arg());
    // --force passes the partition table; writing the disk and its partition at once is still
    // refused.
    let output = write_test(&device.arg(), &["--force", &part]);
    assert_refused(
        &output,
        &[&format!("'{part}' is a partition of '{}'", device.arg())],
    );
}
