//! Gathers [`RealityFacts`]: the devices under the targets (sampled at the measured window's
//! edges by the controller), what each target's path does to data, the written data's own
//! compressibility and the time it takes to make.

use std::time::Instant;

use crate::data::fill::WriteFill;
use crate::data::reduce::Compressor;
use crate::profile::{TimeSpan, WriteBuffer};
use crate::rng::Rng;
use crate::stats::reality::{DiskWindow, PathFacts, RealityFacts};
use crate::system::backing::DiskStat;
use crate::system::devclock::{ClockCounts, ClockEdges};
use crate::targets::PreparedTarget;

/// Blocks made to time the data generation.
const TIMED_BLOCKS: u32 = 64;

/// The facts of a timespan, from the device samples taken at the window's edges (and at each
/// interval's end under `-D`, the clock's too).
pub fn facts(
    ts: &TimeSpan,
    targets: &[PreparedTarget],
    before: &[Option<DiskStat>],
    after: &[Option<DiskStat>],
    intervals: &[Vec<Option<DiskStat>>],
    clock: Result<ClockEdges, String>,
    clock_intervals: &[Vec<[ClockCounts; 2]>],
) -> RealityFacts {
    let (clock, clock_off) = match clock {
        Ok(edges) => (Some(edges), None),
        Err(why) => (None, Some(why).filter(|w| !w.is_empty())),
    };
    let disks = crate::targets::devices(targets)
        .into_iter()
        .enumerate()
        .map(|(i, (device, on))| {
            // Each interval from the sample before it; one unreadable sample drops the series.
            let samples: Option<Vec<DiskStat>> = std::iter::once(before.get(i))
                .chain(intervals.iter().map(|s| s.get(i)))
                .map(|s| s.copied().flatten())
                .collect();
            DiskWindow {
                device,
                targets: on,
                window: match (before.get(i), after.get(i)) {
                    (Some(Some(b)), Some(Some(a))) => Some(b.until(a)),
                    _ => None,
                },
                intervals: samples
                    .map(|s| s.windows(2).map(|w| w[0].until(&w[1])).collect())
                    .unwrap_or_default(),
                clock: clock.as_ref().and_then(|(before, after)| {
                    let (b, a) = (before.get(i)?, after.get(i)?);
                    Some([b[0].until(&a[0]), b[1].until(&a[1])])
                }),
                // Each interval from the sample before it, as the counters' are.
                clock_intervals: clock
                    .as_ref()
                    .map(|(before, _)| {
                        std::iter::once(before)
                            .chain(clock_intervals)
                            .filter_map(|s| s.get(i))
                            .collect::<Vec<_>>()
                            .windows(2)
                            .map(|w| [w[0][0].until(&w[1][0]), w[0][1].until(&w[1][1])])
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    let paths = ts
        .targets
        .iter()
        .zip(targets)
        .map(|(target, prepared)| {
            let (data_ratio, generation_ns) = match target.write_ratio > 0 {
                true => {
                    let (ratio, ns) = own_data(ts, target, prepared);
                    (Some(ratio), Some(ns))
                }
                false => (None, None),
            };
            PathFacts {
                fs_type: prepared.mount.as_ref().map(|m| m.fs_type.clone()),
                compression: compression(prepared),
                data_ratio,
                generation_ns,
            }
        })
        .collect();
    RealityFacts {
        disks,
        paths,
        clock_off,
    }
}

/// Compression between the target and the storage: zram compresses every page it stores, btrfs
/// mounted with `compress`/`compress-force` compresses extents.
fn compression(prepared: &PreparedTarget) -> Option<String> {
    if let Some(device) = &prepared.device
        && device.name.starts_with("zram")
    {
        let algorithm = std::fs::read_to_string(device.sysfs.join("comp_algorithm")).ok();
        let active = algorithm.as_deref().and_then(|a| {
            a.split_whitespace()
                .find(|s| s.starts_with('['))
                .map(|s| s.trim_matches(|c| c == '[' || c == ']').to_string())
        });
        return Some(format!("zram ({})", active.unwrap_or_else(|| "?".into())));
    }
    let mount = prepared.mount.as_ref()?;
    match mount.fs_type.as_str() {
        "btrfs" => mount
            .options
            .split(',')
            .find(|o| o.starts_with("compress"))
            .map(|o| format!("btrfs {o}")),
        "zfs" => Some("ZFS (compression is a dataset property: zfs get compression)".into()),
        _ => None,
    }
}

/// One written block as the run makes it: its lz4 ratio, and the time to make one, ns (the mean
/// over [`TIMED_BLOCKS`]). `--dedupe`'s units are timed without its tracker, which must only
/// count the run's writes.
fn own_data(
    ts: &TimeSpan,
    target: &crate::profile::Target,
    prepared: &PreparedTarget,
) -> (f64, f64) {
    let block = target.block_size as usize;
    let mut buf: Vec<u8> = match target.write_buffer {
        WriteBuffer::Zero => vec![0; block],
        _ => (0..block).map(|i| i as u8).collect(),
    };
    let fill = match crate::worker::build::write_fill(ts, target, prepared) {
        WriteFill::Deduped { data, .. } => WriteFill::Compressible(data),
        fill => fill,
    };
    let mut rng = Rng::new(u64::from(ts.seed) ^ 0x7ea1);
    let started = Instant::now();
    for i in 0..TIMED_BLOCKS {
        fill.prepare(&mut buf, &mut rng, u64::from(i) * block as u64);
    }
    let ns = started.elapsed().as_nanos() as f64 / f64::from(TIMED_BLOCKS);
    let packed = Compressor::Lz4.compressed_len(&buf).max(1);
    (block as f64 / packed as f64, ns)
}
