//! `handshake.version_negotiation` against fixture servers: a negotiated version that names
//! no published revision fails (handshake era) or warns (a 2026-07-28 version list).

use scout::report::finding::{Era, Status};
use scout::telemetry::ExchangeKind;

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
