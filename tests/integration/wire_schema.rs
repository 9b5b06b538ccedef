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
