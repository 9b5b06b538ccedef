//! Judges for the Streamable HTTP transport rules: Accept and Content-Type, the GET stream,
//! DELETE, unknown sessions and the `MCP-Protocol-Version` header.

use serde_json::Value;

use crate::probe::protocol::{
    ACCEPT_HEADER, BOGUS_SESSION, CONTENT_TYPE, DELETE, GET_STREAM, VERSION_HEADER, Wire,
    body_json, cite, code_of, describe, has_result,
};
use crate::report::finding::FindingBuilder;
use crate::transport::Reply;

/// The media type of a reply without parameters, lower-cased.
fn media_type(r: &Reply) -> Option<String> {
    r.http
        .as_ref()
        .and_then(|h| h.content_type.as_deref())
        .map(|c| {
            c.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
}

fn is_mcp_type(r: &Reply) -> bool {
    matches!(
        media_type(r).as_deref(),
        Some("application/json") | Some("text/event-stream")
    )
}

/// `accept_header`: `good` is an ordinary request with the Accept header every client must
/// send; `bad` asked for `text/html` only. Only the first is judged; the second is reported.
pub fn accept_header(_w: &Wire, good: &Reply, bad: &Reply) -> FindingBuilder {
    let ev = cite([good, bad]);
    if is_mcp_type(good) {
        ACCEPT_HEADER
            .pass(format!(
                "a correct Accept got {}; Accept: text/html got {}",
                media_type(good).unwrap_or_default(),
                describe(bad)
            ))
            .evidence(ev)
    } else {
        ACCEPT_HEADER
            .fail(format!(
                "a request with Accept: application/json, text/event-stream was answered with {}",
                describe(good)
            ))
            .evidence(ev)
    }
}

/// `content_type`: a request the server serves (a 2xx answer with a body) must come back as
/// `application/json` or `text/event-stream`, a MUST. A request it rejects gets an HTTP
/// error status whose body the spec leaves open ("The HTTP response body **MAY** comprise a
/// JSON-RPC error response"; intermediaries "are not required to return a JSON-RPC error
/// response"): a labelled HTML or plain-text error page is allowed and only reported, and
/// those rejections (malformed JSON, bad headers, ended sessions) are judged by the checks
/// that sent them, not here. An error body with no Content-Type at all is a warning: RFC
/// 9110 says a sender that generates content SHOULD send one.
pub fn content_type(_w: &Wire, replies: &[&Reply]) -> FindingBuilder {
    let mut wrong_ok = Vec::new();
    let mut unlabelled_errors = Vec::new();
    let mut other_errors = Vec::new();
    let mut good = Vec::new();
    for r in replies {
        let Some(h) = &r.http else { continue };
        if h.status == 202 || h.body.trim().is_empty() {
            continue;
        }
        let served = (200..300).contains(&h.status);
        if served && is_mcp_type(r) {
            good.push(*r);
        } else if served {
            wrong_ok.push(*r);
        } else if h.content_type.is_none() {
            unlabelled_errors.push(*r);
        } else if !is_mcp_type(r) {
            other_errors.push(*r);
        }
    }
    if !wrong_ok.is_empty() {
        return CONTENT_TYPE
            .fail(format!(
                "{} successful answer(s) had another content type, e.g. {}",
                wrong_ok.len(),
                describe(wrong_ok[0])
            ))
            .evidence(cite(wrong_ok));
    }
    if !unlabelled_errors.is_empty() {
        return CONTENT_TYPE
            .warn(format!(
                "{} error answer(s) came with a body but without content type (no Content-Type header), e.g. {}",
                unlabelled_errors.len(),
                describe(unlabelled_errors[0])
            ))
            .evidence(cite(unlabelled_errors))
            .advice("Label every body with its Content-Type; a JSON-RPC error object (application/json) also lets clients show the reason.");
    }
    // What the rejections came as, said but not judged.
    let rejections = if other_errors.is_empty() {
        String::new()
    } else {
        let mut kinds: Vec<String> = other_errors.iter().filter_map(|r| media_type(r)).collect();
        kinds.sort();
        kinds.dedup();
        format!(
            "; {} rejected request(s) were answered with a labelled {} error body, which the spec allows (a JSON-RPC error body is a MAY there)",
            other_errors.len(),
            kinds.join(", ")
        )
    };
    if good.is_empty() {
        return CONTENT_TYPE
            .info(format!("no served answer with a body to judge{rejections}"))
            .without_exchange();
    }
    CONTENT_TYPE
        .pass(format!(
            "all {} served answers with a body were application/json or text/event-stream{rejections}",
            good.len()
        ))
        .evidence(cite(good))
}

/// `get_stream`: GET with `Accept: text/event-stream`. `modern_only` is a server that speaks
/// only 2026-07-28 (405 is a SHOULD there); on a handshake wire SSE or 405 is a MUST.
pub fn get_stream(w: &Wire, r: &Reply, modern_only: bool) -> FindingBuilder {
    let ev = cite([r]);
    let status = r.status().unwrap_or(0);
    let sse = media_type(r).as_deref() == Some("text/event-stream");
    if modern_only {
        return if status == 405 {
            GET_STREAM.pass("GET refused with 405").evidence(ev)
        } else {
            GET_STREAM
                .warn(format!(
                    "a 2026-07-28-only server should answer GET with 405; got {}",
                    describe(r)
                ))
                .evidence(ev)
        };
    }
    let _ = w;
    match status {
        405 => GET_STREAM.pass("GET refused with 405").evidence(ev),
        200 if sse => GET_STREAM
            .pass("GET opened a text/event-stream")
            .evidence(ev),
        _ => GET_STREAM
            .fail(format!(
                "GET must open an SSE stream or be refused with 405; got {}",
                describe(r)
            ))
            .evidence(ev),
    }
}

/// `delete`: DELETE of a throw-away session (`after` = a request on it afterwards), or, for
/// a 2026-07-28-only server, a DELETE that should get 405.
///
/// One exchange, one charge: this check owns whether DELETE ended the session (the request
/// after it was still served, or not); the status an ended session's id gets is the rule
/// `protocol.bogus_session` judges, so a refusal other than 404 is cited here as context
/// only and costs this check nothing.
pub fn delete(w: &Wire, del: &Reply, after: Option<&Reply>, modern_only: bool) -> FindingBuilder {
    let ev = cite(std::iter::once(del).chain(after));
    let status = del.status().unwrap_or(0);
    if modern_only {
        return if status == 405 {
            DELETE.pass("DELETE refused with 405").evidence(ev)
        } else {
            DELETE
                .warn(format!(
                    "a 2026-07-28-only server should answer DELETE with 405; got {}",
                    describe(del)
                ))
                .evidence(ev)
        };
    }
    let _ = w;
    match status {
        405 => DELETE
            .pass("DELETE refused with 405 (allowed)")
            .evidence(ev),
        s if (200..300).contains(&s) => match after {
            Some(a) if a.status() == Some(404) => DELETE
                .pass(format!(
                    "DELETE ended the session (HTTP {s}); the next request on it got 404"
                ))
                .evidence(ev),
            Some(a) if has_result(a) => DELETE
                .fail(format!(
                    "DELETE answered {s}, but the session kept serving: a request on it got {} instead of 404",
                    describe(a)
                ))
                .evidence(ev),
            Some(a) => DELETE
                .pass(format!(
                    "DELETE ended the session (HTTP {s}): the next request on it was refused ({}); that it was not 404 is charged to protocol.bogus_session",
                    describe(a)
                ))
                .evidence(ev),
            None => DELETE
                .pass(format!("DELETE ended the session (HTTP {s})"))
                .evidence(ev),
        },
        _ => DELETE
            .warn(format!(
                "DELETE should end the session or be refused with 405; got {}",
                describe(del)
            ))
            .evidence(ev),
    }
}

/// `bogus_session`: requests with a session id the server never issued (`never`) or had
/// ended (`ended`). Handshake era: 404. 2026-07-28: the header should be ignored.
///
/// An ended session whose id is still served is a DELETE that did not end it, which
/// `protocol.delete` charges; it is named here as context, not judged again.
pub fn bogus_session(w: &Wire, never: &Reply, ended: Option<&Reply>) -> FindingBuilder {
    if w.is_modern() {
        let ev = cite([never]);
        let minted = never
            .http
            .as_ref()
            .and_then(|h| h.header("mcp-session-id"))
            .map(str::to_string);
        return match (has_result(never), minted) {
            (true, None) => BOGUS_SESSION
                .pass("the Mcp-Session-Id header was ignored and no session id came back")
                .evidence(ev),
            (true, Some(id)) => BOGUS_SESSION
                .warn(format!("the request was served, but the answer carries Mcp-Session-Id {id}; 2026-07-28 servers never mint or echo sessions"))
                .evidence(ev),
            (false, _) => BOGUS_SESSION
                .warn(format!("a 2026-07-28 server should ignore Mcp-Session-Id; the request got {}", describe(never)))
                .evidence(ev),
        };
    }
    let kept = ended.filter(|e| has_result(e));
    let cases: Vec<(&str, &Reply)> = std::iter::once(("a never-issued session id", never))
        .chain(
            ended
                .filter(|e| !has_result(e))
                .map(|e| ("an ended session id", e)),
        )
        .collect();
    let bad: Vec<String> = cases
        .iter()
        .filter(|(_, r)| r.status() != Some(404))
        .map(|(what, r)| format!("{what} got {} instead of 404", describe(r)))
        .collect();
    let context = kept
        .map(|e| {
            format!(
                "; the ended session id was still served ({}), which protocol.delete charges",
                describe(e)
            )
        })
        .unwrap_or_default();
    let ev = cite(cases.iter().map(|(_, r)| *r).chain(kept));
    if bad.is_empty() {
        BOGUS_SESSION
            .pass(format!(
                "404 for {}{context}",
                cases
                    .iter()
                    .map(|(w, _)| *w)
                    .collect::<Vec<_>>()
                    .join(" and ")
            ))
            .evidence(ev)
    } else {
        BOGUS_SESSION
            .fail(format!("{}{context}", bad.join("; ")))
            .evidence(ev)
    }
}

/// `version_header` on a handshake wire (2025-06-18 and later): `MCP-Protocol-Version:
/// banana` after initialize must get 400.
pub fn version_header_legacy(w: &Wire, r: &Reply) -> FindingBuilder {
    let ev = cite([r]);
    match r.status().unwrap_or(0) {
        400 => VERSION_HEADER
            .pass(format!(
                "an invalid MCP-Protocol-Version got {}",
                describe(r)
            ))
            .evidence(ev),
        s if (400..500).contains(&s) => VERSION_HEADER
            .warn(format!(
                "an invalid MCP-Protocol-Version must get 400; got {}",
                describe(r)
            ))
            .evidence(ev),
        _ => VERSION_HEADER
            .fail(format!(
                "an invalid MCP-Protocol-Version was not rejected ({}); {} requires 400",
                describe(r),
                w.version
            ))
            .evidence(ev),
    }
}

/// `version_header` on a 2026-07-28 HTTP wire: header/body mismatch → 400 + -32020;
/// unsupported version in both → 400 + -32022 with `data.supported` and `data.requested`.
pub fn version_header_modern(_w: &Wire, mismatch: &Reply, unsupported: &Reply) -> FindingBuilder {
    let ev = cite([mismatch, unsupported]);
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    match (mismatch.status(), code_of(mismatch)) {
        (Some(400), Some(-32020)) => {}
        // The body named a version the server may not support; which check comes first is
        // unspecified in the 2026-07-28 spec, so -32022 is an acceptable answer too.
        (Some(400), Some(-32022)) => {}
        (Some(400), _) => warns.push(format!(
            "header/body mismatch got {} (expected -32020)",
            describe(mismatch)
        )),
        _ => fails.push(format!(
            "header/body version mismatch got {} (expected 400 + -32020)",
            describe(mismatch)
        )),
    }
    let data = body_json(unsupported).and_then(|v| v.pointer("/error/data").cloned());
    let data_ok = data.as_ref().is_some_and(|d| {
        d.get("supported").is_some_and(Value::is_array)
            && d.get("requested").is_some_and(Value::is_string)
    });
    match (unsupported.status(), code_of(unsupported)) {
        (Some(400), Some(-32022)) if data_ok => {}
        (Some(400), Some(-32022)) => {
            warns.push("-32022 without data.supported / data.requested".into())
        }
        (Some(400), _) => fails.push(format!(
            "an unsupported version got {} (expected -32022)",
            describe(unsupported)
        )),
        _ => fails.push(format!(
            "an unsupported version got {} (expected 400 + -32022)",
            describe(unsupported)
        )),
    }
    if !fails.is_empty() {
        VERSION_HEADER
            .fail(
                fails
                    .into_iter()
                    .chain(warns)
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .evidence(ev)
    } else if !warns.is_empty() {
        VERSION_HEADER.warn(warns.join("; ")).evidence(ev)
    } else {
        VERSION_HEADER
            .pass("mismatch → 400 + -32020; unsupported version → 400 + -32022 with data.supported")
            .evidence(ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::protocol::testing::*;
    use crate::report::finding::{Era, Status};
    use crate::report::model::TransportKind;

    fn legacy() -> Wire {
        Wire::new(Era::Legacy, TransportKind::Http, "2025-11-25")
    }
    fn modern() -> Wire {
        Wire::new(Era::Modern, TransportKind::Http, "2026-07-28")
    }

    #[test]
    fn everything_unknown_session_400_fails() {
        // transcripts/everything-http.curated.txt §11: 400 -32000 without id.
        let r = http_json(
            1,
            400,
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#,
        );
        let f = bogus_session(&legacy(), &r, None);
        assert_eq!(f.status(), Status::Fail);
        assert!(
            f.build(|_| true)
                .expect("valid")
                .detail
                .contains("instead of 404")
        );
    }

    #[test]
    fn python_unknown_session_404_passes() {
        let r = http_json(
            1,
            404,
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Session not found"}}"#,
        );
        let e = http_json(
            2,
            404,
            r#"{"jsonrpc":"2.0","id":"y","error":{"code":-32600,"message":"Session not found"}}"#,
        );
        assert_eq!(
            bogus_session(&legacy(), &r, Some(&e)).status(),
            Status::Pass
        );
        // rmcp: 404 with a plain-text body is still a 404.
        let t = http_text(3, 404, Some("text/plain"), "session not found");
        assert_eq!(bogus_session(&legacy(), &t, None).status(), Status::Pass);
    }

    /// A 400 on an ended session is one defect: `bogus_session` charges it, `delete` (whose
    /// DELETE did end the session) passes and cites it as context.
    #[test]
    fn ended_session_400_is_charged_once() {
        let del = http_text(1, 200, None, "");
        let never = http_json(
            2,
            400,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: No valid session ID provided"}}"#,
        );
        let ended = http_json(
            3,
            400,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: No valid session ID provided"}}"#,
        );
        let d = delete(&legacy(), &del, Some(&ended), false);
        assert_eq!(d.status(), Status::Pass);
        assert!(
            d.detail().contains("protocol.bogus_session"),
            "{}",
            d.detail()
        );
        let b = bogus_session(&legacy(), &never, Some(&ended));
        assert_eq!(b.status(), Status::Fail);
        assert!(
            b.detail().contains("an ended session id got"),
            "{}",
            b.detail()
        );
    }

    /// An ended session still served is one defect too: `delete` charges it,
    /// `bogus_session` judges only the never-issued id and names the other as context.
    #[test]
    fn ended_session_served_is_charged_once() {
        let del = http_text(1, 200, None, "");
        let never = http_json(
            2,
            404,
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Session not found"}}"#,
        );
        let ended = http_json(3, 200, r#"{"jsonrpc":"2.0","id":"y","result":{}}"#);
        assert_eq!(
            delete(&legacy(), &del, Some(&ended), false).status(),
            Status::Fail
        );
        let b = bogus_session(&legacy(), &never, Some(&ended));
        assert_eq!(b.status(), Status::Pass);
        assert!(b.detail().contains("protocol.delete"), "{}", b.detail());
    }

    #[test]
    fn rmcp_plain_text_errors_are_reported() {
        let ok = http_sse(1, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        let t = http_text(
            2,
            415,
            Some("text/plain; charset=utf-8"),
            "fail to deserialize request body",
        );
        // A labelled plain-text rejection is allowed (it used to warn): reported, not
        // judged, and not cited.
        let f = content_type(&legacy(), &[&ok, &t]);
        assert_eq!(f.status(), Status::Pass);
        let built = f.build(|_| true).expect("valid");
        assert!(built.detail.contains("text/plain"), "{}", built.detail);
        assert_eq!(built.evidence, vec![1]);
        let bare = http_text(4, 400, None, "bad request");
        assert_eq!(
            content_type(&legacy(), &[&ok, &bare]).status(),
            Status::Warn
        );
        assert_eq!(content_type(&legacy(), &[&ok]).status(), Status::Pass);
        let html = http_text(3, 200, Some("text/html"), "<html/>");
        assert_eq!(
            content_type(&legacy(), &[&ok, &html]).status(),
            Status::Fail
        );
    }

    #[test]
    fn tsv2_get_delete_405_and_modern_headers_pass() {
        let get = http_json(1, 405, r#"{"code":-32000,"message":"Method not allowed."}"#);
        assert_eq!(get_stream(&modern(), &get, true).status(), Status::Pass);
        assert_eq!(delete(&modern(), &get, None, true).status(), Status::Pass);
        // Python SDK / TS v2: M6-like mismatch → 400 -32020, M9 → 400 -32022 with data.
        let mm = http_json(
            2,
            400,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Bad Request: the request headers and body disagree"}}"#,
        );
        let un = http_json(
            3,
            400,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}}"#,
        );
        assert_eq!(
            version_header_modern(&modern(), &mm, &un).status(),
            Status::Pass
        );
        // pysdk answers the M6 mismatch with -32600: a warning, not a fail.
        let py = http_json(
            4,
            400,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Missing session ID"}}"#,
        );
        assert_eq!(
            version_header_modern(&modern(), &py, &un).status(),
            Status::Warn
        );
        let served = http_json(5, 200, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(
            version_header_modern(&modern(), &served, &un).status(),
            Status::Fail
        );
    }

    #[test]
    fn legacy_get_delete_version() {
        let sse = http_sse(1, r#"{"jsonrpc":"2.0","method":"notifications/x"}"#);
        assert_eq!(get_stream(&legacy(), &sse, false).status(), Status::Pass);
        let bad = http_json(
            2,
            400,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"x"}}"#,
        );
        assert_eq!(get_stream(&legacy(), &bad, false).status(), Status::Fail);
        let del = http_text(3, 200, None, "");
        let after = http_json(
            4,
            404,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Session not found"}}"#,
        );
        assert_eq!(
            delete(&legacy(), &del, Some(&after), false).status(),
            Status::Pass
        );
        // A refusal other than 404 means the session did end: protocol.bogus_session
        // charges the status, not this check.
        assert_eq!(
            delete(&legacy(), &del, Some(&bad), false).status(),
            Status::Pass
        );
        let served = http_json(5, 200, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(
            delete(&legacy(), &del, Some(&served), false).status(),
            Status::Fail
        );
        // everything: 400 -32000 for a bad version header; rmcp: 400 text.
        assert_eq!(
            version_header_legacy(&legacy(), &bad).status(),
            Status::Pass
        );
        let ok = http_sse(5, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(version_header_legacy(&legacy(), &ok).status(), Status::Fail);
    }
}
