//! How long a job runs and how fast: time-based (`runtime`), or bounded by its work (`size`,
//! `io_size`, `loops`, `number_ios`); its warm-up; its rate limits and think time; when it ends
//! early at a steady state (`ss`).

use super::Setting;
use super::access::Mode;
use super::reader::{Reader, Refusal, whole_seconds};
use super::translate::Draft;
use super::value::{Size, bytes, integer, size, time_ns};
use crate::profile::{ContinueOn, Continued};

/// Time, or work: a time-based job runs for its runtime; any other ends when it has done its
/// size (or io_size) times loops, or number_ios, or at its runtime if that comes first. Then the
/// warm-up (`ramp_time`), no cool-down, latency on. Whether the job is time-based.
pub(super) fn duration(r: &mut Reader, files: u64, t: &mut Draft) -> Result<bool, Box<Refusal>> {
    let time_based = r.flag("time_based")?.unwrap_or(false);
    let runtime = match r.get("runtime") {
        Some(s) => {
            let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000_000_000)
                .map_err(|why| r.refuse(s, why, None))?;
            Some((s, whole_seconds(r, s, ns, "duration (-d)")?))
        }
        None => None,
    };
    let ramp = match r.get("ramp_time") {
        Some(s) => {
            let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000_000_000)
                .map_err(|why| r.refuse(s, why, None))?;
            whole_seconds(r, s, ns, "warm-up (-W)")?
        }
        None => 0,
    };
    if time_based {
        let Some((runtime, seconds)) = runtime else {
            return Err(r.lacks(
                "runtime",
                "a time-based job without runtime runs until it is stopped",
                Some("runtime=<seconds> (-d)"),
            ));
        };
        if seconds == 0 {
            return Err(r.refuse(runtime, "a run of at least one second", None));
        }
        t.args.push(format!("-d{seconds}"));
        for key in ["loops", "io_size", "number_ios"] {
            r.get(key);
        }
    } else {
        t.args.extend(work(r, files)?);
        if let Some((_, seconds)) = runtime.filter(|&(_, s)| s > 0) {
            t.args.push(format!("-d{seconds}"));
        }
    }
    t.args.push(format!("-W{ramp}"));
    t.args.push("-C0".into());
    t.args.push("-L".into());
    Ok(time_based)
}

/// Rate limits (which may set the mix: see [`limits`]) and think time (`-i`/`-j`).
pub(super) fn pace(
    r: &mut Reader,
    m: &Mode,
    mixed_sizes: bool,
    depth: u64,
    t: &mut Draft,
) -> Result<(), Box<Refusal>> {
    let (limit, share) = limits(r, m, mixed_sizes, &mut t.notes)?;
    let paced = !limit.is_empty();
    t.args.extend(limit);
    match r.value("rate_process") {
        None | Some("linear") => {}
        Some("poisson") if paced => t.args.push("--rate-process=poisson".into()),
        Some("poisson") => t.notes.push(
            "rate_process=poisson: the job has no rate for it to space (fio ignores it too)".into(),
        ),
        Some(_) => {
            return Err(r.refuse(
                r.last_of("rate_process"),
                "not one of fio's rate processes (linear, poisson)",
                Some("--rate-process=linear|poisson"),
            ));
        }
    }
    match r.value("io_submit_mode") {
        None | Some("inline") => {}
        Some("offload") => t.notes.push(
            "io_submit_mode=offload: iospd's threads submit their own I/O, each on its open-loop schedule (-g) whatever the completions do; fio's offload threads are how fio keeps such a schedule".into(),
        ),
        Some(_) => {
            return Err(r.refuse(
                r.last_of("io_submit_mode"),
                "not one of fio's submit modes (inline, offload)",
                None,
            ));
        }
    }
    if let Some(share) = share {
        for arg in t.args.iter_mut().filter(|a| a.starts_with("-w")) {
            *arg = format!("-w{share}");
        }
    }
    if let Some(s) = r.get("thinktime") {
        let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000)
            .map_err(|why| r.refuse(s, why, None))?;
        if ns > 0 {
            if ns % 1_000 != 0 || ns / 1_000 > u32::MAX as u64 {
                return Err(r.refuse(
                    s,
                    "iospd's think time is whole microseconds, at most 4294967295",
                    Some("-j<n>us"),
                ));
            }
            // fio drains every I/O in flight before it thinks; with one in flight, counting
            // issues or completions (thinktime_blocks_type) is the same, and so is iospd's -i/-j.
            if depth > 1 {
                return Err(r.refuse(
                    s,
                    format!("think time at iodepth={depth}: fio drains every I/O in flight before each pause, where iospd's -i/-j pauses the issuing only"),
                    Some("iodepth=1"),
                ));
            }
            if let Some(k) = r.get("thinktime_blocks_type")
                && !matches!(k.value.as_deref(), Some("complete" | "issue"))
            {
                return Err(r.refuse(k, "not one of fio's complete, issue", None));
            }
            let blocks = r.parsed("thinktime_blocks", integer)?.unwrap_or(1).max(1);
            t.args.push(format!("-i{blocks}"));
            t.args.push(match ns % 1_000_000 {
                0 => format!("-j{}", ns / 1_000_000),
                _ => format!("-j{}us", ns / 1_000),
            });
        }
    }
    r.get("thinktime_blocks");
    r.get("thinktime_blocks_type");
    Ok(())
}

/// `continue_on_error` (with `ignore_error`): which failed I/Os the job counts and goes on past
/// (`--continue-on-error`). fio passes only the errors of each kind's list: `EIO` and `EILSEQ`
/// unless `ignore_error` gives the kind its own (reads, writes, verification, `,`-separated;
/// errors `:`-separated). iospd's `--verify` never stops at a bad block before the run's end (it
/// counts them all, as fio does without `verify_fatal`), so `verify` asks nothing more.
pub(super) fn errors(r: &mut Reader, m: &Mode, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let lists = match r.get("ignore_error") {
        None => Vec::new(),
        Some(s) => {
            ignore_lists(s.value.as_deref().unwrap_or("")).map_err(|why| r.refuse(s, why, None))?
        }
    };
    let Some(s) = r.get("continue_on_error") else {
        if !lists.is_empty() {
            t.notes.push("ignore_error: fio passes errors only of the kinds continue_on_error names, and it names none".into());
        }
        return Ok(());
    };
    let value = s.value.as_deref().unwrap_or("").to_ascii_lowercase();
    let (ops, kinds): (_, &[usize]) = match value.as_str() {
        "none" | "0" | "false" => return Ok(()),
        "read" => (Continued::Read, &[0]),
        "write" => (Continued::Write, &[1]),
        "io" | "all" | "1" | "true" => (Continued::Io, &[0, 1]),
        "verify" => {
            t.notes.push("continue_on_error=verify: iospd's --verify counts every bad block and goes on to the run's end".into());
            return Ok(());
        }
        _ => {
            return Err(r.refuse(
                s,
                "not one of fio's none, read, write, io, verify, all (0, 1)",
                None,
            ));
        }
    };
    let list = |kind: usize| match lists.get(kind).filter(|l| !l.is_empty()) {
        Some(own) => own.clone(),
        None => vec![libc::EIO, libc::EILSEQ],
    };
    // Only the kinds of I/O the job does: a write job's read list passes nothing.
    let done: Vec<usize> = kinds
        .iter()
        .copied()
        .filter(|&k| if k == 0 { m.reads } else { m.writes || m.trims })
        .collect();
    let Some(&first) = done.first() else {
        t.notes.push(format!(
            "continue_on_error={value}: of a kind of I/O the job does not do"
        ));
        return Ok(());
    };
    let errors = list(first);
    if done.iter().any(|&k| list(k) != errors) {
        return Err(r.refuse(
            r.last_of("ignore_error"),
            "different errors passed for reads and for writes: iospd's --continue-on-error passes one list",
            Some("one ignore_error list for reads and writes"),
        ));
    }
    let on = ContinueOn::new(ops, errors);
    t.args.push(format!("--continue-on-error={}", on.text()));
    t.notes.push(format!(
        "continue_on_error={value}: iospd counts the I/Os that fail with {} (fio's total_err), names the first, and goes on",
        on.text().split_once(':').map_or("", |(_, e)| e)
    ));
    Ok(())
}

/// `max_latency` (`<read>[,<write>[,<trim>]]`, µs unless a unit is given; an empty or 0 side no
/// limit; trims are never checked): `--max-latency`. fio checks nothing under `disable_lat`, and
/// passes the ETIMEDOUT it raises where `ignore_error` lists it, which iospd's stop does not.
pub(super) fn max_latency(r: &mut Reader, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let disabled = r.flag("disable_lat")?.unwrap_or(false);
    let Some(s) = r.get("max_latency") else {
        if disabled {
            t.notes
                .push("disable_lat=1: iospd measures every I/O's latency all the same".into());
        }
        return Ok(());
    };
    let value = s.value.as_deref().unwrap_or("");
    let sides: Vec<&str> = value.split(',').map(str::trim).collect();
    let side = |text: &str| match text {
        "" => Ok(None),
        _ => time_ns(text, 1_000).map(|ns| Some(ns).filter(|&ns| ns > 0)),
    };
    let read = side(sides[0]).map_err(|why| r.refuse(s, why, None))?;
    let write =
        side(sides.get(1).copied().unwrap_or(sides[0])).map_err(|why| r.refuse(s, why, None))?;
    if read.is_none() && write.is_none() {
        return Ok(());
    }
    if disabled {
        t.notes.push(format!(
            "max_latency={value}: fio checks no latency under disable_lat=1"
        ));
        return Ok(());
    }
    if t.args.iter().any(|a| {
        a.starts_with("--continue-on-error=") && a.split([':', ',']).any(|e| e == "ETIMEDOUT")
    }) {
        return Err(r.refuse(
            s,
            "ignore_error lists ETIMEDOUT, so fio counts the I/Os over it and goes on; iospd's --max-latency stops at the first",
            Some("ETIMEDOUT out of ignore_error"),
        ));
    }
    let limit = crate::profile::max_latency::MaxLatency {
        read_ns: read,
        write_ns: write,
    };
    t.args.push(format!("--max-latency={limit}"));
    Ok(())
}

/// fio's `ignore_error` lists: per kind (reads, writes, verification), the errors by name or
/// number.
fn ignore_lists(value: &str) -> Result<Vec<Vec<i32>>, String> {
    let kinds: Vec<&str> = value.split(',').collect();
    if kinds.len() > 3 {
        return Err("at most three lists: reads, writes, verification".into());
    }
    kinds
        .iter()
        .map(|list| {
            list.split(':')
                .filter(|e| !e.trim().is_empty())
                .map(|e| {
                    crate::errno::parse(e).ok_or_else(|| {
                        format!("'{e}' is not an error name (EIO, ENOSPC …) or a positive number")
                    })
                })
                .collect()
        })
        .collect()
}

/// What ends a job that is not time-based: `--bytes` from `io_size` (or else `size`, the region;
/// or `filesize` for each file) times `loops`, split between the thread's `files` as fio splits
/// it (a share of the region as a share of each target's range), `--ios` from `number_ios`. A
/// job with neither goes once over its whole targets, `loops` times.
fn work(r: &mut Reader, files: u64) -> Result<Vec<String>, Box<Refusal>> {
    let loops = r.parsed("loops", integer)?.unwrap_or(1).max(1);
    let io_size = r.size("io_size")?;
    let setting = |r: &Reader, key: &str| {
        r.last
            .get(key)
            .and_then(|s| size(s.value.as_deref()?, r.kb_base).ok())
    };
    let region = setting(r, "size");
    let each = setting(r, "filesize");
    let ios = r.parsed("number_ios", integer)?.filter(|&n| n > 0);
    let overflow = |r: &Reader| {
        let s = r
            .last
            .get("loops")
            .or(r.last.get("io_size"))
            .or(r.last.get("size"))
            .or(r.last.get("filesize"));
        r.refuse(
            s.copied().expect("given"),
            "the bytes to move overflow",
            None,
        )
    };
    // Bytes per file: the total split between the files, or each file's own size.
    let per_file = match (io_size, region, each) {
        (Some(Size::Bytes(b)), _, _) | (None, Some(Size::Bytes(b)), _) => {
            Some(Size::Bytes(b / files))
        }
        // io_size=N%: that share of the region.
        (Some(Size::Percent(p)), _, _) => Some(Size::Percent(p)),
        // size=N%: the region is that share of the target, and a pass is the region.
        (None, Some(Size::Percent(_)), _) => Some(Size::Percent(100)),
        (None, None, each) => each,
    };
    let mut args = Vec::new();
    match per_file {
        Some(Size::Bytes(b)) if b > 0 => {
            let bytes = b.checked_mul(loops).ok_or_else(|| overflow(r))?;
            args.push(format!("--bytes={bytes}"));
        }
        Some(Size::Percent(p)) if p > 0 => {
            let percent = p.checked_mul(loops).filter(|&p| p <= 1_000_000);
            args.push(format!("--bytes={}%", percent.ok_or_else(|| overflow(r))?));
        }
        _ if ios.is_some() => {}
        _ => {
            let percent = loops.checked_mul(100).filter(|&p| p <= 1_000_000);
            args.push(format!("--bytes={}%", percent.ok_or_else(|| overflow(r))?));
        }
    }
    if let Some(n) = ios {
        if n % files != 0 {
            return Err(r.refuse(
                r.last_of("number_ios"),
                format!("{n} I/Os, which do not split evenly between the thread's {files} files (iospd counts them per file); give a multiple of {files}"),
                None,
            ));
        }
        args.push(format!("--ios={}", n / files));
    }
    Ok(args)
}

/// `rate_iops` or `rate` (bytes per second): one value for every direction, or `<reads>,<writes>`
/// with an empty part for a direction left free. A job of one direction gets its direction's
/// limit as `-g<n>i` or `-g<bytes per ms>`. A job that reads and writes: fio holds each
/// direction to its rate, switching to the other when one is ahead, so while the device keeps
/// up it does R reads and W writes a second whatever `rwmix` says: `-g<R+W>` with the `-w` those
/// shares make (which replaces the mix).
fn limits(
    r: &mut Reader,
    m: &Mode,
    mixed_sizes: bool,
    notes: &mut Vec<String>,
) -> Result<(Vec<String>, Option<u64>), Box<Refusal>> {
    let (iops, rate) = (r.get("rate_iops"), r.get("rate"));
    let set = |s: &Option<&Setting>| s.is_some_and(|s| !matches!(s.value.as_deref(), Some("0")));
    let (s, per_io) = match (iops, rate) {
        (Some(s), _) if set(&iops) => (s, true),
        (_, Some(s)) if set(&rate) => (s, false),
        _ => return Ok((Vec::new(), None)),
    };
    let value = s.value.as_deref().unwrap_or("");
    let parse = |part: &str| -> Result<Option<u64>, String> {
        match part.trim() {
            "" | "0" => Ok(None),
            v if per_io => integer(v).map(Some),
            v => bytes(v, r.kb_base).map(Some),
        }
    };
    let parts: Vec<&str> = value.split(',').collect();
    let limit = |i: usize| -> Result<Option<u64>, Box<Refusal>> {
        let part = if parts.len() == 1 {
            parts[0]
        } else {
            parts.get(i).copied().unwrap_or("")
        };
        parse(part).map_err(|why| r.refuse(s, why, None))
    };
    let (reads, writes, trims) = (limit(0)?, limit(1)?, limit(2)?);
    let option = |total: u64| -> Result<String, Box<Refusal>> {
        Ok(match (per_io, total % 1000) {
            (true, _) => format!("-g{total}i"),
            (false, 0) => format!("-g{}", total / 1000),
            (false, _) => format!("-g{total}/s"),
        })
    };
    let directions = [m.reads, m.writes, m.trims].iter().filter(|&&d| d).count();
    if directions == 1 {
        let own = match (m.reads, m.writes) {
            (true, _) => reads,
            (_, true) => writes,
            _ => trims,
        };
        return Ok((own.map(option).transpose()?.into_iter().collect(), None));
    }
    let (Some(reads), Some(writes), false) = (reads, writes, m.trims) else {
        return Err(r.refuse(
            s,
            "a limit on some directions of a job that mixes them (iospd's limit is on all of a thread's I/O)",
            Some("-g<n>i or -g<bytes per ms> on all I/O"),
        ));
    };
    if mixed_sizes && !per_io {
        return Err(r.refuse(
            s,
            "byte rates per direction with mixed block sizes (the share of writes by bytes is not the share by I/Os)",
            Some("rate_iops=<reads>,<writes>"),
        ));
    }
    let total = reads + writes;
    if writes * 100 % total != 0 {
        return Err(r.refuse(
            s,
            format!("reads held to {reads} and writes to {writes}: writes are {:.2}% of the I/O, and iospd's -w takes whole percents", writes as f64 * 100.0 / total as f64),
            None,
        ));
    }
    notes.push(format!(
        "{}={value}: fio holds reads and writes each to its rate, switching between them, so while the device keeps up the mix is set by the rates (-w{}), not by rwmix",
        s.written,
        writes * 100 / total
    ));
    Ok((vec![option(total)?], Some(writes * 100 / total)))
}

/// `ss`, `ss_dur`, `ss_ramp`: fio judges steady state only with a duration (`ss` alone does
/// nothing; `ss_dur` alone judges fio's default `iops_slope:0.01%`), over the job's threads (with
/// `group_reporting`) or each clone on its own. iospd judges one run's threads together, so a job
/// of several clones needs `group_reporting` (the group's other jobs are checked by the caller).
pub(super) fn steady(r: &mut Reader, numjobs: u64, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let criterion = r.get("ss");
    let seconds = |r: &mut Reader, key: &'static str, what: &str| match r.get(key) {
        Some(s) => {
            let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000_000_000)
                .map_err(|why| r.refuse(s, why, None))?;
            whole_seconds(r, s, ns, what).map(Some)
        }
        None => Ok(None),
    };
    let duration = seconds(r, "ss_dur", "steady-state window")?;
    let ramp = seconds(r, "ss_ramp", "steady-state ramp")?.unwrap_or(0);
    let Some(window) = duration.filter(|&d| d > 0) else {
        if criterion.is_some() {
            t.notes.push(
                "ss: fio judges steady state only with ss_dur, which the job does not set".into(),
            );
        }
        return Ok(());
    };
    let written = criterion
        .and_then(|s| s.value.as_deref())
        .unwrap_or("iops_slope:0.01%");
    let (name, limit) = written.split_once(':').unwrap_or((written, ""));
    let name = name.trim().to_ascii_lowercase();
    let limit = limit.trim();
    let limit = match limit.strip_suffix('%') {
        Some(_) => limit.to_string(),
        // fio reads an absolute bandwidth as a size (kb_base), in bytes per second.
        None if name.starts_with("bw") => {
            let bytes = bytes(limit, r.kb_base).map_err(|why| {
                r.refuse(criterion.expect("a written bandwidth limit"), why, None)
            })?;
            bytes.to_string()
        }
        None => limit.to_string(),
    };
    let text = format!("{name}:{limit}:{window}s:{ramp}s");
    let rule = crate::profile::steady::SteadyRule::parse(&text).map_err(|why| match criterion {
        Some(s) => r.refuse(s, why, None),
        None => r.refuse(r.last_of("ss_dur"), why, None),
    })?;
    let grouped = r
        .job
        .get("group_reporting")
        .is_some_and(|g| super::value::boolean(g.value.as_deref()).unwrap_or(true));
    if numjobs > 1 && !grouped {
        return Err(r.refuse(
            criterion.unwrap_or_else(|| r.last_of("ss_dur")),
            format!("without group_reporting fio judges each of the {numjobs} clones on its own and stops it alone; iospd judges the job's threads together"),
            Some("group_reporting (the clones judged together)"),
        ));
    }
    t.args.push(format!("--steady-state={rule}"));
    t.notes.push(format!(
        "ss={}, ss_dur={window}s{}: the run ends once the job's {} samples (one a second) hold steady over {window}s (fio's steadystate in the results)",
        written,
        if ramp > 0 { format!(", ss_ramp={ramp}s") } else { String::new() },
        if rule.metric == crate::profile::steady::SteadyMetric::Iops { "IOPS" } else { "bandwidth" }
    ));
    Ok(())
}

/// The name a job's `--flow` file has in its translation: `iospd fio` puts it in a directory of
/// its own for the run; run by hand, the jobs' lines share it in the directory they run in.
pub const FLOW_FILE: &str = "iospd-flow";

/// `flow` (a weight, 0 none, to fio's 1000), `flow_id` (which flow, 0 unless given) and
/// `flow_sleep` (µs): `--flow=<weight>:iospd-flow.<id>`, `--flow-sleep`.
pub(super) fn flow(r: &mut Reader, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let id = r.parsed("flow_id", integer)?.unwrap_or(0);
    let sleep = r.parsed("flow_sleep", integer)?.unwrap_or(0);
    let Some(s) = r.get("flow") else {
        return Ok(());
    };
    let value = s.value.as_deref().unwrap_or("").trim();
    let weight = match integer(value) {
        Ok(w) if w <= u64::from(crate::profile::flow::MAX_WEIGHT) => w,
        _ => {
            return Err(r.refuse(
                s,
                format!("'{value}' is not one of fio 3.33's weights, 0 (none) to 1000"),
                None,
            ));
        }
    };
    if weight == 0 {
        return Ok(());
    }
    t.args.push(format!("--flow={weight}:{FLOW_FILE}.{id}"));
    if sleep > 0 {
        t.args.push(format!("--flow-sleep={sleep}us"));
    }
    Ok(())
}
