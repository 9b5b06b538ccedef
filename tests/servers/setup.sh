#!/usr/bin/env bash
# Installs the real MCP servers that scout's integration tests run against, into gitignored
# folders next to this script:
#   node_modules/  npm: @modelcontextprotocol/server-everything, server-memory, the TypeScript SDK v2
#                  (@modelcontextprotocol/server + /node), zod, and the OAuth authorization
#                  server oidc-provider (oauth_stack.mjs), pinned by package-lock.json
#   .venv/          PyPI: mcp (Python SDK 2.x), uvicorn, mcp-server-time (requirements.txt)
#
# Idempotent and quiet: a second run with everything in place only checks and returns.
# Every network step is bounded; on failure it prints one clear line and exits non-zero.
# Env: SCOUT_SETUP_TIMEOUT  seconds allowed per install step (default 600).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
step_timeout=${SCOUT_SETUP_TIMEOUT:-600}

say() { printf 'tests/servers/setup.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

need() { command -v "$1" >/dev/null 2>&1 || die "$1 is not installed ($2)"; }

# ---------------------------------------------------------------- npm packages
node_ready() {
  [ -f node_modules/@modelcontextprotocol/server-everything/dist/index.js ] &&
    [ -f node_modules/@modelcontextprotocol/server-memory/dist/index.js ] &&
    [ -f node_modules/@modelcontextprotocol/server/package.json ] &&
    [ -f node_modules/@modelcontextprotocol/node/package.json ] &&
    [ -f node_modules/zod/package.json ] &&
    [ -f node_modules/oidc-provider/package.json ] &&
    # a lock file newer than the install means the pins changed: reinstall
    { [ ! -f package-lock.json ] || [ ! package-lock.json -nt node_modules/.package-lock.json ]; }
}

install_node() {
  need node "Node.js 20+ runs the npm test servers"
  need npm "npm installs the npm test servers"
  node_ready && return 0
  say "installing npm packages (package.json) into tests/servers/node_modules"
  local log
  log=$(mktemp)
  local cmd=(npm install)
  [ -f package-lock.json ] && cmd=(npm ci)
  if ! timeout "$step_timeout" "${cmd[@]}" --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
    tail -n 8 "$log" >&2
    rm -f "$log"
    die "npm could not install the test servers (is the npm registry reachable?)"
  fi
  rm -f "$log"
  node_ready || die "npm finished but node_modules is incomplete"
}

# ---------------------------------------------------------------- PyPI packages
py_ready() {
  [ -x .venv/bin/python ] && [ -x .venv/bin/mcp-server-time ] &&
    [ ! requirements.txt -nt .venv/.scout-installed ] &&
    .venv/bin/python -c 'import mcp.server.mcpserver, uvicorn, mcp_server_time' >/dev/null 2>&1
}

install_python() {
  need python3 "Python 3.10+ runs the PyPI test servers"
  py_ready && return 0
  if [ ! -x .venv/bin/python ]; then
    say "creating tests/servers/.venv"
    timeout "$step_timeout" python3 -m venv .venv || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  fi
  say "installing PyPI packages (requirements.txt) into tests/servers/.venv"
  local log
  log=$(mktemp)
  if ! timeout "$step_timeout" .venv/bin/python -m pip install --disable-pip-version-check -q \
    --timeout 60 -r requirements.txt >"$log" 2>&1; then
    tail -n 8 "$log" >&2
    rm -f "$log"
    die "pip could not install the test servers (is PyPI reachable?)"
  fi
  rm -f "$log"
  touch .venv/.scout-installed
  py_ready || die "pip finished but the venv is incomplete"
}

installed=no
node_ready || installed=yes
py_ready || installed=yes
install_node
install_python
# Quiet when there was nothing to do.
if [ "$installed" = yes ]; then
  say "ready"
fi
