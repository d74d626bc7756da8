#!/bin/bash
# Two iolab builds side by side with their peers, interleaved, every tool pinned to one CPU, on
# /dev/zram0 written end to end (run bench/peak.py once first: it fills zram0 and builds
# t/io_uring into target/peak/). 4 KiB random reads, O_DIRECT, 3 s each. One line per round.
#
#   ENGINE=io_uring (default): iolab OLD and NEW with full figures (slat, clat, lat), with lat
#   only (--disable_slat=1 --disable_clat=1) and with gtod_reduce=1; t/io_uring plain and -t1;
#   fio with the same batching.
#   ENGINE=psync|pvsync2|libaio|...: iolab OLD and NEW, and fio, at depth QD (EXTRA: more
#   options for all three, e.g. --hipri=1).
#
# usage (root): bench/old_new.sh OLD NEW [QD] [BATCH] [ROUNDS] [CPU]
# e.g. issue 70:  git worktree add /tmp/old <commit>; (cd /tmp/old && cargo build --release)
#                 bench/old_new.sh /tmp/old/target/release/iolab target/release/iolab 1 1 5
set -euo pipefail
OLD=$1; NEW=$2; QD=${3:-1}; B=${4:-1}; R=${5:-5}; CPU=${6:-1}
ENGINE=${ENGINE:-io_uring}; EXTRA=${EXTRA:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FIO=${FIO:-fio}
J="--name=peak --filename=/dev/zram0 --direct=1 --rw=randread --bs=4k --ioengine=$ENGINE \
--iodepth=$QD --iodepth_batch_submit=$B --iodepth_batch_complete_min=$B \
--iodepth_batch_complete_max=$QD --norandommap --time_based --runtime=3 $EXTRA"
[ "$ENGINE" = io_uring ] && J="$J --fixedbufs --registerfiles"
# IOPS of one iolab run (terse field 8: read IOPS).
il() { taskset -c "$CPU" "$1" run $J --allow-destroy --db=/tmp/iolab-old-new.db \
  --output-format=terse "${@:2}" 2>/dev/null | cut -d';' -f8; }
fio_iops() { taskset -c "$CPU" "$FIO" $J --output-format=terse 2>/dev/null | cut -d';' -f8; }
if [ "$ENGINE" = io_uring ]; then
  T=$(ls "$ROOT"/target/peak/fio-*/t/io_uring | head -1)
  tio() { taskset -c "$CPU" "$T" -d"$QD" -s"$B" -c"$B" -b4096 -p0 -B1 -F1 -n1 -R1 -X1 -r3 "$@" \
    /dev/zram0 | grep -o "^IOPS=[0-9.]*K" | tail -1 | tr -d 'IOPS=K' \
    | awk '{printf "%d", $1 * 1000}'; }
  L="--disable_slat=1 --disable_clat=1"
  for _ in $(seq "$R"); do
    echo "old_full=$(il "$OLD") new_full=$(il "$NEW") old_lat=$(il "$OLD" $L)" \
      "new_lat=$(il "$NEW" $L) old_gtod=$(il "$OLD" --gtod_reduce=1)" \
      "new_gtod=$(il "$NEW" --gtod_reduce=1) t=$(tio) t_t1=$(tio -t1) fio=$(fio_iops)"
  done
else
  for _ in $(seq "$R"); do
    echo "old=$(il "$OLD") new=$(il "$NEW") fio=$(fio_iops)"
  done
fi
