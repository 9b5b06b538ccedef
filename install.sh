#!/bin/sh
# Installs the scout release binary for this machine, without a Rust toolchain:
#
#   curl -fsSL https://raw.githubusercontent.com/scout-mcp/scout/main/install.sh | sh
#
# It picks the archive for this OS and architecture from the release, checks it against the
# release's SHA-256 file, and puts `scout` in SCOUT_INSTALL_DIR. Nothing else is changed:
# no shell profile is edited, and a failure leaves nothing behind.
#
# Settings (environment):
#   SCOUT_VERSION       X.Y.Z, vX.Y.Z or latest (default latest)
#   SCOUT_INSTALL_DIR   where `scout` goes (default $HOME/.local/bin)
#   SCOUT_RELEASES_URL  the releases page (default https://github.com/scout-mcp/scout/releases)
#
# Needs curl, tar, xz and sha256sum (or shasum). Every failure is one line on stderr and
# exit 1.
set -eu

releases="${SCOUT_RELEASES_URL:-https://github.com/scout-mcp/scout/releases}"
version="${SCOUT_VERSION:-latest}"
dest="${SCOUT_INSTALL_DIR:-${HOME:?HOME is not set: give SCOUT_INSTALL_DIR}/.local/bin}"

die() {
  echo "scout installer: $*" >&2
  exit 1
}

for tool in curl tar xz; do
  command -v "$tool" >/dev/null 2>&1 || die "needs $tool, which is not installed"
done

# curl with bounded time and retries; only https, also after redirects.
fetch() {
  curl --fail --silent --show-error --location --proto '=https' --proto-redir '=https' \
    --retry 3 --retry-delay 2 --connect-timeout 20 --max-time 300 "$@"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    die "needs sha256sum or shasum to check the download"
  fi
}

case "$(uname -s)" in
  Linux) os=unknown-linux-gnu ;;
  Darwin) os=apple-darwin ;;
  *) die "no scout release for $(uname -s); build it with \`cargo install --git https://github.com/scout-mcp/scout\`" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) die "no scout release for the architecture $(uname -m)" ;;
esac
target="$arch-$os"

if [ "$version" = latest ]; then
  # The "latest" page redirects to the newest release's tag page.
  effective="$(fetch --head --output /dev/null --write-out '%{url_effective}' "$releases/latest")" ||
    die "could not look up the latest release at $releases"
  version="${effective##*/}"
fi
case "$version" in
  v[0-9]* | [0-9]*) ;;
  *) die "'$version' is not a release (use X.Y.Z, vX.Y.Z or latest)" ;;
esac
# Only digits, dots, letters and dashes: the version becomes part of a URL and a path.
if printf '%s' "$version" | grep -q '[^0-9A-Za-z.-]'; then
  die "'$version' is not a release (use X.Y.Z, vX.Y.Z or latest)"
fi
version="${version#v}"

archive="mcp-scout-$target.tar.xz"
url="$releases/download/v$version/$archive"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT INT TERM

echo "scout installer: downloading scout $version for $target" >&2
fetch --output "$work/$archive" "$url" || die "could not download $url"
fetch --output "$work/$archive.sha256" "$url.sha256" || die "could not download $url.sha256"
want="$(cut -d' ' -f1 "$work/$archive.sha256" | head -n 1)"
got="$(sha256_of "$work/$archive")"
[ -n "$want" ] && [ "$want" = "$got" ] ||
  die "$archive does not match its SHA-256 ($got, the release says $want); nothing was installed"

tar -xJf "$work/$archive" -C "$work" || die "could not unpack $archive"
binary="$work/mcp-scout-$target/scout"
[ -f "$binary" ] || die "$archive holds no mcp-scout-$target/scout; nothing was installed"
mkdir -p "$dest" || die "could not create $dest"
# Moved into place in one step, so a running scout is never half overwritten.
if ! { cp "$binary" "$dest/.scout.new" && chmod 755 "$dest/.scout.new" && mv -f "$dest/.scout.new" "$dest/scout"; }; then
  die "could not write $dest/scout"
fi

echo "scout installer: installed $("$dest/scout" --version) to $dest/scout" >&2
case ":${PATH:-}:" in
  *":$dest:"*) ;;
  *) echo "scout installer: $dest is not on your PATH; add it, or run $dest/scout" >&2 ;;
esac
