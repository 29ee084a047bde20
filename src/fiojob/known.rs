//! fio options that need no iospd option, each with why (said once per job), and fio options
//! iospd refuses with the closest thing it has. Anything in neither list and not translated is
//! refused as having no equivalent.

/// Accepted: what each means for an iospd run.
pub const ACCEPTED: &[(&str, &str)] = &[
    (
        "flow_watermark",
        "deprecated: fio 3.33 reads and ignores it",
    ),
    (
        "log_prio",
        "iospd's fio logs are per window of many I/Os, so their priority column is 0; the report gives each priority's latency (--ioprio-split)",
    ),
    ("name", "a label"),
    (
        "thinktime_spin",
        "iospd's thread sleeps for the whole think time where fio spins through its first part: the same pauses, with the thread's CPU free during them",
    ),
    ("description", "a label"),
    ("thread", "iospd always runs threads"),
    (
        "threads",
        "an option of fio's tiobench profile: without profile=tiobench fio does nothing with it",
    ),
    (
        "group_reporting",
        "iospd reports every thread and their total",
    ),
    ("new_group", "iospd reports every thread and their total"),
    (
        "disk_util",
        "fio's disk utilisation lines: iospd reports each device's own counters",
    ),
    (
        "significant_figures",
        "the digits of fio's printed percentiles: iospd's are exact to the nanosecond",
    ),
    (
        "error_dump",
        "fio's dump of a failed I/O: iospd names the failed I/O, its offset and the kernel's error",
    ),
    (
        "gtod_cpu",
        "a CPU fio gives its clock: iospd's threads read the clock themselves",
    ),
    ("log_compression", "how fio keeps its logs in memory"),
    (
        "softrandommap",
        "fio's fallback when its random map cannot be allocated: iospd's map is constant in memory",
    ),
    (
        "create_serialize",
        "the order fio lays out files in: iospd lays out each before the run either way",
    ),
    ("clat_percentiles", "iospd reports latency percentiles (-L)"),
    ("lat_percentiles", "iospd reports latency percentiles (-L)"),
    ("slat_percentiles", "iospd reports latency percentiles (-L)"),
    ("disable_clat", "iospd always measures latency"),
    ("disable_slat", "iospd always measures latency"),
    ("disable_bw", "iospd always measures bandwidth"),
    ("disable_bw_measurement", "iospd always measures bandwidth"),
    ("gtod_reduce", "iospd's clock reads are already batched"),
    ("per_job_logs", "iospd writes one time series per run"),
    ("unit_base", "iospd reports bytes"),
    ("fallocate", "iospd's -c writes the whole file"),
    ("allow_file_create", "iospd creates missing files with -c"),
    (
        "overwrite",
        "iospd's -c writes the whole file before the run",
    ),
    (
        "end_fsync",
        "iospd does not fsync after the run (outside the measured time)",
    ),
    (
        "fsync_on_close",
        "iospd does not fsync after the run (outside the measured time)",
    ),
    ("random_generator", "iospd uses its own generator"),
    (
        "scramble_buffers",
        "iospd's write data is its own (-Z, -Zr, --compress)",
    ),
    (
        "iodepth_batch_submit",
        "iospd submits what is ready in one call",
    ),
    (
        "iodepth_batch_complete_min",
        "iospd reaps every completion it can see",
    ),
    (
        "iodepth_batch_complete_max",
        "iospd reaps every completion it can see",
    ),
    ("iodepth_low", "iospd refills every free slot at once"),
    ("fixedbufs", "iospd registers its buffers with io_uring"),
    (
        "userspace_reap",
        "iospd reaps completions from io_uring's ring in user space",
    ),
    ("clocksource", "iospd times each I/O with its own clock"),
    (
        "allow_mounted_write",
        "iospd's safety gate judges every write to a device, mounted or not",
    ),
    ("registerfiles", "iospd registers its files with io_uring"),
    (
        "rate_min",
        "a floor fio fails the job under; iospd runs on and reports the rate it reached",
    ),
    (
        "rate_iops_min",
        "a floor fio fails the job under; iospd runs on and reports the rate it reached",
    ),
    ("rate_cycle", "the window fio judges rate_min over"),
    ("stonewall", "the next jobs wait for this group"),
    ("bwavgtime", "iospd's interval is -D"),
    ("iopsavgtime", "iospd's interval is -D"),
    ("verifysort", "deprecated: fio 3.33 reads and ignores it"),
    ("verifysort_nr", "deprecated: fio 3.33 reads and ignores it"),
    (
        "unique_filename",
        "fio's file names for client/server runs: a local run's names are the same either way",
    ),
    ("log_entries", "the size of fio's log buffer in memory"),
    (
        "log_alternate_epoch_clock_id",
        "the clock of fio's log_alternate_epoch (accepted at 0 only, where fio reads no clock)",
    ),
    (
        "dedupe_working_set_percentage",
        "used by fio only with dedupe_mode=working_set",
    ),
    ("cgroup_nodelete", "used by fio only with cgroup"),
    (
        "verify_async",
        "fio checks what it reads back in threads of its own; iospd's threads check the blocks they read themselves: the same blocks checked",
    ),
    (
        "verify_async_cpus",
        "the CPUs of fio's verify_async threads",
    ),
    (
        "log_compression_cpus",
        "the CPUs of fio's log compression threads",
    ),
    ("trim_verify_zero", "used by fio only with trim_percentage"),
    ("trim_backlog_batch", "used by fio only with trim_backlog"),
    (
        "verify_backlog_batch",
        "used by fio only with verify_backlog",
    ),
];

/// Deprecated options fio 3.33 no longer takes: it drops a job that sets one ("failed parsing").
pub const DEPRECATED: &[&str] = &["rwmixcycle", "percentage_sequential"];

/// Refused, with iospd's closest option.
pub const CLOSEST: &[(&str, &str)] = &[
    ("bs_unaligned", "-b<size>"),
    (
        "verify_pattern",
        "--verify (iospd's self-describing blocks)",
    ),
    ("verify_backlog", "--verify (checks every read)"),
    (
        "verify_only",
        "iospd verify (re-reads what a --verify run wrote)",
    ),
    ("thinktime_iotime", "-i<count> -j<ms>|-j<n>us"),
    ("opendir", "list the files as targets"),
    ("replay_redirect", "iospd replay <trace> <target>"),
    ("trim_percentage", "--trim=<percent>"),
    (
        "exec_prerun",
        "run the command yourself before iospd fio (iospd never starts a command)",
    ),
    (
        "exec_postrun",
        "run the command yourself after iospd fio (iospd never starts a command)",
    ),
    (
        "cgroup",
        "start iospd fio inside the cgroup (systemd-run --scope -p IOWeight=…): iospd runs in the cgroup it was started in",
    ),
    ("uid", "start iospd fio as that user (sudo -u)"),
    ("gid", "start iospd fio as that group (sudo -g)"),
];

/// Accepted only with these values (fio's default, or what iospd does anyway), with what that
/// means here; any other value is refused as having no equivalent.
pub const ACCEPTED_VALUES: &[(&str, &[&str], &str)] = &[
    (
        "unified_rw_reporting",
        &["0", "none", "1", "mixed", "2", "both"],
        "iospd's own reports keep reads, writes and their total apart; fio's JSON and terse output add them into fio's mixed direction as fio does",
    ),
    (
        "uncached",
        &["0"],
        "fio's default: buffered I/O keeps its pages in the page cache",
    ),
    (
        "nonvectored",
        &["-1", "1"],
        "iospd's io_uring reads and writes are non-vectored (IORING_OP_READ/WRITE or their fixed-buffer forms), fio's default where the kernel has them",
    ),
    (
        "allrandrepeat",
        &["0", "false", "1", "true"],
        "iospd's seed (-z) repeats every random stream; at 0, fio's default, fio repeats only those randrepeat covers",
    ),
    (
        "stats",
        &["1", "true"],
        "fio's default: the job is measured",
    ),
    (
        "iomem_align",
        &["0", "512", "1k", "2k", "4k", "1024", "2048", "4096"],
        "iospd's buffers are aligned to the page (4 KiB)",
    ),
    (
        "file_append",
        &["0", "false"],
        "fio's default: offsets from the file's start",
    ),
    (
        "unlink_each_loop",
        &["0", "false"],
        "fio's default: files stay between loops",
    ),
    (
        "log_max_value",
        &["0", "false"],
        "fio's default: logs hold each window's mean",
    ),
    (
        "log_unix_epoch",
        &["0", "false"],
        "fio's default: log times from the job's start",
    ),
    (
        "log_alternate_epoch",
        &["0", "false"],
        "fio's default: log times from the job's start",
    ),
    (
        "bs_is_seq_rand",
        &["0", "false"],
        "fio's default: bs applies by direction",
    ),
    (
        "write_barrier",
        &["0", "false"],
        "fio's default: no write is a barrier",
    ),
    (
        "atomic",
        &["0", "false"],
        "fio's default: writes are not O_ATOMIC",
    ),
    (
        "verify_offset",
        &["0", "false"],
        "fio's default: the verification header at the block's start",
    ),
    (
        "verify_dump",
        &["0", "false"],
        "fio's default: no dump of a block that fails",
    ),
    (
        "verify_backlog",
        &["0", "false"],
        "fio's default: written blocks verified after the writes",
    ),
    ("experimental_verify", &["0", "false"], "fio's default"),
    (
        "verify_state_load",
        &["0", "false"],
        "fio's default: no verification state loaded before the job",
    ),
    (
        "trim_percentage",
        &["0", "false"],
        "fio's default: no trims of verified blocks",
    ),
    (
        "trim_backlog",
        &["0", "false"],
        "fio's default: no trims of verified blocks",
    ),
    (
        "replay_no_stall",
        &["0", "false"],
        "fio's default: a replay keeps the log's timing, as iospd replay does",
    ),
    (
        "replay_align",
        &["0", "false"],
        "fio's default: a replay's offsets as logged",
    ),
    (
        "zonecapacity",
        &["0", "false"],
        "fio's default: zones as large as zonesize",
    ),
    (
        "read_beyond_wp",
        &["0", "false"],
        "fio's default; a zoned-device option",
    ),
    (
        "max_open_zones",
        &["0", "false"],
        "fio's default: no limit; a zoned-device option",
    ),
    (
        "job_max_open_zones",
        &["0", "false"],
        "fio's default: no limit; a zoned-device option",
    ),
    (
        "ignore_zone_limits",
        &["0", "false"],
        "fio's default; a zoned-device option",
    ),
    (
        "thinktime_iotime",
        &["0", "false"],
        "fio's default: the think time follows thinktime_blocks",
    ),
    (
        "rate_ignore_thinktime",
        &["0", "false"],
        "fio's default: a rate counts the think time",
    ),
    (
        "gpu_dev_id",
        &["0", "false"],
        "fio's default; a GPU buffer option",
    ),
    (
        "log_store_compressed",
        &["0", "false"],
        "fio's default: logs stored as text",
    ),
    (
        "block_error_percentiles",
        &["0", "false"],
        "fio's default: no trim error histogram",
    ),
    (
        "dedupe_global",
        &["0", "false"],
        "fio's default: a job's duplicates are of its own writes, as --dedupe's are of its target",
    ),
    (
        "cgroup_weight",
        &["0", "false"],
        "fio's default: no cgroup weight",
    ),
    (
        "read_iolog_chunked",
        &["0", "false"],
        "fio's default: how fio reads an I/O log into memory",
    ),
    (
        "verify_state_save",
        &["0", "false", "1", "true"],
        "a verified job's state is kept in its --verify-state file either way (fio saves its own at 1, its default)",
    ),
    (
        "create_fsync",
        &["0", "false", "1", "true"],
        "iospd flushes every file it lays out before the run (fio's default, 1; outside the measured time either way)",
    ),
    (
        "lockfile",
        &["none"],
        "fio's default: no lock around a file's I/O",
    ),
    (
        "rw_sequencer",
        &["sequential"],
        "fio's default: a job's skips (rw=…:<n>) move the offset on",
    ),
    (
        "dedupe_mode",
        &["repeat"],
        "fio's default: a duplicate block repeats the content of an earlier one, as --dedupe's sets do",
    ),
    (
        "replay_scale",
        &["1"],
        "fio's default: a replay's offsets as logged",
    ),
    (
        "replay_time_scale",
        &["100"],
        "fio's default: a replay at the log's own speed",
    ),
];
