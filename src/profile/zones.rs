//! `--zones`: I/O that works one zone of a target at a time (fio's `zonemode=strided`): within a
//! window of `range` bytes until `size` bytes were transferred there, then the next window
//! `range + skip` further on, back to the first after the last that fits whole.

use serde::{Deserialize, Serialize};

/// A strided walk through zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zones {
    /// Bytes transferred in a zone before the next.
    pub size: u64,
    /// The zone's window: the offsets its I/O takes (sequential I/O wraps inside it).
    pub range: u64,
    /// Bytes left out between one window's end and the next's start.
    pub skip: u64,
}

impl Zones {
    /// Reads `<size>[:<range>[:<skip>]]`, each bytes with an optional K, M, G or T; the range is
    /// the size unless given, the skip 0.
    pub fn parse(text: &str) -> Result<Zones, String> {
        let parts: Vec<&str> = text.split(':').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(format!(
                "'{text}' is not <size>[:<range>[:<skip>]] (e.g. 256M:256M:2G)"
            ));
        }
        let bytes = |part: &str, what: &str| match crate::units::parse_size(part) {
            Ok(crate::units::Size::Bytes(n)) => Ok(n),
            _ => Err(format!(
                "the zone {what} '{part}' is not bytes (a number with K, M, G or T)"
            )),
        };
        let size = bytes(parts[0], "size")?;
        let range = match parts.get(1) {
            Some(p) => bytes(p, "range")?,
            None => size,
        };
        let skip = match parts.get(2) {
            Some(p) => bytes(p, "skip")?,
            None => 0,
        };
        if size == 0 || range == 0 {
            return Err(format!(
                "'{text}': a zone's size and range are more than 0 bytes"
            ));
        }
        Ok(Zones { size, range, skip })
    }

    /// Bytes from one zone's start to the next's.
    pub fn stride(&self) -> u64 {
        self.range.saturating_add(self.skip)
    }

    /// Whole zones in `usable` bytes: every one whose window fits.
    pub fn count(&self, usable: u64) -> u64 {
        match usable.checked_sub(self.range) {
            Some(rest) => rest / self.stride() + 1,
            None => 0,
        }
    }
}

impl std::fmt::Display for Zones {
    /// The form [`Zones::parse`] reads back, in bytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.size, self.range, self.skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_read_back_and_count_the_windows_that_fit() {
        let z = Zones::parse("256M:256M:2G").unwrap();
        assert_eq!((z.size, z.range, z.skip), (256 << 20, 256 << 20, 2 << 30));
        assert_eq!(Zones::parse(&z.to_string()).unwrap(), z);
        assert_eq!(
            Zones::parse("4K").unwrap(),
            Zones {
                size: 4096,
                range: 4096,
                skip: 0
            }
        );
        // 10 GiB: windows at 0, 2.25, 4.5, 6.75 and 9 GiB; the last ends at 9.25 GiB.
        assert_eq!(z.count(10 << 30), 5);
        assert_eq!(z.count(255 << 20), 0);
        assert_eq!(z.count(256 << 20), 1);
        for (text, why) in [
            ("", "is not bytes"),
            ("0", "more than 0"),
            ("1M:0", "more than 0"),
            ("1M:1M:1M:1M", "is not <size>"),
            ("8b", "is not bytes"),
            ("1X", "is not bytes"),
        ] {
            let error = Zones::parse(text).unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
