//! OAuth-protected servers: the discovery checks (`discovery.protected_resource`,
//! `authorization_server`, `pkce`, `registration`) and the auth checks (`auth.challenge`,
//! `garbage_token`, `query_token`, `audience`, `scope_challenge`, `token_acquired`, `open`)
//! against real parts and against one fixture per defect; the token sources (client
//! credentials, refresh token, a ready token from a file, `scout auth login`); the
//! "requires credentials" stop; and that no token, secret or code reaches any output.
//!
//! Real parts: `tests/servers/oauth_stack.mjs` (oidc-provider + a TypeScript SDK v2 server
//! validating its JWTs) and `tests/servers/py_oauth_server.py` (the Python SDK's built-in
//! authorization server). Fixtures: `tests/fixtures/oauthfixture.py` and its subclasses.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{HttpFixture, Run, Scout};
use crate::servers::{HttpServer, require_setup, servers_dir};

/// The confidential client of the oidc-provider stack.
const STACK_CLIENT: &str = "scout-ci";
const STACK_SECRET: &str = "stack-secret-4e8a2c6b1d";
/// The fixture authorization server's client (oauthfixture.py).
const FIXTURE_CLIENT: &str = "fixture-client";
const FIXTURE_SECRET: &str = "fixture-secret-9d3c";

/// The oidc-provider stack, started on a free port, with its token log.
struct Stack {
    server: HttpServer,
    issuer: String,
    log: tempfile::NamedTempFile,
}

fn stack() -> Stack {
    require_setup();
    assert!(
        servers_dir()
            .join("node_modules/oidc-provider/package.json")
            .exists(),
        "oidc-provider is not installed: run tests/servers/setup.sh"
    );
    let log = tempfile::NamedTempFile::new().expect("token log");
    let log_path = log.path().to_string_lossy().into_owned();
    let server = HttpServer::start(
        &[
            "node".to_string(),
            servers_dir()
                .join("oauth_stack.mjs")
                .to_string_lossy()
                .into_owned(),
            "{port}".to_string(),
        ],
        &[
            ("OAUTH_STACK_CLIENT_SECRET", STACK_SECRET),
            ("SCOUT_TEST_AUTH_LOG", log_path.as_str()),
        ],
        "/mcp",
    );
    // The port is open before the handlers are attached: wait for the line that says so.
    let deadline = Instant::now() + Duration::from_secs(60);
    let issuer = loop {
        let out = server.output();
        if let Some(line) = out.lines().find(|l| l.starts_with("listening on ")) {
            break line
                .split(" issuer ")
                .nth(1)
                .expect("the line names the issuer")
                .trim()
                .to_string();
        }
        assert!(Instant::now() < deadline, "the stack did not start:\n{out}");
        std::thread::sleep(Duration::from_millis(100));
    };
    Stack {
        server,
        issuer,
        log,
    }
}

/// The Python SDK server with its built-in authorization server.
fn py_oauth(refresh_token: &str) -> HttpServer {
    require_setup();
    HttpServer::start(
        &[
            servers_dir()
                .join(".venv/bin/python")
                .to_string_lossy()
                .into_owned(),
            servers_dir()
                .join("py_oauth_server.py")
                .to_string_lossy()
                .into_owned(),
            "{port}".to_string(),
        ],
        &[("PY_OAUTH_REFRESH_TOKEN", refresh_token)],
        "/mcp",
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report written")).expect("JSON")
}

fn server_report(path: &Path) -> Value {
    read_json(path)["servers"][0].clone()
}

fn finding<'a>(server: &'a Value, id: &str) -> &'a Value {
    server["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["id"] == id))
        .unwrap_or_else(|| panic!("no finding {id} in {server}"))
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Every artifact of a run in `dir` plus its stdout/stderr, as (name, text).
fn artifacts(run: &Run, dir: &Path) -> Vec<(String, String)> {
    let mut texts = vec![("stdout+stderr".to_string(), run.all_output())];
    for p in walk(dir) {
        texts.push((
            p.display().to_string(),
            std::fs::read_to_string(&p).expect("artifact is text"),
        ));
    }
    texts
}

/// A JWT (`eyJ….eyJ…`) anywhere in `text`: every access token the stack issues is one.
fn has_jwt(text: &str) -> bool {
    regex::Regex::new(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}")
        .expect("regex")
        .is_match(text)
}

/// Runs `scout check` against the oidc-provider stack with client credentials, a limited
/// scope for the scope challenge, every report format and `-vv`.
#[test]
fn the_real_stack_passes_every_auth_check_and_the_token_is_the_one_later_phases_send() {
    let stack = stack();
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .env("STACK_SECRET_VAR", STACK_SECRET)
        .args([
            "-vv",
            "check",
            &stack.server.url,
            "--client-id",
            STACK_CLIENT,
            "--client-secret-env",
            "STACK_SECRET_VAR",
            "--scope",
            "mcp",
            "--limited-scope",
            "other",
            "--fail-under",
            "80",
            "--out-dir",
        ])
        .args([out.path()])
        .env("SCOUT_FORMATS", "json,junit,sarif,markdown,har,events")
        .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let json = walk(out.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("events.ndjson"))
        .expect("a JSON report");
    let server = server_report(&json);

    // Every discovery and auth check passes (the observations are infos), with evidence.
    for id in [
        "discovery.reachable",
        "discovery.protected_resource",
        "discovery.authorization_server",
        "discovery.pkce",
        "auth.challenge",
        "auth.garbage_token",
        "auth.query_token",
        "auth.audience",
        "auth.scope_challenge",
    ] {
        let f = finding(&server, id);
        assert_eq!(f["status"], "pass", "{f}");
        assert!(
            !f["evidence"].as_array().expect("evidence").is_empty(),
            "{f}"
        );
    }
    for id in ["discovery.registration", "auth.token_acquired", "auth.open"] {
        let f = finding(&server, id);
        assert_eq!(f["status"], "info", "{f}");
        assert!(
            !f["evidence"].as_array().expect("evidence").is_empty(),
            "{f}"
        );
    }
    // The stack serves RFC 8414 metadata and registration; the audience probe met a JWT
    // server that checked `aud`.
    let acquired = finding(&server, "auth.token_acquired")["detail"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        acquired.contains("client credentials") && acquired.contains("a JWT for audience"),
        "{acquired}"
    );
    // All nine phases ran.
    for c in server["categories"].as_array().expect("categories") {
        assert_eq!(c["assessed"], true, "{c}");
    }
    assert!(server["blocked"].is_null());

    // From the recorded exchanges (HAR): the bare requests never carry a token; every
    // request of the phases after auth does.
    let har_path = walk(out.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "har"))
        .expect("a HAR file");
    let har = read_json(&har_path);
    let entries = har["log"]["entries"].as_array().expect("entries").clone();
    let seq_of = |e: &Value| e["_seq"].as_u64().expect("_seq");
    let auth_header = |e: &Value| {
        e["request"]["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .find(|h| {
                h["name"]
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case("authorization"))
            })
            .and_then(|h| h["value"].as_str().map(str::to_string))
    };
    let max_ev = |phase: &str| {
        server["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["phase"] == phase)
            .flat_map(|f| f["evidence"].as_array().cloned().unwrap_or_default())
            .filter_map(|v| v.as_u64())
            .max()
            .expect("evidence")
    };
    let discovery_end = max_ev("discovery");
    let auth_end = max_ev("auth");
    let mut later = 0;
    for e in &entries {
        let seq = seq_of(e);
        let url = e["request"]["url"].as_str().unwrap_or_default();
        if seq <= discovery_end {
            assert!(
                auth_header(e).is_none(),
                "a discovery request carried credentials: {e}"
            );
        } else if seq > auth_end && url.starts_with(&stack.server.url) {
            assert_eq!(
                auth_header(e).as_deref(),
                Some("Bearer [REDACTED]"),
                "a request after the auth phase went without the token: {e}"
            );
            later += 1;
        }
    }
    assert!(later > 20, "the later phases made requests: {later}");

    // From the server's side: every request it authorised (scope mcp, for this resource)
    // carried one and the same token, issued to scout-ci by client credentials.
    let log = std::fs::read_to_string(stack.log.path()).expect("token log");
    let verified: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("log line"))
        .collect();
    let main: Vec<&Value> = verified
        .iter()
        .filter(|v| v["aud"] == stack.server.url.as_str() && v["scope"] == "mcp")
        .collect();
    let hashes: BTreeSet<&str> = main.iter().filter_map(|v| v["sha256"].as_str()).collect();
    assert_eq!(hashes.len(), 1, "one token for the whole run: {log}");
    assert!(main.iter().all(|v| v["client_id"] == STACK_CLIENT));
    assert!(
        main.len() >= later,
        "the server authorised {} requests, the report shows {later} after the auth phase",
        main.len()
    );

    // Nothing secret in any output: the client secret, and no JWT (every token is one).
    let texts = artifacts(&run, out.path());
    let names: Vec<&str> = texts.iter().map(|(n, _)| n.as_str()).collect();
    for ext in [".json", ".xml", ".sarif", ".md", ".har", ".ndjson"] {
        assert!(names.iter().any(|n| n.ends_with(ext)), "{ext}: {names:?}");
    }
    for (name, text) in &texts {
        assert!(
            !text.contains(STACK_SECRET),
            "the client secret leaked into {name}"
        );
        assert!(!has_jwt(text), "an access token leaked into {name}");
    }
    assert!(
        stack.issuer.starts_with("http://127.0.0.1:"),
        "{}",
        stack.issuer
    );
}

#[test]
fn without_credentials_the_run_stops_with_one_line_naming_the_authorization_server() {
    let stack = stack();
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let run = Scout::new()
        .args(["-q", "check", &stack.server.url, "--json"])
        .args([&json])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    for part in [
        "requires credentials",
        stack.issuer.as_str(),
        "--client-id",
        "--client-secret-env",
        "--refresh-token-env",
        "--token-file",
        "scout auth login",
    ] {
        assert!(lines[0].contains(part), "{part}: {}", lines[0]);
    }
    let server = server_report(&json);
    // The bare probes still ran; what needs a token says why not.
    assert_eq!(finding(&server, "auth.challenge")["status"], "pass");
    assert_eq!(finding(&server, "auth.garbage_token")["status"], "pass");
    assert_eq!(finding(&server, "auth.token_acquired")["status"], "skip");
    assert_eq!(
        finding(&server, "handshake.protocol_era")["skip_reason"],
        "blocked"
    );
}

/// `scout check` of a fixture with client credentials, only the phases that matter.
fn check_fixture(name: &str, extra_env: &[(&str, &str)], phases: &str) -> (Run, Value) {
    let fixture = HttpFixture::start(name);
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let mut scout = Scout::new().env("FX_SECRET", FIXTURE_SECRET);
    for (k, v) in extra_env {
        scout = scout.env(k, v);
    }
    let run = scout
        .args([
            "-q",
            "check",
            &fixture.url,
            "--client-id",
            FIXTURE_CLIENT,
            "--client-secret-env",
            "FX_SECRET",
            "--scope",
            "mcp",
            "--limited-scope",
            "other",
            "--only",
            phases,
            "--json",
        ])
        .args([&json])
        .run();
    assert!(
        matches!(run.code, Some(0 | 1)),
        "{name}: {:?}\n{}",
        run.code,
        run.stderr
    );
    let server = server_report(&json);
    (run, server)
}

#[test]
fn the_correct_fixture_passes_every_check_the_defects_fail() {
    let (run, server) = check_fixture("oauth_server.py", &[], "discovery,auth");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for id in [
        "discovery.protected_resource",
        "discovery.authorization_server",
        "discovery.pkce",
        "auth.challenge",
        "auth.garbage_token",
        "auth.query_token",
        "auth.audience",
        "auth.scope_challenge",
    ] {
        assert_eq!(finding(&server, id)["status"], "pass", "{id}: {server}");
    }
    assert_eq!(finding(&server, "discovery.registration")["status"], "info");
    assert!(
        finding(&server, "discovery.registration")["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("Only pre-registration")
    );

    // fixture, check, status, severity (on a fail)
    let cases: [(&str, &str, &str, Option<&str>); 9] = [
        (
            "garbage_token_accepted.py",
            "auth.garbage_token",
            "fail",
            Some("critical"),
        ),
        (
            "bad_token_500.py",
            "auth.garbage_token",
            "fail",
            Some("major"),
        ),
        (
            "no_www_authenticate.py",
            "auth.challenge",
            "fail",
            Some("major"),
        ),
        (
            "no_protected_resource.py",
            "discovery.protected_resource",
            "fail",
            Some("major"),
        ),
        ("no_s256.py", "discovery.pkce", "fail", Some("major")),
        (
            "query_token_accepted.py",
            "auth.query_token",
            "fail",
            Some("major"),
        ),
        (
            "wrong_audience_accepted.py",
            "auth.audience",
            "fail",
            Some("critical"),
        ),
        ("scope_refused_401.py", "auth.scope_challenge", "warn", None),
        (
            "issuer_mismatch.py",
            "discovery.authorization_server",
            "fail",
            Some("major"),
        ),
    ];
    for (fixture, id, status, severity) in cases {
        let (_, server) = check_fixture(fixture, &[], "discovery,auth");
        let f = finding(&server, id);
        assert_eq!(f["status"], status, "{fixture}: {f}");
        if let Some(sev) = severity {
            assert_eq!(f["severity"], sev, "{fixture}: {f}");
        }
        assert!(
            !f["evidence"].as_array().expect("evidence").is_empty(),
            "{f}"
        );
    }
}

#[test]
fn a_missing_metadata_document_also_fails_the_challenge_and_blocks_the_token() {
    let (run, server) = check_fixture("no_protected_resource.py", &[], "discovery,auth");
    assert_eq!(run.code, Some(1));
    assert_eq!(finding(&server, "auth.challenge")["status"], "fail");
    assert_eq!(finding(&server, "auth.token_acquired")["status"], "fail");
    assert_eq!(
        finding(&server, "discovery.authorization_server")["status"],
        "skip"
    );
    assert!(server["blocked"].as_str().is_some(), "{server}");
}

#[test]
fn remote_rules_plain_http_authorization_server_and_an_open_server_with_writable_tools() {
    // treat_as_remote makes the loopback fixture count as remote: its http:// endpoints fail.
    let (_, server) = check_fixture(
        "oauth_server.py",
        &[("SCOUT_TREAT_AS_REMOTE", "true")],
        "discovery,auth",
    );
    let f = finding(&server, "discovery.authorization_server");
    assert_eq!(f["status"], "fail", "{f}");
    assert!(f["detail"].as_str().unwrap_or_default().contains("HTTPS"));

    // An open server with tools that are not read-only: a warning when remote …
    let open = |remote: bool| {
        let fixture = HttpFixture::start("unannotated_tools.py");
        let out = tempfile::tempdir().expect("tempdir");
        let json = out.path().join("r.json");
        let mut s = Scout::new();
        if remote {
            s = s.env("SCOUT_TREAT_AS_REMOTE", "true");
        }
        let run = s
            .args([
                "-q",
                "check",
                &fixture.url,
                "--only",
                "discovery,auth,handshake,catalog",
                "--json",
            ])
            .args([&json])
            .run();
        assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
        finding(&server_report(&json), "auth.open").clone()
    };
    let remote = open(true);
    assert_eq!(remote["status"], "warn", "{remote}");
    assert!(
        remote["evidence"].as_array().expect("ev").len() > 1,
        "{remote}"
    );
    // … an observation when local.
    assert_eq!(open(false)["status"], "info");
}

#[test]
fn refused_client_credentials_fail_token_acquired_and_block_the_run() {
    let fixture = HttpFixture::start("oauth_server.py");
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let run = Scout::new()
        .env("SCOUT_CLIENT_ID", FIXTURE_CLIENT)
        .env("SCOUT_CLIENT_SECRET_ENV", "FX_WRONG")
        .env("FX_WRONG", "not-the-fixture-secret")
        .args(["-q", "check", &fixture.url, "--json"])
        .args([&json])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let server = server_report(&json);
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "fail", "{f}");
    assert!(
        f["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("invalid_client"),
        "{f}"
    );
    assert!(
        run.stderr.contains("could not get a token"),
        "{}",
        run.stderr
    );
    assert!(
        !std::fs::read_to_string(&json)
            .expect("report")
            .contains("not-the-fixture-secret")
    );
}

#[test]
fn config_file_credentials_and_a_token_file() {
    let fixture = HttpFixture::start("oauth_server.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, format!("{FIXTURE_SECRET}\n")).expect("write");
    let config = format!(
        "[[default.servers]]\nname = \"fx\"\nurl = \"{}\"\nclient_id = \"{FIXTURE_CLIENT}\"\nclient_secret_file = \"{}\"\nscope = \"mcp\"\n",
        fixture.url,
        secret_file.display()
    );
    std::fs::write(dir.path().join("scout.toml"), config).expect("config");
    let json = dir.path().join("r.json");
    let run = Scout::new()
        .dir(dir.path())
        .args([
            "-q",
            "check",
            "--only",
            "discovery,auth,handshake",
            "--json",
        ])
        .args([&json])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let server = server_report(&json);
    assert_eq!(
        server["era"], "dual",
        "the handshake went through with the token"
    );
    assert!(
        finding(&server, "auth.token_acquired")["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("client credentials")
    );

    // A config error: a secret read from two places.
    std::fs::write(
        dir.path().join("scout.toml"),
        format!(
            "[[default.servers]]\nname = \"fx\"\nurl = \"{}\"\nclient_id = \"c\"\nclient_secret_env = \"A\"\nclient_secret_file = \"b\"\n",
            fixture.url
        ),
    )
    .expect("config");
    let bad = Scout::new().dir(dir.path()).args(["check"]).run();
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert!(bad.stderr.contains("client_secret_env"), "{}", bad.stderr);

    // A token file that does not exist: exit 2, naming it.
    let missing = Scout::new()
        .args(["check", &fixture.url, "--token-file"])
        .args([dir.path().join("no-such-token")])
        .run();
    assert_eq!(missing.code, Some(2), "{}", missing.stderr);
    assert!(
        missing.stderr.contains("no-such-token"),
        "{}",
        missing.stderr
    );
}

/// Plays the browser: GET `url` without following redirects; the status and `Location`.
fn browser_get(url: &str) -> (u16, Option<String>) {
    let u = url::Url::parse(url).expect("url");
    let host = u.host_str().expect("host");
    let port = u.port().expect("port");
    let mut sock = std::net::TcpStream::connect((host, port)).expect("connect");
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let path = match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_string(),
    };
    write!(
        sock,
        "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut text = String::new();
    sock.read_to_string(&mut text).expect("read");
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let location = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("location:"))
        .map(|l| l[9..].trim().to_string());
    (status, location)
}

#[test]
fn auth_login_with_pkce_stores_a_private_token_that_check_then_uses() {
    let server = py_oauth("unused-refresh-token-aa11");
    let home = tempfile::tempdir().expect("config home");
    let xdg = home.path().to_string_lossy().into_owned();
    let mut child = crate::common::command()
        .env("XDG_CONFIG_HOME", &xdg)
        .args([
            "auth",
            "login",
            &server.url,
            "--no-browser",
            "--wait",
            "60s",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("scout runs");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut authorize = String::new();
    let mut seen = String::new();
    while authorize.is_empty() {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut stderr, &mut line).expect("read");
        assert!(n > 0, "scout printed no URL: {seen}");
        seen.push_str(&line);
        if line.starts_with("http") {
            authorize = line.trim().to_string();
        }
    }
    for part in [
        "code_challenge_method=S256",
        "code_challenge=",
        "state=",
        "resource=",
    ] {
        assert!(authorize.contains(part), "{part}: {authorize}");
    }
    // The authorization server approves at once and redirects to scout's loopback listener.
    let (status, location) = browser_get(&authorize);
    assert!((300..400).contains(&status), "{status}");
    let callback = location.expect("a redirect");
    assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
    let code = url::Url::parse(&callback)
        .expect("url")
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .expect("a code");
    let (status, _) = browser_get(&callback);
    assert_eq!(status, 200);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).expect("read");
    let status = child.wait().expect("scout exits");
    assert!(status.success(), "{seen}{rest}");
    assert!(rest.contains("token stored in"), "{rest}");
    assert!(
        !seen.contains(&code) && !rest.contains(&code),
        "the code was printed"
    );

    let files = walk(&home.path().join("scout/tokens"));
    assert_eq!(files.len(), 1, "{files:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files[0])
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let stored: Value = read_json(&files[0]);
    let access = stored["access_token"].as_str().expect("token").to_string();
    assert!(stored["refresh_token"].is_string());

    // `scout check` finds and uses the stored token; it never shows it.
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .env("XDG_CONFIG_HOME", &xdg)
        .args([
            "-vv",
            "check",
            &server.url,
            "--only",
            "discovery,auth,handshake",
            "--out-dir",
        ])
        .args([out.path()])
        .env("SCOUT_FORMATS", "json,har,events")
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = out.path().join("scout.json");
    let report = server_report(&json);
    assert!(
        finding(&report, "auth.token_acquired")["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("scout auth login"),
        "{report}"
    );
    for (name, text) in artifacts(&run, out.path()) {
        assert!(
            !text.contains(&access),
            "the stored token leaked into {name}"
        );
    }

    // Not in CI.
    let ci = Scout::new()
        .env("CI", "true")
        .env("XDG_CONFIG_HOME", &xdg)
        .args(["auth", "login", &server.url])
        .run();
    assert_eq!(ci.code, Some(2), "{}", ci.stderr);
    assert!(ci.stderr.contains("CI=true"), "{}", ci.stderr);
    // Logout forgets it.
    let out = Scout::new()
        .env("XDG_CONFIG_HOME", &xdg)
        .args(["auth", "logout", &server.url])
        .run();
    assert_eq!(out.code, Some(0));
    assert!(walk(&home.path().join("scout/tokens")).is_empty());
}

#[test]
fn a_refresh_token_from_the_environment_is_exchanged_at_the_start_and_never_shown() {
    let refresh = "rt-seeded-3f9c1b7e5a2d";
    let server = py_oauth(refresh);
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .env("PY_REFRESH", refresh)
        .args([
            "-vv",
            "check",
            &server.url,
            "--client-id",
            "scout-desk",
            "--refresh-token-env",
            "PY_REFRESH",
            "--out-dir",
        ])
        .args([out.path()])
        .env("SCOUT_FORMATS", "json,junit,sarif,markdown,har,events")
        .run();
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    let report = server_report(&out.path().join("scout.json"));
    assert!(report["blocked"].is_null(), "{report}");
    assert_eq!(report["era"], "dual");
    let f = finding(&report, "auth.token_acquired");
    assert_eq!(f["status"], "info");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("refresh token grant"), "{detail}");
    assert!(detail.contains("rotation"), "{detail}");
    // The Python SDK sends error="invalid_token" on a request without credentials.
    assert_eq!(finding(&report, "auth.challenge")["status"], "warn");
    // The audience probe needs client credentials: not applicable here, and says so.
    assert_eq!(
        finding(&report, "auth.audience")["skip_reason"],
        "not_applicable"
    );
    let texts = artifacts(&run, out.path());
    assert!(texts.len() >= 7, "{}", texts.len());
    for (name, text) in &texts {
        assert!(
            !text.contains(refresh),
            "the refresh token leaked into {name}"
        );
    }
}

#[test]
fn connect_and_tools_get_their_token_by_client_credentials_too() {
    let fixture = HttpFixture::start("oauth_server.py");
    let creds = [
        "--client-id",
        FIXTURE_CLIENT,
        "--client-secret-env",
        "FX_SECRET",
        "--scope",
        "mcp",
    ];
    let tools = Scout::new()
        .env("FX_SECRET", FIXTURE_SECRET)
        .args(["tools", &fixture.url])
        .args(creds)
        .run();
    assert_eq!(tools.code, Some(0), "{}", tools.stderr);
    assert!(tools.stdout.contains("echo"), "{}", tools.stdout);
    assert!(!tools.all_output().contains(FIXTURE_SECRET));
    // Without them the same command cannot connect.
    let bare = Scout::new().args(["connect", &fixture.url]).run();
    assert_eq!(bare.code, Some(1), "{}", bare.stderr);
    let wrong = Scout::new()
        .env("FX_SECRET", "wrong-secret-value")
        .args(["connect", &fixture.url])
        .args(creds)
        .run();
    assert_eq!(wrong.code, Some(1), "{}", wrong.stderr);
    assert!(wrong.stderr.contains("invalid_client"), "{}", wrong.stderr);
}
