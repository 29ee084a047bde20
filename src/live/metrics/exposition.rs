//! The metrics as a scraper reads them: OpenMetrics text when the scraper asks for it (Prometheus
//! does), the Prometheus text format 0.0.4 otherwise; the encoding is `prometheus-client`'s, the
//! numbers are the [`State`]'s.
//!
//! ```text
//! iospd_ios_total{target,direction}             completions measured (every timespan);
//!                                               direction: read, write, trim, flush
//! iospd_bytes_total{target,direction}           bytes they moved
//! iospd_latency_seconds{target,direction}       histogram: _bucket{le}, _sum, _count
//! iospd_interval_ios_per_second{…}              the latest interval's rates
//! iospd_interval_bytes_per_second{…}
//! iospd_in_flight{target,direction}             mean I/Os in flight in the latest interval
//! iospd_device_request_seconds{host,device,direction}
//!                                               histogram of each request's time on a device
//!                                               under the targets (the device clock: everyone's
//!                                               requests), the same buckets as the latency's
//! iospd_phase{phase}                            1 for the phase the run is in, 0 for the others
//! iospd_timespan                                the timespan running (1-based)
//! iospd_intervals_total                         finished intervals
//! iospd_run_info{version,command,run_id}        1
//! ```

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    DescriptorEncoder, NativeHistogram, NativeHistogramBuckets, NoLabelSet,
};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::exemplar::Exemplar;
use prometheus_client::registry::{Registry, Unit};

use super::{Metrics, Phase, Series, State, buckets, native};

/// The exposition formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application/openmetrics-text; version=1.0.0`.
    OpenMetrics,
    /// `text/plain; version=0.0.4`.
    Text,
    /// Prometheus's protobuf (`io.prometheus.client.MetricFamily`, length-delimited): the one
    /// that carries native histograms.
    Protobuf,
}

/// What a scraper that reads native histograms puts first in its `Accept`.
const PROTOBUF: &str = "application/vnd.google.protobuf";

impl Format {
    /// The format a request's `Accept` header asks for: the first of its types iospd serves
    /// (Prometheus lists them in its order of preference).
    pub fn accepted(accept: Option<&str>) -> Format {
        let accept = accept.unwrap_or_default();
        for media in accept.split(',') {
            let media = media.trim();
            if media.starts_with(PROTOBUF)
                && media.contains("proto=io.prometheus.client.MetricFamily")
            {
                return Format::Protobuf;
            }
            if media.starts_with("application/openmetrics-text") {
                return Format::OpenMetrics;
            }
            if media.starts_with("text/plain") {
                return Format::Text;
            }
        }
        Format::Text
    }

    /// The response's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Format::Text => prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
            Format::Protobuf => {
                "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
            }
        }
    }
}

/// Renders the metrics for scrapes.
#[derive(Debug)]
pub struct Exposition {
    registry: Registry,
}

impl Exposition {
    /// The exposition of `metrics`.
    pub fn new(metrics: Metrics) -> Exposition {
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Now(metrics)));
        Exposition { registry }
    }

    /// The metrics now, in `format`.
    pub fn render(&self, format: Format) -> Vec<u8> {
        let mut out = String::with_capacity(16 * 1024);
        // Encoding into memory fails only on a bug; say so rather than serve half.
        let failed = "the metrics encode into memory";
        match format {
            Format::OpenMetrics => {
                prometheus_client::encoding::text::encode(&mut out, &self.registry).expect(failed)
            }
            Format::Text => {
                prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)
                    .expect(failed)
            }
            Format::Protobuf => {
                return prometheus_client::encoding::prometheus_protobuf::encode_to_vec(
                    &self.registry,
                )
                .expect(failed);
            }
        }
        out.into_bytes()
    }
}

/// The collector the registry calls on each scrape: reads the state as it is now.
#[derive(Debug)]
struct Now(Metrics);

type Labels<'a> = [(&'static str, &'a str); 2];

fn labels(series: &Series) -> Labels<'_> {
    [("target", &series.target), ("direction", &series.direction)]
}

impl Collector for Now {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let phase = self.0.phase();
        // A copy, so a scrape holds the lock only as long as the copy takes; every rank's series
        // added up.
        let state: State = self.0.state().clone();
        let merged = state.merged();
        let bounds: Vec<f64> = buckets::UPPER_NS
            .iter()
            .map(|&ns| buckets::seconds(ns))
            .chain([f64::INFINITY])
            .collect();
        let each = |encoder: &mut DescriptorEncoder,
                    name: &str,
                    help: &str,
                    unit: Option<Unit>,
                    kind: MetricType,
                    value: &dyn Fn(&Series) -> f64|
         -> Result<(), std::fmt::Error> {
            let mut metric = encoder.encode_descriptor(name, help, unit.as_ref(), kind)?;
            for series in &merged {
                let labels = labels(series);
                let mut family = metric.encode_family(&labels)?;
                match kind {
                    MetricType::Counter => family
                        .encode_counter::<NoLabelSet, _, f64>(&(value(series) as u64), None)?,
                    _ => family.encode_gauge(&value(series))?,
                }
            }
            Ok(())
        };
        each(
            &mut encoder,
            "iospd_ios",
            "I/Os completed in the measured windows so far, as the final report counts them",
            None,
            MetricType::Counter,
            &|s| s.ios as f64,
        )?;
        each(
            &mut encoder,
            "iospd_bytes",
            "Bytes moved by those I/Os",
            None,
            MetricType::Counter,
            &|s| s.bytes as f64,
        )?;
        {
            let mut metric = encoder.encode_descriptor(
                "iospd_latency",
                "Latency of those I/Os (classic buckets, 8 per decade from 1 us to 80 s; native ones of schema 5 in the protobuf format)",
                Some(&Unit::Seconds),
                MetricType::Histogram,
            )?;
            for series in &merged {
                let labels = labels(series);
                let mut family = metric.encode_family(&labels)?;
                let counts: Vec<(f64, u64)> = bounds
                    .iter()
                    .copied()
                    .zip(series.buckets.iter().copied())
                    .collect();
                // The text formats show the classic buckets; the protobuf both.
                let (spans, deltas) = series.native.spans();
                let empty = NativeHistogramBuckets {
                    spans: &[],
                    deltas: &[],
                };
                family.encode_histogram_with_native::<NoLabelSet>(
                    series.latency_sum_ns as f64 / 1e9,
                    series.ios,
                    &counts,
                    None::<&std::collections::HashMap<usize, Exemplar<NoLabelSet, f64>>>,
                    NativeHistogram {
                        schema: native::SCHEMA,
                        zero_threshold: 0.0,
                        zero_count: series.native.zero,
                        negative: empty,
                        positive: NativeHistogramBuckets {
                            spans: &spans,
                            deltas: &deltas,
                        },
                        created: None,
                    },
                )?;
            }
        }
        {
            let mut metric = encoder.encode_descriptor(
                "iospd_device_request",
                "Time on the device of each request to a device under the targets, from the block layer's issue to its completion (everyone's requests; classic buckets as iospd_latency's)",
                Some(&Unit::Seconds),
                MetricType::Histogram,
            )?;
            for device in state.devices_merged() {
                let labels = [
                    ("host", device.host.as_str()),
                    ("device", device.device.as_str()),
                    ("direction", device.direction.as_str()),
                ];
                let counts: Vec<(f64, u64)> = bounds
                    .iter()
                    .copied()
                    .zip(device.buckets.iter().copied())
                    .collect();
                metric
                    .encode_family(&labels)?
                    .encode_histogram::<NoLabelSet>(
                        device.time_sum_ns as f64 / 1e9,
                        device.requests,
                        &counts,
                        None,
                    )?;
            }
        }
        each(
            &mut encoder,
            "iospd_interval_ios_per_second",
            "I/Os per second in the latest finished interval",
            None,
            MetricType::Gauge,
            &|s| s.rates.ios_per_s,
        )?;
        each(
            &mut encoder,
            "iospd_interval_bytes_per_second",
            "Bytes per second in the latest finished interval",
            None,
            MetricType::Gauge,
            &|s| s.rates.bytes_per_s,
        )?;
        each(
            &mut encoder,
            "iospd_in_flight",
            "Mean I/Os in flight in the latest finished interval (its latencies summed over its length)",
            None,
            MetricType::Gauge,
            &|s| s.rates.in_flight,
        )?;
        {
            let mut metric = encoder.encode_descriptor(
                "iospd_phase",
                "1 for the phase the run is in (preparing, warmup, measuring, cooldown, done)",
                None,
                MetricType::Gauge,
            )?;
            for each in Phase::ALL {
                let labels = [("phase", each.name())];
                metric
                    .encode_family(&labels)?
                    .encode_gauge(&i64::from(each == phase))?;
            }
        }
        encoder
            .encode_descriptor(
                "iospd_timespan",
                "The timespan running (1-based; 0 before the first)",
                None,
                MetricType::Gauge,
            )?
            .encode_gauge(&(state.timespan as i64))?;
        encoder
            .encode_descriptor(
                "iospd_ranks",
                "Processes of the run (MPI ranks; 1 on its own)",
                None,
                MetricType::Gauge,
            )?
            .encode_gauge(&i64::from(state.ranks))?;
        encoder
            .encode_descriptor(
                "iospd_ranks_reporting",
                "Ranks whose numbers the counters hold so far",
                None,
                MetricType::Gauge,
            )?
            .encode_gauge(&(1 + state.peers.len() as i64))?;
        encoder
            .encode_descriptor(
                "iospd_intervals",
                "Intervals of the measured windows finished so far",
                None,
                MetricType::Counter,
            )?
            .encode_counter::<NoLabelSet, _, f64>(&state.intervals, None)?;
        let info = [
            ("version", state.info.version.as_str()),
            ("command", state.info.command.as_str()),
            ("run_id", state.info.run_id.as_str()),
        ];
        encoder
            .encode_descriptor("iospd_run", "The run", None, MetricType::Info)?
            .encode_info(&info)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::Sink;
    use crate::live::metrics::{Own, RunInfo};
    use crate::stats::timeline::{Row, TargetOps};

    fn one_interval(metrics: &Metrics) {
        let mut sink = metrics.sink();
        sink.begin(
            0,
            std::time::SystemTime::now(),
            &["/mnt/t \"1\".dat".into()],
        )
        .unwrap();
        let mut ops: Vec<TargetOps> = vec![Default::default()];
        for latency in [800, 1_200, 1_200, 90_000] {
            ops[0].read.record(4096, latency);
        }
        ops[0].write.record(8192, 2_000_000);
        let row = Row::new(0, 500_000_000, &ops);
        sink.interval(&row, &ops).unwrap();
    }

    #[test]
    fn counters_buckets_rates_phase_and_info_in_both_formats() {
        let metrics = Metrics::new(
            RunInfo {
                version: "1.2.3".into(),
                command: "iospd -d5 t.dat".into(),
                run_id: "h-1-2".into(),
                host: "h".into(),
            },
            1,
            Vec::new(),
        );
        one_interval(&metrics);
        metrics.set_phase(Phase::Measuring);
        let exposition = Exposition::new(metrics.clone());
        let om = String::from_utf8(exposition.render(Format::OpenMetrics)).unwrap();
        let target = r#"target="/mnt/t \"1\".dat""#;
        for line in [
            format!(r#"iospd_ios_total{{{target},direction="read"}} 4"#),
            format!(r#"iospd_bytes_total{{{target},direction="write"}} 8192"#),
            format!(r#"iospd_latency_seconds_bucket{{le="0.000001",{target},direction="read"}} 1"#),
            format!(
                r#"iospd_latency_seconds_bucket{{le="0.0000015",{target},direction="read"}} 3"#
            ),
            format!(r#"iospd_latency_seconds_bucket{{le="0.00008",{target},direction="read"}} 3"#),
            format!(r#"iospd_latency_seconds_bucket{{le="0.0001",{target},direction="read"}} 4"#),
            format!(r#"iospd_latency_seconds_bucket{{le="+Inf",{target},direction="read"}} 4"#),
            format!(r#"iospd_latency_seconds_count{{{target},direction="read"}} 4"#),
            format!(r#"iospd_interval_ios_per_second{{{target},direction="read"}} 8.0"#),
            r#"iospd_phase{phase="measuring"} 1"#.to_string(),
            r#"iospd_phase{phase="warmup"} 0"#.to_string(),
            r#"iospd_run_info{version="1.2.3",command="iospd -d5 t.dat",run_id="h-1-2"} 1"#
                .to_string(),
        ] {
            assert!(om.lines().any(|l| l == line), "{line} in\n{om}");
        }
        assert!(om.ends_with("# EOF\n"));
        // The latency sum in seconds; the mean in flight is the latencies over the interval.
        assert!(om.contains("iospd_latency_seconds_sum{"));
        let in_flight = format!(r#"iospd_in_flight{{{target},direction="write"}} 0.004"#);
        assert!(om.lines().any(|l| l == in_flight), "{om}");
        let text = String::from_utf8(exposition.render(Format::Text)).unwrap();
        assert!(!text.contains("# EOF"));
        assert!(text.contains("iospd_ios_total{"), "{text}");
    }

    #[test]
    fn rank_0_adds_every_ranks_series_by_target_as_typed() {
        let info = RunInfo::default();
        let names = vec![vec!["/mnt/t-{rank}.dat".to_string()]];
        let (zero, one) = (
            Metrics::new(info.clone(), 2, names.clone()),
            Metrics::new(info, 2, names),
        );
        for metrics in [&zero, &one] {
            let mut sink = metrics.sink();
            sink.begin(0, std::time::SystemTime::now(), &["/mnt/t-x.dat".into()])
                .unwrap();
            let mut ops: Vec<TargetOps> = vec![Default::default()];
            ops[0].read.record(4096, 1_200);
            sink.interval(&Row::new(0, 1_000_000_000, &ops), &ops)
                .unwrap();
        }
        // As the ranks' messages carry them.
        let sent = serde_json::to_vec(&one.own()).unwrap();
        zero.set_peers([(1, serde_json::from_slice(&sent).unwrap())]);
        let merged = zero.state().merged();
        let native = &merged[0].native;
        assert_eq!(native.buckets[&native::index(1_200).unwrap()], 2);
        assert_eq!(native.buckets.values().sum::<u64>(), 2);
        let text = String::from_utf8(Exposition::new(zero).render(Format::Text)).unwrap();
        let target = r#"target="/mnt/t-{rank}.dat",direction="read""#;
        for line in [
            format!("iospd_ios_total{{{target}}} 2"),
            format!(r#"iospd_latency_seconds_bucket{{{target},le="1.5e-06"}} 2"#),
            format!("iospd_interval_ios_per_second{{{target}}} 2.0"),
            "iospd_ranks 2".to_string(),
            "iospd_ranks_reporting 2".to_string(),
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
    }

    #[test]
    fn each_device_s_requests_are_a_histogram_once_per_host() {
        use crate::live::DeviceSlice;
        use crate::system::devclock::{BUCKETS, ClockCounts, bounds};
        let at = |ns: u64| (0..BUCKETS).find(|&b| bounds(b).0 <= ns && ns <= bounds(b).1);
        let ranks: Vec<Metrics> = ["a", "a", "b"]
            .iter()
            .map(|host| {
                let info = RunInfo {
                    host: host.to_string(),
                    ..RunInfo::default()
                };
                Metrics::new(info, 3, vec![vec!["/dev/vda".into()]])
            })
            .collect();
        // Rank 0 timed 3 requests of 45 µs on host a's vda, rank 1 (also on a) 4 of them, rank 2
        // (on b) 2 of 700 µs.
        for (metrics, (n, ns)) in ranks.iter().zip([(3, 45_000), (4, 45_000), (2, 700_000)]) {
            let mut sink = metrics.sink();
            sink.begin(0, std::time::SystemTime::now(), &["/dev/vda".into()])
                .unwrap();
            let ops: Vec<TargetOps> = vec![Default::default()];
            let row = Row::new(0, 1_000_000_000, &ops);
            sink.interval(&row, &ops).unwrap();
            let read = ClockCounts {
                device: vec![(at(ns).unwrap(), n)],
                device_ns: n * ns,
                ..ClockCounts::default()
            };
            let slice = DeviceSlice {
                name: "vda".into(),
                times: [read, ClockCounts::default()],
            };
            sink.devices(&row, &[slice]).unwrap();
        }
        let sent: Vec<(u32, Own)> = (1..3)
            .map(|r| {
                let bytes = serde_json::to_vec(&ranks[r].own()).unwrap();
                (r as u32, serde_json::from_slice(&bytes).unwrap())
            })
            .collect();
        ranks[0].set_peers(sent);
        let exposition = Exposition::new(ranks[0].clone());
        let om = String::from_utf8(exposition.render(Format::OpenMetrics)).unwrap();
        let a = r#"host="a",device="vda",direction="read""#;
        let b = r#"host="b",device="vda",direction="read""#;
        for line in [
            format!(r#"iospd_device_request_seconds_bucket{{le="0.00004",{a}}} 0"#),
            format!(r#"iospd_device_request_seconds_bucket{{le="0.00005",{a}}} 4"#),
            format!(r#"iospd_device_request_seconds_count{{{a}}} 4"#),
            format!(r#"iospd_device_request_seconds_sum{{{a}}} 0.00018"#),
            format!(r#"iospd_device_request_seconds_bucket{{le="0.0006",{b}}} 0"#),
            format!(r#"iospd_device_request_seconds_bucket{{le="0.0008",{b}}} 2"#),
            format!(r#"iospd_device_request_seconds_bucket{{le="+Inf",{b}}} 2"#),
        ] {
            assert!(om.lines().any(|l| l == line), "{line} in\n{om}");
        }
        // No write series: nothing was written.
        assert!(!om.contains(r#"device="vda",direction="write""#), "{om}");
        assert_eq!(
            om.matches("iospd_device_request_seconds_count{").count(),
            2,
            "{om}"
        );
    }

    #[test]
    fn prometheus_asks_for_openmetrics() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(Format::accepted(Some(prometheus)), Format::OpenMetrics);
        assert_eq!(Format::accepted(Some("*/*")), Format::Text);
        assert_eq!(Format::accepted(None), Format::Text);
        // Prometheus with native histograms puts the protobuf first; text before it wins.
        let native = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.8,application/openmetrics-text;version=1.0.0;q=0.7,text/plain;version=0.0.4;q=0.3";
        assert_eq!(Format::accepted(Some(native)), Format::Protobuf);
        let text_first = "text/plain;version=0.0.4,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited";
        assert_eq!(Format::accepted(Some(text_first)), Format::Text);
        // Another protobuf is not ours.
        let other = "application/vnd.google.protobuf;proto=other.Thing,*/*";
        assert_eq!(Format::accepted(Some(other)), Format::Text);
    }
}
