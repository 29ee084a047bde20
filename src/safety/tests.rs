use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::fs::symlink;

use super::blkid::Signature;
use super::*;
use crate::cli::{self, Command};

/// A machine with one disk (dev 100) and its partition (dev 101, from byte 1 MiB).
#[derive(Default)]
struct Fake {
    mounts: Vec<(u64, String)>,
    swaps: Vec<(Identity, String)>,
    holders: Vec<(u64, String)>,
    loops: Vec<(Identity, String)>,
    read_only: bool,
    /// Signatures by the offset probed.
    signatures: Vec<(u64, Signature)>,
    broken_probe: bool,
    probed: RefCell<Vec<(u64, u64)>>,
}

impl SystemView for Fake {
    fn family(&self, dev: u64) -> Vec<Member> {
        let member = |dev, name: &str, start, len| Member {
            dev,
            name: name.into(),
            start,
            len,
        };
        vec![
            member(dev, "/dev/sdx", 0, 0),
            member(101, "/dev/sdx1", 1 << 20, 8 << 20),
        ]
    }
    fn mounts(&self) -> Vec<(u64, String)> {
        self.mounts.clone()
    }
    fn swaps(&self) -> Vec<(Identity, String)> {
        self.swaps.clone()
    }
    fn holders(&self, dev: u64) -> Vec<String> {
        self.holders
            .iter()
            .filter(|(d, _)| *d == dev)
            .map(|(_, h)| h.clone())
            .collect()
    }
    fn loops(&self) -> Vec<(Identity, String)> {
        self.loops.clone()
    }
    fn signatures(&self, _: &File, offset: u64, len: u64) -> io::Result<Vec<Signature>> {
        self.probed.borrow_mut().push((offset, len));
        if self.broken_probe {
            return Err(io::Error::other("libblkid.so.1 cannot be loaded"));
        }
        Ok(self
            .signatures
            .iter()
            .filter(|(at, _)| *at == offset)
            .map(|(_, s)| s.clone())
            .collect())
    }
    fn read_only(&self, _: &File) -> bool {
        self.read_only
    }
    fn describe(&self, _: u64) -> String {
        "FAKE DISK, 1GiB".into()
    }
}

fn signature(kind: &str, usage: &str, offset: u64) -> Signature {
    Signature {
        kind: kind.into(),
        usage: usage.into(),
        offset,
    }
}

/// A stand-in descriptor for the device (the fake view never reads it).
fn some_file() -> File {
    File::open("/dev/null").unwrap()
}

fn device_refusal(fake: &Fake) -> String {
    check_device(
        Path::new("/dev/sdx"),
        &some_file(),
        100,
        false,
        fake,
        &mut Vec::new(),
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn device_refusals_name_what_and_where() {
    let fake = Fake {
        mounts: vec![(101, "/mnt/data".into())],
        ..Fake::default()
    };
    assert!(device_refusal(&fake).contains("its partition /dev/sdx1 is mounted at /mnt/data"));
    let fake = Fake {
        mounts: vec![(100, "/".into())],
        ..Fake::default()
    };
    assert!(device_refusal(&fake).contains("it is mounted at /"));
    let fake = Fake {
        swaps: vec![(Identity::Device(101), "/dev/sdx1".into())],
        ..Fake::default()
    };
    assert!(device_refusal(&fake).contains("in use as swap"));
    let fake = Fake {
        holders: vec![(100, "dm-0".into())],
        ..Fake::default()
    };
    assert!(device_refusal(&fake).contains("held by dm-0"));
    let fake = Fake {
        read_only: true,
        ..Fake::default()
    };
    assert!(device_refusal(&fake).contains("read-only device"));
    let fake = Fake {
        signatures: vec![
            (0, signature("zfs_member", "filesystem", 0x4000)),
            (0, signature("gpt", "partition table", 512)),
        ],
        ..Fake::default()
    };
    let message = device_refusal(&fake);
    assert!(
        message
            .contains("it holds a ZFS pool member (signature at byte 16384) and 1 more signature")
            && message.contains("wipefs -a /dev/sdx")
            && message.contains("--force"),
        "{message}"
    );
}

#[test]
fn every_kernel_partition_is_probed_where_it_lies() {
    // The partition table is gone, but the kernel's partition still holds ext4.
    let fake = Fake {
        signatures: vec![(1 << 20, signature("ext4", "filesystem", 1080))],
        ..Fake::default()
    };
    let message = device_refusal(&fake);
    assert!(
        message.contains(
            "its partition /dev/sdx1 holds an ext4 file system (signature at byte 1049656)"
        ) && message.contains("wipefs -a /dev/sdx1"),
        "{message}"
    );
    assert_eq!(*fake.probed.borrow(), vec![(0, 0), (1 << 20, 8 << 20)]);
    let blind = Fake {
        broken_probe: true,
        ..Fake::default()
    };
    assert!(device_refusal(&blind).contains("cannot be probed for data (libblkid.so.1"));
}

#[test]
fn force_names_the_device_and_what_it_overrides() {
    let fake = Fake {
        signatures: vec![(0, signature("xfs", "filesystem", 0))],
        ..Fake::default()
    };
    let mut notices = Vec::new();
    check_device(
        Path::new("/dev/sdx"),
        &some_file(),
        100,
        true,
        &fake,
        &mut notices,
    )
    .unwrap();
    assert!(
        notices[0].contains("although it holds an xfs file system"),
        "{notices:?}"
    );
    assert!(notices[1].contains("FAKE DISK, 1GiB"), "{notices:?}");
    let read_only = Fake {
        read_only: true,
        ..Fake::default()
    };
    assert!(
        check_device(
            Path::new("/dev/sdx"),
            &some_file(),
            100,
            true,
            &read_only,
            &mut notices
        )
        .is_err(),
        "--force cannot make a read-only device take writes"
    );
}

fn profile(args: &[String]) -> Profile {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let Command::Run(raw) = cli::parse(&args).unwrap() else {
        panic!()
    };
    crate::profile::resolve(&raw, String::new())
        .unwrap()
        .profile
}

fn gate(args: &[&str], dir: &Path, view: &Fake) -> Result<Cleared, SafetyError> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("<dir>", &dir.display().to_string()))
        .collect();
    check(&profile(&args), view)
}

#[test]
fn files_in_use_or_holding_data_are_refused_even_when_marked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    std::fs::write(&path, vec![0u8; 8192]).unwrap();
    let facts = open::facts(File::open(&path).unwrap().as_fd()).unwrap();
    let refused = |fake: &Fake| {
        gate(&["-w50", "<dir>/t.dat"], dir.path(), fake)
            .unwrap_err()
            .to_string()
    };
    let message = refused(&Fake::default());
    assert!(
        message.contains("iospd did not create it as a test file"),
        "{message}"
    );
    marker::mark(&File::open(&path).unwrap()).unwrap();
    assert!(gate(&["-w50", "<dir>/t.dat"], dir.path(), &Fake::default()).is_ok());
    let looped = Fake {
        loops: vec![(facts.identity, "/dev/loop7".into())],
        ..Fake::default()
    };
    let message = refused(&looped);
    assert!(
        message.contains("it backs the loop device /dev/loop7") && message.contains("losetup -d"),
        "{message}"
    );
    let swapped = Fake {
        swaps: vec![(facts.identity, path.display().to_string())],
        ..Fake::default()
    };
    assert!(refused(&swapped).contains("in use as swap"));
    let formatted = Fake {
        signatures: vec![(0, signature("ext4", "filesystem", 1080))],
        ..Fake::default()
    };
    let message = refused(&formatted);
    assert!(
        message.contains(
            "holds an ext4 file system (signature at byte 1080), although iospd created it"
        ),
        "{message}"
    );
    // Reads touch nothing and are always allowed.
    assert!(gate(&["-w0", "<dir>/t.dat"], dir.path(), &formatted).is_ok());
}

#[test]
fn targets_that_cannot_be_used_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let error = |args: &[&str]| {
        gate(args, dir.path(), &Fake::default())
            .unwrap_err()
            .to_string()
    };
    assert!(error(&["<dir>/missing.dat"]).contains("does not exist; create it with -c"));
    assert!(error(&["<dir>"]).contains("is a directory"));
    assert!(error(&["/dev/null"]).contains("is a character device"));
    assert!(error(&["-c1M", "<dir>/nope/t.dat"]).contains("does not exist; create it first"));
    symlink(dir.path().join("nowhere"), dir.path().join("dangling")).unwrap();
    assert!(error(&["-c1M", "<dir>/dangling"]).contains("symbolic link to nothing"));
}

#[test]
fn one_target_under_two_names_is_opened_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.dat"), vec![0u8; 8192]).unwrap();
    symlink(dir.path().join("t.dat"), dir.path().join("link.dat")).unwrap();
    let cleared = gate(
        &["<dir>/t.dat", "<dir>/link.dat"],
        dir.path(),
        &Fake::default(),
    )
    .unwrap();
    assert_eq!(cleared.anchors.len(), 1);
    let cleared = gate(
        &["-c1M", "<dir>/new.dat", "<dir>/./new.dat"],
        dir.path(),
        &Fake::default(),
    )
    .unwrap();
    assert_eq!(cleared.anchors.len(), 1);
}

#[test]
fn outputs_never_replace_a_target_an_input_or_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t.json");
    std::fs::write(&target, vec![0u8; 8192]).unwrap();
    marker::mark(&File::open(&target).unwrap()).unwrap();
    std::fs::write(dir.path().join("source.json"), vec![1u8; 8192]).unwrap();
    symlink(&target, dir.path().join("link")).unwrap();
    let refused = |args: &[&str]| {
        gate(args, dir.path(), &Fake::default())
            .unwrap_err()
            .to_string()
    };
    let message = refused(&["--output=<dir>/t.json", "-w0", "<dir>/t.json"]);
    assert!(
        message.starts_with("--output: cannot write") && message.contains("is the target"),
        "{message}"
    );
    assert!(refused(&["--trace=<dir>/link", "-w0", "<dir>/t.json"]).contains("is the target"));
    assert!(
        refused(&["--histlog=<dir>/new.json", "-c1M", "<dir>/new.json"]).contains("is the target")
    );
    assert!(
        refused(&[
            "--timeseries=<dir>/s.csv",
            "--trace=<dir>/s.csv",
            "-w0",
            "<dir>/t.json"
        ])
        .contains("also the --timeseries file")
    );
    assert!(
        refused(&[
            "--output=<dir>/source.json",
            "-w50",
            "-b8K",
            "-Z8K,<dir>/source.json",
            "<dir>/t.json"
        ])
        .contains("write source file (-Z)")
    );
    symlink("/dev/null", dir.path().join("null.json")).unwrap();
    assert!(
        refused(&["--output=<dir>/null.json", "-w0", "<dir>/t.json"])
            .contains("symbolic link to a character device")
    );
    let cleared = gate(
        &[
            "--output=<dir>/r.json",
            "--output=<dir>/r.xml",
            "--trace=<dir>/x.trace",
            "-w0",
            "<dir>/t.json",
        ],
        dir.path(),
        &Fake::default(),
    )
    .unwrap();
    assert_eq!(cleared.outputs.reports.len(), 2);
    assert!(cleared.outputs.trace.is_some());
}
