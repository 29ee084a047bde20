//! `--zones` (fio's `zonemode=strided`): each thread moves a zone's size in its window, then
//! goes on to the next window, and back to the first after the last that fits whole; seen in the
//! offsets a run really issued (`--trace`).

use crate::util::{TempDir, assert_refused_untouched, iospd, stderr, stdout};

/// Runs iospd with `args` and `--trace`, and returns each thread's offsets in completion order.
fn offsets(dir: &TempDir, args: &[&str]) -> Vec<Vec<u64>> {
    let trace = dir.arg("run.trace");
    let output = iospd()
        .args(args)
        .arg(format!("--trace={trace}"))
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        stderr(&output)
    );
    let dump = iospd().args(["trace-dump", &trace]).output().unwrap();
    assert_eq!(dump.status.code(), Some(0), "{}", stderr(&dump));
    let mut threads: Vec<Vec<u64>> = Vec::new();
    for line in stdout(&dump).lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let (thread, offset): (usize, u64) =
            (fields[2].parse().unwrap(), fields[5].parse().unwrap());
        if threads.len() <= thread {
            threads.resize(thread + 1, Vec::new());
        }
        threads[thread].push(offset);
    }
    threads
}

#[test]
fn sequential_io_moves_a_zones_size_in_each_window_that_fits_then_starts_again() {
    let dir = TempDir::new();
    // 1 MiB in windows of 16 KiB every 256 KiB: four zones; 8 KiB (two I/Os) in each.
    let args = [
        "-c1M",
        "-b4K",
        "-o1",
        "-t2",
        "-W0",
        "--ios=20",
        "--zones=8K:16K:240K",
    ];
    let threads = offsets(&dir, &args);
    assert_eq!(threads.len(), 2);
    let zone = [0, 4096, 262144, 266240, 524288, 528384, 786432, 790528];
    for offsets in &threads {
        let want: Vec<u64> = zone.iter().cycle().take(20).copied().collect();
        assert_eq!(offsets, &want);
    }
}

#[test]
fn random_io_stays_in_each_window_for_the_zones_size() {
    let dir = TempDir::new();
    // 8 MiB, windows of 16 KiB every 1 MiB + 16 KiB: eight zones; 64 KiB (16 I/Os) in each.
    let args = [
        "-c8M",
        "-b4K",
        "-r",
        "-o1",
        "-W0",
        "--ios=300",
        "--zones=64K:16K:1M",
    ];
    let threads = offsets(&dir, &args);
    let stride = (1 << 20) + 16384;
    for (i, &offset) in threads[0].iter().enumerate() {
        let zone = (i as u64 / 16) % 8;
        let start = zone * stride;
        assert!(
            (start..=start + 12288).contains(&offset) && offset % 4096 == 0,
            "I/O {i} at {offset}, zone {zone}"
        );
    }
    assert_eq!(threads[0].len(), 300);
}

#[test]
fn zones_the_target_or_the_block_cannot_hold_are_refused_before_anything_is_written() {
    assert_refused_untouched(&[
        (vec!["--zones=8K:2M"], "one zone's window (--zones)"),
        (
            vec!["-b64K", "--zones=64K:16K"],
            "does not fit in a zone's window of 16384 bytes",
        ),
        (
            vec!["-si", "-t2", "--zones=8K"],
            "--zones needs each thread's own offsets",
        ),
        (
            vec!["-r", "--distribution=zipf:1.2", "--zones=8K"],
            "--zones needs uniform offsets",
        ),
        (vec!["--zones=8K:x"], "the zone range 'x' is not bytes"),
        (vec!["--zones=0"], "more than 0 bytes"),
    ]);
}

#[test]
fn a_profile_keeps_the_zones_and_the_xml_validates() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let xml = iospd()
        .args(["-c1M", "-Rp", "-Rxml", "--zones=8K:16K:240K", &target])
        .output()
        .unwrap();
    assert_eq!(xml.status.code(), Some(0), "{}", stderr(&xml));
    let xml = stdout(&xml);
    assert!(xml.contains("<Zones>8192:16384:245760</Zones>"), "{xml}");
    crate::util::validate_xml(
        &[("zones", &xml)],
        "a_profile_keeps_the_zones_and_the_xml_validates",
    );
    let profile = dir.join("p.xml");
    std::fs::write(&profile, &xml).unwrap();
    let again = iospd()
        .args(["-Rp", "-Rxml", &format!("-X{}", profile.display())])
        .output()
        .unwrap();
    assert_eq!(stdout(&again), xml);
    let json = iospd()
        .args([
            "-c1M",
            "-b4K",
            "-W0",
            "--ios=8",
            "-Rjson",
            "--zones=8K:16K:240K",
            &target,
        ])
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    crate::util::validate_json(&stdout(&json));
}

/// fio's `zonemode=strided` job and `iospd fio` running it visit the same offsets in the same
/// order (fio 3.33's `write_iolog` beside iospd's trace of the same job).
#[test]
fn a_strided_fio_job_reads_the_offsets_fio_reads() {
    let test = "a_strided_fio_job_reads_the_offsets_fio_reads";
    let Some(fio) = crate::util::tools::need(test, &["fio"]) else {
        return;
    };
    let dir = TempDir::new();
    let job = |file: &str, log: &str| {
        vec![
            "--name=z".to_string(),
            format!("--filename={}", dir.arg(file)),
            "--size=8m".into(),
            "--rw=read".into(),
            "--bs=16k".into(),
            "--zonemode=strided".into(),
            "--zonesize=64k".into(),
            "--zonerange=128k".into(),
            "--zoneskip=1m".into(),
            "--io_size=1m".into(),
            format!("--write_iolog={}", dir.arg(log)),
        ]
    };
    let theirs = fio
        .command("fio")
        .args(job("fio.dat", "fio.log"))
        .output()
        .unwrap();
    assert!(theirs.status.success(), "{}", stderr(&theirs));
    let fio_offsets: Vec<u64> = std::fs::read_to_string(dir.join("fio.log"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.get(2) == Some(&"read")).then(|| f[3].parse().unwrap())
        })
        .collect();
    let ours = iospd()
        .arg("fio")
        .args(job("iospd.dat", "iospd.trace"))
        .output()
        .unwrap();
    assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
    let dump = iospd()
        .args(["trace-dump", &dir.arg("iospd.trace")])
        .output()
        .unwrap();
    let our_offsets: Vec<u64> = stdout(&dump)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(5).unwrap().parse().unwrap())
        .collect();
    // 1 MiB in 16 KiB reads: 64, four in each of the eight zones, twice round.
    assert_eq!(fio_offsets.len(), 64);
    assert_eq!(our_offsets, fio_offsets);
}
