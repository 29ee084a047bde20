#!/usr/bin/env python3
"""How faithfully each replayer keeps a trace's time, measured by the kernel's clock.

One trace per rate (4 KiB random reads, evenly spaced, --seconds long) is written as a fio
iolog v3 (µs times) and as blktrace binary (ns times), and replayed onto one loop device over a
file in /dev/shm (buffered, so the device is memory and the replayers are what is measured) by:

- iospd replay (the iolog; `-Su -o<depth>`),
- fio --read_iolog (the iolog; io_uring, iodepth <depth>, direct=1), and fio's blktrace replay,
- a reference: a minimal C replayer, built by this script into a temporary directory, that
  busy-waits to each absolute deadline (start + trace time) and issues one pread (O_DIRECT) —
  the best a single thread can do, at depth 1.

Lateness is read from the kernel, not the tools: a tracefs instance records the loop device's
`block_bio_queue` on the monotonic clock (µs), and event i is matched to trace entry i. Each
tool's lateness is taken against the best constant offset (the smallest of event time − scheduled
time, so no I/O is early; the first I/O is cold and would flatter "relative to the first"), and
the table gives p50/p99/p99.9/max, the span error (the events' span against the trace's), the
achieved against the scheduled IOPS, and the mean per-second IOPS error. Tools run in turn,
`--rounds` times, each round in a rotated order; the table takes each figure's median over rounds.

Usage: bench/replay_fidelity.py [--iospd PATH] [--rates 10000,100000,200000] [--seconds S]
                                [--depth N] [--rounds N] [--save]
"""

import argparse
import datetime
import json
import os
import random
import statistics
import struct
import subprocess
import tempfile

TRACING = "/sys/kernel/tracing"
DEVICE_BYTES = 1 << 30

REFERENCE_C = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* reference <iolog v3> <device>: reads every line "<us> <file> read <offset> <length>" first,
   then busy-waits to start + us and issues one pread per line. */
int main(int argc, char **argv) {
    FILE *log = fopen(argv[1], "r");
    char line[512], name[256], action[32];
    size_t n = 0, cap = 1 << 20;
    long long *at = malloc(cap * sizeof *at), *off = malloc(cap * sizeof *off);
    int *len = malloc(cap * sizeof *len);
    while (fgets(line, sizeof line, log)) {
        long long us, o; int l;
        if (sscanf(line, "%lld %255s %31s %lld %d", &us, name, action, &o, &l) == 5
            && strcmp(action, "read") == 0) {
            if (n == cap) {
                cap *= 2;
                at = realloc(at, cap * sizeof *at); off = realloc(off, cap * sizeof *off);
                len = realloc(len, cap * sizeof *len);
            }
            at[n] = us * 1000; off[n] = o; len[n] = l; n++;
        }
    }
    int fd = open(argv[2], O_RDONLY | O_DIRECT);
    void *buf;
    if (fd < 0 || posix_memalign(&buf, 4096, 1 << 20)) { perror("open"); return 1; }
    long long start = now();
    for (size_t i = 0; i < n; i++) {
        while (now() < start + at[i]) {}
        if (pread(fd, buf, len[i], off[i]) != len[i]) { perror("pread"); return 1; }
    }
    return 0;
}
"""


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


class Capture:
    """A tracefs instance recording block_bio_queue of one device."""

    def __init__(self, device):
        self.mounted = not os.path.isdir(f"{TRACING}/instances")
        if self.mounted:
            sh("mount", "-t", "tracefs", "nodev", TRACING)
        self.dir = f"{TRACING}/instances/iospd-fidelity-{os.getpid()}"
        if os.path.isdir(self.dir):
            os.rmdir(self.dir)
        os.mkdir(self.dir)
        rdev = os.stat(device).st_rdev
        dev = (os.major(rdev) << 20) | os.minor(rdev)
        self.put("buffer_size_kb", "262144")
        self.put("trace_clock", "mono")
        self.put("events/block/block_bio_queue/filter", f"dev == {dev}")
        self.put("events/block/block_bio_queue/enable", "1")

    def put(self, name, value):
        with open(f"{self.dir}/{name}", "w") as f:
            f.write(value)

    def start(self):
        self.put("trace", "")
        self.put("tracing_on", "1")

    def stop(self):
        """The queued events' times, µs, in order."""
        self.put("tracing_on", "0")
        times = []
        with open(f"{self.dir}/trace") as f:
            for line in f:
                if "block_bio_queue:" not in line:
                    continue
                if "LOST" in line:
                    raise SystemExit("the trace buffer overflowed")
                head = line[: line.index("block_bio_queue:")].rstrip().rstrip(":")
                s, us = head.rsplit(" ", 1)[1].split(".")
                times.append(int(s) * 1_000_000 + int(us))
        return times

    def close(self):
        self.put("tracing_on", "0")
        self.put("events/block/block_bio_queue/enable", "0")
        os.rmdir(self.dir)
        if self.mounted:
            sh("umount", TRACING)


def schedule(rate, seconds, seed=1):
    """(µs, offset) of each read; blktrace and the iolog carry the same times."""
    rng = random.Random(seed)
    n = rate * seconds
    return [(i * 1_000_000 // rate, rng.randrange(DEVICE_BYTES // 4096) * 4096) for i in range(n)]


def write_iolog(path, device, entries):
    with open(path, "w") as f:
        f.write(f"fio version 3 iolog\n0 {device} add\n0 {device} open\n")
        for us, off in entries:
            f.write(f"{us} {device} read {off} 4096\n")
        f.write(f"{entries[-1][0] + 1} {device} close\n")


def write_blktrace(path, device, entries):
    rdev = os.stat(device).st_rdev
    dev = (os.major(rdev) << 20) | os.minor(rdev)
    record = struct.Struct("<IIQQIIIIIHH")
    with open(path, "wb") as f:
        for i, (us, off) in enumerate(entries):
            f.write(record.pack(0x65617407, i, us * 1000, off // 512, 4096, (1 << 16) | 1, 0, dev, 0, 0, 0))


def figures(times, entries):
    """Lateness percentiles and errors of kernel event times against the schedule."""
    n = min(len(times), len(entries))
    d = [times[i] - entries[i][0] for i in range(n)]
    c = min(d)
    late = sorted(x - c for x in d)
    pick = lambda p: late[min(n - 1, int(p * n))]
    trace_span = entries[n - 1][0] - entries[0][0]
    span = times[n - 1] - times[0]
    seconds = {}
    for t in times[:n]:
        s = (t - (times[0] - (d[0] - c))) // 1_000_000
        seconds[s] = seconds.get(s, 0) + 1
    wanted = {}
    for us, _ in entries[:n]:
        wanted[us // 1_000_000] = wanted.get(us // 1_000_000, 0) + 1
    errors = [abs(seconds.get(s, 0) - w) / w * 100 for s, w in wanted.items()]
    return {
        "events": len(times),
        "p50": pick(0.5), "p99": pick(0.99), "p999": pick(0.999), "max": late[-1],
        "span_error_pct": (span - trace_span) / trace_span * 100,
        "achieved_iops": (n - 1) / span * 1e6 if span else 0,
        "scheduled_iops": (n - 1) / trace_span * 1e6,
        "per_second_error_pct": statistics.mean(errors),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--rates", default="10000,100000,200000")
    parser.add_argument("--seconds", type=int, default=2)
    parser.add_argument("--depth", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    iospd = os.path.abspath(args.iospd)
    fio_version = sh("fio", "--version").strip()
    work = tempfile.mkdtemp(prefix="iospd-fidelity-")
    backing = tempfile.NamedTemporaryFile(dir="/dev/shm", prefix="iospd-fidelity-", delete=False).name
    with open(backing, "wb") as f:
        for _ in range(DEVICE_BYTES >> 20):
            f.write(os.urandom(1 << 20))
    device = sh("losetup", "--find", "--show", backing).strip()
    capture = None
    results = {}
    try:
        reference = os.path.join(work, "reference")
        with open(reference + ".c", "w") as f:
            f.write(REFERENCE_C)
        sh("cc", "-O2", "-o", reference, reference + ".c")
        capture = Capture(device)
        for rate in map(int, args.rates.split(",")):
            entries = schedule(rate, args.seconds)
            log = os.path.join(work, f"r{rate}.iolog")
            blk = os.path.join(work, f"r{rate}")
            write_iolog(log, device, entries)
            write_blktrace(blk + ".blktrace.0", device, entries)
            tools = {
                "iospd replay": [iospd, "replay", "-Su", f"-o{args.depth}", "-Rjson", log, device],
                "fio read_iolog": ["fio", "--name=replay", f"--read_iolog={log}", "--ioengine=io_uring",
                                   f"--iodepth={args.depth}", "--direct=1", f"--replay_redirect={device}",
                                   "--output-format=json"],
                "fio blktrace": ["fio", "--name=replay", f"--read_iolog={blk}.blktrace.0", "--ioengine=io_uring",
                                 f"--iodepth={args.depth}", "--direct=1", f"--replay_redirect={device}",
                                 "--output-format=json"],
                "reference (C, pread)": [reference, log, device],
            }
            names = list(tools)
            for round_ in range(args.rounds):
                for name in names[round_ % len(names):] + names[: round_ % len(names)]:
                    capture.start()
                    subprocess.run(tools[name], check=True, capture_output=True)
                    times = capture.stop()
                    f = figures(times, entries)
                    results.setdefault((rate, name), []).append(f)
                    print(rate, name, {k: round(v, 3) for k, v in f.items()}, flush=True)
    finally:
        if capture:
            capture.close()
        sh("losetup", "--detach", device)
        os.remove(backing)
        sh("rm", "-rf", work)
    lines = [
        f"# replay fidelity — {datetime.datetime.now():%Y-%m-%d %H:%M}",
        "",
        f"`bench/replay_fidelity.py --rates {args.rates} --seconds {args.seconds} --depth {args.depth} "
        f"--rounds {args.rounds}`: 4 KiB random reads evenly spaced, replayed onto a loop device over "
        f"/dev/shm; lateness from the kernel's block_bio_queue (µs resolution) against the best "
        f"constant offset; medians over rounds. {fio_version}; {os.cpu_count()} CPUs; kernel "
        f"{os.uname().release}.",
        "",
        "| rate | replayer | events | lateness p50 | p99 | p99.9 | max | span error | achieved / scheduled IOPS | per-second IOPS error |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (rate, name), runs in results.items():
        med = lambda k: statistics.median(r[k] for r in runs)
        lines.append(
            f"| {rate:,} | {name} | {med('events'):,.0f} | {med('p50'):,.0f} µs | {med('p99'):,.0f} µs | "
            f"{med('p999'):,.0f} µs | {med('max'):,.0f} µs | {med('span_error_pct'):+.3f} % | "
            f"{med('achieved_iops'):,.0f} / {med('scheduled_iops'):,.0f} | {med('per_second_error_pct'):.2f} % |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(os.path.dirname(__file__), "runs", f"{stamp}-replay-fidelity.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"saved {path}")


if __name__ == "__main__":
    main()
