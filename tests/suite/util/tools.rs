//! Every external program the suite runs is found here, by one lookup on the PATH. A test names
//! all the programs it needs before it starts: when any is missing it is skipped once, with every
//! missing program and its Debian package listed; a program that only lets a test check more is
//! optional, and the summary says what went unchecked without it. A program not asked for cannot
//! be run, and `hygiene` fails a test that runs one any other way.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Debian package of each program the suite may run, named when the program is missing.
const PACKAGES: &[(&str, &str)] = &[
    ("bash", "bash"),
    ("bindfs", "bindfs"),
    ("blockdev", "util-linux"),
    ("chromium", "chromium"),
    ("compsize", "btrfs-compsize"),
    ("cryptsetup", "cryptsetup-bin"),
    ("fio", "fio"),
    ("fsfreeze", "util-linux"),
    ("losetup", "mount"),
    ("make-bcache", "bcache-tools"),
    ("mkfs.bfs", "util-linux"),
    ("mkfs.btrfs", "btrfs-progs"),
    ("mkfs.ext4", "e2fsprogs"),
    ("mkfs.gfs2", "gfs2-utils"),
    ("mkfs.minix", "util-linux"),
    ("mkfs.ocfs2", "ocfs2-tools"),
    ("mkfs.xfs", "xfsprogs"),
    ("mkswap", "util-linux"),
    ("mount", "mount"),
    ("mpirun", "openmpi-bin"),
    ("munged", "munge"),
    ("partx", "util-linux"),
    ("prometheus", "prometheus"),
    ("python3", "python3"),
    ("sbatch", "slurm-client"),
    ("script", "bsdutils"),
    ("setpriv", "util-linux"),
    ("sfdisk", "fdisk"),
    ("sinfo", "slurm-client"),
    ("slurmctld", "slurmctld"),
    ("slurmd", "slurmd"),
    ("srun", "slurm-client"),
    ("sync", "coreutils"),
    ("swapoff", "mount"),
    ("swapon", "mount"),
    ("umount", "mount"),
    ("wipefs", "util-linux"),
    ("xmllint", "libxml2-utils"),
];

/// The programs one test asked for, each where the lookup found it.
#[derive(Clone)]
pub struct Tools {
    found: Vec<(&'static str, PathBuf)>,
}

/// The programs `test` needs: `None` when any is missing, after one skip that names them all.
pub fn need(test: &str, names: &[&'static str]) -> Option<Tools> {
    let (tools, missing) = look_up(names);
    if missing.is_empty() {
        Some(tools)
    } else {
        super::skip(test, &format!("needs {}", missing.join(", ")));
        None
    }
}

/// A program that lets `test` check more: `None` when it is missing, after noting in the summary
/// that `unchecked` went unchecked.
pub fn optional(test: &str, name: &'static str, unchecked: &str) -> Option<Tools> {
    let (tools, missing) = look_up(&[name]);
    if missing.is_empty() {
        Some(tools)
    } else {
        super::checked_less(test, &format!("{unchecked} not checked: {}", missing[0]));
        None
    }
}

/// `python3`, when it can import `module` (from PyPI's `package`), which lets `test` check more:
/// `None` when it cannot, after noting in the summary that `unchecked` went unchecked.
pub fn python_module(test: &str, module: &str, package: &str, unchecked: &str) -> Option<Tools> {
    let tools = optional(test, "python3", unchecked)?;
    let found = tools
        .command("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        super::checked_less(
            test,
            &format!(
                "{unchecked} not checked: python3 cannot import {module} (pip install {package})"
            ),
        );
    }
    found.then_some(tools)
}

/// The found programs among `names`, and a description of each missing one.
fn look_up(names: &[&'static str]) -> (Tools, Vec<String>) {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for &name in names {
        assert!(
            !matches!(name, "sh" | "dash"),
            "run programs by name, not through a shell line: the lookup must see each one"
        );
        let package = PACKAGES
            .iter()
            .find(|(program, _)| *program == name)
            .map(|(_, package)| *package)
            .unwrap_or_else(|| panic!("{name} is not in tools::PACKAGES: add it with its package"));
        match on_path(name) {
            Some(path) => found.push((name, path)),
            None => missing.push(format!("{name} (Debian package {package})")),
        }
    }
    (Tools { found }, missing)
}

/// Where `name` is on the PATH, if it is an executable file there.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

impl Tools {
    /// These programs and `other`'s.
    pub fn and(mut self, other: &Tools) -> Tools {
        self.found.extend(other.found.iter().cloned());
        self
    }

    /// Where `name` was found; a program the test did not ask for is a mistake in the test.
    pub fn path(&self, name: &str) -> &Path {
        self.found
            .iter()
            .find(|(program, _)| *program == name)
            .map(|(_, path)| path.as_path())
            .unwrap_or_else(|| panic!("{name} was not asked for: name it in tools::need"))
    }

    /// A command for `name`.
    pub fn command(&self, name: &str) -> Command {
        Command::new(self.path(name))
    }

    /// Runs `name` with `args`; its trimmed stdout, or `Err` with its stderr when it fails.
    pub fn run(&self, name: &str, args: &[&str]) -> Result<String, String> {
        self.run_with_input(name, args, &[])
    }

    /// [`Tools::run`] with `input` on its stdin.
    pub fn run_with_input(
        &self,
        name: &str,
        args: &[&str],
        input: &[u8],
    ) -> Result<String, String> {
        let mut child = self
            .command(name)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{name}: {e}"))?;
        let written = child.stdin.take().expect("piped").write_all(input);
        let output = child
            .wait_with_output()
            .map_err(|e| format!("{name}: {e}"))?;
        if output.status.success() && written.is_ok() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
        } else {
            Err(format!(
                "{name} {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    }

    /// Runs `name` with `args`, which must succeed.
    pub fn must(&self, name: &str, args: &[&str]) -> String {
        self.run(name, args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Tools::must`] with `input` on its stdin.
    pub fn must_with_input(&self, name: &str, args: &[&str], input: &[u8]) -> String {
        self.run_with_input(name, args, input)
            .unwrap_or_else(|e| panic!("{e}"))
    }
}
