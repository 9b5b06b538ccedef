//! The deprecated HTTP+SSE transport (2024-11-05): a GET stream that first names, in an
//! `endpoint` event, the URL messages are POSTed to, then carries every server message as a
//! `message` event.
//!
//! The GET stream is read by one background task for the life of the wire; each `message`
//! event is recorded as its own exchange (method `GET`, the stream URL, the event as body)
//! and routed by id to the POST waiting for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::report::exchange::{ExchangeKind, HttpExchange, Seq};
use crate::report::finding::Era;
use crate::telemetry::Recorder;
use crate::transport::http::{HttpClients, HttpRequest, error_chain, exchange as http_exchange};
use crate::transport::sse::SseParser;
use crate::transport::stdio::id_key;
use crate::transport::{Outcome, Reply};

type Waiters = Arc<Mutex<HashMap<String, oneshot::Sender<(Seq, Value)>>>>;

/// An open HTTP+SSE connection.
#[derive(Debug)]
pub struct LegacySseWire {
    clients: Arc<HttpClients>,
    /// Where messages are POSTed (from the `endpoint` event, resolved against the stream URL).
    pub endpoint: String,
    recorder: Recorder,
    waiters: Waiters,
    reader: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// The URL messages are POSTed to: the `endpoint` event's URI resolved against the stream's
/// URL, refused when it is on another origin. Every message carries the configured
/// credentials and trace id, and those go only to the origin scout was pointed at, never to
/// a host the server names.
fn message_endpoint(base: &url::Url, event: &str) -> Result<String, String> {
    let endpoint = base
        .join(event.trim())
        .map_err(|e| format!("the endpoint event's URI is invalid: {e}"))?;
    if endpoint.origin() != base.origin() {
        return Err(format!(
            "the endpoint event names {endpoint}, on another origin than the stream {base}; scout posts messages (and the configured credentials) only to the server's own origin"
        ));
    }
    Ok(endpoint.to_string())
}

impl LegacySseWire {
    /// Opens the GET stream at `url` and waits (at most `timeout`) for the `endpoint` event.
    pub async fn connect(
        clients: Arc<HttpClients>,
        url: String,
        recorder: Recorder,
        timeout: Duration,
        max_event: usize,
    ) -> Result<Arc<Self>, String> {
        clients.pace().await;
        let pending = recorder.begin();
        let mut headers = vec![
            ("Accept".to_string(), "text/event-stream".to_string()),
            ("X-MCP-Trace-ID".to_string(), clients.trace_id.clone()),
        ];
        headers.extend(clients.credentials());
        let mut ex = HttpExchange {
            method: "GET".into(),
            url: url.clone(),
            request_headers: headers.clone(),
            ..HttpExchange::default()
        };
        let mut rb = clients.client().get(&url);
        for (k, v) in &headers {
            rb = rb.header(k, v);
        }
        let resp = match tokio::time::timeout(timeout, rb.send()).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                ex.error = Some(error_chain(&e));
                recorder.finish(pending, Some(Era::Legacy), ExchangeKind::Http(ex));
                return Err(error_chain(&e));
            }
            Err(_) => {
                ex.error = Some("timed out".into());
                recorder.finish(pending, Some(Era::Legacy), ExchangeKind::Http(ex));
                return Err("timed out opening the stream".into());
            }
        };
        ex.status = Some(resp.status().as_u16());
        ex.response_headers = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let base = resp.url().clone();
        let mut stream = resp.bytes_stream();
        let mut parser = SseParser::new();
        let mut seen = Vec::new();
        let deadline = tokio::time::Instant::now() + timeout;
        let endpoint = 'outer: loop {
            match tokio::time::timeout_at(deadline, stream.next()).await {
                Ok(Some(Ok(chunk))) => {
                    seen.extend_from_slice(&chunk);
                    for ev in parser.feed(&chunk) {
                        if ev.event.as_deref() == Some("endpoint") {
                            break 'outer Some(ev.data);
                        }
                    }
                    if seen.len() > max_event {
                        break None;
                    }
                }
                _ => break None,
            }
        };
        ex.response_body = Some(String::from_utf8_lossy(&seen).into_owned());
        let endpoint = endpoint
            .ok_or_else(|| "no endpoint event arrived on the stream".to_string())
            .and_then(|e| message_endpoint(&base, &e));
        ex.error = Some(match &endpoint {
            Ok(_) => "stream kept open for the server's messages".into(),
            Err(e) => e.clone(),
        });
        recorder.finish(pending, Some(Era::Legacy), ExchangeKind::Http(ex));
        let endpoint = endpoint?;
        let waiters: Waiters = Arc::new(Mutex::new(HashMap::new()));
        let task = tokio::spawn(read_stream(
            stream,
            parser,
            waiters.clone(),
            recorder.clone(),
            url,
            max_event,
        ));
        Ok(Arc::new(LegacySseWire {
            clients,
            endpoint,
            recorder,
            waiters,
            reader: Mutex::new(Some(task)),
        }))
    }

    /// The HTTP client of the wire.
    pub fn clients(&self) -> &HttpClients {
        &self.clients
    }

    /// POSTs `body` to the endpoint and, when `id` is given, waits for the response on the
    /// stream.
    pub async fn exchange(
        &self,
        body: String,
        headers: Vec<(String, String)>,
        id: Option<Value>,
        era: Option<Era>,
        timeout: Duration,
        max_body: usize,
    ) -> Reply {
        let started = Instant::now();
        let rx = id.as_ref().map(|id| {
            let (tx, rx) = oneshot::channel();
            self.waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id_key(id), tx);
            rx
        });
        let mut reply = http_exchange(
            &self.clients,
            &self.recorder,
            era,
            HttpRequest {
                method: "POST".into(),
                url: self.endpoint.clone(),
                headers,
                body: Some(body),
                expect_id: None,
                timeout,
                max_body,
                stop: None,
                pad: None,
                abandon: false,
                answer: None,
                first_message_only: false,
                opened: None,
                end_after: 0,
                first_message: None,
            },
        )
        .await;
        // The reply comes on the stream only when the POST was accepted; a POST the server
        // refused (4xx/5xx) or that never arrived has no reply to wait for.
        let accepted = reply
            .http
            .as_ref()
            .is_some_and(|h| (200..300).contains(&h.status));
        if let (Some(_), Some(id), false) = (rx.as_ref(), id.as_ref(), accepted) {
            self.waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id_key(id));
        } else if let (Some(rx), Some(id)) = (rx, id.as_ref()) {
            let rest = timeout.saturating_sub(started.elapsed());
            match tokio::time::timeout(rest, rx).await {
                Ok(Ok((seq, msg))) => {
                    reply.evidence.push(seq);
                    reply.response = Some(msg);
                    reply.outcome = Outcome::Answered;
                }
                _ => {
                    self.waiters
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&id_key(id));
                    if !matches!(reply.outcome, Outcome::TransportError(_)) {
                        reply.outcome = Outcome::TimedOut;
                    }
                }
            }
        }
        reply.elapsed = started.elapsed();
        reply
    }

    /// Stops reading the stream (the connection is dropped).
    pub fn close(&self) {
        if let Some(h) = self.reader.lock().unwrap_or_else(|e| e.into_inner()).take() {
            h.abort();
        }
    }
}

impl Drop for LegacySseWire {
    fn drop(&mut self) {
        self.close();
    }
}

async fn read_stream(
    mut stream: impl futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin,
    mut parser: SseParser,
    waiters: Waiters,
    recorder: Recorder,
    url: String,
    max_event: usize,
) {
    let mut since_event = 0usize;
    while let Some(Ok(chunk)) = stream.next().await {
        since_event += chunk.len();
        if since_event > max_event {
            tracing::warn!("HTTP+SSE event over the size cap; stream abandoned");
            break;
        }
        for ev in parser.feed(&chunk) {
            since_event = 0;
            if !ev.has_data || ev.data.trim().is_empty() {
                continue;
            }
            let raw = format!(
                "event: {}\ndata: {}\n\n",
                ev.event.as_deref().unwrap_or("message"),
                ev.data
            );
            let kind = ExchangeKind::Http(HttpExchange {
                method: "GET".into(),
                url: url.clone(),
                status: Some(200),
                response_body: Some(raw),
                error: Some("one event on the HTTP+SSE stream".into()),
                ..HttpExchange::default()
            });
            let msg = serde_json::from_str::<Value>(&ev.data).ok();
            // The response to a waiting POST is always recorded; anything else the server
            // sends on the stream only while the recorder's caps leave room.
            let waiter = msg
                .as_ref()
                .filter(|m| m.get("method").is_none())
                .and_then(|m| m.get("id"))
                .and_then(|id| {
                    waiters
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&id_key(id))
                });
            match (waiter, msg) {
                (Some(tx), Some(msg)) => {
                    let seq = recorder.record_now(Some(Era::Legacy), kind);
                    let _ = tx.send((seq, msg));
                }
                (_, msg) => {
                    let seq = recorder.offer(Some(Era::Legacy), kind);
                    if let (Some(seq), Some(m)) = (seq, msg)
                        && m.get("method").is_none()
                        && m.get("id").is_some()
                    {
                        tracing::warn!(seq, "unmatched reply on the HTTP+SSE stream");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod endpoint_tests {
    use super::message_endpoint;

    #[test]
    fn messages_go_only_to_the_streams_origin() {
        let base = url::Url::parse("http://127.0.0.1:8080/sse").expect("url");
        assert_eq!(
            message_endpoint(&base, "/messages?sessionId=1").as_deref(),
            Ok("http://127.0.0.1:8080/messages?sessionId=1")
        );
        assert!(message_endpoint(&base, "http://127.0.0.1:8080/m").is_ok());
        for foreign in [
            "http://127.0.0.2:8080/m",
            "http://127.0.0.1:8081/m",
            "https://127.0.0.1:8080/m",
            "//169.254.169.254/latest/meta-data",
        ] {
            let err = message_endpoint(&base, foreign).expect_err(foreign);
            assert!(err.contains("another origin"), "{foreign}: {err}");
        }
    }
}
