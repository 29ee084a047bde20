//! `--verify` and `iospd verify`: no false alarms under the workloads people run (random and
//! sequential, mixed, many threads and slots, several targets, both engines), and every kind of
//! damage found at its exact offset — on files and on a loop device.

use std::os::unix::fs::FileExt;
use std::path::Path;

use iospd::report::Report;
use iospd::verify::format::{self, Header, Pattern};
use iospd::verify::state::State;

use crate::util::machine::LoopDevice;
use crate::util::{TempDir, iospd, stderr, stdout, validate_json, validate_xml};

/// Runs iospd with `args` and `--output=<dir>/r.json`; returns the exit status and the report.
fn verified_run(dir: &TempDir, args: &[&str]) -> (Option<i32>, Report, String) {
    let json = dir.arg("r.json");
    let output = iospd()
        .arg(format!("--output={json}"))
        .args(args)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stderr(&output)));
    let report: Report = serde_json::from_str(&text).unwrap();
    (output.status.code(), report, text)
}

#[test]
fn healthy_targets_verify_clean_under_every_access_pattern() {
    let dir = TempDir::new();
    let (a, b) = (dir.arg("a.dat"), dir.arg("b.dat"));
    let cases: Vec<Vec<&str>> = vec![
        // The false-alarm test: random 70/30, 4 threads at QD32, several seeds.
        vec!["-r", "-w30", "-t4", "-o32", "-z1"],
        vec!["-r", "-w30", "-t4", "-o32", "-z2"],
        vec!["-r", "-w30", "-t4", "-o32", "-z3", "--engine=psync"],
        // Sequential threads that walk the same blocks at once, and interlocked.
        vec!["-s", "-w50", "-t4", "-o8"],
        vec!["-si", "-w50", "-t4", "-o4"],
        // Mixed runs of sequential and random, a skewed distribution, a base offset.
        vec!["-rs50", "-w30", "-t2", "-o16"],
        vec!["-r", "-rdpct10/80:90/20", "-w50", "-t2", "-o16"],
        vec!["-r", "-B64K", "-w50", "-t2", "-o16"],
    ];
    for case in &cases {
        let mut args = vec!["-c4M", "-b8K", "-d1", "-W0", "--verify", "-Sh"];
        args.extend(case);
        args.push(&a);
        args.push(&b);
        let (code, report, _) = verified_run(&dir, &args);
        assert_eq!(code, Some(0), "{case:?}");
        let v = report.timespans[0].verify.as_ref().expect("verify counts");
        assert_eq!(v.failed.total(), 0, "{case:?}: {:?}", v.first);
        assert!(v.verified > 100 && v.written > 100, "{case:?}: {v:?}");
        // Both files were created verifiable, so no read is skipped.
        assert_eq!(v.skipped, 0, "{case:?}");
    }
    // The counts are in every format.
    let xml = iospd()
        .args([
            "-c1M", "-b4K", "-r", "-w50", "-d1", "-W0", "--verify", "-Rxml",
        ])
        .arg(&a)
        .output()
        .unwrap();
    validate_xml(&[("verify", &stdout(&xml))], "verify XML");
    assert!(stdout(&xml).contains("<Verify RunId="));
    let (_, _, json) = verified_run(&dir, &["-b4K", "-r", "-w50", "-d1", "-W0", "--verify", &a]);
    validate_json(&json);
    let csv = dir.arg("r.csv");
    let text = iospd()
        .args(["-b4K", "-r", "-w50", "-d1", "-W0", "--verify"])
        .arg(format!("--output={csv}"))
        .arg(&a)
        .output()
        .unwrap();
    let rows = std::fs::read_to_string(&csv).unwrap();
    let (header, row) = rows.split_once('\n').unwrap();
    assert!(
        header.ends_with(",blocks_verified,blocks_skipped,blocks_failed"),
        "{header}"
    );
    assert!(row.trim_end().ends_with(",0"), "{row}");
    assert!(
        stdout(&text).contains("reads verified:"),
        "{}",
        stdout(&text)
    );
}

/// A write run with a state file on `target` (created at 2 MiB unless it is a device); returns
/// the state.
fn written(target: &str, state: &str, create: bool) -> State {
    let mut args = vec![
        "-b8K", "-r", "-w100", "-o8", "-t2", "-d1", "-W0", "--verify",
    ];
    if create {
        args.push("-c2M");
    }
    let output = iospd()
        .args(&args)
        .arg(format!("--verify-state={state}"))
        .arg(target)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    State::parse(&std::fs::read_to_string(state).unwrap()).unwrap()
}

/// `iospd verify` of `state`: exit status and stdout.
fn verify_later(state: &str, target: Option<&str>) -> (Option<i32>, String) {
    let output = iospd()
        .args(["verify", &format!("--verify-state={state}")])
        .args(target)
        .output()
        .unwrap();
    (output.status.code(), stdout(&output))
}

/// Blocks of the state's first target written at least twice: (offset, generation).
fn rewritten(state: &State) -> Vec<(u64, u64)> {
    let t = &state.targets[0];
    let table = t.table().unwrap();
    (0..table.len())
        .filter(|&i| table.generation(i) >= 2)
        .map(|i| (t.base + i as u64 * t.block, table.generation(i) as u64))
        .collect()
}

/// The exact bytes generation `generation` of the block at `offset` had: the payload is a
/// function of (run id, offset, generation), so this is an older copy of the block.
fn older_copy(state: &State, offset: u64, generation: u64, thread: u32) -> Vec<u8> {
    let block = state.targets[0].block as usize;
    let mut buf = vec![0u8; block];
    let header = Header {
        len: block as u32,
        run_id: state.run_id,
        offset,
        generation,
        target: 0,
        thread,
        flags: 0,
    };
    format::write(&mut buf, &header, &Pattern::new(state.run_id, block));
    buf
}

fn read_block(path: &Path, offset: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    std::fs::File::open(path)
        .unwrap()
        .read_exact_at(&mut buf, offset)
        .unwrap();
    buf
}

fn write_block(path: &Path, offset: u64, bytes: &[u8]) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.write_all_at(bytes, offset).unwrap();
    file.sync_all().unwrap();
}

/// The line `iospd verify` prints for the first bad block.
fn first_bad(text: &str) -> &str {
    text.lines()
        .find(|l| l.starts_with("    ") && l.contains("' offset "))
        .unwrap_or_else(|| panic!("no bad block in: {text}"))
        .trim()
}

#[test]
fn every_kind_of_damage_is_found_at_its_offset() {
    let dir = TempDir::new();
    let (target, state_path) = (dir.join("t.dat"), dir.arg("t.vstate"));
    let t = target.display().to_string();
    let damage = |what: &dyn Fn(&State)| {
        let state = written(&t, &state_path, true);
        let (code, text) = verify_later(&state_path, None);
        assert_eq!(code, Some(0), "healthy before the damage: {text}");
        what(&state);
        verify_later(&state_path, None)
    };
    let block = 8192usize;
    // One byte flipped: corrupt, at that offset and byte.
    let (code, text) = damage(&|state| {
        let (offset, _) = rewritten(state)[0];
        let mut bytes = read_block(&target, offset, block);
        bytes[5000] ^= 0x10;
        write_block(&target, offset, &bytes);
    });
    let state = State::parse(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    let (offset, _) = rewritten(&state)[0];
    assert_eq!(code, Some(1), "{text}");
    let line = first_bad(&text);
    assert!(
        line.starts_with(&format!("corrupt: '{t}' offset {offset} ")),
        "{text}"
    );
    assert!(text.contains("first differing byte 5000"), "{text}");
    assert!(text.contains("1 bad block(s)"), "{text}");
    // Block A copied over block B: misdirected, at B.
    let (code, text) = damage(&|state| {
        let blocks = rewritten(state);
        let (a, b) = (blocks[0].0, blocks[1].0);
        write_block(&target, b, &read_block(&target, a, block));
    });
    let state = State::parse(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    let b = rewritten(&state)[1].0;
    assert_eq!(code, Some(1));
    assert!(
        first_bad(&text).starts_with(&format!("misdirected: '{t}' offset {b} ")),
        "{text}"
    );
    // An older copy of a block restored: its last write was lost.
    let (code, text) = damage(&|state| {
        let (offset, generation) = rewritten(state)[0];
        let thread = format::decode(&read_block(&target, offset, block))
            .unwrap()
            .thread;
        write_block(
            &target,
            offset,
            &older_copy(state, offset, generation - 1, thread),
        );
    });
    let state = State::parse(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    let (offset, generation) = rewritten(&state)[0];
    assert_eq!(code, Some(1));
    assert!(
        first_bad(&text).starts_with(&format!("lost: '{t}' offset {offset} ")),
        "{text}"
    );
    assert!(
        text.contains(&format!("generation {generation}; found")),
        "{text}"
    );
    // Half of a block's sectors from the write before: torn, at sector 8 of 16.
    let (code, text) = damage(&|state| {
        let (offset, generation) = rewritten(state)[0];
        let older = older_copy(state, offset, generation - 1, 0);
        write_block(&target, offset + 4096, &older[4096..]);
    });
    let state = State::parse(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    let (offset, generation) = rewritten(&state)[0];
    assert_eq!(code, Some(1));
    assert!(
        first_bad(&text).starts_with(&format!("torn: '{t}' offset {offset} ")),
        "{text}"
    );
    assert!(
        text.contains(&format!("sector 8 is from generation {}", generation - 1)),
        "{text}"
    );
}

#[test]
fn a_loop_device_is_verified_after_the_run_and_a_stale_block_is_found() {
    let test = "a_loop_device_is_verified_after_the_run_and_a_stale_block_is_found";
    let Some(device) = LoopDevice::new(8, test) else {
        return;
    };
    let dir = TempDir::new();
    let (d, state_path) = (device.arg(), dir.arg("d.vstate"));
    let first = written(&d, &state_path, false);
    let (code, text) = verify_later(&state_path, Some(&d));
    assert_eq!(code, Some(0), "{text}");
    // Every block is either checked or, never written on the blank device, skipped and counted.
    let blocks = first.targets[0].blocks;
    let line = text
        .lines()
        .find(|l| l.contains("blocks verified"))
        .unwrap();
    // The counts follow the device's name, which has digits of its own (/dev/loop1).
    let counts = line.rsplit_once("':").map_or(line, |(_, counts)| counts);
    let numbers: Vec<u64> = counts
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert_eq!(numbers[0] + numbers[1], blocks, "{line}");
    // The device as the first run left it; then a second run (another run id).
    let image = read_block(Path::new(&d), 0, (8 << 20) as usize);
    let second = written(&d, &state_path, false);
    assert_ne!(second.run_id, first.run_id);
    let (t1, t2) = (
        first.targets[0].table().unwrap(),
        second.targets[0].table().unwrap(),
    );
    let both = (0..t2.len())
        .find(|&i| t1.generation(i) > 0 && t2.generation(i) > 0)
        .expect("both runs wrote a block") as u64
        * 8192;
    // The first run's copy of a block the second run rewrote: stale.
    write_block(
        Path::new(&d),
        both,
        &image[both as usize..both as usize + 8192],
    );
    let (code, text) = verify_later(&state_path, Some(&d));
    assert_eq!(code, Some(1), "{text}");
    assert!(
        first_bad(&text).starts_with(&format!("stale: '{d}' offset {both} ")),
        "{text}"
    );
}

#[test]
fn a_corruption_during_a_run_fails_it_and_verify_stop_ends_it() {
    for stop in [false, true] {
        let dir = TempDir::new();
        let target = dir.join("c.dat");
        let child = iospd()
            .args([
                "-c1M", "-b8K", "-r", "-w0", "-o4", "-d4", "-W0", "-Sh", "-Rjson",
            ])
            .arg(if stop { "--verify=stop" } else { "--verify" })
            .arg(&target)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Once creation has written the whole file, flip one byte of block 5.
        while std::fs::metadata(&target).map_or(0, |m| m.len()) < 1 << 20 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        let mut bytes = read_block(&target, 5 * 8192, 8192);
        bytes[100] ^= 0xff;
        write_block(&target, 5 * 8192, &bytes);
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("--verify found"),
            "{}",
            stderr(&output)
        );
        let report: Report = serde_json::from_slice(&output.stdout).unwrap();
        let ts = &report.timespans[0];
        let v = ts.verify.as_ref().unwrap();
        assert!(v.failed.corrupt >= 1, "{v:?}");
        let found = &v.first[0];
        assert_eq!((found.offset, found.len), (5 * 8192, 8192));
        assert_eq!(found.mismatch.first_difference.map(|d| d.0), Some(100));
        if stop {
            // The run ended at the bad block, well before its 4 seconds.
            let m = ts.measured.as_ref().unwrap();
            assert!(m.duration_s < 4.0, "{}", m.duration_s);
            assert!(ts.interrupted && ts.failure.is_none());
        }
    }
}

#[test]
fn verify_refuses_what_it_cannot_check_and_writes_nothing() {
    let dir = TempDir::new();
    let target = dir.arg("n.dat");
    for (args, says) in [
        (vec!["-b1000"], "multiple of 512"),
        (vec!["-b8K", "-r4K"], "not a multiple of its block size"),
        (vec!["-b8K", "-s4K"], "not a multiple of its block size"),
        (vec!["-b8K", "-T4K", "-t2"], "thread stride"),
        (vec!["-b8K", "-Zr"], "drop -Z/-Zr"),
    ] {
        let output = iospd()
            .args(["-c1M", "-d1", "-w50", "--verify"])
            .args(&args)
            .arg(&target)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!Path::new(&target).exists(), "{args:?} created the file");
    }
    let twice = iospd()
        .args(["-c1M", "-d1", "--verify", &target, &target])
        .output()
        .unwrap();
    assert_eq!(twice.status.code(), Some(3));
    assert!(stderr(&twice).contains("named twice"), "{}", stderr(&twice));
    let orphan = iospd()
        .args([
            "-c1M",
            "-d1",
            &format!("--verify-state={}", dir.arg("s")),
            &target,
        ])
        .output()
        .unwrap();
    assert_eq!(orphan.status.code(), Some(3));
    assert!(stderr(&orphan).contains("add --verify"));
    assert!(!Path::new(&target).exists());
    let missing = iospd().args(["verify"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(3));
    assert!(stderr(&missing).contains("--verify-state="));
}
