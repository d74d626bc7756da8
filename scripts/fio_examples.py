#!/usr/bin/env python3
"""Runs fio's own example job files through fio and iolab, shrunk, and compares them.

    python3 scripts/fio_examples.py FIO_SOURCE/examples [--iolab PATH] [--keep]
    python3 scripts/fio_examples.py crates/cli/tests/corpus      # the project's own corpus

Each example whose engines iolab has (psync, sync, vsync, pvsync, pvsync2, libaio, io_uring, null,
mmap, posixaio, splice, cpuio, falloc, ftruncate, filecreate, filestat, filedelete) is
rewritten so it can run on any machine without touching a disk: every `filename` and
`directory` points into a fresh temporary directory, every `size`, `filesize`, `io_size` and
`offset_increment` becomes 4 MiB (64 MiB with `randrepeat=0`, 8 KiB under a `rate` of a few
KB/s), an offset in GiB or TiB or past that size 0, a `zonemode=zbd` example's `zonesize` 1 MiB
(its files made at that size first, as fio's emulated zones need), `loops` at most 2, `runtime` 1 s, `ss_dur` 2 s, and
`ramp_time`, `startdelay` and `ss_ramp` go. Both tools then run the rewritten file with
--output-format=json, each process unable to write a file past 1 GiB (RLIMIT_FSIZE), so no
example can fill the disk. fio does not run an example with `fill_device` and no `size` at all
(it would fill the filesystem the temporary directory is on); iolab runs it, filling only up to the 5 %
of the filesystem it leaves free and the 1 GiB limit. The table says, per example, whether each
tool ran it (exit 0), and for jobs that are not time-based whether iolab moved the same
bytes and I/Os as fio, job by job (where the counts rest on the random numbers, which differ
between the tools: bytes within 1 % and I/Os within 5 %, or else within what fio itself moves
over five other seeds). An example iolab refuses shows its one-line reason; the last line
counts the examples fio runs and how many of them iolab runs.

Exit status: 0 when every example that fio runs either runs in iolab with the same bytes
and I/Os or is refused with exit 2; 1 otherwise.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ENGINES = {"psync", "sync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "null", "mmap", "posixaio", "falloc", "ftruncate",
           "filecreate", "filestat", "filedelete", "splice", "cpuio", "exec", "e4defrag",
           # fio's own names for libaio.
           "aio", "linuxaio"}
# fio's engines that drive sockets, not storage: iolab refuses them by design (exit 2, with
# the reason), and fio's run would need a listener, so only iolab runs such a file.
REFUSED_BY_DESIGN = {"net", "netsplice"}
# Examples fio itself refuses on this build (uring-cmd-ng needs a kernel NVMe char device).
SKIP = {"uring-cmd-ng.fio"}
DROP = ("ramp_time", "startdelay", "ss_ramp", "steadystate_ramp_time")


def engines_of(text):
    found = set(re.findall(r"^\s*ioengine\s*=\s*(\S+)", text, re.M))
    return found or {"psync"}


def shrunk_size(text):
    """The size every sized option of an example becomes (see `shrink`)."""
    if slow_rate(text) and not re.search(r"^\s*exitall", text, re.M):
        # A job capped at a few KB/s (1mbs_clients: 1250 B/s) moves two blocks, not 4 MiB
        # (unless another job's end stops it: exitwhat.fio's are cut short by exitall).
        return "8k"
    return "64m" if random_sizes(text) else "4m"


def random_sizes(text):
    """Whether the I/O counts depend on the random numbers (which differ between the tools):
    fresh ones each run (`randrepeat=0`), or block sizes drawn from a range or split."""
    return re.search(r"^\s*(randrepeat\s*=\s*0|bsrange|bssplit|blocksize_range)", text, re.M) is not None


def shrink(text, tmp):
    """The example, runnable in `tmp`: its targets inside it, its sizes and times small.
    Where the I/O counts depend on the random numbers (`randrepeat=0`, random block sizes),
    which differ between the tools, sizes are 64 MiB: over 4 MiB a random block-size mix
    (jesd219's bssplit) moves its bytes in a count of I/Os that varies by ~6% from seed to
    seed in either tool."""
    size = shrunk_size(text)
    zbd = re.search(r"^\s*zonemode\s*=\s*zbd", text, re.M) is not None
    out = []
    # With a directory, file names stay relative to it (fio puts the directory before
    # every name, absolute ones too).
    has_dir = re.search(r"^\s*directory\s*=", text, re.M) is not None
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip()
        if key in ("filename", "directory"):
            value = line.split("=", 1)[1].split("#")[0].split(";")[0].strip()
            names = [n for n in value.split(":") if n]
            if key == "directory":
                line = f"directory={tmp}"
            else:
                safe = [re.sub(r"[^A-Za-z0-9_.-]", "_", n.strip("/")) or "f" for n in names]
                base = "" if has_dir else tmp
                line = "filename=" + ":".join(os.path.join(base, s) for s in safe)
        elif key in ("size", "filesize", "io_size", "io_limit", "offset_increment"):
            line = f"{key}={size}"
        elif key == "offset" and offset_too_far(line.split("=", 1)[1], size):
            line = "offset=0"
        elif key == "zonesize" and zbd:
            line = "zonesize=1m"
        elif key == "loops":
            # fsx.fio's 500000 loops would take hours in either tool.
            line = f"loops={min(int(line.split('=', 1)[1].split()[0]), 2)}"
        elif key == "runtime":
            line = "runtime=1"
        elif key in ("ss_dur", "steadystate_duration"):
            line = f"{key}=2"
        elif key in DROP:
            continue
        out.append(line)
    # Jobs without a size (devices in the original) get one.
    return f"[global]\nsize={size}\n" + "\n".join(out) + "\n"


def offset_too_far(value, size):
    """An offset in GiB or TiB, or a byte count past the shrunk size (zbd-seq-read's zone
    524): it becomes 0."""
    value = value.split("#")[0].split(";")[0].strip()
    if re.search(r"[gGtT]", value):
        return True
    units = {"k": 1 << 10, "m": 1 << 20}
    return value.isdigit() and int(value) >= int(size[:-1]) * units[size[-1]]


def zbd_files(job_text, size):
    """The files of a `zonemode=zbd` example, made at the shrunk size before fio runs it:
    fio sizes emulated zones from the file as it is before the job (an absent one is 0 bytes,
    smaller than a zone)."""
    if not re.search(r"^\s*zonemode\s*=\s*zbd", job_text, re.M):
        return []
    units = {"k": 1 << 10, "m": 1 << 20}
    names = re.findall(r"^\s*filename\s*=\s*(\S+)", job_text, re.M)
    return [(n, int(size[:-1]) * units[size[-1]]) for n in names]


def slow_rate(text):
    """Whether a `rate=` (bytes per second, fio's suffixes) is under 64 KiB/s."""
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    for v in re.findall(r"^\s*rate\s*=\s*([0-9]+)([kKmMgG]?)", text, re.M):
        if int(v[0]) * mult[v[1].lower()] < 64 << 10:
            return True
    return False


FILE_LIMIT = 1 << 30


def no_big_files():
    import resource
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def run(tool, job, cwd, extra=()):
    cmd = [tool, "--output-format=json", *extra, job] if tool.endswith("fio") else [tool, "run", "--output-format=json", job]
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=no_big_files)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        # fio's job processes start sessions of their own and hold the pipes: each is found
        # by the job file's path, unique to this run.
        p.kill()
        subprocess.run(["pkill", "-9", "-f", job], capture_output=True)
        try:
            p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        return 124, None, "timed out"
    p = subprocess.CompletedProcess(cmd, p.returncode, out, err)
    doc = None
    if p.returncode == 0:
        s = p.stdout
        try:
            doc = json.loads(s[s.find("{"):])
        except ValueError:
            pass
    err = (p.stderr.strip().splitlines() or [""])[-1]
    return p.returncode, doc, err


def per_job(doc, time_based):
    """(name, timed, ((read bytes, IOs), (write bytes, IOs))) per job; fio's JSON leaves
    valueless flags such as `time_based` out of its options, so the file says."""
    rows = []
    for j in doc.get("jobs", []):
        timed = time_based or "time_based" in j.get("job options", {})
        dirs = ("read", "write", "trim")
        rows.append((j["jobname"], timed, tuple((j[d]["io_bytes"], j[d]["total_ios"]) for d in dirs)))
    return rows


def close(a, b):
    """Random mixed block sizes and read/write mixes depend on the random numbers, which
    differ between the tools: the bytes of both directions together within 1% (a job without
    the random map overshoots its size by part of its last I/O) and I/O counts within 5%."""
    within = lambda x, y, share: abs(x - y) <= share * max(x, y)
    bytes_ok = within(sum(d[0] for d in a), sum(d[0] for d in b), 0.01)
    return bytes_ok and within(sum(d[1] for d in a), sum(d[1] for d in b), 0.05)


def random_end(text):
    """Random reads and writes with a block-size list per direction (`bssplit=A,B`): fio
    marks its one random map in each direction's own smallest size, so a write's block
    number lands on a read's bit and a draw can send the job past the file's end, which ends
    it early; how early depends on the random numbers, which differ between the tools (over
    12 seeds at 32 MiB: fio 28.1 MiB, iolab 28.3 MiB on average, each from 5 to 33 MiB)."""
    rw = re.search(r"^\s*(rw|readwrite)\s*=\s*(randrw|randwrite|randread)", text, re.M)
    return rw is not None and re.search(r"^\s*bssplit\s*=[^#;]*,", text, re.M) is not None


def within_size(rows, size):
    """Every job moved some bytes and no more than its size and one block."""
    return all(0 < sum(d[0] for d in r[2]) <= size + (1 << 20) for r in rows)


SEEDS = (1, 2, 3, 4, 5)


def within_seeds(fio, job, tmp, name, iolab_doc, time_based):
    """For a job whose I/O count rests on the random numbers: whether iolab's bytes and I/Os
    per job lie within what fio moves over five other seeds (`--randseed`), widened by 2 %;
    the verdict then, else None."""
    runs = []
    for seed in SEEDS:
        for entry in os.listdir(tmp):
            if entry != name:
                p = os.path.join(tmp, entry)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        code, doc, _ = run(fio, job, tmp, [f"--randseed={seed}"])
        if code != 0 or doc is None:
            return None
        runs.append(per_job(doc, time_based))
    ours = per_job(iolab_doc, time_based)
    for k, row in enumerate(ours):
        if row[1]:
            continue
        for total in (lambda d: sum(x[0] for x in d), lambda d: sum(x[1] for x in d)):
            seen = [total(r[k][2]) for r in runs if k < len(r)]
            if not seen or not min(seen) * 0.98 <= total(row[2]) <= max(seen) * 1.02:
                return None
    return f"bytes and I/Os within fio's over {len(SEEDS)} seeds (random sizes)"


def vsync_deep(text):
    """vsync at iodepth>1: fio 3.33 and 3.42 issue the same I/Os as iolab but count the
    bytes of only the I/O each reap finds (engines/sync.c keeps one event per commit), so
    fio's io_bytes is lower than what both moved."""
    vsync = re.search(r"^\s*ioengine\s*=\s*vsync\s*$", text, re.M) is not None
    depth = re.search(r"^\s*iodepth\s*=\s*(\d+)", text, re.M)
    return vsync and depth is not None and int(depth.group(1)) > 1


def compare_vsync(fio_doc, iolab_doc, time_based):
    """See `vsync_deep`: the same I/O counts per job, and iolab's bytes at least fio's."""
    f, i = per_job(fio_doc, time_based), per_job(iolab_doc, time_based)
    if [r[0] for r in f] != [r[0] for r in i]:
        return "jobs differ"
    for a, b in zip(f, i):
        if a[1] or b[1]:
            continue
        if [d[1] for d in a[2]] != [d[1] for d in b[2]]:
            return "I/Os differ: " + a[0]
        if sum(d[0] for d in b[2]) < sum(d[0] for d in a[2]):
            return "bytes differ: " + a[0]
    return "same I/Os; fio's vsync at iodepth>1 counts fewer bytes than it moves"


def compare(fio_doc, iolab_doc, time_based, chance_end=False, size=0):
    f, i = per_job(fio_doc, time_based), per_job(iolab_doc, time_based)
    idle = ((0, 0),) * 3
    if [r[0] for r in f if r[2] != idle] != [r[0] for r in i if r[2] != idle]:
        return "jobs differ"
    sized = [(a, b) for a, b in zip(f, i) if not a[1] and not b[1]]
    if chance_end and sized and within_size([b for _, b in sized], size):
        return f"random end, both within size ({len(sized)} sized job(s))"
    bad = [a[0] for a, b in sized if not close(a[2], b[2])]
    if bad:
        return "bytes/IOs differ: " + ", ".join(sorted(set(bad)))
    if not sized:
        return "time-based: ran"
    exact = all(a[2] == b[2] for a, b in sized)
    how = "same bytes and I/Os" if exact else "bytes within 1%, I/Os within 5% (random sizes)"
    return f"{how} ({len(sized)} sized job(s))"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("examples")
    ap.add_argument("--iolab", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "iolab"))
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories")
    ap.add_argument("only", nargs="*", help="run just these examples")
    a = ap.parse_args()
    iolab = os.path.abspath(a.iolab)
    names = sorted(n for n in os.listdir(a.examples) if n.endswith(".fio") and n not in SKIP)
    names = [n for n in names if not a.only or n in a.only]
    ok, failed, eligible, ran, fio_ran, both = 0, [], 0, 0, 0, 0
    print("| example | fio | iolab | compared |\n|---|---|---|---|")
    for name in names:
        text = open(os.path.join(a.examples, name)).read()
        if engines_of(text) & REFUSED_BY_DESIGN:
            eligible += 1
            tmp = tempfile.mkdtemp(prefix="ex-")
            job = os.path.join(tmp, name)
            with open(job, "w") as fh:
                fh.write(shrink(text, tmp))
            ic, _, ierr = run(iolab, job, tmp)
            if ic == 2:
                ok += 1
                verdict = "refused by design: " + ierr.replace("|", "/")[:100]
            else:
                failed.append(name)
                verdict = f"iolab exit {ic}, not the refusal by design"
            print(f"| {name} | not run | {ic} | {verdict} |", flush=True)
            shutil.rmtree(tmp, ignore_errors=True)
            continue
        if not engines_of(text) <= ENGINES:
            continue
        eligible += 1
        tmp = tempfile.mkdtemp(prefix="ex-")
        job = os.path.join(tmp, name)
        with open(job, "w") as fh:
            fh.write(shrink(text, tmp))
        # fill_device sizes a job to its file system only where it gives no size (fio's
        # fixup_options()); with a size, both tools move that size per loop.
        fills = (re.search(r"^\s*fill_device\s*(=\s*(1|true|on))?\s*$", text, re.M) is not None
                 and re.search(r"^\s*size\s*=", text, re.M) is None)
        for path, length in zbd_files(open(job).read(), shrunk_size(text)):
            with open(path, "wb") as fh:
                fh.truncate(length)
        fc, fdoc, ferr = (0, None, "") if fills else run(a.fio, job, tmp)
        # fio 3.33's offload workqueue now and then never finishes a job ("hasn't exited in
        # 300 seconds", fixed upstream in 2026: axboe/fio#2058): such a run is tried again.
        offload = re.search(r"^\s*io_submit_mode\s*=\s*offload", text, re.M) is not None
        for _ in range(3 if offload else 0):
            if fc != 124:
                break
            fc, fdoc, ferr = run(a.fio, job, tmp)
        for entry in os.listdir(tmp):
            if entry != name:
                p = os.path.join(tmp, entry)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        ic, idoc, ierr = run(iolab, job, tmp)
        if ic == 0:
            ran += 1
        if fc == 0 and not fills:
            fio_ran += 1
            both += ic == 0
        if fills:
            # iolab fills only up to its free-space reserve and the 1 GiB file size limit
            # the tools run under here, so it runs the example; fio would fill the disk.
            verdict = "fill_device: not run with fio; iolab " + ("ran (bounded)" if ic == 0 else f"exit {ic}")
            if ic == 0:
                ok += 1
            else:
                failed.append(name)
        elif fc != 0:
            verdict = "fio fails here: " + ferr[:60]
            ok += 1
        elif ic == 2:
            verdict = "refused: " + ierr.replace("|", "/")[:110]
            ok += 1
        elif ic != 0 or fdoc is None or idoc is None:
            ierr = ierr if ic != 0 else "no JSON from " + ("fio" if fdoc is None else "iolab")
            verdict = f"iolab exit {ic}: " + ierr.replace("|", "/")[:100]
            failed.append(name)
        else:
            timed = re.search(r"^\s*time_based\s*(=\s*(1|true|on))?\s*$", text, re.M) is not None
            units = {"k": 1 << 10, "m": 1 << 20}
            size = int(shrunk_size(text)[:-1]) * units[shrunk_size(text)[-1]]
            verdict = (compare_vsync(fdoc, idoc, timed) if vsync_deep(text)
                       else compare(fdoc, idoc, timed, random_end(text), size))
            if "differ" in verdict and random_sizes(text):
                verdict = within_seeds(a.fio, job, tmp, name, idoc, timed) or verdict
            if "differ" in verdict:
                failed.append(name)
            else:
                ok += 1
        print(f"| {name} | {fc} | {ic} | {verdict} |", flush=True)
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{ran} of {eligible} examples with iolab's engines ran in iolab; {ok} as they should; "
          f"not as they should: {', '.join(failed) or 'none'}")
    print(f"fio runs {fio_ran}; iolab runs {both} of those")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
