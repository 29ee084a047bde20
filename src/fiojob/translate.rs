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
//! | `ioengine` filestat (`stat_type`), filedelete, filecreate, ftruncate, falloc | `--engine=stat`/`lstat`/`statx`, `unlink`, `create`, `ftruncate`, `fallocate`; one call per file: `--ios=<loops>` |
//! | `rate`, `rate_iops` (one value, or per direction; a mixed job's mix follows the rates), `thinktime` (+`thinktime_blocks`) | `-g<bytes/ms>` or `-g<bytes>/s`, `-g<n>i` (and `-w`), `-i`/`-j` |
//! | `zero_buffers`, `refill_buffers`, `buffer_compress_percentage`, `dedupe_percentage`, `buffer_pattern` | `-Z`, `-Zr`, `--compress`, `--dedupe`, `--pattern` |
//! | `random_distribution` zipf, pareto, normal, zoned, zoned_abs | `--distribution` (zoned: DiskSpd's `-rdpct`/`-rdabs`) |
//! | `fsync`, `fdatasync`, `verify`/`do_verify` | `--fsync`, `--fdatasync`, `--verify` |
//! | `randseed`, `randrepeat=0` | `-z<seed>`, `-z` |
//! | `percentile_list` | `--percentiles` |
//! | `write_bw_log`/`write_iops_log`/`write_lat_log`, `write_iolog`, `read_iolog` | `--timeseries` (+`-D`), `--trace`, `iospd replay` |
//! | `sqthread_poll`, `hipri` | `--sqpoll`, `--iopoll` |
//! | `cpus_allowed`/`cpumask` (+`cpus_allowed_policy`), or neither | `--cpu-set` (shared), `-a` (split); `-n` |
//! | `prioclass=3`, `prio=7` | `-I1` (idle), `-I2` (best-effort level 7) |
//! | `startdelay`, `unlink` | the job's child starts that late; its group's new files removed after it |

use super::known::{ACCEPTED, ACCEPTED_VALUES, CLOSEST, DEPRECATED};
pub use super::latency::LatencySearch;
use super::reader::Reader;
pub use super::reader::Refusal;
use super::value::{boolean, integer};
pub use super::work::FLOW_FILE;
use super::{Job, access, blocks, cmdprio, data, files, latency, logs, placement, work};

/// A job as an iospd command line.
#[derive(Debug, Clone, PartialEq)]
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
    /// `exitall`: when the job ends, what ends with it.
    pub exit: Option<ExitScope>,
    /// `wait_for`: the job starts when every job of this name in its group has finished.
    pub wait_for: Option<String>,
    /// `exitall_on_error`: when the job fails, the others of its group are stopped and no later
    /// group runs.
    pub exit_on_error: bool,
    /// `verify` on a job that writes: the `--verify-state` file `iospd verify` reads back after
    /// the run, as fio reads back what it wrote.
    pub read_back: Option<String>,
    /// `ioscheduler`: the scheduler fio would switch the targets' devices to; `iospd fio` runs
    /// the job only where the device already uses it.
    pub scheduler: Option<String>,
    /// `latency_target`: the depth is searched for, one run per window.
    pub latency: Option<LatencySearch>,
}

/// What a job with `exitall` ends when it ends (`exit_what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitScope {
    /// The other jobs of its group (`group`, and `stonewall`: groups run one at a time here);
    /// the next group runs.
    Group,
    /// Everything: the other jobs of its group, and no later group runs (`all`).
    All,
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
    /// `<prefix>_clat_hist.<n>.log`: fio's latency bins per interval, summed by
    /// `2^coarseness`, made from the run's `--histlog` (`<prefix>_clat_hist.hlog`).
    Histogram {
        /// `log_hist_coarseness`.
        coarseness: u8,
    },
}

/// A log fio would write for a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioLog {
    /// Which.
    pub kind: LogKind,
    /// The file name's start.
    pub prefix: String,
    /// `log_offset`: each line has an offset column (0 for a window, as fio writes it).
    pub offset: bool,
}

impl Translation {
    /// The command line as one line of text, each argument quoted when it needs to be.
    pub fn line(&self) -> String {
        crate::cli::line::shell_line(&self.args)
    }
}

/// A translation as it is built: the arguments so far, and the notes.
#[derive(Default)]
pub(super) struct Draft {
    pub(super) args: Vec<String>,
    pub(super) notes: Vec<String>,
}

/// Translates every job; jobs of one `stonewall` group share a group number.
/// A job is one command line, or one per clone where each clone has several files of its own.
pub fn translate(jobs: &[Job]) -> Vec<Result<Vec<Translation>, Refusal>> {
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
    // wait_for a job of a later group: that group starts only when this one has ended.
    let groups: Vec<(&str, usize)> = out
        .iter()
        .zip(jobs)
        .filter_map(|(t, job)| Some((job.name.as_str(), t.as_ref().ok()?.first()?.group)))
        .collect();
    for (result, job) in out.iter_mut().zip(jobs) {
        let Ok(clones) = result else {
            continue;
        };
        let Some(t) = clones.first() else {
            continue;
        };
        let later = t.wait_for.as_deref().is_some_and(|waitee| {
            groups
                .iter()
                .any(|&(name, g)| name == waitee && g > t.group)
        });
        if let (true, Some(s)) = (later, job.get("wait_for")) {
            *result = Err(Refusal {
                option: format!("{}={}", s.written, s.value.as_deref().unwrap_or("")),
                job: job.name.clone(),
                place: s.place.clone(),
                why: "a job of a later group, which starts only when this one has ended (fio would wait for ever)".into(),
                closest: Some("the waited-for job earlier in the file, or stonewall between them".into()),
            });
        }
    }
    steady_groups(jobs, &mut out);
    out
}

/// `ss` across a group (a group begins at each `stonewall` or `new_group`): fio rejects a job
/// whose steady-state options differ from those of the others of its group (at run time), and
/// with `group_reporting` judges the group's jobs together, where `iospd fio` runs each job as a
/// run of its own that judges its own threads. Either is refused here.
fn steady_groups(jobs: &[Job], out: &mut [Result<Vec<Translation>, Refusal>]) {
    let set = |job: &Job, key: &str| {
        job.get(key)
            .is_some_and(|s| boolean(s.value.as_deref()).unwrap_or(true))
    };
    let mut groups = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        let previous = groups.last().copied().unwrap_or(0);
        let starts = i > 0 && (set(job, "stonewall") || set(job, "new_group"));
        groups.push(previous + usize::from(starts));
    }
    let rule = |result: &Result<Vec<Translation>, Refusal>| -> Option<String> {
        let clones = result.as_ref().ok()?;
        clones
            .iter()
            .flat_map(|t| &t.args)
            .find(|a| a.starts_with("--steady-state="))
            .cloned()
    };
    let rules: Vec<Option<String>> = out.iter().map(rule).collect();
    for (i, job) in jobs.iter().enumerate() {
        let Some(s) = job.get("ss_dur").or_else(|| job.get("ss")) else {
            continue;
        };
        let group: Vec<usize> = (0..jobs.len())
            .filter(|&k| groups[k] == groups[i])
            .collect();
        let why = if group.iter().any(|&k| rules[k] != rules[i]) {
            "steady-state options that differ from another job's of its group, which fio rejects (\"steadystate options must be consistent within reporting groups\")"
        } else if rules[i].is_some() && group.len() > 1 && set(job, "group_reporting") {
            "with group_reporting fio judges the steady state of every job of the group together, and iospd runs each job apart"
        } else {
            continue;
        };
        out[i] = Err(Refusal {
            option: format!("{}={}", s.written, s.value.as_deref().unwrap_or("")),
            job: job.name.clone(),
            place: s.place.clone(),
            why: why.into(),
            closest: Some("stonewall or new_group before the job (a group of its own)".into()),
        });
    }
}

/// One job, concept by concept (the table above, in order): each step reads its options and adds
/// its arguments; whatever no step read is judged at the end against the accepted and refused
/// lists.
fn one(job: &Job, group: usize) -> Result<Vec<Translation>, Box<Refusal>> {
    let r = &mut Reader::new(job);
    let mut t = Draft::default();
    r.units()?;
    let engine = access::engine(r, &mut t)?;
    let m = access::mode(r)?;
    let blocks = blocks::blocks(r, &m)?;
    t.args.push(blocks.arg.clone());
    access::offsets(r, &m, &blocks, &mut t)?;
    access::advice(r, &m, &engine, &mut t)?;
    access::caching(r, &engine, &mut t)?;
    let depth = access::depth(r, &engine, &mut t)?;
    access::overlap(r, &m, depth, &mut t)?;
    let numjobs = r.parsed("numjobs", integer)?.unwrap_or(1).max(1);
    let files = files::files(r, numjobs)?;
    access::zones(r, &files, &mut t)?;
    let time_based = work::duration(r, files.per_thread, &mut t)?;
    access::per_file_calls(r, &engine, time_based, &mut t)?;
    work::pace(r, &m, blocks.mixed, depth, &mut t)?;
    work::errors(r, &m, &mut t)?;
    work::max_latency(r, &mut t)?;
    let latency = latency::latency_target(r, &mut t)?;
    work::flow(r, &mut t)?;
    work::steady(r, numjobs, &mut t)?;
    data::write_data(r, &m, blocks.largest, &mut t)?;
    data::distribution(r, &mut t)?;
    data::flushes(r, &m, &mut t)?;
    let read_back = data::verify(r, &m, blocks.largest, time_based, &mut t)?;
    access::seeds(r, &mut t)?;
    let logs = logs::logs(r, &mut t)?;
    access::polling(r, &mut t)?;
    t.args.extend(placement::cpus(r)?);
    t.args.extend(placement::priority(r)?);
    t.args
        .extend(cmdprio::cmdprio(r, &engine.name, &mut t.notes)?);
    t.args.extend(placement::memory(r, &mut t.notes)?);
    // A clone that runs apart is one thread over its files.
    let clones = if files.apart { 1 } else { numjobs };
    let threads = files::threads(r, &files, clones, depth, time_based, &mut t.notes)?;
    t.args.extend(threads);
    t.args.extend(placement::process(r, clones)?);
    files::place(
        r,
        &files,
        numjobs,
        &m,
        engine.creates_files(),
        blocks.smallest,
        &mut t,
    )?;
    // create_only: fio lays out the job's files and runs none of its I/O.
    if r.flag("create_only")?.unwrap_or(false) {
        if !t.args.iter().any(|a| a.starts_with("-c")) {
            return Err(r.refuse(
                r.last_of("create_only"),
                "the job's targets are devices (or files it does not lay out): fio has nothing to do for it",
                Some("remove the job"),
            ));
        }
        t.args.push("--create-only".into());
    }
    if let Some(s) = r.get("read_iolog") {
        // A replay: the log's I/O onto the job's targets, at the job's depth and caching.
        let mut replay = vec!["replay".to_string(), format!("-o{depth}")];
        replay.extend(
            t.args
                .iter()
                .filter(|a| a.starts_with("-S") || a.starts_with("--engine"))
                .cloned(),
        );
        replay.push(s.value.clone().unwrap_or_default());
        replay.extend(files.names.iter().cloned());
        t.args = replay;
        return finish(r, t, group, logs).map(|t| vec![t]);
    }
    let targets = files.names;
    let unlink = r.flag("unlink")?.unwrap_or(false);
    let start_delay_ms = placement::start_delay(r)?;
    let exit = placement::exit(r)?;
    let exit_on_error = r.flag("exitall_on_error")?.unwrap_or(false);
    let wait_for = r.value("wait_for").map(str::to_string);
    let scheduler = r.value("ioscheduler").map(str::to_string);
    if let Some(s) = &scheduler {
        t.notes.push(format!("ioscheduler={s}: fio switches the targets' devices to it; iospd leaves a device as it is set, and runs the job only where it is {s} already"));
    }
    if files.apart {
        t.notes.push(format!("each of the {numjobs} clones has {} files of its own: each runs as an iospd process of its own", files.per_thread));
    }
    let whole = finish(r, t, group, logs).map(|t| Translation {
        unlink,
        start_delay_ms,
        exit,
        exit_on_error,
        wait_for,
        read_back,
        scheduler,
        latency,
        ..t
    })?;
    let per_clone = match files.apart {
        true => files.per_thread as usize,
        false => targets.len(),
    };
    Ok(targets
        .chunks(per_clone)
        .enumerate()
        .map(|(k, chunk)| clone(&whole, k, files.apart, chunk))
        .collect())
}

/// The translation for clone `k` (all of the job unless `apart`) with its targets.
fn clone(whole: &Translation, k: usize, apart: bool, targets: &[String]) -> Translation {
    let mut t = whole.clone();
    if apart && let Some(state) = &whole.read_back {
        let own = state.replace(".verify-state", &format!(".{k}.verify-state"));
        for arg in t
            .args
            .iter_mut()
            .filter(|a| a.starts_with("--verify-state="))
        {
            *arg = format!("--verify-state={own}");
        }
        t.read_back = Some(own);
    }
    t.args.extend(targets.iter().cloned());
    t
}

/// Checks that every setting was used, accepted or is refused with its closest; the translation.
fn finish(
    r: &mut Reader,
    t: Draft,
    group: usize,
    logs: Vec<FioLog>,
) -> Result<Translation, Box<Refusal>> {
    let Draft { args, mut notes } = t;
    for s in &r.unset {
        notes.push(format!("{}=0: fio's 0 is not set, its default", s.written));
    }
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
        if DEPRECATED.contains(&key) {
            return Err(r.refuse(
                s,
                "deprecated: fio 3.33 drops a job that sets it (\"failed parsing\")",
                None,
            ));
        }
        let closest = CLOSEST.iter().find(|(k, _)| *k == key).map(|(_, c)| *c);
        return Err(r.refuse(s, "iospd has no equivalent", closest));
    }
    notes.sort();
    notes.dedup();
    Ok(Translation {
        job: r.job_name().to_string(),
        args,
        notes,
        group,
        logs,
        unlink: false,
        start_delay_ms: 0,
        exit: None,
        exit_on_error: false,
        wait_for: None,
        read_back: None,
        scheduler: None,
        latency: None,
    })
}
