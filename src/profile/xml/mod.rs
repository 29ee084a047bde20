//! DiskSpd's XML profiles: read (`-X`) and write (`-Rpxml`, and the `<Profile>` of XML results).
//!
//! Reading builds a small element tree with line numbers, then maps it onto [`Profile`]; elements
//! may come in any order (DiskSpd's schema uses `xs:all`), and an unknown or repeated element, a bad
//! value or a missing one is an error that names the element and its line. Document type
//! declarations are refused outright, so entity-expansion attacks never reach a parser that would
//! expand them.

mod read;
mod tree;
mod write;

use std::path::PathBuf;

use thiserror::Error;

pub use read::{parse_profile, read_profile};
pub use write::{Out, escape, profile_xml, write_profile};

/// An XML profile that cannot be used.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum XmlError {
    /// The file cannot be read.
    #[error("cannot read the XML profile '{path}': {reason}")]
    Read {
        /// The profile.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A profile file that is not one, with the file's name.
    #[error("'{path}': {error}", path = path.display())]
    InFile {
        /// The profile.
        path: PathBuf,
        /// What is wrong in it.
        error: Box<XmlError>,
    },
    /// Not well-formed XML.
    #[error("XML profile, line {line}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Well-formed, but not a DiskSpd profile.
    #[error("XML profile, line {line}, <{element}>: {message}")]
    Schema {
        /// 1-based line.
        line: usize,
        /// The element at fault.
        element: String,
        /// What is wrong and how to fix it.
        message: String,
    },
}
