//! The performance checks read from what the run recorded (`cold_start`, `payload_size`):
//! each is shown warning on a fixture past its documented threshold and reporting on a
//! correct one.

use std::time::Duration;

use scout::report::finding::{Phase, Status};
use scout::spec::ServerSpec;

use crate::phase_fixtures::{expect, fixture, fixture_http, never, run};
use scout::transport::process::ProcessConfig;

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
async fn a_slow_start_warns_and_a_quick_one_passes() {
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
    // Within 5 s: a pass (previously info, so a quick start was "not assessed").
    let f = expect(&quick, "performance.cold_start", None, Status::Pass);
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
    expect(&small, "performance.payload_size", None, Status::Pass);
    never(&small, "performance.payload_size", Status::Warn);
}

#[tokio::test]
async fn latency_is_judged_per_method_over_the_whole_run() {
    let r = run(performance(fixture("minimal_server.py", &[]))).await;
    // Both wires, each with the requests of the handshake and the catalogue that were timed
    // alone (which ones is the schedule's doing) and the dedicated sample of its cheap
    // request, which always is.
    for f in scout_findings(&r, "performance.latency") {
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        let cheap = match f.era {
            Some(scout::report::finding::Era::Modern) => "server/discover",
            _ => "tools/list",
        };
        for word in ["p50", "p95", "p99", cheap] {
            assert!(f.detail.contains(word), "{word}: {}", f.detail);
        }
        assert!(!f.evidence.is_empty(), "{f:?}");
    }
    // The oversized probe and the garbage never count: the resilience phase's requests are
    // deliberate, so a run with it lists the same methods.
    let mut with_resilience = performance(fixture("minimal_server.py", &[]));
    with_resilience.only.push(Phase::Resilience);
    let r = run(with_resilience).await;
    for f in scout_findings(&r, "performance.latency") {
        assert!(!f.detail.contains("scout"), "{}", f.detail);
    }
}

#[tokio::test]
async fn a_quick_list_queued_behind_a_slow_tool_call_is_not_timed() {
    // sequential_slow_tool.py serves one line at a time and its read-only slow_lookup takes
    // 1.2 s: a tools/list sent beside the call waited behind it. Previously such a request
    // counted (and the first request of the process too) and could put tools/list over its
    // 1 s budget, a warning that depended on the schedule. Only requests timed alone count.
    let mut spec = performance(fixture("sequential_slow_tool.py", &[]));
    spec.only.push(Phase::Execution);
    let r = run(spec).await;
    for f in scout_findings(&r, "performance.latency") {
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        // The cheap request has at least 20 samples, so its p95 is a percentile.
        let n: usize = f
            .detail
            .split_once(" ×")
            .and_then(|(_, rest)| rest.split(':').next())
            .and_then(|n| n.parse().ok())
            .expect("a count per method");
        assert!(n >= 20, "{}", f.detail);
    }
    // The slow tool itself was called (tools/call is reported, not judged).
    assert!(
        r.exchanges
            .iter()
            .any(|e| format!("{e:?}").contains("slow_lookup")
                && format!("{e:?}").contains("tools/call")),
        "the execution phase called slow_lookup"
    );
    // The twin: a server slow one time in five really is over budget.
    let r = run(performance(fixture("slow_every_fifth.py", &[]))).await;
    expect(&r, "performance.latency", None, Status::Warn);
}

#[tokio::test]
async fn a_healthy_fast_server_is_assessed_with_passes() {
    // Previously latency within budget, a quick start and small results were all info, so
    // performance was "not assessed" exactly when it was good.
    let mut spec = ServerSpec::new(
        "demo",
        scout::spec::TargetSpec::Stdio(ProcessConfig {
            command: crate::servers::demo_stdio(),
            env_forward: Vec::new(),
            env_set: Vec::new(),
            dir: None,
        }),
    );
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Execution,
        Phase::Performance,
    ];
    let r = run(spec).await;
    for id in [
        "performance.latency",
        "performance.cold_start",
        "performance.payload_size",
    ] {
        expect(&r, id, None, Status::Pass);
        never(&r, id, Status::Warn);
        never(&r, id, Status::Fail);
    }
    let perf = r
        .categories
        .iter()
        .find(|c| c.phase == Phase::Performance)
        .expect("a performance category");
    assert_eq!(
        perf.score,
        Some(100),
        "assessed, and nothing lost: {perf:?}"
    );
}

fn scout_findings<'a>(
    r: &'a scout::report::model::ServerReport,
    id: &str,
) -> Vec<&'a scout::report::finding::Finding> {
    let found: Vec<_> = r.findings.iter().filter(|f| f.id == id).collect();
    assert!(!found.is_empty(), "no {id}: {:#?}", r.findings);
    found
}

fn load(mut spec: ServerSpec) -> ServerSpec {
    spec.only = vec![Phase::Discovery, Phase::Handshake, Phase::Performance];
    spec.policy.allow_load = true;
    spec
}

#[tokio::test]
async fn a_server_that_serialises_requests_warns_under_allow_load() {
    let (bad, good, not_allowed) = tokio::join!(
        run(load(fixture_http("serialises_requests.py"))),
        run(load(fixture_http("minimal_server.py"))),
        run(performance(fixture_http("serialises_requests.py"))),
    );
    // serialises_requests.py holds one global lock for 60 ms per request.
    let f = expect(&bad, "performance.throughput", None, Status::Warn);
    assert!(f.detail.contains("serialises"), "{}", f.detail);
    assert!(f.detail.contains("req/s"), "{}", f.detail);
    never(&good, "performance.throughput", Status::Warn);
    expect(&good, "performance.throughput", None, Status::Info);
    let f = expect(&not_allowed, "performance.throughput", None, Status::Skip);
    assert!(f.detail.contains("--allow-load"), "{}", f.detail);
}

#[tokio::test]
async fn the_load_ramp_owns_its_concurrency() {
    // Previously the ramp's requests took --concurrency slots: at 1, "16 in flight" were
    // one at a time and concurrent_work.py (60 ms of work per request, no shared lock) was
    // reported as serialising. Its twin serialises_requests.py still is, at 1 too.
    let at_one = |mut spec: ServerSpec| {
        spec.concurrency = 1;
        spec.timeout = Duration::from_secs(10);
        load(spec)
    };
    let (good, bad) = tokio::join!(
        run(at_one(fixture_http("concurrent_work.py"))),
        run(at_one(fixture_http("serialises_requests.py"))),
    );
    let f = expect(&good, "performance.throughput", None, Status::Info);
    assert!(f.detail.contains("16 in flight"), "{}", f.detail);
    assert!(!f.detail.contains("serialises"), "{}", f.detail);
    never(&good, "performance.throughput", Status::Warn);
    let f = expect(&bad, "performance.throughput", None, Status::Warn);
    assert!(f.detail.contains("serialises"), "{}", f.detail);
}

#[tokio::test]
async fn a_remote_host_gets_no_more_than_its_rate() {
    let mut spec = load(fixture_http("minimal_server.py"));
    spec.treat_as_remote = true;
    spec.rps = Some(20.0);
    let r = run(spec).await;
    let f = expect(&r, "performance.throughput", None, Status::Info);
    assert!(f.detail.contains("remote"), "{}", f.detail);
    // 20 req/s × 3 s: at most 60 requests in the ramp.
    let sent = f
        .detail
        .split_whitespace()
        .next()
        .and_then(|n| n.parse::<usize>().ok())
        .expect("the detail starts with the request count");
    assert!(sent <= 60, "{}", f.detail);
}

#[tokio::test]
async fn server_everything_does_not_serialise() {
    let server = crate::servers::everything_http();
    let mut spec = ServerSpec::new(
        "everything",
        scout::spec::TargetSpec::Http {
            url: server.url.clone(),
            headers: vec![],
            auth: Default::default(),
            start: None,
        },
    );
    spec.timeout = Duration::from_secs(10);
    let r = run(load(spec)).await;
    let f = expect(&r, "performance.throughput", None, Status::Info);
    assert!(f.detail.contains("req/s"), "{}", f.detail);
    never(&r, "performance.throughput", Status::Warn);
}
