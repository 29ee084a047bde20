//! The files `iospd fio` writes itself: fio's `--output` and the jobs' `write_*_log` files. Each
//! is judged before any job runs, as iospd's own outputs are: its place must be one iospd may
//! write, and it must not be a job file, a job's target or trace, or another of these outputs,
//! which writing it would destroy (fio would overwrite its own target with its report). And the
//! files jobs that run together share, which are laid out before those jobs start.

use std::path::{Path, PathBuf};

use super::ToolError;
use crate::fiojob::Job;
use crate::fiojob::translate::{FioLog, LogKind, Translation};
use crate::safety::place::Place;

/// What one fio log records of an interval's numbers.
type Measure = fn(&crate::stats::timeline::Point) -> u64;

/// The files a log of `kind` makes, and what each records.
fn kinds(kind: LogKind) -> &'static [(&'static str, Measure)] {
    match kind {
        LogKind::Bandwidth => &[("bw", |p| (p.bytes_per_s / 1024.0).round() as u64)],
        LogKind::Iops => &[("iops", |p| p.ios_per_s.round() as u64)],
        LogKind::Latency => &[
            ("lat", |p| p.mean_ns.round() as u64),
            ("clat", |p| p.mean_ns.round() as u64),
            ("slat", |_| 0),
        ],
        LogKind::Histogram { .. } => &[("clat_hist", |_| 0)],
    }
}

/// The file of log `log`'s `name` for the job's target `t` (from 0): `<prefix>_<name>.<t+1>.log`.
fn log_path(log: &FioLog, name: &str, t: usize) -> PathBuf {
    PathBuf::from(format!("{}_{name}.{}.log", log.prefix, t + 1))
}

/// The files a job reads or writes in its run: its targets (a replay's trace first), `-Z`'s
/// source and its `--trace`.
fn job_files(t: &Translation) -> Vec<(&'static str, &str)> {
    let mut files = Vec::new();
    for arg in t.args.iter().filter(|a| *a != "replay") {
        if let Some(trace) = arg.strip_prefix("--trace=") {
            files.push(("I/O log it writes (write_iolog)", trace));
        } else if let Some(log) = arg.strip_prefix("--histlog=") {
            files.push(("interval log it writes (for write_hist_log)", log));
        } else if let Some(source) = arg.strip_prefix("-Z").and_then(|z| z.split_once(',')) {
            files.push(("buffer source", source.1));
        } else if !arg.starts_with('-') {
            files.push(("target", arg.as_str()));
        }
    }
    files
}

/// The members of a group (by index) that lay out a file another member uses too. Each is laid
/// out before the group starts, one after the other, as fio lays out a job's files before its
/// I/O: started together, two jobs would both create the file.
pub fn laid_out_first(members: &[&Translation]) -> Vec<usize> {
    let places: Vec<Vec<Place>> = members
        .iter()
        .map(|t| {
            job_files(t)
                .into_iter()
                .filter(|f| f.0 == "target")
                .filter_map(|f| Place::locate(Path::new(f.1)).ok())
                .collect()
        })
        .collect();
    let lays_out = |t: &Translation| {
        t.args.first().is_none_or(|a| a != "replay") && t.args.iter().any(|a| a.starts_with("-c"))
    };
    (0..members.len())
        .filter(|&i| lays_out(members[i]))
        .filter(|&i| {
            places[i].iter().any(|p| {
                places
                    .iter()
                    .enumerate()
                    .any(|(j, other)| j != i && other.iter().any(|o| o.same_place(p)))
            })
        })
        .collect()
}

/// A job's targets that do not exist yet: those its group's run may make, which `unlink`
/// removes after it.
pub fn absent_targets(t: &Translation) -> Vec<PathBuf> {
    job_files(t)
        .into_iter()
        .filter(|f| f.0 == "target")
        .map(|f| PathBuf::from(f.1))
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .collect()
}

/// `ioscheduler`: each target whose device uses another scheduler than the job's, said with the
/// fix (fio would switch the device; iospd measures it as it is set). A target not made yet is
/// judged by its directory's device; a device whose scheduler cannot be read is not judged.
pub fn other_schedulers(t: &Translation) -> Vec<String> {
    let Some(wanted) = &t.scheduler else {
        return Vec::new();
    };
    let mut said = Vec::new();
    for (_, target) in job_files(t).into_iter().filter(|f| f.0 == "target") {
        let path = Path::new(target);
        let probe = match path.parent() {
            _ if path.exists() => path,
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let Some(device) = crate::system::backing::backing(probe).0 else {
            continue;
        };
        match crate::system::backing::scheduler(&device) {
            Some(now) if now != *wanted => said.push(format!(
                "ioscheduler={wanted}: '{target}' is on {} whose scheduler is {now} (fio would switch it); set it first (echo {wanted} > /sys/block/{}/queue/scheduler) or remove ioscheduler",
                device.name,
                disk_of(&device)
            )),
            _ => {}
        }
    }
    said
}

/// The disk whose queue a device uses (a partition's is its disk's).
fn disk_of(device: &crate::system::backing::BlockDevice) -> String {
    let real = std::fs::canonicalize(&device.sysfs).unwrap_or_else(|_| device.sysfs.clone());
    match real.join("partition").exists() {
        true => real
            .parent()
            .and_then(|p| p.file_name())
            .map_or(device.name.clone(), |n| n.to_string_lossy().into_owned()),
        false => device.name.clone(),
    }
}

/// `unlink`: removes each of `paths` that is now a regular file iospd made (its test-file mark),
/// nothing else; says what it left and why.
pub fn remove_made(paths: &[PathBuf]) -> Vec<String> {
    let mut said = Vec::new();
    for path in paths {
        let opened = crate::input::open_with(path, false, libc::O_NOFOLLOW);
        let Ok(file) = opened else {
            continue;
        };
        let made = file.metadata().is_ok_and(|m| m.is_file())
            && crate::safety::marker::is_test_file(&file).unwrap_or(false);
        match (made, Place::locate(path)) {
            (true, Ok(place)) => place.remove_created(&file),
            _ => said.push(format!(
                "note: unlink: '{}' was left: it is not a test file iospd made",
                path.display()
            )),
        }
    }
    said
}

/// Whether `path` is what `place` names, or the same directory entry.
fn same(place: &Place, path: &Path) -> bool {
    crate::safety::open::identity(path).is_some_and(|id| place.identities().any(|i| i == id))
        || Place::locate(path).is_ok_and(|p| p.same_place(place))
}

/// Judges fio's `--output` and every job's log files before any job runs: each in a place iospd
/// may write, none a job file, a job's file or another output.
pub fn check_outputs(
    output: Option<&Path>,
    jobs: &[(&Job, &Translation)],
    job_files: &[PathBuf],
) -> Result<(), ToolError> {
    let mut outputs: Vec<(String, PathBuf)> = output
        .map(|p| ("--output".to_string(), p.to_path_buf()))
        .into_iter()
        .collect();
    for (_, t) in jobs {
        let targets = self::job_files(t)
            .iter()
            .filter(|f| f.0 == "target")
            .count();
        for log in &t.logs {
            for &(name, _) in kinds(log.kind) {
                for n in 0..targets {
                    outputs.push((
                        format!("job '{}': its {name} log", t.job),
                        log_path(log, name, n),
                    ));
                }
            }
        }
    }
    let mut placed: Vec<(&str, &Path, Place)> = Vec::with_capacity(outputs.len());
    for (what, path) in &outputs {
        // Bad input, found before anything ran: exit 3, as iospd's own outputs.
        let refuse =
            |why: String| ToolError::Usage(format!("cannot write '{}': {why}", path.display()));
        let place = Place::locate(path).map_err(refuse)?;
        if let Some(file) = job_files.iter().find(|f| same(&place, f)) {
            return Err(refuse(format!(
                "{what} would replace the job file '{}'; name another file",
                file.display()
            )));
        }
        for (_, t) in jobs {
            if let Some((kind, file)) = self::job_files(t)
                .into_iter()
                .find(|f| same(&place, Path::new(f.1)))
            {
                return Err(refuse(format!(
                    "{what} would destroy job '{}''s {kind} '{}'; name another file",
                    t.job, file
                )));
            }
        }
        if let Some((other, ..)) = placed.iter().find(|p| p.2.same_place(&place)) {
            return Err(refuse(format!(
                "{what} and {other} would be the same file; name another file"
            )));
        }
        placed.push((what, path, place));
    }
    Ok(())
}

/// A job's `write_hist_log`: fio's histogram log of each target, `<prefix>_clat_hist.<n>.log`,
/// from the interval log its run wrote (`<prefix>_clat_hist.hlog`, removed after), the target's
/// block size in the block-size column.
fn histogram_logs(
    report: &crate::report::Report,
    log: &FioLog,
    coarseness: u8,
    targets: usize,
) -> Result<(), ToolError> {
    let source = PathBuf::from(format!("{}_clat_hist.hlog", log.prefix));
    let failed = |path: &Path, why: String| ToolError::Output {
        path: path.to_path_buf(),
        why,
    };
    let text = std::fs::read(&source).map_err(|e| failed(&source, e.to_string()))?;
    let sizes = report.profile.timespans.first().map(|ts| &ts.targets);
    for t in 0..targets {
        let lines =
            super::fio_hist::lines(&text, t, coarseness).map_err(|why| failed(&source, why))?;
        let block = sizes
            .and_then(|s| s.get(t))
            .map_or(0, |target| target.block_size);
        let path = log_path(log, "clat_hist", t);
        let mut place = Place::locate(&path).map_err(|why| failed(&path, why))?;
        place
            .replace_with(super::fio_hist::render(&lines, block).as_bytes())
            .map_err(|e| failed(&path, e.to_string()))?;
    }
    let _ = std::fs::remove_file(&source);
    Ok(())
}

/// A job's `write_bw_log`/`write_iops_log`/`write_lat_log` in fio's format, from its report's
/// `-D` intervals, as fio writes windowed logs (`log_avg_msec`): `<prefix>_bw.<n>.log` (KiB/s),
/// `_iops` (IOPS), `_lat` and `_clat` (mean latency, ns: iospd measures submission to completion)
/// and `_slat` (0: iospd does not split it), `<n>` the job's file (its clone) from 1; a line per
/// interval and direction with I/O: `time ms, value, direction (0 read, 1 write), 0, 0`.
pub fn write_logs(report: &crate::report::Report, logs: &[FioLog]) -> Result<(), ToolError> {
    use std::fmt::Write as _;
    let Some(rows) = report
        .timespans
        .first()
        .and_then(|t| t.measured.as_ref())
        .map(|m| &m.timeline)
    else {
        return Ok(());
    };
    let targets = rows.first().map_or(0, |r| r.targets.len());
    for log in logs {
        if let LogKind::Histogram { coarseness } = log.kind {
            histogram_logs(report, log, coarseness, targets)?;
            continue;
        }
        for &(name, value) in kinds(log.kind) {
            for t in 0..targets {
                let mut text = String::new();
                for row in rows {
                    let at = (row.start_ms + row.length_ms).round() as u64;
                    let d = &row.targets[t];
                    for (dir, point) in [(0, &d.read), (1, &d.write)] {
                        if point.ios > 0 {
                            // time, value, direction, block size (0: a window of many), with
                            // log_offset the offset (0, as fio writes for a window), priority.
                            let offset = if log.offset { "0, " } else { "" };
                            let _ = writeln!(text, "{at}, {}, {dir}, 0, {offset}0", value(point));
                        }
                    }
                }
                let path = log_path(log, name, t);
                let mut place = crate::safety::place::Place::locate(&path).map_err(|why| {
                    ToolError::Output {
                        path: path.clone(),
                        why,
                    }
                })?;
                place
                    .replace_with(text.as_bytes())
                    .map_err(|e| ToolError::Output {
                        path: path.clone(),
                        why: e.to_string(),
                    })?;
            }
        }
    }
    Ok(())
}
