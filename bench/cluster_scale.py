#!/usr/bin/env python3
"""What rank 0 holds and how long it waits as ranks grow, and whether it grows with the run's
length: the MPI build on 1 … 64 ranks of this machine (oversubscribed), the null engine (no I/O,
so only the tool's own bookkeeping counts), 2 s runs with latency, at -D1000 (2 intervals) and
-D10 (200 intervals). For each: the bytes rank 0 gathered per rank, the time from its own end to
holding every rank's results (the tree reduction of the -D series and the gather), and rank 0's
peak RSS (`/usr/bin/time -f %M` around rank 0 only), next to rank 0 of a C program that only
does the same gather (MPI_Init_thread, MPI_Gatherv of 32 KiB per rank; built with mpicc into a
temporary directory): Open MPI's own share. A least-squares line per interval count
models rank 0's peak RSS as a + b·ranks; the table extrapolates it to 1,000 ranks, and the
gathered bytes per rank at 200 against 2 intervals show what grows with the run's length.
With `heaptrack` installed (Debian's package), the 200-interval runs are repeated under it for
rank 0 and its heap at its peak is split by who allocated it: Open MPI (any frame in its libraries)
or iospd itself; the split is modelled the same way.

Usage: bench/cluster_scale.py [--ranks 1,2,4,8,16,32,64,128] [--save]
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# TCP between ranks, as between hosts: Open MPI's shared-memory transport (what it picks for ranks
# of one host) maps buffers for every peer into every rank, which would be counted as rank 0's.
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl="tcp,self")
WRAPPER = """#!/bin/sh
if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec /usr/bin/time -f %M -o "$RSS_FILE" "$@"; fi
exec "$@"
"""
HEAP_WRAPPER = """#!/bin/sh
if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec heaptrack -o "$HEAP_FILE" "$@" >/dev/null 2>&1; fi
exec "$@"
"""
# A heap frame in any of these belongs to the MPI library, not to iospd.
MPI_FRAMES = ("openmpi", "libmpi", "open-pal", "open-rte", "pmix", "mca_", "opal_", "ompi_", "orte_",
              "MPI_", "hwloc", "libevent", "event_")


def build():
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(ROOT, "target", "mpi"))
    subprocess.run(["cargo", "build", "--release", "--quiet", "--features", "mpi"], cwd=ROOT, env=env, check=True)
    return os.path.join(ROOT, "target", "mpi", "release", "iospd")


def wrapper(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def iospd_run(iospd, work, ranks, interval_ms, wrap, env):
    return subprocess.run(
        ["mpirun", "--oversubscribe", "-np", str(ranks), wrap, iospd, "--engine=null", "-c1M", "-d2", "-W0",
         "-b4K", "-o1", "-L", f"-D{interval_ms}", "-Rjson", "--quiet", os.path.join(work, "t-{rank}.dat")],
        check=True, capture_output=True, text=True, env=env,
    ).stdout


def run(iospd, work, ranks, interval_ms):
    rss_file = os.path.join(work, "rss")
    out = iospd_run(iospd, work, ranks, interval_ms, wrapper(work, "wrap.sh", WRAPPER),
                    dict(MPI_ENV, RSS_FILE=rss_file))
    cluster = json.loads(out)["timespans"][0]["cluster"]
    with open(rss_file) as f:
        rss_kib = int(f.read().split()[-1])
    return cluster["gathered_bytes"] / ranks, cluster["gather_ns"] / 1e6, rss_kib / 1024


def heap(iospd, work, ranks, interval_ms):
    """Rank 0's heap at its peak, in MiB: (iospd's own, Open MPI's)."""
    heap_file = os.path.join(work, "heap")
    for old in os.listdir(work):
        if old.startswith("heap"):
            os.remove(os.path.join(work, old))
    iospd_run(iospd, work, ranks, interval_ms, wrapper(work, "heap.sh", HEAP_WRAPPER),
              dict(MPI_ENV, HEAP_FILE=heap_file))
    recorded = next(os.path.join(work, f) for f in os.listdir(work)
                    if f.startswith("heap.") and f.endswith((".zst", ".gz")))
    stacks = os.path.join(work, "stacks")
    subprocess.run(["heaptrack_print", "-f", recorded, "--print-peaks", "0", "--print-allocators", "0",
                    "--print-temporary", "0", "--print-leaks", "0", "--flamegraph-cost-type", "peak",
                    "-F", stacks], check=True, capture_output=True)
    own = mpi = 0
    with open(stacks) as f:
        for line in f:
            stack, _, count = line.rstrip().rpartition(" ")
            if any(name in stack for name in MPI_FRAMES):
                mpi += int(count)
            else:
                own += int(count)
    return own / 2**20, mpi / 2**20


BASELINE = r"""
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int provided, rank, size, n = atoi(argv[1]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *part = malloc(n);
    memset(part, rank, n);
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *all = NULL;
    if (rank == 0) {
        int at = 0;
        for (int i = 0; i < size; i++) { displs[i] = at; at += counts[i]; }
        all = malloc(at);
    }
    MPI_Gatherv(part, n, MPI_CHAR, all, counts, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"""


def baseline(work, ranks):
    program = os.path.join(work, "gather")
    if not os.path.exists(program):
        with open(program + ".c", "w") as f:
            f.write(BASELINE)
        subprocess.run(["mpicc", "-O2", "-o", program, program + ".c"], check=True)
    rss_file = os.path.join(work, "rss")
    env = dict(MPI_ENV, RSS_FILE=rss_file)
    subprocess.run(["mpirun", "--oversubscribe", "-np", str(ranks), os.path.join(work, "wrap.sh"), program, "32768"],
                   check=True, capture_output=True, env=env)
    with open(rss_file) as f:
        return int(f.read().split()[-1]) / 1024


def fit(points):
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", default="1,2,4,8,16,32,64,128")
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    iospd = build()
    counts = [int(r) for r in args.ranks.split(",")]
    traced = shutil.which("heaptrack") is not None
    rows, model, heaps = [], {}, []
    with tempfile.TemporaryDirectory(prefix="iospd-scale-") as work:
        for interval_ms, intervals in [(1000, 2), (10, 200)]:
            points = []
            for ranks in counts:
                per_rank, gather_ms, rss_mib = run(iospd, work, ranks, interval_ms)
                rows.append((ranks, intervals, per_rank, gather_ms, rss_mib, baseline(work, ranks)))
                points.append((ranks, rss_mib))
                if traced and intervals == 200:
                    heaps.append((ranks, *heap(iospd, work, ranks, interval_ms)))
            model[intervals] = fit(points)
    lines = [
        f"# Rank 0 across ranks ({datetime.datetime.now():%Y-%m-%d %H:%M})",
        "",
        "`mpirun --oversubscribe -np N iospd --engine=null -c1M -d2 -W0 -b4K -o1 -L -D<ms> -Rjson t-{rank}.dat`",
        "on this 2-CPU machine; rank 0's peak RSS from `/usr/bin/time -f %M`.",
        "",
        "| ranks | intervals | gathered per rank | rank 0 waited for the results | rank 0 peak RSS | MPI alone, same gather |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for ranks, intervals, per_rank, gather_ms, rss, mpi in rows:
        lines.append(f"| {ranks} | {intervals} | {per_rank / 1024:.1f} KiB | {gather_ms:.1f} ms | {rss:.1f} MiB | {mpi:.1f} MiB |")
    mpi_model = fit([(r[0], r[5]) for r in rows])
    lines += ["", "Model, rank 0's peak RSS = a + b × ranks (least squares):", ""]
    lines.append(f"- MPI alone: a = {mpi_model[0]:.1f} MiB, b = {mpi_model[1] * 1024:.1f} KiB per rank; "
                 f"1,000 ranks: {mpi_model[0] + 1000 * mpi_model[1]:.0f} MiB")
    for intervals, (a, b) in model.items():
        lines.append(f"- {intervals} intervals: a = {a:.1f} MiB, b = {b * 1024:.1f} KiB per rank; "
                     f"1,000 ranks: {a + 1000 * b:.0f} MiB")
    if heaps:
        lines += ["", "Rank 0's heap at its peak (heaptrack, 200 intervals), by who allocated it:", "",
                  "| ranks | iospd's own | Open MPI's |", "|---:|---:|---:|"]
        lines += [f"| {r} | {own:.2f} MiB | {mpi:.2f} MiB |" for r, own, mpi in heaps]
        for name, at in [("iospd's own", 1), ("Open MPI's", 2)]:
            a, b = fit([(h[0], h[at]) for h in heaps])
            lines.append(f"- {name} heap: a = {a:.1f} MiB, b = {b * 1024:.1f} KiB per rank; "
                         f"1,000 ranks: {a + 1000 * b:.0f} MiB")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(ROOT, "bench", "runs", f"{stamp}-cluster-scale.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"saved {path}")


if __name__ == "__main__":
    main()
