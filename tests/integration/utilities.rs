//! `protocol.removed_methods`, `protocol.logging` and `protocol.resource_subscribe`: the
//! utilities fixture (correct, and with `UTILITIES=defects`), server-everything (handshake
//! era: logging and subscriptions declared) and the TypeScript SDK v2 server (2026-07-28).

use std::time::Duration;

use scout::report::finding::{Era, Phase, Status};
use scout::report::model::ServerReport;
use scout::spec::{ServerSpec, TargetSpec};
use scout::transport::process::ProcessConfig;

use crate::phase_fixtures::{expect, expect_era, fixture, fixture_http_env, never, run};
use crate::servers;

const IDS: [&str; 3] = [
    "protocol.removed_methods",
    "protocol.logging",
    "protocol.resource_subscribe",
];

/// The phases these checks need: the catalogue (a resource to subscribe to) and the tool
/// calls (which the fixture logs) before the protocol phase's final stage.
fn with_protocol(mut spec: ServerSpec) -> ServerSpec {
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Execution,
        Phase::Protocol,
    ];
    spec
}

async fn utilities(defects: bool) -> ServerReport {
    let env: Vec<(&str, String)> = if defects {
        vec![("UTILITIES", "defects".into())]
    } else {
        vec![]
    };
    run(with_protocol(fixture("utilities.py", &env))).await
}

#[tokio::test]
async fn the_correct_fixture_passes_logging_subscriptions_and_removed_methods() {
    let r = utilities(false).await;
    let log = expect_era(
        &r,
        "protocol.logging",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
    // The fixture logs each tool call at info, with the capability declared.
    assert!(log.detail.contains("log message(s)"), "{}", log.detail);
    assert!(log.detail.contains("-32602"), "{}", log.detail);
    expect_era(
        &r,
        "protocol.logging",
        None,
        Some(Era::Modern),
        Status::Pass,
    );
    let sub = expect_era(
        &r,
        "protocol.resource_subscribe",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
    assert!(sub.detail.contains("fixture://readme"), "{}", sub.detail);
    expect_era(
        &r,
        "protocol.removed_methods",
        None,
        Some(Era::Modern),
        Status::Pass,
    );
    for id in IDS {
        never(&r, id, Status::Fail);
        never(&r, id, Status::Warn);
    }
}

#[tokio::test]
async fn each_defect_of_the_fixture_is_reported() {
    let r = utilities(true).await;
    // Logs on the handshake wire without the logging capability (a MUST).
    let f = expect_era(
        &r,
        "protocol.logging",
        None,
        Some(Era::Legacy),
        Status::Fail,
    );
    assert!(f.detail.contains("did not declare"), "{}", f.detail);
    // Logs for 2026-07-28 requests that set no logLevel (a MUST NOT).
    let f = expect_era(
        &r,
        "protocol.logging",
        None,
        Some(Era::Modern),
        Status::Fail,
    );
    assert!(f.detail.contains("logLevel"), "{}", f.detail);
    // A declared resources.subscribe that is refused: the server's own declaration broken.
    let f = expect_era(
        &r,
        "protocol.resource_subscribe",
        None,
        Some(Era::Legacy),
        Status::Warn,
    );
    assert!(f.detail.contains("-32601"), "{}", f.detail);
    // Removed methods served with a result on 2026-07-28 requests.
    let f = expect_era(
        &r,
        "protocol.removed_methods",
        None,
        Some(Era::Modern),
        Status::Warn,
    );
    assert!(f.detail.contains("logging/setLevel"), "{}", f.detail);
}

#[tokio::test]
async fn removed_methods_over_http_want_404() {
    let r = run(with_protocol(fixture_http_env("utilities.py", &[]))).await;
    let f = expect_era(
        &r,
        "protocol.removed_methods",
        None,
        Some(Era::Modern),
        Status::Pass,
    );
    assert!(f.detail.contains("HTTP 404"), "{}", f.detail);
    for m in ["tasks/list", "tasks/result", "tasks/get"] {
        assert!(f.detail.contains(m), "{m}: {}", f.detail);
    }
    let r = run(with_protocol(fixture_http_env(
        "utilities.py",
        &[("UTILITIES", "defects")],
    )))
    .await;
    expect_era(
        &r,
        "protocol.removed_methods",
        None,
        Some(Era::Modern),
        Status::Warn,
    );
}

/// server-everything 2026.8.31 declares logging and resources.subscribe on the handshake
/// era. It accepts logging/setLevel to info and subscribing to its first resource; an
/// unknown level gets -32603 from its parameter validation where the logging page says a
/// server SHOULD answer -32602: a warning, not a fail.
#[tokio::test]
async fn server_everything_is_judged_on_logging_and_subscriptions() {
    let mut spec = ServerSpec::new(
        "everything",
        TargetSpec::Stdio(ProcessConfig {
            command: servers::everything_stdio(),
            env_forward: vec![],
            env_set: vec![],
            dir: None,
        }),
    );
    spec.timeout = Duration::from_secs(10);
    spec.deadline = Duration::from_secs(90);
    let r = run(with_protocol(spec)).await;
    let sub = expect(&r, "protocol.resource_subscribe", None, Status::Pass);
    assert!(sub.detail.contains("demo://"), "{}", sub.detail);
    let log = expect(&r, "protocol.logging", None, Status::Warn);
    assert!(
        log.detail.contains("-32603") && log.detail.contains("expected -32602"),
        "{}",
        log.detail
    );
    assert!(!log.detail.contains("to info got"), "{}", log.detail);
    for id in IDS {
        never(&r, id, Status::Fail);
    }
}

/// The TypeScript SDK v2 server answers the removed methods as unknown methods on its
/// 2026-07-28-only endpoint.
#[tokio::test]
async fn the_typescript_sdk_answers_removed_methods_with_404() {
    let server = servers::ts_http();
    let mut spec = ServerSpec::new(
        "ts",
        TargetSpec::Http {
            url: server.url_with_path("/mcp-strict"),
            headers: vec![],
            auth: Default::default(),
            start: None,
        },
    );
    spec.timeout = Duration::from_secs(10);
    spec.deadline = Duration::from_secs(90);
    let r = run(with_protocol(spec)).await;
    let f = expect(&r, "protocol.removed_methods", None, Status::Pass);
    assert!(
        f.detail.contains("resources/unsubscribe") && f.detail.contains("HTTP 404"),
        "{}",
        f.detail
    );
    // The 2025-11-25 tasks methods: the SDK declares no tasks extension, so tasks/get is
    // unknown as well as tasks/list and tasks/result.
    for m in ["tasks/list", "tasks/result", "tasks/get"] {
        assert!(f.detail.contains(m), "{m}: {}", f.detail);
    }
    // Its refusal of initialize is -32022 with data.supported.
    assert!(
        f.detail.contains("error to initialize names 2026-07-28"),
        "{}",
        f.detail
    );
    // It neither declares logging (deprecated at 2026-07-28) nor logs: the log-level rules
    // do not apply to it.
    let log = expect(&r, "protocol.logging", None, Status::Skip);
    assert!(
        log.detail.contains("does not declare logging"),
        "{}",
        log.detail
    );
}

/// A server that speaks only 2026-07-28 "SHOULD name the protocol versions it supports in
/// any error it returns to an initialize request, on any transport" (2026-07-28
/// versioning): the fixture's -32022 naming 2026-07-28 passes, its bare -32601 warns.
#[tokio::test]
async fn a_modern_only_server_names_its_versions_to_initialize() {
    let only = |how: &str| with_protocol(fixture("utilities.py", &[("MODERN_ONLY", how.into())]));
    let (named, silent) = tokio::join!(run(only("named")), run(only("silent")));
    let f = expect(&named, "protocol.removed_methods", None, Status::Pass);
    assert!(
        f.detail.contains("error to initialize names 2026-07-28"),
        "{}",
        f.detail
    );
    let f = expect(&silent, "protocol.removed_methods", None, Status::Warn);
    assert!(
        f.detail
            .contains("without naming the version the server supports"),
        "{}",
        f.detail
    );
}

/// After `logging/setLevel` to info (handshake era) or a request asking for info in its
/// `_meta` (2026-07-28), the schema says the server "should send all logs at this level and
/// higher": the fixture that sends debug messages anyway warns on both wires, its twin that
/// drops them passes. Log messages are written on stdio only.
#[tokio::test]
async fn log_messages_below_the_level_set_warn() {
    let (ignored, filtered) = tokio::join!(
        run(with_protocol(fixture(
            "utilities.py",
            &[("LOG_LEVELS", "ignored".into())]
        ))),
        utilities(false)
    );
    for era in [Era::Legacy, Era::Modern] {
        let f = expect_era(&ignored, "protocol.logging", None, Some(era), Status::Warn);
        assert!(
            f.detail.contains("at debug after asking for info"),
            "{era:?}: {}",
            f.detail
        );
        let f = expect_era(&filtered, "protocol.logging", None, Some(era), Status::Pass);
        assert!(f.detail.contains("at or above it"), "{era:?}: {}", f.detail);
    }
}

/// Logging is deprecated at 2026-07-28. A server that does not declare it and sends no log
/// message has no level to respect: its acceptance of a `_meta` logLevel that is not a level
/// is not applicable, where scout warned before. The same server declaring logging there is
/// held to the -32602 its declaration promises.
#[tokio::test]
async fn an_undeclared_silent_modern_server_is_not_judged_on_log_levels() {
    let only = |env: &[(&str, String)]| {
        let mut spec = with_protocol(fixture("logging_declared.py", env));
        spec.only.retain(|p| *p != Phase::Execution);
        spec
    };
    let (silent, declared) =
        tokio::join!(run(only(&[])), run(only(&[("LOGGING", "modern".into())])));
    let f = expect_era(
        &silent,
        "protocol.logging",
        None,
        Some(Era::Modern),
        Status::Skip,
    );
    assert!(
        f.detail.contains("does not declare logging"),
        "{}",
        f.detail
    );
    let f = expect_era(
        &declared,
        "protocol.logging",
        None,
        Some(Era::Modern),
        Status::Warn,
    );
    assert!(f.detail.contains("expected -32602"), "{}", f.detail);
}

/// After `resources/subscribe` to one resource, an update for another ("This should only be
/// sent if the client previously sent a resources/subscribe request", 2025-11-25 schema)
/// warns; the twin's update for the subscribed resource passes. Updates are sent on stdio.
#[tokio::test]
async fn updates_for_resources_nobody_subscribed_to_warn() {
    let (others, twin) = tokio::join!(
        run(with_protocol(fixture(
            "utilities.py",
            &[("SUBSCRIBE_UPDATES", "others".into())]
        ))),
        utilities(false)
    );
    let f = expect_era(
        &others,
        "protocol.resource_subscribe",
        None,
        Some(Era::Legacy),
        Status::Warn,
    );
    assert!(
        f.detail
            .contains("after subscribing to fixture://readme only, notifications/resources/updated came for fixture://other"),
        "{}",
        f.detail
    );
    expect_era(
        &twin,
        "protocol.resource_subscribe",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
}
