//! What the protocol phase sends. Every probe is read-only or a deliberate error: ping /
//! discover / list requests, malformed bodies, and `tools/call` only for a tool name that
//! does not exist (header probes) or a read-only tool (`Mcp-Param-*` probes, which a
//! conforming server rejects before running the tool). Independent groups run concurrently
//! on HTTP; on stdio they run one after the other because "no reply" is judged by looking
//! at the lines that arrived between two probes.

use std::time::Duration;

use base64::Engine as _;
use futures_util::future::{BoxFuture, FutureExt, join_all};
use serde_json::{Value, json};

use super::pace::{Link, Pacer};
use super::{ACCEPT_HEADER, BOGUS_SESSION, CONTENT_TYPE};
use super::{
    DELETE, GET_STREAM, HEADER_ENCODING, META_REQUIRED, PARAM_HEADERS, ROUTING_HEADERS,
    VERSION_HEADER, Wire, http, jsonrpc, modern, sse, wire_schema,
};
use crate::client::Connection;
use crate::probe::Session;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::report::model::EraKind;
use crate::telemetry::{Direction, ExchangeKind, Seq};
use crate::transport::{IdKind, MetaMode, Probe, Reply, SessionMode};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT: &str = "io.modelcontextprotocol/clientInfo";
/// A tool name no server has; header probes call it so that nothing runs even when the
/// server ignores the headers.
const NO_TOOL: &str = "scout-no-such-tool";
/// How long a GET stream is read before scout stops listening (a stream is expected to stay
/// open; the status and content type arrive at once).
const GET_WINDOW: Duration = Duration::from_millis(300);

/// The full 2026-07-28 `_meta` envelope for `version`.
fn envelope(version: &str) -> Value {
    json!({
        META_VERSION: version,
        META_CAPS: {},
        META_CLIENT: {"name": "scout", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The envelope without `key`.
fn envelope_without(version: &str, key: &str) -> Value {
    let mut e = envelope(version);
    if let Some(o) = e.as_object_mut() {
        o.remove(key);
    }
    e
}

/// One request/reply pair, with the id that was sent (for `jsonrpc_ids`).
struct Sent {
    reply: Reply,
    id: Value,
}

/// The ordinary, harmless request of each era: `ping` (handshake) / `server/discover`.
fn plain(w: &Wire, id: IdKind) -> Probe {
    let (method, params) = if w.is_modern() {
        ("server/discover", Some(json!({})))
    } else {
        ("ping", None)
    };
    Probe {
        method: Some(method.to_string()),
        id,
        params,
        ..Probe::default()
    }
}

fn plain_method(w: &Wire) -> &'static str {
    if w.is_modern() {
        "server/discover"
    } else {
        "ping"
    }
}

/// A raw body; on a modern HTTP wire with the routing headers a valid request would carry.
fn raw(w: &Wire, body: String, method: &str) -> Probe {
    let mut p = Probe {
        raw_body: Some(body),
        ..Probe::default()
    };
    if w.is_modern() && w.is_http() {
        p.headers = vec![
            ("MCP-Protocol-Version".into(), Some(w.version.clone())),
            ("Mcp-Method".into(), Some(method.to_string())),
        ];
    }
    p
}

fn id_value(id: &IdKind) -> Value {
    match id {
        IdKind::Str(s) => json!(s),
        IdKind::Int(i) => json!(i),
        _ => Value::Null,
    }
}

/// Messages the server wrote to stdout in `(from, to)` (exclusive), for probes whose answer
/// the transport cannot match by id (raw lines, null ids, batches).
fn stdio_lines_between(s: &Session, from: Seq, to: Option<Seq>) -> Vec<(Seq, Value)> {
    s.recorder
        .snapshot()
        .into_iter()
        .filter(|e| e.seq > from && to.is_none_or(|t| e.seq < t))
        .filter_map(|e| match e.kind {
            // A batch answer is an array, which the reader may flag as "not one JSON-RPC
            // message"; any JSON object or array line counts here.
            ExchangeKind::Stdio(m) if m.direction == Direction::Received => {
                serde_json::from_str::<Value>(&m.line)
                    .ok()
                    .filter(|v| v.is_object() || v.is_array())
                    .map(|v| (e.seq, v))
            }
            _ => None,
        })
        .collect()
}

/// On stdio: when the transport matched no response to `r`, adopt the first line between it
/// and `next` whose id equals `id` (or any response when `id` is `None`).
fn adopt_stdio(s: &Session, w: &Wire, r: Reply, next: Option<&Reply>, id: Option<&Value>) -> Reply {
    adopt_stdio_where(s, w, r, next, |v| {
        id.is_none_or(|i| v.get("id").unwrap_or(&Value::Null) == i)
    })
}

/// `adopt_stdio` with any predicate on the candidate response.
fn adopt_stdio_where(
    s: &Session,
    w: &Wire,
    mut r: Reply,
    next: Option<&Reply>,
    accept: impl Fn(&Value) -> bool,
) -> Reply {
    if !w.is_stdio() || r.response.is_some() {
        return r;
    }
    let Some(from) = r.evidence.first().copied() else {
        return r;
    };
    let to = next.and_then(|n| n.evidence.first().copied());
    let found = stdio_lines_between(s, from, to)
        .into_iter()
        .find(|(_, v)| v.is_object() && v.get("method").is_none() && accept(v));
    if let Some((seq, v)) = found {
        r.evidence.push(seq);
        r.response = Some(v);
        r.outcome = crate::transport::Outcome::Answered;
    }
    r
}

/// Runs the groups: concurrently on HTTP, in order on stdio.
async fn run_groups<'a, T>(w: &Wire, groups: Vec<BoxFuture<'a, T>>) -> Vec<T> {
    if w.is_stdio() {
        let mut out = Vec::new();
        for g in groups {
            out.push(g.await);
        }
        out
    } else {
        join_all(groups).await
    }
}

/// Everything the groups produce: findings plus the replies the whole-phase judges read.
#[derive(Default)]
struct Out {
    findings: Vec<FindingBuilder>,
    replies: Vec<Sent>,
    /// The two requests sent with a string and an integer id for `jsonrpc_ids`.
    typed: Vec<Sent>,
    /// Replies that are not one request's response stream (GET streams, the batch answer
    /// with several responses): judged by their own checks and `content_type`, not by `sse`.
    gets: Vec<Reply>,
}

/// All probes of one wire; the findings are tagged with the wire's era.
pub(super) async fn probe_wire(s: &Session, raw_conn: &Connection) -> Vec<FindingBuilder> {
    let pacer = Pacer::for_spec(&s.spec);
    let link = Link::new(raw_conn, &pacer);
    let conn = &link;
    let w = Wire::new(
        raw_conn.era(),
        raw_conn.transport(),
        raw_conn.protocol_version(),
    );
    let groups: Vec<BoxFuture<'_, Out>> = vec![
        jsonrpc_group(s, conn, &w).boxed(),
        garbage_group(s, conn, &w).boxed(),
        notification_group(s, conn, &w).boxed(),
        batch_group(s, conn, &w).boxed(),
        http_group(s, conn, &w).boxed(),
        modern_group(s, conn, &w).boxed(),
    ];
    let outs = run_groups(&w, groups).await;
    let mut findings = Vec::new();
    let mut replies = Vec::new();
    let mut typed = Vec::new();
    let mut gets = Vec::new();
    for o in outs {
        findings.extend(o.findings);
        replies.extend(o.replies);
        typed.extend(o.typed);
        gets.extend(o.gets);
    }
    let typed_refs: Vec<(&Reply, Value)> = typed.iter().map(|x| (&x.reply, x.id.clone())).collect();
    let others: Vec<(&Reply, Value)> = replies
        .iter()
        .filter(|x| !x.id.is_null())
        .map(|x| (&x.reply, x.id.clone()))
        .collect();
    findings.push(jsonrpc::ids(&w, &typed_refs, &others));
    let posts: Vec<&Reply> = replies
        .iter()
        .chain(typed.iter())
        .map(|x| &x.reply)
        .collect();
    let all: Vec<&Reply> = posts.iter().copied().chain(gets.iter()).collect();
    if w.is_http() {
        findings.push(http::content_type(&w, &all));
    } else {
        findings.push(CONTENT_TYPE.skip(SkipReason::NotApplicable, "stdio has no content type"));
    }
    findings.push(sse::sse(&w, &posts));
    findings.into_iter().map(|f| f.era(w.era)).collect()
}

/// `jsonrpc_ids`, `invalid_request`, `unknown_method`, `null_id` (+ `accept_header` on HTTP).
async fn jsonrpc_group(s: &Session, conn: &Link<'_>, w: &Wire) -> Out {
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
    out.findings.push(jsonrpc::unknown_method(w, &unknown));
    let cases: Vec<(&str, &Reply)> = inv.iter().map(|(l, r)| (*l, r)).collect();
    out.findings.push(jsonrpc::invalid_request(w, &cases));
    out.findings.push(jsonrpc::null_id(w, &null));
    if w.is_http() {
        let bad_accept = conn
            .send(Probe {
                headers: vec![("Accept".into(), Some("text/html".into()))],
                ..plain(w, IdKind::Str("scout-accept".into()))
            })
            .await;
        out.findings.push(http::accept_header(w, &a, &bad_accept));
        out.replies.push(Sent {
            reply: bad_accept,
            id: json!("scout-accept"),
        });
    } else {
        out.findings
            .push(ACCEPT_HEADER.skip(SkipReason::NotApplicable, "stdio has no Accept header"));
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
async fn garbage_group(s: &Session, conn: &Link<'_>, w: &Wire) -> Out {
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
        out.findings.push(jsonrpc::parse_error(w, &g, Some(&next)));
        out.replies.push(Sent {
            reply: g,
            id: Value::Null,
        });
        out.replies.push(Sent {
            reply: next,
            id: json!("scout-after-parse"),
        });
    } else {
        out.findings.push(jsonrpc::parse_error(w, &g, None));
        out.replies.push(Sent {
            reply: g,
            id: Value::Null,
        });
    }
    out
}

/// `notification`: an unknown notification (stdio: followed by an ordinary request).
async fn notification_group(s: &Session, conn: &Link<'_>, w: &Wire) -> Out {
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
        out.findings.push(jsonrpc::notification(w, &n, Some(&next)));
        out.replies.push(Sent {
            reply: next,
            id: json!("scout-after-note"),
        });
    } else {
        out.findings.push(jsonrpc::notification(w, &n, None));
        out.replies.push(Sent {
            reply: n,
            id: Value::Null,
        });
    }
    out
}

/// `batch`: `[request A, notification, request B]`.
async fn batch_group(s: &Session, conn: &Link<'_>, w: &Wire) -> Out {
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
        let next = conn
            .send(plain(w, IdKind::Str("scout-after-batch".into())))
            .await;
        let from = r.evidence.first().copied().unwrap_or(0);
        let to = next.evidence.first().copied();
        let mut items = Vec::new();
        for (seq, v) in stdio_lines_between(s, from, to) {
            r.evidence.push(seq);
            match v {
                Value::Array(xs) => items.extend(xs),
                other => items.push(other),
            }
        }
        if !items.is_empty() {
            answer = Some(Value::Array(items));
        }
        out.replies.push(Sent {
            reply: next,
            id: json!("scout-after-batch"),
        });
    } else if let Some(h) = &r.http {
        let values = if h.sse.is_some() {
            wire_schema::sse_values(&h.body)
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
        .push(jsonrpc::batch(w, &r, answer.as_ref(), (&a, &b)));
    out.gets.push(r);
    out
}

/// The HTTP transport probes: GET, DELETE, unknown sessions, the version header.
async fn http_group(s: &Session, conn: &Link<'_>, w: &Wire) -> Out {
    let mut out = Out::default();
    let na = |c: &'static crate::probe::registry::Check, why: &str| {
        c.skip(SkipReason::NotApplicable, why.to_string())
    };
    if !w.is_http() {
        for c in [&GET_STREAM, &DELETE, &BOGUS_SESSION, &VERSION_HEADER] {
            out.findings.push(na(c, "an HTTP rule; this wire is stdio"));
        }
        return out;
    }
    let modern_only = s.era == EraKind::Modern;
    let get = |session: SessionMode| Probe {
        http_method: Some("GET".into()),
        headers: vec![("Accept".into(), Some("text/event-stream".into()))],
        session,
        timeout: Some(GET_WINDOW),
        expect_no_reply: true,
        ..Probe::default()
    };
    let del = |session: SessionMode| Probe {
        http_method: Some("DELETE".into()),
        session,
        expect_no_reply: true,
        ..Probe::default()
    };
    if w.is_modern() {
        if modern_only {
            let g = conn.send(get(SessionMode::None)).await;
            out.findings.push(http::get_stream(w, &g, true));
            let d = conn.send(del(SessionMode::None)).await;
            out.findings.push(http::delete(w, &d, None, true));
            out.gets.push(g);
            out.replies.push(Sent {
                reply: d,
                id: Value::Null,
            });
        } else {
            out.findings.push(na(
                &GET_STREAM,
                "dual-era server: the GET stream belongs to its handshake-era wire",
            ));
            out.findings.push(na(
                &DELETE,
                "dual-era server: DELETE belongs to its handshake-era wire",
            ));
        }
        let bogus = conn
            .send(Probe {
                session: SessionMode::Custom("scout-bogus-session".into()),
                ..plain(w, IdKind::Str("scout-bogus".into()))
            })
            .await;
        out.findings.push(http::bogus_session(w, &bogus, None));
        let mismatch = conn
            .send(Probe {
                meta: MetaMode::Custom(envelope("2025-11-25")),
                headers: vec![("MCP-Protocol-Version".into(), Some(w.version.clone()))],
                ..plain(w, IdKind::Str("scout-version-mismatch".into()))
            })
            .await;
        let unsupported = conn
            .send(Probe {
                meta: MetaMode::Custom(envelope("1900-01-01")),
                headers: vec![("MCP-Protocol-Version".into(), Some("1900-01-01".into()))],
                ..plain(w, IdKind::Str("scout-version-unsupported".into()))
            })
            .await;
        out.findings
            .push(http::version_header_modern(w, &mismatch, &unsupported));
        out.replies.push(Sent {
            reply: bogus,
            id: json!("scout-bogus"),
        });
        out.replies.push(Sent {
            reply: mismatch,
            id: json!("scout-version-mismatch"),
        });
        out.replies.push(Sent {
            reply: unsupported,
            id: json!("scout-version-unsupported"),
        });
        return out;
    }
    // Handshake era. The GET stream stays open until scout stops listening, so it runs
    // beside the session probes instead of before them.
    let (g, rest) = futures_util::join!(
        conn.send(get(SessionMode::Auto)),
        legacy_session_probes(conn, w)
    );
    out.findings.push(http::get_stream(w, &g, false));
    out.gets.push(g);
    out.findings.extend(rest.findings);
    out.replies.extend(rest.replies);
    out
}

/// Handshake-era HTTP probes around sessions: a throw-away session for DELETE, a never
/// issued session id, and a bad `MCP-Protocol-Version`.
async fn legacy_session_probes(conn: &Link<'_>, w: &Wire) -> Out {
    let mut out = Out::default();
    let del = |session: SessionMode| Probe {
        http_method: Some("DELETE".into()),
        session,
        expect_no_reply: true,
        ..Probe::default()
    };
    // A throw-away session for DELETE, so the run's own session stays usable.
    let init = conn
        .send(Probe {
            id: IdKind::Str("scout-throwaway-init".into()),
            meta: MetaMode::Omit,
            session: SessionMode::None,
            ..Probe::request(
                "initialize",
                json!({"protocolVersion": w.version, "capabilities": {}, "clientInfo": {"name": "scout", "version": env!("CARGO_PKG_VERSION")}}),
            )
        })
        .await;
    let sid = init
        .http
        .as_ref()
        .and_then(|h| h.header("mcp-session-id"))
        .map(str::to_string);
    let never = conn
        .send(Probe {
            session: SessionMode::Custom(format!("scout-never-issued-{}", uuid::Uuid::new_v4())),
            ..plain(w, IdKind::Str("scout-never-issued".into()))
        })
        .await;
    match sid {
        Some(sid) => {
            let _ = conn
                .send(Probe {
                    session: SessionMode::Custom(sid.clone()),
                    ..Probe::notification("notifications/initialized", None)
                })
                .await;
            let d = conn.send(del(SessionMode::Custom(sid.clone()))).await;
            let ended = if d.status().is_some_and(|c| (200..300).contains(&c)) {
                Some(
                    conn.send(Probe {
                        session: SessionMode::Custom(sid),
                        ..plain(w, IdKind::Str("scout-ended-session".into()))
                    })
                    .await,
                )
            } else {
                None
            };
            out.findings
                .push(http::delete(w, &d, ended.as_ref(), false));
            out.findings
                .push(http::bogus_session(w, &never, ended.as_ref()));
            out.replies.push(Sent {
                reply: d,
                id: Value::Null,
            });
            if let Some(e) = ended {
                out.replies.push(Sent {
                    reply: e,
                    id: json!("scout-ended-session"),
                });
            }
        }
        None => {
            let why = format!(
                "the server issues no Mcp-Session-Id (initialize answered without one: {})",
                super::describe(&init)
            );
            out.findings.push(
                DELETE
                    .skip(SkipReason::NotApplicable, why.clone())
                    .evidence(init.evidence.clone()),
            );
            out.findings.push(
                BOGUS_SESSION
                    .skip(SkipReason::NotApplicable, why)
                    .evidence(init.evidence.clone()),
            );
        }
    }
    out.replies.push(Sent {
        reply: init,
        id: json!("scout-throwaway-init"),
    });
    out.replies.push(Sent {
        reply: never,
        id: json!("scout-never-issued"),
    });
    if w.version.as_str() >= "2025-06-18" {
        let r = conn
            .send(Probe {
                headers: vec![("MCP-Protocol-Version".into(), Some("banana".into()))],
                ..plain(w, IdKind::Str("scout-bad-version".into()))
            })
            .await;
        out.findings.push(http::version_header_legacy(w, &r));
        out.replies.push(Sent {
            reply: r,
            id: json!("scout-bad-version"),
        });
    } else {
        out.findings.push(VERSION_HEADER.skip(
            SkipReason::NotApplicable,
            "MCP-Protocol-Version exists from 2025-06-18; this wire negotiated an earlier revision",
        ));
    }
    out
}

/// `tools/call` of `name` with the routing headers bent by `headers`.
fn call(name: &str, args: Value, headers: Vec<(String, Option<String>)>, id: &str) -> Probe {
    Probe {
        id: IdKind::Str(id.into()),
        headers,
        ..Probe::request("tools/call", json!({"name": name, "arguments": args}))
    }
}

/// The 2026-07-28 probes: routing headers, sentinel encoding, `Mcp-Param-*`, `_meta`.
async fn modern_group(_s: &Session, conn: &Link<'_>, w: &Wire) -> Out {
    let mut out = Out::default();
    if !w.is_modern() {
        for c in [
            &ROUTING_HEADERS,
            &HEADER_ENCODING,
            &PARAM_HEADERS,
            &META_REQUIRED,
        ] {
            out.findings.push(c.skip(
                SkipReason::NotApplicable,
                "a 2026-07-28 rule; this wire speaks the handshake era",
            ));
        }
        return out;
    }
    // _meta rules hold on every transport.
    let missing_all = conn
        .send(Probe {
            meta: MetaMode::Omit,
            ..plain(w, IdKind::Str("scout-meta-none".into()))
        })
        .await;
    let missing_version = conn
        .send(Probe {
            meta: MetaMode::Custom(envelope_without(&w.version, META_VERSION)),
            ..plain(w, IdKind::Str("scout-meta-version".into()))
        })
        .await;
    let missing_caps = conn
        .send(Probe {
            meta: MetaMode::Custom(envelope_without(&w.version, META_CAPS)),
            ..plain(w, IdKind::Str("scout-meta-caps".into()))
        })
        .await;
    let no_client = conn
        .send(Probe {
            meta: MetaMode::Custom(envelope_without(&w.version, META_CLIENT)),
            ..plain(w, IdKind::Str("scout-meta-client".into()))
        })
        .await;
    out.findings.push(modern::meta_required(
        w,
        &[
            ("no _meta", &missing_all),
            ("no protocolVersion", &missing_version),
            ("no clientCapabilities", &missing_caps),
        ],
        &no_client,
    ));
    for (r, id) in [
        (missing_all, "scout-meta-none"),
        (missing_version, "scout-meta-version"),
        (missing_caps, "scout-meta-caps"),
        (no_client, "scout-meta-client"),
    ] {
        out.replies.push(Sent {
            reply: r,
            id: json!(id),
        });
    }
    if !w.is_http() {
        for c in [&ROUTING_HEADERS, &HEADER_ENCODING, &PARAM_HEADERS] {
            out.findings.push(c.skip(
                SkipReason::NotApplicable,
                "an HTTP header rule; this wire is stdio",
            ));
        }
        return out;
    }
    let h = |k: &str, v: Option<&str>| (k.to_string(), v.map(str::to_string));
    let list = |id: &str, headers: Vec<(String, Option<String>)>| Probe {
        id: IdKind::Str(id.into()),
        headers,
        ..Probe::request("tools/list", json!({}))
    };
    let (m_missing, m_mismatch, m_case, m_space, n_missing, n_mismatch) = futures_util::join!(
        conn.send(list("scout-rh-1", vec![h("Mcp-Method", None)])),
        conn.send(list(
            "scout-rh-2",
            vec![h("Mcp-Method", Some("prompts/list"))]
        )),
        conn.send(list(
            "scout-rh-3",
            vec![h("Mcp-Method", Some("TOOLS/LIST"))]
        )),
        conn.send(list(
            "scout-rh-4",
            vec![h("Mcp-Method", Some("  tools/list  "))]
        )),
        conn.send(call(
            NO_TOOL,
            json!({}),
            vec![h("Mcp-Name", None)],
            "scout-rh-5"
        )),
        conn.send(call(
            NO_TOOL,
            json!({}),
            vec![h("Mcp-Name", Some("scout-other-tool"))],
            "scout-rh-6"
        )),
    );
    use modern::Expect::{Accept, Reject};
    out.findings.push(modern::routing_headers(
        w,
        &[
            ("Mcp-Method missing", Reject, &m_missing),
            ("Mcp-Method differing from the body", Reject, &m_mismatch),
            (
                "Mcp-Method in another case (values are case-sensitive)",
                Reject,
                &m_case,
            ),
            ("Mcp-Method with surrounding whitespace", Accept, &m_space),
            ("Mcp-Name missing on tools/call", Reject, &n_missing),
            ("Mcp-Name differing from params.name", Reject, &n_mismatch),
        ],
    ));
    let b64 = base64::engine::general_purpose::STANDARD.encode(NO_TOOL);
    let (enc, bad) = futures_util::join!(
        conn.send(call(
            NO_TOOL,
            json!({}),
            vec![h("Mcp-Name", Some(&format!("=?base64?{b64}?=")))],
            "scout-enc-1"
        )),
        conn.send(call(
            "Hello",
            json!({}),
            vec![h("Mcp-Name", Some("=?base64?SGVs!!!bG8=?="))],
            "scout-enc-2"
        )),
    );
    out.findings.push(modern::header_encoding(w, &enc, &bad));
    // Mcp-Param-*: needs the tool list (read-only request).
    let tools_reply = conn
        .send(Probe {
            id: IdKind::Str("scout-tools".into()),
            ..Probe::request("tools/list", json!({}))
        })
        .await;
    let tools: Vec<Value> = tools_reply
        .result()
        .and_then(|r| r.get("tools"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let declared = modern::param_header_tools(&tools);
    match declared.iter().find(|(_, _, _, ro)| *ro) {
        None if declared.is_empty() => out.findings.push(
            PARAM_HEADERS
                .skip(SkipReason::NotApplicable, "no tool declares x-mcp-header")
                .evidence(tools_reply.evidence.clone()),
        ),
        None => out.findings.push(
            PARAM_HEADERS
                .skip(SkipReason::Policy, format!("only tools that are not read-only declare x-mcp-header ({}); scout does not call them to test headers", declared.iter().map(|d| d.0.as_str()).collect::<Vec<_>>().join(", ")))
                .evidence(tools_reply.evidence.clone()),
        ),
        Some((tool, prop, header, _)) => {
            let hname = format!("Mcp-Param-{header}");
            let args = json!({ prop.as_str(): "scout-probe" });
            let (omitted, mismatched) = futures_util::join!(
                conn.send(call(tool, args.clone(), vec![(hname.clone(), None)], "scout-param-1")),
                conn.send(call(tool, args.clone(), vec![(hname.clone(), Some("scout-other".into()))], "scout-param-2")),
            );
            out.findings.push(modern::param_headers(w, tool, &omitted, &mismatched));
            out.replies.push(Sent { reply: omitted, id: json!("scout-param-1") });
            out.replies.push(Sent { reply: mismatched, id: json!("scout-param-2") });
        }
    }
    for (r, id) in [
        (m_missing, "scout-rh-1"),
        (m_mismatch, "scout-rh-2"),
        (m_case, "scout-rh-3"),
        (m_space, "scout-rh-4"),
        (n_missing, "scout-rh-5"),
        (n_mismatch, "scout-rh-6"),
        (enc, "scout-enc-1"),
        (bad, "scout-enc-2"),
        (tools_reply, "scout-tools"),
    ] {
        out.replies.push(Sent {
            reply: r,
            id: json!(id),
        });
    }
    out
}
