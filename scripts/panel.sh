#!/usr/bin/env bash
# The real-server panel (docs/panel.md): installs thirteen pinned MCP servers from npm and
# PyPI (tests/panel/setup.sh, a no-op when they are in place) and runs the test that compares
# scout's verdicts on them with the hand-checked tests/panel/expected.toml. SCOUT_PANEL=1 makes
# a missing install a failure instead of a skip. Extra arguments go to `cargo test`.
# SCOUT_PANEL_ONLY=name,… runs only those servers. Reports of the run: target/panel/NAME/.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tests/panel/setup.sh
cargo build --bin scout
SCOUT_PANEL=1 cargo test --test integration "$@" panel:: -- --nocapture
