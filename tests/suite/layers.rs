//! The layers of `doc/architecture.md`: every top-level module uses only modules listed before it.
//! Each `crate::` path in `src/` (test code aside) is an edge; names the crate root re-exports
//! (`crate::Error`) count as their module's.

use std::collections::BTreeMap;
use std::path::Path;

/// The order written between the `<!-- layers -->` markers.
fn documented_order(root: &Path) -> Vec<String> {
    let doc = std::fs::read_to_string(root.join("doc/architecture.md")).unwrap();
    let start = doc
        .find("<!-- layers -->")
        .expect("the layers list in doc/architecture.md");
    let end = doc
        .find("<!-- /layers -->")
        .expect("the end of the layers list");
    doc[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Names the crate root re-exports, with the module they come from (`pub use exit::{…}`).
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in lib.lines().filter_map(|l| l.strip_prefix("pub use ")) {
        let (module, rest) = line.split_once("::").expect("pub use module::name");
        for name in rest
            .trim_end_matches(';')
            .trim_matches(['{', '}'])
            .split(',')
        {
            names.insert(name.trim().to_string(), module.to_string());
        }
    }
    names
}

/// Every `crate::name` in `text`, including each name of `crate::{a, b::c}`.
fn crate_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            found.extend(
                group
                    .split(',')
                    .map(|p| p.trim().split("::").next().unwrap_or("").to_string()),
            );
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            found.push(rest[..end].to_string());
        }
    }
    found
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let order = documented_order(root);
    let rank = |module: &str| order.iter().position(|m| m == module);
    let src = root.join("src");
    let reexported = root_names(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    crate::util::rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = relative.iter().next().unwrap().to_string_lossy();
        let top = top.trim_end_matches(".rs").to_string();
        let name = file.file_name().unwrap().to_string_lossy();
        if top == "lib" || top == "main" || name == "tests.rs" || name == "properties.rs" {
            continue;
        }
        let Some(mine) = rank(&top) else {
            wrong.push(format!("src/{top} is not in the layers list"));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests may use anything; they sit at the end of a file.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for used in crate_paths(code) {
            let module = reexported.get(&used).cloned().unwrap_or(used);
            match rank(&module) {
                Some(theirs) if theirs >= mine && module != top => wrong.push(format!(
                    "{} uses crate::{module}, which is not below {top}",
                    relative.display()
                )),
                _ => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "edges against doc/architecture.md's layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_finds_an_edge_against_the_order() {
    assert_eq!(
        crate_paths("use crate::{report::Report, safety};\nlet x = crate::run::STOP;"),
        vec!["report", "safety", "run"]
    );
    let names =
        root_names("pub use error::Error;\npub use exit::{EXIT_BAD_INPUT, EXIT_RUN_ERROR};");
    assert_eq!(names["EXIT_RUN_ERROR"], "exit");
    assert_eq!(names["Error"], "error");
}
