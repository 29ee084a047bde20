//! `iospd replay [options] <trace>… <target>…`: the profile of a replay. The traces are read once
//! here (a damaged one is refused before anything is opened for writing); each traced device is
//! given a target, in order; and the run's options are set from what the trace holds, so the
//! safety gate, the target checks and the buffers treat the replay like any run that does the
//! same I/O: the largest I/O is the block size (`-b`), the write share is `-w`, trims are `--trim`,
//! the depth cap is one pool of slots (`-F1 -O<depth>`), and the run lasts the trace's span.

use std::path::{Path, PathBuf};

use super::summary::{Summary, summarize};
use super::{DeviceKey, Stage, TraceError, is_trace};
use crate::cli::CliError;
use crate::cli::line::Line;
use crate::profile::replay::{Kinds, Mapping, Pace, Remap, Replay};
use crate::profile::{ProfileError, Resolved};

/// The replay's own options, with a value (`=`) or not.
pub const OPTIONS: [&str; 6] = ["speed=", "events=", "remap=", "only=", "devices=", "late="];

/// The usage line.
pub const USAGE: &str = "iospd replay [--speed=<x>|max] [--events=Q|D] [--remap=keep|wrap|scale] [--only=read,write,trim,flush] [--devices=<maj,min>;…] [--late=<µs>] [-o<depth cap>] [run options] <trace>… <target>…";

/// Options that shape drawn I/O, which a replay takes from its trace instead.
const DRAWN: [(&str, &str); 21] = [
    ("-b", "the block size"),
    ("-B", "a base offset"),
    ("-f", "a range or file flags"),
    ("-F", "a thread pool"),
    ("-g", "a throughput limit"),
    ("-i", "bursts"),
    ("-j", "bursts"),
    ("-O", "a pool depth (use -o for the depth cap)"),
    ("-p", "parallel offsets"),
    ("-r", "random offsets"),
    ("-s", "sequential offsets"),
    ("-t", "threads"),
    ("-T", "a thread stride"),
    ("-w", "the write share"),
    ("-W", "a warm-up"),
    ("-C", "a cool-down"),
    ("-X", "an XML profile"),
    ("--distribution", "an offset distribution"),
    ("--dedupe", "duplicate data"),
    ("--trim", "a trim share"),
    ("--verify", "verification"),
];

/// The longest a replay runs, s: its per-second record of the trace and of the replay is kept
/// whole, so the run's length bounds its memory (two counters per second, ~20 MB at this).
pub const MAX_REPLAY_S: u64 = 7 * 24 * 3600;

/// A span for a message: seconds, or days for long ones.
fn span_text(s: f64) -> String {
    match s {
        s if s >= 1e6 * 86_400.0 => format!("{:.3e} days", s / 86_400.0),
        s if s >= 2.0 * 86_400.0 => format!("{:.1} days", s / 86_400.0),
        s => format!("{s:.0} s"),
    }
}

fn speed_text(pace: Pace) -> String {
    match pace {
        Pace::Speed(s) => format!("{s}"),
        Pace::AsFastAsPossible => "max".into(),
    }
}

/// Devices a message lists by name; the rest are counted.
const LISTED: usize = 8;

/// The depth cap when `-o` is not given.
pub const DEFAULT_DEPTH: u32 = 128;

/// What stops a replay from starting.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The command line cannot be read.
    #[error(transparent)]
    Cli(#[from] CliError),
    /// The options do not combine, or the targets do not fit the trace.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A trace cannot be read.
    #[error("{0}")]
    Trace(#[from] TraceError),
}

fn invalid(message: impl Into<String>) -> ReplayError {
    ProfileError::Invalid(message.into()).into()
}

/// The replay's own options as given.
struct Options {
    pace: Pace,
    stage: Option<Stage>,
    remap: Remap,
    kinds: Kinds,
    devices: Option<Vec<DeviceKey>>,
    late_ns: u64,
}

fn options(given: &[(String, String)]) -> Result<Options, ReplayError> {
    let mut o = Options {
        pace: Pace::Speed(1.0),
        stage: None,
        remap: Remap::Keep,
        kinds: Kinds::ALL,
        devices: None,
        late_ns: 1_000_000,
    };
    for (name, value) in given {
        match name.as_str() {
            "speed" => {
                o.pace = match value.as_str() {
                    "max" => Pace::AsFastAsPossible,
                    v => match v.trim_end_matches('x').parse::<f64>() {
                        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e6 => Pace::Speed(s),
                        _ => {
                            return Err(invalid(format!(
                                "--speed={v}: give how many times faster than recorded (0.5, 1, 2, 10) or max (in order, as fast as the depth allows)"
                            )));
                        }
                    },
                }
            }
            "events" => {
                o.stage = Some(match value.to_ascii_uppercase().as_str() {
                    "Q" => Stage::Queued,
                    "D" => Stage::Issued,
                    v => {
                        return Err(invalid(format!(
                            "--events={v}: give Q (what was queued: block_bio_queue) or D (what the device was issued: block_rq_issue)"
                        )));
                    }
                })
            }
            "remap" => {
                o.remap = match value.as_str() {
                    "keep" => Remap::Keep,
                    "wrap" => Remap::Wrap,
                    "scale" => Remap::Scale,
                    v => {
                        return Err(invalid(format!(
                            "--remap={v}: give keep (offsets as traced), wrap (past the end starts again at 0) or scale (offsets scaled to the target)"
                        )));
                    }
                }
            }
            "only" => {
                let mut k = Kinds {
                    read: false,
                    write: false,
                    trim: false,
                    flush: false,
                };
                for kind in value.split(',') {
                    match kind {
                        "read" | "reads" => k.read = true,
                        "write" | "writes" => k.write = true,
                        "trim" | "trims" => k.trim = true,
                        "flush" | "flushes" => k.flush = true,
                        v => {
                            return Err(invalid(format!(
                                "--only: '{v}' is not a kind of I/O; list read, write, trim or flush with commas"
                            )));
                        }
                    }
                }
                o.kinds = k;
            }
            "devices" => {
                let parse = |d: &str| {
                    let (a, b) = d.split_once([',', ':'])?;
                    Some(DeviceKey::block(a.parse().ok()?, b.parse().ok()?))
                };
                o.devices = Some(
                    value
                        .split(';')
                        .map(|d| {
                            parse(d).ok_or_else(|| {
                                invalid(format!(
                                    "--devices: '{d}' is not a device number; give major,minor (8,16), several separated by ';'"
                                ))
                            })
                        })
                        .collect::<Result<_, _>>()?,
                );
            }
            "late" => {
                o.late_ns = match value.parse::<u64>() {
                    Ok(us) if us > 0 => us * 1000,
                    _ => {
                        return Err(invalid(format!(
                            "--late={value}: give the lateness in µs above which an I/O counts as late (for example 1000)"
                        )));
                    }
                }
            }
            _ => unreachable!("only the replay's options are passed"),
        }
    }
    Ok(o)
}

/// Why `path`, given where a trace goes, cannot be read as one: a pipe, a terminal, a directory
/// (a block device is left to the message that asks for the trace before the targets).
fn unreadable(path: &Path) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path).ok()?.file_type();
    if kind.is_block_device() {
        return None;
    }
    crate::input::open(path, false).err()
}

/// The profile of `iospd replay <args>`.
pub fn resolve(args: &[String], command_line: String) -> Result<Resolved, ReplayError> {
    let mut own = Vec::new();
    let mut rest = Vec::new();
    for arg in args {
        let own_option = arg.strip_prefix("--").and_then(|a| {
            let (name, value) = a.split_once('=')?;
            OPTIONS
                .contains(&format!("{name}=").as_str())
                .then(|| (name.to_string(), value.to_string()))
        });
        match own_option {
            Some(o) => own.push(o),
            None => rest.push(arg.clone()),
        }
    }
    let o = options(&own)?;
    let mut line = Line::lex(&rest)?;
    for (flag, what) in DRAWN {
        if line.has(flag) {
            return Err(invalid(format!(
                "{flag} sets {what}; a replay issues the trace's own I/O (its sizes, offsets, mix and times): leave {flag} out"
            )));
        }
    }
    let positional = line.targets();
    let traces: Vec<PathBuf> = positional
        .iter()
        .take_while(|p| is_trace(p))
        .cloned()
        .collect();
    let targets: Vec<PathBuf> = positional[traces.len()..].to_vec();
    if traces.is_empty() {
        return Err(match positional.first() {
            Some(p) => match unreadable(p) {
                Some(why) => TraceError::file(p, why).into(),
                None => TraceError::file(
                    p,
                    "is not a trace iospd reads (blktrace binary, blkparse text, tracefs or perf script block events, fio iolog v2/v3, iospd --trace); give the trace first, then the targets",
                )
                .into(),
            },
            None => invalid(format!("give a trace and a target: {USAGE}")),
        });
    }
    if targets.is_empty() {
        return Err(invalid(
            "give the target(s) to replay onto after the trace(s): iospd replay trace.txt /dev/loop1",
        ));
    }
    let kinds = o.kinds;
    let only = o.devices.as_deref();
    let (stage, summary) = match o.stage {
        Some(stage) => (stage, summarize(&traces, stage, kinds, only)?),
        None => {
            let queued = summarize(&traces, Stage::Queued, kinds, only)?;
            if queued.events() > 0 {
                (Stage::Queued, queued)
            } else {
                (
                    Stage::Issued,
                    summarize(&traces, Stage::Issued, kinds, only)?,
                )
            }
        }
    };
    if summary.events() == 0 {
        return Err(invalid(format!(
            "the trace holds no I/O to replay (events {}, kinds chosen by --only, devices by --devices); check the capture",
            stage.letter()
        )));
    }
    let mappings = map_devices(&summary, only, &targets, &line, o.remap)?;
    // The run's options from what the trace holds.
    let [reads, writes, trims, _] = summary.counts;
    let rw = reads + writes;
    let write_pct = match (reads, writes) {
        (_, 0) => 0,
        (0, _) => 100,
        _ => ((writes * 100 + rw / 2) / rw).clamp(1, 99),
    };
    let block = (summary.max_len.max(512) as u64).div_ceil(4096) * 4096;
    line.set(&format!("-b{block}"));
    line.set(&format!("-w{write_pct}"));
    line.set("-r");
    if trims > 0 {
        let pct = (trims * 100 / summary.events()).clamp(1, 100);
        line.set(&format!("--trim={pct}"));
    }
    let depth = match line.values("-o").last() {
        Some(v) => match v.parse::<u64>() {
            Ok(d) if (1..=crate::profile::MAX_OUTSTANDING).contains(&d) => d as u32,
            _ => {
                return Err(invalid(format!(
                    "'-o{v}': the depth cap is a count of I/Os in flight from 1 to {}, for example -o64",
                    crate::profile::MAX_OUTSTANDING
                )));
            }
        },
        None => DEFAULT_DEPTH,
    };
    line.remove("-o");
    let pool = super::pool::spread(&summary.sizes, depth);
    let slots: u32 = match pool.is_empty() {
        // Only trims and flushes: no buffer at all, but the depth's slots.
        true => depth,
        false => pool.iter().map(|c| c.slots).sum(),
    };
    line.set("-F1");
    line.set(&format!("-O{slots}"));
    line.set("-W0");
    line.set("-C0");
    // A block trace is the device's I/O: it goes to the device, not the page cache, unless
    // -S asks otherwise (-Sb replays it through the cache).
    if !line.has("-S") {
        line.set("-Su");
    }
    let span_ns = summary.last_ns - summary.first_ns;
    let at_speed_s = match o.pace {
        Pace::Speed(s) => (span_ns as f64 / s) / 1e9,
        Pace::AsFastAsPossible => 0.0,
    };
    let duration = match line.values("-d").last() {
        Some(d) => match d.parse::<u64>() {
            Ok(d) if (1..=MAX_REPLAY_S).contains(&d) => d,
            _ => {
                return Err(invalid(format!(
                    "-d{d}: the longest the replay may run, in seconds from 1 to {MAX_REPLAY_S} (7 days)"
                )));
            }
        },
        None if o.pace == Pace::AsFastAsPossible => MAX_REPLAY_S,
        None if at_speed_s.ceil() + 1.0 > MAX_REPLAY_S as f64 => {
            return Err(invalid(format!(
                "the trace spans {} from its first I/O to its last (at --speed={}), longer than a replay may run (7 days); replay part of it with -d<seconds>, or faster with --speed",
                span_text(at_speed_s),
                speed_text(o.pace)
            )));
        }
        None => at_speed_s.ceil() as u64 + 1,
    };
    line.set(&format!("-d{duration}"));
    line.clear_targets();
    for target in &targets {
        line.add_target(target.clone());
    }
    let raw = line.raw()?;
    let Resolved {
        mut profile,
        mut warnings,
    } = crate::profile::resolve(&raw, command_line)?;
    if summary.out_of_order > 0 {
        warnings.push(format!(
            "{} I/Os of the trace come earlier than the one before them; they are issued in file order",
            summary.out_of_order
        ));
    }
    profile.replay = Some(Replay {
        traces,
        stage,
        pace: o.pace,
        remap: o.remap,
        kinds,
        mappings,
        late_ns: o.late_ns,
        origin_ns: summary.first_ns,
        span_ns,
        counts: summary.counts,
        align: summary.align,
        cut_ns: duration * 1_000_000_000,
        pool,
    });
    Ok(Resolved { profile, warnings })
}

/// Device i of the trace (by number, or in `--devices` order) onto target i, each checked to
/// hold what lands on it.
fn map_devices(
    summary: &Summary,
    only: Option<&[DeviceKey]>,
    targets: &[PathBuf],
    line: &Line,
    remap: Remap,
) -> Result<Vec<Mapping>, ReplayError> {
    let keys: Vec<DeviceKey> = match only {
        Some(keys) => keys.to_vec(),
        None => summary.devices.keys().copied().collect(),
    };
    let listing = || {
        let mut shown: Vec<String> = summary
            .devices
            .values()
            .take(LISTED)
            .map(|d| format!("{} ({} I/Os)", d.name, d.events))
            .collect();
        if summary.devices.len() > LISTED {
            shown.push(format!("and {} more", summary.devices.len() - LISTED));
        }
        shown.join(", ")
    };
    if keys.len() != targets.len() {
        return Err(invalid(format!(
            "the trace has {} device{} ({}) and {} target{} {} given; give one target per device in this order, or pick devices with --devices=<major,minor>;…",
            keys.len(),
            if keys.len() == 1 { "" } else { "s" },
            listing(),
            targets.len(),
            if targets.len() == 1 { "" } else { "s" },
            if targets.len() == 1 { "was" } else { "were" },
        )));
    }
    let created = line
        .values("-c")
        .last()
        .and_then(|c| crate::units::parse_size(c).ok())
        .and_then(|s| s.resolve(summary.max_len as u64));
    keys.iter()
        .zip(targets)
        .map(|(key, target)| {
            let device = summary.devices.get(key).cloned().unwrap_or_default();
            let size = match (crate::input::size_of(target), created) {
                (_, Some(c)) => c,
                (Some(s), None) => s,
                (None, None) => {
                    return Err(invalid(format!(
                        "'{}' does not exist; create it with -c<size> (the trace reaches {} bytes on {})",
                        target.display(),
                        device.extent,
                        device.name
                    )));
                }
            };
            if (summary.max_len as u64) > size {
                return Err(invalid(format!(
                    "'{}' holds {size} bytes, less than the trace's largest I/O ({} bytes); give a larger target",
                    target.display(),
                    summary.max_len
                )));
            }
            if remap == Remap::Keep && device.extent > size {
                return Err(invalid(format!(
                    "the trace reaches {} bytes on {} but '{}' holds {size}; give a target that large, or --remap=wrap or --remap=scale",
                    device.extent,
                    device.name,
                    target.display()
                )));
            }
            Ok(Mapping {
                device: *key,
                name: device.name,
                extent: device.extent,
                target_size: size,
            })
        })
        .collect()
}
