"""Write content, iolab against fio on /dev/zram0 (a compressing device, where what is written
decides what it costs): 4k randwrite QD1 per engine with each tool's defaults and with
--scramble_buffers=0 on both sides (5 interleaved pairs, medians), the randread ratio beside
for reference; then one size-based write job per tool on a freshly reset zram0, comparing
zram's mm_stat (stored and compressed bytes, same-filled and huge pages).
Run as root from the repository: python3 bench/write_content.py [--pairs N] [--runtime S]."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare as c  # noqa: E402

MM_STAT = ["orig_data_size", "compr_data_size", "mem_used_total", "mem_limit",
           "mem_used_max", "same_pages", "pages_compacted", "huge_pages"]


def reset_zram(size="1G"):
    with open("/sys/block/zram0/reset", "w") as f:
        f.write("1")
    with open("/sys/block/zram0/disksize", "w") as f:
        f.write(size)


def mm_stat():
    with open("/sys/block/zram0/mm_stat") as f:
        return dict(zip(MM_STAT, (int(v) for v in f.read().split())))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=3)
    a = ap.parse_args()
    timing = ["--time_based", f"--runtime={a.runtime}", "--ramp_time=1"]
    print("| engine | options | iolab IOPS | fio IOPS | write ratio | read ratio |")
    print("|---|---|---:|---:|---:|---:|")
    c.fill_zram()
    for eng in ["psync", "pvsync2", "libaio"]:
        base = ["--name=w", f"--filename={c.ZRAM}", "--direct=1", "--bs=4k", f"--ioengine={eng}",
                "--iodepth=1", "--size=512m", "--norandommap", *timing]
        r = c.measure(base + ["--rw=randread"], a.pairs, "read")
        read_ratio = r["iolab"]["iops"] / r["fio"]["iops"]
        for extra, label in (([], "defaults"), (["--scramble_buffers=0"], "scramble_buffers=0")):
            m = c.measure(base + ["--rw=randwrite", *extra], a.pairs, "write")
            print(f"| {eng} | {label} | {m['iolab']['iops']:,.0f} | {m['fio']['iops']:,.0f} | "
                  f"{m['iolab']['iops'] / m['fio']['iops']:.2f} | {read_ratio:.2f} |", flush=True)
    print()
    print("| tool | orig_data_size | compr_data_size | same_pages | huge_pages |")
    print("|---|---:|---:|---:|---:|")
    stats = {}
    job = ["--name=fill", f"--filename={c.ZRAM}", "--direct=1", "--rw=randwrite", "--bs=4k",
           "--ioengine=libaio", "--iodepth=8", "--size=256m"]
    for tool in ("iolab", "fio"):
        reset_zram()
        c.run_json(c.tool_cmd(tool, job))
        stats[tool] = s = mm_stat()
        print(f"| {tool} | {s['orig_data_size']:,} | {s['compr_data_size']:,} | "
              f"{s['same_pages']:,} | {s['huge_pages']:,} |")
    i, f = stats["iolab"], stats["fio"]
    print(f"\ncompressed size iolab/fio: {i['compr_data_size'] / max(f['compr_data_size'], 1):.3f}")
    reset_zram()


if __name__ == "__main__":
    main()
