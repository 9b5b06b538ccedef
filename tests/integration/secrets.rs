//! No secret ever reaches the terminal or a report: a bearer token passed with `--token-env`
//! and a header passed as `env:VAR` are searched for in stdout, stderr (at trace level), the
//! JSON report, every HAR file and the NDJSON event log of a real run of the binary.

use crate::common::{Scout, crate_root};
use crate::servers::HttpServer;
use scout::report::finding::Status;

#[test]
fn token_and_env_header_never_appear_in_any_output() {
    let fixture = crate_root().join("tests/fixtures/minimal_server.py");
    let server = HttpServer::start(
        &[
            "python3".to_string(),
            fixture.to_string_lossy().into_owned(),
            "http".into(),
            "--port".into(),
            "{port}".into(),
        ],
        &[],
        "/mcp",
    );
    let out = tempfile::tempdir().expect("tempdir");
    let token = "tok-7f3c9a1e5b2d4c8f9e0a";
    let header = "hdr-1b2c3d4e5f60718293a4";
    let run = Scout::new()
        .env("SCOUT_TEST_TOKEN", token)
        .env("SCOUT_TEST_HEADER", header)
        .args([
            "-vv",
            "check",
            &server.url,
            "--token-env",
            "SCOUT_TEST_TOKEN",
            "--header",
            "X-Api-Key=env:SCOUT_TEST_HEADER",
            "--header",
            "X-Tenant=env:SCOUT_TEST_HEADER",
            "--out-dir",
        ])
        .args([out.path()])
        .run();
    assert!(
        run.code == Some(0) || run.code == Some(1),
        "the run finished: {:?}\n{}",
        run.code,
        run.stderr
    );
    let mut texts = vec![("stdout+stderr".to_string(), run.all_output())];
    for entry in walk(out.path()) {
        let text = std::fs::read_to_string(&entry).expect("report is text");
        texts.push((entry.display().to_string(), text));
    }
    let names: Vec<&str> = texts.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.iter().any(|n| n.ends_with("scout.json")), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with(".har")), "{names:?}");
    assert!(
        names.iter().any(|n| n.ends_with("events.ndjson")),
        "{names:?}"
    );
    // The run really sent them: the HAR shows the masked headers.
    let har = texts
        .iter()
        .find(|(n, _)| n.ends_with(".har"))
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    assert!(
        har.to_ascii_lowercase().contains("authorization"),
        "the token was sent"
    );
    assert!(har.contains("[REDACTED]"), "and masked");
    for (name, text) in &texts {
        assert!(!text.contains(token), "the token leaked into {name}");
        assert!(!text.contains(header), "the env: header leaked into {name}");
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
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

#[test]
fn a_credential_variable_that_is_not_set_is_a_config_error() {
    let run = Scout::new()
        .args([
            "check",
            "http://127.0.0.1:9/mcp",
            "--header",
            "X-Api-Key=env:SCOUT_TEST_UNSET_VARIABLE",
        ])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("SCOUT_TEST_UNSET_VARIABLE"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
}

#[test]
fn a_protected_server_blocks_without_credentials_and_is_checked_with_them() {
    let server = crate::common::HttpFixture::start("requires_token.py");
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let without = Scout::new()
        .args(["-q", "check", &server.url, "--json"])
        .args([&json])
        .run();
    assert_eq!(without.code, Some(1), "{}", without.stderr);
    assert!(
        without.stderr.contains("requires credentials"),
        "{}",
        without.stderr
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("JSON");
    let findings = report["servers"][0]["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let era = findings
        .iter()
        .find(|f| f["id"] == "handshake.protocol_era")
        .expect("protocol_era");
    assert_eq!(
        era["status"], "skip",
        "missing credentials are not the server's defect: {era}"
    );
    assert_eq!(era["skip_reason"], "blocked");

    let with = Scout::new()
        .env("SCOUT_TEST_FIXTURE_TOKEN", "fixture-token")
        .args([
            "check",
            &server.url,
            "--token-env",
            "SCOUT_TEST_FIXTURE_TOKEN",
            "--json",
        ])
        .args([&json])
        .run();
    assert_eq!(with.code, Some(0), "{}\n{}", with.stdout, with.stderr);
    let text = std::fs::read_to_string(&json).expect("report");
    assert!(!text.contains("fixture-token") && !with.all_output().contains("fixture-token"));
    let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let server_report = &report["servers"][0];
    assert_eq!(server_report["era"], "dual");
    let open = server_report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["id"] == "auth.open").cloned())
        .expect("auth.open");
    assert!(
        open["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("protected"),
        "{open}"
    );
}

/// The key the fixture `secret_in_result.py` sends (written in two halves there too, so
/// that no scanner takes the repository for a leak).
const FIXTURE_KEY: &str = concat!("AKIA", "IOSFODNN7EXAMPLE");

async fn run_secret_fixture(role: &str) -> scout::report::model::ServerReport {
    run_secret_fixture_with(&[("ROLE", role.into())]).await
}

async fn run_secret_fixture_with(env: &[(&str, String)]) -> scout::report::model::ServerReport {
    let mut spec = crate::phase_fixtures::fixture("secret_in_result.py", env);
    spec.only.push(scout::report::finding::Phase::Security);
    crate::phase_fixtures::run(spec).await
}

/// Before: the redactor masked every string under `api_key` in the server's own results
/// before the scan read them, and `security.secrets_in_output` (critical) passed. Now the
/// scan reads what the server sent, fails, and the report still never shows the key.
#[tokio::test]
async fn a_credential_under_api_key_in_a_tool_result_fails_and_never_shows() {
    let r = run_secret_fixture("leaky").await;
    let f = crate::phase_fixtures::expect(&r, "security.secrets_in_output", None, Status::Fail);
    assert!(f.detail.contains("AKIA…[REDACTED]"), "{}", f.detail);
    // The result that carried it is the evidence.
    let cited = r
        .exchanges
        .iter()
        .filter(|e| f.evidence.contains(&e.seq))
        .map(|e| serde_json::to_string(&e.kind).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(cited.contains("api_key"), "{cited}");
    assert!(cited.contains("[REDACTED]"), "{cited}");
    let all = serde_json::to_string(&r).expect("json");
    assert!(!all.contains(FIXTURE_KEY), "the key reached the report");

    // The correct twin: the same tools without the key pass.
    let r = run_secret_fixture("clean").await;
    crate::phase_fixtures::expect(&r, "security.secrets_in_output", None, Status::Pass);
}

/// Before: an argument named `code` made scout register its own made-up value ("scout")
/// as a secret, and every "scout" in the report — the client name, finding texts — showed
/// as [REDACTED]. scout's own words stay; only secrets are masked.
#[tokio::test]
async fn an_argument_named_code_does_not_mask_scouts_own_words() {
    let r = run_secret_fixture("clean").await;
    let sent_code = r.exchanges.iter().any(|e| {
        let text = serde_json::to_string(&e.kind).unwrap_or_default();
        text.contains("run_code") && text.contains("\\\"code\\\"") && text.contains("tools/call")
    });
    assert!(sent_code, "scout called run_code with its argument `code`");
    let all = serde_json::to_string(&r).expect("json");
    assert!(
        !all.contains("[REDACTED]"),
        "nothing in this run is a secret, yet something was masked"
    );
    assert!(
        all.contains("\\\"name\\\":\\\"scout\\\""),
        "scout's client name is shown as it was sent"
    );
}

/// A secret the operator hands a stdio server in its environment is the operator's: a
/// server that prints it back does not carry it into the report.
#[tokio::test]
async fn a_secret_environment_variable_never_reaches_the_report() {
    let token = "svc-4f1e9b2a7c3d5e6f";
    let r =
        run_secret_fixture_with(&[("ROLE", "clean".into()), ("SERVICE_TOKEN", token.into())]).await;
    let all = serde_json::to_string(&r).expect("json");
    assert!(
        all.contains("account [REDACTED]"),
        "the server printed it and the report masks it"
    );
    assert!(
        !all.contains(token),
        "the operator's token reached the report"
    );
}
