//! Latency histogram: an HdrHistogram (3 significant digits, 1 ns to 1 hour, fixed memory) plus
//! exact count, min, max, sum and sum of squares, so means and deviations are exact and percentiles
//! are within 0.1 %. Its first [`FEW`] samples are kept as they are, in a few bytes, and moved into
//! the HdrHistogram's counts (about 0.5 MiB) when one more comes: a run over tens of thousands of
//! files, each taking a few I/Os, keeps a histogram per file and direction without gigabytes.
//! Every number read from it is the same either way: a kept sample reads as the value of its
//! HdrHistogram bucket.

use std::sync::OnceLock;

use hdrhistogram::Histogram;

/// The largest latency tracked with full precision (larger values are clamped into the top bucket;
/// the exact maximum is still kept).
pub const HIGHEST_TRACKABLE_NS: u64 = 3_600_000_000_000;

/// The samples kept as they are before the counts are allocated.
pub const FEW: usize = 64;

/// A histogram of iospd's bounds.
fn counts() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_TRACKABLE_NS, 3).expect("constant bounds are valid")
}

/// An empty histogram of iospd's bounds, for the bucket arithmetic of kept samples.
fn shape() -> &'static Histogram<u64> {
    static SHAPE: OnceLock<Histogram<u64>> = OnceLock::new();
    SHAPE.get_or_init(counts)
}

/// The value of the bucket a sample is counted in: the highest equivalent to it; a sample past
/// the counts is counted as the highest trackable value (as `saturating_record` counts it).
fn bucket_of(ns: u64) -> u64 {
    static FITS: OnceLock<u64> = OnceLock::new();
    // The largest value the counts hold, found once by trying.
    let fits = *FITS.get_or_init(|| {
        let mut scratch = counts();
        let (mut low, mut high) = (HIGHEST_TRACKABLE_NS, u64::MAX);
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            match scratch.record(mid) {
                Ok(()) => {
                    scratch.reset();
                    low = mid;
                }
                Err(_) => high = mid - 1,
            }
        }
        low
    });
    let shape = shape();
    match ns {
        ns if ns > fits => shape.highest_equivalent(HIGHEST_TRACKABLE_NS),
        ns => shape.highest_equivalent(ns.max(1)),
    }
}

/// Where the samples are.
#[derive(Debug, Clone)]
enum Samples {
    /// At most [`FEW`], as recorded.
    Few(Vec<u64>),
    /// In the HdrHistogram's counts.
    Counted(Box<Histogram<u64>>),
}

/// Latencies of one direction on one target in one thread.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    samples: Samples,
    min: u64,
    max: u64,
    sum: u128,
    sum_of_squares: u128,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for LatencyHistogram {
    fn eq(&self, other: &Self) -> bool {
        self.buckets() == other.buckets()
            && (self.min, self.max, self.sum, self.sum_of_squares)
                == (other.min, other.max, other.sum, other.sum_of_squares)
    }
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        LatencyHistogram {
            samples: Samples::Few(Vec::new()),
            min: u64::MAX,
            max: 0,
            sum: 0,
            sum_of_squares: 0,
        }
    }

    /// Bytes one histogram takes once it holds more than [`FEW`] samples (its counts array for
    /// 1 ns .. 1 h at 3 significant digits).
    pub fn footprint() -> usize {
        static BYTES: OnceLock<usize> = OnceLock::new();
        *BYTES.get_or_init(|| {
            std::mem::size_of::<LatencyHistogram>()
                + shape().distinct_values() * std::mem::size_of::<u64>()
        })
    }

    /// Bytes a histogram takes that holds at most `samples` samples (`None`: any number).
    pub fn footprint_for(samples: Option<u64>) -> usize {
        match samples {
            Some(n) if n <= FEW as u64 => {
                std::mem::size_of::<LatencyHistogram>() + FEW * std::mem::size_of::<u64>()
            }
            _ => Self::footprint(),
        }
    }

    /// The counts, allocated now if the samples were kept as they are.
    fn counted(&mut self) -> &mut Histogram<u64> {
        if let Samples::Few(few) = &self.samples {
            let mut histogram = counts();
            for &ns in few {
                histogram.saturating_record(ns.max(1));
            }
            self.samples = Samples::Counted(Box::new(histogram));
        }
        match &mut self.samples {
            Samples::Counted(histogram) => histogram,
            Samples::Few(_) => unreachable!("counted above"),
        }
    }

    /// Records one latency in nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        match &mut self.samples {
            Samples::Few(few) if few.len() < FEW => few.push(ns),
            Samples::Few(_) => self.counted().saturating_record(ns.max(1)),
            Samples::Counted(histogram) => histogram.saturating_record(ns.max(1)),
        }
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += ns as u128;
        self.sum_of_squares += ns as u128 * ns as u128;
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        match &self.samples {
            Samples::Few(few) => few.len() as u64,
            Samples::Counted(histogram) => histogram.len(),
        }
    }

    /// Each bucket that holds samples, ascending: the highest value equivalent to it (as
    /// HdrHistogram's iteration gives it) and its count.
    fn buckets(&self) -> Vec<(u64, u64)> {
        match &self.samples {
            Samples::Counted(histogram) => histogram
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect(),
            Samples::Few(few) => {
                let mut values: Vec<u64> = few.iter().map(|&ns| bucket_of(ns)).collect();
                values.sort_unstable();
                let mut buckets: Vec<(u64, u64)> = Vec::with_capacity(values.len());
                for value in values {
                    match buckets.last_mut() {
                        Some((last, count)) if *last == value => *count += 1,
                        _ => buckets.push((value, 1)),
                    }
                }
                buckets
            }
        }
    }

    /// Smallest sample (0 when empty).
    pub fn min(&self) -> u64 {
        if self.count() == 0 { 0 } else { self.min }
    }

    /// Largest sample.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Exact mean in nanoseconds (0 when empty).
    pub fn mean(&self) -> f64 {
        match self.count() {
            0 => 0.0,
            n => self.sum as f64 / n as f64,
        }
    }

    /// Exact population standard deviation in nanoseconds.
    pub fn stddev(&self) -> f64 {
        let n = self.count();
        if n == 0 {
            return 0.0;
        }
        let n = n as u128;
        // n·Σx² − (Σx)², exact in integers, then one division.
        let spread = (n * self.sum_of_squares).saturating_sub(self.sum * self.sum);
        (spread as f64).sqrt() / n as f64
    }

    /// Percentiles by DiskSpd's nearest-rank rule: for each `p` in `0.0..=1.0` (ascending), the
    /// smallest recorded value whose cumulative count is at least `p × N`, clamped to the exact
    /// min and max. Returns zeros when empty.
    pub fn percentiles(&self, ps: &[f64]) -> Vec<u64> {
        let n = self.count();
        if n == 0 {
            return vec![0; ps.len()];
        }
        let mut out = Vec::with_capacity(ps.len());
        let buckets = self.buckets();
        let mut buckets = buckets.into_iter();
        let mut current = buckets.next().expect("non-empty");
        let mut cumulative = current.1;
        for &p in ps {
            if p <= 0.0 {
                out.push(self.min);
                continue;
            }
            if p >= 1.0 {
                out.push(self.max);
                continue;
            }
            let rank = p * n as f64;
            while (cumulative as f64) < rank {
                match buckets.next() {
                    Some(next) => {
                        cumulative += next.1;
                        current = next;
                    }
                    None => break,
                }
            }
            let value = shape().highest_equivalent(current.0);
            out.push(value.clamp(self.min, self.max));
        }
        out
    }

    /// The distribution on a logarithmic scale: `per_decade` bins per power of ten, each as
    /// (geometric centre in ns, samples in it), from the smallest sample to the largest.
    pub fn log_bins(&self, per_decade: u32) -> Vec<(f64, u64)> {
        if self.count() == 0 {
            return Vec::new();
        }
        let step = 1.0 / per_decade as f64;
        let index = |v: u64| ((v.max(1) as f64).log10() / step).floor() as i64;
        let (first, last) = (index(self.min()), index(self.max()));
        let mut bins = vec![0u64; (last - first + 1) as usize];
        for (at, count) in self.buckets() {
            let value = shape().median_equivalent(at).clamp(self.min(), self.max());
            bins[(index(value) - first) as usize] += count;
        }
        bins.into_iter()
            .enumerate()
            .map(|(i, n)| (10f64.powf((first + i as i64) as f64 * step + step / 2.0), n))
            .collect()
    }

    /// Adds its samples to fixed buckets: `counts[i]` gets the samples above `upper_ns[i - 1]` and
    /// at most `upper_ns[i]` (ascending bounds), and `counts[upper_ns.len()]` those above the last.
    /// A sample counts as the value the percentiles give it (the highest value equivalent to it,
    /// within the exact minimum and maximum), so a percentile lies in the bucket its rank falls in.
    pub fn add_to_buckets(&self, upper_ns: &[u64], counts: &mut [u64]) {
        debug_assert_eq!(counts.len(), upper_ns.len() + 1);
        self.each_value(|value, count| {
            counts[upper_ns.partition_point(|&upper| upper < value)] += count;
        });
    }

    /// Calls `f` with each distinct recorded value (as the percentiles give it: the highest value
    /// equivalent to it, within the exact minimum and maximum) and its count, ascending.
    pub fn each_value(&self, mut f: impl FnMut(u64, u64)) {
        for (at, count) in self.buckets() {
            let value = shape().highest_equivalent(at).clamp(self.min, self.max);
            f(value, count);
        }
    }

    /// Number of distinct recorded values (buckets with a count).
    pub fn distinct_values(&self) -> usize {
        self.buckets().len()
    }

    /// The histogram in HdrHistogram's compressed V2 format, base64-encoded: the encoding the
    /// HdrHistogram libraries and interval logs read, so runs can be merged exactly later.
    pub fn encode_v2(&self) -> String {
        use base64::Engine as _;
        let mut bytes = Vec::new();
        use hdrhistogram::serialization::Serializer as _;
        let mut whole = self.clone();
        hdrhistogram::serialization::V2DeflateSerializer::new()
            .serialize(whole.counted(), &mut bytes)
            .expect("serializing into memory cannot fail");
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// Exact sum of the samples, ns.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Exact sum of the squared samples, ns².
    pub fn sum_of_squares(&self) -> u128 {
        self.sum_of_squares
    }

    /// Rebuilds a histogram written by [`LatencyHistogram::encode_v2`] with its exact moments.
    pub fn decode(
        v2_base64: &str,
        min: u64,
        max: u64,
        sum: u128,
        sum_of_squares: u128,
    ) -> Result<Self, String> {
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(v2_base64)
            .map_err(|e| format!("the histogram is not base64: {e}"))?;
        let payload = bounded_v2(&bytes)?;
        let decoded: Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut payload.as_slice())
            .map_err(|e| format!("the histogram cannot be decoded: {e:?}"))?;
        let mut histogram = counts();
        histogram
            .add(&decoded)
            .map_err(|e| format!("the histogram does not fit: {e:?}"))?;
        let mut h = LatencyHistogram::new();
        if !histogram.is_empty() {
            // The exact extremes must lie in the buckets of the lowest and highest recorded
            // values, or every number computed from them would be wrong.
            let same = |exact: u64, recorded: u64| {
                histogram.lowest_equivalent(exact) == histogram.lowest_equivalent(recorded)
            };
            if min > max || !same(min, histogram.min()) || !same(max, histogram.max()) {
                return Err(format!(
                    "its latency minimum {min} ns and maximum {max} ns do not match its histogram"
                ));
            }
            h.min = min;
            h.max = max;
        }
        h.samples = match histogram.len() {
            // A few samples are kept as their buckets' values, which read back as the same buckets.
            n if n <= FEW as u64 => Samples::Few(
                histogram
                    .iter_recorded()
                    .flat_map(|v| {
                        std::iter::repeat_n(v.value_iterated_to(), v.count_at_value() as usize)
                    })
                    .collect(),
            ),
            _ => Samples::Counted(Box::new(histogram)),
        };
        h.sum = sum;
        h.sum_of_squares = sum_of_squares;
        Ok(h)
    }

    /// Empties it, keeping its memory.
    pub fn clear(&mut self) {
        match &mut self.samples {
            Samples::Few(few) => few.clear(),
            Samples::Counted(histogram) => histogram.reset(),
        }
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.sum_of_squares = 0;
    }

    /// Whether [`LatencyHistogram::merge`] with `other` keeps every count and sum in range.
    pub fn can_merge(&self, other: &LatencyHistogram) -> bool {
        self.count().checked_add(other.count()).is_some()
            && self.sum.checked_add(other.sum).is_some()
            && self
                .sum_of_squares
                .checked_add(other.sum_of_squares)
                .is_some()
    }

    /// Adds another histogram.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        if other.count() == 0 {
            return;
        }
        match (&mut self.samples, &other.samples) {
            (Samples::Few(mine), Samples::Few(theirs)) if mine.len() + theirs.len() <= FEW => {
                mine.extend_from_slice(theirs);
            }
            (_, Samples::Few(theirs)) => {
                let counted = self.counted();
                for &ns in theirs {
                    counted.saturating_record(ns.max(1));
                }
            }
            (_, Samples::Counted(theirs)) => {
                self.counted()
                    .add(&**theirs)
                    .expect("histograms share bounds");
            }
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.sum_of_squares += other.sum_of_squares;
    }
}

/// The largest V2 encoding a histogram of 3 significant digits holds (about 55,000 counts up to
/// 2^63, at most 9 bytes each, and the header): what any result iospd writes stays within.
const V2_MAX_BYTES: usize = 1 << 20;

/// The uncompressed V2 encoding of `bytes` (compressed or not), checked before the decoder sizes
/// anything from it: its header states the length of its counts and the histogram's bounds, and a
/// decoder trusting them allocates what they say (2 GiB for a stated length of 2^31 − 1; a
/// compressed stream of zeros inflates without end).
fn bounded_v2(bytes: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    const COMPRESSED: u32 = 0x1c84_9314;
    const PLAIN: u32 = 0x1c84_9313;
    const HEADER: usize = 40;
    let word = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map(|w| u32::from_be_bytes(w.try_into().expect("four bytes")))
    };
    let damaged = |why: &str| format!("the histogram cannot be decoded: {why}");
    let plain = match word(bytes, 0) {
        Some(COMPRESSED) => {
            let length = word(bytes, 4).ok_or_else(|| damaged("it ends in its header"))? as usize;
            let stream = bytes
                .get(8..8usize.saturating_add(length))
                .ok_or_else(|| damaged("it is shorter than its header says"))?;
            let mut plain = Vec::new();
            flate2::read::ZlibDecoder::new(stream)
                .take(V2_MAX_BYTES as u64 + 1)
                .read_to_end(&mut plain)
                .map_err(|e| damaged(&e.to_string()))?;
            plain
        }
        Some(PLAIN) => bytes.to_vec(),
        _ => return Err(damaged("it is not an HdrHistogram V2 encoding")),
    };
    if plain.len() > V2_MAX_BYTES {
        return Err(damaged(&format!(
            "it holds more than the {V2_MAX_BYTES} bytes any iospd histogram does"
        )));
    }
    if word(&plain, 0) != Some(PLAIN) || plain.len() < HEADER {
        return Err(damaged("its payload is not a V2 encoding"));
    }
    let length = word(&plain, 4).expect("header read") as usize;
    let digits = word(&plain, 12).expect("header read");
    let bound = |at: usize| u64::from_be_bytes(plain[at..at + 8].try_into().expect("eight bytes"));
    let (lowest, highest) = (bound(16), bound(24));
    if length != plain.len() - HEADER {
        return Err(damaged(&format!(
            "its header states {length} bytes of counts and it holds {}",
            plain.len() - HEADER
        )));
    }
    // iospd's histograms keep 3 digits from 1 ns; more digits or a lower bound above an hour
    // would size the decoder's counts from the input.
    if !(1..=3).contains(&digits)
        || lowest == 0
        || lowest > HIGHEST_TRACKABLE_NS
        || highest < 2 * lowest
    {
        return Err(damaged(&format!(
            "its header states {digits} significant digits from {lowest} to {highest}, not a histogram iospd writes"
        )));
    }
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A V2 encoding (compressed when `compress`) with this header and these count bytes.
    fn v2(
        stated: i32,
        digits: i32,
        lowest: u64,
        highest: u64,
        counts: &[u8],
        compress: bool,
    ) -> String {
        use base64::Engine as _;
        use std::io::Write as _;
        let mut plain = Vec::new();
        for word in [0x1c84_9313u32 as i32, stated, 0, digits] {
            plain.extend(word.to_be_bytes());
        }
        plain.extend(lowest.to_be_bytes());
        plain.extend(highest.to_be_bytes());
        plain.extend(1.0f64.to_be_bytes());
        plain.extend(counts);
        let bytes = if compress {
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
            z.write_all(&plain).unwrap();
            let stream = z.finish().unwrap();
            let mut bytes = 0x1c84_9314u32.to_be_bytes().to_vec();
            bytes.extend((stream.len() as u32).to_be_bytes());
            bytes.extend(stream);
            bytes
        } else {
            plain
        };
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn refusal(encoded: &str) -> String {
        LatencyHistogram::decode(encoded, 0, 0, 0, 0).expect_err("a hostile header is refused")
    }

    #[test]
    fn kept_samples_read_as_their_counted_buckets_and_move_into_counts_past_the_few() {
        // Values across the scale: the same bucket twice, sub-µs, ms, past the hour.
        let values = [
            7_404,
            7_405,
            62_007,
            999,
            1,
            0,
            3_000_000,
            4_000_000_000_000,
            123_456_789,
            62_000,
        ];
        let ps = [0.0, 0.1, 0.5, 0.9, 0.99, 0.999_999_999, 1.0];
        for n in 1..=values.len() {
            let mut few = LatencyHistogram::new();
            for &v in &values[..n] {
                few.record(v);
            }
            assert!(matches!(few.samples, Samples::Few(_)));
            let mut counted = few.clone();
            counted.counted();
            assert!(
                few == counted,
                "{n} samples: {:?} {:?}",
                few.buckets(),
                counted.buckets()
            );
            assert_eq!(few.percentiles(&ps), counted.percentiles(&ps), "{n}");
            assert_eq!(few.log_bins(10), counted.log_bins(10), "{n}");
            assert_eq!(few.distinct_values(), counted.distinct_values(), "{n}");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            few.each_value(|v, c| a.push((v, c)));
            counted.each_value(|v, c| b.push((v, c)));
            assert_eq!(a, b, "{n}");
            assert_eq!(few.encode_v2(), counted.encode_v2(), "{n}");
            // Decoded, a few samples are kept again, and read the same (an exact minimum of 0
            // is counted as 1, which the decoder's check of the extremes refuses).
            if few.min > 0 {
                let (min, max, sum, squares) = (few.min, few.max, few.sum, few.sum_of_squares);
                let decoded =
                    LatencyHistogram::decode(&few.encode_v2(), min, max, sum, squares).unwrap();
                assert!(matches!(decoded.samples, Samples::Few(_)));
                assert!(decoded == counted, "{n}: decoded");
            }
            // Merged into a kept one or a counted one, alike.
            let (mut x, mut y) = (few.clone(), counted.clone());
            x.merge(&counted);
            y.merge(&few);
            assert!(x == y, "{n}");
            assert_eq!(x.count(), 2 * n as u64);
        }
        let mut h = LatencyHistogram::new();
        for v in 0..FEW as u64 {
            h.record(1_000 + v);
        }
        assert!(matches!(h.samples, Samples::Few(_)));
        h.record(5);
        assert!(matches!(h.samples, Samples::Counted(_)));
        assert_eq!(
            (h.count(), h.min(), h.max()),
            (FEW as u64 + 1, 5, 1_000 + FEW as u64 - 1)
        );
        assert!(LatencyHistogram::footprint_for(Some(1)) < 1_024);
        assert_eq!(
            LatencyHistogram::footprint_for(Some(FEW as u64 + 1)),
            LatencyHistogram::footprint()
        );
    }

    #[test]
    fn a_stated_length_or_bound_never_sizes_what_is_decoded() {
        // A stated 2 GiB of counts: the decoder would allocate them before finding them missing.
        let said = refusal(&v2(i32::MAX, 3, 1, HIGHEST_TRACKABLE_NS, &[], true));
        assert!(said.contains("states 2147483647 bytes of counts"), "{said}");
        // Five digits up to 2^62: counts of 50 MB from a few bytes of input.
        let said = refusal(&v2(0, 5, 1, 1 << 62, &[], false));
        assert!(said.contains("5 significant digits"), "{said}");
        // 200 MiB of zero counts in a 200 KiB stream: inflated only up to the bound.
        let zeros = vec![0u8; 200 << 20];
        let said = refusal(&v2(
            zeros.len() as i32,
            3,
            1,
            HIGHEST_TRACKABLE_NS,
            &zeros,
            true,
        ));
        assert!(said.contains("more than the 1048576 bytes"), "{said}");
        let said = refusal(&v2(0, 3, 1, HIGHEST_TRACKABLE_NS, &[], true)[..12]);
        assert!(said.contains("cannot be decoded"), "{said}");
    }

    #[test]
    fn an_encoding_iospd_writes_passes_the_bounds_compressed_or_not() {
        let mut h = LatencyHistogram::new();
        h.record(5_000);
        let again =
            LatencyHistogram::decode(&h.encode_v2(), 5_000, 5_000, 5_000, 25_000_000).unwrap();
        assert_eq!(again, h);
        // A plain (uncompressed) V2 encoding with no counts.
        let empty = v2(0, 3, 1, HIGHEST_TRACKABLE_NS, &[], false);
        assert_eq!(
            LatencyHistogram::decode(&empty, 0, 0, 0, 0)
                .unwrap()
                .count(),
            0
        );
    }

    #[test]
    fn exact_moments() {
        let mut h = LatencyHistogram::new();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            h.record(v * 1000);
        }
        assert_eq!(h.count(), 8);
        assert_eq!((h.min(), h.max()), (2000, 9000));
        assert_eq!(h.mean(), 5000.0);
        assert_eq!(h.stddev(), 2000.0, "population standard deviation");
    }

    #[test]
    fn nearest_rank_percentiles() {
        let mut h = LatencyHistogram::new();
        for v in 1..=100u64 {
            h.record(v * 1000);
        }
        let p = h.percentiles(&[0.0, 0.25, 0.5, 0.99, 0.999, 1.0]);
        // p·N = 25 → the 25th value; 99.9 % of 100 = 99.9 → the 100th value.
        let expected = [1000, 25000, 50000, 99000, 100000, 100000];
        for (got, want) in p.iter().zip(expected) {
            let err = (*got as f64 - want as f64).abs() / want as f64;
            assert!(err <= 0.001, "got {got}, want {want}");
        }
        assert_eq!(p[0], 1000, "min is exact");
        assert_eq!(p[5], 100000, "max is exact");
    }

    #[test]
    fn merge_equals_recording_everything_once() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        let mut all = LatencyHistogram::new();
        for v in 0..1000u64 {
            let ns = 1000 + v * v;
            if v % 3 == 0 {
                a.record(ns)
            } else {
                b.record(ns)
            }
            all.record(ns);
        }
        a.merge(&b);
        assert_eq!(a, all);
        let ps = [0.5, 0.9, 0.99];
        assert_eq!(a.percentiles(&ps), all.percentiles(&ps));
    }

    #[test]
    fn huge_values_keep_an_exact_max() {
        let mut h = LatencyHistogram::new();
        h.record(HIGHEST_TRACKABLE_NS * 2);
        h.record(10);
        assert_eq!(h.max(), HIGHEST_TRACKABLE_NS * 2);
        assert_eq!(h.percentiles(&[1.0])[0], HIGHEST_TRACKABLE_NS * 2);
    }

    #[test]
    fn v2_encoding_round_trips() {
        use base64::Engine as _;
        let mut h = LatencyHistogram::new();
        for v in [1_000u64, 2_000, 2_000, 1_000_000] {
            h.record(v);
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(h.encode_v2())
            .unwrap();
        let decoded: Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .unwrap();
        assert_eq!(decoded.len(), 4);
        assert_eq!(decoded.count_at(2_000), 2);
        assert_eq!(h.distinct_values(), 3);
        let again = LatencyHistogram::decode(
            &h.encode_v2(),
            h.min(),
            h.max(),
            h.sum(),
            h.sum_of_squares(),
        )
        .unwrap();
        assert_eq!(again, h);
    }

    #[test]
    fn log_bins_hold_every_sample_once() {
        let mut h = LatencyHistogram::new();
        for v in [1_000u64, 1_100, 9_000, 10_000, 2_000_000] {
            h.record(v);
        }
        let bins = h.log_bins(10);
        assert_eq!(bins.iter().map(|b| b.1).sum::<u64>(), 5);
        assert_eq!(bins.len(), 34, "1 µs to 2 ms in tenths of a decade");
        assert!(bins[0].0 > 1_000.0 && bins[0].0 < 1_259.0);
        assert_eq!(bins[0].1, 2);
    }

    #[test]
    fn empty() {
        let h = LatencyHistogram::new();
        assert_eq!((h.count(), h.min(), h.max()), (0, 0, 0));
        assert_eq!(h.percentiles(&[0.5]), vec![0]);
        assert_eq!(h.stddev(), 0.0);
    }

    #[test]
    fn fixed_buckets_hold_each_sample_where_its_percentile_lies() {
        let mut h = LatencyHistogram::new();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let upper = [100_500, 500_500, 998_500];
        let mut counts = [0u64; 4];
        h.add_to_buckets(&upper, &mut counts);
        assert_eq!(counts, [100, 400, 498, 2]);
        // The p99 (990 µs) is in the bucket where the 990th sample falls.
        let p99 = h.percentiles(&[0.99])[0];
        assert!(p99 > 500_500 && p99 <= 998_500, "{p99}");
        // Added again, they add.
        h.add_to_buckets(&upper, &mut counts);
        assert_eq!(counts, [200, 800, 996, 4]);
    }
}
