#!/usr/bin/env bash
# Runs scout's whole test suite from any directory, installing first everything the tests need:
# the real MCP servers (tests/servers/setup.sh: npm and PyPI packages into gitignored folders)
# and, when present, the report validators (tests/tools/setup.sh).
# Extra arguments go to `cargo test`, e.g. `scripts/test.sh real_servers`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tests/servers/setup.sh
if [ -f tests/tools/setup.sh ]; then
  bash tests/tools/setup.sh
fi

# The tests run the demo server and examples/demo.toml runs it at its plain path, which only
# `cargo build` creates (cargo test --all-targets builds examples under hashed names).
cargo build --bin scout --example demo-server
cargo test --all-targets "$@"
