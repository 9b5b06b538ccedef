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

/// The request headers of every HTTP exchange, lower-cased names.
fn request_headers(r: &scout::report::model::ServerReport) -> Vec<Vec<(String, String)>> {
    r.exchanges
        .iter()
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h) => Some(
                h.request_headers
                    .iter()
                    .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// Previously: `initialize` answered with "2026-07-28" passed
/// `handshake.version_negotiation`, and scout ran the session with
/// `MCP-Protocol-Version: 2026-07-28` on handshake framing (no `Mcp-Method`), which this
/// server refuses, so every later check failed against scout's own mix-up.
#[tokio::test]
async fn initialize_answered_with_2026_07_28_fails_and_the_session_stays_legacy() {
    let r = run(answers_modern("2026-07-28")).await;
    let f = expect(&r, "handshake.version_negotiation", None, Status::Fail);
    assert!(
        f.detail.contains("\"2026-07-28\"") && f.detail.contains("kept the session at 2025-11-25"),
        "{}",
        f.detail
    );
    // The session runs at the version scout offered: no request mixes the 2026 header with
    // handshake framing.
    let mixed: Vec<_> = request_headers(&r)
        .into_iter()
        .filter(|h| {
            h.iter()
                .any(|(k, v)| k == "mcp-protocol-version" && v == "2026-07-28")
                && !h.iter().any(|(k, _)| k == "mcp-method")
        })
        .collect();
    assert!(mixed.is_empty(), "{mixed:#?}");
    // …so the server serves the session, and the catalogue is judged on what it sent.
    expect(&r, "catalog.tools_list", None, Status::Pass);
    expect(&r, "execution.tool_call", Some("echo"), Status::Pass);
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
