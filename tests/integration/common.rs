//! Running the `scout` binary from tests with a scrubbed environment, so a test behaves the
//! same on a laptop, in CI and under GitHub Actions.

#![allow(dead_code)] // each test area uses a different part of this

use std::process::Command;

/// Variables that change scout's behaviour (CI detection, colour, config layering) and so
/// must never leak from the machine running the tests into a test.
fn scrubbed(name: &str) -> bool {
    name == "CI" || name == "NO_COLOR" || name.starts_with("GITHUB_") || name.starts_with("SCOUT_")
}

/// A `Command` for the scout binary built by this `cargo test`, with its environment scrubbed
/// and its working directory at the crate root.
pub fn scout() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scout"));
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(scrubbed) {
            cmd.env_remove(&name);
        }
    }
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}
