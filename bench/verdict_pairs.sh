#!/bin/bash
# Does `compare` say "no difference" for repeated runs of the same job, and "slower" at half
# the rate? Seven runs of one QD1 job on /dev/zram0 (pinned to CPU 1, --repeat 5, 2 s each),
# each pair of neighbours compared with the default noise threshold and without one; then a
# run at rate_iops=4000 against one at 2000. Run as root from the repository after
# `cargo build --release`:  bash bench/verdict_pairs.sh
set -eu
I=${IOLAB:-target/release/iolab}
DB=$(mktemp -d)/pairs.db
ZRAM=${ZRAM:-/dev/zram0}
job() {
    taskset -c 1 "$I" run --name=qd1 --filename="$ZRAM" --ioengine=psync --rw=randread \
        --bs=4k --runtime=2 --time_based --allow-destroy --db "$DB" --repeat 5 --quiet "$@" \
        >/dev/null
}
for _ in 1 2 3 4 5 6 7; do job; done
# The verdict rows of `compare ARGS`, and its exit status.
verdicts() {
    set +e
    out=$("$I" compare "$@" --db "$DB" 2>/dev/null)
    code=$?
    set -e
    grep "^| qd1" <<<"$out" || true
    echo "exit $code"
}
for p in "1 2" "2 3" "3 4" "4 5" "5 6" "6 7"; do
    echo "== compare $p, --fail-if-worse 10 (noise threshold 3 %)"
    verdicts $p --fail-if-worse 10
    echo "== compare $p --noise-threshold 0"
    verdicts $p --noise-threshold 0
done
job --rate_iops=4000
job --rate_iops=2000
echo "== compare 8 9 (rate_iops 4000, then 2000), --fail-if-worse 10"
verdicts 8 9 --fail-if-worse 10
