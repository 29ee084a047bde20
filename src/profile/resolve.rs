//! RawArgs → Profile: apply DiskSpd's defaults, resolve sizes in blocks against the final `-b`, and
//! reject option pairs that exclude each other.

use super::validate::validate;
use super::{
    Access, Affinity, CacheMode, DEFAULT_BLOCK_SIZE, DEFAULT_DURATION, DEFAULT_REQUESTS,
    DEFAULT_WARMUP, Profile, ProfileError, Spin, Target, TimeSpan, WriteBuffer,
};
use crate::cli::RawArgs;
use crate::cli::raw::WriteBufferArg;
use crate::cli::units::Size;
use crate::engine::EngineKind;

/// A resolved profile and the warnings DiskSpd would print for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The profile.
    pub profile: Profile,
    /// Non-fatal remarks, one line each, for stderr.
    pub warnings: Vec<String>,
}

/// Builds the profile from a command line; `command_line` is echoed in the report.
pub fn resolve(raw: &RawArgs, command_line: String) -> Result<Resolved, ProfileError> {
    check_conflicts(raw)?;
    let block_size = raw.block_size.unwrap_or(DEFAULT_BLOCK_SIZE);
    let bytes = |size: Option<Size>, flag: &str| -> Result<Option<u64>, ProfileError> {
        size.map(|s| {
            s.resolve(block_size).ok_or_else(|| {
                ProfileError::Invalid(format!(
                    "{flag}: the size in blocks overflows with -b{block_size}; give it in bytes"
                ))
            })
        })
        .transpose()
    };
    let base_offset = bytes(raw.base_offset, "-B")?.unwrap_or(0);
    let max_size = match bytes(raw.base_length, "-B")? {
        Some(length) => Some(base_offset.checked_add(length).ok_or_else(|| {
            ProfileError::Invalid("-B<base>:<length>: the range ends past 16EiB".into())
        })?),
        None => bytes(raw.max_size, "-f")?,
    };
    let access = match (raw.random, raw.sequential) {
        (Some(align), _) => Access::Random {
            align: bytes(align, "-r")?.unwrap_or(block_size),
        },
        (None, Some(seq)) => Access::Sequential {
            stride: bytes(seq.stride, "-s")?.unwrap_or(block_size),
            interlocked: seq.interlocked,
        },
        (None, None) => Access::Sequential {
            stride: block_size,
            interlocked: false,
        },
    };
    let write_buffer = match &raw.write_buffers {
        None | Some(WriteBufferArg::RandomEachWrite) => WriteBuffer::Pattern,
        Some(WriteBufferArg::Zero) => WriteBuffer::Zero,
        Some(WriteBufferArg::Source { size, file }) => WriteBuffer::Source {
            size: bytes(Some(*size), "-Z")?.unwrap_or(0),
            file: file.clone(),
        },
    };
    let target_template = Target {
        path: Default::default(),
        block_size,
        base_offset,
        max_size,
        create_size: bytes(raw.create_size, "-c")?,
        requests: raw.outstanding.unwrap_or(DEFAULT_REQUESTS),
        threads_per_target: raw.threads_per_target.unwrap_or(1),
        thread_stride: bytes(raw.thread_stride, "-T")?.unwrap_or(0),
        access,
        write_ratio: raw.write_ratio.unwrap_or(0),
        cache: raw.cache_mode.unwrap_or(CacheMode::Cached),
        write_through: raw.write_through.unwrap_or(false),
        write_buffer,
        throughput: raw.throughput,
    };
    let targets = raw
        .targets
        .iter()
        .map(|path| Target {
            path: path.clone(),
            ..target_template.clone()
        })
        .collect();
    let affinity = if raw.no_affinity {
        Affinity::Disabled
    } else if !raw.affinity.is_empty() {
        Affinity::Cpus(raw.affinity.clone())
    } else if raw.affinity_given {
        Affinity::RoundRobin
    } else {
        Affinity::Scheduler
    };
    let timespan = TimeSpan {
        duration_s: raw.duration.unwrap_or(DEFAULT_DURATION),
        warmup_s: raw.warmup.unwrap_or(DEFAULT_WARMUP),
        cooldown_s: raw.cooldown.unwrap_or(0),
        seed: raw.seed.unwrap_or(0),
        thread_count: raw.total_threads,
        affinity,
        measure_latency: raw.measure_latency,
        iops_interval_ms: raw.iops_interval_ms,
        random_write_data: raw.write_buffers == Some(WriteBufferArg::RandomEachWrite),
        targets,
    };
    let profile = Profile {
        command_line,
        verbose: raw.verbose,
        progress: raw.progress,
        print_profile: raw.print_profile,
        engine: raw.engine.unwrap_or(EngineKind::IoUring),
        spin: raw.spin_us.map_or(Spin::Auto, Spin::Micros),
        timespans: vec![timespan],
    };
    let warnings = validate(&profile)?;
    Ok(Resolved { profile, warnings })
}

/// Option pairs DiskSpd rejects on the command line.
fn check_conflicts(raw: &RawArgs) -> Result<(), ProfileError> {
    let interlocked = raw.sequential.is_some_and(|s| s.interlocked);
    let rules: [(bool, &'static str, &'static str, &'static str); 6] = [
        (
            raw.total_threads.is_some() && raw.threads_per_target.is_some(),
            "-F",
            "-t",
            "-F sets the total number of threads and -t the threads per target; use one",
        ),
        (
            raw.random.is_some() && raw.sequential.is_some(),
            "-r",
            "-s",
            "they choose random and sequential offsets; use one",
        ),
        (
            raw.random.is_some() && raw.thread_stride.is_some(),
            "-r",
            "-T",
            "-T staggers sequential start offsets and means nothing for random I/O; drop -T",
        ),
        (
            interlocked && raw.thread_stride.is_some(),
            "-si",
            "-T",
            "-si makes the threads share one offset, -T gives each its own start; use one",
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
    use crate::profile::Throughput;

    fn resolve_strs(args: &[&str]) -> Result<Resolved, ProfileError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let Command::Run(raw) = cli::parse(&args).expect("parses") else {
            panic!("not a run")
        };
        resolve(&raw, "iospd".into())
    }

    #[test]
    fn diskspd_defaults() {
        let profile = resolve_strs(&["t.dat"]).unwrap().profile;
        let ts = &profile.timespans[0];
        assert_eq!(
            (ts.duration_s, ts.warmup_s, ts.cooldown_s, ts.seed),
            (10, 5, 0, 0)
        );
        assert_eq!(ts.affinity, Affinity::Scheduler);
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
                interlocked: false
            }
        );
        assert_eq!(
            (t.write_ratio, t.cache, t.write_through),
            (0, CacheMode::Cached, false)
        );
        assert_eq!(t.write_buffer, WriteBuffer::Pattern);
        assert_eq!(profile.engine, EngineKind::IoUring);
    }

    #[test]
    fn blocks_use_the_final_block_size() {
        let t = &resolve_strs(&["-r8b", "-B2b", "-b4K", "t.dat"])
            .unwrap()
            .profile
            .timespans[0]
            .targets[0];
        assert_eq!(t.access, Access::Random { align: 32768 });
        assert_eq!(t.base_offset, 8192);
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
    fn conflicts() {
        for (args, first) in [
            (&["-F2", "-t2", "x"][..], "-F"),
            (&["-r", "-s", "x"][..], "-r"),
            (&["-r", "-T4K", "-t2", "x"][..], "-r"),
            (&["-si", "-T4K", "-t2", "x"][..], "-si"),
            (&["-n", "-a0", "x"][..], "-n"),
            (&["-B0:1G", "-f2G", "x"][..], "-B<base>:<length>"),
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
