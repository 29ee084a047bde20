//! Where a job's threads run: `cpus_allowed`/`cpumask` with `cpus_allowed_policy`.

use super::reader::{Reader, Refusal};
use super::value::time_ns;

/// `cpus_allowed` (or `cpumask`, a number whose bits are CPUs): the threads run anywhere in the
/// set (`--cpu-set`, fio's `shared` policy), or each on its own CPU of it (`-a`, `split`); with
/// neither, `-n`: fio leaves placement to the scheduler, where DiskSpd pins.
pub(super) fn cpus(r: &mut Reader) -> Result<Vec<String>, Box<Refusal>> {
    let listed = match (r.get("cpus_allowed"), r.get("cpumask")) {
        (Some(s), _) => {
            let list = crate::cli::flags::parse_cpu_set(s.value.as_deref().unwrap_or(""))
                .map_err(|why| r.refuse(s, why, None))?;
            Some((s, list))
        }
        (None, Some(s)) => {
            let text = s.value.as_deref().unwrap_or("").trim();
            let mask = match text.strip_prefix("0x").or(text.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            let mask = mask
                .ok()
                .filter(|&m| m != 0)
                .ok_or_else(|| r.refuse(s, "not a CPU mask (a number, 0x… in hex)", None))?;
            Some((s, (0..64).filter(|cpu| mask >> cpu & 1 == 1).collect()))
        }
        (None, None) => None,
    };
    let policy = r.get("cpus_allowed_policy");
    let Some((_, cpus)) = listed else {
        // fio leaves placement to the scheduler.
        return Ok(vec!["-n".into()]);
    };
    let words: Vec<String> = cpus.iter().map(u32::to_string).collect();
    match policy.and_then(|s| s.value.as_deref()).unwrap_or("shared") {
        "shared" => Ok(vec![format!("--cpu-set={}", crate::units::cpu_list(&cpus))]),
        "split" => Ok(vec![format!("-a{}", words.join(","))]),
        _ => Err(r.refuse(
            policy.expect("a value other than the default"),
            "not shared or split",
            None,
        )),
    }
}

/// `startdelay`: how long after its group starts the job starts, ms.
pub(super) fn start_delay(r: &mut Reader) -> Result<u64, Box<Refusal>> {
    Ok(match r.get("startdelay") {
        Some(s) if s.value.as_deref().is_some_and(|v| v.contains('-')) => {
            return Err(r.refuse(
                s,
                "a start drawn from a range (iospd fio starts each job at its one delay)",
                Some("startdelay=<one time>"),
            ));
        }
        Some(s) => {
            time_ns(s.value.as_deref().unwrap_or(""), 1_000_000_000)
                .map_err(|why| r.refuse(s, why, None))?
                / 1_000_000
        }
        None => 0,
    })
}
