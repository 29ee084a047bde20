#!/usr/bin/env python3
"""Runs across ranks: what MPI costs the I/O loop, and what grows with the number of ranks.

1. One rank. The default build, run on its own, against the `--features mpi` build run as one
   rank under `mpirun -np 1` (MPI initialised, the rank's main thread polling its peers while the
   workers run): 4 KiB random buffered reads at queue depth 32 from a file entirely in the page
   cache, one thread (`-b4K -o32 -r -Sb`), where the tool's own cost per I/O shows. The two
   alternate, each round `--seconds` long; the table reports the medians and the median of each
   round's ratio (MPI build / default build).
2. Scaling. The MPI build on 1, 2, 4, 8 and 16 ranks of this machine (oversubscribed), one file
   each, with latency and 1-second intervals: the bytes rank 0 gathers per rank, the gather time,
   the margin the start was placed ahead, the least slack any rank had, the start skew and the
   clock offsets' uncertainty.

Both builds are made by the script (`cargo build --release`, and `--features mpi` into
target/mpi). With --save the results go to bench/runs/.

Usage: bench/mpi_compare.py [--rounds N] [--seconds S] [--ranks 1,2,4,8,16] [--save]
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
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def build():
    sh("cargo", "build", "--release", "--quiet", cwd=ROOT)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(ROOT, "target", "mpi"))
    sh("cargo", "build", "--release", "--quiet", "--features", "mpi", cwd=ROOT, env=env)
    return (os.path.join(ROOT, "target", "release", "iospd"),
            os.path.join(ROOT, "target", "mpi", "release", "iospd"))


def mpirun(ranks):
    return ["mpirun", "--oversubscribe", "-np", str(ranks)]


def iops(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=MPI_ENV).stdout
    report = json.loads(out)
    return report["timespans"][0]["measured"]["totals"]["total"]["ios_per_s"]


def one_rank(default, mpi, work, rounds, seconds):
    target = os.path.join(work, "cached.dat")
    sh(default, "-c256M", "-d1", "-W0", "-Sb", target)
    with open(target, "rb") as f:  # the whole file into the page cache
        while f.read(1 << 20):
            pass
    args = ["-b4K", "-o32", "-r", "-Sb", f"-d{seconds}", "-W1", "-Rjson", target]
    rows = []
    for _ in range(rounds):
        plain = iops([default] + args)
        ranked = iops(mpirun(1) + [mpi] + args)
        rows.append((plain, ranked))
    return rows


def scaling(mpi, work, ranks_list):
    rows = []
    for ranks in ranks_list:
        out = subprocess.run(
            mpirun(ranks) + [mpi, "-c8M", "-d2", "-W1", "-b4K", "-o4", "-r", "-L", "-D1000",
                             "-Rjson", os.path.join(work, "s-{rank}.dat")],
            check=True, capture_output=True, text=True, env=MPI_ENV).stdout
        ts = json.loads(out)["timespans"][0]
        c = ts["cluster"]
        rows.append({
            "ranks": ranks,
            "bytes_per_rank": c["gathered_bytes"] / ranks,
            "gather_ms": c["gather_ns"] / 1e6,
            "margin_ms": c["start_margin_ns"] / 1e6,
            "least_slack_ms": c["start_slack_ns"] / 1e6,
            "skew_us": c["start_skew_ns"] / 1e3,
            "uncertainty_us": c["clock_uncertainty_ns"] / 1e3,
        })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--ranks", default="1,2,4,8,16")
    parser.add_argument("--save", action="store_true")
    a = parser.parse_args()
    default, mpi = build()
    with tempfile.TemporaryDirectory(prefix="iospd-mpi-") as work:
        pairs = one_rank(default, mpi, work, a.rounds, a.seconds)
        scale = scaling(mpi, work, [int(r) for r in a.ranks.split(",")])
    plain = statistics.median(p for p, _ in pairs)
    ranked = statistics.median(r for _, r in pairs)
    ratio = statistics.median(r / p for p, r in pairs)
    lines = [
        "# One rank of the MPI build against the default build; scaling with ranks",
        "",
        f"{datetime.datetime.now():%Y-%m-%d %H:%M}, {platform.node()}, {os.cpu_count()} CPUs, "
        f"kernel {platform.release()}",
        f"Command: `bench/mpi_compare.py --rounds {a.rounds} --seconds {a.seconds} "
        f"--ranks {a.ranks}`",
        "",
        "## One rank: 4 KiB random buffered reads, QD32, page-cached file, 1 thread",
        "",
        "| round | default build IOPS | MPI build, mpirun -np 1, IOPS | ratio |",
        "|---|---|---|---|",
    ]
    for i, (p, r) in enumerate(pairs, 1):
        lines.append(f"| {i} | {p:,.0f} | {r:,.0f} | {r / p:.3f} |")
    lines += [
        f"| median | {plain:,.0f} | {ranked:,.0f} | **{ratio:.3f}** (median of the rounds' ratios) |",
        "",
        "## Scaling: ranks of this machine, oversubscribed, 2 s with -L -D1000",
        "",
        "| ranks | gathered per rank | gather time | start margin | least slack | start skew | "
        "offset uncertainty |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in scale:
        lines.append(
            f"| {r['ranks']} | {r['bytes_per_rank'] / 1024:.0f} KiB | {r['gather_ms']:.1f} ms | "
            f"{r['margin_ms']:.2f} ms | {r['least_slack_ms']:.2f} ms | {r['skew_us']:.0f} µs | "
            f"±{r['uncertainty_us']:.1f} µs |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        base = os.path.join(ROOT, "bench", "runs", f"{stamp}-mpi-compare")
        with open(base + ".md", "w") as f:
            f.write(text)
        with open(base + ".json", "w") as f:
            json.dump({"one_rank": pairs, "scaling": scale}, f, indent=1)


if __name__ == "__main__":
    main()
