//! Credentials go only where they belong: a client secret or refresh token is sent only to
//! the token endpoint of an authorization server whose metadata passed discovery (issuer
//! match, HTTPS unless loopback treated as local), bound to the configured `issuer`, for a
//! server the Protected Resource Metadata names; a rotated refresh token is kept where it
//! came from. Each refusal is shown by the fixture's token log staying empty.

use std::path::Path;

use crate::common::{HttpFixture, Run, Scout};
use crate::oauth::{FIXTURE_CLIENT, FIXTURE_SECRET, finding, py_oauth, server_report};

/// A fixture whose token endpoint logs every request it gets.
struct Logged {
    fixture: HttpFixture,
    log: tempfile::NamedTempFile,
}

impl Logged {
    fn start(name: &str) -> Logged {
        let log = tempfile::NamedTempFile::new().expect("token log");
        let path = log.path().to_string_lossy().into_owned();
        let fixture = HttpFixture::start_with_env(name, &[("FIXTURE_TOKEN_LOG", &path)]);
        Logged { fixture, log }
    }

    /// What the token endpoint received, one line per request.
    fn token_requests(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }
}

/// `scout check` with the fixture's client credentials; `extra` flags and env after them.
fn check(target: &Logged, env: &[(&str, &str)], extra: &[&str], json: &Path) -> Run {
    let mut scout = Scout::new().env("FX_SECRET", FIXTURE_SECRET);
    for (k, v) in env {
        scout = scout.env(k, v);
    }
    scout
        .args([
            "-q",
            "check",
            &target.fixture.url,
            "--client-id",
            FIXTURE_CLIENT,
            "--client-secret-env",
            "FX_SECRET",
            "--only",
            "discovery,auth",
            "--json",
        ])
        .args([json])
        .args(extra)
        .run()
}

/// Before: the client secret went to the token endpoint the metadata named even though
/// `discovery.authorization_server` had just failed that metadata for an issuer mismatch.
#[test]
fn issuer_mismatch_metadata_gets_no_client_secret() {
    let target = Logged::start("issuer_mismatch.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let run = check(&target, &[], &[], &json);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(target.token_requests(), "", "the token endpoint was asked");
    let server = server_report(&json);
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "fail", "{f}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("says issuer") && detail.contains("must not be used"),
        "{detail}"
    );
    let blocked = server["blocked"].as_str().unwrap_or_default();
    assert!(blocked.contains("says issuer"), "{blocked}");
    assert_eq!(blocked.lines().count(), 1, "{blocked}");
}

/// Before: the metadata's `resource` was never compared with the server, so the secret went
/// to the authorization server of metadata published for another resource.
#[test]
fn metadata_for_another_resource_gets_no_client_secret() {
    let target = Logged::start("resource_mismatch.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let run = check(&target, &[], &[], &json);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(target.token_requests(), "", "the token endpoint was asked");
    let server = server_report(&json);
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "fail", "{f}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("https://evil.example.com/mcp") && detail.contains("RFC 9728"),
        "{detail}"
    );
    assert_eq!(
        finding(&server, "discovery.protected_resource")["status"],
        "fail"
    );
}

/// Before: a token endpoint on plain http got the secret on a host treated as remote.
#[test]
fn plain_http_token_endpoint_on_a_remote_treated_host_gets_no_client_secret() {
    let target = Logged::start("oauth_server.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let run = check(&target, &[("SCOUT_TREAT_AS_REMOTE", "true")], &[], &json);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(target.token_requests(), "", "the token endpoint was asked");
    let server = server_report(&json);
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "fail", "{f}");
    assert!(
        f["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("is not HTTPS"),
        "{f}"
    );
}

/// Before: there was no way to bind the credentials to their issuer; now another issuer
/// than the configured one stops the run (exit 2) with one line naming both, and nothing
/// reaches the token endpoint. The twin: the right issuer gets its token.
#[test]
fn a_configured_issuer_binds_the_credentials_and_a_mismatch_is_exit_2() {
    let target = Logged::start("oauth_server.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let run = check(
        &target,
        &[],
        &["--issuer", "https://auth.example.com"],
        &json,
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(target.token_requests(), "", "the token endpoint was asked");
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line: {}", run.stderr));
    let issuer = target.fixture.url.trim_end_matches("/mcp");
    assert!(
        line.contains("https://auth.example.com") && line.contains(issuer),
        "{line}"
    );
    let server = server_report(&json);
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "skip");
    assert_eq!(f["skip_reason"], "policy");

    // The correct twin: bound to the fixture's own issuer, the token is issued and used.
    let json = dir.path().join("ok.json");
    let run = check(&target, &[], &["--issuer", issuer], &json);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let log = target.token_requests();
    assert!(log.starts_with("POST /token client_credentials"), "{log}");
    let server = server_report(&json);
    assert_eq!(finding(&server, "auth.token_acquired")["status"], "info");
    assert_eq!(finding(&server, "auth.garbage_token")["status"], "pass");
}

/// Before: `scout connect` and `scout tools` stopped by an `issuer` mismatch exited 1, as if
/// the server were unreachable; it is the configuration's doing, so exit 2 with one line, as
/// `scout check` does, and nothing reaches the token endpoint. The twin: the right issuer
/// connects.
#[test]
fn connect_and_tools_exit_2_on_an_issuer_mismatch() {
    let target = Logged::start("oauth_server.py");
    let issuer = target.fixture.url.trim_end_matches("/mcp").to_string();
    for command in ["connect", "tools"] {
        let run = |bound_to: &str| {
            Scout::new()
                .env("FX_SECRET", FIXTURE_SECRET)
                .args([
                    command,
                    &target.fixture.url,
                    "--client-id",
                    FIXTURE_CLIENT,
                    "--client-secret-env",
                    "FX_SECRET",
                    "--issuer",
                    bound_to,
                ])
                .run()
        };
        let wrong = run("https://auth.example.com");
        assert_eq!(wrong.code, Some(2), "{command}: {}", wrong.stderr);
        let lines: Vec<&str> = wrong.stderr.trim().lines().collect();
        assert_eq!(lines.len(), 1, "{command}: {}", wrong.stderr);
        assert!(
            lines[0].contains("https://auth.example.com") && lines[0].contains(&issuer),
            "{command}: {}",
            lines[0]
        );
        assert_eq!(
            target.token_requests(),
            "",
            "{command}: the token endpoint was asked"
        );
        let right = run(&issuer);
        assert_eq!(right.code, Some(0), "{command}: {}", right.stderr);
        std::fs::write(target.log.path(), "").expect("clear the token log");
    }
}

/// The fixture lists both secret methods: the secret goes in the Basic header (OAuth's
/// default), and the finding says which method was used.
#[test]
fn the_client_authenticates_with_a_method_the_server_lists() {
    let target = Logged::start("oauth_server.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let run = check(&target, &[], &[], &json);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let log = target.token_requests();
    assert!(log.contains("client_credentials basic"), "{log}");
    let server = server_report(&json);
    let detail = finding(&server, "auth.token_acquired")["detail"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(detail.contains("client_secret_basic"), "{detail}");
}

fn refresh_run(server_url: &str, extra: &[&str], env: &[(&str, &str)], json: &Path) -> Run {
    let mut scout = Scout::new();
    for (k, v) in env {
        scout = scout.env(k, v);
    }
    scout
        .args([
            "-q",
            "check",
            server_url,
            "--client-id",
            "scout-desk",
            "--only",
            "discovery,auth,handshake",
            "--json",
        ])
        .args([json])
        .args(extra)
        .run()
}

/// Before: with a rotating authorization server the refresh token from the file was spent
/// and the new one thrown away, so the next run failed. Now the file is rewritten (0600)
/// and two consecutive runs both get a token.
#[test]
fn a_rotated_refresh_token_is_written_back_so_the_next_run_works() {
    let seeded = "rt-file-seeded-8c1d2e";
    let server = py_oauth(seeded);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("refresh-token");
    std::fs::write(&file, format!("{seeded}\n")).expect("write");
    let file_arg = file.to_string_lossy().into_owned();
    for round in 1..=2 {
        let json = dir.path().join(format!("r{round}.json"));
        let run = refresh_run(
            &server.url,
            &["--refresh-token-file", &file_arg],
            &[],
            &json,
        );
        assert!(matches!(run.code, Some(0 | 1)), "{round}: {}", run.stderr);
        let report = server_report(&json);
        assert!(report["blocked"].is_null(), "{round}: {report}");
        let f = finding(&report, "auth.token_acquired");
        assert_eq!(f["status"], "info", "{round}: {f}");
        assert!(
            f["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("wrote it to"),
            "{f}"
        );
        let now = std::fs::read_to_string(&file).expect("read");
        assert_ne!(now.trim(), seeded, "the file still holds the spent token");
        let text = std::fs::read_to_string(&json).expect("report");
        assert!(
            !text.contains(now.trim()),
            "the new refresh token is in the report"
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

/// A refresh token from an environment variable would be lost to rotation: the run stops
/// before the grant (exit 2) and says how to use a file, unless --allow-refresh-rotation.
#[test]
fn a_refresh_token_from_the_environment_stops_before_the_grant() {
    let seeded = "rt-env-seeded-5a7b9c";
    let server = py_oauth(seeded);
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let env = [("PY_REFRESH", seeded)];
    let run = refresh_run(
        &server.url,
        &["--refresh-token-env", "PY_REFRESH"],
        &env,
        &json,
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("--refresh-token-file")
            && run.stderr.contains("--allow-refresh-rotation"),
        "{}",
        run.stderr
    );
    let report = server_report(&json);
    assert_eq!(
        finding(&report, "auth.token_acquired")["skip_reason"],
        "policy"
    );
    // The token was not spent: with the flag, the same token still works.
    let json = dir.path().join("allowed.json");
    let run = refresh_run(
        &server.url,
        &[
            "--refresh-token-env",
            "PY_REFRESH",
            "--allow-refresh-rotation",
        ],
        &env,
        &json,
    );
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    let report = server_report(&json);
    assert_eq!(finding(&report, "auth.token_acquired")["status"], "info");
}

/// scout as the client under the official conformance suite's `client` mode: every scenario
/// that applies to a headless client, auth and otherwise, and that scout passes (the script
/// lists the ones it does not pass yet, with why, on every run). The first run installs Node
/// 22 and the suite from npm into target/conformance/.
#[test]
fn the_conformance_suite_client_scenarios_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(root.join("scripts/conformance-client.sh"))
        .env("SCOUT_BIN", assert_cmd::cargo::cargo_bin("scout"))
        .env_remove("CI")
        .output()
        .expect("the script runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    let passed = text.lines().filter(|l| l.contains(": pass: auth/")).count();
    assert!(passed >= 28, "{passed} scenarios passed:\n{text}");
    assert!(text.contains(" 0 failed; "), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    // Step-up on a later 401/403 and a change of authorization server mid-session, which
    // previously were listed as not passed yet.
    for scenario in [
        "auth/scope-step-up",
        "auth/scope-retry-limit",
        "auth/authorization-server-migration",
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains(": pass: ") && l.trim_end().ends_with(scenario)),
            "{scenario} did not pass:\n{text}"
        );
    }
    assert!(!text.contains("not yet: "), "{text}");
    // The client itself: each of these failed before scout stayed modern after a discover
    // (no initialize without Mcp-Method), completed multi round-trip requests, and printed
    // the listed inputSchema as it came.
    for scenario in [
        "initialize",
        "tools_call",
        "request-metadata",
        "sse-retry",
        "elicitation-sep1034-client-defaults",
        "sep-2322-client-request-state",
        "http-standard-headers",
        "http-custom-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
        "json-schema-2020-12-preservation",
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains(": pass: ") && l.trim_end().ends_with(&format!(" {scenario}"))),
            "{scenario} did not pass:\n{text}"
        );
    }
}
