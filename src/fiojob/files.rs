//! A job's files as fio names and sizes them: every `filename=` (a `:` list, repeated, the
//! `[global]` ones first — fio adds each to the job), or `nrfiles` files per clone named by
//! `filename_format`, under `directory`; one file per thread, or, when a thread has several, a
//! `-F`/`-O` pool that serves them in fio's `file_service_type` order; each file's region
//! (`filesize`, or `size` split between the files, from `offset`) laid out with fio's rule.

use std::path::Path;

use super::Setting;
use super::access::Mode;
use super::reader::{Reader, Refusal};
use super::translate::Draft;
use super::value::{Size, integer};

/// The job's targets.
pub(super) struct Files {
    /// Every target, in fio's order.
    pub names: Vec<String>,
    /// The clones share them (`filename=`); otherwise each clone has its own.
    pub shared: bool,
    /// How many files one thread uses.
    pub per_thread: u64,
    /// Each of several clones has several files of its own: each clone runs as a process of
    /// its own (`names` holds them clone by clone).
    pub apart: bool,
}

/// The targets: `filename` (every one, `:` lists, under `directory`), or `nrfiles` files per job
/// clone named by `filename_format` (fio's `$jobname.$jobnum.$filenum`).
pub(super) fn files(r: &mut Reader, numjobs: u64) -> Result<Files, Box<Refusal>> {
    let directory = r.value("directory").map(str::to_string);
    let under = |name: &str| match &directory {
        Some(d) if !name.starts_with('/') => format!("{}/{name}", d.trim_end_matches('/')),
        _ => name.to_string(),
    };
    if let Some(dir) = &directory
        && dir.contains(':')
    {
        return Err(r.refuse(
            r.last_of("directory"),
            "several directories",
            Some("list the files as targets"),
        ));
    }
    let nrfiles = r.parsed("nrfiles", integer)?.unwrap_or(1).max(1);
    if let Some(last) = r.get("filename") {
        // fio names files by filename_format only where no filename is given.
        r.value("filename_format");
        let mut names = Vec::new();
        for s in r.all("filename") {
            let value = s.value.as_deref().unwrap_or("");
            names.extend(
                value
                    .replace("\\:", "\u{0}")
                    .split(':')
                    .filter(|n| !n.is_empty())
                    .map(|n| under(&n.replace('\u{0}', ":"))),
            );
        }
        if names.is_empty() {
            return Err(r.refuse(last, "no file named", None));
        }
        let per_thread = names.len() as u64;
        return Ok(Files {
            names,
            shared: true,
            per_thread,
            apart: false,
        });
    }
    let format = r
        .value("filename_format")
        .unwrap_or("$jobname.$jobnum.$filenum")
        .to_string();
    let name = r.job_name().to_string();
    let names = (0..numjobs)
        .flat_map(|jobnum| (0..nrfiles).map(move |filenum| (jobnum, filenum)))
        .map(|(jobnum, filenum)| {
            under(
                &format
                    .replace("$jobname", &name)
                    .replace("$jobnum", &jobnum.to_string())
                    .replace("$filenum", &filenum.to_string()),
            )
        })
        .collect();
    Ok(Files {
        names,
        shared: false,
        per_thread: nrfiles,
        apart: nrfiles > 1 && numjobs > 1,
    })
}

/// The threads and their I/Os: a thread per clone with its `-o`, or for several files per
/// thread a `-F`/`-O` pool in fio's `file_service_type` order.
pub(super) fn threads(
    r: &mut Reader,
    files: &Files,
    numjobs: u64,
    depth: u64,
    time_based: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<String>, Box<Refusal>> {
    let openfiles = r.parsed("openfiles", integer)?;
    let service = r.get("file_service_type");
    if openfiles == Some(0) {
        return Err(r.refuse(r.last_of("openfiles"), "no file open", None));
    }
    if files.per_thread == 1 {
        return Ok(vec![
            format!("-t{}", if files.shared { numjobs } else { 1 }),
            format!("-o{depth}"),
        ]);
    }
    if openfiles.is_some_and(|open| open < files.per_thread) {
        notes.push(format!(
            "openfiles: iospd keeps all {} files open (fio opens at most {} at a time)",
            files.per_thread,
            openfiles.unwrap_or(0)
        ));
    }
    let value = service
        .and_then(|s| s.value.as_deref())
        .unwrap_or("roundrobin");
    let (kind, count) = match value.split_once(':') {
        Some((kind, n)) => (kind, Some(n)),
        None => (value, None),
    };
    let refuse = |r: &Reader, why: &str| {
        let s = service.expect("a value other than the default");
        r.refuse(
            s,
            why,
            Some("--file-service=random[:<n>]|roundrobin[:<n>]|sequential|zipf:<θ>|pareto:<h>|normal:<σ%>"),
        )
    };
    if matches!(kind, "zipf" | "pareto" | "normal" | "gauss") {
        if !time_based {
            return Err(refuse(
                r,
                "files chosen by a distribution in a job bounded by its size: iospd ends each file at its share of the work, which would cap the hot files",
            ));
        }
        let skew = skewed_files(kind, count).map_err(|why| refuse(r, &why))?;
        notes.push(format!(
            "file_service_type={value}: iospd draws the files by the exact zipf distribution fio's generator approximates (Gray's method: within a point of each file's share)"
        ));
        return Ok(vec![
            format!("-F{numjobs}"),
            format!("-O{depth}"),
            format!("--file-service={skew}"),
        ]);
    }
    let count = count
        .map(|n| integer(n).ok().filter(|&n| n > 0 && n <= u32::MAX as u64))
        .map(|n| n.ok_or("a count of 1 or more I/Os per file"));
    let service = match (kind, count) {
        (_, Some(Err(why))) => return Err(refuse(r, why)),
        ("random", None | Some(Ok(1))) => "random".to_string(),
        ("random", Some(Ok(n))) => format!("random:{n}"),
        ("roundrobin", None | Some(Ok(1))) => "roundrobin".to_string(),
        ("roundrobin", Some(Ok(n))) => format!("roundrobin:{n}"),
        ("sequential", _) if time_based => {
            return Err(refuse(
                r,
                "a time-based job served file by file (iospd ends a file only when its work is done)",
            ));
        }
        ("sequential", None | Some(Ok(1))) => "sequential".to_string(),
        _ => return Err(refuse(r, "not one of fio's file service types")),
    };
    Ok(vec![
        format!("-F{numjobs}"),
        format!("-O{depth}"),
        format!("--file-service={service}"),
    ])
}

/// fio's files chosen by zipf (`file_service_type=zipf[:θ]`, θ 1.1 by default) as iospd's
/// `--file-service=zipf:θ` over the files in order, as fio draws them (its hash turned off). fio's
/// pareto and normal over files are its own shapes, refused: its pareto scales by n − 1 (the last
/// file is never drawn), its normal is the rounded-up mean of 12 uniform draws.
fn skewed_files(kind: &str, param: Option<&str>) -> Result<crate::profile::Skew, String> {
    if kind != "zipf" {
        return Err(format!(
            "files chosen by fio's {kind}, its own shape over a few files ({}), which iospd's exact --file-service={} does not reproduce file for file",
            match kind {
                "pareto" => "scaled by one file fewer, so the last is never drawn",
                _ => "the rounded-up mean of 12 uniform draws",
            },
            if kind == "pareto" { "pareto" } else { "normal" }
        ));
    }
    let theta = match param {
        None => 1.1,
        Some(p) if p.contains(':') => {
            return Err(
                "a distribution's centre (fio's :<center>): iospd's hottest file is the first"
                    .into(),
            );
        }
        Some(p) => p
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("'{p}' is not a number"))?,
    };
    if theta == 1.0 {
        return Err("zipf's θ of 1, which fio refuses".into());
    }
    format!("zipf:{theta}").parse()
}

/// Each file's region, `offset` .. `offset + size`: a device's `-f<end>`; for files, fio's
/// layout rule, `-c<end> --keep-existing` (a missing or shorter file is laid out, a longer one
/// used as it is up to the end). The size is `filesize`, or `size` split between a thread's
/// files as fio splits it. `spread` (`offset_increment` × the clones after the first) moves the
/// end out so that the last clone's region fits.
pub(super) fn region(
    r: &mut Reader,
    files: &Files,
    offset: u64,
    spread: u64,
    smallest: u64,
) -> Result<Vec<String>, Box<Refusal>> {
    let devices = files.names.iter().all(|t| t.starts_with("/dev/"));
    if let Some(s) = r.get("filesize")
        && s.value.as_deref().is_some_and(|v| v.contains('-'))
    {
        return Err(r.refuse(
            s,
            "files of sizes drawn from a range: iospd's -c gives every file one size",
            Some("filesize=<one size>"),
        ));
    }
    let per_file = r.size("filesize")?;
    let total = r.size("size")?;
    // fill_device: without a size fio writes until ENOSPC, which on a device is its end (the
    // whole device, as without a size here); a file it grows until its file system is full.
    let fill = r.flag("fill_device")?.unwrap_or(false);
    if fill && per_file.is_none() && total.is_none() && !devices {
        return Err(r.refuse(
            r.last_of("fill_device"),
            "files grown until their file system is full: iospd lays out each file at a size before the run",
            Some("size=<bytes> (-c) of the free space, or a block device"),
        ));
    }
    let setting = r.last.get("filesize").or(r.last.get("size")).copied();
    let chosen = match (per_file, total) {
        (Some(each), _) => Some(each),
        (None, Some(Size::Bytes(b))) => Some(Size::Bytes(b / files.per_thread)),
        (None, other) => other,
    };
    let end = |r: &Reader, b: u64| {
        b.checked_add(offset)
            .and_then(|e| e.checked_add(spread))
            .ok_or_else(|| r.refuse(setting.expect("given"), "the region ends past 16EiB", None))
    };
    match (chosen, devices) {
        (None | Some(Size::Percent(_)), _) if spread > 0 => Err(r.refuse(
            r.last_of("offset_increment"),
            "clones whose regions run from their own offsets to the target's end, each a different length (iospd's threads each work a region as long as the others')",
            Some("size=<bytes> (each clone's region) with offset_increment"),
        )),
        (None, true) | (Some(Size::Percent(100)), _) => Ok(Vec::new()),
        // fio uses a file that is there as it is, whole.
        (None, false) if files.names.iter().all(|f| existing(f)) => Ok(Vec::new()),
        (None, false) => Err(r.lacks(
            "size",
            "a file job without size or filesize, whose files are not all there (fio needs a size to lay one out)",
            Some("size=<bytes> (-c)"),
        )),
        // fio: p % of the target's size from the offset, at most to its end, in whole blocks.
        (Some(Size::Percent(p)), _) => {
            let setting = setting.expect("given");
            let real = target_size(r, files, setting)?;
            let room = real.checked_sub(offset).filter(|&room| room > 0);
            let room = room.ok_or_else(|| {
                r.refuse(
                    setting,
                    format!("the region starts at {offset}, past the targets' end ({real} bytes)"),
                    Some("a smaller offset"),
                )
            })?;
            let b = (real / 100 * p + real % 100 * p / 100).min(room);
            let b = b - b % smallest;
            if b == 0 {
                return Err(r.refuse(
                    setting,
                    format!("{p}% of {real} bytes holds no whole {smallest}-byte block"),
                    None,
                ));
            }
            Ok(vec![
                if devices { "-f" } else { "-c" }.to_string() + &(offset + b).to_string(),
            ]
            .into_iter()
            .chain((!devices).then(|| "--keep-existing".to_string()))
            .collect())
        }
        (Some(Size::Bytes(0)), _) => Err(r.refuse(
            setting.expect("given"),
            format!(
                "a region of 0 bytes for each of the thread's {} files",
                files.per_thread
            ),
            None,
        )),
        (Some(Size::Bytes(b)), true) => Ok(vec![format!("-f{}", end(r, b)?)]),
        (Some(Size::Bytes(b)), false) => {
            Ok(vec![format!("-c{}", end(r, b)?), "--keep-existing".into()])
        }
    }
}

/// The one size every target of the job has: fio takes a percentage (`setting`) of each
/// target's size, and iospd's region is the same on every target.
fn target_size(r: &Reader, files: &Files, setting: &Setting) -> Result<u64, Box<Refusal>> {
    let mut common: Option<(&str, u64)> = None;
    for name in &files.names {
        match (crate::input::size_of(Path::new(name)), common) {
            (None | Some(0), _) => {
                return Err(r.refuse(
                    setting,
                    format!("a percentage of '{name}', which is not there or empty (fio takes it of the target's size)"),
                    Some("a size in bytes"),
                ));
            }
            (Some(size), Some((first, common))) if size != common => {
                return Err(r.refuse(
                    setting,
                    format!("a percentage of targets of different sizes ('{first}' {common} bytes, '{name}' {size}): iospd's region is the same on each"),
                    Some("a size in bytes"),
                ));
            }
            (Some(size), _) => common = Some((name, size)),
        }
    }
    Ok(common.map_or(0, |(_, size)| size))
}

/// A regular file that is there and holds something: fio uses it whole without a size.
fn existing(name: &str) -> bool {
    std::fs::metadata(name).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// `offset_increment`: clone k's region starts k × it after `offset` (`--offset-increment`, on
/// the threads of shared files); how far past the first clone's region the last one ends.
fn increment(
    r: &mut Reader,
    files: &Files,
    numjobs: u64,
    t: &mut Draft,
) -> Result<u64, Box<Refusal>> {
    let increment = match r.size("offset_increment")? {
        None | Some(Size::Bytes(0)) => return Ok(0),
        Some(Size::Bytes(b)) => b,
        Some(Size::Percent(_)) => {
            return Err(r.refuse(
                r.last_of("offset_increment"),
                "an increment as a percentage",
                Some("--offset-increment=<bytes>"),
            ));
        }
    };
    if numjobs < 2 {
        t.notes.push(format!(
            "offset_increment: a job of one clone starts at its offset (fio adds {increment} bytes per clone after the first)"
        ));
        return Ok(0);
    }
    if !files.shared || files.per_thread > 1 {
        return Err(r.refuse(
            r.last_of("offset_increment"),
            "clones each on files of their own, or several files per thread (iospd's --offset-increment splits one target between its threads)",
            Some("filename=<one target> with numjobs"),
        ));
    }
    t.args.push(format!("--offset-increment={increment}"));
    increment.checked_mul(numjobs - 1).ok_or_else(|| {
        r.refuse(
            r.last_of("offset_increment"),
            "the regions end past 16EiB",
            None,
        )
    })
}

/// `offset`, the region (see [`region`]) and `create_on_open` (`creates`: the filecreate engine
/// makes each file in the run): `-B`, `-c`/`-f`.
pub(super) fn place(
    r: &mut Reader,
    files: &Files,
    numjobs: u64,
    m: &Mode,
    creates: bool,
    smallest: u64,
    t: &mut Draft,
) -> Result<(), Box<Refusal>> {
    let align = r.bytes("offset_align")?.filter(|&a| a > 0);
    let offset = match r.size("offset")? {
        None | Some(Size::Bytes(0)) => 0,
        Some(Size::Bytes(b)) => b,
        // fio: q % of the target's size, rounded up to the smallest block.
        Some(Size::Percent(q)) => {
            if let Some(a) = align.filter(|&a| a != smallest) {
                return Err(r.refuse(
                    r.last_of("offset_align"),
                    format!("a percentage offset rounded up to {a} bytes, which fio itself applies to where the region ends but not to where its I/O starts (that offset is rounded to the {smallest}-byte block)"),
                    Some("offset_align=<the smallest block>, or offset=<bytes>"),
                ));
            }
            // Of files not there yet (or empty) fio takes q % of 0 bytes, then lays them out.
            let absent = files
                .names
                .iter()
                .all(|n| matches!(crate::input::size_of(Path::new(n)), None | Some(0)));
            if absent && !matches!(r.size("size")?, Some(Size::Percent(_)) | None) {
                t.notes.push(format!("offset={q}%: the targets are not there yet (or empty), so fio takes {q}% of 0 bytes: the region starts at 0"));
                0
            } else {
                let real = target_size(r, files, r.last["offset"])?;
                let raw = real / 100 * q + real % 100 * q / 100;
                raw.div_ceil(smallest) * smallest
            }
        }
    };
    if let Some(a) = align
        && !matches!(r.size("offset")?, Some(Size::Percent(_)))
    {
        t.notes.push(format!(
            "offset_align={a}: fio aligns only an offset given as a percentage"
        ));
    }
    let spread = increment(r, files, numjobs, t)?;
    let region = region(r, files, offset, spread, smallest)?;
    t.args.extend(region);
    if r.flag("fill_device")?.unwrap_or(false) {
        t.notes.push("fill_device: the job's region is written to its end (a whole device without a size); fio would also end quietly at ENOSPC, where iospd's run stops with the error".into());
    }
    if r.flag("create_on_open")?.unwrap_or(false) {
        if creates {
            t.notes.push("create_on_open: the create engine makes each file in the run (the file -c lays out is removed first)".into());
        } else if m.writes || m.trims {
            return Err(r.refuse(
                r.last_of("create_on_open"),
                "files made empty when opened and grown by the job's own writes: iospd lays out every file before the run, so its writes overwrite",
                Some("create_on_open=0 (the layout fio makes by default)"),
            ));
        } else {
            t.notes.push("create_on_open: a read job reads laid-out files; iospd lays out a missing one before the run".into());
        }
    }
    if offset > 0 {
        t.args.push(format!("-B{offset}"));
    }
    Ok(())
}
