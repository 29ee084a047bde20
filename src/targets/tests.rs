use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::*;
use crate::cli::{self, Command};
use crate::safety::{self, LinuxView, marker};

/// The profile of a command line, with `<dir>` standing for `dir`.
fn profile(args: &[&str], dir: &Path) -> Profile {
    let args: Vec<OsString> = args
        .iter()
        .map(|a| OsString::from(a.replace("<dir>", &dir.display().to_string())))
        .collect();
    let Command::Run(raw) = cli::parse(&args).unwrap() else {
        panic!("not a run")
    };
    crate::profile::resolve(&raw, String::new())
        .unwrap()
        .profile
}

fn checked(args: &[&str], dir: &Path) -> Result<(Profile, Cleared, Checked), TargetError> {
    let profile = profile(args, dir);
    let cleared = safety::check(&profile, &LinuxView).expect("the gate clears it");
    let (checked, _) = check(&profile, &cleared, false)?;
    Ok((profile, cleared, checked))
}

fn error(args: &[&str], dir: &Path) -> String {
    checked(args, dir).unwrap_err().to_string()
}

#[test]
fn ranges_follow_base_and_max_size_and_strides_must_fit() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, checked) = checked(&["-c4M", "-B1M", "-f3M", "<dir>/t.dat"], dir.path()).unwrap();
    let inspection = checked.inspections[0][0];
    assert_eq!(inspection.size, 4 << 20);
    assert_eq!(
        inspection.range,
        Range {
            base: 1 << 20,
            usable: 2 << 20
        }
    );
    assert!(
        error(&["-c1M", "-s2M", "<dir>/t.dat"], dir.path())
            .contains("the stride -s2097152 is larger")
    );
    assert!(error(&["-c1M", "-r2M", "<dir>/t.dat"], dir.path()).contains("the random alignment"));
    assert!(error(&["-c1M", "-b2M", "<dir>/t.dat"], dir.path()).contains("is too small"));
    assert!(
        error(&["-c1M", "-t4", "-T512K", "<dir>/t.dat"], dir.path())
            .contains("3 threads × -T524288")
    );
    assert!(error(&["-c1M", "-B4M", "<dir>/t.dat"], dir.path()).contains("0B (0 bytes) usable"));
}

#[test]
fn direct_io_alignment_is_checked_against_the_file_system() {
    let dir = tempfile::tempdir().unwrap();
    let message = error(&["-c1M", "-Su", "-b1000", "<dir>/t.dat"], dir.path());
    assert!(
        message.contains("the block size (-b) 1000 is not a multiple of"),
        "{message}"
    );
    assert!(checked(&["-c1M", "-Su", "-b4K", "<dir>/t.dat"], dir.path()).is_ok());
}

#[test]
fn creation_needs_room_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let message = error(&["-c1000T", "<dir>/huge.dat"], dir.path());
    assert!(
        message.contains("its file system has") && message.contains("free"),
        "{message}"
    );
    assert!(!dir.path().join("huge.dat").exists());
}

#[test]
fn later_timespans_see_the_sizes_earlier_ones_create() {
    let dir = tempfile::tempdir().unwrap();
    let profile_xml = format!(
        "<Profile><TimeSpans>\
         <TimeSpan><Duration>1</Duration><Targets><Target><Path>{0}/t.dat</Path><FileSize>2097152</FileSize></Target></Targets></TimeSpan>\
         <TimeSpan><Duration>1</Duration><Targets><Target><Path>{0}/t.dat</Path></Target></Targets></TimeSpan>\
         </TimeSpans></Profile>",
        dir.path().display()
    );
    let path = dir.path().join("p.xml");
    std::fs::write(&path, profile_xml).unwrap();
    let (_, _, checked) = checked(&[&format!("-X{}", path.display())], dir.path()).unwrap();
    assert_eq!(
        checked.inspections[1][0].size,
        2 << 20,
        "the second timespan's file exists"
    );
    assert!(
        !dir.path().join("t.dat").exists(),
        "checking creates nothing"
    );
}

#[test]
fn creating_marks_the_file_and_io_reaches_the_same_inode() {
    let dir = tempfile::tempdir().unwrap();
    let (profile, mut cleared, mut checked) =
        checked(&["-c1M", "-w50", "<dir>/t.dat"], dir.path()).unwrap();
    let stop = AtomicU64::new(0);
    let (prepared, _) = prepare(
        &profile.timespans[0],
        0,
        &mut checked,
        &mut cleared,
        &stop,
        None,
    )
    .unwrap();
    let path = dir.path().join("t.dat");
    let on_disk = std::fs::metadata(&path).unwrap();
    assert_eq!(on_disk.len(), 1 << 20);
    assert!(marker::is_test_file(&std::fs::File::open(&path).unwrap()).unwrap());
    let io = prepared[0].file.metadata().unwrap();
    assert_eq!((io.dev(), io.ino()), (on_disk.dev(), on_disk.ino()));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        &bytes[254..258],
        &[254, 255, 0, 1],
        "DiskSpd's 0..255 pattern"
    );
}

#[test]
fn recreating_rewrites_through_the_descriptor_the_gate_opened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    std::fs::write(&path, vec![7u8; 3 << 20]).unwrap();
    marker::mark(&std::fs::File::open(&path).unwrap()).unwrap();
    let (profile, mut cleared, mut checked) =
        checked(&["-c1M", "-Z", "<dir>/t.dat"], dir.path()).unwrap();
    // The name now leads elsewhere; the rewrite still reaches the file the gate opened.
    let moved = dir.path().join("moved.dat");
    std::fs::rename(&path, &moved).unwrap();
    std::fs::write(&path, b"someone else's").unwrap();
    let stop = AtomicU64::new(0);
    prepare(
        &profile.timespans[0],
        0,
        &mut checked,
        &mut cleared,
        &stop,
        None,
    )
    .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"someone else's");
    let rewritten = std::fs::read(&moved).unwrap();
    assert_eq!(rewritten.len(), 1 << 20, "shrunk to the new size");
    assert!(rewritten.iter().all(|&b| b == 0), "-Z writes zeros");
}
