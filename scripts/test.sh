#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what the tests need (fio, to compare
# against; rocksdb-tools, for db_bench; chromium, to check the report; a sized /dev/zram0), then format, lint and every test, unit and integration.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v fio >/dev/null 2>&1; then
  echo "test.sh: installing fio (tests compare iolab's JSON with real fio's)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
  else
    echo "test.sh: not root: fio comparisons will be skipped" >&2
  fi
fi
if ! command -v db_bench >/dev/null 2>&1; then
  echo "test.sh: installing rocksdb-tools (iolab kv runs RocksDB's db_bench)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rocksdb-tools >/dev/null
  else
    echo "test.sh: not root: the db_bench tests will be skipped" >&2
  fi
fi
if ! command -v chromium >/dev/null 2>&1; then
  echo "test.sh: installing chromium (the report is checked in a real, headless browser)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "test.sh: not root: the browser checks will be skipped" >&2
  fi
fi
# A RAM block device for the device tests (skipped with a reason when unavailable).
if [ -e /sys/block/zram0/disksize ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
  echo 1G > /sys/block/zram0/disksize 2>/dev/null || echo "test.sh: could not size zram0" >&2
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -q -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --release 2>&1 | tee "$log"
# One closing line with the totals (cargo's own last lines are the empty doc-test runs).
awk '/^test result:/ { p += $4; f += $6 } END { printf "iolab tests: %d passed, %d failed\n", p, f }' "$log"
