//! DiskSpd's cross-field rules on a typed profile (its `Profile::Validate`): errors that stop the
//! run, warnings that do not. The same rules apply to command lines and XML profiles.

use super::MAX_THREADS;
use super::{
    Access, Action, Distribution, DistributionKind, Profile, ProfileError, Target, TimeSpan,
    WriteBuffer,
};

/// Checks the profile; returns DiskSpd's warnings when it can run.
pub fn validate(profile: &Profile) -> Result<Vec<String>, ProfileError> {
    let mut warnings = Vec::new();
    if matches!(profile.action, Action::PrintSystem | Action::SetEvent(_)) {
        return Ok(warnings);
    }
    if profile.timespans.is_empty() {
        return Err(invalid(
            "the profile has no timespan; add a <TimeSpan> with at least one <Target>",
        ));
    }
    if profile.verify.is_some() && profile.engine == crate::engine::EngineKind::Null {
        return Err(invalid(
            "--verify checks the data the device returns, and --engine=null moves no data: every block would read as bad; drop --verify, or use --engine=io_uring or --engine=psync",
        ));
    }
    super::file_engine::check(profile)?;
    for ts in &profile.timespans {
        validate_timespan(profile, ts, &mut warnings)?;
        if profile.verify.is_some() {
            super::verifiable::check(ts)?;
        }
    }
    for (what, path) in recorded_paths(profile) {
        recordable(what, path)?;
    }
    warnings.dedup();
    Ok(warnings)
}

/// Every path a report records, with the option that gave it.
fn recorded_paths(profile: &Profile) -> impl Iterator<Item = (&'static str, &std::path::Path)> {
    let targets = profile.timespans.iter().flat_map(|ts| &ts.targets);
    let sources = targets.clone().filter_map(|t| match &t.write_buffer {
        WriteBuffer::Source {
            file: Some(file), ..
        } => Some(("-Z source", file.as_path())),
        _ => None,
    });
    let observe = &profile.observe;
    targets
        .map(|t| ("target", t.path.as_path()))
        .chain(sources)
        .chain(profile.outputs.iter().map(|p| ("--output", p.as_path())))
        .chain(
            observe
                .timeseries
                .iter()
                .map(|p| ("--timeseries", p.as_path())),
        )
        .chain(observe.histlog.iter().map(|p| ("--histlog", p.as_path())))
        .chain(observe.trace.iter().map(|p| ("--trace", p.as_path())))
        .chain(
            profile
                .verify
                .iter()
                .filter_map(|v| v.state.as_deref())
                .map(|p| ("--verify-state", p)),
        )
}

/// A path the XML and JSON reports can name exactly: UTF-8 without control characters (XML 1.0
/// cannot hold most of them, and normalises tabs and line breaks). A path that is not is refused
/// before the run, rather than written into a report that would name another file.
fn recordable(what: &str, path: &std::path::Path) -> Result<(), ProfileError> {
    let shown = path.to_string_lossy();
    let Some(text) = path.to_str() else {
        return Err(invalid(format!(
            "the {what} '{shown}' is not valid UTF-8, so XML and JSON reports cannot name it exactly; rename it (or use a symbolic link with a UTF-8 name)"
        )));
    };
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_control() && c < '\u{80}' || c == '\u{FFFE}' || c == '\u{FFFF}')
    {
        return Err(invalid(format!(
            "the {what} '{}' contains the control character U+{:04X}, which XML reports cannot hold; rename it (or use a symbolic link with a plain name)",
            shown.escape_debug(),
            c as u32
        )));
    }
    Ok(())
}

fn invalid(message: impl Into<String>) -> ProfileError {
    ProfileError::Invalid(message.into())
}

fn validate_timespan(
    profile: &Profile,
    ts: &TimeSpan,
    warnings: &mut Vec<String>,
) -> Result<(), ProfileError> {
    if ts.targets.is_empty() {
        return Err(invalid(
            "a timespan has no target; name at least one file or device",
        ));
    }
    if ts.total_threads() > MAX_THREADS {
        return Err(invalid(format!(
            "{} threads in all is more than the {MAX_THREADS} iospd runs; lower -t or use fewer targets",
            ts.total_threads()
        )));
    }
    validate_work(ts)?;
    validate_steady(ts, warnings)?;
    let pool = ts.thread_count.is_some() && ts.request_count.is_some();
    for target in &ts.targets {
        let path = target.path.display();
        let threads = ts.threads_per_target(target);
        if ts.thread_count.is_some() && target.threads_per_target > 1 {
            return Err(invalid(format!(
                "'{path}': a thread pool (-F/<ThreadCount>) and threads per target (-t/<ThreadsPerFile>) cannot be combined; use one"
            )));
        }
        validate_pool(ts, target, pool)?;
        validate_data(ts, target)?;
        validate_dedupe(target)?;
        validate_trim_and_flush(target)?;
        validate_access(target, threads, warnings)?;
        validate_target(profile, target)?;
    }
    Ok(())
}

/// `--steady-state` sums the intervals into seconds: `-D` must divide one, and the window must
/// fit in the timespan (else the rule can never be met: said, as fio runs such a job to its end).
fn validate_steady(ts: &TimeSpan, warnings: &mut Vec<String>) -> Result<(), ProfileError> {
    let Some(rule) = &ts.steady_state else {
        return Ok(());
    };
    if let Some(ms) = ts.iops_interval_ms.filter(|ms| 1000 % ms != 0) {
        return Err(invalid(format!(
            "--steady-state takes one sample a second, and -D{ms} intervals do not divide a second; give -D1000, -D500, -D250, -D100 or another divisor of 1000"
        )));
    }
    let seconds = u64::from(ts.warmup_s) + u64::from(ts.duration_s);
    let needed = u64::from(rule.ramp_s.max(ts.warmup_s)) + u64::from(rule.window_s);
    if ts.duration_s > 0 && needed > seconds {
        warnings.push(format!(
            "--steady-state={rule} needs {needed}s before it can judge a window, and the timespan lasts {seconds}s (-W{} -d{}), so it will run to its end; lengthen -d or shorten the window",
            ts.warmup_s, ts.duration_s
        ));
    }
    Ok(())
}

/// `--ios`/`--bytes` end a thread's I/O when its work is done, so a run without `-d` (duration
/// 0) lasts until then: every target needs a bound, and nothing may be sized by the run's length.
/// `--random-map` permutes uniform random offsets.
fn validate_work(ts: &TimeSpan) -> Result<(), ProfileError> {
    let bounded = ts.targets.iter().any(|t| t.work.is_some());
    if ts.duration_s == 0 {
        if !bounded {
            return Err(invalid(
                "the measured duration is 0 seconds; give -d1 or more",
            ));
        }
        if let Some(t) = ts.targets.iter().find(|t| t.work.is_none()) {
            return Err(invalid(format!(
                "'{}' has no --ios or --bytes and the run no -d, so its I/O would never end; give -d<seconds> or bound every target",
                t.path.display()
            )));
        }
    }
    if bounded && ts.cooldown_s > 0 {
        return Err(invalid(format!(
            "-C{} keeps the load on after the measured window, and a run bounded by --ios/--bytes ends its load when the work is done; drop -C",
            ts.cooldown_s
        )));
    }
    for target in ts.targets.iter() {
        validate_split(ts, target)?;
    }
    if let Some(target) = ts
        .targets
        .iter()
        .find(|t| t.poisson && t.throughput.is_none())
    {
        return Err(invalid(format!(
            "'{}': --rate-process=poisson spaces the I/Os of a rate, and none is set; add -g<rate>",
            target.path.display()
        )));
    }
    for target in ts.targets.iter().filter(|t| t.backwards) {
        let why = match target.access {
            Access::Random { .. } => "sequential I/O; use -s",
            _ if target.block_split.is_some() => {
                "one block size (sequential I/O of mixed sizes follows the last)"
            }
            _ => continue,
        };
        return Err(invalid(format!(
            "'{}': --backwards needs {why}",
            target.path.display()
        )));
    }
    for target in ts.targets.iter().filter(|t| t.zones.is_some()) {
        let why = match target.access {
            Access::Sequential {
                interlocked: true, ..
            } => "each thread's own offsets; drop -si (one shared sequence)",
            _ if target.distribution.is_some() || target.skew.is_some() => {
                "uniform offsets within each zone; drop -rd/--distribution"
            }
            _ => continue,
        };
        return Err(invalid(format!(
            "'{}': --zones needs {why}",
            target.path.display()
        )));
    }
    for target in ts.targets.iter().filter(|t| t.random_map) {
        let path = target.path.display();
        let why = match (target.access, &target.distribution, target.skew) {
            (Access::Sequential { .. }, _, _) => "random offsets; add -r",
            (Access::Random { ratio, .. }, _, _) if ratio < 100 => {
                "random offsets only, and -rs mixes in sequential runs; drop -rs"
            }
            (_, Some(_), _) | (_, _, Some(_)) => {
                "uniform random offsets, and a distribution (-rd, --distribution) repeats its hot blocks by design; use one"
            }
            _ => continue,
        };
        return Err(invalid(format!("'{path}': --random-map needs {why}")));
    }
    Ok(())
}

/// `--bssplit` draws each I/O's size: what tracks, shares or paces I/O by a fixed block cannot
/// follow it.
fn validate_split(ts: &TimeSpan, target: &Target) -> Result<(), ProfileError> {
    let Some(split) = &target.block_split else {
        return Ok(());
    };
    let path = target.path.display();
    let conflict = if split.largest() != target.block_size {
        Some(
            "sets the block size (the largest of its sizes), and the profile another; drop <BlockSize>",
        )
    } else if target.random_map {
        Some("varies the blocks, and --random-map visits fixed ones; drop one")
    } else if target.dedupe.is_some() {
        Some("varies the blocks, and --dedupe counts fixed units; drop one")
    } else if matches!(target.access, Access::Random { ratio, .. } if ratio < 100) {
        Some("and -rs (runs of sequential I/O) cannot be combined; use -r or -s")
    } else if matches!(
        target.access,
        Access::Sequential {
            interlocked: true,
            ..
        }
    ) && ts.threads_per_target(target) > 1
    {
        Some("and -si (threads sharing one sequential offset) cannot be combined; drop -si")
    } else if matches!(
        target.throughput,
        Some(crate::profile::Throughput::BytesPerMs(_) | crate::profile::Throughput::BytesPerS(_))
    ) {
        Some(
            "varies the bytes per I/O, and -g<bytes per ms> paces fixed blocks; pace I/Os with -g<n>i",
        )
    } else {
        None
    };
    match conflict {
        Some(why) => Err(invalid(format!("'{path}': --bssplit={split} {why}"))),
        None => Ok(()),
    }
}

/// `--compress` and `--dedupe` shape what is written: a run must write (or create the file with
/// `-c`), from its own buffers.
fn validate_data(ts: &TimeSpan, target: &Target) -> Result<(), ProfileError> {
    let flag = match (target.compress, target.dedupe) {
        (Some(c), _) => format!("--compress={c}"),
        (None, Some(d)) => format!("--dedupe={d}"),
        (None, None) => return Ok(()),
    };
    let name = flag.split('=').next().unwrap_or_default();
    let path = target.path.display();
    if !matches!(target.write_buffer, WriteBuffer::Pattern) || ts.random_write_data {
        return Err(invalid(format!(
            "'{path}': {name} makes the written data, and -Z/-Zr/--pattern choose other data; use one"
        )));
    }
    if target.write_ratio == 0 && target.create_size.is_none() {
        return Err(invalid(format!(
            "'{path}': {flag} shapes the data iospd writes, and this run neither writes nor creates the file; add -w<percent> or -c<size>"
        )));
    }
    if target.memory_mapped {
        return Err(invalid(format!(
            "'{path}': {name} fills I/O buffers, and -Sm writes through a mapping; drop one"
        )));
    }
    Ok(())
}

/// `--trim` and `--fsync`/`--fdatasync` go through the engines' own requests: not through a
/// mapping; a flush follows writes; a trim leaves zeros where `--dedupe` counts contents.
fn validate_trim_and_flush(target: &Target) -> Result<(), ProfileError> {
    let path = target.path.display();
    let trim = (target.trim_percent > 0).then(|| format!("--trim={}", target.trim_percent));
    let flush = target.flush_every.map(|f| f.to_string());
    for option in trim.iter().chain(&flush) {
        if target.memory_mapped {
            return Err(invalid(format!(
                "'{path}': {option} is a request to the kernel, and -Sm does its I/O through a mapping; drop one"
            )));
        }
    }
    if let Some(flush) = &flush
        && target.write_ratio == 0
    {
        return Err(invalid(format!(
            "'{path}': {flush} flushes after writes, and this run does not write; add -w<percent>"
        )));
    }
    if let Some(trim) = &trim
        && let Some(dedupe) = target.dedupe
    {
        return Err(invalid(format!(
            "'{path}': {trim} leaves zeros where --dedupe={dedupe} counts each unit's content; use one"
        )));
    }
    Ok(())
}

/// `--dedupe`'s units are whole in every write: the block, the alignment or stride, `-B` and `-T`
/// are multiples of the unit, and `--compress`'s chunks tile it.
fn validate_dedupe(target: &Target) -> Result<(), ProfileError> {
    let Some(dedupe) = target.dedupe else {
        return Ok(());
    };
    let path = target.path.display();
    let unit = dedupe.unit;
    let checks = [
        (target.block_size, "the block size -b"),
        (target.access.alignment(), "the alignment or stride -r/-s"),
        (target.base_offset, "the base offset -B"),
        (target.thread_stride, "the thread stride -T"),
    ];
    if let Some((value, what)) = checks.into_iter().find(|(v, _)| v % unit != 0) {
        return Err(invalid(format!(
            "'{path}': --dedupe={dedupe} plans whole units of {unit} bytes, and {what} ({value}) is not a multiple of it; use a multiple, or a smaller unit"
        )));
    }
    if let Some(compress) = target.compress
        && (compress.chunk > unit || unit % compress.chunk != 0)
    {
        return Err(invalid(format!(
            "'{path}': --compress={compress}'s chunk must divide --dedupe={dedupe}'s unit, so each unit compresses alike; use a chunk of at most {unit} bytes"
        )));
    }
    Ok(())
}

/// The rules of a `-O` pool (and of `<ThreadTargets>`, which only a pool may have).
fn validate_pool(ts: &TimeSpan, target: &Target, pool: bool) -> Result<(), ProfileError> {
    let path = target.path.display();
    if pool {
        let rule = if target.throughput.is_some() {
            Some("-g throughput control")
        } else if target.burst.is_some() {
            Some("-j think time")
        } else if matches!(target.access, Access::Sequential { parallel: true, .. }) {
            Some("-p parallel I/O")
        } else {
            None
        };
        if let Some(what) = rule {
            return Err(invalid(format!(
                "{what} cannot be used with -O outstanding requests per thread; drop one"
            )));
        }
        if target.weight == 0 {
            return Err(invalid(format!(
                "'{path}': a target of a -O thread pool needs a non-zero <Weight>"
            )));
        }
        let count = ts.thread_count.unwrap_or(0);
        if let Some(tt) = target.thread_targets.iter().find(|tt| tt.thread >= count) {
            return Err(invalid(format!(
                "'{path}': <ThreadTarget> names thread {}, but the pool has {count} threads (0..{})",
                tt.thread,
                count.saturating_sub(1)
            )));
        }
    } else if !target.thread_targets.is_empty() {
        return Err(invalid(format!(
            "'{path}': <ThreadTargets> need both <ThreadCount> and <RequestCount> in the timespan"
        )));
    }
    Ok(())
}

/// The rules of the access pattern: random against `-T`, sequential against `-rd`, `-p`, `-si`
/// and `-T` with the target's thread count.
fn validate_access(
    target: &Target,
    threads: u32,
    warnings: &mut Vec<String>,
) -> Result<(), ProfileError> {
    let path = target.path.display();
    if target.offset_increment > 0 {
        let clash = if threads < 2 {
            Some(
                "it gives each of several threads its own region, and this target has one thread; add -t2 or more, or drop --offset-increment",
            )
        } else if target.thread_stride > 0 {
            Some("-T staggers the threads' starts in one region; use one")
        } else if target.distribution.is_some() {
            Some("-rdpct/-rdabs divide the whole range; drop one")
        } else if matches!(
            target.access,
            Access::Sequential {
                interlocked: true,
                ..
            }
        ) {
            Some("-si makes the threads share one offset; use one")
        } else {
            None
        };
        if let Some(why) = clash {
            return Err(invalid(format!("'{path}': --offset-increment: {why}")));
        }
    }
    match target.access {
        Access::Random { .. } => {
            if target.thread_stride > 0 {
                return Err(invalid(format!(
                    "'{path}': -T conflicts with random I/O (-r); drop -T"
                )));
            }
        }
        Access::Sequential {
            interlocked,
            parallel,
            ..
        } => {
            if target.distribution.is_some() {
                return Err(invalid(format!(
                    "'{path}': random distributions (-rd) apply only to random I/O; add -r"
                )));
            }
            if target.skew.is_some() {
                return Err(invalid(format!(
                    "'{path}': --distribution skews random offsets and this target is sequential; add -r"
                )));
            }
            if parallel && target.requests == 1 {
                warnings.push(
                    "WARNING: -p does not have effect unless outstanding I/O count (-o) is > 1"
                        .into(),
                );
            }
            if interlocked {
                if target.thread_stride > 0 {
                    return Err(invalid(format!("'{path}': -si conflicts with -T; use one")));
                }
                if threads < 2 {
                    warnings.push("WARNING: single-threaded test, -si ignored".into());
                }
            } else {
                if threads > 1
                    && target.thread_stride == 0
                    && target.offset_increment == 0
                    && !parallel
                {
                    warnings.push(format!(
                        "WARNING: {threads} threads read '{path}' sequentially from the same start, so the target does not see a sequential pattern; consider -si or -T"
                    ));
                }
                if threads < 2 && target.thread_stride > 0 {
                    return Err(invalid(format!(
                        "-T staggers the start offsets of several threads, but '{path}' has one thread; add -t2 or more, or drop -T"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The rules of one target on its own: distribution, write source, caching and mapping, range,
/// path, block size, depth.
fn validate_target(profile: &Profile, target: &Target) -> Result<(), ProfileError> {
    let path = target.path.display();
    if let Some(distribution) = &target.distribution {
        if target.skew.is_some() {
            return Err(invalid(format!(
                "'{path}': --distribution and a -rd distribution both choose where random I/O goes; use one"
            )));
        }
        validate_distribution(target, distribution)?;
    }
    if let WriteBuffer::Source { size, .. } = target.write_buffer
        && size < target.block_size
    {
        return Err(invalid(format!(
            "-Z: the write source buffer ({size} bytes) is smaller than the block size ({}); make it at least -Z{}",
            target.block_size, target.block_size
        )));
    }
    if target.memory_mapped && target.cache == super::CacheMode::DisableOsCache {
        return Err(invalid(
            "unbuffered I/O (-Su or -Sh) cannot be used with memory-mapped I/O (-Sm); drop one",
        ));
    }
    if target.memory_mapped && target.o_sync {
        return Err(invalid(
            "--o-sync opens the target O_SYNC, which memory-mapped I/O (-Sm) does not write through; use -Sw (an msync after each write) or drop -Sm",
        ));
    }
    if target.memory_mapped && target.nowait {
        return Err(invalid(
            "--nowait makes a read or write that would block fail with EAGAIN, which memory-mapped I/O (-Sm) has no call for (its copies fault pages in); drop one",
        ));
    }
    if target.nowait
        && !matches!(
            profile.engine,
            crate::engine::EngineKind::IoUring | crate::engine::EngineKind::Psync
        )
    {
        return Err(invalid(format!(
            "--nowait needs reads and writes the kernel can refuse to wait for: the io_uring or psync engine, not {}; drop --nowait or choose one of them",
            profile.engine
        )));
    }
    if let Some(split) = &target.ioprio_split {
        validate_ioprio_split(split, target, profile)?;
    }
    if !target.memory_mapped && target.flush.is_some() {
        return Err(invalid(
            "a memory-mapped flush mode (-N) needs memory-mapped I/O (-Sm); add -Sm or drop -N",
        ));
    }
    if let Some(max) = target.max_size
        && max <= target.base_offset
    {
        return Err(invalid(format!(
            "-f{max} ends the range at or before the base offset -B{}; make -f larger than -B",
            target.base_offset
        )));
    }
    if target.path.as_os_str().is_empty() && matches!(profile.action, Action::Run | Action::DryRun)
    {
        return Err(invalid(
            "a target's path is empty; give the file or device path in <Path>",
        ));
    }
    if target.is_template() && matches!(profile.action, Action::Run | Action::DryRun) {
        return Err(invalid(format!(
            "template target '{path}' was not substituted; name a target for it after the options"
        )));
    }
    if target.block_size == 0 || target.block_size >= 1 << 32 {
        return Err(invalid(format!(
            "'{path}': the block size must be 1 byte to 4GiB"
        )));
    }
    if target.requests == 0 || target.threads_per_target == 0 {
        return Err(invalid(format!(
            "'{path}': outstanding I/Os and threads must be at least 1"
        )));
    }
    Ok(())
}

/// DiskSpd's distribution rules: I/O percentages add up to at most 100, percent spans cover the
/// target exactly, absolute spans hold at least one block, and only the last may be open-ended.
fn validate_distribution(target: &Target, distribution: &Distribution) -> Result<(), ProfileError> {
    let mut io = 0u32;
    let mut span = 0u64;
    let last = distribution.ranges.len().saturating_sub(1);
    for (i, range) in distribution.ranges.iter().enumerate() {
        if io + range.io_percent > 100 {
            return Err(invalid(format!(
                "invalid random distribution IO% {}: can be at most {} - the total must be <= 100%",
                range.io_percent,
                100 - io
            )));
        }
        match distribution.kind {
            DistributionKind::Percent => {
                if span + range.span > 100 {
                    return Err(invalid(format!(
                        "invalid random distribution Target% {}: can be at most {} - the total must be <= 100%",
                        range.span,
                        100 - span
                    )));
                }
                if span + range.span == 100 && io + range.io_percent < 100 {
                    return Err(invalid(format!(
                        "invalid random distribution: the target is covered with {}% IO left to distribute",
                        100 - io - range.io_percent
                    )));
                }
            }
            DistributionKind::Absolute => {
                if range.span == 0 && i != last {
                    return Err(invalid(
                        "invalid random distribution: only the last range may run to the end (length 0)",
                    ));
                }
                if range.span != 0 && range.span < target.block_size {
                    return Err(invalid(format!(
                        "invalid random distribution target range {} - must be a minimum of the block size ({} bytes)",
                        range.span, target.block_size
                    )));
                }
            }
        }
        io += range.io_percent;
        span += range.span;
    }
    if distribution.kind == DistributionKind::Percent && span != 100 {
        // DiskSpd's words, then the fix: the I/O is all placed, so the rest of the target must be
        // named as a range without I/O.
        return Err(invalid(format!(
            "invalid random distribution span: Target% ({span}%) must total 100%{}",
            if let Some(rest) = 100u64.checked_sub(span).filter(|&r| r > 0) {
                format!(
                    "; to send no I/O to the remaining {rest}% of the target, end the distribution with :0/{rest}"
                )
            } else {
                String::new()
            }
        )));
    }
    Ok(())
}

/// `--ioprio-split` gives each I/O a priority of its own, which only io_uring takes per I/O; each
/// rule's size must be one the direction uses.
fn validate_ioprio_split(
    split: &super::ioprio_split::IoprioSplit,
    target: &Target,
    profile: &Profile,
) -> Result<(), ProfileError> {
    if profile.replay.is_some() {
        return Err(invalid(
            "--ioprio-split draws each generated I/O's priority; a replay issues the trace's I/O at the target's priority (-I/--ioprio); drop one",
        ));
    }
    if target.memory_mapped || profile.engine != crate::engine::EngineKind::IoUring {
        return Err(invalid(format!(
            "--ioprio-split gives each read and write a priority of its own, which only io_uring takes per I/O (not {}); drop it or use the io_uring engine",
            if target.memory_mapped {
                "memory-mapped I/O".to_string()
            } else {
                profile.engine.to_string()
            }
        )));
    }
    for (op, name) in [
        (crate::engine::Op::Read, "reads"),
        (crate::engine::Op::Write, "writes"),
    ] {
        let sizes: Vec<u64> = match &target.block_split {
            Some(b) if op == crate::engine::Op::Read => b.read.iter().map(|s| s.size).collect(),
            Some(b) => b.write.iter().map(|s| s.size).collect(),
            None => vec![target.block_size],
        };
        if let Some(rule) = split
            .rules(op)
            .iter()
            .find(|r| r.size.is_some_and(|s| !sizes.contains(&s)))
        {
            let shown: Vec<String> = sizes.iter().map(|&s| s.to_string()).collect();
            return Err(invalid(format!(
                "--ioprio-split has a rule for {}-byte {name}, a size the target's {name} never have (theirs: {}); give one of them, or no size",
                rule.size.unwrap_or_default(),
                shown.join(", ")
            )));
        }
    }
    Ok(())
}
