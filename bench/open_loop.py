#!/usr/bin/env python3
"""iolab's open loop beside fio's closed-loop rate limit, in one run (interleaved, medians).

On /dev/zram0, 4k random reads, libaio O_DIRECT at iodepth 8:
  1. the peak (closed loop, no rate), from iolab and fio;
  2. at 50 % and 80 % of fio's peak: fio's rate_iops against iolab's rate_iops +
     rate_open_loop=1: achieved/offered, lat p99, and iolab's response p99 and its schedule's
     lateness p99;
  3. coordinated omission: the same 50 % load for 3 s with the tool's process stopped
     (SIGSTOP) for 200 ms after 1.5 s: fio's lat p99.9 against iolab's lat p99.9 and
     response p99.9 (the stall is due-time latency the closed loop never shows).

Usage: bench/open_loop.py [--pairs 3]   (root; writes nothing, reads zram0)
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLAB = os.path.join(ROOT, "target", "release", "iolab")
JOB = ["--name=ol", "--filename=/dev/zram0", "--rw=randread", "--bs=4k", "--size=256m",
       "--ioengine=libaio", "--direct=1", "--iodepth=8", "--time_based",
       "--lat_percentiles=1"]


def cmd(tool, extra):
    if tool == "iolab":
        return [IOLAB, "run", *JOB, *extra, "--output-format=json",
                "--db=/tmp/iolab-bench-open-loop.db"]
    return ["fio", *JOB, *extra, "--output-format=json", "--thread"]


def parse(out):
    return json.loads(out[out.find("{"):])["jobs"][0]["read"]


def run(tool, extra, stall=False):
    p = subprocess.Popen(cmd(tool, extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if stall:
        time.sleep(1.5)
        os.kill(p.pid, signal.SIGSTOP)
        time.sleep(0.2)
        os.kill(p.pid, signal.SIGCONT)
    out, err = p.communicate()
    if p.returncode != 0:
        raise SystemExit(f"{tool} failed: {err}")
    return parse(out)


def pct(h, p):
    return h.get("percentile", {}).get(p, float("nan")) / 1e3


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=3)
    a = ap.parse_args()
    peaks = {"iolab": [], "fio": []}
    for _ in range(a.pairs):
        for tool in peaks:
            peaks[tool].append(run(tool, ["--runtime=2"])["iops"])
    peak = median(peaks["fio"])
    print(f"peak, closed loop, no rate: iolab {median(peaks['iolab']):.0f} IOPS, "
          f"fio {peak:.0f} IOPS (loads below are shares of fio's)\n")
    print("| load | tool | offered | achieved/offered | lat p99 | response p99 | lateness p99 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for share in (0.5, 0.8):
        rate = int(peak * share)
        rows = {"iolab": [], "fio": []}
        for _ in range(a.pairs):
            rows["fio"].append(run("fio", ["--runtime=2", f"--rate_iops={rate}"]))
            rows["iolab"].append(run("iolab", ["--runtime=2", f"--rate_iops={rate}",
                                               "--rate_open_loop=1"]))
        for tool, rs in rows.items():
            ach = median([r["iops"] / rate for r in rs])
            lat = median([pct(r["lat_ns"], "99.000000") for r in rs])
            if tool == "iolab":
                resp = median([pct(r["iolab"]["response_ns"], "99.000000") for r in rs])
                late = median([pct(r["iolab"]["issue_lateness_ns"], "99.000000") for r in rs])
                extra = f"{resp:.1f} µs | {late:.1f} µs"
                name = "iolab, open loop"
            else:
                extra = "- | -"
                name = "fio, rate_iops"
            print(f"| {share:.0%} | {name} | {rate} | {ach:.4f} | {lat:.1f} µs | {extra} |")
    print("\nStopped 200 ms (SIGSTOP) at 50 % for 3 s:\n")
    print("| tool | lat p99.9 | response p99.9 |")
    print("|---|---:|---:|")
    rate = int(peak * 0.5)
    fio_lat, io_lat, io_resp = [], [], []
    for _ in range(a.pairs):
        r = run("fio", ["--runtime=3", f"--rate_iops={rate}"], stall=True)
        fio_lat.append(pct(r["lat_ns"], "99.900000"))
        r = run("iolab", ["--runtime=3", f"--rate_iops={rate}", "--rate_open_loop=1"],
                stall=True)
        io_lat.append(pct(r["lat_ns"], "99.900000"))
        io_resp.append(pct(r["iolab"]["response_ns"], "99.900000"))
    print(f"| fio, rate_iops | {median(fio_lat):.1f} µs | - |")
    print(f"| iolab, open loop | {median(io_lat):.1f} µs | {median(io_resp)/1e3:.1f} ms |")


if __name__ == "__main__":
    main()
