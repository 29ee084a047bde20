//! Paths in JSON: Linux paths are bytes, JSON strings are Unicode, so a path that is not UTF-8 is
//! written with U+FFFD in place of the bytes that are not, as the text report shows it.

use std::path::{Path, PathBuf};

use serde::Serializer;

/// Serialises one path.
pub fn path<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// Serialises an optional path.
pub fn optional_path<S: Serializer>(
    path: &Option<PathBuf>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match path {
        Some(p) => serializer.serialize_some(&p.to_string_lossy()),
        None => serializer.serialize_none(),
    }
}

/// Serialises a list of paths.
pub fn paths<S: Serializer>(paths: &[PathBuf], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(paths.iter().map(|p| p.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    use super::*;

    #[test]
    fn paths_that_are_not_utf8_serialise_lossily() {
        #[derive(serde::Serialize)]
        struct P {
            #[serde(serialize_with = "path")]
            p: PathBuf,
            #[serde(serialize_with = "paths")]
            ps: Vec<PathBuf>,
        }
        let bad = PathBuf::from(OsString::from_vec(b"a\xffb.dat".to_vec()));
        let json = serde_json::to_string(&P {
            p: bad.clone(),
            ps: vec![bad],
        })
        .unwrap();
        assert_eq!(
            json,
            r#"{"p":"a\ufffdb.dat","ps":["a\ufffdb.dat"]}"#.replace("\\ufffd", "\u{fffd}")
        );
    }
}
