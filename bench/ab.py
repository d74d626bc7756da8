"""Two builds of iolab side by side: did a change to the worker or the results path move the
per-I/O cost? Interleaves A and B (5 pairs by default, 3 s after 1 s ramp, medians) on the null
engine (ns per I/O), and on /dev/zram0 4k random reads at QD1 (psync, libaio) and at QD32
(io_uring, batches of 8). Run as root from the repository, with the older build first:

    git worktree add /tmp/old <commit> && cp -a target/release /tmp/oldtarget/ \\
      && (cd /tmp/old && CARGO_TARGET_DIR=/tmp/oldtarget cargo build --release -p iolab)
    cargo build --release && python3 bench/ab.py /tmp/oldtarget/release/iolab target/release/iolab
"""
import json
import statistics
import subprocess
import sys

import compare as c

PAIRS = 5
TIMING = ["--time_based", "--runtime=3", "--ramp_time=1"]
CASES = [
    ("null engine, ns per I/O", ["--name=null", "--filename=/tmp/iolab-bench-null", "--size=64m",
                                 "--ioengine=null", "--rw=randread", "--bs=4k"], True),
    ("zram 4k randread QD1 psync, IOPS", ["--name=qd1", f"--filename={c.ZRAM}", "--direct=1",
                                          "--rw=randread", "--bs=4k", "--ioengine=psync",
                                          f"--size={c.SIZE}", "--norandommap"], False),
    ("zram 4k randread QD1 libaio, IOPS", ["--name=qd1", f"--filename={c.ZRAM}", "--direct=1",
                                           "--rw=randread", "--bs=4k", "--ioengine=libaio",
                                           f"--size={c.SIZE}", "--norandommap"], False),
    ("zram 4k randread QD32 io_uring batch 8, IOPS",
     ["--name=qd32", f"--filename={c.ZRAM}", "--direct=1", "--rw=randread", "--bs=4k",
      "--ioengine=io_uring", "--iodepth=32", "--iodepth_batch_submit=8",
      "--iodepth_batch_complete_max=8", "--fixedbufs", "--registerfiles",
      f"--size={c.SIZE}", "--norandommap"], False),
]


def iops(binary, opts):
    cmd = [binary, "run", *opts, *TIMING, "--lat_percentiles=1", "--output-format=json",
           "--allow-destroy",
           # One database per build: the two may be at different schema versions.
           f"--db=/tmp/iolab-bench-ab-{abs(hash(binary))}.db"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr}")
    return json.loads(p.stdout)["jobs"][0]["read"]["iops"]


def main():
    a, b = sys.argv[1], sys.argv[2]
    c.fill_zram()
    print(f"A = {a}\nB = {b}\n{PAIRS} interleaved pairs, medians\n")
    print("| check | A | B | B/A |\n|---|---:|---:|---:|")
    for name, opts, per_io in CASES:
        runs = {a: [], b: []}
        for _ in range(PAIRS):
            for binary in (a, b):
                runs[binary].append(iops(binary, opts))
        ma, mb = statistics.median(runs[a]), statistics.median(runs[b])
        if per_io:
            ma, mb = 1e9 / ma, 1e9 / mb
            print(f"| {name} | {ma:.1f} | {mb:.1f} | {mb / ma:.2f} |")
        else:
            print(f"| {name} | {ma:,.0f} | {mb:,.0f} | {mb / ma:.2f} |")


if __name__ == "__main__":
    main()
