//! What the page cache holds of a target before and during a run: `--pre-read` fills it before
//! the timespan starts (seen with mincore(2) after a run of one read without readahead), through
//! the run's own descriptor as fio's `pre_read` reads; `--invalidate` empties it (fio's
//! `invalidate`); and `--nowait` (RWF_NOWAIT), whose reads of pages not in the cache fail with
//! EAGAIN.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

use crate::util::{TempDir, run_iospd, skip, stderr, stdout};

const MIB: usize = 1 << 20;

/// Pages of `path` in the page cache, and pages in all.
fn resident(path: &Path) -> (usize, usize) {
    let map = cached(path);
    (map.iter().filter(|&&c| c).count(), map.len())
}

/// Pages of `path` in the page cache from `from` (bytes) up to `to`.
fn resident_in(path: &Path, from: usize, to: usize) -> usize {
    cached(path)[from / 4096..to / 4096]
        .iter()
        .filter(|&&c| c)
        .count()
}

/// Whether each page of `path` is in the page cache.
fn cached(path: &Path) -> Vec<bool> {
    let file = File::open(path).unwrap();
    let len = file.metadata().unwrap().len() as usize;
    let pages = len.div_ceil(4096);
    // SAFETY: a read-only shared mapping of the whole file, unmapped below; mincore writes one
    // byte per page into a vector of that many.
    unsafe {
        let at = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        );
        assert_ne!(at, libc::MAP_FAILED);
        let mut vec = vec![0u8; pages];
        assert_eq!(libc::mincore(at, len, vec.as_mut_ptr()), 0);
        libc::munmap(at, len);
        vec.iter().map(|&b| b & 1 == 1).collect()
    }
}

/// Most of `pages`: a machine whose memory is full of page cache reclaims the newest clean pages
/// first, so a few of what a run read may be gone by the time they are counted.
fn most_of(pages: usize) -> usize {
    pages * 95 / 100
}

/// Writes `path`'s dirty pages and drops the clean ones from the page cache; false when this file
/// system keeps them anyway (tmpfs, whose pages are the file).
fn evict(path: &Path) -> bool {
    let file = File::open(path).unwrap();
    file.sync_all().unwrap();
    // SAFETY: an advisory call on an open descriptor.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    resident(path).0 == 0
}

/// An 8 MiB file in `dir` with none of its pages in the page cache; `None`, said, where the file
/// system cannot drop them.
fn uncached_file(dir: &TempDir, test: &str) -> Option<std::path::PathBuf> {
    let path = dir.join("uncached.dat");
    std::fs::write(&path, vec![0x5a; 8 * MIB]).unwrap();
    if !evict(&path) {
        skip(
            test,
            "this file system keeps a file's pages in memory whatever is asked",
        );
        return None;
    }
    Some(path)
}

/// One random 4 KiB read of `target`, with readahead off (-fr: POSIX_FADV_RANDOM on the run's
/// descriptor) and `extra` options; the report.
fn one_read(target: &str, extra: &[&str]) -> String {
    let mut args = vec!["-b4K", "-r", "-fr", "--ios=1", "-W0", "-t1", "-o1"];
    args.extend(extra);
    args.push(target);
    let output = run_iospd(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

#[test]
fn pre_read_fills_the_page_cache_with_the_runs_range() {
    let dir = TempDir::new();
    let Some(path) = uncached_file(&dir, "pre_read_fills_the_page_cache_with_the_runs_range")
    else {
        return;
    };
    let target = path.display().to_string();
    let one_read = |extra: &[&str]| one_read(&target, extra);
    one_read(&[]);
    let (alone, pages) = resident(&path);
    assert!(alone < 64, "{alone} of {pages} pages cached by one read");
    assert!(evict(&path));
    let report = one_read(&["--pre-read"]);
    assert!(report.contains("--pre-read: "), "{report}");
    let whole = resident(&path).0;
    assert!(
        whole >= most_of(pages),
        "the whole range is read before the run: {whole} of {pages} pages cached"
    );
    // Only the range the run uses: 1 MiB to 3 MiB (512 pages), and outside it no more than the
    // one read without readahead brings.
    assert!(evict(&path));
    one_read(&["--pre-read", "-B1M", "-f3M"]);
    let inside = resident_in(&path, MIB, 3 * MIB);
    let outside = resident(&path).0 - inside;
    assert!(
        inside >= most_of(512),
        "1 MiB to 3 MiB: {inside} of 512 pages"
    );
    assert!(outside < 64, "{outside} pages cached outside the range");
    // Through the run's own descriptor, as fio reads: with O_DIRECT the pages stay out.
    assert!(evict(&path));
    one_read(&["--pre-read", "-Sh"]);
    assert_eq!(
        resident(&path).0,
        0,
        "a direct pre-read leaves the page cache as it was"
    );
}

/// `--invalidate` drops a target's pages before the run: a file read whole into the page cache
/// holds only what the run's one read brings after it, where a run without it leaves the cache
/// as it was; a job fio runs buffered gets it from `iospd fio` (fio's invalidate=1, its default).
#[test]
fn invalidate_empties_the_page_cache_before_the_run() {
    let test = "invalidate_empties_the_page_cache_before_the_run";
    let dir = TempDir::new();
    let Some(path) = uncached_file(&dir, test) else {
        return;
    };
    let target = path.display().to_string();
    let warm = || {
        std::fs::read(&path).unwrap();
        resident(&path)
    };
    let one_read = |extra: &[&str]| one_read(&target, extra);
    let (cached, pages) = warm();
    assert!(
        cached >= most_of(pages),
        "{cached} of {pages} pages read in"
    );
    one_read(&[]);
    let kept = resident(&path).0;
    assert!(
        kept >= most_of(pages),
        "without --invalidate: {kept} of {pages} pages stay"
    );
    warm();
    let report = one_read(&["--invalidate"]);
    assert!(report.contains("--invalidate: "), "{report}");
    let left = resident(&path).0;
    assert!(
        left < 64,
        "with --invalidate: {left} of {pages} pages cached"
    );
    let translated = crate::util::iospd()
        .args(["fio", "-Rp", "--name=t", "--rw=randread", "--size=8m"])
        .arg(format!("--filename={target}"))
        .output()
        .unwrap();
    let line = stdout(&translated);
    assert!(line.contains(" --invalidate "), "{line}");
    let direct = crate::util::iospd()
        .args([
            "fio",
            "-Rp",
            "--name=t",
            "--rw=randread",
            "--size=8m",
            "--direct=1",
        ])
        .arg(format!("--filename={target}"))
        .output()
        .unwrap();
    assert!(
        !stdout(&direct).contains("--invalidate"),
        "{}",
        stdout(&direct)
    );
}

#[test]
fn nowait_reads_of_pages_not_cached_fail_with_eagain_and_pre_read_cures_them() {
    let dir = TempDir::new();
    let Some(path) = uncached_file(
        &dir,
        "nowait_reads_of_pages_not_cached_fail_with_eagain_and_pre_read_cures_them",
    ) else {
        return;
    };
    let target = path.display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "-b4K", "-r", "-fr", "--ios=50", "-W0", "-t1", "-o1", "--nowait",
        ];
        args.extend(extra);
        args.push(&target);
        run_iospd(&args)
    };
    for engine in ["--engine=io_uring", "--engine=psync"] {
        assert!(evict(&path));
        let output = run(&[engine]);
        let err = stderr(&output);
        assert_ne!(output.status.code(), Some(0), "{engine}: {err}");
        assert!(
            err.contains("failed: Resource temporarily unavailable"),
            "{engine}: {err}"
        );
        let report = stdout(&output);
        assert!(report.contains("--nowait: "), "{engine}: {report}");
    }
    for (extra, says) in [
        ("-Sm", "memory-mapped I/O (-Sm) has no call for"),
        ("--engine=null", "the io_uring or psync engine, not null"),
    ] {
        let output = run(&[extra]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{extra}: {err}");
        assert!(err.contains(says), "{extra}: {err}");
    }
    // Counted and gone past where the run is told to.
    assert!(evict(&path));
    let output = run(&["--continue-on-error=io:EAGAIN", "-Rjson"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let failed = &json["timespans"][0]["failed_ios"];
    assert!(failed["reads"].as_u64() > Some(0), "{failed}");
    assert_eq!(
        failed["first"]["result"].as_i64(),
        Some(-libc::EAGAIN as i64),
        "{failed}"
    );
    let without = failed["reads"].as_u64().unwrap();
    // With the range read first, the reads find their pages (all but the few a machine full of
    // page cache may have reclaimed in between).
    assert!(evict(&path));
    let output = run(&["--pre-read", "--continue-on-error=io:EAGAIN", "-Rjson"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let with = json["timespans"][0]["failed_ios"]["reads"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        with <= 2 && without >= 10 * with.max(1),
        "reads that would block: {with} with --pre-read, {without} without"
    );
}
