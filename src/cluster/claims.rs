//! Paths two ranks on one host must not share: what each rank creates or writes. On one host they
//! name the same file, so two ranks would write over each other's data and measure nonsense; the
//! usual cause is a path without `{rank}`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::profile::Profile;
use crate::safety::Identity;
use crate::safety::open::identity;

/// A path a rank creates or writes, and the file it reaches on its machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileClaim {
    /// The path, absolute.
    pub path: String,
    /// The file it reaches: a device or an inode when it exists, else its resolved directory's
    /// inode and its name (so `d0/../t.dat` and `d1/../t.dat` are one file), else the path.
    pub file: String,
}

/// What this profile creates (`-c`) or writes (`-w`, and the streamed outputs), each with the
/// file it reaches. Report files (`--output`) are left out: only rank 0 writes them.
pub fn claims(profile: &Profile) -> Vec<FileClaim> {
    let written = profile
        .timespans
        .iter()
        .flat_map(|ts| &ts.targets)
        .filter(|t| t.modifies() || t.create_size.is_some())
        .map(|t| t.path.as_path());
    let streams = [
        &profile.observe.timeseries,
        &profile.observe.histlog,
        &profile.observe.trace,
    ]
    .into_iter()
    .flatten()
    .chain(profile.verify.iter().filter_map(|v| v.state.as_ref()))
    .map(|p| p.as_path());
    let mut claims: Vec<FileClaim> = written
        .chain(streams)
        .map(|path| FileClaim {
            path: absolute(path),
            file: file_of(path),
        })
        .collect();
    claims.sort_by(|a, b| a.file.cmp(&b.file));
    claims.dedup_by(|a, b| a.file == b.file);
    claims
}

/// The file `path` reaches now, as [`FileClaim::file`] says.
fn file_of(path: &Path) -> String {
    let named = |id: Identity| match id {
        Identity::Device(dev) => format!("device {dev}"),
        Identity::Inode(dev, ino) => format!("inode {dev}:{ino}"),
    };
    if let Some(id) = identity(path) {
        return named(id);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (identity(parent), path.file_name()) {
        (Some(dir), Some(name)) => format!("{} / {}", named(dir), name.to_string_lossy()),
        _ => format!("path {}", absolute(path)),
    }
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// One rank's claims: its rank, its machine, its files.
pub struct Claim<'a> {
    /// The rank.
    pub rank: u32,
    /// What tells its machine from others.
    pub machine: &'a str,
    /// The files.
    pub files: &'a [FileClaim],
}

/// The first file two ranks on one machine both claim: (first rank, second rank, the second's
/// path).
pub fn conflict(claims: &[Claim<'_>]) -> Option<(u32, u32, String)> {
    let mut seen: std::collections::HashMap<(&str, &str), u32> = Default::default();
    for claim in claims {
        for file in claim.files {
            if let Some(&first) = seen.get(&(claim.machine, file.file.as_str())) {
                return Some((first, claim.rank, file.path.clone()));
            }
            seen.insert((claim.machine, &file.file), claim.rank);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, file: &str) -> Vec<FileClaim> {
        vec![FileClaim {
            path: path.into(),
            file: file.into(),
        }]
    }

    #[test]
    fn two_ranks_of_one_machine_may_not_write_one_file() {
        let shared = at("/mnt/t.dat", "inode 1:2");
        let own = at("/mnt/t-1.dat", "inode 1:3");
        let claim = |rank, machine, files| Claim {
            rank,
            machine,
            files,
        };
        // Other machines may (a shared file system, or local disks with one name).
        assert_eq!(
            conflict(&[claim(0, "a", &shared), claim(1, "b", &shared)]),
            None
        );
        assert_eq!(
            conflict(&[claim(0, "a", &shared), claim(1, "a", &own)]),
            None
        );
        assert_eq!(
            conflict(&[
                claim(0, "a", &own),
                claim(1, "b", &shared),
                claim(2, "b", &shared)
            ]),
            Some((1, 2, "/mnt/t.dat".to_string()))
        );
        // Two paths of one file are one claim.
        let other_name = at("/mnt/d1/../t.dat", "inode 1:2");
        assert_eq!(
            conflict(&[claim(0, "a", &shared), claim(1, "a", &other_name)]),
            Some((0, 1, "/mnt/d1/../t.dat".to_string()))
        );
    }

    #[test]
    fn paths_through_other_directories_reach_one_file() {
        let dir = tempfile::tempdir().unwrap();
        for d in ["d0", "d1"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        let new = |p: &str| file_of(&dir.path().join(p));
        // A file still to be created: its directory and name.
        assert_eq!(new("d0/../t.dat"), new("d1/../t.dat"));
        assert_ne!(new("d0/t.dat"), new("d1/t.dat"));
        // A file that exists, under a hard link and a symbolic link.
        std::fs::write(dir.path().join("t.dat"), b"x").unwrap();
        std::fs::hard_link(dir.path().join("t.dat"), dir.path().join("d0/h.dat")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("t.dat"), dir.path().join("d1/s.dat")).unwrap();
        assert_eq!(new("t.dat"), new("d0/h.dat"));
        assert_eq!(new("t.dat"), new("d1/s.dat"));
        assert!(new("t.dat").starts_with("inode "));
    }
}
