//! iospd's own options: `--<name>[=value]`, which no DiskSpd letter can collide with.

use super::{LongFlag, file_value, flag_once, no_long_value, once, positive_size, unit};
use std::path::PathBuf;

use crate::engine::EngineKind;
use crate::units::parse_in_range;

/// The Linux-only options.
pub const LONG_FLAGS: &[LongFlag] = &[
    LongFlag {
        name: "help",
        usage: ("--help", "display usage information (as -?)"),
        apply: |v, raw| {
            no_long_value(v, "help")?;
            raw.help = true;
            Ok(())
        },
    },
    LongFlag {
        name: "version",
        usage: ("--version", "print iospd's version"),
        apply: |v, raw| {
            no_long_value(v, "version")?;
            raw.version = true;
            Ok(())
        },
    },
    LongFlag {
        name: "completions",
        usage: (
            "--completions=<shell>",
            "print a completion script for bash, zsh or fish",
        ),
        apply: |v, raw| {
            let shell = v.filter(|v| !v.is_empty()).ok_or_else(|| {
                "expects a shell; for example --completions=bash (or zsh, fish)".to_string()
            })?;
            once(&mut raw.completions, shell.to_string())
        },
    },
    LongFlag {
        name: "engine",
        usage: (
            "--engine=<engine>",
            "I/O engine: io_uring [default; psync when io_uring is unavailable], psync, null (no I/O), or a file engine, one call per I/O on the target file: stat, lstat, statx, unlink (removes it), create (makes it anew, empty), ftruncate (to the write's offset), fallocate (the I/O's range: a write allocates, a read allocates keeping the length, a trim punches a hole)",
        ),
        apply: |v, raw| {
            let engine = match v {
                Some("io_uring") | Some("uring") => EngineKind::IoUring,
                Some("psync") => EngineKind::Psync,
                Some("null") => EngineKind::Null,
                Some("stat") => EngineKind::Stat,
                Some("lstat") => EngineKind::Lstat,
                Some("statx") => EngineKind::Statx,
                Some("unlink") => EngineKind::Unlink,
                Some("create") => EngineKind::Create,
                Some("ftruncate") => EngineKind::Ftruncate,
                Some("fallocate") => EngineKind::Fallocate,
                _ => {
                    return Err(
                        "expects one of io_uring, psync, null, stat, lstat, statx, unlink, create, ftruncate, fallocate; for example --engine=psync".into(),
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
            "poll this long for a completion before sleeping [default: 50 with 2+ CPUs per thread, else 0]",
        ),
        apply: |v, raw| {
            let us = v
                .ok_or_else(|| "expects microseconds; for example --spin=0".to_string())
                .and_then(|v| parse_in_range(v, 0, 1_000_000).map_err(|e| unit(e, "--spin=20")))?;
            once(&mut raw.spin_us, us as u32)
        },
    },
    LongFlag {
        name: "output",
        usage: (
            "--output=<file.txt|.xml|.json|.html|.csv>",
            "also write the report to this file, in the format its extension names (repeatable)",
        ),
        apply: |v, raw| {
            let Some(path) = v.filter(|p| !p.is_empty()) else {
                return Err("expects a file name; for example --output=run.json".into());
            };
            if crate::profile::ResultFormat::from_path(std::path::Path::new(path)).is_none() {
                return Err(format!(
                    "'{path}' does not end in .txt, .xml, .json, .html or .csv; the extension picks the format"
                ));
            }
            let path = PathBuf::from(path);
            if raw.outputs.contains(&path) {
                return Err("this file is already an output; name each file once".into());
            }
            raw.outputs.push(path);
            Ok(())
        },
    },
    LongFlag {
        name: "sqpoll",
        usage: (
            "--sqpoll[=<idle ms>]",
            "io_uring: a kernel thread polls the submission queue (sleeps after 1000 ms idle by default)",
        ),
        apply: |v, raw| {
            let idle = match v {
                None | Some("") => 1000,
                Some(ms) => parse_in_range(ms, 1, u32::MAX as u64)
                    .map_err(|e| unit(e, "--sqpoll=2000"))? as u32,
            };
            once(&mut raw.sqpoll_idle_ms, idle)
        },
    },
    LongFlag {
        name: "sqpoll-cpu",
        usage: (
            "--sqpoll-cpu=<cpu>",
            "with --sqpoll: each ring's polling kernel thread runs on this CPU (fio's sqthread_poll_cpu)",
        ),
        apply: |v, raw| {
            let cpu = parse_in_range(v.unwrap_or_default(), 0, crate::profile::MAX_CPU)
                .map_err(|e| unit(e, "--sqpoll-cpu=1"))?;
            once(&mut raw.sqpoll_cpu, cpu as u32)
        },
    },
    LongFlag {
        name: "iopoll",
        usage: (
            "--iopoll",
            "io_uring: poll the device for completions (needs -Su/-Sh and a device with poll queues)",
        ),
        apply: |v, raw| {
            no_long_value(v, "iopoll")?;
            flag_once(&mut raw.iopoll)
        },
    },
    LongFlag {
        name: "timeseries",
        usage: (
            "--timeseries=<file.csv>",
            "stream one row per interval (-D, else 1 s), target and direction to this CSV while the run goes",
        ),
        apply: |v, raw| once(&mut raw.timeseries, file_value(v, "--timeseries=run.csv")?),
    },
    LongFlag {
        name: "metrics",
        usage: (
            "--metrics=<[host:]port>",
            "serve live OpenMetrics for Prometheus at http://<host:port>/metrics while the run goes (a port alone: loopback)",
        ),
        apply: |v, raw| {
            let v = v.filter(|v| !v.is_empty()).ok_or_else(|| {
                "expects a port or host:port; for example --metrics=9464 (loopback) or --metrics=0.0.0.0:9464".to_string()
            })?;
            super::apply_metrics(v, raw)
        },
    },
    LongFlag {
        name: "histlog",
        usage: (
            "--histlog=<file>",
            "write an HdrHistogram interval log, one latency histogram per interval",
        ),
        apply: |v, raw| once(&mut raw.histlog, file_value(v, "--histlog=run.hlog")?),
    },
    LongFlag {
        name: "trace",
        usage: (
            "--trace=<file>",
            "record every measured I/O: CSV when the name ends in .csv, else compact binary (iospd trace-dump)",
        ),
        apply: |v, raw| once(&mut raw.trace, file_value(v, "--trace=run.trace")?),
    },
    LongFlag {
        name: "verify",
        usage: (
            "--verify[=stop]",
            "make every written block self-describing and check every read; =stop ends the run at the first bad block",
        ),
        apply: |v, raw| {
            let stop = match v {
                None | Some("") => false,
                Some("stop") => true,
                Some(other) => {
                    return Err(format!(
                        "'{other}' is not a verify mode; give --verify or --verify=stop"
                    ));
                }
            };
            once(&mut raw.verify, stop)
        },
    },
    LongFlag {
        name: "verify-state",
        usage: (
            "--verify-state=<file>",
            "with --verify: save which blocks the run wrote, for a later iospd verify",
        ),
        apply: |v, raw| {
            once(
                &mut raw.verify_state,
                file_value(v, "--verify-state=run.vstate")?,
            )
        },
    },
    LongFlag {
        name: "checkpoint",
        usage: (
            "--checkpoint=<seconds>",
            "rewrite the --output files with everything measured so far at this period",
        ),
        apply: |v, raw| {
            let example = "for example --checkpoint=60";
            let value = v
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("expects a period in seconds; {example}"))?;
            let seconds = parse_in_range(value, 1, u32::MAX as u64)
                .map_err(|e| unit(e, "--checkpoint=60"))?;
            once(&mut raw.checkpoint_s, seconds as u32)
        },
    },
    LongFlag {
        name: "start-at",
        usage: (
            "--start-at=<RFC 3339 time>",
            "start at this wall-clock time, e.g. 2026-11-23T14:00:00Z: instances on many hosts then run together (merge them with iospd merge)",
        ),
        apply: |v, raw| {
            let text = v.filter(|v| !v.is_empty()).ok_or_else(|| {
                "expects an RFC 3339 time; for example --start-at=2026-11-23T14:00:00Z".to_string()
            })?;
            once(&mut raw.start_at, crate::wall::parse_rfc3339(text)?)
        },
    },
    LongFlag {
        name: "repeat",
        usage: (
            "--repeat=<N>",
            "run the timespans N times and report the mean, 95% confidence intervals, outliers and steady state",
        ),
        apply: |v, raw| {
            let value = v
                .filter(|v| !v.is_empty())
                .ok_or_else(|| "expects a count; for example --repeat=5".to_string())?;
            let times = parse_in_range(value, 1, 1000).map_err(|e| unit(e, "--repeat=5"))?;
            once(&mut raw.repeat, times as u32)
        },
    },
    LongFlag {
        name: "pause",
        usage: (
            "--pause=<seconds>",
            "idle this long between timespans (sweep points, repetitions) so the device settles [default=0]",
        ),
        apply: |v, raw| {
            let value = v
                .filter(|v| !v.is_empty())
                .ok_or_else(|| "expects seconds; for example --pause=5".to_string())?;
            let seconds = parse_in_range(value, 0, 86_400).map_err(|e| unit(e, "--pause=5"))?;
            once(&mut raw.pause_s, seconds as u32)
        },
    },
    LongFlag {
        name: "peer-timeout",
        usage: (
            "--peer-timeout=<seconds>",
            "under MPI: how long the ranks wait for the last one to get ready or to finish [default=60]",
        ),
        apply: |v, raw| {
            let value = v
                .filter(|v| !v.is_empty())
                .ok_or_else(|| "expects seconds; for example --peer-timeout=300".to_string())?;
            let seconds =
                parse_in_range(value, 1, 86_400).map_err(|e| unit(e, "--peer-timeout=300"))?;
            once(&mut raw.peer_timeout_s, seconds as u32)
        },
    },
    LongFlag {
        name: "quiet",
        usage: ("--quiet", "no live progress line on the terminal"),
        apply: |v, raw| {
            no_long_value(v, "quiet")?;
            flag_once(&mut raw.quiet)
        },
    },
    LongFlag {
        name: "no-device-clock",
        usage: (
            "--no-device-clock",
            "do not time each request on the devices under the targets (the block layer's issue and completion, in the kernel); their means still come from /sys/block",
        ),
        apply: |v, raw| {
            no_long_value(v, "no-device-clock")?;
            flag_once(&mut raw.no_device_clock)
        },
    },
    LongFlag {
        name: "device-clock",
        usage: (
            "--device-clock=<sampled|every>",
            "which requests the device clock times: every one up to 40,000 a second a device and a random sample of about that many above (sampled), or every one whatever it costs (every) [default=sampled]",
        ),
        apply: |v, raw| {
            let every = match v {
                Some("sampled") => false,
                Some("every") => true,
                _ => {
                    return Err("expects sampled or every; for example --device-clock=every".into());
                }
            };
            once(&mut raw.device_clock_every, every)
        },
    },
    LongFlag {
        name: "force",
        usage: (
            "--force",
            "write even to a device that is mounted or holds a file system, or to a file iospd did not create",
        ),
        apply: |v, raw| {
            no_long_value(v, "force")?;
            flag_once(&mut raw.force)
        },
    },
    LongFlag {
        name: "dry-run",
        usage: (
            "--dry-run",
            "make every check a run makes (options, the safety gate, threads, memory, targets) and stop: exit 0 when the run (or, with --create-only, the layout) could start, 3 with the reason when not; nothing is created or written",
        ),
        apply: |v, raw| {
            no_long_value(v, "dry-run")?;
            flag_once(&mut raw.dry_run)
        },
    },
    LongFlag {
        name: "create-only",
        usage: (
            "--create-only",
            "make every check a run makes, lay out the -c files (with --keep-existing only those missing or short) and stop: no I/O is measured",
        ),
        apply: |v, raw| {
            no_long_value(v, "create-only")?;
            flag_once(&mut raw.create_only)
        },
    },
    LongFlag {
        name: "recreate",
        usage: (
            "--recreate",
            "-c writes its file again even when it is iospd's complete test file of that size and fill (which it otherwise reuses)",
        ),
        apply: |v, raw| {
            no_long_value(v, "recreate")?;
            flag_once(&mut raw.recreate)
        },
    },
    LongFlag {
        name: "keep-existing",
        usage: (
            "--keep-existing",
            "-c creates a file only when it is missing or shorter than its size (rewriting a short one is judged as -c's); a file at least that long is used as it is, up to the size, and a read test writes nothing to it",
        ),
        apply: |v, raw| {
            no_long_value(v, "keep-existing")?;
            flag_once(&mut raw.keep_existing)
        },
    },
    LongFlag {
        name: "compress",
        usage: (
            "--compress=<ratio>[:<chunk>]",
            "written data compresses by this ratio (2 = 2:1) in every chunk a compressor sees [chunk default: 4K]",
        ),
        apply: |v, raw| super::apply_compress(v, raw),
    },
    LongFlag {
        name: "dedupe",
        usage: (
            "--dedupe=<ratio>[:<unit>[:<sets>]][:flipflop]",
            "written units repeat so the target deduplicates by this ratio, duplicates sharing <sets> contents (a count, or % of the distinct) [unit 4K, sets 5%]; flipflop: rewrites of a duplicate alternate between two contents",
        ),
        apply: |v, raw| super::apply_dedupe(v, raw),
    },
    LongFlag {
        name: "trim",
        usage: (
            "--trim=<percent>",
            "this share of the I/Os discards its block (a device's discard, a file's punched hole); the rest split by -w",
        ),
        apply: |v, raw| super::apply_trim(v, raw),
    },
    LongFlag {
        name: "ios",
        usage: (
            "--ios=<count>",
            "each thread ends its I/O to a target after this many I/Os in the measured window; with no -d the run lasts until every thread is done",
        ),
        apply: |v, raw| super::apply_work_ios(v, raw),
    },
    LongFlag {
        name: "bytes",
        usage: (
            "--bytes=<size>|<percent>%",
            "each thread ends its I/O to a target after moving this many bytes in the measured window (K, M, G, T or b blocks), or this share of the target's range (100%: one pass); with no -d the run lasts until every thread is done",
        ),
        apply: |v, raw| super::apply_work_bytes(v, raw),
    },
    LongFlag {
        name: "bssplit",
        usage: (
            "--bssplit=<size>/<weight>[:…][,<write sizes>]",
            "each I/O's size drawn by weight (4K/70:64K/30), one list for all I/O or one for reads and one for writes; replaces -b, and the report breaks rates and latency down by size",
        ),
        apply: |v, raw| {
            let split = v.unwrap_or_default().parse()?;
            once(&mut raw.block_split, split)
        },
    },
    LongFlag {
        name: "pattern",
        usage: (
            "--pattern=0x<hex>",
            "every write buffer holds these bytes repeated from its start (fio's buffer_pattern); -c still lays files out with DiskSpd's pattern",
        ),
        apply: |v, raw| {
            let hex = crate::profile::parse_pattern(v.unwrap_or_default())?;
            once(&mut raw.pattern, hex)
        },
    },
    LongFlag {
        name: "cpu-set",
        usage: (
            "--cpu-set=<cpus>",
            "the run's threads may use only these CPUs (0-3,8), unpinned: the scheduler places them within the set, as taskset or fio's cpus_allowed do (-a pins each thread to one CPU)",
        ),
        apply: |v, raw| {
            let cpus = super::parse_cpu_set(v.unwrap_or_default())?;
            once(&mut raw.cpu_set, cpus)
        },
    },
    LongFlag {
        name: "nice",
        usage: (
            "--nice=<-20..19>",
            "the run's threads at this CPU niceness (below 0 more CPU than other work, needs root or CAP_SYS_NICE; above 0 less), as nice(1) or fio's nice",
        ),
        apply: |v, raw| {
            let text = v.unwrap_or_default();
            let (sign, digits) = match text.strip_prefix('-') {
                Some(digits) => (-1, digits),
                None => (1, text),
            };
            let magnitude = parse_in_range(digits, 0, if sign < 0 { 20 } else { 19 })
                .map_err(|e| unit(e, "--nice=10 or --nice=-5"))?;
            once(&mut raw.nice, sign * magnitude as i32)
        },
    },
    LongFlag {
        name: "flow",
        usage: (
            "--flow=<weight>:<file>",
            "runs that name the same file share their I/O by weight: each thread issues only while its share of every run's I/Os is at most its share of their weights (fio's flow; the file is made if missing, and must be one iospd made)",
        ),
        apply: |v, raw| {
            let flow = crate::profile::flow::Flow::parse(v.unwrap_or_default())?;
            once(&mut raw.flow, flow)
        },
    },
    LongFlag {
        name: "flow-sleep",
        usage: (
            "--flow-sleep=<time>",
            "a thread over its share of the flow lets its I/O in flight complete and waits this long (ns, us, ms or s) before it looks again (fio's flow_sleep; default: looks again at once)",
        ),
        apply: |v, raw| {
            let limit = crate::profile::max_latency::MaxLatency::parse(v.unwrap_or_default())
                .ok()
                .and_then(|m| m.read_ns.filter(|_| m.read_ns == m.write_ns))
                .ok_or_else(|| "is not a time; for example --flow-sleep=1ms".to_string())?;
            once(&mut raw.flow_sleep_us, limit.div_ceil(1_000))
        },
    },
    LongFlag {
        name: "mem-policy",
        usage: (
            "--mem-policy=<local|bind:<nodes>|prefer:<node>|interleave:<nodes>>",
            "the NUMA memory policy of the run's threads, so their buffers come from those nodes: only them (bind), first them (prefer), page by page across them (interleave), as numactl or fio's numa_mem_policy",
        ),
        apply: |v, raw| {
            let policy = crate::profile::mem_policy::MemPolicy::parse(v.unwrap_or_default())?;
            once(&mut raw.mem_policy, policy)
        },
    },
    LongFlag {
        name: "lock-memory",
        usage: (
            "--lock-memory=<size>",
            "lock this much memory (mlock) before the run and hold it to the end, so the page cache and the rest of the machine have that much less: a smaller machine (fio's lockmem)",
        ),
        apply: |v, raw| {
            let size = positive_size(
                v.unwrap_or_default(),
                "--lock-memory=4G",
                "the memory to lock",
            )?;
            let crate::units::Size::Bytes(bytes) = size else {
                return Err("is in blocks; give bytes, for example --lock-memory=4G".into());
            };
            once(&mut raw.lock_memory, bytes)
        },
    },
    LongFlag {
        name: "file-service",
        usage: (
            "--file-service=<random|roundrobin>[:<n>]|sequential|<zipf|pareto|normal>:<p>",
            "how each I/O of a -F/-O pool chooses its target: by weight (random, the default; random:n keeps each target drawn for n I/Os), in turn, n I/Os each (roundrobin), each target until its --ios/--bytes are done (sequential), or drawn with a skew over the targets in the order given, the first the hottest (zipf:θ, pareto:h) or the middle one (normal:σ, σ in percent of the targets), their weights aside",
        ),
        apply: |v, raw| {
            let service = v.unwrap_or_default().parse()?;
            once(&mut raw.file_service, service)
        },
    },
    LongFlag {
        name: "steady-state",
        usage: (
            "--steady-state=<iops|bw>[_slope]:<limit>[%]:<window>[:<ramp>]",
            "end each timespan once its throughput holds steady (fio's ss): after <ramp> seconds from its start, each second's IOPS or bandwidth is a sample, and the timespan ends when the last <window> samples deviate from their mean (or slope, with _slope) by less than <limit> (a percentage of the mean with %); the report says whether and when it was reached",
        ),
        apply: |v, raw| {
            let rule = crate::profile::steady::SteadyRule::parse(v.unwrap_or_default())
                .map_err(|why| format!("{why}; for example --steady-state=iops:5%:30s"))?;
            once(&mut raw.steady_state, rule)
        },
    },
    LongFlag {
        name: "o-sync",
        usage: (
            "--o-sync",
            "open the targets O_SYNC: each write completes durable with the metadata that finds it (fio's sync=1); -Sw is O_DSYNC, the data alone",
        ),
        apply: |v, raw| {
            no_long_value(v, "o-sync")?;
            flag_once(&mut raw.o_sync)
        },
    },
    LongFlag {
        name: "offset-increment",
        usage: (
            "--offset-increment=<size>",
            "each thread of a target works its own region of the range, k × <size> after the first for thread k, each as long (fio's offset_increment)",
        ),
        apply: |v, raw| {
            once(
                &mut raw.offset_increment,
                positive_size(
                    v.unwrap_or_default(),
                    "--offset-increment=1G",
                    "the offset increment",
                )?,
            )
        },
    },
    LongFlag {
        name: "ioprio",
        usage: (
            "--ioprio=<rt|be|idle>[:<0-7>]",
            "every I/O of the targets at this Linux I/O priority class and level (0 highest; 4 unless given; the idle class has none); rt needs CAP_SYS_ADMIN; in place of -I",
        ),
        apply: |v, raw| {
            let priority = crate::profile::IoPriority::parse_class(v.unwrap_or_default())
                .map_err(|why| format!("{why}; for example --ioprio=be:2"))?;
            match raw.io_priority {
                Some(_) => Err("-I and --ioprio both set the I/O priority; give one".into()),
                None => once(&mut raw.io_priority, priority),
            }
        },
    },
    LongFlag {
        name: "zones",
        usage: (
            "--zones=<size>[:<range>[:<skip>]]",
            "each thread works one zone of the target at a time (fio's zonemode=strided): its offsets stay in a window of <range> bytes (the size unless given) until <size> bytes were transferred there, then move to the next window, <range>+<skip> further on, and back to the first after the last that fits whole",
        ),
        apply: |v, raw| {
            let zones = crate::profile::zones::Zones::parse(v.unwrap_or_default())
                .map_err(|why| format!("{why}; for example --zones=256M:256M:2G"))?;
            once(&mut raw.zones, zones)
        },
    },
    LongFlag {
        name: "backwards",
        usage: (
            "--backwards",
            "sequential I/O (-s) moves down through each target by its stride, from the top, and starts at the top again (fio's rw=read:-<skip>)",
        ),
        apply: |v, raw| {
            no_long_value(v, "backwards")?;
            flag_once(&mut raw.backwards)
        },
    },
    LongFlag {
        name: "random-map",
        usage: (
            "--random-map",
            "random offsets without replacement: each thread visits every aligned block of a target once before any twice (with -r)",
        ),
        apply: |v, raw| {
            no_long_value(v, "random-map")?;
            flag_once(&mut raw.random_map)
        },
    },
    LongFlag {
        name: "invalidate",
        usage: (
            "--invalidate",
            "drop each target's pages from the page cache before each timespan starts (posix_fadvise DONTNEED), so a buffered run starts cold whatever read the target before (fio's invalidate); dirty pages stay until written back",
        ),
        apply: |v, raw| {
            no_long_value(v, "invalidate")?;
            flag_once(&mut raw.invalidate)
        },
    },
    LongFlag {
        name: "pre-read",
        usage: (
            "--pre-read",
            "read each target's range once, in order, before each timespan starts (not measured), through the run's own descriptor: a buffered run then starts with the range in the page cache; with -Su/-Sh the device is only read through (fio's pre_read)",
        ),
        apply: |v, raw| {
            no_long_value(v, "pre-read")?;
            flag_once(&mut raw.pre_read)
        },
    },
    LongFlag {
        name: "serialize-overlap",
        usage: (
            "--serialize-overlap",
            "an I/O whose range overlaps one its thread has in flight to the same target waits until that one completes, so no two of a thread's writes race on a block (fio's serialize_overlap)",
        ),
        apply: |v, raw| {
            no_long_value(v, "serialize-overlap")?;
            flag_once(&mut raw.serialize_overlap)
        },
    },
    LongFlag {
        name: "nowait",
        usage: (
            "--nowait",
            "every read and write asks not to wait (RWF_NOWAIT): one that would block (a page-cache miss, a lock, a full device queue) fails with EAGAIN, which stops the run unless --continue-on-error=io:EAGAIN counts it (fio's nowait)",
        ),
        apply: |v, raw| {
            no_long_value(v, "nowait")?;
            flag_once(&mut raw.nowait)
        },
    },
    LongFlag {
        name: "max-latency",
        usage: (
            "--max-latency=<time>[,<write time>]",
            "the first measured read or write that takes longer (ns, us, ms or s; reads and writes, or each: 10ms,50ms, an empty side none) stops the run with ETIMEDOUT, naming it (fio's max_latency)",
        ),
        apply: |v, raw| {
            let limit = crate::profile::max_latency::MaxLatency::parse(v.unwrap_or_default())
                .map_err(|why| format!("{why}; for example --max-latency=10ms"))?;
            once(&mut raw.max_latency, limit)
        },
    },
    LongFlag {
        name: "ioprio-split",
        usage: (
            "--ioprio-split=<rules>[,<write rules>]",
            "a share of the reads and writes issued with a priority of their own, the rest with the target's (-I/--ioprio); rules [<size>/]<percent>/<rt|be|idle>/<0-7> joined by ':', per size or for every size; the report gives each priority's latency (fio's cmdprio_percentage, cmdprio_bssplit; io_uring)",
        ),
        apply: |v, raw| {
            let split = crate::profile::ioprio_split::IoprioSplit::parse(v.unwrap_or_default())?;
            once(&mut raw.ioprio_split, split)
        },
    },
    LongFlag {
        name: "rate-process",
        usage: (
            "--rate-process=<linear|poisson>",
            "how -g spaces I/Os: evenly (linear, the default) or as a Poisson process, exponential gaps at the same mean rate (fio's rate_process)",
        ),
        apply: |v, raw| match v.unwrap_or_default() {
            "linear" => Ok(()),
            "poisson" => flag_once(&mut raw.poisson),
            other => Err(format!(
                "'{other}' is not a rate process; give --rate-process=linear or --rate-process=poisson"
            )),
        },
    },
    LongFlag {
        name: "continue-on-error",
        usage: (
            "--continue-on-error[=io|read|write][:ERR,…]",
            "count the I/Os (all, reads, or writes, trims and flushes) that fail with one of the errors (names or numbers; EIO when none is given) and go on; other failures still stop the run; the report counts them and names the first",
        ),
        apply: |v, raw| {
            let which = crate::profile::ContinueOn::parse(v.unwrap_or("")).map_err(|why| {
                format!("{why}; for example --continue-on-error=write:EIO,ENOSPC")
            })?;
            super::once(&mut raw.continue_on_error, which)
        },
    },
    LongFlag {
        name: "fsync",
        usage: (
            "--fsync=<N>",
            "each thread flushes a target (fsync: data and metadata) after every N writes it issued to it",
        ),
        apply: |v, raw| super::apply_flush(v, raw, false),
    },
    LongFlag {
        name: "fdatasync",
        usage: (
            "--fdatasync=<N>",
            "as --fsync, with fdatasync: the data, and metadata only where reading the data needs it",
        ),
        apply: |v, raw| super::apply_flush(v, raw, true),
    },
    LongFlag {
        name: "distribution",
        usage: (
            "--distribution=<zipf:θ|pareto:h|normal:σ%|zoned:…>",
            "skew random offsets (-r) to a hot set: zipf:1.2, pareto:0.2 (20 % of blocks take 80 % of I/O), normal:10; zoned:90/10 is -rdpct90/10",
        ),
        apply: |v, raw| super::apply_skew(v, raw),
    },
    LongFlag {
        name: "percentiles",
        usage: (
            "--percentiles=<p,p,…>",
            "extra latency percentiles in the JSON results, e.g. 99.5,99.95 [always: DiskSpd's rows and 1..99]",
        ),
        apply: |v, raw| {
            let list = v.filter(|v| !v.is_empty()).ok_or_else(|| {
                "expects a comma-separated list; for example --percentiles=99.5,99.95".to_string()
            })?;
            if !raw.percentiles.is_empty() {
                return Err("this option was already given; give each option once".into());
            }
            for item in list.split(',') {
                let p: f64 = item.parse().map_err(|_| {
                    format!("'{item}' is not a number; for example --percentiles=99.5")
                })?;
                if !(0.0..=100.0).contains(&p) {
                    return Err(format!("{item} is not between 0 and 100"));
                }
                raw.percentiles.push(p);
            }
            Ok(())
        },
    },
];
