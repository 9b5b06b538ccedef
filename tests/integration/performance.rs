//! The performance checks read from what the run recorded (`cold_start`, `payload_size`):
//! each is shown warning on a fixture past its documented threshold and reporting on a
//! correct one.

use std::time::Duration;

use scout::probe::spec::ServerSpec;
use scout::report::finding::{Phase, Status};

use crate::phase_fixtures::{expect, fixture, never, run};

fn performance(mut spec: ServerSpec) -> ServerSpec {
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Performance,
    ];
    spec
}

#[tokio::test]
async fn a_slow_start_warns_and_a_quick_one_is_reported() {
    // slow_start.py sleeps 5.5 s before it reads stdin; the timeout must outlast that.
    let mut slow = performance(fixture("slow_start.py", &[]));
    slow.timeout = Duration::from_secs(10);
    let (slow, quick) = tokio::join!(
        run(slow),
        run(performance(fixture("minimal_server.py", &[])))
    );
    let f = expect(&slow, "performance.cold_start", None, Status::Warn);
    assert!(f.detail.contains("after"), "{}", f.detail);
    assert_eq!(
        f.evidence.len(),
        2,
        "the first request and its answer: {f:?}"
    );
    let f = expect(&quick, "performance.cold_start", None, Status::Info);
    assert_eq!(f.evidence.len(), 2, "{f:?}");
    never(&quick, "performance.cold_start", Status::Warn);
}

#[tokio::test]
async fn a_result_above_the_budget_warns() {
    let (big, small) = tokio::join!(
        run(performance(fixture("large_tool_list.py", &[]))),
        run(performance(fixture("minimal_server.py", &[])))
    );
    let f = expect(
        &big,
        "performance.payload_size",
        Some("tools/list"),
        Status::Warn,
    );
    assert!(f.detail.contains("KiB"), "{}", f.detail);
    expect(&small, "performance.payload_size", None, Status::Info);
    never(&small, "performance.payload_size", Status::Warn);
}
