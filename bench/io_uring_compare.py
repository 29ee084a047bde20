#!/usr/bin/env python3
"""iospd against the kernel's own io_uring test tool, fio's t/io_uring, in one run.

Workload: 4 KiB random buffered reads at queue depth 32 from a file that is entirely in the page
cache, one thread. There the reads complete without a device, so what is measured is the cost of
each tool per I/O: t/io_uring is the floor (`t/io_uring -p0 -O0 -d32 -s8 -c8 -b4096`, registered
files and buffers, batches of 8). iospd runs `-b4K -o32 -r -Sb` (DiskSpd's buffered default).
With --zram MIB the target is instead a fresh zram device of that size, written whole with random
bytes first (unwritten zram reads back without work), read with O_DIRECT (`-Sh`, `-O1`); it is
removed afterwards.

--iospd may be given more than once, as LABEL=PATH (for example a build before and after a
change): every binary runs in every round, in an order that rotates, against the same t/io_uring.

t/io_uring is built from a fio source tree into a temporary directory, never kept: give the tree
with --fio-src, or the script fetches Debian's with `apt-get source fio` (which needs a deb-src
line in the apt sources). The two tools alternate, each round `--seconds` long; the table reports
the medians, the ratio of the medians and the median of each round's ratio. With --save the
results go to bench/runs/.

Usage: bench/io_uring_compare.py [--iospd [LABEL=]PATH]... [--zram MIB] [--fio-src DIR]
                                 [--rounds N] [--seconds S] [--save]
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


def zram_device(mib):
    """A fresh zram device of `mib` MiB (lzo-rle), written whole with random bytes."""
    index = int(open("/sys/class/zram-control/hot_add").read())
    sysfs = f"/sys/block/zram{index}"
    with open(f"{sysfs}/disksize", "w") as f:
        f.write(f"{mib}M")
    device = f"/dev/zram{index}"
    sh("dd", "if=/dev/urandom", f"of={device}", "bs=1M", f"count={mib}", "oflag=direct",
       "status=none")
    return device, index


def remove_zram(index):
    with open(f"/sys/block/zram{index}/reset", "w") as f:
        f.write("1")
    with open("/sys/class/zram-control/hot_remove", "w") as f:
        f.write(str(index))


def run_iospd(binary, target, seconds, direct):
    out = sh(binary, "-b4K", "-o32", "-t1", "-r", "-Sh" if direct else "-Sb", f"-d{seconds}",
             "-W1", "-Rjson", "--quiet", target)
    return json.loads(out)["timespans"][0]["measured"]["totals"]["total"]["ios_per_s"]


def run_t_io_uring(binary, target, seconds, direct):
    # One second more than measured: the first line is the ramp and is left out.
    out = subprocess.run([binary, "-p0", "-O1" if direct else "-O0", "-d32", "-s8", "-c8",
                          "-b4096", "-n1", f"-r{seconds + 1}", target],
                         capture_output=True, text=True).stdout
    rates = []
    for m in re.finditer(r"IOPS=([0-9.]+)([KM]?)", out):
        scale = {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
        rates.append(float(m.group(1)) * scale)
    if len(rates) < 2:
        raise RuntimeError(f"t/io_uring printed no rates:\n{out}")
    return statistics.mean(rates[1:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", action="append")
    parser.add_argument("--zram", type=int, metavar="MIB")
    parser.add_argument("--fio-src")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    binaries = [b.split("=", 1) if "=" in b else ["iospd", b]
                for b in args.iospd or ["target/release/iospd"]]
    rates = {label: [] for label, _ in binaries}
    rates["t/io_uring"] = []
    direct = args.zram is not None
    with tempfile.TemporaryDirectory(prefix="iospd-bench-") as work:
        t_io_uring, fio_version = build_t_io_uring(args.fio_src, work)
        zram = None
        if direct:
            target, zram = zram_device(args.zram)
        else:
            target = cached_file(work)
        try:
            tools = [(label, run_iospd, path) for label, path in binaries]
            tools.append(("t/io_uring", run_t_io_uring, t_io_uring))
            for round_ in range(args.rounds):
                shift = round_ % len(tools)
                for name, run, binary in tools[shift:] + tools[:shift]:
                    rate = run(binary, target, args.seconds, direct)
                    rates[name].append(rate)
                    print(f"round {round_ + 1} {name}: {rate:,.0f} IOPS", flush=True)
        finally:
            if zram is not None:
                remove_zram(zram)
    kernel = rates["t/io_uring"]
    if direct:
        title = f"4 KiB random O_DIRECT reads, QD32, a {args.zram} MiB zram device written whole"
        workload = [
            f"- iospd: `iospd -b4K -o32 -t1 -r -Sh -d{{s}} -W1` on /dev/zramN ({args.zram} MiB,"
            " lzo-rle, written whole with random bytes first)",
            "- t/io_uring: `t/io_uring -p0 -O1 -d32 -s8 -c8 -b4096 -n1 -r{s1}` (first second left out)",
        ]
        flag = f" --zram {args.zram}"
    else:
        title = "4 KiB random buffered reads, QD32, page-cached file"
        workload = [
            "- iospd: `iospd -b4K -o32 -t1 -r -Sb -d{s} -W1` on a 256 MiB file read into the page"
            " cache first",
            "- t/io_uring: `t/io_uring -p0 -O0 -d32 -s8 -c8 -b4096 -n1 -r{s1}` (first second left out)",
        ]
        flag = ""
    labels = " ".join(f"--iospd {label}=…" for label, _ in binaries) if len(binaries) > 1 else ""
    lines = [
        f"# iospd against t/io_uring: {title}",
        "",
        f"`python3 bench/io_uring_compare.py{flag} {labels} --rounds {args.rounds}"
        f" --seconds {args.seconds}` on {platform.node()} ({os.cpu_count()} CPUs,"
        f" Linux {platform.release()}), {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')};"
        f" t/io_uring from {fio_version}.",
        "",
        *workload,
        "",
        "| tool | median IOPS | rounds |",
        "|---|---:|---|",
    ]
    for name, values in rates.items():
        lines.append(f"| {name} | {statistics.median(values):,.0f} |"
                     f" {', '.join(f'{r:,.0f}' for r in values)} |")
    lines.append("")
    for label, _ in binaries:
        ratio = statistics.median(rates[label]) / statistics.median(kernel)
        # Each round's runs follow each other, so their ratio is the least touched by drift.
        paired = statistics.median(a / b for a, b in zip(rates[label], kernel))
        lines.append(f"- {label} ÷ t/io_uring: **{ratio:.3f}** (ratio of the medians); {paired:.3f}"
                     " (median of each round's ratio, the runs of a round being back to back)")
    text = "\n".join(lines).replace("{s}", str(args.seconds)).replace("{s1}", str(args.seconds + 1))
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        kind = "zram" if direct else "page-cache"
        path = os.path.join(os.path.dirname(__file__), "runs",
                            f"{stamp}-io-uring-compare-{kind}.md")
        with open(path, "w") as f:
            f.write(text + "\n")
        print(f"saved {path}")


if __name__ == "__main__":
    main()
