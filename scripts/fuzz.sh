#!/usr/bin/env bash
# Runs scout's property tests (every parser of untrusted input) with many cases, over and
# over with fresh random seeds, until the time budget is spent or one fails.
#
#   scripts/fuzz.sh [MINUTES] [CASES]     defaults: 10 minutes, 5000 cases per property
#
# The ordinary test run (cargo test) runs the same properties with 32 cases. A failure
# prints the shrunk input: keep it as a regression test named after the bug.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes="${1:-10}"
cases="${2:-5000}"
if ! [[ "$minutes" =~ ^[0-9]+$ && "$cases" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh [MINUTES] [CASES]" >&2
  exit 2
fi

# Build once, outside the time budget.
cargo test --no-run --lib --test integration >/dev/null

deadline=$(( $(date +%s) + minutes * 60 ))
round=0
while (( $(date +%s) < deadline )); do
  round=$(( round + 1 ))
  left=$(( deadline - $(date +%s) ))
  echo "fuzz round $round: PROPTEST_CASES=$cases, ${left}s left"
  # Each round runs until done even if it passes the deadline; rounds are short.
  PROPTEST_CASES="$cases" cargo test -q --lib prop_tests
  PROPTEST_CASES="$cases" cargo test -q --test integration props
done
echo "fuzz: $round round(s), no failure"
