#!/usr/bin/env python3
"""Peak IOPS per core: iolab against Jens Axboe's t/io_uring and against fio, at every depth.

t/io_uring (from fio's own source tree) is what a kernel engineer runs to see how fast one
core can drive a device: no latency tracking, one io_uring_enter per round, every setup
flag the kernel has. This benchmark builds it from the source of the fio Debian ships (the
same 3.33 we compare against: `apt-get source fio`, adding a deb-src line for the installed
suite when there is none), then runs, interleaved on the same device, for QD 1..128:

  io_uring: iolab, iolab with gtod_reduce=1, t/io_uring and fio, 4 KiB random reads,
            O_DIRECT, fixed buffers, registered files, the same batches (submit and
            complete-min b = max(1, QD/4), as t/io_uring's -s/-c; complete-max = QD, since
            t/io_uring reaps all it finds). t/io_uring reads no clock per I/O; iolab with
            gtod_reduce=1 neither (and then submits and waits in one io_uring_enter, as
            t/io_uring does), so that column is the like-for-like one; plain iolab measures
            slat, clat and lat per I/O as fio does. iolab's workers drop glibc's rseq
            registration (see README, --keep-rseq); t/io_uring runs twice, as it is and
            with GLIBC_TUNABLES=glibc.pthread.rseq=0, so both ratios are in the table;
  libaio:   iolab and fio with the same options and batches.

With --cpus (default: the last CPU), every tool runs under `taskset -c CPUS`: its threads
and the io-wq workers its ring creates (they inherit the mask) share those CPUs, so one CPU
is literally IOPS per core, and the runs are far steadier than unpinned ones (`--cpus all`),
where each I/O pays a wake-up across CPUs between the submitter and its io-wq worker.

Each figure is the median of --pairs runs per tool. IOPS is each tool's own figure (t/io_uring:
the mean of its once-a-second IOPS lines). CPU is the same for all three tools: the process's
user + system time from wait4() (it includes io-wq workers, which are threads of the process),
so IOPS per CPU-second = IOPS x runtime / CPU-seconds. Sleeps per I/O, from the same
rusage (voluntary context switches over the I/Os done), show how often the submitter and its
io-wq worker hand the CPU to each other, which on one CPU decides much of io_uring's figure
on zram (BENCHMARKS.md: the QD4 row against fio). With --perf, each tool is also sampled
with `perf record -e cpu-clock` at QD1 and QD32 and the top symbols are listed: where the
cycles go per I/O.

Usage (root; overwrites /dev/zram0, sizing it to 1 GiB when it has no size):
    python3 bench/peak.py [--pairs 5] [--runtime 3] [--depths 1,2,4,8,16,32,64,128]
                          [--cpus N|all] [--perf] [--out BENCHMARKS.md]
"""

import argparse
import glob
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import compare as c

ROOT = c.ROOT
IOLAB = c.IOLAB
ZRAM = c.ZRAM
GTOD = "iolab gtod_reduce"
# t/io_uring with glibc's rseq registration off, as iolab's workers run (--keep-rseq keeps
# it): the like-for-like reference for the kernel's per-sleep rseq update.
T_NORSEQ = "t/io_uring rseq off"
CPUS = "all"
CACHE = os.path.join(ROOT, "target", "peak")
BEGIN = "<!-- bench/peak.py: begin -->"
END = "<!-- bench/peak.py: end -->"


def sh(cmd, **kw):
    print("+", " ".join(cmd) if isinstance(cmd, list) else cmd, file=sys.stderr)
    return subprocess.run(cmd, check=True, **kw)


def fio_version():
    out = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    return out.removeprefix("fio-")


def ensure_deb_src():
    """A deb-src entry for the suite the installed packages come from, if none exists."""
    for f in glob.glob("/etc/apt/sources.list.d/*.sources"):
        if re.search(r"^Types:.*\bdeb-src\b", open(f).read(), re.M):
            return
    for f in glob.glob("/etc/apt/sources.list*") + glob.glob("/etc/apt/sources.list.d/*.list"):
        if os.path.isfile(f) and re.search(r"^\s*deb-src\s", open(f).read(), re.M):
            return
    # Every deb stanza gets its deb-src twin: the installed fio may come from any of them
    # (bookworm's 3.33 sits beside bookworm-backports, and the first file found may be the
    # backports one, which has no fio 3.33 source).
    debs = []
    for f in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for stanza in open(f).read().split("\n\n"):
            if re.search(r"^Types:\s*deb\s*$", stanza, re.M) and "debian-security" not in stanza:
                debs.append(stanza)
    if not debs:
        sys.exit("no deb entry in /etc/apt/sources.list.d/*.sources to copy a deb-src line from")
    src = "\n\n".join(re.sub(r"^Types:.*$", "Types: deb-src", d, flags=re.M).strip()
                       for d in debs)
    with open("/etc/apt/sources.list.d/iolab-peak-deb-src.sources", "w") as f:
        f.write(src.strip() + "\n")
    sh(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL)


def t_io_uring():
    """Path of t/io_uring built from the installed fio's Debian source (cached)."""
    version = fio_version()
    tree = os.path.join(CACHE, f"fio-{version}")
    binary = os.path.join(tree, "t", "io_uring")
    if os.path.exists(binary):
        return binary
    os.makedirs(CACHE, exist_ok=True)
    if not os.path.isdir(tree):
        ensure_deb_src()
        if shutil.which("dpkg-source") is None:
            sh(["apt-get", "install", "-y", "-q", "dpkg-dev"], stdout=subprocess.DEVNULL)
        deb = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "fio"], capture_output=True,
                             text=True).stdout.strip()
        get = ["apt-get", "source", "-q", f"fio={deb}" if deb else "fio"]
        if subprocess.run(get, cwd=CACHE, stdout=subprocess.DEVNULL).returncode != 0:
            # The source lists may never have been fetched.
            sh(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL)
            sh(get, cwd=CACHE, stdout=subprocess.DEVNULL)
        found = [d for d in glob.glob(os.path.join(CACHE, "fio-*")) if os.path.isdir(d)]
        if tree not in found:
            sys.exit(f"apt-get source fio gave {found}, not {tree}")
    sh(["./configure"], cwd=tree, stdout=subprocess.DEVNULL)
    sh(["make", f"-j{os.cpu_count()}", "t/io_uring"], cwd=tree, stdout=subprocess.DEVNULL)
    return binary


def fill_device():
    """zram sized and written end to end with incompressible data: t/io_uring reads the
    whole device, and unwritten zram pages read faster than written ones."""
    with open("/sys/block/zram0/disksize") as f:
        if int(f.read().strip() or 0) == 0:
            with open("/sys/block/zram0/disksize", "w") as w:
                w.write("1G")
    sh([IOLAB, "run", "--name=fill", f"--filename={ZRAM}", "--rw=write", "--bs=1m", "--direct=1",
        "--ioengine=libaio", "--iodepth=8", "--allow-destroy", "--db=/tmp/iolab-bench-peak.db"],
       capture_output=True)


def pinned(cmd):
    """`cmd` under taskset when --cpus pins the tools."""
    return ["taskset", "-c", CPUS, *cmd] if CPUS != "all" else cmd


def batch(qd):
    return max(1, qd // 4)


def commands(tool, engine, qd, runtime, iolab=None, extra=()):
    """One run's command; `iolab` (default: this checkout's build, with this benchmark's
    database) and `extra` (more iolab options) let bench/ab_peak.py run other builds."""
    b = batch(qd)
    extra = list(extra)
    if tool == GTOD:
        tool, extra = "iolab", ["--gtod_reduce=1", *extra]
    if tool == T_NORSEQ:
        return ["env", "GLIBC_TUNABLES=glibc.pthread.rseq=0",
                *commands("t/io_uring", engine, qd, runtime)]
    if tool == "t/io_uring":
        return [T_IO_URING, f"-d{qd}", f"-s{b}", f"-c{b}", "-b4096", "-p0", "-B1", "-F1", "-n1",
                "-R1", "-X1", f"-r{runtime}", ZRAM]
    opts = [f"--name=peak", f"--filename={ZRAM}", "--direct=1", "--rw=randread", "--bs=4k",
            f"--ioengine={engine}", f"--iodepth={qd}", f"--iodepth_batch_submit={b}",
            f"--iodepth_batch_complete_min={b}", f"--iodepth_batch_complete_max={qd}",
            "--norandommap", "--time_based", f"--runtime={runtime}", "--output-format=json"]
    if engine == "io_uring":
        opts += ["--fixedbufs", "--registerfiles"]
    if tool == "iolab":
        # One database per build: two builds may be at different schema versions.
        db = ("/tmp/iolab-bench-peak.db" if iolab is None
              else f"/tmp/iolab-bench-peak-{re.sub('[^A-Za-z0-9]', '_', iolab)}.db")
        return [iolab or IOLAB, "run", *opts, *extra, "--allow-destroy", f"--db={db}"]
    return ["fio", *opts, "--thread"]


def measure(tools, engine, qd, runtime, pairs):
    got = {t: [] for t in tools}
    for _ in range(pairs):
        for t in tools:
            got[t].append(timed(t, engine, qd, runtime))
    return {t: tuple(statistics.median(run[k] for run in v) for k in range(3))
            for t, v in got.items()}


def timed(tool, engine, qd, runtime, iolab=None, extra=()):
    """Runs one tool once under wait4 and returns (IOPS, IOPS per CPU-second, sleeps per
    I/O): the process's voluntary context switches (its threads' and its io-wq workers')
    over the I/Os it did, read from the same rusage, so nothing traces the run."""
    cmd = pinned(commands(tool, engine, qd, runtime, iolab, extra))
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf)
        out = p.stdout.read().decode()
        _, status, ru = os.wait4(p.pid, 0)
        errf.seek(0)
        err = errf.read().decode()
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}\n{err}")
    if tool.startswith("t/io_uring"):
        lines = [float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
                 for m in re.finditer(r"^IOPS=([\d.]+)([KM]?),", out, re.M)]
        if not lines:
            sys.exit(f"t/io_uring printed no IOPS line:\n{out}\n{err}")
        iops = statistics.mean(lines)
    else:
        iops = json.loads(out[out.find("{"):])["jobs"][0]["read"]["iops"]
    cpu = ru.ru_utime + ru.ru_stime
    sleeps = ru.ru_nvcsw / (iops * runtime) if iops > 0 else 0.0
    print(f"  {tool} {engine} QD{qd}: {iops:,.0f} IOPS, {cpu:.2f} CPU-s, "
          f"{sleeps:.2f} sleeps per I/O", file=sys.stderr)
    return iops, iops * runtime / cpu if cpu > 0 else 0.0, sleeps


def perf_top(tool, engine, qd, runtime, n=10):
    """One run sampled by perf (cpu-clock: this VM has no PMU): the share of samples in user
    space (the tool and its libraries) and the top `n` symbols."""
    data = f"/tmp/iolab-peak-{re.sub('[^a-z]', '_', tool)}-{engine}-{qd}.perf"
    cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-o", data, "--",
           *pinned(commands(tool, engine, qd, runtime))]
    subprocess.run(cmd, check=True, capture_output=True)

    def report(sort):
        out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", sort,
                              "--percent-limit", "0.1"],
                             check=True, capture_output=True, text=True).stdout
        return [line.split() for line in out.splitlines()
                if re.match(r"\s*[\d.]+%", line)]

    user = sum(float(r[0].rstrip("%")) for r in report("dso") if r[1] != "[kernel.kallsyms]")
    rows = [(float(r[0].rstrip("%")), r[1], re.sub(r"(\s+-)+$", "", " ".join(r[3:])))
            for r in report("dso,symbol")]
    return user, rows[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--depths", default="1,2,4,8,16,32,64,128")
    ap.add_argument("--engines", default="io_uring,libaio")
    ap.add_argument("--cpus", default=str(os.cpu_count() - 1),
                    help="taskset CPU list every tool runs on (default: the last CPU); "
                         "'all': not pinned")
    ap.add_argument("--perf", action="store_true", help="also sample each tool with perf")
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"),
                    help="file whose peak section is replaced ('-': print only)")
    a = ap.parse_args()
    global T_IO_URING, CPUS
    T_IO_URING = t_io_uring()
    CPUS = a.cpus
    if not os.path.exists(IOLAB):
        sh(["cargo", "build", "--release", "-p", "iolab"], cwd=ROOT)
    fill_device()
    depths = [int(d) for d in a.depths.split(",")]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = []
    say = lines.append
    say(BEGIN)
    say("## Peak IOPS per core: iolab, t/io_uring and fio at every depth (issue 17)\n")
    say(f"Measured by `bench/peak.py` (re-run: `python3 bench/peak.py --pairs {a.pairs} "
        f"--runtime {a.runtime} --cpus {a.cpus}{' --perf' if a.perf else ''}`, as root).\n")
    say(f"- date: {started}; host: {platform.node()}, {os.cpu_count()} CPUs "
        f"({cpu_model()}), kernel {platform.release()}")
    say(f"- fio {fio_version()} (Debian) and t/io_uring built from its Debian source; "
        f"{subprocess.run([IOLAB, '--version'], capture_output=True, text=True).stdout.strip()}")
    say(f"- /dev/zram0, 1 GiB, written end to end first; 4 KiB random reads, O_DIRECT; "
        f"{a.runtime} s per run; median of {a.pairs} interleaved runs per tool.")
    say("- batches: submit and complete-min b = max(1, QD/4) (t/io_uring `-s b -c b`), "
        "complete-max = QD; io_uring with fixed buffers and registered files (`-B1 -F1`).")
    say("- CPU-seconds: the process's user + system time (wait4), the same for every tool; "
        "it includes io-wq workers (zram has no NOWAIT, so io_uring hands every read to one).")
    say(f"- CPUs: {'not pinned' if a.cpus == 'all' else f'every tool under `taskset -c {a.cpus}`'}"
        f"{'' if a.cpus == 'all' else ': its threads and its io-wq workers share them (one CPU: IOPS per core)'}.\n")
    medians = {}
    for engine in a.engines.split(","):
        tools = (["iolab", GTOD, "t/io_uring", T_NORSEQ, "fio"] if engine == "io_uring"
                 else ["iolab", "fio"])
        say(f"### {engine}\n")
        if engine == "io_uring":
            say("| QD | batch | iolab IOPS | iolab gtod_reduce IOPS | t/io_uring IOPS | "
                "t/io_uring rseq off IOPS | fio IOPS | "
                "iolab gtod_reduce / t/io_uring | iolab gtod_reduce / t/io_uring rseq off | "
                "iolab / t/io_uring | iolab / fio | "
                "iolab IOPS/CPU-s | iolab gtod_reduce IOPS/CPU-s | t/io_uring IOPS/CPU-s | "
                "fio IOPS/CPU-s |")
            say("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        else:
            say("| QD | batch | iolab IOPS | fio IOPS | iolab/fio | iolab IOPS/CPU-s | "
                "fio IOPS/CPU-s |")
            say("|---:|---:|---:|---:|---:|---:|---:|")
        for qd in depths:
            print(f"{engine} QD{qd}...", file=sys.stderr)
            m = measure(tools, engine, qd, a.runtime, a.pairs)
            for t, v in m.items():
                medians[(engine, qd, t)] = v
            i, f = m["iolab"], m["fio"]
            if engine == "io_uring":
                t, g, tn = m["t/io_uring"], m[GTOD], m[T_NORSEQ]
                say(f"| {qd} | {batch(qd)} | {i[0]:,.0f} | {g[0]:,.0f} | {t[0]:,.0f} | "
                    f"{tn[0]:,.0f} | {f[0]:,.0f} | **{g[0] / t[0]:.2f}** | {g[0] / tn[0]:.2f} | "
                    f"{i[0] / t[0]:.2f} | "
                    f"**{i[0] / f[0]:.2f}** | {i[1]:,.0f} | {g[1]:,.0f} | {t[1]:,.0f} | "
                    f"{f[1]:,.0f} |")
            else:
                say(f"| {qd} | {batch(qd)} | {i[0]:,.0f} | {f[0]:,.0f} | {i[0] / f[0]:.2f} | "
                    f"{i[1]:,.0f} | {f[1]:,.0f} |")
        say("")
        if engine == "io_uring":
            sleeps_table(engine, tools, depths, medians, say)
    if a.perf:
        perf_section(a, say, medians)
    say(END)
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out != "-":
        write_section(a.out, text)
        print(f"wrote the peak section of {a.out}", file=sys.stderr)


def sleeps_table(engine, tools, depths, medians, say):
    """Voluntary context switches per I/O, the medians' runs: on one CPU, each is the
    submitter (or the io-wq worker) going to sleep, and the other taking the CPU."""
    say(f"Sleeps per I/O, {engine} (voluntary context switches of the process, its io-wq "
        "workers included, from the same wait4 rusage over the I/Os done; median of the runs "
        "above):\n")
    say("| QD | " + " | ".join(tools) + " |")
    say("|---:|" + "---:|" * len(tools))
    for qd in depths:
        say(f"| {qd} | " + " | ".join(f"{medians[(engine, qd, t)][2]:.2f}" for t in tools)
            + " |")
    say("")


def perf_section(a, say, medians):
    say("### Where the cycles go (perf, io_uring)\n")
    say("One run per tool sampled with `perf record -e cpu-clock` (no PMU in this VM); "
        "CPU ns per I/O from the medians above (10^9 / IOPS per CPU-second); the share of "
        "samples in user space (the tool and its libraries), and the top symbols "
        "(`perf report --sort dso,symbol`). The rest is the kernel: io_uring, the block "
        "layer, zram's decompression (`zs_obj_read_begin`, `copy_page`) and the io-wq "
        "worker's wake-ups (`_raw_spin_unlock_irqrestore`, `finish_task_switch`).\n")
    for qd in (1, 32):
        for tool in ("iolab", GTOD, "t/io_uring"):
            user, rows = perf_top(tool, "io_uring", qd, a.runtime)
            per_cpu_s = medians.get(("io_uring", qd, tool), (0, 0, 0))[1]
            ns = f"{1e9 / per_cpu_s:,.0f} CPU ns per I/O, " if per_cpu_s else ""
            say(f"**{tool}, QD{qd}** (batch {batch(qd)}): {ns}{user:.1f} % of samples in "
                f"user space\n")
            say("| % | object | symbol |\n|---:|---|---|")
            for pct, dso, sym in rows:
                say(f"| {pct:.1f} | {dso} | `{sym}` |")
            say("")


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def write_section(path, text):
    old = open(path).read() if os.path.exists(path) else ""
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        new = head + text + ("\n" + tail if tail else "")
    else:
        new = old.rstrip("\n") + "\n\n" + text
    with open(path, "w") as f:
        f.write(new)


if __name__ == "__main__":
    main()
