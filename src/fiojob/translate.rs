//! A fio job as an iospd command line, option by option: exactly, or refused with the option, the
//! job, its place and iospd's closest option. The mapping, with fio's defaults where the job is
//! silent (`rw=read`, `bs=4k`, `iodepth=1`, `ioengine=psync`, buffered):
//!
//! | fio | iospd |
//! |---|---|
//! | `rw` read, write, randread, randwrite, rw/readwrite, randrw, trim, randtrim (`:N` skips) | `-s` (or `-s<bs+N>`), `-r`, `-w<writes %>`, `--trim=100` |
//! | `rwmixread`/`rwmixwrite` | `-w` |
//! | `bs` (per direction), `bssplit`, `bsrange` (as fio draws it), `ba` | `-b` or `--bssplit`, `-r<align>` |
//! | `direct=1`/`buffered=0`, `sync=dsync` | `-Su`, `w` added to `-S` |
//! | `iodepth` (1 for sync engines), `numjobs` | `-o`, `-t` (one shared file) or one target each |
//! | `time_based` + `runtime`, `ramp_time` | `-d`, `-W` (`-C0`) |
//! | otherwise `io_size` or `size` (or the whole target) × `loops`, `number_ios`, `runtime` | `--bytes` (`<n>%` of the range), `--ios`, `-d` (a limit) |
//! | random I/O (fio's random map), `norandommap` | `--random-map`, none |
//! | `filename` (every one: `:` lists, repeated, `[global]`'s first), `nrfiles`, `directory`, `filename_format`, `file_service_type`, `openfiles`, `size`, `filesize`, `offset` | targets (`files.rs`): a thread per clone and file, or `-F<numjobs> -O<iodepth> --file-service=…` for several files per thread; a file's region `-c<offset+size/files> --keep-existing` (fio's layout: only a missing or short file is written), a device's `-f<offset+size>`; `-B<offset>` |
//! | `ioengine` io_uring, libaio/aio/posixaio, psync/pvsync/pvsync2/sync, mmap, null | io_uring, io_uring, `--engine=psync`, `-Sm`, `--engine=null` |
//! | `rate`, `rate_iops` (one value, or per direction; a mixed job's mix follows the rates), `thinktime` (+`thinktime_blocks`) | `-g<bytes/ms>` or `-g<bytes>/s`, `-g<n>i` (and `-w`), `-i`/`-j` |
//! | `zero_buffers`, `refill_buffers`, `buffer_compress_percentage`, `dedupe_percentage`, `buffer_pattern` | `-Z`, `-Zr`, `--compress`, `--dedupe`, `--pattern` |
//! | `random_distribution` zipf, pareto, normal, zoned, zoned_abs | `--distribution` (zoned: DiskSpd's `-rdpct`/`-rdabs`) |
//! | `fsync`, `fdatasync`, `verify`/`do_verify` | `--fsync`, `--fdatasync`, `--verify` |
//! | `randseed`, `randrepeat=0` | `-z<seed>`, `-z` |
//! | `percentile_list` | `--percentiles` |
//! | `write_bw_log`/`write_iops_log`/`write_lat_log`, `write_iolog`, `read_iolog` | `--timeseries` (+`-D`), `--trace`, `iospd replay` |
//! | `sqthread_poll`, `hipri` | `--sqpoll`, `--iopoll` |
//! | `cpus_allowed`/`cpumask` (+`cpus_allowed_policy`), or neither | `--cpu-set` (shared), `-a` (split); `-n` |
//! | `startdelay`, `unlink` | the job's child starts that late; its group's new files removed after it |

use std::collections::BTreeMap;

use super::known::{ACCEPTED, ACCEPTED_VALUES, CLOSEST};
use super::value::{Size, boolean, bytes, integer, size, time_ns};
use super::{Job, Place, Setting};

/// A job as an iospd command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    /// The job's name.
    pub job: String,
    /// The arguments after `iospd`.
    pub args: Vec<String>,
    /// What the translation says about options that need no iospd option.
    pub notes: Vec<String>,
    /// Jobs of one group run together; a `stonewall` starts the next group.
    pub group: usize,
    /// `write_bw_log`, `write_iops_log`, `write_lat_log`: the logs to write in fio's format from
    /// the run's `-D` intervals.
    pub logs: Vec<FioLog>,
    /// `unlink`: the files the job's run made are removed when its group ends.
    pub unlink: bool,
    /// `startdelay`: how long after its group starts the job starts, ms.
    pub start_delay_ms: u64,
}

/// Which fio log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// `<prefix>_bw.<n>.log`: KiB/s.
    Bandwidth,
    /// `<prefix>_iops.<n>.log`: IOPS.
    Iops,
    /// `<prefix>_lat.<n>.log`, `_clat`, `_slat`: ns.
    Latency,
}

/// A log fio would write for a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioLog {
    /// Which.
    pub kind: LogKind,
    /// The file name's start.
    pub prefix: String,
}

impl Translation {
    /// The command line as one line of text, each argument quoted when it needs to be.
    pub fn line(&self) -> String {
        crate::cli::line::shell_line(&self.args)
    }
}

/// A job iospd does not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: job '{job}': {option}: {why}{}", closest.as_ref().map(|c| format!("; closest in iospd: {c}")).unwrap_or_default())]
pub struct Refusal {
    /// The fio option, as written (`rw=randrw:8`).
    pub option: String,
    /// The job.
    pub job: String,
    /// Where the option was written (the section, for what the job lacks).
    pub place: Place,
    /// Why.
    pub why: String,
    /// iospd's closest option, when there is one.
    pub closest: Option<String>,
}

/// The engines fio has that iospd's map onto, and those it refuses by name.
fn engine(name: &str) -> Result<(Option<&'static str>, bool, Option<&'static str>), String> {
    // (iospd engine option, synchronous (depth 1), note)
    Ok(match name {
        "io_uring" => (None, false, None),
        "libaio" | "aio" | "posixaio" => (
            None,
            false,
            Some("libaio and posixaio run on io_uring (the same I/O, submitted through io_uring)"),
        ),
        "psync" | "pvsync" | "pvsync2" | "sync" | "vsync" => (Some("--engine=psync"), true, None),
        "mmap" => (Some("-Sm"), true, None),
        "null" => (Some("--engine=null"), false, None),
        other => {
            return Err(format!(
                "the {other} engine has no counterpart in iospd (it runs io_uring, psync, mmap and null)"
            ));
        }
    })
}

/// What `rw` asks for.
pub(super) struct Mode {
    pub(super) random: bool,
    pub(super) reads: bool,
    pub(super) writes: bool,
    pub(super) trims: bool,
    /// `:N` after the mode.
    skip: Option<String>,
}

fn mode(value: &str) -> Result<Mode, String> {
    let (name, skip) = match value.split_once(':') {
        Some((n, s)) => (n, Some(s.to_string())),
        None => (value, None),
    };
    let m = |random, reads, writes, trims| Mode {
        random,
        reads,
        writes,
        trims,
        skip: skip.clone(),
    };
    Ok(match name {
        "read" => m(false, true, false, false),
        "write" => m(false, false, true, false),
        "randread" => m(true, true, false, false),
        "randwrite" => m(true, false, true, false),
        "rw" | "readwrite" => m(false, true, true, false),
        "randrw" => m(true, true, true, false),
        "trim" => m(false, false, false, true),
        "randtrim" => m(true, false, false, true),
        "trimwrite" | "randtrimwrite" => {
            return Err(format!(
                "{name} (each trim followed by a write of its block) has no counterpart"
            ));
        }
        other => return Err(format!("'{other}' is not one of fio's rw modes")),
    })
}

/// Reads one job's settings, keeping track of what was used.
pub(super) struct Reader<'a> {
    job: &'a Job,
    pub(super) last: BTreeMap<&'a str, &'a Setting>,
    used: Vec<&'a str>,
}

impl<'a> Reader<'a> {
    fn new(job: &'a Job) -> Self {
        let mut last = BTreeMap::new();
        for s in &job.settings {
            last.insert(s.key.as_str(), s);
        }
        Reader {
            job,
            last,
            used: Vec::new(),
        }
    }

    pub(super) fn get(&mut self, key: &'a str) -> Option<&'a Setting> {
        self.used.push(key);
        self.last.get(key).copied()
    }

    pub(super) fn value(&mut self, key: &'a str) -> Option<&'a str> {
        self.get(key).map(|s| s.value.as_deref().unwrap_or(""))
    }

    /// Every setting of `key`, in order (fio adds each `filename=` to the job).
    pub(super) fn all(&mut self, key: &'a str) -> Vec<&'a Setting> {
        self.used.push(key);
        self.job.settings.iter().filter(|s| s.key == key).collect()
    }

    /// The last setting of `key`, which must be there.
    pub(super) fn last_of(&self, key: &str) -> &'a Setting {
        self.last[key]
    }

    /// The job's name.
    pub(super) fn job_name(&self) -> &'a str {
        &self.job.name
    }

    pub(super) fn refuse(
        &self,
        s: &Setting,
        why: impl Into<String>,
        closest: Option<&str>,
    ) -> Box<Refusal> {
        Box::new(Refusal {
            option: match &s.value {
                Some(v) => format!("{}={v}", s.written),
                None => s.written.clone(),
            },
            job: self.job.name.clone(),
            place: s.place.clone(),
            why: why.into(),
            closest: closest.map(str::to_string),
        })
    }

    /// A refusal for what the job lacks, at its section.
    pub(super) fn lacks(
        &self,
        option: &str,
        why: impl Into<String>,
        closest: Option<&str>,
    ) -> Box<Refusal> {
        Box::new(Refusal {
            option: option.to_string(),
            job: self.job.name.clone(),
            place: self.job.place.clone(),
            why: why.into(),
            closest: closest.map(str::to_string),
        })
    }

    /// The parsed value of `key`, or a refusal at it.
    pub(super) fn parsed<T>(
        &mut self,
        key: &'a str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, Box<Refusal>> {
        let Some(s) = self.get(key) else {
            return Ok(None);
        };
        parse(s.value.as_deref().unwrap_or(""))
            .map(Some)
            .map_err(|why| self.refuse(s, why, None))
    }

    fn flag(&mut self, key: &'a str) -> Result<Option<bool>, Box<Refusal>> {
        let Some(s) = self.get(key) else {
            return Ok(None);
        };
        boolean(s.value.as_deref())
            .map(Some)
            .map_err(|why| self.refuse(s, why, None))
    }
}

/// Whole seconds of a fio time, or a refusal.
fn whole_seconds(r: &Reader, s: &Setting, ns: u64, what: &str) -> Result<u64, Box<Refusal>> {
    if ns % 1_000_000_000 != 0 {
        return Err(r.refuse(
            s,
            format!("iospd's {what} is whole seconds"),
            Some("a whole number of seconds"),
        ));
    }
    Ok(ns / 1_000_000_000)
}

/// Translates every job; jobs of one `stonewall` group share a group number.
pub fn translate(jobs: &[Job]) -> Vec<Result<Translation, Refusal>> {
    let mut group = 0;
    let mut out = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        let stonewall = job
            .get("stonewall")
            .is_some_and(|s| boolean(s.value.as_deref()).unwrap_or(true));
        if i > 0 && stonewall {
            group += 1;
        }
        out.push(one(job, group).map_err(|refusal| *refusal));
    }
    out
}

/// One job.
fn one(job: &Job, group: usize) -> Result<Translation, Box<Refusal>> {
    let mut r = Reader::new(job);
    let mut args: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    // The engine.
    let engine_name = r.value("ioengine").unwrap_or("psync");
    let (engine_arg, synchronous, engine_note) = engine(engine_name).map_err(|why| {
        let s = r.last["ioengine"];
        r.refuse(s, why, Some("--engine=io_uring or --engine=psync"))
    })?;
    notes.extend(engine_note.map(str::to_string));
    // What it does.
    let rw = r.value("rw").unwrap_or("read");
    let m = mode(rw).map_err(|why| r.refuse(r.last["rw"], why, None))?;
    let mix = match (r.get("rwmixread"), r.get("rwmixwrite")) {
        (_, Some(w))
            if r.last
                .get("rwmixread")
                .is_none_or(|rd| rd.place.line < w.place.line) =>
        {
            let pct =
                integer(w.value.as_deref().unwrap_or("")).map_err(|why| r.refuse(w, why, None))?;
            100u64.saturating_sub(pct)
        }
        (Some(rd), _) => {
            integer(rd.value.as_deref().unwrap_or("")).map_err(|why| r.refuse(rd, why, None))?
        }
        _ => 50,
    };
    if mix > 100 {
        return Err(r.refuse(
            r.last
                .get("rwmixread")
                .or(r.last.get("rwmixwrite"))
                .copied()
                .expect("given"),
            "a percentage from 0 to 100",
            None,
        ));
    }
    let write_pct = match (m.reads, m.writes) {
        (true, true) => 100 - mix,
        (false, true) => 100,
        _ => 0,
    };
    // Block sizes.
    let blocks = super::blocks::blocks(&mut r, &m)?;
    let block = blocks.largest;
    args.push(blocks.arg);
    // Access.
    if m.random {
        if let Some(skip) = &m.skip {
            return Err(r.refuse(
                r.last["rw"],
                format!("random I/O with ':{skip}' (a new random offset every {skip} I/Os) has no counterpart"),
                Some("-r (every offset random)"),
            ));
        }
        match r.parsed("ba", bytes)? {
            Some(align) => args.push(format!("-r{align}")),
            None => args.push("-r".into()),
        }
        // fio's random map is on unless norandommap; a distribution draws its own offsets.
        let no_map = r.flag("norandommap")?.unwrap_or(false);
        if !no_map && !r.last.contains_key("random_distribution") {
            if blocks.mixed {
                notes.push("fio's random map marks the blocks each I/O of mixed sizes covers; iospd draws offsets for mixed sizes with replacement (norandommap)".into());
            } else {
                args.push("--random-map".into());
            }
        }
    } else {
        r.get("ba");
        match &m.skip {
            Some(skip) if skip.starts_with('-') => {
                return Err(r.refuse(
                    r.last["rw"],
                    "a negative skip (moving backwards through the target) has no counterpart",
                    Some("-s (forwards)"),
                ));
            }
            Some(skip) if blocks.mixed => {
                return Err(r.refuse(
                    r.last["rw"],
                    format!("a gap of {skip} after each I/O of mixed sizes has no counterpart (iospd's sequential I/O of mixed sizes follows the last)"),
                    Some("-s (no gap)"),
                ));
            }
            Some(skip) => {
                let gap = bytes(skip).map_err(|why| r.refuse(r.last["rw"], why, None))?;
                args.push(format!("-s{}", block + gap));
            }
            None => args.push("-s".into()),
        }
    }
    if m.trims {
        args.push("--trim=100".into());
    } else {
        args.push(format!("-w{write_pct}"));
    }
    // Caching.
    let direct_flag = r.flag("direct")?;
    let buffered_flag = r.flag("buffered")?;
    let direct = direct_flag.unwrap_or(false) || buffered_flag.is_some_and(|b| !b);
    let mut cache = if direct {
        "-Su".to_string()
    } else {
        String::new()
    };
    if let Some(s) = r.get("sync") {
        match s.value.as_deref().unwrap_or("1") {
            "0" | "none" => {}
            "dsync" => {
                cache = if direct { "-Suw".into() } else { "-Sbw".into() };
            }
            _ => {
                return Err(r.refuse(
                    s,
                    "O_SYNC (data and metadata) has no counterpart",
                    Some("-Sw, O_DSYNC"),
                ));
            }
        }
    }
    if engine_arg == Some("-Sm") {
        if direct {
            return Err(r.refuse(
                r.last
                    .get("direct")
                    .or(r.last.get("buffered"))
                    .copied()
                    .expect("given"),
                "the mmap engine with O_DIRECT",
                None,
            ));
        }
        cache = "-Sm".into();
    } else if let Some(e) = engine_arg {
        args.push(e.into());
    }
    if !cache.is_empty() {
        args.push(cache);
    }
    // Depth and jobs.
    let depth = r.parsed("iodepth", integer)?.unwrap_or(1);
    if depth == 0 {
        return Err(r.refuse(r.last["iodepth"], "a depth of at least 1", None));
    }
    let depth = if synchronous {
        if depth > 1 {
            notes.push(format!(
                "the {engine_name} engine does one I/O at a time (fio ignores iodepth={depth})"
            ));
        }
        1
    } else {
        depth
    };
    let numjobs = r.parsed("numjobs", integer)?.unwrap_or(1).max(1);
    let files = super::files::files(&mut r, numjobs)?;
    // Time, or work: a time-based job runs for its runtime; any other ends when it has done its
    // size (or io_size) times loops, or number_ios, or at its runtime if that comes first.
    let time_based = r.flag("time_based")?.unwrap_or(false);
    let runtime = match r.get("runtime") {
        Some(s) => {
            let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000_000_000)
                .map_err(|why| r.refuse(s, why, None))?;
            Some((s, whole_seconds(&r, s, ns, "duration (-d)")?))
        }
        None => None,
    };
    let ramp = match r.get("ramp_time") {
        Some(s) => {
            let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000_000_000)
                .map_err(|why| r.refuse(s, why, None))?;
            whole_seconds(&r, s, ns, "warm-up (-W)")?
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
        args.push(format!("-d{seconds}"));
        for key in ["loops", "io_size", "number_ios"] {
            r.get(key);
        }
    } else {
        args.extend(work(&mut r, files.per_thread)?);
        if let Some((_, seconds)) = runtime.filter(|&(_, s)| s > 0) {
            args.push(format!("-d{seconds}"));
        }
    }
    args.push(format!("-W{ramp}"));
    args.push("-C0".into());
    args.push("-L".into());
    // Pacing and think time.
    let (limit, share) = pace(&mut r, &m, blocks.mixed, &mut notes)?;
    args.extend(limit);
    if let Some(share) = share {
        for arg in args.iter_mut().filter(|a| a.starts_with("-w")) {
            *arg = format!("-w{share}");
        }
    }
    if let Some(s) = r.get("thinktime") {
        let ns = time_ns(s.value.as_deref().unwrap_or(""), 1_000)
            .map_err(|why| r.refuse(s, why, None))?;
        if ns > 0 {
            if ns % 1_000_000 != 0 {
                return Err(r.refuse(
                    s,
                    "iospd's think time is whole milliseconds",
                    Some("-j<ms>"),
                ));
            }
            let blocks = r.parsed("thinktime_blocks", integer)?.unwrap_or(1).max(1);
            args.push(format!("-i{blocks}"));
            args.push(format!("-j{}", ns / 1_000_000));
        }
    }
    r.get("thinktime_blocks");
    // Write data.
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
    if let Some(hex) = pattern {
        // fio fills every buffer with the pattern, refilled or not.
        r.get("refill_buffers");
        r.get("zero_buffers");
        if m.writes {
            args.push(format!("--pattern=0x{hex}"));
        }
    } else if r.flag("refill_buffers")?.unwrap_or(false) {
        args.push("-Zr".into());
    } else if r.flag("zero_buffers")?.unwrap_or(false) {
        args.push("-Z".into());
    } else if m.writes
        && !r.last.contains_key("buffer_compress_percentage")
        && !r.last.contains_key("dedupe_percentage")
        && r.last
            .get("verify")
            .is_none_or(|v| matches!(v.value.as_deref(), Some("0" | "null" | "")))
    {
        // fio writes random data (scrambled a little each time): windows of a random buffer.
        // (A verified job writes iospd's self-describing blocks instead.)
        args.push(format!("-Z{}", (block * 2).max(1 << 20)));
    }
    let chunk = r.parsed("buffer_compress_chunk", bytes)?;
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
            args.push(match chunk {
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
            args.push(format!(
                "--dedupe={}:{block}",
                ratio(100.0 / (100 - p) as f64)
            ));
        }
    }
    if let Some(s) = r.get("random_distribution") {
        let v = s.value.as_deref().unwrap_or("");
        let (kind, param) = v.split_once(':').unwrap_or((v, ""));
        match (kind, param) {
            ("random", _) => {}
            ("zipf" | "pareto", p) if !p.is_empty() && !p.contains(':') => {
                args.push(format!("--distribution={kind}:{p}"))
            }
            ("normal" | "gauss", p) if !p.is_empty() && !p.contains(':') => {
                args.push(format!("--distribution=normal:{p}"))
            }
            ("zoned" | "zoned_abs", p) if !p.is_empty() && !p.contains(',') => {
                args.push(format!("--distribution={kind}:{}", zones(kind, p)))
            }
            _ => {
                return Err(r.refuse(
                    s,
                    "this distribution (or its parameters) has no counterpart",
                    Some("--distribution=zipf:θ|pareto:h|normal:σ%"),
                ));
            }
        }
    }
    // Flushes, verification.
    for (key, option) in [("fsync", "--fsync"), ("fdatasync", "--fdatasync")] {
        match r.parsed(key, integer)?.filter(|&n| n > 0) {
            Some(n) if m.writes => args.push(format!("{option}={n}")),
            Some(n) => notes.push(format!(
                "{key}={n}: the job does not write, so fio issues no flush and neither does iospd"
            )),
            None => {}
        }
    }
    let verify = r
        .value("verify")
        .filter(|v| !matches!(*v, "0" | "null" | ""));
    let do_verify = r.flag("do_verify")?.unwrap_or(true);
    // verify_fatal ends the job at the first bad block; without verification it does nothing.
    let fatal = r.flag("verify_fatal")?.unwrap_or(false);
    // verify_interval: fio's default is the block; iospd checks each block whole.
    if let Some(interval) = r.parsed("verify_interval", bytes)?
        && verify.is_some()
        && do_verify
        && interval != block
    {
        return Err(r.refuse(
            r.last_of("verify_interval"),
            format!("a check every {interval} bytes of a {block}-byte block: iospd checks each block whole"),
            Some(&format!("verify_interval={block} (the block, fio's default)")),
        ));
    }
    if verify.is_some() && do_verify {
        args.push(if fatal { "--verify=stop" } else { "--verify" }.into());
        notes.push("iospd checks every read against what it wrote during the run, in its own block format (fio writes, then reads back)".into());
    }
    // Seeds, percentiles, logs.
    let repeat = r.flag("randrepeat")?;
    if let Some(seed) = r.parsed("randseed", integer)? {
        args.push(format!("-z{seed}"));
    } else if repeat == Some(false) {
        args.push("-z".into());
    }
    if let Some(s) = r.get("percentile_list") {
        let list: Vec<&str> = s.value.as_deref().unwrap_or("").split(':').collect();
        if list.iter().any(|p| p.parse::<f64>().is_err()) {
            return Err(r.refuse(s, "a list of percentiles separated by ':'", None));
        }
        args.push(format!("--percentiles={}", list.join(",")));
    }
    let mut logs = Vec::new();
    for (key, kind) in [
        ("write_bw_log", LogKind::Bandwidth),
        ("write_iops_log", LogKind::Iops),
        ("write_lat_log", LogKind::Latency),
    ] {
        if let Some(s) = r.get(key) {
            let prefix = s.value.clone().filter(|v| !v.is_empty());
            logs.push(FioLog {
                kind,
                prefix: prefix.unwrap_or_else(|| job.name.clone()),
            });
        }
    }
    let log_ms = match r.parsed("log_avg_msec", integer)?.filter(|&ms| ms > 0) {
        Some(ms) => ms,
        None if !logs.is_empty() => {
            notes.push("fio logs every I/O without log_avg_msec; iospd logs each 1000 ms window (set log_avg_msec for another)".into());
            1000
        }
        None => 0,
    };
    if !logs.is_empty() {
        args.push(format!("-D{log_ms}"));
    }
    if let Some(s) = r.get("write_iolog") {
        args.push(format!("--trace={}", s.value.as_deref().unwrap_or("")));
        notes.push("the I/O log is iospd's --trace, which iospd replay reads".into());
    }
    if r.flag("sqthread_poll")?.unwrap_or(false) {
        args.push("--sqpoll".into());
    }
    if r.flag("hipri")?.unwrap_or(false) {
        args.push("--iopoll".into());
    }
    args.extend(cpus(&mut r)?);
    // Targets.
    args.extend(super::files::threads(
        &mut r, &files, numjobs, depth, time_based, &mut notes,
    )?);
    let offset = match r.parsed("offset", size)? {
        None | Some(Size::Bytes(0)) => 0,
        Some(Size::Bytes(b)) => b,
        Some(Size::Percent(_)) => {
            return Err(r.refuse(
                r.last["offset"],
                "an offset as a percentage",
                Some("-B<bytes>"),
            ));
        }
    };
    args.extend(super::files::region(&mut r, &files, offset)?);
    if r.flag("create_on_open")?.unwrap_or(false) {
        if m.writes || m.trims {
            return Err(r.refuse(
                r.last_of("create_on_open"),
                "files made empty when opened and grown by the job's own writes: iospd lays out every file before the run, so its writes overwrite",
                Some("create_on_open=0 (the layout fio makes by default)"),
            ));
        }
        notes.push("create_on_open: a read job reads laid-out files; iospd lays out a missing one before the run".into());
    }
    if offset > 0 {
        args.push(format!("-B{offset}"));
    }
    if let Some(s) = r.get("read_iolog") {
        // A replay: the log's I/O onto the job's targets, at the job's depth and caching.
        let mut replay = vec!["replay".to_string(), format!("-o{depth}")];
        replay.extend(
            args.iter()
                .filter(|a| a.starts_with("-S") || a.starts_with("--engine"))
                .cloned(),
        );
        replay.push(s.value.clone().unwrap_or_default());
        replay.extend(files.names.iter().cloned());
        return finish(&mut r, replay, notes, group, logs);
    }
    args.extend(files.names);
    let unlink = r.flag("unlink")?.unwrap_or(false);
    let start_delay_ms = match r.get("startdelay") {
        Some(s) if s.value.as_deref().is_some_and(|v| v.contains('-')) => {
            return Err(r.refuse(
                s,
                "a start drawn from a range (iospd fio starts each job at its one delay)",
                Some("startdelay=<one time>"),
            ));
        }
        Some(s) => {
            time_ns(s.value.as_deref().unwrap_or(""), 1_000_000_000)
                .map_err(|why| r.refuse(s, why, None))?
                / 1_000_000
        }
        None => 0,
    };
    finish(&mut r, args, notes, group, logs).map(|t| Translation {
        unlink,
        start_delay_ms,
        ..t
    })
}

/// What ends a job that is not time-based: `--bytes` from `io_size` (or else `size`, the region;
/// or `filesize` for each file) times `loops`, split between the thread's `files` as fio splits
/// it (a share of the region as a share of each target's range), `--ios` from `number_ios`. A
/// job with neither goes once over its whole targets, `loops` times.
fn work(r: &mut Reader, files: u64) -> Result<Vec<String>, Box<Refusal>> {
    let loops = r.parsed("loops", integer)?.unwrap_or(1).max(1);
    let io_size = r.parsed("io_size", size)?;
    let setting =
        |r: &Reader, key: &str| r.last.get(key).and_then(|s| size(s.value.as_deref()?).ok());
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
    let per_file = match (io_size.or(region), each) {
        (Some(Size::Bytes(b)), _) => Some(Size::Bytes(b / files)),
        (Some(Size::Percent(p)), _) => Some(Size::Percent(p)),
        (None, each) => each,
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

/// `cpus_allowed` (or `cpumask`, a number whose bits are CPUs): the threads run anywhere in the
/// set (`--cpu-set`, fio's `shared` policy), or each on its own CPU of it (`-a`, `split`); with
/// neither, `-n`: fio leaves placement to the scheduler, where DiskSpd pins.
fn cpus(r: &mut Reader) -> Result<Vec<String>, Box<Refusal>> {
    let listed = match (r.get("cpus_allowed"), r.get("cpumask")) {
        (Some(s), _) => {
            let list = crate::cli::flags::parse_cpu_set(s.value.as_deref().unwrap_or(""))
                .map_err(|why| r.refuse(s, why, None))?;
            Some((s, list))
        }
        (None, Some(s)) => {
            let text = s.value.as_deref().unwrap_or("").trim();
            let mask = match text.strip_prefix("0x").or(text.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            let mask = mask
                .ok()
                .filter(|&m| m != 0)
                .ok_or_else(|| r.refuse(s, "not a CPU mask (a number, 0x… in hex)", None))?;
            Some((s, (0..64).filter(|cpu| mask >> cpu & 1 == 1).collect()))
        }
        (None, None) => None,
    };
    let policy = r.get("cpus_allowed_policy");
    let Some((_, cpus)) = listed else {
        // fio leaves placement to the scheduler.
        return Ok(vec!["-n".into()]);
    };
    let words: Vec<String> = cpus.iter().map(u32::to_string).collect();
    match policy.and_then(|s| s.value.as_deref()).unwrap_or("shared") {
        "shared" => Ok(vec![format!("--cpu-set={}", crate::units::cpu_list(&cpus))]),
        "split" => Ok(vec![format!("-a{}", words.join(","))]),
        _ => Err(r.refuse(
            policy.expect("a value other than the default"),
            "not shared or split",
            None,
        )),
    }
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

/// `rate_iops` or `rate` (bytes per second): one value for every direction, or `<reads>,<writes>`
/// with an empty part for a direction left free. A job of one direction gets its direction's
/// limit as `-g<n>i` or `-g<bytes per ms>`. A job that reads and writes: fio holds each
/// direction to its rate, switching to the other when one is ahead, so while the device keeps
/// up it does R reads and W writes a second whatever `rwmix` says: `-g<R+W>` with the `-w` those
/// shares make (which replaces the mix).
fn pace(
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
            v => bytes(v).map(Some),
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

/// A ratio as iospd's options take it: whole when it is, else to two decimals.
fn ratio(r: f64) -> String {
    if (r - r.round()).abs() < 1e-9 {
        format!("{}", r.round() as u64)
    } else {
        format!("{r:.2}")
    }
}

/// Checks that every setting was used, accepted or is refused with its closest; the translation.
fn finish(
    r: &mut Reader,
    args: Vec<String>,
    mut notes: Vec<String>,
    group: usize,
    logs: Vec<FioLog>,
) -> Result<Translation, Box<Refusal>> {
    let keys: Vec<&str> = r.last.keys().copied().collect();
    for key in keys {
        if r.used.contains(&key) {
            continue;
        }
        let s = r.last[key];
        if let Some((_, note)) = ACCEPTED.iter().find(|(k, _)| *k == key) {
            notes.push(format!("{}: {note}", s.written));
            continue;
        }
        if let Some((_, values, note)) = ACCEPTED_VALUES.iter().find(|(k, ..)| *k == key) {
            let value = s.value.as_deref().unwrap_or("1");
            if values.contains(&value.to_ascii_lowercase().as_str()) {
                notes.push(format!("{}={value}: {note}", s.written));
                continue;
            }
        }
        let closest = CLOSEST.iter().find(|(k, _)| *k == key).map(|(_, c)| *c);
        return Err(r.refuse(s, "iospd has no equivalent", closest));
    }
    notes.sort();
    notes.dedup();
    Ok(Translation {
        job: r.job.name.clone(),
        args,
        notes,
        group,
        logs,
        unlink: false,
        start_delay_ms: 0,
    })
}
