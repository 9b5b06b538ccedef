//! OAuth-protected servers: the discovery checks (`discovery.protected_resource`,
//! `authorization_server`, `pkce`, `registration`) and the auth checks (`auth.challenge`,
//! `garbage_token`, `query_token`, `audience`, `scope_challenge`, `token_acquired`, `open`)
//! against real parts and against one fixture per defect; the token sources (client
//! credentials, refresh token, a ready token from a file, `scout auth login`); the
//! "requires credentials" stop; and that no token, secret or code reaches any output.
//!
//! Real parts: `tests/servers/oauth_stack.mjs` (oidc-provider + a TypeScript SDK v2 server
//! validating its JWTs) and `tests/servers/py_oauth_server.py` (the Python SDK's built-in
//! authorization server). Fixtures: `tests/fixtures/oauthfixture.py` and its subclasses. The
//! other token sources (files, config, refresh token, `scout auth login`) are in
//! `oauth_sources`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{HttpFixture, Run, Scout};
use crate::servers::{HttpServer, require_setup, servers_dir};

/// The confidential client of the oidc-provider stack.
const STACK_CLIENT: &str = "scout-ci";
const STACK_SECRET: &str = "stack-secret-4e8a2c6b1d";
/// The fixture authorization server's client (oauthfixture.py).
pub(crate) const FIXTURE_CLIENT: &str = "fixture-client";
pub(crate) const FIXTURE_SECRET: &str = "fixture-secret-9d3c";

/// The oidc-provider stack, started on a free port, with its token log.
struct Stack {
    server: HttpServer,
    issuer: String,
    log: tempfile::NamedTempFile,
}

fn stack() -> Stack {
    stack_with("client_secret_basic")
}

/// The stack whose client authenticates with `method` at the token endpoint (the only
/// method its authorization server lists besides `none`).
fn stack_with(method: &str) -> Stack {
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
            ("OAUTH_STACK_AUTH_METHOD", method),
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
pub(crate) fn py_oauth(refresh_token: &str) -> HttpServer {
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

pub(crate) fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report written")).expect("JSON")
}

pub(crate) fn server_report(path: &Path) -> Value {
    read_json(path)["servers"][0].clone()
}

pub(crate) fn finding<'a>(server: &'a Value, id: &str) -> &'a Value {
    server["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["id"] == id))
        .unwrap_or_else(|| panic!("no finding {id} in {server}"))
}

/// Every file under `dir`.
pub(crate) fn walk(dir: &Path) -> Vec<PathBuf> {
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
pub(crate) fn artifacts(run: &Run, dir: &Path) -> Vec<(String, String)> {
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

/// Asserts from the HAR that no discovery request carried credentials and that every
/// request to the server after the auth phase carried the token; returns how many did.
fn requests_after_auth_carry_the_token(out: &Path, server: &Value, server_url: &str) -> usize {
    let har_path = walk(out)
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
        } else if seq > auth_end && url.starts_with(server_url) {
            assert_eq!(
                auth_header(e).as_deref(),
                Some("Bearer [REDACTED]"),
                "a request after the auth phase went without the token: {e}"
            );
            later += 1;
        }
    }
    later
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
    // All nine phases ran: each has a finding that is not a skip. (A category of only
    // observations, such as performance's latency figures, is "not assessed" for the score
    // but its phase did run.) The config has no expectations and no manifest, so those
    // categories are empty.
    for c in server["categories"].as_array().expect("categories") {
        let phase = c["phase"].as_str().expect("phase");
        if phase == "expectations" || phase == "manifest" {
            continue;
        }
        let ran = server["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["phase"] == phase && f["status"] != "skip");
        assert!(ran, "phase {phase} did not run: {c}");
    }
    assert!(server["blocked"].is_null());

    // From the recorded exchanges (HAR): the bare requests never carry a token; every
    // request of the phases after auth does.
    let later = requests_after_auth_carry_the_token(out.path(), &server, &stack.server.url);
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
fn the_audience_and_scope_probes_authenticate_as_the_configured_client_does() {
    // Previously auth.audience and auth.scope_challenge asked for their extra tokens with
    // the secret in a Basic header whatever the authorization server takes: against one that
    // takes only client_secret_post they got no token and were never assessed, while the
    // run's own grant worked.
    let stack = stack_with("client_secret_post");
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .env("STACK_SECRET_VAR", STACK_SECRET)
        .args([
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
            "--only",
            "discovery,auth,handshake",
            "--json",
        ])
        .args([out.path().join("r.json")])
        .run();
    assert!(
        matches!(run.code, Some(0 | 1)),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let server = server_report(&out.path().join("r.json"));
    for id in [
        "auth.token_acquired",
        "auth.audience",
        "auth.scope_challenge",
    ] {
        let f = finding(&server, id);
        assert!(f["status"] == "pass" || f["status"] == "info", "{id}: {f}");
    }
    assert!(!run.stderr.contains(STACK_SECRET) && !run.stdout.contains(STACK_SECRET));
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
        // A warning, no longer a major fail: resource servers MAY read `access_token`
        // (RFC 6750 §2.3); the spec's MUST NOT binds the client.
        ("query_token_accepted.py", "auth.query_token", "warn", None),
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

/// `scout check` of an OAuth fixture (discovery and auth only): the report, and for every
/// request that carried `?access_token=`, whether its value was a token the fixture issued
/// (the fixture's own log: the report masks the parameter).
fn check_fixture_query_log(name: &str) -> (Value, Vec<bool>, Vec<Value>) {
    let log = tempfile::NamedTempFile::new().expect("log");
    let log_path = log.path().to_string_lossy().into_owned();
    let fixture = HttpFixture::start_with_env(name, &[("FIXTURE_QUERY_LOG", &log_path)]);
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let run = Scout::new()
        .env("FX_SECRET", FIXTURE_SECRET)
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
            "--only",
            "discovery,auth",
            "--json",
        ])
        .args([&json])
        .args([std::ffi::OsStr::new("--har"), out.path().as_os_str()])
        .run();
    assert!(matches!(run.code, Some(0 | 1)), "{name}: {}", run.stderr);
    let har = walk(out.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "har"))
        .expect("a HAR file");
    let entries = read_json(&har)["log"]["entries"]
        .as_array()
        .expect("entries")
        .clone();
    let issued = std::fs::read_to_string(log.path())
        .expect("query log")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("log line")["issued"] == true)
        .collect();
    (server_report(&json), issued, entries)
}

/// The session ids the server minted in answers, and the ones scout sent DELETE for.
fn sessions_minted_and_deleted(entries: &[Value]) -> (BTreeSet<String>, BTreeSet<String>) {
    let header = |list: &Value, name: &str| {
        list.as_array()
            .into_iter()
            .flatten()
            .find(|h| {
                h["name"]
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
            })
            .and_then(|h| h["value"].as_str().map(str::to_string))
    };
    let mut minted = BTreeSet::new();
    let mut deleted = BTreeSet::new();
    for e in entries {
        if let Some(id) = header(&e["response"]["headers"], "mcp-session-id") {
            minted.insert(id);
        }
        if e["request"]["method"] == "DELETE"
            && let Some(id) = header(&e["request"]["headers"], "mcp-session-id")
        {
            deleted.insert(id);
        }
    }
    (minted, deleted)
}

/// `scout check` of an API-key fixture, the key sent as `X-API-Key` from the environment.
/// Previously a server behind a fixed bearer token (401 `Bearer realm="mcp"`, no OAuth
/// metadata anywhere) failed discovery.protected_resource and auth.challenge major, as if
/// it were a broken OAuth server. Authorization is optional and HTTP servers SHOULD follow
/// the OAuth profile: a warning each, and the run goes on with the token. An OAuth server
/// whose resource metadata is missing (no_protected_resource.py) still fails: it serves
/// authorization server metadata, so the metadata MUST is its own.
#[test]
fn a_static_bearer_token_is_a_scheme_not_broken_oauth() {
    let fixture = HttpFixture::start("static_bearer.py");
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let run = Scout::new()
        .env("FX_TOKEN", "fixture-token-8e1d")
        .args([
            "-q",
            "check",
            &fixture.url,
            "--token-env",
            "FX_TOKEN",
            "--only",
            "discovery,auth,handshake,catalog",
            "--json",
        ])
        .args([&json])
        .run();
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    let server = server_report(&json);
    for id in ["discovery.protected_resource", "auth.challenge"] {
        let f = finding(&server, id);
        assert_eq!(f["status"], "warn", "{id}: {f}");
        let d = f["detail"].as_str().unwrap_or_default();
        assert!(d.contains("Bearer realm"), "{id}: {d}");
        assert!(d.contains("no OAuth"), "{id}: {d}");
    }
    let fails: Vec<&Value> = server["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["status"] == "fail")
        .collect();
    assert!(fails.is_empty(), "{fails:#?}");
    assert!(server["blocked"].is_null(), "{server}");
    // The other phases ran with the token.
    assert_eq!(finding(&server, "catalog.tools_list")["status"], "pass");
    assert_eq!(finding(&server, "auth.garbage_token")["status"], "pass");

    let (_, oauth) = check_fixture("no_protected_resource.py", &[], "discovery,auth");
    let f = finding(&oauth, "discovery.protected_resource");
    assert_eq!(f["status"], "fail", "{f}");
    assert_eq!(finding(&oauth, "auth.challenge")["status"], "fail");
}

fn check_api_key_fixture(name: &str) -> Value {
    let fixture = HttpFixture::start(name);
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let run = Scout::new()
        .env("FX_KEY", "fixture-key-51c7")
        .args([
            "-q",
            "check",
            &fixture.url,
            "--header",
            "X-API-Key=env:FX_KEY",
            "--only",
            "discovery,auth,handshake",
            "--json",
        ])
        .args([&json])
        .run();
    assert!(matches!(run.code, Some(0 | 1)), "{name}: {}", run.stderr);
    assert!(
        !std::fs::read_to_string(&json)
            .expect("report")
            .contains("fixture-key-51c7"),
        "the key is redacted"
    );
    server_report(&json)
}

#[test]
fn a_token_checked_only_at_initialize_fails_inside_the_session_and_on_the_stateless_wire() {
    // Previously auth.garbage_token, query_token and audience passed: scout replayed only
    // the first, session-less request, which this server does check.
    let (_, server) = check_fixture("token_checked_only_at_initialize.py", &[], "discovery,auth");
    let g = finding(&server, "auth.garbage_token");
    assert_eq!(g["status"], "fail", "{g}");
    assert_eq!(g["severity"], "critical", "{g}");
    let detail = g["detail"].as_str().unwrap_or_default();
    for part in [
        "inside the session",
        "on the stateless 2026-07-28 wire",
        "no credentials",
    ] {
        assert!(detail.contains(part), "{part}: {detail}");
    }
    assert!(g["evidence"].as_array().expect("ev").len() >= 4, "{g}");
    assert_eq!(finding(&server, "auth.audience")["status"], "fail");
    assert_eq!(finding(&server, "auth.query_token")["status"], "warn");

    // The correct twin is probed the same three ways and refuses every time.
    let (_, good) = check_fixture("oauth_server.py", &[], "discovery,auth");
    for id in ["auth.garbage_token", "auth.audience", "auth.query_token"] {
        let f = finding(&good, id);
        assert_eq!(f["status"], "pass", "{f}");
        let d = f["detail"].as_str().unwrap_or_default();
        assert!(d.contains("inside the session"), "{id}: {d}");
        assert!(d.contains("stateless"), "{id}: {d}");
    }
}

#[test]
fn the_query_token_probe_never_puts_a_real_token_in_a_url() {
    // Previously the valid token went out as ?access_token= on every protected run.
    for fixture in ["oauth_server.py", "query_token_accepted.py"] {
        let (server, issued, entries) = check_fixture_query_log(fixture);
        // The session the auth phase opened to probe inside it is closed again.
        let (minted, deleted) = sessions_minted_and_deleted(&entries);
        assert!(!minted.is_empty(), "{fixture}: a session was opened");
        assert_eq!(minted, deleted, "{fixture}: every session got a DELETE");
        let f = finding(&server, "auth.query_token");
        assert!(
            f["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("made-up token"),
            "{f}"
        );
        assert!(
            issued.len() >= 3,
            "{fixture}: the first request, the session and the stateless wire: {issued:?}"
        );
        assert!(
            issued.iter().all(|i| !i),
            "{fixture}: a token the server issued went into a URL: {issued:?}"
        );
    }
    // query_token_accepted.py reads the URL: its 401 names the made-up token invalid,
    // where a request without credentials got no error code.
    let (_, server) = check_fixture("query_token_accepted.py", &[], "discovery,auth");
    let d = finding(&server, "auth.query_token")["detail"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(d.contains("read the token in the URL"), "{d}");
}

#[test]
fn a_bearer_challenge_on_a_second_header_line_passes_and_its_metadata_url_is_followed() {
    // Previously a major fail: only the first WWW-Authenticate line (Basic) was read.
    let (_, server) = check_fixture("bearer_on_second_line.py", &[], "discovery,auth");
    let c = finding(&server, "auth.challenge");
    assert_eq!(c["status"], "pass", "{c}");
    assert!(
        c["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("Basic realm"),
        "{c}"
    );
    let p = finding(&server, "discovery.protected_resource");
    assert_eq!(p["status"], "pass", "{p}");
    assert!(
        p["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("resource_metadata URL of the 401 challenge"),
        "{p}"
    );
}

#[test]
fn root_metadata_must_name_the_origin_not_the_mcp_url() {
    // RFC 9728 §3.3, the other way round from before: the origin at the root used to warn
    // and the /mcp URL at the root used to pass.
    let (_, good) = check_fixture("prm_at_root.py", &[], "discovery");
    let f = finding(&good, "discovery.protected_resource");
    assert_eq!(f["status"], "pass", "{f}");
    let (_, bad) = check_fixture("prm_root_names_mcp.py", &[], "discovery");
    let f = finding(&bad, "discovery.protected_resource");
    assert_eq!(f["status"], "fail", "{f}");
    assert_eq!(f["severity"], "major", "{f}");
    assert!(
        f["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("/.well-known/oauth-protected-resource/mcp"),
        "the fix is named: {f}"
    );
}

#[test]
fn a_challenge_without_resource_metadata_fails_under_2025_06_18_and_warns_later() {
    // Previously a warning whatever the server negotiated.
    let (_, old) = check_fixture(
        "challenge_without_metadata_2025_06_18.py",
        &[],
        "discovery,auth",
    );
    let f = finding(&old, "auth.challenge");
    assert_eq!(f["status"], "fail", "{f}");
    assert!(
        f["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("2025-06-18"),
        "{f}"
    );
    let (_, later) = check_fixture(
        "challenge_without_metadata_2025_11_25.py",
        &[],
        "discovery,auth",
    );
    let f = finding(&later, "auth.challenge");
    assert_eq!(f["status"], "warn", "{f}");
}

#[test]
fn an_api_key_server_warns_instead_of_two_major_fails_and_its_key_is_garbled_in_the_session() {
    // Previously auth.challenge ("no Bearer challenge") and discovery.protected_resource
    // ("no PRM") failed major, and only a made-up Bearer token was tried.
    let good = check_api_key_fixture("api_key_server.py");
    for id in ["auth.challenge", "discovery.protected_resource"] {
        let f = finding(&good, id);
        assert_eq!(f["status"], "warn", "{id}: {f}");
        assert!(
            f["detail"].as_str().unwrap_or_default().contains("ApiKey"),
            "{f}"
        );
    }
    let g = finding(&good, "auth.garbage_token");
    assert_eq!(g["status"], "pass", "{g}");
    let d = g["detail"].as_str().unwrap_or_default();
    assert!(d.contains("made-up `X-API-Key`"), "{d}");
    assert!(d.contains("inside the session"), "{d}");
    assert_eq!(finding(&good, "handshake.protocol_era")["status"], "pass");

    let bad = check_api_key_fixture("api_key_checked_only_at_initialize.py");
    let g = finding(&bad, "auth.garbage_token");
    assert_eq!(g["status"], "fail", "{g}");
    assert_eq!(g["severity"], "critical", "{g}");
}
