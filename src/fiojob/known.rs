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
        "invalidate",
        "iospd does not drop the file's page cache first (with direct=1 it does not matter)",
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
    ("rwmixcycle", "deprecated: fio reads and ignores it"),
];

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
        &["1", "true"],
        "iospd's default seed repeats every random stream",
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
];
