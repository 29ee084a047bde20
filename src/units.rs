//! The units of the DiskSpd command line: sizes (`4K`, `1G`, `8b`), plain counts and percentages;
//! and the one rule for times iospd writes outside DiskSpd's layout: a unit that scales itself.
//!
//! Parsing is strict where DiskSpd used `atoi`: `-o32x` is an error here, not 32, because a
//! silently truncated value is a wrong measurement that nobody notices.

use thiserror::Error;

/// A size as typed: bytes, or a number of blocks resolved once the final `-b` is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// A byte count (suffixes K/M/G/T already applied).
    Bytes(u64),
    /// A multiple of the block size (`8b`).
    Blocks(u64),
}

impl Size {
    /// The size in bytes, given the block size; `None` when the product overflows.
    pub fn resolve(self, block_size: u64) -> Option<u64> {
        match self {
            Size::Bytes(bytes) => Some(bytes),
            Size::Blocks(blocks) => blocks.checked_mul(block_size),
        }
    }
}

/// Why a value could not be read; the caller adds the flag and an example.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum UnitError {
    /// Nothing after the flag letter.
    #[error("a value is missing")]
    Empty,
    /// Characters that are not digits where a number was expected.
    #[error("'{0}' is not a whole number")]
    NotNumber(String),
    /// A suffix other than K, M, G, T or b.
    #[error("'{0}' has an unknown size suffix (use K, M, G, T for KiB..TiB, or b for blocks)")]
    BadSuffix(String),
    /// The value does not fit.
    #[error("'{0}' is too large")]
    Overflow(String),
    /// A number outside the range the option accepts.
    #[error("{value} is out of range {min}..={max}")]
    Range {
        /// The value read.
        value: u64,
        /// The smallest value accepted.
        min: u64,
        /// The largest value accepted.
        max: u64,
    },
}

/// Reads an unsigned decimal number made only of ASCII digits.
pub fn parse_count(text: &str) -> Result<u64, UnitError> {
    if text.is_empty() {
        return Err(UnitError::Empty);
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UnitError::NotNumber(text.to_string()));
    }
    text.parse::<u64>()
        .map_err(|_| UnitError::Overflow(text.to_string()))
}

/// Reads a number and checks it lies in `min..=max`.
pub fn parse_in_range(text: &str, min: u64, max: u64) -> Result<u64, UnitError> {
    let value = parse_count(text)?;
    if value < min || value > max {
        return Err(UnitError::Range { value, min, max });
    }
    Ok(value)
}

/// Reads a size: digits, then optionally one of K, M, G, T (binary, any case) or `b` (blocks).
pub fn parse_size(text: &str) -> Result<Size, UnitError> {
    if text.is_empty() {
        return Err(UnitError::Empty);
    }
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, suffix) = text.split_at(digits_end);
    if digits.is_empty() {
        return Err(UnitError::NotNumber(text.to_string()));
    }
    let number: u64 = digits
        .parse()
        .map_err(|_| UnitError::Overflow(text.to_string()))?;
    let shift = match suffix {
        "" => 0,
        "b" | "B" => return Ok(Size::Blocks(number)),
        "k" | "K" => 10,
        "m" | "M" => 20,
        "g" | "G" => 30,
        "t" | "T" => 40,
        _ => return Err(UnitError::BadSuffix(text.to_string())),
    };
    number
        .checked_mul(1u64 << shift)
        .map(Size::Bytes)
        .ok_or_else(|| UnitError::Overflow(text.to_string()))
}

/// Formats a byte count the way DiskSpd 2.3 does: the largest binary unit that fits, an integer
/// when exact, else up to two decimals (`1.95MiB`); below 1 KiB plain bytes (`64B`).
pub fn format_size(bytes: u64) -> String {
    // DiskSpd's Util::GetSizeKMGT: the largest unit, whole or with up to two decimals.
    const UNITS: [(u32, &str); 5] = [
        (50, "PiB"),
        (40, "TiB"),
        (30, "GiB"),
        (20, "MiB"),
        (10, "KiB"),
    ];
    for (shift, unit) in UNITS {
        let scale = 1u64 << shift;
        if bytes >= scale {
            if bytes % scale == 0 {
                return format!("{}{unit}", bytes / scale);
            }
            let text = format!("{:.2}", bytes as f64 / scale as f64);
            let text = text.trim_end_matches('0').trim_end_matches('.');
            return format!("{text}{unit}");
        }
    }
    format!("{bytes}B")
}

/// A duration (a latency, a clock offset) for people, outside DiskSpd's layout (which keeps
/// milliseconds with three decimals): the unit that keeps it short, `850ns`, `12.3µs`, `1.234ms`,
/// `16.000s`; negative values keep their sign.
pub fn format_duration(ns: f64) -> String {
    let sign = if ns < 0.0 { "-" } else { "" };
    let ns = ns.abs();
    if ns < 1e3 {
        format!("{sign}{ns:.0}ns")
    } else if ns < 1e6 {
        format!("{sign}{:.1}µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{sign}{:.3}ms", ns / 1e6)
    } else {
        format!("{sign}{:.3}s", ns / 1e9)
    }
}

/// Formats CPU numbers as ranges: `0-3,7`.
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("4096"), Ok(Size::Bytes(4096)));
        assert_eq!(parse_size("4K"), Ok(Size::Bytes(4096)));
        assert_eq!(parse_size("4k"), Ok(Size::Bytes(4096)));
        assert_eq!(parse_size("2m"), Ok(Size::Bytes(2 << 20)));
        assert_eq!(parse_size("5G"), Ok(Size::Bytes(5 << 30)));
        assert_eq!(parse_size("1T"), Ok(Size::Bytes(1 << 40)));
        assert_eq!(parse_size("8b"), Ok(Size::Blocks(8)));
        assert_eq!(parse_size("0"), Ok(Size::Bytes(0)));
    }

    #[test]
    fn sizes_print_as_diskspd_prints_them() {
        // DiskSpd's ResultParser unit tests: 10 MiB, 2000 KiB, 12341234 bytes.
        assert_eq!(format_size(10 << 20), "10MiB");
        assert_eq!(format_size(2000 << 10), "1.95MiB");
        assert_eq!(format_size(12_341_234), "11.77MiB");
        assert_eq!(format_size(1 << 30), "1GiB");
        assert_eq!(format_size(3 << 50), "3PiB");
        assert_eq!(format_size(1000), "1000B");
    }

    #[test]
    fn bad_sizes() {
        assert_eq!(parse_size(""), Err(UnitError::Empty));
        assert!(matches!(parse_size("K"), Err(UnitError::NotNumber(_))));
        assert!(matches!(parse_size("4KB"), Err(UnitError::BadSuffix(_))));
        assert!(matches!(parse_size("4Q"), Err(UnitError::BadSuffix(_))));
        assert!(matches!(parse_size("1.5G"), Err(UnitError::BadSuffix(_))));
        assert!(matches!(parse_size("-4K"), Err(UnitError::NotNumber(_))));
        assert!(matches!(
            parse_size("99999999999999999999"),
            Err(UnitError::Overflow(_))
        ));
        assert!(matches!(
            parse_size("17179869184G"),
            Err(UnitError::Overflow(_))
        ));
    }

    #[test]
    fn blocks_resolve_against_block_size() {
        assert_eq!(Size::Blocks(8).resolve(4096), Some(32768));
        assert_eq!(Size::Bytes(7).resolve(4096), Some(7));
        assert_eq!(Size::Blocks(u64::MAX).resolve(2), None);
    }

    #[test]
    fn counts_are_strict() {
        assert_eq!(parse_count("32"), Ok(32));
        assert!(matches!(parse_count("32x"), Err(UnitError::NotNumber(_))));
        assert!(matches!(parse_count(" 3"), Err(UnitError::NotNumber(_))));
        assert_eq!(parse_count(""), Err(UnitError::Empty));
        assert_eq!(
            parse_in_range("101", 0, 100),
            Err(UnitError::Range {
                value: 101,
                min: 0,
                max: 100
            })
        );
    }

    #[test]
    fn sizes_print_like_diskspd() {
        assert_eq!(format_size(64), "64B");
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_size(64 * 1024), "64KiB");
        assert_eq!(format_size(100 * 1024), "100KiB");
        assert_eq!(format_size(2000 * 1024), "1.95MiB");
        assert_eq!(format_size(12_341_234), "11.77MiB");
        assert_eq!(format_size(10 << 20), "10MiB");
        assert_eq!(format_size(3 << 29), "1.5GiB");
        assert_eq!(format_size(5 << 40), "5TiB");
    }

    #[test]
    fn durations_scale_their_unit() {
        assert_eq!(format_duration(850.0), "850ns");
        assert_eq!(format_duration(12_345.0), "12.3µs");
        assert_eq!(format_duration(1_234_567.0), "1.235ms");
        assert_eq!(format_duration(16e9), "16.000s");
        assert_eq!(format_duration(-2_500.0), "-2.5µs");
    }
}
