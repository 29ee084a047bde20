//! The layers of `doc/architecture.md`: every top-level module uses only modules listed before it.
//! Each `crate::` path in `src/` is an edge, in the whole of every file but its test code (items
//! under `#[cfg(test)]`, and `tests.rs`/`properties.rs` files); names the crate root re-exports
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
        // Unit tests may use anything.
        for used in crate_paths(&without_test_code(&text)) {
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

/// `text` without the items marked `#[cfg(test)]`: a `mod …;` line, or an item up to the brace
/// that closes its first one (braces inside string and character literals do not count).
fn without_test_code(text: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        kept.push_str(&rest[..at]);
        rest = &rest[at + MARK.len()..];
        let item_end = match (rest.find(';'), rest.find('{')) {
            (Some(semicolon), Some(brace)) if semicolon < brace => semicolon + 1,
            (Some(semicolon), None) => semicolon + 1,
            (_, Some(brace)) => brace + closing_brace(&rest[brace..]) + 1,
            (None, None) => rest.len(),
        };
        rest = &rest[item_end..];
    }
    kept.push_str(rest);
    kept
}

/// The offset of the brace that closes the one `text` starts with.
fn closing_brace(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while i < bytes.len() {
        match bytes[i] {
            // A raw string: r"…", r#"…"#.
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                let close = format!("\"{}", "#".repeat(hashes));
                let body = i + 2 + hashes;
                i = text[body..]
                    .find(&close)
                    .map_or(bytes.len(), |at| body + at + close.len() - 1);
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal ('{', '\'', '\u{7d}'), not a lifetime ('a).
            b'\'' if bytes.get(i + 1) == Some(&b'\\') => {
                i += 3;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += 1;
                }
            }
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len() - 1
}

#[test]
fn test_code_is_left_out_and_the_rest_of_the_file_is_read() {
    let text = "use crate::a;\n#[cfg(test)]\nmod tests;\nuse crate::b;\n#[cfg(test)]\nmod t {\n    \
                use crate::c;\n    fn f() { let s = \"}\"; let c = '}'; let q = '\\''; let r = r#\"}\"#; }\n}\n\
                fn g<'a>() {}\nuse crate::d;\n";
    assert_eq!(crate_paths(&without_test_code(text)), vec!["a", "b", "d"]);
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

/// `report/analysis` computes and `report/render` lays out: nothing that computes reaches for a
/// renderer (so a renderer can change, or a format be added, without touching the analysis).
#[test]
fn the_report_analysis_never_uses_a_renderer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report/analysis");
    let mut files = Vec::new();
    crate::util::rust_files(&root, &mut files);
    assert!(files.len() > 5, "the analysis files under {root:?}");
    let wrong: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = without_test_code(&std::fs::read_to_string(f).unwrap());
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| l.contains("report::render") || l.contains("super::render"))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(wrong.is_empty(), "analysis that uses a renderer: {wrong:?}");
}

/// The report's model (`report/model/`) is plain data that uses neither the analysis nor the
/// renderers, and the analysis modules use each other without a cycle.
#[test]
fn the_report_model_stands_alone_and_the_analysis_has_no_cycle() {
    let report = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report");
    let code = |file: &Path| -> Vec<String> {
        without_test_code(&std::fs::read_to_string(file).unwrap())
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(str::to_string)
            .collect()
    };
    let mut model = Vec::new();
    crate::util::rust_files(&report.join("model"), &mut model);
    assert!(!model.is_empty(), "the model's files");
    for file in &model {
        let uses = code(file)
            .into_iter()
            .filter(|l| l.contains("analysis::") || l.contains("render::"))
            .collect::<Vec<_>>();
        assert!(uses.is_empty(), "{}: {uses:?}", file.display());
    }
    let mut files = Vec::new();
    crate::util::rust_files(&report.join("analysis"), &mut files);
    let name = |f: &Path| f.file_stem().unwrap().to_string_lossy().into_owned();
    let edges: BTreeMap<String, Vec<String>> = files
        .iter()
        .map(|f| {
            let me = name(f);
            let mut used: Vec<String> = code(f)
                .iter()
                .flat_map(|l| {
                    l.match_indices("analysis::")
                        .map(|(at, _)| l[at + 10..].to_string())
                })
                .map(|rest| {
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect()
                })
                .filter(|m: &String| *m != me && !m.is_empty())
                .collect();
            used.sort();
            used.dedup();
            (me, used)
        })
        .collect();
    // Depth-first search for a path back to where it began.
    fn reaches(
        edges: &BTreeMap<String, Vec<String>>,
        from: &str,
        to: &str,
        seen: &mut Vec<String>,
    ) -> bool {
        edges.get(from).into_iter().flatten().any(|next| {
            next == to
                || (!seen.contains(next) && {
                    seen.push(next.clone());
                    reaches(edges, next, to, seen)
                })
        })
    }
    let cyclic: Vec<&String> = edges
        .keys()
        .filter(|m| reaches(&edges, m, m, &mut Vec::new()))
        .collect();
    assert!(
        cyclic.is_empty(),
        "analysis modules on a cycle: {cyclic:?} ({edges:?})"
    );
}
