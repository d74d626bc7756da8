#!/usr/bin/env python3
"""What iolab's latency split (lat_split) costs, against running without it and against the
way people split latency today: fio with bpftrace timing the same block requests beside it.

Interleaved rounds, medians, each tool pinned to one CPU (taskset -c 1; bpftrace too). Per
target and queue depth, 4k random reads with io_uring, O_DIRECT:
  iolab         iolab run, no split
  iolab+split   iolab run --lat_split=1 (its probe, and its joining thread on the same CPU)
  fio           fio alone
  fio+bpftrace  fio with bpftrace aggregating block_rq_issue -> block_rq_complete per request
                in the kernel (as biolatency does; no line per request)
Targets: a loop device over a file in /tmp (its requests are served from the page cache:
CPU-bound, so any cost shows) and a file on /tmp's disk.

Usage: bench/lat_split.py [--rounds 5] [--runtime 3]   (root; writes only its own temp files)
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLAB = os.path.join(ROOT, "target", "release", "iolab")
PIN = ["taskset", "-c", "1"]
BPFTRACE = """
tracepoint:block:block_rq_issue /args->dev == DEV/ { @s[args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@s[args->sector]/ {
    @d[(nsecs - @s[args->sector]) / 100] = count(); delete(@s[args->sector]);
}
END { clear(@s); }
"""


def job(target, depth, runtime):
    return ["--name=split", f"--filename={target}", "--rw=randread", "--bs=4k", "--size=256m",
            "--ioengine=io_uring", "--direct=1", f"--iodepth={depth}", "--time_based",
            f"--runtime={runtime}", "--output-format=json"]


def iops(out):
    return json.loads(out[out.find("{"):])["jobs"][0]["read"]["iops"]


def run(cmd):
    p = subprocess.run(PIN + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed: {p.stderr}")
    return iops(p.stdout)


def with_bpftrace(dev, cmd):
    bt = subprocess.Popen(PIN + ["bpftrace", "-e", BPFTRACE.replace("DEV", str(dev))],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = bt.stdout.readline()  # "Attaching N probes..."
    if "Attaching" not in line:
        raise SystemExit(f"bpftrace did not attach: {line}")
    time.sleep(0.5)
    try:
        return run(cmd)
    finally:
        bt.send_signal(signal.SIGINT)
        bt.communicate()


def kernel_dev(path):
    st = os.stat(path)
    rdev = st.st_rdev if os.path.exists(path) and (st.st_mode & 0o170000) == 0o060000 else st.st_dev
    return (os.major(rdev) << 20) | os.minor(rdev)


def modes(target, depth, runtime, extra):
    j = job(target, depth, runtime)
    db = "--db=/tmp/iolab-bench-lat-split.db"
    dev = kernel_dev(target)
    return {
        "iolab": lambda: run([IOLAB, "run", *j, *extra, db]),
        "iolab+split": lambda: run([IOLAB, "run", *j, *extra, db, "--lat_split=1"]),
        "fio": lambda: run(["fio", *j, "--thread"]),
        "fio+bpftrace": lambda: with_bpftrace(dev, ["fio", *j, "--thread"]),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=3)
    a = ap.parse_args()
    if not os.path.exists("/sys/kernel/tracing/events/block"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"], check=True)
    tmp = tempfile.mkdtemp(dir="/tmp")
    backing = os.path.join(tmp, "backing")
    with open(backing, "wb") as f:
        f.truncate(256 << 20)
    loop = subprocess.run(["losetup", "-f", "--show", backing], capture_output=True, text=True,
                          check=True).stdout.strip()
    file = os.path.join(tmp, "file")
    subprocess.run([IOLAB, "run", "--name=lay", f"--filename={file}", "--size=256m",
                    "--rw=write", "--bs=1m", "--db=/tmp/iolab-bench-lat-split.db"],
                   capture_output=True, check=True)
    try:
        print("| target | QD | iolab | iolab+split | split/no split | fio | fio+bpftrace | "
              "iolab+split / fio+bpftrace |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, target, extra in (("loop device", loop, ["--allow-destroy"]),
                                    ("file on vda", file, [])):
            for depth in (1, 32):
                ms = modes(target, depth, a.runtime, extra)
                got = {m: [] for m in ms}
                for _ in range(a.rounds):
                    for m, f in ms.items():
                        got[m].append(f())
                med = {m: statistics.median(v) for m, v in got.items()}
                print(f"| {name} | {depth} | {med['iolab']:.0f} | {med['iolab+split']:.0f} | "
                      f"{med['iolab+split'] / med['iolab']:.3f} | {med['fio']:.0f} | "
                      f"{med['fio+bpftrace']:.0f} | "
                      f"{med['iolab+split'] / med['fio+bpftrace']:.3f} |", flush=True)
    finally:
        subprocess.run(["losetup", "-d", loop])
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
