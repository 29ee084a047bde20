//! Where the time went on a device: per direction iospd used on it, the device's own time per
//! request beside iospd's latency on the targets on it over the same window, and the difference
//! (the stack above the device). The means come from `/sys/block/<dev>/stat`, which needs no
//! privilege; the device clock, when it ran, times each request and gives the percentiles.

use crate::report::analysis::metric::PickDirection;
use crate::report::{DeviceTime, IntervalTime, Measured, RequestTimes, Spread};
use crate::system::backing::DiskStat;
use crate::system::devclock::ClockCounts;

/// The least summed device time (ms, as `/sys/block/<dev>/stat` prints it) a mean is taken from.
const MIN_DEVICE_MS: u64 = 50;

/// Each direction iospd used on a device (the targets `paths`): its time per request from the
/// block layer's accounting (`reached`) and, when the clock ran, each request's (`clock`: read,
/// write).
pub fn device_time(
    reached: Option<&DiskStat>,
    clock: Option<&[ClockCounts; 2]>,
    bio_based: bool,
    paths: &[String],
    m: &Measured,
) -> Vec<DeviceTime> {
    let directions: [(&str, PickDirection); 2] = [("read", |d| &d.read), ("write", |d| &d.write)];
    directions
        .into_iter()
        .enumerate()
        .filter_map(|(i, (name, pick))| {
            let latencies: Vec<_> = m
                .targets
                .iter()
                .filter(|t| paths.contains(&t.path))
                .filter_map(|t| pick(&t.directions).latency.as_ref())
                .collect();
            // iospd's mean over its targets on the device, weighted by their I/Os.
            let (sum, count) = latencies.iter().fold((0.0, 0u64), |(s, n), l| {
                (s + l.mean_ns * l.count as f64, n + l.count)
            });
            if count == 0 {
                return None;
            }
            let iospd_mean = sum / count as f64;
            let (requests, ms) = reached.map_or((0, 0), |s| match i {
                0 => (s.reads, s.read_ms),
                _ => (s.writes, s.write_ms),
            });
            let timed = clock
                .map(|c| &c[i])
                .filter(|c| c.requests() > 0)
                .and_then(|c| request_times(c, &latencies, iospd_mean))
                .map(|t| RequestTimes {
                    completed: reached.map(|_| requests),
                    ..t
                });
            // The kernel prints the summed time in whole ms: from 50 ms on, the truncation of
            // the two samples moves the mean by under 2 %.
            let from_stat = requests > 0 && ms >= MIN_DEVICE_MS;
            if !from_stat && timed.is_none() {
                return None;
            }
            let device = match from_stat {
                true => ms as f64 * 1e6 / requests as f64,
                // Too little summed time for the stat's mean: the clock's, queue included.
                false => timed.as_ref().map_or(0.0, |t| {
                    t.device.mean_ns + t.queued.map_or(0.0, |q| q.mean_ns)
                }),
            };
            Some(DeviceTime {
                direction: name.into(),
                requests: match from_stat {
                    true => requests,
                    false => timed.as_ref().map_or(0, |t| t.requests),
                },
                bio_based,
                device_mean_ns: device,
                iospd_mean_ns: iospd_mean,
                stack_mean_ns: iospd_mean - device,
                clock: timed,
            })
        })
        .collect()
}

/// One interval's requests, per direction that had any: the device clock's counts `clock` (read,
/// write) over it.
pub fn interval_times(clock: &[ClockCounts; 2]) -> Vec<IntervalTime> {
    ["read", "write"]
        .iter()
        .zip(clock)
        .filter_map(|(direction, c)| {
            let s = c.summary()?;
            Some(IntervalTime {
                direction: direction.to_string(),
                requests: s.requests,
                mean_ns: s.mean_ns,
                p50_ns: s.p50_ns,
                p99_ns: s.p99_ns,
                max_ns: s.max_ns,
            })
        })
        .collect()
}

/// The clock's distribution of one direction beside iospd's own (`latencies`, one per target on
/// the device, merged).
fn request_times(
    c: &ClockCounts,
    latencies: &[&crate::report::Latency],
    iospd_mean: f64,
) -> Option<RequestTimes> {
    let requests = c.requests();
    let spread = |queue: bool, mean: f64| -> Option<Spread> {
        Some(Spread {
            mean_ns: mean,
            p50_ns: c.percentile(queue, 50.0)?,
            p99_ns: c.percentile(queue, 99.0)?,
            p99_9_ns: c.percentile(queue, 99.9)?,
            max_ns: c.percentile(queue, 100.0)?,
        })
    };
    let device = spread(false, c.device_ns as f64 / requests as f64)?;
    let queued_n: u64 = c.queue.iter().map(|b| b.1).sum();
    let queued = (queued_n > 0)
        .then(|| spread(true, c.queue_ns as f64 / queued_n as f64))
        .flatten();
    let mut merged: Option<crate::stats::histogram::LatencyHistogram> = None;
    for l in latencies {
        let h = l.histogram().ok()?;
        match &mut merged {
            Some(m) => m.merge(&h),
            None => merged = Some(h),
        }
    }
    let merged = merged?;
    let p = merged.percentiles(&[0.5, 0.99, 0.999]);
    // The curves, as far as the fewer samples of the two reach.
    let reach = (requests.min(merged.count()).max(1) as f64)
        .log10()
        .floor()
        .clamp(1.0, 9.0);
    let steps: Vec<f64> = (0..=(reach * 20.0) as u32)
        .map(|i| i as f64 / 20.0)
        .collect();
    let fractions: Vec<f64> = steps.iter().map(|n| 1.0 - 10f64.powf(-n)).collect();
    let device_curve = steps
        .iter()
        .zip(&fractions)
        .filter_map(|(&n, &f)| Some((n, c.percentile(false, f * 100.0)?)))
        .collect();
    let iospd_curve = steps
        .iter()
        .zip(merged.percentiles(&fractions))
        .map(|(&n, ns)| (n, ns as f64))
        .collect();
    let iospd = Spread {
        mean_ns: iospd_mean,
        p50_ns: p[0] as f64,
        p99_ns: p[1] as f64,
        p99_9_ns: p[2] as f64,
        max_ns: merged.max() as f64,
    };
    Some(RequestTimes {
        requests,
        // Not sampled: every request timed (the two counts differ only by reading's race).
        timed: match c.sampled {
            0 => requests,
            _ => c.timed.min(requests),
        },
        completed: None,
        device,
        queued,
        stack: iospd.minus(&device),
        iospd,
        device_curve,
        iospd_curve,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::neighbours::tests::measured;
    use crate::system::devclock::bounds;

    #[test]
    fn the_device_time_is_the_block_layer_s_mean_and_the_stack_is_what_iospd_adds() {
        let m = measured(&[(1e5, None, None, 0)], 0.0);
        let path = m.targets[0].path.clone();
        let read = m.targets[0].directions.read.latency.clone().unwrap();
        // 40,000 reads that took 2,236 ms in all: 55.9 µs a request.
        let stat = DiskStat {
            reads: 40_000,
            read_ms: 2_236,
            ..DiskStat::default()
        };
        let time = device_time(Some(&stat), None, false, std::slice::from_ref(&path), &m);
        assert_eq!(time.len(), 1, "no writes, no write time: {time:?}");
        let t = &time[0];
        assert_eq!((t.direction.as_str(), t.requests), ("read", 40_000));
        assert!((t.device_mean_ns - 55_900.0).abs() < 1e-6, "{t:?}");
        assert_eq!(t.iospd_mean_ns, read.mean_ns);
        assert_eq!(t.stack_mean_ns, read.mean_ns - 55_900.0);
        // Another device's targets, or no counters: nothing.
        assert!(device_time(Some(&stat), None, false, &["/elsewhere".into()], &m).is_empty());
        assert!(device_time(None, None, false, std::slice::from_ref(&path), &m).is_empty());
        // Too little summed time for a mean the kernel's whole milliseconds can carry.
        let short = DiskStat {
            reads: 400,
            read_ms: 22,
            ..DiskStat::default()
        };
        assert!(device_time(Some(&short), None, false, &[path], &m).is_empty());
    }

    #[test]
    fn the_clock_gives_the_device_s_percentiles_and_the_stack_at_each() {
        let m = measured(&[(1e5, None, None, 0)], 0.0);
        let path = m.targets[0].path.clone();
        let read = m.targets[0].directions.read.latency.clone().unwrap();
        // 1,000 requests: 990 in the bucket of 50 µs, 9 in that of 200 µs, 1 of 3 ms (the
        // longest); 1,000 queued 100 ns each.
        let bucket = |ns: u64| {
            (0..crate::system::devclock::BUCKETS)
                .find(|&b| bounds(b).1 >= ns)
                .unwrap()
        };
        let middle = |ns: u64| {
            let (low, high) = bounds(bucket(ns));
            (low + high) as f64 / 2.0
        };
        let reads = ClockCounts {
            device: vec![
                (bucket(50_000), 990),
                (bucket(200_000), 9),
                (bucket(3_000_000), 1),
            ],
            queue: vec![(100, 1000)],
            device_ns: 990 * 50_000 + 9 * 200_000 + 3_000_000,
            queue_ns: 100_000,
            longest_ns: 3_000_000,
            ..ClockCounts::default()
        };
        let clock = [reads, ClockCounts::default()];
        let time = device_time(None, Some(&clock), false, std::slice::from_ref(&path), &m);
        assert_eq!(time.len(), 1, "no writes timed or made: {time:?}");
        let t = time[0].clock.as_ref().unwrap();
        assert_eq!(t.requests, 1000);
        assert_eq!(t.timed, 1000, "not sampled: each request timed");
        assert_eq!(t.device.mean_ns, 54_300.0);
        assert_eq!(t.device.p50_ns, middle(50_000));
        assert_eq!(t.device.p99_ns, middle(50_000));
        assert_eq!(t.device.p99_9_ns, middle(200_000));
        assert_eq!(t.device.max_ns, 3_000_000.0);
        assert!((t.device.p50_ns / 50_000.0 - 1.0).abs() < 0.004, "{t:?}");
        let q = t.queued.unwrap();
        assert_eq!((q.mean_ns, q.p50_ns, q.max_ns), (100.0, 100.0, 100.0));
        assert_eq!(t.iospd.mean_ns, read.mean_ns);
        assert_eq!(t.iospd.max_ns, read.max_ns as f64);
        let p50 = read
            .percentiles
            .iter()
            .find(|p| p.percentile == 50.0)
            .unwrap();
        assert_eq!(t.iospd.p50_ns, p50.value_ns as f64, "{t:?}");
        assert_eq!(t.stack.p50_ns, t.iospd.p50_ns - t.device.p50_ns);
        assert_eq!(t.stack.mean_ns, read.mean_ns - 54_300.0);
        // Without /sys/block's sums, the mean of the device and its queue stands in.
        assert_eq!(time[0].device_mean_ns, 54_400.0);
        assert_eq!(time[0].requests, 1000);
    }
}
