//! Every verdict earned: fixtures where a pass used to come from nothing (no
//! answer, no exchange, a missing array), where a probe was judged twice, where a resumable
//! stream was taken for a broken call, and where a grade contradicted the spec.

use scout::report::finding::{Era, Phase, SkipReason, Status};
use scout::report::model::ServerReport;
use scout::spec::{ServerSpec, TargetSpec};

use crate::common::closed_port;
use crate::phase_fixtures::{
    all, expect, expect_era, fixture, fixture_http, never, no_fails, only, run, url_spec,
};
use scout::transport::process::ProcessConfig;

/// `spec` with the protocol phase (and with it the whole-run checks) added.
fn with_protocol(mut spec: ServerSpec) -> ServerSpec {
    spec.only.push(Phase::Protocol);
    spec
}

/// Every finding of the report, one line each, for assertion messages.
fn lines(r: &ServerReport) -> String {
    r.findings
        .iter()
        .map(|f| {
            format!(
                "{} {:?} {:?} {:?}: {}",
                f.id, f.era, f.status, f.subject, f.detail
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------- passes nothing earned

#[tokio::test]
async fn tools_list_without_a_tools_array_fails_and_nothing_else_passes_on_it() {
    let r = run(fixture("tools_list_without_array.py", &[])).await;
    let f = expect(&r, "catalog.tools_list", None, Status::Fail);
    assert!(f.detail.contains("no `tools` array"), "{}", f.detail);
    for id in [
        "catalog.tool_schema",
        "catalog.tool_names",
        "catalog.annotations",
        "catalog.descriptions",
    ] {
        let f = expect(&r, id, None, Status::Skip);
        assert_eq!(f.skip_reason, Some(SkipReason::NotAssessed), "{id}");
    }
    never(&r, "catalog.tools_list", Status::Pass);
}

#[tokio::test]
async fn a_notification_post_without_any_status_is_never_a_pass() {
    let r = run(with_protocol(fixture_http("notification_post_dropped.py"))).await;
    let f = expect_era(
        &r,
        "handshake.initialized",
        None,
        Some(Era::Legacy),
        Status::Fail,
    );
    assert!(f.detail.contains("202"), "{}", f.detail);
    let f = expect(&r, "protocol.notification", None, Status::Fail);
    assert!(f.detail.contains("no HTTP status"), "{}", f.detail);
    never(&r, "protocol.notification", Status::Pass);
    // Over stdio the same fixture is correct: silence is the right answer there.
    let r = run(with_protocol(fixture("notification_post_dropped.py", &[]))).await;
    expect(&r, "protocol.notification", None, Status::Pass);
    expect_era(
        &r,
        "handshake.initialized",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
}

#[tokio::test]
async fn header_cases_that_crash_the_server_are_not_accepted() {
    let r = run(with_protocol(fixture_http("header_values_crash.py"))).await;
    let f = expect_era(
        &r,
        "protocol.header_encoding",
        None,
        Some(Era::Modern),
        Status::Fail,
    );
    assert!(f.detail.contains("no JSON-RPC answer"), "{}", f.detail);
    let f = expect_era(
        &r,
        "protocol.routing_headers",
        None,
        Some(Era::Modern),
        Status::Fail,
    );
    assert!(f.detail.contains("whitespace"), "{}", f.detail);
}

#[tokio::test]
async fn tls_is_not_passed_from_the_url_scheme() {
    let url = format!("https://127.0.0.1:{}/mcp", closed_port());
    let spec = url_spec("tls", url);
    let r = run(only(spec, &[Phase::Discovery])).await;
    expect(&r, "discovery.reachable", None, Status::Fail);
    let f = expect(&r, "discovery.tls", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotAssessed));
    never(&r, "discovery.tls", Status::Pass);
}

#[tokio::test]
async fn stdout_clean_needs_stdout_lines() {
    let spec = ServerSpec::new(
        "false",
        TargetSpec::Stdio(ProcessConfig {
            command: vec!["false".into()],
            env_forward: vec![],
            env_set: vec![],
            dir: None,
        }),
    );
    let r = run(spec).await;
    // A process that never ran is an observation without an exchange.
    assert!(
        all(&r, "stdio.process")
            .iter()
            .any(|f| f.status == Status::Fail),
        "{}",
        lines(&r)
    );
    let f = expect(&r, "stdio.stdout_clean", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotAssessed));
    // A server that did write lines earns the pass, citing them.
    let r = run(fixture("minimal_server.py", &[])).await;
    let f = expect(&r, "stdio.stdout_clean", None, Status::Pass);
    assert!(f.evidence.len() > 1, "{f:?}");
}

// ---------------------------------------------------------------- judged twice / resumable

#[tokio::test]
async fn a_served_null_id_is_judged_by_null_id_only() {
    for spec in [
        fixture("null_id_served.py", &[]),
        fixture_http("null_id_served.py"),
    ] {
        let r = run(with_protocol(spec)).await;
        expect(&r, "protocol.null_id", None, Status::Warn);
        let twice: Vec<_> = all(&r, "protocol.wire_schema")
            .into_iter()
            .filter(|f| f.status != Status::Pass && f.detail.contains("id null"))
            .collect();
        assert!(twice.is_empty(), "{twice:#?}");
        expect(&r, "protocol.wire_schema", None, Status::Pass);
    }
}

#[tokio::test]
async fn a_stream_closed_before_the_response_is_resumed() {
    // Every handshake-era request after initialize closes its stream early and is resumed
    // with GET + Last-Event-ID: a correct server, so no false failure anywhere.
    let mut spec = fixture_http("sse_resumable.py");
    spec.only = Vec::new();
    let r = run(spec).await;
    let fails: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.status == Status::Fail)
        .collect();
    assert!(fails.is_empty(), "{}", lines(&r));
    let f = expect_era(&r, "protocol.sse", None, Some(Era::Legacy), Status::Pass);
    assert!(f.detail.contains("Last-Event-ID"), "{}", f.detail);
    expect_era(
        &r,
        "execution.tool_call",
        Some("echo"),
        Some(Era::Legacy),
        Status::Pass,
    );
    expect(&r, "catalog.tools_list", None, Status::Pass);
}

#[tokio::test]
async fn a_stream_that_cannot_be_resumed_is_reported() {
    let r = run(fixture_http("sse_not_resumable.py")).await;
    let f = expect_era(
        &r,
        "execution.tool_call",
        Some("echo"),
        Some(Era::Legacy),
        Status::Fail,
    );
    assert!(
        f.detail.contains("405") && f.detail.contains("Last-Event-ID"),
        "{}",
        f.detail
    );
    // The cited exchanges include the refused GET.
    assert!(f.evidence.len() >= 2, "{f:?}");
    expect_era(
        &r,
        "execution.tool_call",
        Some("echo"),
        Some(Era::Modern),
        Status::Pass,
    );
}

#[tokio::test]
async fn accepting_a_batch_after_2025_06_18_warns_and_2024_11_05_is_described() {
    let r = run(with_protocol(fixture("batch_accepted.py", &[]))).await;
    let f = expect(&r, "protocol.batch", None, Status::Warn);
    assert!(f.detail.contains("2025-06-18 removed"), "{}", f.detail);
    let r = run(with_protocol(fixture("batch_2024_11_05.py", &[]))).await;
    let f = expect(&r, "protocol.batch", None, Status::Info);
    assert!(
        f.detail.contains("does not define batching") && !f.detail.contains("2024-11-05 removed"),
        "{}",
        f.detail
    );
}

// ---------------------------------------------------------------- grades per the spec

#[tokio::test]
async fn a_discover_result_without_server_info_warns() {
    let r = run(fixture("discover_without_server_info.py", &[])).await;
    expect_era(
        &r,
        "handshake.server_info",
        None,
        Some(Era::Modern),
        Status::Warn,
    );
    expect_era(
        &r,
        "handshake.server_info",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
    never(&r, "handshake.server_info", Status::Fail);
}

#[tokio::test]
async fn a_modern_tool_result_without_content_fails_both_checks() {
    let r = run(with_protocol(fixture("bad_call_results.py", &[]))).await;
    expect_era(
        &r,
        "execution.tool_call",
        Some("structured_only"),
        Some(Era::Modern),
        Status::Fail,
    );
    let f = expect_era(
        &r,
        "protocol.wire_schema",
        Some("CallToolResult /result: \"content\" is a required property"),
        Some(Era::Modern),
        Status::Fail,
    );
    assert!(!f.evidence.is_empty());
}

#[tokio::test]
async fn pre_ga_error_codes_warn() {
    let r = run(with_protocol(fixture("draft_error_code.py", &[]))).await;
    let f = expect_era(
        &r,
        "protocol.error_codes",
        None,
        Some(Era::Modern),
        Status::Warn,
    );
    assert!(f.detail.contains("-32001"), "{}", f.detail);
}

#[tokio::test]
async fn the_correct_fixture_fails_nothing_in_any_phase() {
    for mut spec in [
        fixture("minimal_server.py", &[]),
        fixture_http("minimal_server.py"),
    ] {
        spec.only = Vec::new();
        let r = run(spec).await;
        no_fails(&r, "");
    }
}

/// Previously an empty `serverInfo.version` passed `handshake.server_info` ("mcpfixture "):
/// the schema requires the string, and an empty one names no build, so it warns on both
/// wires. The twin (minimal_server.py, version "0.1.0") passes.
#[tokio::test]
async fn an_empty_server_version_warns() {
    let r = run(only(
        fixture("empty_server_version.py", &[]),
        &[Phase::Discovery, Phase::Handshake],
    ))
    .await;
    let f = expect(&r, "handshake.server_info", None, Status::Warn);
    assert!(f.detail.contains("empty version"), "{}", f.detail);
    let twin = run(only(
        fixture("minimal_server.py", &[]),
        &[Phase::Discovery, Phase::Handshake],
    ))
    .await;
    expect(&twin, "handshake.server_info", None, Status::Pass);
}
