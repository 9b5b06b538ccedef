//! `handshake.version_negotiation` against fixture servers: a negotiated version that names
//! no published revision fails (handshake era) or warns (a 2026-07-28 version list).

use scout::report::exchange::ExchangeKind;
use scout::report::finding::{Era, Status};

use crate::phase_fixtures::{expect, fixture, never, run};

#[tokio::test]
async fn correct_fixture_negotiates_real_revisions() {
    let r = run(fixture("minimal_server.py", &[])).await;
    expect(&r, "handshake.version_negotiation", None, Status::Pass);
    never(&r, "handshake.version_negotiation", Status::Fail);
    never(&r, "handshake.version_negotiation", Status::Warn);
}

#[tokio::test]
async fn a_made_up_negotiated_version_fails() {
    let r = run(fixture("made_up_version.py", &[])).await;
    let legacy = r
        .findings
        .iter()
        .find(|f| f.id == "handshake.version_negotiation" && f.era == Some(Era::Legacy))
        .expect("the handshake-era negotiation was judged");
    assert_eq!(legacy.status, Status::Fail, "{}", legacy.detail);
    // The finding quotes what was asked for and what came back, and cites both initializes.
    assert!(
        legacy.detail.contains("\"2025-11-25\"") && legacy.detail.contains("\"2025-99-99\""),
        "{}",
        legacy.detail
    );
    let initializes = r
        .exchanges
        .iter()
        .filter(|e| {
            matches!(&e.kind, ExchangeKind::Stdio(m) if m.method.as_deref() == Some("initialize"))
        })
        .map(|e| e.seq)
        .collect::<Vec<_>>();
    assert!(
        initializes.len() >= 2
            && initializes
                .iter()
                .take(2)
                .all(|s| legacy.evidence.contains(s)),
        "{initializes:?} {:?}",
        legacy.evidence
    );
    let modern = r
        .findings
        .iter()
        .find(|f| f.id == "handshake.version_negotiation" && f.era == Some(Era::Modern))
        .expect("the 2026-07-28 negotiation was judged");
    assert_eq!(modern.status, Status::Warn, "{}", modern.detail);
    assert!(
        modern.detail.contains("\"2026-13-45\""),
        "{}",
        modern.detail
    );
}

/// `initialize_answers_modern.py` over HTTP, answering `initialize` with `answer`.
fn answers_modern(answer: &str) -> scout::spec::ServerSpec {
    crate::phase_fixtures::fixture_http_env("initialize_answers_modern.py", &[("ANSWER", answer)])
}

/// Previously: `initialize` answered with "2026-07-28" failed `handshake.version_negotiation`,
/// and scout went on to run a 2025-11-25 session on that answer all the same (its catalogue,
/// its tool calls). No handshake session can exist at 2026-07-28: nothing is built on the
/// failed answer, and a server that speaks no other era is not probed further.
#[tokio::test]
async fn initialize_answered_with_2026_07_28_fails_and_nothing_is_built_on_it() {
    let r = run(answers_modern("2026-07-28")).await;
    let f = expect(&r, "handshake.version_negotiation", None, Status::Fail);
    assert!(
        f.detail.contains("\"2026-07-28\"") && f.detail.contains("builds no handshake session"),
        "{}",
        f.detail
    );
    assert!(r.blocked.is_some(), "the run went on: {:?}", r.blocked);
    assert_eq!(methods_sent(&r, "tools/"), 0);
}

/// The same answer from a server that also speaks 2026-07-28 (as the official suite's
/// client-mode mocks do): the run goes on on the 2026-07-28 wire alone, and no request of
/// a handshake session follows the failed answer.
#[tokio::test]
async fn a_dual_server_answering_initialize_with_2026_07_28_is_probed_on_2026_07_28_only() {
    let r = run(crate::phase_fixtures::fixture_http_env(
        "initialize_answers_modern.py",
        &[("ANSWER", "2026-07-28"), ("SPEAKS_MODERN", "1")],
    ))
    .await;
    let f = expect(&r, "handshake.version_negotiation", None, Status::Fail);
    assert!(
        f.detail.contains("builds no handshake session"),
        "{}",
        f.detail
    );
    assert!(r.blocked.is_none(), "{:?}", r.blocked);
    assert_eq!(r.era, scout::report::model::EraKind::Modern);
    // Every tools/ request carries the 2026-07-28 envelope: none went to a handshake session.
    let legacy_tools = r
        .exchanges
        .iter()
        .filter(|e| match &e.kind {
            ExchangeKind::Http(h) => h.request_body.as_deref().is_some_and(|b| {
                b.contains("\"tools/") && !b.contains("io.modelcontextprotocol/protocolVersion")
            }),
            _ => false,
        })
        .count();
    assert_eq!(legacy_tools, 0);
    expect(&r, "execution.tool_call", Some("echo"), Status::Pass);
}

/// How many requests whose method starts with `prefix` scout sent over HTTP.
fn methods_sent(r: &scout::report::model::ServerReport, prefix: &str) -> usize {
    r.exchanges
        .iter()
        .filter(|e| match &e.kind {
            ExchangeKind::Http(h) => h
                .request_body
                .as_deref()
                .is_some_and(|b| b.contains(&format!("\"method\":\"{prefix}"))),
            _ => false,
        })
        .count()
}

/// The correct twin: the same server echoing the handshake revision it was offered.
#[tokio::test]
async fn initialize_answered_with_a_handshake_revision_passes() {
    let r = run(answers_modern("2025-11-25")).await;
    expect(&r, "handshake.version_negotiation", None, Status::Pass);
    never(&r, "handshake.version_negotiation", Status::Fail);
    crate::phase_fixtures::no_fails(&r, "handshake.");
    expect(&r, "catalog.tools_list", None, Status::Pass);
}
