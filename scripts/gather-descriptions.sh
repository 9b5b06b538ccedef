#!/usr/bin/env bash
# Gathers the tool catalogues of real MCP servers from npm and PyPI into
# tests/data/tool_descriptions.json: the corpus that holds scout's text rules
# (security.tool_poisoning, security.hidden_characters) to "no fail, at most 2 % warns" on
# ordinary descriptions (tests/integration/corpus.rs).
#
# Every package is pinned below. They are installed into tests/corpus/.install/ (gitignored),
# each server is started over stdio with dummy credentials where it wants any (nothing is
# called: only `initialize` and `tools/list`), and what it lists is written with the package
# name and version of every entry. Servers that do not start are reported and left out.
#
# Run it again after changing a pin; commit the data file it writes. Needs node/npm, python3.
# Env: SCOUT_GATHER_TIMEOUT  seconds allowed per install step (default 900).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/tests/corpus/.install"
out="$root/tests/data/tool_descriptions.json"
step_timeout=${SCOUT_GATHER_TIMEOUT:-900}

say() { printf 'gather-descriptions: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
command -v npm >/dev/null || die "npm is not installed"
command -v python3 >/dev/null || die "python3 is not installed"

# npm packages: name@version
NPM=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
  "@modelcontextprotocol/server-sequential-thinking@2026.8.31"
  "@modelcontextprotocol/server-github@2025.4.8"
  "@playwright/mcp@0.0.83"
  "@wonderwhy-er/desktop-commander@0.2.52"
  "kubernetes-mcp-server@0.0.67"
  "@upstash/context7-mcp@4.1.1"
  "@bytebase/dbhub@1.4.0"
  "@notionhq/notion-mcp-server@2.5.2"
  "firecrawl-mcp@3.26.0"
  "@executeautomation/playwright-mcp-server@1.0.12"
  "@browserbasehq/mcp-server-browserbase@2.4.3"
)
# PyPI packages: name==version
PYPI=(
  "mcp-server-git==2026.10.19"
  "mcp-server-fetch==2026.10.24"
  "mcp-server-time==2026.10.19"
  "arxiv-mcp-server==0.8.2"
  "awslabs.aws-documentation-mcp-server==1.2.3"
  "mcp-server-sqlite==2025.4.25"
)

mkdir -p "$dest/node" "$dest/py"
if [ ! -f "$dest/node/package.json" ]; then
  printf '{"name":"scout-corpus","private":true}\n' >"$dest/node/package.json"
fi
say "installing ${#NPM[@]} npm packages into tests/corpus/.install/node"
for p in "${NPM[@]}"; do
  # One by one: a package that fails to install is left out, not the whole corpus.
  timeout "$step_timeout" npm install --prefix "$dest/node" --no-audit --no-fund \
    --ignore-scripts --loglevel=error "$p" >/dev/null 2>"$dest/npm.err" ||
    say "npm install $p failed: $(tail -1 "$dest/npm.err")"
done
if [ ! -x "$dest/py/venv/bin/python" ]; then
  python3 -m venv "$dest/py/venv" || die "cannot create a virtual environment"
fi
say "installing ${#PYPI[@]} PyPI packages into tests/corpus/.install/py/venv"
for p in "${PYPI[@]}"; do
  timeout "$step_timeout" "$dest/py/venv/bin/pip" install -q "$p" >/dev/null 2>"$dest/pip.err" ||
    say "pip install $p failed: $(tail -1 "$dest/pip.err")"
done

python3 "$root/scripts/dump_tools.py" "$dest" "$out" "${NPM[@]}" -- "${PYPI[@]}"
