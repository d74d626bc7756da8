#!/usr/bin/env bash
# The closing summary of scripts/test.sh: given cargo test's output (LOG) and its exit status,
# prints the totals and then, last, every failing test by name; exits with that status.
set -u
log=$1
status=${2:-0}
awk '/^test result:/ { p += $4; f += $6 } END { printf "iolab tests: %d passed, %d failed\n", p, f }' "$log"
[ "$status" = 0 ] && exit 0
failed=$(grep -E '^test .* \.\.\. FAILED$' "$log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | sort -u)
if [ -n "$failed" ]; then
  echo "iolab tests FAILED:"
  printf '  %s\n' $failed
else
  echo "iolab tests FAILED: cargo test exited with status $status (a build or doc-test error; see above)"
fi
exit "$status"
