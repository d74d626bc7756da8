# Runs inside the NVMe lab's guest (scripts/nvme-lab.sh); each section's stdout is framed by
# "=== NAME" and "=== rc NAME STATUS" for crates/cli/tests/nvme_lab.rs to take apart.
run() { name=$1; shift; echo "=== $name"; "$@"; echo "=== rc $name $?"; }
q="--name=p --rw=randread --bs=4k --size=64m --output-format=json"
run io_poll cat /sys/block/nvme0n1/queue/io_poll
run doctor iolab doctor /dev/nvme0n1 --output-format=json
run uring_hipri iolab run $q --filename=/dev/nvme0n1 --direct=1 --ioengine=io_uring --hipri
# The latency split, polled and by interrupt: where the completion part goes.
run split_hipri iolab run $q --filename=/dev/nvme0n1 --direct=1 --ioengine=io_uring --hipri --lat_split=1
run split_irq iolab run $q --filename=/dev/nvme0n1 --direct=1 --ioengine=io_uring --lat_split=1
run pvsync2_hipri iolab run $q --filename=/dev/nvme0n1 --direct=1 --ioengine=pvsync2 --hipri
run cmd iolab run $q --filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme
run cmd_fio fio $q --filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme
run cmd_polled iolab run $q --filename=/dev/ng0n1 --ioengine=io_uring_cmd --hipri --fixedbufs --registerfiles
# Every engine, iolab then fio, on the same size-based jobs: a random read and a sequential write.
for e in psync pvsync2 libaio io_uring io_uring_cmd; do
  # A char device cannot be opened O_DIRECT (fio: EINVAL); passthrough bypasses the cache.
  f="/dev/nvme0n1 --direct=1"; [ $e = io_uring_cmd ] && f=/dev/ng0n1
  for rw in randread write; do
    j="--name=$e-$rw --filename=$f --ioengine=$e --rw=$rw --bs=8k --iodepth=4 --size=8m --output-format=json"
    run "iolab-$e-$rw" iolab run $j --allow-destroy
    run "fio-$e-$rw" fio $j
  done
done
# Passthrough writes land on the LBAs asked: 4 MiB of zeros at 4 MiB, between random data.
dd if=/dev/urandom of=/tmp/rand bs=1M count=12 2>/dev/null
dd if=/tmp/rand of=/dev/nvme0n1 bs=1M count=12 conv=fsync 2>/dev/null
run cmd_write iolab run --name=z --filename=/dev/ng0n1 --ioengine=io_uring_cmd --rw=write --bs=64k \
  --offset=4m --size=4m --zero_buffers --allow-destroy --output-format=json
echo 3 >/proc/sys/vm/drop_caches
run lba_check sh -c 'dd if=/dev/nvme0n1 bs=1M count=12 2>/dev/null | md5sum;
  { head -c 4194304 /tmp/rand; head -c 4194304 /dev/zero; tail -c 4194304 /tmp/rand; } | md5sum'
# The drive's health log (SMART, page 02h): read around a run and sampled in it. Untouched, a
# run says "no throttling, peak N °C"; the host lowering the temperature threshold below the
# drive's temperature mid-run (Set Features 04h, as nvme-cli does it) puts the drive over it.
h="--filename=/dev/nvme0n1 --direct=1 --rw=randread --bs=4k --time_based --health-interval=1"
run health_cool iolab run --name=h $h --runtime=3 --db /tmp/health.db
run health_hot sh -c "iolab run --name=h $h --runtime=6 --db /tmp/health.db --output-format=json & sleep 3
  nvme set-feature /dev/nvme0 --feature-id=4 --value=273 >&2; wait \$!; rc=\$?
  nvme set-feature /dev/nvme0 --feature-id=4 --value=343 >&2; exit \$rc"
run health_show iolab show 2 --db /tmp/health.db
run health_compare sh -c 'iolab compare 1 2 --db /tmp/health.db 2>&1'
run health_report sh -c 'iolab report 1 2 --db /tmp/health.db -o /tmp/health.html &&
  grep -o "temperature-[12]\|critical warning\|class=\"warn\"\|no throttling, peak [0-9]* °C" /tmp/health.html | sort | uniq -c'
# A consistency step alone, sampled every second, and its report's temperature chart.
run health_review iolab review /dev/nvme0n1 --steps consistency --quick --runtime 4 --ramp-time 0 \
  --health-interval=1 --allow-destroy --db /tmp/cons.db
run health_review_json iolab show 1 --db /tmp/cons.db --output-format=json
run health_review_report sh -c 'iolab report 1 --db /tmp/cons.db -o /tmp/cons.html &&
  grep -c "consistency-randread-temperature" /tmp/cons.html'
run main_job iolab --target /dev/nvme0n1 --allow-destroy --runtime=1 --ramp_time=0 --output-format=json
modprobe zram || true  # zram-control: the review's software-floor step adds a RAM device of its own
run review iolab review /dev/nvme0n1 --quick --allow-destroy --db /tmp/review.db
# Last, as it takes the poll queues away: hipri on a drive without them, which this kernel
# (Debian 12's 6.1) serves by interrupt. fio runs such a job; so does iolab, and says so.
echo 0 >/sys/module/nvme/parameters/poll_queues && echo 1 >/sys/class/nvme/nvme0/reset_controller
i=0; while [ "$(cat /sys/block/nvme0n1/queue/io_poll 2>/dev/null)" != 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
run unpolled_io_poll cat /sys/block/nvme0n1/queue/io_poll
# (fio takes an engine's options only after --ioengine.)
u="--name=u --rw=randread --bs=4k --size=16m --output-format=json"
run unpolled_uring iolab run $u --filename=/dev/nvme0n1 --direct=1 --ioengine=io_uring --hipri
run unpolled_uring_fio fio $u --filename=/dev/nvme0n1 --direct=1 --ioengine=io_uring --hipri
run unpolled_cmd iolab run $u --filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme --hipri
run unpolled_cmd_fio fio $u --filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme --hipri
