//! The security phase against fixture servers named after what they get wrong (or right):
//! DNS-rebinding protection, session ids, exposed destructive tools, credentials over plain
//! HTTP, poisoning in instructions and prompts, the cross-server rules, and catalogue
//! pinning end to end through `scout pin` and `scout check`.

use std::path::Path;

use serde_json::Value;

use scout::report::exchange::ExchangeKind;
use scout::report::finding::{Era, Phase, Severity, Status};
use scout::report::model::ServerReport;
use scout::spec::{TargetSpec, ValueSource};

use crate::common::{Scout, fixture, workspace};
use crate::phase_fixtures::{all, expect, fixture_http, run};

/// The phases the security checks need: a connection, the handshake, the catalogue and
/// the bare first contact (auth).
pub(crate) fn security_only(mut spec: scout::spec::ServerSpec) -> scout::spec::ServerSpec {
    spec.only = vec![
        Phase::Discovery,
        Phase::Auth,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Security,
    ];
    spec
}

/// Requests of the run with this HTTP method, as (Mcp-Session-Id sent, status).
pub(crate) fn requests(r: &ServerReport, method: &str) -> Vec<(Option<String>, Option<u16>)> {
    r.exchanges
        .iter()
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h) if h.method == method => Some((
                h.request_headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id"))
                    .map(|(_, v)| v.clone()),
                h.status,
            )),
            _ => None,
        })
        .collect()
}

/// The session ids minted by the entropy probes (initialize requests with id scout-entropy-N).
pub(crate) fn entropy_sessions(r: &ServerReport) -> Vec<String> {
    r.exchanges
        .iter()
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h)
                if h.request_body
                    .as_deref()
                    .is_some_and(|b| b.contains("\"scout-entropy-")) =>
            {
                h.response_headers
                    .iter()
                    .find(|(k, _)| k == "mcp-session-id")
                    .map(|(_, v)| v.clone())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn origin_fails_without_rebinding_protection_and_passes_with_it() {
    let open = run(security_only(fixture_http("origin_not_checked.py"))).await;
    for era in [Era::Legacy, Era::Modern] {
        let f = all(&open, "security.origin")
            .into_iter()
            .find(|f| f.era == Some(era))
            .unwrap_or_else(|| panic!("no origin finding on the {era:?} wire"));
        assert_eq!(f.status, Status::Fail, "{era:?}: {}", f.detail);
        assert_eq!(f.severity, Some(Severity::Major));
        assert!(
            f.detail.contains("Origin: http://evil.example was served"),
            "{}",
            f.detail
        );
        assert!(f.detail.contains("Host: evil.example:"), "{}", f.detail);
    }
    expect(&open, "security.origin", None, Status::Fail);
    // The probes carried the foreign headers, and nothing else differed from the control.
    let foreign: Vec<String> = open
        .exchanges
        .iter()
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h) => h
                .request_headers
                .iter()
                .find(|(k, v)| {
                    (k.eq_ignore_ascii_case("origin") && v == "http://evil.example")
                        || (k.eq_ignore_ascii_case("host") && v.starts_with("evil.example:"))
                })
                .map(|(k, _)| k.to_ascii_lowercase()),
            _ => None,
        })
        .collect();
    assert_eq!(
        foreign.len(),
        4,
        "{foreign:?}: origin and host on each of two wires"
    );

    // Judged as remote, the same server is a warning: rebinding targets local servers.
    let mut remote = security_only(fixture_http("origin_not_checked.py"));
    remote.treat_as_remote = true;
    let remote = run(remote).await;
    let f = expect(&remote, "security.origin", None, Status::Warn);
    assert!(f.detail.contains("remote and open"), "{}", f.detail);

    let protected = run(security_only(fixture_http("minimal_server.py"))).await;
    let f = expect(&protected, "security.origin", None, Status::Pass);
    assert!(f.detail.contains("refused (HTTP 403)"), "{}", f.detail);
    assert_eq!(
        all(&protected, "security.origin")
            .iter()
            .filter(|f| f.status == Status::Pass)
            .count(),
        2,
        "both eras"
    );
}

#[tokio::test]
async fn sequential_session_ids_fail_and_every_sampled_session_is_closed() {
    let r = run(security_only(fixture_http("sequential_session_ids.py"))).await;
    let f = expect(&r, "security.session_entropy", None, Status::Fail);
    assert!(f.detail.contains("count up"), "{}", f.detail);
    assert!(f.detail.contains("mcp-session-100"), "{}", f.detail);
    assert!(
        f.detail.contains("All 5 sessions were closed"),
        "{}",
        f.detail
    );
    let minted = entropy_sessions(&r);
    assert_eq!(minted.len(), 5, "{minted:?}");
    let deleted = requests(&r, "DELETE");
    for id in &minted {
        assert!(
            deleted
                .iter()
                .any(|(sid, status)| sid.as_deref() == Some(id.as_str()) && *status == Some(200)),
            "session {id} was not closed: {deleted:?}"
        );
    }

    let good = run(security_only(fixture_http("minimal_server.py"))).await;
    let f = expect(&good, "security.session_entropy", None, Status::Pass);
    assert!(
        f.detail.contains("random (version 4) UUIDs"),
        "{}",
        f.detail
    );
    assert_eq!(entropy_sessions(&good).len(), 5);
}

#[tokio::test]
async fn an_open_server_treated_as_remote_exposes_its_destructive_tools() {
    let mut spec = security_only(fixture_http("destructive_tools.py"));
    spec.treat_as_remote = true;
    let r = run(spec).await;
    let f = expect(
        &r,
        "security.unauthenticated_destructive",
        None,
        Status::Fail,
    );
    assert_eq!(f.severity, Some(Severity::Critical), "{}", f.detail);
    assert!(
        f.detail.contains("`delete_all_notes`") && f.detail.contains("`add_note`"),
        "{}",
        f.detail
    );
    assert!(
        !f.detail.contains("`echo`"),
        "echo is read-only: {}",
        f.detail
    );
    // Plain http to a "remote" host without credentials: readable on the way.
    expect(&r, "security.transport", None, Status::Warn);
    // The same server on loopback is nobody else's business.
    let local = run(security_only(fixture_http("destructive_tools.py"))).await;
    let skip = expect(
        &local,
        "security.unauthenticated_destructive",
        None,
        Status::Skip,
    );
    assert!(skip.detail.contains("treat_as_remote"), "{}", skip.detail);
}

#[tokio::test]
async fn a_403_for_no_session_is_not_authentication_when_the_tools_are_served_bare() {
    // Previously a pass: the first request's 403 ("no session") was taken as proof of
    // authentication, although initialize and tools/list needed no credential.
    let mut spec = security_only(fixture_http("no_session_403.py"));
    spec.treat_as_remote = true;
    let r = run(spec).await;
    let f = expect(
        &r,
        "security.unauthenticated_destructive",
        None,
        Status::Fail,
    );
    assert_eq!(f.severity, Some(Severity::Critical), "{}", f.detail);
    assert!(
        f.detail.contains("HTTP 403") && f.detail.contains("`delete_all_notes`"),
        "{}",
        f.detail
    );
}

#[tokio::test]
async fn a_configured_client_id_that_was_never_sent_is_no_credential_over_plain_http() {
    // Previously a critical fail ("Authorization carried over plain http"): a client id
    // was configured, but the server is open and no request carried a credential.
    let mut spec = security_only(fixture_http("destructive_tools.py"));
    spec.treat_as_remote = true;
    if let TargetSpec::Http { auth, .. } = &mut spec.target {
        auth.client_id = Some("configured-but-unused".into());
    }
    let r = run(spec).await;
    let f = expect(&r, "security.transport", None, Status::Warn);
    assert!(f.detail.contains("no request carried one"), "{}", f.detail);
    let carried = r.exchanges.iter().any(|e| match &e.kind {
        ExchangeKind::Http(h) => h
            .request_headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("authorization")),
        _ => false,
    });
    assert!(!carried, "the run sent no Authorization header");
}

#[tokio::test]
async fn a_token_over_plain_http_to_a_remote_host_is_critical() {
    let mut spec = security_only(fixture_http("requires_token.py"));
    spec.treat_as_remote = true;
    if let TargetSpec::Http { headers, .. } = &mut spec.target {
        headers.push((
            "Authorization".into(),
            ValueSource::Literal("Bearer fixture-token".into()),
        ));
    }
    let r = run(spec).await;
    let f = expect(&r, "security.transport", None, Status::Fail);
    assert_eq!(f.severity, Some(Severity::Critical));
    assert!(f.detail.contains("Authorization header"), "{}", f.detail);
    // The server demands that token, so its tools are not open to anyone.
    let f = expect(
        &r,
        "security.unauthenticated_destructive",
        None,
        Status::Pass,
    );
    assert!(f.detail.contains("401"), "{}", f.detail);
    assert!(
        !r.all_output_contains("fixture-token"),
        "the token is redacted"
    );
}

trait Redacted {
    fn all_output_contains(&self, needle: &str) -> bool;
}

impl Redacted for ServerReport {
    fn all_output_contains(&self, needle: &str) -> bool {
        serde_json::to_string(self)
            .unwrap_or_default()
            .contains(needle)
    }
}

#[tokio::test]
async fn poisoning_in_instructions_prompts_and_resources_is_found() {
    let spec = security_only(crate::phase_fixtures::fixture(
        "poisoned_descriptions.py",
        &[],
    ));
    let r = run(spec).await;
    let subjects: Vec<(Option<String>, Status)> = all(&r, "security.tool_poisoning")
        .iter()
        .map(|f| (f.subject.clone(), f.status))
        .collect();
    assert!(
        subjects.contains(&(Some("instructions".into()), Status::Fail)),
        "{subjects:?}"
    );
    assert!(
        subjects.contains(&(Some("summarize".into()), Status::Fail)),
        "{subjects:?}"
    );
    let f = expect(
        &r,
        "security.tool_poisoning",
        Some("instructions"),
        Status::Fail,
    );
    assert!(
        f.detail
            .contains("ignore the model's previous instructions in what the model reads: \"Ignore all previous instructions\""),
        "{}",
        f.detail
    );
    let f = expect(
        &r,
        "security.hidden_characters",
        Some("readme"),
        Status::Fail,
    );
    assert!(f.detail.contains("U+200B"), "{}", f.detail);
}

pub(crate) fn config_file(dir: &Path, body: &str) -> std::path::PathBuf {
    let path = dir.join("scout.toml");
    std::fs::write(&path, body).expect("write config");
    path
}

fn stdio_server(name: &str, script: &str, env: &str) -> String {
    format!(
        "[[default.servers]]\nname = \"{name}\"\ncommand = [\"python3\", \"{}\", \"stdio\"]\n{env}\n",
        fixture(script).display()
    )
}

/// A path as an argument.
pub(crate) fn s(path: &Path) -> String {
    path.display().to_string()
}

pub(crate) fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report written"))
        .expect("JSON report")
}

pub(crate) fn findings<'a>(report: &'a Value, server: &str, id: &str) -> Vec<&'a Value> {
    report["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["name"] == server)
        .flat_map(|s| s["findings"].as_array().into_iter().flatten())
        .filter(|f| f["id"] == id)
        .collect()
}

pub(crate) const CHECK_PHASES: &str = "discovery,auth,handshake,catalog,security";

#[test]
fn cross_server_rules_see_every_server_of_the_run() {
    let dir = workspace(None);
    let config = config_file(
        dir.path(),
        &format!(
            "{}{}",
            stdio_server(
                "mail",
                "cross_server_poisoning.py",
                "stdio_set = { ROLE = \"mail\" }"
            ),
            stdio_server(
                "facts",
                "cross_server_poisoning.py",
                "stdio_set = { ROLE = \"facts\" }"
            ),
        ),
    );
    let json = dir.path().join("report.json");
    let r = Scout::new()
        .args(["check", "--config", &s(&config), "--only", CHECK_PHASES])
        .args(["--json", &s(&json)])
        .run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let doc = report(&json);
    let facts = findings(&doc, "facts", "security.tool_poisoning");
    let named: Vec<&&Value> = facts.iter().filter(|f| f["status"] == "fail").collect();
    assert_eq!(named.len(), 1, "{facts:#?}");
    assert!(
        named[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("`send_email`, a tool of server mail")),
        "{:#?}",
        named[0]
    );
    assert!(!named[0]["evidence"].as_array().is_some_and(Vec::is_empty));
    for server in ["mail", "facts"] {
        let list = findings(&doc, server, "security.tool_poisoning");
        let shadow: Vec<_> = list
            .iter()
            .filter(|f| f["status"] == "warn" && f["subject"] == "search")
            .collect();
        assert_eq!(shadow.len(), 1, "{server}: {list:#?}");
        assert!(
            list.iter().all(|f| f["status"] != "pass"),
            "{server}: the 'nothing found' pass is withdrawn: {list:#?}"
        );
    }
    // The mail server names no other server's tool.
    assert!(
        findings(&doc, "mail", "security.tool_poisoning")
            .iter()
            .all(|f| f["status"] != "fail")
    );
}

/// `scout pin` → `scout check` (unchanged: passes) → the server changes → `scout check`
/// (three changes, the gate fails) → `scout pin` refuses → `scout pin --update` accepts.
#[test]
fn pinning_catches_a_changed_description_a_flipped_annotation_and_a_rename() {
    let dir = workspace(None);
    let before = stdio_server("weather", "catalog_rug_pull.py", "");
    let config = config_file(dir.path(), &before);
    let lock = dir.path().join("scout.lock");
    let pin = |extra: &[&str]| {
        Scout::new()
            .args(["pin", "--config", &s(&config)])
            .args(extra)
            .run()
    };
    let check = |name: &str| {
        let json = dir.path().join(format!("{name}.json"));
        let md = dir.path().join(format!("{name}.md"));
        let r = Scout::new()
            .args(["check", "--config", &s(&config), "--only", CHECK_PHASES])
            .args(["--json", &s(&json), "--markdown", &s(&md)])
            .run();
        (
            r,
            report(&json),
            std::fs::read_to_string(&md).unwrap_or_default(),
        )
    };

    let first = pin(&[]);
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    assert!(
        first
            .stdout
            .contains("pinned weather: 3 tools, 1 prompt, 0 resource templates"),
        "{}",
        first.stdout
    );
    let pinned = std::fs::read(&lock).expect("scout.lock written beside the config");
    let again = pin(&[]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(again.stdout.contains("up to date"), "{}", again.stdout);
    assert_eq!(
        std::fs::read(&lock).expect("lock"),
        pinned,
        "byte-identical"
    );

    let (r, doc, md) = check("unchanged");
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let f = findings(&doc, "weather", "security.catalog_pinning");
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["status"], "pass", "{f:#?}");
    assert!(!md.contains("Catalogue changes"));

    // The second start of the server lists a changed catalogue.
    config_file(
        dir.path(),
        &stdio_server(
            "weather",
            "catalog_rug_pull.py",
            "stdio_set = { CATALOG = \"after\" }",
        ),
    );
    let (r, doc, md) = check("changed");
    assert_eq!(
        r.code,
        Some(1),
        "the gate fails on unreviewed changes: {}",
        r.stderr
    );
    assert!(
        r.stderr.contains("not pinned in scout.lock"),
        "{}",
        r.stderr
    );
    let changes: Vec<(String, String, String)> =
        findings(&doc, "weather", "security.catalog_pinning")
            .iter()
            .map(|f| {
                (
                    f["subject"].as_str().unwrap_or_default().to_string(),
                    f["status"].as_str().unwrap_or_default().to_string(),
                    f["severity"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
    assert_eq!(
        changes,
        vec![
            (
                "tool get_forecast".to_string(),
                "fail".to_string(),
                "critical".to_string()
            ),
            (
                "tool get_weather".to_string(),
                "fail".to_string(),
                "major".to_string()
            ),
            (
                "tool find_city".to_string(),
                "fail".to_string(),
                "major".to_string()
            ),
        ],
        "{doc:#}"
    );
    let details: Vec<String> = findings(&doc, "weather", "security.catalog_pinning")
        .iter()
        .map(|f| f["detail"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(details[0].contains("annotation flipped: readOnlyHint true → false, destructiveHint false → true (a read-only tool is now destructive)"), "{}", details[0]);
    assert!(details[1].contains("description changed: Get the current weather for a [-city.-]{+city, and remember the city for later.+}"), "{}", details[1]);
    assert!(
        details[2].contains("renamed: `lookup_city` is now `find_city`"),
        "{}",
        details[2]
    );
    assert!(
        md.contains("### Catalogue changes since scout.lock (3)"),
        "{md}"
    );
    assert!(
        md.contains("! [critical] Tool get_forecast: annotation flipped"),
        "{md}"
    );

    let refused = pin(&[]);
    assert_eq!(refused.code, Some(1), "{}", refused.stdout);
    assert!(
        refused.stdout.contains("weather: 3 change(s) not accepted"),
        "{}",
        refused.stdout
    );
    assert_eq!(std::fs::read(&lock).expect("lock"), pinned, "left alone");
    let accepted = pin(&["--update"]);
    assert_eq!(accepted.code, Some(0), "{}", accepted.stderr);
    assert!(
        accepted.stdout.contains("weather: 3 change(s) accepted"),
        "{}",
        accepted.stdout
    );
    assert!(
        accepted
            .stdout
            .contains("[critical] tool get_forecast: annotation flipped"),
        "{}",
        accepted.stdout
    );
    let (r, doc, _) = check("accepted");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        findings(&doc, "weather", "security.catalog_pinning")[0]["status"],
        "pass"
    );
}

#[test]
fn pin_and_lock_errors_are_one_line_with_exit_2() {
    let dir = workspace(None);
    let config = config_file(
        dir.path(),
        &format!(
            "[default]\nlock = \"missing.lock\"\n{}",
            stdio_server("s", "minimal_server.py", "")
        ),
    );
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--config", &s(&config)])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("missing.lock") && r.stderr.contains("scout pin"),
        "{}",
        r.stderr
    );
    let r = Scout::new()
        .dir(dir.path())
        .args(["pin", "nosuch", "--config", &s(&config)])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("`nosuch` is neither a server of the config (it lists s)"),
        "{}",
        r.stderr
    );
    std::fs::write(
        dir.path().join("missing.lock"),
        "version = 1\n[[servers]]\nname = 3\n",
    )
    .expect("write");
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--config", &s(&config)])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("is not a valid scout.lock"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
}

#[test]
fn treat_as_remote_is_a_config_key() {
    let dir = workspace(Some(&format!(
        "[default]\ntreat_as_remote = true\n{}",
        stdio_server("s", "minimal_server.py", "")
    )));
    let r = Scout::new()
        .dir(dir.path())
        .args(["config", "show", "--format", "json"])
        .run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(doc["values"]["treat_as_remote"]["value"], true, "{doc:#}");
}

/// A URL target is pinned under the name `scout check URL` gives it, and only it.
#[test]
fn a_url_target_is_pinned_under_its_host_and_port() {
    let http = crate::common::HttpFixture::start("minimal_server.py");
    let dir = workspace(None);
    let config = config_file(dir.path(), &stdio_server("s", "minimal_server.py", ""));
    let r = Scout::new()
        .args(["pin", &http.url, "--config", &s(&config)])
        .run();
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let name = http
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    assert!(
        r.stdout.contains(&format!(
            "pinned {name}: 2 tools, 1 prompt, 0 resource templates"
        )),
        "{}",
        r.stdout
    );
    let lock = std::fs::read_to_string(dir.path().join("scout.lock")).expect("lock");
    assert!(lock.contains(&format!("name = \"{name}\"")), "{lock}");
    assert!(!lock.contains("name = \"s\""), "only the target: {lock}");
    // The instructions are pinned too (from the 2026-07-28 wire, the one an agent uses).
    assert!(
        lock.contains("instructions = \"A fixture server for scout's tests.\""),
        "{lock}"
    );
}

/// `scout pin` a one-tool catalogue, then `scout check` the server started with `env`:
/// the catalog_pinning findings as (status, detail).
fn pin_then_check(env: &str) -> Vec<(String, String)> {
    let dir = workspace(None);
    let script = "catalog_duplicate_and_examples.py";
    let config = config_file(dir.path(), &stdio_server("runner", script, ""));
    let pin = Scout::new().args(["pin", "--config", &s(&config)]).run();
    assert_eq!(pin.code, Some(0), "{}\n{}", pin.stdout, pin.stderr);
    assert!(pin.stdout.contains("1 tool,"), "{}", pin.stdout);
    config_file(dir.path(), &stdio_server("runner", script, env));
    let json = dir.path().join("r.json");
    let r = Scout::new()
        .args(["check", "--config", &s(&config), "--only", CHECK_PHASES])
        .args(["--json", &s(&json)])
        .run();
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.stderr);
    findings(&report(&json), "runner", "security.catalog_pinning")
        .iter()
        .map(|f| {
            (
                f["status"].as_str().unwrap_or_default().to_string(),
                f["detail"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Before: the lock and the catalogue were compared through a map keyed by tool name, so a
/// second `run` was invisible and the check passed ("matches scout.lock (2 tools)" against
/// a lock of one). The lists are multisets now: the copy is a new tool.
#[test]
fn a_second_tool_under_a_pinned_name_fails_pinning() {
    let f = pin_then_check("stdio_set = { CATALOG = \"doubled\" }");
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].0, "fail", "{f:#?}");
    assert!(
        f[0].1.starts_with("Tool run: added") && f[0].1.contains("2 tools named `run`"),
        "{}",
        f[0].1
    );
    // The correct twin: the same server unchanged matches its lock.
    let f = pin_then_check("");
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].0, "pass", "{f:#?}");
    assert!(f[0].1.contains("(1 tool,"), "{}", f[0].1);
}

/// Before: the catalogue was hashed after the redactor had masked every string under a key
/// such as `code`, so a changed example under `code` hashed like the pinned one and passed.
/// What the server sent is pinned now, and the change fails.
#[test]
fn a_changed_value_under_a_secret_looking_key_fails_pinning() {
    let f = pin_then_check("stdio_set = { CATALOG = \"examples\" }");
    assert!(!f.is_empty(), "{f:#?}");
    assert!(f.iter().all(|(status, _)| status == "fail"), "{f:#?}");
    assert!(
        f.iter()
            .any(|(_, d)| d.starts_with("Tool run: input schema changed: examples")),
        "{f:#?}"
    );
}

/// Before: `security.error_leakage` read only JSON-RPC errors, and those re-encoded (a
/// stack's newlines were `\n` escapes, so no JavaScript frame could match): a server that
/// answers malformed JSON with an HTML page showing its stack and paths passed. The page's
/// text is read now, and the stack is reported (a warn: a text rule).
#[tokio::test]
async fn an_html_stack_trace_on_malformed_json_is_a_leak() {
    let mut spec = crate::phase_fixtures::fixture_http("html_stack_on_parse_error.py");
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Protocol,
        Phase::Security,
    ];
    let r = run(spec).await;
    let leaks: Vec<_> = all(&r, "security.error_leakage");
    let frame = leaks
        .iter()
        .find(|f| f.subject.as_deref() == Some("a JavaScript stack frame"))
        .unwrap_or_else(|| panic!("no JavaScript frame found: {leaks:#?}"));
    assert_eq!(frame.status, Status::Warn);
    let cited: Vec<_> = r
        .exchanges
        .iter()
        .filter(|e| frame.evidence.contains(&e.seq))
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h) => h.response_body.clone(),
            _ => None,
        })
        .collect();
    assert!(
        !cited.is_empty() && cited.iter().all(|b| b.contains("body-parser")),
        "{cited:?}"
    );

    // The correct twin answers the same malformed body with a JSON-RPC parse error.
    let mut spec = crate::phase_fixtures::fixture_http("minimal_server.py");
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Protocol,
        Phase::Security,
    ];
    let r = run(spec).await;
    expect(&r, "security.error_leakage", None, Status::Pass);
}

/// Before: each of these descriptions was a major fail of `security.tool_poisoning` (a
/// kubeconfig path, "reads secrets", a token and a URL in one sentence, an order about
/// "any other tool", a negated warning about API keys), and the Persian, Hindi and emoji
/// names failed `security.hidden_characters` for the joiners they need. All pass now.
#[tokio::test]
async fn ordinary_descriptions_and_languages_are_not_poisoning() {
    let r = run(security_only(crate::phase_fixtures::fixture(
        "ordinary_descriptions.py",
        &[],
    )))
    .await;
    expect(&r, "security.tool_poisoning", None, Status::Pass);
    expect(&r, "security.hidden_characters", None, Status::Pass);
    // The catalogue really was judged: every tool was listed.
    let listed = r
        .exchanges
        .iter()
        .filter_map(|e| match &e.kind {
            ExchangeKind::Stdio(m) => Some(m.line.as_str()),
            _ => None,
        })
        .any(|l| l.contains("pods_list") && l.contains("persian_notes") && l.contains("team"));
    assert!(listed, "the tools were listed");
}
