//! RawArgs → Profile: apply DiskSpd's defaults, resolve sizes in blocks against the final `-b`,
//! load an XML profile (`-X`) with the options DiskSpd lets accompany it, and reject option pairs
//! that exclude each other.

use std::path::Path;

use super::raw::RawArgs;
use super::raw::WriteBufferArg;
use super::validate::validate;
use super::{
    Access, Action, Affinity, Burst, CacheMode, CpuOrder, Distribution, DistributionKind,
    DistributionRange, Profile, ProfileError, Spin, Target, TimeSpan, WriteBuffer, xml,
};
use crate::engine::EngineKind;
use crate::units::Size;

/// How far ahead `--start-at` may be: a week. Beyond it a typo (a wrong year) is likelier than a
/// plan, and the run would create its files and then wait in silence.
pub const START_AT_HORIZON_S: u64 = 7 * 86_400;

/// A resolved profile and the warnings DiskSpd would print for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The profile.
    pub profile: Profile,
    /// Non-fatal remarks, one line each, for stderr.
    pub warnings: Vec<String>,
}

/// Options that may accompany `-X` (they override every timespan of the profile).
const COMPOSABLE_WITH_XML: [&str; 11] = [
    "-X", "-v", "-vs", "-z", "-R", "-W", "-d", "-C", "-:", "-bs", "--",
];

/// Builds the profile from a command line; `command_line` is echoed in the report.
pub fn resolve(raw: &RawArgs, command_line: String) -> Result<Resolved, ProfileError> {
    let mut profile = match &raw.xml_profile {
        Some(path) => from_xml(raw, path)?,
        None => from_command_line(raw)?,
    };
    profile.command_line = command_line;
    profile.profile_file = raw.xml_profile.clone();
    profile.verbose |= raw.verbose;
    profile.verbose_stats |= raw.verbose_stats;
    if let Some(format) = raw.result_format {
        profile.result_format = format;
    }
    if let Some(flags) = raw.experiment_flags {
        profile.experiment_flags = flags;
    }
    profile.action = if let Some(name) = &raw.set_event {
        Action::SetEvent(name.clone())
    } else if raw.print_system {
        Action::PrintSystem
    } else if raw.print_profile {
        Action::PrintProfile
    } else if raw.dry_run {
        Action::DryRun
    } else if raw.create_only {
        Action::CreateOnly
    } else {
        Action::Run
    };
    profile.engine = raw.engine.unwrap_or(EngineKind::IoUring);
    profile.spin = raw.spin_us.map_or(Spin::Auto, Spin::Micros);
    profile.outputs = raw.outputs.clone();
    profile.percentiles = raw.percentiles.clone();
    profile.force = raw.force;
    profile.recreate = raw.recreate;
    profile.keep_existing = raw.keep_existing;
    profile.cpu_set = raw.cpu_set.clone().unwrap_or_default();
    profile.nice = raw.nice;
    profile.lock_memory_bytes = raw.lock_memory;
    profile.mem_policy = raw.mem_policy.clone();
    profile.flow = match (raw.flow.clone(), raw.flow_sleep_us) {
        (Some(flow), sleep) => Some(super::flow::Flow {
            sleep_us: sleep.unwrap_or(0),
            ..flow
        }),
        (None, Some(_)) => {
            return Err(ProfileError::Invalid(
                "--flow-sleep is how long a thread over its share of a flow waits, and the run has no --flow; add --flow=<weight>:<file> or drop it".into(),
            ));
        }
        (None, None) => None,
    };
    profile.fast_paths = crate::engine::FastPaths {
        sqpoll_idle_ms: raw.sqpoll_idle_ms,
        sqpoll_cpu: raw.sqpoll_cpu,
        iopoll: raw.iopoll,
    };
    if raw.sqpoll_cpu.is_some() && raw.sqpoll_idle_ms.is_none() {
        return Err(ProfileError::Conflict {
            first: "--sqpoll-cpu",
            second: "--sqpoll",
            why: "it binds the polling thread --sqpoll starts; add --sqpoll or drop --sqpoll-cpu",
        });
    }
    if (profile.fast_paths.iopoll || profile.fast_paths.sqpoll_idle_ms.is_some())
        && profile.engine != crate::engine::EngineKind::IoUring
    {
        return Err(ProfileError::Conflict {
            first: "--sqpoll/--iopoll",
            second: "--engine",
            why: "they are io_uring fast paths; drop them or use --engine=io_uring",
        });
    }
    profile.observe = crate::profile::Observe {
        timeseries: raw.timeseries.clone(),
        histlog: raw.histlog.clone(),
        trace: raw.trace.clone(),
        checkpoint_s: raw.checkpoint_s,
        quiet: raw.quiet,
        metrics: raw.metrics,
        no_device_clock: raw.no_device_clock,
        device_clock_every: raw.device_clock_every.unwrap_or(false),
    };
    if raw.no_device_clock && raw.device_clock_every.is_some() {
        return Err(ProfileError::Conflict {
            first: "--no-device-clock",
            second: "--device-clock",
            why: "one turns the clock off, the other says which requests it times; give one",
        });
    }
    profile.start_at_unix_ns = raw.start_at.map(start_at).transpose()?;
    profile.pause_s = raw.pause_s.unwrap_or(0);
    profile.verify = verify(raw)?;
    if let Some(seconds) = raw.peer_timeout_s {
        profile.peer_timeout_s = seconds;
    }
    if profile.observe.checkpoint_s.is_some() && profile.outputs.is_empty() {
        return Err(ProfileError::Invalid(
            "--checkpoint rewrites the --output files, and none is given; add one, for example --output=run.json".into(),
        ));
    }
    for ts in &mut profile.timespans {
        override_timespan(ts, raw);
    }
    if let Some(times) = raw.repeat.filter(|&n| n > 1) {
        let given = std::mem::take(&mut profile.timespans);
        for _ in 0..times {
            profile.timespans.extend(given.iter().cloned());
        }
        profile.repeat = times;
    }
    let warnings = validate(&profile)?;
    Ok(Resolved { profile, warnings })
}

/// `--start-at`: a time within [`START_AT_HORIZON_S`] from now, in ns since the epoch.
fn start_at(at: std::time::SystemTime) -> Result<u64, ProfileError> {
    if let Err(past) = at.duration_since(std::time::SystemTime::now()) {
        return Err(ProfileError::Invalid(format!(
            "--start-at={} is {:.1} s in the past; give a time in the future, for example a minute from now: --start-at=$(date -u -d '+1 min' +%FT%TZ)",
            crate::wall::rfc3339(at),
            past.duration().as_secs_f64()
        )));
    }
    let ahead = at
        .duration_since(std::time::SystemTime::now())
        .unwrap_or_default();
    if ahead > std::time::Duration::from_secs(START_AT_HORIZON_S) {
        return Err(ProfileError::Invalid(format!(
            "--start-at={} is {:.1} days away, and iospd waits at most {} days (it would create its files now and then sit idle); give a time within a week, or start the run nearer the time",
            crate::wall::rfc3339(at),
            ahead.as_secs_f64() / 86_400.0,
            START_AT_HORIZON_S / 86_400
        )));
    }
    Ok(crate::wall::unix_ns(at))
}

/// `--verify[=…]` and `--verify-state`, which needs it.
fn verify(raw: &RawArgs) -> Result<Option<crate::profile::Verify>, ProfileError> {
    match (raw.verify, &raw.verify_state) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(ProfileError::Invalid(
            "--verify-state saves what --verify wrote, and --verify is not given; add --verify"
                .into(),
        )),
        (Some(stop_at_first), state) => Ok(Some(crate::profile::Verify {
            stop_at_first,
            state: state.clone(),
        })),
    }
}

/// What the command line sets for every timespan, over a profile's (`-X` with `-z`, `-d`, `-W`,
/// `-C`, `-bs…`).
fn override_timespan(ts: &mut crate::profile::TimeSpan, raw: &RawArgs) {
    if let Some(seed) = raw.seed {
        ts.seed = seed;
    }
    if let Some(d) = raw.duration {
        ts.duration_s = d;
    }
    if let Some(w) = raw.warmup {
        ts.warmup_s = w;
    }
    if let Some(c) = raw.cooldown {
        ts.cooldown_s = c;
    }
    if raw.buffer_separation.is_some() {
        ts.buffer_separation = raw.buffer_separation;
    }
}

fn from_xml(raw: &RawArgs, path: &Path) -> Result<Profile, ProfileError> {
    if let Some(token) = raw
        .given
        .iter()
        .find(|t| !COMPOSABLE_WITH_XML.iter().any(|c| is_option(t, c)))
    {
        return Err(ProfileError::Invalid(format!(
            "'{token}' cannot be combined with -X: put the setting in the profile (only -v -vs -z -R -W -d -C -: -bs may accompany it)"
        )));
    }
    let mut profile = xml::read_profile(path)?;
    substitute_templates(&mut profile, &raw.targets)?;
    if raw.distribution.is_some() {
        return Err(ProfileError::Invalid(
            "--distribution=zoned… cannot be combined with -X: put a <Distribution> in the profile's targets".into(),
        ));
    }
    for target in profile.timespans.iter_mut().flat_map(|ts| &mut ts.targets) {
        target.skew = raw.skew.or(target.skew);
        target.compress = raw.compress.or(target.compress);
        target.dedupe = raw.dedupe.or(target.dedupe);
        target.trim_percent = raw.trim_percent.unwrap_or(target.trim_percent);
        target.flush_every = raw.flush_every.or(target.flush_every);
    }
    Ok(profile)
}

/// Whether `token` is the option `name` (`-z` matches `-z42`, but `-v` does not match `-vs`).
fn is_option(token: &str, name: &str) -> bool {
    match name {
        "-v" => token == "-v",
        "-vs" => token == "-vs",
        "-b" => false,
        _ => token.starts_with(name),
    }
}

/// Replaces `*1`, `*2` … with the command-line targets, in order.
fn substitute_templates(
    profile: &mut Profile,
    targets: &[std::path::PathBuf],
) -> Result<(), ProfileError> {
    let mut used = vec![false; targets.len()];
    for ts in &mut profile.timespans {
        for target in &mut ts.targets {
            if !target.is_template() {
                continue;
            }
            let name = target.path.display().to_string();
            // DiskSpd: '*' and a number from 1, digits only; with no targets on the command line
            // templates pass through (a run refuses them later), with some every one must be filled.
            let n = name[1..]
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0 && name[1..].bytes().all(|b| b.is_ascii_digit()));
            let Some(n) = n else {
                return Err(ProfileError::Invalid(format!(
                    "template target '{name}' must be '*' and a number from 1, e.g. *1"
                )));
            };
            if targets.is_empty() {
                continue;
            }
            let Some(path) = targets.get(n - 1) else {
                return Err(ProfileError::Invalid(format!(
                    "template target '{name}' has no target on the command line; give {n} targets after the options"
                )));
            };
            used[n - 1] = true;
            target.path = path.clone();
        }
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(ProfileError::Invalid(format!(
            "the target '{}' on the command line fills no template target (*{}) of the profile; remove it or add *{} to the profile",
            targets[i].display(),
            i + 1,
            i + 1
        )));
    }
    Ok(())
}

fn from_command_line(raw: &RawArgs) -> Result<Profile, ProfileError> {
    check_conflicts(raw)?;
    if raw.file_service.is_some() && raw.requests_per_thread.is_none() {
        return Err(ProfileError::Invalid(
            "--file-service says how the I/Os of a -O pool choose their target, and there is no pool; add -F<threads> -O<depth>".into(),
        ));
    }
    if raw.file_service == Some(super::FileService::Sequential)
        && raw.work_ios.is_none()
        && raw.work_bytes.is_none()
    {
        return Err(ProfileError::Invalid(
            "--file-service=sequential serves each target until its work is done, and no work is set; add --ios or --bytes".into(),
        ));
    }
    if raw.create_only && raw.create_size.is_none() {
        return Err(ProfileError::Invalid(
            "--create-only lays out the files -c names, and no -c is given; add -c<size>".into(),
        ));
    }
    if raw.keep_existing && raw.create_size.is_none() {
        return Err(ProfileError::Invalid(
            "--keep-existing says which files -c lays out, and no -c is given; add -c<size> or drop --keep-existing".into(),
        ));
    }
    // With --bssplit the largest size is the target's block (buffers, the range's last start);
    // random offsets are multiples of the smallest.
    let sizes = Sizes(match &raw.block_split {
        Some(split) => split.largest(),
        None => raw.block_size.unwrap_or(super::DEFAULT_BLOCK_SIZE),
    });
    let (base_offset, max_size) = range(raw, sizes)?;
    let create_size = sizes.bytes(raw.create_size, "-c")?;
    // A file --keep-existing keeps is used up to the -c size, as a created one would be.
    let max_size = match create_size.filter(|_| raw.keep_existing) {
        Some(size) => Some(max_size.map_or(size, |max| max.min(size))),
        None => max_size,
    };
    let template = Target {
        block_size: sizes.0,
        base_offset,
        max_size,
        create_size,
        requests: raw.outstanding.unwrap_or(super::DEFAULT_REQUESTS),
        threads_per_target: raw.threads_per_target.unwrap_or(1),
        thread_stride: sizes.bytes(raw.thread_stride, "-T")?.unwrap_or(0),
        offset_increment: sizes
            .bytes(raw.offset_increment, "--offset-increment")?
            .unwrap_or(0),
        access: access(raw, sizes)?.with_split(raw.block_split.as_ref()),
        distribution: distribution(raw, sizes)?,
        skew: raw.skew,
        write_ratio: raw.write_ratio.unwrap_or(0),
        cache: raw.cache_mode.unwrap_or(CacheMode::Cached),
        write_through: raw.write_through.unwrap_or(false),
        o_sync: raw.o_sync,
        memory_mapped: raw.memory_mapped,
        flush: raw.flush,
        write_buffer: write_buffer(raw, sizes)?,
        compress: raw.compress,
        dedupe: raw.dedupe,
        trim_percent: raw.trim_percent.unwrap_or(0),
        flush_every: raw.flush_every,
        work: work(raw, sizes)?,
        random_map: raw.random_map,
        pre_read: raw.pre_read,
        invalidate: raw.invalidate,
        nowait: raw.nowait,
        serialize_overlap: raw.serialize_overlap,
        max_latency: raw.max_latency,
        ioprio_split: raw.ioprio_split.clone(),
        backwards: raw.backwards,
        zones: raw.zones,
        block_split: raw.block_split.clone(),
        throughput: raw.throughput,
        poisson: raw.poisson,
        continue_on_error: raw.continue_on_error.clone(),
        burst: burst(raw)?,
        io_priority: raw.io_priority.unwrap_or(super::IoPriority::Normal),
        hints: raw.hints.unwrap_or_default(),
        large_pages: raw.large_pages,
        ..Target::new(Default::default())
    };
    let timespan = TimeSpan {
        // A run bounded by work has no time limit unless -d sets one.
        duration_s: match template.work {
            Some(_) => 0,
            None => super::DEFAULT_DURATION,
        },
        thread_count: raw.total_threads,
        request_count: raw.requests_per_thread,
        file_service: raw.file_service.unwrap_or_default(),
        steady_state: raw.steady_state,
        affinity: affinity(raw),
        measure_latency: raw.measure_latency,
        iops_interval_ms: raw.iops_interval_ms,
        random_write_data: raw.write_buffers == Some(WriteBufferArg::RandomEachWrite),
        io_ring: raw.io_ring,
        completion_depth: raw.completion_depth,
        targets: raw
            .targets
            .iter()
            .map(|path| Target {
                path: path.clone(),
                ..template.clone()
            })
            .collect(),
        ..TimeSpan::new()
    };
    Ok(Profile {
        progress: raw.progress,
        counters: raw.counters,
        events: raw.events.clone(),
        ..Profile::with_timespans(vec![timespan])
    })
}

/// `--ios` and `--bytes`: the work each thread does on each target, when either is given.
fn work(raw: &RawArgs, sizes: Sizes) -> Result<Option<crate::profile::Work>, ProfileError> {
    let bytes = sizes.bytes(raw.work_bytes, "--bytes")?;
    let given = raw.work_ios.is_some() || bytes.is_some() || raw.work_percent.is_some();
    Ok(given.then_some(crate::profile::Work {
        ios: raw.work_ios,
        bytes,
        range_percent: raw.work_percent,
    }))
}

/// Sizes as typed, in bytes with the command line's block size (`-b`).
#[derive(Clone, Copy)]
struct Sizes(u64);

impl Sizes {
    /// `size` in bytes; an error naming `flag` when a size in blocks overflows.
    fn bytes(self, size: Option<Size>, flag: &str) -> Result<Option<u64>, ProfileError> {
        size.map(|s| {
            s.resolve(self.0).ok_or_else(|| {
                ProfileError::Invalid(format!(
                    "{flag}: the size in blocks overflows with -b{}; give it in bytes",
                    self.0
                ))
            })
        })
        .transpose()
    }
}

/// `-B` and `-f`: where the range starts, and where it ends (none: the target's end).
fn range(raw: &RawArgs, sizes: Sizes) -> Result<(u64, Option<u64>), ProfileError> {
    let base_offset = sizes.bytes(raw.base_offset, "-B")?.unwrap_or(0);
    let max_size = match sizes.bytes(raw.base_length, "-B")? {
        Some(length) => Some(base_offset.checked_add(length).ok_or_else(|| {
            ProfileError::Invalid("-B<base>:<length>: the range ends past 16EiB".into())
        })?),
        // DiskSpd's -f0 means no limit.
        None => sizes.bytes(raw.max_size, "-f")?.filter(|&max| max != 0),
    };
    Ok((base_offset, max_size))
}

/// `-r`/`-rs` or `-s`/`-si`/`-p`.
fn access(raw: &RawArgs, sizes: Sizes) -> Result<Access, ProfileError> {
    Ok(if raw.random.is_some() || raw.random_ratio.is_some() {
        Access::Random {
            align: sizes.bytes(raw.random.flatten(), "-r")?.unwrap_or(sizes.0),
            ratio: raw.random_ratio.unwrap_or(100),
        }
    } else {
        let seq = raw.sequential;
        Access::Sequential {
            stride: sizes
                .bytes(seq.and_then(|s| s.stride), "-s")?
                .unwrap_or(sizes.0),
            interlocked: seq.is_some_and(|s| s.interlocked),
            parallel: raw.parallel,
        }
    })
}

/// `-rdpct`/`-rdabs`, completed to cover the target.
fn distribution(raw: &RawArgs, sizes: Sizes) -> Result<Option<Distribution>, ProfileError> {
    let Some(d) = &raw.distribution else {
        return Ok(None);
    };
    let mut ranges = Vec::with_capacity(d.ranges.len() + 1);
    for &(io_percent, span) in &d.ranges {
        let span = match d.kind {
            DistributionKind::Percent => span.resolve(1).unwrap_or(0),
            DistributionKind::Absolute => sizes.bytes(Some(span), "-rdabs")?.unwrap_or(0),
        };
        ranges.push(DistributionRange { io_percent, span });
    }
    Ok(Some(
        Distribution {
            kind: d.kind,
            ranges,
        }
        .complete(),
    ))
}

/// `-Z`: what write buffers hold.
fn write_buffer(raw: &RawArgs, sizes: Sizes) -> Result<WriteBuffer, ProfileError> {
    if let Some(hex) = &raw.pattern {
        if raw.write_buffers.is_some() {
            return Err(ProfileError::Conflict {
                first: "--pattern",
                second: "-Z",
                why: "both say what writes hold; give one",
            });
        }
        return Ok(WriteBuffer::Repeat { hex: hex.clone() });
    }
    Ok(match &raw.write_buffers {
        None | Some(WriteBufferArg::RandomEachWrite) => WriteBuffer::Pattern,
        Some(WriteBufferArg::Zero) => WriteBuffer::Zero,
        Some(WriteBufferArg::Source { size, file }) => WriteBuffer::Source {
            size: sizes.bytes(Some(*size), "-Z")?.unwrap_or(0),
            file: file.clone(),
        },
    })
}

/// `-i` and `-j`, which come together.
fn burst(raw: &RawArgs) -> Result<Option<Burst>, ProfileError> {
    match (raw.burst_size, raw.think_time) {
        (Some(size), Some(think_us)) => Ok(Some(Burst { size, think_us })),
        (None, None) => Ok(None),
        _ => Err(ProfileError::Conflict {
            first: "-i",
            second: "-j",
            why: "a burst size needs a think time and the other way round; give both",
        }),
    }
}

/// `-a`, `-n` and their ordering options. Without `-n` threads are pinned round-robin, as
/// DiskSpd pins them: over the `-a` CPUs, or every CPU this process may use.
fn affinity(raw: &RawArgs) -> Affinity {
    if raw.no_affinity || raw.cpu_set.is_some() {
        Affinity::Disabled
    } else {
        Affinity::Pinned {
            cpus: raw.affinity.clone(),
            order: CpuOrder {
                core_aware: raw.core_aware,
                span_groups: raw.span_groups,
                efficiency: raw.efficiency.unwrap_or(super::Efficiency::PFirst),
            },
        }
    }
}

/// Option pairs DiskSpd rejects on the command line.
fn check_conflicts(raw: &RawArgs) -> Result<(), ProfileError> {
    let interlocked = raw.sequential.is_some_and(|s| s.interlocked);
    let random = raw.random.is_some() || raw.random_ratio.is_some();
    let split = raw.block_split.is_some();
    let rules: [(bool, &'static str, &'static str, &'static str); 14] = [
        (
            raw.cpu_set.is_some() && raw.affinity_given,
            "--cpu-set",
            "-a",
            "--cpu-set lets the threads run anywhere in the set, -a pins each to one CPU; use one",
        ),
        (
            raw.create_only && raw.verify.is_some(),
            "--create-only",
            "--verify",
            "--verify's blocks carry the id of the run that writes them; let the --verify run create its file",
        ),
        (
            raw.keep_existing && raw.recreate,
            "--keep-existing",
            "--recreate",
            "one keeps a file long enough as it is, the other writes it again; give one",
        ),
        (
            split && raw.block_size.is_some(),
            "--bssplit",
            "-b",
            "--bssplit gives each I/O its size; drop -b",
        ),
        (
            split && raw.sequential.is_some_and(|s| s.stride.is_some()),
            "--bssplit",
            "-s<stride>",
            "with --bssplit each sequential I/O follows the last, whatever its size; drop the stride",
        ),
        (
            raw.total_threads.is_some() && raw.threads_per_target.is_some(),
            "-F",
            "-t",
            "-F sets the total number of threads and -t the threads per target; use one",
        ),
        (
            random && raw.sequential.is_some(),
            "-r",
            "-s",
            "they choose random and sequential offsets; use one (-rs mixes them)",
        ),
        (
            random && raw.thread_stride.is_some(),
            "-r",
            "-T",
            "-T staggers sequential start offsets and means nothing for random I/O; drop -T",
        ),
        (
            random && raw.parallel,
            "-r",
            "-p",
            "-p runs parallel sequential streams; drop it for random I/O",
        ),
        (
            interlocked && raw.thread_stride.is_some(),
            "-si",
            "-T",
            "-si makes the threads share one offset, -T gives each its own start; use one",
        ),
        (
            interlocked && raw.parallel,
            "-si",
            "-p",
            "-si shares one offset between threads, -p gives every I/O its own; use one",
        ),
        (
            raw.no_affinity && raw.affinity_given,
            "-n",
            "-a",
            "-n turns off the affinity -a sets; use one",
        ),
        (
            raw.base_length.is_some() && raw.max_size.is_some(),
            "-B<base>:<length>",
            "-f",
            "the length already sets where the range ends; drop -f",
        ),
        (
            raw.requests_per_thread.is_some() && raw.total_threads.is_none(),
            "-O",
            "-t",
            "-O sets outstanding I/Os per thread of a -F thread pool; add -F<threads> or use -o",
        ),
    ];
    match rules.into_iter().find(|rule| rule.0) {
        Some((_, first, second, why)) => Err(ProfileError::Conflict { first, second, why }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::cli::{self, Command};
    use crate::profile::ResultFormat;
    use crate::profile::{Efficiency, Throughput};

    fn resolve_strs(args: &[&str]) -> Result<Resolved, ProfileError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let Command::Run(raw) = cli::parse(&args).expect("parses") else {
            panic!("not a run")
        };
        resolve(&raw, "iospd".into())
    }

    #[test]
    fn thread_optimized_separation_is_one_cache_line_of_directory_entries() {
        // DiskSpd 2.3's unit tests: 4KiB pages with 64-byte lines, 8KiB pages with 128-byte lines.
        use crate::profile::BufferSeparation;
        let default = BufferSeparation::of(None);
        assert_eq!(default, BufferSeparation::ThreadOptimized);
        assert_eq!(default.bytes(4096, 64), 16 << 20);
        assert_eq!(default.bytes(8192, 128), 128 << 20);
        assert_eq!(BufferSeparation::SystemDefault.bytes(4096, 64), 0);
    }

    #[test]
    fn diskspd_defaults() {
        let profile = resolve_strs(&["t.dat"]).unwrap().profile;
        let ts = &profile.timespans[0];
        assert_eq!(
            (ts.duration_s, ts.warmup_s, ts.cooldown_s, ts.seed),
            (10, 5, 0, 0)
        );
        assert_eq!(
            ts.affinity,
            Affinity::Pinned {
                cpus: vec![],
                order: CpuOrder::default()
            }
        );
        assert_eq!(ts.thread_count, None);
        let t = &ts.targets[0];
        assert_eq!(
            (t.block_size, t.requests, t.threads_per_target),
            (65536, 2, 1)
        );
        assert_eq!(
            t.access,
            Access::Sequential {
                stride: 65536,
                interlocked: false,
                parallel: false
            }
        );
        assert_eq!(
            (t.write_ratio, t.cache, t.write_through),
            (0, CacheMode::Cached, false)
        );
        assert_eq!(t.write_buffer, WriteBuffer::Pattern);
        assert_eq!(profile.engine, EngineKind::IoUring);
        assert_eq!(profile.action, Action::Run);
    }

    #[test]
    fn blocks_use_the_final_block_size() {
        let t = &resolve_strs(&["-r8b", "-B2b", "-b4K", "t.dat"])
            .unwrap()
            .profile
            .timespans[0]
            .targets[0];
        assert_eq!(
            t.access,
            Access::Random {
                align: 32768,
                ratio: 100
            }
        );
        assert_eq!(t.base_offset, 8192);
    }

    #[test]
    fn mixed_random_sequential() {
        let t = &resolve_strs(&["-rs30", "-b4K", "t.dat"])
            .unwrap()
            .profile
            .timespans[0]
            .targets[0];
        assert_eq!(
            t.access,
            Access::Random {
                align: 4096,
                ratio: 30
            }
        );
        let t = &resolve_strs(&["-rs30", "-r8K", "t.dat"])
            .unwrap()
            .profile
            .timespans[0]
            .targets[0];
        assert_eq!(
            t.access,
            Access::Random {
                align: 8192,
                ratio: 30
            }
        );
    }

    #[test]
    fn distributions_get_their_tail() {
        let t = &resolve_strs(&["-r", "-rdpct10/10:10/10:0/10", "t.dat"])
            .unwrap()
            .profile
            .timespans[0]
            .targets[0];
        let spans: Vec<(u32, u64)> = t
            .distribution
            .as_ref()
            .unwrap()
            .ranges
            .iter()
            .map(|r| (r.io_percent, r.span))
            .collect();
        assert_eq!(spans, vec![(10, 10), (10, 10), (0, 10), (80, 70)]);
        let t = &resolve_strs(&["-r", "-rdabs10/1G:10/1G:0/100G", "t.dat"])
            .unwrap()
            .profile
            .timespans[0]
            .targets[0];
        let spans: Vec<(u32, u64)> = t
            .distribution
            .as_ref()
            .unwrap()
            .ranges
            .iter()
            .map(|r| (r.io_percent, r.span))
            .collect();
        assert_eq!(
            spans,
            vec![(10, 1 << 30), (10, 1 << 30), (0, 100 << 30), (80, 0)]
        );
    }

    #[test]
    fn base_with_length_sets_max_size() {
        let t = &resolve_strs(&["-B1M:4M", "t.dat"])
            .unwrap()
            .profile
            .timespans[0]
            .targets[0];
        assert_eq!((t.base_offset, t.max_size), (1 << 20, Some(5 << 20)));
    }

    #[test]
    fn a_kept_file_is_used_up_to_the_create_size() {
        let range = |args: &[&str]| {
            let t = &resolve_strs(args).unwrap().profile.timespans[0].targets[0];
            (t.base_offset, t.max_size, t.create_size)
        };
        assert_eq!(range(&["-c8M", "t.dat"]), (0, None, Some(8 << 20)));
        assert_eq!(
            range(&["-c8M", "--keep-existing", "-B1M", "t.dat"]),
            (1 << 20, Some(8 << 20), Some(8 << 20))
        );
        assert_eq!(
            range(&["-c8M", "--keep-existing", "-f2M", "t.dat"]),
            (0, Some(2 << 20), Some(8 << 20))
        );
        for (args, says) in [
            (&["--keep-existing", "t.dat"][..], "no -c is given"),
            (
                &["-c1M", "--keep-existing", "--recreate", "t.dat"],
                "give one",
            ),
        ] {
            let error = resolve_strs(args).unwrap_err().to_string();
            assert!(error.contains(says), "{args:?}: {error}");
        }
    }

    #[test]
    fn every_target_gets_the_same_settings() {
        let ts = &resolve_strs(&["-o8", "-g100i", "a.dat", "b.dat"])
            .unwrap()
            .profile
            .timespans[0];
        assert_eq!(ts.targets.len(), 2);
        assert!(
            ts.targets
                .iter()
                .all(|t| t.requests == 8 && t.throughput == Some(Throughput::Iops(100)))
        );
    }

    #[test]
    fn affinity_forms() {
        let ts = &resolve_strs(&["-a", "t"]).unwrap().profile.timespans[0];
        assert_eq!(
            ts.affinity,
            Affinity::Pinned {
                cpus: vec![],
                order: CpuOrder::default()
            }
        );
        let ts = &resolve_strs(&["-a0,1", "-acE", "t"])
            .unwrap()
            .profile
            .timespans[0];
        let Affinity::Pinned { cpus, order } = &ts.affinity else {
            panic!()
        };
        assert_eq!(cpus, &vec![0, 1]);
        assert!(order.core_aware && order.efficiency == Efficiency::FillEFirst);
        assert_eq!(
            resolve_strs(&["-n", "t"]).unwrap().profile.timespans[0].affinity,
            Affinity::Disabled
        );
    }

    #[test]
    fn actions() {
        assert_eq!(
            resolve_strs(&["-Rp", "t"]).unwrap().profile.action,
            Action::PrintProfile
        );
        let p = resolve_strs(&["-Rsxml"]).unwrap().profile;
        assert_eq!(
            (p.action, p.result_format),
            (Action::PrintSystem, ResultFormat::Xml)
        );
        assert_eq!(
            resolve_strs(&["-yeGo"]).unwrap().profile.action,
            Action::SetEvent("Go".into())
        );
    }

    #[test]
    fn conflicts() {
        for (args, first) in [
            (&["-F2", "-t2", "x"][..], "-F"),
            (&["-r", "-s", "x"][..], "-r"),
            (&["-rs20", "-s", "x"][..], "-r"),
            (&["-r", "-T4K", "-t2", "x"][..], "-r"),
            (&["-r", "-p", "x"][..], "-r"),
            (&["-si", "-T4K", "-t2", "x"][..], "-si"),
            (&["-si", "-p", "x"][..], "-si"),
            (&["-n", "-a0", "x"][..], "-n"),
            (&["-B0:1G", "-f2G", "x"][..], "-B<base>:<length>"),
            (&["-O4", "x"][..], "-O"),
            (&["-i10", "x"][..], "-i"),
        ] {
            match resolve_strs(args) {
                Err(ProfileError::Conflict { first: f, .. }) => assert_eq!(f, first, "{args:?}"),
                other => panic!("{args:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn zr_is_a_timespan_setting() {
        let ts = &resolve_strs(&["-Zr", "-w50", "t.dat"])
            .unwrap()
            .profile
            .timespans[0];
        assert!(ts.random_write_data);
        assert_eq!(ts.targets[0].write_buffer, WriteBuffer::Pattern);
    }
}
