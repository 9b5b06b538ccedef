//! Multi round-trip requests (2026-07-28 `input_required`): scout completes them as a client
//! must (a new id, the answers as `inputResponses`, the `requestState` as it came), in
//! `scout check` and `scout call`, and judges them with `execution.input_required` and
//! `protocol.input_required_shape`. The fixture `input_required.py` shows each defect, and
//! its correct twin gets no fail or warn; the real TypeScript SDK v2 server (npm
//! `@modelcontextprotocol/server`, which implements the pattern) is judged the same way.
//!
//! The spec sentences: "Servers MUST NOT send InputRequiredResult responses on any other
//! client requests"; "Servers MUST include at least one of inputRequests or requestState in
//! every InputRequiredResult response"; "Servers MUST NOT send an inputRequests that the
//! client has not declared support for in its capabilities"; and, for how a request ends,
//! "the server SHOULD respond with a new InputRequiredResult requesting the missing
//! information again, rather than returning an error" (basic/patterns/mrtr).

use scout::report::finding::{Era, Phase, SkipReason, Status};
use scout::report::model::ServerReport;
use scout::spec::ServerSpec;

use crate::common::Scout;
use crate::phase_fixtures::{all, expect_era, fixture, only, run, url_spec};
use crate::servers;

const SHAPE: &str = "protocol.input_required_shape";
const ROUNDS: &str = "execution.input_required";

/// The phases that list, call and judge the round trips.
fn phases(spec: ServerSpec) -> ServerSpec {
    only(
        spec,
        &[
            Phase::Discovery,
            Phase::Handshake,
            Phase::Protocol,
            Phase::Catalog,
            Phase::Execution,
        ],
    )
}

fn stdio(defect: &str) -> ServerSpec {
    let env = if defect.is_empty() {
        Vec::new()
    } else {
        vec![("INPUT_DEFECT", defect.to_string())]
    };
    phases(fixture("input_required.py", &env))
}

/// No fail or warn of the two checks, on any wire.
fn none_wrong(r: &ServerReport) {
    for id in [SHAPE, ROUNDS] {
        let wrong: Vec<_> = all(r, id)
            .into_iter()
            .filter(|f| matches!(f.status, Status::Fail | Status::Warn))
            .collect();
        assert!(wrong.is_empty(), "{id} on a correct server: {wrong:#?}");
    }
}

/// The correct twin's verdicts, on whichever transport.
fn completes_every_round_trip(r: &ServerReport) {
    none_wrong(r);
    let f = expect_era(r, ROUNDS, None, Some(Era::Modern), Status::Pass);
    for done in [
        "count_to_three (tools/call) ended in a complete result after 3 round trip(s)",
        "confirm_greeting (tools/call) ended in a complete result after 2 round trip(s)",
        // The answers varied on confirm_greeting's full-persona chain: without the answer
        // the server asks again ("the server SHOULD respond with a new InputRequiredResult
        // requesting the missing information again, rather than returning an error"), an
        // extra answer is ignored ("the server SHOULD ignore any information it does not
        // recognize or need"), and an altered state fails the fixture's HMAC and is refused.
        "confirm_greeting (tools/call): a retry without the answers it asked for asked again",
        "confirm_greeting (tools/call): an unrequested extra answer was ignored",
        "an altered requestState got error -32602 (not accepted)",
    ] {
        assert!(f.detail.contains(done), "{}", f.detail);
    }
    expect_era(r, SHAPE, None, Some(Era::Modern), Status::Pass);
    // The handshake era has no input_required: not applicable there, never judged.
    expect_era(r, ROUNDS, None, Some(Era::Legacy), Status::Skip);
    expect_era(r, SHAPE, None, Some(Era::Legacy), Status::Skip);
    // The form confirm_greeting asks the full persona for is judged like a server request
    // of the handshake era, and the call that asked completed after scout declined.
    let e = expect_era(
        r,
        "execution.elicitation",
        None,
        Some(Era::Modern),
        Status::Pass,
    );
    assert!(e.detail.contains("answered with decline"), "{}", e.detail);
}

#[tokio::test]
async fn the_correct_fixture_completes_every_round_trip_over_stdio_and_http() {
    let (over_stdio, over_http) = tokio::join!(
        run(stdio("")),
        run(phases(crate::phase_fixtures::fixture_http(
            "input_required.py"
        )))
    );
    completes_every_round_trip(&over_stdio);
    completes_every_round_trip(&over_http);
}

#[tokio::test]
async fn each_defect_gets_its_verdict_citing_the_answer_that_showed_it() {
    let (on_list, empty, undeclared, endless, error_after, missing_error, extra_error) = tokio::join!(
        Box::pin(run(stdio("on_list"))),
        Box::pin(run(stdio("empty"))),
        Box::pin(run(stdio("undeclared"))),
        Box::pin(run(stdio("endless"))),
        Box::pin(run(stdio("error_after"))),
        Box::pin(run(stdio("missing_error"))),
        Box::pin(run(stdio("extra_error"))),
    );
    let modern = Some(Era::Modern);
    let f = expect_era(&on_list, SHAPE, None, modern, Status::Fail);
    assert!(
        f.detail
            .contains("input_required result answers resources/list"),
        "{}",
        f.detail
    );
    let f = expect_era(&empty, SHAPE, None, modern, Status::Fail);
    assert!(
        f.detail
            .contains("input_required result carries neither inputRequests nor requestState"),
        "{}",
        f.detail
    );
    let f = expect_era(&undeclared, SHAPE, None, modern, Status::Fail);
    assert!(
        f.detail
            .contains("needs elicitation.form, which the request did not declare"),
        "{}",
        f.detail
    );
    // count_to_three never completing is the server's choice ("Servers MAY choose to return
    // an InputRequiredResult on multiple attempts"); confirm_greeting still completes.
    let f = expect_era(&endless, ROUNDS, None, modern, Status::Pass);
    assert!(
        f.detail
            .contains("count_to_three (tools/call): asked again after each of scout's answers"),
        "{}",
        f.detail
    );
    let f = expect_era(&error_after, ROUNDS, None, modern, Status::Warn);
    assert!(
        f.detail.contains("got error -32603 (could not greet)"),
        "{}",
        f.detail
    );
    let f = expect_era(&missing_error, ROUNDS, None, modern, Status::Warn);
    assert!(
        f.detail.contains(
            "a retry without the answers it asked for got error -32602; the server should ask for them again"
        ),
        "{}",
        f.detail
    );
    let f = expect_era(&extra_error, ROUNDS, None, modern, Status::Warn);
    assert!(
        f.detail.contains("unrecognised answers should be ignored"),
        "{}",
        f.detail
    );
    // A defect of one kind is not reported as the other.
    for (r, id) in [(&endless, SHAPE), (&error_after, SHAPE), (&on_list, ROUNDS)] {
        assert!(
            all(r, id)
                .iter()
                .all(|f| !matches!(f.status, Status::Fail | Status::Warn)),
            "{id}: {:#?}",
            all(r, id)
        );
    }
}

/// The real TypeScript SDK v2 server with its two round-trip tools (SCOUT_TEST_MRTR).
fn ts_stdio_mrtr() -> ServerSpec {
    let mut spec = ServerSpec::new(
        "ts-sdk-v2",
        scout::spec::TargetSpec::Stdio(scout::transport::process::ProcessConfig {
            command: servers::ts_stdio(),
            env_forward: Vec::new(),
            env_set: vec![("SCOUT_TEST_MRTR".into(), "1".into())],
            dir: None,
        }),
    );
    spec.timeout = std::time::Duration::from_secs(10);
    spec.deadline = std::time::Duration::from_secs(90);
    phases(spec)
}

#[tokio::test]
async fn the_typescript_sdk_v2_server_completes_its_round_trips_over_stdio_and_http() {
    let server = servers::ts_http_with(&[("SCOUT_TEST_MRTR", "1")]);
    let mut http = phases(url_spec("ts-sdk-v2-http", server.url.clone()));
    http.timeout = std::time::Duration::from_secs(10);
    let (over_stdio, over_http) = tokio::join!(run(ts_stdio_mrtr()), run(http));
    for r in [&over_stdio, &over_http] {
        let wrong: Vec<_> = all(r, SHAPE)
            .into_iter()
            .filter(|f| matches!(f.status, Status::Fail | Status::Warn))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
        // Its example keeps requestState unprotected: a retry with the state scout altered
        // completes, which warns (the only thing wrong with its round trips).
        let f = expect_era(r, ROUNDS, None, Some(Era::Modern), Status::Warn);
        assert!(
            f.detail.contains("requestState altered (scout appended"),
            "{}",
            f.detail
        );
        assert!(
            !f.detail.contains("did not end well") && !f.detail.contains("should be ignored"),
            "{}",
            f.detail
        );
        // Every check of the client side that applies to a 2026-07-28 server is judged, and
        // the SDK keeps each rule: input_required only on the three methods and only for
        // what was declared; a refusal for an undeclared capability (name_the_roots of the
        // bare client) is -32021 naming it; forms, sampling and roots asked in its results
        // are well formed and the calls complete; the subscription is acknowledged first;
        // the removed methods are unknown. It neither declares logging (deprecated at
        // 2026-07-28) nor logs, so the log-level rules do not apply to it.
        let f = expect_era(r, "protocol.logging", None, Some(Era::Modern), Status::Skip);
        assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable), "{f:#?}");
        for id in [
            SHAPE,
            "protocol.capability_use",
            "protocol.subscriptions",
            "protocol.removed_methods",
            "execution.elicitation",
            "execution.sampling",
            "execution.roots",
        ] {
            expect_era(r, id, None, Some(Era::Modern), Status::Pass);
        }
        let f = expect_era(r, "execution.roots", None, Some(Era::Modern), Status::Pass);
        assert!(f.detail.contains("name_the_roots"), "{}", f.detail);
        // What does not apply says why: tasks are an extension on 2026-07-28, the server
        // lists no resource template, and resources/subscribe is a handshake-era method.
        for id in [
            "execution.tasks",
            "execution.resource_templates",
            "protocol.resource_subscribe",
        ] {
            let f = expect_era(r, id, None, Some(Era::Modern), Status::Skip);
            assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable), "{f:#?}");
        }
    }
}

/// `scout call` completes the round trips and prints the tool's final answer; what it cannot
/// answer (a form its bare client did not declare) ends the call with exit 1 and the reason.
#[test]
fn scout_call_completes_round_trips_and_says_why_when_it_cannot() {
    let ts = servers::ts_stdio();
    let call = |tool: &str, config: Option<&std::path::Path>| {
        let mut cmd = Scout::new();
        cmd = cmd.args(["call", tool, "--stdio", "--stdio-set", "SCOUT_TEST_MRTR=1"]);
        if let Some(c) = config {
            cmd = cmd.args([std::ffi::OsStr::new("--config"), c.as_os_str()]);
        }
        cmd.args(["--"]).args(&ts).run()
    };
    let run = call("count_to_three", None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("three, after two"), "{}", run.stdout);
    // The bare client declares no elicitation: the server greets at once.
    let run = call("confirm_greeting", None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("hello (no form"), "{}", run.stdout);
    // The full persona accepts forms with their defaults: the retry carries the answer.
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("scout.toml");
    std::fs::write(
        &config,
        "[default.client]\npersona = \"full\"\nelicitation = \"accept\"\n",
    )
    .expect("write the config");
    let run = call("confirm_greeting", Some(&config));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("greeting accept"), "{}", run.stdout);

    // A server that asks the bare client for a form anyway: no answer to print, exit 1.
    let fixture = format!(
        "{}/tests/fixtures/input_required.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = Scout::new()
        .args(["call", "confirm_greeting", "--stdio"])
        .args(["--stdio-set", "INPUT_DEFECT=undeclared", "--", "python3"])
        .args([fixture.as_str()])
        .run();
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("tools/call did not complete")
            && run
                .stderr
                .contains("elicitation/create, which this client cannot answer"),
        "{}",
        run.stderr
    );
}

/// 2026-07-28: "If processing a request requires a capability the client did not include in
/// io.modelcontextprotocol/clientCapabilities, the server MUST return a
/// MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the
/// missing capabilities. On HTTP, the response status MUST be 400 Bad Request" (basic).
#[tokio::test]
async fn a_refusal_for_a_missing_capability_names_it_with_http_400() {
    use crate::phase_fixtures::fixture_http_env;
    let (named, bare) = tokio::join!(
        run(phases(fixture_http_env(
            "input_required.py",
            &[("REQUIRE_ELICITATION", "1")]
        ))),
        run(phases(fixture_http_env(
            "input_required.py",
            &[("REQUIRE_ELICITATION", "bare")]
        ))),
    );
    let id = "protocol.capability_use";
    let f = expect_era(&named, id, None, Some(Era::Modern), Status::Pass);
    assert!(
        f.detail
            .contains("tools/call confirm_greeting (elicitation)"),
        "{}",
        f.detail
    );
    // The bare client's call is refused; the tool call is not held against the tool.
    expect_era(
        &named,
        "execution.tool_call",
        Some("confirm_greeting"),
        Some(Era::Modern),
        Status::Info,
    );
    let f = expect_era(&bare, id, None, Some(Era::Modern), Status::Fail);
    assert!(
        f.detail.contains("without data.requiredCapabilities")
            && f.detail.contains("with HTTP 200, not 400"),
        "{}",
        f.detail
    );
}

/// Asking again after scout's persona declined is allowed ("Servers MAY choose to return an
/// InputRequiredResult on multiple attempts", 2026-07-28 MRTR): confirm_greeting asking anew
/// after every decline is reported, never warned, over stdio and HTTP.
#[tokio::test]
async fn asking_again_after_a_decline_is_not_warned() {
    use crate::phase_fixtures::fixture_http_env;
    let (over_stdio, over_http) = tokio::join!(
        run(phases(fixture(
            "input_required.py",
            &[("REPROMPT", "1".into())]
        ))),
        run(phases(fixture_http_env(
            "input_required.py",
            &[("REPROMPT", "1")]
        ))),
    );
    for r in [&over_stdio, &over_http] {
        let f = expect_era(r, ROUNDS, None, Some(Era::Modern), Status::Pass);
        assert!(
            f.detail.contains(
                "confirm_greeting (tools/call): asked again after each of scout's answers"
            ) && f
                .detail
                .contains("servers may return input_required on multiple attempts"),
            "{}",
            f.detail
        );
    }
}

/// A request completed on a `requestState` scout altered is a warning naming the request and
/// the change (the MRTR page requires integrity protection unless tampering "can cause
/// nothing worse than request failure", which a client cannot see); the twin that signs its
/// states and refuses the altered one passes (`completes_every_round_trip`). Over stdio and
/// HTTP.
#[tokio::test]
async fn a_request_completed_on_a_tampered_state_warns() {
    use crate::phase_fixtures::fixture_http_env;
    let (over_stdio, over_http) = tokio::join!(
        run(stdio("unsigned")),
        run(phases(fixture_http_env(
            "input_required.py",
            &[("INPUT_DEFECT", "unsigned")]
        ))),
    );
    for r in [&over_stdio, &over_http] {
        let f = expect_era(r, ROUNDS, None, Some(Era::Modern), Status::Warn);
        assert!(
            f.detail.contains(
                "confirm_greeting (tools/call): the retry with its requestState altered (scout appended \".scout-tampered\") completed"
            ),
            "{}",
            f.detail
        );
    }
}
