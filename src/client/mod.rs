//! The MCP client: requests with the 2026-07-28 `_meta` envelope and routing headers,
//! sessions, ids, timeouts. One [`Connection`] is one wire in one era; [`connect`] opens
//! wires for a target, [`lifecycle`] holds `server/discover` / `initialize` and the era
//! decision.

pub mod catalogue;
pub mod connect;
pub mod lifecycle;
pub mod message;
pub mod reauth;
pub mod rounds;
pub mod summary;
pub mod tasks;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::report::exchange::Seq;
use crate::report::finding::Era;
use crate::report::model::TransportKind;
use crate::transport::answer::{AskLog, Asked, Persona};
use crate::transport::http::AnswerHook;
use crate::transport::http::{HttpRequest, HttpWire};
use crate::transport::legacy_sse::LegacySseWire;
use crate::transport::stdio::StdioWire;
use crate::transport::{IdKind, Outcome, Probe, Reply};
pub use connect::{ConnectError, Connector, Death, DeathKind};

/// The modern protocol revision scout speaks.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The newest handshake-era revision scout offers in `initialize`.
pub const LEGACY_VERSION: &str = "2025-11-25";
/// Every published protocol revision, oldest first. A version string outside this list names
/// no revision: a server cannot support it, whatever it claims.
pub const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    LEGACY_VERSION,
    MODERN_VERSION,
];

/// True when `version` is a published protocol revision.
pub fn is_revision(version: &str) -> bool {
    REVISIONS.contains(&version)
}

/// True when `version` is a handshake-era ("legacy") revision: one an `initialize` can
/// negotiate. 2026-07-28 defines legacy versions as "protocol versions that establish a
/// session with an `initialize` handshake (`2025-11-25` and earlier)"; 2026-07-28 itself has
/// no handshake and is reached only through the per-request `_meta` envelope.
pub fn is_handshake_revision(version: &str) -> bool {
    is_revision(version) && version <= LEGACY_VERSION
}

/// How long a stdio probe that expects no reply waits for anything it provokes.
pub const QUIET: Duration = Duration::from_millis(150);

/// How long the full persona's handshake waits for its standalone GET stream to be answered
/// before it goes on (see [`Connection::listen`]).
pub const LISTEN_SETTLE: Duration = Duration::from_secs(2);

/// What scout has in flight on one wire (stdio: one process) or, over HTTP, towards one
/// server: a request's time says how fast the server serves an agent only when nothing
/// else of scout's was in flight beside it (a sequential server queues requests, and a
/// quick `tools/list` behind a slow tool call takes the call's time), and when it is not
/// the first one (that one also paid for the server's start-up or the connection).
#[derive(Debug, Default)]
pub(crate) struct Traffic {
    in_flight: AtomicUsize,
    started: AtomicU64,
}

/// One request in flight on a [`Traffic`]; ends when dropped (a cancelled send too).
struct InFlight<'a> {
    traffic: &'a Traffic,
    /// How many requests had started before this one.
    number: u64,
    /// Another request was in flight when this one started.
    busy: bool,
}

impl Traffic {
    fn begin(&self) -> InFlight<'_> {
        let number = self.started.fetch_add(1, Ordering::SeqCst);
        let busy = self.in_flight.fetch_add(1, Ordering::SeqCst) > 0;
        InFlight {
            traffic: self,
            number,
            busy,
        }
    }
}

impl InFlight<'_> {
    /// True when no other request was in flight at any time while this one was: none
    /// when it started, and none started since.
    fn alone(&self) -> bool {
        !self.busy && self.traffic.started.load(Ordering::SeqCst) == self.number + 1
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.traffic.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How a connection reaches the server.
#[derive(Debug, Clone)]
pub(crate) enum Wire {
    Http(HttpWire),
    Stdio(Arc<StdioWire>),
    LegacySse(Arc<LegacySseWire>),
}

/// One open wire to the server, in one era. Cheap to clone; safe to use from concurrent
/// probes (one reader matches replies to requests by id).
#[derive(Debug, Clone)]
pub struct Connection {
    era: Era,
    version: String,
    transport: TransportKind,
    capabilities: Value,
    server_info: Option<Value>,
    instructions: Option<String>,
    /// The exchanges of the answer that established the wire (`initialize` or
    /// `server/discover`), for findings that judge what it declared.
    handshake: Vec<Seq>,
    wire: Wire,
    connector: Connector,
    /// Shared by the clones of this wire (over HTTP: by every wire to the server).
    traffic: Arc<Traffic>,
    /// The client scout plays on this wire: what `initialize` declares and what the
    /// server's requests are answered with.
    persona: Arc<Persona>,
    /// What the server asked on this wire's HTTP streams, with scout's answers (stdio
    /// wires keep their own).
    asked: Arc<AskLog>,
    /// The multi round-trip requests completed on this wire (2026-07-28).
    chains: Arc<rounds::ChainLog>,
}

impl Connection {
    pub(crate) fn new(wire: Wire, connector: Connector, era: Era) -> Self {
        let transport = match &wire {
            Wire::Http(_) => TransportKind::Http,
            Wire::Stdio(_) => TransportKind::Stdio,
            Wire::LegacySse(_) => TransportKind::LegacySse,
        };
        let traffic = match &wire {
            Wire::Http(_) => connector.http_traffic(),
            _ => Arc::default(),
        };
        let persona = Arc::new(connector.spec().client.clone());
        let c = Connection {
            persona,
            asked: Arc::default(),
            chains: Arc::default(),
            era,
            version: String::new(),
            transport,
            capabilities: Value::Object(Default::default()),
            server_info: None,
            instructions: None,
            handshake: Vec::new(),
            wire,
            connector,
            traffic,
        };
        c.tag_era();
        c
    }

    fn tag_era(&self) {
        if let Wire::Stdio(w) = &self.wire {
            w.set_persona((*self.persona).clone());
            w.set_era(Some(self.era));
            // A 2026-07-28 server refuses a request without the `_meta` envelope: the
            // sentinel pings that pace the stdio wire carry it too.
            let modern = self.era == Era::Modern && !self.version.is_empty();
            w.set_sentinel_params(modern.then(|| {
                serde_json::json!({"_meta": message::envelope_declaring(
                    &self.version,
                    self.persona.capabilities(),
                )})
            }));
        }
    }

    /// The same wire, now known to speak `era` at `version` with these capabilities (set by
    /// the handshake once `server/discover` or `initialize` answered).
    pub fn established(
        mut self,
        era: Era,
        version: impl Into<String>,
        capabilities: Value,
        server_info: Option<Value>,
        instructions: Option<String>,
    ) -> Self {
        self.era = era;
        self.version = version.into();
        self.capabilities = capabilities;
        self.server_info = server_info;
        self.instructions = instructions;
        self.tag_era();
        self
    }

    /// The same wire, its handshake shown by `evidence` (the answer that established it).
    pub fn shown_by(mut self, evidence: &[Seq]) -> Self {
        self.handshake = evidence.to_vec();
        self
    }

    /// The exchanges of the answer that established this wire (empty before the handshake).
    pub fn handshake_evidence(&self) -> &[Seq] {
        &self.handshake
    }

    /// The same wire, playing `persona` from now on (before its handshake: `initialize`
    /// declares the persona's capabilities).
    pub fn with_persona(mut self, persona: Persona) -> Self {
        self.persona = Arc::new(persona);
        self.tag_era();
        self
    }

    /// The same 2026-07-28 wire (the same process or endpoint), with requests that declare
    /// `persona` in their `_meta` and a log of round trips of their own. That revision keeps
    /// no state between requests and the server never asks outside a result, so a persona is
    /// a property of each request, not of the wire: no second process or connection is
    /// needed. `None` on a handshake-era wire, where `initialize` fixed the capabilities.
    pub fn as_persona(&self, persona: Persona) -> Option<Connection> {
        (self.era == Era::Modern).then(|| Connection {
            persona: Arc::new(persona),
            chains: Arc::default(),
            ..self.clone()
        })
    }

    /// The client scout plays on this wire.
    pub fn persona(&self) -> &Persona {
        &self.persona
    }

    /// What the server asked on this wire so far, with scout's answers, in order.
    pub fn asked(&self) -> Vec<Asked> {
        match &self.wire {
            Wire::Stdio(w) => w.asked(),
            _ => self.asked.all(),
        }
    }

    /// Answers the server's requests on an HTTP stream of this wire: each answer is a POST
    /// of its own to the endpoint, with the wire's session and protocol-version headers
    /// (Streamable HTTP has no other way back). `tool` is the tool whose call the stream
    /// belongs to.
    fn answer_hook(&self, tool: Option<String>) -> AnswerHook {
        let conn = self.clone();
        AnswerHook(Arc::new(move |request: Value| {
            let conn = conn.clone();
            let response = conn.persona.answer(&request, tool.as_deref());
            let tool = tool.clone();
            tokio::spawn(async move {
                let reply = conn
                    .send(Probe {
                        raw_body: Some(response.to_string()),
                        id: IdKind::Absent,
                        expect_no_reply: true,
                        ..Probe::default()
                    })
                    .await;
                conn.asked.push(Asked {
                    request,
                    answer: response,
                    tool,
                    evidence: reply.evidence.clone(),
                });
                reply.evidence
            })
        }))
    }

    /// Keeps the standalone GET stream of a handshake-era Streamable HTTP session open
    /// until the wire closes (or the run's deadline), answering every request the server
    /// sends on it: servers send the requests that belong to no request of the client's
    /// (server-everything's `roots/list` after `notifications/initialized`) there. Only the
    /// full persona listens; a server may allow one such stream per session, and the bare
    /// persona's runs keep the GET for the probes that judge it. Returns once the server
    /// answered the GET (the stream is established, so what the server sends from then on
    /// has a stream to go to), or when the GET ended, after [`LISTEN_SETTLE`] at most.
    pub async fn listen(&self) {
        let Wire::Http(h) = &self.wire else {
            return;
        };
        if self.era != Era::Legacy || h.session().is_none() {
            return;
        }
        let (stop, stopped) = tokio::sync::watch::channel(false);
        {
            let mut slot = h.state.listening.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_some() {
                return;
            }
            *slot = Some(stop);
        }
        let conn = self.clone();
        let deadline = self.connector.spec().deadline;
        let opened = std::sync::Arc::new(tokio::sync::Notify::new());
        let told = opened.clone();
        tokio::spawn(async move {
            let _ = conn
                .send(Probe {
                    http_method: Some("GET".into()),
                    expect_no_reply: true,
                    timeout: Some(deadline),
                    stop: Some(stopped),
                    opened: Some(told.clone()),
                    ..Probe::default()
                })
                .await;
            // A GET that failed before any answer: nothing to wait for.
            told.notify_one();
        });
        // A server that holds its headers back until its first event would otherwise hold
        // every full-persona handshake for a whole request timeout.
        let wait = self.connector.timeout().min(LISTEN_SETTLE);
        let _ = tokio::time::timeout(wait, opened.notified()).await;
    }

    /// The era this wire speaks.
    pub fn era(&self) -> Era {
        self.era
    }
    /// The protocol version in use (negotiated, or sent in `_meta`).
    pub fn protocol_version(&self) -> &str {
        &self.version
    }
    /// How the wire reaches the server.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }
    /// The server's capabilities (from `initialize` or `server/discover`).
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }
    /// `serverInfo` as the server gave it.
    pub fn server_info(&self) -> Option<&Value> {
        self.server_info.as_ref()
    }
    /// `instructions` as the server gave them.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }
    /// True when the server declared `capabilities.<name>`.
    pub fn declares(&self, capability: &str) -> bool {
        self.capabilities
            .get(capability)
            .is_some_and(|v| !v.is_null())
    }
    /// The HTTP session id (`Mcp-Session-Id`) this wire echoes, if any.
    pub fn session_id(&self) -> Option<String> {
        match &self.wire {
            Wire::Http(h) => h.session(),
            _ => None,
        }
    }
    /// The stdio wire, for stdio-only probes (violations, late replies, the process).
    pub fn stdio(&self) -> Option<&Arc<StdioWire>> {
        match &self.wire {
            Wire::Stdio(w) => Some(w),
            _ => None,
        }
    }
    /// The connector that opened this wire (opens more, knows the spec's limits).
    pub fn connector(&self) -> &Connector {
        &self.connector
    }

    /// A new, independent wire to the same server in the same era and version, with no
    /// session and no handshake done (stdio: a new process, shut down at the end of the run
    /// like the first). Call `lifecycle::initialize` on it for a legacy session.
    pub async fn fresh(&self) -> Result<Connection, ConnectError> {
        let c = self.connector.open_wire(self.transport).await?;
        Ok(Connection {
            wire: c.wire,
            traffic: c.traffic,
            asked: Arc::default(),
            chains: Arc::default(),
            ..self.clone()
        }
        .with_tag())
    }

    /// Like [`Connection::fresh`], but independent of every other wire down to the TCP
    /// connection: over Streamable HTTP the new wire has a client and connection pool of
    /// its own (keep-alive and HTTP/2 multiplexing would otherwise put it on a connection
    /// the run already uses). For probes that claim "an independent connection".
    pub async fn independent(&self) -> Result<Connection, ConnectError> {
        let c = self.connector.open_independent_wire(self.transport).await?;
        Ok(Connection {
            wire: c.wire,
            traffic: c.traffic,
            asked: Arc::default(),
            chains: Arc::default(),
            ..self.clone()
        }
        .with_tag())
    }

    fn with_tag(self) -> Self {
        self.tag_era();
        self
    }

    /// Sends one probe and waits for what it produces (bounded by the timeout). An ordinary
    /// request ([`Probe::is_ordinary`]) answered with a result has its time noted in the
    /// recorder for `performance.latency`.
    pub async fn send(&self, probe: Probe) -> Reply {
        if self.connector.inner.reauth.get().is_none() {
            return self.send_once(probe).await;
        }
        // Boxed: the re-authorization (a whole login) would otherwise grow every probe's
        // future, and a check run, which never re-authorizes, nests many of them.
        Box::pin(self.send_reauthorizing(probe)).await
    }

    /// A command that re-authorizes mid-conversation sends a refused request once more with
    /// the new token (see `reauth`); a check run never does.
    async fn send_reauthorizing(&self, probe: Probe) -> Reply {
        let again = probe.clone();
        let sent_with = self.connector.token_generation();
        let reply = self.send_once(probe).await;
        if self.connector.reauthorize(&reply, sent_with).await {
            self.send_once(again).await
        } else {
            reply
        }
    }

    async fn send_once(&self, probe: Probe) -> Reply {
        let ordinary = probe.is_ordinary();
        let built = message::build(&probe, self);
        let method = built.method.clone();
        let small = built
            .body
            .as_ref()
            .is_none_or(|b| b.len() <= crate::telemetry::recorder::OWN_BODY_CAP)
            && probe.pad.is_none();
        let deleting = probe.http_method.as_deref() == Some("DELETE");
        // The session a DELETE ends: the one it carries.
        let carried = match &probe.session {
            crate::transport::SessionMode::Auto => self.session_id(),
            crate::transport::SessionMode::None => None,
            crate::transport::SessionMode::Custom(id) => Some(id.clone()),
        };
        // A GET opens a listening stream, which holds no request of the server's up.
        let in_flight = (probe.http_method.as_deref() != Some("GET")).then(|| self.traffic.begin());
        let reply = self.send_built(probe, built).await;
        let first = in_flight.as_ref().is_some_and(|f| f.number == 0);
        let alone = in_flight.as_ref().is_some_and(InFlight::alone);
        drop(in_flight);
        if matches!(self.wire, Wire::Http(_)) {
            self.connector.note_http_reply(&reply);
            if deleting {
                self.connector
                    .note_session(carried.as_deref(), true, reply.status());
            } else {
                // Every session the server issues, whether or not this wire adopts it.
                let issued = reply.http.as_ref().and_then(|h| h.header("mcp-session-id"));
                self.connector.note_session(issued, false, None);
            }
        }
        if ordinary
            && small
            && reply.outcome == Outcome::Answered
            && reply.result().is_some()
            && let Some(method) = method
        {
            self.connector
                .recorder()
                .note_timing(crate::telemetry::Timing {
                    method,
                    era: Some(self.era),
                    elapsed: reply.elapsed,
                    evidence: reply.evidence.clone(),
                    first,
                    overlapped: !alone,
                });
        }
        reply
    }

    async fn send_built(&self, probe: Probe, mut built: message::Built) -> Reply {
        // Requests that wait for an answer (and GET/DELETE) take one of the server's
        // `--concurrency` slots; one-way messages (notifications, cancellations) do not, so
        // a cancellation is never queued behind the call it cancels.
        let _slot =
            if (probe.expect_no_reply && probe.http_method.is_none()) || probe.own_concurrency {
                None
            } else {
                self.connector.slot().await
            };
        let timeout = probe.timeout.unwrap_or(self.connector.timeout());
        // The params were serialised into the body; a large one (the oversized-request
        // probe) is not kept twice while the request is in flight.
        let mut probe = probe;
        probe.params = None;
        probe.raw_body = None;
        // Padding is streamed over Streamable HTTP and written in pieces over stdio; the
        // legacy SSE wire gets it written out.
        if let Some(pad) = probe.pad
            && matches!(self.wire, Wire::LegacySse(_))
            && let Some(b) = built.body.as_mut()
        {
            *b = b.replacen(crate::transport::PAD_MARKER, &"x".repeat(pad), 1);
        }
        match &self.wire {
            Wire::Stdio(w) => {
                if probe.http_method.is_some() {
                    return transport_error("HTTP methods do not apply to a stdio wire");
                }
                let id = if probe.expect_no_reply {
                    None
                } else {
                    built.id.clone()
                };
                let body = built.body.unwrap_or_default();
                let line = match probe.pad {
                    Some(pad) => crate::transport::stdio::StdioLine::Padded(
                        crate::transport::padding::Padded::new(body, pad),
                    ),
                    None => body.into(),
                };
                w.exchange(
                    line,
                    built.method,
                    id,
                    built.progress_token,
                    (timeout, QUIET),
                    crate::transport::stdio::Until {
                        wanted: if probe.first_message_only {
                            1
                        } else {
                            probe.end_after
                        },
                        first: probe.first_message.clone(),
                    },
                )
                .await
            }
            Wire::Http(h) => {
                let session = match &probe.session {
                    crate::transport::SessionMode::Auto => h.session(),
                    crate::transport::SessionMode::None => None,
                    crate::transport::SessionMode::Custom(s) => Some(s.clone()),
                };
                let headers = message::http_headers(&probe, &built, self, &h.clients, session);
                let method = probe.http_method.clone().unwrap_or_else(|| "POST".into());
                let tool = (built.method.as_deref() == Some("tools/call"))
                    .then(|| built.name.clone())
                    .flatten();
                let body = if method == "POST" {
                    built.body.take()
                } else {
                    None
                };
                let req = HttpRequest {
                    method,
                    url: h.url.clone(),
                    headers,
                    body,
                    expect_id: if probe.expect_no_reply {
                        None
                    } else {
                        built.id.clone()
                    },
                    timeout,
                    max_body: self.connector.max_body(),
                    stop: probe.stop.clone(),
                    pad: probe.pad,
                    abandon: probe.abandon,
                    answer: Some(self.answer_hook(tool)),
                    first_message_only: probe.first_message_only,
                    opened: probe.opened.clone(),
                    end_after: probe.end_after,
                    first_message: probe.first_message.clone(),
                };
                let reply = crate::transport::http::exchange(
                    &h.clients,
                    self.connector.recorder(),
                    Some(self.era),
                    req,
                )
                .await;
                if built.method.as_deref() == Some("initialize")
                    && matches!(probe.session, crate::transport::SessionMode::Auto)
                    && let Some(sid) = reply.http.as_ref().and_then(|i| i.header("mcp-session-id"))
                {
                    h.set_session(Some(sid.to_string()));
                }
                reply
            }
            Wire::LegacySse(w) => {
                let headers = message::http_headers(&probe, &built, self, w.clients(), None);
                w.exchange(
                    built.body.unwrap_or_default(),
                    headers,
                    if probe.expect_no_reply {
                        None
                    } else {
                        built.id
                    },
                    Some(self.era),
                    timeout,
                    self.connector.max_body(),
                )
                .await
            }
        }
    }

    /// An ordinary request.
    pub async fn request(&self, method: &str, params: Value) -> Reply {
        self.send(Probe::request(method, params)).await
    }
    /// An ordinary request that may take several round trips (see
    /// [`Connection::send_completing`]).
    pub async fn request_completing(&self, method: &str, params: Value) -> Reply {
        self.send_completing(Probe::request(method, params)).await
    }
    /// An ordinary notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Reply {
        self.send(Probe::notification(method, params)).await
    }

    /// `tools/call` with the 2026-07-28 `Mcp-Param-*` headers derived from the tool's
    /// `inputSchema` (properties marked `x-mcp-header`). Pass `Value::Null` as schema when
    /// it is unknown; on legacy wires the schema is ignored.
    pub async fn call_tool(&self, name: &str, arguments: Value, input_schema: &Value) -> Reply {
        self.send_completing(self.tool_call(
            serde_json::json!({"name": name, "arguments": arguments}),
            input_schema,
        ))
        .await
    }

    /// The `tools/call` request for `params` (`name`, `arguments`, optionally `_meta`) as an
    /// agent sends it: on a 2026-07-28 HTTP wire it carries the `Mcp-Param-*` headers that
    /// the tool's `inputSchema` declares with `x-mcp-header`, which a server must refuse a
    /// call without. Every tools/call scout makes of a listed tool goes through here, so
    /// `scout call` and `scout check` send the same headers.
    pub fn tool_call(&self, params: Value, input_schema: &Value) -> Probe {
        let mut probe = Probe::request("tools/call", params);
        if self.era == Era::Modern && self.transport == TransportKind::Http {
            let arguments = probe
                .params
                .as_ref()
                .and_then(|p| p.get("arguments"))
                .unwrap_or(&Value::Null);
            probe.headers = crate::transport::headers::param_headers(arguments, input_schema)
                .into_iter()
                .map(|(k, v)| (k, Some(v)))
                .collect();
        }
        probe
    }

    /// A wire of this one's era that carries the session `id` (to end a session another
    /// wire opened).
    pub async fn for_session(&self, id: &str) -> Option<Connection> {
        let c = self.fresh().await.ok()?;
        match &c.wire {
            Wire::Http(h) => {
                h.set_session(Some(id.to_string()));
                Some(c)
            }
            _ => None,
        }
    }

    /// Ends the wire: HTTP sends DELETE for a legacy session (the reply is returned), stdio
    /// wires are shut down by `probe::stdio::finish`, which needs their findings.
    pub async fn close(&self) -> Option<Reply> {
        match &self.wire {
            Wire::Http(h) if h.session().is_some() && self.era == Era::Legacy => {
                if let Some(stop) = h
                    .state
                    .listening
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                {
                    let _ = stop.send(true);
                }
                let reply = self
                    .send(Probe {
                        http_method: Some("DELETE".into()),
                        expect_no_reply: true,
                        ..Probe::default()
                    })
                    .await;
                h.set_session(None);
                Some(reply)
            }
            Wire::LegacySse(w) => {
                w.close();
                None
            }
            _ => None,
        }
    }
}

fn transport_error(why: &str) -> Reply {
    Reply {
        evidence: Vec::new(),
        outcome: Outcome::TransportError(why.into()),
        response: None,
        notifications: Vec::new(),
        server_requests: Vec::new(),
        http: None,
        elapsed: Duration::ZERO,
        refused: false,
    }
}
