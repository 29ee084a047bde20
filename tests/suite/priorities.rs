//! `--ioprio-split`: shares of the I/O issued with priorities of their own, and the report's
//! latency of each priority apart (fio's `cmdprio_*` and `prios`). Counted, never timed: which
//! priority is faster depends on the device's scheduler.

use serde_json::Value;

use crate::util::tools;
use crate::util::{TempDir, iospd, stderr, stdout, validate_json};

/// The report's rows of the first target: ((class, level), read I/Os, write I/Os).
fn rows(json: &Value) -> Vec<((u64, u64), u64, u64)> {
    json["timespans"][0]["measured"]["priorities"][0]["priorities"]
        .as_array()
        .unwrap_or_else(|| panic!("no priorities: {json}"))
        .iter()
        .map(|r| {
            (
                (r["class"].as_u64().unwrap(), r["level"].as_u64().unwrap()),
                r["read"]["ios"].as_u64().unwrap(),
                r["write"]["ios"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Every I/O is counted at exactly one priority, each share is drawn as asked (4,000 I/Os: a
/// share within a few points), the rows keep their latency percentiles, the profile and the
/// text say the split, and two runs merge priority by priority.
#[test]
fn each_share_of_the_io_runs_at_its_priority_and_is_reported_apart() {
    let dir = TempDir::new();
    let target = dir.arg("p.dat");
    let run = || {
        let output = iospd()
            .args([
                "-c4M",
                "-b4K",
                "-r",
                "-w40",
                "-t1",
                "-o8",
                "-W0",
                "--ios=4000",
                "--ioprio-split=20/rt/0:30/idle/0,50/be/1",
                "-Rjson",
                &target,
            ])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        validate_json(&stdout(&output));
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let json = run();
    let rows = rows(&json);
    let classes: Vec<(u64, u64)> = rows.iter().map(|r| r.0).collect();
    // The target's own (none set) first, then the split's in order.
    assert_eq!(classes, [(0, 0), (1, 0), (3, 0), (2, 1)], "{rows:?}");
    let totals = &json["timespans"][0]["measured"]["totals"];
    let (reads, writes) = (
        totals["read"]["ios"].as_u64().unwrap(),
        totals["write"]["ios"].as_u64().unwrap(),
    );
    assert_eq!(reads + writes, 4000);
    assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), reads);
    assert_eq!(rows.iter().map(|r| r.2).sum::<u64>(), writes);
    let share = |n: u64, of: u64| n as f64 * 100.0 / of as f64;
    // Reads: 20 % real time, 30 % idle, none best effort 1 (a write-only rule).
    assert!((14.0..26.0).contains(&share(rows[1].1, reads)), "{rows:?}");
    assert!((23.0..37.0).contains(&share(rows[2].1, reads)), "{rows:?}");
    assert_eq!(rows[3].1, 0, "{rows:?}");
    // Writes: half best effort 1, the rest the target's.
    assert!((42.0..58.0).contains(&share(rows[3].2, writes)), "{rows:?}");
    assert_eq!(rows[1].2 + rows[2].2, 0, "{rows:?}");
    let row = &json["timespans"][0]["measured"]["priorities"][0]["priorities"][1]["read"];
    assert_eq!(row["latency"]["count"], row["ios"]);
    assert!(!row["latency"]["percentiles"].as_array().unwrap().is_empty());
    assert_eq!(
        json["profile"]["timespans"][0]["targets"][0]["ioprio_split"]["write"][0]["class"],
        "be"
    );
    // Two runs merged: each priority's I/Os add.
    let (a, b) = (dir.arg("a.json"), dir.arg("b.json"));
    std::fs::write(&a, json.to_string()).unwrap();
    std::fs::write(&b, run().to_string()).unwrap();
    let merged = iospd().args(["merge", &a, &b, "-Rjson"]).output().unwrap();
    assert!(merged.status.success(), "{}", stderr(&merged));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let both = self::rows(&merged);
    assert_eq!(
        both.iter().map(|r| r.1 + r.2).sum::<u64>(),
        8000,
        "{both:?}"
    );
    // The text report says the split and breaks the latency down.
    let text = iospd()
        .args([
            "-c4M",
            "-b4K",
            "-r",
            "-W0",
            "--ios=500",
            "--ioprio-split=50/rt/0",
            &target,
        ])
        .output()
        .unwrap();
    let out = stdout(&text);
    assert!(out.contains("--ioprio-split=50/rt/0: "), "{out}");
    assert!(out.contains("by I/O priority:"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("rt/0 | read")),
        "{out}"
    );
}

/// A split that cannot run is refused in one line naming the fix, before anything is written.
#[test]
fn splits_that_cannot_run_are_refused_before_anything_is_written() {
    let dir = TempDir::new();
    let target = dir.arg("p.dat");
    for (args, says) in [
        (
            vec!["--ioprio-split=20/rt/0", "--engine=psync"],
            "only io_uring takes per I/O",
        ),
        (
            vec!["--ioprio-split=8K/20/rt/0"],
            "never have (theirs: 4096)",
        ),
        (vec!["--ioprio-split=20/rt/9"], "not a level"),
        (vec!["--ioprio-split=70/rt/0:40/be/0"], "add up to 110%"),
    ] {
        let mut all = vec!["-c1M", "-b4K", "-d1"];
        all.extend(&args);
        all.push(&target);
        let output = iospd().args(&all).output().unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(!std::path::Path::new(&target).exists(), "{args:?}");
    }
}

/// fio's `cmdprio_percentage` job: the same shares at the same priorities, and fio JSON's `prios`
/// with an entry per priority as fio 3.33 writes them.
#[test]
fn a_cmdprio_job_writes_fios_prios() {
    let test = "a_cmdprio_job_writes_fios_prios";
    let job = [
        "--output-format=json",
        "--name=p",
        "--rw=randread",
        "--size=16m",
        "--filename=p.dat",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--number_ios=2000",
        "--prioclass=3",
        "--cmdprio_percentage=25",
        "--cmdprio_class=1",
        "--cmdprio=2",
    ];
    let prios = |output: &std::process::Output| -> Vec<(u64, u64, u64)> {
        let doc: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("{}{}", stdout(output), stderr(output)));
        doc["jobs"][0]["read"]["prios"]
            .as_array()
            .unwrap_or_else(|| panic!("no prios: {doc}"))
            .iter()
            .map(|p| {
                (
                    p["prioclass"].as_u64().unwrap(),
                    p["prio"].as_u64().unwrap(),
                    p["clat_ns"]["N"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let dir = TempDir::new();
    let output = iospd()
        .arg("fio")
        .args(job)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let ours = prios(&output);
    assert_eq!(ours.len(), 2, "{ours:?}");
    assert_eq!((ours[0].0, ours[1].0, ours[1].1), (3, 1, 2), "{ours:?}");
    assert_eq!(ours[0].2 + ours[1].2, 2000, "{ours:?}");
    assert!((400..600).contains(&ours[1].2), "{ours:?}");
    let Some(fio) = tools::optional(test, "fio", "the prios list against fio's") else {
        return;
    };
    let theirs_dir = TempDir::new();
    let output = fio
        .command("fio")
        .args(job)
        .current_dir(theirs_dir.path())
        .output()
        .unwrap();
    let theirs = prios(&output);
    let classes = |p: &[(u64, u64, u64)]| {
        let mut c: Vec<(u64, u64)> = p.iter().map(|p| (p.0, p.1)).collect();
        c.sort_unstable();
        c
    };
    assert_eq!(classes(&theirs), classes(&ours), "{theirs:?}");
}
