//! `scout serve`: the real binary, talked to over plain HTTP (the guard, the refusals, the
//! run limit) and through a real headless Chromium driven by playwright-core
//! (`tests/browser/serve.mjs`: load the page, check a URL nothing listens on and a program
//! that exits at once, check the demo server, look at its layout, folds and era cards, open a
//! finding's evidence, reopen the run, switch to the dark scheme, download the SARIF).
//! `tests/tools/setup.sh` installs Chromium and the driver.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{scrubbed, tool};
use crate::servers::demo_http;

/// A running `scout serve`, killed and reaped on drop.
struct Serve {
    child: Child,
    /// `http://127.0.0.1:PORT`
    base: String,
    port: u16,
    token: String,
    _dir: tempfile::TempDir,
}

impl Serve {
    /// Starts `scout serve ARGS` in an empty folder (no scout.toml) and reads its URL.
    fn start(args: &[&str]) -> Serve {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut child = crate::common::command()
            .arg("serve")
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start scout serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
        let url = line.trim();
        let (base, token) = url
            .split_once("/?token=")
            .unwrap_or_else(|| panic!("scout serve printed {line:?}, not its URL"));
        let port = base
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port");
        Serve {
            child,
            base: base.to_string(),
            port,
            token: token.to_string(),
            _dir: dir,
        }
    }

    fn url(&self) -> String {
        format!("{}/?token={}", self.base, self.token)
    }

    fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body as JSON (`null` when it is not JSON).
async fn body_json(r: reqwest::Response) -> Value {
    serde_json::from_str(&r.text().await.unwrap_or_default()).unwrap_or(Value::Null)
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client")
}

/// No `Access-Control-*` header in any answer.
fn assert_no_cors(r: &reqwest::Response) {
    let cors: Vec<_> = r
        .headers()
        .keys()
        .filter(|k| k.as_str().starts_with("access-control-"))
        .collect();
    assert!(cors.is_empty(), "CORS headers sent: {cors:?}");
}

#[tokio::test]
async fn serve_requires_its_own_token_and_sets_a_strict_cookie() {
    let a = Serve::start(&[]);
    let b = Serve::start(&[]);
    assert_ne!(a.token, b.token);
    assert!(a.token.len() >= 32, "at least 128 bits as hex");
    let c = client();

    // No token at all.
    for path in ["/", "/api/info", "/api/runs", "/assets/app.js"] {
        let r = c
            .get(format!("{}{path}", a.base))
            .send()
            .await
            .expect("get");
        assert_eq!(r.status(), 401, "{path}");
    }
    // Another instance's token, every way it could be given.
    let r = c
        .get(format!("{}/?token={}", a.base, b.token))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status(), 401);
    assert!(r.headers().get("set-cookie").is_none());
    let r = c
        .get(format!("{}/api/info", a.base))
        .header("Authorization", b.bearer())
        .send()
        .await
        .expect("get");
    assert_eq!(r.status(), 401);
    let r = c
        .get(format!("{}/api/info", a.base))
        .header("Cookie", format!("scout_serve_{}={}", a.port, b.token))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status(), 401);
    // Its own token: traded for the cookie, and the address bar is cleaned.
    let r = c.get(a.url()).send().await.expect("get");
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/");
    let cookie = r.headers()["set-cookie"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(
        cookie.starts_with(&format!("scout_serve_{}={};", a.port, a.token)),
        "{cookie}"
    );
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attribute), "{attribute} missing: {cookie}");
    }
    let pair = cookie.split(';').next().expect("pair").to_string();
    let r = c
        .get(format!("{}/", a.base))
        .header("Cookie", &pair)
        .send()
        .await
        .expect("get");
    assert_eq!(r.status(), 200);
    assert_no_cors(&r);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .expect("csp");
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(
        r.text()
            .await
            .expect("page")
            .contains("<label for=\"url\">")
    );
}

#[tokio::test]
async fn foreign_origins_and_hosts_are_refused_without_cors() {
    let s = Serve::start(&[]);
    let c = client();
    let info = format!("{}/api/info", s.base);
    // DNS rebinding: the right address under a foreign name.
    let r = c
        .get(&info)
        .header("Authorization", s.bearer())
        .header("Host", format!("rebound.example:{}", s.port))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status(), 421);
    // Another site's page, even with the token.
    let r = c
        .post(format!("{}/api/runs", s.base))
        .header("Authorization", s.bearer())
        .header("Origin", "http://evil.example")
        .header("Content-Type", "application/json")
        .body(json!({"url": "http://127.0.0.1:1/mcp"}).to_string())
        .send()
        .await
        .expect("post");
    assert_eq!(r.status(), 403);
    assert_no_cors(&r);
    // A preflight gets no CORS answer either.
    let r = c
        .request(reqwest::Method::OPTIONS, format!("{}/api/runs", s.base))
        .header("Origin", "http://evil.example")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .expect("options");
    assert!(!r.status().is_success());
    assert_no_cors(&r);
    // The page's own origin is fine.
    let r = c
        .get(&info)
        .header("Authorization", s.bearer())
        .header("Origin", &s.base)
        .send()
        .await
        .expect("get");
    assert_eq!(r.status(), 200);
    assert_no_cors(&r);
    let v: Value = body_json(r).await;
    assert_eq!(v["allow_stdio"], false);
    // Bodies are bounded.
    let r = c
        .post(format!("{}/api/runs", s.base))
        .header("Authorization", s.bearer())
        .header("Content-Type", "application/json")
        .body(vec![b' '; 100 * 1024])
        .send()
        .await
        .expect("post");
    assert_eq!(r.status(), 413);
}

async fn start_command(s: &Serve) -> (u16, String) {
    let r = client()
        .post(format!("{}/api/runs", s.base))
        .header("Authorization", s.bearer())
        .header("Content-Type", "application/json")
        .body(json!({"command": ["sh", "-c", "touch pwned"]}).to_string())
        .send()
        .await
        .expect("post");
    let status = r.status().as_u16();
    let v: Value = body_json(r).await;
    (status, v["error"].as_str().unwrap_or_default().to_string())
}

#[tokio::test]
async fn commands_are_refused_without_allow_stdio_and_always_with_public() {
    let plain = Serve::start(&[]);
    let (status, message) = start_command(&plain).await;
    assert_eq!(status, 403, "{message}");
    assert!(message.contains("--allow-stdio"), "{message}");
    // --public refuses whatever the flags say (bound to loopback here: the test sends
    // nothing off this machine).
    let public = Serve::start(&["--public", "--allow-stdio", "--listen", "127.0.0.1"]);
    let (status, message) = start_command(&public).await;
    assert_eq!(status, 403, "{message}");
    assert!(message.contains("--public"), "{message}");
    assert!(!public._dir.path().join("pwned").exists());
    let info = client()
        .get(format!("{}/api/info", public.base))
        .header("Authorization", public.bearer())
        .send()
        .await
        .expect("get");
    let info: Value = body_json(info).await;
    assert_eq!(info["allow_stdio"], false);
    assert_eq!(info["public"], true);
    // With --public the page reads no environment variable either.
    let r = client()
        .post(format!("{}/api/runs", public.base))
        .header("Authorization", public.bearer())
        .header("Content-Type", "application/json")
        .body(json!({"url": "http://127.0.0.1:1/mcp", "token_env": "HOME"}).to_string())
        .send()
        .await
        .expect("post");
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn fifty_concurrent_starts_run_at_most_max_runs() {
    // A server that accepts connections and never answers: every run stays in progress
    // (until its request timeout), so none finishes during the burst and frees its place.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in silent.incoming().take(64) {
            held.push(conn);
        }
    });
    let s = Serve::start(&["--max-runs", "2"]);
    let c = client();
    let mut tasks = Vec::new();
    for _ in 0..50 {
        let c = c.clone();
        let url = format!("{}/api/runs", s.base);
        let bearer = s.bearer();
        let target = format!("http://127.0.0.1:{port}/mcp");
        tasks.push(tokio::spawn(async move {
            let r = c
                .post(url)
                .header("Authorization", bearer)
                .header("Content-Type", "application/json")
                .body(json!({ "url": target }).to_string())
                .send()
                .await
                .expect("post");
            let status = r.status().as_u16();
            let v: Value = body_json(r).await;
            (status, v)
        }));
    }
    let mut created = 0;
    let mut refused = 0;
    for t in tasks {
        let (status, v) = t.await.expect("task");
        match status {
            201 => created += 1,
            429 => {
                refused += 1;
                let m = v["error"].as_str().unwrap_or_default();
                assert!(m.contains("--max-runs 2"), "{m}");
            }
            other => panic!("unexpected {other}: {v}"),
        }
    }
    assert!((1..=2).contains(&created), "{created} runs started");
    assert_eq!(created + refused, 50);
    let list = c
        .get(format!("{}/api/runs", s.base))
        .header("Authorization", s.bearer())
        .send()
        .await
        .expect("get");
    let list: Value = body_json(list).await;
    assert!(list["running"].as_u64().expect("running") <= 2, "{list}");
    assert_eq!(list["runs"].as_array().expect("runs").len(), created);
}

/// `<target>/`: the folder the scout binary was built in, two levels up.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_scout"))
        .ancestors()
        .nth(2)
        .expect("target dir")
        .to_path_buf()
}

/// Runs `cmd`, killing it after `limit`; returns (success, stdout, stderr).
fn run_bounded(mut cmd: Command, limit: Duration) -> (bool, String, String) {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            // Still running after the limit: end it (and nothing else) by its pid.
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    });
    let out = child.wait_with_output().expect("wait");
    let _ = tx.send(());
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A URL nothing listens on: a port that was free a moment ago.
fn dead_url() -> String {
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = free.local_addr().expect("addr").port();
    drop(free);
    format!("http://127.0.0.1:{port}/mcp")
}

/// A server that answers every request with 401 and no way to get a token.
fn refusing_server() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                // One answer per connection: read what came, refuse it, close.
                let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
                let _ = conn.read(&mut buf);
                let _ = conn.write_all(
                    b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            });
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

/// Starts a run and waits (bounded) until it has ended; returns its `GET /api/runs/{id}`.
async fn finished_run(s: &Serve, request: Value) -> Value {
    let c = client();
    let r = c
        .post(format!("{}/api/runs", s.base))
        .header("Authorization", s.bearer())
        .header("Content-Type", "application/json")
        .body(request.to_string())
        .send()
        .await
        .expect("post");
    assert_eq!(r.status(), 201);
    let id = body_json(r).await["id"].as_str().expect("id").to_string();
    // The event stream ends with the run: read it to its end instead of polling.
    let events = c
        .get(format!("{}/api/runs/{id}/events", s.base))
        .header("Authorization", s.bearer())
        .timeout(Duration::from_secs(120))
        .send()
        .await
        .expect("events");
    let _ = events.text().await;
    let r = c
        .get(format!("{}/api/runs/{id}", s.base))
        .header("Authorization", s.bearer())
        .send()
        .await
        .expect("get");
    body_json(r).await
}

/// The report's (server, check id, status) of the manifest phase.
fn manifest_statuses(run: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for s in run["report"]["servers"].as_array().into_iter().flatten() {
        for f in s["findings"].as_array().into_iter().flatten() {
            if f["phase"] == "manifest" {
                out.push((
                    s["name"].as_str().unwrap_or_default().to_string(),
                    f["id"].as_str().unwrap_or_default().to_string(),
                    f["status"].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
    }
    out
}

#[tokio::test]
async fn a_server_json_or_bundle_runs_only_with_allow_stdio_and_never_with_public() {
    let demo = crate::servers::demo_http();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut doc: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::crate_root().join("examples/demo-server.json"))
            .expect("the demo's server.json"),
    )
    .expect("JSON");
    doc["remotes"][0]["variables"]["port"]["default"] = json!(demo.port.to_string());
    let server_json = dir.path().join("demo.json");
    std::fs::write(&server_json, doc.to_string()).expect("write server.json");
    let bundle = dir.path().join("notes");
    crate::mcpb::fill(&bundle, &crate::mcpb::demo_manifest());
    let requests = [
        json!({"server_json": server_json.display().to_string()}),
        json!({"mcpb": bundle.display().to_string()}),
    ];

    let plain = Serve::start(&[]);
    let public = Serve::start(&["--public", "--allow-stdio", "--listen", "127.0.0.1"]);
    for (s, flag) in [(&plain, "--allow-stdio"), (&public, "--public")] {
        for request in &requests {
            let r = client()
                .post(format!("{}/api/runs", s.base))
                .header("Authorization", s.bearer())
                .header("Content-Type", "application/json")
                .body(request.to_string())
                .send()
                .await
                .expect("post");
            assert_eq!(r.status(), 403, "{request}");
            let message = body_json(r).await["error"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert!(message.contains(flag), "{request}: {message}");
        }
    }

    let s = Serve::start(&["--allow-stdio"]);
    let (from_json, from_bundle) = tokio::join!(
        finished_run(&s, requests[0].clone()),
        finished_run(&s, requests[1].clone()),
    );
    let found = manifest_statuses(&from_json);
    assert!(
        found
            .iter()
            .any(|(s, id, st)| s == "demo/remotes/0" && id == "manifest.version" && st == "pass"),
        "{found:?}\n{from_json}"
    );
    let found = manifest_statuses(&from_bundle);
    // A bundle's version is reported beside serverInfo.version, not graded (docs/manifests.md).
    for (id, status) in [
        ("manifest.version", "info"),
        ("manifest.tools", "pass"),
        ("manifest.prompts", "pass"),
    ] {
        assert!(
            found
                .iter()
                .any(|(s, i, st)| s == "notes" && i == id && st == status),
            "{id}: {found:?}"
        );
    }
    for run in [&from_json, &from_bundle] {
        assert!(
            manifest_statuses(run).iter().all(|(_, _, st)| st != "fail"),
            "{run}"
        );
    }
}

#[tokio::test]
async fn runs_are_labelled_by_how_they_ended_and_the_favicon_is_an_svg() {
    let s = Serve::start(&["--allow-stdio", "--max-runs", "3"]);
    let dead = dead_url();
    let (unreachable, exits, refused) = tokio::join!(
        finished_run(&s, json!({ "url": dead })),
        finished_run(
            &s,
            json!({"command": ["sh", "-c", "echo boom: it broke >&2; exit 3"]})
        ),
        finished_run(&s, json!({ "url": refusing_server() })),
    );
    for (run, state) in [
        (&unreachable, "unreachable"),
        (&exits, "unreachable"),
        (&refused, "blocked"),
    ] {
        assert_eq!(run["state"], state, "{run}");
        assert_eq!(run["endings"][0]["state"], state, "{run}");
        assert!(
            !run["endings"][0]["chain"]
                .as_array()
                .expect("chain")
                .is_empty(),
            "{run}"
        );
    }
    let list = client()
        .get(format!("{}/api/runs", s.base))
        .header("Authorization", s.bearer())
        .send()
        .await
        .expect("list");
    let list = body_json(list).await;
    let mut states: Vec<&str> = list["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .filter_map(|r| r["state"].as_str())
        .collect();
    states.sort_unstable();
    assert_eq!(states, ["blocked", "unreachable", "unreachable"], "{list}");
    let chain = &unreachable["endings"][0]["chain"];
    assert!(
        chain[chain.as_array().expect("chain").len() - 1]
            .as_str()
            .unwrap_or_default()
            .contains("Connection refused"),
        "{chain}"
    );
    assert!(
        exits["endings"][0]["output"].is_string(),
        "{}",
        exits["endings"][0]
    );

    let favicon = client()
        .get(format!("{}/assets/favicon.svg", s.base))
        .header("Authorization", s.bearer())
        .send()
        .await
        .expect("favicon");
    assert_eq!(favicon.status(), 200);
    assert_eq!(favicon.headers()["content-type"], "image/svg+xml");
    assert!(favicon.text().await.expect("svg").starts_with("<svg"));
}

#[test]
fn the_page_checks_the_demo_server_in_a_real_browser() {
    let chromium = Path::new("/usr/bin/chromium");
    assert!(
        chromium.exists(),
        "Chromium is missing: run `tests/tools/setup.sh` (it installs Debian's chromium)"
    );
    let driver = tool("node/node_modules/playwright-core/package.json");
    let demo = demo_http();
    let s = Serve::start(&[]);
    // A second page that may start programs, for a stdio server that exits at once.
    let stdio = Serve::start(&["--allow-stdio"]);
    let dead = dead_url();
    let out = tempfile::tempdir().expect("tempdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/serve.mjs");
    let mut node = scrubbed(Command::new("node"));
    node.arg(&script)
        .env("SCOUT_URL", s.url())
        .env("DEMO_URL", &demo.url)
        .env("DEAD_URL", &dead)
        .env("STDIO_SCOUT_URL", stdio.url())
        .env("OUT_DIR", out.path())
        .env(
            "PW_DIR",
            driver
                .parent()
                .and_then(Path::parent)
                .expect("node dir")
                .parent()
                .expect("tools/node"),
        )
        .env("CHROMIUM", chromium);
    let (ok, stdout, stderr) = run_bounded(node, Duration::from_secs(240));
    assert!(ok, "the browser script failed:\n{stdout}\n{stderr}");
    let r: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("the script printed no result ({e}):\n{stdout}\n{stderr}"));

    assert_eq!(r["without_token"], 401, "{r}");
    assert_eq!(r["with_token"], 200, "{r}");
    assert_eq!(
        r["address_after_load"],
        format!("{}/", s.base),
        "the token leaves the address bar"
    );
    assert_eq!(r["cookie"][0]["httpOnly"], true);
    assert_eq!(r["cookie"][0]["sameSite"], "Strict");
    assert!(
        r["flags"]
            .as_str()
            .unwrap_or_default()
            .contains("commands refused"),
        "{r}"
    );
    assert_eq!(r["command_field_hidden"], true);
    assert_eq!(r["manifest_field_hidden"], true);
    assert_eq!(r["first_tab"], "Skip to content");
    assert_eq!(r["second_tab"], "Server URL");
    let refusal = r["command_refusal"].as_str().unwrap_or_default();
    assert!(refusal.contains("--allow-stdio"), "{refusal}");
    assert_eq!(r["command_api_status"], 403);
    // Every finding is drawn inside its own group, on the page and clear of the header, and
    // each group shows what its counts say (skipped findings included).
    let layout = &r["layout"];
    assert!(layout["checked"].as_u64().unwrap_or(0) > 0, "{layout}");
    assert!(
        layout["skipped_checked"].as_u64().unwrap_or(0) > 0,
        "{layout}"
    );
    assert!(
        layout["folds_checked"].as_u64().unwrap_or(0) > 0,
        "{layout}"
    );
    assert_eq!(layout["misplaced"], serde_json::json!([]), "{layout}");
    assert_eq!(layout["miscounted"], serde_json::json!([]), "{layout}");
    folds_and_cards(&r);
    let score: u8 = r["score"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("a numeric score");
    assert!(score > 0, "{r}");
    assert_eq!(r["phases_done"], scout::report::finding::Phase::ALL.len());
    assert_eq!(r["categories"], scout::report::finding::Phase::ALL.len());
    assert_eq!(r["evidence_expanded"], "true");
    let title = r["exchange_title"].as_str().unwrap_or_default();
    assert!(
        title.starts_with('#') && title.contains(&demo.url) && title.contains(" ms"),
        "{title}"
    );
    let exchange = r["exchange_text"].as_str().unwrap_or_default();
    assert!(
        exchange.contains("Request")
            && exchange.contains("Response")
            && exchange.contains("jsonrpc"),
        "{exchange}"
    );
    marks_counts_favicon_and_schemes(&r);
    bad_days(&r, &dead);
    assert_eq!(r["sarif_name"], "scout.sarif");
    assert!(
        r["recent"][0]
            .as_str()
            .unwrap_or_default()
            .contains(&demo.url)
    );

    // The downloaded SARIF is the emitter's, and valid.
    let sarif = PathBuf::from(r["sarif_path"].as_str().expect("sarif path"));
    let log: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif")).expect("json");
    assert_eq!(log["version"], "2.1.0");
    assert!(
        !log["runs"][0]["results"]
            .as_array()
            .expect("results")
            .is_empty()
    );
    let validation = out.path().join("validation.sarif");
    let run = scrubbed(Command::new(tool("node/node_modules/.bin/sarif-multitool")))
        .args(["validate", "--output"])
        .arg(&validation)
        .arg(&sarif)
        .output()
        .expect("run sarif-multitool");
    let report = std::fs::read_to_string(&validation).unwrap_or_default();
    assert!(run.status.success(), "sarif-multitool failed: {report}");
    let v: Value = serde_json::from_str(&report).expect("validation log");
    let errors: Vec<&Value> = v["runs"][0]["results"]
        .as_array()
        .map(|r| r.iter().filter(|r| r["level"] == "error").collect())
        .unwrap_or_default();
    assert!(errors.is_empty(), "{errors:#?}");

    // The screenshot, for a reviewer.
    let shot = PathBuf::from(r["screenshot"].as_str().expect("screenshot"));
    let kept = target_dir().join("serve-report.png");
    std::fs::copy(&shot, &kept).expect("keep the screenshot");
    assert!(std::fs::metadata(&kept).expect("png").len() > 10_000);
}

/// Passes and skips folded by default; the demo's two eras of a check on one card.
fn folds_and_cards(r: &Value) {
    // Passes and skips are folded by default, under closed summaries.
    let folds = r["folds"].as_array().expect("folds");
    assert!(
        folds.iter().any(|f| f["status"] == "pass") && folds.iter().any(|f| f["status"] == "skip"),
        "{folds:?}"
    );
    assert!(folds.iter().all(|f| f["open"] == false), "{folds:?}");
    // The demo is dual-era: one check is one card, with a row per era.
    let cards = &r["cards"];
    assert_eq!(cards["duplicates"], json!([]), "{cards}");
    assert!(cards["dual"].as_u64().unwrap_or(0) > 0, "{cards}");
    assert_eq!(cards["dual_eras"], json!(["legacy+modern"]), "{cards}");
    assert_eq!(
        cards["parse_error"],
        json!([["legacy", "modern"]]),
        "{cards}"
    );
}

/// The evidence's marked headers, the phase counts, the favicon and the colour schemes.
fn marks_counts_favicon_and_schemes(r: &Value) {
    // The failing finding's evidence marks the header lines its detail names.
    let about: Vec<String> = r["about"]
        .as_array()
        .expect("about")
        .iter()
        .map(|m| m.as_str().unwrap_or_default().to_ascii_lowercase())
        .collect();
    assert_eq!(r["evidence_finding"], "security.origin", "{r}");
    assert!(
        about.iter().any(|m| m == "origin: http://evil.example"),
        "{about:?} for {}",
        r["evidence_detail"]
    );
    assert!(
        about
            .iter()
            .all(|m| m.starts_with("origin:") || m.starts_with("host:")),
        "only the headers the finding names: {about:?}"
    );
    // The phase list has the stored report's counts when the followed run finishes, and
    // again when it is reopened from "Recent runs" (its list drawn anew).
    assert_eq!(r["phases_reopened"], r["report_counts"], "{r}");
    assert_eq!(r["phases_live"], r["report_counts"], "{r}");
    assert_eq!(r["recent_demo_state"], json!(["finished"]), "{r}");
    // The favicon is the page's own SVG, and nothing broke the CSP.
    assert_eq!(r["favicon"]["href"], "/assets/favicon.svg", "{r}");
    assert_eq!(r["favicon"]["status"], 200, "{r}");
    assert_eq!(r["favicon"]["type"], "image/svg+xml", "{r}");
    assert_eq!(r["csp_violations"], json!([]), "{r}");
    // Dark mode: a dark background with light text; light mode the other way round.
    let lum = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    assert!(lum(&r["dark"]["background"]) < 0.2, "{}", r["dark"]);
    assert!(lum(&r["dark"]["panel"]) < 0.25, "{}", r["dark"]);
    assert!(lum(&r["dark"]["ink"]) > 0.7, "{}", r["dark"]);
    assert!(lum(&r["light"]["background"]) > 0.8, "{}", r["light"]);
    assert!(lum(&r["light"]["ink"]) < 0.3, "{}", r["light"]);
}

/// An unreachable URL and a program that exits at once: the reason once, and the label.
fn bad_days(r: &Value, dead: &str) {
    // Bad days: the reason once, readable, and the run labelled by how it ended.
    let dead_run = &r["unreachable"];
    assert_eq!(dead_run["state"], "unreachable", "{dead_run}");
    assert_eq!(dead_run["recent"], json!(["unreachable"]), "{dead_run}");
    assert_eq!(dead_run["last_cause_written"], 1, "{dead_run}");
    let chain: Vec<&str> = dead_run["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(chain.len() >= 2, "{chain:?}");
    assert!(
        chain.iter().any(|c| c.contains("Connection refused")),
        "{chain:?}"
    );
    assert_eq!(
        chain.iter().filter(|c| c.contains(dead)).count(),
        1,
        "the URL is named once: {chain:?}"
    );
    let exits = &r["stdio_exits"];
    assert_eq!(exits["state"], "unreachable", "{exits}");
    assert_eq!(exits["recent"], json!(["unreachable"]), "{exits}");
    assert_eq!(exits["last_cause_written"], 1, "{exits}");
    assert!(
        exits["chain"][0]
            .as_str()
            .unwrap_or_default()
            .contains("exit status: 3"),
        "{exits}"
    );
    assert!(
        exits["output"].is_string(),
        "stderr has its own place: {exits}"
    );
}
