//! `--max-latency`: the longest a measured read or write may take; the first over it stops the
//! run with ETIMEDOUT (fio's `max_latency`).

use serde::{Deserialize, Serialize};

/// The limit per direction, in nanoseconds; `None`: no limit that way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaxLatency {
    /// Reads.
    pub read_ns: Option<u64>,
    /// Writes.
    pub write_ns: Option<u64>,
}

impl MaxLatency {
    /// Reads `<time>` (reads and writes) or `<read time>,<write time>` (either side may be
    /// empty: no limit that way), each a number with `ns`, `us`, `ms` or `s`.
    pub fn parse(text: &str) -> Result<MaxLatency, String> {
        let (read, write) = match text.split_once(',') {
            Some((read, write)) => (read, write),
            None => (text, text),
        };
        let limit = match (time(read)?, time(write)?) {
            (None, None) => return Err(format!("'{text}' sets no limit")),
            (read_ns, write_ns) => MaxLatency { read_ns, write_ns },
        };
        Ok(limit)
    }

    /// The limit per [`crate::engine::Op`] (read, write, then none for trims and flushes), as
    /// the worker compares each completion against it.
    pub fn per_op(limit: Option<&MaxLatency>) -> [u64; 5] {
        let mut per_op = [u64::MAX; 5];
        if let Some(l) = limit {
            per_op[0] = l.read_ns.unwrap_or(u64::MAX);
            per_op[1] = l.write_ns.unwrap_or(u64::MAX);
        }
        per_op
    }
}

/// One side: empty for none, else a positive time with its unit.
fn time(text: &str) -> Result<Option<u64>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let digits = text.trim_end_matches(|c: char| c.is_alphabetic() || c == 'µ');
    let scale = match &text[digits.len()..] {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "" => return Err(format!("'{text}' has no unit: give ns, us, ms or s")),
        unit => {
            return Err(format!(
                "'{unit}' is not a unit of time: give ns, us, ms or s"
            ));
        }
    };
    let n = crate::units::parse_count(digits).map_err(|e| format!("'{text}': {e}"))?;
    match n.checked_mul(scale) {
        Some(0) => Err(format!("'{text}' is no time: give more than 0")),
        Some(ns) => Ok(Some(ns)),
        None => Err(format!("'{text}' is too long")),
    }
}

/// A time in the largest of the units that holds it whole.
fn show(ns: u64) -> String {
    match ns {
        n if n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}us", n / 1_000),
        n => format!("{n}ns"),
    }
}

/// The form [`MaxLatency::parse`] reads.
impl std::fmt::Display for MaxLatency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = |ns: Option<u64>| ns.map(show).unwrap_or_default();
        match (self.read_ns, self.write_ns) {
            (r, w) if r == w => f.write_str(&side(r)),
            (r, w) => write!(f, "{},{}", side(r), side(w)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions_or_each_with_its_unit() {
        for (text, read, write, shown) in [
            ("10ms", Some(10_000_000), Some(10_000_000), "10ms"),
            ("1500us", Some(1_500_000), Some(1_500_000), "1500us"),
            ("2s,", Some(2_000_000_000), None, "2s,"),
            (",250µs", None, Some(250_000), ",250us"),
            ("7ns,1ms", Some(7), Some(1_000_000), "7ns,1ms"),
        ] {
            let limit = MaxLatency::parse(text).unwrap();
            assert_eq!((limit.read_ns, limit.write_ns), (read, write), "{text}");
            assert_eq!(limit.to_string(), shown, "{text}");
            assert_eq!(MaxLatency::parse(shown).unwrap(), limit, "{text}");
        }
        let per_op = MaxLatency::per_op(MaxLatency::parse(",1ms").ok().as_ref());
        assert_eq!(per_op, [u64::MAX, 1_000_000, u64::MAX, u64::MAX, u64::MAX]);
    }

    #[test]
    fn a_time_without_a_unit_or_of_nothing_is_refused() {
        for (text, says) in [
            ("10", "no unit"),
            ("10h", "'h' is not a unit"),
            ("0ms", "no time"),
            (",", "sets no limit"),
            ("x ms", "not"),
            ("99999999999999999s", "too long"),
        ] {
            let why = MaxLatency::parse(text).unwrap_err();
            assert!(why.contains(says), "{text}: {why}");
        }
    }
}
