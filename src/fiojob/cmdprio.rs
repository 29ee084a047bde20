//! fio's per-command priorities (`cmdprio_percentage`, `cmdprio_bssplit`, with `cmdprio_class` and
//! `cmdprio`), options of its io_uring and libaio engines: `--ioprio-split`, whose report gives
//! each priority's latency as fio's `clat_prio` does.

use super::reader::{Reader, Refusal};
use super::value::{bytes, integer};

/// Per direction (reads, writes): a value of a `int[,int]` option, one value for both.
fn per_direction(
    r: &mut Reader,
    key: &'static str,
    default: u64,
    max: u64,
) -> Result<[u64; 2], Box<Refusal>> {
    let Some(s) = r.get(key) else {
        return Ok([default; 2]);
    };
    let text = s.value.as_deref().unwrap_or("");
    let values: Result<Vec<u64>, String> = text
        .split(',')
        .map(|v| match v.trim() {
            "" => Ok(default),
            v => integer(v).and_then(|n| {
                (n <= max)
                    .then_some(n)
                    .ok_or_else(|| format!("'{v}' is more than {max}"))
            }),
        })
        .collect();
    let values = values.map_err(|why| r.refuse(s, why, None))?;
    Ok([values[0], *values.get(1).unwrap_or(&values[0])])
}

/// The job's `--ioprio-split`, when it has per-command priorities.
pub(super) fn cmdprio(
    r: &mut Reader,
    engine: &str,
    notes: &mut Vec<String>,
) -> Result<Option<String>, Box<Refusal>> {
    let class_names = ["", "rt", "be", "idle"];
    // Classes 1 to 3 (fio's default: the highest, real time); levels 0 to 7.
    let class = per_direction(r, "cmdprio_class", 1, 3)?;
    let level = per_direction(r, "cmdprio", 0, 7)?;
    let percent = per_direction(r, "cmdprio_percentage", 0, 100)?;
    let split = r.get("cmdprio_bssplit");
    let given = split.is_some() || percent != [0, 0];
    if !given {
        for key in ["cmdprio_class", "cmdprio"] {
            if let Some(s) = r.get(key) {
                notes.push(format!(
                    "{}: no cmdprio_percentage or cmdprio_bssplit gives it I/Os (as in fio)",
                    s.written
                ));
            }
        }
        return Ok(None);
    }
    let option = split.map_or("cmdprio_percentage", |_| "cmdprio_bssplit");
    let s = r.last_of(option);
    if !matches!(engine, "io_uring" | "libaio") {
        return Err(r.refuse(
            s,
            format!("an option of fio's io_uring and libaio engines, not {engine}"),
            Some("ioengine=io_uring"),
        ));
    }
    if class.contains(&0) {
        return Err(r.refuse(
            r.last_of("cmdprio_class"),
            "class 0 sets no priority; fio's classes are 1 (real time), 2 (best effort), 3 (idle)",
            None,
        ));
    }
    let lists: [String; 2] = match split {
        None => std::array::from_fn(|d| match percent[d] {
            0 => String::new(),
            p => format!("{p}/{}/{}", class_names[class[d] as usize], level[d]),
        }),
        Some(s) => {
            if percent != [0, 0] {
                return Err(r.refuse(
                    s,
                    "given with cmdprio_percentage, which fio refuses (one or the other)",
                    None,
                ));
            }
            let text = s.value.as_deref().unwrap_or("");
            let mut lists: Vec<&str> = text.split(',').collect();
            if lists.len() == 1 {
                lists.push(lists[0]);
            }
            let mut out: [String; 2] = Default::default();
            for d in 0..2 {
                let mut rules = Vec::new();
                for entry in lists[d].split(':').filter(|e| !e.trim().is_empty()) {
                    let parts: Vec<&str> = entry.split('/').map(str::trim).collect();
                    let bad = || {
                        r.refuse(
                            s,
                            format!("'{entry}' is not <bs>/<percentage>[/<class>/<level>]"),
                            None,
                        )
                    };
                    let size = bytes(parts[0], r.kb_base).map_err(|_| bad())?;
                    let number =
                        |p: &str, max: u64| integer(p).ok().filter(|&n| n <= max).ok_or_else(bad);
                    let (pct, c, l) = match parts.len() {
                        2 => (number(parts[1], 100)?, class[d], level[d]),
                        4 => (
                            number(parts[1], 100)?,
                            number(parts[2], 3)?,
                            number(parts[3], 7)?,
                        ),
                        _ => return Err(bad()),
                    };
                    if pct > 0 {
                        if c == 0 {
                            return Err(bad());
                        }
                        rules.push(format!("{size}/{pct}/{}/{l}", class_names[c as usize]));
                    }
                }
                out[d] = rules.join(":");
            }
            out
        }
    };
    if lists.iter().all(String::is_empty) {
        notes.push(format!(
            "{}: every share is 0, so every I/O keeps the job's priority",
            s.written
        ));
        return Ok(None);
    }
    Ok(Some(match lists[0] == lists[1] {
        true => format!("--ioprio-split={}", lists[0]),
        false => format!("--ioprio-split={},{}", lists[0], lists[1]),
    }))
}
