# Runs inside the NVMe lab's zoned guest (scripts/nvme-lab.sh --zoned: 64 MiB zones,
# host-managed); each section's stdout is framed by "=== NAME" and "=== rc NAME STATUS" for
# crates/cli/tests/zbd_lab.rs. fio and then iolab run the same jobs from the same zone state
# (every zone reset first); blkzone reports the write pointers each leaves behind.
run() { name=$1; shift; echo "=== $name"; "$@"; echo "=== rc $name $?"; }
z=/dev/nvme0n1
# fio's examples/zbd-seq-read.fio and zbd-rand-write.fio, shrunk onto the lab's 1 GiB drive:
# the read starts at zone 1 instead of zone 524 and reads 512 MiB instead of 10 GiB; the write
# runs 4 copies of 192 MiB each instead of 16 copies for 180 s (a second one keeps 16 copies,
# for 3 s).
cat >/tmp/zbd-seq-read.fio <<'JOB'
[global]
name=zbd-seq-read
rw=read
bs=256K
direct=1
numjobs=1
zonemode=zbd
zonesize=64M
read_beyond_wp=0

[dev1]
filename=/dev/nvme0n1
offset=67108864
size=512M
ioengine=libaio
iodepth=16
JOB
cat >/tmp/zbd-rand-write.fio <<'JOB'
[global]
name=zbd-rand-write
group_reporting
rw=randwrite
zonemode=zbd
zonesize=64M
max_open_zones=32
bs=512K
direct=1
numjobs=4
io_size=192M

[dev1]
filename=/dev/nvme0n1
ioengine=psync
JOB
sed -e 's/^numjobs=4/numjobs=16/' -e 's/^io_size=192M/time_based\nruntime=3/' \
  /tmp/zbd-rand-write.fio >/tmp/zbd-rand-write-timed.fio
# One copy, for 1.25 passes over the drive: every zone fills, then some are reset and written
# again. One copy's writes are fio's own, in fio's order, so its pointers are decided.
sed -e 's/^numjobs=4/numjobs=1/' -e 's/^io_size=192M/io_size=1280M/' \
  /tmp/zbd-rand-write.fio >/tmp/zbd-rand-write-1.fio
run model cat /sys/block/nvme0n1/queue/zoned
for t in fio iolab; do
  case $t in fio) r=fio ;; iolab) r="iolab run --allow-destroy" ;; esac
  blkzone reset $z
  run $t-seq-write $r --name=seqw --filename=$z --zonemode=zbd --rw=write --bs=256k --direct=1 \
    --ioengine=psync --offset=64m --size=320m --output-format=json
  run $t-seq-write-wp blkzone report $z
  run $t-seq-read $r /tmp/zbd-seq-read.fio --output-format=json
  blkzone reset $z
  run $t-rand-write $r /tmp/zbd-rand-write.fio --output-format=normal,json
  run $t-rand-write-wp blkzone report $z
  blkzone reset $z
  run $t-rand-write-1 $r /tmp/zbd-rand-write-1.fio --output-format=normal,json
  run $t-rand-write-1-wp blkzone report $z
  blkzone reset $z
  run $t-rand-write-timed $r /tmp/zbd-rand-write-timed.fio --output-format=normal,json
  run $t-rand-write-timed-wp blkzone report $z
  # Writes in flight together: libaio at depth 8 in order, io_uring at depth 8 at random
  # over 4 open zones from 2 copies.
  blkzone reset $z
  run $t-aio-seq $r --name=aio --filename=$z --zonemode=zbd --rw=write --bs=64k --direct=1 \
    --ioengine=libaio --iodepth=8 --size=256m --output-format=json
  run $t-aio-seq-wp blkzone report $z
  blkzone reset $z
  run $t-uring-rand $r --name=uring --filename=$z --zonemode=zbd --rw=randwrite --bs=64k \
    --direct=1 --ioengine=io_uring --iodepth=8 --numjobs=2 --max_open_zones=4 --size=512m \
    --group_reporting --output-format=normal,json
  run $t-uring-rand-wp blkzone report $z
done
# Without zonemode=zbd a write to the zoned namespace is refused before any I/O.
run refused iolab run --name=w --filename=$z --rw=write --size=1m --direct=1 --allow-destroy
