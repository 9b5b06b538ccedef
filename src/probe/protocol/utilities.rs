//! The server utilities the revisions moved: `protocol.removed_methods` (2026-07-28 removed
//! `logging/setLevel`, `resources/subscribe` and `resources/unsubscribe`), `protocol.logging`
//! (handshake era: `logging/setLevel` and log messages only with the `logging` capability;
//! 2026-07-28: no log message for a request that set no log level; on both, no message below
//! the level asked for) and
//! `protocol.resource_subscribe` (handshake era: a declared `resources.subscribe` works).
//!
//! The judges are pure functions of the replies (the requests are sent by
//! `send::utilities`); the log messages are read from everything recorded on the wire before
//! the protocol phase's final stage (catalogue, execution and the GET stream included).

use crate::report::check::spec_url;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::Reply;
use serde_json::Value;

use super::{Wire, cite, code_of, describe, has_result};

/// The 2025-11-25 logging utility.
const LOG25: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging";
/// The 2025-11-25 resources page (subscriptions).
const RES25: &str = "https://modelcontextprotocol.io/specification/2025-11-25/server/resources";

crate::checks! { phase: Protocol;
    REMOVED_METHODS = "protocol.removed_methods", Minor, "Methods 2026-07-28 removed are unknown methods", spec_url::H26,
        "2026-07-28 wire: logging/setLevel, resources/subscribe and resources/unsubscribe no longer exist (ping is judged by handshake.ping), and the tasks utility left the core for the io.modelcontextprotocol/tasks extension, which has no tasks/list and no tasks/result: those two are sent always, tasks/get (of an id no server issued) when the server does not declare the extension. Each is sent once with the revision's _meta; the server must answer as for any method it does not implement: -32601, with HTTP 404 over Streamable HTTP. A result means the server served the handshake-era method on a 2026-07-28 request (a warning: a dual-era server implements it for its handshake sessions). A server that speaks only 2026-07-28 should name the versions it supports in its error to initialize (the handshake phase's initialize): one that does not is a warning. Not applicable on handshake-era wires.",
        "Route 2026-07-28 requests for removed methods to the unknown-method answer: HTTP 404 with JSON-RPC error -32601.";
    LOGGING = "protocol.logging", Minor, "Log messages follow the logging rules of the revision", LOG25,
        "Handshake era: a server that sends notifications/message must have declared the logging capability (every message recorded on the wire during the run is read); with the capability, logging/setLevel to info must be accepted and an unknown level should get -32602, and every log message on the requests that follow (one ping is sent with the level in force) should be at info or above. 2026-07-28: no notifications/message may arrive for scout's requests without io.modelcontextprotocol/logLevel; one request asks for info, and its log messages should be at info or above; a request whose logLevel is not a level should be rejected with -32602. A 2026-07-28 server that does not declare logging (deprecated there) and sends no log message is not applicable.",
        "Send notifications/message only after declaring logging (handshake era) or for a request that asked for a log level (2026-07-28), and reject unknown levels with -32602.";
    RESOURCE_SUBSCRIBE = "protocol.resource_subscribe", Minor, "A declared resources.subscribe works", RES25,
        "Handshake era, when the server declares resources.subscribe and lists a resource: resources/subscribe and then resources/unsubscribe of the first listed resource must be answered with a result (the schema's EmptyResult), and a notifications/resources/updated that comes with them must be for that resource or a sub-resource of it (a warning otherwise). A server that does not declare subscribe, or lists no resource, is not applicable; 2026-07-28 replaced the methods with subscriptions/listen.",
        "Answer resources/subscribe and resources/unsubscribe with {} when resources.subscribe is declared, or do not declare it.";
}

/// The methods 2026-07-28 removed that `removed_methods` sends (`ping` belongs to
/// `handshake.ping`). The tasks extension that replaced the 2025-11-25 tasks utility has no
/// `tasks/list` and no `tasks/result`; `tasks/get` is sent as well when the server does not
/// declare the extension ([`TASKS_EXTENSION`]).
pub const REMOVED: [&str; 5] = [
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/list",
    "tasks/result",
];

/// The extension 2026-07-28 moved tasks into, as a server declares it in
/// `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether the error a modern-only server gave `initialize` names a version it supports:
/// "A server that supports only modern versions SHOULD name the protocol versions it
/// supports in any error it returns to an initialize request, on any transport".
fn initialize_names_versions(w: &Wire, init: &Reply) -> Result<String, String> {
    let text = init
        .response
        .as_ref()
        .map(|r| r.to_string())
        .or_else(|| init.http.as_ref().map(|h| h.body.clone()))
        .unwrap_or_default();
    if text.contains(&w.version) {
        Ok(format!(
            "the server's error to initialize names {} ({})",
            w.version,
            describe(init)
        ))
    } else {
        Err(format!(
            "initialize got {} without naming the version the server supports ({}); a handshake-era client has no other way to learn it",
            describe(init),
            w.version
        ))
    }
}

/// `removed_methods`: each removed method on a 2026-07-28 wire is an unknown method, and
/// (on a server that speaks only 2026-07-28) the error to `initialize` names its versions.
pub fn removed_methods(
    w: &Wire,
    replies: &[(&str, &Reply)],
    initialize: Option<&Reply>,
) -> FindingBuilder {
    if !w.is_modern() {
        return REMOVED_METHODS.skip(
            SkipReason::NotApplicable,
            "a 2026-07-28 rule; this wire speaks the handshake era",
        );
    }
    let ev = cite(replies.iter().map(|(_, r)| *r).chain(initialize));
    let mut failed = Vec::new();
    let mut warned = Vec::new();
    let mut named = None;
    match initialize.map(|i| initialize_names_versions(w, i)) {
        Some(Ok(s)) => named = Some(s),
        Some(Err(s)) => warned.push(s),
        None => {}
    }
    for (method, r) in replies {
        let code = code_of(r);
        match (w.is_http(), code, r.status()) {
            (true, Some(-32601), Some(404)) | (false, Some(-32601), _) => {}
            // The server says it has no such method, but not with the status the
            // transport requires of exactly that answer.
            (true, Some(-32601), st) => failed.push(format!(
                "{method}: -32601 with HTTP {} instead of 404",
                st.map(|s| s.to_string()).unwrap_or_else(|| "?".into())
            )),
            _ if has_result(r) => warned.push(format!(
                "{method}: answered with a result (served as the handshake-era method)"
            )),
            _ => warned.push(format!("{method}: {} (expected -32601)", describe(r))),
        }
    }
    let expected = if w.is_http() {
        "HTTP 404 with -32601"
    } else {
        "-32601"
    };
    if !failed.is_empty() {
        return REMOVED_METHODS
            .fail(format!(
                "removed methods must get {expected}: {}",
                failed
                    .iter()
                    .chain(&warned)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            ))
            .evidence(ev);
    }
    if !warned.is_empty() {
        return REMOVED_METHODS
            .warn(format!(
                "removed methods should get {expected} on a 2026-07-28 request: {}",
                warned.join("; ")
            ))
            .evidence(ev);
    }
    REMOVED_METHODS
        .pass(format!(
            "{} answered {expected}{}",
            replies
                .iter()
                .map(|(m, _)| *m)
                .collect::<Vec<_>>()
                .join(", "),
            named.map(|n| format!("; {n}")).unwrap_or_default()
        ))
        .evidence(ev)
}

/// What `logging` judges on one wire.
pub struct LogView<'a> {
    /// The server declared the `logging` capability (handshake era).
    pub declared: bool,
    /// Every `notifications/message` the server sent on the wire before the probes.
    pub messages: Vec<Seq>,
    /// `logging/setLevel` to `info` (handshake era, with the capability).
    pub set_level: Option<&'a Reply>,
    /// An unknown level: `logging/setLevel` (handshake era) or a request whose `_meta`
    /// carries it (2026-07-28).
    pub bad_level: Option<&'a Reply>,
    /// The replies to requests sent while a level was in force, with that level: every
    /// request after an accepted `logging/setLevel` (handshake era), or a request whose
    /// `_meta` asked for the level (2026-07-28). Their log messages are judged by level.
    pub levelled: Vec<(&'a Reply, &'a str)>,
}

/// The RFC 5424 severities the logging utility uses, least severe first.
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The log messages among `r`'s notifications that are less severe than `level` asked for,
/// as `debug` (their levels). A message whose level is not a known level is not counted here.
fn below_level(r: &Reply, level: &str) -> Vec<String> {
    let rank = |l: &str| LEVELS.iter().position(|x| *x == l);
    let Some(floor) = rank(level) else {
        return Vec::new();
    };
    r.notifications
        .iter()
        .filter(|n| n.get("method").and_then(Value::as_str) == Some("notifications/message"))
        .filter_map(|n| n.pointer("/params/level").and_then(Value::as_str))
        .filter(|l| rank(l).is_some_and(|x| x < floor))
        .map(str::to_string)
        .collect()
}

/// How many log messages came on the replies sent while a level was in force.
fn levelled_messages(v: &LogView) -> usize {
    v.levelled
        .iter()
        .flat_map(|(r, _)| r.notifications.iter())
        .filter(|n| n.get("method").and_then(Value::as_str) == Some("notifications/message"))
        .count()
}

/// The level rule: after a level was set (or asked for), "the server should send all logs
/// at this level and higher"; a message below it ignores what the client asked.
fn ignored_levels(v: &LogView) -> Option<String> {
    let mut below = Vec::new();
    for (r, level) in &v.levelled {
        let levels = below_level(r, level);
        if !levels.is_empty() {
            below.push(format!(
                "{} message(s) at {} after asking for {level} ({})",
                levels.len(),
                levels.join(", "),
                r.evidence
                    .first()
                    .map(|s| format!("req#{s}"))
                    .unwrap_or_default()
            ));
        }
    }
    (!below.is_empty()).then(|| {
        format!(
            "the server ignored the log level it was given: {}",
            below.join("; ")
        )
    })
}

/// `logging`: log messages only where the revision allows them; levels as asked.
pub fn logging(w: &Wire, v: &LogView) -> FindingBuilder {
    let probes: Vec<&Reply> = v
        .set_level
        .into_iter()
        .chain(v.bad_level)
        .chain(v.levelled.iter().map(|(r, _)| *r))
        .collect();
    let ev: Vec<Seq> = v
        .messages
        .iter()
        .copied()
        .chain(cite(probes.iter().copied()))
        .collect();
    let n = v.messages.len();
    if n > 0 && (w.is_modern() || !v.declared) {
        let why = if w.is_modern() {
            "no request of scout's set io.modelcontextprotocol/logLevel, and the server must not emit notifications/message for a request that does not include it"
        } else {
            "the server did not declare the logging capability, which a server that emits log messages must declare"
        };
        return LOGGING
            .fail(format!("{n} notifications/message arrived: {why}"))
            .evidence(ev);
    }
    let levelled = levelled_messages(v);
    if w.is_modern() && !v.declared && n == 0 && levelled == 0 {
        // Logging is deprecated at 2026-07-28: a server that neither declares it nor logs
        // has no level to respect, and ignoring an invalid one tells nothing.
        return LOGGING.skip(
            SkipReason::NotApplicable,
            "the server does not declare logging and sent no notifications/message, so the log-level rules do not apply",
        );
    }
    let mut warn: Vec<String> = ignored_levels(v).into_iter().collect();
    let mut seen = Vec::new();
    if let Some(r) = v.set_level {
        if has_result(r) {
            seen.push("logging/setLevel to info was accepted".to_string());
        } else {
            warn.push(format!(
                "logging/setLevel to info got {} although the server declares logging",
                describe(r)
            ));
        }
    }
    if let Some(r) = v.bad_level {
        let what = if w.is_modern() {
            "a request whose _meta logLevel is not a level"
        } else {
            "logging/setLevel to a level that does not exist"
        };
        match code_of(r) {
            Some(-32602) => seen.push(format!("{what} got -32602")),
            _ => warn.push(format!("{what} got {} (expected -32602)", describe(r))),
        }
    }
    if n > 0 {
        seen.push(format!(
            "{n} log message(s) came with the declared capability"
        ));
    }
    if levelled > 0 {
        seen.push(format!(
            "{levelled} log message(s) after a level was set were all at or above it"
        ));
    }
    if !warn.is_empty() {
        return LOGGING.warn(warn.join("; ")).evidence(ev);
    }
    if seen.is_empty() {
        return LOGGING.skip(
            SkipReason::NotApplicable,
            "the server declares no logging capability and sent no log message",
        );
    }
    let b = LOGGING.pass(seen.join("; "));
    if ev.is_empty() {
        b.without_exchange()
    } else {
        b.evidence(ev)
    }
}

/// The URIs of `notifications/resources/updated` that came with `replies` for a resource
/// other than `subscribed`. The schema allows "a sub-resource of the one that the client
/// actually subscribed to", so a URI that extends the subscribed one is not counted.
fn unsubscribed_updates<'a>(
    subscribed: &str,
    replies: impl Iterator<Item = &'a Reply>,
) -> Vec<String> {
    let mut out: Vec<String> = replies
        .flat_map(|r| r.notifications.iter())
        .filter(|n| {
            n.get("method").and_then(Value::as_str) == Some("notifications/resources/updated")
        })
        .filter_map(|n| n.pointer("/params/uri").and_then(Value::as_str))
        .filter(|u| !u.starts_with(subscribed))
        .map(str::to_string)
        .collect();
    out.dedup();
    out
}

/// `resource_subscribe`: with `resources.subscribe` declared, subscribing to a listed
/// resource and unsubscribing again both work.
pub fn resource_subscribe(
    w: &Wire,
    declared: bool,
    uri: Option<&str>,
    sub: Option<&Reply>,
    unsub: Option<&Reply>,
) -> FindingBuilder {
    if w.is_modern() {
        return RESOURCE_SUBSCRIBE.skip(
            SkipReason::NotApplicable,
            "a handshake-era method; 2026-07-28 replaced it with subscriptions/listen (its removal is judged by protocol.removed_methods)",
        );
    }
    if !declared {
        return RESOURCE_SUBSCRIBE.skip(
            SkipReason::NotApplicable,
            "the server does not declare resources.subscribe",
        );
    }
    let (Some(uri), Some(sub)) = (uri, sub) else {
        return RESOURCE_SUBSCRIBE.skip(
            SkipReason::NotApplicable,
            "the server declares resources.subscribe but listed no resource to subscribe to",
        );
    };
    let ev = cite(std::iter::once(sub).chain(unsub));
    let mut bad = Vec::new();
    let others = unsubscribed_updates(uri, std::iter::once(sub).chain(unsub));
    if !others.is_empty() {
        bad.push(format!(
            "after subscribing to {uri} only, notifications/resources/updated came for {}",
            others.join(", ")
        ));
    }
    for (what, r) in [
        ("resources/subscribe", Some(sub)),
        ("resources/unsubscribe", unsub),
    ] {
        if let Some(r) = r.filter(|r| !has_result(r)) {
            bad.push(format!("{what} of {uri} got {}", describe(r)));
        }
    }
    if bad.is_empty() {
        RESOURCE_SUBSCRIBE
            .pass(format!(
                "resources/subscribe and resources/unsubscribe of {uri} were answered with results"
            ))
            .evidence(ev)
    } else {
        RESOURCE_SUBSCRIBE
            .warn(format!(
                "the server declares resources.subscribe, yet {}",
                bad.join("; ")
            ))
            .evidence(ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::protocol::testing::http_json;
    use crate::report::finding::{Era, Status};
    use crate::report::model::TransportKind;

    fn modern() -> Wire {
        Wire::new(Era::Modern, TransportKind::Http, "2026-07-28")
    }
    fn legacy() -> Wire {
        Wire::new(Era::Legacy, TransportKind::Http, "2025-11-25")
    }
    const NOT_FOUND: &str =
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found"}}"#;
    const EMPTY: &str = r#"{"jsonrpc":"2.0","id":"x","result":{}}"#;
    const BAD_PARAMS: &str =
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"Invalid params"}}"#;

    #[test]
    fn removed_methods_want_404_and_minus_32601() {
        let ok = http_json(1, 404, NOT_FOUND);
        let f = removed_methods(&modern(), &[("logging/setLevel", &ok)], None);
        assert_eq!(f.status(), Status::Pass);
        let wrong_status = http_json(2, 200, NOT_FOUND);
        let f = removed_methods(&modern(), &[("resources/subscribe", &wrong_status)], None);
        assert_eq!(f.status(), Status::Fail);
        let served = http_json(3, 200, EMPTY);
        let f = removed_methods(&modern(), &[("resources/subscribe", &served)], None);
        assert_eq!(f.status(), Status::Warn);
        assert_eq!(
            removed_methods(&legacy(), &[("logging/setLevel", &served)], None).status(),
            Status::Skip
        );
    }

    #[test]
    fn log_messages_need_the_capability_or_a_log_level() {
        let none = LogView {
            declared: false,
            messages: vec![],
            set_level: None,
            bad_level: None,
            levelled: vec![],
        };
        assert_eq!(logging(&legacy(), &none).status(), Status::Skip);
        let undeclared = LogView {
            messages: vec![7],
            ..none
        };
        assert_eq!(logging(&legacy(), &undeclared).status(), Status::Fail);
        let set = http_json(8, 200, EMPTY);
        let bad = http_json(9, 200, BAD_PARAMS);
        let declared = LogView {
            declared: true,
            messages: vec![7],
            set_level: Some(&set),
            bad_level: Some(&bad),
            levelled: vec![],
        };
        assert_eq!(logging(&legacy(), &declared).status(), Status::Pass);
        let lax = http_json(10, 200, EMPTY);
        let lenient = LogView {
            bad_level: Some(&lax),
            ..declared
        };
        assert_eq!(logging(&legacy(), &lenient).status(), Status::Warn);
        // 2026-07-28: any message for a request without logLevel is a fail, capability or not.
        let modern_msgs = LogView {
            declared: true,
            messages: vec![3],
            set_level: None,
            bad_level: Some(&bad),
            levelled: vec![],
        };
        assert_eq!(logging(&modern(), &modern_msgs).status(), Status::Fail);
    }

    fn with_logs(seq: Seq, levels: &[&str]) -> Reply {
        let mut r = http_json(seq, 200, EMPTY);
        r.notifications = levels
            .iter()
            .map(|l| serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": l, "data": "x"}}))
            .collect();
        r
    }

    #[test]
    fn log_messages_below_the_level_asked_for_warn() {
        let set = http_json(8, 200, EMPTY);
        let chatty = with_logs(9, &["debug", "info"]);
        let view = LogView {
            declared: true,
            messages: vec![],
            set_level: Some(&set),
            bad_level: None,
            levelled: vec![(&chatty, "info")],
        };
        let f = logging(&legacy(), &view);
        assert_eq!(f.status(), Status::Warn);
        assert!(
            f.detail().contains("at debug after asking for info"),
            "{}",
            f.detail()
        );
        let quiet = with_logs(10, &["info", "error"]);
        let view = LogView {
            levelled: vec![(&quiet, "info")],
            ..view
        };
        assert_eq!(logging(&legacy(), &view).status(), Status::Pass);
    }

    #[test]
    fn an_undeclared_silent_modern_server_has_no_level_to_respect() {
        // It accepts a logLevel that is not a level, but it neither declares logging nor logs.
        let lax = http_json(3, 200, EMPTY);
        let asked = http_json(4, 200, EMPTY);
        let view = LogView {
            declared: false,
            messages: vec![],
            set_level: None,
            bad_level: Some(&lax),
            levelled: vec![(&asked, "info")],
        };
        assert_eq!(logging(&modern(), &view).status(), Status::Skip);
        let declared = LogView {
            declared: true,
            ..view
        };
        assert_eq!(logging(&modern(), &declared).status(), Status::Warn);
    }

    #[test]
    fn a_declared_subscription_must_work() {
        let ok = http_json(1, 200, EMPTY);
        let no = http_json(2, 200, NOT_FOUND);
        let w = legacy();
        assert_eq!(
            resource_subscribe(&w, true, Some("demo://a"), Some(&ok), Some(&ok)).status(),
            Status::Pass
        );
        assert_eq!(
            resource_subscribe(&w, true, Some("demo://a"), Some(&no), Some(&ok)).status(),
            Status::Warn
        );
        let mut noisy = http_json(3, 200, EMPTY);
        noisy.notifications = vec![
            serde_json::json!({"method": "notifications/resources/updated", "params": {"uri": "demo://a/part"}}),
            serde_json::json!({"method": "notifications/resources/updated", "params": {"uri": "demo://b"}}),
        ];
        let f = resource_subscribe(&w, true, Some("demo://a"), Some(&noisy), Some(&ok));
        assert_eq!(f.status(), Status::Warn);
        assert!(f.detail().contains("came for demo://b"), "{}", f.detail());
        assert!(!f.detail().contains("demo://a/part"), "{}", f.detail());
        assert_eq!(
            resource_subscribe(&w, false, None, None, None).status(),
            Status::Skip
        );
        assert_eq!(
            resource_subscribe(&w, true, None, None, None).status(),
            Status::Skip
        );
    }
}
