# Runs inside the NVMe lab's guest (scripts/nvme-lab.sh: QEMU's emulated NVMe drive, 1 GiB):
# the whole PTS-style suite, --quick, purged by NVMe Format. Each section's stdout, then
# "--- stderr" and its stderr, is framed by "=== NAME" and "=== rc NAME STATUS" for
# crates/cli/tests/pts_lab.rs to take apart. The report comes back gzipped in base64.
run() { name=$1; shift; echo "=== $name"; "$@" 2>/tmp/stderr; rc=$?; echo "--- stderr"; tail -20 /tmp/stderr; echo "=== rc $name $rc"; }
run lbaf nvme id-ns /dev/nvme0n1 --output-format=json
# The volatile write cache before the run (PTS-E runs with it disabled, then restores it).
run cache_before nvme get-feature /dev/nvme0n1 -f 6
run pts sh -c 'start=$(date +%s); iolab pts /dev/nvme0n1 --allow-destroy --quick --quiet --db /tmp/pts.db --output-format=json --report /tmp/pts.html; rc=$?; echo "seconds $(( $(date +%s) - start ))" >&2; exit $rc'
run report sh -c 'ls -l /tmp/pts.html >&2 && gzip -c /tmp/pts.html | base64'
run cache_after nvme get-feature /dev/nvme0n1 -f 6
# PTS-C on a drive whose cache the user left disabled: enabled for the run, disabled again
# after (set through the controller for every namespace: QEMU takes this feature only so).
# Its four tests, at the fewest rounds the rule allows (the profile is the point).
run cache_off nvme set-feature /dev/nvme0 --feature-id=6 --value=0 --namespace-id=0xffffffff
run client iolab pts /dev/nvme0n1 --client --allow-destroy --quick --quiet --max-rounds 5 --db /tmp/client.db --output-format=json
run cache_client nvme get-feature /dev/nvme0n1 -f 6
# A partition of the namespace: an MBR with one 256 MiB partition from sector 2048. A Format
# would erase the whole namespace, beyond the partition the user named: BLKDISCARD instead.
# The other three entries zeroed: the kernel rejects a table whose boot flags are not 0 or 0x80.
dd if=/dev/zero of=/dev/nvme0n1 bs=1 seek=446 count=64 conv=notrunc 2>/dev/null
printf '\000\000\000\000\203\000\000\000\000\010\000\000\000\000\010\000' | dd of=/dev/nvme0n1 bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of=/dev/nvme0n1 bs=1 seek=510 conv=notrunc 2>/dev/null
blockdev --rereadpt /dev/nvme0n1; sleep 1
run partition iolab pts /dev/nvme0n1p1 --allow-destroy --quick --quiet --tests wsat --db /tmp/part.db --output-format=json
