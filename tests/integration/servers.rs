//! Starts and stops the real MCP servers that integration tests run against.
//!
//! The servers are installed by `tests/servers/setup.sh` (npm and PyPI packages in gitignored
//! folders under `tests/servers/`); `scripts/test.sh` runs it before `cargo test`. An HTTP
//! server runs as its own process group on a free loopback port and is killed (the whole
//! group) and reaped when its [`HttpServer`] is dropped, so a failing test leaves nothing
//! behind. A stdio server is only described here, as the argv scout (or a test) should run.
//!
//! Our own SDK servers (`py_server.py`, `ts_server.mjs`) append the name of every tool they run
//! to the file named by `SCOUT_TEST_CALL_LOG`. For HTTP servers pass it with `py_http_with` /
//! `ts_http_with`; scout gives a stdio child only the variables it is told to, so pass it to
//! scout as `--stdio-set SCOUT_TEST_CALL_LOG=<path>` (and never in scout's own environment,
//! where `SCOUT_*` is configuration).

#![allow(dead_code)] // each test area uses a different subset of the servers

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// How long a server may take to start listening (Python and Node start in 1–3 s; a loaded CI
/// machine with six builds running needs more).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a server gets to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// `tests/servers/`, where `setup.sh` installs the servers.
pub(crate) fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers")
}

fn path_string(path: PathBuf) -> String {
    path.to_string_lossy().into_owned()
}

fn everything_js() -> String {
    path_string(
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    )
}

fn venv_bin(name: &str) -> String {
    path_string(servers_dir().join(".venv/bin").join(name))
}

fn script(name: &str) -> String {
    path_string(servers_dir().join(name))
}

/// Panics, naming `tests/servers/setup.sh`, when the real servers are not installed.
///
/// Tests against real servers never skip silently: a test suite that "passes" because nothing
/// was installed would hide every regression these tests exist to catch.
pub(crate) fn require_setup() {
    let dir = servers_dir();
    let needed = [
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        "node_modules/@modelcontextprotocol/server/package.json",
        "node_modules/@modelcontextprotocol/node/package.json",
        ".venv/bin/python",
        ".venv/bin/mcp-server-time",
    ];
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|p| !dir.join(p).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "the real MCP test servers are not installed (missing under tests/servers/: {}); \
         run tests/servers/setup.sh (scripts/test.sh does it for you)",
        missing.join(", ")
    );
    assert!(
        Command::new("node")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success()),
        "`node` is not on PATH; the npm test servers need it (see tests/servers/setup.sh)"
    );
}

/// A loopback port that was free a moment ago.
///
/// The listener is dropped before the server binds, so another process could take the port in
/// between; the start then fails loudly rather than talking to a stranger, because
/// [`HttpServer::start`] also requires its own child to be alive once the port answers.
pub(crate) fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

/// A real MCP server listening on loopback, stopped (process group killed, child reaped) on drop.
#[derive(Debug)]
pub(crate) struct HttpServer {
    /// The MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`.
    pub url: String,
    /// The port the server listens on.
    pub port: u16,
    /// The server process; its pid is also its process-group id.
    pub child: Child,
    /// What the server wrote on stdout and stderr, shown when it fails to start.
    log: tempfile::NamedTempFile,
}

impl HttpServer {
    /// Starts `argv` (every `{port}` replaced by a free port) with `env` added to the inherited
    /// environment, in its own process group, and waits until the port accepts connections.
    /// `path` is the endpoint path on that port (`/mcp`, `/sse`).
    pub(crate) fn start(argv: &[String], env: &[(&str, &str)], path: &str) -> Self {
        let port = free_port();
        let argv: Vec<String> = argv
            .iter()
            .map(|a| a.replace("{port}", &port.to_string()))
            .collect();
        Self::launch(&argv, env, port, path)
    }

    /// Starts `argv` exactly as given, for a server whose port is fixed by its own arguments
    /// (as in a config's `start`), and waits until `port` accepts connections.
    pub(crate) fn start_on(argv: &[String], port: u16, path: &str) -> Self {
        Self::launch(argv, &[], port, path)
    }

    fn launch(argv: &[String], env: &[(&str, &str)], port: u16, path: &str) -> Self {
        let (program, args) = argv.split_first().expect("a server command");
        let log = tempfile::NamedTempFile::new().expect("temporary log file");
        let out = log.reopen().expect("reopen log");
        let err = log.reopen().expect("reopen log");
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(servers_dir())
            // The port goes through PORT too: server-everything reads nothing else.
            .env("PORT", port.to_string())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            // Its own process group, so that drop can stop it and anything it spawned.
            .process_group(0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {program}: {e}"));
        let mut server = HttpServer {
            url: format!("http://127.0.0.1:{port}{path}"),
            port,
            child,
            log,
        };
        server.wait_until_listening(argv);
        server
    }

    /// The server's pid (also its process-group id).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server has written to stdout and stderr so far.
    pub(crate) fn output(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    /// Same origin, another path (e.g. `/mcp-strict` on the TypeScript server).
    pub(crate) fn url_with_path(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn wait_until_listening(&mut self, argv: &[String]) {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "test server {argv:?} exited ({status}) before listening on port {}; its output:\n{}",
                    self.port,
                    self.output()
                );
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "test server {argv:?} did not listen on port {} within {START_TIMEOUT:?}; its output:\n{}",
                self.port,
                self.output()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        stop_group(&mut self.child);
    }
}

/// SIGTERM to the child's process group, a grace period, then SIGKILL; always reaps the child.
pub(crate) fn stop_group(child: &mut Child) {
    let Ok(raw) = i32::try_from(child.id()) else {
        return;
    };
    let group = Pid::from_raw(raw);
    // Errors mean the group is already gone, which is what we want.
    let _ = killpg(group, Signal::SIGTERM);
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            // The leader is gone; take down anything it left in the group.
            let _ = killpg(group, Signal::SIGKILL);
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = killpg(group, Signal::SIGKILL);
    let _ = child.wait();
}

// ------------------------------------------------------------------ HTTP servers

/// server-everything (npm, TS SDK v1) in Streamable HTTP mode: legacy era only, sessions.
pub(crate) fn everything_http() -> HttpServer {
    require_setup();
    HttpServer::start(
        &[
            "node".to_owned(),
            everything_js(),
            "streamableHttp".to_owned(),
        ],
        &[],
        "/mcp",
    )
}

/// server-everything in its legacy HTTP+SSE mode (2024-11-05 transport): `GET /sse`.
pub(crate) fn everything_sse() -> HttpServer {
    require_setup();
    HttpServer::start(
        &["node".to_owned(), everything_js(), "sse".to_owned()],
        &[],
        "/sse",
    )
}

fn py_http_argv(extra: &[&str]) -> Vec<String> {
    let mut argv = vec![
        venv_bin("python"),
        script("py_server.py"),
        "http".to_owned(),
        "{port}".to_owned(),
    ];
    argv.extend(extra.iter().map(|s| (*s).to_owned()));
    argv
}

/// Our Python SDK server (both eras), stateful, SSE responses.
pub(crate) fn py_http() -> HttpServer {
    py_http_with(&[])
}

/// [`py_http`] with extra environment (e.g. `SCOUT_TEST_CALL_LOG`).
pub(crate) fn py_http_with(env: &[(&str, &str)]) -> HttpServer {
    require_setup();
    HttpServer::start(&py_http_argv(&[]), env, "/mcp")
}

/// Our Python SDK server, stateless, JSON responses.
pub(crate) fn py_http_stateless_json() -> HttpServer {
    require_setup();
    HttpServer::start(&py_http_argv(&["--stateless", "--json"]), &[], "/mcp")
}

/// Our TypeScript SDK v2 server: `/mcp` speaks 2026-07-28 with a stateless 2025 fallback;
/// `url_with_path("/mcp-strict")` speaks 2026-07-28 only.
pub(crate) fn ts_http() -> HttpServer {
    ts_http_with(&[])
}

/// [`ts_http`] with extra environment (e.g. `SCOUT_TEST_CALL_LOG`).
pub(crate) fn ts_http_with(env: &[(&str, &str)]) -> HttpServer {
    require_setup();
    let argv = [
        "node".to_owned(),
        script("ts_server.mjs"),
        "http".to_owned(),
        "{port}".to_owned(),
    ];
    HttpServer::start(&argv, env, "/mcp")
}

// ------------------------------------------------------------------ stdio servers

/// server-everything over stdio (legacy era only).
pub(crate) fn everything_stdio() -> Vec<String> {
    require_setup();
    vec!["node".to_owned(), everything_js(), "stdio".to_owned()]
}

/// Our Python SDK server over stdio (both eras).
pub(crate) fn py_stdio() -> Vec<String> {
    require_setup();
    vec![
        venv_bin("python"),
        script("py_server.py"),
        "stdio".to_owned(),
    ]
}

/// Our TypeScript SDK v2 server over stdio (both eras).
pub(crate) fn ts_stdio() -> Vec<String> {
    require_setup();
    vec![
        "node".to_owned(),
        script("ts_server.mjs"),
        "stdio".to_owned(),
    ]
}

/// PyPI `mcp-server-time` over stdio (both eras).
pub(crate) fn time_stdio() -> Vec<String> {
    require_setup();
    vec![
        venv_bin("mcp-server-time"),
        "--local-timezone".to_owned(),
        "UTC".to_owned(),
    ]
}

/// The demo server built from `examples/demo-server.rs`, over stdio.
///
/// Cargo builds examples for `cargo test --all-targets` (what `scripts/test.sh` runs) but
/// not for `cargo test --test integration` alone, hence the message.
pub(crate) fn demo_stdio() -> Vec<String> {
    let scout = Path::new(env!("CARGO_BIN_EXE_scout"));
    let demo = scout
        .parent()
        .map(|dir| dir.join("examples/demo-server"))
        .expect("the scout binary has a parent directory");
    assert!(
        demo.exists(),
        "the demo server is not built; run `cargo build --example demo-server` \
         (cargo test --all-targets builds it)"
    );
    vec![path_string(demo), "stdio".to_owned()]
}

/// Starts the demo server over HTTP on a free port.
pub(crate) fn demo_http() -> HttpServer {
    let mut argv = demo_stdio();
    argv.truncate(1);
    argv.extend(["http", "--port", "{port}"].map(str::to_owned));
    HttpServer::start(&argv, &[], "/mcp")
}
