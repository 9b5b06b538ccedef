//! The revision matrix (`protocol.revisions`): every handshake revision the server accepts
//! beside the run's own is judged by its own rules, and the findings name the revision.

use scout::report::finding::{Finding, Phase, Status};
use scout::report::model::ServerReport;
use scout::spec::ServerSpec;

use crate::phase_fixtures::{all, fixture, fixture_http, run};

fn with_protocol(mut spec: ServerSpec) -> ServerSpec {
    spec.only.push(Phase::Protocol);
    spec
}

fn at<'a>(r: &'a ServerReport, id: &str, revision: &str) -> Vec<&'a Finding> {
    all(r, id)
        .into_iter()
        .filter(|f| f.revision.as_deref() == Some(revision))
        .collect()
}

fn matrix(r: &ServerReport) -> &Finding {
    let f = all(r, "protocol.revisions");
    assert_eq!(f.len(), 1, "{f:#?}");
    f[0]
}

#[tokio::test]
async fn every_accepted_revision_is_judged_by_its_own_rules() {
    for spec in [
        fixture("minimal_server.py", &[]),
        fixture_http("minimal_server.py"),
    ] {
        let r = run(with_protocol(spec)).await;
        let m = matrix(&r);
        assert_eq!(m.status, Status::Info);
        assert!(
            m.detail
                .contains("also accepted: 2024-11-05, 2025-03-26, 2025-06-18"),
            "{}",
            m.detail
        );
        assert!(!m.evidence.is_empty());
        // Batching per revision: 2025-03-26 must accept a batch; 2025-06-18 removed them,
        // as 2025-11-25 (the run's own wire, which judged the refusal) did, so no batch is
        // sent there again, nor at 2024-11-05, which does not define them.
        let b = at(&r, "protocol.batch", "2025-03-26");
        assert_eq!(b.len(), 1, "{b:#?}");
        assert_eq!(b[0].status, Status::Pass, "{:#?}", b[0]);
        assert!(b[0].detail.contains("array"), "{}", b[0].detail);
        assert!(at(&r, "protocol.batch", "2025-06-18").is_empty());
        assert!(at(&r, "protocol.batch", "2024-11-05").is_empty());
        for revision in ["2024-11-05", "2025-03-26", "2025-06-18"] {
            let w = at(&r, "protocol.wire_schema", revision);
            assert_eq!(w.len(), 1, "{revision}: {w:#?}");
            assert_eq!(w[0].status, Status::Pass, "{:#?}", w[0]);
            assert!(w[0].detail.contains(revision), "{}", w[0].detail);
        }
        let fails: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.status == Status::Fail)
            .collect();
        assert!(fails.is_empty(), "a correct server failed: {fails:#?}");
    }
}

#[tokio::test]
async fn a_batch_refused_at_2025_03_26_fails_at_that_revision_only() {
    for spec in [
        fixture("batches_never.py", &[]),
        fixture_http("batches_never.py"),
    ] {
        let r = run(with_protocol(spec)).await;
        let b = at(&r, "protocol.batch", "2025-03-26");
        assert_eq!(b.len(), 1, "{b:#?}");
        assert_eq!(b[0].status, Status::Fail, "{:#?}", b[0]);
        assert!(
            b[0].detail.contains("must accept batches"),
            "{}",
            b[0].detail
        );
        assert!(!b[0].evidence.is_empty());
        // The run's own wires (2025-11-25, 2026-07-28) are right to refuse it.
        for f in all(&r, "protocol.batch")
            .into_iter()
            .filter(|f| f.revision.is_none())
        {
            assert_eq!(f.status, Status::Pass, "{f:#?}");
        }
    }
}

#[tokio::test]
async fn a_title_is_judged_at_each_revision_by_that_revisions_schema() {
    let r = run(with_protocol(fixture("content_shapes.py", &[]))).await;
    let title = |revision: &str| {
        at(&r, "protocol.wire_schema", revision)
            .into_iter()
            .filter(|f| f.status == Status::Fail && f.detail.contains("/title"))
            .count()
    };
    // 2025-06-18 gave Tool a title; 2025-03-26 and 2024-11-05 had none (an extra member).
    assert_eq!(
        title("2025-06-18"),
        1,
        "{:#?}",
        all(&r, "protocol.wire_schema")
    );
    assert_eq!(title("2025-03-26"), 0);
    assert_eq!(title("2024-11-05"), 0);
}

#[tokio::test]
async fn the_configured_revisions_bound_the_matrix() {
    let mut spec = with_protocol(fixture("minimal_server.py", &[]));
    spec.revisions = vec!["2025-06-18".into(), "2026-07-28".into()];
    let r = run(spec).await;
    let m = matrix(&r);
    assert!(
        m.detail.contains("also accepted: 2025-06-18"),
        "{}",
        m.detail
    );
    assert!(!m.detail.contains("2025-03-26"), "{}", m.detail);
    let revisions: Vec<_> = r
        .findings
        .iter()
        .filter_map(|f| f.revision.clone())
        .collect();
    assert!(
        revisions.iter().all(|v| v == "2025-06-18") && !revisions.is_empty(),
        "{revisions:?}"
    );
}

/// What the matrix said: its own verdict's status and the 2025-03-26 batch verdict.
fn matrix_verdicts(r: &ServerReport) -> (Status, Vec<Status>) {
    let batch = at(r, "protocol.batch", "2025-03-26")
        .into_iter()
        .map(|f| f.status)
        .collect();
    (matrix(r).status, batch)
}

/// How long after the run's first exchange the matrix sent its first one.
fn matrix_started_after(r: &ServerReport) -> std::time::Duration {
    let at = |seq: u64| {
        r.exchanges
            .iter()
            .find(|e| e.seq == seq)
            .map(|e| e.started_at)
    };
    let first = r
        .exchanges
        .iter()
        .map(|e| e.started_at)
        .min()
        .expect("exchanges");
    let matrix = matrix(r)
        .evidence
        .iter()
        .filter_map(|q| at(*q))
        .min()
        .expect("the matrix cites its exchanges");
    (matrix - first).try_into().expect("after the first")
}

#[tokio::test]
async fn a_slow_server_gets_the_same_matrix_verdicts_as_a_fast_one() {
    // Every tool call of the slow twin takes seconds, so the execution phase's calls (both
    // wires, both personas) use more than half of the deadline before the final stage,
    // where the matrix used to yield. The matrix's own requests are as fast as the fast
    // server's, so it must say the same.
    let secs = std::time::Duration::from_secs;
    for (fast, slow, deadline) in [
        (
            fixture("batches_never.py", &[]),
            fixture(
                "batches_never.py",
                &[("BATCHES_NEVER_TOOL_DELAY", "2".to_string())],
            ),
            secs(26),
        ),
        (
            fixture_http("batches_never.py"),
            crate::phase_fixtures::fixture_http_env(
                "batches_never.py",
                &[("BATCHES_NEVER_TOOL_DELAY", "4")],
            ),
            secs(26),
        ),
    ] {
        let fast = run(with_protocol(fast)).await;
        let mut slow = with_protocol(slow);
        slow.deadline = deadline;
        let slow = run(slow).await;
        assert!(!slow.interrupted, "the slow run was cut short");
        let (m, batch) = matrix_verdicts(&slow);
        assert_eq!(m, Status::Info, "{:#?}", matrix(&slow));
        assert_eq!(batch, [Status::Fail]);
        assert_eq!(matrix_verdicts(&fast), (m, batch));
        let after = matrix_started_after(&slow);
        assert!(
            after > deadline / 2,
            "the slow run reached the matrix after {after:?}, not after half its deadline"
        );
    }
}
