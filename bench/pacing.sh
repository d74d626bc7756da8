#!/bin/bash
# bench/pacing.sh [IOLAB] [randread|randwrite]: issue 80's five rate-limited jobs, each by fio
# (the installed 3.33) then by iolab, back to back, on /dev/zram1 (hot-add one first:
# cat /sys/class/zram-control/hot_add; echo 1G > /sys/block/zram1/disksize): IOPS, mean
# latency (ns) and iodepth_level. Writes destroy /dev/zram1's data.
IOLAB=${1:-target/release/iolab}; RW=${2:-randread}
py='import json,sys; j=json.load(sys.stdin)["jobs"][0]; d="read" if "read" in sys.argv[2] else "write"; r=j[d]; L=j["iodepth_level"]; print("%-5s %-55s iops %6d lat %7d depth %s" % (sys.argv[1], sys.argv[3], round(r["iops"]), round(r["lat_ns"]["mean"]), {k:round(v) for k,v in L.items() if v>=0.5}))'
while read -r label args; do
  a="--name=p --filename=/dev/zram1 --direct=1 --rw=$RW --bs=4k --time_based --runtime=3 $args"
  fio --output-format=json $a | python3 -c "$py" fio $RW "$label"
  $IOLAB run $a --allow-destroy --output-format=json 2>/dev/null | python3 -c "$py" iolab $RW "$label"
done <<'JOBS'
libaio,qd4,20k --ioengine=libaio --iodepth=4 --rate_iops=20000
io_uring,qd16,40k --ioengine=io_uring --iodepth=16 --rate_iops=40000
libaio,qd8,100m --ioengine=libaio --iodepth=8 --rate=100m
libaio,qd4,20k,poisson --ioengine=libaio --iodepth=4 --rate_iops=20000 --rate_process=poisson
io_uring,qd8,batch4,30k --ioengine=io_uring --iodepth=8 --iodepth_batch_submit=4 --rate_iops=30000
JOBS
