#!/bin/bash
# The entry point of scout's container images: scout's own arguments run scout, anything else
# runs as given.
#
#   docker run IMAGE check URL …      -> scout check URL …   (a scout subcommand)
#   docker run IMAGE --version        -> scout --version     (starts with `-`)
#   docker run IMAGE sh -c '…'        -> sh -c '…'           (GitLab's script:, Jenkins' inside)
#
# Bash, not sh: dash drops environment variables whose names hold a hyphen, and GitHub passes
# action inputs as INPUT_FAIL-UNDER and the like, which `scout action` reads itself.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  exec scout --help
fi
# Asking scout keeps this list of subcommands from going stale.
if [[ "$1" == -* ]] || scout help "$1" >/dev/null 2>&1; then
  exec scout "$@"
fi
exec "$@"
