#!/usr/bin/env python3
"""What the device clock costs a run: the same workload with the clock as it runs by default
(every request up to 40,000 a second, a random sample above), with every request timed
(--device-clock=every) and with --no-device-clock, side by side, on a loop device over a file in /dev/shm (the fastest request-based
device this machine has, so each request's cost shows).

Workload: 4 KiB random O_DIRECT reads, one thread at queue depth 32, measured after 1 s of
warm-up. The three variants alternate within each round, in a rotated order; the table gives the
median IOPS of each, the spread over the rounds ((max - min) / median: the noise here), and the
cost as the median of each round's clock / no-clock ratio with its quartiles (pairing the two
runs of a round cancels the slow drifts of a shared machine, which move both).

A loop device completes its requests on its worker's CPU, usually not the one that issued them,
so each request's issue stamp passes from one CPU's cache to another's. `--one-cpu` measures the
programs alone: it confines the kernel's unbound workqueues (the loop worker's) to CPU 0, where
iospd's thread runs, for the length of the run, and restores their mask after.

Needs root (a loop device, the clock's BPF programs); the loop device and its file are removed,
and the workqueue mask restored, whatever happens.

Usage (root): bench/device_clock_cost.py [--iospd PATH] [--rounds N] [--seconds S] [--one-cpu]
"""

import argparse
import json
import os
import statistics
import subprocess


def run(iospd, device, seconds, extra):
    out = subprocess.run(
        [iospd, "-b4K", "-r", "-o32", "-t1", "-Sh", "-W1", f"-d{seconds}", "-Rjson", *extra, device],
        capture_output=True, text=True, check=True,
    ).stdout
    ts = json.loads(out)["timespans"][0]["measured"]
    reality = ts["reality"]
    timed = [t.get("clock", {}).get("requests") for d in reality["devices"] for t in d.get("time", [])]
    return ts["totals"]["total"]["ios_per_s"], timed, reality.get("clock_off")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--one-cpu", action="store_true")
    args = parser.parse_args()
    mask_file = "/sys/devices/virtual/workqueue/cpumask"
    mask = None
    if args.one_cpu:
        with open(mask_file) as f:
            mask = f.read().strip()
    backing = f"/dev/shm/iospd-clock-cost-{os.getpid()}"
    with open(backing, "wb") as f:
        f.truncate(256 << 20)
    device = None
    try:
        if mask is not None:
            with open(mask_file, "w") as f:
                f.write("1")
        device = subprocess.run(
            ["losetup", "-f", "--show", backing], capture_output=True, text=True, check=True
        ).stdout.strip()
        flags = {
            "sampled": [],
            "every": ["--device-clock=every"],
            "no clock": ["--no-device-clock"],
        }
        variants = {name: [] for name in flags}
        names = list(flags)
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                iops, timed, off = run(args.iospd, device, args.seconds, flags[name])
                if name != "no clock" and (off or not any(timed)):
                    raise SystemExit(f"the clock did not run: {off}")
                variants[name].append(iops)
                print(f"round {r + 1} {name:>8}: {iops:10.0f} IOPS" + (f", timed {timed}" if name != "no clock" else ""))
        print(f"\n{'variant':>9} {'median IOPS':>12} {'spread':>8}")
        med = {}
        for name, values in variants.items():
            med[name] = statistics.median(values)
            spread = (max(values) - min(values)) / med[name] * 100
            print(f"{name:>9} {med[name]:12.0f} {spread:7.1f}%")
        for name in ["sampled", "every"]:
            ratios = [c / n for c, n in zip(variants[name], variants["no clock"])]
            q1, q2, q3 = statistics.quantiles(ratios, n=4)
            print(f"{name} / no clock, paired by round: median {q2:.3f} (quartiles {q1:.3f}-{q3:.3f})")
    finally:
        if mask is not None:
            with open(mask_file, "w") as f:
                f.write(mask)
        if device:
            subprocess.run(["losetup", "-d", device], check=False)
        os.unlink(backing)


if __name__ == "__main__":
    main()
