//! DiskSpd's letters: `-<letter><value>`, one entry each, in the order of DiskSpd's usage.

use super::{
    Flag, Group, apply_affinity, apply_buffer_separation, apply_cache, apply_counters,
    apply_distribution, apply_event, apply_io_ring, apply_result_format, flag_once, no_value, once,
    positive_size, seconds_or_zero, unit,
};
use std::path::PathBuf;

use crate::profile::raw::{SequentialArg, WriteBufferArg};
use crate::profile::{FlushMode, IoPriority, MAX_OUTSTANDING, MAX_THREADS, Throughput};
use crate::units::{Size, parse_in_range, parse_size};

/// Every DiskSpd option.
pub const FLAGS: &[Flag] = &[
    Flag {
        letter: '?',
        group: Group::General,
        forms: &[],
        usage: &[("-?", "display usage information")],
        apply: |v, raw| {
            no_value(v)?;
            raw.help = true;
            Ok(())
        },
    },
    Flag {
        letter: ':',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-:<flags>",
            "DiskSpd experiment flags, echoed in the report (iospd's pacing is always precise)",
        )],
        apply: |v, raw| {
            let flags = match v.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16)
                    .map_err(|_| format!("'{v}' is not a hexadecimal number; for example -:0x1")),
                None => parse_in_range(v, 0, u32::MAX as u64)
                    .map(|f| f as u32)
                    .map_err(|e| unit(e, "-:1")),
            }?;
            once(&mut raw.experiment_flags, flags)
        },
    },
    Flag {
        letter: 'a',
        group: Group::General,
        forms: &[],
        usage: &[
            (
                "-a / -ag",
                "pin threads round-robin to the CPUs this process may use (DiskSpd's default; iospd's default is no pinning)",
            ),
            (
                "-a#[,#…]",
                "pin threads round-robin to the listed CPUs; ranges allowed: -a0,2-5 (-ag0,… accepted)",
            ),
            (
                "-ac",
                "core-aware order: the first CPU of every core before any SMT sibling",
            ),
            (
                "-as",
                "span processor groups (Linux has one group; accepted)",
            ),
            (
                "-ap / -aP",
                "hybrid CPUs: P-cores first in each pass [default] / all P-cores before E-cores",
            ),
            (
                "-ae / -aE",
                "hybrid CPUs: E-cores first in each pass / all E-cores before P-cores",
            ),
            ("-aup", "no P/E ordering; letters combine: -acsE"),
        ],
        apply: apply_affinity,
    },
    Flag {
        letter: 'b',
        group: Group::General,
        forms: &["s"],
        usage: &[
            ("-b<size>", "block size in bytes or K/M/G [default=64K]"),
            (
                "-bs<n|p>",
                "buffer separation: n system default, p per-thread [default; every iospd thread has its own buffers]",
            ),
        ],
        apply: |v, raw| {
            if let Some(policy) = v.strip_prefix('s') {
                return apply_buffer_separation(policy, raw);
            }
            let bytes = match parse_size(v).map_err(|e| unit(e, "-b4K"))? {
                Size::Bytes(b) => b,
                Size::Blocks(_) => {
                    return Err("the block size cannot be given in blocks; for example -b4K".into());
                }
            };
            if bytes == 0 || bytes >= 1 << 32 {
                return Err(
                    "the block size must be at least 1 byte and below 4GiB; for example -b4K"
                        .into(),
                );
            }
            once(&mut raw.block_size, bytes)
        },
    },
    Flag {
        letter: 'B',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-B<base>[:length]",
            "use only the target range starting at <base> (and <length> bytes long) [default=0]",
        )],
        apply: |v, raw| {
            let (base, length) = match v.split_once(':') {
                Some((base, length)) => (base, Some(length)),
                None => (v, None),
            };
            once(
                &mut raw.base_offset,
                parse_size(base).map_err(|e| unit(e, "-B1G"))?,
            )?;
            if let Some(length) = length {
                raw.base_length = Some(positive_size(length, "-B1G:10G", "the length after ':'")?);
            }
            Ok(())
        },
    },
    Flag {
        letter: 'c',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-c<size>",
            "create file targets of this size, filled with real data (pattern, -Z zeros, -Zr random)",
        )],
        apply: |v, raw| {
            once(
                &mut raw.create_size,
                positive_size(v, "-c1G", "the file size")?,
            )
        },
    },
    Flag {
        letter: 'C',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-C<seconds>",
            "cool-down: load continues after the measured window, not counted [default=0]",
        )],
        apply: |v, raw| once(&mut raw.cooldown, seconds_or_zero(v, "-C5")?),
    },
    Flag {
        letter: 'd',
        group: Group::General,
        forms: &[],
        usage: &[("-d<seconds>", "measured duration [default=10]")],
        apply: |v, raw| {
            let seconds = parse_in_range(v, 1, u32::MAX as u64).map_err(|e| unit(e, "-d60"))?;
            once(&mut raw.duration, seconds as u32)
        },
    },
    Flag {
        letter: 'D',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-D[ms]",
            "count IOPS per interval per thread per target (IopsStdDev, time series) [default interval=1000]",
        )],
        apply: |v, raw| {
            let ms = if v.is_empty() {
                1000
            } else {
                parse_in_range(v, 1, u32::MAX as u64).map_err(|e| unit(e, "-D500"))? as u32
            };
            once(&mut raw.iops_interval_ms, ms)
        },
    },
    Flag {
        letter: 'e',
        group: Group::Counters,
        forms: &[],
        usage: &[
            (
                "-eDISK_IO",
                "reads and writes completed by every disk (/proc/diskstats)",
            ),
            (
                "-eMEMORY_PAGE_FAULTS",
                "page faults, minor and major (/proc/vmstat)",
            ),
            ("-eMEMORY_HARD_FAULTS", "major page faults (/proc/vmstat)"),
            (
                "-eNETWORK",
                "TCP segments and UDP datagrams sent and received (/proc/net/snmp)",
            ),
            (
                "-ePROCESS / -eTHREAD",
                "tasks created (/proc/stat processes)",
            ),
            (
                "-eIMAGE_LOAD / -eREGISTRY",
                "accepted; Linux has no such counter and reports it as unavailable",
            ),
            (
                "-eq / -es / -ec / -ep",
                "ETW clock and buffer choices; accepted and recorded",
            ),
        ],
        apply: apply_counters,
    },
    Flag {
        letter: 'f',
        group: Group::General,
        forms: &[],
        usage: &[
            (
                "-f<size>",
                "use only the first <size> bytes of the target (maximum offset, exclusive; -f0: no limit)",
            ),
            (
                "-f<r|s|t>",
                "access hints: r POSIX_FADV_RANDOM, s POSIX_FADV_SEQUENTIAL, t temporary (no Linux equivalent; recorded)",
            ),
        ],
        apply: |v, raw| {
            if v.starts_with(|c: char| c.is_ascii_digit()) {
                return once(
                    &mut raw.max_size,
                    parse_size(v).map_err(|e| unit(e, "-f10G"))?,
                );
            }
            if v.is_empty() || !v.chars().all(|c| matches!(c, 'r' | 's' | 't')) {
                return Err("expects a size (-f10G) or hint letters r, s, t (-frs)".into());
            }
            // DiskSpd takes the hints one by one (-fr -fs) or together (-frs); a hint given
            // twice is an option given twice.
            let hints = raw.hints.get_or_insert_default();
            for (letter, hint) in [
                ('r', &mut hints.random_access),
                ('s', &mut hints.sequential_scan),
                ('t', &mut hints.temporary),
            ] {
                if v.matches(letter).count() > usize::from(!*hint) {
                    return Err(format!(
                        "the hint '{letter}' was already given; give each hint once"
                    ));
                }
                *hint |= v.contains(letter);
            }
            Ok(())
        },
    },
    Flag {
        letter: 'F',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-F<count>",
            "total threads; every thread serves every target (conflicts with -t)",
        )],
        apply: |v, raw| {
            let count = parse_in_range(v, 1, MAX_THREADS).map_err(|e| unit(e, "-F4"))?;
            once(&mut raw.total_threads, count as u32)
        },
    },
    Flag {
        letter: 'g',
        group: Group::General,
        forms: &[],
        usage: &[
            (
                "-g<bytes per ms>",
                "throttle each thread on each target to this rate",
            ),
            ("-g<n>i", "throttle each thread on each target to n IOPS"),
            (
                "-g<size>/s",
                "throttle each thread on each target to this many bytes per second (K, M, G, T)",
            ),
        ],
        apply: |v, raw| {
            if let Some(size) = v.strip_suffix("/s") {
                let bytes = match crate::units::parse_size(size) {
                    Ok(crate::units::Size::Bytes(b)) if b > 0 => b,
                    _ => {
                        return Err(format!(
                            "'{size}' is not a size in bytes (K, M, G, T); for example -g100M/s"
                        ));
                    }
                };
                return once(&mut raw.throughput, Throughput::BytesPerS(bytes));
            }
            let (digits, iops) = match v.strip_suffix('i') {
                Some(digits) => (digits, true),
                None => (v, false),
            };
            let rate = parse_in_range(digits, 1, u64::MAX).map_err(|e| unit(e, "-g1000i"))?;
            once(
                &mut raw.throughput,
                if iops {
                    Throughput::Iops(rate)
                } else {
                    Throughput::BytesPerMs(rate)
                },
            )
        },
    },
    Flag {
        letter: 'h',
        group: Group::General,
        forms: &[],
        usage: &[("-h", "deprecated, same as -Sh")],
        apply: |v, raw| {
            no_value(v)?;
            apply_cache("h", raw)
        },
    },
    Flag {
        letter: 'i',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-i<count>",
            "I/Os per burst, split between the threads of a target; needs -j",
        )],
        apply: |v, raw| {
            once(
                &mut raw.burst_size,
                parse_in_range(v, 1, u32::MAX as u64).map_err(|e| unit(e, "-i100"))? as u32,
            )
        },
    },
    Flag {
        letter: 'j',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-j<ms>|-j<n>us",
            "think time between bursts in milliseconds, or microseconds with us; needs -i",
        )],
        apply: |v, raw| {
            let (number, scale) = match v.strip_suffix("us") {
                Some(us) => (us, 1),
                None => (v.strip_suffix("ms").unwrap_or(v), 1_000),
            };
            let n = parse_in_range(number, 1, u32::MAX as u64)
                .map_err(|e| unit(e, "-j10 (ms) or -j250us"))?;
            once(&mut raw.think_time, n * scale)
        },
    },
    Flag {
        letter: 'I',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-I<1|2|3>",
            "I/O priority: 1 idle class, 2 best-effort lowest, 3 normal [default]",
        )],
        apply: |v, raw| {
            let priority = match v {
                "1" => IoPriority::VeryLow,
                "2" => IoPriority::Low,
                "3" => IoPriority::Normal,
                _ => {
                    return Err(
                        "expects 1 (very low), 2 (low) or 3 (normal); for example -I2".into(),
                    );
                }
            };
            if let Some(IoPriority::Class { .. }) = raw.io_priority {
                return Err("-I and --ioprio both set the I/O priority; give one".into());
            }
            once(&mut raw.io_priority, priority)
        },
    },
    Flag {
        letter: 'l',
        group: Group::General,
        forms: &[],
        usage: &[("-l", "I/O buffers on huge pages (needs vm.nr_hugepages)")],
        apply: |v, raw| {
            no_value(v)?;
            flag_once(&mut raw.large_pages)
        },
    },
    Flag {
        letter: 'L',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-L",
            "measure latency: averages, deviations and percentile tables",
        )],
        apply: |v, raw| {
            no_value(v)?;
            flag_once(&mut raw.measure_latency)
        },
    },
    Flag {
        letter: 'n',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-n",
            "no CPU affinity (iospd's default; accepted for DiskSpd command lines)",
        )],
        apply: |v, raw| {
            no_value(v)?;
            flag_once(&mut raw.no_affinity)
        },
    },
    Flag {
        letter: 'N',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-N<v|n|i>",
            "memory-mapped writes: v msync the range, n flush cache lines and fence, i flush without fence",
        )],
        apply: |v, raw| {
            let mode = match v {
                "v" => FlushMode::ViewOfFile,
                "n" => FlushMode::NonVolatileMemory,
                "i" => FlushMode::NonVolatileMemoryNoDrain,
                _ => return Err("expects v, n or i; for example -Nv".into()),
            };
            once(&mut raw.flush, mode)
        },
    },
    Flag {
        letter: 'o',
        group: Group::General,
        forms: &["c"],
        usage: &[
            (
                "-o<count>",
                "outstanding I/Os per target per thread [default=2]",
            ),
            (
                "-oc<count>",
                "take at most this many completions per look at the completion queue (1-16) [default: all]",
            ),
        ],
        apply: |v, raw| {
            if let Some(depth) = v.strip_prefix('c') {
                let depth = parse_in_range(depth, 1, 16).map_err(|e| unit(e, "-oc8"))?;
                return once(&mut raw.completion_depth, depth as u32);
            }
            let depth = parse_in_range(v, 1, MAX_OUTSTANDING).map_err(|e| unit(e, "-o32"))?;
            once(&mut raw.outstanding, depth as u32)
        },
    },
    Flag {
        letter: 'O',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-O<count>",
            "outstanding I/Os per thread with -F; each goes to a target chosen by weight",
        )],
        apply: |v, raw| {
            let depth = parse_in_range(v, 1, MAX_OUTSTANDING).map_err(|e| unit(e, "-O32"))?;
            once(&mut raw.requests_per_thread, depth as u32)
        },
    },
    Flag {
        letter: 'p',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-p",
            "parallel sequential: every outstanding I/O of a thread walks its own copy of the sequence",
        )],
        apply: |v, raw| {
            no_value(v)?;
            flag_once(&mut raw.parallel)
        },
    },
    Flag {
        letter: 'P',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-P[count]",
            "print a progress dot every <count> completions per thread [default=65536]",
        )],
        apply: |v, raw| {
            let every = if v.is_empty() {
                65536
            } else {
                parse_in_range(v, 1, u64::MAX).map_err(|e| unit(e, "-P10000"))?
            };
            once(&mut raw.progress, every)
        },
    },
    Flag {
        letter: 'r',
        group: Group::General,
        forms: &["s", "d"],
        usage: &[
            (
                "-r[align]",
                "random I/O aligned to <align> [default alignment=block size]",
            ),
            (
                "-rs<percent>",
                "mixed: this percent of I/Os random, the rest sequential runs (alignment from -r)",
            ),
            (
                "-rdpct<IO%>/<target%>[:…]",
                "non-uniform random: e.g. -rdpct90/10:10/90 (90% of I/O on the first 10%)",
            ),
            (
                "-rdabs<IO%>/<size>[:…]",
                "the same with absolute ranges: -rdabs90/10G (the rest of the I/O goes to the rest)",
            ),
        ],
        apply: |v, raw| {
            if let Some(pct) = v.strip_prefix('s') {
                let pct = parse_in_range(pct, 1, 100).map_err(|e| unit(e, "-rs30"))?;
                return once(&mut raw.random_ratio, pct as u8);
            }
            if let Some(spec) = v.strip_prefix('d') {
                return apply_distribution(spec, raw);
            }
            let align = if v.is_empty() {
                None
            } else {
                Some(positive_size(v, "-r4K", "the alignment")?)
            };
            once(&mut raw.random, align)
        },
    },
    Flag {
        letter: 'R',
        group: Group::General,
        forms: &[],
        usage: &[
            (
                "-R<text|xml|json>",
                "result format on stdout [default=text]",
            ),
            (
                "-Rp[text|xml|json]",
                "print the resolved profile and stop (-Rpxml output is a valid -X profile)",
            ),
            (
                "-Rs[text|xml|json]",
                "print the system information and stop",
            ),
        ],
        apply: apply_result_format,
    },
    Flag {
        letter: 's',
        group: Group::General,
        forms: &[],
        usage: &[
            (
                "-s[stride]",
                "sequential I/O with this stride [default; stride=block size]",
            ),
            (
                "-si[stride]",
                "interlocked sequential: all threads of a target share one offset",
            ),
        ],
        apply: |v, raw| {
            let (interlocked, rest) = match v.strip_prefix('i') {
                Some(rest) => (true, rest),
                None => (false, v),
            };
            let stride = if rest.is_empty() {
                None
            } else {
                Some(parse_size(rest).map_err(|e| unit(e, "-s64K"))?)
            };
            once(
                &mut raw.sequential,
                SequentialArg {
                    interlocked,
                    stride,
                },
            )
        },
    },
    Flag {
        letter: 'S',
        group: Group::General,
        forms: &[],
        usage: &[
            ("-S / -Su", "bypass the OS page cache (O_DIRECT)"),
            ("-Sb", "use the OS page cache [default]"),
            ("-Sw", "write-through (O_DSYNC); combinable: -Suw, -Sbw"),
            ("-Sh", "same as -Suw: O_DIRECT | O_DSYNC"),
            ("-Sm", "memory-mapped I/O (mmap and memcpy); see -N"),
        ],
        apply: apply_cache,
    },
    Flag {
        letter: 't',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-t<count>",
            "threads per target [default=1] (conflicts with -F)",
        )],
        apply: |v, raw| {
            let count = parse_in_range(v, 1, MAX_THREADS).map_err(|e| unit(e, "-t4"))?;
            once(&mut raw.threads_per_target, count as u32)
        },
    },
    Flag {
        letter: 'T',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-T<offset>",
            "start offset stride between the threads of a target (thread k starts at k×offset)",
        )],
        apply: |v, raw| {
            once(
                &mut raw.thread_stride,
                positive_size(v, "-T1G", "the thread stride")?,
            )
        },
    },
    Flag {
        letter: 'u',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-u[n][batch][p]",
            "io_uring waits for <batch> completions (p: percent of outstanding) [default 25%]; n: no registered buffers",
        )],
        apply: apply_io_ring,
    },
    Flag {
        letter: 'v',
        group: Group::General,
        forms: &[],
        usage: &[
            ("-v", "verbose: timestamped progress lines on stdout"),
            (
                "-vs",
                "wait statistics: completion waits, polls and completions per look",
            ),
        ],
        apply: |v, raw| match v {
            "" => flag_once(&mut raw.verbose),
            "s" => flag_once(&mut raw.verbose_stats),
            _ => Err("expects -v or -vs".into()),
        },
    },
    Flag {
        letter: 'w',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-w<percent>",
            "percentage of writes [default=0]; WRITES DESTROY THE TARGET'S DATA",
        )],
        apply: |v, raw| {
            if v.is_empty() {
                return Err("needs a percentage of writes: -w0 for reads only, -w30, -w100".into());
            }
            let pct = parse_in_range(v, 0, 100).map_err(|e| unit(e, "-w30"))?;
            once(&mut raw.write_ratio, pct as u8)
        },
    },
    Flag {
        letter: 'W',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-W<seconds>",
            "warm-up: load runs before the measured window, not counted [default=5]",
        )],
        apply: |v, raw| once(&mut raw.warmup, seconds_or_zero(v, "-W5")?),
    },
    Flag {
        letter: 'x',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-x",
            "Windows completion routines; refused (io_uring already reaps completions in batches)",
        )],
        apply: |_, _| {
            Err("completion routines are a Windows mechanism; iospd always reaps io_uring completions in batches, so drop -x".into())
        },
    },
    Flag {
        letter: 'X',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-X<file>",
            "run an XML profile; combines only with -v -vs -z -R -W -d -C -: -bs and template targets",
        )],
        apply: |v, raw| {
            if v.is_empty() {
                return Err(
                    "expects the profile's path glued on; for example -Xprofile.xml".into(),
                );
            }
            once(&mut raw.xml_profile, PathBuf::from(v))
        },
    },
    Flag {
        letter: 'y',
        group: Group::Synchronization,
        forms: &[],
        usage: &[
            (
                "-ys<name>",
                "set event <name> when the measured window starts",
            ),
            (
                "-yf<name>",
                "set event <name> when the measured window ends",
            ),
            (
                "-yr<name>",
                "wait for event <name> before starting (warm-up included)",
            ),
            (
                "-yp<name>",
                "stop the run when event <name> is set (Ctrl-C also stops it)",
            ),
            ("-ye<name>", "set event <name> and exit"),
        ],
        apply: apply_event,
    },
    Flag {
        letter: 'z',
        group: Group::General,
        forms: &[],
        usage: &[(
            "-z[seed]",
            "random seed [default=0; bare -z picks one from the clock]; thread k uses seed+k",
        )],
        apply: |v, raw| {
            let seed = if v.is_empty() {
                crate::clock::coarse_seed()
            } else {
                parse_in_range(v, 0, u32::MAX as u64).map_err(|e| unit(e, "-z42"))? as u32
            };
            once(&mut raw.seed, seed)
        },
    },
    Flag {
        letter: 'Z',
        group: Group::WriteBuffers,
        forms: &[],
        usage: &[
            (
                "-Z",
                "zero-filled write buffers [default: repeating 0..255 pattern]",
            ),
            ("-Zr", "fresh random content for every write (costs CPU)"),
            (
                "-Z<size>[,file]",
                "writes copy random windows of a <size> buffer of random data (or of <file>)",
            ),
        ],
        apply: |v, raw| {
            let arg = match v {
                "" => WriteBufferArg::Zero,
                "r" => WriteBufferArg::RandomEachWrite,
                _ => {
                    // DiskSpd reads `-Z1M,` (nothing after the comma) as no file.
                    let (size, file) = match v.split_once(',') {
                        Some((size, file)) => (
                            size,
                            Some(PathBuf::from(file)).filter(|f| !f.as_os_str().is_empty()),
                        ),
                        None => (v, None),
                    };
                    WriteBufferArg::Source {
                        size: positive_size(size, "-Z1M", "the write source size")?,
                        file,
                    }
                }
            };
            once(&mut raw.write_buffers, arg)
        },
    },
];
