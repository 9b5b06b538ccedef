//! Probes for the JSON-RPC base rules: ids, invalid requests, unknown methods, null ids,
//! parse errors, notifications and batches.

use super::*;

/// `jsonrpc_ids`, `invalid_request`, `unknown_method`, `null_id` (+ `accept_header` on HTTP).
pub(super) async fn jsonrpc_group(s: &Session, conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    let str_id = IdKind::Str("scout-id-7".into());
    let int_id = IdKind::Int(7007);
    let a = conn.send(plain(w, str_id.clone())).await;
    let b = conn.send(plain(w, int_id.clone())).await;
    let unknown = conn
        .send(Probe {
            id: IdKind::Str("scout-unknown-method".into()),
            ..Probe::request("scout/no-such-method", json!({}))
        })
        .await;
    let m = plain_method(w);
    let params = if w.is_modern() {
        json!({"_meta": envelope(&w.version)})
    } else {
        json!({})
    };
    let invalid = [
        (
            "jsonrpc \"1.0\"",
            json!({"jsonrpc": "1.0", "id": "scout-inv-1", "method": m, "params": params}),
        ),
        (
            "no method",
            json!({"jsonrpc": "2.0", "id": "scout-inv-2", "params": params}),
        ),
        (
            "params not an object",
            json!({"jsonrpc": "2.0", "id": "scout-inv-3", "method": m, "params": "scout"}),
        ),
    ];
    let mut inv = Vec::new();
    for (label, body) in &invalid {
        let id = body.get("id").cloned();
        let mut p = raw(w, body.to_string(), m);
        p.expect_no_reply = w.is_stdio();
        let r = conn.send(p).await;
        inv.push((*label, r, id));
    }
    let null = conn
        .send(Probe {
            expect_no_reply: w.is_stdio(),
            ..plain(w, IdKind::Null)
        })
        .await;
    // A final ordinary request bounds the stdio window of the probes above.
    let fence = conn.send(plain(w, IdKind::Auto)).await;
    let inv: Vec<(&str, Reply)> = {
        let mut v = Vec::new();
        for (i, (label, r, id)) in inv.iter().enumerate() {
            let next = inv.get(i + 1).map(|x| &x.1).unwrap_or(&null);
            v.push((
                *label,
                adopt_stdio(s, w, r.clone(), Some(next), id.as_ref()),
            ));
        }
        v
    };
    let null = adopt_stdio(s, w, null, Some(&fence), Some(&Value::Null));
    // An id echoed with another type never matches, so the transport gives up on it; on
    // stdio the line is still there to be judged.
    let same_text = |sent: Value| {
        move |v: &Value| {
            let text = |x: &Value| {
                x.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| x.to_string())
            };
            v.get("id").is_some_and(|got| text(got) == text(&sent))
        }
    };
    let a = adopt_stdio_where(s, w, a, Some(&b), same_text(id_value(&str_id)));
    let b = adopt_stdio_where(s, w, b, Some(&unknown), same_text(id_value(&int_id)));
    out.findings
        .push(judge::jsonrpc::unknown_method(w, &unknown));
    let cases: Vec<(&str, &Reply)> = inv.iter().map(|(l, r)| (*l, r)).collect();
    out.findings
        .push(judge::jsonrpc::invalid_request(w, &cases));
    out.findings.push(judge::jsonrpc::null_id(w, &null));
    if w.is_http() {
        let bad_accept = conn
            .send(Probe {
                headers: vec![("Accept".into(), Some("text/html".into()))],
                ..plain(w, IdKind::Str("scout-accept".into()))
            })
            .await;
        out.findings
            .push(judge::http::accept_header(w, &a, &bad_accept));
        out.replies.push(Sent {
            reply: bad_accept,
            id: json!("scout-accept"),
        });
    } else {
        out.findings
            .push(ACCEPT_HEADER.skip(SkipReason::NotApplicable, w.not_streamable_http()));
    }
    out.typed.push(Sent {
        reply: a,
        id: id_value(&str_id),
    });
    out.typed.push(Sent {
        reply: b,
        id: id_value(&int_id),
    });
    for (r, id) in [
        (unknown, json!("scout-unknown-method")),
        (null, Value::Null),
        (fence, Value::Null),
    ] {
        out.replies.push(Sent { reply: r, id });
    }
    for ((_, r), (_, body)) in inv.into_iter().zip(invalid.iter()) {
        out.replies.push(Sent {
            reply: r,
            id: body.get("id").cloned().unwrap_or(Value::Null),
        });
    }
    out
}

/// `parse_error`: a truncated body (stdio: followed by an ordinary request).
pub(super) async fn garbage_group(s: &Session, conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    let mut p = raw(
        w,
        r#"{"jsonrpc":"2.0","id":"scout-parse","method":"#.to_string(),
        plain_method(w),
    );
    p.expect_no_reply = w.is_stdio();
    let g = conn.send(p).await;
    if w.is_stdio() {
        let next = conn
            .send(plain(w, IdKind::Str("scout-after-parse".into())))
            .await;
        let g = adopt_stdio(s, w, g, Some(&next), None);
        out.findings
            .push(judge::jsonrpc::parse_error(w, &g, Some(&next)));
        out.replies.push(Sent {
            reply: g,
            id: Value::Null,
        });
        out.replies.push(Sent {
            reply: next,
            id: json!("scout-after-parse"),
        });
    } else {
        out.findings.push(judge::jsonrpc::parse_error(w, &g, None));
        out.replies.push(Sent {
            reply: g,
            id: Value::Null,
        });
    }
    out
}

/// `notification`: an unknown notification (stdio: followed by an ordinary request).
pub(super) async fn notification_group(s: &Session, conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    let n = conn
        .send(Probe::notification(
            "notifications/scout-probe",
            Some(json!({})),
        ))
        .await;
    if w.is_stdio() {
        let next = conn
            .send(plain(w, IdKind::Str("scout-after-note".into())))
            .await;
        let n = adopt_stdio(s, w, n, Some(&next), None);
        out.findings
            .push(judge::jsonrpc::notification(w, &n, Some(&next)));
        out.replies.push(Sent {
            reply: next,
            id: json!("scout-after-note"),
        });
    } else {
        out.findings.push(judge::jsonrpc::notification(w, &n, None));
        out.replies.push(Sent {
            reply: n,
            id: Value::Null,
        });
    }
    out
}

/// The stdio lines received since the batch was sent (`from`) that answer it: an array, a
/// response whose id is one of the batch's, or an error with id null (the whole batch
/// refused). The follow-up requests' own answers and notifications are left out.
fn batch_lines(s: &Session, from: Seq, ids: (&Value, &Value)) -> Vec<(Seq, Value)> {
    stdio_lines_between(s, from, None)
        .into_iter()
        .filter(|(_, v)| match v {
            Value::Array(_) => true,
            Value::Object(o) => match o.get("id") {
                Some(Value::Null) => o.contains_key("error"),
                Some(id) => id == ids.0 || id == ids.1,
                None => false,
            },
            _ => false,
        })
        .collect()
}

/// True when the lines hold an answer to the whole batch: an array, an error for it as a
/// whole, or a response to each of its two requests.
fn batch_answered(lines: &[(Seq, Value)]) -> bool {
    let has_id = |id: &str| {
        lines
            .iter()
            .any(|(_, v)| v.get("id").and_then(Value::as_str) == Some(id))
    };
    lines
        .iter()
        .any(|(_, v)| v.is_array() || v.get("id").is_some_and(Value::is_null))
        || (has_id("scout-batch-1") && has_id("scout-batch-2"))
}

/// `batch`: `[request A, notification, request B]`.
pub(super) async fn batch_group(s: &Session, conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    let m = plain_method(w);
    let item = |id: &str| {
        let mut v = json!({"jsonrpc": "2.0", "id": id, "method": m});
        if w.is_modern() {
            v["params"] = json!({"_meta": envelope(&w.version)});
        }
        v
    };
    let body = json!([item("scout-batch-1"), {"jsonrpc": "2.0", "method": "notifications/scout-batch"}, item("scout-batch-2")]);
    let mut p = raw(w, body.to_string(), m);
    p.expect_no_reply = w.is_stdio();
    let r = conn.send(p).await;
    let (a, b) = (json!("scout-batch-1"), json!("scout-batch-2"));
    let mut answer: Option<Value> = None;
    let mut r = r;
    if w.is_stdio() {
        let from = r.evidence.first().copied().unwrap_or(0);
        // Replies are matched by id, not by their place on the wire: a server may answer
        // the batch after the request sent behind it. When the first follow-up is answered
        // before the batch, a second one gives a server that answers in turn the time to
        // write it (a question asked instead of a fixed wait).
        for follow in ["scout-after-batch", "scout-after-batch-2"] {
            let next = conn.send(plain(w, IdKind::Str(follow.into()))).await;
            out.replies.push(Sent {
                reply: next,
                id: json!(follow),
            });
            if batch_answered(&batch_lines(s, from, (&a, &b))) {
                break;
            }
        }
        let mut items = Vec::new();
        for (seq, v) in batch_lines(s, from, (&a, &b)) {
            r.evidence.push(seq);
            match v {
                Value::Array(xs) => items.extend(xs),
                other => items.push(other),
            }
        }
        if !items.is_empty() {
            answer = Some(Value::Array(items));
        }
    } else if let Some(h) = &r.http {
        let values = if h.sse.is_some() {
            judge::wire_schema::sse_values(&h.body)
        } else {
            serde_json::from_str::<Value>(h.body.trim())
                .map(|v| vec![v])
                .unwrap_or_default()
        };
        answer = match values.len() {
            0 => None,
            1 => values.into_iter().next(),
            _ => Some(Value::Array(values)),
        };
    }
    out.findings
        .push(judge::jsonrpc::batch(w, &r, answer.as_ref(), (&a, &b)));
    out.gets.push(r);
    out
}
