//! The report model: every number any format prints, computed once from the profile, the machine
//! and the measurements. Values are kept in base units (bytes, nanoseconds, per second) under
//! names that say so; the formatters (one per file) only convert units and lay numbers out. The
//! model serialises as the JSON results.

pub mod analysis;
mod model;
pub mod render;
pub mod table;

use std::time::SystemTime;

use crate::profile::{Profile, ResultFormat};
use crate::system::SystemInfo;

use crate::stats::cpu::CpuUsage;
pub(crate) use analysis::build::{directions, totals_over};
pub use model::*;
use render::{csv, html, json, text, xml};

/// The JSON schema version of [`Report`].
pub const SCHEMA_VERSION: u32 = 1;

/// DiskSpd's text percentile rows, in order, with their labels.
pub const TEXT_ROWS: [(&str, f64); 15] = [
    ("min", 0.0),
    ("25th", 25.0),
    ("50th", 50.0),
    ("75th", 75.0),
    ("90th", 90.0),
    ("95th", 95.0),
    ("99th", 99.0),
    ("3-nines", 99.9),
    ("4-nines", 99.99),
    ("5-nines", 99.999),
    ("6-nines", 99.9999),
    ("7-nines", 99.99999),
    ("8-nines", 99.999999),
    ("9-nines", 99.9999999),
    ("max", 100.0),
];

/// The nines DiskSpd's XML lists after the integer percentiles.
pub const NINES: [f64; 7] = [
    99.9, 99.99, 99.999, 99.9999, 99.99999, 99.999999, 99.9999999,
];

/// DiskSpd's XML percentiles: 0, 1, …, 99, the nines, 100.
pub fn xml_percentiles() -> Vec<f64> {
    (0..100)
        .map(f64::from)
        .chain(NINES)
        .chain([100.0])
        .collect()
}

/// The percentiles the model computes: DiskSpd's rows, every integer percentile, and `extra`.
pub fn percentile_list(extra: &[f64]) -> Vec<f64> {
    let mut list = xml_percentiles();
    list.extend(TEXT_ROWS.iter().map(|(_, p)| *p));
    list.extend_from_slice(extra);
    list.sort_by(|a, b| a.total_cmp(b));
    list.dedup();
    list
}

impl Report {
    /// Writes the report in `format` to `to`, and flushes it. The JSON results go out as they are
    /// serialised, never whole in memory: at a thousand ranks they are tens of megabytes.
    pub fn write(&self, format: ResultFormat, to: &mut dyn std::io::Write) -> std::io::Result<()> {
        match format {
            ResultFormat::Json => json::write(self, to),
            other => to.write_all(self.render(other).as_bytes()),
        }?;
        to.flush()
    }

    /// The report in `format`.
    pub fn render(&self, format: ResultFormat) -> String {
        match format {
            ResultFormat::Text => text::render(self),
            ResultFormat::Xml => xml::render(self),
            ResultFormat::Json => json::render(self),
            ResultFormat::Html => html::render(self),
            ResultFormat::Csv => csv::render(self),
        }
    }
}

/// What `-Rp` prints: the resolved profile in `format`.
pub fn profile_document(profile: &Profile, system: &SystemInfo, format: ResultFormat) -> String {
    match format {
        ResultFormat::Text | ResultFormat::Html | ResultFormat::Csv => {
            let mut out = text::profile_text(profile, system);
            text::beyond::profile_text(&mut out, profile);
            out
        }
        ResultFormat::Xml => crate::profile::xml::write_profile(profile),
        ResultFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(profile).expect("a profile always serialises");
            text.push('\n');
            text
        }
    }
}

/// What `-Rs` prints: the system information in `format`.
pub fn system_document(system: &SystemInfo, now: SystemTime, format: ResultFormat) -> String {
    let now = utc_string(now);
    match format {
        ResultFormat::Text | ResultFormat::Html | ResultFormat::Csv => {
            text::system_text(system, &now)
        }
        ResultFormat::Xml => {
            let mut out = crate::profile::xml::Out::new(0);
            xml::system(&mut out, system, &now, env!("CARGO_PKG_VERSION"));
            out.text
        }
        ResultFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(system).expect("system information always serialises");
            text.push('\n');
            text
        }
    }
}

pub use crate::wall::utc_string;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_lists() {
        let xml = xml_percentiles();
        assert_eq!(xml.len(), 108);
        assert_eq!(
            (xml[0], xml[99], xml[100], xml[107]),
            (0.0, 99.0, 99.9, 100.0)
        );
        let list = percentile_list(&[99.5, 50.0]);
        assert!(list.contains(&99.5));
        assert_eq!(list.iter().filter(|&&p| p == 50.0).count(), 1);
        assert!(list.windows(2).all(|w| w[0] < w[1]));
    }
}
