#!/usr/bin/env bash
# Installs the report validators the emitter tests drive (tests/integration/emit.rs):
#   - @microsoft/sarif-multitool (npm) into tests/tools/node/   -> `sarif-multitool validate`
#   - junitparser (PyPI) into the venv tests/tools/.venv/        -> tests/tools/junit_read.py
#   - xmllint (Debian libxml2-utils), when apt-get is available  -> JUnit XSD validation
#   - @anthropic-ai/mcpb (npm) into tests/tools/mcpb/          -> `mcpb pack` and the MCPB manifest
#     schemas (tests/integration/mcpb.rs: bundles packed at test time, schemas/mcpb/ compared
#     with the package's own copies)
#   - playwright-core (npm) into tests/tools/node/ and Debian's chromium, when apt-get is
#     available                                                   -> the `scout serve` browser test
#     (tests/browser/serve.mjs; playwright-core drives the system Chromium and never downloads
#     a browser of its own)
# Idempotent: each tool is installed only when it is missing. Run it from anywhere.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# SARIF multitool (a .NET tool shipped inside the npm package, so no extra download).
# 5.x: the 4.x single-file build crashes in `validate` (empty Assembly.Location).
multitool_version=5.7.0
installed="$(node -p "require('$here/node/node_modules/@microsoft/sarif-multitool/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "$multitool_version" ]; then
  command -v npm >/dev/null || { echo "setup.sh: npm is required (Node.js 18+)" >&2; exit 1; }
  mkdir -p "$here/node"
  [ -f "$here/node/package.json" ] || echo '{"private":true}' > "$here/node/package.json"
  npm install --prefix "$here/node" --no-audit --no-fund --loglevel=error "@microsoft/sarif-multitool@$multitool_version"
fi

# The MCPB CLI and its manifest schemas, pinned: schemas/mcpb/ is this version's copy. A folder
# of its own, so the bundle tests need nothing else of this script.
mcpb_version=2.1.2
installed="$(node -p "require('$here/mcpb/node_modules/@anthropic-ai/mcpb/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "$mcpb_version" ]; then
  command -v npm >/dev/null || { echo "setup.sh: npm is required (Node.js 18+)" >&2; exit 1; }
  mkdir -p "$here/mcpb"
  [ -f "$here/mcpb/package.json" ] || echo '{"private":true}' > "$here/mcpb/package.json"
  npm install --prefix "$here/mcpb" --no-audit --no-fund --loglevel=error "@anthropic-ai/mcpb@$mcpb_version"
fi

# playwright-core: the driver only (no bundled browser download); pinned like the multitool.
playwright_version=1.65.1
installed="$(node -p "require('$here/node/node_modules/playwright-core/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "$playwright_version" ]; then
  mkdir -p "$here/node"
  [ -f "$here/node/package.json" ] || echo '{"private":true}' > "$here/node/package.json"
  npm install --prefix "$here/node" --no-audit --no-fund --loglevel=error "playwright-core@$playwright_version"
fi

# junitparser in a private venv.
if [ ! -x "$here/.venv/bin/python" ] || ! "$here/.venv/bin/python" -c 'import junitparser' 2>/dev/null; then
  command -v python3 >/dev/null || { echo "setup.sh: python3 is required" >&2; exit 1; }
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet --disable-pip-version-check 'junitparser>=3,<5'
fi

# xmllint for the JUnit XSD check.
if ! command -v xmllint >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null
  else
    echo "setup.sh: please install xmllint (Debian/Ubuntu: libxml2-utils; macOS: it ships with the OS)" >&2
    exit 1
  fi
fi
# Chromium for the browser test: Debian's package (a browser build from anywhere else cannot be
# fetched on a closed network).
if [ ! -x /usr/bin/chromium ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup.sh: please install Chromium at /usr/bin/chromium (Debian/Ubuntu: apt-get install chromium)" >&2
    exit 1
  fi
fi
echo "setup.sh: sarif-multitool, mcpb, playwright-core, junitparser, xmllint and chromium are ready"
