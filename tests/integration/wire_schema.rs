//! `protocol.wire_schema` against the official schemas: `content_shapes.py` breaks them in the
//! ways the hand-written rules missed, on both wires and both eras, each violation named down
//! to the offending element; its valid twin passes; and a server that negotiates 2025-03-26
//! has its numeric tool title judged by that revision's schema (whose Tool has no title).

use scout::report::finding::Phase;
use scout::report::finding::{Era, Finding, Status};
use scout::report::model::ServerReport;

use crate::phase_fixtures::{all, fixture, fixture_http_env, run};

/// Each defect of the fixture: the pointer (under `/result`) and a word of its account.
const BREACHES: [(&str, &str); 5] = [
    ("/content/1/annotations/priority", "maximum"),
    ("/content/1/annotations/audience/0", "robot"),
    ("/content/1/resource", "uri"),
    ("/content/1", "hologram"),
    ("/tools/2/title", "string"),
];

async fn shapes(http: bool, env: &[(&str, &str)]) -> ServerReport {
    let mut spec = if http {
        fixture_http_env("content_shapes.py", env)
    } else {
        let env: Vec<(&str, String)> = env.iter().map(|(k, v)| (*k, v.to_string())).collect();
        fixture("content_shapes.py", &env)
    };
    spec.only.push(Phase::Protocol);
    run(spec).await
}

fn schema_fails(r: &ServerReport) -> Vec<&Finding> {
    all(r, "protocol.wire_schema")
        .into_iter()
        .filter(|f| f.status == Status::Fail)
        .collect()
}

fn found<'a>(fails: &[&'a Finding], era: Era, pointer: &str, word: &str) -> Option<&'a Finding> {
    fails.iter().copied().find(|f| {
        f.era == Some(era)
            && f.detail.contains(&format!("/result{pointer}"))
            && f.detail.contains(word)
    })
}

#[tokio::test]
async fn schema_violations_are_caught_on_both_wires_with_their_pointer() {
    for http in [false, true] {
        let r = shapes(http, &[]).await;
        let fails = schema_fails(&r);
        for era in [Era::Legacy, Era::Modern] {
            for (pointer, word) in BREACHES {
                let f = found(&fails, era, pointer, word).unwrap_or_else(|| {
                    panic!("http {http}, {era:?}: no fail at {pointer} naming {word}: {fails:#?}")
                });
                assert!(!f.evidence.is_empty(), "{f:?}");
            }
        }
        // The unknown block is one violation at the block, not one per kind it is not.
        let at_block: Vec<_> = fails
            .iter()
            .filter(|f| f.era == Some(Era::Legacy) && f.detail.contains("hologram"))
            .collect();
        assert_eq!(at_block.len(), 1, "{at_block:#?}");
    }
}

#[tokio::test]
async fn the_valid_twin_passes_on_both_wires() {
    for http in [false, true] {
        let r = shapes(http, &[("SCOUT_TEST_SHAPES", "valid")]).await;
        // The run's own two wires (the revision matrix's findings carry their revision).
        let findings: Vec<_> = all(&r, "protocol.wire_schema")
            .into_iter()
            .filter(|f| f.revision.is_none())
            .collect();
        assert_eq!(findings.len(), 2, "{findings:#?}");
        for f in findings {
            assert_eq!(f.status, Status::Pass, "http {http}: {f:#?}");
            assert!(f.detail.contains("official"), "{}", f.detail);
        }
    }
}

#[tokio::test]
async fn a_title_at_2025_03_26_is_judged_by_that_revisions_schema() {
    for http in [false, true] {
        let r = shapes(http, &[("SCOUT_TEST_SHAPES_VERSION", "2025-03-26")]).await;
        let fails = schema_fails(&r);
        // 2025-03-26's Tool has no title: a numeric one is an extra member it allows.
        assert!(
            fails.iter().all(|f| !f.detail.contains("/title")),
            "{fails:#?}"
        );
        // Its Annotations do bound priority, and the finding says which schema judged.
        let (pointer, word) = BREACHES[0];
        let f = found(&fails, Era::Legacy, pointer, word).expect("the priority breach");
        assert!(f.detail.contains("2025-03-26"), "{}", f.detail);
    }
}

/// What scout itself sent over stdio that breaks the official schema of the wire's revision,
/// one line each (the deliberately malformed probes left out: breaking the rules is their
/// point).
fn sent_violations(r: &ServerReport) -> Vec<String> {
    use scout::probe::protocol::judge::wire_schema::deliberately_malformed;
    use scout::probe::protocol::official::{self, Shape};
    use scout::report::exchange::{Direction, ExchangeKind};
    let mut bad = Vec::new();
    for e in &r.exchanges {
        let ExchangeKind::Stdio(m) = &e.kind else {
            continue;
        };
        if m.direction != Direction::Sent || deliberately_malformed(&m.line) {
            continue;
        }
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&m.line) else {
            continue;
        };
        let revision = match e.era {
            Some(Era::Modern) => "2026-07-28",
            _ => "2025-11-25",
        };
        let method = v.get("method").and_then(|m| m.as_str());
        let shape = match (method, v.get("id"), v.get("error")) {
            (Some(_), Some(_), _) => Shape::Request,
            (Some(_), None, _) => Shape::Notification,
            (None, _, Some(_)) => Shape::Error,
            (None, _, None) => Shape::Result,
        };
        for (pointer, definition) in official::definitions(revision, shape, method, false, None) {
            let Some(part) = v.pointer(pointer) else {
                continue;
            };
            for x in official::validate(revision, &definition, pointer, part) {
                bad.push(format!(
                    "#{} {}: {definition} at {}: {} — {}",
                    e.seq, revision, x.pointer, x.message, m.line
                ));
            }
        }
    }
    bad
}

#[tokio::test]
async fn what_scout_sends_matches_the_official_schema() {
    let mut spec = fixture("minimal_server.py", &[]);
    spec.only.push(Phase::Protocol);
    spec.revisions = vec!["2025-11-25".into()];
    let r = run(spec).await;
    let bad = sent_violations(&r);
    // The probes that break the schema on purpose (requests without the required _meta, an
    // unknown log level) are caught, and nothing else scout sends is.
    const DELIBERATE: [&str; 4] = [
        "scout-meta-none",
        "scout-meta-version",
        "scout-meta-caps",
        "scout-log-level",
    ];
    let undeliberate: Vec<_> = bad
        .iter()
        .filter(|b| {
            !DELIBERATE
                .iter()
                .any(|id| b.contains(&format!("\"id\":\"{id}\"")))
        })
        .collect();
    assert!(undeliberate.is_empty(), "{undeliberate:#?}");
    for id in DELIBERATE {
        assert!(
            bad.iter().any(|b| b.contains(&format!("\"id\":\"{id}\""))),
            "{id} was not caught: {bad:#?}"
        );
    }
}
