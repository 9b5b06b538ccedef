#!/usr/bin/env bash
# Shows that a change left scout's behaviour alone: checks the determinism fixtures and the
# demo server with the scout of an earlier revision and with this checkout's, and compares
# the JSON reports. What the schedule and the clock decide is taken out first (times, pids,
# ports, the run id, exchange numbers and the exchange log itself); everything else (every
# finding's id, subject, era, status, severity, title, detail, advice, the scores and the
# gate) must be the same, byte for byte.
#
#   scripts/same-reports.sh REV        e.g. scripts/same-reports.sh HEAD~3
#
# The earlier revision is built in a worktree under target/same-reports (gitignored); the
# reports of both are kept in target/same-reports/out for a look. Exit 0: the same.
set -euo pipefail

rev=${1:?usage: scripts/same-reports.sh REV (an earlier revision to compare with)}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
work=$root/target/same-reports
out=$work/out
mkdir -p "$work"
rm -rf "$out"
mkdir -p "$out/old" "$out/new"

bash tests/servers/setup.sh >/dev/null
cargo build -q --bin scout --example demo-server
new=$root/target/debug/scout

commit=$(git rev-parse --verify "$rev^{commit}")
if [ -d "$work/src" ]; then
  git -C "$work/src" checkout -q --detach "$commit"
else
  git worktree add -q --detach "$work/src" "$commit"
fi
(cd "$work/src" && CARGO_TARGET_DIR=$work/target cargo build -q --bin scout)
old=$work/target/debug/scout

# Each case: a name and the arguments after `scout check`.
cases=(
  "stdio-parse-error-crashes|--stdio -- python3 tests/fixtures/parse_error_crashes.py stdio"
  "stdio-sequential-slow-tool|--stdio -- python3 tests/fixtures/sequential_slow_tool.py stdio"
  "demo|--config examples/demo.toml"
)
# Not early_413.py: whether scout sees its early 413 or the closed connection first is a race
# its finding names, so its detail differs from run to run by design.
http_cases=(parse_error_crashes.py session_cap.py unknown_method_200.py)

# A fixture over HTTP on a free port, for one run; its pid goes to $fixture_pid.
start_http() {
  local log=$1 name=$2
  python3 "tests/fixtures/$name" http --port 0 2>"$log" >/dev/null &
  fixture_pid=$!
  for _ in $(seq 100); do
    url=$(sed -n 's/^listening on //p' "$log" | head -1)
    [ -n "$url" ] && return 0
    sleep 0.05
  done
  echo "same-reports: $name did not print its URL" >&2
  return 1
}

run_case() {
  local bin=$1 dir=$2 name=$3
  shift 3
  # 0 and 1 (the gate) are results; anything else is an error worth stopping for.
  "$bin" check -q --json "$dir/$name.json" "$@" >/dev/null 2>"$dir/$name.stderr" || [ $? -eq 1 ]
}

for side in old new; do
  if [ "$side" = old ]; then bin=$old; else bin=$new; fi
  for c in "${cases[@]}"; do
    name=${c%%|*}
    # shellcheck disable=SC2086 # the arguments are words on purpose
    run_case "$bin" "$out/$side" "$name" ${c#*|}
  done
  for f in "${http_cases[@]}"; do
    start_http "$out/$side/$f.fixture.log" "$f"
    run_case "$bin" "$out/$side" "http-${f%.py}" "$url"
    kill "$fixture_pid" 2>/dev/null || true
    wait "$fixture_pid" 2>/dev/null || true
  done
done

normalise() {
  python3 - "$1" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
VARIES = {"run_id", "started_at", "duration_ms", "scout_version", "exchanges", "evidence",
          "internal_errors", "server_info"}
def clean(v):
    if isinstance(v, dict):
        if v.get("id") == "performance.latency":
            # Its table is timing: which requests had nothing else in flight beside them
            # (and so were timed) is the schedule's doing. Its verdict is compared.
            v = dict(v, detail="[timings]")
        return {k: clean(x) for k, x in v.items() if k not in VARIES}
    if isinstance(v, list):
        return [clean(x) for x in v]
    if isinstance(v, str):
        # Ids the server drew at random (session ids quoted as examples), then numbers the
        # clock, the kernel or the recorder chose: times, pids, ports, req#N.
        # How a dead stdio server's next request broke (its stdout closed first, or its stdin
        # refused the write) is a race the kernel decides.
        v = re.sub(r"got transport error \(.*$", "got transport error (...)", v)
        v = re.sub(r"[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}", "ID", v)
        return re.sub(r"\d+(\.\d+)?", "N", v)
    return v
print(json.dumps(clean(r), indent=1, sort_keys=True))
PY
}

same=0
for f in "$out"/new/*.json; do
  name=$(basename "$f")
  normalise "$out/old/$name" >"$out/old/$name.norm"
  normalise "$f" >"$out/new/$name.norm"
  if diff -u "$out/old/$name.norm" "$out/new/$name.norm" >"$out/$name.diff"; then
    echo "same      $name"
  else
    echo "DIFFERENT $name (see $out/$name.diff)"
    same=1
  fi
done
exit $same
