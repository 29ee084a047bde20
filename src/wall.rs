//! Wall-clock times as people write and read them: RFC 3339 for `--start-at` and the JSON, and
//! DiskSpd's `YYYY/MM/DD HH:MM:SS UTC` in the reports.

use std::time::{Duration, SystemTime};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Reads an RFC 3339 time (`2026-11-23T14:00:00Z`, `2026-11-23T15:00:00.5+01:00`).
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, String> {
    let parsed = OffsetDateTime::parse(text, &Rfc3339).map_err(|e| {
        format!("'{text}' is not an RFC 3339 time ({e}); for example 2026-11-23T14:00:00Z")
    })?;
    Ok(SystemTime::from(parsed))
}

/// The RFC 3339 UTC form of `time`, to the nanosecond when it has a fraction.
pub fn rfc3339(time: SystemTime) -> String {
    OffsetDateTime::from(time)
        .format(&Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into())
}

/// DiskSpd's UTC date: `YYYY/MM/DD HH:MM:SS UTC`.
pub fn utc_string(time: SystemTime) -> String {
    let at = OffsetDateTime::from(time);
    format!(
        "{:04}/{:02}/{:02} {:02}:{:02}:{:02} UTC",
        at.year(),
        at.month() as u8,
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

/// DiskSpd 2.3's stamp on a `-v` progress line: local time, `YYYY-MM-DDTHH:MM:SS`.
pub fn local_stamp(time: SystemTime) -> String {
    let seconds = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as libc::time_t;
    // SAFETY: tm is plain data, valid all zeros; localtime_r (which reads the zone setting on
    // first use) writes only the tm it is given and returns null on failure (checked).
    let local = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&seconds, &mut tm).is_null()).then_some(tm)
    };
    match local {
        Some(tm) => format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec
        ),
        None => rfc3339(time),
    }
}

/// Nanoseconds since the epoch (0 before it).
pub fn unix_ns(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(u64::MAX as u128) as u64)
}

/// The time `ns` nanoseconds after the epoch.
pub fn from_unix_ns(ns: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_nanos(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_stamps_are_diskspds() {
        let stamp = local_stamp(SystemTime::UNIX_EPOCH + Duration::from_secs(1_718_282_096));
        // Local time: the date and hour depend on the zone, the form does not.
        let bytes = stamp.as_bytes();
        assert_eq!(stamp.len(), 19, "{stamp}");
        for (i, b) in bytes.iter().enumerate() {
            match i {
                4 | 7 => assert_eq!(*b, b'-'),
                10 => assert_eq!(*b, b'T'),
                13 | 16 => assert_eq!(*b, b':'),
                _ => assert!(b.is_ascii_digit(), "{stamp}"),
            }
        }
        assert_eq!(&stamp[17..], "56", "seconds are the same in every zone");
    }

    #[test]
    fn utc_dates() {
        let at = |s| utc_string(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970/01/01 00:00:00 UTC");
        assert_eq!(at(1_718_282_096), "2024/06/13 12:34:56 UTC");
        assert_eq!(at(1_709_164_800), "2024/02/29 00:00:00 UTC");
    }

    #[test]
    fn rfc3339_times_with_offsets_and_fractions() {
        let utc = parse_rfc3339("2024-06-13T12:34:56Z").unwrap();
        assert_eq!(unix_ns(utc), 1_718_282_096_000_000_000);
        let offset = parse_rfc3339("2024-06-13T14:34:56.25+02:00").unwrap();
        assert_eq!(unix_ns(offset), 1_718_282_096_250_000_000);
        assert_eq!(rfc3339(offset), "2024-06-13T12:34:56.25Z");
        assert_eq!(from_unix_ns(unix_ns(offset)), offset);
        let error = parse_rfc3339("13/06/2024 12:34").unwrap_err();
        assert!(error.contains("2026-11-23T14:00:00Z"), "{error}");
    }
}
