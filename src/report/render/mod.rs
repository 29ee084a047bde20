//! The report's formats, one module each: they lay out what [`crate::report::analysis`] computed
//! and convert units, and compute nothing. A new format is a new module here.

pub mod csv;
pub mod fio_json;
pub mod fio_terse;
pub mod html;
pub mod json;
pub mod slo;
pub mod svg;
mod sweep_html;
pub mod table;
pub mod text;
pub mod xml;
