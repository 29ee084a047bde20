//! A table as every format shows it: columns and typed cells, built once by the analysis (a
//! sweep's points, a run's ranks and hosts) and laid out by each renderer
//! ([`crate::report::render::table`]): aligned text, an HTML table, CSV rows.

use serde::{Deserialize, Serialize};

/// The columns and the rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// In order.
    pub columns: Vec<Column>,
    /// One cell per column each.
    pub rows: Vec<Vec<Cell>>,
}

/// One column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Its heading for people (text and HTML).
    pub heading: String,
    /// Its name for programs (the CSV header): lower case, the unit in the name.
    pub key: String,
    /// Who it is for.
    pub audience: Audience,
}

/// Who reads a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Audience {
    /// Every format.
    Everyone,
    /// Text and HTML only (a note for the eye).
    People,
    /// CSV only (a flag a script filters on).
    Programs,
}

/// One value, kept in its base unit; each format writes it its own way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Cell {
    /// Words, aligned left.
    Text(String),
    /// A value as it was typed (`4K`, `30`), aligned like a number.
    Value(String),
    /// A whole number.
    Count(u64),
    /// A number with this many decimals.
    Fixed(f64, usize),
    /// A latency or time, ns (`None`: not measured).
    Duration(Option<f64>),
    /// Yes or no.
    Flag(bool),
    /// Nothing to show.
    Empty,
}

impl Column {
    /// A column every format shows.
    pub fn new(heading: &str, key: &str) -> Column {
        Column {
            heading: heading.into(),
            key: key.into(),
            audience: Audience::Everyone,
        }
    }

    /// The same column for `audience` only.
    pub fn only(self, audience: Audience) -> Column {
        Column { audience, ..self }
    }
}

impl Table {
    /// A table with these columns and no rows yet.
    pub fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            rows: Vec::new(),
        }
    }

    /// Adds a row; it must have a cell per column.
    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(row.len(), self.columns.len(), "a cell per column");
        self.rows.push(row);
    }

    /// The columns `audience` reads and, per row, their cells.
    pub fn for_audience(&self, audience: Audience) -> (Vec<&Column>, Vec<Vec<&Cell>>) {
        let keep: Vec<usize> = (0..self.columns.len())
            .filter(|&i| matches!(self.columns[i].audience, a if a == Audience::Everyone || a == audience))
            .collect();
        (
            keep.iter().map(|&i| &self.columns[i]).collect(),
            self.rows
                .iter()
                .map(|row| keep.iter().map(|&i| &row[i]).collect())
                .collect(),
        )
    }
}
