//! DiskSpd's XML results (`-Rxml`): the same element tree, units and precision, with paths
//! escaped. `doc/iospd.xsd` describes exactly what this writes.

use crate::profile::xml::{Out, escape, profile_xml};
use crate::report::{
    Direction, Directions, Measured, Report, ThreadReport, TimeSpanReport, xml_percentiles,
};
use crate::system::{CacheKind, SystemInfo, parse_cpu_list};

const NS_PER_MS: f64 = 1_000_000.0;

/// The XML results document.
pub fn render(report: &Report) -> String {
    let mut out = Out::new(0);
    out.open("Results");
    let run_time = report
        .timespans
        .first()
        .map_or("", |t| t.start_time_utc.as_str());
    system(&mut out, &report.system, run_time, &report.tool.version);
    out.text.push_str(&profile_xml(&report.profile, out.depth));
    for (i, ts) in report.timespans.iter().enumerate() {
        timespan(&mut out, report, i, ts);
    }
    if let Some(r) = &report.repetitions {
        repetitions(&mut out, r);
    }
    if let Some(stopped) = report.stopped_early() {
        out.open("CutShort");
        out.text("By", &stopped.by);
        out.value("TimeSpan", stopped.timespan);
        out.value("MeasuredSeconds", format!("{:.2}", stopped.measured_s));
        out.value("AskedSeconds", stopped.asked_s);
        out.close("CutShort");
    }
    if report.partial {
        out.value("Partial", "true");
    }
    if let Some(why) = &report.partial_why {
        out.text("PartialWhy", why);
    }
    out.close("Results");
    out.text
}

/// iospd: `--repeat`, each timespan's repetitions and their agreement.
fn repetitions(out: &mut Out, r: &crate::report::RepetitionsReport) {
    out.open_with("Repetitions", &format!("Repeat=\"{}\"", r.repeat));
    for g in &r.groups {
        // Not <TimeSpan>: parsers that look for every TimeSpan element must find only results.
        out.open_with("Group", &format!("TimeSpan=\"{}\"", g.timespan));
        let spreads = [
            ("Iops", Some(&g.iops)),
            ("BytesPerSecond", Some(&g.throughput)),
            ("MeanLatencyNanoseconds", g.mean_latency.as_ref()),
            ("P99LatencyNanoseconds", g.p99_latency.as_ref()),
        ];
        for (tag, spread) in spreads {
            let Some(s) = spread else { continue };
            out.line(&format!(
                "<{tag} Count=\"{}\" Mean=\"{:.3}\" Ci95HalfWidth=\"{:.3}\" Min=\"{:.3}\" Max=\"{:.3}\"/>",
                s.n, s.mean, s.ci95_half_width, s.min, s.max
            ));
        }
        for (i, run) in g.runs.iter().enumerate() {
            out.line(&format!(
                "<Run TimeSpan=\"{run}\" Iops=\"{:.2}\" Outlier=\"{}\"/>",
                g.ios_per_s[i],
                g.outliers.contains(&i)
            ));
        }
        out.value("Unstable", g.unstable);
        if let Some(s) = &g.steady_state {
            steady_state(out, s);
        }
        out.close("Group");
    }
    out.close("Repetitions");
}

/// A CPU set as a hexadecimal mask (`0x3` for CPUs 0 and 1), any width.
fn mask(cpus: impl IntoIterator<Item = u32>) -> String {
    let mut words: Vec<u64> = Vec::new();
    for cpu in cpus {
        let word = (cpu / 64) as usize;
        if words.len() <= word {
            words.resize(word + 1, 0);
        }
        words[word] |= 1 << (cpu % 64);
    }
    let mut text = String::from("0x");
    match words.iter().rposition(|&w| w != 0) {
        None => text.push('0'),
        Some(top) => {
            text.push_str(&format!("{:x}", words[top]));
            for w in words[..top].iter().rev() {
                text.push_str(&format!("{w:016x}"));
            }
        }
    }
    text
}

/// The `<System>` element (also what `-Rsxml` prints inside `<Results>`).
pub fn system(out: &mut Out, system: &SystemInfo, run_time: &str, version: &str) {
    out.open("System");
    out.text("ComputerName", &system.computer_name);
    out.text("ProcessorName", &system.processor_name);
    out.open("Tool");
    out.value("Version", version);
    out.close("Tool");
    out.value("RunTime", run_time);
    if !system.power_scheme.is_empty() {
        out.line(&format!(
            "<PowerScheme Name=\"{}\" Guid=\"\"/>",
            escape(&system.power_scheme)
        ));
    }
    out.value("PageSize", system.page_size);
    out.text("Kernel", &system.kernel);
    let all: Vec<u32> = system.cpus.iter().map(|c| c.cpu).collect();
    out.open_with(
        "ProcessorTopology",
        &format!("Heterogeneous=\"{}\"", system.heterogeneous()),
    );
    out.line(&format!(
        "<Group Group=\"0\" MaximumProcessors=\"{n}\" ActiveProcessors=\"{n}\" ActiveProcessorMask=\"{}\"/>",
        mask(all.iter().copied()),
        n = all.len()
    ));
    let mut nodes: Vec<u32> = system.cpus.iter().map(|c| c.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    for node in nodes {
        let cpus = system.cpus.iter().filter(|c| c.node == node).map(|c| c.cpu);
        out.line(&format!(
            "<Node Node=\"{node}\"><Group Group=\"0\" Mask=\"{}\"/></Node>",
            mask(cpus)
        ));
    }
    let mut sockets: Vec<u32> = system.cpus.iter().map(|c| c.socket).collect();
    sockets.sort_unstable();
    sockets.dedup();
    for socket in sockets {
        let cpus = system
            .cpus
            .iter()
            .filter(|c| c.socket == socket)
            .map(|c| c.cpu);
        out.line(&format!(
            "<Socket Socket=\"{socket}\"><Group Group=\"0\" Mask=\"{}\"/></Socket>",
            mask(cpus)
        ));
    }
    let mut cores: Vec<(u32, u32, u32)> = system
        .cpus
        .iter()
        .map(|c| (c.socket, c.core, c.efficiency_class))
        .collect();
    cores.sort_unstable();
    cores.dedup();
    for (i, (socket, core, class)) in cores.iter().enumerate() {
        let cpus = system
            .cpus
            .iter()
            .filter(|c| (c.socket, c.core) == (*socket, *core))
            .map(|c| c.cpu);
        out.line(&format!(
            "<Core Group=\"0\" Core=\"{i}\" Mask=\"{}\" EfficiencyClass=\"{class}\"/>",
            mask(cpus)
        ));
    }
    for cache in &system.caches {
        let kind = match cache.kind {
            CacheKind::Data => "Data",
            CacheKind::Instruction => "Instruction",
            CacheKind::Unified => "Unified",
        };
        out.line(&format!(
            "<Cache Level=\"{}\" Associativity=\"{}\" LineSize=\"{}\" CacheSize=\"{}\" Type=\"{kind}\"><Group Group=\"0\" Mask=\"{}\"/></Cache>",
            cache.level,
            cache.ways,
            cache.line,
            cache.size,
            mask(parse_cpu_list(&cache.cpus))
        ));
    }
    out.close("ProcessorTopology");
    out.close("System");
}

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / NS_PER_MS)
}

fn timespan(out: &mut Out, report: &Report, index: usize, ts: &TimeSpanReport) {
    out.open("TimeSpan");
    let Some(m) = &ts.measured else {
        out.value(
            "Error",
            "The test was interrupted before the measurements began. No results are displayed.",
        );
        out.close("TimeSpan");
        return;
    };
    let profile_ts = &report.profile.timespans[index];
    out.value("TestTimeSeconds", format!("{:.2}", m.duration_s));
    out.value("ThreadCount", m.thread_count);
    out.value("RequestCount", profile_ts.request_count.unwrap_or(0));
    out.value("ProcCount", report.system.cpus.len());
    cpu(out, report, m);
    if profile_ts.measure_latency {
        latency(out, &m.totals);
    }
    if profile_ts.iops_interval_ms.is_some() {
        iops(out, &m.totals, &m.timeline);
    }
    if let Some(s) = &m.steady_state {
        steady_state(out, s);
    }
    for s in &m.skews {
        skew(out, s);
    }
    if let Some(r) = &m.reality {
        reality(out, r);
    }
    slowest(out, &m.slowest);
    if let Some(f) = &ts.failed_ios {
        failed(out, profile_ts, f);
    }
    if let Some(s) = &ts.steady_stop {
        steady_stop(out, s);
    }
    if let Some(v) = &ts.verify {
        verify(out, profile_ts, v);
    }
    for d in &ts.dedupes {
        dedupe(out, d);
    }
    if let Some(r) = &ts.replay {
        replay(out, r);
    }
    if report.profile.counters.any() {
        out.open("ETW");
        for c in &m.counters {
            out.line(&format!(
                "<Counter Name=\"{}\">{}</Counter>",
                c.key, c.value
            ));
        }
        out.close("ETW");
    }
    for thread in &m.threads {
        thread_xml(out, report, index, m, thread);
    }
    start_xml(out, ts, &report.system.clock);
    out.close("TimeSpan");
}

/// iospd: how the start was agreed and, across hosts, the ranks, the hosts and both aggregates.
fn start_xml(out: &mut Out, ts: &TimeSpanReport, clock: &crate::system::ClockState) {
    if let Some(start) = &ts.start {
        out.open("Start");
        out.text("At", &start.at);
        out.value("AtUnixNanoseconds", start.at_unix_ns);
        out.value("LatenessNanoseconds", start.lateness_ns);
        out.text("ClockSource", &clock.source);
        out.value("ClockSynchronised", clock.synchronised);
        out.value("ClockEstimatedErrorMicroseconds", clock.estimated_error_us);
        out.value("ClockMaximumErrorMicroseconds", clock.maximum_error_us);
        out.close("Start");
    }
    let Some(c) = &ts.cluster else { return };
    out.open("Cluster");
    out.value("StartMarginNanoseconds", c.start_margin_ns);
    out.value("StartSlackNanoseconds", c.start_slack_ns);
    out.value("StartSkewNanoseconds", c.start_skew_ns);
    out.value("ClockUncertaintyNanoseconds", c.clock_uncertainty_ns);
    out.value("GatheredBytes", c.gathered_bytes);
    out.value("GatherNanoseconds", c.gather_ns);
    for r in &c.ranks {
        out.open("Rank");
        out.value("Id", r.rank);
        out.text("Host", &r.host);
        out.value("ThreadCount", r.threads);
        out.value("ClockOffsetNanoseconds", r.clock_offset_ns);
        out.value("ClockUncertaintyNanoseconds", r.clock_uncertainty_ns);
        out.value("ClockDriftNanoseconds", r.clock_drift_ns);
        out.value("LatenessNanoseconds", r.lateness_ns);
        out.value("WindowStartNanoseconds", r.window_start_ns);
        out.value("WindowEndNanoseconds", r.window_end_ns);
        out.value("IOCount", r.ios);
        out.value("BytesCount", r.bytes);
        out.close("Rank");
    }
    for h in &c.hosts {
        out.open("Host");
        out.text("Name", &h.host);
        out.value("Ranks", crate::plan::cpu_list(&h.ranks));
        out.value("ThreadCount", h.threads);
        out.value("IOCount", h.ios);
        out.value("BytesCount", h.bytes);
        out.open("Cpu");
        percents(out, &h.cpu);
        out.close("Cpu");
        out.close("Host");
    }
    for (tag, a) in [
        ("CommonWindow", &c.common_window),
        ("FirstToLast", &c.first_to_last),
    ] {
        out.open(tag);
        out.value("Seconds", format!("{:.6}", a.duration_s));
        out.value("IOCount", a.ios);
        out.value("BytesCount", a.bytes);
        out.value("IOPS", format!("{:.2}", a.ios_per_s));
        out.value("BytesPerSecond", format!("{:.2}", a.bytes_per_s));
        out.close(tag);
    }
    out.close("Cluster");
}

fn cpu(out: &mut Out, report: &Report, m: &Measured) {
    out.open("CpuUtilization");
    for usage in &m.cpu {
        let topo = report.system.cpus.iter().find(|c| c.cpu == usage.cpu);
        out.open("CPU");
        out.value("Socket", topo.map_or(0, |t| t.socket));
        out.value("Node", topo.map_or(0, |t| t.node));
        out.value("Group", 0);
        out.value("Core", topo.map_or(0, |t| t.core));
        out.value("EfficiencyClass", topo.map_or(0, |t| t.efficiency_class));
        out.value("Id", usage.cpu);
        percents(out, usage);
        out.close("CPU");
    }
    out.open("Average");
    percents(out, &m.cpu_average);
    out.close("Average");
    out.close("CpuUtilization");
}

fn percents(out: &mut Out, usage: &crate::stats::cpu::CpuUsage) {
    out.value("UsagePercent", format!("{:.2}", usage.usage));
    out.value("UserPercent", format!("{:.2}", usage.user));
    out.value("KernelPercent", format!("{:.2}", usage.kernel));
    out.value("IdlePercent", format!("{:.2}", usage.idle));
}

fn latency(out: &mut Out, d: &Directions) {
    let buckets = |dir: &Direction| dir.latency.as_ref().map_or(0, |l| l.distinct_values);
    let mut attributes = format!(
        "ReadHistoBuckets=\"{}\" WriteHistoBuckets=\"{}\" TotalHistoBuckets=\"{}\"",
        buckets(&d.read),
        buckets(&d.write),
        buckets(&d.total)
    );
    // Trims and flushes (--trim, --fsync) after DiskSpd's directions, when the run has them.
    let extra: Vec<(&Direction, &str)> = [(&d.trim, "Trim"), (&d.flush, "Flush")]
        .into_iter()
        .filter_map(|(dir, name)| dir.as_ref().map(|dir| (dir, name)))
        .collect();
    for (dir, name) in &extra {
        attributes += &format!(" {name}HistoBuckets=\"{}\"", buckets(dir));
    }
    out.open_with("Latency", &attributes);
    let mut averages = vec![
        (
            &d.read,
            "AverageReadMilliseconds".to_string(),
            "ReadLatencyStdev".to_string(),
        ),
        (
            &d.write,
            "AverageWriteMilliseconds".into(),
            "WriteLatencyStdev".into(),
        ),
        (
            &d.total,
            "AverageTotalMilliseconds".into(),
            "LatencyStdev".into(),
        ),
    ];
    for (dir, name) in &extra {
        averages.push((
            dir,
            format!("Average{name}Milliseconds"),
            format!("{name}LatencyStdev"),
        ));
    }
    for (dir, average, stdev) in &averages {
        if let Some(l) = &dir.latency {
            out.value(average, ms(l.mean_ns));
            out.value(stdev, ms(l.stddev_ns));
        }
    }
    let mut columns = vec![
        (&d.read, "ReadMilliseconds".to_string()),
        (&d.write, "WriteMilliseconds".into()),
        (&d.total, "TotalMilliseconds".into()),
    ];
    for (dir, name) in &extra {
        columns.push((dir, format!("{name}Milliseconds")));
    }
    for p in xml_percentiles() {
        out.open("Bucket");
        out.value("Percentile", p);
        for (dir, tag) in &columns {
            if let Some(l) = &dir.latency {
                out.value(tag, ms(l.at(p) as f64));
            }
        }
        out.close("Bucket");
    }
    out.close("Latency");
}

/// `--continue-on-error`: the failed I/Os counted by kind, and the first.
fn failed(out: &mut Out, ts: &crate::profile::TimeSpan, f: &crate::stats::FailedIos) {
    out.open_with(
        "FailedIOs",
        &format!(
            "Reads=\"{}\" Writes=\"{}\" Trims=\"{}\" Flushes=\"{}\"",
            f.reads, f.writes, f.trims, f.flushes
        ),
    );
    if let Some(first) = &f.first {
        let io = &first.io;
        let path = ts
            .targets
            .get(io.target)
            .map_or(String::new(), |t| escape(&t.path.display().to_string()));
        out.line(&format!(
            "<First Op=\"{}\" Path=\"{path}\" Offset=\"{}\" Length=\"{}\" Thread=\"{}\" AtNs=\"{}\" Result=\"{}\" Error=\"{}\"/>",
            io.op.name(),
            io.offset,
            io.len,
            io.thread,
            first.at_ns,
            io.result,
            escape(&io.what())
        ));
    }
    out.close("FailedIOs");
}

/// `--steady-state`: the rule, whether and when it was met, the last judgement and its window.
fn steady_stop(out: &mut Out, s: &crate::stats::steady::SteadyOutcome) {
    let mut attrs = format!("Rule=\"{}\" Attained=\"{}\"", s.rule, s.attained);
    if let Some(at) = s.attained_at_s {
        attrs.push_str(&format!(" AttainedAtSeconds=\"{at}\""));
    }
    if let Some(c) = s.criterion.filter(|c| c.is_finite()) {
        attrs.push_str(&format!(" Criterion=\"{c:.6}\""));
    }
    attrs.push_str(&format!(
        " MaxDeviation=\"{:.3}\" Slope=\"{:.6}\"",
        s.max_deviation, s.slope
    ));
    out.open_with("SteadyStop", &attrs);
    for (iops, bw) in s.iops.iter().zip(&s.bw) {
        out.line(&format!(
            "<Sample Iops=\"{iops}\" BytesPerSecond=\"{bw}\"/>"
        ));
    }
    out.close("SteadyStop");
}

/// `--verify`: the counts, failures by kind, the first bad blocks.
fn verify(out: &mut Out, ts: &crate::profile::TimeSpan, v: &crate::verify::VerifyCounts) {
    use crate::verify::format::Kind;
    out.open_with(
        "Verify",
        &format!(
            "RunId=\"{:#x}\" Written=\"{}\" Verified=\"{}\" Skipped=\"{}\" Failed=\"{}\"",
            v.run_id,
            v.written,
            v.verified,
            v.skipped,
            v.failed.total()
        ),
    );
    for kind in Kind::ALL {
        out.line(&format!(
            "<Failures Kind=\"{}\" Count=\"{}\"/>",
            kind.name(),
            v.failed.of(kind)
        ));
    }
    for f in &v.first {
        let m = &f.mismatch;
        let path = ts
            .targets
            .get(f.target)
            .map_or(String::new(), |t| escape(&t.path.display().to_string()));
        let mut attrs = format!(
            "Kind=\"{}\" Path=\"{path}\" Offset=\"{}\" Length=\"{}\" ExpectedGeneration=\"{}\"",
            m.kind.name(),
            f.offset,
            f.len,
            m.expected_generation
        );
        if let Some(t) = f.thread {
            attrs.push_str(&format!(" Thread=\"{t}\""));
        }
        if let Some(h) = &m.found {
            attrs.push_str(&format!(
                " FoundRunId=\"{:#x}\" FoundOffset=\"{}\" FoundGeneration=\"{}\" FoundTarget=\"{}\" FoundThread=\"{}\"",
                h.run_id, h.offset, h.generation, h.target, h.thread
            ));
        }
        if let Some((sector, generation)) = m.torn_sector {
            attrs.push_str(&format!(
                " TornSector=\"{sector}\" TornGeneration=\"{generation}\""
            ));
        }
        if let Some((at, want, got)) = m.first_difference {
            attrs.push_str(&format!(
                " FirstDifference=\"{at}\" ExpectedByte=\"{want}\" FoundByte=\"{got}\""
            ));
        }
        out.line(&format!("<Bad {attrs}/>"));
    }
    out.close("Verify");
}

/// "Is this real": each device's counters against what iospd issued, compression on the way,
/// iospd's cost, the fingerprint, the findings.
fn reality(out: &mut Out, r: &crate::report::Reality) {
    out.open("Reality");
    for d in &r.devices {
        let mut attributes = format!(
            "Name=\"{}\" Paths=\"{}\" IssuedReadBytes=\"{}\" IssuedWriteBytes=\"{}\" IssuedReads=\"{}\" IssuedWrites=\"{}\"",
            escape(&d.device),
            escape(&d.paths.join(";")),
            d.issued_read_bytes,
            d.issued_write_bytes,
            d.issued_reads,
            d.issued_writes
        );
        if let Some(s) = &d.reached {
            attributes += &format!(
                " ReadBytes=\"{}\" WriteBytes=\"{}\" Reads=\"{}\" Writes=\"{}\" Discards=\"{}\" Flushes=\"{}\" ReadMs=\"{}\" WriteMs=\"{}\"",
                s.read_bytes,
                s.write_bytes,
                s.reads,
                s.writes,
                s.discards,
                s.flushes,
                s.read_ms,
                s.write_ms
            );
        }
        if d.time.is_empty() && d.intervals.is_empty() {
            out.line(&format!("<Device {attributes}/>"));
            continue;
        }
        out.open_with("Device", &attributes);
        for t in &d.time {
            let attributes = format!(
                "Direction=\"{}\" Requests=\"{}\" BioBased=\"{}\" DeviceMeanNs=\"{:.1}\" IospdMeanNs=\"{:.1}\" StackMeanNs=\"{:.1}\"",
                t.direction,
                t.requests,
                t.bio_based,
                t.device_mean_ns,
                t.iospd_mean_ns,
                t.stack_mean_ns
            );
            let Some(c) = &t.clock else {
                out.line(&format!("<Time {attributes}/>"));
                continue;
            };
            out.open_with("Time", &attributes);
            let completed = c
                .completed
                .map_or(String::new(), |n| format!(" Completed=\"{n}\""));
            out.open_with(
                "Clock",
                &format!(
                    "Requests=\"{}\" Timed=\"{}\"{completed}",
                    c.requests, c.timed
                ),
            );
            let spreads = [
                ("Device", Some(&c.device)),
                ("Queued", c.queued.as_ref()),
                ("Iospd", Some(&c.iospd)),
                ("Stack", Some(&c.stack)),
            ];
            for (name, s) in spreads.into_iter().filter_map(|(n, s)| Some((n, s?))) {
                out.line(&format!(
                    "<{name} MeanNs=\"{:.1}\" P50Ns=\"{:.1}\" P99Ns=\"{:.1}\" P99_9Ns=\"{:.1}\" MaxNs=\"{:.1}\"/>",
                    s.mean_ns, s.p50_ns, s.p99_ns, s.p99_9_ns, s.max_ns
                ));
            }
            out.close("Clock");
            out.close("Time");
        }
        for i in &d.intervals {
            let s = &i.stat;
            let attributes = format!(
                "EndMs=\"{}\" Reads=\"{}\" ReadBytes=\"{}\" Writes=\"{}\" WriteBytes=\"{}\" ReadMs=\"{}\" WriteMs=\"{}\" OtherReadBytes=\"{}\" OtherWriteBytes=\"{}\"",
                i.end_ms,
                s.reads,
                s.read_bytes,
                s.writes,
                s.write_bytes,
                s.read_ms,
                s.write_ms,
                i.other_read_bytes,
                i.other_write_bytes
            );
            if i.time.is_empty() {
                out.line(&format!("<Interval {attributes}/>"));
                continue;
            }
            out.line(&format!("<Interval {attributes}>"));
            out.depth += 1;
            for t in &i.time {
                out.line(&format!(
                    "<Clock Direction=\"{}\" Requests=\"{}\" MeanNs=\"{:.1}\" P50Ns=\"{:.1}\" P99Ns=\"{:.1}\" MaxNs=\"{:.1}\"/>",
                    t.direction, t.requests, t.mean_ns, t.p50_ns, t.p99_ns, t.max_ns
                ));
            }
            out.depth -= 1;
            out.line("</Interval>");
        }
        out.close("Device");
    }
    for path in &r.deviceless {
        out.line(&format!("<Deviceless Path=\"{}\"/>", escape(path)));
    }
    for c in &r.reduction {
        let ratio = c
            .data_ratio
            .map_or(String::new(), |x| format!(" DataRatio=\"{x:.3}\""));
        out.line(&format!(
            "<Reduction Path=\"{}\" Layer=\"{}\"{ratio}/>",
            escape(&c.path),
            escape(&c.layer)
        ));
    }
    let g = &r.generator;
    out.open_with(
        "Generator",
        &format!("CpuNsPerIO=\"{:.1}\"", g.cpu_ns_per_io),
    );
    for x in &g.generation {
        out.line(&format!(
            "<Generation Path=\"{}\" NsPerBlock=\"{:.1}\" PercentOfThreadTime=\"{:.3}\"/>",
            escape(&x.path),
            x.ns_per_block,
            x.percent_of_thread_time
        ));
    }
    out.close("Generator");
    let c = &r.cpu;
    out.open_with(
        "Cpu",
        &format!(
            "OthersPercent=\"{:.2}\" StealPercent=\"{:.2}\"",
            c.others_percent, c.steal_percent
        ),
    );
    for w in &c.waited {
        let cpu = w.cpu.map_or(String::new(), |c| format!(" Cpu=\"{c}\""));
        out.line(&format!(
            "<Waited Thread=\"{}\"{cpu} Percent=\"{:.3}\"/>",
            w.thread, w.waited_percent
        ));
    }
    out.close("Cpu");
    let f = &r.fingerprint;
    out.open_with(
        "Fingerprint",
        &format!(
            "Id=\"{}\" CPUs=\"{}\" Nodes=\"{}\" Kernel=\"{}\"",
            f.id,
            f.cpus,
            f.nodes,
            escape(&f.kernel)
        ),
    );
    for (device, scheduler) in &f.schedulers {
        out.line(&format!(
            "<Scheduler Device=\"{}\" Name=\"{}\"/>",
            escape(device),
            escape(scheduler)
        ));
    }
    for (path, mode) in &f.cache_modes {
        out.line(&format!(
            "<CacheMode Path=\"{}\" Mode=\"{mode}\"/>",
            escape(path)
        ));
    }
    out.close("Fingerprint");
    for flag in &r.flags {
        out.text("Flag", flag);
    }
    for checked in &r.checked {
        out.text("Checked", checked);
    }
    if let Some(why) = &r.clock_off {
        out.text("ClockOff", why);
    }
    out.close("Reality");
}

/// `--dedupe`: a target's plan and the exact ratio of what the timespan wrote.
fn dedupe(out: &mut Out, d: &crate::report::DedupeReport) {
    out.line(&format!(
        "<Dedupe Path=\"{}\" Option=\"{}\" Units=\"{}\" UniqueUnits=\"{}\" Sets=\"{}\" PlannedRatio=\"{:.6}\" Filled=\"{}\" WrittenUnits=\"{}\" DistinctContents=\"{}\" WrittenRatio=\"{:.6}\"/>",
        escape(&d.path),
        d.dedupe,
        d.units,
        d.unique_units,
        d.sets,
        d.planned_ratio,
        d.filled,
        d.written_units,
        d.distinct_contents,
        d.written_ratio
    ));
}

/// `iospd replay`: what went where, and how faithfully in time.
fn replay(out: &mut Out, r: &crate::report::ReplayReport) {
    out.line(&format!(
        "<Replay Traces=\"{}\" Events=\"{}\" Speed=\"{}\" Remap=\"{}\" TraceIOCount=\"{}\" IOCount=\"{}\" TraceSpanSeconds=\"{:.9}\" SpanSeconds=\"{:.9}\" SpanErrorPercent=\"{:.6}\" DepthCap=\"{}\" HeldByDepth=\"{}\" IopsErrorMeanPercent=\"{:.6}\" IopsErrorMaxPercent=\"{:.6}\" MiBpsErrorMeanPercent=\"{:.6}\" BufferBytes=\"{}\"{}>",
        escape(&r.traces.join(";")),
        r.events,
        r.speed,
        r.remap,
        r.trace_ios,
        r.issued,
        r.trace_span_s,
        r.replay_span_s,
        r.span_error_pct,
        r.depth_cap,
        r.held_by_depth,
        r.iops_error_mean_pct,
        r.iops_error_max_pct,
        r.mibs_error_mean_pct,
        r.buffer_bytes,
        r.cut_at_s
            .map(|c| format!(" CutAtSeconds=\"{c:.3}\""))
            .unwrap_or_default()
    ));
    out.depth += 1;
    for d in &r.devices {
        out.line(&format!(
            "<Device Name=\"{}\" Target=\"{}\" Extent=\"{}\" TargetSize=\"{}\"/>",
            escape(&d.device),
            escape(&d.target),
            d.extent,
            d.target_size
        ));
    }
    if let Some(l) = &r.lateness {
        out.line(&format!(
            "<Lateness P50Nanoseconds=\"{}\" P99Nanoseconds=\"{}\" P999Nanoseconds=\"{}\" MaxNanoseconds=\"{}\" MeanNanoseconds=\"{:.1}\" BoundNanoseconds=\"{}\" Late=\"{}\"/>",
            l.p50_ns, l.p99_ns, l.p999_ns, l.max_ns, l.mean_ns, l.bound_ns, l.late
        ));
    }
    for s in &r.slots {
        out.line(&format!(
            "<Slots SizeBytes=\"{}\" Count=\"{}\"/>",
            s.size_bytes, s.slots
        ));
    }
    for s in &r.seconds {
        out.line(&format!(
            "<Second Index=\"{}\" TraceIOCount=\"{}\" IOCount=\"{}\" TraceBytes=\"{}\" Bytes=\"{}\"/>",
            s.second, s.trace_ios, s.replay_ios, s.trace_bytes, s.replay_bytes
        ));
    }
    if let Some(e) = &r.error {
        out.line(&format!("<Error>{}</Error>", escape(e)));
    }
    out.depth -= 1;
    out.line("</Replay>");
}

/// The window's slowest I/Os, the slowest first.
fn slowest(out: &mut Out, slowest: &[crate::report::SlowIoReport]) {
    if slowest.is_empty() {
        return;
    }
    out.open("SlowestIOs");
    for io in slowest {
        out.line(&format!(
            "<IO LatencyNanoseconds=\"{}\" CompletedSeconds=\"{:.6}\" Thread=\"{}\" Path=\"{}\" Op=\"{}\" Offset=\"{}\" Bytes=\"{}\"{}/>",
            io.latency_ns,
            io.completed_s,
            io.thread,
            escape(&io.path),
            io.op.name(),
            io.offset,
            io.bytes,
            io.device_ns
                .map_or(String::new(), |ns| format!(" DeviceNanoseconds=\"{ns}\"")),
        ));
    }
    out.close("SlowestIOs");
}

/// `--distribution`: a target's hot sets and their share of the measured I/O.
fn skew(out: &mut Out, s: &crate::report::SkewReport) {
    out.line(&format!(
        "<SkewedAccess Path=\"{}\" Distribution=\"{}\" Positions=\"{}\" IOCount=\"{}\">",
        escape(&s.path),
        s.distribution,
        s.positions,
        s.ios
    ));
    out.depth += 1;
    for h in &s.hot_sets {
        out.line(&format!(
            "<HotSet PercentOfPositions=\"{}\" Positions=\"{}\" IOCount=\"{}\" MeasuredPercent=\"{:.4}\" ExpectedPercent=\"{:.4}\"/>",
            h.percent_of_positions, h.positions, h.ios, h.measured_percent, h.expected_percent
        ));
    }
    out.depth -= 1;
    out.line("</SkewedAccess>");
}

/// SNIA's steady-state verdict (of repetitions, or of `-D` intervals).
fn steady_state(out: &mut Out, s: &crate::stats::confidence::SteadyState) {
    out.line(&format!(
        "<SteadyState Reached=\"{}\" RangeShare=\"{:.4}\" ExcursionShare=\"{:.4}\"/>",
        s.reached, s.range_share, s.excursion_share
    ));
}

/// DiskSpd's `<Iops>` buckets; at the timespan level each bucket also carries iospd's MiB/s and
/// latency percentiles of the interval (`timeline`, every thread merged).
fn iops(out: &mut Out, d: &Directions, timeline: &[crate::stats::timeline::Row]) {
    out.open("Iops");
    for (dir, tag) in [
        (&d.read, "ReadIopsStdDev"),
        (&d.write, "WriteIopsStdDev"),
        (&d.total, "IopsStdDev"),
    ] {
        if dir.ios > 0 {
            out.value(tag, format!("{:.3}", dir.ios_per_s_stddev.unwrap_or(0.0)));
        }
    }
    for (i, total) in d.total.intervals.iter().enumerate() {
        let mut attrs = format!(
            "SampleMillisecond=\"{}\" Read=\"{:.0}\" Write=\"{:.0}\" Total=\"{:.0}\"",
            total.end_ms,
            d.read.intervals.get(i).map_or(0.0, |b| b.ios_per_s),
            d.write.intervals.get(i).map_or(0.0, |b| b.ios_per_s),
            total.ios_per_s
        );
        for (dir, name) in [(&d.read, "Read"), (&d.write, "Write")] {
            let b = dir.intervals.get(i);
            attrs.push_str(&format!(
                " {name}MinLatencyMilliseconds=\"{}\" {name}MaxLatencyMilliseconds=\"{}\" {name}AvgLatencyMilliseconds=\"{}\" {name}LatencyStdDev=\"{}\"",
                ms(b.map_or(0.0, |b| b.latency_min_ns as f64)),
                ms(b.map_or(0.0, |b| b.latency_max_ns as f64)),
                ms(b.map_or(0.0, |b| b.latency_mean_ns)),
                ms(b.map_or(0.0, |b| b.latency_stddev_ns)),
            ));
        }
        if let Some(row) = timeline.get(i) {
            for (p, name) in [
                (&row.all.read, "Read"),
                (&row.all.write, "Write"),
                (&row.all.total, "Total"),
            ] {
                attrs.push_str(&format!(
                    " {name}MiBps=\"{:.3}\" {name}P50LatencyMilliseconds=\"{}\" {name}P99LatencyMilliseconds=\"{}\" {name}P999LatencyMilliseconds=\"{}\"",
                    p.bytes_per_s / 1_048_576.0,
                    ms(p.p50_ns as f64),
                    ms(p.p99_ns as f64),
                    ms(p.p999_ns as f64),
                ));
            }
        }
        out.line(&format!("<Bucket {attrs}/>"));
    }
    out.close("Iops");
}

fn thread_xml(out: &mut Out, report: &Report, index: usize, m: &Measured, thread: &ThreadReport) {
    let profile_ts = &report.profile.timespans[index];
    out.open("Thread");
    out.value("Id", thread.thread);
    if let Some(rank) = &thread.host {
        out.value("Rank", rank.rank);
        out.text("Host", &rank.host);
    }
    if profile_ts.io_ring.is_some() {
        out.value("SubmitCount", thread.waits.submits);
    }
    for target in &thread.targets {
        let d = &target.directions;
        out.open("Target");
        out.text("Path", &target.path);
        out.value("BytesCount", d.total.bytes);
        out.value("FileSize", target.size_bytes);
        out.value("IOCount", d.total.ios);
        out.value("ReadBytes", d.read.bytes);
        out.value("ReadCount", d.read.ios);
        out.value("WriteBytes", d.write.bytes);
        out.value("WriteCount", d.write.ios);
        if let Some(trim) = &d.trim {
            out.value("TrimBytes", trim.bytes);
            out.value("TrimCount", trim.ios);
        }
        if let Some(flush) = &d.flush {
            out.value("FlushCount", flush.ios);
        }
        if let Some(dist) = m
            .distributions
            .iter()
            .find(|x| x.path == target.path && x.threads.contains(&thread.thread))
        {
            out.open("Distribution");
            out.open("Absolute");
            for r in &dist.ranges {
                out.line(&format!(
                    "<Range IO=\"{}\">{}</Range>",
                    r.io_percent.round() as u64,
                    r.length
                ));
            }
            out.close("Absolute");
            out.close("Distribution");
        }
        if profile_ts.measure_latency {
            for (dir, average, stdev) in [
                (
                    &d.read,
                    "AverageReadLatencyMilliseconds",
                    "ReadLatencyStdev",
                ),
                (
                    &d.write,
                    "AverageWriteLatencyMilliseconds",
                    "WriteLatencyStdev",
                ),
                (&d.total, "AverageLatencyMilliseconds", "LatencyStdev"),
            ]
            .into_iter()
            .chain(
                d.trim
                    .as_ref()
                    .map(|trim| (trim, "AverageTrimLatencyMilliseconds", "TrimLatencyStdev")),
            )
            .chain(d.flush.as_ref().map(|flush| {
                (
                    flush,
                    "AverageFlushLatencyMilliseconds",
                    "FlushLatencyStdev",
                )
            })) {
                if let Some(l) = &dir.latency {
                    out.value(average, ms(l.mean_ns));
                    out.value(stdev, ms(l.stddev_ns));
                }
            }
        }
        if profile_ts.iops_interval_ms.is_some() {
            iops(out, d, &[]);
        }
        out.close("Target");
    }
    if report.profile.verbose_stats {
        let w = &thread.waits;
        out.open("WaitStatistics");
        out.value("CompletionWait", w.waits);
        out.value("ThrottleWait", w.throttle_waits);
        out.value("ThrottleSleep", w.throttle_sleeps);
        out.value("Lookaside", w.lookasides);
        let join = |h: &[u64; 8]| h.iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
        out.value("CompletionsPerWait", join(&w.completions_per_wait));
        out.value("LookasideCompletion", join(&w.completions_per_lookaside));
        out.close("WaitStatistics");
    }
    out.close("Thread");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(mask([0, 1]), "0x3");
        assert_eq!(mask([4]), "0x10");
        assert_eq!(mask([]), "0x0");
        assert_eq!(mask([64]), "0x10000000000000000");
        assert_eq!(mask([0, 65]), "0x20000000000000001");
    }
}
