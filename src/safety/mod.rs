//! The one gate every write passes: iospd never destroys data it was not clearly told to destroy.
//!
//! Before any byte is written, every target the run will write to (`-w` above 0, or `-c`) is
//! checked. A block device is refused when it or one of its partitions is mounted, is swap, has
//! holders (device mapper, MD, LVM), cannot be opened exclusively, or carries a file system,
//! volume-manager, RAID, encryption or partition-table signature. An existing regular file is
//! refused unless iospd created it as a test file (it carries the `user.iospd.test-file` extended
//! attribute). `--force` overrides both. The checks read the machine through [`SystemView`], so
//! their decisions are unit-tested with a fake one.

pub mod marker;
pub mod signatures;
mod view;

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::profile::{Profile, Target};
pub use view::{LinuxView, SystemView};

/// Why a target may not be written.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SafetyError {
    /// A block device in use or holding data.
    #[error(
        "refusing to write to '{path}': {found}, and writing would destroy it. {fix}, or add --force to write to it anyway"
    )]
    Device {
        /// The device.
        path: PathBuf,
        /// What was found, and where.
        found: String,
        /// What to do about it.
        fix: String,
    },
    /// An existing file iospd did not create.
    #[error(
        "refusing to {action} '{path}': it exists and iospd did not create it as a test file (it has no {attribute} attribute{why}); add --force to use it anyway, or remove it and let -c create a fresh test file"
    )]
    File {
        /// The file.
        path: PathBuf,
        /// Write to, or recreate.
        action: &'static str,
        /// The marker's name.
        attribute: &'static str,
        /// Why the marker could not be read, if that is the reason.
        why: String,
    },
}

/// Whether any I/O of the profile writes to `target`, or `-c` recreates it.
fn writes(profile: &Profile, path: &Path) -> (bool, bool) {
    let targets = profile
        .timespans
        .iter()
        .flat_map(|ts| &ts.targets)
        .filter(|t| t.path == path);
    targets.fold((false, false), |(w, c), t: &Target| {
        (w || t.write_ratio > 0, c || t.create_size.is_some())
    })
}

/// Checks every target the profile writes to; returns notices to print (for `--force`).
pub fn check(
    profile: &Profile,
    force: bool,
    view: &dyn SystemView,
) -> Result<Vec<String>, SafetyError> {
    let mut notices = Vec::new();
    let mut seen: Vec<&Path> = Vec::new();
    for target in profile.timespans.iter().flat_map(|ts| &ts.targets) {
        let path = target.path.as_path();
        if seen.contains(&path) {
            continue;
        }
        seen.push(path);
        let (writes, creates) = writes(profile, path);
        if !writes && !creates {
            continue;
        }
        match view.kind(path) {
            view::Kind::BlockDevice(dev) if writes => {
                if let Some(found) = device_problem(path, dev, view) {
                    if !force {
                        return Err(SafetyError::Device {
                            path: path.to_path_buf(),
                            fix: found.1,
                            found: found.0,
                        });
                    }
                    notices.push(format!("--force: writing to {path:?} although {}", found.0));
                }
                if force {
                    notices.push(format!(
                        "--force: writing to {} ({})",
                        path.display(),
                        view.describe(dev)
                    ));
                }
            }
            view::Kind::File => {
                let why = match marker::is_test_file(path) {
                    Ok(true) => continue,
                    Ok(false) => String::new(),
                    Err(e) => format!(", and its attributes cannot be read: {e}"),
                };
                if force {
                    notices.push(format!(
                        "--force: writing to {}, which iospd did not create",
                        path.display()
                    ));
                    continue;
                }
                return Err(SafetyError::File {
                    path: path.to_path_buf(),
                    action: if creates { "recreate" } else { "write to" },
                    attribute: marker::ATTRIBUTE,
                    why,
                });
            }
            _ => {}
        }
    }
    Ok(notices)
}

/// The first reason a block device must not be written, and a hint to clear it.
fn device_problem(path: &Path, dev: u64, view: &dyn SystemView) -> Option<(String, String)> {
    let name = path.display();
    let family = view.family(dev);
    for (member, member_name) in &family {
        let which = if *member == dev {
            "it".to_string()
        } else {
            format!("its partition {member_name}")
        };
        if let Some(mount) = view.mounts().into_iter().find(|(d, _)| d == member) {
            return Some((
                format!("{which} is mounted at {}", mount.1),
                "Unmount it first".into(),
            ));
        }
        if let Some(swap) = view.swaps().into_iter().find(|(d, _)| d == member) {
            return Some((
                format!("{which} is in use as swap ({})", swap.1),
                format!("Run swapoff {} first", swap.1),
            ));
        }
        let holders = view.holders(*member);
        if !holders.is_empty() {
            return Some((
                format!(
                    "{which} is held by {} (device mapper, MD RAID or LVM)",
                    holders.join(", ")
                ),
                "Stop the array or volume group that uses it first".into(),
            ));
        }
    }
    if let Err(reason) = view.exclusive(path) {
        return Some((
            format!("it cannot be opened exclusively ({reason}): something else is using it"),
            format!("Stop what has it open first (fuser -v {name} shows it)"),
        ));
    }
    match view.signature(path) {
        Ok(Some(signature)) => Some((
            format!(
                "it holds {} (signature at byte {})",
                signature.what, signature.offset
            ),
            format!("If the data is not needed, erase the signature with: wipefs -a {name}"),
        )),
        Ok(None) => None,
        Err(e) => Some((
            format!("its first bytes cannot be read to look for a file system ({e})"),
            "Check that the device is readable".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::ffi::OsString;

    use super::signatures::Signature;
    use super::view::Kind;
    use super::*;
    use crate::cli::{self, Command};

    /// A machine with one disk (dev 100) and its partition (dev 101).
    #[derive(Default)]
    struct Fake {
        mounts: Vec<(u64, String)>,
        swaps: Vec<(u64, String)>,
        holders: Vec<(u64, String)>,
        busy: bool,
        signature: Option<Signature>,
        asked: RefCell<Vec<String>>,
    }

    impl SystemView for Fake {
        fn kind(&self, path: &Path) -> Kind {
            if path.starts_with("/dev") {
                Kind::BlockDevice(100)
            } else {
                Kind::Missing
            }
        }
        fn family(&self, dev: u64) -> Vec<(u64, String)> {
            vec![(dev, "/dev/sdx".into()), (101, "/dev/sdx1".into())]
        }
        fn mounts(&self) -> Vec<(u64, String)> {
            self.mounts.clone()
        }
        fn swaps(&self) -> Vec<(u64, String)> {
            self.swaps.clone()
        }
        fn holders(&self, dev: u64) -> Vec<String> {
            self.holders
                .iter()
                .filter(|(d, _)| *d == dev)
                .map(|(_, h)| h.clone())
                .collect()
        }
        fn exclusive(&self, _: &Path) -> Result<(), String> {
            self.asked.borrow_mut().push("exclusive".into());
            if self.busy {
                Err("EBUSY".into())
            } else {
                Ok(())
            }
        }
        fn signature(&self, _: &Path) -> std::io::Result<Option<Signature>> {
            Ok(self.signature)
        }
        fn describe(&self, _: u64) -> String {
            "FAKE DISK, 1GiB".into()
        }
    }

    fn profile(args: &[&str]) -> Profile {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let Command::Run(raw) = cli::parse(&args).unwrap() else {
            panic!()
        };
        crate::profile::resolve(&raw, String::new())
            .unwrap()
            .profile
    }

    fn refused(fake: &Fake) -> String {
        check(&profile(&["-w10", "/dev/sdx"]), false, fake)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn device_refusals_name_what_and_where() {
        let fake = Fake {
            mounts: vec![(101, "/mnt/data".into())],
            ..Fake::default()
        };
        assert!(refused(&fake).contains("its partition /dev/sdx1 is mounted at /mnt/data"));
        let fake = Fake {
            mounts: vec![(100, "/".into())],
            ..Fake::default()
        };
        assert!(refused(&fake).contains("it is mounted at /"));
        let fake = Fake {
            swaps: vec![(101, "/dev/sdx1".into())],
            ..Fake::default()
        };
        assert!(refused(&fake).contains("in use as swap"));
        let fake = Fake {
            holders: vec![(100, "dm-0".into())],
            ..Fake::default()
        };
        assert!(refused(&fake).contains("held by dm-0"));
        let fake = Fake {
            busy: true,
            ..Fake::default()
        };
        assert!(refused(&fake).contains("cannot be opened exclusively"));
        let fake = Fake {
            signature: Some(Signature {
                what: "an XFS file system",
                offset: 0,
            }),
            ..Fake::default()
        };
        let message = refused(&fake);
        assert!(
            message.contains("holds an XFS file system (signature at byte 0)")
                && message.contains("--force")
                && message.contains("wipefs -a /dev/sdx"),
            "{message}"
        );
    }

    #[test]
    fn clean_devices_reads_and_force() {
        let clean = Fake::default();
        assert_eq!(
            check(&profile(&["-w10", "/dev/sdx"]), false, &clean),
            Ok(vec![])
        );
        let mounted = Fake {
            mounts: vec![(100, "/".into())],
            ..Fake::default()
        };
        assert!(
            check(&profile(&["-w0", "/dev/sdx"]), false, &mounted).is_ok(),
            "reads are always allowed"
        );
        assert!(
            mounted.asked.borrow().is_empty(),
            "a read test does not even open it exclusively"
        );
        let notices = check(&profile(&["-w10", "/dev/sdx"]), true, &mounted).unwrap();
        assert!(
            notices.iter().any(|n| n.contains("FAKE DISK, 1GiB")),
            "{notices:?}"
        );
    }
}
