#!/usr/bin/env python3
"""Buffered, uncached (RWF_DONTCACHE) and direct writes side by side, iolab against fio 3.42.

The same job in each mode with each tool, interleaved, pinned with taskset: 4 KiB sequential
writes at QD1 through pvsync2 to a file in a temp dir on this machine's disk, time-based.
For each: IOPS, mean and p99 completion latency (medians of --rounds). (What the page cache
keeps is the integration test's: a time-based run over a looping file ends with pages still
in writeback, which says nothing about the flag.)

    python3 bench/uncached.py --iolab target/release/iolab \
        --fio target/fio/fio-3.42/fio --rounds 3 --runtime 5
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

MODES = {
    "buffered": ["--direct=0", "--uncached=0"],
    "uncached": ["--direct=0", "--uncached=1"],
    "direct": ["--direct=1", "--uncached=0"],
}


def run(tool, exe, path, mode, runtime, cpu):
    args = ["--name=w", f"--filename={path}", "--size=256m", "--rw=write", "--bs=4k",
            "--ioengine=pvsync2", f"--runtime={runtime}", "--time_based",
            "--output-format=json"] + MODES[mode]
    cmd = ["taskset", "-c", cpu, exe] + (["run"] if tool == "iolab" else []) + args
    if tool == "iolab":
        cmd += ["--db", path + ".db"]
    if os.path.exists(path):
        os.remove(path)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    w = json.loads(out[out.index("{"):])["jobs"][0]["write"]
    return w["iops"], w["clat_ns"]["mean"], w["clat_ns"]["percentile"]["99.000000"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iolab", required=True)
    ap.add_argument("--fio", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--cpu", default="1")
    a = ap.parse_args()
    d = tempfile.mkdtemp(dir=os.environ.get("BENCH_DIR", "/var/tmp"))
    path = os.path.join(d, "w.dat")
    got = {}
    for _ in range(a.rounds):
        for mode in MODES:
            for tool, exe in (("iolab", a.iolab), ("fio 3.42", a.fio)):
                got.setdefault((mode, tool), []).append(run(tool, exe, path, mode, a.runtime, a.cpu))
    print("| mode | tool | IOPS | clat mean (µs) | clat p99 (µs) |")
    print("|---|---|---:|---:|---:|")
    for mode in MODES:
        for tool in ("iolab", "fio 3.42"):
            rows = got[(mode, tool)]
            med = lambda i: statistics.median(r[i] for r in rows)
            print(f"| {mode} | {tool} | {med(0):,.0f} | {med(1)/1e3:.2f} | {med(2)/1e3:.2f} |")


if __name__ == "__main__":
    main()
