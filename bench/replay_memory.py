#!/usr/bin/env python3
"""Whether `iospd replay` holds a trace's length in memory: peak RSS and events per second for
blktrace files of 10^6, 10^7 and 10^8 events (written by this script in blktrace's documented
layout: 48-byte little-endian records, Q events, 4 KiB reads and writes 1 µs apart), replayed
as fast as possible (--speed=max) with the null engine, so the tool alone is measured. Peak RSS
is the child's own maximum resident set (wait4's ru_maxrss).

Usage: bench/replay_memory.py [--iospd PATH] [--events 1e6,1e7,1e8] [--dir DIR] [--save]
"""

import argparse
import datetime
import json
import os
import struct
import subprocess
import tempfile
import time

RECORD = struct.Struct("<IIQQIIIIIHH")
MAGIC = 0x65617407
QUEUE = 1
READ = 1 << 16
WRITE = 2 << 16


def write_trace(path, n):
    """n records: every third a read, the rest writes, 4 KiB within 1 GiB, 1 µs apart."""
    chunk = 100_000
    buf = bytearray(RECORD.size * chunk)
    device = (8 << 20) | 16
    with open(path, "wb") as f:
        done = 0
        while done < n:
            k = min(chunk, n - done)
            for j in range(k):
                t = done + j
                action = (READ if t % 3 == 0 else WRITE) | QUEUE
                sector = (t * 7919 % 262_144) * 8
                RECORD.pack_into(buf, j * RECORD.size, MAGIC, t, t * 1000, sector, 4096,
                                 action, 0, device, 0, 0, 0)
            f.write(buf[: k * RECORD.size])
            done += k


def replay(iospd, base, target):
    """(wall s, peak RSS KiB, report) of one replay."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [iospd, "replay", "--speed=max", "--engine=null", "--force", "-Rjson", base, target],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"iospd replay failed on {base}")
    return wall, usage.ru_maxrss, json.loads(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--events", default="1e6,1e7,1e8")
    parser.add_argument("--dir", default=None, help="where the trace files go (needs 48 bytes per event)")
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    iospd = os.path.abspath(args.iospd)
    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        target = os.path.join(tmp, "target.dat")
        with open(target, "wb") as f:
            f.truncate(1 << 30)
        for text in args.events.split(","):
            n = int(float(text))
            base = os.path.join(tmp, f"t{n}")
            write_trace(base + ".blktrace.0", n)
            wall, rss, report = replay(iospd, base, target)
            os.remove(base + ".blktrace.0")
            r = report["timespans"][0]["replay"]
            measured = report["timespans"][0]["measured"]
            assert r["issued"] == n, (r["issued"], n)
            rows.append((n, n * RECORD.size, rss, wall, measured["duration_s"], n / measured["duration_s"]))
            print(rows[-1], flush=True)
    lines = [
        f"# replay memory — {datetime.datetime.now():%Y-%m-%d %H:%M}",
        "",
        f"`bench/replay_memory.py --events {args.events}`: blktrace files replayed with",
        "`iospd replay --speed=max --engine=null` (the tool alone; the run reads the file twice:",
        "once to check and plan it, once to issue it).",
        "",
        "| events | trace file | peak RSS | wall (both passes) | replay window | events/s in the window |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for n, size, rss, wall, window, rate in rows:
        lines.append(
            f"| {n:,} | {size / 2**30:.2f} GiB | {rss / 1024:.1f} MiB | {wall:.1f} s | {window:.2f} s | {rate:,.0f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(os.path.dirname(__file__), "runs", f"{stamp}-replay-memory.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"saved {path}")


if __name__ == "__main__":
    main()
