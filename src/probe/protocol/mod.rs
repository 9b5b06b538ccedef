//! Protocol: JSON-RPC and Streamable HTTP conformance. Each probe sends one deliberate
//! request and judges the answer against the revision in use.
//!
//! The phase is split in two halves so that the verdicts can be tested without a server:
//! `send` sends the requests (concurrently, each with its own timeout) and the judge
//! modules under [`judge`] ([`judge::jsonrpc`], [`judge::http`], [`judge::modern`],
//! [`judge::sse`], [`judge::wire_schema`]) are pure functions from the [`Reply`] values (and
//! the wire they came from) to findings.

pub mod capability_use;
pub mod judge;
pub mod official;
pub mod revisions;
mod send;
pub mod subscriptions;
pub mod utilities;

use serde_json::Value;

use crate::report::check::spec_url;
use crate::report::exchange::Seq;
use crate::report::finding::Era;
use crate::report::model::TransportKind;
use crate::transport::{Outcome, Reply};

pub use judge::wire_schema::whole_run_findings;

crate::checks! { phase: Protocol;
    JSONRPC_IDS = "protocol.jsonrpc_ids", Major, "Request ids are echoed with their type", spec_url::B25,
        "Requests are sent with string and with integer ids; each response must carry exactly the same id value and JSON type (\"7\" is not 7), and exactly one of result or error.",
        "Echo the request id verbatim; never convert between string and number.";
    PARSE_ERROR = "protocol.parse_error", Minor, "Malformed JSON gets -32700", spec_url::B26,
        "A truncated JSON body must be answered with a -32700 Parse error (id null or absent). Over stdio the server must also keep serving the next line.",
        "Catch JSON parse failures and answer -32700 instead of dropping the message or crashing.";
    INVALID_REQUEST = "protocol.invalid_request", Minor, "Structurally invalid requests get -32600", spec_url::B26,
        "Requests with jsonrpc \"1.0\", without a method, or with non-object params must be answered with -32600 Invalid Request.",
        "Validate the JSON-RPC envelope before dispatching and answer -32600 when it is wrong.";
    UNKNOWN_METHOD = "protocol.unknown_method", Major, "Unknown methods get -32601", spec_url::H26,
        "An unknown method must get -32601 Method not found; in 2026-07-28 over HTTP the status must be 404 with the JSON-RPC error in the body.",
        "Answer unknown methods with -32601 (and HTTP 404 in 2026-07-28).";
    NOTIFICATION = "protocol.notification", Major, "Notifications get no reply", spec_url::B26,
        "A notification (no id), even an unknown one, must not be answered; over HTTP the POST gets 202 Accepted with an empty body, and a POST that never gets an HTTP status fails.",
        "Never respond to notifications; acknowledge notification POSTs with 202 and no body.";
    NULL_ID = "protocol.null_id", Minor, "A null request id is rejected", spec_url::B25,
        "MCP forbids null ids. A request with id null should be rejected with an error (-32600 expected) rather than served as a normal request.",
        "Reject requests whose id is null with -32600.";
    BATCH = "protocol.batch", Minor, "JSON-RPC batches are handled per revision", spec_url::B25A,
        "2025-03-26 requires servers to accept batches and answer with an array of responses. 2025-06-18 removed batching: an array must be rejected as a whole, never half processed, and a server that still processes it gets a warning. 2024-11-05 does not define batching, so either answer is reported as an observation.",
        "Support batches only if you serve 2025-03-26 clients; otherwise reject arrays with an error.";
    ACCEPT_HEADER = "protocol.accept_header", Minor, "POST answers honour the Accept header", spec_url::T25C,
        "Clients send Accept: application/json, text/event-stream. The spec does not say how a server answers a bad Accept; scout reports what it saw (406 is common) and fails only a server that answers a correct Accept with another content type.",
        "Answer with application/json or text/event-stream, as the request's Accept allows.";
    CONTENT_TYPE = "protocol.content_type", Major, "Responses have a JSON or SSE content type", spec_url::T25C,
        "Every request the server serves (a 2xx answer with a body) must come back with Content-Type application/json or text/event-stream. A rejected request gets an HTTP error status whose body may be a JSON-RPC error: a labelled HTML or plain-text error page is reported, not judged; an error body without any Content-Type is a warning.",
        "Set Content-Type on every response; a JSON-RPC error object in transport errors lets clients show the reason.";
    GET_STREAM = "protocol.get_stream", Major, "GET on the endpoint opens a stream or is refused with 405", spec_url::T25C,
        "Handshake era: GET with Accept: text/event-stream must return an SSE stream or 405. A 2026-07-28-only server should answer 405 (SHOULD, a warning otherwise).",
        "Serve the standalone SSE stream or answer 405 Method Not Allowed.";
    DELETE = "protocol.delete", Minor, "DELETE ends a session or is refused", spec_url::T25C,
        "Handshake era with sessions: DELETE with the session id ends the session (2xx) or is refused with 405; after a 2xx the id must give 404. 2026-07-28-only servers should answer 405.",
        "Support DELETE for session termination or answer 405.";
    BOGUS_SESSION = "protocol.bogus_session", Major, "Unknown sessions get 404", spec_url::T25C,
        "A request carrying a session id the server never issued (or already ended) must get 404 Not Found, so clients know to start a new session.",
        "Answer requests with an unknown or terminated Mcp-Session-Id with HTTP 404.";
    VERSION_HEADER = "protocol.version_header", Major, "A bad MCP-Protocol-Version header is rejected", spec_url::H26,
        "Since 2025-06-18 an invalid or unsupported MCP-Protocol-Version must get 400. In 2026-07-28 a header that disagrees with _meta must get 400 with -32020.",
        "Validate the MCP-Protocol-Version header and reject unknown values with 400.";
    ROUTING_HEADERS = "protocol.routing_headers", Major, "Mcp-Method and Mcp-Name are validated against the body", spec_url::H26,
        "2026-07-28 over HTTP: a missing or mismatched Mcp-Method or Mcp-Name must be rejected with 400 and -32020 HeaderMismatch. Header names are case-insensitive, values case-sensitive, surrounding whitespace tolerated. A bare 400 without -32020 is a warning.",
        "Compare the routing headers with the body on every request and answer mismatches with HTTP 400 and error -32020.";
    HEADER_ENCODING = "protocol.header_encoding", Major, "Base64-sentinel header values are decoded", spec_url::H26,
        "2026-07-28 over HTTP: Mcp-Name sent as =?base64?...?= must be decoded before it is compared with the body (shown by a JSON-RPC answer past header validation; a timeout or a 5xx fails), and malformed Base64 inside the sentinel must be rejected with 400 / -32020.",
        "Decode =?base64?...?= values of Mcp-Name and Mcp-Param-* before comparing, and reject malformed ones.";
    PARAM_HEADERS = "protocol.param_headers", Major, "Mcp-Param-* headers are enforced", spec_url::H26,
        "2026-07-28 over HTTP, for tools whose input schema declares x-mcp-header: a call that omits the Mcp-Param-* header or sends a different value must get 400 with -32020. Not applicable when no tool declares one.",
        "Enforce Mcp-Param-* headers for every argument declared with x-mcp-header.";
    META_REQUIRED = "protocol.meta_required", Major, "Requests without the required _meta are rejected", spec_url::B26,
        "2026-07-28: a request missing io.modelcontextprotocol/protocolVersion or io.modelcontextprotocol/clientCapabilities in params._meta must get -32602 (HTTP 400); clientInfo is optional and its absence must be accepted.",
        "Reject requests that lack the required _meta keys with -32602 and accept requests without clientInfo.";
    RESULT_TYPE = "protocol.result_type", Major, "Every result carries resultType", spec_url::B26,
        "2026-07-28: every result must carry resultType (complete or input_required).",
        "Add resultType to every result (SDKs for 2026-07-28 do this).";
    INPUT_REQUIRED_SHAPE = "protocol.input_required_shape", Major, "Results that ask for input are well placed and ask only for what the client declared", spec_url::MRTR26,
        "2026-07-28, over every result of the run: input_required may answer only tools/call, prompts/get and resources/read; it must carry inputRequests or requestState; each input request must be an elicitation/create, sampling/createMessage or roots/list, and only for a capability the request declared in its _meta (elicitation form or url, sampling, sampling.tools, roots). Not applicable when no result was input_required.",
        "Answer input_required only on tools/call, prompts/get and resources/read, always with inputRequests or requestState, and ask a client only for what its request's clientCapabilities declare.";
    CACHE_HINTS = "protocol.cache_hints", Minor, "Cacheable results carry ttlMs and cacheScope", spec_url::C26,
        "2026-07-28: discover, list and read results must carry ttlMs (integer >= 0) and cacheScope (public or private), with the same scope on every page of a list.",
        "Add ttlMs and cacheScope to discover, list and read results.";
    ERROR_CODES = "protocol.error_codes", Minor, "No retired or undefined error codes", spec_url::B26,
        "Across the whole run: a 2026-07-28 server must not emit -32002 or -32042, nor any code in -32020..-32099 other than -32020, -32021 and -32022 (a failure). The pre-GA draft numbers -32001, -32003 and -32004 lie in the legacy range -32000..-32019 that new implementations should not use: a warning.",
        "Use -32602 for missing resources in 2026-07-28 and only the defined codes of the reserved range.";
    SSE = "protocol.sse", Major, "Response streams carry only their own request's messages", spec_url::H26,
        "An SSE response stream may carry notifications about its own request (and, before 2026-07-28, requests), then the response, then it should end. In 2026-07-28 it must not carry JSON-RPC requests. A stream the server closes before the response is resumed with GET and Last-Event-ID where the revision allows it (2025-03-26 to 2025-11-25); a response lost that way fails. Anomalies (events without data, events after the response, a stream that never ends) are reported.",
        "Send only related notifications and the final response on a response stream, then close it.";
    WIRE_SCHEMA = "protocol.wire_schema", Major, "Every message matches the schema of its revision", spec_url::B26,
        "Every message the server sent during the run is validated against the official JSON Schema of the revision its wire negotiated (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28; a newer dated revision against the newest of these): the JSON-RPC envelope and the method's own request, notification or result (a task-augmented call's CreateTaskResult, a 2026-07-28 InputRequiredResult). A violation names the definition, the JSON pointer of the offending element and the keyword it breaks; a union nothing matched (a content block) is followed into the branch of the element's own kind. Scout's own rules, where the schema cannot pick a definition or does not say it: a message that is not an object, a response with both or neither of result and error (a failure), and an error response without an id before 2025-11-25 (a warning; an id of null answers an unreadable request). A tool's inputSchema and outputSchema are left to catalog.tool_schema and catalog.output_schema (which judge them against their dialect), 2026-07-28's resultType, ttlMs and cacheScope to protocol.result_type and protocol.cache_hints, and answers to scout's deliberately malformed probes to those probes' own checks. One finding per distinct kind of violation, citing the exchanges.",
        "Make the cited messages match the schema of the negotiated revision.";
}

/// The checks judged once at the end of the run over every message recorded
/// ([`whole_run_findings`]).
pub static WHOLE_RUN: [&crate::report::check::Check; 5] = [
    &RESULT_TYPE,
    &CACHE_HINTS,
    &ERROR_CODES,
    &INPUT_REQUIRED_SHAPE,
    &WIRE_SCHEMA,
];

/// The first half of the phase, carried to the second (see [`run_early`]).
pub struct Deferred {
    wires: Vec<(crate::client::Connection, send::Early)>,
}

/// The phase's first half: on every HTTP wire the probes that change nothing and cannot
/// upset a server (the GET stream window, an unknown notification). The run plan sends
/// them beside the catalog and execution phases (`probe::run_server`).
///
/// `stop` ends the GET stream window early (when the rest of the concurrent stage is done);
/// the window is never longer than the phase's own limit.
pub async fn run_early(
    s: &mut crate::probe::Session,
    stop: Option<tokio::sync::watch::Receiver<bool>>,
) -> Deferred {
    let conns = s.wires.clone();
    let s: &crate::probe::Session = s;
    // Each wire's first half is its own connection's business: all wires at once.
    let early = futures_util::future::join_all(
        conns
            .iter()
            .map(|conn| crate::probe::on_heap(|| send::probe_wire_early(s, conn, stop.clone()))),
    )
    .await;
    Deferred {
        wires: conns.into_iter().zip(early).collect(),
    }
}

/// The phase's second half, in the run's final stage: the probes that send deliberately
/// broken input or end sessions, then every verdict over both halves. The whole-run checks
/// (`error_codes`, `result_type`, `cache_hints`, `wire_schema`) are judged at the end of the
/// run, over every phase's traffic: see `probe::run_server`.
pub async fn run_late(s: &mut crate::probe::Session, early: Deferred) {
    let before = s.recorder.len();
    if early.wires.is_empty() {
        s.add_all(
            CHECKS
                .iter()
                .chain(utilities::CHECKS)
                .chain(subscriptions::CHECKS)
                .chain(revisions::CHECKS)
                .map(|c| {
                    c.skip(
                        crate::report::finding::SkipReason::NotAssessed,
                        "no wire to the server was opened",
                    )
                }),
        );
        return;
    }
    // HTTP wires are independent connections and go at the same time. stdio wires go one
    // after the other: the stdio verdicts read the lines that arrived between two probes,
    // and the recorder holds the lines of every process.
    let any_stdio = early
        .wires
        .iter()
        .any(|(c, _)| c.transport() == crate::report::model::TransportKind::Stdio);
    let (conns, halves): (Vec<_>, Vec<_>) = early.wires.into_iter().unzip();
    let mut lates = Vec::new();
    if any_stdio {
        for (conn, e) in conns.iter().zip(halves) {
            lates.push(crate::probe::on_heap(|| send::probe_wire_late(s, conn, e)).await);
        }
    } else {
        let shared: &crate::probe::Session = s;
        lates = futures_util::future::join_all(
            conns
                .iter()
                .zip(halves)
                .map(|(conn, e)| crate::probe::on_heap(|| send::probe_wire_late(shared, conn, e))),
        )
        .await;
    }
    // The revision matrix's extra handshakes, one at a time, before the unparsable bodies
    // (over stdio the run plan runs it beside this stage instead).
    if !revisions::runs_beside(s) {
        revisions::run(s).await;
    }
    // The unparsable bodies after every other probe of every wire, one wire at a time: a
    // server that dies of one has answered everything else by then, in every run.
    let once = crate::probe::classes::malformed_once(&s.spec);
    let mut sent_on = None;
    for (conn, late) in conns.iter().zip(lates) {
        let found = send::probe_wire_garbage(s, conn, late, sent_on).await;
        s.add_all(found);
        if once {
            sent_on = sent_on.or(Some(conn.era()));
        }
    }
    tracing::info!(
        server = %s.spec.name,
        exchanges = s.recorder.len().saturating_sub(before),
        "protocol phase done"
    );
}

/// What a judge needs to know about the wire a reply came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Wire {
    /// The generation spoken on it.
    pub era: Era,
    /// How it reaches the server.
    pub transport: TransportKind,
    /// The protocol version in use (`2025-11-25`, `2026-07-28`, …).
    pub version: String,
}

impl Wire {
    /// A wire description (used by tests and by the probes).
    pub fn new(era: Era, transport: TransportKind, version: &str) -> Self {
        Wire {
            era,
            transport,
            version: version.to_string(),
        }
    }

    /// Streamable HTTP (either shape).
    pub fn is_http(&self) -> bool {
        self.transport == TransportKind::Http
    }

    /// stdio child process.
    pub fn is_stdio(&self) -> bool {
        self.transport == TransportKind::Stdio
    }

    /// The 2024-11-05 HTTP+SSE transport (an event stream plus a POST endpoint).
    pub fn is_legacy_sse(&self) -> bool {
        self.transport == TransportKind::LegacySse
    }

    /// The transport's name, for skip reasons ("a Streamable HTTP rule; this wire is …").
    pub fn transport_name(&self) -> &'static str {
        match self.transport {
            TransportKind::Http => "Streamable HTTP",
            TransportKind::LegacySse => "HTTP+SSE (2024-11-05)",
            TransportKind::Stdio => "stdio",
        }
    }

    /// Why a Streamable HTTP rule does not apply to this (stdio or HTTP+SSE) wire.
    pub fn not_streamable_http(&self) -> String {
        format!(
            "a Streamable HTTP rule; this wire is {}",
            self.transport_name()
        )
    }

    /// 2026-07-28.
    pub fn is_modern(&self) -> bool {
        self.era == Era::Modern
    }
}

/// The sequence numbers of several replies, for `FindingBuilder::evidence`.
pub(crate) fn cite<'a>(replies: impl IntoIterator<Item = &'a Reply>) -> Vec<Seq> {
    replies
        .into_iter()
        .flat_map(|r| r.evidence.iter().copied())
        .collect()
}

/// The JSON-RPC message the server answered with: the matched response, or (when the
/// transport matched none) a JSON object parsed from the HTTP body or its last SSE event.
pub(crate) fn body_json(r: &Reply) -> Option<Value> {
    if let Some(v) = &r.response {
        return Some(v.clone());
    }
    let http = r.http.as_ref()?;
    if let Ok(v) = serde_json::from_str::<Value>(http.body.trim()) {
        return Some(v);
    }
    http.body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .next_back()
}

/// `error.code` of the server's answer, looking into the HTTP body when needed.
pub(crate) fn code_of(r: &Reply) -> Option<i64> {
    body_json(r).and_then(|v| {
        v.get("error")
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64)
    })
}

/// The answer carries a JSON-RPC `result`.
pub(crate) fn has_result(r: &Reply) -> bool {
    body_json(r).is_some_and(|v| v.get("result").is_some())
}

/// One short phrase saying what came back: `HTTP 400 application/json, error -32000 "…"`.
pub(crate) fn describe(r: &Reply) -> String {
    let mut parts = Vec::new();
    match &r.outcome {
        Outcome::TimedOut => parts.push("no answer before the timeout".to_string()),
        Outcome::TransportError(e) => parts.push(format!("transport error ({e})")),
        Outcome::Truncated => parts.push("a body cut at the size cap".to_string()),
        Outcome::Answered | Outcome::NoResponse => {}
    }
    if let Some(h) = &r.http {
        let ct = h.content_type.as_deref().unwrap_or("no content type");
        parts.push(format!("HTTP {} ({ct})", h.status));
    }
    match body_json(r) {
        Some(v) if v.get("error").is_some() => {
            let code = v
                .pointer("/error/code")
                .map(Value::to_string)
                .unwrap_or_else(|| "without a code".into());
            let msg = v
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("");
            parts.push(format!("JSON-RPC error {code} \"{}\"", short(msg, 80)));
        }
        Some(v) if v.get("result").is_some() => parts.push("a JSON-RPC result".into()),
        Some(v) if v.is_array() => parts.push("a JSON array".into()),
        _ => {
            if let Some(h) = r.http.as_ref().filter(|h| !h.body.trim().is_empty()) {
                parts.push(format!("body \"{}\"", short(h.body.trim(), 60)));
            } else if r.http.is_some() {
                parts.push("an empty body".into());
            } else if r.outcome == Outcome::NoResponse {
                parts.push("no reply".into());
            }
        }
    }
    parts.join(", ")
}

/// `s` cut to at most `n` characters (on a char boundary), with an ellipsis when cut.
pub(crate) fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let cut: String = s.chars().take(n).collect();
        format!("{cut}…")
    }
}

/// Hand-built replies for the judges' unit tests, shaped like the lab transcripts.
#[cfg(test)]
pub(crate) mod testing {
    use std::time::Duration;

    use serde_json::Value;

    use crate::transport::{HttpInfo, Outcome, Reply, SseInfo};

    /// An HTTP reply with a JSON body (parsed into `response` when it is a JSON-RPC
    /// message with an id, as the transport does).
    pub(crate) fn http_json(seq: u64, status: u16, body: &str) -> Reply {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        let answered = parsed
            .as_ref()
            .is_some_and(|v| v.get("id").is_some_and(|i| !i.is_null()));
        Reply {
            evidence: vec![seq],
            outcome: if answered {
                Outcome::Answered
            } else {
                Outcome::NoResponse
            },
            response: if answered { parsed } else { None },
            notifications: vec![],
            server_requests: vec![],
            http: Some(HttpInfo {
                status,
                headers: vec![("content-type".into(), "application/json".into())],
                content_type: Some("application/json".into()),
                body: body.to_string(),
                sse: None,
            }),
            elapsed: Duration::from_millis(3),
            refused: false,
        }
    }

    /// An HTTP reply with some other content type.
    pub(crate) fn http_text(seq: u64, status: u16, ct: Option<&str>, body: &str) -> Reply {
        Reply {
            evidence: vec![seq],
            outcome: Outcome::NoResponse,
            response: None,
            notifications: vec![],
            server_requests: vec![],
            http: Some(HttpInfo {
                status,
                headers: ct
                    .map(|c| vec![("content-type".to_string(), c.to_string())])
                    .unwrap_or_default(),
                content_type: ct.map(str::to_string),
                body: body.to_string(),
                sse: None,
            }),
            elapsed: Duration::from_millis(3),
            refused: false,
        }
    }

    /// An SSE response carrying `response` after a priming event.
    pub(crate) fn http_sse(seq: u64, response: &str) -> Reply {
        let body = format!("id: p\ndata: \n\nevent: message\ndata: {response}\n\n");
        Reply {
            evidence: vec![seq],
            outcome: Outcome::Answered,
            response: serde_json::from_str(response).ok(),
            notifications: vec![],
            server_requests: vec![],
            http: Some(HttpInfo {
                status: 200,
                headers: vec![("content-type".into(), "text/event-stream".into())],
                content_type: Some("text/event-stream".into()),
                body,
                sse: Some(SseInfo {
                    events: 2,
                    anomalies: vec![],
                    ended: true,
                    ..SseInfo::default()
                }),
            }),
            elapsed: Duration::from_millis(3),
            refused: false,
        }
    }

    /// A stdio reply: the sent line and the received line as evidence.
    pub(crate) fn stdio(seqs: &[u64], response: Option<&str>) -> Reply {
        Reply {
            evidence: seqs.to_vec(),
            outcome: if response.is_some() {
                Outcome::Answered
            } else {
                Outcome::NoResponse
            },
            response: response.and_then(|r| serde_json::from_str(r).ok()),
            notifications: vec![],
            server_requests: vec![],
            http: None,
            elapsed: Duration::from_millis(1),
            refused: false,
        }
    }

    /// A probe that got nothing before its timeout.
    pub(crate) fn timed_out(seqs: &[u64]) -> Reply {
        Reply {
            evidence: seqs.to_vec(),
            outcome: Outcome::TimedOut,
            response: None,
            notifications: vec![],
            server_requests: vec![],
            http: None,
            elapsed: Duration::from_secs(5),
            refused: false,
        }
    }
}
