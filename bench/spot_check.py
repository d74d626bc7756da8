"""Quick check that a change to the worker loop did not slow the hot path: the null engine's
cost per I/O and QD1 4k random reads on /dev/zram0 (psync, libaio), iolab and fio side by side
(5 interleaved pairs, medians). Run as root from the repository: python3 bench/spot_check.py.
The full comparison is bench/compare.py."""
import os
import sys, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare as c
timing = ["--time_based", "--runtime=3", "--ramp_time=1"]
null_opts = ["--name=null", "--filename=/tmp/iolab-bench-null", "--size=64m", "--ioengine=null",
             "--rw=randread", "--bs=4k", "--iodepth=1", "--lat_percentiles=1", *timing]
n = c.measure(null_opts, 5, "read")
ns = {t: 1e9 / n[t]["iops"] for t in n}
print(f"null: iolab {ns['iolab']:.1f} ns fio {ns['fio']:.1f} ns ratio {ns['iolab']/ns['fio']:.2f}")
c.fill_zram()
for eng in ["psync", "libaio"]:
    opts = ["--name=qd1", f"--filename={c.ZRAM}", "--direct=1", "--rw=randread", "--bs=4k",
            f"--ioengine={eng}", "--iodepth=1", "--size=512m", "--norandommap", "--lat_percentiles=1", *timing]
    m = c.measure(opts, 5, "read")
    print(f"zram randread {eng}: iolab {m['iolab']['iops']:,.0f} fio {m['fio']['iops']:,.0f} ratio {m['iolab']['iops']/m['fio']['iops']:.2f}")
