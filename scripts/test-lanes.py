#!/usr/bin/env python3
"""Runs the workspace's test binaries in two lanes and says where the time went.

    python3 scripts/test-lanes.py --log LOG [--lanes 1|2] [-- CARGO_TEST_ARGS...]

`cargo test` runs its binaries one after another. Most of the suite's time is in two kinds
of binary: the NVMe lab's (each boots Debian's kernel under QEMU's software emulation and
mostly waits on that one emulated CPU) and the host's (real I/O on temp files, zram and loop
devices). On a 2-CPU machine they run side by side: the labs in one lane, the rest in the
other, each lane one binary at a time (tests inside a binary keep sharing their locks, as
under `cargo test`); the small labs close the host's lane, which would end first. `--lanes 1` runs everything in one lane, as `cargo test` would.

The binaries are built first with the given cargo arguments (`cargo test ARGS --no-run`),
then each runs in its package's directory, as cargo runs it, with libtest's own per-test
times (`--report-time`). Every binary's output goes to LOG in one piece (its `test result:`
line included, for scripts/test-summary.sh). At the end: each binary's wall time, each
lane's, and the 20 slowest tests. Exit status: 0 when every binary passed, else 1.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

TIME = re.compile(r"^test (\S+) \.\.\. (\w+) <(\d+\.\d+)s>$")


def binaries(cargo_args):
    """(name, executable, package directory) of every test binary cargo builds."""
    cmd = ["cargo", "test", *cargo_args, "--no-run", "--message-format=json-render-diagnostics"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True).stdout
    found = []
    for line in out.splitlines():
        try:
            m = json.loads(line)
        except json.JSONDecodeError:
            continue
        if m.get("reason") != "compiler-artifact" or not m.get("executable"):
            continue
        if not m.get("profile", {}).get("test"):
            continue
        t = m["target"]
        kind = t["kind"][0]
        name = t["name"] if kind == "test" else f"{t['name']} ({kind})"
        found.append((name, m["executable"], os.path.dirname(m["manifest_path"])))
    return found


def is_lab(name):
    return name.endswith("_lab")


# The labs that hold the labs' lane for most of its time. The small labs (a boot and a few
# commands each) run at the end of the host's lane instead, which finishes minutes earlier:
# the two lanes then end together (measured: labs 1584 s against host 1390 s before).
LONG_LABS = ("pts_lab", "nvme_lab", "spdk_lab")


def in_labs_lane(name):
    return is_lab(name) and name in LONG_LABS


class Run:
    def __init__(self, name, exe, cwd):
        self.name, self.exe, self.cwd = name, exe, cwd
        self.secs = 0.0
        self.code = None
        self.output = ""
        self.tests = []  # (seconds, test name)

    def go(self, extra):
        env = dict(os.environ, RUSTC_BOOTSTRAP="1", CARGO_MANIFEST_DIR=self.cwd)
        start = time.monotonic()
        p = subprocess.run(
            [self.exe, "-Z", "unstable-options", "--report-time", "--show-output", *extra],
            cwd=self.cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        self.secs = time.monotonic() - start
        self.code = p.returncode
        self.output = p.stdout
        for line in p.stdout.splitlines():
            m = TIME.match(line.strip())
            if m:
                self.tests.append((float(m.group(3)), f"{self.name}::{m.group(1)}"))


def lane(runs, extra, log, lock, label):
    start = time.monotonic()
    for r in runs:
        with lock:
            print(f"test-lanes: [{label}] {r.name} ...", file=sys.stderr, flush=True)
        r.go(extra)
        with lock:
            log.write(f"\n### {r.name} ({r.secs:.0f} s, exit {r.code})\n{r.output}")
            log.flush()
            state = "ok" if r.code == 0 else f"FAILED (exit {r.code})"
            print(f"test-lanes: [{label}] {r.name}: {r.secs:.0f} s, {state}", file=sys.stderr, flush=True)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--lanes", type=int, default=2, choices=[1, 2])
    ap.add_argument("--only", help="run only binaries whose name contains this")
    ap.add_argument("cargo", nargs="*", help="cargo test arguments (after --)")
    a = ap.parse_args()
    found = binaries(a.cargo)
    if a.only:
        found = [b for b in found if a.only in b[0]]
    runs = [Run(*b) for b in found]
    labs = [r for r in runs if in_labs_lane(r.name)]
    # The host's binaries first, the small labs after them.
    host = [r for r in runs if not is_lab(r.name)] + [
        r for r in runs if is_lab(r.name) and not in_labs_lane(r.name)
    ]
    lock = threading.Lock()
    wall = time.monotonic()
    with open(a.log, "a") as log:
        if a.lanes == 1 or not labs:
            lanes = {"all": lane(host + labs, [], log, lock, "all")}
        else:
            result = {}
            t = threading.Thread(target=lambda: result.update(labs=lane(labs, [], log, lock, "labs")))
            t.start()
            result["host"] = lane(host, [], log, lock, "host")
            t.join()
            lanes = result
    wall = time.monotonic() - wall
    print("\ntest-lanes: time per binary (wall seconds):")
    for r in sorted(runs, key=lambda r: -r.secs):
        lane_of = "labs" if in_labs_lane(r.name) and a.lanes == 2 else "host"
        state = "" if r.code == 0 else "  FAILED"
        print(f"  {r.secs:7.0f}  [{lane_of}] {r.name}{state}")
    for name, secs in lanes.items():
        print(f"  lane {name}: {secs:.0f} s")
    print(f"  all binaries: {wall:.0f} s wall ({wall / 60:.1f} min)")
    slow = sorted((t for r in runs for t in r.tests), reverse=True)[:20]
    print("test-lanes: the 20 slowest tests (seconds, as libtest timed them):")
    for secs, name in slow:
        print(f"  {secs:7.1f}  {name}")
    sys.exit(0 if all(r.code == 0 for r in runs) else 1)


if __name__ == "__main__":
    main()
