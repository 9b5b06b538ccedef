//! Opening wires to one target: resolving credentials, spawning stdio servers and the
//! `start` command of HTTP targets, and keeping every child so the run can shut it down.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::client::{Connection, Wire};
use crate::report::exchange::Seq;
use crate::report::finding::Era;
use crate::report::model::TransportKind;
use crate::spec::{RunContext, ServerSpec, TargetSpec, ValueSource};
use crate::telemetry::Recorder;
use crate::transport::http::{HttpClients, HttpSetupError, HttpWire};
use crate::transport::legacy_sse::LegacySseWire;
use crate::transport::limiter::RateLimiter;
use crate::transport::process::{self, ManagedProcess, ProcessConfig, SpawnError};
use crate::transport::stdio::StdioWire;

/// How long scout waits, at most, before it asks a `start` command's URL again whether it
/// answers yet; it asks at once whenever the command writes something (a server that is
/// ready usually says so).
const READY_POLL: Duration = Duration::from_millis(20);

/// How long a `start` command may take until its URL answers.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a wire could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A credential or header names an environment variable that is not set. A config
    /// error: the runner maps it to exit code 2 (see [`ConnectError::is_config_error`]).
    #[error("{what} reads the environment variable {var}, which is not set")]
    MissingEnv { var: String, what: String },
    /// A header value that HTTP cannot carry.
    #[error("header {0} has a value HTTP cannot carry")]
    BadHeader(String),
    /// A credential (token, client secret, refresh token) that cannot be read.
    #[error(transparent)]
    Secret(#[from] crate::auth::SecretError),
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error(transparent)]
    Http(#[from] HttpSetupError),
    /// The `start` command exited or its URL never answered.
    #[error("the start command did not bring the server up: {why}")]
    StartFailed { why: String, stderr: String },
    /// No token could be obtained from the configured OAuth grant.
    #[error("could not get a token: {0}")]
    Auth(String),
    /// The operator's credential settings stopped the grant (an `issuer` binding the
    /// server's authorization server does not match…): a config error, exit code 2.
    #[error("could not get a token: {0}")]
    AuthConfig(String),
    /// The legacy HTTP+SSE stream could not be opened.
    #[error("cannot open the HTTP+SSE stream: {0}")]
    LegacySse(String),
    /// Neither `server/discover` nor `initialize` opened a conversation.
    #[error("the server answered neither server/discover nor initialize: {0}")]
    NoHandshake(String),
    #[error("this target has no {0:?} transport")]
    WrongTransport(TransportKind),
}

impl ConnectError {
    /// True for errors in the operator's configuration (exit code 2), false for a server
    /// that did not come up.
    pub fn is_config_error(&self) -> bool {
        matches!(
            self,
            ConnectError::MissingEnv { .. }
                | ConnectError::BadHeader(_)
                | ConnectError::Secret(_)
                | ConnectError::AuthConfig(_)
        )
    }
}

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) spec: ServerSpec,
    pub(super) recorder: Recorder,
    clients: Option<Arc<HttpClients>>,
    ids: AtomicU64,
    stdio_wires: Mutex<Vec<Arc<StdioWire>>>,
    /// Processes of a stdio target started ahead of need ([`Connector::prespawn`]), each
    /// taken whole by the next wire that opens; nothing reads them until then.
    spares: Mutex<Vec<process::Spawned>>,
    started: Mutex<Option<Arc<ManagedProcess>>>,
    /// The start command's stdin, held open while it runs (closing it is the first step
    /// of its shutdown, as for stdio servers).
    started_stdin: Mutex<Option<tokio::process::ChildStdin>>,
    /// The URL of the legacy HTTP+SSE stream, once detected.
    legacy_sse_url: Mutex<Option<String>>,
    secrets: Vec<String>,
    /// The target's credentials, read (for the auth phase's grants).
    pub(super) resolved: crate::auth::Resolved,
    /// Bounds the requests in flight towards this server (`--concurrency`), over every
    /// wire the connector opened.
    inflight: Arc<tokio::sync::Semaphore>,
    /// What is in flight towards an HTTP server over every wire to it (one server
    /// process serves them all).
    http_traffic: Arc<crate::client::Traffic>,
    /// Whether the HTTP server still accepts connections (see [`Connector::death`]).
    http_alive: Mutex<HttpAlive>,
    /// The HTTP sessions the server issued to scout and which of them scout ended.
    sessions: Mutex<SessionBook>,
    /// Re-authorization mid-conversation, when the command enabled it (never in a check).
    pub(super) reauth: std::sync::OnceLock<crate::client::reauth::State>,
}

/// The HTTP sessions of one run: each id the server issued, and the ids scout sent DELETE
/// for (whatever the answer).
#[derive(Debug, Default)]
pub struct SessionBook {
    pub opened: std::collections::BTreeSet<String>,
    pub closed: std::collections::BTreeSet<String>,
    /// The server answered a DELETE with 405: it does not let clients end sessions.
    pub delete_refused: bool,
}

/// What the HTTP replies so far say about whether the server still runs.
#[derive(Debug, Default)]
struct HttpAlive {
    /// The newest request that reached the server (it did not refuse the connection).
    reached: Seq,
    /// The newest request the server answered at the HTTP level (any status).
    answered: Seq,
    /// The first request after `answered` whose connection broke (closed or reset, not
    /// refused): if refused connections follow, that is where the server went down. A
    /// request sent to a dying process can still be accepted and then reset, so the one
    /// after it must not be taken for the cause.
    broken: Option<Seq>,
    /// Set by the first refused connection after a request had reached the server: the
    /// first broken request since the last answer, else the newest request that had
    /// reached it then.
    stopped_after: Option<Seq>,
}

/// How the server's end showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeathKind {
    /// The stdio process ended on its own.
    Exited,
    /// The HTTP server refused connections after it had served the run.
    StoppedAnswering,
}

/// The server stopped during the run: nothing sent after `after` can say how it behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Death {
    pub kind: DeathKind,
    /// The last message that reached the server before it stopped (0 = none).
    pub after: Seq,
}

impl Death {
    /// "the server exited after req#12", for skip reasons and details.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            DeathKind::Exited => "the server exited",
            DeathKind::StoppedAnswering => "the server stopped answering",
        };
        if self.after == 0 {
            format!("{what} before scout's first message")
        } else {
            format!("{what} after req#{}", self.after)
        }
    }
}

/// Opens wires to one target. Cheap to clone; every child process it started is kept so
/// that [`Connector::stdio_wires`] / [`Connector::started_process`] can be shut down.
#[derive(Debug, Clone)]
pub struct Connector {
    pub(super) inner: Arc<Inner>,
}

/// The limiter every HTTP request to this server passes: the one the runner shared for
/// its host when there is one, else a new one: `spec.rps` (default 2) when the server
/// [is remote](ServerSpec::is_remote), unthrottled otherwise.
pub fn limiter_for(spec: &ServerSpec, shared: Option<&RateLimiter>) -> RateLimiter {
    if let Some(shared) = shared {
        return shared.clone();
    }
    RateLimiter::new(spec.is_remote().then(|| {
        spec.rps
            .unwrap_or(crate::transport::limiter::DEFAULT_REMOTE_RPS)
    }))
}

/// The value of `src`, and the secrets in it: every value read from the environment, and
/// the whole value when it holds one (a joined `Bearer {key}` is redacted whole and by part).
fn resolve(src: &ValueSource, what: &str) -> Result<(String, Vec<String>), ConnectError> {
    match src {
        ValueSource::Literal(v) => Ok((v.clone(), Vec::new())),
        ValueSource::Env(var) => std::env::var(var)
            .map(|v| (v.clone(), vec![v]))
            .map_err(|_| ConnectError::MissingEnv {
                var: var.clone(),
                what: what.to_string(),
            }),
        ValueSource::Joined(parts) => {
            let mut whole = String::new();
            let mut secrets = Vec::new();
            for p in parts {
                let (v, s) = resolve(p, what)?;
                whole.push_str(&v);
                secrets.extend(s);
            }
            if !secrets.is_empty() {
                secrets.push(whole.clone());
            }
            Ok((whole, secrets))
        }
    }
}

/// The values of the environment variables a stdio server gets whose names say they hold a
/// credential (`GITHUB_TOKEN`, `API_KEY`, `DB_PASSWORD` …): the operator's secrets, which a
/// server that prints its environment must not carry into the report.
fn stdio_env_secrets(env_forward: &[String], env_set: &[(String, String)]) -> Vec<String> {
    let secret_name = |n: &str| {
        let n = n.to_ascii_lowercase();
        [
            "key",
            "token",
            "secret",
            "password",
            "passwd",
            "credential",
            "auth",
        ]
        .iter()
        .any(|w| n.contains(w))
    };
    let forwarded = env_forward
        .iter()
        .filter(|n| secret_name(n))
        .filter_map(|n| std::env::var(n).ok());
    let set = env_set
        .iter()
        .filter(|(n, _)| secret_name(n))
        .map(|(_, v)| v.clone());
    forwarded.chain(set).collect()
}

impl Connector {
    /// Resolves the target's credentials (registering each secret with the recorder's
    /// redactor before any request) and prepares the HTTP client. Spawns nothing yet.
    pub fn new(
        spec: &ServerSpec,
        recorder: Recorder,
        trace_id: &str,
    ) -> Result<Self, ConnectError> {
        Connector::in_run(spec, recorder, &RunContext::alone(trace_id))
    }

    /// [`Connector::new`] within the run `ctx`: its id is the trace id, and its limiter (when
    /// the runner shared one for the host) paces every HTTP request.
    pub fn in_run(
        spec: &ServerSpec,
        recorder: Recorder,
        ctx: &RunContext,
    ) -> Result<Self, ConnectError> {
        let trace_id = ctx.run_id.as_str();
        let mut secrets = Vec::new();
        let mut resolved = crate::auth::Resolved::default();
        let clients = match &spec.target {
            TargetSpec::Http { headers, auth, .. } => {
                let mut fixed = Vec::new();
                for (name, src) in headers {
                    let (v, from_env) = resolve(src, &format!("header {name}"))?;
                    if reqwest::header::HeaderValue::from_str(&v).is_err() {
                        return Err(ConnectError::BadHeader(name.clone()));
                    }
                    if !from_env.is_empty() || crate::telemetry::redact::is_secret_header(name) {
                        secrets.push(v.clone());
                    }
                    secrets.extend(from_env);
                    fixed.push((name.clone(), v));
                }
                resolved = auth.resolve()?;
                secrets.extend(resolved.values().into_iter().map(str::to_string));
                if let Some(tok) = &resolved.token
                    && reqwest::header::HeaderValue::from_str(&format!("Bearer {tok}")).is_err()
                {
                    return Err(ConnectError::BadHeader("Authorization".into()));
                }
                let clients = HttpClients::new(
                    fixed,
                    trace_id.to_string(),
                    limiter_for(spec, ctx.limiter.as_ref()),
                )?;
                // A ready token is sent from the first authenticated request on; tokens from
                // an OAuth grant are put in the same slot by the auth phase.
                clients.set_bearer(resolved.token.clone());
                Some(Arc::new(clients))
            }
            TargetSpec::Stdio(ProcessConfig {
                env_forward,
                env_set,
                ..
            }) => {
                secrets.extend(stdio_env_secrets(env_forward, env_set));
                None
            }
        };
        // Registered before any request, so not even the first exchange keeps a secret.
        for s in &secrets {
            recorder.redactor().register(s);
        }
        Ok(Connector {
            inner: Arc::new(Inner {
                spec: spec.clone(),
                recorder,
                clients,
                ids: AtomicU64::new(1),
                stdio_wires: Mutex::new(Vec::new()),
                spares: Mutex::new(Vec::new()),
                started: Mutex::new(None),
                started_stdin: Mutex::new(None),
                legacy_sse_url: Mutex::new(None),
                secrets,
                resolved,
                inflight: Arc::new(tokio::sync::Semaphore::new(spec.concurrency.max(1))),
                http_traffic: Arc::default(),
                http_alive: Mutex::new(HttpAlive::default()),
                sessions: Mutex::new(SessionBook::default()),
                reauth: std::sync::OnceLock::new(),
            }),
        })
    }

    /// Waits for a free slot among the requests in flight towards this server; the slot is
    /// held until the returned permit is dropped.
    pub async fn slot(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        // The semaphore is never closed, so this is always a permit.
        self.inner.inflight.clone().acquire_owned().await.ok()
    }

    /// What is in flight towards the HTTP server (shared by every HTTP wire).
    pub(crate) fn http_traffic(&self) -> Arc<crate::client::Traffic> {
        self.inner.http_traffic.clone()
    }

    /// Notes what one HTTP reply says about the server still running: a refused connection
    /// after an earlier request had reached it means it stopped.
    pub(crate) fn note_http_reply(&self, reply: &crate::transport::Reply) {
        let Some(seq) = reply.evidence.first().copied() else {
            return;
        };
        let mut alive = self
            .inner
            .http_alive
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if alive.stopped_after.is_some() {
            return;
        }
        if reply.refused {
            if alive.reached > 0 {
                alive.stopped_after = Some(alive.broken.unwrap_or(alive.reached));
            }
            return;
        }
        alive.reached = alive.reached.max(seq);
        if reply.http.is_some() {
            alive.answered = alive.answered.max(seq);
            if alive.broken.is_some_and(|b| b < alive.answered) {
                alive.broken = None;
            }
        } else if matches!(reply.outcome, crate::transport::Outcome::TransportError(_))
            && seq > alive.answered
        {
            alive.broken = Some(alive.broken.map_or(seq, |b| b.min(seq)));
        }
    }

    /// Notes the session a wire holds after a reply (the server issued it), or ends (a
    /// DELETE sent with it).
    pub(crate) fn note_session(&self, session: Option<&str>, deleted: bool, status: Option<u16>) {
        let Some(id) = session else {
            return;
        };
        let mut book = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if deleted {
            book.closed.insert(id.to_string());
            book.delete_refused |= status == Some(405);
        } else {
            book.opened.insert(id.to_string());
        }
    }

    /// The sessions issued to scout that it has not ended yet, and whether the server
    /// refuses DELETE.
    pub fn open_sessions(&self) -> (Vec<String>, bool) {
        let book = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let open = book.opened.difference(&book.closed).cloned().collect();
        (open, book.delete_refused)
    }

    /// After a request whose connection broke (closed or reset, no HTTP answer, not refused)
    /// with no answer since, asks whether the server still listens, before anything more is
    /// judged: one credential-free `HEAD` on the server's URL over a fresh connection
    /// (recorded like every request). A refused connection means the server stopped, after
    /// the first broken request; any answer means it runs. A fresh connection that is closed
    /// without an answer too is asked once more: a process that is exiting still accepts
    /// connections for a moment and drops them, so two fresh connections closed unanswered
    /// after the broken request mean it stopped, as a refused one does. Without the question,
    /// whether the next probe met a refused connection or one more dead pooled connection
    /// (or the exiting process's last accepts) would be the schedule's choice. Does nothing
    /// otherwise.
    pub async fn confirm_http_stop(&self) {
        let broken = {
            let alive = self
                .inner
                .http_alive
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if alive.stopped_after.is_some() {
                return;
            }
            alive.broken
        };
        let (Some(_), TargetSpec::Http { url, .. }, Some(clients)) =
            (broken, &self.inner.spec.target, self.http_clients())
        else {
            return;
        };
        let mut unanswered = 0;
        for _ in 0..2 {
            let Ok(fresh) = clients.with_own_pool() else {
                return;
            };
            let req = crate::transport::http::HttpRequest {
                method: "HEAD".into(),
                url: url.clone(),
                headers: vec![("X-MCP-Trace-ID".to_string(), clients.trace_id.clone())],
                body: None,
                expect_id: None,
                timeout: self.timeout().min(Duration::from_secs(5)),
                max_body: 0,
                stop: None,
                pad: None,
                abandon: false,
                answer: None,
                first_message_only: false,
                opened: None,
                end_after: 0,
                first_message: None,
            };
            let reply =
                crate::transport::http::exchange(&fresh, &self.inner.recorder, None, req).await;
            self.note_http_reply(&reply);
            let dropped = !reply.refused
                && reply.http.is_none()
                && matches!(reply.outcome, crate::transport::Outcome::TransportError(_));
            if !dropped {
                return;
            }
            unanswered += 1;
        }
        if unanswered == 2 {
            let mut alive = self
                .inner
                .http_alive
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if alive.stopped_after.is_none() {
                alive.stopped_after = alive.broken;
            }
        }
    }

    /// How many sessions were issued to scout, and how many of them it ended.
    pub fn session_count(&self) -> (usize, usize) {
        let book = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let closed = book.opened.intersection(&book.closed).count();
        (book.opened.len(), closed)
    }

    /// Whether the server stopped during the run, and after which message: the run's own
    /// stdio process ended before scout shut it down, or the HTTP server began to refuse
    /// connections. Processes scout started for extra clients do not count.
    pub fn death(&self) -> Option<Death> {
        if let Some(primary) = self.stdio_wires().first()
            && let Some(after) = primary.exited_after()
        {
            return Some(Death {
                kind: DeathKind::Exited,
                after,
            });
        }
        let alive = self
            .inner
            .http_alive
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        alive.stopped_after.map(|after| Death {
            kind: DeathKind::StoppedAnswering,
            after,
        })
    }

    /// The spec this connector serves.
    pub fn spec(&self) -> &ServerSpec {
        &self.inner.spec
    }
    /// The recorder every exchange goes to.
    pub fn recorder(&self) -> &Recorder {
        &self.inner.recorder
    }
    /// Per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.inner.spec.timeout
    }
    /// Response body / stdio line cap.
    pub fn max_body(&self) -> usize {
        self.inner.spec.max_body_bytes
    }
    /// Resolved secret values (for redaction).
    pub fn secrets(&self) -> &[String] {
        &self.inner.secrets
    }
    /// The target's credentials as read at the start (secrets: never print them).
    pub fn resolved(&self) -> &crate::auth::Resolved {
        &self.inner.resolved
    }
    /// The HTTP clients (HTTP targets only).
    pub fn http_clients(&self) -> Option<&Arc<HttpClients>> {
        self.inner.clients.as_ref()
    }

    /// The next request id: integers and strings alternate over a run.
    pub fn next_id(&self) -> Value {
        let n = self.inner.ids.fetch_add(1, Ordering::SeqCst);
        if n % 2 == 1 {
            Value::from(n)
        } else {
            Value::String(format!("scout-{n}"))
        }
    }

    /// The transport this target uses by default.
    pub fn default_transport(&self) -> TransportKind {
        match &self.inner.spec.target {
            TargetSpec::Stdio(..) => TransportKind::Stdio,
            TargetSpec::Http { .. } => {
                if self.legacy_sse_url().is_some() {
                    TransportKind::LegacySse
                } else {
                    TransportKind::Http
                }
            }
        }
    }

    /// A new wire (no handshake) over the target's default transport, provisionally legacy.
    pub async fn open(&self) -> Result<Connection, ConnectError> {
        self.open_wire(self.default_transport()).await
    }

    /// A new wire (no handshake) over `kind`.
    pub async fn open_wire(&self, kind: TransportKind) -> Result<Connection, ConnectError> {
        let wire = match (&self.inner.spec.target, kind) {
            (TargetSpec::Stdio(cfg), TransportKind::Stdio) => {
                let sp = match self.take_live_spare().await {
                    Some(sp) => sp,
                    None => process::spawn(cfg)?,
                };
                let w = StdioWire::new(
                    sp.process,
                    sp.stdin,
                    sp.stdout,
                    self.inner.recorder.clone(),
                    self.max_body(),
                );
                self.inner
                    .stdio_wires
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(w.clone());
                Wire::Stdio(w)
            }
            (TargetSpec::Http { url, .. }, TransportKind::Http) => {
                let clients = self.clients()?;
                Wire::Http(HttpWire::new(clients, url.clone()))
            }
            (TargetSpec::Http { .. }, TransportKind::LegacySse) => {
                let clients = self.clients()?;
                let url = self
                    .legacy_sse_url()
                    .ok_or_else(|| ConnectError::LegacySse("no SSE URL detected".into()))?;
                let w = LegacySseWire::connect(
                    clients,
                    url,
                    self.inner.recorder.clone(),
                    self.timeout(),
                    self.max_body(),
                )
                .await
                .map_err(ConnectError::LegacySse)?;
                Wire::LegacySse(w)
            }
            (_, k) => return Err(ConnectError::WrongTransport(k)),
        };
        Ok(Connection::new(wire, self.clone(), Era::Legacy))
    }

    /// A new wire (no handshake) over `kind` that shares nothing with the others: a new
    /// process over stdio; over Streamable HTTP a client with a connection pool of its own
    /// (the same headers and credentials), so it never rides a TCP connection another
    /// wire opened.
    pub async fn open_independent_wire(
        &self,
        kind: TransportKind,
    ) -> Result<Connection, ConnectError> {
        match (&self.inner.spec.target, kind) {
            (TargetSpec::Http { url, .. }, TransportKind::Http) => {
                let own = self.clients()?.with_own_pool()?;
                Ok(Connection::new(
                    Wire::Http(HttpWire::new(Arc::new(own), url.clone())),
                    self.clone(),
                    Era::Legacy,
                ))
            }
            _ => self.open_wire(kind).await,
        }
    }

    fn clients(&self) -> Result<Arc<HttpClients>, ConnectError> {
        self.inner
            .clients
            .clone()
            .ok_or(ConnectError::WrongTransport(TransportKind::Http))
    }

    /// The client for requests to authorization servers on behalf of this target: recorded
    /// like every exchange, with the target's trace id and timeout.
    pub(crate) fn auth_http(
        &self,
        url: &str,
        clients: &HttpClients,
    ) -> Result<crate::auth::http::AuthHttp, String> {
        crate::auth::http::AuthHttp::new(
            self.inner.recorder.clone(),
            &clients.trace_id,
            self.timeout(),
            url,
            self.inner.spec.treat_as_remote,
        )
    }

    /// Outside a check run (`connect`, `tools`, `call`): runs the configured OAuth grant, or
    /// takes a token stored by `scout auth login`, and puts the token in the authenticated
    /// client's slot. A ready token is already there; an open server needs none.
    pub async fn authorize(&self) -> Result<(), ConnectError> {
        let (TargetSpec::Http { url, auth, .. }, Some(clients)) =
            (&self.inner.spec.target, self.http_clients())
        else {
            return Ok(());
        };
        let http = self.auth_http(url, clients).map_err(ConnectError::Auth)?;
        let remote = self.inner.spec.treat_as_remote;
        let got = crate::auth::obtain::obtain(&http, url, auth, &self.inner.resolved, remote, None)
            .await
            .map_err(|e| {
                if e.config {
                    ConnectError::AuthConfig(e.message)
                } else {
                    ConnectError::Auth(e.message)
                }
            })?;
        let scope = match &got {
            Some(g) => g.scope.clone(),
            None => auth.scope.clone(),
        };
        if let Some(state) = self.inner.reauth.get() {
            state.set_scope(scope);
        }
        if let Some(got) = got {
            clients.set_bearer(Some(got.token));
        }
        Ok(())
    }

    /// Marks the target as a legacy HTTP+SSE server whose stream is at `url`.
    pub fn set_legacy_sse_url(&self, url: Option<String>) {
        *self
            .inner
            .legacy_sse_url
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = url;
    }

    /// The legacy HTTP+SSE stream URL, once detected.
    pub fn legacy_sse_url(&self) -> Option<String> {
        self.inner
            .legacy_sse_url
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Starts `n` processes of a stdio target now, for wires the run will open later: a
    /// server's start (Node.js takes a quarter of a second) then overlaps the work before
    /// it instead of adding to it. Each process waits, unread, until a wire takes it (its
    /// pipe holds anything it writes meanwhile); the ones no wire took are shut down by
    /// [`Connector::stop_spares`]. Does nothing for other targets; a process that cannot be
    /// started is left to the wire that needs it, which reports why.
    pub fn prespawn(&self, n: usize) {
        let TargetSpec::Stdio(cfg) = &self.inner.spec.target else {
            return;
        };
        let mut spares = self.inner.spares.lock().unwrap_or_else(|e| e.into_inner());
        for _ in 0..n {
            match process::spawn(cfg) {
                Ok(sp) => spares.push(sp),
                Err(_) => break,
            }
        }
    }

    /// The oldest process started ahead of need, if any is left.
    fn take_spare(&self) -> Option<process::Spawned> {
        let mut spares = self.inner.spares.lock().unwrap_or_else(|e| e.into_inner());
        (!spares.is_empty()).then(|| spares.remove(0))
    }

    /// The oldest process started ahead of need that still runs. One that has exited
    /// already (a server that cannot start twice at the same moment, say two instances
    /// racing for one file) is reaped and passed over: starting it early was scout's choice,
    /// so its end must not become a verdict; the wire then starts a process of its own at
    /// the moment it needs one, as it would have without spares.
    async fn take_live_spare(&self) -> Option<process::Spawned> {
        while let Some(sp) = self.take_spare() {
            if sp.process.try_exit().await.is_none() {
                return Some(sp);
            }
        }
        None
    }

    /// Shuts down, together, the processes started ahead of need that no wire took: their
    /// stdin is closed, as for every stdio server, and they get `grace` to exit.
    pub async fn stop_spares(&self, grace: Duration) {
        let spares: Vec<process::Spawned> =
            std::mem::take(&mut *self.inner.spares.lock().unwrap_or_else(|e| e.into_inner()));
        let stops = spares.into_iter().map(|sp| {
            let process::Spawned {
                process,
                stdin,
                stdout,
            } = sp;
            drop(stdin);
            async move {
                let _ = process.shutdown(grace).await;
                drop(stdout);
            }
        });
        futures_util::future::join_all(stops).await;
    }

    /// Every stdio wire opened so far (each owns one child process).
    pub fn stdio_wires(&self) -> Vec<Arc<StdioWire>> {
        self.inner
            .stdio_wires
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The process of the `start` command, when one was started.
    pub fn started_process(&self) -> Option<Arc<ManagedProcess>> {
        self.inner
            .started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Runs the target's `start` command (HTTP targets) and waits until the URL answers
    /// any HTTP request, at most `limit`. Does nothing without a start command.
    pub async fn start_server(&self, limit: Duration) -> Result<(), ConnectError> {
        let TargetSpec::Http {
            url,
            start: Some(command),
            ..
        } = &self.inner.spec.target
        else {
            return Ok(());
        };
        let cfg = ProcessConfig {
            command: command.clone(),
            ..ProcessConfig::default()
        };
        let sp = process::spawn(&cfg)?;
        // The start command's stdout is not a wire: keep it with stderr, bounded.
        sp.process.capture(sp.stdout);
        // Its stdin stays open until shutdown (closing it tells some servers to exit).
        *self
            .inner
            .started_stdin
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(sp.stdin);
        let proc_ = sp.process;
        *self.inner.started.lock().unwrap_or_else(|e| e.into_inner()) = Some(proc_.clone());
        let probe = crate::transport::tls::with_extra_roots(reqwest::Client::builder())
            .timeout(Duration::from_secs(2))
            .build()
            .map_err(HttpSetupError::from)?;
        let until = tokio::time::Instant::now() + limit;
        loop {
            if let Some(status) = proc_.try_exit().await {
                return Err(ConnectError::StartFailed {
                    why: format!("the start command exited ({status}) before {url} answered"),
                    stderr: proc_.stderr_to_end(process::STDERR_END).await,
                });
            }
            if probe.get(url).send().await.is_ok() {
                break;
            }
            if tokio::time::Instant::now() >= until {
                return Err(ConnectError::StartFailed {
                    why: format!("{url} did not answer within {} s", limit.as_secs()),
                    stderr: proc_.stderr(),
                });
            }
            // Ask again when the command writes (its "listening on …" line), else soon: a
            // server is usually up within a few hundred milliseconds, and each question is
            // one loopback connection attempt.
            let _ = tokio::time::timeout(READY_POLL, proc_.wrote()).await;
        }
        Ok(())
    }

    /// Stops the `start` command's server: closes its stdin, SIGTERM at once (an HTTP
    /// server is stopped by a signal, as a service manager stops it; few watch their stdin,
    /// and waiting for one to notice its closed stdin cost every run the whole grace), then
    /// SIGKILL after `grace`, and kills whatever is left in its process group. Does nothing
    /// when no start command ran.
    pub async fn stop_started(&self, grace: Duration) {
        self.inner
            .started_stdin
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(p) = self.started_process() {
            p.terminate(grace).await;
            p.kill_group();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joined_value_is_a_secret_whole_and_by_part() {
        // PATH is set wherever the tests run: a stand-in for a key from the environment.
        let path = std::env::var("PATH").expect("PATH");
        let joined = ValueSource::Joined(vec![
            ValueSource::Literal("Bearer ".into()),
            ValueSource::Env("PATH".into()),
        ]);
        let (value, secrets) = resolve(&joined, "header Authorization").expect("resolved");
        assert_eq!(value, format!("Bearer {path}"));
        assert!(
            secrets.contains(&path) && secrets.contains(&value),
            "{secrets:?}"
        );
        let literal = ValueSource::Joined(vec![ValueSource::Literal("2".into())]);
        assert_eq!(
            resolve(&literal, "h").expect("resolved").1,
            Vec::<String>::new()
        );
        let missing = ValueSource::Joined(vec![ValueSource::Env("SCOUT_UNSET_9F2A".into())]);
        assert!(resolve(&missing, "header X").is_err());
    }

    fn http_spec(url: &str) -> ServerSpec {
        ServerSpec::new(
            "s",
            TargetSpec::Http {
                url: url.into(),
                headers: vec![],
                auth: Default::default(),
                start: None,
            },
        )
    }

    fn stdio_spec(program: &str) -> ServerSpec {
        ServerSpec::new(
            "s",
            TargetSpec::Stdio(ProcessConfig {
                command: vec![program.into()],
                ..ProcessConfig::default()
            }),
        )
    }

    #[test]
    fn defaults_per_target() {
        let http = http_spec;
        assert!(!limiter_for(&http("http://127.0.0.1:1/mcp"), None).is_throttled());
        assert!(limiter_for(&http("https://example.com/mcp"), None).is_throttled());
        let mut local = http("http://127.0.0.1:1/mcp");
        local.rps = Some(5.0);
        assert!(!limiter_for(&local, None).is_throttled());
        local.treat_as_remote = true;
        let l = limiter_for(&local, None);
        assert_eq!(l.interval(), Some(std::time::Duration::from_millis(200)));
        let mut stdio = stdio_spec("x");
        stdio.treat_as_remote = true;
        assert!(!limiter_for(&stdio, None).is_throttled());
    }

    #[test]
    fn an_http_server_is_dead_after_the_first_broken_request_since_its_last_answer() {
        use crate::transport::{HttpInfo, Outcome, Reply};
        let spec = stdio_spec("true");
        let answered = |seq| Reply {
            evidence: vec![seq],
            http: Some(HttpInfo::default()),
            ..Reply::default()
        };
        let broken = |seq| Reply {
            evidence: vec![seq],
            outcome: Outcome::TransportError("connection closed".into()),
            ..Reply::default()
        };
        let refused = |seq| Reply {
            refused: true,
            ..broken(seq)
        };
        let after = |replies: &[Reply]| {
            let c = Connector::new(&spec, Recorder::new(), "run").expect("connector");
            for r in replies {
                c.note_http_reply(r);
            }
            let alive = c.inner.http_alive.lock().expect("lock");
            alive.stopped_after
        };
        // The garbage (3) broke its connection; the next request (4) was accepted by the
        // dying process and reset; then connections are refused: 3 is where it stopped.
        assert_eq!(
            after(&[answered(1), answered(2), broken(3), broken(4), refused(5)]),
            Some(3)
        );
        // A broken connection the server then outlived says nothing.
        assert_eq!(
            after(&[answered(1), broken(2), answered(3), refused(4)]),
            Some(3)
        );
        // Refused from the first request on: it never ran, no death during the run.
        assert_eq!(after(&[refused(1), refused(2)]), None);
        // A message that merely says "connection refused" is not a refused connection.
        let says = Reply {
            outcome: Outcome::TransportError("connection refused".into()),
            ..answered(2)
        };
        assert_eq!(after(&[answered(1), says]), None);
    }

    #[test]
    fn ids_alternate_between_integers_and_strings() {
        let spec = stdio_spec("true");
        let c = Connector::new(&spec, Recorder::new(), "run").expect("connector");
        let ids: Vec<Value> = (0..4).map(|_| c.next_id()).collect();
        assert!(ids[0].is_u64() && ids[2].is_u64());
        assert!(ids[1].is_string() && ids[3].is_string());
    }

    #[test]
    fn missing_env_for_a_token_is_a_config_error() {
        let spec = ServerSpec::new(
            "t",
            TargetSpec::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: Vec::new(),
                auth: crate::auth::AuthSpec {
                    token: Some(crate::auth::SecretSource::Env(
                        "SCOUT_TEST_SURELY_UNSET_TOKEN_VAR".into(),
                    )),
                    ..Default::default()
                },
                start: None,
            },
        );
        let e = Connector::new(&spec, Recorder::new(), "run").expect_err("unset var");
        assert!(e.is_config_error());
        assert!(e.to_string().contains("SCOUT_TEST_SURELY_UNSET_TOKEN_VAR"));
    }
}
