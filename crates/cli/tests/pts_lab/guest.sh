# Runs inside the NVMe lab's guest (scripts/nvme-lab.sh: QEMU's emulated NVMe drive, 1 GiB):
# the whole PTS-style suite, --quick, purged by NVMe Format. Each section's stdout, then
# "--- stderr" and its stderr, is framed by "=== NAME" and "=== rc NAME STATUS" for
# crates/cli/tests/pts_lab.rs to take apart. The report comes back gzipped in base64.
run() { name=$1; shift; echo "=== $name"; "$@" 2>/tmp/stderr; rc=$?; echo "--- stderr"; tail -20 /tmp/stderr; echo "=== rc $name $rc"; }
run lbaf nvme id-ns /dev/nvme0n1 --output-format=json
run pts sh -c 'start=$(date +%s); iolab pts /dev/nvme0n1 --allow-destroy --quick --quiet --db /tmp/pts.db --output-format=json --report /tmp/pts.html; rc=$?; echo "seconds $(( $(date +%s) - start ))" >&2; exit $rc'
run report sh -c 'ls -l /tmp/pts.html >&2 && gzip -c /tmp/pts.html | base64'
