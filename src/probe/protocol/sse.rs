//! Judge for SSE response streams: only notifications about the request, then the
//! response, then the end of the stream; no server→client requests in 2026-07-28.

use super::{SSE, Wire, cite};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::Reply;

/// `sse`: every reply of the phase that came as `text/event-stream`.
pub fn sse(w: &Wire, replies: &[&Reply]) -> FindingBuilder {
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
                // Allowed in the handshake era when related to the request; worth knowing.
                warns.push(line);
                warn_ev.push(*r);
            }
        }
        if r.response.is_none() {
            warns.push("a response stream carried no JSON-RPC response".to_string());
            warn_ev.push(*r);
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
        SSE.pass(format!(
            "{} response stream(s): the response, then the end of the stream",
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
    fn clean_stream_passes_and_requests_fail_in_2026() {
        let legacy = Wire::new(Era::Legacy, TransportKind::Http, "2025-11-25");
        let modern = Wire::new(Era::Modern, TransportKind::Http, "2026-07-28");
        let ok = http_sse(1, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(sse(&legacy, &[&ok]).status(), Status::Pass);
        let mut req = http_sse(2, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
        req.server_requests
            .push(json!({"jsonrpc":"2.0","id":0,"method":"roots/list"}));
        assert_eq!(sse(&modern, &[&ok, &req]).status(), Status::Fail);
        assert_eq!(sse(&legacy, &[&ok, &req]).status(), Status::Warn);
        let json_only = http_json(3, 200, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
        assert_eq!(sse(&modern, &[&json_only]).status(), Status::Skip);
    }
}
