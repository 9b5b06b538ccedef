//! The protocol phase against fixture servers: for each check, a fixture where it passes
//! and one where it fails, asserting the check id, the status, and that the cited exchanges
//! exist and show the behaviour.

use scout::probe::run_server;
use scout::report::exchange::{Exchange, ExchangeKind};
use scout::report::finding::{Era, Finding, Phase, SkipReason, Status};
use scout::report::model::ServerReport;
use scout::spec::ServerSpec;
use scout::spec::TargetSpec;

use crate::common::{HttpFixture, stdio_command};
use scout::transport::process::ProcessConfig;

/// Runs discovery, handshake and protocol (the phases the protocol phase depends on).
async fn check(target: TargetSpec) -> ServerReport {
    let mut spec = ServerSpec::new("fixture", target);
    spec.timeout = std::time::Duration::from_secs(5);
    spec.only = vec![
        Phase::Discovery,
        Phase::Auth,
        Phase::Handshake,
        Phase::Protocol,
    ];
    let (_tx, rx) = tokio::sync::watch::channel(false);
    run_server(spec, rx).await
}

async fn http(name: &str) -> ServerReport {
    let server = HttpFixture::start(name);
    let report = check(TargetSpec::Http {
        url: server.url.clone(),
        headers: vec![],
        auth: Default::default(),
        start: None,
    })
    .await;
    drop(server);
    report
}

async fn stdio(name: &str) -> ServerReport {
    check(TargetSpec::Stdio(ProcessConfig {
        command: stdio_command(name),
        env_forward: vec![],
        env_set: vec![],
        dir: None,
    }))
    .await
}

/// The finding `id` on the wire of `era`; panics with the report's findings when absent.
fn finding<'a>(r: &'a ServerReport, id: &str, era: Era) -> &'a Finding {
    r.findings
        .iter()
        // The run's own wire (the revision matrix's findings name their revision).
        .find(|f| f.id == id && f.era.is_none_or(|e| e == era) && f.revision.is_none())
        .unwrap_or_else(|| {
            let have: Vec<String> = r
                .findings
                .iter()
                .map(|f| format!("{} {:?} {:?}", f.id, f.era, f.status))
                .collect();
            panic!("no {id} for {era:?}; findings: {have:#?}")
        })
}

/// The exchanges a finding cites (every cited seq must exist).
fn cited<'a>(r: &'a ServerReport, f: &Finding) -> Vec<&'a Exchange> {
    f.evidence
        .iter()
        .map(|seq| {
            r.exchanges
                .iter()
                .find(|e| e.seq == *seq)
                .unwrap_or_else(|| panic!("{} cites req#{seq}, which was not recorded", f.id))
        })
        .collect()
}

/// Asserts the status, non-empty evidence (for pass/warn/fail) and returns the finding.
fn expect<'a>(r: &'a ServerReport, id: &str, era: Era, status: Status) -> &'a Finding {
    let f = finding(r, id, era);
    assert_eq!(f.status, status, "{id} ({era:?}): {}", f.detail);
    if matches!(status, Status::Pass | Status::Warn | Status::Fail) {
        assert!(!f.evidence.is_empty(), "{id} cites no exchange");
        let _ = cited(r, f);
    }
    f
}

/// Text of the cited exchanges (request and response bodies, headers), for content checks.
fn cited_text(r: &ServerReport, f: &Finding) -> String {
    cited(r, f)
        .into_iter()
        .map(|e| match &e.kind {
            ExchangeKind::Http(h) => format!(
                "{} {:?} {:?} {} {}",
                h.method,
                h.status,
                h.request_headers,
                h.request_body.clone().unwrap_or_default(),
                h.response_body.clone().unwrap_or_default()
            ),
            ExchangeKind::Stdio(m) => m.line.clone(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn correct_fixture_over_http_passes_both_eras() {
    let r = http("mcpfixture.py").await;
    for era in [Era::Legacy, Era::Modern] {
        for id in [
            "protocol.jsonrpc_ids",
            "protocol.parse_error",
            "protocol.invalid_request",
            "protocol.unknown_method",
            "protocol.notification",
            "protocol.null_id",
            "protocol.batch",
            "protocol.accept_header",
            "protocol.content_type",
            "protocol.version_header",
            "protocol.wire_schema",
        ] {
            expect(&r, id, era, Status::Pass);
        }
    }
    expect(&r, "protocol.bogus_session", Era::Legacy, Status::Pass);
    // "Ignore Mcp-Session-Id" binds a server that supports only 2026-07-28; this one keeps
    // sessions for its handshake-era clients.
    let f = expect(&r, "protocol.bogus_session", Era::Modern, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
    expect(&r, "protocol.get_stream", Era::Legacy, Status::Pass);
    expect(&r, "protocol.delete", Era::Legacy, Status::Pass);
    for id in [
        "protocol.routing_headers",
        "protocol.header_encoding",
        "protocol.meta_required",
        "protocol.result_type",
        "protocol.cache_hints",
        "protocol.error_codes",
    ] {
        expect(&r, id, Era::Modern, Status::Pass);
    }
    let f = expect(&r, "protocol.param_headers", Era::Modern, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
    let f = expect(&r, "protocol.unknown_method", Era::Modern, Status::Pass);
    assert!(cited_text(&r, f).contains("Some(404)"));
}

#[tokio::test]
async fn correct_fixture_over_stdio_passes() {
    let r = stdio("mcpfixture.py").await;
    for era in [Era::Legacy, Era::Modern] {
        for id in [
            "protocol.jsonrpc_ids",
            "protocol.parse_error",
            "protocol.invalid_request",
            "protocol.unknown_method",
            "protocol.notification",
            "protocol.null_id",
            "protocol.batch",
            "protocol.wire_schema",
        ] {
            expect(&r, id, era, Status::Pass);
        }
        for id in [
            "protocol.accept_header",
            "protocol.get_stream",
            "protocol.bogus_session",
        ] {
            let f = expect(&r, id, era, Status::Skip);
            assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
        }
    }
    expect(&r, "protocol.meta_required", Era::Modern, Status::Pass);
}

#[tokio::test]
async fn bogus_session_accepted_fails() {
    let r = http("bogus_session_accepted.py").await;
    let f = expect(&r, "protocol.bogus_session", Era::Legacy, Status::Fail);
    assert!(cited_text(&r, f).contains("scout-never-issued"));
}

#[tokio::test]
async fn header_mismatch_ignored_fails_routing_and_encoding() {
    let r = http("header_mismatch_ignored.py").await;
    let f = expect(&r, "protocol.routing_headers", Era::Modern, Status::Fail);
    assert!(cited_text(&r, f).contains("Some(200)"));
    expect(&r, "protocol.header_encoding", Era::Modern, Status::Fail);
    // The mismatching body version is unsupported here, so -32022 is a correct answer.
    expect(&r, "protocol.version_header", Era::Modern, Status::Pass);
}

#[tokio::test]
async fn version_mismatch_served_fails_version_header() {
    let r = http("version_mismatch_served.py").await;
    let f = expect(&r, "protocol.version_header", Era::Modern, Status::Fail);
    assert!(cited_text(&r, f).contains("1900-01-01"));
}

#[tokio::test]
async fn ids_stringified_fails() {
    let r = stdio("ids_stringified.py").await;
    let f = expect(&r, "protocol.jsonrpc_ids", Era::Legacy, Status::Fail);
    assert!(cited_text(&r, f).contains("\"7007\""));
}

#[tokio::test]
async fn parse_error_dropped_warns_and_crash_fails() {
    let r = stdio("parse_error_dropped.py").await;
    expect(&r, "protocol.parse_error", Era::Legacy, Status::Warn);
    // The crash fails the wire whose malformed line caused it; the other wire's probe went
    // to a dead process and is not assessed (it once failed on the broken pipe).
    let r = stdio("parse_error_crashes.py").await;
    let (a, b) = (
        finding(&r, "protocol.parse_error", Era::Modern),
        finding(&r, "protocol.parse_error", Era::Legacy),
    );
    let (crash, after) = if a.status == Status::Fail {
        (a, b)
    } else {
        (b, a)
    };
    assert_eq!(crash.status, Status::Fail, "{}", crash.detail);
    assert!(!crash.evidence.is_empty());
    assert_eq!(after.status, Status::Skip, "{}", after.detail);
    assert!(
        after.detail.contains("the server exited after req#"),
        "{}",
        after.detail
    );
}

#[tokio::test]
async fn notification_answered_fails() {
    let r = http("notification_answered.py").await;
    let f = expect(&r, "protocol.notification", Era::Legacy, Status::Fail);
    assert!(cited_text(&r, f).contains("notifications/scout-probe"));
    let r = stdio("notification_answered.py").await;
    expect(&r, "protocol.notification", Era::Legacy, Status::Fail);
}

#[tokio::test]
async fn unknown_method_200_fails_in_2026() {
    let r = http("unknown_method_200.py").await;
    expect(&r, "protocol.unknown_method", Era::Modern, Status::Fail);
    expect(&r, "protocol.unknown_method", Era::Legacy, Status::Pass);
}

#[tokio::test]
async fn meta_not_required_fails() {
    let r = stdio("meta_not_required.py").await;
    expect(&r, "protocol.meta_required", Era::Modern, Status::Fail);
}

#[tokio::test]
async fn bare_results_fail_result_type_and_cache_hints() {
    let r = http("bare_results.py").await;
    expect(&r, "protocol.result_type", Era::Modern, Status::Fail);
    expect(&r, "protocol.cache_hints", Era::Modern, Status::Fail);
}

#[tokio::test]
async fn retired_error_code_fails() {
    let r = http("retired_error_code.py").await;
    let f = expect(&r, "protocol.error_codes", Era::Modern, Status::Fail);
    assert!(cited_text(&r, f).contains("-32042"));
}

#[tokio::test]
async fn invalid_request_served_fails() {
    let r = stdio("invalid_request_served.py").await;
    expect(&r, "protocol.invalid_request", Era::Legacy, Status::Fail);
}

#[tokio::test]
async fn null_id_served_warns() {
    // The spec's rule binds the sender; scout grades the server's reaction as a SHOULD.
    let r = stdio("null_id_served.py").await;
    expect(&r, "protocol.null_id", Era::Legacy, Status::Warn);
}

#[tokio::test]
async fn batch_per_revision() {
    let r = stdio("batch_2025_03_26_supported.py").await;
    expect(&r, "protocol.batch", Era::Legacy, Status::Pass);
    let r = stdio("batch_2025_03_26_rejected.py").await;
    expect(&r, "protocol.batch", Era::Legacy, Status::Fail);
    let r = stdio("batch_half_processed.py").await;
    expect(&r, "protocol.batch", Era::Legacy, Status::Warn);
}

#[tokio::test]
async fn content_type_html_fails_accept_and_content_type() {
    let r = http("content_type_html.py").await;
    expect(&r, "protocol.content_type", Era::Legacy, Status::Fail);
    expect(&r, "protocol.accept_header", Era::Legacy, Status::Fail);
}

/// Previously a labelled plain-text rejection (rmcp's transport errors) warned: the spec
/// lets the body of a rejected request be anything (a JSON-RPC error is a MAY), so it is
/// reported in the pass, not judged.
#[tokio::test]
async fn plain_text_errors_are_reported_not_judged() {
    let r = http("plain_text_errors.py").await;
    let f = expect(&r, "protocol.content_type", Era::Legacy, Status::Pass);
    assert!(f.detail.contains("text/plain"), "{}", f.detail);
}

/// Previously `protocol.content_type` held a properly labelled HTML error page (400,
/// `text/html`, to malformed JSON) against the server, counting the exchange
/// `protocol.parse_error` judges. The rejection is now reported, not judged or cited.
#[tokio::test]
async fn a_labelled_html_error_page_is_not_a_content_type_defect() {
    let r = http("html_error_page.py").await;
    let f = expect(&r, "protocol.content_type", Era::Legacy, Status::Pass);
    assert!(f.detail.contains("text/html"), "{}", f.detail);
    assert!(
        cited(&r, f).iter().all(|e| match &e.kind {
            ExchangeKind::Http(h) => h.status.is_some_and(|s| (200..300).contains(&s)),
            _ => false,
        }),
        "content_type cites only served requests"
    );
    // The twin answers everything in JSON and passes the same way.
    let twin = http("minimal_server.py").await;
    let f = expect(&twin, "protocol.content_type", Era::Legacy, Status::Pass);
    assert!(!f.detail.contains("rejected"), "{}", f.detail);
}

#[tokio::test]
async fn get_stream_400_fails() {
    let r = http("get_stream_400.py").await;
    let f = expect(&r, "protocol.get_stream", Era::Legacy, Status::Fail);
    assert!(cited_text(&r, f).starts_with("GET"));
}

#[tokio::test]
async fn delete_keeps_session_fails() {
    let r = http("delete_keeps_session.py").await;
    expect(&r, "protocol.delete", Era::Legacy, Status::Fail);
}

#[tokio::test]
async fn version_header_ignored_fails() {
    let r = http("version_header_ignored.py").await;
    let f = expect(&r, "protocol.version_header", Era::Legacy, Status::Fail);
    assert!(cited_text(&r, f).contains("banana"));
}

#[tokio::test]
async fn param_headers_enforced_and_ignored() {
    let r = http("param_header_enforced.py").await;
    expect(&r, "protocol.param_headers", Era::Modern, Status::Pass);
    let r = http("param_header_ignored.py").await;
    let f = expect(&r, "protocol.param_headers", Era::Modern, Status::Fail);
    assert_eq!(f.subject.as_deref(), Some("forecast"));
}

#[tokio::test]
async fn sse_streams_clean_and_with_server_request() {
    let r = http("sse_clean.py").await;
    expect(&r, "protocol.sse", Era::Modern, Status::Pass);
    let r = http("sse_server_request.py").await;
    let f = expect(&r, "protocol.sse", Era::Modern, Status::Fail);
    assert!(cited_text(&r, f).contains("roots/list"));
    // 2025-11-25 allows server requests on a response stream before the response (MAY).
    let f = expect(&r, "protocol.sse", Era::Legacy, Status::Pass);
    assert!(f.detail.contains("roots/list"), "{}", f.detail);
}

#[tokio::test]
async fn tool_without_schema_fails_wire_schema() {
    let r = http("tool_without_schema.py").await;
    let f = r
        .findings
        .iter()
        .find(|f| f.id == "protocol.wire_schema" && f.status == Status::Fail)
        .expect("a wire_schema failure");
    assert!(f.detail.contains("inputSchema"), "{}", f.detail);
    assert!(cited_text(&r, f).contains("broken"));
}

async fn http_env(name: &str, env: &[(&str, &str)]) -> ServerReport {
    let server = HttpFixture::start_with_env(name, env);
    let report = check(TargetSpec::Http {
        url: server.url.clone(),
        headers: vec![],
        auth: Default::default(),
        start: None,
    })
    .await;
    drop(server);
    report
}

async fn stdio_env(name: &str, env: &[(&str, &str)]) -> ServerReport {
    check(TargetSpec::Stdio(ProcessConfig {
        command: stdio_command(name),
        env_forward: vec![],
        env_set: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        dir: None,
    }))
    .await
}

/// The findings of `r` that cite exchange `seq` and cost something (a fail or a warn).
fn charged_for(r: &ServerReport, seq: u64) -> Vec<&str> {
    r.findings
        .iter()
        .filter(|f| matches!(f.status, Status::Fail | Status::Warn))
        .filter(|f| f.evidence.contains(&seq))
        .map(|f| f.id.as_str())
        .collect()
}

/// An ended or never-issued session answered with 400 instead of 404 is one defect: it is
/// charged to `protocol.bogus_session` alone; `protocol.delete` (whose DELETE did end the
/// session) and `protocol.jsonrpc_ids` (its id-less error body) pass and name it as context.
/// It used to fail the first two and warn the third, so one wrong answer cost the protocol
/// category 60 points. The twin answers 404 and passes all three.
#[tokio::test]
async fn unknown_session_400_is_charged_once() {
    let r = http("unknown_session_400.py").await;
    let bogus = expect(&r, "protocol.bogus_session", Era::Legacy, Status::Fail);
    assert!(
        bogus.detail.contains("an ended session id got"),
        "{}",
        bogus.detail
    );
    let del = expect(&r, "protocol.delete", Era::Legacy, Status::Pass);
    assert!(
        del.detail.contains("protocol.bogus_session"),
        "{}",
        del.detail
    );
    // Its error bodies carry no id member: named by protocol.jsonrpc_ids, not charged again.
    let ids = expect(&r, "protocol.jsonrpc_ids", Era::Legacy, Status::Pass);
    assert!(ids.detail.contains("already charged"), "{}", ids.detail);
    for seq in &bogus.evidence {
        let charged = charged_for(&r, *seq);
        assert_eq!(charged, ["protocol.bogus_session"], "req#{seq}");
    }
    let twin = http_env(
        "unknown_session_400.py",
        &[("SCOUT_FIXTURE_SESSION_404", "1")],
    )
    .await;
    expect(&twin, "protocol.bogus_session", Era::Legacy, Status::Pass);
    expect(&twin, "protocol.delete", Era::Legacy, Status::Pass);
    expect(&twin, "protocol.jsonrpc_ids", Era::Legacy, Status::Pass);
}

/// The other half of the same rule: an ended session that is still served is charged to
/// `protocol.delete` alone; `protocol.bogus_session` judges only the never-issued id (404
/// here) and names the served one as context.
#[tokio::test]
async fn ended_session_still_served_is_charged_once() {
    let r = http("delete_keeps_session.py").await;
    let del = expect(&r, "protocol.delete", Era::Legacy, Status::Fail);
    let bogus = expect(&r, "protocol.bogus_session", Era::Legacy, Status::Pass);
    assert!(bogus.detail.contains("protocol.delete"), "{}", bogus.detail);
    for seq in &del.evidence {
        assert_eq!(charged_for(&r, *seq), ["protocol.delete"], "req#{seq}");
    }
}

/// "Ignore Mcp-Session-Id" is asked of a server that supports only 2026-07-28. A dual-era
/// server that answers an unknown session id with 404 -32001 on both wires keeps its
/// handshake-era clients' sessions as it must; its modern wire used to warn under
/// `protocol.bogus_session` and `protocol.error_codes`. The same server speaking 2026-07-28
/// alone still warns under both.
#[tokio::test]
async fn session_header_rule_applies_to_modern_only_servers() {
    let r = http("sessions_on_both_wires.py").await;
    let f = finding(&r, "protocol.bogus_session", Era::Modern);
    assert_eq!(f.status, Status::Skip, "{}", f.detail);
    assert!(f.detail.to_lowercase().contains("dual-era"), "{}", f.detail);
    expect(&r, "protocol.bogus_session", Era::Legacy, Status::Pass);
    let codes = finding(&r, "protocol.error_codes", Era::Modern);
    assert!(
        !matches!(codes.status, Status::Fail | Status::Warn),
        "{:?}: {}",
        codes.status,
        codes.detail
    );
    let alone = http_env(
        "sessions_on_both_wires.py",
        &[("SCOUT_FIXTURE_MODERN_ONLY", "1")],
    )
    .await;
    expect(&alone, "protocol.bogus_session", Era::Modern, Status::Warn);
    let codes = expect(&alone, "protocol.error_codes", Era::Modern, Status::Warn);
    assert!(codes.detail.contains("-32001"), "{}", codes.detail);
}

/// JSON-RPC pairs a response with its request by id: a batch answered after the request
/// sent behind it is answered all the same. It used to be judged "no answer to the batch"
/// (a fail at 2025-03-26) whenever the late reply came after the follow-up's; the twin
/// answers in order. Both pass, in every run.
#[tokio::test]
async fn batch_answered_late_is_matched_by_id() {
    for _ in 0..3 {
        let r = stdio("batch_answered_late.py").await;
        let f = expect(&r, "protocol.batch", Era::Legacy, Status::Pass);
        assert!(f.detail.contains("both responses"), "{}", f.detail);
        let twin = stdio_env("batch_answered_late.py", &[("SCOUT_FIXTURE_IN_ORDER", "1")]).await;
        expect(&twin, "protocol.batch", Era::Legacy, Status::Pass);
    }
}
