//! `protocol.subscriptions`: 2026-07-28's `subscriptions/listen` (which replaced the GET
//! stream and `resources/subscribe`) acknowledges a subscription before anything else. scout
//! opens one listen on a 2026-07-28 Streamable HTTP wire, asking for every list-changed
//! notification, reads the stream up to its first message, and closes it (which ends the
//! subscription). The judge is a pure function of that reply.

use serde_json::Value;

use crate::client::Connection;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::{IdKind, Probe, Reply};

use super::{Wire, describe};

/// The 2026-07-28 subscriptions page.
const SUB26: &str =
    "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions";

/// The key of the subscription id in `_meta`.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The acknowledgement's method.
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

crate::checks! { phase: Protocol;
    SUBSCRIPTIONS = "protocol.subscriptions", Major, "A subscription is acknowledged first, with its id", SUB26,
        "2026-07-28 over Streamable HTTP: scout opens subscriptions/listen asking for every list-changed notification (tools, prompts, resources), reads the stream up to its first message and closes it, which ends the subscription. That first message must be notifications/subscriptions/acknowledged carrying the listen request's JSON-RPC id as io.modelcontextprotocol/subscriptionId in _meta; its filter should be a subset of what was asked (a warning otherwise). A server that answers -32601 does not offer subscriptions and is not applicable; another error is a warning. Not assessed over stdio yet; not applicable on handshake-era wires.",
        "Send notifications/subscriptions/acknowledged, with the listen request's id as io.modelcontextprotocol/subscriptionId, before anything else on a subscription's stream.";
}

/// The filter scout asks for: every list-changed notification (a server omits from its
/// acknowledgement what it does not support).
fn filter() -> Value {
    serde_json::json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
    })
}

/// Opens one subscription on a 2026-07-28 Streamable HTTP wire and judges its first message.
pub async fn listen(conn: &Connection, w: &Wire) -> FindingBuilder {
    if !w.is_modern() {
        return SUBSCRIPTIONS.skip(
            SkipReason::NotApplicable,
            "a 2026-07-28 method; this wire speaks the handshake era",
        );
    }
    if !w.is_http() {
        return SUBSCRIPTIONS.skip(
            SkipReason::NotAssessed,
            "subscriptions/listen is probed over Streamable HTTP only for now",
        );
    }
    // An id of scout's own, unique in the run, that the acknowledgement must carry back.
    let id = match conn.connector().next_id() {
        Value::String(s) => format!("{s}-listen"),
        other => format!("scout-{other}-listen"),
    };
    let reply = conn
        .send(Probe {
            method: Some("subscriptions/listen".into()),
            id: IdKind::Str(id.clone()),
            params: Some(serde_json::json!({"notifications": filter()})),
            first_message_only: true,
            ..Probe::default()
        })
        .await;
    subscriptions(&Value::String(id), &filter(), &reply)
}

/// The verdict on a listen request with `id` and filter `asked`, from its `reply`.
pub fn subscriptions(id: &Value, asked: &Value, reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.clone();
    match reply.error_code() {
        Some(-32601) => {
            return SUBSCRIPTIONS.skip(
                SkipReason::NotApplicable,
                "the server does not offer subscriptions/listen (-32601)",
            );
        }
        Some(code) => {
            return SUBSCRIPTIONS
                .warn(format!(
                    "subscriptions/listen was refused with error {code} ({})",
                    reply.error_message().unwrap_or_default()
                ))
                .evidence(ev);
        }
        None => {}
    }
    let Some(first) = reply.notifications.first() else {
        let why = if reply.result().is_some() {
            "the subscription ended with a result and no acknowledgement".to_string()
        } else {
            format!("no acknowledgement came ({})", describe(reply))
        };
        return SUBSCRIPTIONS.fail(why).evidence(ev);
    };
    let method = first.get("method").and_then(Value::as_str).unwrap_or("");
    if method != ACKNOWLEDGED {
        return SUBSCRIPTIONS
            .fail(format!(
                "the stream's first message was {method}, not {ACKNOWLEDGED}"
            ))
            .evidence(ev);
    }
    let params = first.get("params").unwrap_or(&Value::Null);
    let sub_id = params.get("_meta").and_then(|m| m.get(SUBSCRIPTION_ID));
    if sub_id != Some(id) {
        return SUBSCRIPTIONS
            .fail(format!(
                "the acknowledgement carries subscriptionId {}, not the listen request's id {id}",
                sub_id.map_or_else(|| "none".to_string(), Value::to_string)
            ))
            .evidence(ev);
    }
    let granted = params.get("notifications").unwrap_or(&Value::Null);
    let extra: Vec<&String> = granted
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| **v != Value::Bool(false) && asked.get(k.as_str()).is_none())
        .map(|(k, _)| k)
        .collect();
    if !extra.is_empty() {
        return SUBSCRIPTIONS
            .warn(format!(
                "the acknowledgement grants what was not asked for: {}",
                extra
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .evidence(ev);
    }
    SUBSCRIPTIONS
        .pass(format!(
            "{ACKNOWLEDGED} came first, with subscriptionId {id} and the filter {granted}"
        ))
        .evidence(ev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::reply;
    use crate::report::finding::Status;
    use serde_json::json;

    fn with(notes: Vec<Value>) -> Reply {
        let mut r = reply(3, json!(null));
        r.response = None;
        r.notifications = notes;
        r
    }

    fn status(r: &Reply) -> Status {
        subscriptions(&json!("s1"), &filter(), r)
            .build(|_| true)
            .expect("within the basis")
            .status
    }

    fn ack(id: Value, granted: Value) -> Value {
        json!({"jsonrpc": "2.0", "method": ACKNOWLEDGED,
            "params": {"notifications": granted, "_meta": {SUBSCRIPTION_ID: id}}})
    }

    #[test]
    fn the_acknowledgement_first_with_the_listen_id_passes() {
        let ok = with(vec![ack(json!("s1"), json!({"toolsListChanged": true}))]);
        assert_eq!(status(&ok), Status::Pass);
        let wrong_id = with(vec![ack(json!("other"), json!({}))]);
        assert_eq!(status(&wrong_id), Status::Fail);
        let not_first = with(vec![
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}),
        ]);
        assert_eq!(status(&not_first), Status::Fail);
        assert_eq!(status(&with(Vec::new())), Status::Fail);
        let more = with(vec![ack(
            json!("s1"),
            json!({"resourceSubscriptions": ["x://y"]}),
        )]);
        assert_eq!(status(&more), Status::Warn);
    }

    #[test]
    fn a_server_without_subscriptions_is_not_applicable() {
        let r = reply(
            3,
            json!({"jsonrpc": "2.0", "id": "s1", "error": {"code": -32601, "message": "nope"}}),
        );
        assert_eq!(status(&r), Status::Skip);
    }
}
