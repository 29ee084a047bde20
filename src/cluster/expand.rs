//! `{rank}`, `{ranks}` and `{host}` in paths: one command line, a file per rank.

use std::path::{Path, PathBuf};

use crate::profile::Profile;

/// Who this process is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Whoami {
    /// Its rank (0 on its own).
    pub rank: u32,
    /// How many ranks the run has (1 on its own).
    pub ranks: u32,
    /// The host name.
    pub host: String,
}

/// The placeholders a path may hold.
pub const PLACEHOLDERS: [&str; 3] = ["{rank}", "{ranks}", "{host}"];

/// `path` with each placeholder replaced by this process's value. Paths are UTF-8 (the profile's
/// checks make sure); any other brace text stays as it is.
pub fn expand_path(path: &Path, who: &Whoami) -> PathBuf {
    let Some(text) = path.to_str() else {
        return path.to_path_buf();
    };
    if !PLACEHOLDERS.iter().any(|p| text.contains(p)) {
        return path.to_path_buf();
    }
    PathBuf::from(
        text.replace("{rank}", &who.rank.to_string())
            .replace("{ranks}", &who.ranks.to_string())
            .replace("{host}", &who.host),
    )
}

/// The profile as this process runs it: every target and output path expanded.
pub fn expand(profile: &Profile, who: &Whoami) -> Profile {
    let mut mine = profile.clone();
    for target in mine.timespans.iter_mut().flat_map(|ts| &mut ts.targets) {
        target.path = expand_path(&target.path, who);
    }
    for path in mine.outputs.iter_mut().chain(
        [
            &mut mine.observe.timeseries,
            &mut mine.observe.histlog,
            &mut mine.observe.trace,
        ]
        .into_iter()
        .flatten(),
    ) {
        *path = expand_path(path, who);
    }
    if let Some(state) = mine.verify.as_mut().and_then(|v| v.state.as_mut()) {
        *state = expand_path(state, who);
    }
    mine
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_become_this_process() {
        let who = Whoami {
            rank: 7,
            ranks: 16,
            host: "node-3".into(),
        };
        let expanded = expand_path(Path::new("/mnt/{host}/t-{rank}-of-{ranks}.dat"), &who);
        assert_eq!(expanded, Path::new("/mnt/node-3/t-7-of-16.dat"));
        // Other braces are names like any other.
        let plain = Path::new("/mnt/{weird}/t.dat");
        assert_eq!(expand_path(plain, &who), plain);
    }
}
