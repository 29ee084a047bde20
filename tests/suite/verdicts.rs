//! `compare`'s verdicts on recorded runs (`tests/data/compare/`, made by
//! `bench/compare_pairs.sh` on the shared VM the suite runs on): identical runs of one workload,
//! back to back on the quiet machine and again with one busy process per CPU, are never called
//! higher or lower in any line; the same command line on the device capped at 2,000 IOPS by the
//! blkio throttle is called lower in every rate, against every quiet and busy run.

use std::path::{Path, PathBuf};

use crate::util::{TempDir, iospd, stderr, stdout};

const RECORDED: &str = "tests/data/compare";

/// The recorded runs of one kind, unpacked into `dir`, in order.
fn runs(dir: &TempDir, kind: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(RECORDED)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(&format!("{kind}-")) && name.ends_with(".json.zst")
        })
        .collect();
    found.sort();
    assert!(found.len() >= 4, "{kind}: {found:?}");
    found
        .iter()
        .map(|packed| {
            let name = packed.file_stem().unwrap().to_string_lossy().into_owned();
            let json = zstd::decode_all(std::fs::File::open(packed).unwrap()).unwrap();
            let path = dir.join(&name);
            std::fs::write(&path, json).unwrap();
            path
        })
        .collect()
}

/// Each line of `compare base new` as (direction and metric, verdict).
fn verdicts(base: &Path, new: &Path) -> Vec<(String, String)> {
    let output = iospd()
        .args(["compare", base.to_str().unwrap(), new.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<(String, String)> = text
        .lines()
        .filter(|l| {
            ["  read ", "  write ", "  total "]
                .iter()
                .any(|d| l.starts_with(d))
        })
        .map(|l| {
            let fields: Vec<&str> = l.split('|').collect();
            (
                fields[0].trim().to_string(),
                fields.last().unwrap().trim().to_string(),
            )
        })
        .collect();
    assert!(lines.len() >= 20, "{text}");
    lines
}

#[test]
fn identical_recorded_runs_are_never_called_different() {
    let dir = TempDir::new();
    for kind in ["quiet", "busy"] {
        let runs = runs(&dir, kind);
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                for (line, verdict) in verdicts(a, b) {
                    assert!(
                        verdict != "higher" && verdict != "lower",
                        "{kind}: {} against {}: {line} called {verdict}",
                        a.display(),
                        b.display()
                    );
                }
            }
        }
    }
}

#[test]
fn a_device_capped_at_a_twentieth_of_its_rate_is_called_lower() {
    let dir = TempDir::new();
    let capped = runs(&dir, "capped");
    for kind in ["quiet", "busy"] {
        for (base, new) in runs(&dir, kind).iter().zip(&capped) {
            let rates: Vec<(String, String)> = verdicts(base, new)
                .into_iter()
                .filter(|(line, _)| line.ends_with("IOPS") || line.ends_with("MiB/s"))
                .collect();
            assert_eq!(rates.len(), 6, "{rates:?}");
            for (line, verdict) in rates {
                assert_eq!(verdict, "lower", "{kind} against capped: {line}");
            }
        }
    }
}
