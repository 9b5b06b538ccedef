//! `wire_schema` and the other whole-run checks: every message the server sent during the
//! run (read back from the recorder, so it also covers the handshake and, when called at the
//! end of the run, every later phase) is checked against structural rules for the JSON-RPC
//! envelope and the result shapes of the methods scout calls, per revision.
//!
//! The rules are hand-written rather than taken from a schema crate: they cover exactly the
//! envelope and the results scout relies on, name the violation in words a server author
//! understands, and need no per-revision feature juggling.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::modern;
use crate::probe::Session;
use crate::probe::protocol::{WIRE_SCHEMA, Wire};
use crate::report::exchange::{Direction, Exchange, ExchangeKind, Seq};
use crate::report::finding::{Era, FindingBuilder, SkipReason};

/// One message the server sent, with the exchange it was recorded in.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The exchange (HTTP) or line (stdio) it came in.
    pub seq: Seq,
    /// The wire it came on, when known.
    pub era: Option<Era>,
    /// For a response, the method of the request it answers (when known); for a server
    /// request or notification, its own method.
    pub method: Option<String>,
    /// The message itself.
    pub value: Value,
    /// For a response, the client capabilities the request it answers declared in its
    /// 2026-07-28 `_meta` (`None` when the request carried none or is unknown).
    pub declared: Option<Value>,
}

/// The `clientCapabilities` a request declared in its `_meta`.
fn declared_caps(request: &Value) -> Option<Value> {
    request
        .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
        .cloned()
}

/// JSON values of the `data:` fields of an SSE body (multi-line data joined with `\n`).
pub(crate) fn sse_values(body: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    let flush = |data: &mut Vec<&str>, out: &mut Vec<Value>| {
        if !data.is_empty() {
            let joined = data.join("\n");
            if let Ok(v) = serde_json::from_str::<Value>(joined.trim()) {
                out.push(v);
            }
            data.clear();
        }
    };
    for line in body.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            flush(&mut data, &mut out);
        } else if let Some(d) = line.strip_prefix("data:") {
            data.push(d.strip_prefix(' ').unwrap_or(d));
        }
    }
    flush(&mut data, &mut out);
    out
}

/// Splits a parsed body into messages (a batch answer is an array of them).
fn flatten(v: Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items,
        other => vec![other],
    }
}

fn id_key(v: &Value) -> Option<String> {
    v.get("id").filter(|i| !i.is_null()).map(Value::to_string)
}

/// True when scout sent `body` as a deliberate protocol violation (the protocol phase's
/// malformed probes): not JSON, a batch array, an id of null, a jsonrpc other than "2.0",
/// no method, or params that are not an object. The answers to those are judged by the
/// probe's own check (`parse_error`, `invalid_request`, `null_id`, `batch`), never by the
/// whole-run checks, which would otherwise judge the same answer a second time.
pub(crate) fn deliberately_malformed(body: &str) -> bool {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return true;
    };
    let Some(o) = v.as_object() else {
        return true;
    };
    o.get("id").is_some_and(Value::is_null)
        || o.get("jsonrpc").and_then(Value::as_str) != Some("2.0")
        || !o.get("method").is_some_and(Value::is_string)
        || o.get("params").is_some_and(|p| !p.is_object())
}

/// True when `response` answers one of the malformed lines in `owed`, which it then settles.
fn settles(owed: &mut Vec<Vec<String>>, response: &Value) -> bool {
    match id_key(response) {
        Some(k) => {
            let Some(i) = owed.iter().position(|ids| ids.contains(&k)) else {
                return false;
            };
            owed[i].retain(|x| *x != k);
            if owed[i].is_empty() {
                owed.remove(i);
            }
            true
        }
        None if !owed.is_empty() => {
            owed.remove(0);
            true
        }
        None => false,
    }
}

/// Every message the server sent in `exchanges`, in recording order, without the answers
/// to scout's deliberately malformed probes (see `deliberately_malformed`).
pub fn server_messages(exchanges: &[Exchange]) -> Vec<Message> {
    let mut out = Vec::new();
    // stdio: ids of the requests scout sent, to name the method a response answers.
    let mut sent_methods: HashMap<String, (String, Option<Value>)> = HashMap::new();
    // stdio: the malformed lines still owed an answer, oldest first, each with the ids it
    // carried (none when the id was null or unreadable). Each owns the answers to its ids,
    // or one id-less answer.
    let mut owed: Vec<Vec<String>> = Vec::new();
    for ex in exchanges {
        match &ex.kind {
            ExchangeKind::Http(h) => {
                let deliberate = h
                    .request_body
                    .as_deref()
                    .is_some_and(deliberately_malformed);
                let sent: Vec<Value> = h
                    .request_body
                    .as_deref()
                    .and_then(|b| serde_json::from_str::<Value>(b).ok())
                    .map(flatten)
                    .unwrap_or_default();
                let by_id: HashMap<String, (String, Option<Value>)> = sent
                    .iter()
                    .filter_map(|m| {
                        Some((
                            id_key(m)?,
                            (m.get("method")?.as_str()?.to_string(), declared_caps(m)),
                        ))
                    })
                    .collect();
                let single = match sent.as_slice() {
                    [one] => one
                        .get("method")
                        .and_then(Value::as_str)
                        .map(|m| (m.to_string(), declared_caps(one))),
                    _ => None,
                };
                let Some(body) = h.response_body.as_deref().filter(|b| !b.trim().is_empty()) else {
                    continue;
                };
                let is_sse = h.response_headers.iter().any(|(k, v)| {
                    k.eq_ignore_ascii_case("content-type") && v.contains("text/event-stream")
                });
                let values = if is_sse {
                    sse_values(body)
                } else {
                    // Plain-text and HTML bodies are the content_type check's business.
                    serde_json::from_str::<Value>(body.trim())
                        .map(flatten)
                        .unwrap_or_default()
                };
                // Not MCP traffic: OAuth metadata documents and token responses (answers to
                // requests that were no JSON-RPC message), and authorization refusals (401/403
                // with an RFC 6750 error object). Neither carries a `jsonrpc` member.
                let has_jsonrpc = values.iter().any(|v| v.get("jsonrpc").is_some());
                if !is_sse
                    && !has_jsonrpc
                    && (sent.is_empty() || matches!(h.status, Some(401 | 403)))
                {
                    continue;
                }
                for v in values {
                    if deliberate && v.get("method").is_none() {
                        continue;
                    }
                    // The one request the exchange carried answers for an id it does not
                    // echo exactly (a server that turned 1 into "1").
                    let answered = id_key(&v)
                        .and_then(|k| by_id.get(&k).cloned())
                        .or_else(|| single.clone());
                    let declared = answered.as_ref().and_then(|(_, c)| c.clone());
                    let method = if v.get("method").is_some() {
                        v.get("method").and_then(Value::as_str).map(str::to_string)
                    } else {
                        answered.map(|(m, _)| m)
                    };
                    out.push(Message {
                        seq: ex.seq,
                        era: ex.era,
                        method,
                        value: v,
                        declared,
                    });
                }
            }
            ExchangeKind::Stdio(m) => {
                if m.direction == Direction::Sent && deliberately_malformed(&m.line) {
                    let v = serde_json::from_str::<Value>(&m.line).ok();
                    owed.push(
                        v.into_iter()
                            .flat_map(flatten)
                            .filter_map(|i| id_key(&i))
                            .collect(),
                    );
                    continue;
                }
                if m.not_jsonrpc {
                    continue;
                }
                let Ok(v) = serde_json::from_str::<Value>(&m.line) else {
                    continue;
                };
                match m.direction {
                    Direction::Sent => {
                        for item in flatten(v) {
                            if let (Some(k), Some(method)) =
                                (id_key(&item), item.get("method").and_then(Value::as_str))
                            {
                                sent_methods.insert(k, (method.to_string(), declared_caps(&item)));
                            }
                        }
                    }
                    Direction::Received => {
                        for item in flatten(v) {
                            if item.get("method").is_none() && settles(&mut owed, &item) {
                                continue;
                            }
                            let answered =
                                id_key(&item).and_then(|k| sent_methods.get(&k).cloned());
                            let declared = answered.as_ref().and_then(|(_, c)| c.clone());
                            let method = if item.get("method").is_some() {
                                item.get("method")
                                    .and_then(Value::as_str)
                                    .map(str::to_string)
                            } else {
                                answered.map(|(m, _)| m)
                            };
                            out.push(Message {
                                seq: ex.seq,
                                era: ex.era,
                                method,
                                value: item,
                                declared,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// How bad a violation kind is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Grade {
    Warn,
    Fail,
}

fn is_str(v: Option<&Value>) -> bool {
    v.is_some_and(Value::is_string)
}
fn is_obj(v: Option<&Value>) -> bool {
    v.is_some_and(Value::is_object)
}
fn is_id(v: &Value) -> bool {
    v.is_string() || v.as_i64().is_some() || v.as_u64().is_some()
}

/// The rule a result of `method` breaks, if any.
fn result_shape(method: &str, r: &Value) -> Option<String> {
    if r.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return None;
    }
    let items = |key: &str| r.get(key).and_then(Value::as_array);
    let bad = |what: &str| Some(format!("{method} result: {what}"));
    match method {
        "initialize" => {
            if !is_str(r.get("protocolVersion")) {
                return bad("protocolVersion is not a string");
            }
            if !is_obj(r.get("capabilities")) {
                return bad("capabilities is not an object");
            }
            if !is_str(r.pointer("/serverInfo/name")) || !is_str(r.pointer("/serverInfo/version")) {
                return bad("serverInfo lacks a string name and version");
            }
        }
        "server/discover" => {
            let versions = items("supportedVersions");
            if !versions.is_some_and(|v| !v.is_empty() && v.iter().all(Value::is_string)) {
                return bad("supportedVersions is not a non-empty array of strings");
            }
            if !is_obj(r.get("capabilities")) {
                return bad("capabilities is not an object");
            }
        }
        "tools/list" => match items("tools") {
            None => return bad("tools is not an array"),
            Some(tools) => {
                if tools.iter().any(|t| !is_str(t.get("name"))) {
                    return bad("a tool without a string name");
                }
                if tools.iter().any(|t| !is_obj(t.get("inputSchema"))) {
                    return bad("a tool whose inputSchema is not an object");
                }
            }
        },
        "resources/list" => match items("resources") {
            None => return bad("resources is not an array"),
            Some(list) => {
                if list
                    .iter()
                    .any(|x| !is_str(x.get("uri")) || !is_str(x.get("name")))
                {
                    return bad("a resource without a string uri and name");
                }
            }
        },
        "resources/templates/list" if items("resourceTemplates").is_none() => {
            return bad("resourceTemplates is not an array");
        }
        "prompts/list" => match items("prompts") {
            None => return bad("prompts is not an array"),
            Some(list) => {
                if list.iter().any(|x| !is_str(x.get("name"))) {
                    return bad("a prompt without a string name");
                }
            }
        },
        // CallToolResult.content is required in every revision, 2026-07-28 included, even
        // when structuredContent is there (execution.tool_call fails the same result).
        "tools/call" if items("content").is_none() => {
            return bad("content is not an array");
        }
        "resources/read" if items("contents").is_none() => {
            return bad("contents is not an array");
        }
        _ => {}
    }
    None
}

/// The rules one server message breaks, as `(grade, kind)`.
fn violations(m: &Message, w: &Wire) -> Vec<(Grade, String)> {
    let mut out = Vec::new();
    let v = &m.value;
    let Some(obj) = v.as_object() else {
        out.push((
            Grade::Fail,
            "a message that is not a JSON object".to_string(),
        ));
        return out;
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        out.push((
            Grade::Fail,
            "jsonrpc member missing or not \"2.0\"".to_string(),
        ));
    }
    if let Some(method) = obj.get("method") {
        if !method.is_string() {
            out.push((Grade::Fail, "method is not a string".to_string()));
        }
        if obj.get("params").is_some_and(|p| !p.is_object()) {
            out.push((
                Grade::Fail,
                "params of a server message is not an object".to_string(),
            ));
        }
        if obj.get("id").is_some_and(|i| !is_id(i)) {
            out.push((
                Grade::Fail,
                "a server request id that is not a string or integer".to_string(),
            ));
        }
        return out;
    }
    let has_result = obj.contains_key("result");
    let has_error = obj.contains_key("error");
    if has_result == has_error {
        out.push((
            Grade::Fail,
            "a response with both or neither of result and error".to_string(),
        ));
    }
    match obj.get("id") {
        // The 2025-11-25 and later schemas make the error id optional, so only earlier
        // revisions break the schema here (jsonrpc_ids reports the readable-id case anyway).
        None if has_error && w.version.as_str() >= "2025-11-25" => {}
        None if has_error => out.push((
            Grade::Warn,
            "an error response without an id member (JSON-RPC 2.0 requires id, null when unreadable)".to_string(),
        )),
        None => out.push((Grade::Fail, "a result without an id".to_string())),
        Some(Value::Null) if has_result => out.push((Grade::Fail, "a result with id null".to_string())),
        Some(i) if !i.is_null() && !is_id(i) => {
            out.push((Grade::Fail, "an id that is not a string or integer".to_string()))
        }
        _ => {}
    }
    if let Some(e) = obj.get("error") {
        if e.get("code").and_then(Value::as_i64).is_none() {
            out.push((Grade::Fail, "error.code is not an integer".to_string()));
        }
        if !is_str(e.get("message")) {
            out.push((Grade::Fail, "error.message is not a string".to_string()));
        }
    }
    if let Some(r) = obj.get("result") {
        if !r.is_object() {
            out.push((Grade::Fail, "result is not an object".to_string()));
        } else if let Some(kind) = m.method.as_deref().and_then(|meth| result_shape(meth, r)) {
            out.push((Grade::Fail, kind));
        }
    }
    out
}

/// `wire_schema` findings for one wire's messages: one per distinct violation kind.
pub fn wire_schema(w: &Wire, msgs: &[&Message]) -> Vec<FindingBuilder> {
    if msgs.is_empty() {
        return vec![WIRE_SCHEMA.skip(
            SkipReason::NotAssessed,
            "no message from the server was recorded",
        )];
    }
    let mut kinds: BTreeMap<(Grade, String), Vec<Seq>> = BTreeMap::new();
    for m in msgs {
        for (grade, kind) in violations(m, w) {
            kinds.entry((grade, kind)).or_default().push(m.seq);
        }
    }
    if kinds.is_empty() {
        let mut seqs: Vec<Seq> = msgs.iter().map(|m| m.seq).collect();
        seqs.dedup();
        return vec![
            WIRE_SCHEMA
                .pass(format!(
                    "{} messages match the JSON-RPC envelope and the {} result shapes scout checks",
                    msgs.len(),
                    w.version
                ))
                .evidence(seqs),
        ];
    }
    kinds
        .into_iter()
        .rev()
        .map(|((grade, kind), seqs)| {
            let detail = format!("{kind} ({} message(s))", seqs.len());
            let f = match grade {
                Grade::Fail => WIRE_SCHEMA.fail(detail),
                Grade::Warn => WIRE_SCHEMA.warn(detail),
            };
            f.evidence(seqs).subject(kind)
        })
        .collect()
}

/// The wires of the session as judges see them.
fn wires_of(s: &Session) -> Vec<Wire> {
    s.wires
        .iter()
        .map(|c| Wire::new(c.era(), c.transport(), c.protocol_version()))
        .collect()
}

/// The messages of one wire (all of them when the exchanges carry no era and there is one
/// wire).
fn messages_for<'a>(all: &'a [Message], w: &Wire, wires: usize) -> Vec<&'a Message> {
    all.iter()
        .filter(|m| m.era == Some(w.era) || (m.era.is_none() && wires == 1))
        .collect()
}

/// `wire_schema` over everything recorded so far, per wire, tagged with the era. Call it last
/// in the run to cover every phase's exchanges.
pub fn wire_schema_findings(s: &Session) -> Vec<FindingBuilder> {
    let all = server_messages(&s.recorder.snapshot());
    let wires = wires_of(s);
    let mut out = Vec::new();
    for w in &wires {
        let msgs = messages_for(&all, w, wires.len());
        out.extend(wire_schema(w, &msgs).into_iter().map(|f| f.era(w.era)));
    }
    out
}

/// The whole-run checks of this phase: `result_type`, `cache_hints`, `error_codes`,
/// `input_required_shape` (2026-07-28 wires; not applicable to the handshake era) and
/// `wire_schema`. They read every exchange
/// recorded so far, so the later in the run they are called, the more they cover.
pub fn whole_run_findings(s: &Session) -> Vec<FindingBuilder> {
    let all = server_messages(&s.recorder.snapshot());
    let wires = wires_of(s);
    let mut out = Vec::new();
    for w in &wires {
        let msgs = messages_for(&all, w, wires.len());
        // Every whole-run check but the schema is a 2026-07-28 rule.
        let from_modern = crate::probe::protocol::WHOLE_RUN
            .iter()
            .filter(|c| c.id != crate::probe::protocol::WIRE_SCHEMA.id);
        if w.is_modern() {
            out.push(modern::result_type(w, &msgs).era(w.era));
            out.push(modern::cache_hints(w, &msgs).era(w.era));
            out.push(modern::error_codes(w, &msgs).era(w.era));
            out.push(modern::input_required_shape(w, &msgs).era(w.era));
        } else {
            for c in from_modern {
                out.push(
                    c.skip(
                        SkipReason::NotApplicable,
                        "a 2026-07-28 rule; this wire speaks the handshake era",
                    )
                    .era(w.era),
                );
            }
        }
        out.extend(wire_schema(w, &msgs).into_iter().map(|f| f.era(w.era)));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::OffsetDateTime;

    use super::*;
    use crate::report::exchange::{HttpExchange, StdioMessage};
    use crate::report::finding::Status;
    use crate::report::model::TransportKind;

    /// One recorded stdio line.
    fn line(seq: Seq, dir: Direction, l: &str) -> Exchange {
        Exchange {
            seq,
            started_at: OffsetDateTime::UNIX_EPOCH,
            duration_ms: 0.0,
            era: None,
            kind: ExchangeKind::Stdio(StdioMessage {
                direction: dir,
                method: None,
                line: l.into(),
                not_jsonrpc: false,
            }),
        }
    }

    fn http_ex(seq: Seq, req: &str, ct: &str, body: &str) -> Exchange {
        Exchange {
            seq,
            started_at: OffsetDateTime::UNIX_EPOCH,
            duration_ms: 1.0,
            era: Some(Era::Legacy),
            kind: ExchangeKind::Http(HttpExchange {
                method: "POST".into(),
                url: "http://127.0.0.1:1/mcp".into(),
                request_body: Some(req.into()),
                status: Some(200),
                response_headers: vec![("content-type".into(), ct.into())],
                response_body: Some(body.into()),
                ..HttpExchange::default()
            }),
        }
    }

    fn legacy() -> Wire {
        Wire::new(Era::Legacy, TransportKind::Http, "2025-11-25")
    }

    #[test]
    fn reads_sse_bodies_and_names_methods() {
        // server-everything: priming event, then the response.
        let ex = http_ex(
            3,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
            "text/event-stream",
            "id: a\ndata: \n\nevent: message\nid: b\ndata: {\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]},\"jsonrpc\":\"2.0\",\"id\":2}\n\n",
        );
        let msgs = server_messages(&[ex]);
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0].method.as_deref(), Some("tools/list"));
        let f = wire_schema(&legacy(), &msgs.iter().collect::<Vec<_>>());
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].status(), Status::Pass);
    }

    #[test]
    fn everything_idless_error_is_a_distinct_kind() {
        let ok = http_ex(
            1,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "application/json",
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        );
        let idless = http_ex(
            2,
            r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
            "application/json",
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#,
        );
        let badtool = http_ex(
            3,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
            "application/json",
            r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"inputSchema":{}}]}}"#,
        );
        let msgs = server_messages(&[ok, idless, badtool]);
        // 2025-11-25 made the error id optional in the schema: only the tool violation.
        let f = wire_schema(&legacy(), &msgs.iter().collect::<Vec<_>>());
        assert_eq!(f.len(), 1, "{f:?}");
        let w = Wire::new(Era::Legacy, TransportKind::Http, "2025-06-18");
        let f = wire_schema(&w, &msgs.iter().collect::<Vec<_>>());
        assert_eq!(f.len(), 2, "{f:?}");
        let built: Vec<_> = f
            .into_iter()
            .map(|b| b.build(|_| true).expect("valid"))
            .collect();
        assert_eq!(built[0].status, Status::Fail);
        assert_eq!(built[0].evidence, vec![3]);
        assert_eq!(built[1].status, Status::Warn);
        assert_eq!(built[1].evidence, vec![2]);
    }

    #[test]
    fn answers_to_deliberately_malformed_probes_are_not_judged_again() {
        // A server serving scout's `id: null` probe answers with a result of id null; that is
        // protocol.null_id's finding, not a wire_schema one (one defect, one finding).
        let null_id = http_ex(
            1,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            "application/json",
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
        );
        let inv = http_ex(
            2,
            r#"{"jsonrpc":"1.0","id":"scout-inv-1","method":"ping"}"#,
            "application/json",
            r#"{"jsonrpc":"1.0","id":"scout-inv-1","result":{}}"#,
        );
        let garbage = http_ex(
            3,
            r#"{"jsonrpc":"2.0","id":"scout-parse","method":"#,
            "application/json",
            r#"{"jsonrpc":"2.0","result":{}}"#,
        );
        let ok = http_ex(
            4,
            r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
            "application/json",
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        );
        let msgs = server_messages(&[null_id, inv, garbage, ok]);
        assert_eq!(msgs.len(), 1, "{msgs:?}");
        assert_eq!(msgs[0].seq, 4);
        // The same on stdio, where answers are matched by id (or the id-less slot).
        let ex = vec![
            line(
                1,
                Direction::Sent,
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            ),
            line(
                2,
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            ),
            line(
                3,
                Direction::Sent,
                r#"{"jsonrpc":"1.0","id":"scout-inv-1","method":"ping"}"#,
            ),
            line(
                4,
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":"scout-inv-1","result":{}}"#,
            ),
            line(
                5,
                Direction::Sent,
                r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
            ),
            line(
                6,
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            ),
        ];
        let msgs = server_messages(&ex);
        assert_eq!(msgs.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![6]);
        let w = Wire::new(Era::Legacy, TransportKind::Stdio, "2025-11-25");
        let f = wire_schema(&w, &msgs.iter().collect::<Vec<_>>());
        assert_eq!(
            f[0].status(),
            Status::Fail,
            "a real id-null result is still judged"
        );
    }

    #[test]
    fn modern_tool_result_without_content_fails() {
        // 2026-07-28 CallToolResult: `content: ContentBlock[]` is required even beside
        // structuredContent (wire_schema once accepted it).
        let mut ex = http_ex(
            1,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
            "application/json",
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","structuredContent":{"sum":3}}}"#,
        );
        ex.era = Some(Era::Modern);
        let msgs = server_messages(&[ex]);
        let w = Wire::new(Era::Modern, TransportKind::Http, "2026-07-28");
        let f = wire_schema(&w, &msgs.iter().collect::<Vec<_>>());
        assert_eq!(f[0].status(), Status::Fail);
        let built = f[0].clone().build(|_| true).expect("valid");
        assert!(
            built.detail.contains("content is not an array"),
            "{}",
            built.detail
        );
    }

    #[test]
    fn stdio_responses_are_matched_to_sent_requests() {
        let ex = vec![
            line(1, Direction::Sent, r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#),
            line(2, Direction::Received, &json!({"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-11-25","capabilities":{}}}).to_string()),
        ];
        let msgs = server_messages(&ex);
        assert_eq!(msgs[0].method.as_deref(), Some("initialize"));
        let w = Wire::new(Era::Legacy, TransportKind::Stdio, "2025-11-25");
        let f = wire_schema(&w, &msgs.iter().collect::<Vec<_>>());
        assert_eq!(f[0].status(), Status::Fail);
    }
}
