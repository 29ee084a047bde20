//! Every signature the standard probe (libblkid, as `wipefs` and `blkid -p` use it) knows refuses a
//! write: file systems, RAID members, volume managers, encryption, cluster and object stores,
//! made with their own tools where Debian has them and otherwise written at the offsets their
//! formats define. Each image is first checked with `wipefs -n`, so a wrong image fails the test
//! rather than passing it. On devices: a partition the kernel still knows after its table was
//! erased, a GPT with only its backup header, a damaged LUKS2 header, and a test file that backs a
//! mounted loop file system.

use std::fs::{self, File};
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::util::machine::{LoopDevice, Mount, devices};
use crate::util::tools::{self, Tools};
use crate::util::{TempDir, run_iospd, stderr};

const SIZE: u64 = 64 << 20;

/// How an image gets its signature.
enum Maker {
    /// A tool and its arguments; `{}` stands for the image.
    Tool(&'static str, &'static [&'static str]),
    /// Bytes at offsets (negative: from the end).
    Bytes(fn() -> Vec<(i64, Vec<u8>)>),
}

/// (libblkid's TYPE, what the refusal calls it, how to make it).
const KINDS: &[(&str, &str, Maker)] = &[
    ("zfs_member", "a ZFS pool member", Maker::Bytes(zfs)),
    (
        "bcache",
        "a bcache device",
        Maker::Tool("make-bcache", &["-B", "{}"]),
    ),
    (
        "vdo",
        "a VDO volume",
        Maker::Bytes(|| vec![(0, b"dmvdo001".to_vec())]),
    ),
    (
        "isw_raid_member",
        "an Intel RST (isw) RAID member",
        Maker::Bytes(|| vec![(-1024, b"Intel Raid ISM Cfg Sig. 1.0.00".to_vec())]),
    ),
    (
        "ddf_raid_member",
        "a DDF RAID member",
        Maker::Bytes(|| vec![(-512, 0xDE11_DE11u32.to_be_bytes().to_vec())]),
    ),
    (
        "ceph_bluestore",
        "a Ceph BlueStore device",
        Maker::Bytes(|| vec![(0, b"bluestore block device\n".to_vec())]),
    ),
    (
        "drbd",
        "DRBD metadata",
        Maker::Bytes(|| vec![(-4096 + 60, 0x8374_026bu32.to_be_bytes().to_vec())]),
    ),
    (
        "oracleasm",
        "an Oracle ASM disk",
        Maker::Bytes(|| vec![(32, b"ORCLDISK".to_vec())]),
    ),
    (
        "gfs2",
        "a gfs2 file system",
        Maker::Tool("mkfs.gfs2", &["-O", "-p", "lock_nolock", "{}"]),
    ),
    (
        "ocfs2",
        "an ocfs2 file system",
        Maker::Tool("mkfs.ocfs2", &["-q", "{}"]),
    ),
    ("hfsplus", "a hfsplus file system", Maker::Bytes(hfsplus)),
    (
        "minix",
        "a minix file system",
        Maker::Tool("mkfs.minix", &["{}"]),
    ),
    ("bfs", "a bfs file system", Maker::Tool("mkfs.bfs", &["{}"])),
    (
        "ext4",
        "an ext4 file system",
        Maker::Tool("mkfs.ext4", &["-q", "-F", "{}"]),
    ),
    ("swap", "swap space", Maker::Tool("mkswap", &["-q", "{}"])),
    (
        "gpt",
        "a gpt partition table",
        Maker::Bytes(backup_gpt_only),
    ),
];

/// Four ZFS uberblocks (magic 0x00bab10c) in the ring of label 0.
fn zfs() -> Vec<(i64, Vec<u8>)> {
    let mut uberblock = 0x00ba_b10cu64.to_le_bytes().to_vec();
    uberblock.extend(5000u64.to_le_bytes());
    (0..4)
        .map(|i| (128 * 1024 + i * 1024, uberblock.clone()))
        .collect()
}

/// An HFS+ volume header at 1 KiB: "H+", version 4, 4 KiB blocks.
fn hfsplus() -> Vec<(i64, Vec<u8>)> {
    let mut header = vec![0u8; 512];
    header[0..2].copy_from_slice(b"H+");
    header[2..4].copy_from_slice(&4u16.to_be_bytes());
    header[40..44].copy_from_slice(&4096u32.to_be_bytes());
    header[44..48].copy_from_slice(&16384u32.to_be_bytes());
    vec![(1024, header)]
}

/// A GPT made by sfdisk whose protective MBR, primary header and entries were then erased: only
/// the backup at the end is left. (Written by the test below with sfdisk; here, nothing.)
fn backup_gpt_only() -> Vec<(i64, Vec<u8>)> {
    Vec::new()
}

/// Makes `image` carry the kind's signature; `false` (noted in the summary) when its tool is
/// missing here.
fn make(image: &Path, kind: &str, maker: &Maker, test: &str) -> bool {
    let path = image.display().to_string();
    let unchecked = format!("the {kind} signature");
    match maker {
        Maker::Tool(tool, args) => {
            let Some(tools) = tools::optional(test, tool, &unchecked) else {
                return false;
            };
            let args: Vec<String> = args.iter().map(|a| a.replace("{}", &path)).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            tools.must(tool, &args);
        }
        Maker::Bytes(bytes) => {
            let file = fs::OpenOptions::new().write(true).open(image).unwrap();
            for (offset, data) in bytes() {
                let at = if offset < 0 {
                    SIZE as i64 + offset
                } else {
                    offset
                };
                file.write_all_at(&data, at as u64).unwrap();
            }
            if kind == "gpt" {
                let Some(tools) = tools::optional(test, "sfdisk", &unchecked) else {
                    return false;
                };
                tools.must_with_input("sfdisk", &["-q", &path], b"label: gpt\n");
                let zeros = vec![0u8; 34 * 512];
                file.write_all_at(&zeros, 0).unwrap();
            }
        }
    }
    true
}

/// What `wipefs -n` lists: (offset, type) per line.
fn wipefs_types(tools: &Tools, target: &str) -> Vec<String> {
    tools
        .run("wipefs", &["-n", target])
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect()
}

#[test]
fn every_signature_the_standard_probe_knows_refuses_a_write() {
    let test = "every_signature_the_standard_probe_knows_refuses_a_write";
    let Some(tools) = tools::need(test, &["wipefs"]) else {
        return;
    };
    let dir = TempDir::new();
    let mut checked = 0;
    for (kind, described, maker) in KINDS {
        let image = dir.join(&format!("{kind}.img"));
        File::create(&image).unwrap().set_len(SIZE).unwrap();
        if !make(&image, kind, maker, test) {
            continue;
        }
        // A test file iospd created, later given a signature: marked, so only the probe stops it.
        iospd::safety::marker::mark(&File::open(&image).unwrap()).unwrap();
        let arg = image.display().to_string();
        assert!(
            wipefs_types(&tools, &arg).iter().any(|t| t == kind),
            "the {kind} image is not what wipefs reports: {:?}",
            wipefs_types(&tools, &arg)
        );
        let before = fs::read(&image).unwrap();
        let output = run_iospd(&["-d1", "-W0", "-w100", "-b4K", &arg]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{kind}: {err}");
        assert!(
            err.contains(&format!("it holds {described}")) && err.contains("--force"),
            "{kind}: {err}"
        );
        assert!(
            fs::read(&image).unwrap() == before,
            "{kind}: the image was written"
        );
        checked += 1;
    }
    eprintln!("{checked} of {} signature kinds checked", KINDS.len());
}

/// One step of preparing a device; `{}` in an argument stands for the device.
enum Step {
    /// A program, its arguments and what it reads on stdin; it must succeed.
    Run(&'static str, &'static [&'static str], &'static [u8]),
    /// A program that may fail (the kernel may already know what it tells it).
    Try(&'static str, &'static [&'static str]),
    /// Zeros over the first `n` bytes.
    Zero(usize),
}

/// A loop device the test prepares with `setup`, which runs `programs`, then a write test that must
/// be refused with `says`.
fn refused_on_device(test: &str, programs: &[&'static str], setup: &[Step], says: &[&str]) {
    let Some(tools) = devices(test, programs) else {
        return;
    };
    let Some(device) = LoopDevice::with(&tools, 64, test) else {
        return;
    };
    let dev = device.arg();
    let args =
        |args: &[&str]| -> Vec<String> { args.iter().map(|a| a.replace("{}", &dev)).collect() };
    for step in setup {
        match step {
            Step::Run(program, arguments, input) => {
                let arguments = args(arguments);
                let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
                tools.must_with_input(program, &arguments, input);
            }
            Step::Try(program, arguments) => {
                let arguments = args(arguments);
                let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
                let _ = tools.run(program, &arguments);
            }
            Step::Zero(n) => fs::OpenOptions::new()
                .write(true)
                .open(&device.device)
                .and_then(|f| f.write_all_at(&vec![0u8; *n], 0))
                .expect("zero the start of the device"),
        }
    }
    let before = device.contents();
    let output = run_iospd(&["-d1", "-W0", "-w100", "-b4K", &dev]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    for piece in says {
        assert!(
            err.contains(&piece.replace("{}", &dev)),
            "expected {piece:?} in: {err}"
        );
    }
    assert!(device.contents() == before, "the device was written");
}

#[test]
fn a_partition_the_kernel_still_knows_is_probed_after_its_table_was_erased() {
    let test = "a_partition_the_kernel_still_knows_is_probed_after_its_table_was_erased";
    refused_on_device(
        test,
        &["sfdisk", "partx", "mkfs.ext4"],
        &[
            Step::Run("sfdisk", &["-q", "{}"], b"label: dos\n,32M\n"),
            Step::Try("partx", &["-u", "{}"]),
            Step::Run("mkfs.ext4", &["-q", "-F", "{}p1"], b""),
            Step::Zero(512),
        ],
        &[
            "its partition {}p1 holds an ext4 file system",
            "wipefs -a {}p1",
        ],
    );
}

#[test]
fn a_gpt_with_only_its_backup_header_is_refused() {
    let test = "a_gpt_with_only_its_backup_header_is_refused";
    refused_on_device(
        test,
        &["sfdisk"],
        &[
            Step::Run("sfdisk", &["-q", "{}"], b"label: gpt\n"),
            Step::Zero(34 * 512),
        ],
        &["it holds a gpt partition table (signature at byte 67108352)"],
    );
}

#[test]
fn a_luks2_volume_with_a_damaged_primary_header_is_refused() {
    let test = "a_luks2_volume_with_a_damaged_primary_header_is_refused";
    refused_on_device(
        test,
        &["cryptsetup"],
        &[
            Step::Run(
                "cryptsetup",
                &[
                    "luksFormat",
                    "-q",
                    "--type",
                    "luks2",
                    "--pbkdf",
                    "pbkdf2",
                    "--pbkdf-force-iterations",
                    "1000",
                    "{}",
                    "-",
                ],
                b"pw",
            ),
            Step::Zero(4096),
        ],
        &["it holds a LUKS encrypted volume"],
    );
}

#[test]
fn a_test_file_that_backs_a_mounted_loop_file_system_is_refused() {
    let test = "a_test_file_that_backs_a_mounted_loop_file_system_is_refused";
    let Some(tools) = devices(test, &["mkfs.ext4"]) else {
        return;
    };
    let dir = TempDir::new();
    let image = dir.join("t.dat");
    let made = run_iospd(&[
        "-c64M",
        "-d1",
        "-W0",
        "--engine=null",
        &image.display().to_string(),
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let device = tools.must(
        "losetup",
        &["--find", "--show", &image.display().to_string()],
    );
    let _detach = Detach(&tools, device.clone());
    tools.must("mkfs.ext4", &["-q", "-F", &device]);
    let _mount = Mount::new(&tools, &device, "ext4", "").expect("mount the loop file system");
    let output = run_iospd(&["-d1", "-W0", "-w100", "-b4K", &image.display().to_string()]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("it backs the loop device {device}")) && err.contains("losetup -d"),
        "{err}"
    );
}

/// Detaches a loop device when dropped.
struct Detach<'a>(&'a Tools, String);

impl Drop for Detach<'_> {
    fn drop(&mut self) {
        let _ = self.0.run("losetup", &["--detach", &self.1]);
    }
}
