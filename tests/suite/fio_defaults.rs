//! `iospd fio` and fio's own defaults: every option fio 3.33 declares, written out at the value
//! fio gives it when a job is silent, is accepted (a job that spells out a default means what a
//! job without it means). The options and their defaults are read from fio's `options.c`, beside
//! the examples `IOSPD_FIO_EXAMPLES` points at, so a newer fio is checked as it is.

use std::path::Path;

use crate::fio_jobs::fio_examples;
use crate::util::tools;
use crate::util::{TempDir, iospd, stderr};

/// Options whose written default is not a value a job means: refused, and why that is right.
const NOT_A_SETTING: &[(&str, &str)] = &[
    (
        "bssplit",
        "fio's default is an empty split; `bssplit=0` names no block size",
    ),
    (
        "cpumask",
        "a mask of no CPU, which fio cannot run on either",
    ),
    (
        "uid",
        "fio's default is -1 (no change); 0 would make the job root's",
    ),
    (
        "gid",
        "fio's default is -1 (no change); 0 would make the job root's",
    ),
    (
        "size",
        "the job's own size=1M is replaced: a file job with no size and no file",
    ),
    (
        "runtime",
        "the job's own runtime=1 is replaced: a time-based job with no runtime",
    ),
];

/// One option of `fio_options[]`: its name, type and `.def` (when given).
struct FioOption {
    name: String,
    kind: String,
    default: Option<String>,
}

/// The options `options.c` declares, each once (the branch built on Linux).
fn declared(options_c: &str) -> Vec<FioOption> {
    let start = options_c
        .find("struct fio_option fio_options[FIO_MAX_OPTS]")
        .expect("options.c declares fio_options[]");
    let quoted = |block: &str, field: &str| -> Option<String> {
        let at = block.find(field)?;
        let rest = &block[at + field.len()..];
        let rest = rest.trim_start().strip_prefix('=')?.trim_start();
        let rest = rest.strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    };
    let mut out: Vec<FioOption> = Vec::new();
    for block in options_c[start..].split("\n\t},") {
        let Some(name) = quoted(block, ".name") else {
            continue;
        };
        let Some(kind) = block.find(".type").map(|at| {
            block[at..]
                .split(['=', ','])
                .nth(1)
                .unwrap_or("")
                .trim()
                .to_string()
        }) else {
            continue;
        };
        if [
            "FIO_OPT_UNSUPPORTED",
            "FIO_OPT_DEPRECATED",
            "FIO_OPT_SOFT_DEPRECATED",
        ]
        .contains(&kind.as_str())
            || out.iter().any(|o| o.name == name)
        {
            continue;
        }
        out.push(FioOption {
            name,
            kind,
            default: quoted(block, ".def"),
        });
    }
    out
}

/// The value a job would write for fio's default: `.def`, or 0 for a number or flag without
/// one; `None` where the default is an empty string (nothing to write).
fn written_default(option: &FioOption) -> Option<String> {
    let numeric = [
        "FIO_OPT_BOOL",
        "FIO_OPT_INT",
        "FIO_OPT_ULL",
        "FIO_OPT_STR_VAL",
        "FIO_OPT_STR_VAL_TIME",
        "FIO_OPT_STR_VAL_ZONE",
        "FIO_OPT_STR_ULL",
    ];
    match &option.default {
        Some(d) => Some(d.clone()),
        None if numeric.contains(&option.kind.as_str()) => Some("0".into()),
        None => None,
    }
}

/// Every option of fio's at its default value is accepted, except those whose written default
/// is not a setting (listed, each with why); fio, when present, confirms it takes each.
#[test]
fn every_fio_option_at_its_default_is_accepted() {
    let test = "every_fio_option_at_its_default_is_accepted";
    let Some(examples) = fio_examples(test) else {
        return;
    };
    let source = examples[0].parent().unwrap().parent().unwrap();
    let options_c = std::fs::read_to_string(source.join("options.c"))
        .unwrap_or_else(|e| panic!("{}/options.c: {e}", source.display()));
    let options = declared(&options_c);
    assert!(
        options.len() > 200,
        "{} options read from options.c",
        options.len()
    );
    let fio = tools::optional(test, "fio", "that fio takes each default");
    let dir = TempDir::new();
    let (mut checked, mut refused) = (0, Vec::new());
    for option in &options {
        let Some(value) = written_default(option) else {
            continue;
        };
        let job = dir.join("default.fio");
        std::fs::write(
            &job,
            format!(
                "[j]\nfilename={}\nsize=1M\ntime_based=1\nruntime=1\n{}={value}\n",
                dir.join("t.dat").display(),
                option.name
            ),
        )
        .unwrap();
        if let Some(fio) = &fio {
            let parsed = fio
                .command("fio")
                .args(["--parse-only", &job.display().to_string()])
                .output()
                .unwrap();
            let said = String::from_utf8_lossy(&parsed.stderr).to_string()
                + &String::from_utf8_lossy(&parsed.stdout);
            if !parsed.status.success() || said.contains("failed parsing") {
                continue;
            }
        }
        let output = iospd()
            .args(["fio", "-Rp", &job.display().to_string()])
            .output()
            .unwrap();
        let excused = NOT_A_SETTING.iter().any(|(name, _)| *name == option.name);
        match (output.status.code(), excused) {
            (Some(0), true) => panic!(
                "{}={value} is listed as refused but was accepted: update NOT_A_SETTING",
                option.name
            ),
            (Some(0), false) => checked += 1,
            (Some(3), true) => {}
            _ => refused.push(format!(
                "{}={value}: {}",
                option.name,
                stderr(&output).trim()
            )),
        }
    }
    assert!(
        refused.is_empty(),
        "fio's defaults refused:\n{}",
        refused.join("\n")
    );
    assert!(checked > 150, "{checked} defaults checked");
    eprintln!(
        "{checked} of fio's {} options accepted at their defaults ({})",
        options.len(),
        Path::new(&source).display()
    );
}
