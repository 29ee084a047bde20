//! fio's terse results (`iospd fio --minimal`, `--output-format=terse`, `--terse-version=2…5`):
//! one `;`-separated line per entry of the document fio's JSON is written from
//! ([`crate::report::analysis::fio`]), in fio's field order, so scripts that split fio's terse
//! lines read iospd's. What iospd does not measure is written as fio writes a statistic it did
//! not gather, 0: submission latency; no disk utilisation fields follow (fio's own line without
//! `disk_util`).

use std::fmt::Write;

use crate::report::model::fio::{FioDirection, FioDocument, FioJob, FioLatency};

/// The versions fio writes (`--terse-version`): 3 is its default.
pub const VERSIONS: [u8; 4] = [2, 3, 4, 5];

/// fio's fixed number of percentile fields (`FIO_IO_U_LIST_MAX_LEN`).
const PERCENTILE_FIELDS: usize = 20;

/// The document as fio's terse lines of `version` (one of [`VERSIONS`]).
pub fn render(document: &FioDocument, version: u8) -> String {
    let mut out = String::new();
    for job in &document.jobs {
        line(&mut out, &document.fio_version, job, version);
    }
    out
}

fn line(out: &mut String, fio_version: &str, job: &FioJob, version: u8) {
    let name = &job.jobname;
    match version {
        2 => write!(out, "2;{name};{};{}", job.groupid, job.error),
        v => write!(
            out,
            "{v};{fio_version};{name};{};{}",
            job.groupid, job.error
        ),
    }
    .expect("writing to a String");
    // Reads, or (`unified_rw_reporting=mixed`) every direction as one in their place; then
    // writes and trims, and (`both`) the mixed direction after them.
    let none = FioDirection::default();
    match &job.read {
        Some(read) => {
            direction(out, read, version);
            direction(out, job.write.as_ref().unwrap_or(&none), version);
            if matches!(version, 2 | 4 | 5) {
                direction(out, job.trim.as_ref().unwrap_or(&none), version);
            }
            if let Some(mixed) = &job.mixed {
                direction(out, mixed, version);
            }
        }
        None => direction(out, job.mixed.as_ref().unwrap_or(&none), version),
    }
    // CPU: user, system; context switches, major and minor faults.
    let _ = write!(
        out,
        ";{:.6}%;{:.6}%;{};{};{}",
        job.usr_cpu, job.sys_cpu, job.ctx, job.majf, job.minf
    );
    // The I/O depth distribution at 1, 2, 4, 8, 16, 32, >=64.
    for (_, share) in &job.iodepth_level.0 {
        let _ = write!(out, ";{share:.1}%");
    }
    for (_, share) in job.latency_us.0.iter().chain(&job.latency_ms.0) {
        let _ = write!(out, ";{share:.2}%");
    }
    if let (Some(total), Some(first)) = (job.total_err, job.first_error) {
        let _ = write!(out, ";{total};{first}");
    }
    let description = job
        .job_options
        .0
        .iter()
        .rev()
        .find(|(k, _)| k == "description");
    if let Some((_, text)) = description.filter(|(_, text)| !text.is_empty()) {
        if version == 2 {
            out.push('\n');
        }
        let _ = write!(out, ";{text}");
    }
    out.push('\n');
}

/// One direction: bytes, bandwidth, IOPS, runtime, the latencies and the percentiles, the
/// bandwidth samples (and, in version 5, the IOPS samples).
fn direction(out: &mut String, d: &FioDirection, version: u8) {
    // fio's integer arithmetic over the runtime in ms.
    let (bw, iops) = match d.runtime {
        0 => (0, 0),
        ms => (d.io_bytes * 1000 / ms / 1024, d.total_ios * 1000 / ms),
    };
    let _ = write!(out, ";{};{bw};{iops};{}", d.io_bytes >> 10, d.runtime);
    latency(out, &d.slat_ns);
    latency(out, &d.clat_ns);
    let listed = d
        .lat_ns
        .percentile
        .as_ref()
        .or(d.clat_ns.percentile.as_ref());
    let listed = listed.map_or(&[][..], |p| &p.0[..]);
    for i in 0..PERCENTILE_FIELDS {
        match listed.get(i) {
            Some((percentile, ns)) => {
                let _ = write!(out, ";{percentile}%={}", ns / 1000);
            }
            None => out.push_str(";0%=0"),
        }
    }
    latency(out, &d.lat_ns);
    if d.bw_samples > 0 {
        let _ = write!(
            out,
            ";{};{};{:.6}%;{:.6};{:.6}",
            d.bw_min, d.bw_max, d.bw_agg, d.bw_mean, d.bw_dev
        );
    } else {
        out.push_str(";0;0;0.000000%;0.000000;0.000000");
    }
    if version == 5 {
        let _ = write!(out, ";{}", d.bw_samples);
        if d.iops_samples > 0 {
            let _ = write!(
                out,
                ";{};{};{:.6};{:.6};{}",
                d.iops_min, d.iops_max, d.iops_mean, d.iops_stddev, d.iops_samples
            );
        } else {
            out.push_str(";0;0;0.000000;0.000000;0");
        }
    }
}

/// min, max (µs, whole), mean, deviation (µs): zeros for a latency with no samples.
fn latency(out: &mut String, l: &FioLatency) {
    if l.n == 0 {
        out.push_str(";0;0;0.000000;0.000000");
        return;
    }
    let _ = write!(
        out,
        ";{};{};{:.6};{:.6}",
        l.min / 1000,
        l.max / 1000,
        l.mean / 1000.0,
        l.stddev / 1000.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::fio::{FioSync, Ordered};

    fn document() -> FioDocument {
        let read = FioDirection {
            io_bytes: 4 << 20,
            io_kbytes: 4 << 10,
            runtime: 1000,
            total_ios: 1024,
            clat_ns: FioLatency {
                min: 2_500,
                max: 130_999,
                mean: 4_514.5,
                stddev: 100.0,
                n: 1024,
                percentile: Some(Ordered(vec![
                    ("1.000000".into(), 2_000),
                    ("99.990000".into(), 130_000),
                ])),
                bins: None,
            },
            ..FioDirection::default()
        };
        let ranges = |keys: &[&str]| Ordered(keys.iter().map(|k| (k.to_string(), 0.0)).collect());
        let us = [
            "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
        ];
        let mut ms = us.to_vec();
        ms.extend(["2000", ">=2000"]);
        FioDocument {
            fio_version: "iospd-0".into(),
            timestamp: 0,
            timestamp_ms: 0,
            time: String::new(),
            jobs: vec![FioJob {
                jobname: "a".into(),
                groupid: 0,
                error: 0,
                elapsed: 1,
                job_options: Ordered(vec![("description".into(), "two words".into())]),
                read: Some(read),
                write: Some(FioDirection::default()),
                trim: Some(FioDirection::default()),
                sync: Some(FioSync::default()),
                mixed: None,
                job_runtime: 1000,
                usr_cpu: 1.5,
                sys_cpu: 60.0,
                ctx: 7,
                majf: 0,
                minf: 11,
                iodepth_level: Ordered(
                    ["1", "2", "4", "8", "16", "32", ">=64"]
                        .iter()
                        .map(|k| (k.to_string(), if *k == "1" { 100.0 } else { 0.0 }))
                        .collect(),
                ),
                latency_ns: ranges(&[]),
                latency_us: ranges(&us),
                latency_ms: ranges(&ms),
                total_err: None,
                first_error: None,
                latency: None,
                steadystate: None,
            }],
        }
    }

    #[test]
    fn lines_have_fios_fields_in_fios_order() {
        // fio 3.33's own field counts, without disk_util, plus one for a description: v3 121,
        // v4 a direction (41) more, v2 one header field fewer than v4 (and its description on a
        // line of its own, an empty field before it as this count splits), v5 six more per
        // direction.
        for (version, fields) in [(3, 122), (4, 163), (5, 181), (2, 163)] {
            let text = render(&document(), version);
            let count = text.trim_end().split([';', '\n']).count();
            assert_eq!(count, fields, "version {version}: {text}");
        }
        let text = render(&document(), 3);
        assert!(
            text.starts_with(
                "3;iospd-0;a;0;0;4096;4096;1024;1000;0;0;0.000000;0.000000;2;130;4.514500;0.100000;1.000000%=2;99.990000%=130;0%=0;"
            ),
            "{text}"
        );
        assert!(
            text.contains(";1.500000%;60.000000%;7;0;11;100.0%;0.0%;"),
            "{text}"
        );
        assert!(text.ends_with(";0.00%;two words\n"), "{text}");
        // continue_on_error: the errors and the first's number before the description.
        let mut failed = document();
        failed.jobs[0].total_err = Some(12);
        failed.jobs[0].first_error = Some(28);
        let text = render(&failed, 3);
        assert!(text.ends_with(";0.00%;12;28;two words\n"), "{text}");
    }
}
