#!/usr/bin/env python3
"""What --verify costs: 4 KiB random 70/30 at queue depth 32, one thread, with and without
--verify, alternating in one run, on two targets where the tool's own cost shows:

1. a 256 MiB file entirely in the page cache, buffered (`-Sb`);
2. /dev/zram0 when present (1 GiB, written in full first so no read is of an unwritten slot),
   unbuffered (`-Sh`).

The fair baseline writes from a 1 MiB random buffer (`-Z1M`), so both sides write incompressible
data: zram compresses DiskSpd's default 0..255 pattern for almost nothing, which flatters a run
without --verify (that ratio is shown too). Each round runs all three for `--seconds`; the table reports the medians and the median of each
round's ratio (with / without). The release build is made by the script. With --save the results
go to bench/runs/.

Usage: bench/verify_cost.py [--rounds N] [--seconds S] [--targets cached,zram] [--save]
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD = ["-b4K", "-r", "-w30", "-o32", "-t1", "-W1"]


def sh(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def iops(exe, extra, target, seconds):
    out = sh(exe, *WORKLOAD, f"-d{seconds}", *extra, "-Rjson", target)
    ts = json.loads(out)["timespans"][0]
    v = ts.get("verify")
    if v is not None:
        failed = sum(v["failed"].values())
        assert failed == 0, f"--verify found {failed} bad blocks on {target}"
    return ts["measured"]["totals"]["total"]["ios_per_s"], v


def compare(exe, name, target, cache, rounds, seconds):
    runs = {"pattern": [], "random": [], "verify": []}
    ratios = {"pattern": [], "random": []}
    counts = None
    for _ in range(rounds):
        a, _ = iops(exe, [cache], target, seconds)
        b, _ = iops(exe, [cache, "-Z1M"], target, seconds)
        c, counts = iops(exe, [cache, "--verify"], target, seconds)
        for key, value in [("pattern", a), ("random", b), ("verify", c)]:
            runs[key].append(value)
        ratios["pattern"].append(c / a)
        ratios["random"].append(c / b)
    med = {k: statistics.median(v) for k, v in runs.items()}
    row = (f"| {name} | {med['pattern']:,.0f} | {med['random']:,.0f} | {med['verify']:,.0f} | "
           f"{statistics.median(ratios['random']):.3f} "
           f"({min(ratios['random']):.3f}–{max(ratios['random']):.3f}) | "
           f"{statistics.median(ratios['pattern']):.3f} |")
    note = (f"{name}: last --verify round wrote {counts['written']:,} blocks, verified "
            f"{counts['verified']:,}, skipped {counts['skipped']:,}, failed 0")
    return row, note


def zram():
    if not os.path.exists("/sys/block/zram0"):
        return None
    try:
        with open("/sys/block/zram0/reset", "w") as f:
            f.write("1")
        with open("/sys/block/zram0/disksize", "w") as f:
            f.write("1G")
        sh("dd", "if=/dev/urandom", "of=/dev/zram0", "bs=1M", "count=1024", "oflag=direct")
        return "/dev/zram0"
    except (OSError, subprocess.CalledProcessError):
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--targets", default="cached,zram",
                        help="which of cached,zram to measure")
    args = parser.parse_args()
    sh("cargo", "build", "--release", "--quiet")
    exe = os.path.join(ROOT, "target", "release", "iospd")
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as work:
        cached = os.path.join(work, "cached.dat")
        sh(exe, "-c256M", "-d1", "-W0", "-Sb", cached)
        with open(cached, "rb") as f:
            while f.read(1 << 20):
                pass
        chosen = args.targets.split(",")
        for key, name, target, cache in [
                ("cached", "page-cached file, -Sb", cached, "-Sb"),
                ("zram", "zram, -Sh", zram() if "zram" in chosen else None, "-Sh")]:
            if key not in chosen:
                continue
            if target is None:
                notes.append(f"{name}: skipped, no /dev/zram0 here")
                continue
            row, note = compare(exe, name, target, cache, args.rounds, args.seconds)
            rows.append(row)
            notes.append(note)
    commit = sh("git", "-C", ROOT, "rev-parse", "--short", "HEAD").strip()
    text = "\n".join([
        f"# --verify cost ({datetime.date.today()}, {platform.node()}, {os.cpu_count()} CPUs, "
        f"commit {commit})",
        "",
        f"`bench/verify_cost.py --rounds {args.rounds} --seconds {args.seconds} "
        f"--targets {args.targets}`: "
        f"`iospd {' '.join(WORKLOAD)} -d{args.seconds}` with DiskSpd's default write pattern, with `-Z1M` (incompressible writes, what --verify writes too) and with `--verify`, alternating.",
        "",
        "| target | IOPS, default pattern | IOPS, -Z1M | IOPS, --verify | ratio to -Z1M, median (range) | ratio to pattern |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        *[f"- {n}" for n in notes],
        "",
    ])
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        with open(os.path.join(ROOT, "bench", "runs", f"{stamp}-verify-cost.md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
