//! The execution phase against fixture servers, and the safety policy proven by a server
//! that records every call it receives.

use scout::probe::spec::PolicySpec;
use scout::report::finding::{SkipReason, Status};

use crate::phase_fixtures::{
    all, expect, fixture, fixture_http, never, no_fails, run, with_policy,
};

#[tokio::test]
async fn correct_fixture_passes_execution() {
    let r = run(fixture("minimal_server.py", &[])).await;
    expect(&r, "execution.tool_call", Some("echo"), Status::Pass);
    expect(&r, "execution.tool_call", Some("add"), Status::Pass);
    expect(&r, "execution.structured_output", Some("add"), Status::Pass);
    expect(&r, "execution.content_blocks", Some("echo"), Status::Pass);
    expect(&r, "execution.unknown_tool", None, Status::Pass);
    expect(&r, "execution.invalid_arguments", None, Status::Pass);
    expect(&r, "execution.resource_read", None, Status::Pass);
    expect(&r, "execution.prompt_get", None, Status::Pass);
    // mcpfixture sends no progress: an observation, not a judgement.
    expect(&r, "execution.progress", None, Status::Info);
    for id in ["execution.tool_call", "execution.cancellation"] {
        never(&r, id, Status::Fail);
    }
    no_fails(&r, "execution.");
}

#[tokio::test]
async fn structured_output_mismatch_fails() {
    let r = run(fixture("structured_output_mismatch.py", &[])).await;
    let f = expect(&r, "execution.structured_output", Some("add"), Status::Fail);
    assert!(f.detail.contains("does not match"), "{}", f.detail);
}

#[tokio::test]
async fn lenient_errors_fail() {
    let r = run(fixture("lenient_errors.py", &[])).await;
    expect(&r, "execution.unknown_tool", None, Status::Fail);
    expect(&r, "execution.invalid_arguments", None, Status::Fail);
    expect(&r, "execution.resource_read", None, Status::Fail);
    expect(&r, "execution.prompt_get", None, Status::Fail);
}

#[tokio::test]
async fn progress_going_backwards_fails_and_increasing_passes() {
    let r = run(fixture("progress_backwards.py", &[])).await;
    expect(&r, "execution.progress", None, Status::Fail);
    let ok = run(fixture(
        "progress_backwards.py",
        &[("PROGRESS_OK", "1".into())],
    ))
    .await;
    expect(&ok, "execution.progress", None, Status::Pass);
}

#[tokio::test]
async fn progress_after_the_result_fails() {
    let r = run(fixture("progress_after_result.py", &[])).await;
    let f = expect(&r, "execution.progress", None, Status::Fail);
    assert!(f.detail.contains("after the result"), "{}", f.detail);
}

/// Runs records_calls.py under `policy` and returns the tools it says were called.
async fn called_under(policy: PolicySpec) -> (Vec<String>, scout::report::model::ServerReport) {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("calls.log");
    let spec = with_policy(
        fixture(
            "records_calls.py",
            &[("SCOUT_TEST_CALL_LOG", log.display().to_string())],
        ),
        policy,
    );
    let report = run(spec).await;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let mut called: Vec<String> = text.lines().map(str::to_string).collect();
    called.sort();
    called.dedup();
    (called, report)
}

#[tokio::test]
async fn default_policy_calls_only_read_only_tools() {
    let (called, r) = called_under(PolicySpec::default()).await;
    assert_eq!(called, vec!["read_only"]);
    for (tool, flag) in [
        ("mutating", "--allow-mutations"),
        ("destructive", "--allow-destructive"),
        ("unannotated", "--allow-destructive"),
    ] {
        let f = expect(&r, "execution.policy", Some(tool), Status::Info);
        assert!(f.detail.contains(flag), "{tool}: {}", f.detail);
    }
    assert!(
        all(&r, "execution.policy")
            .iter()
            .all(|f| f.subject.as_deref() != Some("read_only"))
    );
}

#[tokio::test]
async fn allow_mutations_adds_the_non_destructive_tool() {
    let (called, r) = called_under(PolicySpec {
        allow_mutations: true,
        ..Default::default()
    })
    .await;
    assert_eq!(called, vec!["mutating", "read_only"]);
    expect(&r, "execution.policy", Some("destructive"), Status::Info);
}

#[tokio::test]
async fn only_allow_destructive_calls_the_destructive_tool() {
    let (called, _) = called_under(PolicySpec {
        allow_destructive: true,
        ..Default::default()
    })
    .await;
    assert_eq!(
        called,
        vec!["destructive", "mutating", "read_only", "unannotated"]
    );
    let (called, r) = called_under(PolicySpec {
        allow_destructive: true,
        deny_tools: vec!["destructive".into()],
        ..Default::default()
    })
    .await;
    assert!(!called.contains(&"destructive".to_string()), "{called:?}");
    let f = expect(&r, "execution.policy", Some("destructive"), Status::Info);
    assert!(f.detail.contains("deny_tools"), "{}", f.detail);
}

#[tokio::test]
async fn nothing_allowed_skips_calls_as_policy() {
    let (called, r) = called_under(PolicySpec {
        allow_tools: vec!["none_of_them".into()],
        ..Default::default()
    })
    .await;
    assert!(called.is_empty(), "{called:?}");
    let f = expect(&r, "execution.tool_call", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::Policy));
}

#[tokio::test]
async fn broken_call_results_fail() {
    let r = run(fixture("bad_call_results.py", &[])).await;
    expect(&r, "execution.tool_call", Some("no_content"), Status::Fail);
    let f = expect(
        &r,
        "execution.content_blocks",
        Some("bad_image"),
        Status::Fail,
    );
    assert!(
        f.detail.contains("base64") && f.detail.contains("mimeType"),
        "{}",
        f.detail
    );
}

#[tokio::test]
async fn cancellation_on_stdio() {
    let r = run(fixture("slow_tool_cancellable.py", &[])).await;
    expect(&r, "execution.cancellation", None, Status::Pass);
    let ignored = run(fixture(
        "slow_tool_cancellable.py",
        &[("IGNORE_CANCEL", "1".into())],
    ))
    .await;
    expect(&ignored, "execution.cancellation", None, Status::Warn);
}

/// Over Streamable HTTP both eras are probed (routing headers, sessions); the correct
/// fixture gets no failure in either phase and cancellation is not applicable.
#[tokio::test]
async fn correct_fixture_over_http() {
    let r = run(fixture_http("minimal_server.py")).await;
    let fails: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.id.starts_with("catalog.") || f.id.starts_with("execution."))
        .filter(|f| f.status == Status::Fail)
        .collect();
    assert!(fails.is_empty(), "{fails:#?}");
    expect(&r, "execution.tool_call", Some("add"), Status::Pass);
    expect(&r, "execution.resource_read", None, Status::Pass);
    let f = expect(&r, "execution.cancellation", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
}
