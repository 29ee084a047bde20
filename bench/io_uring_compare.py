#!/usr/bin/env python3
"""iospd against the kernel's own io_uring test tool, fio's t/io_uring, in one run.

Workload: 4 KiB random buffered reads at queue depth 32 from a file that is entirely in the page
cache, one thread. There the reads complete without a device, so what is measured is the cost of
each tool per I/O: t/io_uring is the floor (`t/io_uring -p0 -O0 -d32 -s8 -c8 -b4096`, registered
files and buffers, batches of 8). iospd runs `-b4K -o32 -r -Sb` (DiskSpd's buffered default).

t/io_uring is built from a fio source tree into a temporary directory, never kept: give the tree
with --fio-src, or the script fetches Debian's with `apt-get source fio` (which needs a deb-src
line in the apt sources). The two tools alternate, each round `--seconds` long; the table reports
the medians, the ratio of the medians and the median of each round's ratio. With --save the
results go to bench/runs/.

Usage: bench/io_uring_compare.py [--iospd PATH] [--fio-src DIR] [--rounds N] [--seconds S] [--save]
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import tempfile

FILE_SIZE = 256 << 20


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def build_t_io_uring(fio_src, work):
    """Copies the fio tree to `work` and builds t/io_uring there; returns the binary."""
    if fio_src is None:
        sh("apt-get", "source", "-qq", "fio", cwd=work)
        fio_src = next(os.path.join(work, d) for d in os.listdir(work)
                       if d.startswith("fio-") and os.path.isdir(os.path.join(work, d)))
    tree = os.path.join(work, "fio-build")
    shutil.copytree(fio_src, tree, symlinks=True)
    sh("./configure", cwd=tree)
    sh("make", "-j2", "t/io_uring", cwd=tree)
    version = sh("sh", "-c", "grep -m1 FIO_VERSION FIO-VERSION-FILE || true", cwd=tree).strip()
    return os.path.join(tree, "t", "io_uring"), version or os.path.basename(fio_src.rstrip("/"))


def cached_file(directory):
    path = os.path.join(directory, "iospd-cached.dat")
    sh("dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={FILE_SIZE >> 20}", "status=none")
    with open(path, "rb") as f:  # every page in the cache
        while f.read(1 << 20):
            pass
    return path


def run_iospd(binary, target, seconds):
    out = sh(binary, "-b4K", "-o32", "-t1", "-r", "-Sb", f"-d{seconds}", "-W1", "-Rjson",
             "--quiet", target)
    return json.loads(out)["timespans"][0]["measured"]["totals"]["total"]["ios_per_s"]


def run_t_io_uring(binary, target, seconds):
    # One second more than measured: the first line is the ramp and is left out.
    out = subprocess.run([binary, "-p0", "-O0", "-d32", "-s8", "-c8", "-b4096", "-n1",
                          f"-r{seconds + 1}", target], capture_output=True, text=True).stdout
    rates = []
    for m in re.finditer(r"IOPS=([0-9.]+)([KM]?)", out):
        scale = {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
        rates.append(float(m.group(1)) * scale)
    if len(rates) < 2:
        raise RuntimeError(f"t/io_uring printed no rates:\n{out}")
    return statistics.mean(rates[1:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--fio-src")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="iospd-bench-") as work:
        t_io_uring, fio_version = build_t_io_uring(args.fio_src, work)
        target = cached_file(work)
        # An iospd test file may be read by anyone; marking is for writes, which this run has none.
        iospd, kernel = [], []
        for round_ in range(args.rounds):
            order = [("iospd", run_iospd, args.iospd), ("t/io_uring", run_t_io_uring, t_io_uring)]
            if round_ % 2:
                order.reverse()
            for name, run, binary in order:
                rate = run(binary, target, args.seconds)
                (iospd if name == "iospd" else kernel).append(rate)
                print(f"round {round_ + 1} {name}: {rate:,.0f} IOPS", flush=True)
    ratio = statistics.median(iospd) / statistics.median(kernel)
    # Each round's two runs follow each other, so their ratio is the least touched by drift.
    paired = statistics.median(a / b for a, b in zip(iospd, kernel))
    lines = [
        "# iospd against t/io_uring: 4 KiB random buffered reads, QD32, page-cached file",
        "",
        f"`python3 bench/io_uring_compare.py --rounds {args.rounds} --seconds {args.seconds}`"
        f" on {platform.node()} ({os.cpu_count()} CPUs, Linux {platform.release()}),"
        f" {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; t/io_uring from {fio_version}.",
        "",
        "- iospd: `iospd -b4K -o32 -t1 -r -Sb -d{s} -W1` on a 256 MiB file read into the page cache first",
        "- t/io_uring: `t/io_uring -p0 -O0 -d32 -s8 -c8 -b4096 -n1 -r{s1}` (first second left out)",
        "",
        "| tool | median IOPS | rounds |",
        "|---|---:|---|",
        f"| iospd | {statistics.median(iospd):,.0f} | {', '.join(f'{r:,.0f}' for r in iospd)} |",
        f"| t/io_uring | {statistics.median(kernel):,.0f} | {', '.join(f'{r:,.0f}' for r in kernel)} |",
        "",
        f"iospd ÷ t/io_uring: **{ratio:.3f}** (ratio of the medians); {paired:.3f} (median of each"
        " round's ratio, the two runs of a round being back to back)",
    ]
    text = "\n".join(lines).replace("{s}", str(args.seconds)).replace("{s1}", str(args.seconds + 1))
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(os.path.dirname(__file__), "runs", f"{stamp}-io-uring-compare.md")
        with open(path, "w") as f:
            f.write(text + "\n")
        print(f"saved {path}")


if __name__ == "__main__":
    main()
