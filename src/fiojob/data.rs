//! What a job writes and checks: the write data (fio's random buffers, zeros, refills, a
//! pattern, compressible or duplicate blocks), where on the target (`random_distribution`),
//! flushes and verification.

use super::access::Mode;
use super::reader::{Reader, Refusal};
use super::translate::Draft;
use super::value::integer;

/// `buffer_pattern`, `refill_buffers`, `zero_buffers`, `buffer_compress_percentage` (with its
/// chunk), `dedupe_percentage`; without any, fio's random data.
pub(super) fn write_data(
    r: &mut Reader,
    m: &Mode,
    block: u64,
    t: &mut Draft,
) -> Result<(), Box<Refusal>> {
    let pattern = match r.get("buffer_pattern") {
        Some(s) => {
            let hex = pattern(s.value.as_deref().unwrap_or("")).map_err(|why| {
                r.refuse(
                    s,
                    why,
                    Some("--pattern=0x<hex> (bytes repeated in every write)"),
                )
            })?;
            for other in ["buffer_compress_percentage", "dedupe_percentage"] {
                if r.last.contains_key(other) {
                    return Err(r.refuse(
                        s,
                        format!("a pattern with {other}, which makes the data itself"),
                        None,
                    ));
                }
            }
            Some(hex)
        }
        None => None,
    };
    // Both read, whatever the others say: `zero_buffers=0` is fio's default, not a refusal.
    let refill = r.flag("refill_buffers")?.unwrap_or(false);
    let zeros = r.flag("zero_buffers")?.unwrap_or(false);
    if let Some(hex) = pattern {
        // fio fills every buffer with the pattern, refilled or not.
        if m.writes {
            t.args.push(format!("--pattern=0x{hex}"));
        }
    } else if zeros {
        // fio fills a buffer with zeros however often it refills it.
        t.args.push("-Z".into());
    } else if refill {
        t.args.push("-Zr".into());
    } else if m.writes
        && !r.last.contains_key("buffer_compress_percentage")
        && !r.last.contains_key("dedupe_percentage")
        && r.last
            .get("verify")
            .is_none_or(|v| matches!(v.value.as_deref(), Some("0" | "null" | "")))
    {
        // fio writes random data (scrambled a little each time): windows of a random buffer.
        // (A verified job writes iospd's self-describing blocks instead.)
        t.args.push(format!("-Z{}", (block * 2).max(1 << 20)));
    }
    let chunk = r.bytes("buffer_compress_chunk")?;
    if let Some(p) = r.parsed("buffer_compress_percentage", integer)? {
        if p >= 100 {
            return Err(r.refuse(
                r.last["buffer_compress_percentage"],
                "all-compressible data has no ratio",
                Some("-Z (zeros)"),
            ));
        }
        if p > 0 {
            let ratio = ratio(100.0 / (100 - p) as f64);
            t.args.push(match chunk {
                Some(c) => format!("--compress={ratio}:{c}"),
                None => format!("--compress={ratio}"),
            });
        }
    }
    if let Some(p) = r.parsed("dedupe_percentage", integer)? {
        if p >= 100 {
            return Err(r.refuse(
                r.last["dedupe_percentage"],
                "every block a duplicate has no ratio",
                None,
            ));
        }
        if p > 0 {
            t.args.push(format!(
                "--dedupe={}:{block}",
                ratio(100.0 / (100 - p) as f64)
            ));
        }
    }
    Ok(())
}

/// `random_distribution`: `--distribution`.
pub(super) fn distribution(r: &mut Reader, t: &mut Draft) -> Result<(), Box<Refusal>> {
    if let Some(s) = r.get("random_distribution") {
        let v = s.value.as_deref().unwrap_or("");
        let (kind, param) = v.split_once(':').unwrap_or((v, ""));
        match (kind, param) {
            ("random", _) => {}
            ("zipf" | "pareto", p) if !p.is_empty() && !p.contains(':') => {
                t.args.push(format!("--distribution={kind}:{p}"))
            }
            ("normal" | "gauss", p) if !p.is_empty() && !p.contains(':') => {
                t.args.push(format!("--distribution=normal:{p}"))
            }
            ("zoned" | "zoned_abs", p) if !p.is_empty() && !p.contains(',') => t
                .args
                .push(format!("--distribution={kind}:{}", zones(kind, p))),
            _ => {
                return Err(r.refuse(
                    s,
                    "this distribution (or its parameters) has no counterpart",
                    Some("--distribution=zipf:θ|pareto:h|normal:σ%"),
                ));
            }
        }
    }
    Ok(())
}

/// `fsync`, `fdatasync`: `--fsync`, `--fdatasync` in a job that writes.
pub(super) fn flushes(r: &mut Reader, m: &Mode, t: &mut Draft) -> Result<(), Box<Refusal>> {
    for (key, option) in [("fsync", "--fsync"), ("fdatasync", "--fdatasync")] {
        match r.parsed(key, integer)?.filter(|&n| n > 0) {
            Some(n) if m.writes => t.args.push(format!("{option}={n}")),
            Some(n) => t.notes.push(format!(
                "{key}={n}: the job does not write, so fio issues no flush and neither does iospd"
            )),
            None => {}
        }
    }
    Ok(())
}

/// `verify` (with `do_verify`, `verify_fatal`, `verify_interval`): `--verify`, which checks every
/// read of the run. A job that writes and ends by its work (not its runtime) is then read back
/// whole as fio reads it back: `--verify-state=<file>`, and `iospd verify` of that state after
/// the run; the file, when it is to be read back.
pub(super) fn verify(
    r: &mut Reader,
    m: &Mode,
    block: u64,
    time_based: bool,
    t: &mut Draft,
) -> Result<Option<String>, Box<Refusal>> {
    let verify = r
        .value("verify")
        .filter(|v| !matches!(*v, "0" | "null" | ""));
    let do_verify = r.flag("do_verify")?.unwrap_or(true);
    // verify_fatal ends the job at the first bad block; without verification it does nothing.
    let fatal = r.flag("verify_fatal")?.unwrap_or(false);
    // verify_interval: fio's default is the block. iospd's blocks carry their offset and
    // generation in every 512-byte sector and a checksum of the whole block, so a check every
    // whole number of sectors that divides the block is one iospd makes at least as finely.
    let interval = r.bytes("verify_interval")?;
    if let Some(interval) = interval
        && verify.is_some()
        && do_verify
        && interval != block
    {
        let sector = crate::verify::format::SECTOR as u64;
        if interval == 0 || interval % sector != 0 || block % interval != 0 {
            return Err(r.refuse(
                r.last_of("verify_interval"),
                format!("a check every {interval} bytes of a {block}-byte block: iospd checks every {sector}-byte sector of a block (its offset and generation) and the block whole"),
                Some(&format!("verify_interval={block} (the block, fio's default), or a multiple of {sector} that divides it")),
            ));
        }
        t.notes.push(format!(
            "verify_interval={interval}: iospd stamps every {sector}-byte sector of a block with its offset and generation and checks the whole block's checksum, so each {interval}-byte interval is checked at least as finely"
        ));
    }
    if verify.is_none() || !do_verify {
        return Ok(None);
    }
    t.args
        .push(if fatal { "--verify=stop" } else { "--verify" }.into());
    t.notes.push(
        "iospd checks every read against what it wrote during the run, in its own block format"
            .into(),
    );
    if !m.writes || time_based {
        // fio reads back only what a job that ran its course wrote (a runtime ends it first).
        return Ok(None);
    }
    let name: String = r
        .job_name()
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '_' => c,
            _ => '_',
        })
        .collect();
    let state = format!("iospd-{name}.verify-state");
    t.args.push(format!("--verify-state={state}"));
    t.notes.push(format!("fio reads back what the job wrote when it ends: iospd verify --verify-state={state} does after the run (its reads are not in the results; the file is removed when every block is right)"));
    Ok(Some(state))
}

/// fio's `buffer_pattern`: `0x` and hex bytes, or a quoted string; its bytes in hex.
fn pattern(value: &str) -> Result<String, String> {
    let value = value.trim();
    let quoted = ['\'', '"']
        .iter()
        .find_map(|q| value.strip_prefix(*q)?.strip_suffix(*q));
    if let Some(text) = quoted.filter(|t| !t.is_empty()) {
        return Ok(text.bytes().map(|b| format!("{b:02x}")).collect());
    }
    if value.contains('%') {
        return Err(
            "a pattern with a format (%o: each block's offset), which changes from block to block"
                .into(),
        );
    }
    match crate::profile::parse_pattern(value) {
        Ok(hex) => Ok(hex),
        Err(_) => Err("not 0x and hex bytes, or a quoted string (a decimal number is refused: fio stores it in a width of its own)".into()),
    }
}

/// fio's zones (`<I/O %>/<target %|size>:…`) as DiskSpd's `-rdpct`/`-rdabs` take them: a last
/// `zoned` zone without its share of the target takes what the others leave (fio's `20/`).
fn zones(kind: &str, zones: &str) -> String {
    let mut parts: Vec<String> = zones.split(':').map(str::to_string).collect();
    if kind == "zoned"
        && let Some(last) = parts.last_mut()
        && last.ends_with('/')
    {
        let given: u64 = zones
            .split(':')
            .filter_map(|z| z.split_once('/')?.1.parse::<u64>().ok())
            .sum();
        last.push_str(&100u64.saturating_sub(given).to_string());
    }
    parts.join(":")
}

/// A ratio as iospd's options take it: whole when it is, else to two decimals.
fn ratio(r: f64) -> String {
    if (r - r.round()).abs() < 1e-9 {
        format!("{}", r.round() as u64)
    } else {
        format!("{r:.2}")
    }
}
