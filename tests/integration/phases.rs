//! The later phases (performance, resilience, security) and the checks no other test
//! asserted (discovery.tls, handshake.initialized, handshake.stateless, stdio.process,
//! stdio.environment), run against fixture servers: each assertion names the fixture whose
//! behaviour it shows.

use scout::report::finding::{Era, Phase, SkipReason, Status};

use crate::phase_fixtures::{
    all, expect, expect_era, fixture, fixture_http, never, only, run, url_spec,
};

#[tokio::test]
async fn latency_is_measured_and_a_slow_p95_warns() {
    let r = run(only(
        fixture("minimal_server.py", &[]),
        &[Phase::Discovery, Phase::Handshake, Phase::Performance],
    ))
    .await;
    let f = expect(&r, "performance.latency", None, Status::Pass);
    assert!(f.detail.contains("p95"), "{}", f.detail);
    // The worst method's samples are cited, each a sent and a received stdio line; the
    // dedicated sample alone is 20 requests of server/discover timed alone.
    assert!(f.evidence.len() >= 20 * 2, "the samples are cited: {f:?}");
    assert_eq!(f.evidence.len() % 2, 0, "{f:?}");
    let r = run(only(
        fixture("slow_every_fifth.py", &[]),
        &[Phase::Discovery, Phase::Handshake, Phase::Performance],
    ))
    .await;
    let f = expect(&r, "performance.latency", None, Status::Warn);
    assert!(f.detail.contains("p95"), "{}", f.detail);
}

#[tokio::test]
async fn malformed_input_is_survived_or_reported() {
    let r = run(only(
        fixture("minimal_server.py", &[]),
        &[Phase::Discovery, Phase::Handshake, Phase::Resilience],
    ))
    .await;
    let f = expect(&r, "resilience.malformed_survival", None, Status::Pass);
    assert!(
        f.evidence.len() >= 5,
        "the garbage and the follow-up: {f:?}"
    );
    // parse_error_crashes.py exits on the first unparsable line: the wire that sent it
    // fails; what the other wire sent after the exit is not assessed (it once failed on the
    // broken pipe too).
    let r = run(only(
        fixture("parse_error_crashes.py", &[]),
        &[Phase::Discovery, Phase::Handshake, Phase::Resilience],
    ))
    .await;
    let survival: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.id == "resilience.malformed_survival")
        .collect();
    assert_eq!(
        survival.iter().filter(|f| f.status == Status::Fail).count(),
        1,
        "{survival:#?}"
    );
    for f in survival.iter().filter(|f| f.status != Status::Fail) {
        assert_eq!(
            f.skip_reason,
            Some(scout::report::finding::SkipReason::NotAssessed),
            "{f:#?}"
        );
        assert!(f.detail.contains("the server exited after req#"), "{f:#?}");
    }
}

#[tokio::test]
async fn poisoned_and_hidden_descriptions_are_found() {
    let sec = [
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Security,
    ];
    let r = run(only(fixture("poisoned_tool.py", &[]), &sec)).await;
    let f = expect(&r, "security.tool_poisoning", Some("add"), Status::Fail);
    assert!(f.detail.contains("IMPORTANT"), "{}", f.detail);
    expect(&r, "security.hidden_characters", Some("echo"), Status::Fail);
    never(&r, "security.tool_poisoning", Status::Pass);
    let r = run(only(fixture("minimal_server.py", &[]), &sec)).await;
    for id in [
        "security.tool_poisoning",
        "security.hidden_characters",
        "security.secrets_in_output",
        "security.error_leakage",
    ] {
        expect(&r, id, None, Status::Pass);
    }
}

#[tokio::test]
async fn tls_per_target() {
    // Plain http to a host that is not loopback fails, citing the request that went out in
    // the clear (.invalid never resolves: nothing leaves the machine but a DNS query).
    let spec = url_spec("plain", "http://mcp.invalid/mcp");
    let r = run(only(spec, &[Phase::Discovery])).await;
    let f = expect(&r, "discovery.tls", None, Status::Fail);
    assert!(f.detail.contains("plain http"), "{}", f.detail);
    // Loopback and stdio: not applicable.
    let r = run(only(fixture_http("minimal_server.py"), &[Phase::Discovery])).await;
    let f = expect(&r, "discovery.tls", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
    let r = run(only(fixture("minimal_server.py", &[]), &[Phase::Discovery])).await;
    let f = expect(&r, "discovery.tls", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
}

#[tokio::test]
async fn initialized_and_stateless_are_judged() {
    let hs = [Phase::Discovery, Phase::Handshake];
    let r = run(only(fixture_http("minimal_server.py"), &hs)).await;
    let f = expect_era(
        &r,
        "handshake.initialized",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
    assert!(f.detail.contains("202"), "{}", f.detail);
    expect_era(
        &r,
        "handshake.stateless",
        None,
        Some(Era::Modern),
        Status::Pass,
    );
    let r = run(only(fixture("minimal_server.py", &[]), &hs)).await;
    expect_era(
        &r,
        "handshake.initialized",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
    let r = run(only(fixture_http("discover_mints_session.py"), &hs)).await;
    let f = expect_era(
        &r,
        "handshake.stateless",
        None,
        Some(Era::Modern),
        Status::Fail,
    );
    assert!(f.detail.contains("session"), "{}", f.detail);
}

#[tokio::test]
async fn the_child_process_and_what_it_was_handed() {
    let r = run(only(
        fixture("minimal_server.py", &[("SCOUT_FIXTURE_MARK", "on".into())]),
        &[Phase::Discovery, Phase::Handshake],
    ))
    .await;
    let process = all(&r, "stdio.process");
    assert!(
        process
            .iter()
            .any(|f| f.status == Status::Pass && f.detail.contains("pid")),
        "{process:#?}"
    );
    let env = expect(&r, "stdio.environment", None, Status::Info);
    assert!(
        env.detail.contains("SCOUT_FIXTURE_MARK=on") && env.detail.contains("PATH"),
        "{}",
        env.detail
    );
}
