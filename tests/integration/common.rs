//! Shared helpers: running the `scout` binary with a scrubbed environment, and starting the
//! Python fixture servers of `tests/fixtures/` (stdio command lines, or HTTP on a free port).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// The `scout` binary with CI-, GitHub- and scout-specific variables removed, so a test
/// behaves the same on a laptop and in CI.
pub fn scout() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scout"));
    for (k, _) in std::env::vars() {
        if k == "CI" || k == "NO_COLOR" || k.starts_with("GITHUB_") || k.starts_with("SCOUT_") {
            cmd.env_remove(k);
        }
    }
    cmd
}

/// Path of a fixture server script.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The command line that runs a fixture over stdio.
pub fn stdio_command(name: &str) -> Vec<String> {
    vec![
        "python3".into(),
        fixture(name).display().to_string(),
        "stdio".into(),
    ]
}

/// A fixture serving Streamable HTTP on a free loopback port; killed and reaped on drop.
pub struct HttpFixture {
    child: Child,
    /// `http://127.0.0.1:<port>/mcp`
    pub url: String,
}

impl HttpFixture {
    /// Starts `name` with `--port 0` and reads the URL it prints on stderr.
    pub fn start(name: &str) -> HttpFixture {
        let mut child = Command::new("python3")
            .arg(fixture(name))
            .args(["http", "--port", "0"])
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs the fixture");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut line = String::new();
        BufReader::new(stderr)
            .read_line(&mut line)
            .expect("the fixture prints its URL");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from {name}: {line}"))
            .to_string();
        HttpFixture { child, url }
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
