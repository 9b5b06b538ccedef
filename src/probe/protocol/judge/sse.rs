//! Judge for SSE response streams: only notifications about the request, then the
//! response, then the end of the stream; no server→client requests in 2026-07-28.

use crate::probe::protocol::{SSE, Wire, cite};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::Reply;

/// `sse`: every reply of the phase that came as `text/event-stream`.
pub fn sse(w: &Wire, replies: &[&Reply]) -> FindingBuilder {
    if w.is_legacy_sse() {
        return SSE.skip(
            SkipReason::NotApplicable,
            "response streams are a Streamable HTTP feature; HTTP+SSE (2024-11-05) answers on its one event stream",
        );
    }
    if !w.is_http() {
        return SSE.skip(
            SkipReason::NotApplicable,
            "SSE response streams exist only on HTTP",
        );
    }
    let streams: Vec<&Reply> = replies
        .iter()
        .copied()
        .filter(|r| r.http.as_ref().is_some_and(|h| h.sse.is_some()))
        .collect();
    if streams.is_empty() {
        return SSE.skip(
            SkipReason::NotApplicable,
            "the server answered every request with application/json; no response stream to judge",
        );
    }
    let mut fails = Vec::new();
    let mut fail_ev = Vec::new();
    let mut warns = Vec::new();
    let mut warn_ev = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for r in &streams {
        let Some(info) = r.http.as_ref().and_then(|h| h.sse.as_ref()) else {
            continue;
        };
        if !r.server_requests.is_empty() {
            let methods: Vec<&str> = r
                .server_requests
                .iter()
                .filter_map(|m| m.get("method").and_then(|x| x.as_str()))
                .collect();
            let line = format!(
                "a response stream carried server→client request(s): {}",
                methods.join(", ")
            );
            if w.is_modern() {
                fails.push(line);
                fail_ev.push(*r);
            } else {
                // 2025-11-25 transports: "The server MAY send JSON-RPC requests and
                // notifications before sending the JSON-RPC response." Reported, not graded.
                notes.push(format!(
                    "{line} (allowed before the response in {})",
                    w.version
                ));
            }
        }
        if let Some(why) = &info.lost {
            // The request was never answered: the stream closed early and could not be
            // resumed (or, in 2026-07-28, cannot be).
            fails.push(why.clone());
            fail_ev.push(*r);
        } else if r.response.is_none() {
            warns.push("a response stream carried no JSON-RPC response".to_string());
            warn_ev.push(*r);
        } else if info.resumed > 0 {
            notes.push(format!(
                "a stream closed before its response was resumed with GET and Last-Event-ID ({} reconnect(s))",
                info.resumed
            ));
            if info.retry_ms.is_none() {
                // 2025-11-25: a server closing the connection early "SHOULD send an SSE
                // event with a standard retry field before closing the connection".
                warns.push(
                    "the server closed a response stream before the response without sending a retry field first"
                        .to_string(),
                );
                warn_ev.push(*r);
            }
        }
        if !info.ended {
            warns.push("a response stream stayed open after the response".to_string());
            warn_ev.push(*r);
        }
        for a in &info.anomalies {
            warns.push(a.clone());
            warn_ev.push(*r);
        }
    }
    warns.sort();
    warns.dedup();
    if !fails.is_empty() {
        SSE.fail(
            fails
                .into_iter()
                .chain(warns)
                .collect::<Vec<_>>()
                .join("; "),
        )
        .evidence(cite(fail_ev.into_iter().chain(warn_ev)))
    } else if !warns.is_empty() {
        SSE.warn(warns.join("; ")).evidence(cite(warn_ev))
    } else {
        notes.sort();
        notes.dedup();
        let note = if notes.is_empty() {
            String::new()
        } else {
            format!("; {}", notes.join("; "))
        };
        SSE.pass(format!(
            "{} response stream(s): the response, then the end of the stream{note}",
            streams.len()
        ))
        .evidence(cite(streams))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::probe::protocol::testing::*;
    use crate::report::finding::{Era, Status};
    use crate::report::model::TransportKind;

    #[test]
    fn resumed_streams_pass_and_lost_responses_fail() {
        let legacy = Wire::new(Era::Legacy, TransportKind::Http, "2025-11-25");
        let mut resumed = http_sse(1, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        resumed.evidence.push(2);
        if let Some(info) = resumed.http.as_mut().and_then(|h| h.sse.as_mut()) {
            info.resumed = 1;
            info.retry_ms = Some(50);
        }
        let f = sse(&legacy, &[&resumed]).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass);
        assert!(f.detail.contains("Last-Event-ID"), "{}", f.detail);
        // Without a retry field first: a SHOULD missed.
        if let Some(info) = resumed.http.as_mut().and_then(|h| h.sse.as_mut()) {
            info.retry_ms = None;
        }
        assert_eq!(sse(&legacy, &[&resumed]).status(), Status::Warn);
        let mut lost = http_sse(3, r#"{"jsonrpc":"2.0","method":"notifications/x"}"#);
        lost.response = None;
        if let Some(info) = lost.http.as_mut().and_then(|h| h.sse.as_mut()) {
            info.lost = Some("the server closed the response stream before the response; resuming it with GET and Last-Event-ID 7 got HTTP 405".into());
        }
        let f = sse(&legacy, &[&lost]).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("405"), "{}", f.detail);
    }

    #[test]
    fn legacy_sse_wires_are_not_called_stdio() {
        let w = Wire::new(Era::Legacy, TransportKind::LegacySse, "2024-11-05");
        let f = sse(&w, &[]).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Skip);
        assert!(f.detail.contains("HTTP+SSE"), "{}", f.detail);
        assert!(
            w.not_streamable_http()
                .ends_with("this wire is HTTP+SSE (2024-11-05)")
        );
        let stdio = Wire::new(Era::Legacy, TransportKind::Stdio, "2025-11-25");
        assert!(stdio.not_streamable_http().ends_with("this wire is stdio"));
    }

    #[test]
    fn clean_stream_passes_and_requests_fail_in_2026() {
        let legacy = Wire::new(Era::Legacy, TransportKind::Http, "2025-11-25");
        let modern = Wire::new(Era::Modern, TransportKind::Http, "2026-07-28");
        let ok = http_sse(1, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(sse(&legacy, &[&ok]).status(), Status::Pass);
        let mut req = http_sse(2, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
        req.server_requests
            .push(json!({"jsonrpc":"2.0","id":0,"method":"roots/list"}));
        assert_eq!(sse(&modern, &[&ok, &req]).status(), Status::Fail);
        // 2025-11-25 allows server requests before the response (MAY): a pass with a note.
        let f = sse(&legacy, &[&ok, &req]);
        assert_eq!(f.status(), Status::Pass);
        assert!(
            f.build(|_| true)
                .expect("valid")
                .detail
                .contains("roots/list")
        );
        let json_only = http_json(3, 200, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
        assert_eq!(sse(&modern, &[&json_only]).status(), Status::Skip);
    }
}
