# Runs inside the NVMe lab's guest with an atomic write unit (scripts/nvme-lab.sh --atomic:
# QEMU 10's AWUPF of 4 blocks of 4 KiB, Linux 6.12 without a multipath head). Each section's
# stdout, then "--- stderr" and its stderr, is framed by "=== NAME" and "=== rc NAME STATUS"
# for crates/cli/tests/atomic_lab.rs to take apart.
run() { name=$1; shift; echo "=== $name"; "$@" 2>/tmp/stderr; rc=$?; echo "--- stderr"; cat /tmp/stderr; echo "=== rc $name $rc"; }
j="--filename=/dev/nvme0n1 --direct=1 --atomic=1 --rw=randwrite --bs=16k --size=4m --output-format=json"
run limits sh -c 'for f in /sys/block/nvme0n1/queue/atomic_write_*; do echo ${f##*/} $(cat $f); done'
for e in pvsync2 libaio io_uring; do
  run iolab_$e iolab run --name=a $j --ioengine=$e --allow-destroy
  run fio_$e fio-3.42 --name=a $j --ioengine=$e
done
# Each write's flags, seen from outside: RWF_ATOMIC is 0x40 (this strace has no name for it).
trace() { strace -f -e trace=pwritev2 -o /tmp/tr "$@" >/dev/null 2>&1; grep -c ', 0x40 /\*' /tmp/tr; grep -c '^[0-9]* *pwritev2(' /tmp/tr; }
run strace_iolab trace iolab run --name=a $j --ioengine=pvsync2 --allow-destroy
run strace_fio trace fio-3.42 --name=a $j --ioengine=pvsync2
run too_big iolab run --name=a $j --bs=32k --ioengine=pvsync2 --allow-destroy
run fio_too_big fio-3.42 --name=a $j --bs=32k --ioengine=pvsync2
