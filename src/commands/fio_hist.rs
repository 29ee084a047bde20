//! fio's completion-latency histogram logs (`write_hist_log` at `log_hist_msec`), made from the
//! HdrHistogram interval log a job's run wrote (`--histlog`): per interval, target and direction a
//! line `msec, direction, block size, <bins>` with fio's 1,856 latency bins (stat.c's
//! `plat_val_to_idx`: values below 128 ns one bin each, then 64 bins per power of two), each the
//! interval's count, summed by `2^log_hist_coarseness` as fio sums them.

use hdrhistogram::serialization::Deserializer;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

/// fio's bins: `FIO_IO_U_PLAT_BITS` 6, `FIO_IO_U_PLAT_VAL` 64, 29 groups.
const PLAT_BITS: u32 = 6;
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// `FIO_IO_U_PLAT_NR`.
pub const PLAT_NR: usize = 29 * PLAT_VAL as usize;

/// fio's bin of a latency in ns (stat.c `plat_val_to_idx`).
pub fn plat_index(ns: u64) -> usize {
    let msb = if ns == 0 { 0 } else { 63 - ns.leading_zeros() };
    if msb <= PLAT_BITS {
        return ns as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) << PLAT_BITS) as usize;
    let offset = ((PLAT_VAL - 1) & (ns >> error_bits)) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// One interval of one target and direction, as fio logs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistLine {
    /// The interval's end, ms from the measured window's start.
    pub end_ms: u64,
    /// 0 reads, 1 writes.
    pub direction: u8,
    /// The bins, summed by the coarseness.
    pub bins: Vec<u64>,
}

/// The lines of target `target` (its index in the run) from interval log `text`, bins summed by
/// `2^coarseness`; intervals without I/O of a direction have no line for it (fio logs a
/// direction only when it completed some).
pub fn lines(text: &[u8], target: usize, coarseness: u8) -> Result<Vec<HistLine>, String> {
    use base64::Engine as _;
    let tags = [
        (format!("t{target}-read"), 0),
        (format!("t{target}-write"), 1),
    ];
    let stride = 1usize << coarseness;
    let mut out = Vec::new();
    for entry in IntervalLogIterator::new(text) {
        let LogEntry::Interval(h) = entry.map_err(|e| format!("{e:?}"))? else {
            continue;
        };
        let Some(direction) = h
            .tag()
            .and_then(|t| tags.iter().find(|(name, _)| name == t.as_str()))
            .map(|(_, d)| *d)
        else {
            continue;
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(h.encoded_histogram())
            .map_err(|e| e.to_string())?;
        let histogram: hdrhistogram::Histogram<u64> = Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(|e| format!("{e:?}"))?;
        if histogram.is_empty() {
            continue;
        }
        let mut bins = vec![0u64; PLAT_NR.div_ceil(stride)];
        for v in histogram.iter_recorded() {
            let ns = histogram.median_equivalent(v.value_iterated_to());
            bins[plat_index(ns) / stride] += v.count_at_value();
        }
        let end = h.start_timestamp() + h.duration();
        out.push(HistLine {
            end_ms: end.as_millis() as u64,
            direction,
            bins,
        });
    }
    Ok(out)
}

/// The lines as fio writes them, with `block` as the block-size column.
pub fn render(lines: &[HistLine], block: u64) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    for l in lines {
        let _ = write!(text, "{}, {}, {block}", l.end_ms, l.direction);
        for b in &l.bins {
            let _ = write!(text, ", {b}");
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_bins_are_exact_below_128_ns_then_64_per_power_of_two() {
        // stat.c's own table: the bin's lowest value is plat_idx_to_val's floor.
        for (ns, index) in [
            (0, 0),
            (63, 63),
            (64, 64),
            (127, 127),
            (128, 128),
            (129, 128),
            (130, 129),
            (255, 191),
            (256, 192),
            (1_000, 317),
            (1_000_000, 954),
            (u64::MAX, PLAT_NR - 1),
        ] {
            assert_eq!(plat_index(ns), index, "{ns} ns");
        }
        // Monotonic, and every bin reached in order.
        let mut last = 0;
        for ns in 0..1_000_000u64 {
            let i = plat_index(ns);
            assert!(i == last || i == last + 1, "{ns}: {last} then {i}");
            last = i;
        }
    }

    #[test]
    fn an_interval_log_becomes_fio_lines_with_every_io_counted() {
        let mut log = Vec::new();
        let mut read = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for ns in [1_000, 1_000, 2_000, 50_000] {
            read.record(ns).unwrap();
        }
        let mut encoded = Vec::new();
        use hdrhistogram::serialization::Serializer as _;
        hdrhistogram::serialization::V2Serializer::new()
            .serialize(&read, &mut encoded)
            .unwrap();
        use base64::Engine as _;
        let text = base64::engine::general_purpose::STANDARD.encode(&encoded);
        log.extend_from_slice(b"#[StartTime: 1700000000.000 (seconds since epoch)]\n");
        log.extend_from_slice(
            b"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
        );
        log.extend_from_slice(format!("Tag=t0-read,0.000,1.000,0.050,{text}\n").as_bytes());
        log.extend_from_slice(format!("Tag=t1-read,0.000,1.000,0.050,{text}\n").as_bytes());
        log.extend_from_slice(format!("Tag=t0-read,1.000,0.500,0.050,{text}\n").as_bytes());
        let lines = lines(&log, 0, 0).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].end_ms, lines[1].end_ms), (1000, 1500));
        assert_eq!(lines[0].bins.len(), PLAT_NR);
        assert_eq!(lines[0].bins.iter().sum::<u64>(), 4);
        assert_eq!(lines[0].bins[plat_index(1_000)], 2);
        let coarse = super::lines(&log, 0, 2).unwrap();
        assert_eq!(coarse[0].bins.len(), PLAT_NR / 4);
        assert_eq!(coarse[0].bins[plat_index(1_000) / 4], 2);
        let text = render(&lines[..1], 4096);
        assert!(text.starts_with("1000, 0, 4096, 0, "), "{}", &text[..40]);
        assert_eq!(text.trim_end().split(", ").count(), 3 + PLAT_NR);
    }
}
