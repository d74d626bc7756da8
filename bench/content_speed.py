"""How fast each tool makes the contents of its writes: the null engine's write bandwidth per
CPU-second (no device, so the contents are the work), iolab against fio, each pinned to one
CPU, interleaved pairs, medians. One row per kind of contents (fresh random data, compressible
at 50 %, dedupable at 30 % in both modes, scrambled, a buffer_pattern) at 4 KiB and 128 KiB.

    python3 bench/content_speed.py [--pairs N] [--runtime S] [--cpu C] [--fio PATH]

Run from the repository after `cargo build --release`, on a machine with nothing else running.
The ratio is iolab's bytes per CPU-second over fio's (above 1: iolab makes data faster)."""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare as c  # noqa: E402

CONTENTS = [
    ("refill_buffers", ["--refill_buffers"]),
    ("refill, compress 50 % in 4k chunks",
     ["--refill_buffers", "--buffer_compress_percentage=50", "--buffer_compress_chunk=4k"]),
    ("refill, dedupe 30 %", ["--refill_buffers", "--dedupe_percentage=30"]),
    ("refill, dedupe 30 %, working set",
     ["--refill_buffers", "--dedupe_percentage=30", "--dedupe_mode=working_set",
      "--dedupe_working_set_percentage=5"]),
    ("scramble_buffers=1", ["--scramble_buffers=1"]),
    # The compression before the pattern: fio's buffer_pattern callback turns refill_buffers
    # off for a write job when no compression is set yet (options.c), whatever was asked.
    ("refill, compress 50 %, buffer_pattern",
     ["--refill_buffers", "--buffer_compress_percentage=50", "--buffer_pattern=0xdeadbeef"]),
]


def per_cpu_s(cmd, cpu):
    job = c.run_json(["taskset", "-c", str(cpu), *cmd])["jobs"][0]
    cpu_frac = (job["usr_cpu"] + job["sys_cpu"]) / 100.0
    return job["write"]["bw_bytes"] / max(cpu_frac, 1e-3)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=2)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--fio", default="fio", help="the fio binary (default: fio on PATH)")
    ap.add_argument("only", nargs="*", help="run just the rows whose label starts so")
    a = ap.parse_args()
    print(f"iolab {c.IOLAB} against {a.fio}; pinned to CPU {a.cpu}; {a.pairs} interleaved pairs "
          f"of {a.runtime} s; medians of GB per CPU-second")
    print("| contents | bs | iolab GB/CPU-s | fio GB/CPU-s | iolab / fio |")
    print("|---|---|---:|---:|---:|")
    for label, opts in CONTENTS:
        if a.only and not any(label.startswith(o) for o in a.only):
            continue
        for bs in ("4k", "128k"):
            job = ["--name=w", "--ioengine=null", "--rw=write", f"--bs={bs}", "--size=1g",
                   "--time_based", f"--runtime={a.runtime}", *opts]
            got = {"iolab": [], "fio": []}
            for _ in range(a.pairs):
                got["iolab"].append(per_cpu_s(c.tool_cmd("iolab", job), a.cpu))
                fio = [a.fio, *job, "--output-format=json"]
                got["fio"].append(per_cpu_s(fio, a.cpu))
            i, f = (statistics.median(got[t]) for t in ("iolab", "fio"))
            print(f"| {label} | {bs} | {i / 1e9:.2f} | {f / 1e9:.2f} | {i / f:.2f} |", flush=True)


if __name__ == "__main__":
    main()
