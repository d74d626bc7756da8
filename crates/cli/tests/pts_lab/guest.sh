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
# Every end of a run puts the write cache back: SIGTERM and SIGINT (the run stops and
# unwinds), SIGKILL (nothing runs: the next command that opens the database restores it, from
# the state the run recorded there before changing it), and the watchdog giving up on I/O that
# does not complete (a scsi_debug disk that stops answering: MODE SELECT sets its cache). Each case prints its cache before, during and after.
cat >/tmp/wcache <<'EOF2'
#!/bin/sh
nvme get-feature /dev/nvme0n1 -f 6 2>/dev/null | grep -c '00000001'
EOF2
cat >/tmp/killed <<'EOF2'
#!/bin/sh
sig=$1 db=/tmp/sig-$1.db
nvme set-feature /dev/nvme0 --feature-id=6 --value=1 --namespace-id=0xffffffff >/dev/null 2>&1
echo "before $(/tmp/wcache)"
iolab pts /dev/nvme0n1 --allow-destroy --quick --quiet --tests lat --db $db >/dev/null 2>/tmp/killed.err &
p=$!
i=0; while [ "$(/tmp/wcache)" = 1 ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
echo "during $(/tmp/wcache)"
sleep 2
kill -$sig $p; wait $p; echo "rc $?"
echo "after $(/tmp/wcache)"
if [ "$sig" = KILL ]; then
  iolab history --db $db >/dev/null 2>/tmp/next.err; echo "next rc $?"
  echo "next said: $(cat /tmp/next.err)"
  echo "after next $(/tmp/wcache)"
fi
cat /tmp/killed.err >&2
EOF2
cat >/tmp/watchdog <<'EOF2'
#!/bin/sh
modprobe sd_mod; modprobe scsi_debug dev_size_mb=128 lbpu=1 || exit 3
i=0; while [ -z "$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/ 2>/dev/null)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
name=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/ | head -1)
ct=$(echo /sys/block/$name/device/scsi_disk/*/cache_type)
dbg=/sys/bus/pseudo/drivers/scsi_debug
echo "device /dev/$name"; echo "before $(cat $ct)"
IOLAB_WATCHDOG=1 iolab pts /dev/$name --allow-destroy --quick --quiet --tests wsat --db /tmp/wd.db >/dev/null 2>/tmp/wd.err &
p=$!
i=0; while [ "$(cat $ct)" = "write back" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
# From the test's first writes on (the purge before them is size-bound and unwatched; writes
# completed are /sys/block/*/stat's 5th field), scsi_debug drops every command (opts 4: a
# timeout on every_nth command), so the element's I/O never completes; the kernel would abort
# them only after 120 s. Once the watchdog has stopped the job, new commands are answered
# again (those dropped stay lost), so that the restore after it gives up (MODE SENSE, MODE
# SELECT, the kernel's revalidation) can go through.
echo 120 >/sys/block/$name/device/timeout
i=0; while [ "$(awk '{print $5}' /sys/block/$name/stat)" -lt 50 ] && [ $i -lt 1200 ]; do sleep 0.02; i=$((i + 1)); done
echo 4 >$dbg/opts; echo 1 >$dbg/every_nth
echo "dropping from write $(awk '{print $5}' /sys/block/$name/stat)"
echo "during $(cat $ct)"
i=0; until grep -q "stopping it" /tmp/wd.err || [ $i -gt 1200 ]; do sleep 0.1; i=$((i + 1)); done
echo 0 >$dbg/every_nth; echo 0 >$dbg/opts
wait $p; echo "rc $?"
echo "after $(cat $ct)"
cat /tmp/wd.err >&2
EOF2
chmod +x /tmp/wcache /tmp/killed /tmp/watchdog
run sigterm /tmp/killed TERM
run sigint /tmp/killed INT
run sigkill /tmp/killed KILL
run watchdog /tmp/watchdog
# A partition of the namespace: an MBR with one 256 MiB partition from sector 2048. A Format
# would erase the whole namespace, beyond the partition the user named: BLKDISCARD instead.
# The other three entries zeroed: the kernel rejects a table whose boot flags are not 0 or 0x80.
dd if=/dev/zero of=/dev/nvme0n1 bs=1 seek=446 count=64 conv=notrunc 2>/dev/null
printf '\000\000\000\000\203\000\000\000\000\010\000\000\000\000\010\000' | dd of=/dev/nvme0n1 bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of=/dev/nvme0n1 bs=1 seek=510 conv=notrunc 2>/dev/null
blockdev --rereadpt /dev/nvme0n1; sleep 1
run partition iolab pts /dev/nvme0n1p1 --allow-destroy --quick --quiet --tests wsat --db /tmp/part.db --output-format=json
