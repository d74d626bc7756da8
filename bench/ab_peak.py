#!/usr/bin/env python3
"""Two builds of iolab on bench/peak.py's like-for-like job (io_uring, gtod_reduce=1, fixed
buffers, registered files, batches of max(1, QD/4)), pinned to one CPU, interleaved with the
newer build under --keep-rseq and with t/io_uring: did a change move peak IOPS per core, and
what does dropping rseq give? Medians of --pairs runs per variant, each run's figure printed.

Run as root from the repository, the older build first (see bench/ab.py for making one):

    python3 bench/ab_peak.py /tmp/oldtarget/release/iolab target/release/iolab \\
        [--pairs 5] [--runtime 3] [--depths 1,32] [--cpus 1]
"""

import argparse
import json
import re
import statistics
import subprocess
import sys

import peak


def command(variant, binary, qd, runtime):
    """The command of one variant: t/io_uring, or an iolab build (with --keep-rseq)."""
    b = peak.batch(qd)
    if variant == "t/io_uring":
        return [peak.T_IO_URING, f"-d{qd}", f"-s{b}", f"-c{b}", "-b4096", "-p0", "-B1", "-F1",
                "-n1", "-R1", "-X1", f"-r{runtime}", peak.ZRAM]
    cmd = [binary, "run", "--name=peak", f"--filename={peak.ZRAM}", "--direct=1",
           "--rw=randread", "--bs=4k", "--ioengine=io_uring", f"--iodepth={qd}",
           f"--iodepth_batch_submit={b}", f"--iodepth_batch_complete_min={b}",
           f"--iodepth_batch_complete_max={qd}", "--norandommap", "--time_based",
           f"--runtime={runtime}", "--output-format=json", "--fixedbufs", "--registerfiles",
           "--gtod_reduce=1", "--allow-destroy",
           # One database per build: the two may be at different schema versions.
           f"--db=/tmp/iolab-bench-ab-peak-{abs(hash(binary))}.db"]
    return cmd + (["--keep-rseq"] if variant.endswith("--keep-rseq") else [])


def iops(cmd, cpus, variant):
    out = subprocess.run(["taskset", "-c", cpus, *cmd], capture_output=True, text=True,
                         check=True).stdout
    if variant == "t/io_uring":
        lines = [float(v) * {"": 1, "K": 1e3, "M": 1e6}[u]
                 for v, u in re.findall(r"^IOPS=([\d.]+)([KM]?),", out, re.M)]
        return statistics.mean(lines)
    return json.loads(out[out.find("{"):])["jobs"][0]["read"]["iops"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--depths", default="1,32")
    ap.add_argument("--cpus", default="1")
    a = ap.parse_args()
    peak.T_IO_URING = peak.t_io_uring()
    peak.fill_device()
    variants = {"A (old)": a.old, "B (new)": a.new, "B --keep-rseq": a.new, "t/io_uring": None}
    print("| QD | " + " | ".join(variants) + " | B/A | B --keep-rseq / B | B / t/io_uring |")
    print("|---:|" + "---:|" * (len(variants) + 3))
    for qd in (int(d) for d in a.depths.split(",")):
        got = {v: [] for v in variants}
        for _ in range(a.pairs):
            for v, binary in variants.items():
                got[v].append(iops(command(v, binary, qd, a.runtime), a.cpus, v))
                print(f"  QD{qd} {v}: {got[v][-1]:,.0f} IOPS", file=sys.stderr)
        m = {v: statistics.median(x) for v, x in got.items()}
        old, new, keep, t = m.values()
        print(f"| {qd} | " + " | ".join(f"{x:,.0f}" for x in m.values())
              + f" | {new / old:.3f} | {keep / new:.3f} | {new / t:.3f} |", flush=True)


if __name__ == "__main__":
    main()
