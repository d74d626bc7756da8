#!/usr/bin/env bash
# The closing summary of scripts/test.sh: given cargo test's output (LOG) and its exit status,
# prints the totals, each failing test's panic message and then, last, every failing test by
# name; exits with that status.
set -u
log=$1
status=${2:-0}
# A test that skipped (in whole, or a case of it) printed a line with "skipped" in its output,
# which libtest shows under "---- NAME stdout ----" (the binaries run with --show-output).
awk '
  /^test result:/ { p += $4; f += $6 }
  /^---- .* stdout ----$/ { name = $2; next }
  /^(successes|failures):$/ { name = "" }
  name != "" && /skipped/ && !(name in seen) { seen[name] = 1; n++; if (/busy/) b++; list = list "  " name ": " $0 "\n" }
  END {
    printf "iolab tests: %d passed, %d failed, %d skipped in whole or in part (%d of them on a busy machine)\n", p, f, n, b
    if (n > 0) printf "skipped:\n%s", list
  }' "$log"
[ "$status" = 0 ] && exit 0
failed=$(grep -E '^test .* \.\.\. FAILED( <[0-9.]+s>)?$' "$log" | sed -E 's/^test (.*) \.\.\. FAILED( <[0-9.]+s>)?$/\1/' | sort -u)
if [ -n "$failed" ]; then
  # Each failure's panic message (its first 20 lines) first, then the names, last, where a
  # shortened log keeps them.
  for t in $failed; do
    echo "--- $t:"
    awk -v want="$t" '
      /^---- .* stdout ----$/ { inside = ($2 == want); shown = 0; on = 0; next }
      inside && /panicked at/ { on = 1 }
      inside && on && /^stack backtrace:$/ { on = 0 }
      inside && on && shown < 20 { print "    " $0; shown++ }
    ' "$log"
  done
  echo "iolab tests FAILED:"
  printf '  %s\n' $failed
else
  echo "iolab tests FAILED: cargo test exited with status $status (a build or doc-test error; see above)"
fi
exit "$status"
