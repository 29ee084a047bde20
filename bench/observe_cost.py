#!/usr/bin/env python3
"""What watching a run costs: iospd alone, with the time series and interval log, and with the
per-I/O trace, on the same target in one run.

Workload: 4 KiB random reads, O_DIRECT, one thread, queue depth 32, 5 s measured after 1 s of
warm-up, on /dev/zram0 (CPU-bound, so any cost shows). The variants alternate within each round;
the table reports median IOPS and the ratio to the plain run.

Usage: bench/observe_cost.py [--iospd PATH] [--rounds N] [--seconds S] [--target DEV] [--save]
"""

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import tempfile


def iops(iospd, target, seconds, extra):
    out = subprocess.run(
        [iospd, f"-d{seconds}", "-W1", "-b4K", "-o32", "-r", "-Su", "-Rjson", "--quiet", *extra, target],
        check=True, capture_output=True, text=True,
    )
    report = json.loads(out.stdout)
    timespan = report["timespans"][0]
    dropped = (timespan.get("trace") or {}).get("dropped", 0)
    return timespan["measured"]["totals"]["total"]["ios_per_s"], dropped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--target", default="/dev/zram0")
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="iospd-cost")
    variants = {
        "plain": [],
        "timeseries+histlog (1 s)": [f"--timeseries={work}/ts.csv", f"--histlog={work}/h.hlog"],
        "trace (binary)": [f"--trace={work}/t.trace"],
        "trace (CSV)": [f"--trace={work}/t.csv"],
    }
    results = {name: [] for name in variants}
    drops = {name: 0 for name in variants}
    for _ in range(args.rounds):
        for name, extra in variants.items():
            value, dropped = iops(args.iospd, args.target, args.seconds, extra)
            results[name].append(value)
            drops[name] += dropped
    base = statistics.median(results["plain"])
    lines = [
        f"# Cost of observing a run ({datetime.datetime.now():%Y-%m-%d %H:%M})",
        "",
        f"`{args.iospd} -d{args.seconds} -W1 -b4K -o32 -r -Su [options] {args.target}`, {args.rounds} rounds, medians.",
        "",
        "| variant | IOPS | vs plain | trace records dropped |",
        "|---|---:|---:|---:|",
    ]
    for name, values in results.items():
        median = statistics.median(values)
        lines.append(f"| {name} | {median:,.0f} | {median / base:.3f} | {drops[name]} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(os.path.dirname(__file__), "runs", f"{stamp}-observe-cost.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"saved {path}")


if __name__ == "__main__":
    main()
