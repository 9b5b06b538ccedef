//! Issue 15, "every verdict earned": fixtures where a pass used to come from nothing (no
//! answer, no exchange, a missing array), where a probe was judged twice, where a resumable
//! stream was taken for a broken call, and where a grade contradicted the spec.

use scout::report::finding::{Era, SkipReason, Status};

use crate::phase_fixtures::{expect_era, fixture_http, never, run};

#[tokio::test]
async fn a_resumable_stream_is_resumed_and_a_lost_one_is_reported() {
    let r = run(fixture_http("sse_not_resumable.py")).await;
    for f in r.findings.iter().filter(|f| f.status == Status::Fail) {
        eprintln!("{} {:?} {:?} {}", f.id, f.era, f.subject, f.detail);
    }
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
    let _ = (SkipReason::NotApplicable, never);
}
