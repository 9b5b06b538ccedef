//! Judged from exchanges the run already recorded, without new traffic: `cold_start` (how
//! long the first request waited for its answer) and `payload_size` (the largest result
//! body seen so far).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::{COLD_START, PAYLOAD_SIZE};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::telemetry::recorder::{Direction, Exchange, ExchangeKind};

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
pub fn cold_start(exchanges: &[Arc<Exchange>]) -> FindingBuilder {
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
        COLD_START.info(detail)
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

/// Judges `payload_size`: the largest JSON-RPC result body recorded so far.
pub fn payload_size(exchanges: &[Arc<Exchange>]) -> FindingBuilder {
    let mut ex: Vec<&Exchange> = exchanges.iter().map(Arc::as_ref).collect();
    ex.sort_by_key(|e| e.seq);
    // stdio: which method each request id was for.
    let mut methods: HashMap<String, (String, u64)> = HashMap::new();
    // (size, method, evidence, cut)
    let mut largest: Option<(usize, String, Vec<u64>, bool)> = None;
    for e in &ex {
        let found = match &e.kind {
            ExchangeKind::Stdio(m) if m.direction == Direction::Sent => {
                if let (Some(method), Some(id)) =
                    (&m.method, parse(&m.line).and_then(|v| id_of(&v)))
                {
                    methods.insert(id, (method.clone(), e.seq));
                }
                None
            }
            ExchangeKind::Stdio(m) => parse(&m.line)
                .filter(|v| v.get("result").is_some() && v.get("method").is_none())
                .and_then(|v| id_of(&v))
                .and_then(|id| methods.get(&id))
                .map(|(method, sent)| (m.line.len(), method.clone(), vec![*sent, e.seq], false)),
            ExchangeKind::Http(h) => {
                let method = h
                    .request_body
                    .as_deref()
                    .and_then(parse)
                    .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_string));
                match (method, &h.response_body) {
                    (Some(method), Some(body))
                        if h.status.is_some_and(|s| (200..300).contains(&s))
                            && body.contains("\"result\"") =>
                    {
                        Some((body.len(), method, vec![e.seq], h.truncated))
                    }
                    _ => None,
                }
            }
        };
        if let Some(f) = found
            && largest.as_ref().is_none_or(|l| f.0 > l.0)
        {
            largest = Some(f);
        }
    }
    let Some((size, method, evidence, cut)) = largest else {
        return PAYLOAD_SIZE.skip(
            SkipReason::NotAssessed,
            "No JSON-RPC result was recorded to measure.",
        );
    };
    let at_least = if cut { "at least " } else { "" };
    let kib = |b: usize| b as f64 / 1024.0;
    let b = if size > PAYLOAD_WARN_BYTES {
        PAYLOAD_SIZE.warn(format!(
            "The largest result, to {method}, was {at_least}{:.0} KiB, above the {:.0} KiB budget: an agent pays for every byte in its context.",
            kib(size),
            kib(PAYLOAD_WARN_BYTES)
        ))
    } else {
        PAYLOAD_SIZE.info(format!(
            "The largest result, to {method}, was {at_least}{:.1} KiB (the budget is {:.0} KiB).",
            kib(size),
            kib(PAYLOAD_WARN_BYTES)
        ))
    };
    b.subject(method).evidence(evidence)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::OffsetDateTime;

    use super::*;
    use crate::report::finding::Status;
    use crate::telemetry::recorder::StdioMessage;

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
        assert_eq!(cold_start(&quick).status(), Status::Info);
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
        let f = payload_size(&ex).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert_eq!(f.subject.as_deref(), Some("tools/list"));
        assert_eq!(f.evidence, vec![1, 2]);
        let f = payload_size(&ex[2..]).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Info);
        assert_eq!(f.subject.as_deref(), Some("ping"));
        assert_eq!(payload_size(&ex[..1]).status(), Status::Skip);
    }
}
