//! Shared helpers for integration tests: commands with a scrubbed environment, and the
//! report validators that `tests/tools/setup.sh` installs.

#![allow(dead_code)] // each test area uses a different part of this

use std::path::PathBuf;
use std::process::Command;

/// Environment variables that change scout's behaviour (CI detection, colours, config)
/// and must not leak from the developer's shell or the CI runner into a test.
const SCRUBBED_PREFIXES: &[&str] = &["GITHUB_", "SCOUT_", "GITLAB_"];
const SCRUBBED: &[&str] = &["CI", "NO_COLOR", "RUNNER_TEMP"];

/// `cmd` with every variable that could change scout's behaviour removed.
pub fn scrubbed(mut cmd: Command) -> Command {
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if SCRUBBED.contains(&k.as_ref()) || SCRUBBED_PREFIXES.iter().any(|p| k.starts_with(p)) {
            cmd.env_remove(&key);
        }
    }
    cmd
}

/// `tests/tools/<rel>`, or a panic telling the user to run the setup script.
pub fn tool(rel: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tools")
        .join(rel);
    assert!(
        path.exists(),
        "{} is missing: run `tests/tools/setup.sh` once to install the report validators",
        path.display()
    );
    path
}

/// A program on PATH, or a panic telling the user to run the setup script.
pub fn on_path(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("{program} is not installed: run `tests/tools/setup.sh` to install it")
        })
}

/// A `Command` for the scout binary built by this `cargo test`, with its environment scrubbed
/// and its working directory at the crate root.
pub fn scout() -> Command {
    let mut cmd = scrubbed(Command::new(env!("CARGO_BIN_EXE_scout")));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}
