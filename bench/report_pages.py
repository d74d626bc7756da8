#!/usr/bin/env python3
"""The report's weight and drawing time, old build against new, on the same stored runs.

For each results database given (each holds run 1), both builds write `iolab report 1`;
the script gives each page's bytes, the time `iolab report` took, and the time headless
Chromium takes to open the page and run its scripts (`--dump-dom`, browser start included:
the `none` row is an empty page, the floor; "page work" is Chromium's time less that floor).
Runs interleave old/new, medians of --rounds.

    python3 bench/report_pages.py --old /tmp/old/target/release/iolab \
        --new target/release/iolab day.db cons.db quick.db
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time


def timed(cmd):
    t = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t


def browser(page):
    return timed(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                  "--dump-dom", "file://" + page])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("dbs", nargs="+")
    a = ap.parse_args()
    out = tempfile.mkdtemp()
    empty = os.path.join(out, "none.html")
    with open(empty, "w") as f:
        f.write("<!DOCTYPE html><title>none</title>")
    floor = statistics.median(browser(empty) for _ in range(a.rounds))
    print(f"browser start, empty page: {floor:.2f} s")
    print("| database | build | page bytes | iolab report (s) | Chromium (s) | page work (s) |")
    print("|---|---|---:|---:|---:|---:|")
    for db in a.dbs:
        rows = {}
        for _ in range(a.rounds):
            for name, exe in (("old", a.old), ("new", a.new)):
                page = os.path.join(out, f"{os.path.basename(db)}.{name}.html")
                made = timed([exe, "report", "1", "--db", db, "-o", page])
                drawn = browser(page)
                r = rows.setdefault(name, ([], [], page))
                r[0].append(made)
                r[1].append(drawn)
        for name in ("old", "new"):
            made, drawn, page = rows[name]
            d = statistics.median(drawn)
            print(f"| {os.path.basename(db)} | {name} | {os.path.getsize(page):,} | "
                  f"{statistics.median(made):.2f} | {d:.2f} | {d - floor:.2f} |")


if __name__ == "__main__":
    main()
