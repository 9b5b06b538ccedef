//! Resuming a handshake-era SSE response stream the server closed before the response
//! (2025-11-25 transports, "Resumability and Redelivery"): wait the stream's `retry` time,
//! reconnect with GET and `Last-Event-ID`, read on; a few times at most, within the
//! request's timeout. 2026-07-28 has no resumption ("Resumable SSE streams via
//! `Last-Event-ID` are not supported"); [`super::http::exchange`] never calls this for it.

use std::time::Duration;

use crate::report::exchange::{ExchangeKind, HttpExchange};
use crate::report::finding::Era;
use crate::telemetry::Recorder;
use crate::transport::http::{
    Collected, End, HttpClients, HttpRequest, error_chain, header_list, is_event_stream,
    read_stream, stream_anomalies,
};
use crate::transport::sse::SseParser;

/// The most reconnects scout makes to resume one request's response stream.
pub const MAX_RESUMES: usize = 3;
/// How long scout waits before reconnecting when the stream sent no `retry` field.
pub const DEFAULT_RETRY: Duration = Duration::from_millis(100);

/// Resumes a response stream the server closed before the response: wait `retry`, GET with
/// `Last-Event-ID`, read; up to [`MAX_RESUMES`] times within `deadline`. Returns how the last
/// stream ended, or why the response was lost (`true` when the deadline ran out).
pub(super) async fn resume(
    clients: &HttpClients,
    recorder: &Recorder,
    era: Option<Era>,
    req: &HttpRequest,
    deadline: tokio::time::Instant,
    col: &mut Collected,
) -> Result<End, (String, bool)> {
    let before = "the server closed the response stream before the response";
    for _ in 0..MAX_RESUMES {
        let Some(last) = col.last_event_id.clone() else {
            return Err((
                format!("{before} without sending an event id to resume from"),
                false,
            ));
        };
        let wait = col
            .retry_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_RETRY);
        if tokio::time::Instant::now() + wait >= deadline {
            return Err((
                format!(
                    "{before}; its retry time ({} ms) left no time to resume within the request's timeout",
                    wait.as_millis()
                ),
                true,
            ));
        }
        tokio::time::sleep(wait).await;
        col.resumed += 1;
        let mut headers: Vec<(String, String)> = req
            .headers
            .iter()
            .filter(|(k, _)| {
                ![
                    "accept",
                    "content-type",
                    "last-event-id",
                    "mcp-method",
                    "mcp-name",
                ]
                .contains(&k.to_ascii_lowercase().as_str())
            })
            .cloned()
            .collect();
        headers.push(("Accept".into(), "text/event-stream".into()));
        headers.push(("Last-Event-ID".into(), last.clone()));
        // A reconnect is a request like any other: it waits for the run's rate limiter.
        clients.pace().await;
        let pending = recorder.begin();
        col.resume_evidence.push(pending.seq);
        let mut ex = HttpExchange {
            method: "GET".into(),
            url: req.url.clone(),
            request_headers: headers.clone(),
            ..HttpExchange::default()
        };
        let mut rb = clients.client().get(&req.url);
        for (k, v) in &headers {
            rb = rb.header(k, v);
        }
        let resp = match tokio::time::timeout_at(deadline, rb.send()).await {
            Err(_) => {
                ex.error = Some("timed out waiting for the response headers".into());
                recorder.finish(pending, era, ExchangeKind::Http(ex));
                return Err((
                    format!("{before}; the GET with Last-Event-ID {last} got no answer in time"),
                    true,
                ));
            }
            Ok(Err(e)) => {
                let msg = error_chain(&e);
                ex.error = Some(msg.clone());
                recorder.finish(pending, era, ExchangeKind::Http(ex));
                return Err((
                    format!("{before}; the GET with Last-Event-ID {last} failed: {msg}"),
                    false,
                ));
            }
            Ok(Ok(r)) => r,
        };
        let status = resp.status().as_u16();
        ex.status = Some(status);
        ex.response_headers = header_list(&resp);
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        if status != 200 || !is_event_stream(content_type.as_deref()) {
            // Keep a little of the refusal for the report.
            let (body, _) = read_stream(resp.bytes_stream(), deadline, 4096, None, None).await;
            ex.response_body = Some(String::from_utf8_lossy(&body).into_owned());
            recorder.finish(pending, era, ExchangeKind::Http(ex));
            return Err((
                format!(
                    "{before}; resuming it with GET and Last-Event-ID {last} got HTTP {status} ({}) instead of the rest of the stream",
                    content_type.as_deref().unwrap_or("no content type")
                ),
                false,
            ));
        }
        let mut parser = SseParser::new();
        let (body, end) = read_stream(
            resp.bytes_stream(),
            deadline,
            req.max_body,
            Some((&mut parser, col, req.expect_id.as_ref())),
            None,
        )
        .await;
        if let End::Broken(e) = &end {
            ex.error = Some(e.clone());
        }
        ex.truncated = end == End::Truncated;
        ex.response_body = Some(String::from_utf8_lossy(&body).into_owned());
        recorder.finish(pending, era, ExchangeKind::Http(ex));
        if col.response.is_some() {
            let mut notes = Vec::new();
            stream_anomalies(&mut parser, &end, col, req, req.timeout, &mut notes);
            col.anomalies.extend(notes);
            return Ok(end);
        }
        match end {
            End::Ended | End::Broken(_) => {
                // Closed again before the response: the server may poll us several times.
                parser.finish();
                col.anomalies.append(&mut parser.anomalies);
            }
            End::TimedOut | End::Grace | End::Enough => {
                return Err((
                    format!("{before}; the resumed stream brought no response before the timeout"),
                    true,
                ));
            }
            End::Truncated => {
                return Err((
                    format!("{before}; the resumed stream exceeded the size cap"),
                    false,
                ));
            }
        }
    }
    Err((
        format!("{before}, and {MAX_RESUMES} reconnects with Last-Event-ID did not bring it"),
        false,
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;
    use crate::transport::http::exchange;
    use crate::transport::{Outcome, Reply};

    /// A one-purpose HTTP server: every POST gets an SSE stream with a priming event (id
    /// `s:0`, `retry` ms) that is closed before the response; a GET with `Last-Event-ID: s:0`
    /// gets `get_answer`. Returns the URL and the requests it saw (request line + headers).
    async fn closing_server(
        get_answer: &'static str,
        retry: u64,
    ) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let log = log.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 8192];
                    let mut n = 0;
                    // Headers (and the small body) arrive in a few reads at most.
                    while n < buf.len() {
                        let Ok(k) = sock.read(&mut buf[n..]).await else {
                            return;
                        };
                        if k == 0 {
                            break;
                        }
                        n += k;
                        let text = String::from_utf8_lossy(&buf[..n]);
                        if let Some(end) = text.find("\r\n\r\n") {
                            let len = text[..end]
                                .lines()
                                .find_map(|l| {
                                    l.to_ascii_lowercase()
                                        .strip_prefix("content-length:")
                                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                                })
                                .unwrap_or(0);
                            if n >= end + 4 + len {
                                break;
                            }
                        }
                    }
                    let head = String::from_utf8_lossy(&buf[..n]).to_string();
                    log.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(head.clone());
                    let answer = if head.starts_with("POST") {
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nid: s:0\nretry: {retry}\ndata: \n\n"
                        )
                    } else if head.to_ascii_lowercase().contains("last-event-id: s:0") {
                        get_answer.to_string()
                    } else {
                        "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n".to_string()
                    };
                    let _ = sock.write_all(answer.as_bytes()).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        (url, seen)
    }

    fn post(url: &str, era: Option<Era>, timeout: Duration) -> (HttpRequest, Option<Era>) {
        (
            HttpRequest {
                method: "POST".into(),
                url: url.to_string(),
                headers: vec![
                    ("Accept".into(), "application/json, text/event-stream".into()),
                    ("Content-Type".into(), "application/json".into()),
                    ("Mcp-Session-Id".into(), "sess-1".into()),
                ],
                body: Some(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_reconnection"}}"#.into()),
                expect_id: Some(json!(7)),
                timeout,
                max_body: 1 << 20,
                stop: None,
                pad: None,
                abandon: false,
                answer: None,
                first_message_only: false,
                opened: None,
                end_after: 0,
                first_message: None,
            },
            era,
        )
    }

    async fn send(url: &str, era: Option<Era>) -> (Reply, Recorder) {
        send_within(url, era, Duration::from_secs(5)).await
    }

    async fn send_within(url: &str, era: Option<Era>, timeout: Duration) -> (Reply, Recorder) {
        let clients = HttpClients::new(
            Vec::new(),
            "trace".into(),
            crate::transport::limiter::RateLimiter::new(None),
        )
        .expect("client");
        let recorder = Recorder::new();
        let (req, era) = post(url, era, timeout);
        (exchange(&clients, &recorder, era, req).await, recorder)
    }

    #[tokio::test]
    async fn a_stream_closed_before_the_response_is_resumed_with_last_event_id() {
        let body = "id: s:1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}\n\n";
        let get = Box::leak(
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_boxed_str(),
        );
        let (url, seen) = closing_server(get, 20).await;
        let (reply, recorder) = send(&url, Some(Era::Legacy)).await;
        assert_eq!(reply.outcome, Outcome::Answered, "{reply:?}");
        assert_eq!(
            reply.response.as_ref().and_then(|r| r.get("id")),
            Some(&json!(7))
        );
        let info = reply
            .http
            .as_ref()
            .and_then(|h| h.sse.clone())
            .expect("sse");
        assert_eq!(info.resumed, 1);
        assert_eq!(info.retry_ms, Some(20));
        assert!(info.lost.is_none());
        // The POST and the GET are both evidence, both recorded.
        assert_eq!(reply.evidence.len(), 2);
        assert!(reply.evidence.iter().all(|s| recorder.contains(*s)));
        let requests = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let get = requests
            .iter()
            .find(|r| r.starts_with("GET"))
            .expect("a GET");
        let lower = get.to_ascii_lowercase();
        assert!(lower.contains("last-event-id: s:0"), "{get}");
        assert!(lower.contains("mcp-session-id: sess-1"), "{get}");
        assert!(lower.contains("accept: text/event-stream"), "{get}");
    }

    #[tokio::test]
    async fn a_stream_that_cannot_be_resumed_is_a_transport_error_naming_why() {
        let (url, _) = closing_server(
            "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n",
            20,
        )
        .await;
        let (reply, _) = send(&url, Some(Era::Legacy)).await;
        let Outcome::TransportError(why) = &reply.outcome else {
            panic!("expected a transport error, got {:?}", reply.outcome);
        };
        assert!(
            why.contains("405") && why.contains("Last-Event-ID"),
            "{why}"
        );
        let info = reply
            .http
            .as_ref()
            .and_then(|h| h.sse.clone())
            .expect("sse");
        assert_eq!(info.lost.as_deref(), Some(why.as_str()));
        assert_eq!(reply.evidence.len(), 2, "the refused GET is evidence too");
    }

    #[tokio::test]
    async fn modern_streams_are_never_resumed() {
        let (url, seen) = closing_server("HTTP/1.1 500 Internal Server Error\r\n\r\n", 20).await;
        let (reply, _) = send(&url, Some(Era::Modern)).await;
        assert!(
            matches!(reply.outcome, Outcome::TransportError(_)),
            "{reply:?}"
        );
        assert_eq!(reply.evidence.len(), 1);
        let requests = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert!(
            requests.iter().all(|r| !r.starts_with("GET")),
            "{requests:?}"
        );
    }

    #[tokio::test]
    async fn a_retry_longer_than_the_timeout_is_a_timeout_not_a_lost_response() {
        // The conformance suite's everything-server asks for `retry: 5000`; with a shorter
        // request timeout the call is slow, not broken.
        let (url, seen) = closing_server("HTTP/1.1 500 Internal Server Error\r\n\r\n", 5000).await;
        let (reply, _) = send_within(&url, Some(Era::Legacy), Duration::from_secs(1)).await;
        assert_eq!(reply.outcome, Outcome::TimedOut, "{reply:?}");
        let info = reply
            .http
            .as_ref()
            .and_then(|h| h.sse.clone())
            .expect("sse");
        assert!(info.lost.is_none(), "{info:?}");
        assert!(
            info.anomalies.iter().any(|a| a.contains("5000 ms")),
            "{:?}",
            info.anomalies
        );
        let requests = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert!(
            requests.iter().all(|r| !r.starts_with("GET")),
            "{requests:?}"
        );
    }
}
