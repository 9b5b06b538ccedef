//! Transports: Streamable HTTP (both shapes) with our own SSE parser and stream resumption,
//! the legacy HTTP+SSE transport, and stdio child processes. Every exchange goes through the
//! recorder.
//!
//! The types here are the contract between the transports and the phases: a phase asks for
//! a [`Probe`] to be sent and judges the [`Reply`], citing `reply.evidence`.

pub mod answer;
pub mod headers;
pub mod http;
pub mod legacy_sse;
pub mod limiter;
pub mod padding;
pub mod process;
pub mod resume;
pub mod sse;
pub mod stdio;
pub mod tls;

use std::time::Duration;

use serde_json::Value;

use crate::report::exchange::Seq;

/// The JSON-RPC id a probe carries.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum IdKind {
    /// The connection picks one (alternating integers and strings over a run).
    #[default]
    Auto,
    /// This string id.
    Str(String),
    /// This integer id.
    Int(i64),
    /// `"id": null` (a deliberate protocol violation).
    Null,
    /// No id at all: a notification.
    Absent,
}

/// How the 2026-07-28 `_meta` envelope is handled for a probe.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MetaMode {
    /// Add the connection's envelope (modern wires only).
    #[default]
    Auto,
    /// Send no `_meta` at all.
    Omit,
    /// Use exactly this `_meta` object.
    Custom(Value),
}

/// Which session id an HTTP probe carries.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SessionMode {
    /// The connection's current session, if any.
    #[default]
    Auto,
    /// No `Mcp-Session-Id` header.
    None,
    /// This value (a bogus or ended session).
    Custom(String),
}

/// One deliberate request. `Probe::request("tools/list", json!({}))` is an ordinary request;
/// the other fields bend it into a protocol violation or a transport probe.
#[derive(Debug, Clone, Default)]
pub struct Probe {
    /// JSON-RPC method (`None` only with `raw_body` or a non-POST `http_method`).
    pub method: Option<String>,
    pub id: IdKind,
    /// `params` (without `_meta`; it is added per `meta`). `None` omits params.
    pub params: Option<Value>,
    pub meta: MetaMode,
    /// Send these bytes instead of a built message (stdio: one line; a newline is added).
    pub raw_body: Option<String>,
    /// HTTP only: `GET` or `DELETE` instead of `POST`.
    pub http_method: Option<String>,
    /// HTTP only: header overrides, applied last. `None` removes a header the connection
    /// would otherwise send (e.g. `Mcp-Method`).
    pub headers: Vec<(String, Option<String>)>,
    pub session: SessionMode,
    /// Overrides the per-request timeout.
    pub timeout: Option<Duration>,
    /// The probe expects no JSON-RPC reply (notifications, raw garbage on stdio): the
    /// transport waits only briefly (stdio) or for the HTTP status (HTTP).
    pub expect_no_reply: bool,
    /// Use the bare HTTP client (no credentials, no fixed headers).
    pub bare: bool,
    /// HTTP only: stop reading the body when this turns true (see `HttpRequest::stop`).
    pub stop: Option<tokio::sync::watch::Receiver<bool>>,
    /// HTTP only: told once the response's status and headers arrived (see
    /// `HttpRequest::opened`).
    pub opened: Option<std::sync::Arc<tokio::sync::Notify>>,
    /// Reading ends once this many messages other than the response came (0: no such
    /// limit; `first_message_only` is 1).
    pub end_after: usize,
    /// Told when the first message other than the response came.
    pub first_message: Option<std::sync::Arc<tokio::sync::Notify>>,
    /// Padding: the string [`PAD_MARKER`] in `params` stands for this many `x` bytes. Over
    /// HTTP they are streamed in chunks and never held in memory at once (see
    /// `HttpRequest::pad`); other wires get the padding written into the body.
    pub pad: Option<usize>,
    /// HTTP only: abandon the request. It is written whole on a connection of its own (TLS
    /// for `https://`), which is closed without reading the answer as soon as the write
    /// completed, so the server always meets a client that went away, however fast it
    /// answers and however far away it is. The probe's `timeout` bounds the write.
    pub abandon: bool,
    /// The probe sets its own number of requests in flight (the load ramp): it takes none
    /// of the server's `--concurrency` slots, which would cap the ramp at that number.
    /// `--rps` still paces it.
    pub own_concurrency: bool,
    /// HTTP only: stop reading at the stream's first message other than the response (see
    /// `HttpRequest::first_message_only`).
    pub first_message_only: bool,
}

/// Stands for [`Probe::pad`] bytes of padding inside a probe's params.
pub const PAD_MARKER: &str = "@@scout-padding-marker@@";

impl Probe {
    /// An ordinary request.
    pub fn request(method: &str, params: Value) -> Self {
        Probe {
            method: Some(method.to_string()),
            params: Some(params),
            ..Probe::default()
        }
    }

    /// True when this is a request sent as an agent would send it: a method and an id, the
    /// connection's own envelope, session and client, no raw body or HTTP method of its own,
    /// no header overrides beyond `Mcp-Param-*`, the default timeout, and a reply awaited.
    /// scout's deliberate violations and the requests it abandons are not ordinary; their
    /// timings say nothing about how quickly the server serves an agent.
    pub fn is_ordinary(&self) -> bool {
        self.method.is_some()
            && matches!(self.id, IdKind::Auto | IdKind::Str(_) | IdKind::Int(_))
            && self.meta == MetaMode::Auto
            && self.raw_body.is_none()
            && self.http_method.is_none()
            && self.session == SessionMode::Auto
            && self.timeout.is_none()
            && !self.expect_no_reply
            && !self.bare
            && self
                .headers
                .iter()
                .all(|(k, v)| v.is_some() && k.to_ascii_lowercase().starts_with("mcp-param-"))
    }

    /// An ordinary notification.
    pub fn notification(method: &str, params: Option<Value>) -> Self {
        Probe {
            method: Some(method.to_string()),
            params,
            id: IdKind::Absent,
            expect_no_reply: true,
            ..Probe::default()
        }
    }
}

/// How a probe ended.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Outcome {
    /// A JSON-RPC response with the probe's id arrived (see `Reply::response`).
    Answered,
    /// The transport answered without a matching JSON-RPC response (an HTTP status with a
    /// non-JSON-RPC body, 202, an empty body, nothing on stdio when none was expected).
    #[default]
    NoResponse,
    /// Nothing (or not all of it) arrived within the timeout; the call is abandoned.
    TimedOut,
    /// The body exceeded the size cap and was cut.
    Truncated,
    /// Connection refused, reset, process gone …
    TransportError(String),
}

/// What an SSE response stream looked like.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SseInfo {
    /// Number of events (including priming events with empty data).
    pub events: usize,
    /// Irregularities the parser saw (an event without data, events after the response,
    /// a stream that never ended, non-JSON data …), one sentence each.
    pub anomalies: Vec<String>,
    /// The server closed the stream after the response.
    pub ended: bool,
    /// How many times scout reconnected (GET with `Last-Event-ID`) because the server closed
    /// the stream before the response (handshake-era resumability).
    pub resumed: usize,
    /// The stream closed before the response and the response could not be recovered: why.
    pub lost: Option<String>,
    /// The last `retry` field the server sent, in milliseconds.
    pub retry_ms: Option<u64>,
}

/// The HTTP side of a reply.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpInfo {
    pub status: u16,
    /// Response headers, names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    pub content_type: Option<String>,
    /// The body as text (SSE verbatim), up to the cap.
    pub body: String,
    /// Set when the body was an SSE stream.
    pub sse: Option<SseInfo>,
}

impl HttpInfo {
    /// First value of a response header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Everything a probe produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    /// Every exchange that belongs to this probe (HTTP: one; stdio: the sent line and each
    /// received line attributed to it). Cite these.
    pub evidence: Vec<Seq>,
    pub outcome: Outcome,
    /// The JSON-RPC response (or, on a transport that answered with a JSON-RPC error object
    /// without an id, that object).
    pub response: Option<Value>,
    /// Notifications that came with it (SSE stream, or stdio lines for this request).
    pub notifications: Vec<Value>,
    /// Server→client requests seen while waiting (a violation on a 2026-07-28 response stream).
    pub server_requests: Vec<Value>,
    /// The HTTP status, headers and body, on HTTP wires.
    pub http: Option<HttpInfo>,
    pub elapsed: Duration,
    /// The operating system refused the TCP connection (`ConnectionRefused`): nothing
    /// listens on the port. Set from the error's kind, not its text, so that a server
    /// whose message merely says so is not taken for a stopped one.
    pub refused: bool,
}

impl Reply {
    /// One line saying what this reply was ("HTTP 401, no JSON-RPC response").
    pub fn describe(&self) -> String {
        let r = self;
        let status = r
            .status()
            .map(|s| format!("HTTP {s}, "))
            .unwrap_or_default();
        match (&r.outcome, r.error_code()) {
            (_, Some(code)) => format!(
                "{status}JSON-RPC error {code}: {}",
                r.error_message().unwrap_or("")
            ),
            (Outcome::Answered, None) => format!("{status}a result"),
            (Outcome::TimedOut, _) => format!("{status}no answer within the timeout"),
            (Outcome::Truncated, _) => format!("{status}the answer exceeded the size cap"),
            (Outcome::TransportError(e), _) => format!("{status}transport error: {e}"),
            (Outcome::NoResponse, _) => format!("{status}no JSON-RPC response"),
        }
    }

    /// `result`, when the response has one.
    pub fn result(&self) -> Option<&Value> {
        self.response.as_ref().and_then(|r| r.get("result"))
    }

    /// `error.code`, when the response is an error.
    pub fn error_code(&self) -> Option<i64> {
        self.response
            .as_ref()
            .and_then(|r| r.get("error"))
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64)
    }

    /// `error.message`, when the response is an error.
    pub fn error_message(&self) -> Option<&str> {
        self.response
            .as_ref()
            .and_then(|r| r.get("error"))
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
    }

    /// The HTTP status, on HTTP wires.
    pub fn status(&self) -> Option<u16> {
        self.http.as_ref().map(|h| h.status)
    }
}
