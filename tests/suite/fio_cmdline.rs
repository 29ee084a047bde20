//! `iospd fio` and fio's own options (those that are not job options): each one fio 3.33 has is
//! read with its value as fio reads it, and either does here what it does in fio, answers as fio
//! answers (`--version`, `--cmdhelp`, `--enghelp`), or is refused in one line saying why.

use crate::fio_jobs::fio_in as fio;
use crate::util::{TempDir, stderr, stdout};

/// `--version` answers as fio 3.33 does (scripts check it), `--cmdhelp` with what iospd fio does
/// with an option (an alias as its option), `--enghelp` with the engines it runs.
#[test]
fn fios_help_options_answer_from_the_tables() {
    let dir = TempDir::new();
    let answer = |args: &[&str]| {
        let output = fio(&dir, args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        stdout(&output)
    };
    assert_eq!(answer(&["--version"]), "fio-3.33\n");
    let bs = answer(&["--cmdhelp=bs"]);
    assert!(bs.starts_with("bs: mapped: `-b`"), "{bs}");
    assert_eq!(answer(&["--cmdhelp=blocksize"]), bs);
    assert!(answer(&["--cmdhelp"]).contains("## Refused, with the closest in iospd"));
    let engines = answer(&["--enghelp"]);
    assert!(
        engines.lines().any(|l| l == "libaio") && engines.lines().any(|l| l == "io_uring"),
        "{engines}"
    );
    assert!(answer(&["--enghelp=exec"]).starts_with("exec: refused:"));
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

/// fio's options with no counterpart are refused in one line naming the option and why, exit 3,
/// with nothing written; a flag takes no value (`--bandwidth-log job.fio` names a job file), and
/// `--debug` (fio's tracing) is accepted: it changes nothing measured.
#[test]
fn fios_options_without_a_counterpart_are_refused_in_one_line() {
    let dir = TempDir::new();
    let job = [
        "--name=t",
        "--filename=t.dat",
        "--size=1m",
        "--number_ios=10",
    ];
    for (option, says) in [
        ("--client=host1", "client/server"),
        ("--idle-prof=percpu", "CPU idleness"),
        ("--latency-log=x", "write_lat_log"),
        ("--bandwidth-log", "write_bw_log"),
        ("--trigger=reboot", "never does"),
        ("--append-terse", "one format at a time"),
    ] {
        let args: Vec<&str> = [option].into_iter().chain(job).collect();
        let output = fio(&dir, &args);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{option}: {err}");
        assert_eq!(err.lines().count(), 1, "{option}: {err}");
        assert!(
            err.contains(option.split('=').next().unwrap()) && err.contains(says),
            "{option}: {err}"
        );
        assert!(!dir.join("t.dat").exists(), "{option}: nothing written");
    }
    let args: Vec<&str> = ["-Rp", "--debug", "io"].into_iter().chain(job).collect();
    let output = fio(&dir, &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("iospd "), "{}", stdout(&output));
}
