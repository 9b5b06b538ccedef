//! Judged from exchanges the run already recorded, without new traffic: `cold_start` (how
//! long the first request waited for its answer) and `payload_size` (the largest result
//! body seen so far).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::{COLD_START, PAYLOAD_SIZE};
use crate::report::exchange::{Direction, Exchange, ExchangeKind};
use crate::report::finding::{FindingBuilder, SkipReason};

/// A first answer slower than this is a warning (scout's default request timeout is 10 s).
pub const COLD_START_WARN: Duration = Duration::from_secs(5);
/// A single result body larger than this is a warning: about 64k tokens, more than an
/// agent can spend on one answer.
pub const PAYLOAD_WARN_BYTES: usize = 256 * 1024;

fn parse(text: &str) -> Option<Value> {
    serde_json::from_str::<Value>(text).ok()
}

fn id_of(v: &Value) -> Option<String> {
    v.get("id").filter(|i| !i.is_null()).map(Value::to_string)
}

fn is_answer(v: &Value) -> bool {
    v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some())
}

/// Judges `cold_start` from the run's exchanges (in any order).
pub(super) fn cold_start(exchanges: &[Arc<Exchange>]) -> FindingBuilder {
    let mut ex: Vec<&Exchange> = exchanges.iter().map(Arc::as_ref).collect();
    ex.sort_by_key(|e| e.seq);
    let Some(first) = ex.first() else {
        return COLD_START.skip(SkipReason::NotAssessed, "No exchange was recorded.");
    };
    let found = match &first.kind {
        ExchangeKind::Stdio(_) => stdio_first_answer(&ex),
        ExchangeKind::Http(_) => http_first_answer(&ex),
    };
    let Some((took, evidence, how)) = found else {
        return COLD_START.skip(
            SkipReason::NotAssessed,
            "The first request got no answer, so there is no start-up time to report.",
        );
    };
    let ms = took.as_secs_f64() * 1000.0;
    let detail = format!("{how} after {ms:.0} ms.");
    if took > COLD_START_WARN {
        COLD_START.warn(format!(
            "{detail} Above {} s agents may give up on the server before it is ready.",
            COLD_START_WARN.as_secs()
        ))
    } else {
        COLD_START.pass(format!(
            "{detail} That is within {} s.",
            COLD_START_WARN.as_secs()
        ))
    }
    .evidence(evidence)
}

/// stdio: the first request line (written as soon as the process was spawned) → the line
/// answering it.
fn stdio_first_answer(ex: &[&Exchange]) -> Option<(Duration, Vec<u64>, String)> {
    let (sent, id, method) = ex.iter().find_map(|e| match &e.kind {
        ExchangeKind::Stdio(m) if m.direction == Direction::Sent && m.method.is_some() => {
            let v = parse(&m.line)?;
            Some((*e, id_of(&v)?, m.method.clone().unwrap_or_default()))
        }
        _ => None,
    })?;
    let answer = ex.iter().find(|e| match &e.kind {
        ExchangeKind::Stdio(m) if m.direction == Direction::Received && e.seq > sent.seq => {
            parse(&m.line).is_some_and(|v| is_answer(&v) && id_of(&v).as_deref() == Some(&id))
        }
        _ => false,
    })?;
    let took = (answer.started_at - sent.started_at).try_into().ok()?;
    Some((
        took,
        vec![sent.seq, answer.seq],
        format!(
            "The first request ({method}), written as soon as the process was spawned, was answered"
        ),
    ))
}

/// HTTP: the first POST that got a status.
fn http_first_answer(ex: &[&Exchange]) -> Option<(Duration, Vec<u64>, String)> {
    ex.iter().find_map(|e| match &e.kind {
        ExchangeKind::Http(h) if h.method == "POST" && h.status.is_some() => {
            let method = h
                .request_body
                .as_deref()
                .and_then(parse)
                .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_else(|| "a POST".into());
            Some((
                Duration::from_secs_f64(e.duration_ms.max(0.0) / 1000.0),
                vec![e.seq],
                format!(
                    "The first request ({method}) was answered with HTTP {}",
                    h.status.unwrap_or_default()
                ),
            ))
        }
        _ => None,
    })
}

/// One JSON-RPC result seen in the record.
struct Answer {
    size: usize,
    method: String,
    evidence: Vec<u64>,
    /// The body was cut at the cap: the size is a lower bound.
    cut: bool,
    /// The `ui://` resource it read, if it was one (see [`ui_resource`]).
    ui: Option<String>,
}

/// The URI of an MCP Apps UI resource (`ui://…`) a `resources/read` request asked for. The
/// host renders such a resource in a frame of its own; it never enters the model's context,
/// so its size costs the agent no tokens.
fn ui_resource(method: &str, request: &Value) -> Option<String> {
    let uri = request.get("params")?.get("uri")?.as_str()?;
    (method == "resources/read" && uri.starts_with("ui://")).then(|| uri.to_string())
}

/// Every JSON-RPC result the run recorded, in order.
fn results(ex: &[&Exchange]) -> Vec<Answer> {
    // stdio: which method (and UI resource) each request id was for.
    let mut sent: HashMap<String, (String, Option<String>, u64)> = HashMap::new();
    let mut out = Vec::new();
    for e in ex {
        match &e.kind {
            ExchangeKind::Stdio(m) if m.direction == Direction::Sent => {
                if let (Some(method), Some(v)) = (&m.method, parse(&m.line))
                    && let Some(id) = id_of(&v)
                {
                    sent.insert(id, (method.clone(), ui_resource(method, &v), e.seq));
                }
            }
            ExchangeKind::Stdio(m) => {
                if let Some((method, ui, at)) = parse(&m.line)
                    .filter(|v| v.get("result").is_some() && v.get("method").is_none())
                    .and_then(|v| id_of(&v))
                    .and_then(|id| sent.get(&id))
                {
                    out.push(Answer {
                        size: m.line.len(),
                        method: method.clone(),
                        evidence: vec![*at, e.seq],
                        cut: false,
                        ui: ui.clone(),
                    });
                }
            }
            ExchangeKind::Http(h) => {
                let request = h.request_body.as_deref().and_then(parse);
                let method = request
                    .as_ref()
                    .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_string));
                if let (Some(method), Some(request), Some(body)) =
                    (method, request.as_ref(), &h.response_body)
                    && h.status.is_some_and(|s| (200..300).contains(&s))
                    && body.contains("\"result\"")
                {
                    out.push(Answer {
                        size: body.len(),
                        ui: ui_resource(&method, request),
                        method,
                        evidence: vec![e.seq],
                        cut: h.truncated,
                    });
                }
            }
        }
    }
    out
}

/// The first of the largest results (the earliest wins a tie).
fn largest<'a>(rs: impl Iterator<Item = &'a Answer>) -> Option<&'a Answer> {
    rs.fold(None, |best: Option<&Answer>, r| match best {
        Some(b) if b.size >= r.size => Some(b),
        _ => Some(r),
    })
}

fn kib(b: usize) -> f64 {
    b as f64 / 1024.0
}

/// Judges `payload_size`: the largest JSON-RPC result body recorded so far. A `ui://`
/// resource is not judged (the host renders it; the model never reads it): when one is over
/// the budget, a second, informational finding about it says so.
pub(super) fn payload_size(exchanges: &[Arc<Exchange>]) -> Vec<FindingBuilder> {
    let mut ex: Vec<&Exchange> = exchanges.iter().map(Arc::as_ref).collect();
    ex.sort_by_key(|e| e.seq);
    let all = results(&ex);
    let judged = largest(all.iter().filter(|r| r.ui.is_none()));
    let ui = largest(all.iter().filter(|r| r.ui.is_some()))
        .filter(|r| r.size > PAYLOAD_WARN_BYTES || judged.is_none());
    let mut out = Vec::new();
    match judged {
        Some(r) => {
            let at_least = if r.cut { "at least " } else { "" };
            let method = &r.method;
            let b = if r.size > PAYLOAD_WARN_BYTES {
                PAYLOAD_SIZE.warn(format!(
                    "The largest result, to {method}, was {at_least}{:.0} KiB, above the {:.0} KiB budget: an agent pays for every byte in its context.",
                    kib(r.size),
                    kib(PAYLOAD_WARN_BYTES)
                ))
            } else {
                PAYLOAD_SIZE.pass(format!(
                    "The largest result, to {method}, was {at_least}{:.1} KiB, within the {:.0} KiB budget.",
                    kib(r.size),
                    kib(PAYLOAD_WARN_BYTES)
                ))
            };
            out.push(b.subject(method.clone()).evidence(r.evidence.clone()));
        }
        None if ui.is_none() => {
            return vec![PAYLOAD_SIZE.skip(
                SkipReason::NotAssessed,
                "No JSON-RPC result was recorded to measure.",
            )];
        }
        None => {}
    }
    if let Some(r) = ui {
        let uri = r.ui.clone().unwrap_or_default();
        out.push(
            PAYLOAD_SIZE
                .info(format!(
                    "The MCP Apps UI resource {uri} was {}{:.0} KiB; it is not judged against the {:.0} KiB budget: the host renders a ui:// resource itself, it never enters the model's context.",
                    if r.cut { "at least " } else { "" },
                    kib(r.size),
                    kib(PAYLOAD_WARN_BYTES)
                ))
                .subject(uri)
                .evidence(r.evidence.clone()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::OffsetDateTime;

    use super::*;
    use crate::report::exchange::StdioMessage;
    use crate::report::finding::Status;

    fn line(seq: u64, ms: i64, direction: Direction, v: Value) -> Arc<Exchange> {
        Arc::new(Exchange {
            seq,
            started_at: OffsetDateTime::UNIX_EPOCH + time::Duration::milliseconds(ms),
            duration_ms: 0.0,
            era: None,
            kind: ExchangeKind::Stdio(StdioMessage {
                direction,
                method: v.get("method").and_then(Value::as_str).map(str::to_string),
                line: v.to_string(),
                not_jsonrpc: false,
            }),
        })
    }

    #[test]
    fn cold_start_is_the_first_request_to_its_answer() {
        let ex = vec![
            line(
                1,
                0,
                Direction::Sent,
                json!({"jsonrpc":"2.0","id":1,"method":"server/discover"}),
            ),
            line(
                2,
                300,
                Direction::Received,
                json!({"jsonrpc":"2.0","method":"notifications/message"}),
            ),
            line(
                3,
                6000,
                Direction::Received,
                json!({"jsonrpc":"2.0","id":1,"result":{}}),
            ),
        ];
        let f = cold_start(&ex).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert_eq!(f.evidence, vec![1, 3]);
        assert!(f.detail.contains("6000 ms"), "{}", f.detail);
        let quick = vec![
            ex[0].clone(),
            line(
                3,
                40,
                Direction::Received,
                json!({"jsonrpc":"2.0","id":1,"result":{}}),
            ),
        ];
        // Within 5 s: a pass (previously info, never assessed).
        assert_eq!(cold_start(&quick).status(), Status::Pass);
        assert_eq!(cold_start(&ex[..2]).status(), Status::Skip);
    }

    #[test]
    fn the_largest_result_is_measured_against_the_budget() {
        let big = "x".repeat(PAYLOAD_WARN_BYTES);
        let ex = vec![
            line(
                1,
                0,
                Direction::Sent,
                json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
            ),
            line(
                2,
                1,
                Direction::Received,
                json!({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","description": big}]}}),
            ),
            line(
                3,
                2,
                Direction::Sent,
                json!({"jsonrpc":"2.0","id":2,"method":"ping"}),
            ),
            line(
                4,
                3,
                Direction::Received,
                json!({"jsonrpc":"2.0","id":2,"result":{}}),
            ),
        ];
        let one = |ex: &[Arc<Exchange>]| {
            let mut fs = payload_size(ex);
            assert_eq!(fs.len(), 1);
            fs.remove(0)
        };
        let f = one(&ex).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert_eq!(f.subject.as_deref(), Some("tools/list"));
        assert_eq!(f.evidence, vec![1, 2]);
        // Within the budget: a pass (previously info, so a healthy server's performance
        // was never assessed).
        let f = one(&ex[2..]).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass);
        assert_eq!(f.subject.as_deref(), Some("ping"));
        assert_eq!(one(&ex[..1]).status(), Status::Skip);
    }

    #[test]
    fn a_large_ui_resource_is_not_judged() {
        // Previously a warning: a 1.2 MiB MCP Apps UI resource is rendered by the host and
        // never read into the model's context.
        let html = "x".repeat(1200 * 1024);
        let ex = vec![
            line(
                1,
                0,
                Direction::Sent,
                json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://app/main"}}),
            ),
            line(
                2,
                1,
                Direction::Received,
                json!({"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"ui://app/main","mimeType":"text/html;profile=mcp-app","text": html}]}}),
            ),
            line(
                3,
                2,
                Direction::Sent,
                json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            ),
            line(
                4,
                3,
                Direction::Received,
                json!({"jsonrpc":"2.0","id":2,"result":{"tools":[]}}),
            ),
        ];
        let fs: Vec<_> = payload_size(&ex)
            .into_iter()
            .map(|f| f.build(|_| true).expect("valid"))
            .collect();
        assert_eq!(fs.len(), 2, "{fs:#?}");
        assert_eq!(fs[0].status, Status::Pass, "{}", fs[0].detail);
        assert_eq!(fs[0].subject.as_deref(), Some("tools/list"));
        assert_eq!(fs[1].status, Status::Info, "{}", fs[1].detail);
        assert_eq!(fs[1].subject.as_deref(), Some("ui://app/main"));
        assert!(fs[1].detail.contains("not judged"), "{}", fs[1].detail);
        assert_eq!(fs[1].evidence, vec![1, 2]);
        // The same size from any other resource is judged (the twin).
        let mut other = ex.clone();
        other[0] = line(
            1,
            0,
            Direction::Sent,
            json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///big.html"}}),
        );
        let fs = payload_size(&other);
        assert_eq!(fs.len(), 1);
        assert_eq!(fs[0].status(), Status::Warn);
    }
}
