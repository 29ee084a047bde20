//! iospd's JSON results (`-Rjson`): the report model itself, serialised. Keys carry their units
//! (`_ns`, `_bytes`, `_per_s`, `_percent`); `doc/iospd-results.schema.json` documents the layout,
//! and every latency histogram is included in HdrHistogram's V2 format so that runs merge exactly.

use std::io::{self, BufWriter, Write};

use crate::report::Report;

/// The JSON document, pretty-printed, with a final newline.
pub fn render(report: &Report) -> String {
    let mut text = Vec::new();
    write(report, &mut text).expect("the report model always serialises");
    String::from_utf8(text).expect("serde_json writes UTF-8")
}

/// Writes the same document to `to` as it is serialised, through a buffer.
pub fn write(report: &Report, to: &mut dyn Write) -> io::Result<()> {
    let mut buffered = BufWriter::with_capacity(64 * 1024, to);
    serde_json::to_writer_pretty(&mut buffered, report).map_err(io::Error::other)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}
