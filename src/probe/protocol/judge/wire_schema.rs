//! `wire_schema` and the other whole-run checks: every message the server sent during the
//! run (read back from the recorder, so it also covers the handshake and, when called at the
//! end of the run, every later phase) is validated against the official schema of the
//! revision its wire negotiated ([`official`]): the JSON-RPC envelope, and the method's own
//! request, notification or result.
//!
//! A few rules stay scout's own, because the schema cannot pick a definition for the message
//! or does not say them: a message that is not a JSON object, a response with both or neither
//! of `result` and `error` (JSON-RPC 2.0's rule; the schema lets either carry extra members),
//! an error response whose id is null or missing (JSON-RPC 2.0 answers an unreadable request
//! with id null, which the schema's `RequestId` does not allow), and the envelope of a
//! revision scout holds no schema for.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::modern;
use crate::probe::Session;
use crate::probe::protocol::official::{self, Shape};
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
    /// For a response, true when the request it answers was task-augmented (`params.task`).
    pub task: bool,
}

/// What scout asked in a request a response answers.
#[derive(Debug, Clone)]
struct Asked {
    method: String,
    declared: Option<Value>,
    task: bool,
}

impl Asked {
    fn of(request: &Value) -> Option<Asked> {
        Some(Asked {
            method: request.get("method")?.as_str()?.to_string(),
            declared: declared_caps(request),
            task: request
                .pointer("/params/task")
                .is_some_and(Value::is_object),
        })
    }
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
pub fn deliberately_malformed(body: &str) -> bool {
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
pub fn server_messages<'a>(exchanges: impl IntoIterator<Item = &'a Exchange>) -> Vec<Message> {
    let mut out = Vec::new();
    each_server_message(exchanges, |m| out.push(m));
    out
}

/// [`server_messages`], handed to `see` one at a time as they are read (so that a judgement
/// that needs each only once holds one message at a time, not the whole run's).
pub fn each_server_message<'a>(
    exchanges: impl IntoIterator<Item = &'a Exchange>,
    mut see: impl FnMut(Message),
) {
    // stdio: ids of the requests scout sent, to name the method a response answers.
    let mut sent_methods: HashMap<String, Asked> = HashMap::new();
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
                let by_id: HashMap<String, Asked> = sent
                    .iter()
                    .filter_map(|m| Some((id_key(m)?, Asked::of(m)?)))
                    .collect();
                let single = match sent.as_slice() {
                    [one] => Asked::of(one),
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
                    let own = v.get("method").is_some();
                    let method = if own {
                        v.get("method").and_then(Value::as_str).map(str::to_string)
                    } else {
                        answered.as_ref().map(|a| a.method.clone())
                    };
                    let answered = answered.filter(|_| !own);
                    see(Message {
                        seq: ex.seq,
                        era: ex.era,
                        method,
                        value: v,
                        declared: answered.as_ref().and_then(|a| a.declared.clone()),
                        task: answered.is_some_and(|a| a.task),
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
                            if let (Some(k), Some(asked)) = (id_key(&item), Asked::of(&item)) {
                                sent_methods.insert(k, asked);
                            }
                        }
                    }
                    Direction::Received => {
                        for item in flatten(v) {
                            if item.get("method").is_none() && settles(&mut owed, &item) {
                                continue;
                            }
                            let own = item.get("method").is_some();
                            let answered = id_key(&item)
                                .and_then(|k| sent_methods.get(&k).cloned())
                                .filter(|_| !own);
                            let method = if own {
                                item.get("method")
                                    .and_then(Value::as_str)
                                    .map(str::to_string)
                            } else {
                                answered.as_ref().map(|a| a.method.clone())
                            };
                            see(Message {
                                seq: ex.seq,
                                era: ex.era,
                                method,
                                value: item,
                                declared: answered.as_ref().and_then(|a| a.declared.clone()),
                                task: answered.is_some_and(|a| a.task),
                            });
                        }
                    }
                }
            }
        }
    }
}

/// How bad a violation kind is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Grade {
    Warn,
    Fail,
}

/// One rule one message breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Breach {
    grade: Grade,
    /// What is the same for every message that breaks it the same way (the definition, the
    /// pointer with its array indices as `*`, the keyword): one finding each.
    kind: String,
    /// This message's own account (the exact pointer and value).
    detail: String,
}

impl Breach {
    fn own(grade: Grade, what: &str) -> Breach {
        Breach {
            grade,
            kind: what.to_string(),
            detail: what.to_string(),
        }
    }
}

fn is_str(v: Option<&Value>) -> bool {
    v.is_some_and(Value::is_string)
}
fn is_id(v: &Value) -> bool {
    v.is_string() || crate::report::integer::is_integer(v)
}

/// A pointer with every array index as `*` (`/result/tools/*/title`).
fn general(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|p| {
            if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                "*"
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// True when another check owns what the violation is about, so one defect gets one
/// finding, from the check that explains it: a tool's `inputSchema` and `outputSchema`
/// (`catalog.tool_schema` and `catalog.output_schema` judge them whole, against their
/// dialect), and in 2026-07-28 a result's `resultType` (`protocol.result_type`) and
/// `ttlMs`/`cacheScope` (`protocol.cache_hints`), which the schema requires too.
fn owned_elsewhere(v: &official::Violation, modern: bool) -> bool {
    let in_tool_schema = v.pointer.starts_with("/result/tools/")
        && v.pointer
            .split('/')
            .nth(4)
            .is_some_and(|m| m == "inputSchema" || m == "outputSchema");
    if in_tool_schema {
        return true;
    }
    const OWNED: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];
    let member = |p: &str| {
        v.pointer
            .strip_prefix("/result/")
            .is_some_and(|rest| rest == p)
    };
    let required_here = v.pointer == "/result"
        && v.keyword == "required"
        && OWNED
            .iter()
            .any(|o| v.message.contains(&format!("\"{o}\"")));
    modern && (required_here || OWNED.iter().any(|o| member(o)))
}

/// The rules of the JSON-RPC envelope, for a revision scout holds no schema for.
fn envelope_only(obj: &serde_json::Map<String, Value>) -> Vec<Breach> {
    let mut out = Vec::new();
    let fail = |w: &str| Breach::own(Grade::Fail, w);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        out.push(fail("jsonrpc member missing or not \"2.0\""));
    }
    if let Some(method) = obj.get("method") {
        if !method.is_string() {
            out.push(fail("method is not a string"));
        }
        if obj.get("params").is_some_and(|p| !p.is_object()) {
            out.push(fail("params of a server message is not an object"));
        }
        if obj.get("id").is_some_and(|i| !is_id(i)) {
            out.push(fail("a server request id that is not a string or integer"));
        }
        return out;
    }
    match obj.get("id") {
        None if obj.contains_key("result") => out.push(fail("a result without an id")),
        Some(Value::Null) if obj.contains_key("result") => out.push(fail("a result with id null")),
        Some(i) if !i.is_null() && !is_id(i) => {
            out.push(fail("an id that is not a string or integer"))
        }
        _ => {}
    }
    if let Some(e) = obj.get("error") {
        if !e
            .get("code")
            .is_some_and(crate::report::integer::is_integer)
        {
            out.push(fail("error.code is not an integer"));
        }
        if !is_str(e.get("message")) {
            out.push(fail("error.message is not a string"));
        }
    }
    if obj.get("result").is_some_and(|r| !r.is_object()) {
        out.push(fail("result is not an object"));
    }
    out
}

/// The rules one server message breaks.
fn violations(m: &Message, w: &Wire) -> Vec<Breach> {
    let v = &m.value;
    let Some(obj) = v.as_object() else {
        return vec![Breach::own(
            Grade::Fail,
            "a message that is not a JSON object",
        )];
    };
    let shape = if obj.contains_key("method") {
        if obj.contains_key("id") {
            Shape::Request
        } else {
            Shape::Notification
        }
    } else {
        let (has_result, has_error) = (obj.contains_key("result"), obj.contains_key("error"));
        if has_result == has_error {
            return vec![Breach::own(
                Grade::Fail,
                "a response with both or neither of result and error",
            )];
        }
        if has_result {
            Shape::Result
        } else {
            Shape::Error
        }
    };
    let mut out = Vec::new();
    let mut judged = v.clone();
    if shape == Shape::Error {
        match obj.get("id") {
            Some(Value::Null) => {
                // An unreadable request is answered with id null (JSON-RPC 2.0).
                judged.as_object_mut().map(|o| o.remove("id"));
            }
            // The 2025-11-25 and later schemas make the error id optional; before, its
            // absence breaks JSON-RPC 2.0's "id is REQUIRED" (null when unreadable), a warning
            // (jsonrpc_ids reports the readable-id case).
            None if w.version.as_str() < "2025-11-25" => {
                out.push(Breach::own(
                    Grade::Warn,
                    "an error response without an id member (JSON-RPC 2.0 requires id, null when unreadable)",
                ));
                judged
                    .as_object_mut()
                    .map(|o| o.insert("id".into(), Value::from(0)));
            }
            _ => {}
        }
    }
    let Some(revision) = official::revision_for(&w.version) else {
        out.extend(envelope_only(obj));
        return out;
    };
    let result_type = obj
        .get("result")
        .and_then(|r| r.get("resultType"))
        .and_then(Value::as_str);
    let modern = revision >= "2026-07-28";
    for (pointer, definition) in
        official::definitions(revision, shape, m.method.as_deref(), m.task, result_type)
    {
        let Some(part) = judged.pointer(pointer) else {
            continue;
        };
        for x in official::validate(revision, &definition, pointer, part) {
            if owned_elsewhere(&x, modern) {
                continue;
            }
            let within = x
                .within
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            out.push(Breach {
                grade: Grade::Fail,
                // A missing member is named in the kind: two of them are two findings.
                kind: format!(
                    "{} {}{within}: {}",
                    x.definition,
                    general(&x.pointer),
                    if x.keyword == "required" {
                        &x.message
                    } else {
                        &x.keyword
                    }
                ),
                detail: format!(
                    "{} at {}{within}: {}",
                    x.definition,
                    if x.pointer.is_empty() {
                        "/"
                    } else {
                        &x.pointer
                    },
                    x.message
                ),
            });
        }
    }
    out
}

/// `wire_schema` findings for one wire's messages: one per distinct violation kind, each
/// naming the definition, the JSON pointer of its first instance and what is wrong there.
pub fn wire_schema(w: &Wire, msgs: &[&Message]) -> Vec<FindingBuilder> {
    let mut tally = Tally::default();
    for m in msgs {
        tally.see(m, w);
    }
    tally.findings(w)
}

/// `wire_schema` over messages seen one at a time: what they broke, grouped by kind, and
/// which messages were seen.
#[derive(Default)]
struct Tally {
    kinds: BTreeMap<(Grade, String), (String, Vec<Seq>)>,
    seen: usize,
    seqs: Vec<Seq>,
}

impl Tally {
    fn see(&mut self, m: &Message, w: &Wire) {
        for b in violations(m, w) {
            let entry = self
                .kinds
                .entry((b.grade, b.kind))
                .or_insert_with(|| (b.detail, Vec::new()));
            entry.1.push(m.seq);
        }
        self.seen += 1;
        self.seqs.push(m.seq);
    }

    fn findings(self, w: &Wire) -> Vec<FindingBuilder> {
        let Tally {
            kinds,
            seen,
            mut seqs,
        } = self;
        if seen == 0 {
            return vec![WIRE_SCHEMA.skip(
                SkipReason::NotAssessed,
                "no message from the server was recorded",
            )];
        }
        let against = match official::revision_for(&w.version) {
            Some(r) => format!("the official {r} schema"),
            None => format!(
                "the JSON-RPC envelope (scout holds no schema for revision {})",
                w.version
            ),
        };
        if kinds.is_empty() {
            seqs.dedup();
            return vec![
                WIRE_SCHEMA
                    .pass(format!("{seen} messages match {against}"))
                    .evidence(seqs),
            ];
        }
        kinds
            .into_iter()
            .rev()
            .map(|((grade, kind), (first, mut seqs))| {
                seqs.dedup();
                let detail = match seqs.len() {
                    1 => format!("{first} (against {against})"),
                    n => format!("{first}; the same in {n} messages (against {against})"),
                };
                let f = match grade {
                    Grade::Fail => WIRE_SCHEMA.fail(detail),
                    Grade::Warn => WIRE_SCHEMA.warn(detail),
                };
                f.evidence(seqs).subject(kind)
            })
            .collect()
    }
}

/// Every message the server sent on the run's own wires, one at a time (the revision
/// matrix's extra handshakes are judged at their own revision, by `protocol::revisions`).
fn each_run_message(s: &Session, see: impl FnMut(Message)) {
    let exchanges = s.recorder.shared();
    each_server_message(
        exchanges
            .iter()
            .filter(|e| !s.matrix_seqs.contains(&e.seq))
            .map(|e| e.as_ref()),
        see,
    );
}

/// True when `m` came on `w` (every message does when the exchanges carry no era and there
/// is one wire).
fn on_wire(m: &Message, w: &Wire, wires: usize) -> bool {
    m.era == Some(w.era) || (m.era.is_none() && wires == 1)
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
    all.iter().filter(|m| on_wire(m, w, wires)).collect()
}

/// The whole-run checks of this phase: `result_type`, `cache_hints`, `error_codes`,
/// `input_required_shape` (2026-07-28 wires; not applicable to the handshake era) and
/// `wire_schema`. They read every exchange
/// recorded so far, so the later in the run they are called, the more they cover.
pub fn whole_run_findings(s: &Session) -> Vec<FindingBuilder> {
    let wires = wires_of(s);
    // The schema is judged message by message as they are read: only the 2026-07-28 rules
    // need a wire's messages all at once, and only their messages are kept.
    let mut tallies: Vec<Tally> = wires.iter().map(|_| Tally::default()).collect();
    let mut spent = std::time::Duration::ZERO;
    let mut kept: Vec<Message> = Vec::new();
    each_run_message(s, |m| {
        let started = std::time::Instant::now();
        for (w, t) in wires.iter().zip(tallies.iter_mut()) {
            if on_wire(&m, w, wires.len()) {
                t.see(&m, w);
            }
        }
        spent += started.elapsed();
        if wires
            .iter()
            .any(|w| w.is_modern() && on_wire(&m, w, wires.len()))
        {
            kept.push(m);
        }
    });
    let mut out = Vec::new();
    for (w, tally) in wires.iter().zip(tallies) {
        // Every whole-run check but the schema is a 2026-07-28 rule.
        let from_modern = crate::probe::protocol::WHOLE_RUN
            .iter()
            .filter(|c| c.id != crate::probe::protocol::WIRE_SCHEMA.id);
        if w.is_modern() {
            let msgs = messages_for(&kept, w, wires.len());
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
        let seen = tally.seen;
        out.extend(tally.findings(w).into_iter().map(|f| f.era(w.era)));
        tracing::debug!(server = %s.spec.name, era = w.era.as_str(), messages = seen, "schema judged");
    }
    // Timed for the benchmarks (scripts/bench.sh reads this line with SCOUT_LOG=info):
    // validation is CPU work at the end of the run, so it adds to the wall time whole.
    tracing::info!(
        server = %s.spec.name,
        micros = u64::try_from(spent.as_micros()).unwrap_or(u64::MAX),
        "official schema validation"
    );
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
            r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"inputSchema":{"type":"object"}}]}}"#,
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
            built
                .detail
                .contains("CallToolResult at /result: \"content\" is a required property"),
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
