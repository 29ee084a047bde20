//! The command line as a user meets it: every bad input exits 3 with one line that names the
//! offending token and the fix, and creates or writes nothing.

use crate::util;
use std::fs;
use std::os::unix::fs::MetadataExt;

use crate::util::{TempDir, run_iospd, stderr, stdout};

#[test]
fn missing_target_without_create() {
    let dir = TempDir::new();
    let output = run_iospd(&["-d1", &dir.arg("absent.dat")]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("does not exist; create it with -c"));
}

#[test]
fn directory_and_character_device_targets() {
    let dir = TempDir::new();
    let output = run_iospd(&["-d1", &dir.path().display().to_string()]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("is a directory"));
    let output = run_iospd(&["-d1", "/dev/null"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("neither a regular file nor a block device"));
}

#[test]
fn target_too_small_names_the_size_needed_and_is_untouched() {
    let dir = TempDir::new();
    let path = dir.join("small.dat");
    fs::write(&path, vec![7u8; 8192]).unwrap();
    let before = fs::metadata(&path).unwrap();
    let output = run_iospd(&[
        "-d1",
        "-W0",
        "-b64K",
        "-w100",
        "--force",
        &dir.arg("small.dat"),
    ]);
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    assert!(
        err.contains("too small") && err.contains("64KiB (65536 bytes)"),
        "{err}"
    );
    let after = fs::metadata(&path).unwrap();
    assert_eq!(
        (before.len(), before.mtime_nsec()),
        (after.len(), after.mtime_nsec())
    );
    assert_eq!(fs::read(&path).unwrap(), vec![7u8; 8192]);
}

#[test]
fn a_bad_second_target_stops_before_the_first_is_created() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        &dir.arg("first.dat"),
        &dir.arg("nodir/second.dat"),
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(!dir.join("first.dat").exists());
}

#[test]
fn direct_io_alignment_is_explained() {
    let dir = TempDir::new();
    let output = run_iospd(&["-c1M", "-d1", "-W0", "-b1000", "-Su", &dir.arg("a.dat")]);
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    assert!(
        err.contains("block size (-b) 1000 is not a multiple of"),
        "{err}"
    );
    assert!(err.contains("O_DIRECT"), "{err}");
    assert!(!dir.join("a.dat").exists());
}

#[test]
fn help_and_no_arguments() {
    let output = run_iospd(&["-?"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("Usage: iospd [options] target1"));
    let output = run_iospd(&[]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stdout(&output).contains("Usage: iospd"));
}

#[test]
fn warnings_go_to_stderr_and_the_run_continues() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-c1M",
        "-d1",
        "-W0",
        "-t2",
        "--engine=null",
        &dir.arg("w.dat"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("consider -si or -T"));
}

/// Paths a report could not name exactly are refused before anything is created; every other
/// path the kernel accepts round-trips through the XML profile and the JSON results.
#[test]
fn paths_round_trip_or_are_refused_before_the_run() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let dir = TempDir::new();
    for (bytes, says) in [
        (&b"t\xff.dat"[..], "is not valid UTF-8"),
        (b"t\n.dat", "the control character U+000A"),
        (b"t\x01.dat", "the control character U+0001"),
        (b"t\t.dat", "the control character U+0009"),
    ] {
        let mut name = dir.path().as_os_str().to_owned().into_vec();
        name.push(b'/');
        name.extend_from_slice(bytes);
        let path = OsString::from_vec(name);
        let output = util::iospd()
            .args(["-c1M", "-d1", "-W0", "-Rjson"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
        assert!(!std::path::Path::new(&path).exists(), "nothing was created");
    }
    // Quotes, ampersands, angle brackets, spaces, non-Latin letters and C1 controls: exact.
    let name = "a \"b\" & <c> 'd' \u{e9}\u{4e2d}\u{1f4be}\u{85}.dat";
    let path = dir.join(name);
    let profile = dir.join("p.xml");
    let output = util::iospd()
        .args(["-c1M", "-d1", "-W0", "-Rpxml"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::write(&profile, &output.stdout).unwrap();
    let read = iospd::profile::xml::parse_profile(&stdout(&output)).unwrap();
    assert_eq!(read.timespans[0].targets[0].path, path);
    let output = util::iospd()
        .args([format!("-X{}", profile.display()), "-Rjson".into()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let written = json["profile"]["timespans"][0]["targets"][0]["path"]
        .as_str()
        .unwrap();
    assert_eq!(std::path::Path::new(written), path);
    assert!(path.exists(), "the run used the file the profile names");
}

#[test]
fn help_version_and_completions_work_everywhere_and_exit_0() {
    for args in [
        vec!["--help"],
        vec!["-?"],
        vec!["help"],
        vec!["-b4K", "--help", "t.dat"],
    ] {
        let output = run_iospd(&args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let text = stdout(&output);
        assert!(
            text.contains("Usage: iospd") && text.contains("Commands"),
            "{args:?}"
        );
        for command in [
            "sweep",
            "preset",
            "verify",
            "merge",
            "report",
            "compare",
            "trace-dump",
        ] {
            assert!(
                text.contains(&format!("  {command} ")),
                "{args:?} lacks {command}"
            );
        }
    }
    for args in [
        vec!["help", "merge"],
        vec!["merge", "--help"],
        vec!["sweep", "--help"],
        vec!["verify", "--help"],
        // The commands that read results take -h too; it names no file.
        vec!["report", "-h"],
        vec!["compare", "-h"],
    ] {
        let output = run_iospd(&args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert!(stdout(&output).contains("usage: iospd "), "{args:?}");
    }
    let version = run_iospd(&["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert_eq!(
        stdout(&version),
        format!("iospd {}\n", env!("CARGO_PKG_VERSION"))
    );
    let nope = run_iospd(&["help", "nope"]);
    assert_eq!(nope.status.code(), Some(3));
    // The bash script parses; an unknown shell is refused.
    let dir = TempDir::new();
    let script = dir.join("iospd.bash");
    fs::write(&script, stdout(&run_iospd(&["--completions=bash"]))).unwrap();
    let test = "completions parse in bash";
    if let Some(tools) = util::tools::optional(test, "bash", "the bash completion script's syntax")
    {
        let checked = tools
            .command("bash")
            .arg("-n")
            .arg(&script)
            .output()
            .unwrap();
        assert!(checked.status.success(), "{}", stderr(&checked));
    }
    let tcsh = run_iospd(&["--completions=tcsh"]);
    assert_eq!(tcsh.status.code(), Some(3));
    assert!(stderr(&tcsh).contains("bash, zsh or fish"));
}

#[test]
fn long_options_may_follow_the_targets_and_windows_drive_paths_are_refused() {
    let dir = TempDir::new();
    let (target, json) = (dir.arg("t.dat"), dir.arg("r.json"));
    let after = run_iospd(&["-c1M", "-d1", "-W0", &target, &format!("--output={json}")]);
    assert_eq!(after.status.code(), Some(0), "{}", stderr(&after));
    assert!(fs::metadata(&json).is_ok());
    let letter = run_iospd(&["-c1M", &target, "-d1"]);
    assert_eq!(letter.status.code(), Some(3));
    assert!(stderr(&letter).contains("before the targets"));
    for windows in ["C:\\t.dat", "C:/t.dat"] {
        let output = util::iospd()
            .current_dir(dir.path())
            .args(["-c1M", "-d1", windows])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{windows}");
        assert!(
            stderr(&output).contains("Windows drive path"),
            "{}",
            stderr(&output)
        );
        assert!(!dir.join(windows).exists(), "{windows} was created");
    }
}

#[test]
fn a_buffered_run_on_a_target_that_fits_in_memory_says_it_measures_memory() {
    let dir = TempDir::new();
    let target = dir.arg("small.dat");
    let buffered = run_iospd(&["-c4M", "-d1", "-W0", &target]);
    assert_eq!(buffered.status.code(), Some(0));
    let notes: Vec<String> = stderr(&buffered)
        .lines()
        .filter(|l| l.contains("measures memory, not the device"))
        .map(str::to_string)
        .collect();
    assert_eq!(notes.len(), 1, "{}", stderr(&buffered));
    assert!(notes[0].contains("-Sh"));
    let direct = run_iospd(&["-d1", "-W0", "-Sh", &target]);
    assert_eq!(direct.status.code(), Some(0));
    assert!(!stderr(&direct).contains("measures memory"));
}

#[test]
fn a_lone_dash_h_points_to_the_help_and_a_detached_value_to_gluing_it_on() {
    let dir = TempDir::new();
    let target = dir.arg("sql.dat");
    let detached = run_iospd(&["-w", "30", "-d1", &target]);
    assert_eq!(detached.status.code(), Some(3));
    assert_eq!(
        stderr(&detached).trim(),
        "iospd: '-w 30': DiskSpd's options take their value glued to the letter; write -w30"
    );
    assert!(
        !std::path::Path::new(&target).exists(),
        "nothing was created"
    );
    for command in [&[][..], &["sweep"], &["preset"], &["verify"]] {
        let mut args = command.to_vec();
        args.push("-h");
        let output = run_iospd(&args);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            err.contains("-Sh") && err.contains("--help"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn a_misspelled_long_option_names_the_one_meant() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let run = run_iospd(&["-d1", "--timeseris=t.csv", &target]);
    assert_eq!(run.status.code(), Some(3));
    assert_eq!(
        stderr(&run).trim(),
        "iospd: unknown option '--timeseris=t.csv'; did you mean --timeseries?"
    );
    assert!(
        !std::path::Path::new(&target).exists(),
        "nothing was created"
    );
    let compare = run_iospd(&["compare", "--noise-form=r.json", "a.json", "b.json"]);
    assert_eq!(compare.status.code(), Some(3));
    assert!(
        stderr(&compare).contains("did you mean --noise-from?"),
        "{}",
        stderr(&compare)
    );
}

/// `--dry-run` makes the run's checks and stops: what would start exits 0 and creates nothing;
/// what the run would refuse is refused with the run's own line.
#[test]
fn a_dry_run_checks_everything_a_run_checks_and_writes_nothing() {
    let dir = TempDir::new();
    let fresh = dir.arg("fresh.dat");
    let output = run_iospd(&["--dry-run", "-c1M", "-d1", "-w50", &fresh]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("every check passed"), "{err}");
    assert!(stdout(&output).is_empty());
    assert!(!dir.join("fresh.dat").exists());
    let small = dir.join("small.dat");
    fs::write(&small, vec![7u8; 8192]).unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let metrics = format!("--metrics={}", taken.local_addr().unwrap());
    for args in [
        vec!["-c1M", metrics.as_str(), "new.dat"],
        vec!["-b64K", "-w100", "--force", "small.dat"],
        vec!["-w100", "small.dat"],
        vec!["-t100000", "new.dat"],
        vec!["-c1M", "-F4", "-O100000", "new.dat"],
    ] {
        let run = util::iospd()
            .current_dir(dir.join(""))
            .args(["-d1", "-W0"])
            .args(&args)
            .output()
            .unwrap();
        let dry = util::iospd()
            .current_dir(dir.join(""))
            .args(["--dry-run", "-d1", "-W0"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(3), "{args:?}: {}", stderr(&run));
        assert_eq!(dry.status.code(), Some(3), "{args:?}: {}", stderr(&dry));
        assert_eq!(stderr(&dry), stderr(&run), "{args:?}");
        assert!(!dir.join("new.dat").exists(), "{args:?}");
    }
    assert_eq!(fs::read(&small).unwrap(), vec![7u8; 8192]);
}
