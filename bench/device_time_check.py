#!/usr/bin/env python3
"""Checks iospd's "where the time went" device figures against the block layer's own events.

Runs `iospd -Rjson <args>` (give -W0 -C0 so its window is the whole run) while a tracefs
instance of this script's own records block_rq_insert, block_rq_issue and block_rq_complete of
the target's device, then prints, per direction, the device's mean time per request as iospd
reported it (from /sys/block/<dev>/stat) beside the same mean computed here from the events:
issue -> complete (the driver and the device: blktrace's D2C) and, where the I/O scheduler
inserted the request, insert -> complete (the scheduler's queue too). When iospd's device clock
ran, its count, mean, p50, p99 and p99.9 of each request's time on the device are set beside the
same figures from the events, and each is judged: it agrees within 2 % (or 1 us). The instance is removed
and tracefs unmounted (if this script mounted it) whatever happens.

Usage (root): bench/device_time_check.py <iospd> <device, e.g. vda> -- <iospd run arguments>
"""
import json
import math
import os
import re
import subprocess
import sys

TRACEFS = "/sys/kernel/tracing"
EVENT = re.compile(
    r"\s(\d+\.\d+): (block_rq_insert|block_rq_issue|block_rq_complete): (\d+),(\d+) (\S+) .*?(\d+) \+ (\d+)"
)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    iospd, device = sys.argv[1], sys.argv[2]
    args = sys.argv[sys.argv.index("--") + 1:]
    major, minor = open(f"/sys/class/block/{device}/dev").read().strip().split(":")
    dev_t = (int(major) << 20) | int(minor)
    mounted = False
    if not os.path.exists(f"{TRACEFS}/instances"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
        mounted = True
    instance = f"{TRACEFS}/instances/iospd-check-{os.getpid()}"
    os.mkdir(instance)
    try:
        write(f"{instance}/trace_clock", "mono")
        # Per CPU: enough for a few million events; the whole capture is read at the end.
        write(f"{instance}/buffer_size_kb", "262144")
        for event in ("block_rq_insert", "block_rq_issue", "block_rq_complete"):
            write(f"{instance}/events/block/{event}/filter", f"dev == {dev_t}")
            write(f"{instance}/events/block/{event}/enable", "1")
        run = subprocess.run([iospd, "-Rjson", *args], capture_output=True, text=True)
        for event in ("block_rq_insert", "block_rq_issue", "block_rq_complete"):
            write(f"{instance}/events/block/{event}/enable", "0")
        lost = 0
        for cpu in os.listdir(f"{instance}/per_cpu"):
            for line in open(f"{instance}/per_cpu/{cpu}/stats"):
                if line.startswith("overrun:"):
                    lost += int(line.split()[1])
        if lost:
            sys.exit(f"the trace buffer lost {lost} events: run shorter")
        with open(f"{instance}/trace") as f:
            lines = [line for line in f if not line.startswith("#")]
    finally:
        try:
            os.rmdir(instance)
        except OSError:
            pass
        if mounted:
            subprocess.run(["umount", TRACEFS], check=False)
    if run.returncode != 0:
        sys.exit(f"iospd failed: {run.stderr}")
    report = json.loads(run.stdout)
    # Match each completion with its issue (and insert) by sector and direction.
    pending = {}
    inserted = {}
    d2c = {"read": [], "write": []}
    q2c = {"read": [], "write": []}
    events = sorted((m for m in map(EVENT.search, lines) if m), key=lambda m: float(m.group(1)))
    for m in events:
        at, event, rwbs = float(m.group(1)), m.group(2), m.group(5)
        sector = int(m.group(6))
        direction = "write" if "W" in rwbs else "read" if "R" in rwbs else None
        if direction is None:
            continue
        key = (direction, sector)
        # A request issued again (after a requeue: the driver had no room) replaces its first
        # issue; a completion takes its own request's.
        if event == "block_rq_insert":
            inserted[key] = at
        elif event == "block_rq_issue":
            pending[key] = at
        elif key in pending:
            d2c[direction].append(at - pending.pop(key))
            if key in inserted:
                q2c[direction].append(at - inserted.pop(key))
    reality = report["timespans"][0]["measured"]["reality"]
    said = {t["direction"]: t for d in reality["devices"] if d["device"] == device for t in d.get("time", [])}
    failed = False
    for direction in ("read", "write"):
        if not d2c[direction]:
            continue
        mean = sum(d2c[direction]) / len(d2c[direction]) * 1e9
        line = f"{direction}: tracefs issue->complete {len(d2c[direction])} requests, mean {mean / 1e3:.2f} us"
        if q2c[direction]:
            qmean = sum(q2c[direction]) / len(q2c[direction]) * 1e9
            line += f"; insert->complete {len(q2c[direction])} requests, mean {qmean / 1e3:.2f} us"
        t = said.get(direction)
        if t:
            line += (
                f"; iospd (/sys/block stat) {t['requests']} requests, device {t['device_mean_ns'] / 1e3:.2f} us"
                f" ({(t['device_mean_ns'] / mean - 1) * 100:+.2f}% against issue->complete),"
                f" iospd {t['iospd_mean_ns'] / 1e3:.2f} us, stack {t['stack_mean_ns'] / 1e3:.2f} us"
            )
        print(line)
        clock = t and t.get("clock")
        if not clock:
            print(f"{direction}: iospd's device clock did not run: {reality.get('clock_off')}")
            continue
        times = sorted(x * 1e9 for x in d2c[direction])
        ranked = lambda q: times[max(1, math.ceil(q / 100 * len(times) - 1e-9)) - 1]
        print(f"{direction}: device clock {clock['requests']} requests, tracefs {len(times)}")
        for name, ours, theirs in (
            ("mean", clock["device"]["mean_ns"], mean),
            ("p50", clock["device"]["p50_ns"], ranked(50)),
            ("p99", clock["device"]["p99_ns"], ranked(99)),
            ("p99.9", clock["device"]["p99_9_ns"], ranked(99.9)),
        ):
            apart = abs(ours - theirs)
            agree = apart <= 1000 or apart <= 0.02 * theirs
            failed |= not agree
            print(
                f"  {name:>5}: clock {ours / 1e3:9.2f} us, tracefs {theirs / 1e3:9.2f} us,"
                f" {(ours / theirs - 1) * 100:+6.2f}% {'agrees' if agree else 'DISAGREES'}"
            )
        stack = clock["stack"]
        print(
            f"  the stack above the device: mean {stack['mean_ns'] / 1e3:.2f} us, p50 {stack['p50_ns'] / 1e3:.2f} us,"
            f" p99 {stack['p99_ns'] / 1e3:.2f} us, p99.9 {stack['p99_9_ns'] / 1e3:.2f} us"
        )
    if failed:
        sys.exit(1)

if __name__ == "__main__":
    main()
