#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what the tests need (fio, to compare
# against; rocksdb-tools, for db_bench; chromium, to check the report; QEMU, a Debian kernel
# and busybox for the NVMe lab; a sized /dev/zram0), then format, lint and every test, unit
# and integration.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tools the tests compare against or drive, installed in one apt-get run when missing (as root;
# otherwise the tests that need them are skipped with a printed reason).
missing=()
command -v fio >/dev/null 2>&1 || missing+=(fio)               # iolab's JSON against real fio's
command -v db_bench >/dev/null 2>&1 || missing+=(rocksdb-tools) # iolab kv runs RocksDB's db_bench
command -v chromium >/dev/null 2>&1 || missing+=(chromium)     # the report, in a headless browser
command -v strace >/dev/null 2>&1 || missing+=(strace)         # counts io_uring_enter calls
[ -x /usr/bin/time ] || missing+=(time)                            # a job file's peak memory
# The latency split's BPF object is checked against its C source's build (clang, llvm-strip,
# libbpf's headers); bpftrace times the same requests independently.
command -v clang >/dev/null 2>&1 || missing+=(clang)
command -v llvm-strip >/dev/null 2>&1 || missing+=(llvm)
[ -e /usr/include/bpf/bpf_helpers.h ] || missing+=(libbpf-dev)
command -v bpftrace >/dev/null 2>&1 || missing+=(bpftrace)
# The NVMe lab (scripts/nvme-lab.sh): an emulated NVMe drive with poll queues under QEMU.
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing+=(linux-image-amd64)
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || missing+=(busybox-static)
command -v nvme >/dev/null 2>&1 || missing+=(nvme-cli)     # the lab host's side of the drive (Set Features)
# Many hosts in one run (the `mpi` cargo feature): Open MPI, and libclang for its bindings.
command -v mpicc >/dev/null 2>&1 || missing+=(openmpi-bin libopenmpi-dev)
# (libclang-cpp, which other packages bring, is not the library bindgen loads.)
ls /usr/lib/llvm-*/lib/libclang.so* /usr/lib/x86_64-linux-gnu/libclang-[0-9]*.so* >/dev/null 2>&1 \
  || missing+=(libclang-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "test.sh: not root, cannot install ${missing[*]}: the tests that need them will be skipped" >&2
  fi
fi
# A RAM block device for the device tests (skipped with a reason when unavailable): load zram
# when the kernel has it as a module and it is not loaded yet, then give zram0 a size.
if [ ! -e /sys/block/zram0 ] && [ "$(id -u)" = 0 ]; then
  modprobe zram 2>/dev/null || echo "test.sh: no zram here: the zram tests will be skipped" >&2
fi
if [ -e /sys/block/zram0/disksize ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
  echo 1G > /sys/block/zram0/disksize 2>/dev/null || echo "test.sh: could not size zram0" >&2
fi

# fio 3.42, built from ../shared/sources once per machine: the grammar test compares its
# arithmetic (Debian's fio 3.33 lacks it); skipped with a reason when it cannot be built.
fio_t0=$SECONDS
bash scripts/fio-build.sh || echo "test.sh: no fio 3.42 build (said why above): its comparisons are skipped" >&2
setup_secs=$SECONDS fio_secs=$((SECONDS - fio_t0))

# Where the time goes: each stage's wall seconds, printed at the end with each test binary's.
times=$(mktemp) lanes_report=$(mktemp) log=$(mktemp)
trap 'rm -f "$log" "$times" "$lanes_report"' EXIT
stage() { # stage NAME COMMAND...: runs COMMAND, noting its wall time; its exit status
  local name=$1 t0=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "$((SECONDS - t0)) $name" >>"$times"
  return $rc
}

echo "$((setup_secs - fio_secs)) setup: packages, zram" >>"$times"
echo "$fio_secs setup: fio 3.42 (cached per machine)" >>"$times"
stage "cargo fmt --check" cargo fmt --all -- --check
stage "cargo clippy" cargo clippy --workspace --all-targets --release -q -- -D warnings
# --no-fail-fast in spirit: every test binary runs, so the summary below names every failure.
# The tests build with the `suite` profile (Cargo.toml): release's optimisation without its
# whole-program link, a quarter of release's build time over the ~40 test binaries.
# The NVMe lab's binaries (QEMU, one emulated CPU each) run in a lane of their own beside the
# host's (scripts/test-lanes.py); IOLAB_TEST_LANES=1 runs them one after another.
set +e
stage "tests (two lanes: labs beside the host's)" \
  python3 scripts/test-lanes.py --log "$log" --lanes "${IOLAB_TEST_LANES:-2}" -- --workspace --profile suite \
  >"$lanes_report"
status=$?
# The default build above needs no MPI; the `mpi` feature is built, linted and tested apart
# (mpirun -n 4 on this machine), where MPI is installed.
if command -v mpicc >/dev/null 2>&1; then
  stage "mpi: clippy" cargo clippy -p iolab --features mpi --all-targets --release -q -- -D warnings || status=1
  stage "mpi: multihost tests" python3 scripts/test-lanes.py --log "$log" --lanes 1 --only multihost \
    -- -p iolab --features mpi --profile suite --test multihost >>"$lanes_report" || status=1
else
  echo "test.sh: no MPI here: the multi-host tests of the mpi feature are skipped" >&2
fi
# The spdk engine (the `spdk` feature): SPDK built once from ../shared/sources/ (the project's
# sources no registry has), the engine's crates linted with it, and its NVMe lab test run.
if ls ../shared/sources/spdk-v*.tar.gz >/dev/null 2>&1; then
  if stage "spdk: build (cached per machine)" bash scripts/spdk-build.sh; then
    stage "spdk: clippy" cargo clippy -p iolab-engine -p iolab-spdk --features iolab-engine/spdk \
      --all-targets --release -q -- -D warnings || status=1
    stage "spdk: lab test" python3 scripts/test-lanes.py --log "$log" --lanes 1 --only spdk_lab \
      -- -p iolab --features spdk --profile suite --test spdk_lab >>"$lanes_report" || status=1
  else
    echo "test.sh: SPDK could not be built here (scripts/spdk-build.sh said why above)" >&2
    status=1
  fi
else
  echo "test.sh: no SPDK sources in ../shared/sources/: the spdk engine's lab test is skipped" >&2
fi
set -e
cat "$log"
echo
echo "test.sh: time per stage (wall seconds):"
sort -rn "$times" | sed 's/^/  /'
echo "  whole: $SECONDS s ($((SECONDS / 60)) min)"
cat "$lanes_report"
bash scripts/test-summary.sh "$log" "$status"
