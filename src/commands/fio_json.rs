//! `iospd fio --output-format=json|json+`: fio's JSON results from the jobs' reports, each job
//! with its options as written and its percentile list (fio's own when it names none).

use crate::fiojob::Job;
use crate::fiojob::value::boolean;
use crate::report::Report;
use crate::report::analysis::fio::{FIO_PERCENTILES, FioJobRun, document};
use crate::report::render::fio_json;

/// The document for the jobs that ran (job, its group, its report), in order.
pub fn render(ran: &[(&Job, usize, &Report)], plus: bool) -> String {
    let runs: Vec<FioJobRun> = ran
        .iter()
        .map(|(job, group, report)| FioJobRun {
            name: &job.name,
            group: *group,
            options: options(job),
            percentiles: percentiles(job),
            lat_percentiles: job
                .get("lat_percentiles")
                .is_some_and(|s| boolean(s.value.as_deref()).unwrap_or(false)),
            clones: !job
                .get("group_reporting")
                .is_some_and(|s| boolean(s.value.as_deref()).unwrap_or(false)),
            report,
        })
        .collect();
    fio_json::render(&document(&runs, plus, std::time::SystemTime::now()))
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
