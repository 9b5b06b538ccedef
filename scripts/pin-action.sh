#!/usr/bin/env bash
# Pins scout's two actions to a release, for the commit the release workflow tags as vX and
# vX.Y (.github/workflows/pin-action.yml):
#   action.yml       runs.image becomes the released image by digest (docker://IMAGE@sha256:…),
#                    so the container action pulls it instead of building the Dockerfile
#   host/action.yml  the `version` input defaults to the release, so the host action installs
#                    exactly the binaries of the same release
# On main both stay as they are (the image is built from the checkout, the host action picks
# its version from its tag), which is what the self-test exercises.
#
# Usage: scripts/pin-action.sh VERSION IMAGE@sha256:DIGEST   (run from anywhere)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() {
  echo "pin-action.sh: $*" >&2
  exit 1
}

[ "$#" -eq 2 ] || die "usage: pin-action.sh VERSION IMAGE@sha256:DIGEST"
version="$1" image="$2"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || die "'$version' is not a release version (X.Y.Z)"
[[ "$image" =~ ^[a-z0-9][a-z0-9./_-]*@sha256:[0-9a-f]{64}$ ]] || die "'$image' is not an image pinned by digest (NAME@sha256:…)"
[ -f action.yml ] || die "action.yml is missing"
[ -f host/action.yml ] || die "host/action.yml is missing"

# action.yml: the one `image:` key of `runs:` (indented, inside the runs block).
awk -v image="docker://$image" '
  /^runs:/ { in_runs = 1; print; next }
  /^[^[:space:]#]/ { in_runs = 0 }
  in_runs && /^[[:space:]]+image:/ {
    match($0, /^[[:space:]]+/)
    print substr($0, 1, RLENGTH) "image: \"" image "\""
    done++
    next
  }
  { print }
  END { if (done != 1) exit 1 }
' action.yml >action.yml.pinned || { rm -f action.yml.pinned; die "action.yml has no single runs.image to pin"; }
mv action.yml.pinned action.yml

# host/action.yml: the `default:` of the `version` input.
awk -v version="$version" '
  /^inputs:/ { in_inputs = 1; print; next }
  /^[^[:space:]#]/ { in_inputs = 0 }
  in_inputs && /^  [a-z-]+:/ { in_version = ($0 ~ /^  version:/) }
  in_version && /^    default:/ {
    print "    default: \"" version "\""
    done++
    in_version = 0
    next
  }
  { print }
  END { if (done != 1) exit 1 }
' host/action.yml >host/action.yml.pinned || { rm -f host/action.yml.pinned; die "host/action.yml has no version input default to pin"; }
mv host/action.yml.pinned host/action.yml

echo "pin-action.sh: action.yml runs docker://$image; host/action.yml installs scout $version"
