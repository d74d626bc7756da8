#!/usr/bin/env python3
"""Two builds of iolab on bench/peak.py's like-for-like job (io_uring, gtod_reduce=1, fixed
buffers, registered files, batches of max(1, QD/4)), pinned to one CPU, interleaved with the
newer build under --keep-rseq and with t/io_uring: did a change move peak IOPS per core, and
what does dropping rseq give? Medians of --pairs runs per variant, each run's figure printed.
The commands and the measuring are peak.py's own.

Run as root from the repository, the older build first (see bench/ab.py for making one):

    python3 bench/ab_peak.py /tmp/oldtarget/release/iolab target/release/iolab \\
        [--pairs 5] [--runtime 3] [--depths 1,32] [--cpus 1]
"""

import argparse
import statistics
import sys

import peak


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
    peak.CPUS = a.cpus
    peak.fill_device()
    # Each variant: (peak.py's tool, iolab binary, extra iolab options).
    variants = {
        "A (old)": (peak.GTOD, a.old, ()),
        "B (new)": (peak.GTOD, a.new, ()),
        "B --keep-rseq": (peak.GTOD, a.new, ("--keep-rseq",)),
        "t/io_uring": ("t/io_uring", None, ()),
    }
    print("| QD | " + " | ".join(variants) + " | B/A | B --keep-rseq / B | B / t/io_uring |")
    print("|---:|" + "---:|" * (len(variants) + 3))
    for qd in (int(d) for d in a.depths.split(",")):
        got = {v: [] for v in variants}
        for _ in range(a.pairs):
            for v, (tool, binary, extra) in variants.items():
                got[v].append(peak.timed(tool, "io_uring", qd, a.runtime, binary, extra)[0])
                print(f"    (that was {v})", file=sys.stderr)
        m = {v: statistics.median(x) for v, x in got.items()}
        old, new, keep, t = m.values()
        print(f"| {qd} | " + " | ".join(f"{x:,.0f}" for x in m.values())
              + f" | {new / old:.3f} | {keep / new:.3f} | {new / t:.3f} |", flush=True)


if __name__ == "__main__":
    main()
