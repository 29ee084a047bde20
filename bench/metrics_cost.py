#!/usr/bin/env python3
"""What `--metrics` costs a run: the same tool-bound workload plain, with the endpoint up and not
scraped, and scraped every second (as a Prometheus with `scrape_interval: 1s` does), in one run.

Workload: 4 KiB random reads from the page cache (a 256 MiB file read through it, -Sb), one
thread at queue depth 32, 10 s measured after 1 s of warm-up: the CPU is the limit, so any cost of
the endpoint shows. The variants alternate within each round, in a rotated order; the table gives
median IOPS, the spread over the rounds ((max - min) / median: the noise here), and the ratio to
the plain run. The scraper asks for OpenMetrics like Prometheus and checks every answer.

Usage: bench/metrics_cost.py [--iospd PATH] [--rounds N] [--seconds S] [--save]
"""

import argparse
import datetime
import json
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def metrics_thread_ns(pid):
    """CPU time of the endpoint's thread so far (ns, from schedstat), or None."""
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() == "iospd-metrics":
                    with open(f"/proc/{pid}/task/{tid}/schedstat") as g:
                        return int(g.read().split()[0])
    except OSError:
        pass
    return None


def scrape_every_second(port, stop, counts, pid):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/metrics",
        headers={"Accept": "application/openmetrics-text;version=1.0.0"},
    )
    while not stop.is_set():
        try:
            with urllib.request.urlopen(request, timeout=2) as answer:
                body = answer.read().decode()
                if body.endswith("# EOF\n") and "iospd_ios_total{" in body:
                    counts["ok"] += 1
                    counts["bytes"] = len(body)
            cpu = metrics_thread_ns(pid)
            if cpu is not None:
                counts["cpu_ns"] = cpu
        except OSError:
            counts["failed"] += 1
        stop.wait(1.0)


def run(iospd, target, seconds, variant):
    args = [iospd, f"-d{seconds}", "-W1", "-b4K", "-o32", "-t1", "-r", "-Sb", "-Rjson", "--quiet"]
    stop, counts, scraper = threading.Event(), {"ok": 0, "failed": 0, "cpu_ns": 0, "bytes": 0}, None
    if variant != "plain":
        port = free_port()
        args.append(f"--metrics={port}")
    process = subprocess.Popen([*args, target], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if variant == "scraped every 1 s":
        scraper = threading.Thread(target=scrape_every_second, args=(port, stop, counts, process.pid))
        time.sleep(0.2)
        scraper.start()
    out, err = process.communicate()
    stop.set()
    if scraper:
        scraper.join()
    if process.returncode != 0:
        raise SystemExit(f"iospd failed: {err}")
    report = json.loads(out)
    return report["timespans"][0]["measured"]["totals"]["total"]["ios_per_s"], counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iospd", default="target/release/iospd")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    iospd = os.path.abspath(args.iospd)
    work = tempfile.mkdtemp(prefix="iospd-metrics-cost-")
    target = os.path.join(work, "t.dat")
    subprocess.run([iospd, "-c256M", "-d1", "-W0", "-w100", "-Rjson", "--quiet", target], check=True, capture_output=True)
    variants = ["plain", "endpoint, not scraped", "scraped every 1 s"]
    results = {name: [] for name in variants}
    scrapes = {"ok": 0, "failed": 0, "cpu_ns": 0, "bytes": 0}
    try:
        for round in range(args.rounds):
            order = variants[round % len(variants):] + variants[:round % len(variants)]
            for name in order:
                iops, counts = run(iospd, target, args.seconds, name)
                results[name].append(iops)
                for key in ("ok", "failed", "cpu_ns"):
                    scrapes[key] += counts[key]
                scrapes["bytes"] = max(scrapes["bytes"], counts["bytes"])
    finally:
        os.remove(target)
        os.rmdir(work)
    base = statistics.median(results["plain"])
    lines = [
        f"# Cost of --metrics ({datetime.datetime.now():%Y-%m-%d %H:%M})",
        "",
        f"`iospd -d{args.seconds} -W1 -b4K -o32 -t1 -r -Sb [--metrics=<port>] <256 MiB file>`: page-cached",
        f"reads, the tool the limit; {args.rounds} rounds, variants alternating in rotated order; medians.",
        f"Scrapes answered: {scrapes['ok']}, failed: {scrapes['failed']}; each {scrapes['bytes']:,} bytes of OpenMetrics.",
        f"The endpoint's thread used {scrapes['cpu_ns'] / max(scrapes['ok'], 1) / 1e3:.0f} µs of CPU per scrape (its schedstat, polling",
        "included): at one scrape a second, that share of one CPU is the whole cost.",
        "",
        "| variant | IOPS | spread over rounds | vs plain |",
        "|---|---:|---:|---:|",
    ]
    for name, values in results.items():
        median = statistics.median(values)
        spread = (max(values) - min(values)) / median
        lines.append(f"| {name} | {median:,.0f} | {spread:.1%} | {median / base:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.save:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        path = os.path.join(os.path.dirname(__file__), "runs", f"{stamp}-metrics-cost.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"saved {path}")


if __name__ == "__main__":
    main()
