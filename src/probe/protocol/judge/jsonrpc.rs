//! Judges for the JSON-RPC base rules: ids, parse errors, invalid requests, unknown methods,
//! notifications, null ids and batches. Pure functions of the replies; see `probes` for what
//! is sent.

use std::collections::BTreeSet;

use crate::report::exchange::Seq;
use crate::report::model::TransportKind;
use serde_json::Value;

use crate::probe::protocol::{
    BATCH, INVALID_REQUEST, JSONRPC_IDS, NOTIFICATION, NULL_ID, PARSE_ERROR, UNKNOWN_METHOD, Wire,
    body_json, cite, code_of, describe, has_result,
};
use crate::report::finding::{FindingBuilder, Severity};
use crate::transport::{Outcome, Reply};

/// `jsonrpc_ids`: each `(reply, id sent)` must come back with exactly that id (value and
/// JSON type) and exactly one of `result`/`error`. `others` are every other reply of the
/// phase: an error object without an `id` member answering a request whose id was readable
/// (server-everything does this for unknown sessions) is reported here too, unless another
/// check already charged that exchange (`charged`): then it is named as context only, so one
/// wrong answer costs one check.
pub fn jsonrpc_ids(
    _w: &Wire,
    typed: &[(&Reply, Value)],
    others: &[(&Reply, Value)],
    charged: &BTreeSet<Seq>,
) -> FindingBuilder {
    let mut problems = Vec::new();
    let mut bad = Vec::new();
    let mut answered = Vec::new();
    for (r, sent) in typed {
        let Some(resp) = r
            .response
            .as_ref()
            .filter(|_| r.outcome == Outcome::Answered)
        else {
            problems.push(format!("request with id {sent} got {}", describe(r)));
            bad.push(*r);
            continue;
        };
        answered.push(*r);
        match resp.get("id") {
            Some(got) if got == sent => {}
            Some(got) => {
                problems.push(format!("request with id {sent} was answered with id {got}"));
                bad.push(*r);
            }
            None => {
                problems.push(format!("request with id {sent} was answered without an id"));
                bad.push(*r);
            }
        }
        if resp.get("result").is_some() == resp.get("error").is_some() {
            problems.push(format!(
                "the response to id {sent} must carry exactly one of result and error"
            ));
            bad.push(*r);
        }
    }
    let idless: Vec<&Reply> = others
        .iter()
        .filter(|(_, sent)| !sent.is_null())
        .filter(|(r, _)| {
            body_json(r).is_some_and(|v| v.get("error").is_some() && v.get("id").is_none())
        })
        .map(|(r, _)| *r)
        .collect();
    let (elsewhere, idless): (Vec<&Reply>, Vec<&Reply>) = idless
        .into_iter()
        .partition(|r| r.evidence.iter().any(|s| charged.contains(s)));
    let context = if elsewhere.is_empty() {
        String::new()
    } else {
        format!(
            "; {} error response(s) without an id member answered requests another check already charged ({}), counted there",
            elsewhere.len(),
            describe(elsewhere[0])
        )
    };
    if !bad.is_empty() {
        return JSONRPC_IDS
            .fail(problems.join("; "))
            .evidence(cite(bad.iter().copied().chain(idless.iter().copied())));
    }
    if !idless.is_empty() {
        // The 2025-11-25 schema made the error id optional "when the request id could not
        // be read"; these requests had readable ids, and JSON-RPC 2.0 requires the member.
        return JSONRPC_IDS
            .warn(format!(
                "string and integer ids are echoed with their type, but {} error response(s) carry no id member although the request id was readable ({})",
                idless.len(),
                describe(idless[0])
            ))
            .evidence(cite(answered.iter().copied().chain(idless.iter().copied())))
            .advice("Put the request's id (or null when it cannot be read) into every error response, including transport-level ones such as unknown-session errors.");
    }
    let sent: Vec<String> = typed.iter().map(|(_, s)| s.to_string()).collect();
    JSONRPC_IDS
        .pass(format!(
            "ids {} came back with the same value and type{context}",
            sent.join(" and ")
        ))
        .evidence(cite(answered.into_iter().chain(elsewhere)))
}

/// `parse_error`: a truncated JSON body. `follow` is the next ordinary request on a stdio
/// wire (the server must keep serving); `None` on HTTP.
pub fn parse_error(w: &Wire, garbage: &Reply, follow: Option<&Reply>) -> FindingBuilder {
    if let Some(f) = follow.filter(|f| f.outcome != Outcome::Answered) {
        {
            return PARSE_ERROR
                .fail(format!(
                    "after a malformed line the server stopped serving: the next request got {}",
                    describe(f)
                ))
                .severity(Severity::Critical)
                .evidence(cite([garbage, f]))
                .advice("Catch JSON parse failures per line and keep reading stdin.");
        }
    }
    let ev = cite(std::iter::once(garbage).chain(follow));
    match code_of(garbage) {
        Some(-32700) => PARSE_ERROR
            .pass(format!("malformed JSON was answered with {}", describe(garbage)))
            .evidence(ev),
        Some(code) => PARSE_ERROR
            .warn(format!("malformed JSON was answered with error {code} instead of -32700 ({})", describe(garbage)))
            .evidence(ev),
        None if has_result(garbage) => PARSE_ERROR
            .fail(format!("malformed JSON was answered with a result ({})", describe(garbage)))
            .evidence(ev),
        None => match &garbage.http {
            Some(h) if (400..500).contains(&h.status) => PARSE_ERROR
                .warn(format!(
                    "malformed JSON was rejected at the transport level without a JSON-RPC error: {}",
                    describe(garbage)
                ))
                .evidence(ev),
            Some(_) => PARSE_ERROR
                .fail(format!("malformed JSON was not rejected: {}", describe(garbage)))
                .evidence(ev),
            // Over HTTP, a POST that got no status at all was not rejected either: a client
            // sending it would wait for nothing.
            None if !w.is_stdio() => PARSE_ERROR
                .fail(format!(
                    "malformed JSON got no HTTP answer ({})",
                    describe(garbage)
                ))
                .evidence(ev),
            None => PARSE_ERROR
                .warn("the malformed line was dropped silently (no -32700); the next request was still served")
                .evidence(ev),
        },
    }
}

/// `invalid_request`: each `(label, reply)` is a structurally invalid request.
pub fn invalid_request(_w: &Wire, cases: &[(&str, &Reply)]) -> FindingBuilder {
    let mut served = Vec::new();
    let mut other = Vec::new();
    for (label, r) in cases {
        match code_of(r) {
            Some(-32600) => {}
            Some(code) => other.push(format!("{label}: error {code}")),
            None if has_result(r) => served.push(format!("{label}: served as a normal request")),
            None => other.push(format!("{label}: {}", describe(r))),
        }
    }
    let ev = cite(cases.iter().map(|(_, r)| *r));
    if !served.is_empty() {
        INVALID_REQUEST.fail(served.join("; ")).evidence(ev)
    } else if !other.is_empty() {
        INVALID_REQUEST
            .warn(format!(
                "structurally invalid requests were rejected, but not with -32600: {}",
                other.join("; ")
            ))
            .evidence(ev)
    } else {
        let labels: Vec<&str> = cases.iter().map(|(l, _)| *l).collect();
        INVALID_REQUEST
            .pass(format!(
                "every structurally invalid request ({}) got -32600",
                labels.join(", ")
            ))
            .evidence(ev)
    }
}

/// `unknown_method`: -32601; on a 2026-07-28 HTTP wire with status 404 and the JSON-RPC body.
pub fn unknown_method(w: &Wire, r: &Reply) -> FindingBuilder {
    let ev = cite([r]);
    let code = code_of(r);
    let status = r.status();
    if w.is_modern() && w.is_http() {
        return match (status, code) {
            (Some(404), Some(-32601)) => UNKNOWN_METHOD
                .pass("HTTP 404 with JSON-RPC error -32601")
                .evidence(ev),
            (Some(404), _) => UNKNOWN_METHOD
                .fail(format!("HTTP 404 without a -32601 body ({}); a client takes a bare 404 for a legacy server", describe(r)))
                .evidence(ev),
            (_, Some(-32601)) => UNKNOWN_METHOD
                .fail(format!("an unknown method got -32601 with HTTP {} instead of 404", status.unwrap_or(0)))
                .evidence(ev),
            _ => UNKNOWN_METHOD
                .fail(format!("expected HTTP 404 with -32601, got {}", describe(r)))
                .evidence(ev),
        };
    }
    match code {
        Some(-32601) => UNKNOWN_METHOD
            .pass(format!("an unknown method got -32601 ({})", describe(r)))
            .evidence(ev),
        Some(c) => UNKNOWN_METHOD
            .warn(format!("an unknown method got error {c} instead of -32601"))
            .evidence(ev),
        None => UNKNOWN_METHOD
            .fail(format!("an unknown method got {}", describe(r)))
            .evidence(ev),
    }
}

/// `notification`: no reply at all; on HTTP 202 with an empty body. `follow` is the next
/// request on a stdio wire, which shows that nothing was written for the notification.
pub fn notification(w: &Wire, r: &Reply, follow: Option<&Reply>) -> FindingBuilder {
    let ev = cite(std::iter::once(r).chain(follow));
    // HTTP+SSE (2024-11-05) leaves the POST's status and body unspecified (SDKs answer
    // 202 "Accepted"); what matters is that no JSON-RPC reply comes on the stream.
    if w.transport == TransportKind::LegacySse
        && let Some(h) = &r.http
        && (200..300).contains(&h.status)
    {
        return if r.response.is_some() {
            NOTIFICATION
                .fail(format!(
                    "a notification was answered on the stream: {}",
                    describe(r)
                ))
                .evidence(ev)
        } else {
            NOTIFICATION
                .pass(format!("HTTP {} and no reply on the stream (HTTP+SSE leaves the POST's body unspecified)", h.status))
                .evidence(ev)
        };
    }
    if let Some(h) = &r.http {
        let empty = h.body.trim().is_empty();
        return match h.status {
            202 if empty => NOTIFICATION.pass("HTTP 202 with an empty body").evidence(ev),
            202 => NOTIFICATION
                .warn(format!("HTTP 202, but with a body: {}", describe(r)))
                .evidence(ev),
            s if (200..300).contains(&s) => NOTIFICATION
                .fail(format!("a notification was answered with {} (must be 202, no body)", describe(r)))
                .evidence(ev),
            s if (400..500).contains(&s) && body_json(r).is_none_or(|v| v.get("id").is_none_or(Value::is_null)) => {
                NOTIFICATION
                    .info(format!("the unknown notification was refused with {} (the transport allows an HTTP error for a notification it does not accept)", describe(r)))
                    .evidence(ev)
            }
            _ => NOTIFICATION
                .fail(format!("a notification got {}", describe(r)))
                .evidence(ev),
        };
    }
    if r.response.is_some() {
        return NOTIFICATION
            .fail(format!("a notification was answered: {}", describe(r)))
            .evidence(ev);
    }
    if !w.is_stdio() {
        // An HTTP POST that never got a status is not "no reply": the transport requires
        // 202 Accepted, and a client waiting for it hangs.
        return NOTIFICATION
            .fail(format!(
                "the notification POST got no HTTP status ({}); the transport requires 202 Accepted",
                describe(r)
            ))
            .evidence(ev);
    }
    match follow {
        Some(f) if f.outcome == Outcome::Answered => NOTIFICATION
            .pass("no reply to the notification; the next request was answered normally")
            .evidence(ev),
        Some(f) => NOTIFICATION
            .fail(format!(
                "after the notification the server stopped answering: {}",
                describe(f)
            ))
            .evidence(ev),
        None => NOTIFICATION
            .pass("no reply to the notification")
            .evidence(ev),
    }
}

/// `null_id`: `"id": null` should be rejected (-32600 expected), not served.
pub fn null_id(_w: &Wire, r: &Reply) -> FindingBuilder {
    let ev = cite([r]);
    match code_of(r) {
        Some(-32600) => NULL_ID
            .pass("a request with id null was rejected with -32600")
            .evidence(ev),
        Some(c) => NULL_ID
            .pass(format!(
                "a request with id null was rejected with error {c} ({})",
                describe(r)
            ))
            .evidence(ev),
        None if has_result(r) => NULL_ID
            .warn("a request with id null was served as a normal request")
            .evidence(ev),
        None => match &r.http {
            Some(h) if (400..500).contains(&h.status) => NULL_ID
                .pass(format!(
                    "a request with id null was rejected at the transport level: {}",
                    describe(r)
                ))
                .evidence(ev),
            _ => NULL_ID
                .info(format!("no error came back for id null: {}", describe(r)))
                .evidence(ev),
        },
    }
}

/// `batch`: `replies` is what came back for the array `[req A, notification, req B]`
/// (the JSON array or single object the server answered with, `None` for nothing).
pub fn batch(w: &Wire, r: &Reply, answer: Option<&Value>, ids: (&Value, &Value)) -> FindingBuilder {
    let ev = cite([r]);
    let responded: Vec<&Value> = match answer {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(v) => vec![v],
        None => vec![],
    };
    let results_for = |id: &Value| {
        responded
            .iter()
            .any(|v| v.get("id") == Some(id) && v.get("result").is_some())
    };
    let both = results_for(ids.0) && results_for(ids.1);
    let one = results_for(ids.0) || results_for(ids.1);
    if w.version == "2025-03-26" {
        return if both && matches!(answer, Some(Value::Array(_))) {
            BATCH
                .pass("the batch was answered with an array holding both responses")
                .evidence(ev)
        } else {
            BATCH
                .fail(format!(
                    "2025-03-26 servers must accept batches; got {}",
                    describe(r)
                ))
                .evidence(ev)
        };
    }
    if both && w.version.as_str() < "2025-03-26" {
        // 2024-11-05 never mentioned batches: accepting one is neither required nor wrong.
        BATCH
            .info(format!(
                "the server answered both requests of the batch; {} does not define batching (2025-03-26 added it, 2025-06-18 removed it)",
                w.version
            ))
            .evidence(ev)
    } else if both {
        // 2025-06-18 removed batching ("Remove support for JSON-RPC batching"); a message is
        // a single request, notification or response. A server that still processes arrays
        // accepts what its revision no longer allows.
        BATCH
            .warn(format!(
                "the server still processes batches, which 2025-06-18 removed; {} allows only single messages (both requests answered)",
                w.version
            ))
            .evidence(ev)
    } else if one {
        BATCH
            .warn("the batch was half processed: one request was answered, the other not")
            .evidence(ev)
    } else if responded.iter().any(|v| v.get("error").is_some())
        || r.http.as_ref().is_some_and(|h| h.status >= 400)
    {
        BATCH
            .pass(format!(
                "the batch was rejected as a whole: {}",
                describe(r)
            ))
            .evidence(ev)
    } else {
        BATCH
            .info(format!("no answer to the batch: {}", describe(r)))
            .evidence(ev)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::probe::protocol::testing::*;
    use crate::report::finding::{Era, Status};
    use crate::report::model::TransportKind;

    fn legacy_http() -> Wire {
        Wire::new(Era::Legacy, TransportKind::Http, "2025-11-25")
    }
    fn modern_http() -> Wire {
        Wire::new(Era::Modern, TransportKind::Http, "2026-07-28")
    }
    fn stdio_wire() -> Wire {
        Wire::new(Era::Legacy, TransportKind::Stdio, "2025-11-25")
    }

    #[test]
    fn ids_echoed_pass_and_stringified_fail() {
        let a = http_sse(1, r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#);
        let b = http_sse(2, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        let f = jsonrpc_ids(
            &legacy_http(),
            &[(&a, json!("s-1")), (&b, json!(7))],
            &[],
            &BTreeSet::new(),
        );
        assert_eq!(f.status(), Status::Pass);
        let b2 = http_sse(3, r#"{"jsonrpc":"2.0","id":"7","result":{}}"#);
        let f = jsonrpc_ids(
            &legacy_http(),
            &[(&a, json!("s-1")), (&b2, json!(7))],
            &[],
            &BTreeSet::new(),
        );
        assert_eq!(f.status(), Status::Fail);
    }

    #[test]
    fn everything_unknown_session_error_without_id_is_reported() {
        // transcripts/everything-http.curated.txt, section 11: 400, -32000, no id member.
        let a = http_sse(1, r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#);
        let b = http_sse(2, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        let bogus = http_json(
            5,
            400,
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#,
        );
        let f = jsonrpc_ids(
            &legacy_http(),
            &[(&a, json!("s-1")), (&b, json!(7))],
            &[(&bogus, json!(9))],
            &BTreeSet::new(),
        );
        assert_eq!(f.status(), Status::Warn);
        let built = f.build(|_| true).expect("valid finding");
        assert!(built.evidence.contains(&5));
        assert!(built.detail.contains("no id"));
        // The same answer, already charged by protocol.bogus_session: named, not charged.
        let f = jsonrpc_ids(
            &legacy_http(),
            &[(&a, json!("s-1")), (&b, json!(7))],
            &[(&bogus, json!(9))],
            &BTreeSet::from([5]),
        );
        assert_eq!(f.status(), Status::Pass);
        let built = f.build(|_| true).expect("valid finding");
        assert!(built.evidence.contains(&5));
        assert!(built.detail.contains("already charged"), "{}", built.detail);
    }

    #[test]
    fn parse_error_grades() {
        // server-everything HTTP: 400 -32700, id null.
        let r = http_json(
            1,
            400,
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"},"id":null}"#,
        );
        assert_eq!(parse_error(&legacy_http(), &r, None).status(), Status::Pass);
        // rmcp: 415 plain text.
        let r = http_text(
            2,
            415,
            Some("text/plain"),
            "fail to deserialize request body",
        );
        let f = parse_error(&legacy_http(), &r, None);
        assert_eq!(f.status(), Status::Warn);
        // stdio, dropped silently but still serving (server-everything, Python SDK).
        let g = stdio(&[3], None);
        let next = stdio(&[4, 5], Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert_eq!(
            parse_error(&stdio_wire(), &g, Some(&next)).status(),
            Status::Warn
        );
        // HTTP, the POST never got a status: not a rejection, and no line "dropped" either.
        let f = parse_error(&legacy_http(), &timed_out(&[7]), None);
        assert_eq!(f.status(), Status::Fail);
        assert!(
            f.build(|_| true)
                .expect("valid")
                .detail
                .contains("no HTTP answer")
        );
        // stdio, the server died.
        let dead = timed_out(&[6]);
        let f = parse_error(&stdio_wire(), &g, Some(&dead));
        assert_eq!(f.status(), Status::Fail);
        assert_eq!(
            f.build(|_| true).expect("valid").severity,
            Some(Severity::Critical)
        );
    }

    #[test]
    fn unknown_method_per_era() {
        // Legacy HTTP: 200 -32601 (every lab server).
        let r = http_sse(
            1,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}"#,
        );
        assert_eq!(unknown_method(&legacy_http(), &r).status(), Status::Pass);
        // 2026 Python / TS v2 / rmcp: 404 -32601.
        let r = http_json(
            2,
            404,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}"#,
        );
        assert_eq!(unknown_method(&modern_http(), &r).status(), Status::Pass);
        // 2026 with 200: fail.
        let r = http_json(
            3,
            200,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}"#,
        );
        assert_eq!(unknown_method(&modern_http(), &r).status(), Status::Fail);
        // bare 404: fail.
        let r = http_text(4, 404, Some("text/html"), "<html>not found</html>");
        assert_eq!(unknown_method(&modern_http(), &r).status(), Status::Fail);
    }

    #[test]
    fn notification_grades() {
        let ok = http_text(1, 202, None, "");
        assert_eq!(
            notification(&legacy_http(), &ok, None).status(),
            Status::Pass
        );
        let answered = http_json(2, 200, r#"{"jsonrpc":"2.0","id":null,"result":{}}"#);
        assert_eq!(
            notification(&legacy_http(), &answered, None).status(),
            Status::Fail
        );
        let line = stdio(
            &[3, 4],
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"x"}}"#),
        );
        assert_eq!(
            notification(&stdio_wire(), &line, None).status(),
            Status::Fail
        );
        // Over HTTP, a POST that timed out or broke before any status is never a pass.
        let hung = timed_out(&[8]);
        assert_eq!(
            notification(&legacy_http(), &hung, None).status(),
            Status::Fail
        );
        let mut broken = timed_out(&[9]);
        broken.outcome = Outcome::TransportError("connection reset".into());
        assert_eq!(
            notification(&modern_http(), &broken, None).status(),
            Status::Fail
        );
        let quiet = stdio(&[5], None);
        let next = stdio(&[6, 7], Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert_eq!(
            notification(&stdio_wire(), &quiet, Some(&next)).status(),
            Status::Pass
        );
    }

    #[test]
    fn batch_per_revision() {
        let a = json!("b-1");
        let b = json!("b-2");
        let both = json!([{"jsonrpc":"2.0","id":"b-1","result":{}},{"jsonrpc":"2.0","id":"b-2","result":{}}]);
        let r = http_json(1, 200, &both.to_string());
        let w25a = Wire::new(Era::Legacy, TransportKind::Http, "2025-03-26");
        assert_eq!(
            batch(&w25a, &r, Some(&both), (&a, &b)).status(),
            Status::Pass
        );
        // server-everything at 2025-11-25 still accepts batches, which 2025-06-18 removed.
        let f = batch(&legacy_http(), &r, Some(&both), (&a, &b));
        assert_eq!(f.status(), Status::Warn);
        assert!(
            f.build(|_| true)
                .expect("valid")
                .detail
                .contains("2025-06-18 removed")
        );
        // 2024-11-05 never had batching: accepting one is an observation, and the text says
        // what each revision did instead of "2024-11-05 removed batching".
        let w24 = Wire::new(Era::Legacy, TransportKind::Http, "2024-11-05");
        let f = batch(&w24, &r, Some(&both), (&a, &b));
        assert_eq!(f.status(), Status::Info);
        let detail = f.build(|_| true).expect("valid").detail;
        assert!(
            detail.contains("does not define batching") && !detail.contains("2024-11-05 removed"),
            "{detail}"
        );
        // Python SDK: 400 -32602 → rejected as a whole.
        let rej = http_json(
            2,
            400,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"validation"}}"#,
        );
        let v = body_json(&rej);
        assert_eq!(
            batch(&legacy_http(), &rej, v.as_ref(), (&a, &b)).status(),
            Status::Pass
        );
        assert_eq!(
            batch(&w25a, &rej, v.as_ref(), (&a, &b)).status(),
            Status::Fail
        );
        let half = json!([{"jsonrpc":"2.0","id":"b-1","result":{}}]);
        assert_eq!(
            batch(&legacy_http(), &r, Some(&half), (&a, &b)).status(),
            Status::Warn
        );
    }

    #[test]
    fn invalid_and_null() {
        let good = http_json(
            1,
            400,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
        );
        let served = http_json(2, 200, r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#);
        assert_eq!(
            invalid_request(&legacy_http(), &[("a", &good)]).status(),
            Status::Pass
        );
        assert_eq!(
            invalid_request(&legacy_http(), &[("a", &good), ("b", &served)]).status(),
            Status::Fail
        );
        assert_eq!(null_id(&legacy_http(), &good).status(), Status::Pass);
        let served_null = http_json(3, 200, r#"{"jsonrpc":"2.0","id":null,"result":{}}"#);
        assert_eq!(null_id(&legacy_http(), &served_null).status(), Status::Warn);
    }
}
