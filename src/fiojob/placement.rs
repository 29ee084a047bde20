//! Where a job's threads run: `cpus_allowed`/`cpumask` with `cpus_allowed_policy`, and
//! `numa_cpu_nodes` (the CPUs of those nodes, read from this host) with `numa_mem_policy`; and at
//! what I/O priority (`prioclass`, `prio`) and CPU priority (`nice`); what memory is locked away
//! from the machine (`lockmem`); and what memory the buffers take (`mem`,
//! `hugepage-size`).

use super::reader::{Reader, Refusal};
use super::translate::ExitScope;
use super::value::{integer, time_ns};

/// The huge page iospd's `-l` buffers take (the kernel's default size on x86-64, `MAP_HUGETLB`).
const HUGE_PAGE: u64 = 2 << 20;

/// `mem` (or `iomem`) and `hugepage-size`: fio's huge-page buffers (`mmaphuge`, `shmhuge`, of
/// 2 MiB pages) are `-l`; malloc, shm and mmap buffers are ordinary pages as iospd's are (said
/// in `notes`); others are refused.
pub(super) fn memory(
    r: &mut Reader,
    notes: &mut Vec<String>,
) -> Result<Option<String>, Box<Refusal>> {
    let mem = r.get("mem");
    let value = mem.and_then(|s| s.value.as_deref()).unwrap_or("malloc");
    let (kind, file) = value.split_once(':').unwrap_or((value, ""));
    let huge = match kind {
        "malloc" | "shm" | "mmap" => false,
        "mmaphuge" | "shmhuge" => true,
        _ => {
            return Err(r.refuse(
                mem.expect("a value other than the default"),
                "buffers iospd cannot take (GPU or shared mappings)",
                Some("mem=malloc, or mem=mmaphuge (-l)"),
            ));
        }
    };
    let size = r.bytes("hugepage-size")?;
    if let Some(size) = size.filter(|&s| s != HUGE_PAGE) {
        if huge {
            return Err(r.refuse(
                r.last_of("hugepage-size"),
                format!("huge pages of {size} bytes: iospd's -l takes the kernel's 2 MiB pages"),
                Some("hugepage-size=2m"),
            ));
        }
        notes.push(format!(
            "hugepage-size={size}: fio uses it only for mem=mmaphuge or shmhuge"
        ));
    }
    if mem.is_some() {
        notes.push(match (huge, file) {
            (true, "") => format!("mem={kind}: iospd's buffers are 2 MiB huge pages (-l)"),
            (true, _) => format!(
                "mem={value}: iospd's buffers are anonymous 2 MiB huge pages (-l), not a file"
            ),
            (false, _) => format!(
                "mem={value}: iospd's buffers are page-aligned anonymous memory, as fio's from {kind}"
            ),
        });
    }
    Ok(huge.then(|| "-l".to_string()))
}

/// `prioclass` and `prio`: DiskSpd's `-I` where it makes the same request: the idle class (`-I1`,
/// whose level is unused), best-effort level 7 (`-I2`). Other classes and levels are refused.
pub(super) fn priority(r: &mut Reader) -> Result<Option<String>, Box<Refusal>> {
    let class = r.parsed("prioclass", integer)?;
    let level = r.parsed("prio", integer)?;
    // fio sets the class it is given (best effort for none, or 0) and the level (0 unless
    // given); the idle class has no levels.
    match (class, level) {
        (None, None) => Ok(None),
        (Some(3), _) => Ok(Some("-I1".into())),
        (None | Some(0 | 2), Some(7)) => Ok(Some("-I2".into())),
        (Some(c), _) if c > 3 => {
            Err(r.refuse(r.last["prioclass"], "not one of fio's classes 0 to 3", None))
        }
        (_, Some(l)) if l > 7 => Err(r.refuse(
            r.last["prio"],
            "not one of fio's levels 0 (highest) to 7",
            None,
        )),
        (Some(1), l) => Ok(Some(format!("--ioprio=rt:{}", l.unwrap_or(0)))),
        (_, l) => Ok(Some(format!("--ioprio=be:{}", l.unwrap_or(0)))),
    }
}

/// `nice` (`--nice`, fio's range −20 to 19) and `lockmem` (`--lock-memory`: fio locks that much
/// for each job it runs, so `per_process` times it for an iospd process that runs that many of
/// the job's clones).
pub(super) fn process(r: &mut Reader, per_process: u64) -> Result<Vec<String>, Box<Refusal>> {
    let mut args = Vec::new();
    let nice = r.parsed("nice", |v| {
        let v = v.trim();
        let n = match v.strip_prefix('-') {
            Some(digits) => integer(digits).map(|n| -(n.min(1 << 20) as i64)),
            None => integer(v).map(|n| n.min(1 << 20) as i64),
        }?;
        match n {
            -20..=19 => Ok(n),
            _ => Err(format!("'{v}': fio's nice is -20 to 19")),
        }
    })?;
    if let Some(n) = nice.filter(|&n| n != 0) {
        args.push(format!("--nice={n}"));
    }
    if let Some(bytes) = r.bytes("lockmem")?.filter(|&b| b > 0) {
        let total = bytes.checked_mul(per_process).ok_or_else(|| {
            r.refuse(
                r.last_of("lockmem"),
                "more memory than any machine has",
                None,
            )
        })?;
        args.push(format!("--lock-memory={total}"));
    }
    Ok(args)
}

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
    let listed = match (listed, numa(r)?) {
        (Some((s, cpus)), Some((_, on_nodes))) => {
            let both: Vec<u32> = cpus.into_iter().filter(|c| on_nodes.contains(c)).collect();
            if both.is_empty() {
                return Err(r.refuse(s, "no CPU of it is on the numa_cpu_nodes", None));
            }
            Some((s, both))
        }
        (None, nodes) => nodes,
        (listed, None) => listed,
    };
    let policy = r.get("cpus_allowed_policy");
    let mut args: Vec<String> = mem_policy(r)?.into_iter().collect();
    let Some((_, cpus)) = listed else {
        // fio leaves placement to the scheduler.
        args.push("-n".into());
        return Ok(args);
    };
    let words: Vec<String> = cpus.iter().map(u32::to_string).collect();
    args.push(
        match policy.and_then(|s| s.value.as_deref()).unwrap_or("shared") {
            "shared" => format!("--cpu-set={}", crate::units::cpu_list(&cpus)),
            "split" => format!("-a{}", words.join(",")),
            _ => {
                return Err(r.refuse(
                    policy.expect("a value other than the default"),
                    "not shared or split",
                    None,
                ));
            }
        },
    );
    Ok(args)
}

/// `numa_mem_policy` (`default`, `local`, `bind:<nodes>`, `prefer:<node>`,
/// `interleave:<nodes>`): `--mem-policy`; fio's default sets none.
fn mem_policy(r: &mut Reader) -> Result<Option<String>, Box<Refusal>> {
    let Some(s) = r.get("numa_mem_policy") else {
        return Ok(None);
    };
    let value = s.value.as_deref().unwrap_or("").trim();
    if value == "default" {
        return Ok(None);
    }
    let policy = crate::profile::mem_policy::MemPolicy::parse(value)
        .map_err(|why| r.refuse(s, why, None))?;
    Ok(Some(format!("--mem-policy={policy}")))
}

/// Where this host keeps its NUMA nodes.
const NODES: &str = "/sys/devices/system/node";

/// `numa_cpu_nodes`: the CPUs of the nodes (`all`, or a list as `cpus_allowed` takes CPUs), as
/// this host has them; `numa_mem_policy` is judged beside it: the threads' memory is touched
/// first on those CPUs, so the kernel's default places it on their nodes, which is `local`, and
/// `bind` or `prefer` to the same nodes.
fn numa<'a>(r: &mut Reader<'a>) -> Result<Option<(&'a super::Setting, Vec<u32>)>, Box<Refusal>> {
    let nodes = match r.get("numa_cpu_nodes") {
        Some(s) => {
            let value = s.value.as_deref().unwrap_or("").trim();
            let nodes = node_list(value).map_err(|why| r.refuse(s, why, Some("-a<cpus>")))?;
            Some((s, nodes))
        }
        None => None,
    };
    let Some((s, nodes)) = nodes else {
        return Ok(None);
    };
    let mut cpus = Vec::new();
    for node in nodes {
        let path = format!("{NODES}/node{node}/cpulist");
        let list = std::fs::read_to_string(&path)
            .ok()
            .and_then(|l| crate::cli::flags::parse_cpu_set(l.trim()).ok())
            .ok_or_else(|| {
                r.refuse(
                    s,
                    format!("node {node} is not on this host ({path})"),
                    Some("-a<cpus>"),
                )
            })?;
        cpus.extend(list);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(Some((s, cpus)))
}

/// A list of nodes (`0`, `0-1`, `0,2`).
fn node_numbers(value: &str) -> Result<Vec<u32>, String> {
    crate::cli::flags::parse_cpu_set(value.trim())
        .map_err(|_| format!("'{value}' is not a list of NUMA nodes (0, 0-1, 0,2)"))
}

/// The nodes `numa_cpu_nodes` names: `all` is every node online here.
fn node_list(value: &str) -> Result<Vec<u32>, String> {
    if value == "all" {
        let online = std::fs::read_to_string(format!("{NODES}/online"))
            .map_err(|e| format!("this host lists no NUMA nodes ({NODES}/online: {e})"))?;
        return node_numbers(&online);
    }
    node_numbers(value)
}

/// `exitall` with `exit_what`: when this job ends, the other jobs of its group end (`group`, and
/// `stonewall`, which is the same here: iospd fio runs one group at a time), or those and every
/// later group (`all`).
pub(super) fn exit(r: &mut Reader) -> Result<Option<ExitScope>, Box<Refusal>> {
    let what = r.get("exit_what");
    if !r.flag("exitall")?.unwrap_or(false) {
        return Ok(None);
    }
    match what.and_then(|s| s.value.as_deref()).unwrap_or("group") {
        "group" | "stonewall" => Ok(Some(ExitScope::Group)),
        "all" => Ok(Some(ExitScope::All)),
        _ => Err(r.refuse(
            what.expect("a value other than the default"),
            "not group, stonewall or all",
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
