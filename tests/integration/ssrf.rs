//! URLs the server names are fetched only where it may send scout: on the MCP server's own
//! origin, or on a public address over https, unless the MCP server itself is on an address
//! of that kind and not treated as remote. The trace id and the configured headers go only to
//! the MCP server's own origin. Answers from elsewhere are kept only when they are JSON.
//!
//! Every listener here is on loopback: a canary on 127.0.0.2 (the whole of 127/8 is loopback
//! on Linux) stands for an internal address while the fixture on 127.0.0.1 is treated as
//! remote.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::common::{HttpFixture, Run, Scout};
use crate::oauth::{FIXTURE_CLIENT, FIXTURE_SECRET, artifacts, finding, server_report};

/// The body the canary answers with: an HTML page no artifact may keep.
const CANARY_PAGE: &str = "<html><body>canary-admin-page-5c1e</body></html>";

/// A listener on another loopback address that records the request line of everything it
/// receives and answers 404 with an HTML page.
struct Canary {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Canary {
    fn start(ip: &str) -> Canary {
        let listener = TcpListener::bind((ip, 0)).expect("bind the canary");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        // The thread lives as long as the test process; it only ever answers loopback peers.
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                let mut line = String::new();
                let mut reader = BufReader::new(conn.try_clone().expect("clone"));
                let _ = reader.read_line(&mut line);
                log.lock().expect("lock").push(line.trim().to_string());
                let reply = format!(
                    "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{CANARY_PAGE}",
                    CANARY_PAGE.len()
                );
                let _ = conn.write_all(reply.as_bytes());
            }
        });
        Canary { port, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("lock").clone()
    }
}

/// `scout check` of `fixture` (started with `env`) with the fixture's client credentials,
/// discovery and auth only, with JSON and HAR reports in `out`.
fn check(
    fixture: &str,
    env: &[(&str, &str)],
    remote: bool,
    extra: &[&str],
    out: &std::path::Path,
) -> (Run, Value) {
    let fx = HttpFixture::start_with_env(fixture, env);
    let json = out.join("r.json");
    let mut scout = Scout::new().env("FX_SECRET", FIXTURE_SECRET);
    if remote {
        scout = scout.env("SCOUT_TREAT_AS_REMOTE", "true");
    }
    let run = scout
        .args([
            "-q",
            "check",
            &fx.url,
            "--client-id",
            FIXTURE_CLIENT,
            "--client-secret-env",
            "FX_SECRET",
            "--scope",
            "mcp",
            "--only",
            "discovery,auth",
        ])
        .args(extra)
        .args([
            "--json".as_ref(),
            json.as_os_str(),
            "--har".as_ref(),
            out.join("har").as_os_str(),
        ])
        .run();
    assert!(
        matches!(run.code, Some(0 | 1)),
        "{:?}\n{}",
        run.code,
        run.stderr
    );
    (run, server_report(&json))
}

fn detail(f: &Value) -> &str {
    f["detail"].as_str().unwrap_or_default()
}

/// Before: scout fetched the challenge's `resource_metadata` wherever it pointed, here at an
/// internal address, and kept the answer in the reports.
#[test]
fn a_remote_server_cannot_aim_the_challenges_resource_metadata_at_another_loopback_address() {
    let canary = Canary::start("127.0.0.2");
    let named = format!(
        "http://127.0.0.2:{}/.well-known/oauth-protected-resource/mcp",
        canary.port
    );
    let out = tempfile::tempdir().expect("tempdir");
    let (_, server) = check(
        "names_internal_metadata.py",
        &[("SCOUT_TEST_CANARY_URL", &named)],
        true,
        &[],
        out.path(),
    );
    assert!(
        canary.seen().is_empty(),
        "the canary was reached: {:?}",
        canary.seen()
    );
    // The refusal is a finding that names the URL and why; the metadata on the server's own
    // origin was still found, so the warning is about the challenge only.
    let f = finding(&server, "discovery.protected_resource");
    assert_eq!(f["status"], "warn", "{f}");
    for part in [
        named.as_str(),
        "not fetched",
        "127.0.0.2 is a loopback address",
        "treat_as_remote",
    ] {
        assert!(detail(f).contains(part), "{part}: {f}");
    }
    // The run went on with the metadata of the server's own origin, whose authorization
    // server is plain http on a remote-treated host: the credentials are bound to HTTPS
    // endpoints there, so none was sent and the token check says why.
    let token = finding(&server, "auth.token_acquired");
    assert_eq!(token["status"], "fail", "{server}");
    assert!(detail(token).contains("not HTTPS"), "{token}");
}

/// The twin: the same server on loopback, not treated as remote, may name loopback
/// metadata; scout fetches it, and keeps none of the HTML page it got back.
#[test]
fn a_loopback_server_may_name_loopback_metadata_and_an_html_answer_is_not_kept() {
    let canary = Canary::start("127.0.0.2");
    let named = format!(
        "http://127.0.0.2:{}/.well-known/oauth-protected-resource/mcp",
        canary.port
    );
    let out = tempfile::tempdir().expect("tempdir");
    let (run, server) = check(
        "names_internal_metadata.py",
        &[("SCOUT_TEST_CANARY_URL", &named)],
        false,
        &[],
        out.path(),
    );
    let seen = canary.seen();
    assert_eq!(
        seen,
        ["GET /.well-known/oauth-protected-resource/mcp HTTP/1.1"],
        "the named URL was fetched once"
    );
    let f = finding(&server, "discovery.protected_resource");
    assert!(!detail(f).contains("not fetched"), "{f}");
    assert!(detail(f).contains("HTTP 404"), "{f}");
    for (name, text) in artifacts(&run, out.path()) {
        assert!(
            !text.contains("canary-admin-page"),
            "{name} keeps the HTML page"
        );
    }
}

/// Before: scout fetched the metadata of whatever authorization server the server listed,
/// here an internal address.
#[test]
fn a_remote_server_cannot_aim_discovery_at_an_authorization_server_on_another_loopback_address() {
    let canary = Canary::start("127.0.0.2");
    let issuer = format!("http://127.0.0.2:{}", canary.port);
    let out = tempfile::tempdir().expect("tempdir");
    let (run, server) = check(
        "names_internal_issuer.py",
        &[("SCOUT_TEST_CANARY_URL", &issuer)],
        true,
        &[],
        out.path(),
    );
    assert!(
        canary.seen().is_empty(),
        "the canary was reached: {:?}",
        canary.seen()
    );
    let f = finding(&server, "discovery.authorization_server");
    assert_eq!(f["status"], "warn", "{f}");
    for part in [
        format!("{issuer}/.well-known/oauth-authorization-server"),
        "not fetched".to_string(),
        "127.0.0.2 is a loopback address".to_string(),
    ] {
        assert!(detail(f).contains(&part), "{part}: {f}");
    }
    // No token endpoint is known, so no credential was sent anywhere.
    assert_eq!(finding(&server, "auth.token_acquired")["status"], "fail");
    assert_eq!(run.code, Some(1));
}

/// Before: every request of the auth client, the authorization server's included, carried
/// `X-MCP-Trace-ID`. The trace id and the configured headers go to the MCP server only.
#[test]
fn configured_headers_and_the_trace_id_never_reach_the_authorization_server() {
    let out = tempfile::tempdir().expect("tempdir");
    let log = out.path().join("as.log");
    let (_, server) = check(
        "separate_authorization_server.py",
        &[("SCOUT_TEST_AS_LOG", log.to_str().expect("path"))],
        false,
        &["--header", "X-Scout-Test=header-canary-7f3a"],
        out.path(),
    );
    // The twin of the refusals: an authorization server on another loopback port of a
    // loopback server is reached, and the discovery passes.
    assert_eq!(
        finding(&server, "discovery.authorization_server")["status"],
        "pass",
        "{server}"
    );
    assert_eq!(finding(&server, "auth.token_acquired")["status"], "info");
    let text = std::fs::read_to_string(&log).expect("the authorization server saw requests");
    let requests: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let lines: Vec<String> = requests
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["method"].as_str().unwrap_or(""),
                r["path"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l == "GET /.well-known/oauth-authorization-server"),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l == "POST /token"), "{lines:?}");
    for r in &requests {
        for h in r["headers"].as_array().expect("headers") {
            let name = h[0].as_str().unwrap_or_default().to_ascii_lowercase();
            let value = h[1].as_str().unwrap_or_default();
            assert_ne!(name, "x-mcp-trace-id", "{r}");
            assert_ne!(name, "x-scout-test", "{r}");
            assert!(!value.contains("header-canary-7f3a"), "{r}");
        }
    }
}

/// Before: the client secret went to whatever token endpoint the metadata named, here an
/// internal address. It must receive nothing (whichever rule stops it first: this one, or
/// the discovery verdict on the plain-http endpoints of a server treated as remote).
#[test]
fn a_remote_server_cannot_aim_the_token_request_at_another_loopback_address() {
    let canary = Canary::start("127.0.0.2");
    let endpoint = format!("http://127.0.0.2:{}/token", canary.port);
    let out = tempfile::tempdir().expect("tempdir");
    let (run, server) = check(
        "names_internal_token_endpoint.py",
        &[("SCOUT_TEST_CANARY_URL", &endpoint)],
        true,
        &[],
        out.path(),
    );
    assert!(
        canary.seen().is_empty(),
        "the token endpoint was reached: {:?}",
        canary.seen()
    );
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "fail", "{f}");
    if detail(f).contains("not fetched") {
        assert!(
            detail(f).contains(&endpoint),
            "the refusal names the URL: {f}"
        );
        assert!(detail(f).contains("loopback address"), "{f}");
    }
    assert_eq!(run.code, Some(1));
    for (name, text) in artifacts(&run, out.path()) {
        assert!(
            !text.contains(FIXTURE_SECRET),
            "{name} shows the client secret"
        );
    }
}
