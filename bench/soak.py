#!/usr/bin/env python3
"""Constant memory over a long run: iospd runs for 10 minutes with 1 s intervals, the time series,
the interval log and the per-I/O trace all on, and its resident memory (VmRSS) is recorded every
10 s. The growth after the first minute must stay under 1 MiB.

Workload: 4 KiB random 70/30 reads/writes, 2 threads × 8 outstanding, paced at 10,000 IOPS per
thread so the trace stays a few hundred MB, on a 1 GiB test file in a temporary directory.

Usage: bench/soak.py [--iospd PATH] [--seconds 600] [--dir DIR] [--save]
"""

import argparse
import datetime
import os
import subprocess
import tempfile
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="iospd-soak", dir=args.dir)
    target = os.path.join(work, "soak.dat")
    command = [
        args.iospd, "-c1G", f"-d{args.seconds}", "-W0", "-b4K", "-t2", "-o8", "-r", "-w30",
        "-Sh", "-L", "-D1000", "-g10000i", "--quiet",
        f"--timeseries={work}/ts.csv", f"--histlog={work}/run.hlog", f"--trace={work}/run.trace",
        f"--output={work}/run.json", target,
    ]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Creating the 1 GiB file takes a moment; sample from the start of the measured window.
    while not os.path.exists(f"{work}/ts.csv") or os.path.getsize(f"{work}/ts.csv") == 0:
        time.sleep(0.1)
    start = time.monotonic()
    samples = []
    while child.poll() is None:
        elapsed = time.monotonic() - start
        rss = rss_kib(child.pid)
        if rss is not None:
            samples.append((elapsed, rss))
        time.sleep(10 - (time.monotonic() - start) % 10)
    err = child.stderr.read()
    after_minute = [rss for t, rss in samples if t >= 60]
    growth = (max(after_minute) - after_minute[0]) if after_minute else 0
    trace = os.path.getsize(f"{work}/run.trace")
    rows = sum(1 for _ in open(f"{work}/ts.csv")) - 1
    lines = [
        f"# Soak: memory over {args.seconds} s ({datetime.datetime.now():%Y-%m-%d %H:%M})",
        "",
        "`" + " ".join(command).replace(work, "$DIR") + "`",
        "",
        f"exit status {child.returncode}; {rows} time-series rows; trace {trace / 1e6:.0f} MB; {err.strip()}",
        "",
        "| elapsed s | VmRSS KiB |",
        "|---:|---:|",
    ]
    lines += [f"| {t:.0f} | {rss} |" for t, rss in samples]
    lines += [
        "",
        f"RSS growth after the first minute: {growth} KiB (limit 1024 KiB): {'PASS' if growth < 1024 else 'FAIL'}",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(os.path.dirname(__file__), "runs", f"{stamp}-soak.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"saved {path}")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
