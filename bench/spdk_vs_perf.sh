#!/usr/bin/env bash
# iolab's spdk engine against SPDK's own spdk_nvme_perf, in the NVMe lab (scripts/nvme-lab.sh
# --spdk): the same emulated controller, job (4 KiB random reads over the namespace), core
# (CPU 0) and duration, interleaved round by round; prints each round and the medians' ratio
# per queue depth. Emulation speed: compare the ratios, never the figures.
#
#   bash bench/spdk_vs_perf.sh [ROUNDS] [SECONDS]     (default 5 rounds of 5 s)
#
# Needs an iolab built with the feature spdk (IOLAB=..., default target/release/iolab).
set -euo pipefail
rounds=${1:-5} secs=${2:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
guest=$(cat <<GUEST
T="trtype=PCIe traddr=\$SPDK_TRADDR ns=1"
A="trtype:PCIe traddr:\$SPDK_TRADDR"
for r in \$(seq $rounds); do
  for qd in 1 32; do
    echo "=== iolab \$qd \$r"
    iolab run --ioengine=spdk --filename="\$T" --rw=randread --bs=4k --iodepth=\$qd \
      --time_based --runtime=$secs --cpus_allowed=0 --name=p --output-format=json 2>/dev/null
    echo "=== perf \$qd \$r"
    spdk_nvme_perf -q \$qd -o 4096 -w randread -t $secs -c 0x1 -r "\$A" 2>/dev/null
  done
done
GUEST
)
out=$(IOLAB=${IOLAB:-$repo/target/release/iolab} bash "$repo/scripts/nvme-lab.sh" --spdk \
  --timeout $((rounds * secs * 8 + 300)) -- "$guest" 2>/dev/null)
python3 - "$out" <<'PY'
import json, re, statistics, sys
text = sys.argv[1]
figs = {}
for part in text.split("=== ")[1:]:
    head, _, body = part.partition("\n")
    tool, qd, r = head.split()
    if tool == "iolab":
        j = json.loads(body[body.index("{"):])["jobs"][0]["read"]
        iops, lat = j["iops"], j["lat_ns"]["mean"] / 1000
    else:
        m = re.search(r"Total\s*:\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)", body)
        iops, lat = float(m.group(1)), float(m.group(3))
    figs.setdefault((int(qd), tool), []).append((int(r), iops, lat))
print("| QD | round | iolab IOPS | perf IOPS | iolab mean µs | perf mean µs |")
print("|---:|---:|---:|---:|---:|---:|")
for qd in sorted({q for q, _ in figs}):
    for (r, i, il), (_, p, pl) in zip(figs[(qd, "iolab")], figs[(qd, "perf")]):
        print(f"| {qd} | {r} | {i:,.0f} | {p:,.0f} | {il:.1f} | {pl:.1f} |")
print()
print("| QD | iolab median IOPS | perf median IOPS | ratio |")
print("|---:|---:|---:|---:|")
for qd in sorted({q for q, _ in figs}):
    i = statistics.median(x[1] for x in figs[(qd, "iolab")])
    p = statistics.median(x[1] for x in figs[(qd, "perf")])
    print(f"| {qd} | {i:,.0f} | {p:,.0f} | {i / p:.3f} |")
PY
