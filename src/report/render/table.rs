//! A [`Table`] laid out three ways: aligned text (numbers right, words left, `|` between columns),
//! an HTML table, CSV rows. Latencies read as people read them (850ns, 12.3µs, 1.234ms) in text
//! and HTML, and in µs with three decimals in CSV, where the unit is in the column's name.

use std::fmt::Write as _;

use crate::report::table::{Audience, Cell, Table};
use crate::units::format_duration;

/// A cell for people.
fn shown(cell: &Cell) -> String {
    match cell {
        Cell::Text(text) | Cell::Value(text) => text.clone(),
        Cell::Count(n) => n.to_string(),
        Cell::Fixed(v, decimals) => format!("{v:.decimals$}"),
        Cell::Duration(Some(ns)) => format_duration(*ns),
        Cell::Duration(None) => "N/A".into(),
        Cell::Flag(yes) => if *yes { "yes" } else { "no" }.into(),
        Cell::Empty => String::new(),
    }
}

/// A cell for a program.
fn written(cell: &Cell) -> String {
    match cell {
        Cell::Text(text) | Cell::Value(text) if text.contains([',', '"', '\n']) => {
            format!("\"{}\"", text.replace('"', "\"\""))
        }
        Cell::Duration(Some(ns)) => format!("{:.3}", ns / 1e3),
        Cell::Duration(None) => String::new(),
        Cell::Flag(yes) => yes.to_string(),
        other => shown(other),
    }
}

/// The table in text: a heading line, a rule, the rows, a rule; each column as wide as its widest
/// cell.
pub fn text(table: &Table) -> String {
    let (columns, rows) = table.for_audience(Audience::People);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|c| shown(c)).collect())
        .collect();
    let width = |i: usize| {
        cells
            .iter()
            .map(|row| row[i].chars().count())
            .chain([columns[i].heading.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns.len()).map(width).collect();
    // A column of words aligns left; its heading with it.
    let left: Vec<bool> = (0..columns.len())
        .map(|i| rows.iter().any(|row| matches!(row[i], Cell::Text(_))))
        .collect();
    let line = |texts: &[String]| {
        let parts: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| match left[i] {
                true => format!("{t:<w$}", w = widths[i]),
                false => format!("{t:>w$}", w = widths[i]),
            })
            .collect();
        // An empty last cell leaves no dangling separator.
        let joined = parts.join(" | ");
        joined
            .trim_end()
            .trim_end_matches('|')
            .trim_end()
            .to_string()
    };
    let headings: Vec<String> = columns.iter().map(|c| c.heading.clone()).collect();
    let rule = "-".repeat(widths.iter().sum::<usize>() + 3 * widths.len().saturating_sub(1));
    let mut out = format!("{}\n{rule}\n", line(&headings));
    for row in &cells {
        let _ = writeln!(out, "{}", line(row));
    }
    let _ = writeln!(out, "{rule}");
    out
}

/// The table in HTML (words in cells of class `l`, aligned left by the page's style).
pub fn html(table: &Table) -> String {
    let escape = super::svg::escape;
    let (columns, rows) = table.for_audience(Audience::People);
    let mut out = String::from("<table><tr>");
    for column in &columns {
        let _ = write!(out, "<th>{}</th>", escape(&column.heading));
    }
    out.push_str("</tr>");
    for row in &rows {
        out.push_str("<tr>");
        for cell in row {
            let class = if matches!(cell, Cell::Text(_)) {
                " class=\"l\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", escape(&shown(cell)));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    out
}

/// The table as CSV: a header of column keys, a line per row.
pub fn csv(table: &Table) -> String {
    let (columns, rows) = table.for_audience(Audience::Programs);
    let keys: Vec<&str> = columns.iter().map(|c| c.key.as_str()).collect();
    let mut out = keys.join(",") + "\n";
    for row in &rows {
        let cells: Vec<String> = row.iter().map(|c| written(c)).collect();
        let _ = writeln!(out, "{}", cells.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::Column;

    fn sample() -> Table {
        let mut t = Table::new(vec![
            Column::new("host", "host"),
            Column::new("I/O per s", "ios_per_s"),
            Column::new("p99", "p99_us"),
            Column::new("knee", "knee").only(Audience::Programs),
            Column::new("note", "note").only(Audience::People),
        ]);
        t.push(vec![
            Cell::Text("a,b".into()),
            Cell::Fixed(1234.5, 2),
            Cell::Duration(Some(1_250_000.0)),
            Cell::Flag(true),
            Cell::Text("knee".into()),
        ]);
        t.push(vec![
            Cell::Text("c".into()),
            Cell::Fixed(7.0, 2),
            Cell::Duration(None),
            Cell::Flag(false),
            Cell::Empty,
        ]);
        t
    }

    #[test]
    fn each_format_writes_its_audience_s_columns_its_own_way() {
        assert_eq!(
            text(&sample()),
            "host | I/O per s |     p99 | note\n\
             ---------------------------------\n\
             a,b  |   1234.50 | 1.250ms | knee\n\
             c    |      7.00 |     N/A\n\
             ---------------------------------\n"
        );
        assert_eq!(
            csv(&sample()),
            "host,ios_per_s,p99_us,knee\n\"a,b\",1234.50,1250.000,true\nc,7.00,,false\n"
        );
        let page = html(&sample());
        assert!(
            page.contains("<th>I/O per s</th><th>p99</th><th>note</th></tr>"),
            "{page}"
        );
        assert!(
            page.contains("<td class=\"l\">a,b</td><td>1234.50</td><td>1.250ms</td>"),
            "{page}"
        );
        assert!(!page.contains("<th>knee</th>"), "{page}");
    }

    #[test]
    #[should_panic(expected = "a cell per column")]
    fn a_row_has_a_cell_per_column() {
        let mut t = sample();
        t.push(vec![Cell::Empty]);
    }
}
