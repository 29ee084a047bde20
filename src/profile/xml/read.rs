//! XML element tree → [`Profile`], element by element as DiskSpd's schema defines them.

use std::path::{Path, PathBuf};

use super::XmlError;
use super::tree::{Element, Optional, parse};
use crate::profile::{
    Access, Affinity, Batch, BufferSeparation, Burst, CacheMode, ContinueOn, Counters, CpuOrder,
    Distribution, DistributionKind, DistributionRange, Efficiency, EtwTimer, FlushMode, Hints,
    IoPriority, IoRing, Precreate, Profile, ResultFormat, Target, ThreadTarget, Throughput,
    TimeSpan, WriteBuffer,
};

/// Reads and maps a profile file.
pub fn read_profile(path: &Path) -> Result<Profile, XmlError> {
    let text = crate::input::read_utf8(path, crate::input::PROFILE_MAX, "XML profile").map_err(
        |reason| XmlError::Read {
            path: path.to_path_buf(),
            reason,
        },
    )?;
    parse_profile(&text).map_err(|error| XmlError::InFile {
        path: path.to_path_buf(),
        error: Box::new(error),
    })
}

/// Maps a profile document.
pub fn parse_profile(text: &str) -> Result<Profile, XmlError> {
    let root = parse(text)?;
    if root.name != "Profile" {
        return Err(root.error("the root element of a profile must be <Profile>"));
    }
    profile(&root)
}

const PROFILE_ELEMENTS: &[&str] = &[
    "Progress",
    "ResultFormat",
    "Verbose",
    "VerboseStats",
    "ExperimentFlags",
    "PrecreateFiles",
    "ETW",
    "TimeSpans",
];

fn profile(el: &Element) -> Result<Profile, XmlError> {
    el.only(PROFILE_ELEMENTS)?;
    let result_format = match el.child("ResultFormat")? {
        None => ResultFormat::Text,
        Some(f) => match f.text.as_str() {
            "text" => ResultFormat::Text,
            "xml" => ResultFormat::Xml,
            "json" => ResultFormat::Json,
            other => return Err(f.error(format!("'{other}' is not text, xml or json"))),
        },
    };
    let precreate = match el.child("PrecreateFiles")? {
        None => None,
        Some(p) => Some(match p.text.as_str() {
            "UseMaxSize" => Precreate::UseMaxSize,
            "CreateOnlyFilesWithConstantSizes" => Precreate::OnlyFilesWithConstantSizes,
            "CreateOnlyFilesWithConstantOrZeroSizes" => Precreate::OnlyFilesWithConstantOrZeroSizes,
            other => {
                return Err(p.error(format!(
                    "'{other}' is not UseMaxSize, CreateOnlyFilesWithConstantSizes or CreateOnlyFilesWithConstantOrZeroSizes"
                )));
            }
        }),
    };
    let counters = match el.child("ETW")? {
        None => Counters::default(),
        Some(etw) => counters(etw)?,
    };
    let spans = el.required("TimeSpans")?;
    spans.only(&["TimeSpan"])?;
    let timespans = spans
        .all("TimeSpan")
        .into_iter()
        .map(timespan)
        .collect::<Result<Vec<_>, _>>()?;
    spans.only(&["TimeSpan"])?;
    if timespans.is_empty() {
        return Err(spans.error("needs at least one <TimeSpan>"));
    }
    Ok(Profile {
        verbose: el.flag("Verbose")?,
        verbose_stats: el.flag("VerboseStats")?,
        progress: el.number_of("Progress")?.filter(|&p| p > 0),
        result_format,
        experiment_flags: el.number_of("ExperimentFlags")?.unwrap_or(0) as u32,
        counters,
        precreate,
        ..Profile::with_timespans(timespans)
    })
}

fn counters(etw: &Element) -> Result<Counters, XmlError> {
    let mut timer = None;
    for (name, value) in [
        ("UsePerfTimer", EtwTimer::PerfTimer),
        ("UseSystemTimer", EtwTimer::SystemTimer),
        ("UseCyclesCounter", EtwTimer::CyclesCounter),
    ] {
        if etw.flag(name)? {
            timer = Some(value);
        }
    }
    let counters = Counters {
        process: etw.flag("Process")?,
        thread: etw.flag("Thread")?,
        image_load: etw.flag("ImageLoad")?,
        disk_io: etw.flag("DiskIO")?,
        memory_page_faults: etw.flag("MemoryPageFaults")?,
        memory_hard_faults: etw.flag("MemoryHardFaults")?,
        network: etw.flag("Network")?,
        registry: etw.flag("Registry")?,
        use_paged_memory: etw.flag("UsePagedMemory")?,
        timer,
    };
    etw.only(&[
        "Process",
        "Thread",
        "ImageLoad",
        "DiskIO",
        "MemoryPageFaults",
        "MemoryHardFaults",
        "Network",
        "Registry",
        "UsePagedMemory",
        "UsePerfTimer",
        "UseSystemTimer",
        "UseCyclesCounter",
    ])?;
    Ok(counters)
}

const TIMESPAN_ELEMENTS: &[&str] = &[
    "Duration",
    "Warmup",
    "Cooldown",
    "RandSeed",
    "RandomWriteData",
    "ThreadCount",
    "RequestCount",
    "FileService",
    "SteadyState",
    "DisableAffinity",
    "GroupAffinity",
    "Affinity",
    "AffinityTraversal",
    "CompletionRoutines",
    "MeasureLatency",
    "CalculateIopsStdDev",
    "IoBucketDuration",
    "IoRing",
    "CompletionDepth",
    "BufferSeparation",
    "Targets",
];

fn timespan(el: &Element) -> Result<TimeSpan, XmlError> {
    el.only(TIMESPAN_ELEMENTS)?;
    if let Some(cr) = el.child("CompletionRoutines")?
        && cr.boolean()?
    {
        return Err(cr.error(
            "completion routines are a Windows mechanism; iospd always reaps io_uring completions in batches, so set it to false",
        ));
    }
    let _ = el.child("GroupAffinity")?;
    let nonzero = |n: Option<u64>| n.filter(|&n| n > 0).map(|n| n as u32);
    let calculate = el.flag("CalculateIopsStdDev")?;
    let bucket = el.number_of("IoBucketDuration")?;
    let targets_el = el.required("Targets")?;
    targets_el.only(&["Target"])?;
    let targets = targets_el
        .all("Target")
        .into_iter()
        .map(target)
        .collect::<Result<Vec<_>, _>>()?;
    targets_el.only(&["Target"])?;
    let timespan = TimeSpan {
        duration_s: el.number_of("Duration")?.map_or(
            Ok(crate::profile::DEFAULT_DURATION as u64),
            Ok::<u64, XmlError>,
        )? as u32,
        warmup_s: el
            .number_of("Warmup")?
            .unwrap_or(crate::profile::DEFAULT_WARMUP as u64) as u32,
        cooldown_s: el.number_of("Cooldown")?.unwrap_or(0) as u32,
        seed: el.number_of("RandSeed")?.unwrap_or(0) as u32,
        thread_count: nonzero(el.number_of("ThreadCount")?),
        request_count: nonzero(el.number_of("RequestCount")?),
        file_service: match el.child("FileService")? {
            Some(f) => f.text.trim().parse().map_err(|e: String| f.error(e))?,
            None => Default::default(),
        },
        steady_state: match el.child("SteadyState")? {
            Some(s) => Some(
                crate::profile::steady::SteadyRule::parse(s.text.trim())
                    .map_err(|why| s.error(format!("<SteadyState>: {why}")))?,
            ),
            None => None,
        },
        affinity: affinity(el)?,
        measure_latency: el.flag("MeasureLatency")?,
        iops_interval_ms: calculate.then(|| bucket.filter(|&b| b > 0).unwrap_or(1000) as u32),
        random_write_data: el.flag("RandomWriteData")?,
        io_ring: io_ring(el)?,
        completion_depth: match el.child("CompletionDepth")? {
            Some(d) => Some(d.number_in(1, 16)? as u32),
            None => None,
        },
        buffer_separation: match el.child("BufferSeparation")? {
            None => None,
            Some(b) => Some(match b.text.as_str() {
                "PDECacheLine" => BufferSeparation::ThreadOptimized,
                "SystemDefault" => BufferSeparation::SystemDefault,
                other => {
                    return Err(b.error(format!("'{other}' is not PDECacheLine or SystemDefault")));
                }
            }),
        },
        targets,
    };
    Ok(timespan)
}

fn affinity(el: &Element) -> Result<Affinity, XmlError> {
    let disabled = el.flag("DisableAffinity")?;
    let mut cpus = Vec::new();
    if let Some(list) = el.child("Affinity")? {
        for a in list.all("AffinityAssignment") {
            cpus.push(a.number_in(0, crate::profile::MAX_CPU)? as u32);
        }
        for a in list.all("AffinityGroupAssignment") {
            if a.attr("Group").unwrap_or("0") != "0" {
                return Err(a.error(
                    "Linux has no processor groups: use Group=\"0\" and global CPU numbers",
                ));
            }
            let cpu = a
                .attr("Processor")
                .and_then(|p| p.parse::<u32>().ok())
                .ok_or_else(|| a.error("needs a numeric Processor attribute"))?;
            cpus.push(cpu);
        }
        list.only(&["AffinityAssignment", "AffinityGroupAssignment"])?;
    }
    let order = match el.child("AffinityTraversal")? {
        None => None,
        Some(t) => {
            let core_aware = match t.text.as_str() {
                "Cpu" | "" => false,
                "CoreAware" => true,
                other => return Err(t.error(format!("'{other}' is not Cpu or CoreAware"))),
            };
            let span_groups = match t.attr("Group").unwrap_or("Fill") {
                "Fill" => false,
                "Span" => true,
                other => return Err(t.error(format!("Group=\"{other}\" is not Fill or Span"))),
            };
            let efficiency = match t.attr("Efficiency").unwrap_or("PFirst") {
                "PFirst" => Efficiency::PFirst,
                "FillPFirst" => Efficiency::FillPFirst,
                "EFirst" => Efficiency::EFirst,
                "FillEFirst" => Efficiency::FillEFirst,
                "Unordered" => Efficiency::Unordered,
                other => {
                    return Err(t.error(format!(
                        "Efficiency=\"{other}\" is not PFirst, FillPFirst, EFirst, FillEFirst or Unordered"
                    )));
                }
            };
            Some(CpuOrder {
                core_aware,
                span_groups,
                efficiency,
            })
        }
    };
    Ok(match (disabled, cpus.is_empty(), order) {
        (true, true, None) => Affinity::Disabled,
        (true, _, _) => {
            return Err(el.error("DisableAffinity is true but CPUs or an order are given; use one"));
        }
        (false, _, order) => Affinity::Pinned {
            cpus,
            order: order.unwrap_or_default(),
        },
    })
}

fn io_ring(el: &Element) -> Result<Option<IoRing>, XmlError> {
    let Some(ring) = el.child("IoRing")? else {
        return Ok(None);
    };
    let batch = match ring.child("IoRingBatchSize")? {
        None => Batch::DEFAULT,
        Some(b) => {
            let percent = b.attr("Percent").is_some_and(|p| p == "true" || p == "1");
            let n = b.number_in(
                1,
                if percent {
                    100
                } else {
                    crate::profile::MAX_OUTSTANDING
                },
            )? as u32;
            if percent {
                Batch::Percent(n)
            } else {
                Batch::Count(n)
            }
        }
    };
    let registered_buffers = match ring.child("UseRegBuffer")? {
        None => true,
        Some(r) => r.boolean()?,
    };
    ring.only(&["IoRingBatchSize", "UseRegBuffer"])?;
    Ok(Some(IoRing {
        batch,
        registered_buffers,
    }))
}

const TARGET_ELEMENTS: &[&str] = &[
    "Path",
    "BlockSize",
    "BaseFileOffset",
    "MaxFileSize",
    "FileSize",
    "SequentialScan",
    "RandomAccess",
    "TemporaryFile",
    "UseLargePages",
    "RequestCount",
    "ThreadsPerFile",
    "ThreadStride",
    "OffsetIncrement",
    "StrideSize",
    "InterlockedSequential",
    "Random",
    "RandomRatio",
    "Distribution",
    "ParallelAsyncIO",
    "WriteRatio",
    "DisableOSCache",
    "DisableLocalCache",
    "WriteThrough",
    "OSync",
    "DisableAllCache",
    "MemoryMappedIo",
    "FlushType",
    "WriteBufferContent",
    "BurstSize",
    "ThinkTime",
    "Throughput",
    "IOPriority",
    "IoPrio",
    "Weight",
    "ThreadTargets",
    "BypassIO",
    "Compress",
    "Dedupe",
    "SkewedDistribution",
    "Trim",
    "Fsync",
    "Fdatasync",
    "IoCount",
    "ByteCount",
    "RangePercent",
    "RandomMap",
    "RateProcess",
    "ContinueOnError",
    "Backwards",
    "Zones",
    "PreRead",
    "Invalidate",
    "NoWait",
    "SerializeOverlap",
    "MaxLatency",
    "IoprioSplit",
    "BlockSplit",
];

fn target(el: &Element) -> Result<Target, XmlError> {
    el.only(TARGET_ELEMENTS)?;
    // An empty <Path> parses, as in DiskSpd (-Rp shows it); a run refuses it in validation.
    let path_el = el.required("Path")?;
    let mut t = Target::new(PathBuf::from(&path_el.text));
    if let Some(b) = el.child("BlockSize")? {
        t.block_size = b.number_in(1, (1 << 32) - 1)?;
    }
    t.base_offset = el.number_of("BaseFileOffset")?.unwrap_or(0);
    t.max_size = el.number_of("MaxFileSize")?.filter(|&m| m > 0);
    t.create_size = el.number_of("FileSize")?.filter(|&s| s > 0);
    if let Some(r) = el.child("RequestCount")? {
        t.requests = r.number_in(1, crate::profile::MAX_OUTSTANDING)? as u32;
    }
    if let Some(r) = el.child("ThreadsPerFile")? {
        t.threads_per_target = r.number_in(1, crate::profile::MAX_THREADS)? as u32;
    }
    t.thread_stride = el.number_of("ThreadStride")?.unwrap_or(0);
    t.offset_increment = el.number_of("OffsetIncrement")?.unwrap_or(0);
    t.hints = Hints {
        sequential_scan: el.flag("SequentialScan")?,
        random_access: el.flag("RandomAccess")?,
        temporary: el.flag("TemporaryFile")?,
    };
    t.large_pages = el.flag("UseLargePages")?;
    t.write_ratio = match el.child("WriteRatio")? {
        Some(w) => w.number_in(0, 100)? as u8,
        None => 0,
    };
    if let Some(local) = el.child("DisableLocalCache")?
        && local.boolean()?
    {
        return Err(local.error("disables the Windows SMB client cache and has no Linux equivalent; remove it or use DisableOSCache"));
    }
    let all = el.flag("DisableAllCache")?;
    t.cache = if el.flag("DisableOSCache")? || all {
        CacheMode::DisableOsCache
    } else {
        CacheMode::Cached
    };
    t.write_through = el.flag("WriteThrough")? || all;
    t.o_sync = el.flag("OSync")?;
    t.memory_mapped = el.flag("MemoryMappedIo")?;
    t.flush = match el.child("FlushType")? {
        None => None,
        Some(f) => Some(match f.text.as_str() {
            "ViewOfFile" => FlushMode::ViewOfFile,
            "NonVolatileMemory" => FlushMode::NonVolatileMemory,
            "NonVolatileMemoryNoDrain" => FlushMode::NonVolatileMemoryNoDrain,
            other => {
                return Err(f.error(format!(
                    "'{other}' is not ViewOfFile, NonVolatileMemory or NonVolatileMemoryNoDrain"
                )));
            }
        }),
    };
    if let Some(bypass) = el.child("BypassIO")? {
        return Err(bypass.error("Windows BypassIO has no Linux equivalent; remove it (the closest is DisableOSCache on a raw block device)"));
    }
    t.write_buffer = write_buffer(el)?;
    // DiskSpd's <ThinkTime> is milliseconds; iospd writes unit="us" for a shorter pause.
    let think_us = match el.child("ThinkTime")? {
        None => None,
        Some(j) => {
            let n = j.number_in(0, u32::MAX as u64)?;
            match j.attr("unit").unwrap_or("ms") {
                "ms" => Some(n * 1_000),
                "us" => Some(n),
                other => return Err(j.error(format!("unit=\"{other}\" is not ms or us"))),
            }
        }
    };
    t.burst = match (el.number_of("BurstSize")?, think_us) {
        (None, None) | (Some(0), Some(0)) | (Some(0), None) | (None, Some(0)) => None,
        (Some(size), Some(think_us)) if size > 0 && think_us > 0 => Some(Burst {
            size: size as u32,
            think_us,
        }),
        _ => return Err(el.error("<BurstSize> and <ThinkTime> go together; give both, non-zero")),
    };
    t.throughput = match el.child("Throughput")? {
        None => None,
        Some(g) => {
            let n = g.number()?;
            match g.attr("unit").unwrap_or("BPMS") {
                _ if n == 0 => None,
                "BPMS" => Some(Throughput::BytesPerMs(n)),
                "IOPS" => Some(Throughput::Iops(n)),
                "BPS" => Some(Throughput::BytesPerS(n)),
                other => {
                    return Err(g.error(format!("unit=\"{other}\" is not BPMS, BPS or IOPS")));
                }
            }
        }
    };
    t.io_priority = match el.child("IOPriority")? {
        None => IoPriority::Normal,
        Some(p) => match p.number_in(1, 3)? {
            1 => IoPriority::VeryLow,
            2 => IoPriority::Low,
            _ => IoPriority::Normal,
        },
    };
    if let Some(p) = el.child("IoPrio")? {
        if t.io_priority != IoPriority::Normal {
            return Err(p.error(
                "<IoPrio> gives the class and level where <IOPriority> is 3 (normal); drop one",
            ));
        }
        t.io_priority = IoPriority::parse_class(p.text.trim())
            .map_err(|why| p.error(format!("<IoPrio>: {why}")))?;
    }
    t.weight = el.number_of("Weight")?.unwrap_or(1) as u32;
    if let Some(list) = el.child("ThreadTargets")? {
        for tt in list.all("ThreadTarget") {
            t.thread_targets.push(ThreadTarget {
                thread: tt
                    .required("Thread")?
                    .number_in(0, crate::profile::MAX_THREADS)? as u32,
                weight: tt.number_of("Weight")?.unwrap_or(0) as u32,
            });
            tt.only(&["Thread", "Weight"])?;
        }
        list.only(&["ThreadTarget"])?;
    }
    t.access = access(el, t.block_size)?;
    t.distribution = distribution(el)?;
    iospd_options(el, &mut t)?;
    Ok(t)
}

/// iospd's own workload options, each in its option's syntax.
fn iospd_options(el: &Element, t: &mut Target) -> Result<(), XmlError> {
    fn parsed<T: std::str::FromStr<Err = String>>(
        el: &Element,
        name: &str,
    ) -> Result<Option<T>, XmlError> {
        el.child(name)?
            .map(|c| c.text.trim().parse().map_err(|e: String| c.error(e)))
            .transpose()
    }
    t.compress = parsed(el, "Compress")?;
    t.dedupe = parsed(el, "Dedupe")?;
    t.skew = parsed(el, "SkewedDistribution")?;
    if let Some(trim) = el.child("Trim")? {
        t.trim_percent =
            crate::profile::spec::trim_percent(trim.text.trim()).map_err(|e| trim.error(e))?;
    }
    let count = |name| {
        el.child(name)?
            .map(|c| c.number_in(1, u64::MAX))
            .transpose()
    };
    let (ios, bytes) = (count("IoCount")?, count("ByteCount")?);
    let range_percent = el
        .child("RangePercent")?
        .map(|c| c.number_in(1, 1_000_000).map(|n| n as u32))
        .transpose()?;
    let given = ios.is_some() || bytes.is_some() || range_percent.is_some();
    t.work = given.then_some(crate::profile::Work {
        ios,
        bytes,
        range_percent,
    });
    t.random_map = el.flag("RandomMap")?;
    t.backwards = el.flag("Backwards")?;
    t.pre_read = el.flag("PreRead")?;
    t.invalidate = el.flag("Invalidate")?;
    t.nowait = el.flag("NoWait")?;
    t.serialize_overlap = el.flag("SerializeOverlap")?;
    t.max_latency = match el.child("MaxLatency")? {
        Some(m) => Some(
            crate::profile::max_latency::MaxLatency::parse(m.text.trim())
                .map_err(|why| m.error(format!("<MaxLatency>: {why}")))?,
        ),
        None => None,
    };
    t.ioprio_split = match el.child("IoprioSplit")? {
        Some(m) => Some(
            crate::profile::ioprio_split::IoprioSplit::parse(m.text.trim())
                .map_err(|why| m.error(format!("<IoprioSplit>: {why}")))?,
        ),
        None => None,
    };
    t.zones = match el.child("Zones")? {
        Some(z) => Some(
            crate::profile::zones::Zones::parse(z.text.trim())
                .map_err(|why| z.error(format!("<Zones>: {why}")))?,
        ),
        None => None,
    };
    t.poisson = match el.child("RateProcess")? {
        None => false,
        Some(p) => match p.text.trim() {
            "linear" => false,
            "poisson" => true,
            other => {
                return Err(p.error(format!("<RateProcess> is linear or poisson, not '{other}'")));
            }
        },
    };
    t.continue_on_error = match el.child("ContinueOnError")? {
        None => None,
        Some(c) => Some(
            ContinueOn::parse(c.text.trim())
                .map_err(|why| c.error(format!("<ContinueOnError>: {why}")))?,
        ),
    };
    t.block_split = parsed(el, "BlockSplit")?;
    for (name, data_only) in [("Fsync", false), ("Fdatasync", true)] {
        if let Some(f) = el.child(name)? {
            if t.flush_every.is_some() {
                return Err(f.error("<Fsync> and <Fdatasync> flush the same writes; give one"));
            }
            t.flush_every = Some(
                crate::profile::FlushEvery::parse(f.text.trim(), data_only)
                    .map_err(|e| f.error(e))?,
            );
        }
    }
    Ok(())
}

fn access(el: &Element, block: u64) -> Result<Access, XmlError> {
    let parallel = el.flag("ParallelAsyncIO")?;
    let interlocked = el.flag("InterlockedSequential")?;
    let stride = el.child("StrideSize")?;
    let ratio = el.child("RandomRatio")?;
    let random = el.child("Random")?;
    // DiskSpd: <StrideSize> makes the target sequential, and conflicts with either random element.
    if let Some(stride) = &stride {
        for (name, conflict) in [("Random", &random), ("RandomRatio", &ratio)] {
            if conflict.is_some() {
                return Err(stride.error(format!(
                    "sequential <StrideSize> conflicts with <{name}>; keep one of them"
                )));
            }
        }
    }
    // DiskSpd takes 1..99 here: all random is <Random> alone, none is sequential.
    let ratio = match ratio {
        Some(r) => match r.number()? {
            n @ 1..=99 => Some(n as u8),
            n => {
                return Err(r.error(format!(
                    "{n} is out of range 1..=99 (the percentage of random I/O in a mix); for all random give <Random> alone, for none leave both out"
                )));
            }
        },
        None => None,
    };
    if random.is_none() && ratio.is_none() {
        return Ok(Access::Sequential {
            stride: match stride {
                Some(s) => s.number()?,
                None => block,
            },
            interlocked,
            parallel,
        });
    }
    if parallel || interlocked {
        return Err(
            el.error("random I/O cannot be combined with ParallelAsyncIO or InterlockedSequential")
        );
    }
    // <RandomRatio> alone is DiskSpd's -rs without -r: random offsets aligned to the block size.
    let align = match random {
        Some(random) => {
            let align = random.number()?;
            if align == 0 {
                return Err(random.error("the alignment must be greater than 0"));
            }
            align
        }
        None => block,
    };
    Ok(Access::Random {
        align,
        ratio: ratio.unwrap_or(100),
    })
}

fn distribution(el: &Element) -> Result<Option<Distribution>, XmlError> {
    let Some(d) = el.child("Distribution")? else {
        return Ok(None);
    };
    let (kind, ranges_el) = match (d.child("Percent")?, d.child("Absolute")?) {
        (Some(p), None) => (DistributionKind::Percent, p),
        (None, Some(a)) => (DistributionKind::Absolute, a),
        _ => return Err(d.error("needs exactly one of <Percent> or <Absolute>")),
    };
    d.only(&["Percent", "Absolute"])?;
    let mut ranges = Vec::new();
    for r in ranges_el.all("Range") {
        let io_percent = r
            .attr("IO")
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|&v| v <= 100)
            .ok_or_else(|| r.error("needs an IO attribute from 0 to 100"))?;
        ranges.push(DistributionRange {
            io_percent,
            span: r.number()?,
        });
    }
    ranges_el.only(&["Range"])?;
    if ranges.is_empty() {
        return Err(ranges_el.error("needs at least one <Range>"));
    }
    Ok(Some(Distribution { kind, ranges }.complete()))
}

fn write_buffer(el: &Element) -> Result<WriteBuffer, XmlError> {
    let Some(content) = el.child("WriteBufferContent")? else {
        return Ok(WriteBuffer::Pattern);
    };
    let pattern = content.required("Pattern")?;
    let buffer = match pattern.text.as_str() {
        "sequential" => WriteBuffer::Pattern,
        "zero" => WriteBuffer::Zero,
        "repeat" => {
            let bytes = content.required("RepeatBytes")?;
            let hex = crate::profile::parse_pattern(&format!("0x{}", bytes.text.trim()))
                .map_err(|why| bytes.error(why))?;
            WriteBuffer::Repeat { hex }
        }
        "random" => {
            let source = content.required("RandomDataSource")?;
            let size = source.required("SizeInBytes")?.number()?;
            let file = source.child("FilePath")?.map(|f| PathBuf::from(&f.text));
            source.only(&["SizeInBytes", "FilePath"])?;
            WriteBuffer::Source { size, file }
        }
        other => {
            return Err(pattern.error(format!(
                "'{other}' is not sequential, zero, random or repeat"
            )));
        }
    };
    content.only(&["Pattern", "RandomDataSource", "RepeatBytes"])?;
    Ok(buffer)
}
