//! The `--verify-state` file is as durable as the data it vouches for: on disk while the run goes,
//! replaced atomically, never silently lost, holding every timespan's targets; and `iospd verify`
//! reads a hostile or outgrown state without aborting or passing.

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use iospd::verify::state::State;

use crate::util::{self, TempDir, iospd, stderr, stdout};

/// `iospd verify` of `state`: exit status, stdout and stderr.
fn verify(state: &str, targets: &[&str]) -> (Option<i32>, String, String) {
    let output = iospd()
        .args(["verify", &format!("--verify-state={state}")])
        .args(targets)
        .output()
        .unwrap();
    (output.status.code(), stdout(&output), stderr(&output))
}

/// Waits up to `seconds` for `path` to exist.
fn appears(path: &Path, seconds: u64) -> bool {
    let end = Instant::now() + Duration::from_secs(seconds);
    while !path.exists() {
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

#[test]
fn a_run_killed_midway_leaves_a_state_that_verifies() {
    // With --checkpoint the state is saved with each checkpoint; without, every 10 s.
    for (checkpoint, wait) in [(true, 5), (false, 15)] {
        let dir = TempDir::new();
        let (target, state) = (dir.arg("t.dat"), dir.arg("s.json"));
        let extra = checkpoint.then(|| {
            [
                "--checkpoint=1".to_string(),
                format!("--output={}", dir.arg("r.json")),
            ]
        });
        let mut child = iospd()
            .args([
                "-c4M", "-b4K", "-r", "-w50", "-o4", "-d60", "-W0", "--verify",
            ])
            .args(extra.iter().flatten())
            .arg(format!("--verify-state={state}"))
            .arg(&target)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let saved = appears(Path::new(&state), wait);
        // The run writes on after the save; then it dies without a word.
        std::thread::sleep(Duration::from_millis(1500));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(saved, "{extra:?}: no state {wait} s into the run");
        let parsed = State::parse(&std::fs::read_to_string(&state).unwrap()).unwrap();
        assert!(parsed.partial);
        let (code, text, err) = verify(&state, &[]);
        assert_eq!(code, Some(0), "{extra:?}: {text}{err}");
        assert!(text.contains("saved while the run still wrote"), "{text}");
        assert!(text.contains(" 0 bad"), "{text}");
        // A partial state still finds damage: a block it knows was written, overwritten.
        let table = parsed.targets[0].table().unwrap();
        let written = (0..table.len()).find(|&i| table.generation(i) > 0).unwrap();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .unwrap();
        file.write_all_at(&[0x55; 4096], written as u64 * 4096)
            .unwrap();
        let (code, text, _) = verify(&state, &[]);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("garbage"), "{text}");
    }
}

#[test]
fn a_state_that_cannot_be_written_fails_the_run_and_says_where_it_went() {
    let dir = TempDir::new();
    let (target, state) = (dir.arg("t.dat"), dir.arg("s.json"));
    let child = iospd()
        .args(["-c2M", "-b4K", "-r", "-w50", "-d3", "-W0", "--verify"])
        .arg(format!("--verify-state={state}"))
        .arg(&target)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Another program takes the name while the run goes: it is not iospd's to replace.
    std::thread::sleep(Duration::from_secs(1));
    std::fs::write(&state, b"another program's file").unwrap();
    let output = child.wait_with_output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert_eq!(std::fs::read(&state).unwrap(), b"another program's file");
    let aside = err
        .split("the state was saved to '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("{err}"))
        .to_string();
    assert!(
        err.contains(&format!("cannot write the --verify-state file '{state}'")),
        "{err}"
    );
    let (code, text, _) = verify(&aside, &[]);
    std::fs::remove_file(&aside).unwrap();
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("saved while the run still wrote"), "{text}");
}

#[test]
fn every_timespan_of_a_profile_is_in_the_state() {
    let dir = TempDir::new();
    let (a, b, state) = (dir.arg("a.dat"), dir.arg("b.dat"), dir.arg("s.json"));
    let timespan = |path: &str| {
        format!(
            "<TimeSpan><Duration>1</Duration><Warmup>0</Warmup><Targets><Target><Path>{path}</Path><BlockSize>8192</BlockSize><FileSize>2097152</FileSize><Random>8192</Random><WriteRatio>100</WriteRatio></Target></Targets></TimeSpan>"
        )
    };
    let profile = dir.join("p.xml");
    std::fs::write(
        &profile,
        format!(
            "<Profile><TimeSpans>{}{}</TimeSpans></Profile>",
            timespan(&a),
            timespan(&b)
        ),
    )
    .unwrap();
    let output = iospd()
        .arg(format!("-X{}", profile.display()))
        .args(["--verify", &format!("--verify-state={state}")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let saved = State::parse(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let paths: Vec<&Path> = saved.targets.iter().map(|t| t.path.as_path()).collect();
    assert_eq!(paths, [Path::new(&a), Path::new(&b)]);
    // Damage in the first timespan's target is found.
    let file = std::fs::OpenOptions::new().write(true).open(&a).unwrap();
    file.write_all_at(&[0u8; 8192], 0).unwrap();
    let (code, text, _) = verify(&state, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(&format!("'{a}': 255 blocks verified")),
        "{text}"
    );
}

#[test]
fn a_truncated_target_reports_its_missing_blocks_as_lost_and_checks_the_rest() {
    let dir = TempDir::new();
    let (target, state) = (dir.arg("t.dat"), dir.arg("s.json"));
    let output = iospd()
        .args(["-c2M", "-b8K", "-r", "-w100", "-d1", "-W0", "--verify"])
        .arg(format!("--verify-state={state}"))
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&target)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let (code, text, err) = verify(&state, &[]);
    assert_eq!(code, Some(1), "{text}{err}");
    // -c --verify made every block: 128 are left and checked, 128 are gone.
    assert!(text.contains("128 blocks verified, 0 skipped"), "{text}");
    assert!(
        text.contains("128 blocks the run wrote are lost: the target ends at 1048576 bytes"),
        "{text}"
    );
    assert!(text.contains("past the end 128"), "{text}");
}

#[test]
fn a_hostile_state_file_is_refused_in_one_line() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    std::fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    let state = |block: u64, blocks: u64, generations: &str, targets: bool| {
        let path = dir.arg(&format!("s{block}-{blocks}-{targets}.json"));
        let target = format!(
            r#"{{"path":"{target}","base":0,"block":{block},"blocks":{blocks},"created":true,"generations":"{generations}"}}"#
        );
        let targets = if targets { target } else { String::new() };
        std::fs::write(
            &path,
            format!(
                r#"{{"format":"iospd-verify-state","version":1,"run_id":1,"targets":[{targets}]}}"#
            ),
        )
        .unwrap();
        path
    };
    for (path, says) in [
        (state(1 << 40, 1, "AAAAAA==", true), "never writes"),
        (
            state(4096, 1 << 62, "", true),
            "end past the largest offset",
        ),
        (state(4096, 1, "AAAAAA==", false), "names no target"),
    ] {
        let (code, text, err) = verify(&path, &[]);
        assert_eq!(code, Some(3), "{says}: {text}{err}");
        assert!(text.is_empty(), "{says}: {text}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// Saving the state writes the block table as a stream: a run whose 512 MiB of tables fit its
/// memory cgroup is not killed when it saves them (several copies of the table used to be made).
#[test]
fn saving_a_large_state_fits_in_the_memory_the_run_was_allowed() {
    let test = "saving_a_large_state_fits_in_the_memory_the_run_was_allowed";
    let Some(cgroup) = util::machine::MemoryCgroup::new(768 << 20, test) else {
        return;
    };
    let dir = TempDir::new();
    let (target, state) = (dir.join("sparse.dat"), dir.arg("s.json"));
    std::fs::File::create(&target)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    let mut command = iospd();
    command
        .args(["--verify", "-b512", "-r", "-w50", "-d1", "-W0", "--force"])
        .arg(format!("--verify-state={state}"))
        .arg(&target);
    cgroup.enter(&mut command);
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let saved = State::parse(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(saved.targets[0].blocks, 1 << 27);
}

#[test]
fn one_file_under_two_names_is_refused_under_verify() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let made = iospd()
        .args(["-c1M", "-d1", "-W0", &target])
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let before = std::fs::read(&target).unwrap();
    std::fs::hard_link(&target, dir.join("hard.dat")).unwrap();
    std::os::unix::fs::symlink(&target, dir.join("soft.dat")).unwrap();
    std::fs::create_dir(dir.join("d")).unwrap();
    for other in ["hard.dat", "soft.dat", "d/../t.dat"] {
        let output = iospd()
            .args(["-b8K", "-r", "-w100", "-d1", "-W0", "--verify", &target])
            .arg(dir.arg(other))
            .output()
            .unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{other}: {err}");
        assert!(err.contains("under another name"), "{other}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Two names of a file -c is still to create.
    let new = dir.arg("new.dat");
    let output = iospd()
        .args([
            "-c1M", "-b8K", "-r", "-w100", "-d1", "-W0", "--verify", &new,
        ])
        .arg(dir.arg("d/../new.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(!Path::new(&new).exists());
    assert_eq!(
        std::fs::read(&target).unwrap(),
        before,
        "nothing was written"
    );
}
