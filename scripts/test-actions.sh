#!/usr/bin/env bash
# Tests the shell parts of scout's actions:
# - the host action's installer (host/install.sh) against a stand-in release server on
#   127.0.0.1 (HTTPS with a throwaway certificate, laid out like GitHub's release downloads),
#   run the way host/action.yml runs it: the latest-release lookup, the version taken from
#   the action's own path, a SHA-256 mismatch, a poisoned cache entry, flag-like and
#   malformed inputs;
# - the README's one-command installer (install.sh) against the same stand-in release:
#   the latest release installed and run, a SHA-256 mismatch and a malformed version refused;
# - the release pin (scripts/pin-action.sh) on copies of both action files.
# Needs python3, openssl, curl, tar and xz. Prints "N passed, N failed" and exits non-zero
# on any failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo_root="$PWD"
work="$(mktemp -d)"
server_pid=""
# Runs at exit: it must not change the exit status (set -e applies in traps too, and
# `wait` on the killed server returns 143).
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
not_ok() { failed=$((failed + 1)); echo "FAILED: $1"; }

# A release v0.1.0 of a stand-in scout, as `dist` lays it out: an archive holding a folder
# with the binary, and NAME.sha256 beside it.
target=x86_64-unknown-linux-gnu
archive="mcp-scout-$target.tar.xz"
rel="$work/www/scout-mcp/scout/releases/download/v0.1.0"
mkdir -p "$rel" "$work/pkg/mcp-scout-$target"
printf '#!/bin/sh\necho "scout 0.1.0"\n' >"$work/pkg/mcp-scout-$target/scout"
chmod +x "$work/pkg/mcp-scout-$target/scout"
tar -cJf "$rel/$archive" -C "$work/pkg" "mcp-scout-$target"
# dist writes "<hex> *<name>" and a blank line, as sha256sum reads it.
printf '%s *%s\n\n' "$(sha256sum "$rel/$archive" | cut -d' ' -f1)" "$archive" >"$rel/$archive.sha256"

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

# The server: /OWNER/NAME/releases/latest redirects to the tag page, like github.com.
cat >"$work/server.py" <<'EOF'
import http.server, os, ssl, sys

root, cert, key, port_file = sys.argv[1:5]

class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=root, **kw)

    def log_message(self, *a):
        pass

    def do_HEAD(self):
        if self.path.endswith("/releases/latest"):
            self.send_response(302)
            self.send_header("Location", self.path.rsplit("/", 1)[0] + "/tag/v0.1.0")
            self.end_headers()
        elif "/releases/tag/" in self.path:
            self.send_response(200)
            self.end_headers()
        else:
            super().do_HEAD()

httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(httpd.server_address[1]))
os.rename(port_file + ".tmp", port_file)
httpd.serve_forever()
EOF
python3 "$work/server.py" "$work/www" "$work/cert.pem" "$work/key.pem" "$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -f "$work/port" ] && break; sleep 0.1; done
[ -f "$work/port" ] || { echo "test-actions.sh: the stand-in release server did not start" >&2; exit 1; }

# What the runner gives every step, and curl trusting the throwaway certificate.
port="$(cat "$work/port")"
export GITHUB_SERVER_URL="https://127.0.0.1:$port"
export CURL_CA_BUNDLE="$work/cert.pem"
export RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TOOL_CACHE="$work/toolcache"
export GITHUB_ACTION_PATH="$repo_root/host"
unset GH_TOKEN GITHUB_TOKEN

# Runs install.sh MODE with its own $GITHUB_OUTPUT; prints that file, then the log.
run() {
  local mode="$1"
  : >"$work/out"
  : >"$work/log"
  GITHUB_OUTPUT="$work/out" bash host/install.sh "$mode" >"$work/log" 2>&1
}
get() { sed -n "s/^$1=//p" "$work/out" | tail -n 1; }

# resolve, then install, with what resolve wrote passed as the action passes it.
resolve_and_install() {
  run resolve || return 1
  SCOUT_RESOLVED_VERSION="$(get version)" SCOUT_TARGET="$(get target)" \
    SCOUT_REPOSITORY="$(get repository)" SCOUT_ARCHIVE="$(get archive)" \
    SCOUT_DIR="$(get dir)" SCOUT_VERIFY_ATTESTATION=false run install
}

# 1. Latest release (no version given, action not under _actions/).
if SCOUT_VERSION="" run resolve && [ "$(get version)" = 0.1.0 ] &&
  [ "$(get target)" = "$target" ] && [ "$(get archive)" = "$archive" ] &&
  [ "$(get cache-key)" = "scout-host-0.1.0-$target" ] &&
  [ "$(get dir)" = "$work/toolcache/scout/0.1.0/$target" ]; then
  ok "resolve: no version picks the latest release"
else not_ok "resolve: no version picks the latest release ($(cat "$work/out" "$work/log"))"; fi

# 2. Install: downloads, checks the SHA-256, unpacks, runs --version.
if SCOUT_VERSION=v0.1.0 resolve_and_install && [ -x "$(get bin)" ] &&
  [ "$("$(get bin)" --version)" = "scout 0.1.0" ]; then
  ok "install: the archive is checked and the binary runs"
else not_ok "install: the archive is checked and the binary runs ($(cat "$work/log"))"; fi

# 3. A poisoned cache entry (same path, other bytes) is replaced by the release's archive.
dir="$work/toolcache/scout/0.1.0/$target"
echo "not scout" >"$dir/$archive"
if SCOUT_VERSION=0.1.0 resolve_and_install && [ "$("$(get bin)" --version)" = "scout 0.1.0" ] &&
  cmp -s "$dir/$archive" "$rel/$archive"; then
  ok "install: a cached archive that does not match the release is downloaded again"
else not_ok "install: a poisoned cache entry is replaced ($(cat "$work/log"))"; fi

# 4. A release archive that does not match its published SHA-256 is refused and removed.
cp "$rel/$archive.sha256" "$work/good.sha256"
echo "$(printf '0%.0s' $(seq 64))  $archive" >"$rel/$archive.sha256"
rm -rf "$work/toolcache"
if ! SCOUT_VERSION=0.1.0 resolve_and_install && grep -q '^::error.*does not match its SHA-256' "$work/log" &&
  [ ! -f "$dir/$archive" ] && [ -z "$(get bin)" ]; then
  ok "install: a SHA-256 mismatch fails with one error line and leaves nothing installed"
else not_ok "install: a SHA-256 mismatch is refused ($(cat "$work/log"))"; fi
cp "$work/good.sha256" "$rel/$archive.sha256"

# 5. The version comes from the action's own ref when it is a release tag.
if GITHUB_ACTION_PATH="/runner/_work/_actions/scout-mcp/scout/v0.1.0/host" SCOUT_VERSION="" run resolve &&
  [ "$(get version)" = 0.1.0 ] && [ "$(get repository)" = scout-mcp/scout ]; then
  ok "resolve: the action's release tag sets the version and the repository"
else not_ok "resolve: version from the action path ($(cat "$work/out" "$work/log"))"; fi

# 6. Inputs that are not versions, and a binary input that looks like a flag, are refused.
if ! SCOUT_VERSION="--help" run resolve && grep -q "^::error.*is not a release" "$work/log" &&
  ! SCOUT_VERSION='1.0; rm -rf /' run resolve && grep -q "^::error.*is not a release" "$work/log" &&
  ! SCOUT_BINARY="--version" run local && grep -q "^::error.*looks like a flag" "$work/log"; then
  ok "inputs: flag-like and malformed values are refused with one error line"
else not_ok "inputs: flag-like and malformed values are refused ($(cat "$work/log"))"; fi

# 7. Runner kinds map to release targets.
if RUNNER_OS=macOS RUNNER_ARCH=ARM64 SCOUT_VERSION=0.1.0 run resolve &&
  [ "$(get target)" = aarch64-apple-darwin ] &&
  RUNNER_OS=Windows RUNNER_ARCH=X64 SCOUT_VERSION=0.1.0 run resolve &&
  [ "$(get archive)" = mcp-scout-x86_64-pc-windows-msvc.zip ] &&
  RUNNER_OS=Linux RUNNER_ARCH=ARM64 SCOUT_VERSION=0.1.0 run resolve &&
  [ "$(get target)" = aarch64-unknown-linux-gnu ] &&
  ! RUNNER_OS=Linux RUNNER_ARCH=ARM SCOUT_VERSION=0.1.0 run resolve; then
  ok "resolve: macOS, Windows and Linux runners map to their release targets"
else not_ok "resolve: runner targets ($(cat "$work/out" "$work/log"))"; fi

# 8. The README's installer (install.sh, run as `curl … | sh` runs it: by sh, from stdin)
#    installs the latest release for this machine, checked, and refuses what it must.
case "$(uname -m)" in
  aarch64 | arm64) here_arch=aarch64 ;;
  *) here_arch=x86_64 ;;
esac
case "$(uname -s)" in
  Darwin) here="$here_arch-apple-darwin" ;;
  *) here="$here_arch-unknown-linux-gnu" ;;
esac
here_archive="mcp-scout-$here.tar.xz"
if [ "$here" != "$target" ]; then
  mkdir -p "$work/pkg-here/mcp-scout-$here"
  cp "$work/pkg/mcp-scout-$target/scout" "$work/pkg-here/mcp-scout-$here/scout"
  tar -cJf "$rel/$here_archive" -C "$work/pkg-here" "mcp-scout-$here"
  printf '%s *%s\n\n' "$(sha256sum "$rel/$here_archive" | cut -d' ' -f1)" "$here_archive" >"$rel/$here_archive.sha256"
fi
installer() {
  SCOUT_RELEASES_URL="$GITHUB_SERVER_URL/scout-mcp/scout/releases" SCOUT_INSTALL_DIR="$1" \
    sh <install.sh >"$work/log" 2>&1
}
if installer "$work/bin" && [ "$("$work/bin/scout" --version)" = "scout 0.1.0" ] &&
  grep -q "installed scout 0.1.0 to $work/bin/scout" "$work/log"; then
  ok "install.sh: one command installs the latest release, checked, and it runs"
else not_ok "install.sh: installs the latest release ($(cat "$work/log"))"; fi
cp "$rel/$here_archive.sha256" "$work/here.sha256"
echo "$(printf '0%.0s' $(seq 64))  $here_archive" >"$rel/$here_archive.sha256"
if ! installer "$work/bin2" && grep -q "does not match its SHA-256" "$work/log" &&
  [ ! -e "$work/bin2/scout" ] && [ "$(wc -l <"$work/log")" -le 2 ]; then
  ok "install.sh: a SHA-256 mismatch is one line and installs nothing"
else not_ok "install.sh: a SHA-256 mismatch is refused ($(cat "$work/log"))"; fi
cp "$work/here.sha256" "$rel/$here_archive.sha256"
if ! SCOUT_VERSION='1.0;rm' installer "$work/bin3" && grep -q "is not a release" "$work/log" &&
  [ ! -e "$work/bin3" ]; then
  ok "install.sh: a malformed version is refused before anything is fetched"
else not_ok "install.sh: a malformed version is refused ($(cat "$work/log"))"; fi

# 9. The release pin rewrites exactly the image of action.yml and the version default of
#    host/action.yml, and refuses what is not a release and a digest.
pin="$work/pin"
mkdir -p "$pin/scripts" "$pin/host"
cp scripts/pin-action.sh "$pin/scripts/"
cp host/action.yml "$pin/host/action.yml"
if [ -f action.yml ]; then
  cp action.yml "$pin/action.yml"
else
  # The container action's shape, for a checkout that does not have it.
  printf 'name: scout\ndescription: d\nruns:\n  using: docker\n  image: Dockerfile\n  args:\n    - action\n' >"$pin/action.yml"
fi
digest="sha256:$(printf 'a%.0s' $(seq 64))"
# The line of the version input's default, counted in the original.
version_default=$(awk '/^  version:/ { v = 1 } v && /^    default:/ { print NR; exit }' host/action.yml)
if bash "$pin/scripts/pin-action.sh" 1.2.3 "ghcr.io/scout-mcp/scout@$digest" >"$work/log" 2>&1 &&
  [ "$(grep -c '^  image: "docker://ghcr.io/scout-mcp/scout@'"$digest"'"$' "$pin/action.yml")" = 1 ] &&
  [ "$(grep -c 'image:' "$pin/action.yml")" = 1 ] &&
  [ "$(diff host/action.yml "$pin/host/action.yml" | grep -c '^[<>]')" = 2 ] &&
  [ "$(diff host/action.yml "$pin/host/action.yml" | head -n 1)" = "${version_default}c${version_default}" ] &&
  [ "$(sed -n "${version_default}p" "$pin/host/action.yml")" = '    default: "1.2.3"' ]; then
  ok "pin: action.yml runs the released image by digest, host/action.yml installs that release"
else not_ok "pin: the release pin ($(cat "$work/log"))"; fi
if ! bash "$pin/scripts/pin-action.sh" latest "ghcr.io/scout-mcp/scout@$digest" >/dev/null 2>&1 &&
  ! bash "$pin/scripts/pin-action.sh" 1.2.3 "ghcr.io/scout-mcp/scout:1.2.3" >/dev/null 2>&1; then
  ok "pin: a version that is not a release and an image without a digest are refused"
else not_ok "pin: bad arguments are refused"; fi

# 10. The pinned files are still valid action metadata (with the linters' venv, which
#    scripts/lint-ci.sh installs and .ci/run runs first).
if [ -x .lint-ci/venv/bin/check-jsonschema ]; then
  if .lint-ci/venv/bin/check-jsonschema --builtin-schema vendor.github-actions \
    "$pin/action.yml" "$pin/host/action.yml" >"$work/log" 2>&1; then
    ok "pin: both pinned files pass the GitHub action schema"
  else not_ok "pin: the pinned files fail the action schema ($(cat "$work/log"))"; fi
else
  echo "skipped: the schema check of the pinned files (run scripts/lint-ci.sh first)"
fi

echo "scout actions: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
