//! The suite's own rules, checked on its source: every external program a test runs goes through
//! the one lookup (`util/tools.rs`), so a program missing here is a skip that says so, never a
//! failure, and the summary lists it.

use std::path::Path;

#[test]
fn every_external_program_runs_through_the_one_lookup() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    crate::util::rust_files(&root, &mut files);
    // Ways to start a program; the binary under test is not an external program.
    let starts = [
        "Command::new(",
        "posix_spawn",
        "libc::exec",
        "libc::system(",
    ];
    let under_test = "Command::new(env!(\"CARGO_BIN_EXE_iospd\"))";
    let allowed = [
        root.join("suite/util/tools.rs"),
        root.join("suite/hygiene.rs"),
    ];
    let mut wrong = Vec::new();
    for file in files.iter().filter(|f| !allowed.contains(f)) {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if starts.iter().any(|s| line.contains(s)) && !line.contains(under_test) {
                let shown = file.strip_prefix(&root).unwrap_or(file).display();
                wrong.push(format!("tests/{shown}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        files.len() > 20,
        "the suite's sources were not found under {}",
        root.display()
    );
    assert!(
        wrong.is_empty(),
        "run external programs with util::tools::need (or optional), which records a skip when \
         one is missing:\n{}",
        wrong.join("\n")
    );
}
