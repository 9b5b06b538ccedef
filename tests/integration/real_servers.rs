//! Smoke tests for the test harness itself: every real server starts, answers one
//! `initialize` or `server/discover` from a tiny raw client written here (independent of
//! scout's own transports), and is gone after it is stopped.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::servers::{self, HttpServer};

/// Per-request bound for the raw client.
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

const LEGACY_VERSION: &str = "2025-11-25";
const MODERN_VERSION: &str = "2026-07-28";

fn initialize(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "scout-harness-smoke", "version": "0"}
        }
    })
}

fn discover(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "server/discover",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "scout-harness-smoke", "version": "0"}
        }}
    })
}

/// The JSON-RPC message in `body` whose `id` is `id`: the body is either one JSON object or an
/// SSE stream whose `data:` lines carry messages (priming events with empty data are skipped).
fn reply_in_body(body: &str, id: u64) -> Option<Value> {
    let candidates: Vec<Value> = match serde_json::from_str::<Value>(body) {
        Ok(v) => vec![v],
        Err(_) => body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect(),
    };
    candidates
        .into_iter()
        .find(|m| m.get("id") == Some(&json!(id)))
}

/// POSTs one JSON-RPC request the way a client of that era would and returns the HTTP status
/// and the reply with the same id.
async fn post(url: &str, request: &Value) -> (u16, Value) {
    let id = request["id"].as_u64().expect("request id");
    let method = request["method"].as_str().expect("method");
    let client = reqwest::Client::builder()
        .timeout(REPLY_TIMEOUT)
        .build()
        .expect("http client");
    let mut req = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(request.to_string());
    if method != "initialize" {
        // The 2026-07-28 request headers: the version and the method again.
        req = req
            .header("mcp-protocol-version", MODERN_VERSION)
            .header("mcp-method", method);
    }
    let resp = req
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = resp.status().as_u16();
    let body = resp.text().await.expect("response body");
    let reply = reply_in_body(&body, id)
        .unwrap_or_else(|| panic!("no reply with id {id} from {url} (HTTP {status}): {body}"));
    (status, reply)
}

/// Runs a stdio server, writes `requests` one per line, and returns the reply to the last one.
/// The child is killed and reaped whatever happens; a silent server costs `REPLY_TIMEOUT`.
fn stdio_roundtrip(argv: &[String], requests: &[Value]) -> Value {
    stdio_roundtrip_with(argv, &[], requests)
}

/// [`stdio_roundtrip`] with extra environment for the server.
fn stdio_roundtrip_with(argv: &[String], env: &[(&str, &str)], requests: &[Value]) -> Value {
    let (program, args) = argv.split_first().expect("a server command");
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {argv:?}: {e}"));
    let want = requests
        .last()
        .and_then(|r| r.get("id"))
        .cloned()
        .expect("last request has an id");
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    // Reads on a thread so that the wait below can time out.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(msg) = serde_json::from_str::<Value>(&line)
                && tx.send(msg).is_err()
            {
                return;
            }
        }
    });
    let mut stdin = child.stdin.take().expect("piped stdin");
    for request in requests {
        writeln!(stdin, "{request}").expect("write a request");
    }
    stdin.flush().expect("flush stdin");
    let deadline = std::time::Instant::now() + REPLY_TIMEOUT;
    let reply = loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(msg) if msg.get("id") == Some(&want) => break Some(msg),
            Ok(_) => continue,
            Err(_) => break None,
        }
    };
    drop(stdin);
    servers::stop_group(&mut child);
    reply
        .unwrap_or_else(|| panic!("{argv:?} sent no reply with id {want} within {REPLY_TIMEOUT:?}"))
}

fn assert_initialized(reply: &Value, who: &str) {
    assert_eq!(
        reply["result"]["protocolVersion"], LEGACY_VERSION,
        "{who}: initialize did not negotiate {LEGACY_VERSION}: {reply}"
    );
    assert!(
        reply["result"]["serverInfo"]["name"].is_string(),
        "{who}: no serverInfo: {reply}"
    );
}

fn assert_discovered(reply: &Value, who: &str) {
    let versions = reply["result"]["supportedVersions"].as_array();
    assert!(
        versions.is_some_and(|v| v.contains(&json!(MODERN_VERSION))),
        "{who}: server/discover does not list {MODERN_VERSION}: {reply}"
    );
}

/// The process (group leader) is gone: `kill(pid, 0)` fails once it has been reaped.
fn assert_gone(pid: u32) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid fits i32"));
    assert!(
        nix::sys::signal::kill(pid, None).is_err(),
        "process {pid} is still alive after its HttpServer was dropped"
    );
}

// ------------------------------------------------------------------ HTTP

#[tokio::test]
async fn everything_http_answers_initialize_and_is_stopped_on_drop() {
    let server = servers::everything_http();
    let pid = server.pid();
    let (status, reply) = post(&server.url, &initialize(1)).await;
    assert_eq!(status, 200);
    assert_initialized(&reply, "server-everything http");
    drop(server);
    assert_gone(pid);
}

#[tokio::test]
async fn everything_sse_announces_its_message_endpoint() {
    let server = servers::everything_sse();
    // No overall timeout on the client (the stream never ends); each step is bounded below.
    let client = reqwest::Client::builder()
        .connect_timeout(REPLY_TIMEOUT)
        .build()
        .expect("http client");
    let request = client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .send();
    let mut resp = tokio::time::timeout(REPLY_TIMEOUT, request)
        .await
        .expect("GET /sse answered in time")
        .expect("GET /sse");
    assert_eq!(resp.status().as_u16(), 200);
    // The stream never ends: read chunks until the endpoint event, bounded in time.
    let mut seen = String::new();
    let read = tokio::time::timeout(REPLY_TIMEOUT, async {
        while let Ok(Some(chunk)) = resp.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("event: endpoint") && seen.contains("sessionId=") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(
        read,
        Ok(true),
        "no endpoint event from {}: {seen:?}",
        server.url
    );
    assert!(
        seen.contains("data: /message?sessionId="),
        "unexpected endpoint event: {seen:?}"
    );
}

#[tokio::test]
async fn py_http_speaks_both_eras() {
    let server = servers::py_http();
    let (_, reply) = post(&server.url, &initialize(1)).await;
    assert_initialized(&reply, "python sdk http");
    let (status, reply) = post(&server.url, &discover(2)).await;
    assert_eq!(status, 200, "{reply}");
    assert_discovered(&reply, "python sdk http");
}

#[tokio::test]
async fn py_http_stateless_json_answers_with_json() {
    let server = servers::py_http_stateless_json();
    let client = reqwest::Client::builder()
        .timeout(REPLY_TIMEOUT)
        .build()
        .expect("client");
    let resp = client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize(1).to_string())
        .send()
        .await
        .expect("POST initialize");
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        resp.headers().get("mcp-session-id").is_none(),
        "stateless mode issued a session id"
    );
    assert!(
        content_type.starts_with("application/json"),
        "content-type {content_type}"
    );
    let reply: Value = serde_json::from_str(&resp.text().await.expect("body")).expect("JSON body");
    assert_initialized(&reply, "python sdk stateless json");
}

#[tokio::test]
async fn ts_http_serves_modern_and_fallback_and_strict_rejects_legacy() {
    let server = servers::ts_http();
    let (status, reply) = post(&server.url, &discover(1)).await;
    assert_eq!(status, 200, "{reply}");
    assert_discovered(&reply, "ts sdk v2 /mcp");
    let (_, reply) = post(&server.url, &initialize(2)).await;
    assert_initialized(&reply, "ts sdk v2 /mcp legacy fallback");

    let strict = server.url_with_path("/mcp-strict");
    let (status, reply) = post(&strict, &discover(3)).await;
    assert_eq!(status, 200, "{reply}");
    assert_discovered(&reply, "ts sdk v2 /mcp-strict");
    // The lab recorded 400 with -32022 for a legacy initialize on the strict endpoint.
    let (status, reply) = post(&strict, &initialize(4)).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["code"], -32022, "{reply}");
}

#[tokio::test]
async fn demo_http_speaks_both_eras() {
    let server: HttpServer = servers::demo_http();
    let (_, reply) = post(&server.url, &initialize(1)).await;
    assert_initialized(&reply, "demo http");
    assert_eq!(reply["result"]["serverInfo"]["name"], "scout-demo");
    let (status, reply) = post(&server.url, &discover(2)).await;
    assert_eq!(status, 200, "{reply}");
    assert_discovered(&reply, "demo http");
}

// ------------------------------------------------------------------ stdio

#[test]
fn everything_stdio_answers_initialize() {
    let reply = stdio_roundtrip(&servers::everything_stdio(), &[initialize(1)]);
    assert_initialized(&reply, "server-everything stdio");
}

#[test]
fn py_stdio_answers_discover_and_initialize() {
    assert_discovered(
        &stdio_roundtrip(&servers::py_stdio(), &[discover(1)]),
        "python sdk stdio",
    );
    assert_initialized(
        &stdio_roundtrip(&servers::py_stdio(), &[initialize(1)]),
        "python sdk stdio",
    );
}

#[test]
fn ts_stdio_answers_discover_and_initialize() {
    assert_discovered(
        &stdio_roundtrip(&servers::ts_stdio(), &[discover(1)]),
        "ts sdk v2 stdio",
    );
    assert_initialized(
        &stdio_roundtrip(&servers::ts_stdio(), &[initialize(1)]),
        "ts sdk v2 stdio",
    );
}

#[test]
fn time_stdio_answers_discover_and_initialize() {
    assert_discovered(
        &stdio_roundtrip(&servers::time_stdio(), &[discover(1)]),
        "mcp-server-time",
    );
    assert_initialized(
        &stdio_roundtrip(&servers::time_stdio(), &[initialize(1)]),
        "mcp-server-time",
    );
}

#[test]
fn demo_stdio_answers_discover_and_initialize() {
    assert_discovered(
        &stdio_roundtrip(&servers::demo_stdio(), &[discover(1)]),
        "demo stdio",
    );
    assert_initialized(
        &stdio_roundtrip(&servers::demo_stdio(), &[initialize(1)]),
        "demo stdio",
    );
}

#[test]
fn tool_calls_are_logged_to_the_call_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("calls.log");
    let call = |id: u64, name: &str, args: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": name, "arguments": args,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }})
    };
    for argv in [servers::py_stdio(), servers::ts_stdio()] {
        let env = [(
            "SCOUT_TEST_CALL_LOG",
            log.to_str().expect("utf-8 temp path"),
        )];
        let reply = stdio_roundtrip_with(&argv, &env, &[call(1, "echo", json!({"message": "hi"}))]);
        assert_eq!(reply["result"]["content"][0]["text"], "hi", "{reply}");
    }
    let logged = std::fs::read_to_string(&log).expect("call log written");
    assert_eq!(logged, "echo\necho\n");
}

// ------------------------------------------------------------------ examples/demo.toml

/// One `[[default.servers]]` entry of `examples/demo.toml`, as far as this test needs it.
fn demo_config_servers() -> Vec<toml::Table> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo.toml");
    let text = std::fs::read_to_string(&path).expect("read examples/demo.toml");
    let config: toml::Table = toml::from_str(&text).expect("examples/demo.toml is valid TOML");
    let default = config["default"].as_table().expect("[default]");
    let formats: Vec<&str> = default["formats"]
        .as_array()
        .expect("formats")
        .iter()
        .filter_map(toml::Value::as_str)
        .collect();
    for format in ["json", "har", "junit", "sarif", "markdown"] {
        assert!(
            formats.contains(&format),
            "demo.toml does not write {format}: {formats:?}"
        );
    }
    default["servers"]
        .as_array()
        .expect("[[default.servers]]")
        .iter()
        .map(|s| s.as_table().expect("server table").clone())
        .collect()
}

fn argv_of(server: &toml::Table, key: &str) -> Vec<String> {
    let argv: Vec<String> = server[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is an array"))
        .iter()
        .map(|v| v.as_str().expect("string argument").to_owned())
        .collect();
    // Paths in the config are relative to the repository root, where README runs scout.
    let program = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&argv[0]);
    assert!(
        program.exists(),
        "examples/demo.toml runs {}, which does not exist (build it with \
         `cargo build --example demo-server`; is CARGO_TARGET_DIR set?)",
        argv[0]
    );
    let mut argv = argv;
    argv[0] = program.to_string_lossy().into_owned();
    argv
}

#[test]
fn demo_config_stdio_target_answers() {
    let servers = demo_config_servers();
    let stdio = servers
        .iter()
        .find(|s| s.get("name").and_then(toml::Value::as_str) == Some("demo-stdio"))
        .expect("a demo-stdio server");
    let reply = stdio_roundtrip(&argv_of(stdio, "command"), &[initialize(1)]);
    assert_initialized(&reply, "demo.toml demo-stdio");
}

/// `examples/demo.toml` fixes the demo's HTTP port, so the tests that start it take turns.
static DEMO_PORT: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Holds the demo port for the rest of the test (a failed test's poisoned lock is fine).
fn demo_port() -> std::sync::MutexGuard<'static, ()> {
    DEMO_PORT.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn demo_config_http_target_starts_and_answers_at_its_url() {
    let _port = demo_port();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(demo_http_target());
}

async fn demo_http_target() {
    let servers = demo_config_servers();
    let http = servers
        .iter()
        .find(|s| s.get("name").and_then(toml::Value::as_str) == Some("demo-http"))
        .expect("a demo-http server");
    let url = http["url"].as_str().expect("url").to_owned();
    let port: u16 = url::Url::parse(&url)
        .expect("a valid url")
        .port()
        .expect("an explicit port");
    let start = argv_of(http, "start");
    assert!(
        start.contains(&port.to_string()),
        "start {start:?} does not use the url's port {port}"
    );
    // `start` is run as scout runs it: its own argv, nothing substituted.
    let server = HttpServer::start_on(&start, port, "/mcp");
    assert_eq!(
        server.url, url,
        "the harness and demo.toml disagree on the URL"
    );
    let (status, reply) = post(&url, &initialize(1)).await;
    assert_eq!(status, 200, "{reply}");
    assert_initialized(&reply, "demo.toml demo-http");
}

// ------------------------------------------------------------------ README's two commands

/// The first `n` fenced code blocks of README.md, each as its lines.
fn readme_code_blocks(n: usize) -> Vec<Vec<String>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(path).expect("read README.md");
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            match current.take() {
                Some(block) => blocks.push(block),
                None => current = Some(Vec::new()),
            }
        } else if let Some(block) = current.as_mut() {
            block.push(line.to_owned());
        }
    }
    blocks.truncate(n);
    blocks
}

#[test]
fn readme_starts_with_the_demo_command_and_the_test_command_that_ci_runs() {
    let blocks = readme_code_blocks(2);
    assert_eq!(
        blocks.len(),
        2,
        "README.md must start with two command blocks"
    );
    let [demo, test] = [&blocks[0], &blocks[1]];
    assert_eq!(demo.len(), 1, "the demo is one command: {demo:?}");
    assert!(
        demo[0].starts_with("cargo build --bin scout --example demo-server && ")
            && demo[0].contains("scout check --config examples/demo.toml"),
        "the first command must build scout and the demo and check examples/demo.toml: {demo:?}"
    );
    assert_eq!(test, &vec!["scripts/test.sh".to_owned()]);
    let ci =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run"))
            .expect("read .ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == test[0]),
        ".ci/run does not run README's test command {:?}",
        test[0]
    );
}

/// Every file under `dir` (recursively) whose name ends with `suffix`.
fn files_ending(dir: &std::path::Path, suffix: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_ending(&path, suffix));
        } else if path.to_string_lossy().ends_with(suffix) {
            found.push(path);
        }
    }
    found
}

/// README's first command, run as a new user would (after the build it starts with, which
/// `cargo test --all-targets` has done): both demo targets are checked and every report is
/// written.
#[test]
fn readme_demo_command_checks_both_demo_targets() {
    let _port = demo_port();
    let blocks = readme_code_blocks(1);
    let (_, check) = blocks[0][0].split_once(" && ").expect("build && check");
    let mut words = check.split_whitespace();
    assert_eq!(words.next(), Some("./target/debug/scout"));
    let out = tempfile::tempdir().expect("temp dir");
    let mut args: Vec<String> = words.map(str::to_owned).collect();
    let out_dir = args
        .iter()
        .position(|a| a == "--out-dir")
        .expect("--out-dir")
        + 1;
    args[out_dir] = out.path().to_string_lossy().into_owned();
    // Make sure the demo binary the config names exists (it is built by --all-targets).
    let _ = servers::demo_stdio();

    let output = super::common::scout()
        .args(&args)
        .output()
        .expect("run scout");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "scout did not finish ({}):\n{stdout}\n{stderr}",
        output.status
    );
    for name in ["demo-stdio", "demo-http"] {
        assert!(
            stdout.contains(name),
            "{name} missing from the terminal report:\n{stdout}"
        );
    }

    let reports: Vec<Value> = files_ending(out.path(), ".json")
        .iter()
        .filter_map(|p| serde_json::from_str::<Value>(&std::fs::read_to_string(p).ok()?).ok())
        .filter(|v| v["schema"] == "scout/report/v1")
        .collect();
    assert_eq!(
        reports.len(),
        1,
        "one JSON report expected in {:?}",
        out.path()
    );
    let servers = reports[0]["servers"].as_array().expect("servers");
    for name in ["demo-stdio", "demo-http"] {
        let server = servers
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in the JSON report"));
        // rmcp speaks both generations, over stdio and HTTP alike.
        assert_eq!(server["era"], "dual", "{name}: {}", server["era"]);
        assert!(
            server["exchanges"].as_u64().is_some_and(|n| n > 0),
            "{name}: no exchanges"
        );
    }
    assert_eq!(
        files_ending(out.path(), ".har").len(),
        2,
        "one HAR file per server"
    );
    for format in [".xml", ".sarif", ".md"] {
        assert!(
            !files_ending(out.path(), format).is_empty(),
            "no {format} report written"
        );
    }
}

/// The annotations that policy tests rely on are really what our servers declare.
#[test]
fn our_sdk_servers_declare_the_annotations_tests_rely_on() {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {}
    }}});
    // (read-only, destructive) per tool
    let expected = [
        ("get_time", true, false),
        ("echo", true, false),
        ("add_note", false, false),
        ("delete_note", false, true),
    ];
    for argv in [servers::py_stdio(), servers::ts_stdio()] {
        let reply = stdio_roundtrip(&argv, std::slice::from_ref(&list));
        let tools = reply["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (name, read_only, destructive) in expected {
            let tool = tools
                .iter()
                .find(|t| t["name"] == name)
                .unwrap_or_else(|| panic!("{argv:?} has no tool {name}: {reply}"));
            let hints = &tool["annotations"];
            assert_eq!(
                hints["readOnlyHint"], read_only,
                "{name} in {argv:?}: {hints}"
            );
            assert_eq!(
                hints["destructiveHint"], destructive,
                "{name} in {argv:?}: {hints}"
            );
        }
    }
}
