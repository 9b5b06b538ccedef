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

/// With `[client] trigger`, delivery is judged: once the subscription is acknowledged scout
/// fires the trigger (a tool the policy allows, or a command) and reads on to the next
/// message. `list_changes.py` tells its subscriptions when `grow` adds a tool (or when a
/// watched file appears): delivered passes over stdio and HTTP; silence warns (the trigger may
/// not have changed a list); a notification of a kind nobody subscribed to fails ("The server
/// MUST NOT send notification types the client has not explicitly requested"); without
/// `--allow-mutations` the tool is not called and the verdict says so.
#[tokio::test]
async fn a_configured_trigger_shows_whether_list_changes_are_delivered() {
    use scout::spec::ListTrigger;
    let grow = |mut spec: ServerSpec, allow: bool| {
        spec.list_trigger = Some(ListTrigger::Tool {
            name: "grow".into(),
            arguments: serde_json::json!({}),
        });
        spec.policy.allow_mutations = allow;
        phases(spec)
    };
    let defect = |d: &str| fixture("list_changes.py", &[("LIST_DEFECT", d.into())]);
    let dir = tempfile::tempdir().expect("tempdir");
    let flag = dir.path().join("grow-now");
    let mut by_command = fixture(
        "list_changes.py",
        &[("LIST_TRIGGER_FILE", flag.display().to_string())],
    );
    by_command.list_trigger = Some(ListTrigger::Command(vec![
        "touch".into(),
        flag.display().to_string(),
    ]));
    let (stdio, http, silent, wrong, refused, command, untagged) = tokio::join!(
        Box::pin(run(grow(fixture("list_changes.py", &[]), true))),
        Box::pin(run(grow(fixture_http("list_changes.py"), true))),
        Box::pin(run(grow(defect("silent"), true))),
        Box::pin(run(grow(defect("wrong_kind"), true))),
        Box::pin(run(grow(fixture("list_changes.py", &[]), false))),
        Box::pin(run(phases(by_command))),
        Box::pin(run(grow(defect("untagged"), true))),
    );
    // stdio: a notification without the subscription's id cannot be told apart.
    let f = expect_era(&untagged, ID, None, Some(Era::Modern), Status::Warn);
    assert!(
        f.detail
            .contains("arrived without the subscription's id in _meta"),
        "{}",
        f.detail
    );
    let modern = Some(Era::Modern);
    for r in [&stdio, &http] {
        let f = expect_era(r, ID, None, modern, Status::Pass);
        assert!(
            f.detail
                .contains("scout called grow, and notifications/tools/list_changed arrived on the subscription"),
            "{}",
            f.detail
        );
    }
    let f = expect_era(&command, ID, None, modern, Status::Pass);
    assert!(
        f.detail.contains("scout ran `touch") && f.detail.contains("arrived on the subscription"),
        "{}",
        f.detail
    );
    let f = expect_era(&silent, ID, None, modern, Status::Warn);
    assert!(
        f.detail.contains("no list-changed notification arrived"),
        "{}",
        f.detail
    );
    let f = expect_era(&wrong, ID, None, modern, Status::Fail);
    assert!(
        f.detail
            .contains("notifications/resources/updated, which scout did not subscribe to"),
        "{}",
        f.detail
    );
    let f = expect_era(&refused, ID, None, modern, Status::Pass);
    assert!(
        f.detail
            .contains("the safety policy keeps scout from calling the trigger tool grow")
            && f.detail.contains("--allow-mutations"),
        "{}",
        f.detail
    );
}

/// Every notification on a subscription is judged against the filter the server
/// acknowledged ("The server MUST NOT send notification types the client has not explicitly
/// requested"): a list change the acknowledgement did not grant, after the trigger, fails on
/// both transports; over stdio an unasked resource update right after the acknowledgement
/// fails too. The twins (`list_changes.py` unchanged, `minimal_server.py`) keep to their
/// filters and pass.
#[tokio::test]
async fn a_notification_outside_the_acknowledged_filter_fails() {
    use scout::spec::ListTrigger;
    let grow = |mut spec: ServerSpec| {
        spec.list_trigger = Some(ListTrigger::Tool {
            name: "grow".into(),
            arguments: serde_json::json!({}),
        });
        spec.policy.allow_mutations = true;
        phases(spec)
    };
    let unasked = [("LIST_DEFECT", "unasked_list")];
    let (stdio, http, twin, unasked_update, quiet) = tokio::join!(
        Box::pin(run(grow(fixture(
            "list_changes.py",
            &[("LIST_DEFECT", "unasked_list".into())]
        )))),
        Box::pin(run(grow(fixture_http_env("list_changes.py", &unasked)))),
        Box::pin(run(grow(fixture_http("list_changes.py")))),
        Box::pin(run(phases(fixture(
            "listen_defects.py",
            &[("LISTEN_DEFECT", "unasked".into())]
        )))),
        Box::pin(run(phases(fixture("minimal_server.py", &[])))),
    );
    let modern = Some(Era::Modern);
    for r in [&stdio, &http] {
        let f = expect_era(r, ID, None, modern, Status::Fail);
        assert!(
            f.detail.contains(
                "notifications/prompts/list_changed, which the acknowledged filter does not grant"
            ),
            "{}",
            f.detail
        );
    }
    expect_era(&twin, ID, None, modern, Status::Pass);
    let f = expect_era(&unasked_update, ID, None, modern, Status::Fail);
    assert!(
        f.detail.contains(
            "carried notifications/resources/updated, which the acknowledged filter does not grant (it grants nothing)"
        ),
        "{}",
        f.detail
    );
    expect_era(&quiet, ID, None, modern, Status::Pass);
}

/// Only `true` or a non-empty list grants: an acknowledgement whose filter carries
/// `"resourceSubscriptions": []` or `null` grants nothing, so it is not "granting what was
/// not asked for" (it warned before); one naming a resource scout did not ask for still
/// warns. Over Streamable HTTP and stdio.
#[tokio::test]
async fn an_empty_grant_is_no_grant() {
    let over = |d: &str, http: bool| {
        phases(if http {
            fixture_http_env("listen_defects.py", &[("LISTEN_DEFECT", d)])
        } else {
            fixture("listen_defects.py", &[("LISTEN_DEFECT", d.into())])
        })
    };
    let modern = Some(Era::Modern);
    for http in [true, false] {
        let (empty, null, more) = tokio::join!(
            run(over("grants_empty", http)),
            run(over("grants_null", http)),
            run(over("grants_more", http)),
        );
        for r in [&empty, &null] {
            expect_era(r, ID, None, modern, Status::Pass);
        }
        let f = expect_era(&more, ID, None, modern, Status::Warn);
        assert!(
            f.detail
                .contains("grants what was not asked for: resourceSubscriptions"),
            "http {http}: {}",
            f.detail
        );
    }
}

/// An acknowledgement that arrives as an `application/json` body still fails (the
/// subscription's stream never starts), but the verdict says what happened: it came as JSON,
/// not on a stream. Before, it read "no acknowledgement came". The twin streams it.
#[tokio::test]
async fn an_acknowledgement_sent_as_json_is_named_as_such() {
    let (json_ack, twin) = tokio::join!(
        run(phases(fixture_http_env(
            "listen_defects.py",
            &[("LISTEN_DEFECT", "json_ack")]
        ))),
        run(phases(fixture_http("minimal_server.py"))),
    );
    let f = expect_era(&json_ack, ID, None, Some(Era::Modern), Status::Fail);
    assert!(
        f.detail
            .contains("acknowledgement came as an application/json body")
            && !f.detail.contains("no acknowledgement came"),
        "{}",
        f.detail
    );
    expect_era(&twin, ID, None, Some(Era::Modern), Status::Pass);
}
