//! `protocol.subscriptions` (2026-07-28 `subscriptions/listen`): "The server MUST send
//! notifications/subscriptions/acknowledged as the first message carrying the
//! subscription's ID in _meta under io.modelcontextprotocol/subscriptionId, and MUST NOT send
//! any notification on the subscription before it" (basic/patterns/subscriptions). The
//! fixture framework acknowledges correctly (the twin of `listen_defects.py`); the real
//! TypeScript SDK v2 server does too.

use scout::report::finding::{Era, Phase, Status};
use scout::spec::ServerSpec;

use crate::phase_fixtures::{
    expect_era, fixture, fixture_http, fixture_http_env, only, run, url_spec,
};

const ID: &str = "protocol.subscriptions";

fn phases(spec: ServerSpec) -> ServerSpec {
    only(spec, &[Phase::Discovery, Phase::Handshake, Phase::Protocol])
}

#[tokio::test]
async fn a_subscription_is_acknowledged_first_with_its_id_or_the_defect_is_named() {
    let defect = |d: &str| {
        phases(fixture_http_env(
            "listen_defects.py",
            &[("LISTEN_DEFECT", d)],
        ))
    };
    let (good, not_first, wrong_id, over_stdio) = tokio::join!(
        run(phases(fixture_http("minimal_server.py"))),
        run(defect("not_first")),
        run(defect("wrong_id")),
        run(phases(fixture("minimal_server.py", &[]))),
    );
    let modern = Some(Era::Modern);
    let f = expect_era(&good, ID, None, modern, Status::Pass);
    assert!(
        f.detail.contains("came first, with subscriptionId"),
        "{}",
        f.detail
    );
    // The handshake era has no subscriptions/listen.
    expect_era(&good, ID, None, Some(Era::Legacy), Status::Skip);
    let f = expect_era(&not_first, ID, None, modern, Status::Fail);
    assert!(
        f.detail
            .contains("first message was notifications/tools/list_changed"),
        "{}",
        f.detail
    );
    let f = expect_era(&wrong_id, ID, None, modern, Status::Fail);
    assert!(
        f.detail.contains("carries subscriptionId 0"),
        "{}",
        f.detail
    );
    // Over stdio the subscription is acknowledged the same way, then cancelled with
    // notifications/cancelled, after which nothing more comes for it.
    let f = expect_era(&over_stdio, ID, None, modern, Status::Pass);
    assert!(
        f.detail.contains("came first, with subscriptionId")
            && f.detail
                .contains("after notifications/cancelled nothing more came"),
        "{}",
        f.detail
    );
}

/// Over stdio, where every subscription shares one channel, the messages of a subscription
/// are told apart by its id; once the client cancelled it, "Servers receiving cancellation
/// notifications SHOULD … Not send a response for the cancelled request" (2026-07-28
/// basic/patterns/cancellation): a response or a notification after the cancellation is a
/// warning; the acknowledgement defects fail as over HTTP.
#[tokio::test]
async fn over_stdio_a_subscription_is_cancelled_cleanly_or_the_defect_is_named() {
    let defect = |d: &str| phases(fixture("listen_defects.py", &[("LISTEN_DEFECT", d.into())]));
    let (after_cancel, not_first, wrong_id) = tokio::join!(
        run(defect("after_cancel")),
        run(defect("not_first")),
        run(defect("wrong_id")),
    );
    let modern = Some(Era::Modern);
    let f = expect_era(&after_cancel, ID, None, modern, Status::Warn);
    assert!(
        f.detail.contains("still sent")
            && f.detail.contains("notifications/tools/list_changed")
            && f.detail.contains("a response to the listen request"),
        "{}",
        f.detail
    );
    let f = expect_era(&not_first, ID, None, modern, Status::Fail);
    assert!(
        f.detail
            .contains("first message was notifications/tools/list_changed"),
        "{}",
        f.detail
    );
    let f = expect_era(&wrong_id, ID, None, modern, Status::Fail);
    assert!(
        f.detail.contains("carries subscriptionId 0"),
        "{}",
        f.detail
    );
}

#[tokio::test]
async fn the_typescript_sdk_v2_server_acknowledges_with_the_part_of_the_filter_it_supports() {
    let server = crate::servers::ts_http();
    let r = run(phases(url_spec("ts-sdk-v2-http", server.url.clone()))).await;
    let f = expect_era(&r, ID, None, Some(Era::Modern), Status::Pass);
    assert!(
        f.detail.contains(r#"the filter {"toolsListChanged":true}"#),
        "{}",
        f.detail
    );
}

/// The TypeScript SDK v2 server over stdio: acknowledged first with the listen request's id,
/// and silent for the subscription once scout cancelled it.
#[tokio::test]
async fn the_typescript_sdk_v2_server_over_stdio_acknowledges_and_goes_quiet_when_cancelled() {
    let spec = ServerSpec::new(
        "ts-sdk-v2-stdio",
        scout::spec::TargetSpec::Stdio(scout::transport::process::ProcessConfig {
            command: crate::servers::ts_stdio(),
            env_forward: vec![],
            env_set: vec![],
            dir: None,
        }),
    );
    let r = run(phases(spec)).await;
    let f = expect_era(&r, ID, None, Some(Era::Modern), Status::Pass);
    assert!(
        f.detail.contains("came first, with subscriptionId")
            && f.detail
                .contains("after notifications/cancelled nothing more came"),
        "{}",
        f.detail
    );
}
