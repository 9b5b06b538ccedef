#!/usr/bin/env bash
# Writes docs/page.png, the README's picture of the `scout serve` page: a check of the demo
# server with a failing finding's evidence open, taken by the browser test's own script
# (tests/browser/serve.mjs) in Debian's Chromium. Run `tests/tools/setup.sh` once first
# (playwright-core and chromium). Fails when the picture is 200 KB or more.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-docs/page.png}"
[ -x /usr/bin/chromium ] && [ -f tests/tools/node/node_modules/playwright-core/package.json ] ||
  { echo "page-png.sh: run tests/tools/setup.sh first (chromium, playwright-core)" >&2; exit 1; }
cargo build --quiet --bin scout --example demo-server

work="$(mktemp -d)"
demo_pid="" serve_pid=""
cleanup() {
  for pid in $serve_pid $demo_pid; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits up to 30 s for a condition, asking again every tenth of a second.
until_true() {
  for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done
  echo "page-png.sh: gave up waiting for: $*" >&2
  return 1
}

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
target/debug/examples/demo-server http --port "$port" >"$work/demo.log" 2>&1 &
demo_pid=$!
demo_url="http://127.0.0.1:$port/mcp"
# Any HTTP answer at all means the demo is listening.
until_true sh -c "curl -s -o /dev/null -w '%{http_code}' -X POST '$demo_url' | grep -qv '^000$'"

# scout serve in an empty folder (no scout.toml), as the test starts it; its first line is
# the page's URL with the token.
(cd "$work" && exec "$root/target/debug/scout" serve >serve.out 2>serve.err) &
serve_pid=$!
until_true grep -q '/?token=' "$work/serve.out"

SCOUT_URL="$(head -n1 "$work/serve.out")" DEMO_URL="$demo_url" OUT_DIR="$work" \
  PW_DIR="$root/tests/tools/node" CHROMIUM=/usr/bin/chromium DOC_SHOT="$work/page.png" \
  node tests/browser/serve.mjs >"$work/result.json"
size="$(wc -c <"$work/page.png")"
if [ "$size" -ge 204800 ]; then
  echo "page-png.sh: the picture is $size bytes, more than the 200 KB a README should load" >&2
  exit 1
fi
cp "$work/page.png" "$out"
echo "page-png.sh: wrote $out ($size bytes)"
