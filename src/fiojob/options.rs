//! Every fio option `iospd fio` knows, in one place: those it maps to iospd options ([`MAPPED`]),
//! those it accepts with a note or only at fio's default ([`super::known`]), and those it refuses
//! with the closest thing iospd has. [`document`] renders them as `doc/fio-options.md`, which a
//! test keeps equal to these tables; another checks that every option the translation reads is
//! listed, and that nothing listed is stale.

use super::known::{ACCEPTED, ACCEPTED_VALUES, CLOSEST, DEPRECATED};

/// Mapped: each fio option and what it becomes.
pub const MAPPED: &[(&str, &str)] = &[
    (
        "mem",
        "`-l` for `mmaphuge`/`shmhuge` (2 MiB huge pages); malloc, shm, mmap: iospd's own buffers",
    ),
    (
        "hugepage-size",
        "2 MiB, the huge page `-l` takes (a no-op without huge-page `mem`)",
    ),
    (
        "rate_process",
        "`--rate-process=poisson` (exponential gaps at the rate's mean); linear: `-g` as it is",
    ),
    (
        "io_submit_mode",
        "inline, or offload (noted: iospd's threads keep their schedule themselves)",
    ),
    (
        "kb_base",
        "how every size of the job is read: `k`, `kb`, `ki` are kb_base, `kib` the other (fio's rule)",
    ),
    (
        "rw",
        "`-r`, `-s` (`-s<stride>` for `read:<skip>`), `-w`, `--trim=100`",
    ),
    ("rwmixread", "`-w` (100 minus it)"),
    ("rwmixwrite", "`-w`"),
    ("bs", "`-b`, or `--bssplit` when the directions differ"),
    (
        "bssplit",
        "`--bssplit` (empty shares filled as fio fills them)",
    ),
    (
        "bsrange",
        "`--bssplit`: every multiple of the low end, weighted as fio draws them",
    ),
    ("ba", "`-r<align>`"),
    ("direct", "`-Su`"),
    ("buffered", "`-Su` when 0"),
    (
        "sync",
        "`1`/`sync`: `--o-sync` (O_SYNC); `dsync`: `w` in `-S` (O_DSYNC)",
    ),
    (
        "iodepth",
        "`-o` (1 for synchronous engines), or a pool's `-O`",
    ),
    (
        "numjobs",
        "`-t` on shared files, a target per clone, or a pool's `-F`",
    ),
    (
        "ioengine",
        "`--engine` (io_uring; libaio/posixaio on io_uring; psync family; mmap `-Sm`; null; filestat, filedelete, filecreate, ftruncate, falloc: the file engines, one call per file `--ios=<loops>` for the first three)",
    ),
    (
        "stat_type",
        "filestat's call: `--engine=stat`, `lstat` or `statx`",
    ),
    (
        "prioclass",
        "`-I1` for the idle class (3); `--ioprio=rt:<prio>` (1), `--ioprio=be:<prio>` (0, 2)",
    ),
    (
        "prio",
        "`-I2` for best-effort level 7; `--ioprio=<class>:<prio>` (best effort without prioclass)",
    ),
    (
        "write_hist_log",
        "`<prefix>_clat_hist.<n>.log` in fio's format (fio's 1,856 latency bins per interval and direction), made after the run from its `--histlog` at `-D<log_hist_msec>`",
    ),
    (
        "log_hist_msec",
        "the histogram log's interval, `-D` (shared with the other logs: a different log_avg_msec is refused)",
    ),
    (
        "log_hist_coarseness",
        "the histogram log's bins summed by 2^N, as fio sums them (0 to 6)",
    ),
    ("nice", "`--nice` (0, fio's default, adds nothing)"),
    (
        "lockmem",
        "`--lock-memory`: the bytes times the clones one iospd process runs (fio locks that much for each job)",
    ),
    (
        "disable_lat",
        "nothing: iospd always measures latency; beside max_latency, no `--max-latency` (fio checks no latency then)",
    ),
    (
        "max_latency",
        "`--max-latency` (reads and writes, or each; µs unless a unit is given; checked only after the ramp, as fio checks; nothing under disable_lat)",
    ),
    (
        "cmdprio_percentage",
        "`--ioprio-split=<percent>/<class>/<level>` per direction (io_uring and libaio jobs); each priority's latency in the report and in fio JSON's `prios`",
    ),
    (
        "cmdprio_bssplit",
        "`--ioprio-split` with a rule per block size (`<bs>/<percent>[/<class>/<level>]`); a share of 0 is no rule",
    ),
    (
        "cmdprio_class",
        "the class of the `--ioprio-split` rules that name none (1 real time, fio's default, 2 best effort, 3 idle)",
    ),
    (
        "cmdprio",
        "the level of the `--ioprio-split` rules that name none (0, fio's default, to 7)",
    ),
    (
        "flow",
        "`--flow=<weight>:iospd-flow.<flow_id>`: the jobs of a flow share one flow file (iospd fio makes it in a directory of its own, and removes it), each thread issuing while its share of their I/Os is at most its share of their weights, as fio 3.33 counts them",
    ),
    (
        "flow_id",
        "which flow file (`iospd-flow.<id>`); 0 unless given",
    ),
    (
        "flow_sleep",
        "`--flow-sleep` (µs): a thread over its share lets its I/O complete and waits that long",
    ),
    (
        "latency_target",
        "the depth searched as fio searches it, from 1 up to `iodepth` and back, one iospd run (`-o<depth> -d<window>`) per window; the job's results are the window at the depth it settles on",
    ),
    (
        "latency_window",
        "each run's `-d` (whole seconds; fio's 0 is 1 s)",
    ),
    (
        "latency_percentile",
        "the share of a window's I/Os within the target (100: `--max-latency` on each run, so the first I/O over it fails the depth, and at depth 1 the job, as in fio)",
    ),
    (
        "latency_run",
        "the search goes on to the job's end; its results are the last window's",
    ),
    (
        "sqthread_poll_cpu",
        "`--sqpoll-cpu` with sqthread_poll; nothing without it (as in fio)",
    ),
    (
        "serialize_overlap",
        "`--serialize-overlap` for a job that writes or trims at a depth above 1; otherwise nothing (fio turns it off)",
    ),
    (
        "nowait",
        "`--nowait` (RWF_NOWAIT: a read or write that would block fails with EAGAIN, which ends the job as in fio); io_uring, libaio and pvsync2 only, as in fio",
    ),
    (
        "invalidate",
        "`--invalidate` for a buffered job (fio's default 1: its files start cold); nothing with direct=1 (no page cache in the way) or pre_read (which turns it off in fio)",
    ),
    (
        "pre_read",
        "`--pre-read` (the job's range read once before it starts, through its own descriptor; refused for engines that move no data: null and the file engines)",
    ),
    ("time_based", "`-d` from `runtime`"),
    ("runtime", "`-d`; a limit for a job bounded by its size"),
    ("ramp_time", "`-W`"),
    (
        "size",
        "the region: `--bytes` split between the files, `-c<offset+size> --keep-existing` (files) or `-f` (devices); a percentage of the targets' size (all of one size), rounded down to the smallest block",
    ),
    ("io_size", "`--bytes`"),
    ("loops", "`--bytes` times the loops"),
    ("number_ios", "`--ios` (split between the files)"),
    ("filesize", "each file's `-c`"),
    (
        "offset",
        "`-B`; a percentage of the targets' size (all of one size), rounded up to the smallest block; of files not there yet 0, as fio takes it",
    ),
    (
        "offset_align",
        "the smallest block (what a percentage `offset` is rounded up to); no-op otherwise",
    ),
    (
        "offset_increment",
        "`--offset-increment` (clones of one shared target; the region grows to hold the last)",
    ),
    (
        "filename",
        "targets: every one (`:` lists, repeated, `[global]`'s)",
    ),
    ("directory", "the targets' directory"),
    (
        "filename_format",
        "the targets' names (`$jobname.$jobnum.$filenum`)",
    ),
    ("nrfiles", "a target per file"),
    (
        "openfiles",
        "none: every file stays open (said when below the file count)",
    ),
    (
        "file_service_type",
        "`--file-service` (random[:n], roundrobin[:n], sequential; zipf[:θ] in a time-based job, the files in order; pareto and normal refused: fio's own shapes over a few files)",
    ),
    (
        "norandommap",
        "no `--random-map` (random jobs get it otherwise)",
    ),
    (
        "fill_device",
        "a device's whole region without a size (fio writes to ENOSPC, its end); with a size, that size; on files without one refused",
    ),
    (
        "fadvise_hint",
        "`-fr` for a random job, `-fs` otherwise (fio's default 1, the same posix_fadvise call on every file); `random`, `sequential`: `-fr`, `-fs`; 0: none",
    ),
    (
        "continue_on_error",
        "`--continue-on-error=read|write|io:ERR,…` (`all` and `1` are io; none, 0, verify: iospd's default), passing fio's EIO and EILSEQ",
    ),
    (
        "ignore_error",
        "the errors `--continue-on-error` passes (one list for reads and writes); without continue_on_error a no-op, noted",
    ),
    (
        "zonemode",
        "strided: `--zones=<zonesize>:<zonerange>:<zoneskip>`; none: nothing (fio rejects a zonesize with it); zbd refused (zoned hardware)",
    ),
    (
        "zonesize",
        "the `--zones` size (with zonemode=strided; ignored by fio with several files open, noted); regions that end before the target, and last windows that do not fit whole, refused",
    ),
    (
        "zonerange",
        "the `--zones` window (the zonesize unless given)",
    ),
    ("zoneskip", "the `--zones` skip between windows"),
    (
        "ss",
        "`--steady-state=<criterion>:<limit>:<ss_dur>:<ss_ramp>` (an absolute bandwidth in bytes per second); a job of several clones needs `group_reporting`, a group of several jobs `group_reporting` off; without ss_dur a no-op, noted",
    ),
    (
        "ss_dur",
        "the `--steady-state` window (whole seconds); alone, fio's default criterion `iops_slope:0.01%`",
    ),
    ("ss_ramp", "the `--steady-state` ramp (whole seconds)"),
    (
        "percentage_random",
        "`-rs<percent>` for a random job (one share for every direction it does; 0 is `-s`)",
    ),
    (
        "random_distribution",
        "`--distribution` (zipf, pareto, normal, zoned, zoned_abs)",
    ),
    ("randseed", "`-z<seed>`"),
    ("randrepeat", "`-z` when 0"),
    (
        "rate",
        "`-g<bytes per ms>` or `-g<size>/s`; per direction, `-w` from the rates",
    ),
    ("rate_iops", "`-g<n>i`; per direction, `-w` from the rates"),
    (
        "thinktime",
        "`-j<ms>` or `-j<n>us` at iodepth=1 (at a greater depth fio drains the I/O in flight before each pause: refused)",
    ),
    ("thinktime_blocks", "`-i<count>`"),
    (
        "thinktime_blocks_type",
        "complete or issue: the same with one I/O in flight",
    ),
    ("zero_buffers", "`-Z` (zeros however often refilled)"),
    ("refill_buffers", "`-Zr`"),
    (
        "create_only",
        "`--create-only`: the job's files laid out, nothing measured (fio's entry of zeros); a job that lays out nothing is refused",
    ),
    ("buffer_compress_percentage", "`--compress`"),
    ("buffer_compress_chunk", "`--compress=<ratio>:<chunk>`"),
    ("dedupe_percentage", "`--dedupe`"),
    ("buffer_pattern", "`--pattern=0x<hex>`"),
    ("fsync", "`--fsync`"),
    ("fdatasync", "`--fdatasync`"),
    ("verify", "`--verify`"),
    ("do_verify", "`--verify` when not 0"),
    ("verify_fatal", "`--verify=stop`"),
    (
        "verify_interval",
        "the block (fio's default), or whole 512-byte sectors that divide it (iospd stamps every sector); others refused",
    ),
    (
        "percentile_list",
        "`--percentiles`, and fio JSON's percentiles",
    ),
    ("write_bw_log", "`-D` and `<prefix>_bw.<n>.log`"),
    ("write_iops_log", "`-D` and `<prefix>_iops.<n>.log`"),
    (
        "write_lat_log",
        "`-D` and `<prefix>_lat/_clat/_slat.<n>.log`",
    ),
    ("log_avg_msec", "the `-D` interval"),
    (
        "log_offset",
        "an offset column in each log line (0 for a window, as fio writes it)",
    ),
    ("write_iolog", "`--trace`"),
    ("read_iolog", "`iospd replay`"),
    ("sqthread_poll", "`--sqpoll`"),
    ("hipri", "`--iopoll`"),
    (
        "cpus_allowed",
        "`--cpu-set` (shared) or `-a` (split); without it `-n`",
    ),
    ("cpumask", "`--cpu-set` (shared) or `-a` (split)"),
    ("cpus_allowed_policy", "shared: `--cpu-set`; split: `-a`"),
    (
        "numa_cpu_nodes",
        "`--cpu-set` of the nodes' CPUs on this host (with `cpus_allowed`, the CPUs in both)",
    ),
    (
        "numa_mem_policy",
        "`--mem-policy` (`local`, `bind:<nodes>`, `prefer:<node>`, `interleave:<nodes>`; `default` sets none); nodes this host lacks are refused when the job is checked",
    ),
    (
        "ioscheduler",
        "none: the job runs only where each target's device already uses that scheduler (fio would switch it)",
    ),
    (
        "exitall",
        "when the job ends, the others of its group are stopped (their results kept)",
    ),
    (
        "wait_for",
        "the job starts when the jobs of that name in its group have finished",
    ),
    (
        "exitall_on_error",
        "when the job fails, the others of its group are stopped and no later group runs",
    ),
    (
        "exit_what",
        "`group`, `stonewall`: the group's jobs; `all`: those, and no later group runs",
    ),
    (
        "startdelay",
        "the job's process starts that long after its group",
    ),
    (
        "unlink",
        "the files the job's run made are removed after its group",
    ),
    (
        "create_on_open",
        "the filecreate engine's way (`--engine=create`); refused in another job that writes; noted in one that reads",
    ),
];

/// What iospd fio does with one fio option (an alias read as fio reads it), from the tables:
/// `fio --cmdhelp=<option>`'s answer here. `None` for an option in no table (refused).
pub fn describe(option: &str) -> Option<String> {
    let key = super::read::ALIASES
        .iter()
        .find(|(alias, _)| *alias == option)
        .map_or(option, |(_, name)| name);
    let found = |table: &'static [(&'static str, &'static str)]| {
        table.iter().find(|(k, _)| *k == key).map(|(_, w)| *w)
    };
    if let Some(what) = found(MAPPED) {
        return Some(format!("{key}: mapped: {what}"));
    }
    if let Some(what) = found(ACCEPTED) {
        return Some(format!("{key}: accepted: {what}"));
    }
    let mut said = Vec::new();
    if let Some((_, values, what)) = ACCEPTED_VALUES.iter().find(|(k, ..)| *k == key) {
        said.push(format!("accepted at {}: {what}", values.join(", ")));
    }
    if let Some(closest) = found(CLOSEST) {
        said.push(format!("refused otherwise; closest in iospd: {closest}"));
    }
    if DEPRECATED.contains(&key) {
        said.push("refused: deprecated, fio 3.33 drops a job that sets it".into());
    }
    (!said.is_empty()).then(|| format!("{key}: {}", said.join("; ")))
}

/// `doc/fio-options.md`: every table, each option once, in fio's names.
pub fn document() -> String {
    let mut out = String::from(
        "# fio options in `iospd fio`\n\n\
         Generated from `src/fiojob/options.rs` and `src/fiojob/known.rs` (a test keeps it equal to\n\
         them). An option in no table is refused as having no equivalent, with the job, the file\n\
         and the line. Aliases are read as fio reads them (`readwrite` is `rw`).\n\n\
         ## Mapped\n\n| fio | iospd |\n|---|---|\n",
    );
    let row = |out: &mut String, key: &str, what: &str| {
        out.push_str(&format!("| `{key}` | {} |\n", what.replace('|', "\\|")));
    };
    for (key, what) in MAPPED {
        row(&mut out, key, what);
    }
    out.push_str("\n## Accepted with a note\n\n| fio | what it means in iospd |\n|---|---|\n");
    for (key, what) in ACCEPTED {
        row(&mut out, key, what);
    }
    out.push_str("\n## Accepted at these values only\n\n| fio | values | what it means in iospd |\n|---|---|---|\n");
    for (key, values, what) in ACCEPTED_VALUES {
        out.push_str(&format!(
            "| `{key}` | {} | {} |\n",
            values
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", "),
            what.replace('|', "\\|")
        ));
    }
    out.push_str("\n## Refused, with the closest in iospd\n\n| fio | closest |\n|---|---|\n");
    for (key, what) in CLOSEST {
        row(&mut out, key, what);
    }
    out.push_str(
        "\n## Refused as fio refuses them\n\nDeprecated: fio 3.33 drops a job that sets one.\n\n",
    );
    for key in DEPRECATED {
        out.push_str(&format!("- `{key}`\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The translation's sources, where it reads each option.
    const SOURCES: [&str; 11] = [
        include_str!("translate.rs"),
        include_str!("access.rs"),
        include_str!("blocks.rs"),
        include_str!("work.rs"),
        include_str!("data.rs"),
        include_str!("logs.rs"),
        include_str!("placement.rs"),
        include_str!("files.rs"),
        include_str!("latency.rs"),
        include_str!("cmdprio.rs"),
        include_str!("reader.rs"),
    ];

    /// Every option name the translation reads by name (`r.get("…")` and the like).
    fn read_by_translation() -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for source in SOURCES {
            for call in [
                "r.get(\"",
                "r.flag(\"",
                "r.parsed(\"",
                "r.value(\"",
                "r.all(\"",
            ] {
                for (at, _) in source.match_indices(call) {
                    let rest = &source[at + call.len()..];
                    if let Some(end) = rest.find('"') {
                        names.insert(rest[..end].to_string());
                    }
                }
            }
        }
        names
    }

    #[test]
    fn every_option_the_translation_reads_is_listed_once_and_none_is_stale() {
        // An option the translation reads is only in MAPPED: the others apply to options it
        // leaves unread. One accepted whatever its value is in no other table; one accepted at
        // some values may have a closest for the rest.
        let values: Vec<&str> = ACCEPTED_VALUES.iter().map(|(k, ..)| *k).collect();
        let closest: Vec<&str> = CLOSEST.iter().map(|(k, _)| *k).collect();
        let accepted: Vec<&str> = ACCEPTED.iter().map(|(k, _)| *k).collect();
        let deprecated: Vec<&str> = DEPRECATED.to_vec();
        for (key, _) in MAPPED {
            let elsewhere = [&values, &closest, &accepted, &deprecated];
            assert!(
                !elsewhere.iter().any(|t| t.contains(key)),
                "{key} is mapped and also in another table, where it never applies"
            );
        }
        for key in &deprecated {
            let elsewhere = [&values, &closest, &accepted];
            assert!(
                !elsewhere.iter().any(|t| t.contains(key)),
                "{key} is refused as deprecated and also in another table"
            );
        }
        for key in &accepted {
            assert!(
                !values.contains(key) && !closest.contains(key),
                "{key} is accepted whatever its value and also in another table"
            );
        }
        for table in [&values, &closest, &accepted, &deprecated] {
            let unique: BTreeSet<&&str> = table.iter().collect();
            assert_eq!(unique.len(), table.len(), "a table lists an option twice");
        }
        for name in read_by_translation() {
            assert!(
                MAPPED.iter().any(|(k, _)| *k == name),
                "{name} is read by the translation but not in MAPPED"
            );
        }
        for (name, _) in MAPPED {
            let quoted = format!("\"{name}\"");
            assert!(
                SOURCES.iter().any(|s| s.contains(&quoted)),
                "{name} is in MAPPED but the translation never names it"
            );
        }
    }

    #[test]
    fn an_option_is_described_from_its_table_through_its_alias() {
        assert!(describe("bs").unwrap().starts_with("bs: mapped: `-b`"));
        assert_eq!(
            describe("readwrite").unwrap(),
            describe("rw").unwrap(),
            "an alias reads as its option"
        );
        assert!(describe("thread").unwrap().contains("accepted"));
        let values = describe("verify_backlog").unwrap();
        assert!(
            values.contains("accepted at 0") && values.contains("closest in iospd: --verify"),
            "{values}"
        );
        assert!(describe("rwmixcycle").unwrap().contains("deprecated"));
        assert_eq!(describe("no_such_option"), None);
    }

    #[test]
    fn every_engine_listed_runs_and_others_are_refused_by_name() {
        for engine in super::super::ENGINES {
            let said = super::super::describe_engine(engine);
            assert!(!said.contains("refused"), "{said}");
        }
        assert!(
            super::super::describe_engine("windowsaio")
                .contains("refused: the windowsaio engine is Windows' own")
        );
        assert!(super::super::describe_engine("exec").contains("refused"));
    }

    #[test]
    fn the_options_document_is_generated_from_the_tables() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/doc/fio-options.md");
        let want = document();
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "doc/fio-options.md differs from the tables: run UPDATE_GOLDEN=1 cargo test --lib the_options_document"
        );
    }
}
