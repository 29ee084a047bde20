#!/usr/bin/env python3
"""What the data and access options cost, against a plain run, in one run.

1. Generation rate per core: `cargo bench --bench data_generation` (1 MiB of 4 KiB chunks per
   iteration, one thread), as GiB/s, next to `-Zr`'s fresh random bytes.
2. IOPS on a 256 MiB file entirely in the page cache, buffered (`-Sb`), 4 KiB random at queue
   depth 32, one thread: where the tool's own cost per I/O shows.
   - writes (`-w100`): DiskSpd's pattern, `-Z1M` (incompressible, from a buffer),
     `--compress=2`, `--dedupe=2` (with and without flip-flop), `--trim=10` (a tenth of the
     I/Os punch holes instead) and `--fdatasync=32`;
   - reads: uniform `-r` and `--distribution=zipf:1.2`, `pareto:0.2`, `normal:10`.
   Each round runs every variant for `--seconds`, in an order that rotates; the table reports the
   medians and the median of each round's ratio to the plain run.
3. The same variants on the null engine (`--engine=null`: no I/O, every submission completes at
   once), where only the tool works: what an option adds to iospd's own time per I/O. The page
   cache's figures mix that with the memory's: skewed reads touch fewer pages, and run faster.

The release build is made by the script. With --save the results go to bench/runs/.

Usage: bench/data_cost.py [--rounds N] [--seconds S] [--save]
"""

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD = ["-b4K", "-r", "-o32", "-t1", "-W1", "-Sb"]
CASES = [
    ("writes", "pattern (plain)", ["-w100"]),
    ("writes", "-Z1M", ["-w100", "-Z1M"]),
    ("writes", "--compress=2", ["-w100", "--compress=2"]),
    ("writes", "--dedupe=2", ["-w100", "--dedupe=2"]),
    ("writes", "--dedupe=2:4K:5%:flipflop", ["-w100", "--dedupe=2:4K:5%:flipflop"]),
    ("writes", "--trim=10", ["-w100", "--trim=10"]),
    ("writes", "--fdatasync=32", ["-w100", "--fdatasync=32"]),
    ("reads", "uniform (plain)", []),
    ("reads", "--distribution=zipf:1.2", ["--distribution=zipf:1.2"]),
    ("reads", "--distribution=pareto:0.2", ["--distribution=pareto:0.2"]),
    ("reads", "--distribution=normal:10", ["--distribution=normal:10"]),
]


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def iops(exe, extra, target, seconds):
    out = sh(exe, *WORKLOAD, f"-d{seconds}", *extra, "-Rjson", "--quiet", target)
    return json.loads(out)["timespans"][0]["measured"]["totals"]["total"]["ios_per_s"]


def generation():
    out = sh("cargo", "bench", "--quiet", "--bench", "data_generation", "--",
             "--output-format", "bencher", cwd=ROOT)
    rows = []
    for line in out.splitlines():
        m = re.match(r"test write data, one core/(.+?) \.\.\. bench:\s+([\d,]+) ns/iter", line)
        if m:
            ns = int(m.group(2).replace(",", ""))
            rows.append(f"| {m.group(1)} | {(1 << 20) / ns:.1f} |")
    return rows


def measure(exe, target, engine, rounds, seconds):
    runs = {name: [] for _, name, _ in CASES}
    ratios = {name: [] for _, name, _ in CASES}
    for r in range(rounds):
        order = CASES[r % len(CASES):] + CASES[:r % len(CASES)]
        got = {name: iops(exe, engine + extra, target, seconds) for _, name, extra in order}
        for kind, name, _ in CASES:
            plain = got["pattern (plain)" if kind == "writes" else "uniform (plain)"]
            runs[name].append(got[name])
            ratios[name].append(got[name] / plain)
    rows = []
    for kind, name, _ in CASES:
        r = ratios[name]
        rows.append(f"| {kind} | {name} | {statistics.median(runs[name]):,.0f} | "
                    f"{statistics.median(r):.3f} ({min(r):.3f}–{max(r):.3f}) |")
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    sh("cargo", "build", "--release", "--quiet", cwd=ROOT)
    exe = os.path.join(ROOT, "target", "release", "iospd")
    gen_rows = generation()
    tables = {}
    with tempfile.TemporaryDirectory() as work:
        target = os.path.join(work, "cached.dat")
        sh(exe, "-c256M", "-d1", "-W0", "-Sb", target)
        with open(target, "rb") as f:
            while f.read(1 << 20):
                pass
        for engine, extra_engine in [("page cache", []), ("null engine", ["--engine=null"])]:
            tables[engine] = measure(exe, target, extra_engine, args.rounds, args.seconds)
    commit = sh("git", "-C", ROOT, "rev-parse", "--short", "HEAD").strip()
    text = "\n".join([
        f"# Data and access options: cost ({datetime.date.today()}, {platform.node()}, "
        f"{os.cpu_count()} CPUs, commit {commit})",
        "",
        f"`bench/data_cost.py --rounds {args.rounds} --seconds {args.seconds}`",
        "",
        "Generation, one core (`cargo bench --bench data_generation`, 1 MiB of 4 KiB chunks per "
        "iteration):",
        "",
        "| data | GB/s |",
        "|---|---:|",
        *gen_rows,
        "",
        *[line for engine, rows in tables.items() for line in [
            f"IOPS, `iospd {' '.join(WORKLOAD)} -d{args.seconds}` on a page-cached 256 MiB file, "
            f"{engine}, variants alternating in each round:",
            "",
            "| mix | variant | IOPS, median | ratio to plain, median (range) |",
            "|---|---|---:|---:|",
            *rows,
            "",
        ]],
        "",
    ])
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        with open(os.path.join(ROOT, "bench", "runs", f"{stamp}-data-cost.md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
