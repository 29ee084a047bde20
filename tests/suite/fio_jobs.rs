//! `iospd fio`: job files read as fio reads them and translated exactly or refused by name —
//! checked line by line on the job files in `tests/fio/` (the shapes real job files take), on
//! fio's own examples (from its source tree, `IOSPD_FIO_EXAMPLES`; fio, when present, says which
//! files it parses), and by running a translated job.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::util::tools;
use crate::util::{TempDir, iospd, skip, stderr, stdout};

fn corpus(name: &str) -> String {
    format!("{}/tests/fio/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `iospd fio -Rp <files>` with the environment the shapes use.
fn print(files: &[&str]) -> Output {
    iospd()
        .arg("fio")
        .arg("-Rp")
        .args(files)
        .env("ENGINE", "io_uring")
        .env("RUN_TIME", "30")
        .env("dev", "/dev/sdz")
        .env("MODE", "randread")
        .env("BS", "4k")
        .env("LOAD_FACTOR", "2")
        .output()
        .unwrap()
}

/// Each file of `tests/fio` and the lines it must print, checked against fio's meaning by hand:
/// fio's defaults (bs=4k, iodepth=1, psync at depth 1, buffered), its units (sizes in 1024s,
/// runtime in seconds), `[global…]` sections applying to the jobs after them, one file per job
/// clone named `$jobname.$jobnum.$filenum`, `rw=read:17m` as a stride of 4k + 17m, a
/// per-direction `bs` taken for the direction the job does, or both as a split, `bssplit`'s
/// empty shares filled as fio fills them, `bsrange` as every multiple of its low end; a job that is not time-based bounded
/// by its `io_size` or `size` times `loops` (a device without size: the whole device), by
/// `number_ios`, with `runtime` as a limit, and fio's random map unless `norandommap`; fio's
/// defaults spelled out (`fadvise_hint=0`, `nowait=0`, `allrandrepeat=1`, `rate_iops=0`, `fsync`
/// on a job that does not write, `1Gi`) accepted; `verify_fatal=1` as `--verify=stop`.
const EXPECTED: &[(&str, &[&str])] = &[
    (
        "comments-aliases.fio",
        &[
            "iospd -b8192 -r --random-map -w30 -fr -Su -d30 -W0 -C0 -L -Z1048576 -n -t4 -o16 /dev/nvme0n1",
        ],
    ),
    (
        "env-vars.fio",
        &["iospd -b4096 -r --random-map -w0 -fr -Su -d30 -W0 -C0 -L -n -t1 -o32 /dev/sdz"],
    ),
    (
        "globals-repeated.fio",
        &[
            "iospd -b65536 -s -w100 -fs --engine=psync --invalidate -d10 -W0 -C0 -L -Z1048576 -n -t1 -o1 -c16777216 --keep-existing /tmp/stage.0.0 /tmp/stage.1.0",
            "iospd -b4096 -r --random-map -w0 -fr --engine=psync --invalidate -d10 -W0 -C0 -L -n -t1 -o1 -c16777216 --keep-existing /tmp/stage.0.0",
        ],
    ),
    (
        "includes.fio",
        &[
            "iospd -b131072 -s -w0 -fs -Su -d20 -W0 -C0 -L -n -t1 -o32 -c67108864 --keep-existing /tmp/iospd-fio-seq.dat",
        ],
    ),
    (
        "skips-and-directions.fio",
        &[
            "iospd -b4096 -s17829888 -w0 -fs --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b65536 -s -w100 -fs --invalidate -d5 -W0 -C0 -L -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd --bssplit=4096/100,65536/100 -r -w50 -fr --invalidate -d5 -W0 -C0 -L -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r -rs20 -w0 -fr --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s -w50 -fr --invalidate -d5 -W0 -C0 -L -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s -w0 -fs --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fs --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s -w0 -fr --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s4096 --backwards -w0 -fs --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s3072 -w0 -fs --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
        ],
    ),
    (
        "block-sizes.fio",
        &[
            "iospd --bssplit=4096/50:16384/25:65536/25 -r -w0 -fr -Su -d10 -W0 -C0 -L -n -t1 -o8 /dev/sdz",
            "iospd --bssplit=4096/70:8192/30,131072/100 -r -w30 -fr -Su -d10 -W0 -C0 -L -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd --bssplit=4096/1:8192/1:12288/1:16384/1 -s -w100 -fs -Su -d10 -W0 -C0 -L -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd --bssplit=8192/50:32768/50 -r4096 -w0 -fr -Su -d10 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
        ],
    ),
    (
        "defaults.fio",
        &[
            "iospd -b4096 -r --random-map -w0 -Su -d10 -W0 -C0 -L -n -t1 -o1 -c1073741824 --keep-existing /tmp/iospd-fio-defaults.dat",
            "iospd -b4096 -r --random-map -w100 -Su -d10 -W0 -C0 -L --verify=stop -n -t1 -o1 -c67108864 --keep-existing /tmp/iospd-fio-verified.dat",
        ],
    ),
    (
        "size-bound.fio",
        &[
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=67108864 -W0 -C0 -L -n -t1 -o16 -c67108864 --keep-existing /tmp/iospd-fio-region.dat",
            "iospd -b1048576 -s -w100 -fs -Su --bytes=50331648 -W0 -C0 -L -Z2097152 -n -t1 -o1 -c67108864 --keep-existing /tmp/iospd-fio-loops.dat",
            "iospd -b4096 -r -w100 -fr -Su --bytes=67108864 --ios=5000 -d20 -W0 -C0 -L -Z1048576 -n -t1 -o1 -c67108864 --keep-existing /tmp/iospd-fio-count.dat",
            "iospd -b131072 -s -w0 -fs -Su --bytes=200% -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s -w0 -fs -Su --bytes=8388608 -W0 -C0 -L -n -t1 -o1 -c25165824 --keep-existing -B16777216 /tmp/iospd-fio-offset.dat",
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=268435456 -W0 -C0 -L -n -t1 -o1 -f1342177280 -B1073741824 /dev/sdz",
            "iospd -b131072 -s -w100 -fs -Su --bytes=100% -W0 -C0 -L -Z1048576 -n -t1 -o1 /dev/sdz",
        ],
    ),
    (
        "many-files.fio",
        &[
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=33554432 -W0 -C0 -L -n -F2 -O8 --file-service=roundrobin -c33554432 --keep-existing /tmp/iospd-fio-a.dat /tmp/iospd-fio-b.dat",
            "iospd -b4096 -s -w0 -fs -Su --bytes=1048576 -W0 -C0 -L -n -F1 -O1 --file-service=sequential -c1048576 --keep-existing /tmp/iospd-fio-c.dat /tmp/iospd-fio-d.dat /tmp/iospd-fio-e.dat",
            "iospd -b4096 -r --random-map -w100 -fr -Su -d10 -W0 -C0 -L -Z1048576 -n -F1 -O1 --file-service=roundrobin:8 -c4194304 --keep-existing /tmp/under-directory.0.0 /tmp/under-directory.0.1 /tmp/under-directory.0.2 /tmp/under-directory.0.3",
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=8388608 --ios=500 -W0 -C0 -L -n -F1 -O1 --file-service=random -c8388608 --keep-existing /tmp/each-sized.0.0 /tmp/each-sized.0.1",
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=1048576 -W0 -C0 -L -n -F1 -O1 --file-service=roundrobin -c1048576 --keep-existing /tmp/own-per-clone.0.0 /tmp/own-per-clone.0.1",
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=1048576 -W0 -C0 -L -n -F1 -O1 --file-service=roundrobin -c1048576 --keep-existing /tmp/own-per-clone.1.0 /tmp/own-per-clone.1.1",
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=1048576 -W0 -C0 -L -n -F1 -O1 --file-service=random:4 -c1048576 --keep-existing /tmp/random-turns.0.0 /tmp/random-turns.0.1 /tmp/random-turns.0.2",
            "iospd -b4096 -r --random-map -w0 -fr -Su -d5 -W0 -C0 -L -n -F1 -O1 --file-service=zipf:1.2 -c1048576 --keep-existing /tmp/zipf-files.0.0 /tmp/zipf-files.0.1 /tmp/zipf-files.0.2 /tmp/zipf-files.0.3",
        ],
    ),
    (
        "file-engines.fio",
        &[
            "iospd -b4096 -s -w0 --engine=stat -W0 -C0 -L --ios=1 -n -F1 -O1 --file-service=roundrobin -c4096 --keep-existing /tmp/stats.0.0 /tmp/stats.0.1 /tmp/stats.0.2",
            "iospd -b4096 -s -w0 --engine=statx -W0 -C0 -L --ios=2 -n -F1 -O1 --file-service=roundrobin -c4096 --keep-existing /tmp/statx.0.0 /tmp/statx.0.1 /tmp/statx.0.2",
            "iospd -b4096 -s -w0 --engine=unlink -W0 -C0 -L --ios=1 -n -F1 -O1 --file-service=roundrobin -c4096 --keep-existing /tmp/deletes.0.0 /tmp/deletes.0.1 /tmp/deletes.0.2",
            "iospd -b4096 -s -w0 --engine=create -W0 -C0 -L --ios=1 -n -F1 -O1 --file-service=roundrobin -c4096 --keep-existing /tmp/creates.0.0 /tmp/creates.0.1 /tmp/creates.0.2",
            "iospd -b4096 -r -w100 --engine=ftruncate --bytes=1048576 -W0 -C0 -L -Z1048576 -n -t1 -o1 -c1048576 --keep-existing /tmp/iospd-fio-truncate",
            "iospd -b4096 -r --random-map --trim=100 --engine=fallocate --bytes=1048576 -W0 -C0 -L -n -t1 -o1 -c1048576 --keep-existing /tmp/iospd-fio-allocate",
        ],
    ),
    (
        "placement.fio",
        &[
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L --cpu-set=0-1 -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -a0,1 -t2 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L --cpu-set=0-1 -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -n -I1 -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -n -I2 -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -n -l -t1 -o1 /dev/sdz",
            "iospd -b1048576 -s -w100 -fs --invalidate -d5 -W0 -C0 -L -Z2097152 -n -t4 -o1 --offset-increment=1073741824 -f4294967296 /dev/sdz",
        ],
    ),
    (
        "write-data.fio",
        &[
            "iospd -b4096 -r --random-map -w100 -fr --invalidate -d5 -W0 -C0 -L --pattern=0xdeadbeef -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w50 -fr --invalidate -d5 -W0 -C0 -L --pattern=0x696f737064 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w100 -fr --invalidate -d5 -W0 -C0 -L --verify -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w100 -fr --invalidate -d5 -W0 -C0 -L --continue-on-error=io:EIO,EILSEQ -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L --continue-on-error=read:EIO,EILSEQ -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
        ],
    ),
    (
        "distributions.fio",
        &[
            "iospd -b4096 -r -w0 -fr --invalidate -d5 -W0 -C0 -L --distribution=zipf:1.2 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r -w0 -fr --invalidate -d5 -W0 -C0 -L --distribution=pareto:0.2 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r -w0 -fr --invalidate -d5 -W0 -C0 -L --distribution=zoned:50/5:30/15:20/80 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r -w0 -fr --invalidate -d5 -W0 -C0 -L --distribution=zoned_abs:60/10g:40/100g -n -t1 -o1 /dev/sdz",
        ],
    ),
    (
        "rates.fio",
        &[
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -g2000i -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w50 -fr --invalidate -d5 -W0 -C0 -L -g2000i -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w25 -fr --invalidate -d5 -W0 -C0 -L -g1000i -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd -b65536 -s -w0 -fs --invalidate -d5 -W0 -C0 -L -g1048576/s -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s -w100 -fs --invalidate -d5 -W0 -C0 -L -g2097152/s -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -g500i --rate-process=poisson -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d5 -W0 -C0 -L -i4 -j250us -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s -w0 -fs --invalidate -d5 -W0 -C0 -L -i1 -j2 -n -t1 -o1 /dev/sdz",
        ],
    ),
    (
        "units.fio",
        &[
            "iospd -b4000 -s -w0 -fs --engine=psync --invalidate --bytes=1000000000 -W0 -C0 -L -n -t1 -o1 -f1073741824 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --engine=psync --invalidate --bytes=2000000000 -W0 -C0 -L -g1000 -n -t1 -o1 -f2000000000 /dev/sdz",
        ],
    ),
    (
        "steady-state.fio",
        &[
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d300 -W0 -C0 -L --steady-state=iops:10%:30s:10s -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -s -w0 -fs --invalidate -d300 -W0 -C0 -L --steady-state=iops_slope:0.01%:20s -n -t1 -o1 /dev/sdz",
            "iospd -b65536 -s -w100 -fs --invalidate -d300 -W0 -C0 -L --steady-state=bw:10485760:60s -Z1048576 -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d300 -W0 -C0 -L -n -t1 -o1 /dev/sdz",
            "iospd -b4096 -r --random-map -w0 -fr --invalidate -d300 -W0 -C0 -L --steady-state=bw_slope:1%:5s -n -t2 -o1 /dev/sdz",
        ],
    ),
    (
        "keywords.fio",
        &["iospd -b4096 -r --random-map -w0 -fr -Su -d60 -W0 -C0 -L -n -tNCPUS -o32 /dev/sdz"],
    ),
];

#[test]
fn job_files_of_every_shape_translate_exactly() {
    // SAFETY: sysconf has no preconditions.
    let ncpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.to_string();
    for (file, lines) in EXPECTED {
        let output = print(&[&corpus(file)]);
        assert_eq!(output.status.code(), Some(0), "{file}: {}", stderr(&output));
        let want: Vec<String> = lines.iter().map(|l| l.replace("NCPUS", &ncpus)).collect();
        let got: Vec<String> = stdout(&output).lines().map(str::to_string).collect();
        assert_eq!(got, want, "{file}");
        // Every printed line is a command line iospd reads.
        for line in &got {
            let args: Vec<&str> = line.split(' ').skip(1).collect();
            let check = iospd().arg("-Rp").args(&args).output().unwrap();
            assert_eq!(check.status.code(), Some(0), "{line}: {}", stderr(&check));
        }
    }
}

#[test]
fn what_iospd_cannot_run_exactly_is_refused_by_option_job_and_line() {
    let output = print(&[&corpus("refused.fio")]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stdout(&output).is_empty());
    let err = stderr(&output);
    for says in [
        "iospd: 14 jobs refused:",
        "refused.fio:10: job 'split': bssplit=4k/50:64k/60: percentages that add up to 110, not 100",
        "refused.fio:16: job 'half-device': size=50%: a percentage of '/dev/sdz', which is not there or empty (fio takes it of the target's size)",
        "refused.fio:19: job 'http': ioengine=http: the http engine talks to a storage service through its own library: it has no counterpart in iospd",
        "refused.fio:25: job 'partial-arithmetic': iodepth=128*2: '128*2' is arithmetic without parentheses, of which fio reads only the leading number",
        "refused.fio:30: job 'mixed-rate': rate_iops=5000,: a limit on some directions of a job that mixes them",
        "refused.fio:35: job 'decimal-pattern': buffer_pattern=1234: not 0x and hex bytes, or a quoted string",
        "refused.fio:41: job 'partial-verify': verify_interval=1000: a check every 1000 bytes of a 4096-byte block: iospd checks every 512-byte sector",
        "refused.fio:46: job 'decimal-units': kb_base=1001: '1001': fio's kb_base is 1000 or 1024",
        "refused.fio:51: job 'too-low-a-level': prio=8: not one of fio's levels 0 (highest) to 7",
        "refused.fio:58: job 'file-once-timed': time_based: time_based with the filedelete engine, which removes each file once",
        "refused.fio:64: job 'random-share-per-direction': percentage_random=30,40: a different share of random I/O per direction",
        "refused.fio:70: job 'errors-per-direction': ignore_error=EAGAIN,ENOSPC:122: different errors passed for reads and for writes",
        "refused.fio:76: job 'fill-a-file-system': fill_device=1: files grown until their file system is full",
        "refused.fio:80: job 'one-block-forever': rw=read:-4k: a skip of -4k after each 4096-byte I/O reads one block over and over",
    ] {
        assert!(err.contains(says), "{says}\n{err}");
    }
    let output = print(&[&corpus("refused-files.fio")]);
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    for says in [
        "iospd: 7 jobs refused:",
        "refused-files.fio:9: job 'sizes-from-a-range': filesize=1m-4m: files of sizes drawn from a range",
        "refused-files.fio:13: job 'files-by-distribution': file_service_type=zipf:1.2: files chosen by a distribution",
        "refused-files.fio:17: job 'timed-file-by-file': file_service_type=sequential: a time-based job served file by file",
        "refused-files.fio:23: job 'uneven-count': number_ios=1000: 1000 I/Os, which do not split evenly between the thread's 3 files",
        "refused-files.fio:28: job 'grown-by-writes': create_on_open=1: files made empty when opened and grown by the job's own writes",
        "refused-files.fio:32: job 'increments-own-files': offset_increment=1m: clones each on files of their own",
        "refused-files.fio:38: job 'increments-to-the-end': offset_increment=1g: clones whose regions run from their own offsets to the target's end",
    ] {
        assert!(err.contains(says), "{says}\n{err}");
    }
    let output = print(&[&corpus("refused-steady.fio")]);
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    for says in [
        "iospd: 6 jobs refused:",
        "refused-steady.fio:11: job 'clones-apart': ss=iops:5%: without group_reporting fio judges each of the 2 clones on its own",
        "refused-steady.fio:18: job 'judged-together': ss_dur=10: with group_reporting fio judges the steady state of every job of the group together",
        "refused-steady.fio:23: job 'with-its-partner': ss_dur=10: with group_reporting",
        "refused-steady.fio:28: job 'one-rule': ss_dur=10: steady-state options that differ from another job's of its group, which fio rejects",
        "refused-steady.fio:32: job 'another-rule': ss_dur=10: steady-state options that differ",
        "refused-steady.fio:36: job 'part-of-a-second': ss_dur=2500ms: iospd's steady-state window is whole seconds",
    ] {
        assert!(err.contains(says), "{says}\n{err}");
    }
}

#[test]
fn unreadable_job_files_exit_3_with_the_place_and_the_fix() {
    let dir = TempDir::new();
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        dir.arg(name)
    };
    let unset = write("unset.fio", "[j]\nrw=${IOSPD_TEST_UNSET_MODE}\n");
    write("a.inc", "include b.inc\n");
    write("b.inc", "include a.inc\n");
    let cycle = write("cycle.fio", "[global]\ninclude a.inc\n[j]\n");
    let stray = write("stray.fio", "rw=read\n[j]\n");
    for (file, says) in [
        (&unset, "unset.fio:2: ${IOSPD_TEST_UNSET_MODE} is not set"),
        (&cycle, "includes itself"),
        (&stray, "stray.fio:1: 'rw=read' comes before any [section]"),
    ] {
        let output = iospd().args(["fio", "-Rp", file]).output().unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{file}: {err}");
        assert!(err.contains(says), "{file}: {err}");
    }
}

/// fio's examples, where the suite was told they are (`IOSPD_FIO_EXAMPLES`, which `.ci/run`
/// sets after fetching Debian's fio source).
pub(crate) fn fio_examples(test: &str) -> Option<Vec<PathBuf>> {
    let Some(dir) = std::env::var_os("IOSPD_FIO_EXAMPLES") else {
        skip(
            test,
            "needs fio's example job files: set IOSPD_FIO_EXAMPLES to fio's examples/ (apt-get source fio)",
        );
        return None;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("IOSPD_FIO_EXAMPLES={}: {e}", Path::new(&dir).display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    files.sort();
    assert!(
        files.len() > 50,
        "{} holds {} job files",
        Path::new(&dir).display(),
        files.len()
    );
    Some(files)
}

/// Every example fio ships is either translated — a line per job, each one iospd reads — or
/// refused with each refused job's option and line; no file fio itself refuses is accepted. The
/// count of each is printed (the README's table).
#[test]
fn fio_example_job_files_are_translated_or_refused_by_name() {
    let test = "fio_example_job_files_are_translated_or_refused_by_name";
    let Some(files) = fio_examples(test) else {
        return;
    };
    let fio = tools::optional(test, "fio", "that every file fio refuses is refused");
    let (mut accepted, mut refused, mut unreadable) = (0, 0, 0);
    let mut options = std::collections::BTreeMap::<String, usize>::new();
    for file in &files {
        let name = file.display().to_string();
        let output = iospd().args(["fio", "-Rp", &name]).output().unwrap();
        let (out, err) = (stdout(&output), stderr(&output));
        let fio_parses = fio.as_ref().map(|f| {
            f.command("fio")
                .args(["--parse-only", &name])
                .current_dir(file.parent().unwrap())
                .output()
                .unwrap()
                .status
                .success()
        });
        match output.status.code() {
            Some(0) => {
                accepted += 1;
                assert_ne!(
                    fio_parses,
                    Some(false),
                    "{name}: fio refuses it, iospd translated it:\n{out}"
                );
                assert!(
                    !out.is_empty() && out.lines().all(|l| l.starts_with("iospd ")),
                    "{name}: {out}"
                );
            }
            Some(3) => {
                let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("note: ")).collect();
                assert_eq!(lines.len(), 1, "{name}: a refusal is one line: {err}");
                if let Some((_, list)) = lines[0].split_once(" refused: ") {
                    refused += 1;
                    let list = list.strip_suffix("; fix or remove them").unwrap();
                    for line in list.split(" | ") {
                        let (place, rest) = line
                            .split_once(": job '")
                            .unwrap_or_else(|| panic!("{name}: {line}"));
                        assert!(
                            place.rsplit(':').next().unwrap().parse::<usize>().is_ok(),
                            "{name}: {line}"
                        );
                        let option = rest
                            .split_once("': ")
                            .unwrap()
                            .1
                            .split(['=', ':'])
                            .next()
                            .unwrap();
                        *options.entry(option.to_string()).or_default() += 1;
                    }
                } else {
                    unreadable += 1;
                    assert!(lines[0].contains(".fio:"), "{name}: {err}");
                }
            }
            other => panic!("{name}: exit {other:?}\n{err}"),
        }
    }
    let mut table = format!(
        "{} fio example job files: {accepted} translated, {refused} refused, {unreadable} unreadable without their environment, 0 wrong\nrefused jobs by option:",
        files.len()
    );
    for (option, n) in &options {
        table.push_str(&format!(" {option} {n};"));
    }
    eprintln!("{table}");
    assert_eq!(accepted + refused + unreadable, files.len());
}

/// A job's `write_iops_log` and `write_lat_log` are written in fio's format: a line per
/// `log_avg_msec` window and direction, `time ms, value, direction, 0, 0`.
#[test]
fn a_jobs_logs_are_written_in_fios_format() {
    let dir = TempDir::new();
    let job = dir.join("logged.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=io_uring\ndirect=1\ntime_based\nruntime=2\nsize=8m\nfilename=t.dat\n\n[logged]\nrw=randread\nbs=4k\niodepth=4\nrate_iops=2000\nwrite_iops_log=run\nwrite_lat_log=run\nlog_avg_msec=500\n",
    )
    .unwrap();
    let output = fio_in(&dir, &["-Rjson", "logged.fio"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let iops = std::fs::read_to_string(dir.join("run_iops.1.log")).unwrap();
    let lines: Vec<Vec<u64>> = iops
        .lines()
        .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(lines.len(), 4, "{iops}");
    // Each window's value is the report's own: its -D row's IOPS, rounded (on a busy machine a
    // window may hold a few I/Os of the next; the rate holds over the run).
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let rows = report["timespans"][0]["measured"]["timeline"]
        .as_array()
        .unwrap();
    let ios: u64 = lines.iter().map(|l| l[1] / 2).sum();
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line.len(), 5, "{iops}");
        assert_eq!(
            (line[0], line[2], line[3], line[4]),
            (500 * (i as u64 + 1), 0, 0, 0),
            "{iops}"
        );
        let row = &rows[i]["targets"][0]["read"];
        assert_eq!(
            line[1],
            row["ios_per_s"].as_f64().unwrap().round() as u64,
            "{iops}"
        );
    }
    let total = report["timespans"][0]["measured"]["totals"]["read"]["ios"]
        .as_u64()
        .unwrap();
    assert!(
        ios.abs_diff(total) <= total / 100,
        "{iops}: {total} I/Os in the report"
    );
    assert!(
        total.abs_diff(4000) <= 200,
        "rate_iops=2000 for 2 s: {total}"
    );
    for log in ["run_lat.1.log", "run_clat.1.log", "run_slat.1.log"] {
        let text = std::fs::read_to_string(dir.join(log)).unwrap();
        assert_eq!(text.lines().count(), 4, "{log}: {text}");
    }
}

/// `write_hist_log` at `log_hist_msec`: fio's histogram log, a line per interval and direction
/// with fio's 1,856 latency bins (summed by `2^log_hist_coarseness`), every measured I/O in one;
/// the same columns as fio 3.33's own log of the job where fio is installed.
#[test]
fn a_jobs_histogram_log_has_fios_bins_and_every_io() {
    let test = "a_jobs_histogram_log_has_fios_bins_and_every_io";
    let fio = tools::optional(test, "fio", "the histogram log's columns against fio's");
    let job = |coarseness: &str| {
        vec![
            "--name=h".to_string(),
            "--filename=h.dat".into(),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--size=4m".into(),
            "--runtime=1".into(),
            "--time_based".into(),
            "--log_hist_msec=100".into(),
            "--write_hist_log=hist".into(),
            format!("--log_hist_coarseness={coarseness}"),
        ]
    };
    let fields = |text: &str| -> Vec<Vec<u64>> {
        text.lines()
            .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
            .collect()
    };
    for (coarseness, bins) in [("0", 1856), ("2", 464)] {
        let dir = TempDir::new();
        let output = iospd()
            .arg("fio")
            .arg("-Rjson")
            .args(job(coarseness))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let ours = fields(&std::fs::read_to_string(dir.join("hist_clat_hist.1.log")).unwrap());
        assert!(!ours.is_empty());
        assert!(
            ours.iter()
                .all(|l| l.len() == 3 + bins && l[1] == 0 && l[2] == 4096)
        );
        let counted: u64 = ours.iter().map(|l| l[3..].iter().sum::<u64>()).sum();
        let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        let measured = &report["timespans"][0]["measured"]["totals"]["read"]["ios"];
        assert_eq!(Some(counted), measured.as_u64(), "every measured read");
        assert!(
            !dir.join("hist_clat_hist.hlog").exists(),
            "the interval log is removed"
        );
        let Some(fio) = &fio else { continue };
        let theirs = TempDir::new();
        let ran = fio
            .command("fio")
            .args(job(coarseness))
            .arg("--output-format=terse")
            .current_dir(theirs.path())
            .output()
            .unwrap();
        assert!(ran.status.success(), "{}", stderr(&ran));
        let log = std::fs::read_to_string(theirs.join("hist_clat_hist.1.log")).unwrap();
        for line in fields(&log) {
            assert_eq!((line.len(), line[1], line[2]), (3 + bins, 0, 4096), "fio's");
        }
    }
}

/// `numa_cpu_nodes` runs the job on the CPUs this host has on those nodes (`--cpu-set`), and
/// `numa_mem_policy` is `--mem-policy`; a node the host lacks is refused, and so is a policy fio
/// does not have.
#[test]
fn numa_nodes_become_the_cpus_this_host_has_on_them() {
    let cpus = std::fs::read_to_string("/sys/devices/system/node/node0/cpulist")
        .expect("node 0's CPUs (/sys/devices/system/node)");
    let dir = TempDir::new();
    let job =
        "[global]\nioengine=io_uring\nrw=randread\nfilename=/dev/sdz\ntime_based\nruntime=5\n";
    std::fs::write(
        dir.join("numa.fio"),
        format!("{job}[on-node-0]\nnuma_cpu_nodes=0\nnuma_mem_policy=bind:0\n"),
    )
    .unwrap();
    let output = iospd()
        .args(["fio", "-Rp", &dir.arg("numa.fio")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let line = stdout(&output);
    let set = line
        .split(' ')
        .find_map(|a| a.strip_prefix("--cpu-set="))
        .unwrap_or_else(|| panic!("{line}"));
    let expand = |list: &str| -> Vec<u32> {
        list.trim()
            .split(',')
            .flat_map(|part| match part.split_once('-') {
                Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).collect::<Vec<u32>>(),
                None => vec![part.parse().unwrap()],
            })
            .collect()
    };
    assert_eq!(expand(set), expand(&cpus), "{line}");
    assert!(line.contains(" --mem-policy=bind:0 "), "{line}");
    std::fs::write(
        dir.join("refused.fio"),
        format!(
            "{job}[no-such-node]\nnuma_cpu_nodes=1000\n[spread]\nnuma_cpu_nodes=0\nnuma_mem_policy=spread:0\n"
        ),
    )
    .unwrap();
    let output = iospd()
        .args(["fio", "-Rp", &dir.arg("refused.fio")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let err = stderr(&output);
    for says in [
        "job 'no-such-node': numa_cpu_nodes=1000: node 1000 is not on this host",
        "job 'spread': numa_mem_policy=spread:0: 'spread' is not a memory policy",
    ] {
        assert!(err.contains(says), "{says}\n{err}");
    }
}

/// `exitall`: when a job with it ends, the others of its group are stopped (an hour-long one
/// cut short with its results, one still waiting on its `startdelay` never started), and the
/// next group runs; with `exit_what=all` no later group runs.
#[test]
fn exitall_ends_the_group_when_its_job_ends() {
    let dir = TempDir::new();
    for (what, later_runs) in [("group", true), ("all", false)] {
        let job = format!(
            "[global]\nioengine=null\nfilename=e.dat\nsize=1m\n[quick]\nexitall\nexit_what={what}\nrw=read\n[background]\nrw=randread\ntime_based\nruntime=3600\nrate_iops=100\n[late]\nstartdelay=3600\nrw=read\n[next-group]\nstonewall\nrw=read\n"
        );
        std::fs::write(dir.join("exit.fio"), job).unwrap();
        let mut child = iospd()
            .args(["fio", "--output-format=json", "exit.fio"])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Without exitall the group would run for an hour: a bound on a failure, not a race.
        let mut waited = 0;
        while child.try_wait().unwrap().is_none() {
            if waited == 6000 {
                child.kill().unwrap();
                panic!("exit_what={what}: the group ran on after 'quick' ended");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            waited += 1;
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let err = stderr(&output);
        assert!(
            err.contains("exitall: 'quick' ended its group; 'background' cut short (results up to then); 'late' stopped before measuring (no results)"),
            "{err}"
        );
        assert_eq!(err.contains("; 1 later job not run"), !later_runs, "{err}");
        let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        let jobs: Vec<&str> = json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["jobname"].as_str().unwrap())
            .collect();
        let mut want = vec!["quick", "background"];
        if later_runs {
            want.push("next-group");
        }
        assert_eq!(jobs, want, "exit_what={what}");
        assert_eq!(json["jobs"][0]["read"]["io_bytes"], 1 << 20);
        assert!(json["jobs"][1]["read"]["runtime"].as_u64().unwrap() < 3_600_000);
    }
}

/// A verified job that writes and ends by its work is read back after its run, as fio reads back
/// what it wrote: `--verify-state`, then `iospd verify` of it, said in one line; the state is
/// removed when every block is right. A time-based one is not (fio's runtime ends it first).
#[test]
fn a_verified_write_job_is_read_back_after_its_run() {
    let dir = TempDir::new();
    let job = |extra: &str| {
        format!(
            "[wv]\nioengine=io_uring\nrw=randwrite\nbs=4k\nsize=4m\nfilename=vw.dat\nverify=crc32c\n{extra}"
        )
    };
    std::fs::write(dir.join("vw.fio"), job("")).unwrap();
    let output = fio_in(&dir, &["-Rjson", "vw.fio"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("iospd: job 'wv': read back after its run: every one of 1024 blocks is right"),
        "{err}"
    );
    assert!(!dir.join("iospd-wv.verify-state").exists());
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let totals = &report["timespans"][0]["measured"]["totals"];
    assert_eq!(totals["write"]["bytes"], 4 << 20, "{totals}");
    assert_eq!(
        totals["read"]["bytes"], 0,
        "the read-back is not measured: {totals}"
    );
    std::fs::write(dir.join("vt.fio"), job("time_based\nruntime=1\n")).unwrap();
    let output = fio_in(&dir, &["-Rp", "vt.fio"]);
    assert!(
        !stdout(&output).contains("--verify-state"),
        "{}",
        stdout(&output)
    );
}

/// `ioscheduler`: fio switches the device; iospd measures it as it is set, so a job runs where
/// the device already uses that scheduler and is refused, with the command that sets it, where
/// it does not — nothing written.
#[test]
fn ioscheduler_runs_only_where_the_device_uses_it() {
    let test = "ioscheduler_runs_only_where_the_device_uses_it";
    let Some(device) = crate::util::machine::LoopDevice::new(8, test) else {
        return;
    };
    let name = device.name();
    let listed = std::fs::read_to_string(format!("/sys/block/{name}/queue/scheduler")).unwrap();
    let now = listed
        .split_whitespace()
        .find_map(|s| s.strip_prefix('[')?.strip_suffix(']'))
        .unwrap()
        .to_string();
    let other = listed
        .split_whitespace()
        .find(|s| !s.starts_with('['))
        .expect("a second scheduler")
        .to_string();
    let dir = TempDir::new();
    let run = |scheduler: &str| {
        std::fs::write(
            dir.join("s.fio"),
            format!(
                "[s]\nioengine=psync\nrw=write\nbs=4k\nnumber_ios=8\nfilename={}\nioscheduler={scheduler}\n",
                device.device.display()
            ),
        )
        .unwrap();
        iospd().args(["fio", &dir.arg("s.fio")]).output().unwrap()
    };
    let before = device.contents();
    let output = run(&other);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let said = format!(
        "ioscheduler={other}: '{}' is on {name} whose scheduler is {now} (fio would switch it); set it first (echo {other} > /sys/block/{name}/queue/scheduler)",
        device.device.display()
    );
    assert!(stderr(&output).contains(&said), "{}", stderr(&output));
    assert!(device.contents() == before, "a refused job wrote");
    let output = run(&now);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(device.contents() != before);
}

/// Clones with several files of their own (`nrfiles` with `numjobs`, no `filename`) run each as a
/// process of its own over its own files, as fio runs them: each lays out and moves its `size`.
#[test]
fn clones_with_files_of_their_own_each_run_over_theirs() {
    let dir = TempDir::new();
    let output = iospd()
        .args([
            "fio",
            "--output-format=json",
            "--name=per",
            "--ioengine=psync",
        ])
        .args(["--rw=randwrite", "--nrfiles=2", "--numjobs=2", "--size=1m"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let entries: Vec<(&str, u64)> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap(),
                j["write"]["io_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(entries, [("per", 1 << 20), ("per", 1 << 20)]);
    for file in ["per.0.0", "per.0.1", "per.1.0", "per.1.1"] {
        assert_eq!(
            std::fs::metadata(dir.join(file)).unwrap().len(),
            512 << 10,
            "{file}"
        );
    }
}

/// `wait_for`: a job of the group starts when the job it names has finished (its measured
/// window begins after the other's ended); one that names a job of a later group is refused, as
/// fio would wait for ever.
#[test]
fn wait_for_starts_a_job_when_the_one_it_names_has_finished() {
    let dir = TempDir::new();
    std::fs::write(
        dir.join("wf.fio"),
        "[global]\nioengine=psync\nfilename=w.dat\nsize=4m\n[b]\nwait_for=a\nrw=read\n[a]\nrw=write\nrate_iops=4000\n",
    )
    .unwrap();
    let output = fio_in(&dir, &["-Rjson", "wf.fio"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let reports: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let window = |i: usize| {
        let ts = &reports[i]["timespans"][0];
        let start = ts["start_unix_s"].as_f64().unwrap();
        (
            start,
            start + ts["measured"]["duration_s"].as_f64().unwrap(),
        )
    };
    let (b, a) = (window(0), window(1));
    assert!(
        b.0 >= a.1,
        "'b' began at {} before 'a' ended at {}",
        b.0,
        a.1
    );
    std::fs::write(
        dir.join("later.fio"),
        "[global]\nioengine=psync\nfilename=w.dat\nsize=4m\n[b]\nwait_for=a\nrw=read\n[a]\nstonewall\nrw=write\n",
    )
    .unwrap();
    let output = fio_in(&dir, &["-Rp", "later.fio"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("later.fio:6: job 'b': wait_for=a: a job of a later group"),
        "{}",
        stderr(&output)
    );
}

/// `log_offset=1` adds fio's offset column (0 for a window of many I/Os, as fio writes it)
/// before the priority.
#[test]
fn log_offset_adds_fios_offset_column() {
    let dir = TempDir::new();
    std::fs::write(
        dir.join("offsets.fio"),
        "[off]\nioengine=io_uring\ntime_based\nruntime=1\nsize=4m\nfilename=t.dat\nrw=randread\nrate_iops=500\nwrite_iops_log=o\nlog_offset=1\nlog_avg_msec=500\n",
    )
    .unwrap();
    let output = fio_in(&dir, &["-Rjson", "offsets.fio"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let log = std::fs::read_to_string(dir.join("o_iops.1.log")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    for line in log.lines() {
        let fields: Vec<&str> = line.split(", ").collect();
        assert_eq!(fields.len(), 6, "{log}");
        assert_eq!(&fields[2..], ["0", "0", "0", "0"], "{log}");
    }
}

/// `iospd fio <args>` run in `dir`.
pub(crate) fn fio_in(dir: &TempDir, args: &[&str]) -> Output {
    iospd()
        .arg("fio")
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap()
}

/// A translated job runs: the line iospd printed, run by `iospd fio`, measures the job's I/O.
#[test]
fn a_translated_job_runs_with_the_job_files_shape() {
    let dir = TempDir::new();
    let job = dir.join("small.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nioengine=io_uring\ndirect=1\ntime_based\nruntime=1\nsize=8m\ndirectory={}\n\n[mixed]\nrw=randrw\nrwmixread=75\nbs=4k\niodepth=4\nnumjobs=2\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let output = iospd()
        .args(["fio", "-Rjson", &job.display().to_string()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let ts = &report["timespans"][0];
    let profile = &report["profile"]["timespans"][0];
    assert_eq!(
        profile["targets"].as_array().unwrap().len(),
        2,
        "one file per job clone"
    );
    let target = &profile["targets"][0];
    assert_eq!(target["block_size_bytes"], 4096);
    assert_eq!(target["write_ratio"], 25);
    assert_eq!(target["requests"], 4);
    let totals = &ts["measured"]["totals"];
    let (reads, writes) = (
        totals["read"]["ios"].as_f64().unwrap(),
        totals["write"]["ios"].as_f64().unwrap(),
    );
    let share = writes / (reads + writes);
    assert!(
        (0.2..0.3).contains(&share),
        "writes {share:.3} of the I/O, not 25 %"
    );
    assert!(dir.join("mixed.0.0").exists() && dir.join("mixed.1.0").exists());
}

/// A job that is not time-based moves its size and ends: fio's random map reads every block of
/// the region once, and the rates are over the time it took.
#[test]
fn a_size_bound_job_reads_its_region_once_and_ends() {
    let dir = TempDir::new();
    std::fs::write(
        dir.join("once.fio"),
        "[once]\nioengine=psync\nfilename=t.dat\nsize=4m\nrw=randread\nbs=4k\nwrite_iolog=once.trace\n",
    )
    .unwrap();
    let output = fio_in(&dir, &["-Rjson", "once.fio"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let measured = &report["timespans"][0]["measured"];
    assert_eq!(measured["totals"]["read"]["bytes"], 4 << 20, "{measured}");
    assert!(measured["duration_s"].as_f64().unwrap() > 0.0);
    let trace = std::fs::read(dir.join("once.trace")).unwrap();
    let mut blocks: Vec<u64> = trace[12..]
        .chunks_exact(40)
        .map(|r| u64::from_le_bytes(r[16..24].try_into().unwrap()) / 4096)
        .collect();
    blocks.sort_unstable();
    assert_eq!(blocks, (0..1024).collect::<Vec<u64>>());
}

/// fio's layout rule: `size` is the region a job uses, not the size to make its file. A file at
/// least that long is used as it is (a read job writes nothing to it, whoever made it); a
/// missing file is laid out at the region's end; a short one is laid out again only where the
/// safety gate allows it.
#[test]
fn what_is_there_stays_there() {
    let dir = TempDir::new();
    let run = |args: &[&str]| {
        iospd()
            .args(["fio", "-Rjson", "--ioengine=psync", "--bs=4k"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let foreign: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.join("foreign.dat"), &foreign).unwrap();
    let output = run(&[
        "--name=r",
        "--filename=foreign.dat",
        "--rw=read",
        "--offset=2m",
        "--size=1m",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let measured = &report["timespans"][0]["measured"];
    assert_eq!(measured["totals"]["read"]["bytes"], 1 << 20, "{measured}");
    assert!(std::fs::read(dir.join("foreign.dat")).unwrap() == foreign);

    // iospd's own 8 MiB test file, read through a 1 MiB region, stays 8 MiB.
    let made = iospd()
        .args(["-c8M", "--ios=1", "own.dat"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let own = std::fs::read(dir.join("own.dat")).unwrap();
    let output = run(&[
        "--name=r",
        "--filename=own.dat",
        "--rw=randread",
        "--size=1m",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(std::fs::read(dir.join("own.dat")).unwrap() == own);

    // A missing file is laid out to the region's end.
    let output = run(&[
        "--name=w",
        "--filename=new.dat",
        "--rw=randread",
        "--offset=1m",
        "--size=2m",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::metadata(dir.join("new.dat")).unwrap().len(),
        3 << 20
    );

    // A file too short for the region that iospd did not make is not laid out again.
    let short = &foreign[..1 << 20];
    std::fs::write(dir.join("short.dat"), short).unwrap();
    let output = run(&[
        "--name=w",
        "--filename=short.dat",
        "--rw=write",
        "--size=4m",
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("it holds 1MiB, less than the 4MiB --keep-existing lays out")
            && err.lines().count() == 1,
        "{err}"
    );
    assert!(std::fs::read(dir.join("short.dat")).unwrap() == short);

    // Without a size, a file that is there is used whole, as fio uses it; a missing one is
    // refused (fio would need a size to lay it out).
    let output = run(&["--name=r", "--filename=foreign.dat", "--rw=read"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let measured = &report["timespans"][0]["measured"];
    assert_eq!(measured["totals"]["read"]["bytes"], 8 << 20, "{measured}");
    assert!(std::fs::read(dir.join("foreign.dat")).unwrap() == foreign);
    let output = run(&["--name=r", "--filename=absent.dat", "--rw=read"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("size: a file job without size or filesize, whose files are not all there"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("absent.dat").exists());
}

/// A job with several files lays out each (its share of `size`), moves its size over them, each
/// block of each file once (fio's random map per file), and is refused whole when the safety gate
/// refuses any one of its files.
#[test]
fn a_job_with_several_files_lays_out_each_and_moves_its_size_over_them() {
    let dir = TempDir::new();
    let run = |args: &[&str]| {
        iospd()
            .args([
                "fio",
                "-Rjson",
                "--ioengine=psync",
                "--bs=4k",
                "--name=many",
            ])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let output = run(&[
        "--filename=a.dat:b.dat",
        "--rw=randread",
        "--size=2m",
        "--write_iolog=many.trace",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for file in ["a.dat", "b.dat"] {
        assert_eq!(std::fs::metadata(dir.join(file)).unwrap().len(), 1 << 20);
    }
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let measured = &report["timespans"][0]["measured"];
    assert_eq!(measured["totals"]["read"]["bytes"], 2 << 20, "{measured}");
    // Each file's 256 blocks once: the trace's (target, block) pairs.
    let trace = std::fs::read(dir.join("many.trace")).unwrap();
    let mut blocks: Vec<(u8, u64)> = trace[12..]
        .chunks_exact(40)
        .map(|r| {
            let target = r[36];
            (
                target,
                u64::from_le_bytes(r[16..24].try_into().unwrap()) / 4096,
            )
        })
        .collect();
    blocks.sort_unstable();
    let want: Vec<(u8, u64)> = (0..2u8)
        .flat_map(|t| (0..256).map(move |b| (t, b)))
        .collect();
    assert_eq!(blocks, want);

    // A write job over a file iospd did not make and a missing one: refused whole, nothing made.
    std::fs::write(dir.join("theirs.dat"), vec![7u8; 1 << 20]).unwrap();
    let output = run(&[
        "--filename=theirs.dat:new.dat",
        "--rw=randwrite",
        "--size=2m",
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("theirs.dat"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("new.dat").exists());
    assert_eq!(
        std::fs::read(dir.join("theirs.dat")).unwrap(),
        vec![7u8; 1 << 20]
    );
}

/// `unlink`: the files a job's run made are removed when its group ends; a file that was there
/// before stays, whoever made it.
#[test]
fn fios_file_engines_stat_remove_and_create_each_file_once() {
    let dir = TempDir::new();
    let job = dir.join("files.fio");
    std::fs::write(
        &job,
        "[global]\nfilesize=4k\nnrfiles=5\n\n[made]\nioengine=filestat\nstat_type=lstat\n\n[gone]\nioengine=filedelete\nstonewall\nfilename_format=made.0.$filenum\n\n[again]\nioengine=filecreate\ncreate_on_open=1\nstonewall\nfilename_format=made.0.$filenum\n",
    )
    .unwrap();
    let names: Vec<String> = (0..5).map(|k| format!("made.0.{k}")).collect();
    let output = fio_in(&dir, &["-Rjson", "files.fio"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    // Three reports, one per job: five calls each, every one timed.
    let reports: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(reports.len(), 3, "{out}");
    for (report, engine) in reports.iter().zip(["lstat", "unlink", "create"]) {
        let text = report.to_string();
        assert!(
            text.contains(&format!(r#""kind":"{engine}""#)),
            "{engine}: {text}"
        );
        let read = &report["timespans"][0]["measured"]["totals"]["read"];
        assert_eq!(read["ios"], 5, "{engine}");
        assert_eq!(read["latency"]["count"], 5, "{engine}");
    }
    // Removed, then created anew: empty, where the stat job's files were 4 KiB.
    for name in &names {
        assert_eq!(
            std::fs::metadata(dir.join(name)).unwrap().len(),
            0,
            "{name}"
        );
    }
}

#[test]
fn unlink_removes_only_what_the_run_made() {
    let dir = TempDir::new();
    std::fs::write(dir.join("there.dat"), vec![3u8; 1 << 20]).unwrap();
    let output = iospd()
        .args([
            "fio",
            "-Rjson",
            "--ioengine=psync",
            "--size=2m",
            "--unlink=1",
        ])
        .args(["--name=u", "--filename=made.dat:there.dat", "--rw=randread"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report["timespans"][0]["measured"]["totals"]["read"]["bytes"],
        2 << 20
    );
    assert!(!dir.join("made.dat").exists(), "made by the run: removed");
    assert_eq!(
        std::fs::read(dir.join("there.dat")).unwrap(),
        vec![3u8; 1 << 20]
    );
}

/// `startdelay`: a job of a group starts that long after the group does, never before.
#[test]
fn a_start_delay_holds_a_job_back_from_its_group() {
    let dir = TempDir::new();
    let began = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let output = iospd()
        .args([
            "fio",
            "-Rjson",
            "--ioengine=psync",
            "--size=1m",
            "--number_ios=10",
        ])
        .args([
            "--name=now",
            "--filename=now.dat",
            "--name=later",
            "--filename=later.dat",
        ])
        .args(["--startdelay=1"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let reports: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let start = |i: usize| reports[i]["timespans"][0]["start_unix_s"].as_f64().unwrap();
    assert!(start(1) - began >= 1.0, "{} {began}", start(1));
    for (args, says) in [
        (&["--startdelay=1-5"][..], "a start drawn from a range"),
        (&["--startdelay=soon"], "startdelay=soon"),
    ] {
        let output = iospd()
            .args(["fio", "-Rp", "--name=j", "--size=1m"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
    }
}

/// Jobs that run together and share a file: it is laid out once, before either starts (started
/// together, both would create it and one would fail).
#[test]
fn jobs_of_a_group_sharing_a_file_lay_it_out_before_they_start() {
    let dir = TempDir::new();
    let mut job = String::from("[global]\nfilename=shared.dat\nsize=16m\nioengine=psync\n");
    for (name, rw) in [("a", "randread"), ("b", "read"), ("c", "randread")] {
        job.push_str(&format!("[{name}]\nrw={rw}\nnumber_ios=100\n"));
    }
    std::fs::write(dir.join("shared.fio"), job).unwrap();
    for round in 0..3 {
        let _ = std::fs::remove_file(dir.join("shared.dat"));
        let output = fio_in(&dir, &["-Rjson", "shared.fio"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "round {round}: {}",
            stderr(&output)
        );
        let reports: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(reports.as_array().map(Vec::len), Some(3));
        for report in reports.as_array().unwrap() {
            assert_eq!(
                report["timespans"][0]["measured"]["totals"]["read"]["ios"],
                100
            );
        }
        assert_eq!(
            std::fs::metadata(dir.join("shared.dat")).unwrap().len(),
            16 << 20
        );
    }
}

/// fio's command line, as fio reads it: `--key=value` and `--key value`, options before the
/// first `--name` as every job's defaults (job files' included), `--section`, `--output`.
#[test]
fn fio_command_lines_translate_as_fio_reads_them() {
    let lines = |args: &[&str]| {
        let output = iospd().arg("fio").arg("-Rp").args(args).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        stdout(&output)
            .lines()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        lines(&[
            "--name=t",
            "--ioengine=io_uring",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=32",
            "--size=1G",
            "--direct=1",
            "--numjobs=4",
            "--group_reporting",
            "--filename=/dev/sdz",
        ]),
        [
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=1073741824 -W0 -C0 -L -n -t4 -o32 -f1073741824 /dev/sdz"
        ]
    );
    // io_uring's own flags take no value, last on the line too.
    assert_eq!(
        lines(&[
            "--name=t",
            "--ioengine=io_uring",
            "--filename=/dev/sdz",
            "--fixedbufs",
            "--sqthread_poll",
            "--hipri",
        ]),
        [
            "iospd -b4096 -s -w0 -fs --invalidate --bytes=100% -W0 -C0 -L --sqpoll --iopoll -n -t1 -o1 /dev/sdz"
        ]
    );
    assert_eq!(
        lines(&[
            "--ioengine",
            "io_uring",
            "--direct",
            "1",
            "--name",
            "a",
            "--rw",
            "randread",
            "--filename",
            "/tmp/iospd-fio-a.dat",
            "--size",
            "8m",
            "--runtime=3",
            "--time_based",
            "--name=b",
            "--rw=write",
            "--filename=/tmp/iospd-fio-b.dat",
            "--size=4m",
        ]),
        [
            "iospd -b4096 -r --random-map -w0 -fr -Su -d3 -W0 -C0 -L -n -t1 -o1 -c8388608 --keep-existing /tmp/iospd-fio-a.dat",
            "iospd -b4096 -s -w100 -fs -Su --bytes=4194304 -W0 -C0 -L -Z1048576 -n -t1 -o1 -c4194304 --keep-existing /tmp/iospd-fio-b.dat",
        ]
    );
    // KDiskMark's: zero_buffers=0 (fio's default) beside refill_buffers; its layout job.
    assert_eq!(
        lines(&[
            "--output-format=json",
            "--ioengine=libaio",
            "--randrepeat=0",
            "--refill_buffers",
            "--end_fsync=1",
            "--direct=1",
            "--rwmixread=70",
            "--filename=/dev/sdz",
            "--name=SEQ1M",
            "--size=1024m",
            "--zero_buffers=0",
            "--bs=1m",
            "--rw=read",
            "--iodepth=8",
            "--numjobs=1",
            "--loops=5",
        ]),
        [
            "iospd -b1048576 -s -w0 -fs -Su --bytes=5368709120 -W0 -C0 -L -Zr -z -n -t1 -o8 -f1073741824 /dev/sdz"
        ]
    );
    assert_eq!(
        lines(&[
            "--create_only=1",
            "--filename=/tmp/iospd-fio-kdm.dat",
            "--size=8m",
            "--zero_buffers=0",
            "--name=prepare",
        ]),
        [
            "iospd -b4096 -s -w0 -fs --engine=psync --invalidate --bytes=8388608 -W0 -C0 -L -n -t1 -o1 -c8388608 --keep-existing --create-only /tmp/iospd-fio-kdm.dat"
        ]
    );
    // Every class and level fio sets (DiskSpd's -I1 and -I2 where they are the same).
    for (args, option) in [
        (["--prioclass=1", "--prio=0"], "--ioprio=rt:0"),
        (["--prioclass=2", "--prio=3"], "--ioprio=be:3"),
        (["--prioclass=3", "--prio=5"], "-I1"),
        (["--prioclass=0", "--prio=7"], "-I2"),
    ] {
        let line = lines(&[&["--name=p", "--filename=/dev/sdz"][..], &args].concat());
        assert!(
            line[0].split(' ').any(|a| a == option),
            "{args:?}: {line:?}"
        );
    }
    // nice and lockmem: the process's CPU priority, and fio's lock for each job of the process.
    assert_eq!(
        lines(&[
            "--name=n",
            "--filename=/dev/sdz",
            "--nice=-5",
            "--lockmem=1g",
            "--numjobs=2",
        ]),
        [
            "iospd -b4096 -s -w0 -fs --engine=psync --invalidate --bytes=100% -W0 -C0 -L -n -t2 -o1 --nice=-5 --lock-memory=2147483648 /dev/sdz"
        ]
    );
    // pre_read: the range read once before the job, through its own (here buffered) descriptor.
    let line = lines(&[
        "--name=p",
        "--filename=/dev/sdz",
        "--pre_read=1",
        "--invalidate=0",
    ]);
    assert!(line[0].split(' ').any(|a| a == "--pre-read"), "{line:?}");
    // nowait: RWF_NOWAIT on the engines that take it.
    let line = lines(&[
        "--name=w",
        "--filename=/dev/sdz",
        "--ioengine=io_uring",
        "--nowait=1",
    ]);
    assert!(line[0].split(' ').any(|a| a == "--nowait"), "{line:?}");
    // sqthread_poll_cpu binds the polling thread sqthread_poll starts; alone it does nothing.
    let line = lines(&[
        "--name=q",
        "--filename=/dev/sdz",
        "--ioengine=io_uring",
        "--sqthread_poll=1",
        "--sqthread_poll_cpu=1",
    ]);
    assert!(line[0].contains(" --sqpoll --sqpoll-cpu=1 "), "{line:?}");
    let line = lines(&[
        "--name=q",
        "--filename=/dev/sdz",
        "--ioengine=io_uring",
        "--sqthread_poll_cpu=1",
    ]);
    assert!(!line[0].contains("--sqpoll"), "{line:?}");
    // serialize_overlap: kept for writes at a depth above 1, off (as fio turns it) for reads.
    for (rw, kept) in [("randwrite", true), ("randread", false)] {
        let line = lines(&[
            "--name=o",
            "--filename=/dev/sdz",
            "--ioengine=io_uring",
            "--iodepth=16",
            &format!("--rw={rw}"),
            "--serialize_overlap=1",
        ]);
        assert_eq!(
            line[0].split(' ').any(|a| a == "--serialize-overlap"),
            kept,
            "{rw}: {line:?}"
        );
    }
    // fio's strided zones (disk-zone-profile.fio's shape).
    assert_eq!(
        lines(&[
            "--name=z",
            "--filename=/dev/sdz",
            "--rw=read",
            "--bs=64k",
            "--zonemode=strided",
            "--zonesize=256m",
            "--zoneskip=2g",
        ]),
        [
            "iospd -b65536 -s -w0 -fs --engine=psync --invalidate --zones=268435456:268435456:2147483648 --bytes=100% -W0 -C0 -L -n -t1 -o1 /dev/sdz"
        ]
    );
    // A default from the command line under a job file's own settings, one section kept.
    assert_eq!(
        lines(&[
            &corpus("size-bound.fio"),
            "--runtime=30",
            "--iodepth=4",
            "--section=region"
        ]),
        [
            "iospd -b4096 -r --random-map -w0 -fr -Su --bytes=67108864 -d30 -W0 -C0 -L -n -t1 -o16 -c67108864 --keep-existing /tmp/iospd-fio-region.dat"
        ]
    );
    for (args, says) in [
        (
            vec!["--name=t", "--bs"],
            "command line argument 2: --bs needs a value: --bs=<value>",
        ),
        (
            vec![
                "--name=t",
                "--size=1m",
                "--output-format=terse",
                "--terse-version=1",
            ],
            "fio's terse versions are 2, 3, 4 and 5",
        ),
        (
            vec!["--name=t", "--size=1m", "--output-format=json,normal"],
            "one format at a time",
        ),
        (
            vec!["--name=t", "--size=1m", "--output-format=xml"],
            "not one of fio's formats",
        ),
        (vec!["-x", "--name=t"], "'-x' is not an option of iospd fio"),
        (vec!["--rw=read"], "give a job file or a job"),
        (
            vec![
                "--name=p",
                "--create_only=1",
                "--filename=/dev/sdz",
                "--size=1m",
            ],
            "create_only=1: the job's targets are devices",
        ),
        (
            vec!["--name=z", "--filename=/dev/sdz", "--zonesize=1m"],
            "zonesize=1m: a zone size with zonemode=none (fio's default), which fio rejects; closest in iospd: zonemode=strided",
        ),
        (
            vec!["--name=n", "--filename=/dev/sdz", "--nice=20"],
            "nice=20: '20': fio's nice is -20 to 19",
        ),
        (
            vec![
                "--name=p",
                "--filename=/dev/sdz",
                "--ioengine=null",
                "--pre_read=1",
            ],
            "pre_read=1: the null engine moves no data to read ahead; closest in iospd: pre_read=0",
        ),
        (
            vec![
                "--name=w",
                "--filename=/dev/sdz",
                "--ioengine=psync",
                "--nowait=1",
            ],
            "nowait=1: an option of fio's io_uring, libaio and pvsync2 engines, not of psync",
        ),
        (
            vec![
                "--name=h",
                "--filename=/dev/sdz",
                "--write_bw_log=b",
                "--log_avg_msec=500",
                "--write_hist_log=h",
                "--log_hist_msec=100",
            ],
            "log_hist_msec=100: a histogram interval other than the other logs' 500 ms",
        ),
        (
            vec!["--name=z", "--filename=/dev/sdz", "--zonemode=zbd"],
            "zonemode=zbd: zoned block devices",
        ),
        (
            vec![
                "--name=t",
                "--filename=/dev/sdz",
                "--ioengine=io_uring",
                "--iodepth=8",
                "--thinktime=1000",
            ],
            "thinktime=1000: think time at iodepth=8: fio drains every I/O in flight before each pause",
        ),
        (
            vec![
                "--name=z",
                "--filename=/tmp/iospd-fio-z.dat",
                "--size=8m",
                "--zonemode=strided",
                "--zonesize=64k",
                "--zonerange=128k",
                "--zoneskip=892k",
            ],
            "leave a last window that does not fit whole",
        ),
        (
            vec!["--name=t", "--size=1m", "--rw=write", "--readonly"],
            "--readonly",
        ),
    ] {
        let output = iospd().arg("fio").args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        let err = stderr(&output);
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_fio_command_line_runs_and_writes_its_output_file() {
    let dir = TempDir::new();
    let output = iospd()
        .args([
            "fio",
            "--name=once",
            "--ioengine=psync",
            "--filename=t.dat",
            "--size=1m",
            "--rw=randread",
            "--output=out.txt",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    let text = std::fs::read_to_string(dir.join("out.txt")).unwrap();
    let read = crate::util::totals(&text, "Read IO");
    assert_eq!((read.ios, read.bytes), (256, 1 << 20), "{text}");
}

/// `create_only` (KDiskMark's first step): the job's file is laid out and nothing is measured;
/// its entry is fio's entry of zeros, and `--create-only -Rjson` a report with no timespan.
#[test]
fn a_create_only_job_lays_out_its_file_and_measures_nothing() {
    let dir = TempDir::new();
    let file = dir.arg("k.dat");
    let output = iospd()
        .args([
            "fio",
            "--output-format=json",
            "--create_only=1",
            "--zero_buffers=0",
        ])
        .args(["--name=prepare", &format!("--filename={file}"), "--size=1m"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 1 << 20);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let job = &doc["jobs"][0];
    assert_eq!(job["jobname"], "prepare");
    for dir in ["read", "write"] {
        assert_eq!(job[dir]["io_bytes"], 0, "{job}");
        assert_eq!(job[dir]["total_ios"], 0, "{job}");
    }
    let own = iospd()
        .args(["-c2M", "--create-only", "-Rjson", &dir.arg("own.dat")])
        .output()
        .unwrap();
    assert_eq!(own.status.code(), Some(0), "{}", stderr(&own));
    crate::util::validate_json(&stdout(&own));
    let report: serde_json::Value = serde_json::from_str(&stdout(&own)).unwrap();
    assert_eq!(report["timespans"], serde_json::json!([]));
    assert_eq!(
        std::fs::metadata(dir.join("own.dat")).unwrap().len(),
        2 << 20
    );
}
