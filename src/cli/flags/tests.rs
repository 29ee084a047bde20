use std::path::PathBuf;

use super::*;
use crate::engine::EngineKind;
use crate::profile::raw::{RawArgs, WriteBufferArg};
use crate::profile::{
    Batch, BufferSeparation, CacheMode, DistributionKind, Efficiency, IoPriority, IoRing,
    ResultFormat, Throughput,
};
use crate::units::Size;

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
    let hints = apply("-frs").unwrap().hints.unwrap();
    assert!(hints.random_access && hints.sequential_scan && !hints.temporary);
    // One by one, as DiskSpd takes them; a hint given twice is refused.
    let mut raw = RawArgs::default();
    apply_to("-fs", &mut raw).unwrap();
    apply_to("-ft", &mut raw).unwrap();
    let hints = raw.hints.unwrap();
    assert!(!hints.random_access && hints.sequential_scan && hints.temporary);
    assert!(
        apply_to("-frs", &mut raw)
            .unwrap_err()
            .contains("'s' was already given")
    );
    assert!(apply("-fss").is_err());
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
    assert!(apply("-vs").unwrap().verbose_stats);
    assert!(apply("-vx").is_err());
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
    assert_eq!(apply("-o32768").unwrap().outstanding, Some(32768));
    assert!(apply("-o32769").is_err());
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
    assert_eq!(apply("-rs50").unwrap().random_ratio, Some(50));
    assert!(apply("-rs0").is_err());
    assert!(apply("-rs101").is_err());
}

#[test]
fn result_format() {
    assert_eq!(
        apply("-Rtext").unwrap().result_format,
        Some(ResultFormat::Text)
    );
    assert_eq!(
        apply("-Rxml").unwrap().result_format,
        Some(ResultFormat::Xml)
    );
    assert_eq!(
        apply("-Rjson").unwrap().result_format,
        Some(ResultFormat::Json)
    );
    let raw = apply("-Rp").unwrap();
    assert!(raw.print_profile && raw.result_format.is_none());
    let raw = apply("-Rpxml").unwrap();
    assert!(raw.print_profile && raw.result_format == Some(ResultFormat::Xml));
    let raw = apply("-Rsjson").unwrap();
    assert!(raw.print_system && raw.result_format == Some(ResultFormat::Json));
    assert!(apply("-Rcsv").is_err());
    assert!(apply("-R").is_err());
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
    assert_eq!(
        apply("-Z1M,").unwrap().write_buffers,
        Some(WriteBufferArg::Source {
            size: Size::Bytes(1 << 20),
            file: None
        }),
        "DiskSpd reads nothing after the comma as no file"
    );
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

#[test]
fn experiment_flags() {
    assert_eq!(apply("-:1").unwrap().experiment_flags, Some(1));
    assert_eq!(apply("-:0x10").unwrap().experiment_flags, Some(16));
    assert!(apply("-:x").is_err());
    assert!(apply("-:").is_err());
}

#[test]
fn affinity_orderings() {
    let raw = apply("-acsE").unwrap();
    assert!(raw.core_aware && raw.span_groups && raw.affinity_given);
    assert_eq!(raw.efficiency, Some(Efficiency::FillEFirst));
    assert_eq!(
        apply("-aup").unwrap().efficiency,
        Some(Efficiency::Unordered)
    );
    assert_eq!(
        apply("-aPc").unwrap().efficiency,
        Some(Efficiency::FillPFirst)
    );
    assert_eq!(apply("-ap").unwrap().efficiency, Some(Efficiency::PFirst));
    assert_eq!(apply("-ae").unwrap().efficiency, Some(Efficiency::EFirst));
    assert!(apply("-apE").unwrap_err().contains("give one"));
    assert!(apply("-au").is_err());
    assert!(apply("-aq").unwrap_err().contains("not an affinity letter"));
}

#[test]
fn buffer_separation() {
    assert_eq!(
        apply("-bsn").unwrap().buffer_separation,
        Some(BufferSeparation::SystemDefault)
    );
    assert_eq!(
        apply("-bsp").unwrap().buffer_separation,
        Some(BufferSeparation::ThreadOptimized)
    );
    assert!(apply("-bsx").is_err());
}

#[test]
fn counters() {
    let raw = apply("-eDISK_IO").unwrap();
    assert!(raw.counters.disk_io && !raw.counters.network);
    let mut raw = RawArgs::default();
    for token in [
        "-eNETWORK",
        "-eMEMORY_PAGE_FAULTS",
        "-eq",
        "-ep",
        "-ePROCESS",
    ] {
        apply_to(token, &mut raw).unwrap();
    }
    assert!(
        raw.counters.network && raw.counters.memory_page_faults && raw.counters.use_paged_memory
    );
    assert!(
        apply_to("-eNETWORK", &mut raw)
            .unwrap_err()
            .contains("already given")
    );
    assert!(apply_to("-es", &mut raw).is_err(), "one clock");
    assert!(apply("-eFOO").is_err());
    assert!(apply("-e").is_err());
}

#[test]
fn bursts_priority_large_pages() {
    assert_eq!(apply("-i100").unwrap().burst_size, Some(100));
    assert!(apply("-i0").is_err());
    assert_eq!(apply("-j10").unwrap().think_time, Some(10_000));
    assert_eq!(apply("-j10ms").unwrap().think_time, Some(10_000));
    assert_eq!(apply("-j250us").unwrap().think_time, Some(250));
    assert!(apply("-j0us").is_err());
    assert!(apply("-j1.5").is_err());
    assert!(apply("-j").is_err());
    assert_eq!(apply("-I1").unwrap().io_priority, Some(IoPriority::VeryLow));
    assert_eq!(apply("-I3").unwrap().io_priority, Some(IoPriority::Normal));
    assert!(apply("-I4").is_err());
    assert!(apply("-l").unwrap().large_pages);
    assert!(apply("-l2").is_err());
}

#[test]
fn memory_mapped_and_flush() {
    assert!(apply("-Sm").unwrap().memory_mapped);
    let raw = apply("-Smw").unwrap();
    assert!(raw.memory_mapped && raw.write_through == Some(true));
    assert_eq!(
        apply("-Nv").unwrap().flush,
        Some(crate::profile::FlushMode::ViewOfFile)
    );
    assert_eq!(
        apply("-Nn").unwrap().flush,
        Some(crate::profile::FlushMode::NonVolatileMemory)
    );
    assert_eq!(
        apply("-Ni").unwrap().flush,
        Some(crate::profile::FlushMode::NonVolatileMemoryNoDrain)
    );
    assert!(apply("-Nx").is_err());
}

#[test]
fn completion_depth_and_requests_per_thread() {
    assert_eq!(apply("-oc8").unwrap().completion_depth, Some(8));
    assert!(apply("-oc17").is_err());
    assert!(apply("-oc0").is_err());
    assert_eq!(apply("-O64").unwrap().requests_per_thread, Some(64));
    assert!(apply("-O0").is_err());
}

#[test]
fn parallel() {
    assert!(apply("-p").unwrap().parallel);
    assert!(apply("-p1").is_err());
}

#[test]
fn distributions() {
    let d = apply("-rdpct90/10:0/10:5/20")
        .unwrap()
        .distribution
        .unwrap();
    assert_eq!(d.kind, DistributionKind::Percent);
    assert_eq!(
        d.ranges,
        vec![
            (90, Size::Bytes(10)),
            (0, Size::Bytes(10)),
            (5, Size::Bytes(20))
        ]
    );
    let d = apply("-rdabs90/10G:10/1G").unwrap().distribution.unwrap();
    assert_eq!(d.kind, DistributionKind::Absolute);
    assert_eq!(
        d.ranges,
        vec![(90, Size::Bytes(10 << 30)), (10, Size::Bytes(1 << 30))]
    );
    // DiskSpd's CmdLineParser tests: a zero target share is refused in any position, a zero
    // I/O share is a hole.
    for zero in [
        "-rdpct10/0",
        "-rdpct60/10:10/0",
        "-rdabs10/0",
        "-rdabs60/10g:10/0",
    ] {
        assert!(apply(zero).is_err(), "{zero} must be refused");
    }
    assert!(apply("-rdpct90").is_err());
    assert!(apply("-rdpct101/10").is_err());
    assert!(apply("-rdpct90/10G").is_err());
    assert!(apply("-rdxyz90/10").is_err());
    assert!(apply("-rdpct").is_err());
}

#[test]
fn io_ring() {
    let ring = |t| apply(t).unwrap().io_ring.unwrap();
    assert_eq!(
        ring("-u"),
        IoRing {
            batch: Batch::Percent(25),
            registered_buffers: true
        }
    );
    assert_eq!(
        ring("-u8"),
        IoRing {
            batch: Batch::Count(8),
            registered_buffers: true
        }
    );
    assert_eq!(
        ring("-u50p"),
        IoRing {
            batch: Batch::Percent(50),
            registered_buffers: true
        }
    );
    assert_eq!(
        ring("-un"),
        IoRing {
            batch: Batch::Percent(25),
            registered_buffers: false
        }
    );
    assert_eq!(
        ring("-un16"),
        IoRing {
            batch: Batch::Count(16),
            registered_buffers: false
        }
    );
    assert!(apply("-u0").is_err());
    assert!(apply("-u101p").is_err());
    assert!(apply("-ux").is_err());
}

#[test]
fn completion_routines_are_refused() {
    assert!(apply("-x").unwrap_err().contains("Windows mechanism"));
}

#[test]
fn xml_profile() {
    assert_eq!(
        apply("-Xp.xml").unwrap().xml_profile,
        Some(PathBuf::from("p.xml"))
    );
    assert!(apply("-X").is_err());
}

#[test]
fn events() {
    let raw = apply("-ysStart").unwrap();
    assert_eq!(raw.events.signal_start.as_deref(), Some("Start"));
    assert_eq!(
        apply("-yfDone").unwrap().events.signal_finish.as_deref(),
        Some("Done")
    );
    assert_eq!(
        apply("-yrGo").unwrap().events.wait_start.as_deref(),
        Some("Go")
    );
    assert_eq!(
        apply("-ypStop").unwrap().events.stop_on.as_deref(),
        Some("Stop")
    );
    assert_eq!(apply("-yeGo").unwrap().set_event.as_deref(), Some("Go"));
    assert!(apply("-ys").is_err());
    assert!(apply("-ys../x").is_err());
    assert!(apply("-yq1").is_err());
}

#[test]
fn outputs() {
    let flag = find_long("output").unwrap();
    let mut raw = RawArgs::default();
    (flag.apply)(Some("a.json"), &mut raw).unwrap();
    (flag.apply)(Some("b.xml"), &mut raw).unwrap();
    (flag.apply)(Some("c.txt"), &mut raw).unwrap();
    assert_eq!(raw.outputs.len(), 3);
    assert!(
        (flag.apply)(Some("a.json"), &mut raw)
            .unwrap_err()
            .contains("already")
    );
    assert!(
        (flag.apply)(Some("d.dat"), &mut raw)
            .unwrap_err()
            .contains(".txt, .xml, .json, .html or .csv")
    );
    assert!((flag.apply)(None, &mut raw).is_err());
}

/// A long option and its value, as the command line gives them.
fn apply_long(token: &str) -> Result<RawArgs, String> {
    let mut raw = RawArgs::default();
    let (name, value) = token[2..].split_once('=').unwrap_or((&token[2..], ""));
    let flag = find_long(name).expect("long option in table");
    (flag.apply)(Some(value), &mut raw)?;
    Ok(raw)
}

#[test]
fn metrics_address() {
    let raw = apply_long("--metrics=9464").unwrap();
    assert_eq!(raw.metrics, Some("127.0.0.1:9464".parse().unwrap()));
    let raw = apply_long("--metrics=:9464").unwrap();
    assert_eq!(raw.metrics, Some("127.0.0.1:9464".parse().unwrap()));
    let raw = apply_long("--metrics=0.0.0.0:9100").unwrap();
    assert_eq!(raw.metrics, Some("0.0.0.0:9100".parse().unwrap()));
    let raw = apply_long("--metrics=[::1]:9100").unwrap();
    assert_eq!(raw.metrics, Some("[::1]:9100".parse().unwrap()));
    for bad in [
        "--metrics=",
        "--metrics=x",
        "--metrics=1.2.3.4",
        "--metrics=99999",
    ] {
        let error = apply_long(bad).unwrap_err();
        assert!(error.contains("--metrics=9464"), "{bad}: {error}");
    }
}

#[test]
fn work_bounds_and_the_random_map() {
    assert_eq!(apply_long("--ios=1000").unwrap().work_ios, Some(1000));
    assert_eq!(
        apply_long("--bytes=2G").unwrap().work_bytes,
        Some(Size::Bytes(2 << 30))
    );
    assert_eq!(
        apply_long("--bytes=8b").unwrap().work_bytes,
        Some(Size::Blocks(8))
    );
    assert_eq!(apply_long("--bytes=300%").unwrap().work_percent, Some(300));
    for bad in [
        "--ios=0",
        "--ios=",
        "--ios=1k",
        "--bytes=0",
        "--bytes=",
        "--bytes=0b",
        "--bytes=0%",
        "--bytes=x%",
    ] {
        assert!(apply_long(bad).is_err(), "{bad}");
    }
    let flag = find_long("random-map").unwrap();
    let mut raw = RawArgs::default();
    (flag.apply)(None, &mut raw).unwrap();
    assert!(raw.random_map);
    assert!((flag.apply)(Some("1"), &mut RawArgs::default()).is_err());
}
