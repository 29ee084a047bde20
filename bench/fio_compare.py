#!/usr/bin/env python3
"""iospd against fio on the same target with the same workload, in one run.

Workload: 4 KiB random reads, O_DIRECT, one thread, queue depth 1 and 32, 5 s measured after 1 s
of warm-up. The two tools alternate (iospd first on even rounds, fio first on odd ones) so that
drift on a noisy machine hits both alike; the table reports medians, the spread, and the ratio of
medians. Latency is compared like with like: iospd's latency (just before submission to the moment
the completion is seen) against fio's total latency `lat` (not `clat`).

Target: /dev/zram0 when it exists and is unused (sized and filled with random data first), else a
temporary file of random data. Results go to stdout and, with --save, to bench/runs/.

Usage: bench/fio_compare.py [--iospd PATH] [--rounds N] [--seconds S] [--depths 1,32] [--save]
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
import sys
import tempfile

ZRAM = "/dev/zram0"
ZRAM_SIZE = 4 << 30
FILE_SIZE = 1 << 30


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def zram_usable():
    """True when /dev/zram0 exists, we are root, and it is neither swap nor mounted."""
    if not os.path.exists(ZRAM) or os.geteuid() != 0:
        return False
    with open("/proc/swaps") as f:
        if any(line.split()[0] == ZRAM for line in f.readlines()[1:]):
            return False
    with open("/proc/mounts") as f:
        if any(line.split()[0] == ZRAM for line in f):
            return False
    return True


def prepare_zram():
    with open("/sys/block/zram0/disksize") as f:
        size = int(f.read())
    if size == 0:
        with open("/sys/block/zram0/disksize", "w") as f:
            f.write(str(ZRAM_SIZE))
        size = ZRAM_SIZE
    # Fill with incompressible data so reads decompress real pages.
    sh("dd", "if=/dev/urandom", f"of={ZRAM}", "bs=1M", f"count={size >> 20}", "oflag=direct", "status=none")
    return ZRAM, f"/dev/zram0 ({size >> 30} GiB, filled from /dev/urandom)"


def prepare_file(directory):
    path = os.path.join(directory, "iospd-bench.dat")
    sh("dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={FILE_SIZE >> 20}", "conv=fsync", "status=none")
    return path, f"temporary file {path} ({FILE_SIZE >> 30} GiB of random data) on {fs_of(directory)}"


def fs_of(directory):
    try:
        return sh("findmnt", "-n", "-o", "SOURCE,FSTYPE", "--target", directory).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown file system"


def run_iospd(binary, target, depth, seconds, extra, latency=True):
    out = sh(binary, "-b4K", f"-o{depth}", "-t1", "-r", "-Su", *(["-L"] if latency else []),
             f"-d{seconds}", "-W1", "-Rjson", "--quiet", *extra, target)
    measured = json.loads(out)["timespans"][0]["measured"]
    total = measured["totals"]["total"]
    lat = total["latency"]
    p99 = next(p["value_ns"] for p in lat["percentiles"] if p["percentile"] == 99.0)
    thread = measured["threads"][0]
    iops = total["ios_per_s"]
    achieved = thread["achieved_depth"]
    return {
        "iops": iops,
        "mean_us": lat["mean_ns"] / 1000,
        "p99_us": p99 / 1000,
        "achieved_depth": achieved,
        # Little's law: mean latency × throughput = I/Os in flight.
        "little": lat["mean_ns"] / 1e9 * iops / achieved if achieved else 0.0,
        "on_cpu_percent": thread["on_cpu_percent"],
    }


def run_fio(target, depth, seconds):
    out = sh(
        "fio", "--name=bench", f"--filename={target}", "--ioengine=io_uring", "--direct=1",
        "--rw=randread", "--bs=4k", f"--iodepth={depth}", "--numjobs=1", f"--runtime={seconds}",
        "--time_based", "--ramp_time=1", "--lat_percentiles=1", "--output-format=json",
    )
    read = json.loads(out[out.index("{"):])["jobs"][0]["read"]
    lat = read["lat_ns"]
    return {
        "iops": read["iops"],
        "mean_us": lat["mean"] / 1000,
        "p99_us": lat["percentile"]["99.000000"] / 1000,
    }


def summary(samples, key):
    values = [s[key] for s in samples]
    return statistics.median(values), min(values), max(values)


def machine_note(target_note):
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(),
        "cpu": f"{cpu}, {os.cpu_count()} logical CPUs",
        "kernel": platform.release(),
        "fio": sh("fio", "--version").strip(),
        "target": target_note,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--iospd", default=os.path.join(root, "target/release/iospd"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--depths", default="1,32")
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="directory for the file target")
    parser.add_argument("--save", action="store_true", help="write the results to bench/runs/")
    parser.add_argument("--iospd-args", default="", help="extra iospd options, e.g. --spin=0")
    args = parser.parse_args()
    if not shutil.which("fio"):
        sys.exit("fio is not installed: apt-get install -y fio")
    if not os.path.exists(args.iospd):
        sys.exit(f"{args.iospd} does not exist: cargo build --release")

    target, target_note = prepare_zram() if zram_usable() else prepare_file(args.dir)
    note = machine_note(target_note)
    depths = [int(d) for d in args.depths.split(",")]
    samples = {d: {"iospd": [], "fio": [], "iospd-noL": []} for d in depths}
    extra = args.iospd_args.split()
    run = {
        "iospd": lambda depth: run_iospd(args.iospd, target, depth, args.seconds, extra),
        "iospd-noL": lambda depth: run_iospd(args.iospd, target, depth, args.seconds, extra, latency=False),
        "fio": lambda depth: run_fio(target, depth, args.seconds),
    }
    try:
        for depth in depths:
            for round_ in range(args.rounds):
                order = ["iospd", "fio", "iospd-noL"] if round_ % 2 == 0 else ["fio", "iospd-noL", "iospd"]
                for tool in order:
                    result = run[tool](depth)
                    samples[depth][tool].append(result)
                    print(f"QD{depth} round {round_ + 1} {tool:9}: {result['iops']:10.0f} IOPS  "
                          f"mean {result['mean_us']:8.1f} us  p99 {result['p99_us']:8.1f} us", file=sys.stderr)
    finally:
        if target != ZRAM:
            os.unlink(target)

    lines = [
        "| QD | metric | iospd median (min–max) | fio median (min–max) | iospd / fio |",
        "|---:|---|---:|---:|---:|",
    ]
    for depth in depths:
        for key, label, fmt in [("iops", "IOPS", "{:.0f}"), ("mean_us", "mean latency µs", "{:.1f}"), ("p99_us", "p99 latency µs", "{:.1f}")]:
            mi, lo_i, hi_i = summary(samples[depth]["iospd"], key)
            mf, lo_f, hi_f = summary(samples[depth]["fio"], key)
            cell = lambda m, lo, hi: f"{fmt.format(m)} ({fmt.format(lo)}–{fmt.format(hi)})"
            lines.append(f"| {depth} | {label} | {cell(mi, lo_i, hi_i)} | {cell(mf, lo_f, hi_f)} | {mi / mf:.2f} |")
    lines += [
        "",
        "| QD | iospd -L / iospd without -L (IOPS) | achieved depth | mean latency × IOPS ÷ achieved depth | iospd thread on CPU % |",
        "|---:|---:|---:|---:|---:|",
    ]
    for depth in depths:
        with_l = summary(samples[depth]["iospd"], "iops")[0]
        without = summary(samples[depth]["iospd-noL"], "iops")[0]
        achieved = summary(samples[depth]["iospd"], "achieved_depth")[0]
        little = summary(samples[depth]["iospd"], "little")[0]
        cpu = summary(samples[depth]["iospd"], "on_cpu_percent")[0]
        lines.append(f"| {depth} | {with_l / without:.3f} | {achieved:.2f} of {depth} | {little:.4f} | {cpu:.0f} |")
    table = "\n".join(lines)
    header = "\n".join(f"- {k}: {v}" for k, v in note.items())
    workload = (f"4 KiB random reads, O_DIRECT, 1 thread, {args.seconds} s measured after 1 s warm-up, "
                f"{args.rounds} alternating rounds per depth; fio: io_uring engine with its defaults, "
                f"latency = fio `lat`; iospd: `iospd -b4K -o<QD> -t1 -r -Su -L -d{args.seconds} -W1 {args.iospd_args}`.")
    report = f"# iospd vs fio\n\n{header}\n- workload: {workload}\n\n{table}\n"
    print(report)
    if args.save:
        runs = os.path.join(root, "bench", "runs")
        os.makedirs(runs, exist_ok=True)
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d-%H%M")
        suffix = "".join(c if c.isalnum() else "-" for c in args.iospd_args).strip("-")
        base = os.path.join(runs, f"{stamp}-fio-compare" + (f"-{suffix}" if suffix else ""))
        with open(base + ".md", "w") as f:
            f.write(report)
        with open(base + ".json", "w") as f:
            json.dump({"machine": note, "samples": samples}, f, indent=1)
        print(f"saved {base}.md and .json", file=sys.stderr)


if __name__ == "__main__":
    main()
