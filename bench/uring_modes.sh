#!/bin/bash
# iolab's io_uring loop in its three recording modes beside fio's t/io_uring with and without
# its latency tracking (-t1), interleaved, every tool pinned to one CPU, on /dev/zram0 filled
# end to end (run bench/peak.py once first: it fills zram0 and builds t/io_uring into
# target/peak/). One line per round: IOPS of
#   full      iolab as fio's figures (slat, clat, lat per I/O: two enters per I/O at QD1)
#   lat_only  iolab with only lat per I/O (--disable_slat=1 --disable_clat=1: one enter)
#   gtod      iolab with gtod_reduce=1 (no clock per I/O)
#   t, t_t1   t/io_uring, and with -t1
# usage (root): bench/uring_modes.sh [QD] [BATCH] [ROUNDS] [IOLAB] [CPU]
set -euo pipefail
QD=${1:-1}; B=${2:-1}; R=${3:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
IL=${4:-$ROOT/target/release/iolab}; CPU=${5:-1}
T=$(ls "$ROOT"/target/peak/fio-*/t/io_uring | head -1)
I="$IL run --name=peak --filename=/dev/zram0 --direct=1 --rw=randread --bs=4k --ioengine=io_uring \
--iodepth=$QD --iodepth_batch_submit=$B --iodepth_batch_complete_min=$B \
--iodepth_batch_complete_max=$QD --norandommap --time_based --runtime=3 --fixedbufs \
--registerfiles --allow-destroy --db=/tmp/iolab-uring-modes.db --output-format=terse"
tio() { taskset -c "$CPU" "$T" -d"$QD" -s"$B" -c"$B" -b4096 -p0 -B1 -F1 -n1 -R1 -X1 -r3 "$@" /dev/zram0 \
  | grep -o "^IOPS=[0-9.]*K" | tail -1 | tr -d 'IOPS=K' | awk '{printf "%d", $1 * 1000}'; }
for _ in $(seq "$R"); do
  a=$(taskset -c "$CPU" $I 2>/dev/null | cut -d';' -f8)
  b=$(taskset -c "$CPU" $I --disable_slat=1 --disable_clat=1 2>/dev/null | cut -d';' -f8)
  c=$(taskset -c "$CPU" $I --gtod_reduce=1 2>/dev/null | cut -d';' -f8)
  echo "full=$a lat_only=$b gtod=$c t=$(tio) t_t1=$(tio -t1)"
done
