//! Shared helpers for integration tests: running the real `scout` binary with a scrubbed
//! environment (so a developer's or CI's own `CI`, `GITHUB_*`, `NO_COLOR` or `SCOUT_*`
//! variables never change what a test sees), fixtures' locations, and the report validators
//! that `tests/tools/setup.sh` installs.

#![allow(dead_code)] // each test area uses a different part of this

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout and stderr together, for "never printed anywhere" assertions.
    pub(crate) fn all_output(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// A `scout` invocation being built.
pub(crate) struct Scout {
    cmd: assert_cmd::Command,
}

/// True for variables a test must not inherit.
pub(crate) fn is_scrubbed(name: &str) -> bool {
    name == "CI"
        || name.starts_with("CI_")
        || name == "NO_COLOR"
        || name.starts_with("GITHUB_")
        || name.starts_with("SCOUT_")
        || name.starts_with("GITLAB_")
        || name.starts_with("INPUT_")
        || name == "RUNNER_TEMP"
        || name == "RUST_LOG"
}

/// A plain `std::process::Command` for `scout` with the same scrubbed environment, for tests
/// that must talk to the running process (signals).
pub(crate) fn command() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_scout"));
    for (name, _) in std::env::vars_os() {
        if is_scrubbed(&name.to_string_lossy()) {
            cmd.env_remove(&name);
        }
    }
    cmd
}

impl Scout {
    /// `scout` with the inherited environment scrubbed and a 60 s safety timeout.
    pub(crate) fn new() -> Scout {
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_scout"));
        for (name, _) in std::env::vars_os() {
            if is_scrubbed(&name.to_string_lossy()) {
                cmd.env_remove(&name);
            }
        }
        cmd.timeout(Duration::from_secs(60));
        Scout { cmd }
    }

    /// Appends arguments.
    pub(crate) fn args<I, S>(mut self, args: I) -> Scout
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// Sets one variable.
    pub(crate) fn env(mut self, name: &str, value: &str) -> Scout {
        self.cmd.env(name, value);
        self
    }

    /// Runs the way a GitHub Actions step does, in workspace `ws`: `GITHUB_ACTIONS`,
    /// `GITHUB_WORKSPACE` and the output and step-summary files `output` and `summary`.
    pub(crate) fn github_actions(self, ws: &Path, output: &Path, summary: &Path) -> Scout {
        self.dir(ws)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", &output.to_string_lossy())
            .env("GITHUB_STEP_SUMMARY", &summary.to_string_lossy())
            .env("GITHUB_WORKSPACE", &ws.to_string_lossy())
    }

    /// Runs in this directory.
    pub(crate) fn dir(mut self, dir: &Path) -> Scout {
        self.cmd.current_dir(dir);
        self
    }

    /// Runs to completion.
    pub(crate) fn run(mut self) -> Run {
        let out = self.cmd.output().expect("scout runs");
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// A fresh temporary folder holding `scout.toml` with `text` (when given).
pub(crate) fn workspace(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    if let Some(text) = config {
        std::fs::write(dir.path().join("scout.toml"), text).expect("write config");
    }
    dir
}

/// The crate root (fixtures live below it).
pub(crate) fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A loopback port nothing listens on: bound, read, released.
pub(crate) fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    drop(l);
    port
}

/// `cmd` with every variable that could change scout's behaviour removed.
pub(crate) fn scrubbed(mut cmd: Command) -> Command {
    for (key, _) in std::env::vars_os() {
        if is_scrubbed(&key.to_string_lossy()) {
            cmd.env_remove(&key);
        }
    }
    cmd
}

/// `tests/tools/<rel>`, or a panic telling the user to run the setup script.
pub(crate) fn tool(rel: &str) -> PathBuf {
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
pub(crate) fn on_path(program: &str) -> PathBuf {
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
pub(crate) fn scout() -> Command {
    let mut cmd = scrubbed(Command::new(env!("CARGO_BIN_EXE_scout")));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Path of a fixture server script.
pub(crate) fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The command line that runs a fixture over stdio.
pub(crate) fn stdio_command(name: &str) -> Vec<String> {
    vec![
        "python3".into(),
        fixture(name).display().to_string(),
        "stdio".into(),
    ]
}

/// A fixture serving Streamable HTTP on a free loopback port; killed and reaped on drop.
pub(crate) struct HttpFixture {
    child: Child,
    /// `http://127.0.0.1:<port>/mcp`
    pub url: String,
}

impl HttpFixture {
    /// Starts `name` with `--port 0` and reads the URL it prints on stderr.
    pub(crate) fn start(name: &str) -> HttpFixture {
        HttpFixture::start_with_env(name, &[])
    }

    /// [`HttpFixture::start`] with extra environment variables for the fixture.
    pub(crate) fn start_with_env(name: &str, env: &[(&str, &str)]) -> HttpFixture {
        let mut child = Command::new("python3")
            .arg(fixture(name))
            .args(["http", "--port", "0"])
            .envs(env.iter().copied())
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
