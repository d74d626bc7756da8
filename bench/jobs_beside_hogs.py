"""Jobs side by side on a busy machine: iolab's threads against fio's processes (fio's default,
no --thread), each with two CPU hogs (`sh -c 'while :; do :; done'`) running beside it,
interleaved pairs, medians. Rows: 2 and 4 jobs of 4 KiB random reads with psync and with
libaio at depth 8, and of 1 MiB sequential writes (libaio, depth 8), on /dev/zram0.

    python3 bench/jobs_beside_hogs.py [--pairs N] [--runtime S] [--hogs H]

Run as root from the repository after `cargo build --release`, with nothing else running
(the hogs are the load). Besides the total IOPS it prints each tool's CPU: the share of the
machine its jobs got (usr + sys of the run's wall time, summed over jobs), and how many I/Os
each CPU-second bought, so a difference can be told apart as "got less CPU" (the scheduler)
or "did less with it" (the tool)."""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare as c  # noqa: E402

ROWS = [
    ("psync 4k randread", ["--ioengine=psync", "--rw=randread", "--bs=4k"]),
    ("libaio QD8 4k randread", ["--ioengine=libaio", "--iodepth=8", "--rw=randread", "--bs=4k"]),
    ("libaio QD8 1M write", ["--ioengine=libaio", "--iodepth=8", "--rw=write", "--bs=1m"]),
]


def run(tool, opts):
    cmd = ([c.IOLAB, "run", "--allow-destroy"] if tool == "iolab" else ["fio"]) + opts + [
        "--output-format=json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr}")
    doc = json.loads(p.stdout[p.stdout.find("{"):])
    jobs = doc["jobs"]
    ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)
    runtime_s = max(j["job_runtime"] for j in jobs) / 1000.0
    cpu_s = sum((j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0 for j in jobs)
    return {"iops": iops, "cpu_share": cpu_s / runtime_s, "ios_per_cpu_s": ios / max(cpu_s, 1e-9)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--hogs", type=int, default=2)
    ap.add_argument("--autogroup", choices=["0", "1"],
                    help="set kernel.sched_autogroup_enabled for the run (restored after)")
    a = ap.parse_args()
    knob = "/proc/sys/kernel/sched_autogroup_enabled"
    was = open(knob).read().strip() if os.path.exists(knob) else None
    if a.autogroup is not None and was is not None:
        with open(knob, "w") as f:
            f.write(a.autogroup)
    try:
        rows(a, was if a.autogroup is None else a.autogroup)
    finally:
        if a.autogroup is not None and was is not None:
            with open(knob, "w") as f:
                f.write(was)


def rows(a, autogroup):
    c.fill_zram()
    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(a.hogs)]
    try:
        print(f"{a.hogs} CPU hogs running; sched_autogroup_enabled={autogroup}; {a.pairs} "
              f"interleaved pairs of {a.runtime} s; medians")
        print("| jobs | workload | iolab IOPS | fio IOPS | iolab / fio | CPUs used iolab / fio "
              "| I/Os per CPU-s iolab / fio |")
        print("|---:|---|---:|---:|---:|---|---|")
        for numjobs in (2, 4):
            for label, opts in ROWS:
                # Writers each get a 256 MiB share of the device; readers all read 512 MiB.
                region = (["--size=256m", "--offset_increment=256m"] if "write" in label
                          else ["--size=512m"])
                job = ["--name=j", f"--filename={c.ZRAM}", "--direct=1", f"--numjobs={numjobs}",
                       "--time_based", f"--runtime={a.runtime}", *region, *opts]
                got = {"iolab": [], "fio": []}
                for _ in range(a.pairs):
                    for tool in ("iolab", "fio"):
                        got[tool].append(run(tool, job))
                med = {t: {k: statistics.median(r[k] for r in v) for k in v[0]}
                       for t, v in got.items()}
                i, f = med["iolab"], med["fio"]
                print(f"| {numjobs} | {label} | {i['iops']:,.0f} | {f['iops']:,.0f} | "
                      f"{i['iops'] / f['iops']:.2f} | {i['cpu_share']:.2f} / {f['cpu_share']:.2f} "
                      f"| {i['ios_per_cpu_s']:,.0f} / {f['ios_per_cpu_s']:,.0f} |", flush=True)
    finally:
        for h in hogs:
            h.kill()


if __name__ == "__main__":
    main()
