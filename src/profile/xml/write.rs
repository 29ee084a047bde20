//! [`Profile`] → DiskSpd's XML profile, element for element as DiskSpd writes it, so that `-Rpxml`
//! output runs again with `-X` and DiskSpd's own tools read it.

use std::fmt::Write as _;

use crate::profile::{
    Access, Affinity, Batch, BufferSeparation, CacheMode, DistributionKind, Efficiency, EtwTimer,
    FlushMode, Precreate, Profile, ResultFormat, Target, Throughput, TimeSpan, WriteBuffer,
};

/// Escapes text and attribute values (`&`, `<`, `>`, `"`, `'`).
pub fn escape(text: &str) -> String {
    // Characters XML 1.0 cannot hold at all (most C0 controls, U+FFFE, U+FFFF) become U+FFFD, so
    // the document stays well-formed whatever the machine reports; paths never contain them (they
    // are refused before the run).
    let legal = |c: char| {
        matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
    };
    if text.chars().all(legal) {
        return quick_xml::escape::escape(text).into_owned();
    }
    let cleaned: String = text
        .chars()
        .map(|c| if legal(c) { c } else { '\u{FFFD}' })
        .collect();
    quick_xml::escape::escape(&cleaned).into_owned()
}

/// An indenting XML writer, two spaces per level as DiskSpd writes.
pub struct Out {
    /// The document so far.
    pub text: String,
    /// Current nesting.
    pub depth: usize,
}

impl Out {
    /// A writer starting at `depth`.
    pub fn new(depth: usize) -> Self {
        Out {
            text: String::new(),
            depth,
        }
    }

    /// One line at the current depth.
    pub fn line(&mut self, content: &str) {
        let _ = writeln!(self.text, "{:width$}{content}", "", width = self.depth * 2);
    }

    /// `<tag>` and one level deeper.
    pub fn open(&mut self, tag: &str) {
        self.line(&format!("<{tag}>"));
        self.depth += 1;
    }

    /// `<tag attrs>` and one level deeper.
    pub fn open_with(&mut self, tag: &str, attrs: &str) {
        self.line(&format!("<{tag} {attrs}>"));
        self.depth += 1;
    }

    /// One level up and `</tag>`.
    pub fn close(&mut self, tag: &str) {
        self.depth -= 1;
        self.line(&format!("</{tag}>"));
    }

    /// `<tag>value</tag>`.
    pub fn value(&mut self, tag: &str, value: impl std::fmt::Display) {
        self.line(&format!("<{tag}>{value}</{tag}>"));
    }

    /// `<tag>escaped text</tag>`.
    pub fn text(&mut self, tag: &str, value: &str) {
        self.line(&format!("<{tag}>{}</{tag}>", escape(value)));
    }
}

/// The profile document (what `-Rpxml` prints).
pub fn write_profile(profile: &Profile) -> String {
    profile_xml(profile, 0)
}

/// The `<Profile>` element indented by `depth` levels (for embedding in XML results).
pub fn profile_xml(profile: &Profile, depth: usize) -> String {
    let mut out = Out::new(depth);
    out.open("Profile");
    out.value("Progress", profile.progress.unwrap_or(0));
    out.value(
        "ResultFormat",
        match profile.result_format {
            ResultFormat::Text | ResultFormat::Html | ResultFormat::Csv => "text",
            ResultFormat::Xml => "xml",
            ResultFormat::Json => "json",
        },
    );
    out.value("Verbose", profile.verbose);
    if profile.verbose_stats {
        out.value("VerboseStats", true);
    }
    if profile.experiment_flags != 0 {
        out.value("ExperimentFlags", profile.experiment_flags);
    }
    if let Some(precreate) = profile.precreate {
        out.value(
            "PrecreateFiles",
            match precreate {
                Precreate::UseMaxSize => "UseMaxSize",
                Precreate::OnlyFilesWithConstantSizes => "CreateOnlyFilesWithConstantSizes",
                Precreate::OnlyFilesWithConstantOrZeroSizes => {
                    "CreateOnlyFilesWithConstantOrZeroSizes"
                }
            },
        );
    }
    let c = &profile.counters;
    if c.any() || c.use_paged_memory || c.timer.is_some() {
        out.open("ETW");
        for (tag, on) in [
            ("Process", c.process),
            ("Thread", c.thread),
            ("ImageLoad", c.image_load),
            ("DiskIO", c.disk_io),
            ("MemoryPageFaults", c.memory_page_faults),
            ("MemoryHardFaults", c.memory_hard_faults),
            ("Network", c.network),
            ("Registry", c.registry),
            ("UsePagedMemory", c.use_paged_memory),
            ("UsePerfTimer", c.timer == Some(EtwTimer::PerfTimer)),
            ("UseSystemTimer", c.timer == Some(EtwTimer::SystemTimer)),
            ("UseCyclesCounter", c.timer == Some(EtwTimer::CyclesCounter)),
        ] {
            out.value(tag, on);
        }
        out.close("ETW");
    }
    out.open("TimeSpans");
    for ts in &profile.timespans {
        timespan(&mut out, ts);
    }
    out.close("TimeSpans");
    out.close("Profile");
    out.text
}

fn timespan(out: &mut Out, ts: &TimeSpan) {
    out.open("TimeSpan");
    out.value("CompletionRoutines", false);
    out.value("MeasureLatency", ts.measure_latency);
    out.value("CalculateIopsStdDev", ts.iops_interval_ms.is_some());
    out.value("DisableAffinity", ts.affinity == Affinity::Disabled);
    out.value("Duration", ts.duration_s);
    out.value("Warmup", ts.warmup_s);
    out.value("Cooldown", ts.cooldown_s);
    out.value("ThreadCount", ts.thread_count.unwrap_or(0));
    out.value("RequestCount", ts.request_count.unwrap_or(0));
    if ts.file_service != crate::profile::FileService::Weighted {
        out.value("FileService", ts.file_service);
    }
    if let Some(rule) = &ts.steady_state {
        out.value("SteadyState", rule);
    }
    out.value("IoBucketDuration", ts.iops_interval_ms.unwrap_or(1000));
    out.value("RandSeed", ts.seed);
    if ts.random_write_data {
        out.value("RandomWriteData", true);
    }
    if let Affinity::Pinned { cpus, order } = &ts.affinity {
        if !cpus.is_empty() {
            out.open("Affinity");
            for cpu in cpus {
                out.line(&format!(
                    "<AffinityGroupAssignment Group=\"0\" Processor=\"{cpu}\"/>"
                ));
            }
            out.close("Affinity");
        }
        let efficiency = match order.efficiency {
            Efficiency::PFirst => "PFirst",
            Efficiency::FillPFirst => "FillPFirst",
            Efficiency::EFirst => "EFirst",
            Efficiency::FillEFirst => "FillEFirst",
            Efficiency::Unordered => "Unordered",
        };
        out.line(&format!(
            "<AffinityTraversal Group=\"{}\" Efficiency=\"{efficiency}\">{}</AffinityTraversal>",
            if order.span_groups { "Span" } else { "Fill" },
            if order.core_aware { "CoreAware" } else { "Cpu" }
        ));
    }
    if let Some(ring) = ts.io_ring {
        out.open("IoRing");
        let (n, percent) = match ring.batch {
            Batch::Count(n) => (n, false),
            Batch::Percent(p) => (p, true),
        };
        out.line(&format!(
            "<IoRingBatchSize Percent=\"{percent}\">{n}</IoRingBatchSize>"
        ));
        out.value("UseRegBuffer", ring.registered_buffers);
        out.close("IoRing");
    }
    if let Some(depth) = ts.completion_depth {
        out.value("CompletionDepth", depth);
    }
    if let Some(separation) = ts.buffer_separation {
        out.value(
            "BufferSeparation",
            match separation {
                BufferSeparation::ThreadOptimized => "PDECacheLine",
                BufferSeparation::SystemDefault => "SystemDefault",
            },
        );
    }
    out.open("Targets");
    for target in &ts.targets {
        write_target(out, target);
    }
    out.close("Targets");
    out.close("TimeSpan");
}

fn write_target(out: &mut Out, t: &Target) {
    out.open("Target");
    out.text("Path", &t.path.display().to_string());
    out.value("BlockSize", t.block_size);
    out.value("BaseFileOffset", t.base_offset);
    out.value("SequentialScan", t.hints.sequential_scan);
    out.value("RandomAccess", t.hints.random_access);
    out.value("TemporaryFile", t.hints.temporary);
    out.value("UseLargePages", t.large_pages);
    if t.cache == CacheMode::DisableOsCache {
        out.value("DisableOSCache", true);
    }
    if t.write_through {
        out.value("WriteThrough", true);
    }
    if t.o_sync {
        out.value("OSync", true);
    }
    if t.memory_mapped {
        out.value("MemoryMappedIo", true);
    }
    if let Some(flush) = t.flush {
        out.value(
            "FlushType",
            match flush {
                FlushMode::ViewOfFile => "ViewOfFile",
                FlushMode::NonVolatileMemory => "NonVolatileMemory",
                FlushMode::NonVolatileMemoryNoDrain => "NonVolatileMemoryNoDrain",
            },
        );
    }
    out.open("WriteBufferContent");
    match &t.write_buffer {
        WriteBuffer::Pattern => out.value("Pattern", "sequential"),
        WriteBuffer::Zero => out.value("Pattern", "zero"),
        WriteBuffer::Repeat { hex } => {
            out.value("Pattern", "repeat");
            out.value("RepeatBytes", hex);
        }
        WriteBuffer::Source { size, file } => {
            out.value("Pattern", "random");
            out.open("RandomDataSource");
            out.value("SizeInBytes", size);
            if let Some(file) = file {
                out.text("FilePath", &file.display().to_string());
            }
            out.close("RandomDataSource");
        }
    }
    out.close("WriteBufferContent");
    let parallel = matches!(t.access, Access::Sequential { parallel: true, .. });
    out.value("ParallelAsyncIO", parallel);
    if let Some(burst) = t.burst {
        out.value("BurstSize", burst.size);
        match burst.whole_ms() {
            Some(ms) => out.value("ThinkTime", ms),
            None => out.line(&format!(
                "<ThinkTime unit=\"us\">{}</ThinkTime>",
                burst.think_us
            )),
        }
    }
    if let Some(size) = t.create_size {
        out.value("FileSize", size);
    }
    match t.access {
        Access::Random { align, ratio } => {
            out.value("Random", align);
            if ratio != 100 {
                out.value("RandomRatio", ratio);
            }
            if let Some(d) = &t.distribution {
                let kind = match d.kind {
                    DistributionKind::Percent => "Percent",
                    DistributionKind::Absolute => "Absolute",
                };
                out.open("Distribution");
                out.open(kind);
                for r in &d.ranges {
                    out.line(&format!(
                        "<Range IO=\"{}\">{}</Range>",
                        r.io_percent, r.span
                    ));
                }
                out.close(kind);
                out.close("Distribution");
            }
        }
        Access::Sequential {
            stride,
            interlocked,
            ..
        } => {
            out.value("StrideSize", stride);
            out.value("InterlockedSequential", interlocked);
        }
    }
    out.value("ThreadStride", t.thread_stride);
    out.value("MaxFileSize", t.max_size.unwrap_or(0));
    out.value("RequestCount", t.requests);
    out.value("WriteRatio", t.write_ratio);
    match t.throughput {
        Some(Throughput::Iops(n)) => {
            out.line(&format!("<Throughput unit=\"IOPS\">{n}</Throughput>"))
        }
        Some(Throughput::BytesPerMs(n)) => out.value("Throughput", n),
        Some(Throughput::BytesPerS(n)) => {
            out.line(&format!("<Throughput unit=\"BPS\">{n}</Throughput>"))
        }
        None => out.value("Throughput", 0),
    }
    out.value("ThreadsPerFile", t.threads_per_target);
    out.value("IOPriority", t.io_priority.number());
    if let Some(class) = t.io_priority.class_text() {
        out.value("IoPrio", class);
    }
    out.value("Weight", t.weight);
    if !t.thread_targets.is_empty() {
        out.open("ThreadTargets");
        for tt in &t.thread_targets {
            out.open("ThreadTarget");
            out.value("Thread", tt.thread);
            if tt.weight != 0 {
                out.value("Weight", tt.weight);
            }
            out.close("ThreadTarget");
        }
        out.close("ThreadTargets");
    }
    // iospd's own workload options, in their options' syntax (profile/spec.rs reads them back).
    if let Some(c) = t.compress {
        out.value("Compress", c);
    }
    if let Some(d) = t.dedupe {
        out.value("Dedupe", d);
    }
    if let Some(s) = t.skew {
        out.value("SkewedDistribution", s);
    }
    if t.trim_percent > 0 {
        out.value("Trim", t.trim_percent);
    }
    if let Some(f) = t.flush_every {
        out.value(if f.data_only { "Fdatasync" } else { "Fsync" }, f.writes);
    }
    let work = t.work.unwrap_or_default();
    if let Some(n) = work.ios {
        out.value("IoCount", n);
    }
    if let Some(n) = work.bytes {
        out.value("ByteCount", n);
    }
    if let Some(p) = work.range_percent {
        out.value("RangePercent", p);
    }
    if t.random_map {
        out.value("RandomMap", "true");
    }
    if t.backwards {
        out.value("Backwards", "true");
    }
    if let Some(z) = &t.zones {
        out.value("Zones", z);
    }
    if t.pre_read {
        out.value("PreRead", "true");
    }
    if t.invalidate {
        out.value("Invalidate", "true");
    }
    if t.nowait {
        out.value("NoWait", "true");
    }
    if t.serialize_overlap {
        out.value("SerializeOverlap", "true");
    }
    if let Some(m) = &t.max_latency {
        out.value("MaxLatency", m);
    }
    if let Some(s) = &t.ioprio_split {
        out.value("IoprioSplit", s);
    }
    if t.poisson {
        out.value("RateProcess", "poisson");
    }
    if let Some(c) = &t.continue_on_error {
        out.value("ContinueOnError", c.text());
    }
    if t.offset_increment > 0 {
        out.value("OffsetIncrement", t.offset_increment);
    }
    if let Some(split) = &t.block_split {
        out.value("BlockSplit", split);
    }
    out.close("Target");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_characters_xml_cannot_hold_are_replaced() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(escape("cpu\u{1}name\u{FFFF}"), "cpu\u{FFFD}name\u{FFFD}");
        let document = format!("<a>{}</a>", escape("x\u{0}\u{1b}[0m\ty"));
        let mut reader = quick_xml::Reader::from_str(&document);
        while !matches!(reader.read_event().unwrap(), quick_xml::events::Event::Eof) {}
    }
}
