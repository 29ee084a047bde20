//! `iospd fio --output-format=json|json+|terse`: fio's results from the jobs' reports, each job
//! with its options as written and its percentile list (fio's own when it names none). Jobs are
//! in fio's reporting groups (a `stonewall` or `new_group` starts one); with `group_reporting`
//! a group's jobs are one entry, their reports merged as runs at the same time are.

use crate::fiojob::Job;
use crate::fiojob::value::{boolean, time_ns};
use crate::report::Report;
use crate::report::analysis::fio::{FIO_PERCENTILES, FioJobRun, Unified, document};
use crate::report::fio::FioDocument;
use crate::report::render::{fio_json, fio_terse};

/// How fio's results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FioOutput {
    /// `--output-format=json` (`plus`: `json+`, every latency bin).
    Json { plus: bool },
    /// `--output-format=terse` or `--minimal`, in `--terse-version` (3 by default).
    Terse(u8),
}

/// The jobs that ran (job, its `stonewall` group, its report), in order, as `output` asks.
pub fn render(ran: &[(&Job, usize, &Report)], output: FioOutput) -> String {
    match output {
        FioOutput::Json { plus } => fio_json::render(&document_of(ran, plus)),
        FioOutput::Terse(version) => fio_terse::render(&document_of(ran, false), version),
    }
}

/// The document for the jobs that ran, in order; `plus` adds every latency bin.
fn document_of(ran: &[(&Job, usize, &Report)], plus: bool) -> FioDocument {
    let groups = reporting_groups(ran);
    // A group reported as one: its reports merged (separate entries if they cannot be).
    let merged: Vec<Option<Report>> = groups
        .iter()
        .map(|members| {
            let first = ran[members[0]].0;
            let reports: Vec<Report> = members.iter().map(|&i| ran[i].2.clone()).collect();
            (members.len() > 1 && set(first, "group_reporting"))
                .then(|| crate::report::analysis::merge::merge(&reports).ok())
                .flatten()
        })
        .collect();
    let mut runs = Vec::new();
    for (id, members) in groups.iter().enumerate() {
        match &merged[id] {
            Some(report) => runs.push(run(ran[members[0]].0, id, report)),
            None => runs.extend(members.iter().map(|&i| run(ran[i].0, id, ran[i].2))),
        }
    }
    document(&runs, plus, std::time::SystemTime::now())
}

/// The jobs of each reporting group, in order: a job in a later `stonewall` group, or with
/// `new_group`, starts the next.
fn reporting_groups(ran: &[(&Job, usize, &Report)]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, (job, group, _)) in ran.iter().enumerate() {
        let starts = i == 0 || ran[i - 1].1 != *group || set(job, "new_group");
        match groups.last_mut() {
            Some(last) if !starts => last.push(i),
            _ => groups.push(vec![i]),
        }
    }
    groups
}

/// Whether a job sets a boolean option.
fn set(job: &Job, key: &str) -> bool {
    job.get(key)
        .is_some_and(|s| boolean(s.value.as_deref()).unwrap_or(false))
}

/// An entry's source: the job (or its group's first job), its reporting group, the report.
fn run<'a>(job: &'a Job, group: usize, report: &'a Report) -> FioJobRun<'a> {
    FioJobRun {
        name: &job.name,
        group,
        options: options(job),
        percentiles: percentiles(job),
        lat_percentiles: set(job, "lat_percentiles"),
        clones: !set(job, "group_reporting"),
        unified: match job
            .get("unified_rw_reporting")
            .and_then(|s| s.value.as_deref())
        {
            Some("1" | "mixed") => Unified::Mixed,
            Some("2" | "both") => Unified::Both,
            _ => Unified::Apart,
        },
        latency_target: latency_target(job),
        report,
    }
}

/// `latency_target` (ns), `latency_percentile` and `latency_window` (µs), as fio reads them
/// (µs unless a unit is given; a percentile of 100 unless set).
fn latency_target(job: &Job) -> (u64, f64, u64) {
    let time = |key| {
        job.get(key)
            .and_then(|s| time_ns(s.value.as_deref()?, 1_000).ok())
            .unwrap_or(0)
    };
    let percentile = job
        .get("latency_percentile")
        .and_then(|s| s.value.as_deref()?.trim().parse().ok())
        .unwrap_or(100.0);
    (
        time("latency_target"),
        percentile,
        time("latency_window") / 1_000,
    )
}

/// The job's settings under fio's names, the last of each kept in its first place.
fn options(job: &Job) -> Vec<(String, String)> {
    let mut options: Vec<(String, String)> = Vec::new();
    for s in &job.settings {
        let value = s.value.clone().unwrap_or_default();
        match options.iter_mut().find(|(k, _)| *k == s.key) {
            Some(kept) => kept.1 = value,
            None => options.push((s.key.clone(), value)),
        }
    }
    options
}

/// `percentile_list` (`:`-separated, as fio reads it), or fio's default list.
fn percentiles(job: &Job) -> Vec<f64> {
    let listed: Option<Vec<f64>> = job
        .get("percentile_list")
        .and_then(|s| s.value.as_deref())
        .and_then(|v| v.split([':', ',']).map(|p| p.trim().parse().ok()).collect());
    match listed {
        Some(list) if !list.is_empty() && list.iter().all(|p| (0.0..=100.0).contains(p)) => list,
        _ => FIO_PERCENTILES.to_vec(),
    }
}
