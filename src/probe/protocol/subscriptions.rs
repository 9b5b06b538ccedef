//! `protocol.subscriptions`: 2026-07-28's `subscriptions/listen` (which replaced the GET
//! stream and `resources/subscribe`) acknowledges a subscription before anything else. scout
//! opens one listen on a 2026-07-28 wire, asking for every list-changed notification, reads
//! up to the subscription's first message, and ends the subscription: over Streamable HTTP by
//! closing the stream, over stdio with `notifications/cancelled`, after which nothing more
//! may come for it. The judges are pure functions of the replies.

use serde_json::Value;

use crate::client::Connection;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason, Status};
use crate::spec::ListTrigger;
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
        "2026-07-28: scout opens subscriptions/listen asking for every list-changed notification (tools, prompts, resources) and reads up to the subscription's first message. That first message must be notifications/subscriptions/acknowledged carrying the listen request's JSON-RPC id as io.modelcontextprotocol/subscriptionId in _meta; its filter should be a subset of what was asked (a warning otherwise; only true or a non-empty list grants, so [] or null grants nothing). Over Streamable HTTP scout then closes the stream, which ends the subscription. Over stdio (where messages of the subscription are told apart by that id) scout then sends notifications/cancelled for the listen request and asks the server a question behind it: once that is answered, nothing more may have come for the subscription, neither a response to the cancelled request nor a notification (a warning: the client ignores them). List-changed delivery is judged when [client] trigger names a tool (called only if the safety policy allows it) or a command: scout fires it once the acknowledgement came and reads on to the subscription's next message, which must be a list-changed notification (any other kind fails: scout asked for list changes only); none within the request timeout, or one without the subscription's id, is a warning (the trigger may not have changed a list the server watches). Every notification read on the subscription after the acknowledgement (the trigger's, and over stdio whatever came with the subscription's id before scout cancelled it) must be of a kind the acknowledged filter granted: a list change set to true, or resources/updated when resourceSubscriptions is true or names a URI; any other fails. Without a trigger the verdict says delivery was not triggered. A server that answers -32601 does not offer subscriptions and is not applicable; another error (a limit, say) is reported as information, since no rule makes a server accept every subscription. Not applicable on handshake-era wires.",
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
    // An id of scout's own, unique in the run, that the acknowledgement must carry back.
    let id = match conn.connector().next_id() {
        Value::String(s) => format!("{s}-listen"),
        other => format!("scout-{other}-listen"),
    };
    // With a trigger the subscription is read past its acknowledgement: the trigger fires
    // once the acknowledgement came, and reading ends at the next message (or the timeout).
    let trigger = usable_trigger(conn).await;
    let first = std::sync::Arc::new(tokio::sync::Notify::new());
    let armed = matches!(trigger, Ok(Some(_)));
    let probe = Probe {
        method: Some("subscriptions/listen".into()),
        id: IdKind::Str(id.clone()),
        params: Some(serde_json::json!({"notifications": filter()})),
        first_message_only: !armed,
        end_after: if armed { 2 } else { 0 },
        first_message: Some(first.clone()),
        ..Probe::default()
    };
    let fire = async {
        let Ok(Some(t)) = &trigger else {
            return None;
        };
        tokio::time::timeout(conn.connector().timeout(), first.notified())
            .await
            .ok()?;
        Some(fire(conn, t).await)
    };
    let (reply, fired) = futures_util::join!(conn.send(probe), fire);
    // stdio: what came after the listen request and was not attributed to it (no
    // subscription id) is in the inbox.
    let since = reply.evidence.first().copied().unwrap_or(0);
    let fired = fired.map(|f| {
        f.map(|(did, ev, mut beside)| {
            if let Some(stdio) = conn.stdio() {
                beside.extend(
                    stdio
                        .inbox()
                        .into_iter()
                        .filter(|(seq, _)| *seq > since)
                        .map(|(_, m)| m),
                );
            }
            (did, ev, beside)
        })
    });
    let id = Value::String(id);
    let opened = subscriptions(&id, &filter(), &reply);
    let opened = match (&trigger, fired) {
        (_, Some(f)) => delivered(opened, &id, &reply, f),
        (Ok(_), None) if opened.status() == Status::Pass && armed => opened,
        (Ok(_), None) => noted(
            opened,
            "list-changed delivery was not triggered (name a tool or a command in [client] trigger to judge it)",
        ),
        (Err(why), None) => noted(
            opened,
            &format!("list-changed delivery was not triggered: {why}"),
        ),
    };
    // Every message on the stream after the acknowledgement: what the reply read, and (stdio)
    // what came for the subscription since, before scout cancels it.
    let mut stream: Vec<Value> = reply.notifications.iter().skip(1).cloned().collect();
    if let Some(stdio) = conn.stdio() {
        stream.extend(
            stdio
                .inbox()
                .into_iter()
                .filter(|(seq, m)| *seq > since && of_subscription(m, &id))
                .map(|(_, m)| m),
        );
    }
    let opened = kept_to_filter(opened, &reply, &stream);
    // stdio: the subscription stays open until scout cancels it; HTTP closed its stream.
    match conn.stdio() {
        Some(stdio) if !reply.notifications.is_empty() && reply.response.is_none() => {
            let cancel = conn
                .send(Probe::notification(
                    "notifications/cancelled",
                    Some(serde_json::json!({"requestId": id, "reason": "scout is done listening"})),
                ))
                .await;
            let after = cancel.evidence.first().copied().unwrap_or(0);
            let late: Vec<(Seq, Value)> = stdio
                .inbox()
                .into_iter()
                .filter(|(seq, _)| *seq > after)
                .chain(cancel.notifications.iter().map(|n| (after, n.clone())))
                .filter(|(_, m)| of_subscription(m, &id))
                .collect();
            cancelled(opened, &cancel, &late)
        }
        _ => opened,
    }
}

/// A passing verdict with `note` added to its detail; any other verdict as it was.
fn noted(f: FindingBuilder, note: &str) -> FindingBuilder {
    if f.status() != Status::Pass {
        return f;
    }
    SUBSCRIPTIONS
        .pass(format!("{}; {note}", f.detail()))
        .evidence(f.cited().to_vec())
}

/// The configured trigger when scout may use it: `Ok(None)` with none configured, `Err` with
/// the reason it may not (a tool the safety policy keeps from being called, or not listed).
async fn usable_trigger(conn: &Connection) -> Result<Option<ListTrigger>, String> {
    let spec = conn.connector().spec();
    let Some(t) = spec.list_trigger.clone() else {
        return Ok(None);
    };
    if let ListTrigger::Tool { name, .. } = &t {
        let listed = crate::client::catalogue::list(conn)
            .await
            .map_err(|e| format!("the tools could not be listed to find {name} ({e})"))?;
        let Some(tool) = listed
            .tools
            .iter()
            .find(|x| crate::policy::tool_name(x) == name)
        else {
            return Err(format!("the trigger tool {name} is not listed"));
        };
        if let crate::policy::Decision::Skip { reason, allow_with } =
            crate::policy::decide(tool, &spec.policy)
        {
            return Err(format!(
                "the safety policy keeps scout from calling the trigger tool {name} ({reason}; {allow_with} would allow it)"
            ));
        }
    }
    Ok(Some(t))
}

/// What firing the trigger did: a sentence, the exchanges it made and the notifications
/// that came with them, or why it failed.
type Fired = Result<(String, Vec<Seq>, Vec<Value>), String>;

/// Fires the trigger: calls the tool, or runs the command (no shell, bounded by the
/// request timeout, its output discarded).
async fn fire(conn: &Connection, t: &ListTrigger) -> Fired {
    match t {
        ListTrigger::Tool { name, arguments } => {
            let r = conn.call_tool(name, arguments.clone(), &Value::Null).await;
            if r.result().is_some() {
                Ok((format!("scout called {name}"), r.evidence, r.notifications))
            } else {
                Err(format!("the trigger tool {name} got {}", describe(&r)))
            }
        }
        ListTrigger::Command(cmd) => {
            let mut c = tokio::process::Command::new(&cmd[0]);
            c.args(&cmd[1..])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .kill_on_drop(true);
            let shown = cmd.join(" ");
            let mut child = c
                .spawn()
                .map_err(|e| format!("the trigger command `{shown}` could not start ({e})"))?;
            match tokio::time::timeout(conn.connector().timeout(), child.wait()).await {
                Ok(Ok(st)) if st.success() => {
                    Ok((format!("scout ran `{shown}`"), Vec::new(), Vec::new()))
                }
                Ok(Ok(st)) => Err(format!("the trigger command `{shown}` failed ({st})")),
                Ok(Err(e)) => Err(format!("the trigger command `{shown}` failed ({e})")),
                Err(_) => Err(format!(
                    "the trigger command `{shown}` did not finish within the request timeout"
                )),
            }
        }
    }
}

/// The list-changed notifications a subscription may carry, by filter key.
const LIST_CHANGED: [(&str, &str); 3] = [
    ("toolsListChanged", "notifications/tools/list_changed"),
    ("promptsListChanged", "notifications/prompts/list_changed"),
    (
        "resourcesListChanged",
        "notifications/resources/list_changed",
    ),
];

/// The notification methods an acknowledgement's filter grants: each list-changed kind set
/// to `true`, and `notifications/resources/updated` when `resourceSubscriptions` is `true` or
/// names at least one URI (an empty list or `null` grants nothing).
fn granted_methods(ack: Option<&Value>) -> Vec<&'static str> {
    let Some(m) = ack
        .and_then(|a| a.pointer("/params/notifications"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let mut out: Vec<&'static str> = LIST_CHANGED
        .iter()
        .filter(|(k, _)| m.get(*k) == Some(&Value::Bool(true)))
        .map(|(_, method)| *method)
        .collect();
    if m.get("resourceSubscriptions").is_some_and(grants) {
        out.push("notifications/resources/updated");
    }
    out
}

/// Whether a filter entry grants anything: `true`, or a list with at least one entry.
fn grants(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

/// The notifications on a subscription, after its acknowledgement, of a kind the
/// acknowledged filter did not grant ("The server MUST NOT send notification types the
/// client has not explicitly requested"). Responses are not notifications and are left out.
fn outside_filter<'a>(ack: Option<&Value>, stream: &'a [Value]) -> Vec<&'a str> {
    let granted = granted_methods(ack);
    stream
        .iter()
        .filter_map(|n| n.get("method").and_then(Value::as_str))
        .filter(|m| *m != ACKNOWLEDGED && !granted.contains(m))
        .collect()
}

/// A passing verdict unless a notification on the subscription's stream (`stream`: every
/// message after the acknowledgement that carries the subscription's id) is of a kind the
/// acknowledgement did not grant: that fails.
pub fn kept_to_filter(opened: FindingBuilder, reply: &Reply, stream: &[Value]) -> FindingBuilder {
    if opened.status() != Status::Pass {
        return opened;
    }
    let outside = outside_filter(reply.notifications.first(), stream);
    if outside.is_empty() {
        return opened;
    }
    let granted = granted_methods(reply.notifications.first());
    SUBSCRIPTIONS
        .fail(format!(
            "the subscription carried {}, which the acknowledged filter does not grant (it grants {})",
            outside.join(", "),
            if granted.is_empty() {
                "nothing".to_string()
            } else {
                granted.join(", ")
            }
        ))
        .evidence(opened.cited().to_vec())
}

/// The verdict once the trigger fired: the subscription's next message must be a
/// list-changed notification of a kind the acknowledgement granted ("The server MUST NOT
/// send notification types the client has not explicitly requested"); none within the
/// timeout is a warning (the trigger may not have changed a list).
pub fn delivered(
    opened: FindingBuilder,
    id: &Value,
    reply: &Reply,
    fired: Fired,
) -> FindingBuilder {
    if opened.status() != Status::Pass {
        return opened;
    }
    let (did, trigger_ev, beside) = match fired {
        Ok(x) => x,
        Err(why) => {
            return noted(
                opened,
                &format!("list-changed delivery was not judged: {why}"),
            );
        }
    };
    let ev: Vec<Seq> = opened.cited().iter().copied().chain(trigger_ev).collect();
    let granted: Vec<&str> = granted_methods(reply.notifications.first())
        .into_iter()
        .filter(|m| LIST_CHANGED.iter().any(|(_, l)| l == m))
        .collect();
    let Some(next) = reply.notifications.get(1) else {
        if granted.is_empty() {
            return noted(
                opened,
                &format!("{did}; the acknowledgement granted no list-changed notification, so none was awaited"),
            )
            .evidence(ev);
        }
        // stdio: a notification without the subscription's id cannot be told apart, and
        // came with the trigger's own call.
        if let Some(m) = beside.iter().find_map(|n| {
            let m = n.get("method").and_then(Value::as_str)?;
            LIST_CHANGED.iter().any(|(_, l)| *l == m).then_some(m)
        }) {
            return SUBSCRIPTIONS
                .warn(format!(
                    "{}; {did}, and {m} arrived without the subscription's id in _meta, so it could not be told apart from other messages",
                    opened.detail()
                ))
                .evidence(ev);
        }
        return SUBSCRIPTIONS
            .warn(format!(
                "{}; {did}, and no list-changed notification arrived on the subscription within the request timeout (granted: {})",
                opened.detail(),
                granted.join(", ")
            ))
            .evidence(ev);
    };
    let method = next.get("method").and_then(Value::as_str).unwrap_or("");
    let tagged = next
        .pointer("/params/_meta")
        .and_then(|m| m.get(SUBSCRIPTION_ID))
        == Some(id);
    if !LIST_CHANGED.iter().any(|(_, m)| *m == method) {
        return SUBSCRIPTIONS
            .fail(format!(
                "after {did} the subscription carried {method}, which scout did not subscribe to (it asked for list changes only)"
            ))
            .evidence(ev);
    }
    if !granted.contains(&method) {
        return SUBSCRIPTIONS
            .fail(format!(
                "after {did} the subscription carried {method}, which the acknowledged filter does not grant (it grants {})",
                if granted.is_empty() {
                    "no list change".to_string()
                } else {
                    granted.join(", ")
                }
            ))
            .evidence(ev);
    }
    if !tagged {
        return SUBSCRIPTIONS
            .warn(format!(
                "{}; {did}, and {method} arrived without the subscription's id in _meta",
                opened.detail()
            ))
            .evidence(ev);
    }
    SUBSCRIPTIONS
        .pass(format!(
            "{}; {did}, and {method} arrived on the subscription",
            opened.detail()
        ))
        .evidence(ev)
}

/// Whether `message` belongs to the subscription `id`: its response, or a message carrying
/// the id in `_meta`.
fn of_subscription(message: &Value, id: &Value) -> bool {
    let response = message.get("method").is_none() && message.get("id") == Some(id);
    let tagged = message
        .pointer("/params/_meta")
        .and_then(|m| m.get(SUBSCRIPTION_ID))
        == Some(id);
    response || tagged
}

/// The verdict once a stdio subscription was cancelled: nothing more may come for it
/// ("Servers receiving cancellation notifications SHOULD … Not send a response for the
/// cancelled request"; the subscription is over, so its notifications stop).
pub fn cancelled(opened: FindingBuilder, cancel: &Reply, late: &[(Seq, Value)]) -> FindingBuilder {
    if opened.status() != Status::Pass {
        return opened;
    }
    let ev = cancel
        .evidence
        .iter()
        .copied()
        .chain(late.iter().map(|(s, _)| *s));
    if late.is_empty() {
        return SUBSCRIPTIONS
            .pass(format!(
                "{}; after notifications/cancelled nothing more came for the subscription",
                opened.detail()
            ))
            .evidence(opened.cited().iter().copied().chain(ev));
    }
    let what: Vec<String> = late
        .iter()
        .map(|(_, m)| {
            m.get("method").and_then(Value::as_str).map_or_else(
                || "a response to the listen request".to_string(),
                str::to_string,
            )
        })
        .collect();
    SUBSCRIPTIONS
        .warn(format!(
            "the subscription was acknowledged, but after scout cancelled it (notifications/cancelled) the server still sent {}",
            what.join(", ")
        ))
        .evidence(opened.cited().iter().copied().chain(ev))
}

/// When the server answered the listen request with an `application/json` body instead of a
/// stream, what that body held: an acknowledgement that came as JSON is not "no
/// acknowledgement", it is one sent where no subscription can follow it.
fn acknowledged_as_json(reply: &Reply) -> Option<String> {
    let h = reply.http.as_ref().filter(|h| h.sse.is_none())?;
    let ctype = h.content_type.as_deref().unwrap_or("");
    if !ctype.starts_with("application/json") {
        return None;
    }
    let body: Value = serde_json::from_str(h.body.trim()).ok()?;
    let messages = match body {
        Value::Array(a) => a,
        v => vec![v],
    };
    let acked = messages
        .iter()
        .any(|m| m.get("method").and_then(Value::as_str) == Some(ACKNOWLEDGED));
    Some(if acked {
        format!(
            "the acknowledgement came as an application/json body (HTTP {}), not as the first message of an SSE stream, so no subscription can follow it",
            h.status
        )
    } else {
        format!(
            "the server answered subscriptions/listen with an application/json body (HTTP {}, {}) instead of an SSE stream that starts with the acknowledgement",
            h.status,
            describe(reply)
        )
    })
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
        // No rule makes a server accept every subscription (a limit is its own business):
        // a refusal is what the server said, and there is no subscription to judge.
        Some(code) => {
            return SUBSCRIPTIONS
                .info(format!(
                    "subscriptions/listen was refused with error {code} ({}), so no subscription could be judged",
                    reply.error_message().unwrap_or_default()
                ))
                .evidence(ev);
        }
        None => {}
    }
    let Some(first) = reply.notifications.first() else {
        let why = if let Some(what) = acknowledged_as_json(reply) {
            what
        } else if reply.result().is_some() {
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
        // Only true or a non-empty list grants: [] or null acknowledges nothing.
        .filter(|(k, v)| grants(v) && asked.get(k.as_str()).is_none())
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
    fn only_true_or_a_non_empty_list_grants() {
        let ack = |f: Value| json!({"method": ACKNOWLEDGED, "params": {"notifications": f}});
        let a = ack(json!({"toolsListChanged": true, "resourceSubscriptions": []}));
        assert_eq!(
            granted_methods(Some(&a)),
            vec!["notifications/tools/list_changed"]
        );
        let a = ack(json!({"resourceSubscriptions": ["x://y"], "promptsListChanged": false}));
        assert_eq!(
            granted_methods(Some(&a)),
            vec!["notifications/resources/updated"]
        );
        let stream = [
            json!({"method": "notifications/resources/updated"}),
            json!({"method": "notifications/prompts/list_changed"}),
            json!({"id": "l", "result": {}}),
        ];
        assert_eq!(
            outside_filter(Some(&a), &stream),
            vec!["notifications/prompts/list_changed"]
        );
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
