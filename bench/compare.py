#!/usr/bin/env python3
"""iolab vs fio, side by side in one run, written to BENCHMARKS.md.

Runs each measurement with both tools interleaved (iolab, fio, iolab, fio, ...; --pairs
pairs), parses both tools' fio-style JSON, and reports medians and iolab/fio ratios:

  1. per-I/O harness cost: null engine, 4k randread QD1, latency percentiles on;
  2. /dev/zram0 (filled first with incompressible data) 4k randread and randwrite at QD1 per
     engine: IOPS, mean and p99 latency, CPU;
  3. /dev/zram0 4k randread at QD 1..32 with libaio and io_uring: IOPS and IOPS per CPU-second.

CPU: fio's usr_cpu + sys_cpu count only fio's own thread; iolab's also count the kernel
helper threads (io-wq, SQPOLL) that work for the job. Both are shown as reported.

Usage: bench/compare.py [--pairs 5] [--runtime 3] [--out BENCHMARKS.md]   (root; writes zram0)
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLAB = os.path.join(ROOT, "target", "release", "iolab")
ZRAM = "/dev/zram0"
SIZE = "512m"


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr}")
    return json.loads(p.stdout)


def tool_cmd(tool, opts):
    if tool == "iolab":
        return [IOLAB, "run", *opts, "--output-format=json", "--allow-destroy"]
    return ["fio", *opts, "--output-format=json", "--thread"]


def measure(opts, pairs, direction):
    """Median figures for both tools; runs interleave iolab and fio."""
    samples = {"iolab": [], "fio": []}
    for _ in range(pairs):
        for tool in ("iolab", "fio"):
            job = run_json(tool_cmd(tool, opts))["jobs"][0]
            d = job[direction]
            runtime_s = max(job["job_runtime"], 1) / 1000.0
            cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * runtime_s
            samples[tool].append(
                {
                    "iops": d["iops"],
                    "mean_ns": d["lat_ns"]["mean"],
                    "p99_ns": d["lat_ns"].get("percentile", {}).get("99.000000", 0),
                    "cpu_pct": job["usr_cpu"] + job["sys_cpu"],
                    "iops_per_cpu_s": d["total_ios"] / cpu_s if cpu_s > 0 else 0.0,
                }
            )
    return {
        t: {k: statistics.median(s[k] for s in v) for k in v[0]} for t, v in samples.items()
    }


def fill_zram():
    with open("/sys/block/zram0/disksize") as f:
        if int(f.read().strip() or 0) == 0:
            with open("/sys/block/zram0/disksize", "w") as w:
                w.write("1G")
    subprocess.run(
        [IOLAB, "run", "--name=fill", f"--filename={ZRAM}", "--rw=write", "--bs=1m",
         f"--size={SIZE}", "--direct=1", "--ioengine=libaio", "--iodepth=8",
         "--allow-destroy"], check=True, capture_output=True)


def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    a = ap.parse_args()
    if not os.path.exists(IOLAB):
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    timing = [f"--time_based", f"--runtime={a.runtime}", "--ramp_time=1"]
    lines = []
    say = lines.append
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

    # 1. Harness cost.
    null_file = "/tmp/iolab-bench-null"
    null_opts = ["--name=null", f"--filename={null_file}", "--size=64m", "--ioengine=null",
                 "--rw=randread", "--bs=4k", "--iodepth=1", "--lat_percentiles=1", *timing]
    print("harness cost (null engine)...", file=sys.stderr)
    n = measure(null_opts, a.pairs, "read")
    ns = {t: 1e9 / n[t]["iops"] for t in n}
    say("## 1. Per-I/O harness cost: `null` engine, 4k randread QD1, latency percentiles on\n")
    say("| tool | IOPS | ns per I/O |")
    say("|---|---:|---:|")
    for t in ("iolab", "fio"):
        say(f"| {t} | {n[t]['iops']:,.0f} | {ns[t]:.1f} |")
    say(f"\niolab/fio cost ratio: **{ns['iolab'] / ns['fio']:.2f}** (target: at most 0.33)\n")

    # 2. zram QD1 per engine.
    fill_zram()
    engines = ["psync", "pvsync2", "libaio", "io_uring"]
    say("## 2. /dev/zram0 (filled), 4k random QD1 per engine\n")
    say("| workload | engine | iolab IOPS | fio IOPS | IOPS ratio | iolab mean µs | fio mean µs | "
        "iolab p99 µs | fio p99 µs | iolab CPU % | fio CPU % |")
    say("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    order = {"iolab": {}, "fio": {}}
    for rw, direction in (("randread", "read"), ("randwrite", "write")):
        for e in engines:
            print(f"zram {rw} {e}...", file=sys.stderr)
            opts = [f"--name=qd1", f"--filename={ZRAM}", "--direct=1", f"--rw={rw}", "--bs=4k",
                    "--iodepth=1", f"--ioengine={e}", f"--size={SIZE}", "--norandommap",
                    "--lat_percentiles=1", *timing]
            m = measure(opts, a.pairs, direction)
            for t in m:
                order[t][(rw, e)] = m[t]["iops"]
            i, f = m["iolab"], m["fio"]
            say(f"| {rw} | {e} | {i['iops']:,.0f} | {f['iops']:,.0f} | {ratio(i['iops'], f['iops'])} | "
                f"{i['mean_ns'] / 1e3:.2f} | {f['mean_ns'] / 1e3:.2f} | {i['p99_ns'] / 1e3:.2f} | "
                f"{f['p99_ns'] / 1e3:.2f} | {i['cpu_pct']:.0f} | {f['cpu_pct']:.0f} |")
    for rw in ("randread", "randwrite"):
        ranks = {t: [e for e in sorted(engines, key=lambda e: -order[t][(rw, e)])] for t in order}
        same = "same" if ranks["iolab"] == ranks["fio"] else "DIFFERENT"
        say(f"\nEngine order by IOPS, {rw}: iolab {' > '.join(ranks['iolab'])}; "
            f"fio {' > '.join(ranks['fio'])} ({same})")
    say("")

    # 3. QD sweep.
    say("## 3. /dev/zram0 4k randread, queue depth sweep\n")
    say("| engine | QD | iolab IOPS | fio IOPS | IOPS ratio | iolab IOPS/CPU-s | fio IOPS/CPU-s |")
    say("|---|---:|---:|---:|---:|---:|---:|")
    for e in ("libaio", "io_uring"):
        for qd in (1, 2, 4, 8, 16, 32):
            print(f"zram sweep {e} QD{qd}...", file=sys.stderr)
            opts = [f"--name=qd{qd}", f"--filename={ZRAM}", "--direct=1", "--rw=randread",
                    "--bs=4k", f"--iodepth={qd}", f"--ioengine={e}", f"--size={SIZE}",
                    "--norandommap", *timing]
            m = measure(opts, a.pairs, "read")
            i, f = m["iolab"], m["fio"]
            say(f"| {e} | {qd} | {i['iops']:,.0f} | {f['iops']:,.0f} | {ratio(i['iops'], f['iops'])} | "
                f"{i['iops_per_cpu_s']:,.0f} | {f['iops_per_cpu_s']:,.0f} |")

    head = [
        "# BENCHMARKS",
        "",
        "iolab against Debian's fio on this machine, measured in one run by `bench/compare.py`",
        f"(re-run: `python3 bench/compare.py --pairs {a.pairs} --runtime {a.runtime}`, as root).",
        "",
        f"- date: {started}; host: {platform.node()}, {os.cpu_count()} CPUs, kernel {platform.release()}",
        f"- fio: {fio_version}; iolab: {subprocess.run([IOLAB, '--version'], capture_output=True, text=True).stdout.strip()}",
        f"- each figure is the median of {a.pairs} runs per tool, the tools interleaved "
        f"(iolab, fio, iolab, fio, ...); {a.runtime} s measured after 1 s ramp per run.",
        "- the machine is noisy (about ±25 %): read ratios, not absolute numbers.",
        "- CPU: fio counts only its own thread; iolab also counts the kernel's io-wq and SQPOLL",
        "  threads working for the job, so on zram (no NOWAIT: io_uring punts every read to io-wq)",
        "  iolab's io_uring CPU is higher *because it is honest*, not because it does more work.",
        "",
    ]
    with open(a.out, "w") as f:
        f.write("\n".join(head + lines) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
