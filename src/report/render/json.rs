//! iospd's JSON results (`-Rjson`): the report model itself, serialised. Keys carry their units
//! (`_ns`, `_bytes`, `_per_s`, `_percent`); `doc/iospd-results.schema.json` documents the layout,
//! and every latency histogram is included in HdrHistogram's V2 format so that runs merge exactly.

use crate::report::Report;

/// The JSON document, pretty-printed, with a final newline.
pub fn render(report: &Report) -> String {
    let mut text =
        serde_json::to_string_pretty(report).expect("the report model always serialises");
    text.push('\n');
    text
}
