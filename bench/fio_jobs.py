#!/usr/bin/env python3
"""The same fio job files run by fio and by `iospd fio`, on the same device, in one run.

Each job of the first table is time-based and runs on one loop device over a file
in /dev/shm (a device that is memory, so the tools' own cost shows): 4 KiB random reads at QD32
(io_uring), 4 KiB random writes at QD32 (libaio, which iospd runs on io_uring), 128 KiB
sequential reads at QD8, a 70/30 random mix of 8 KiB at QD16 with two jobs, and 4 KiB random
reads with psync, and three jobs held to a rate (rate_iops: the same I/O at the same pace, so the
same IOPS whatever each tool costs; the mixed one holds reads and writes each to the rate). Both
tools' numbers are read from their fio JSON (`--output-format=json`) with the same code. The tools alternate, each round in a rotated order; the table gives each
tool's median IOPS, its spread over the rounds (max − min over the median: its run-to-run
noise here), and the ratio iospd ÷ fio.

Then jobs bounded by their size (fio's default mode) run once by each tool: the bytes each moved,
which must be equal, and for a random job with fio's random map the distinct blocks iospd touched
(each block once per pass).

Usage: bench/fio_jobs.py [--iospd PATH] [--rounds N] [--seconds S] [--save]
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import tempfile

DEVICE_MIB = 1024

JOBS = {
    "randread 4k QD32 io_uring": "rw=randread\nbs=4k\niodepth=32\nioengine=io_uring\n",
    "randwrite 4k QD32 libaio": "rw=randwrite\nbs=4k\niodepth=32\nioengine=libaio\n",
    "read 128k QD8 io_uring": "rw=read\nbs=128k\niodepth=8\nioengine=io_uring\n",
    "randrw 70/30 8k QD16 x2": "rw=randrw\nrwmixread=70\nbs=8k\niodepth=16\nnumjobs=2\nioengine=io_uring\n",
    "randread 4k psync": "rw=randread\nbs=4k\nioengine=psync\n",
    "randread 4k QD8 rate_iops=20000": "rw=randread\nbs=4k\niodepth=8\nioengine=io_uring\nrate_iops=20000\n",
    "randwrite 4k QD8 x2 rate_iops=5000": "rw=randwrite\nbs=4k\niodepth=8\nnumjobs=2\nioengine=io_uring\nrate_iops=5000\n",
    "randrw 70/30 4k QD8 rate_iops=5000 (each direction)": "rw=randrw\nrwmixread=70\nbs=4k\niodepth=8\nioengine=io_uring\nrate_iops=5000\n",
}

# Jobs that end when their work is done (fio's default): the bytes each tool moved, exactly, and
# for the random one with fio's random map how many distinct blocks iospd touched (its --trace).
SIZED = {
    "randread 4k size=64m (random map)": ("rw=randread\nbs=4k\niodepth=16\nioengine=io_uring\nsize=64m\n", 4096),
    "read 128k size=256m": ("rw=read\nbs=128k\niodepth=8\nioengine=io_uring\nsize=256m\n", None),
    "randwrite 4k io_size=32m x2": ("rw=randwrite\nbs=4k\niodepth=8\nnumjobs=2\nioengine=io_uring\nsize=256m\nio_size=32m\n", None),
    "read 64k size=32m loops=3": ("rw=read\nbs=64k\niodepth=4\nioengine=io_uring\nsize=32m\nloops=3\n", None),
    "randread bssplit 4k/50:64k/50 size=64m": ("rw=randread\nbssplit=4k/50:64k/50\niodepth=8\nioengine=io_uring\nsize=64m\n", None),
}


def sh(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def fio_iops(path):
    report = json.loads(sh("fio", "--output-format=json", path))
    return sum(j["read"]["iops"] + j["write"]["iops"] for j in report["jobs"])


def iospd_iops(iospd, path):
    # iospd's fio JSON, read the way fio's is.
    report = json.loads(sh(iospd, "fio", "--output-format=json", path))
    return sum(j["read"]["iops"] + j["write"]["iops"] for j in report["jobs"])


def fio_bytes(path):
    report = json.loads(sh("fio", "--output-format=json", path))
    return sum(j["read"]["io_bytes"] + j["write"]["io_bytes"] for j in report["jobs"])


def iospd_bytes(iospd, path):
    report = json.loads(sh(iospd, "fio", "--output-format=json", path))
    return sum(j["read"]["io_bytes"] + j["write"]["io_bytes"] for j in report["jobs"])


def distinct_blocks(trace, block):
    """Distinct blocks in a binary --trace (12-byte header, 40-byte records, offset at 16)."""
    with open(trace, "rb") as f:
        data = f.read()[12:]
    return len({int.from_bytes(data[i + 16:i + 24], "little") // block for i in range(0, len(data), 40)})


def sized(iospd, device, work):
    """Each size-bound job run once by each tool: bytes moved, and for a random map its blocks."""
    rows = []
    for n, (name, (body, block)) in enumerate(SIZED.items()):
        path = os.path.join(work, f"sized{n}.fio")
        trace = os.path.join(work, f"sized{n}.trace")
        log = f"write_iolog={trace}\n" if block else ""
        with open(path, "w") as f:
            f.write(f"[global]\nfilename={device}\ndirect=1\n\n[sized{n}]\n{body}")
        f_bytes = fio_bytes(path)
        with open(path, "a") as f:
            f.write(log)
        i_bytes = iospd_bytes(iospd, path)
        touched = distinct_blocks(trace, block) if block else None
        rows.append((name, f_bytes, i_bytes, touched, block))
        print(name, f_bytes, i_bytes, touched, flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    iospd = os.path.abspath(args.iospd)
    backing = tempfile.NamedTemporaryFile(dir="/dev/shm", prefix="iospd-fio-jobs-", delete=False).name
    with open(backing, "wb") as f:
        for _ in range(DEVICE_MIB):
            f.write(os.urandom(1 << 20))
    device = sh("losetup", "--find", "--show", backing).strip()
    results = {}
    lines = {}
    try:
        with tempfile.TemporaryDirectory() as work:
            for n, (name, body) in enumerate(JOBS.items()):
                path = os.path.join(work, f"job{n}.fio")
                with open(path, "w") as f:
                    f.write(f"[global]\nfilename={device}\ndirect=1\ntime_based\nruntime={args.seconds}\n"
                            f"ramp_time=1\ngroup_reporting\n\n[job{n}]\n{body}")
                lines[name] = sh(iospd, "fio", "-Rp", path).strip()
                tools = [("fio", lambda p=path: fio_iops(p)), ("iospd", lambda p=path: iospd_iops(iospd, p))]
                for round_ in range(args.rounds):
                    order = tools if round_ % 2 == 0 else tools[::-1]
                    for tool, run in order:
                        value = run()
                        results.setdefault((name, tool), []).append(value)
                        print(name, tool, round(value), flush=True)
            sized_rows = sized(iospd, device, work)
    finally:
        sh("losetup", "--detach", device)
        os.remove(backing)
    fio_version = sh("fio", "--version").strip()
    out = [
        f"# fio job files, fio against iospd fio — {datetime.datetime.now():%Y-%m-%d %H:%M}",
        "",
        f"`bench/fio_jobs.py --rounds {args.rounds} --seconds {args.seconds}`: each job file run by "
        f"{fio_version} and by `iospd fio` on one loop device over /dev/shm (direct=1, time_based, "
        f"ramp_time=1); medians over rounds, spread = (max − min) ÷ median; {os.cpu_count()} CPUs; "
        f"kernel {os.uname().release}.",
        "",
        "| job | fio IOPS | fio spread | iospd IOPS | iospd spread | iospd ÷ fio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in JOBS:
        f = results[(name, "fio")]
        i = results[(name, "iospd")]
        spread = lambda v: (max(v) - min(v)) / statistics.median(v) * 100
        out.append(
            f"| {name} | {statistics.median(f):,.0f} | {spread(f):.1f} % | {statistics.median(i):,.0f} | "
            f"{spread(i):.1f} % | {statistics.median(i) / statistics.median(f):.3f} |"
        )
    out += [
        "",
        "Jobs bounded by their size (not time-based), each run once by each tool: the bytes moved",
        "(`io_bytes` in each tool's fio JSON) and, for fio's random map, the distinct blocks",
        "iospd's I/O touched (from `write_iolog`, which iospd writes as its `--trace`):",
        "",
        "| job | fio bytes | iospd bytes | equal | distinct blocks (iospd) |",
        "|---|---:|---:|---|---:|",
    ]
    for name, f_bytes, i_bytes, touched, block in sized_rows:
        blocks = f"{touched:,} of {f_bytes // block:,}" if touched is not None else ""
        out.append(f"| {name} | {f_bytes:,} | {i_bytes:,} | {'yes' if f_bytes == i_bytes else 'no'} | {blocks} |")
    out += ["", "The iospd command lines `iospd fio -Rp` printed for them:", ""]
    out += [f"- {name}: `{line.replace(device, '<loop device>')}`" for name, line in lines.items()]
    text = "\n".join(out) + "\n"
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(os.path.dirname(__file__), "runs", f"{stamp}-fio-jobs.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"saved {path}")


if __name__ == "__main__":
    main()
