//! Readers for the option values that have a small grammar of their own: affinity lists and
//! orderings, cache letters, distributions, counters, named events, io_uring batches, formats.

use super::{MAX_CPU, flag_once, once, unit};
use crate::profile::raw::{DistributionArg, RawArgs};
use crate::profile::spec::trim_percent;
use crate::profile::{
    Batch, BufferSeparation, CacheMode, Compress, Dedupe, DistributionKind, Efficiency, EtwTimer,
    FlushEvery, IoRing, ResultFormat, Skew,
};
use crate::units::{Size, parse_in_range, parse_size};
use std::net::ToSocketAddrs;

/// `-a`, `-ag`, `-a0,1,4-7`, `-ag0,0,1`, and the 2.3 ordering letters `-ac -as -ap -aP -ae -aE -aup`.
pub fn apply_affinity(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    raw.affinity_given = true;
    let list = match value.strip_prefix('g') {
        Some("") => return Ok(()),
        Some(groups) => strip_group_zero(groups)?,
        None => value,
    };
    if list.is_empty() {
        return Ok(());
    }
    if list.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return apply_affinity_order(list, raw);
    }
    for item in list.split(',') {
        let (first, last) = item.split_once('-').unwrap_or((item, item));
        let first = parse_in_range(first, 0, MAX_CPU).map_err(|e| unit(e, "-a0,1,4-7"))?;
        let last = parse_in_range(last, 0, MAX_CPU).map_err(|e| unit(e, "-a0,1,4-7"))?;
        if last < first {
            return Err(format!(
                "the range {item} runs backwards; write it low-high, e.g. {last}-{first}"
            ));
        }
        raw.affinity.extend((first..=last).map(|cpu| cpu as u32));
    }
    Ok(())
}

fn apply_affinity_order(letters: &str, raw: &mut RawArgs) -> Result<(), String> {
    let mut rest = letters;
    while let Some(c) = rest.chars().next() {
        rest = &rest[1..];
        let efficiency = match c {
            'c' => {
                flag_once(&mut raw.core_aware)?;
                continue;
            }
            's' => {
                flag_once(&mut raw.span_groups)?;
                continue;
            }
            'p' => Efficiency::PFirst,
            'P' => Efficiency::FillPFirst,
            'e' => Efficiency::EFirst,
            'E' => Efficiency::FillEFirst,
            'u' if rest.starts_with('p') => {
                rest = &rest[1..];
                Efficiency::Unordered
            }
            other => {
                return Err(format!(
                    "'{other}' is not an affinity letter; use c, s, p, P, e, E or up (e.g. -acsE), or a CPU list"
                ));
            }
        };
        if raw.efficiency.is_some() {
            return Err("give one of -ap, -aP, -ae, -aE, -aup".into());
        }
        raw.efficiency = Some(efficiency);
    }
    Ok(())
}

/// `-ag0,1,2` names processor group 0; Linux has one CPU numbering, so only group 0 is meaningful.
fn strip_group_zero(groups: &str) -> Result<&str, String> {
    match groups.split_once(',') {
        Some(("0", rest)) if !rest.contains('g') => Ok(rest),
        None if groups == "0" => {
            Err("-ag0 names group 0 but no CPU; list CPUs after it (-ag0,0,1) or use -a0,1".into())
        }
        _ => Err(
            "Linux has no processor groups: number CPUs globally with -a (e.g. -a0,1,64-71)".into(),
        ),
    }
}

/// `-bsn`, `-bsp`.
pub fn apply_buffer_separation(policy: &str, raw: &mut RawArgs) -> Result<(), String> {
    let policy = match policy {
        "n" => BufferSeparation::SystemDefault,
        "p" => BufferSeparation::ThreadOptimized,
        _ => return Err("expects -bsn (system default) or -bsp (per thread)".into()),
    };
    once(&mut raw.buffer_separation, policy)
}

fn set_cache(raw: &mut RawArgs, mode: CacheMode) -> Result<(), String> {
    if raw.cache_mode.is_some() {
        return Err(
            "conflicts with an earlier cache setting (-S, -Sb, -Su, -Sh, -h); give one".into(),
        );
    }
    raw.cache_mode = Some(mode);
    Ok(())
}

fn set_write_through(raw: &mut RawArgs) -> Result<(), String> {
    if raw.write_through.is_some() {
        return Err(
            "conflicts with an earlier write-through setting (-Sw, -Sh, -h); give one".into(),
        );
    }
    raw.write_through = Some(true);
    Ok(())
}

/// `-S`, `-Sb`, `-Su`, `-Sw`, `-Sh`, `-Sm` and combinations (`-Suw`); `h` is also `-h`.
pub fn apply_cache(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    if value.is_empty() {
        return set_cache(raw, CacheMode::DisableOsCache);
    }
    for c in value.chars() {
        match c {
            'b' => set_cache(raw, CacheMode::Cached)?,
            'u' => set_cache(raw, CacheMode::DisableOsCache)?,
            'w' => set_write_through(raw)?,
            'h' => {
                set_cache(raw, CacheMode::DisableOsCache)?;
                set_write_through(raw)?;
            }
            'm' => flag_once(&mut raw.memory_mapped)?,
            'r' => {
                return Err("-Sr disables the Windows SMB client cache and has no Linux equivalent; \
                            for network file systems mount with the cache options you need, or use -Su"
                    .into());
            }
            'y' | 'Y' => {
                return Err(
                    "-Sy/-SY request Windows BypassIO, which Linux does not have; the closest is \
                            -Su (O_DIRECT) on a raw block device"
                        .into(),
                );
            }
            other => {
                return Err(format!(
                    "'{other}' is not a cache flag; use b, u, w, h or m (e.g. -Sh)"
                ));
            }
        }
    }
    Ok(())
}

/// `pct90/10:0/10` or `abs90/10G:10/0` (after `-rd`).
pub fn apply_distribution(spec: &str, raw: &mut RawArgs) -> Result<(), String> {
    let (kind, ranges) = if let Some(ranges) = spec.strip_prefix("pct") {
        (DistributionKind::Percent, ranges)
    } else if let Some(ranges) = spec.strip_prefix("abs") {
        (DistributionKind::Absolute, ranges)
    } else {
        return Err("expects -rdpct<IO%>/<target%>[:…] or -rdabs<IO%>/<size>[:…]".into());
    };
    let example = match kind {
        DistributionKind::Percent => "-rdpct90/10:10/90",
        DistributionKind::Absolute => "-rdabs90/10G",
    };
    if ranges.is_empty() {
        return Err(format!("no ranges given; for example {example}"));
    }
    let mut parsed = Vec::new();
    for range in ranges.split(':') {
        let Some((io, span)) = range.split_once('/') else {
            return Err(format!(
                "'{range}' is not <IO%>/<span>; for example {example}"
            ));
        };
        let io = parse_in_range(io, 0, 100).map_err(|e| unit(e, example))? as u32;
        // DiskSpd: an I/O share of 0 is a hole, a target share of 0 is an error; the range
        // left over after the last one is added by the profile (see `Distribution::complete`).
        let span = match kind {
            DistributionKind::Percent => {
                Size::Bytes(parse_in_range(span, 1, 100).map_err(|e| unit(e, example))?)
            }
            DistributionKind::Absolute => {
                let size = parse_size(span).map_err(|e| unit(e, example))?;
                if matches!(size, Size::Bytes(0) | Size::Blocks(0)) {
                    return Err(format!(
                        "'{range}' has a zero-length target range; the range after the last one \
                         runs to the end by itself, for example {example}"
                    ));
                }
                size
            }
        };
        parsed.push((io, span));
    }
    once(
        &mut raw.distribution,
        DistributionArg {
            kind,
            ranges: parsed,
        },
    )
}

/// `--distribution=zipf:<θ>|pareto:<h>|normal:<σ%>`, or `zoned:<IO%>/<target%>:…` and
/// `zoned_abs:<IO%>/<size>:…`, fio's names for DiskSpd's `-rdpct` and `-rdabs`.
pub fn apply_skew(spec: Option<&str>, raw: &mut RawArgs) -> Result<(), String> {
    const EXAMPLE: &str =
        "for example --distribution=zipf:1.2, pareto:0.2, normal:10 or zoned:90/10";
    let spec = spec
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("expects a distribution; {EXAMPLE}"))?;
    let (kind, value) = spec.split_once(':').unwrap_or((spec, ""));
    if raw.skew.is_some() || raw.distribution.is_some() {
        return Err("a distribution was already given (by --distribution or -rd); give one".into());
    }
    let skew = match kind {
        "zoned" => return apply_distribution(&format!("pct{value}"), raw),
        "zoned_abs" => return apply_distribution(&format!("abs{value}"), raw),
        "zipf" | "pareto" | "normal" => spec.parse::<Skew>()?,
        other => return Err(format!("'{other}' is not a distribution; {EXAMPLE}")),
    };
    raw.skew = Some(skew);
    Ok(())
}

/// `--compress=<ratio>[:<chunk>]` (the grammar: [`Compress`]'s `FromStr`).
pub fn apply_compress(spec: Option<&str>, raw: &mut RawArgs) -> Result<(), String> {
    once(
        &mut raw.compress,
        spec.unwrap_or_default().parse::<Compress>()?,
    )
}

/// `--dedupe=<ratio>[:<unit>[:<sets>]][:flipflop]` (the grammar: [`Dedupe`]'s `FromStr`).
pub fn apply_dedupe(spec: Option<&str>, raw: &mut RawArgs) -> Result<(), String> {
    once(&mut raw.dedupe, spec.unwrap_or_default().parse::<Dedupe>()?)
}

/// `--trim=<percent>`: 1 to 100.
pub fn apply_trim(spec: Option<&str>, raw: &mut RawArgs) -> Result<(), String> {
    once(
        &mut raw.trim_percent,
        trim_percent(spec.unwrap_or_default())?,
    )
}

/// `--ios=<count>`: 1 or more.
pub fn apply_work_ios(spec: Option<&str>, raw: &mut RawArgs) -> Result<(), String> {
    let count = parse_in_range(spec.unwrap_or_default(), 1, u64::MAX)
        .map_err(|e| unit(e, "--ios=1000000"))?;
    once(&mut raw.work_ios, count)
}

/// `--bytes=<size>`: 1 byte or more; or `--bytes=<percent>%` of the target's range, 1 % or more
/// (above 100 %: more than one pass).
pub fn apply_work_bytes(spec: Option<&str>, raw: &mut RawArgs) -> Result<(), String> {
    let spec = spec.unwrap_or_default();
    if let Some(percent) = spec.strip_suffix('%') {
        let percent = parse_in_range(percent, 1, 1_000_000).map_err(|e| unit(e, "--bytes=100%"))?;
        if raw.work_bytes.is_some() {
            return Err("this option was already given; give each option once".into());
        }
        return once(&mut raw.work_percent, percent as u32);
    }
    if raw.work_percent.is_some() {
        return Err("this option was already given; give each option once".into());
    }
    let size = parse_size(spec).map_err(|e| unit(e, "--bytes=1G or --bytes=100%"))?;
    if matches!(size, Size::Bytes(0) | Size::Blocks(0)) {
        return Err("is 0 bytes; give 1 or more, for example --bytes=1G".into());
    }
    once(&mut raw.work_bytes, size)
}

/// `--fsync=<N>` / `--fdatasync=<N>`: N from 1; one of the two.
pub fn apply_flush(spec: Option<&str>, raw: &mut RawArgs, data_only: bool) -> Result<(), String> {
    let flush = FlushEvery::parse(spec.unwrap_or_default(), data_only)?;
    if raw.flush_every.is_some_and(|f| f.data_only != data_only) {
        return Err("--fsync and --fdatasync flush the same writes; give one".into());
    }
    once(&mut raw.flush_every, flush)
}

/// `-eDISK_IO` and the other ETW groups, and the clock/buffer letters.
pub fn apply_counters(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    let counters = &mut raw.counters;
    let slot = match value {
        "PROCESS" => &mut counters.process,
        "THREAD" => &mut counters.thread,
        "IMAGE_LOAD" => &mut counters.image_load,
        "DISK_IO" => &mut counters.disk_io,
        "MEMORY_PAGE_FAULTS" => &mut counters.memory_page_faults,
        "MEMORY_HARD_FAULTS" => &mut counters.memory_hard_faults,
        "NETWORK" => &mut counters.network,
        "REGISTRY" => &mut counters.registry,
        "p" => &mut counters.use_paged_memory,
        "q" | "s" | "c" => {
            let timer = match value {
                "q" => EtwTimer::PerfTimer,
                "s" => EtwTimer::SystemTimer,
                _ => EtwTimer::CyclesCounter,
            };
            return once(&mut counters.timer, timer);
        }
        _ => {
            return Err("expects one of DISK_IO, MEMORY_PAGE_FAULTS, MEMORY_HARD_FAULTS, NETWORK, PROCESS, \
                        THREAD, IMAGE_LOAD, REGISTRY, or q, s, c, p; for example -eDISK_IO"
                .into());
        }
    };
    flag_once(slot)
}

/// `-ys<name>`, `-yf`, `-yr`, `-yp`, `-ye`.
pub fn apply_event(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    let mut chars = value.chars();
    let kind = chars.next();
    let name = chars.as_str();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        || name.starts_with('.')
    {
        return Err("expects an event name of letters, digits, '.', '_' or '-' glued on; for example -ysStartRun".into());
    }
    let name = name.to_string();
    let events = &mut raw.events;
    match kind {
        Some('s') => once(&mut events.signal_start, name),
        Some('f') => once(&mut events.signal_finish, name),
        Some('r') => once(&mut events.wait_start, name),
        Some('p') => once(&mut events.stop_on, name),
        Some('e') => once(&mut raw.set_event, name),
        _ => Err("expects -ys, -yf, -yr, -yp or -ye followed by the event name".into()),
    }
}

/// `-u`, `-u8`, `-u50p`, `-un`, `-un16`.
pub fn apply_io_ring(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    let (registered_buffers, rest) = match value.strip_prefix('n') {
        Some(rest) => (false, rest),
        None => (true, value),
    };
    let batch = if rest.is_empty() {
        Batch::DEFAULT
    } else if let Some(pct) = rest.strip_suffix('p') {
        Batch::Percent(parse_in_range(pct, 1, 100).map_err(|e| unit(e, "-u50p"))? as u32)
    } else {
        Batch::Count(
            parse_in_range(rest, 1, super::MAX_OUTSTANDING).map_err(|e| unit(e, "-u8"))? as u32,
        )
    };
    once(
        &mut raw.io_ring,
        IoRing {
            batch,
            registered_buffers,
        },
    )
}

/// `-Rtext|xml|json`, `-Rp[format]`, `-Rs[format]`.
pub fn apply_result_format(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    let (print_profile, print_system, format) = if let Some(f) = value.strip_prefix('p') {
        (true, false, f)
    } else if let Some(f) = value.strip_prefix('s') {
        (false, true, f)
    } else {
        (false, false, value)
    };
    let format = match format {
        "" if print_profile || print_system => None,
        "text" => Some(ResultFormat::Text),
        "xml" => Some(ResultFormat::Xml),
        "json" => Some(ResultFormat::Json),
        _ => {
            return Err(
                "expects text, xml or json (e.g. -Rxml), optionally after p or s (-Rpxml)".into(),
            );
        }
    };
    if print_profile {
        flag_once(&mut raw.print_profile)?;
    }
    if print_system {
        flag_once(&mut raw.print_system)?;
    }
    match format {
        Some(format) => once(&mut raw.result_format, format),
        None => Ok(()),
    }
}

/// `--metrics=<addr:port>`, the address to serve live metrics on: `<port>` or `:<port>` is loopback (127.0.0.1), `<host>:<port>`
/// as given (`0.0.0.0:9464` to serve every interface).
pub fn apply_metrics(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    let value = value.trim();
    let with_host = match value.strip_prefix(':').unwrap_or(value) {
        port if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            format!("127.0.0.1:{port}")
        }
        _ => value.to_string(),
    };
    let refused = |why: &str| {
        format!(
            "'{value}' is not an address to serve metrics on ({why}); give a port (--metrics=9464, on loopback) or a host and port (--metrics=0.0.0.0:9464)"
        )
    };
    let found = with_host
        .to_socket_addrs()
        .map_err(|e| refused(&e.to_string()))?
        .next()
        .ok_or_else(|| refused("it names no address"))?;
    super::once(&mut raw.metrics, found)
}

/// `--cpu-set=0-3,8`: CPUs and ranges of them, each below the kernel's CPU set size; sorted, each
/// once.
pub fn parse_cpu_set(spec: &str) -> Result<Vec<u32>, String> {
    let bad =
        |why: String| format!("'{spec}': {why}; give CPUs and ranges, for example --cpu-set=0-3,8");
    let limit = libc::CPU_SETSIZE as u32;
    let cpu = |text: &str| match text.trim().parse::<u32>() {
        Ok(n) if n < limit => Ok(n),
        Ok(n) => Err(bad(format!(
            "CPU {n} is past the last a CPU set holds ({})",
            limit - 1
        ))),
        Err(_) => Err(bad(format!("'{text}' is not a CPU number"))),
    };
    let mut cpus = Vec::new();
    for part in spec.split(',') {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (cpu(a)?, cpu(b)?),
            None => (cpu(part)?, cpu(part)?),
        };
        if first > last {
            return Err(bad(format!("the range {part} runs backwards")));
        }
        cpus.extend(first..=last);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}
