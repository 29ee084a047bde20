//! What a job records: `percentile_list`, fio's logs (`write_bw_log`, `write_iops_log`,
//! `write_lat_log` at `log_avg_msec`) and its I/O log (`write_iolog`).

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
    if !logs.is_empty() {
        t.args.push(format!("-D{log_ms}"));
    }
    if let Some(s) = r.get("write_iolog") {
        t.args
            .push(format!("--trace={}", s.value.as_deref().unwrap_or("")));
        t.notes
            .push("the I/O log is iospd's --trace, which iospd replay reads".into());
    }
    Ok(logs)
}
