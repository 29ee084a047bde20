//! Paths two ranks on one host must not share: what each rank creates or writes. On one host they
//! name the same file, so two ranks would write over each other's data and measure nonsense; the
//! usual cause is a path without `{rank}`.

use std::path::Path;

use crate::profile::Profile;

/// The absolute paths this profile creates (`-c`) or writes (`-w`, and the streamed outputs).
/// Report files (`--output`) are left out: only rank 0 writes them.
pub fn claims(profile: &Profile) -> Vec<String> {
    let written = profile
        .timespans
        .iter()
        .flat_map(|ts| &ts.targets)
        .filter(|t| t.write_ratio > 0 || t.create_size.is_some())
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
    let mut claims: Vec<String> = written.chain(streams).map(absolute).collect();
    claims.sort();
    claims.dedup();
    claims
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// One rank's claims: its rank, its machine, its paths.
pub struct Claim<'a> {
    /// The rank.
    pub rank: u32,
    /// What tells its machine from others.
    pub machine: &'a str,
    /// The paths.
    pub paths: &'a [String],
}

/// The first path two ranks on one machine both claim: (first rank, second rank, path).
pub fn conflict(claims: &[Claim<'_>]) -> Option<(u32, u32, String)> {
    let mut seen: std::collections::HashMap<(&str, &str), u32> = Default::default();
    for claim in claims {
        for path in claim.paths {
            if let Some(&first) = seen.get(&(claim.machine, path.as_str())) {
                return Some((first, claim.rank, path.clone()));
            }
            seen.insert((claim.machine, path), claim.rank);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_ranks_of_one_machine_may_not_write_one_path() {
        let shared = vec!["/mnt/t.dat".to_string()];
        let own = vec!["/mnt/t-1.dat".to_string()];
        let claim = |rank, machine, paths| Claim {
            rank,
            machine,
            paths,
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
    }
}
