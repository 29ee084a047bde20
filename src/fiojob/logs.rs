//! What a job records: `percentile_list`, fio's logs (`write_bw_log`, `write_iops_log`,
//! `write_lat_log` at `log_avg_msec`, `write_hist_log` at `log_hist_msec`) and its I/O log
//! (`write_iolog`).

use super::reader::{Reader, Refusal};
use super::translate::{Draft, FioLog, LogKind};
use super::value::integer;

/// The percentiles, the `-D` interval and `--trace`; the logs to write in fio's format.
pub(super) fn logs(r: &mut Reader, t: &mut Draft) -> Result<Vec<FioLog>, Box<Refusal>> {
    if let Some(s) = r.get("percentile_list") {
        let list: Vec<&str> = s.value.as_deref().unwrap_or("").split(':').collect();
        if list.iter().any(|p| p.parse::<f64>().is_err()) {
            return Err(r.refuse(s, "a list of percentiles separated by ':'", None));
        }
        t.args.push(format!("--percentiles={}", list.join(",")));
    }
    let mut logs = Vec::new();
    let offset = r.flag("log_offset")?.unwrap_or(false);
    for (key, kind) in [
        ("write_bw_log", LogKind::Bandwidth),
        ("write_iops_log", LogKind::Iops),
        ("write_lat_log", LogKind::Latency),
    ] {
        if let Some(s) = r.get(key) {
            let prefix = s.value.clone().filter(|v| !v.is_empty());
            logs.push(FioLog {
                kind,
                prefix: prefix.unwrap_or_else(|| r.job_name().to_string()),
                offset,
            });
        }
    }
    let log_ms = match r.parsed("log_avg_msec", integer)?.filter(|&ms| ms > 0) {
        Some(ms) => ms,
        None if !logs.is_empty() => {
            t.notes.push("fio logs every I/O without log_avg_msec; iospd logs each 1000 ms window (set log_avg_msec for another)".into());
            1000
        }
        None => 0,
    };
    let interval = histogram(r, log_ms, offset, &mut logs, t)?.unwrap_or(log_ms);
    if !logs.is_empty() {
        t.args.push(format!("-D{interval}"));
    }
    if let Some(s) = r.get("write_iolog") {
        t.args
            .push(format!("--trace={}", s.value.as_deref().unwrap_or("")));
        t.notes
            .push("the I/O log is iospd's --trace, which iospd replay reads".into());
    }
    Ok(logs)
}

/// `write_hist_log` at `log_hist_msec` (with `log_hist_coarseness`): the run writes its
/// HdrHistogram interval log at that interval, turned into fio's histogram log after it; the
/// interval, which the other logs (`log_ms`, 0 without them) must share.
fn histogram(
    r: &mut Reader,
    log_ms: u64,
    offset: bool,
    logs: &mut Vec<FioLog>,
    t: &mut Draft,
) -> Result<Option<u64>, Box<Refusal>> {
    let prefix = r
        .get("write_hist_log")
        .map(|s| s.value.clone().filter(|v| !v.is_empty()));
    let ms = r.parsed("log_hist_msec", integer)?.filter(|&ms| ms > 0);
    let coarseness = r.parsed("log_hist_coarseness", |v| {
        integer(v).and_then(|n| match n {
            0..=6 => Ok(n as u8),
            _ => Err(format!("'{v}': fio's log_hist_coarseness is 0 to 6")),
        })
    })?;
    let (prefix, ms) = match (prefix, ms) {
        (Some(prefix), Some(ms)) => (prefix.unwrap_or_else(|| r.job_name().to_string()), ms),
        (Some(_), None) => {
            t.notes
                .push("write_hist_log: fio logs no histogram without log_hist_msec".into());
            return Ok(None);
        }
        (None, Some(ms)) => {
            t.notes.push(format!(
                "log_hist_msec={ms}: fio writes no histogram log without write_hist_log"
            ));
            return Ok(None);
        }
        (None, None) => return Ok(None),
    };
    if log_ms > 0 && log_ms != ms {
        return Err(r.refuse(
            r.last_of("log_hist_msec"),
            format!("a histogram interval other than the other logs' {log_ms} ms: iospd's logs share one interval (-D)"),
            Some("log_hist_msec equal to log_avg_msec"),
        ));
    }
    t.args.push(format!("--histlog={prefix}_clat_hist.hlog"));
    logs.push(FioLog {
        kind: LogKind::Histogram {
            coarseness: coarseness.unwrap_or(0),
        },
        prefix,
        offset,
    });
    Ok(Some(ms))
}
