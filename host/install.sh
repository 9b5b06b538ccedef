#!/usr/bin/env bash
# The host action's installer (host/action.yml). It reads its inputs from environment
# variables, never from the command line, so no input can become a flag or a shell word:
#
#   install.sh resolve   picks the release and the runner's target, writes the outputs
#                        version, target, archive, dir and cache-key to $GITHUB_OUTPUT
#   install.sh local     uses the scout binary at SCOUT_BINARY instead (built in the job)
#   install.sh install   downloads the archive into dir (unless a cache restored it), checks
#                        it against the release's SHA-256 file and, for a fresh download,
#                        its build attestation, unpacks it, and writes the output bin
#
# Inputs (environment): SCOUT_VERSION ("" = the action's own release tag, else the latest
# release; or X.Y.Z / vX.Y.Z), SCOUT_VERIFY_ATTESTATION (true/false), GH_TOKEN (for
# `gh attestation verify`), and from resolve: SCOUT_TARGET, SCOUT_ARCHIVE, SCOUT_DIR,
# SCOUT_RESOLVED_VERSION, SCOUT_REPOSITORY.
#
# Every failure is one `::error::` line and exit 1.
set -euo pipefail

die() {
  echo "::error title=scout host action::$*"
  exit 1
}

output() {
  echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this inside GitHub Actions}"
}

# curl with bounded time and retries; only https, also after redirects.
fetch() {
  curl --fail --silent --show-error --location --proto '=https' --proto-redir '=https' \
    --retry 3 --retry-delay 2 --connect-timeout 20 --max-time 300 "$@"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

server="${GITHUB_SERVER_URL:-https://github.com}"

# owner/name (and ref) of this action, read from where the runner checked it out:
# .../_actions/OWNER/NAME/REF/host. The github.action_repository and github.action_ref
# contexts are not set for composite actions, so the path is the reliable source.
action_path="${GITHUB_ACTION_PATH:-}"
action_path="${action_path//\\//}"
action_repo=""
action_ref=""
if [[ "$action_path" =~ /_actions/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/([^/]+)/host/?$ ]]; then
  action_repo="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
  action_ref="${BASH_REMATCH[3]}"
fi

resolve() {
  local repo="${action_repo:-scout-mcp/scout}"
  local version="${SCOUT_VERSION:-}"
  local semver='^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'
  if [ -z "$version" ] && [[ "$action_ref" =~ $semver ]]; then
    version="$action_ref"
  fi
  if [ -z "$version" ] || [ "$version" = latest ]; then
    # The "latest" page redirects to the newest release's tag page.
    local effective
    effective="$(fetch --head --output /dev/null --write-out '%{url_effective}' \
      "$server/$repo/releases/latest")" || die "could not look up the latest release of $repo"
    version="${effective##*/}"
  fi
  [[ "$version" =~ $semver ]] || die "version '$version' is not a release (use X.Y.Z, vX.Y.Z or latest)"
  version="${version#v}"

  local os arch target ext
  os="${RUNNER_OS:-$(uname -s)}"
  arch="${RUNNER_ARCH:-$(uname -m)}"
  case "$arch" in
    X64 | x86_64 | amd64) arch=x86_64 ;;
    ARM64 | aarch64 | arm64) arch=aarch64 ;;
    *) die "no scout release for the runner architecture '$arch'" ;;
  esac
  case "$os" in
    Linux) target="$arch-unknown-linux-gnu" ext=tar.xz ;;
    macOS | Darwin) target="$arch-apple-darwin" ext=tar.xz ;;
    # Windows on ARM runs the x86_64 build under emulation.
    Windows) target="x86_64-pc-windows-msvc" ext=zip ;;
    *) die "no scout release for the runner OS '$os'" ;;
  esac

  local tool_cache="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}"
  output version "$version"
  output target "$target"
  output repository "$repo"
  output archive "mcp-scout-$target.$ext"
  output dir "${tool_cache//\\//}/scout/$version/$target"
  output cache-key "scout-host-$version-$target"
}

install() {
  local version="${SCOUT_RESOLVED_VERSION:?}" target="${SCOUT_TARGET:?}"
  local archive="${SCOUT_ARCHIVE:?}" dir="${SCOUT_DIR:?}" repo="${SCOUT_REPOSITORY:?}"
  local base="$server/$repo/releases/download/v$version"
  mkdir -p "$dir"

  # The expected checksum always comes from the release itself, also when the cache
  # restored the archive: a cache entry is trusted only if it matches the release.
  local expected
  expected="$(fetch "$base/$archive.sha256")" ||
    die "could not download $archive.sha256 of scout $version (does release v$version of $repo have a $target build?)"
  expected="${expected%% *}"
  [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || die "$archive.sha256 of scout $version holds no SHA-256"

  local fresh=false
  if [ ! -f "$dir/$archive" ] || [ "$(sha256_of "$dir/$archive")" != "$expected" ]; then
    rm -f "$dir/$archive"
    fetch --output "$dir/$archive.part" "$base/$archive" || die "could not download $archive of scout $version"
    mv "$dir/$archive.part" "$dir/$archive"
    fresh=true
  fi
  local actual
  actual="$(sha256_of "$dir/$archive")"
  if [ "$actual" != "$expected" ]; then
    rm -f "$dir/$archive"
    die "$archive of scout $version does not match its SHA-256 ($actual, expected $expected)"
  fi

  if [ "$fresh" = true ] && [ "${SCOUT_VERIFY_ATTESTATION:-true}" = true ]; then
    command -v gh >/dev/null 2>&1 ||
      die "verify-attestation needs the GitHub CLI (gh); install it or set verify-attestation: false"
    gh attestation verify "$dir/$archive" --repo "$repo" >/dev/null ||
      die "$archive of scout $version has no valid build attestation from $repo"
  fi

  local unpacked="$dir/unpacked"
  rm -rf "$unpacked"
  mkdir -p "$unpacked"
  case "$archive" in
    *.zip) unzip -q -o "$dir/$archive" -d "$unpacked" || die "could not unpack $archive" ;;
    *) tar -xJf "$dir/$archive" -C "$unpacked" || die "could not unpack $archive" ;;
  esac
  local exe=scout
  [[ "$target" == *windows* ]] && exe=scout.exe
  local bin
  bin="$(find "$unpacked" -type f -name "$exe" | head -n 1)"
  [ -n "$bin" ] || die "$archive of scout $version holds no $exe"
  chmod +x "$bin"
  "$bin" --version >/dev/null || die "the installed scout $version does not run on this runner"
  echo "scout $version ($target) from $repo, SHA-256 $actual"
  output bin "$bin"
}

local_binary() {
  local bin="${SCOUT_BINARY:?}"
  [[ "$bin" == -* ]] && die "binary '$bin' looks like a flag; give a path"
  [ -f "$bin" ] || die "binary '$bin' is not a file"
  "$bin" --version >/dev/null || die "binary '$bin' does not run"
  output bin "$bin"
}

case "${1:-}" in
  resolve) resolve ;;
  install) install ;;
  local) local_binary ;;
  *) die "usage: install.sh resolve|install|local" ;;
esac
