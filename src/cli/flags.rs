//! The option table: one entry per DiskSpd letter and per Linux-only long option.
//!
//! Each entry carries its usage lines (the help text is generated from this table) and the function
//! that reads its value into [`RawArgs`]. Errors are the reason and the fix; the caller prefixes the
//! offending token.

use std::path::PathBuf;

use super::raw::{RawArgs, SequentialArg, WriteBufferArg};
use super::units::{Size, UnitError, parse_in_range, parse_size};
use crate::engine::EngineKind;
use crate::profile::{CacheMode, Throughput};

/// Reads the value after the letter into the raw arguments, or says what is wrong and how to fix it.
pub type Apply = fn(&str, &mut RawArgs) -> Result<(), String>;

/// A DiskSpd option: `-<letter><value>`.
pub struct Flag {
    /// The character after `-`.
    pub letter: char,
    /// Usage lines: the syntax and what it does.
    pub usage: &'static [(&'static str, &'static str)],
    /// Reads the value.
    pub apply: Apply,
}

/// A Linux-only option: `--<name>[=value]`.
pub struct LongFlag {
    /// The name after `--`.
    pub name: &'static str,
    /// The syntax and what it does.
    pub usage: (&'static str, &'static str),
    /// Reads the value (`None` when no `=` was typed).
    pub apply: fn(Option<&str>, &mut RawArgs) -> Result<(), String>,
}

/// The largest `-o` DiskSpd 2.3 accepts.
pub const MAX_OUTSTANDING: u64 = 65536;
/// The largest thread count accepted by `-t`/`-F`.
pub const MAX_THREADS: u64 = 4096;
/// The largest CPU number accepted by `-a`.
pub const MAX_CPU: u64 = 8191;

/// Every DiskSpd option this build implements.
pub const FLAGS: &[Flag] = &[
    Flag {
        letter: '?',
        usage: &[("-?", "display usage information")],
        apply: |v, raw| {
            no_value(v)?;
            raw.help = true;
            Ok(())
        },
    },
    Flag {
        letter: 'a',
        usage: &[
            (
                "-a / -ag",
                "pin threads round-robin to the CPUs this process may use (DiskSpd's default; iospd's default is no pinning)",
            ),
            (
                "-a#[,#…]",
                "pin threads round-robin to the listed CPUs; ranges allowed: -a0,2-5",
            ),
        ],
        apply: apply_affinity,
    },
    Flag {
        letter: 'b',
        usage: &[("-b<size>", "block size in bytes or K/M/G [default=64K]")],
        apply: |v, raw| {
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
                let length = parse_size(length).map_err(|e| unit(e, "-B1G:10G"))?;
                if length == Size::Bytes(0) || length == Size::Blocks(0) {
                    return Err(
                        "the length after ':' must be greater than 0; for example -B1G:10G".into(),
                    );
                }
                raw.base_length = Some(length);
            }
            Ok(())
        },
    },
    Flag {
        letter: 'c',
        usage: &[(
            "-c<size>",
            "create file targets of this size, filled with real data (pattern, -Z zeros, -Zr random)",
        )],
        apply: |v, raw| {
            let size = parse_size(v).map_err(|e| unit(e, "-c1G"))?;
            if size == Size::Bytes(0) || size == Size::Blocks(0) {
                return Err("the file size must be greater than 0; for example -c1G".into());
            }
            once(&mut raw.create_size, size)
        },
    },
    Flag {
        letter: 'C',
        usage: &[(
            "-C<seconds>",
            "cool-down: load continues after the measured window, not counted [default=0]",
        )],
        apply: |v, raw| once(&mut raw.cooldown, seconds_or_zero(v, "-C5")?),
    },
    Flag {
        letter: 'd',
        usage: &[("-d<seconds>", "measured duration [default=10]")],
        apply: |v, raw| {
            let seconds = parse_in_range(v, 1, u32::MAX as u64).map_err(|e| unit(e, "-d60"))?;
            once(&mut raw.duration, seconds as u32)
        },
    },
    Flag {
        letter: 'D',
        usage: &[(
            "-D[ms]",
            "count IOPS per interval per thread per target (IopsStdDev) [default interval=1000]",
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
        letter: 'f',
        usage: &[(
            "-f<size>",
            "use only the first <size> bytes of the target (maximum offset, exclusive)",
        )],
        apply: |v, raw| {
            if v.starts_with(|c: char| c.is_ascii_digit()) {
                return once(
                    &mut raw.max_size,
                    parse_size(v).map_err(|e| unit(e, "-f10G"))?,
                );
            }
            if !v.is_empty() && v.chars().all(|c| matches!(c, 'r' | 's' | 't')) {
                return Err(not_yet("the -f<r|s|t> access hints"));
            }
            Err("expects a size (-f10G); the access hints are r, s and t".into())
        },
    },
    Flag {
        letter: 'F',
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
        usage: &[
            (
                "-g<bytes per ms>",
                "throttle each thread on each target to this rate",
            ),
            ("-g<n>i", "throttle each thread on each target to n IOPS"),
        ],
        apply: |v, raw| {
            let (digits, iops) = match v.strip_suffix('i') {
                Some(digits) => (digits, true),
                None => (v, false),
            };
            let rate = parse_in_range(digits, 1, u64::MAX).map_err(|e| unit(e, "-g1000i"))?;
            let throughput = if iops {
                Throughput::Iops(rate)
            } else {
                Throughput::BytesPerMs(rate)
            };
            once(&mut raw.throughput, throughput)
        },
    },
    Flag {
        letter: 'h',
        usage: &[("-h", "deprecated, same as -Sh")],
        apply: |v, raw| {
            no_value(v)?;
            set_cache(raw, CacheMode::DisableOsCache)?;
            set_write_through(raw)
        },
    },
    Flag {
        letter: 'L',
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
        letter: 'o',
        usage: &[(
            "-o<count>",
            "outstanding I/Os per target per thread [default=2]",
        )],
        apply: |v, raw| {
            let depth = parse_in_range(v, 1, MAX_OUTSTANDING).map_err(|e| unit(e, "-o32"))?;
            once(&mut raw.outstanding, depth as u32)
        },
    },
    Flag {
        letter: 'P',
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
        usage: &[(
            "-r[align]",
            "random I/O aligned to <align> [default alignment=block size]",
        )],
        apply: |v, raw| {
            if v.starts_with("s") || v.starts_with("d") {
                return Err(not_yet(
                    "mixed and non-uniform random I/O (-rs, -rdpct, -rdabs)",
                ));
            }
            let align = if v.is_empty() {
                None
            } else {
                let size = parse_size(v).map_err(|e| unit(e, "-r4K"))?;
                if size == Size::Bytes(0) || size == Size::Blocks(0) {
                    return Err("the alignment must be greater than 0; for example -r4K".into());
                }
                Some(size)
            };
            once(&mut raw.random, align)
        },
    },
    Flag {
        letter: 'R',
        usage: &[
            ("-Rtext", "result format [default=text]"),
            (
                "-Rp",
                "print the resolved profile (input parameters) and stop",
            ),
        ],
        apply: |v, raw| match v {
            "text" => flag_once(&mut raw.result_format_given),
            "p" | "ptext" => flag_once(&mut raw.print_profile),
            "xml" | "json" | "pxml" => Err(not_yet("XML and JSON output")),
            "s" | "stext" | "sxml" => Err(not_yet("-Rs (system information only)")),
            _ => Err("the result format is text (-Rtext); -Rp prints the profile".into()),
        },
    },
    Flag {
        letter: 's',
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
        usage: &[
            ("-S / -Su", "bypass the OS page cache (O_DIRECT)"),
            ("-Sb", "use the OS page cache [default]"),
            ("-Sw", "write-through (O_DSYNC); combinable: -Suw, -Sbw"),
            ("-Sh", "same as -Suw: O_DIRECT | O_DSYNC"),
        ],
        apply: apply_cache,
    },
    Flag {
        letter: 't',
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
        usage: &[(
            "-T<offset>",
            "start offset stride between the threads of a target (thread k starts at k×offset)",
        )],
        apply: |v, raw| {
            let stride = parse_size(v).map_err(|e| unit(e, "-T1G"))?;
            if stride == Size::Bytes(0) || stride == Size::Blocks(0) {
                return Err("the thread stride must be greater than 0; for example -T1G".into());
            }
            once(&mut raw.thread_stride, stride)
        },
    },
    Flag {
        letter: 'v',
        usage: &[("-v", "verbose: timestamped progress lines on stdout")],
        apply: |v, raw| {
            if v == "s" {
                return Err(not_yet("-vs wait statistics"));
            }
            no_value(v)?;
            flag_once(&mut raw.verbose)
        },
    },
    Flag {
        letter: 'w',
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
        usage: &[(
            "-W<seconds>",
            "warm-up: load runs before the measured window, not counted [default=5]",
        )],
        apply: |v, raw| once(&mut raw.warmup, seconds_or_zero(v, "-W5")?),
    },
    Flag {
        letter: 'z',
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
                    let (size, file) = match v.split_once(',') {
                        Some((size, file)) if !file.is_empty() => (size, Some(PathBuf::from(file))),
                        Some(_) => {
                            return Err(
                                "the file name after ',' is missing; for example -Z1M,data.bin"
                                    .into(),
                            );
                        }
                        None => (v, None),
                    };
                    let size = parse_size(size).map_err(|e| unit(e, "-Z1M"))?;
                    if size == Size::Bytes(0) || size == Size::Blocks(0) {
                        return Err(
                            "the write source size must be greater than 0; for example -Z1M".into(),
                        );
                    }
                    WriteBufferArg::Source { size, file }
                }
            };
            once(&mut raw.write_buffers, arg)
        },
    },
];

/// DiskSpd letters this build recognises but does not implement, with what they are.
pub const NOT_YET: &[(char, &str)] = &[
    (':', "experiment flags"),
    ('e', "ETW event counters"),
    ('i', "bursts (-i/-j)"),
    ('j', "bursts (-i/-j)"),
    ('I', "I/O priority"),
    ('l', "large-page buffers"),
    ('N', "memory-mapped flush modes"),
    ('O', "per-thread outstanding I/O with -F"),
    ('p', "parallel sequential I/O"),
    ('u', "the IoRing batch option"),
    ('x', "completion routines"),
    ('X', "XML profiles"),
    ('y', "named events"),
];

/// The Linux-only options.
pub const LONG_FLAGS: &[LongFlag] = &[
    LongFlag {
        name: "engine",
        usage: (
            "--engine=<io_uring|psync|null>",
            "I/O engine [default=io_uring; psync when io_uring is unavailable; null does no I/O]",
        ),
        apply: |v, raw| {
            let engine = match v {
                Some("io_uring") | Some("uring") => EngineKind::IoUring,
                Some("psync") => EngineKind::Psync,
                Some("null") => EngineKind::Null,
                _ => {
                    return Err(
                        "expects one of io_uring, psync, null; for example --engine=psync".into(),
                    );
                }
            };
            once(&mut raw.engine, engine)
        },
    },
    LongFlag {
        name: "spin",
        usage: (
            "--spin=<µs>",
            "poll this long for a completion before sleeping [default: 50 with 2+ CPUs per thread, else 0]; 0 always sleeps",
        ),
        apply: |v, raw| {
            let us = v
                .ok_or_else(|| "expects microseconds; for example --spin=0".to_string())
                .and_then(|v| parse_in_range(v, 0, 1_000_000).map_err(|e| unit(e, "--spin=20")))?;
            once(&mut raw.spin_us, us as u32)
        },
    },
];

/// Finds the entry for a letter.
pub fn find(letter: char) -> Option<&'static Flag> {
    FLAGS.iter().find(|flag| flag.letter == letter)
}

/// Finds the entry for a long name.
pub fn find_long(name: &str) -> Option<&'static LongFlag> {
    LONG_FLAGS.iter().find(|flag| flag.name == name)
}

fn unit(error: UnitError, example: &str) -> String {
    format!("{error}; for example {example}")
}

fn not_yet(what: &str) -> String {
    format!("{what} are not implemented in this version of iospd")
}

fn once<T>(slot: &mut Option<T>, value: T) -> Result<(), String> {
    if slot.is_some() {
        return Err("this option was already given; give each option once".into());
    }
    *slot = Some(value);
    Ok(())
}

fn flag_once(slot: &mut bool) -> Result<(), String> {
    if *slot {
        return Err("this option was already given; give each option once".into());
    }
    *slot = true;
    Ok(())
}

fn no_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "this option takes no value, but '{value}' follows it"
        ))
    }
}

/// DiskSpd reads `-W` and `-C` with `atoi`, so a bare `-W` means 0 seconds.
fn seconds_or_zero(value: &str, example: &str) -> Result<u32, String> {
    if value.is_empty() {
        return Ok(0);
    }
    parse_in_range(value, 0, u32::MAX as u64)
        .map(|s| s as u32)
        .map_err(|e| unit(e, example))
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

fn apply_cache(value: &str, raw: &mut RawArgs) -> Result<(), String> {
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
            'r' => {
                return Err(
                    "-Sr disables the Windows SMB client cache and has no Linux equivalent; \
                     for network file systems mount with the cache options you need, or use -Su"
                        .into(),
                );
            }
            'm' => return Err(not_yet("memory-mapped I/O (-Sm)")),
            'y' | 'Y' => {
                return Err(
                    "-Sy/-SY request Windows BypassIO, which Linux does not have; the closest is \
                     -Su (O_DIRECT) on a raw block device"
                        .into(),
                );
            }
            other => {
                return Err(format!(
                    "'{other}' is not a cache flag; use b, u, w or h (e.g. -Sh)"
                ));
            }
        }
    }
    Ok(())
}

fn apply_affinity(value: &str, raw: &mut RawArgs) -> Result<(), String> {
    raw.affinity_given = true;
    let list = match value.strip_prefix('g') {
        Some("") => return Ok(()),
        Some(groups) => strip_group_zero(groups)?,
        None => value,
    };
    if list.is_empty() {
        return Ok(());
    }
    for item in list.split(',') {
        let (first, last) = match item.split_once('-') {
            Some((first, last)) => (first, last),
            None => (item, item),
        };
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

/// `-ag0,1,2` names processor group 0; Linux has one CPU numbering, so only group 0 is meaningful.
fn strip_group_zero(groups: &str) -> Result<&str, String> {
    match groups.split_once(',') {
        Some(("0", rest)) if !rest.contains('g') => Ok(rest),
        None if groups == "0" => Ok(""),
        _ => Err(
            "Linux has no processor groups: number CPUs globally with -a (e.g. -a0,1,64-71)".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(token: &str) -> Result<RawArgs, String> {
        let mut raw = RawArgs::default();
        apply_to(token, &mut raw)?;
        Ok(raw)
    }

    fn apply_to(token: &str, raw: &mut RawArgs) -> Result<(), String> {
        let mut chars = token[1..].chars();
        let letter = chars.next().unwrap();
        let flag = find(letter).expect("flag in table");
        (flag.apply)(chars.as_str(), raw)
    }

    #[test]
    fn every_flag_has_usage_and_a_unique_letter() {
        for (i, flag) in FLAGS.iter().enumerate() {
            assert!(!flag.usage.is_empty(), "-{} has no usage", flag.letter);
            assert!(
                FLAGS[i + 1..].iter().all(|f| f.letter != flag.letter),
                "-{} twice",
                flag.letter
            );
            assert!(
                NOT_YET.iter().all(|(l, _)| *l != flag.letter),
                "-{} both implemented and not",
                flag.letter
            );
        }
    }

    #[test]
    fn help() {
        assert!(apply("-?").unwrap().help);
        assert!(apply("-?x").is_err());
    }

    #[test]
    fn affinity() {
        assert!(apply("-a").unwrap().affinity_given);
        assert!(apply("-ag").unwrap().affinity.is_empty());
        assert_eq!(apply("-a0,1,2").unwrap().affinity, vec![0, 1, 2]);
        assert_eq!(apply("-a0,4-6").unwrap().affinity, vec![0, 4, 5, 6]);
        assert_eq!(apply("-ag0,0,1").unwrap().affinity, vec![0, 1]);
        assert!(apply("-ag1,0,1").unwrap_err().contains("processor groups"));
        assert!(apply("-a6-4").unwrap_err().contains("backwards"));
        assert!(apply("-a0,,1").is_err());
        assert!(apply("-a99999").is_err());
        let mut raw = RawArgs::default();
        apply_to("-a0", &mut raw).unwrap();
        apply_to("-a1", &mut raw).unwrap();
        assert_eq!(raw.affinity, vec![0, 1], "-a accumulates like DiskSpd");
    }

    #[test]
    fn block_size() {
        assert_eq!(apply("-b4K").unwrap().block_size, Some(4096));
        assert_eq!(apply("-b512").unwrap().block_size, Some(512));
        assert!(apply("-b0").is_err());
        assert!(apply("-b4G").unwrap_err().contains("below 4GiB"));
        assert!(apply("-b8b").unwrap_err().contains("blocks"));
        assert!(apply("-b").is_err());
    }

    #[test]
    fn base_offset() {
        let raw = apply("-B1G").unwrap();
        assert_eq!(raw.base_offset, Some(Size::Bytes(1 << 30)));
        assert_eq!(raw.base_length, None);
        let raw = apply("-B4K:8b").unwrap();
        assert_eq!(raw.base_length, Some(Size::Blocks(8)));
        assert!(apply("-B1G:0").is_err());
        assert!(apply("-Bx").is_err());
    }

    #[test]
    fn create() {
        assert_eq!(
            apply("-c5G").unwrap().create_size,
            Some(Size::Bytes(5 << 30))
        );
        assert!(apply("-c0").is_err());
        assert!(apply("-c").is_err());
    }

    #[test]
    fn cooldown_and_warmup() {
        assert_eq!(apply("-C3").unwrap().cooldown, Some(3));
        assert_eq!(apply("-C").unwrap().cooldown, Some(0));
        assert!(apply("-C-1").is_err());
        assert_eq!(apply("-W0").unwrap().warmup, Some(0));
        assert_eq!(
            apply("-W").unwrap().warmup,
            Some(0),
            "bare -W is -W0 as in DiskSpd"
        );
        assert!(apply("-W5s").is_err());
    }

    #[test]
    fn duration() {
        assert_eq!(apply("-d60").unwrap().duration, Some(60));
        assert!(apply("-d0").is_err());
        assert!(apply("-d").is_err());
        assert!(apply("-d99999999999").is_err());
    }

    #[test]
    fn iops_interval() {
        assert_eq!(apply("-D").unwrap().iops_interval_ms, Some(1000));
        assert_eq!(apply("-D250").unwrap().iops_interval_ms, Some(250));
        assert!(apply("-D0").is_err());
    }

    #[test]
    fn max_size_and_hints() {
        assert_eq!(
            apply("-f10G").unwrap().max_size,
            Some(Size::Bytes(10 << 30))
        );
        assert!(apply("-frs").unwrap_err().contains("not implemented"));
        assert!(apply("-fq").is_err());
        assert!(apply("-f").is_err());
    }

    #[test]
    fn total_threads_and_threads_per_target() {
        assert_eq!(apply("-F4").unwrap().total_threads, Some(4));
        assert!(apply("-F0").is_err());
        assert_eq!(apply("-t2").unwrap().threads_per_target, Some(2));
        assert!(apply("-t0").is_err());
        assert!(apply("-t100000").is_err());
    }

    #[test]
    fn throughput() {
        assert_eq!(
            apply("-g31457").unwrap().throughput,
            Some(Throughput::BytesPerMs(31457))
        );
        assert_eq!(
            apply("-g500i").unwrap().throughput,
            Some(Throughput::Iops(500))
        );
        assert!(apply("-g0").is_err());
        assert!(apply("-g").is_err());
        assert!(apply("-g4K").is_err());
    }

    #[test]
    fn deprecated_h_and_cache_flags() {
        let raw = apply("-h").unwrap();
        assert_eq!(raw.cache_mode, Some(CacheMode::DisableOsCache));
        assert_eq!(raw.write_through, Some(true));
        let raw = apply("-Sh").unwrap();
        assert_eq!(raw.cache_mode, Some(CacheMode::DisableOsCache));
        assert_eq!(raw.write_through, Some(true));
        assert_eq!(
            apply("-S").unwrap().cache_mode,
            Some(CacheMode::DisableOsCache)
        );
        assert_eq!(
            apply("-Su").unwrap().cache_mode,
            Some(CacheMode::DisableOsCache)
        );
        assert_eq!(apply("-Sb").unwrap().cache_mode, Some(CacheMode::Cached));
        let raw = apply("-Sw").unwrap();
        assert_eq!((raw.cache_mode, raw.write_through), (None, Some(true)));
        let raw = apply("-Sbw").unwrap();
        assert_eq!(raw.cache_mode, Some(CacheMode::Cached));
        assert!(apply("-Sbu").unwrap_err().contains("conflicts"));
        assert!(apply("-Sr").unwrap_err().contains("no Linux equivalent"));
        assert!(apply("-Sy").unwrap_err().contains("BypassIO"));
        assert!(apply("-Sq").is_err());
        let mut raw = RawArgs::default();
        apply_to("-Su", &mut raw).unwrap();
        apply_to("-Sw", &mut raw).unwrap();
        assert!(apply_to("-h", &mut raw).is_err());
    }

    #[test]
    fn latency_affinity_off_verbose() {
        assert!(apply("-L").unwrap().measure_latency);
        assert!(apply("-Lx").is_err());
        assert!(apply("-n").unwrap().no_affinity);
        assert!(apply("-v").unwrap().verbose);
        assert!(apply("-vs").unwrap_err().contains("not implemented"));
        let mut raw = RawArgs::default();
        apply_to("-L", &mut raw).unwrap();
        assert!(
            apply_to("-L", &mut raw)
                .unwrap_err()
                .contains("already given")
        );
    }

    #[test]
    fn outstanding() {
        assert_eq!(apply("-o32").unwrap().outstanding, Some(32));
        assert_eq!(apply("-o65536").unwrap().outstanding, Some(65536));
        assert!(apply("-o65537").is_err());
        assert!(apply("-o0").is_err());
        assert!(apply("-o32x").is_err());
        let mut raw = RawArgs::default();
        apply_to("-o4", &mut raw).unwrap();
        assert!(
            apply_to("-o8", &mut raw)
                .unwrap_err()
                .contains("already given")
        );
    }

    #[test]
    fn progress() {
        assert_eq!(apply("-P").unwrap().progress, Some(65536));
        assert_eq!(apply("-P100").unwrap().progress, Some(100));
        assert!(apply("-P0").is_err());
    }

    #[test]
    fn random() {
        assert_eq!(apply("-r").unwrap().random, Some(None));
        assert_eq!(apply("-r4K").unwrap().random, Some(Some(Size::Bytes(4096))));
        assert_eq!(apply("-r8b").unwrap().random, Some(Some(Size::Blocks(8))));
        assert!(apply("-r0").is_err());
        assert!(apply("-rs50").unwrap_err().contains("not implemented"));
        assert!(
            apply("-rdpct90/10")
                .unwrap_err()
                .contains("not implemented")
        );
    }

    #[test]
    fn result_format() {
        assert!(apply("-Rtext").unwrap().result_format_given);
        assert!(apply("-Rp").unwrap().print_profile);
        assert!(apply("-Rptext").unwrap().print_profile);
        assert!(apply("-Rxml").unwrap_err().contains("not implemented"));
        assert!(apply("-Rcsv").is_err());
    }

    #[test]
    fn sequential() {
        let seq = apply("-s").unwrap().sequential.unwrap();
        assert_eq!((seq.interlocked, seq.stride), (false, None));
        let seq = apply("-si64K").unwrap().sequential.unwrap();
        assert_eq!(
            (seq.interlocked, seq.stride),
            (true, Some(Size::Bytes(65536)))
        );
        let seq = apply("-si").unwrap().sequential.unwrap();
        assert_eq!((seq.interlocked, seq.stride), (true, None));
        assert_eq!(
            apply("-s0").unwrap().sequential.unwrap().stride,
            Some(Size::Bytes(0))
        );
        assert!(apply("-sx").is_err());
    }

    #[test]
    fn thread_stride() {
        assert_eq!(
            apply("-T1G").unwrap().thread_stride,
            Some(Size::Bytes(1 << 30))
        );
        assert!(apply("-T0").is_err());
    }

    #[test]
    fn write_ratio() {
        assert_eq!(apply("-w30").unwrap().write_ratio, Some(30));
        assert_eq!(apply("-w0").unwrap().write_ratio, Some(0));
        assert_eq!(apply("-w100").unwrap().write_ratio, Some(100));
        assert!(apply("-w101").is_err());
        assert!(apply("-w").unwrap_err().contains("-w0"));
    }

    #[test]
    fn seed() {
        assert_eq!(apply("-z42").unwrap().seed, Some(42));
        assert!(apply("-z").unwrap().seed.is_some());
        assert!(apply("-z4294967296").is_err());
    }

    #[test]
    fn write_buffers() {
        assert_eq!(
            apply("-Z").unwrap().write_buffers,
            Some(WriteBufferArg::Zero)
        );
        assert_eq!(
            apply("-Zr").unwrap().write_buffers,
            Some(WriteBufferArg::RandomEachWrite)
        );
        assert_eq!(
            apply("-Z1M").unwrap().write_buffers,
            Some(WriteBufferArg::Source {
                size: Size::Bytes(1 << 20),
                file: None
            })
        );
        assert_eq!(
            apply("-Z1M,data.bin").unwrap().write_buffers,
            Some(WriteBufferArg::Source {
                size: Size::Bytes(1 << 20),
                file: Some(PathBuf::from("data.bin"))
            })
        );
        assert!(apply("-Z1M,").is_err());
        assert!(apply("-Z0").is_err());
        assert!(apply("-Zq").is_err());
    }

    #[test]
    fn spin() {
        let flag = find_long("spin").unwrap();
        let mut raw = RawArgs::default();
        (flag.apply)(Some("0"), &mut raw).unwrap();
        assert_eq!(raw.spin_us, Some(0));
        assert!((flag.apply)(Some("2000000"), &mut RawArgs::default()).is_err());
        assert!((flag.apply)(None, &mut RawArgs::default()).is_err());
        assert!((flag.apply)(Some("5x"), &mut RawArgs::default()).is_err());
    }

    #[test]
    fn engine() {
        let mut raw = RawArgs::default();
        let flag = find_long("engine").unwrap();
        (flag.apply)(Some("psync"), &mut raw).unwrap();
        assert_eq!(raw.engine, Some(EngineKind::Psync));
        let mut raw = RawArgs::default();
        (flag.apply)(Some("null"), &mut raw).unwrap();
        assert_eq!(raw.engine, Some(EngineKind::Null));
        assert!((flag.apply)(Some("libaio"), &mut RawArgs::default()).is_err());
        assert!((flag.apply)(None, &mut RawArgs::default()).is_err());
    }
}
