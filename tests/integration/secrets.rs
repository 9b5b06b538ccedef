//! No secret ever reaches the terminal or a report: a bearer token passed with `--token-env`
//! and a header passed as `env:VAR` are searched for in stdout, stderr (at trace level), the
//! JSON report, every HAR file and the NDJSON event log of a real run of the binary.

use crate::common::{Scout, crate_root};
use crate::servers::HttpServer;

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
