# Runs inside the NVMe lab's guest booted with --spdk (scripts/nvme-lab.sh): $SPDK_TRADDR is the
# controller handed to SPDK, $KERNEL_NVME the namespace the kernel keeps. Each section's stdout
# is framed by "=== NAME" and "=== rc NAME STATUS" for crates/cli/tests/spdk_lab.rs.
run() { name=$1; shift; echo "=== $name"; "$@"; echo "=== rc $name $?"; }
# As run, with the command's stderr in its section (a refusal's one line).
run2() { name=$1; shift; echo "=== $name"; "$@" 2>&1; echo "=== rc $name $?"; }
# The namespace the kernel gives the SPDK controller while it drives it (after an unbind).
kernel_ns() {
  i=0
  while [ $i -lt 100 ]; do
    ns=$(iolab spdk list | awk -F'|' -v a="$SPDK_TRADDR" '$2 ~ a { gsub(/ /, "", $4); print $4 }')
    [ -n "$ns" ] && [ "$ns" != "-" ] && [ -b "/dev/$ns" ] && { echo "/dev/$ns"; return; }
    sleep 0.1; i=$((i + 1))
  done
}
T="trtype=PCIe traddr=$SPDK_TRADDR ns=1"
J="--output-format=json"
run list iolab spdk list
run bind_again iolab spdk bind "$SPDK_TRADDR"
run main_job iolab --target "$KERNEL_NVME" --spdk "$T" --allow-destroy --runtime=1 --ramp_time=0 \
  --engines=psync,io_uring,io_uring+iopoll,spdk
run review iolab review "$KERNEL_NVME" --quick --steps qd1-engines,poll-vs-irq --spdk "$T" \
  --allow-destroy --runtime 1s --db /tmp/review.db

# The kernel's path first: refusals, then 64 MiB written with md5 headers and read back.
iolab spdk unbind "$SPDK_TRADDR" >/dev/null
NS=$(kernel_ns)
modprobe crc32c_generic; modprobe ext4; mke2fs -q "$NS" 2>/dev/null; mkdir -p /mnt && mount -t ext2 "$NS" /mnt
run2 bind_mounted iolab spdk bind "$SPDK_TRADDR"
umount /mnt
run2 bind_signed iolab spdk bind "$SPDK_TRADDR"
dd if=/dev/zero of="$NS" bs=1M count=4 conv=fsync 2>/dev/null
W="--name=k --rw=write --bs=4k --size=64m --verify=md5"
run kernel_write iolab run $W --filename="$NS" --ioengine=psync --direct=1 --allow-destroy $J
run kernel_md5 sh -c "dd if=$NS bs=1M count=64 iflag=direct 2>/dev/null | md5sum"

# SPDK's path on the same namespace: the read, the kernel's blocks checked, writes.
run bind iolab spdk bind "$SPDK_TRADDR"
run spdk_randread iolab run --ioengine=spdk --filename="$T" --rw=randread --bs=4k --size=64m --name=r $J
run spdk_verify iolab run $W --filename="$T" --ioengine=spdk --verify_only=1 $J
run2 spdk_write_refused iolab run --ioengine=spdk --filename="$T" --rw=write --bs=4k --size=4m --name=w
P="--rw=write --bs=4k --size=16m --buffer_pattern=0x5a5aa5a5 --name=w"
run spdk_write iolab run $P --ioengine=spdk --filename="$T" --offset=64m --allow-destroy $J
run reference iolab run $P --ioengine=psync --filename=/tmp/ref $J
iolab spdk unbind "$SPDK_TRADDR" >/dev/null
NS=$(kernel_ns)
run write_check sh -c "dd if=$NS bs=1M skip=64 count=16 iflag=direct 2>/dev/null | md5sum; md5sum </tmp/ref"
run kernel_md5_after sh -c "dd if=$NS bs=1M count=64 iflag=direct 2>/dev/null | md5sum"
run bind_back iolab spdk bind "$SPDK_TRADDR"
