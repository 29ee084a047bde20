//! `--flow`: runs on one flow file keep their I/O in proportion to their weights (fio's `flow`).
//! A light run held to a pace (its I/Os cannot come faster, however fast the machine) holds a
//! heavy one to eight times its count: the heavy run's work takes at least as long as the light
//! run needs for an eighth of it, where alone it takes milliseconds on the null engine.

use serde_json::Value;

use crate::util::tools;
use crate::util::{TempDir, iospd, stderr, stdout};

fn duration(json: &Value) -> f64 {
    json["timespans"][0]["measured"]["duration_s"]
        .as_f64()
        .unwrap()
}

fn ios(json: &Value) -> u64 {
    json["timespans"][0]["measured"]["totals"]["total"]["ios"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_paced_light_run_holds_a_heavy_one_to_eight_times_its_io() {
    let dir = TempDir::new();
    let flow = dir.arg("flow");
    let run = |extra: &[&str], target: &str| {
        let mut args = vec!["-c1M", "-t1", "-o1", "-W0", "--engine=null", "-Rjson"];
        args.extend(extra);
        args.push(target);
        let mut command = iospd();
        command
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        command.spawn().unwrap()
    };
    let light = run(
        &["--ios=4000", "-g2000i", &format!("--flow=1/9:{flow}")],
        &dir.arg("light.dat"),
    );
    let heavy = run(
        &["--ios=16000", &format!("--flow=8/9:{flow}")],
        &dir.arg("heavy.dat"),
    );
    let (light, heavy) = (
        light.wait_with_output().unwrap(),
        heavy.wait_with_output().unwrap(),
    );
    assert!(light.status.success(), "{}", stderr(&light));
    assert!(heavy.status.success(), "{}", stderr(&heavy));
    let (light, heavy): (Value, Value) = (
        serde_json::from_slice(&light.stdout).unwrap(),
        serde_json::from_slice(&heavy.stdout).unwrap(),
    );
    assert_eq!((ios(&light), ios(&heavy)), (4000, 16000));
    // 16,000 heavy I/Os need 2,000 light ones, a second at the light run's pace.
    assert!(duration(&heavy) > 0.8, "{}", duration(&heavy));
    assert_eq!(
        heavy["profile"]["flow"]["weight"], 8,
        "{}",
        heavy["profile"]
    );
    // Both left: the file holds its first counter (1) and no weight.
    let bytes = std::fs::read(&flow).unwrap();
    let word = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
    assert_eq!((word(64), word(128)), (1, 0));
    // A file that is not a flow file is refused and left as it is, before anything is written.
    let notes = dir.arg("notes.txt");
    std::fs::write(&notes, "mine").unwrap();
    let never = dir.arg("never.dat");
    let output = iospd()
        .args(["-c1M", "-d1", &format!("--flow=1:{notes}"), &never])
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(err.contains("is not a flow file iospd set up"), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine");
    assert!(!std::path::Path::new(&never).exists());
}

/// fio's flow.fio shape: a job of weight 8 and one of weight 1, the light one held to a rate;
/// `iospd fio` gives them a flow file of their own (removed after) and starts them together, and
/// the heavy job's runtime is held as fio's is.
#[test]
fn fio_flow_jobs_share_their_io_by_weight() {
    let test = "fio_flow_jobs_share_their_io_by_weight";
    let dir = TempDir::new();
    let job = "[global]\nioengine=null\nsize=64m\nfilename=f.dat\nflow_sleep=100\n[heavy]\nrw=randread\nflow=8\nnumber_ios=16000\n[light]\nrw=read\nflow=1\nrate_iops=2000\nnumber_ios=4000\n";
    std::fs::write(dir.join("flow.fio"), job).unwrap();
    let runtime_of = |output: &std::process::Output, who: &str| -> Vec<u64> {
        assert!(output.status.success(), "{who}: {}", stderr(output));
        let doc: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("{who}: {}", stdout(output)));
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["job_runtime"].as_u64().unwrap())
            .collect()
    };
    let output = iospd()
        .args(["fio", "--output-format=json", "flow.fio"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let ours = runtime_of(&output, "iospd");
    assert!(ours[0] > 800, "the heavy job's runtime, ms: {ours:?}");
    let leftovers: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("iospd-fio-flow-")
        })
        .map(|e| e.path())
        .collect();
    assert!(
        leftovers.iter().all(|p| {
            let pid: Option<u32> = p
                .file_name()
                .and_then(|n| n.to_str()?.rsplit('-').next()?.parse().ok());
            // Another test's run may be going on: only a dead process's directory is left over.
            pid.is_some_and(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
        }),
        "{leftovers:?}"
    );
    let Some(fio) = tools::optional(test, "fio", "the heavy job's runtime against fio's") else {
        return;
    };
    let theirs_dir = TempDir::new();
    std::fs::write(theirs_dir.join("flow.fio"), job).unwrap();
    let output = fio
        .command("fio")
        .args(["--output-format=json", "flow.fio"])
        .current_dir(theirs_dir.path())
        .output()
        .unwrap();
    let theirs = runtime_of(&output, "fio");
    assert!(theirs[0] > 800, "fio's heavy job's runtime, ms: {theirs:?}");
}
