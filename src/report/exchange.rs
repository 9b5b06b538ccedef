//! What a run exchanged with a server, as findings cite it: every HTTP request and response
//! and every stdio line, numbered in the order they happened (`req#12`). The recorder
//! (`telemetry`) writes these; findings, reports and every emitter read them.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A run-wide sequence number (`req#12`).
pub type Seq = u64;

/// One recorded exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub seq: Seq,
    /// When it started (RFC 3339 in serialised form).
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    /// How long it took until the response was complete (or abandoned).
    pub duration_ms: f64,
    /// Which wire this was on, when the server is probed on two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<super::finding::Era>,
    pub kind: ExchangeKind,
}

/// What was exchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExchangeKind {
    Http(HttpExchange),
    Stdio(StdioMessage),
}

/// An HTTP request and what came back.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HttpExchange {
    pub method: String,
    pub url: String,
    pub request_headers: Vec<(String, String)>,
    pub request_body: Option<String>,
    /// None when no response arrived (connection error, timeout).
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
    /// The body as received (SSE bodies verbatim), up to the size cap.
    pub response_body: Option<String>,
    /// The body was cut at the size cap or at the timeout.
    pub truncated: bool,
    /// Transport error, timeout, or other reason there is no complete response.
    pub error: Option<String>,
}

/// Which way a stdio message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// scout → server (stdin).
    Sent,
    /// server → scout (stdout).
    Received,
}

/// One line on a stdio wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StdioMessage {
    pub direction: Direction,
    /// The JSON-RPC method, when the line is a request or notification.
    pub method: Option<String>,
    /// The line as written or read (without the newline).
    pub line: String,
    /// The line did not parse as one JSON-RPC message.
    pub not_jsonrpc: bool,
}

/// The JSON-RPC messages of one exchange: a stdio line, or an HTTP request and its answer
/// (a JSON body, or the `data:` lines of an event stream).
pub fn jsonrpc_messages(e: &Exchange) -> Vec<serde_json::Value> {
    let parse = |s: &str| serde_json::from_str::<serde_json::Value>(s.trim()).ok();
    match &e.kind {
        ExchangeKind::Stdio(m) => parse(&m.line).into_iter().collect(),
        ExchangeKind::Http(h) => {
            let mut out: Vec<serde_json::Value> = h
                .request_body
                .as_deref()
                .and_then(parse)
                .into_iter()
                .collect();
            if let Some(body) = h.response_body.as_deref() {
                match parse(body) {
                    Some(v) => out.push(v),
                    None => out.extend(
                        body.lines()
                            .filter_map(|l| l.strip_prefix("data:"))
                            .filter_map(parse),
                    ),
                }
            }
            out
        }
    }
}
