//! Probes of the utilities the revisions moved: the methods 2026-07-28 removed, logging and
//! resource subscriptions. Every request is read-only: a log level for this connection, a
//! subscription to a resource the server listed (ended at once), or a removed method.

use super::*;
use crate::probe::protocol::has_result;
use crate::probe::protocol::judge::wire_schema::sse_values;
use crate::probe::protocol::utilities::{self as judge_u, LogView, REMOVED, TASKS_EXTENSION};
use crate::report::exchange::Exchange;

/// A level no revision defines, for the "unknown level" probes.
const NO_LEVEL: &str = "scout-no-such-level";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// `removed_methods`, `logging` and `resource_subscribe` on one wire.
pub(super) async fn utilities_group(s: &Session, conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    // Read before this group's own probes, so that an answer to them is not counted.
    let messages = log_messages(s, w);
    if w.is_modern() {
        let mut removed = Vec::new();
        let extension = conn
            .capabilities()
            .pointer("/extensions")
            .and_then(|e| e.get(TASKS_EXTENSION))
            .is_some();
        let tasks_get = (!extension).then_some("tasks/get");
        for method in REMOVED.into_iter().chain(tasks_get) {
            let params = match method {
                "logging/setLevel" => json!({"level": "info"}),
                m if m.starts_with("tasks/") => {
                    json!({"taskId": crate::probe::execution::tasks::UNKNOWN_TASK})
                }
                _ => json!({"uri": "scout://removed-method.invalid/"}),
            };
            let r = conn.send(Probe::request(method, params)).await;
            removed.push((method, r));
        }
        let refs: Vec<(&str, &Reply)> = removed.iter().map(|(m, r)| (*m, r)).collect();
        out.findings.push(judge_u::removed_methods(
            w,
            &refs,
            s.initialize_refused.as_ref(),
        ));
        let mut meta = envelope(&w.version);
        meta[META_LOG_LEVEL] = json!(NO_LEVEL);
        let bad = conn
            .send(Probe {
                meta: MetaMode::Custom(meta),
                ..plain(w, IdKind::Str("scout-log-level".into()))
            })
            .await;
        // A request that asks for info: its log messages, if any, must be at info or above.
        let mut meta = envelope(&w.version);
        meta[META_LOG_LEVEL] = json!("info");
        let asked = conn
            .send(Probe {
                meta: MetaMode::Custom(meta),
                ..plain(w, IdKind::Str("scout-log-info".into()))
            })
            .await;
        out.findings.push(judge_u::logging(
            w,
            &LogView {
                declared: conn.declares("logging"),
                messages,
                set_level: None,
                bad_level: Some(&bad),
                levelled: vec![(&asked, "info")],
            },
        ));
        out.findings
            .push(judge_u::resource_subscribe(w, false, None, None, None));
        for (r, id) in removed.into_iter().map(|(_, r)| (r, Value::Null)).chain([
            (bad, json!("scout-log-level")),
            (asked, json!("scout-log-info")),
        ]) {
            out.replies.push(Sent { reply: r, id });
        }
        return out;
    }
    out.findings.push(judge_u::removed_methods(w, &[], None));
    let declared = conn.declares("logging");
    let (set, bad, after) = if declared {
        let set = conn
            .send(Probe::request("logging/setLevel", json!({"level": "info"})))
            .await;
        let bad = conn
            .send(Probe::request(
                "logging/setLevel",
                json!({"level": NO_LEVEL}),
            ))
            .await;
        // One harmless request with the level in force, so that a server that logs as it
        // works has a chance to show whether it keeps to the level.
        let after = conn.send(plain(w, IdKind::Auto)).await;
        (Some(set), Some(bad), Some(after))
    } else {
        (None, None, None)
    };
    // Every reply after an accepted setLevel to info: the unknown level leaves it in force.
    let levelled: Vec<(&Reply, &str)> = match &set {
        Some(s) if has_result(s) => bad.iter().chain(&after).map(|r| (r, "info")).collect(),
        _ => Vec::new(),
    };
    out.findings.push(judge_u::logging(
        w,
        &LogView {
            declared,
            messages,
            set_level: set.as_ref(),
            bad_level: bad.as_ref(),
            levelled,
        },
    ));
    let subscribes = conn
        .capabilities()
        .pointer("/resources/subscribe")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let uri = first_resource(s, w);
    let (sub, unsub) = match (&uri, subscribes) {
        (Some(uri), true) => {
            let sub = conn
                .send(Probe::request("resources/subscribe", json!({"uri": uri})))
                .await;
            // Ended whatever the answer was, so no subscription outlives the run.
            let unsub = conn
                .send(Probe::request("resources/unsubscribe", json!({"uri": uri})))
                .await;
            (Some(sub), Some(unsub))
        }
        _ => (None, None),
    };
    out.findings.push(judge_u::resource_subscribe(
        w,
        subscribes,
        uri.as_deref(),
        sub.as_ref(),
        unsub.as_ref(),
    ));
    for r in [set, bad, after, sub, unsub].into_iter().flatten() {
        out.replies.push(Sent {
            reply: r,
            id: Value::Null,
        });
    }
    out
}

/// The first resource the catalogue of `w`'s era listed.
fn first_resource(s: &Session, w: &Wire) -> Option<String> {
    s.catalogs
        .iter()
        .filter(|c| c.era.is_none_or(|e| e == w.era))
        .flat_map(|c| c.resources.iter())
        .find_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_string))
}

/// The exchanges of `w`'s era that carried a `notifications/message` from the server.
fn log_messages(s: &Session, w: &Wire) -> Vec<Seq> {
    let one_wire = s.wires.len() == 1;
    s.recorder
        .shared()
        .iter()
        .filter(|e| e.era == Some(w.era) || (e.era.is_none() && one_wire))
        .filter(|e| carries_log_message(e))
        .map(|e| e.seq)
        .collect()
}

fn carries_log_message(e: &Exchange) -> bool {
    let is_log =
        |v: &Value| v.get("method").and_then(Value::as_str) == Some("notifications/message");
    match &e.kind {
        ExchangeKind::Stdio(m) => {
            m.direction == Direction::Received
                && m.line.contains("notifications/message")
                && serde_json::from_str::<Value>(&m.line).is_ok_and(|v| is_log(&v))
        }
        ExchangeKind::Http(h) => h
            .response_body
            .as_deref()
            .filter(|b| b.contains("notifications/message"))
            .is_some_and(|b| {
                let whole: Vec<Value> = serde_json::from_str::<Value>(b.trim())
                    .map(|v| vec![v])
                    .unwrap_or_else(|_| sse_values(b));
                whole.iter().any(|v| match v {
                    Value::Array(a) => a.iter().any(is_log),
                    v => is_log(v),
                })
            }),
    }
}
