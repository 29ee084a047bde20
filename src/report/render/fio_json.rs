//! fio's JSON results (`iospd fio --output-format=json|json+`): the document
//! [`crate::report::analysis::fio`] builds, pretty-printed as fio prints it.

use crate::report::model::fio::FioDocument;

/// The document, pretty-printed, with a final newline.
pub fn render(document: &FioDocument) -> String {
    let mut text = serde_json::to_string_pretty(document).expect("the fio model always serialises");
    text.push('\n');
    text
}
