//! Streamable HTTP: one POST per message, responses as JSON or an SSE stream (parsed with
//! our own parser), read as a stream under the body cap and the request timeout. A
//! handshake-era stream closed before its response is resumed by [`super::resume`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;

use crate::report::exchange::{ExchangeKind, HttpExchange};
use crate::report::finding::Era;
use crate::telemetry::Recorder;
use crate::transport::limiter::RateLimiter;
use crate::transport::resume;
use crate::transport::sse::SseParser;
use crate::transport::{HttpInfo, Outcome, Reply, SseInfo};

/// How long an SSE stream may stay open after the response arrived before scout stops
/// reading (a server SHOULD close it right after the response).
pub const SSE_GRACE: Duration = Duration::from_millis(300);

/// The HTTP client shared by every wire to one target. Credentials are not default headers
/// of the reqwest client but added per request, so the bare client is simply "without
/// them" and a probe can remove one like any other header. Every request waits for the
/// target's rate limiter first ([`HttpClients::pace`]).
#[derive(Debug, Clone)]
pub struct HttpClients {
    client: reqwest::Client,
    /// `--rps` for this target's host, shared with every other server on it.
    limiter: RateLimiter,
    /// Fixed headers, resolved (the authenticated client).
    pub auth_headers: Vec<(String, String)>,
    /// `X-MCP-Trace-ID` value.
    pub trace_id: String,
    /// The bearer token of the authenticated client. A slot rather than a fixed header: the
    /// auth phase puts a token it obtained here in the middle of the run, and every wire
    /// cloned from these clients sends it from then on.
    bearer: Arc<std::sync::RwLock<Option<String>>>,
}

/// Why the HTTP client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum HttpSetupError {
    #[error("cannot build the HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}

impl HttpClients {
    /// The underlying reqwest client. A request sent with it directly must call
    /// [`HttpClients::pace`] first.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// The target's rate limiter (shared: cloning keeps one schedule), for requests made
    /// outside this client (the auth phase's credential-free client).
    pub fn limiter(&self) -> RateLimiter {
        self.limiter.clone()
    }

    /// Waits for this target's rate limiter: call right before a request starts (and
    /// before its exchange is recorded, so the recorded start times show the spacing).
    pub async fn pace(&self) {
        self.limiter.wait().await;
    }

    /// Builds the client. Redirects are followed only within the same origin, so
    /// credentials never travel to another host.
    pub fn new(
        auth_headers: Vec<(String, String)>,
        trace_id: String,
        limiter: RateLimiter,
    ) -> Result<Self, HttpSetupError> {
        Ok(HttpClients {
            client: Self::build_client()?,
            limiter,
            auth_headers,
            trace_id,
            bearer: Arc::default(),
        })
    }

    /// The same clients (headers, credentials slot, rate limiter) over a reqwest client of
    /// their own: its connection pool shares no TCP connection (and no HTTP/2 multiplexed
    /// connection) with this one, so a wire built on it is an independent connection in
    /// the server's eyes too.
    pub fn with_own_pool(&self) -> Result<Self, HttpSetupError> {
        Ok(HttpClients {
            client: Self::build_client()?,
            ..self.clone()
        })
    }

    fn build_client() -> Result<reqwest::Client, HttpSetupError> {
        let policy = reqwest::redirect::Policy::custom(|attempt| {
            let same = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if attempt.previous().len() > 5 || !same {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        Ok(super::tls::with_extra_roots(reqwest::Client::builder())
            .redirect(policy)
            .connect_timeout(Duration::from_secs(10))
            .build()?)
    }

    /// Sets (or clears) the bearer token the authenticated client sends.
    pub fn set_bearer(&self, token: Option<String>) {
        *self.bearer.write().unwrap_or_else(|e| e.into_inner()) = token;
    }

    /// True when a bearer token is set.
    pub fn has_bearer(&self) -> bool {
        self.bearer
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The authenticated client's headers: the fixed ones, then `Authorization: Bearer …`
    /// when a token is set (it replaces a fixed `Authorization` header).
    pub fn credentials(&self) -> Vec<(String, String)> {
        let bearer = self
            .bearer
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut h: Vec<(String, String)> = self
            .auth_headers
            .iter()
            .filter(|(k, _)| bearer.is_none() || !k.eq_ignore_ascii_case("authorization"))
            .cloned()
            .collect();
        if let Some(t) = bearer {
            h.push(("Authorization".into(), format!("Bearer {t}")));
        }
        h
    }
}

/// One HTTP request to send.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    /// Final headers (after overrides), in order.
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// The JSON-RPC id whose response ends the wait (None: notification, GET, raw).
    pub expect_id: Option<Value>,
    pub timeout: Duration,
    pub max_body: usize,
    /// Stops reading the body early when it turns true (or its sender is gone): a GET
    /// stream is listened to only while the rest of the run needs the time anyway.
    pub stop: Option<tokio::sync::watch::Receiver<bool>>,
    /// The body's [`PAD_MARKER`](super::PAD_MARKER) stands for this many `x` bytes, streamed
    /// in chunks so that an oversized request costs scout no memory.
    pub pad: Option<usize>,
    /// Abandon the request (see [`Probe::abandon`](super::Probe::abandon)).
    pub abandon: bool,
    /// Answers each request the server sends on this request's stream, as it arrives.
    pub answer: Option<AnswerHook>,
    /// Stop reading the stream once it carried one JSON-RPC message other than the
    /// response: a long-lived request (`subscriptions/listen`) whose first message, its
    /// acknowledgement, is all scout asks of it. Closing the stream ends the subscription.
    pub first_message_only: bool,
    /// Told once the response's status and headers arrived: a stream the server keeps
    /// open (the standalone GET) is then established, and the server can send on it.
    pub opened: Option<std::sync::Arc<tokio::sync::Notify>>,
    /// Reading ends once this many messages other than the response came (0: no limit).
    pub end_after: usize,
    /// Told when the first message other than the response came.
    pub first_message: Option<std::sync::Arc<tokio::sync::Notify>>,
}

/// What the evidence of one answer to the server's request will be: the exchanges that
/// carried it (a POST of its own on Streamable HTTP).
pub type AnswerSent = tokio::task::JoinHandle<Vec<crate::report::exchange::Seq>>;

/// Answers a request the server sent on a stream (a message with a `method` and an `id`):
/// it starts sending the answer and returns at once, so the stream goes on being read
/// while the answer travels (the server sends its response only after it). The client
/// layer builds it: it knows the session, the headers and what its persona answers.
#[derive(Clone)]
pub struct AnswerHook(pub Arc<dyn Fn(Value) -> AnswerSent + Send + Sync>);

impl std::fmt::Debug for AnswerHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AnswerHook")
    }
}

/// A body whose [`PAD_MARKER`](super::PAD_MARKER) is replaced by `pad` bytes of `x`, as a
/// stream of chunks with its total length, and what the record keeps of it.
fn padded(body: String, pad: usize) -> (reqwest::Body, usize, String, Arc<AtomicUsize>) {
    let padded = super::padding::Padded::new(body, pad);
    let total = padded.total_len();
    let kept = padded.kept();
    let chunks = padded.into_bytes();
    // Counts the bytes handed to the connection: the client takes the next chunk only once
    // it has written the one before, so a count short of the total says the write stopped
    // before the body's end.
    let handed = Arc::new(AtomicUsize::new(0));
    let counter = handed.clone();
    let chunks = chunks.map(move |c| {
        counter.fetch_add(c.len(), Ordering::SeqCst);
        Ok::<_, std::io::Error>(c)
    });
    (
        reqwest::Body::wrap_stream(futures_util::stream::iter(chunks)),
        total,
        kept,
        handed,
    )
}

/// The start of a transport error for a request whose body the server stopped taking: it
/// closed the connection (after an early answer such as 413, which may be lost with it)
/// before the whole body was written. A server refusing a body past its limit does this.
pub const BODY_NOT_TAKEN: &str =
    "the server closed the connection before taking the whole request body";

/// What the record of an abandoned request says.
const ABANDONED: &str = "abandoned: scout sent the whole request on a connection of its own and closed it without reading the answer";

/// Writes `req` whole on a new connection of its own (TLS for `https://`, verified against
/// the same web PKI roots as the HTTP client) and closes it without reading a byte of the
/// answer, once the last write completed: a client that goes away, whatever the server's
/// speed or distance (a timer could lose the race against a server that answers in under
/// a millisecond, and a remote one could never be reached within it). Header lines with a
/// CR or LF are left out rather than written raw.
async fn abandon(req: &HttpRequest) -> Result<(), String> {
    let url = url::Url::parse(&req.url).map_err(|e| e.to_string())?;
    let host = url.host_str().ok_or("the URL has no host")?;
    let port = url.port_or_known_default().unwrap_or(80);
    let mut bytes = request_head(req, &url, host).into_bytes();
    bytes.extend_from_slice(req.body.as_deref().unwrap_or_default().as_bytes());
    let tcp = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port))
        .await
        .map_err(|e| e.to_string())?;
    match url.scheme() {
        "https" => {
            let name = tokio_rustls::rustls::pki_types::ServerName::try_from(
                host.trim_matches(['[', ']']).to_string(),
            )
            .map_err(|e| e.to_string())?;
            let tls = tls_connector()?
                .connect(name, tcp)
                .await
                .map_err(|e| e.to_string())?;
            write_and_close(tls, &bytes).await
        }
        _ => write_and_close(tcp, &bytes).await,
    }
}

/// A TLS client with the web PKI roots (what reqwest's `rustls-tls` trusts) and `ca_file`'s,
/// the ring provider, speaking HTTP/1.1 (no ALPN).
fn tls_connector() -> Result<tokio_rustls::TlsConnector, String> {
    use tokio_rustls::rustls;
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    // The operator's own certificate authority, as for the HTTP client.
    let (_, refused) = roots.add_parsable_certificates(super::tls::extra());
    if refused > 0 {
        return Err(format!(
            "{refused} certificate(s) of ca_file are no trust anchor rustls accepts"
        ));
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// The request line and headers of `req` for an HTTP/1.1 connection of its own, which the
/// server is asked to close after it.
fn request_head(req: &HttpRequest, url: &url::Url, host: &str) -> String {
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let authority = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let body = req.body.as_deref().unwrap_or_default();
    let clean = |s: &str| !s.contains(['\r', '\n']);
    let mut head = format!("{} {target} HTTP/1.1\r\n", req.method);
    if !req
        .headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("Host: {authority}\r\n"));
    }
    for (k, v) in &req.headers {
        let framing = ["content-length", "connection", "transfer-encoding"]
            .iter()
            .any(|h| k.eq_ignore_ascii_case(h));
        if !framing && clean(k) && clean(v) {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    head
}

/// Writes `bytes`, waits until the write (and flush) completed, and closes the stream
/// unread.
async fn write_and_close(
    mut stream: impl tokio::io::AsyncWrite + Unpin,
    bytes: &[u8],
) -> Result<(), String> {
    use tokio::io::AsyncWriteExt;
    stream.write_all(bytes).await.map_err(|e| e.to_string())?;
    stream.flush().await.map_err(|e| e.to_string())?;
    // Closed here, unread: the server finds its answer has nobody to go to.
    let _ = stream.shutdown().await;
    Ok(())
}

/// Sends one request and reads the answer under the cap and the timeout.
///
/// A handshake-era server may close an SSE response stream before the response and expect
/// the client to resume it (2025-11-25 transports, "Resumability and Redelivery"): scout then
/// waits the stream's `retry` time and reconnects with GET and `Last-Event-ID`, at most
/// [`MAX_RESUMES`](super::resume::MAX_RESUMES) times within the request's timeout. Each GET
/// is an exchange of its own, cited in `Reply::evidence`. A response that could not be
/// recovered is a transport error naming why, and `SseInfo::lost` says so for the judges;
/// one the timeout cut short is a timeout, with the reason among the stream's anomalies.
/// 2026-07-28 streams are never resumed ("Resumable SSE streams via `Last-Event-ID` are not
/// supported").
pub async fn exchange(
    clients: &HttpClients,
    recorder: &Recorder,
    era: Option<Era>,
    mut req: HttpRequest,
) -> Reply {
    clients.pace().await;
    let started = Instant::now();
    let pending = recorder.begin();
    let deadline = tokio::time::Instant::now() + req.timeout;
    if req.abandon && req.pad.is_none() {
        return send_abandoned(recorder, era, &req, pending, deadline, started).await;
    }
    let (rb, request_body, body_progress) = build_request(clients, &mut req);
    let mut ex = HttpExchange {
        method: req.method.clone(),
        url: req.url.clone(),
        request_headers: req.headers.clone(),
        request_body,
        ..HttpExchange::default()
    };
    let mut reply = Reply {
        evidence: vec![pending.seq],
        outcome: Outcome::NoResponse,
        response: None,
        notifications: Vec::new(),
        server_requests: Vec::new(),
        http: None,
        elapsed: Duration::ZERO,
        refused: false,
    };
    let resp = match tokio::time::timeout_at(deadline, rb.send()).await {
        Err(_) => {
            ex.error = Some("timed out waiting for the response headers".into());
            reply.outcome = Outcome::TimedOut;
            recorder.finish(pending, era, ExchangeKind::Http(ex));
            reply.elapsed = started.elapsed();
            return reply;
        }
        Ok(Err(e)) => {
            let msg = send_error(&e, body_progress.as_ref());
            ex.error = Some(msg.clone());
            reply.outcome = Outcome::TransportError(msg);
            reply.refused = connection_refused(&e);
            recorder.finish(pending, era, ExchangeKind::Http(ex));
            reply.elapsed = started.elapsed();
            return reply;
        }
        Ok(Ok(r)) => r,
    };
    let status = resp.status().as_u16();
    if let Some(opened) = &req.opened {
        opened.notify_one();
    }
    let headers = header_list(&resp);
    let content_type = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let is_sse = is_event_stream(content_type.as_deref());

    let mut col = Collected {
        answer: req.answer.clone(),
        first_message_only: req.first_message_only,
        end_after: req.end_after,
        first_message: req.first_message.clone(),
        ..Collected::default()
    };
    let mut parser = SseParser::new();
    let (body, end) = read_stream(
        resp.bytes_stream(),
        deadline,
        req.max_body,
        is_sse.then_some((&mut parser, &mut col, req.expect_id.as_ref())),
        req.stop.clone(),
    )
    .await;
    let truncated = end == End::Truncated;
    let timed_out = end == End::TimedOut;
    if let End::Broken(e) = &end {
        ex.error = Some(e.clone());
    }
    // A request's stream that ended (or broke) before its response.
    let closed_early = is_sse
        && req.method == "POST"
        && req.expect_id.is_some()
        && col.response.is_none()
        && matches!(end, End::Ended | End::Broken(_));

    let text = String::from_utf8_lossy(&body).into_owned();
    let mut response = col.response.clone();
    if !is_sse && !truncated && !timed_out {
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            response = serde_json::from_str::<Value>(&text).ok();
        }
    }
    if truncated {
        ex.error = Some(format!("body cut at the size cap ({} bytes)", req.max_body));
    } else if timed_out && ex.error.is_none() {
        ex.error = Some("stopped reading at the timeout".into());
    }
    ex.status = Some(status);
    ex.response_headers = headers.clone();
    ex.response_body = Some(text.clone());
    ex.truncated = truncated || (timed_out && is_sse);
    recorder.finish(pending, era, ExchangeKind::Http(ex));

    let mut sse = None;
    let mut lost: Option<(String, bool)> = None;
    if is_sse {
        let stream = StreamEnd {
            end,
            closed_early,
            started,
            deadline,
        };
        let (info, why_lost) =
            finish_stream(clients, recorder, era, &req, stream, &mut parser, &mut col).await;
        if closed_early {
            reply.evidence.extend(col.resume_evidence.iter().copied());
            response = col.response.clone();
        }
        sse = Some(info);
        lost = why_lost;
    }
    // Each answer was sent while the stream was read; the server needed it to respond, so
    // it has (almost always) been sent already. Each is bounded by its own timeout.
    for sent in std::mem::take(&mut col.answers) {
        if let Ok(evidence) = sent.await {
            reply.evidence.extend(evidence);
        }
    }
    for m in std::mem::take(&mut col.messages) {
        if m.get("method").is_some() && m.get("id").is_some() {
            reply.server_requests.push(m);
        } else {
            reply.notifications.push(m);
        }
    }
    reply.outcome = outcome_of(
        truncated,
        timed_out,
        response.as_ref(),
        lost.as_ref(),
        &req.method,
    );
    reply.response = response;
    reply.http = Some(HttpInfo {
        status,
        headers,
        content_type,
        body: text,
        sse,
    });
    reply.elapsed = started.elapsed();
    reply
}

/// Sends a request meant to be abandoned (written whole, then closed unread) and records it.
async fn send_abandoned(
    recorder: &Recorder,
    era: Option<Era>,
    req: &HttpRequest,
    pending: crate::telemetry::recorder::Pending,
    deadline: tokio::time::Instant,
    started: Instant,
) -> Reply {
    let why = match tokio::time::timeout_at(deadline, abandon(req)).await {
        Ok(Ok(())) => ABANDONED.to_string(),
        Ok(Err(e)) => format!("could not send the request to abandon: {e}"),
        Err(_) => "timed out sending the request to abandon".to_string(),
    };
    let sent = why == ABANDONED;
    let seq = pending.seq;
    let ex = HttpExchange {
        method: req.method.clone(),
        url: req.url.clone(),
        request_headers: req.headers.clone(),
        request_body: req
            .body
            .as_deref()
            .map(crate::telemetry::recorder::own_body_kept),
        error: Some(why.clone()),
        ..HttpExchange::default()
    };
    recorder.finish(pending, era, ExchangeKind::Http(ex));
    Reply {
        evidence: vec![seq],
        outcome: if sent {
            Outcome::NoResponse
        } else {
            Outcome::TransportError(why)
        },
        response: None,
        notifications: Vec::new(),
        server_requests: Vec::new(),
        http: None,
        elapsed: started.elapsed(),
        refused: false,
    }
}

/// For a padded body: how many bytes were handed to the connection, of how many.
type BodyProgress = (Arc<AtomicUsize>, usize);

/// The request builder for `req`, what the record keeps of its body, and, for a padded
/// body, how much of it the connection took.
fn build_request(
    clients: &HttpClients,
    req: &mut HttpRequest,
) -> (
    reqwest::RequestBuilder,
    Option<String>,
    Option<BodyProgress>,
) {
    let method =
        reqwest::Method::from_bytes(req.method.as_bytes()).unwrap_or(reqwest::Method::POST);
    let mut rb = clients.client.request(method, &req.url);
    for (k, v) in &req.headers {
        rb = rb.header(k, v);
    }
    // The body is handed to the client without a copy, and the record keeps what the
    // recorder would keep of it anyway (a large body costs its size once, not three times).
    let mut body_progress = None;
    let request_body = match (req.body.take(), req.pad) {
        (Some(b), Some(pad)) => {
            let (body, total, kept, handed) = padded(b, pad);
            rb = rb.header(reqwest::header::CONTENT_LENGTH, total).body(body);
            body_progress = Some((handed, total));
            Some(kept)
        }
        (Some(b), None) => {
            let kept = crate::telemetry::recorder::own_body_kept(&b);
            rb = rb.body(b);
            Some(kept)
        }
        (None, _) => None,
    };
    (rb, request_body, body_progress)
}

/// The transport error of a request that got no response headers, saying when the server
/// closed before taking the whole body.
fn send_error(e: &reqwest::Error, body_progress: Option<&BodyProgress>) -> String {
    let msg = error_chain(e);
    let Some((handed, total)) = body_progress else {
        return msg;
    };
    let handed = handed.load(Ordering::SeqCst);
    // Every byte handed to the connection is not every byte taken: a broken pipe happens
    // only while writing, so the server closed before the end.
    if handed < *total || io_error_in(e, std::io::ErrorKind::BrokenPipe) {
        let how = if handed < *total {
            format!("{handed} of {total} bytes written")
        } else {
            format!("the pipe broke while the last of {total} bytes were written")
        };
        return format!("{BODY_NOT_TAKEN} ({how}): {msg}");
    }
    msg
}

/// How the first read of an SSE response ended.
struct StreamEnd {
    end: End,
    /// The request's stream ended (or broke) before its response.
    closed_early: bool,
    started: Instant,
    deadline: tokio::time::Instant,
}

/// Finishes an SSE response: resumes a stream closed before its response (handshake era
/// only), gathers the stream's anomalies, and says whether the response was lost (and
/// whether because the time ran out).
async fn finish_stream(
    clients: &HttpClients,
    recorder: &Recorder,
    era: Option<Era>,
    req: &HttpRequest,
    stream: StreamEnd,
    parser: &mut SseParser,
    col: &mut Collected,
) -> (SseInfo, Option<(String, bool)>) {
    let mut lost: Option<(String, bool)> = None;
    let mut final_end = stream.end;
    if !stream.closed_early {
        let mut notes = Vec::new();
        stream_anomalies(
            parser,
            &final_end,
            col,
            req,
            stream.started.elapsed(),
            &mut notes,
        );
        col.anomalies.extend(notes);
    } else {
        parser.finish();
        col.anomalies.append(&mut parser.anomalies);
        if era == Some(Era::Modern) {
            lost = Some((
                "the server closed the response stream before the response, and 2026-07-28 streams cannot be resumed".into(),
                false,
            ));
        } else {
            match resume::resume(clients, recorder, era, req, stream.deadline, col).await {
                Ok(last_end) => final_end = last_end,
                Err(failure) => lost = Some(failure),
            }
        }
    }
    if let Some((why, true)) = &lost {
        col.anomalies.push(why.clone());
    }
    if col.events_after_response > 0 {
        col.anomalies.push(format!(
            "{} event(s) after the response",
            col.events_after_response
        ));
    }
    let info = SseInfo {
        events: col.events,
        anomalies: col.anomalies.clone(),
        ended: final_end == End::Ended,
        resumed: col.resumed,
        // Ran out of time while resuming: a slow answer (the request's timeout may be
        // shorter than the server's retry), not a lost one.
        lost: lost
            .as_ref()
            .filter(|(_, timed_out)| !timed_out)
            .map(|(why, _)| why.clone()),
        retry_ms: col.retry_ms,
    };
    (info, lost)
}

/// What became of a request whose response headers came.
fn outcome_of(
    truncated: bool,
    timed_out: bool,
    response: Option<&Value>,
    lost: Option<&(String, bool)>,
    method: &str,
) -> Outcome {
    if truncated {
        Outcome::Truncated
    } else if response.is_some_and(|r| r.get("result").is_some() || r.get("error").is_some()) {
        Outcome::Answered
    } else if let Some((why, resume_timed_out)) = lost {
        if *resume_timed_out {
            Outcome::TimedOut
        } else {
            Outcome::TransportError(why.clone())
        }
    } else if timed_out && method != "GET" {
        Outcome::TimedOut
    } else {
        Outcome::NoResponse
    }
}

/// What the SSE streams of one request carried, over the POST and any resumptions.
#[derive(Debug, Default)]
pub(super) struct Collected {
    pub(super) response: Option<Value>,
    /// Notifications and server requests, in order.
    pub(super) messages: Vec<Value>,
    pub(super) events: usize,
    pub(super) events_after_response: usize,
    pub(super) anomalies: Vec<String>,
    /// The last event id seen (the `Last-Event-ID` to resume from).
    pub(super) last_event_id: Option<String>,
    /// The last `retry` field, in milliseconds.
    pub(super) retry_ms: Option<u64>,
    /// Reconnects made.
    pub(super) resumed: usize,
    /// The resumption GETs, in order.
    pub(super) resume_evidence: Vec<crate::report::exchange::Seq>,
    /// Answers the server's requests as they arrive (none: they are only collected).
    pub(super) answer: Option<AnswerHook>,
    /// The answers sent so far.
    pub(super) answers: Vec<AnswerSent>,
    /// Reading ends at the first message (see [`HttpRequest::first_message_only`]).
    pub(super) first_message_only: bool,
    /// Reading ends at this many messages (see [`HttpRequest::end_after`]).
    pub(super) end_after: usize,
    pub(super) first_message: Option<std::sync::Arc<tokio::sync::Notify>>,
}

/// How reading one body ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum End {
    /// The server closed the body.
    Ended,
    /// The request's timeout passed first.
    TimedOut,
    /// The response came and the grace period after it passed with the stream still open.
    Grace,
    /// The body reached the size cap.
    Truncated,
    /// The connection broke mid-body.
    Broken(String),
    /// The stream carried the one message scout wanted of it, and scout stopped reading.
    Enough,
}

/// Response headers, names lower-cased, in order.
pub(super) fn header_list(resp: &reqwest::Response) -> Vec<(String, String)> {
    resp.headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// True for a `text/event-stream` content type (any parameters).
pub(super) fn is_event_stream(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"))
}

/// Reads a body under the cap until it ends, the deadline passes, or (on an SSE stream) the
/// grace period after the response is over. With `sse`, events are parsed as they arrive
/// into the shared [`Collected`]; `expect` is the id whose response ends the wait.
pub(super) async fn read_stream<S>(
    mut stream: S,
    deadline: tokio::time::Instant,
    max_body: usize,
    mut sse: Option<(&mut SseParser, &mut Collected, Option<&Value>)>,
    mut stop: Option<tokio::sync::watch::Receiver<bool>>,
) -> (Vec<u8>, End)
where
    S: futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin,
{
    let mut body: Vec<u8> = Vec::new();
    let mut grace_until: Option<tokio::time::Instant> = None;
    let end = 'read: loop {
        let until = match grace_until {
            Some(g) => g.min(deadline),
            None => deadline,
        };
        let next = tokio::time::timeout_at(until, stream.next());
        let next = match stop.as_mut() {
            // Told to stop (or the sender is gone): like a timeout, scout stopped reading.
            Some(rx) => tokio::select! {
                r = next => r,
                _ = rx.wait_for(|s| *s) => break End::TimedOut,
            },
            None => next.await,
        };
        let chunk = match next {
            Err(_) if grace_until.is_some() => break End::Grace,
            Err(_) => break End::TimedOut,
            Ok(None) => break End::Ended,
            Ok(Some(Err(e))) => break End::Broken(error_chain(&e)),
            Ok(Some(Ok(c))) => c,
        };
        let room = max_body.saturating_sub(body.len());
        let take = room.min(chunk.len());
        body.extend_from_slice(&chunk[..take]);
        if let Some((parser, col, expect)) = sse.as_mut() {
            for ev in parser.feed(&chunk[..take]) {
                col.events += 1;
                if let Some(id) = &ev.id {
                    // An empty id resets the last event id (WHATWG event stream rules).
                    col.last_event_id = (!id.is_empty()).then(|| id.clone());
                }
                if !ev.has_data || ev.data.trim().is_empty() {
                    continue; // priming event
                }
                match serde_json::from_str::<Value>(&ev.data) {
                    Ok(v) => {
                        if col.response.is_some() {
                            col.events_after_response += 1;
                        }
                        if is_response_to(&v, *expect) && col.response.is_none() {
                            col.response = Some(v);
                            grace_until = Some(tokio::time::Instant::now() + SSE_GRACE);
                        } else {
                            if let Some(hook) = &col.answer
                                && super::answer::is_server_request(&v)
                                && col.answers.len() < super::answer::ANSWERS_PER_STREAM
                            {
                                col.answers.push((hook.0)(v.clone()));
                            }
                            col.messages.push(v);
                            if col.messages.len() == 1
                                && let Some(first) = &col.first_message
                            {
                                first.notify_one();
                            }
                            if col.first_message_only
                                || (col.end_after > 0 && col.messages.len() >= col.end_after)
                            {
                                break 'read End::Enough;
                            }
                        }
                    }
                    Err(_) => parser.note(format!("event data is not JSON: {:.120}", ev.data)),
                }
            }
            if let Some(ms) = parser.retry_ms {
                col.retry_ms = Some(ms);
            }
        }
        if take < chunk.len() {
            break End::Truncated;
        }
    };
    (body, end)
}

/// The notes on how one stream ended (a stream that ended early and was resumed gets none).
pub(super) fn stream_anomalies(
    parser: &mut SseParser,
    end: &End,
    col: &Collected,
    req: &HttpRequest,
    listened: Duration,
    out: &mut Vec<String>,
) {
    match end {
        End::Ended => parser.finish(),
        End::Truncated | End::Enough => {}
        _ if req.expect_id.is_none() => {
            // A GET stream or a notification: staying open is what such a stream does.
            parser.anomalies.push(format!(
                "the stream was still open when scout stopped reading after {} ms",
                listened.as_millis()
            ));
        }
        _ if col.response.is_some() => parser.anomalies.push(format!(
            "the stream stayed open after the response (scout stopped reading after {} ms)",
            SSE_GRACE.as_millis()
        )),
        _ => parser
            .anomalies
            .push("stream never ended: no response before the timeout".to_string()),
    }
    out.append(&mut parser.anomalies);
}

/// True when `v` is a JSON-RPC response to `id` (any response when `id` is None).
fn is_response_to(v: &Value, id: Option<&Value>) -> bool {
    let is_resp =
        v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some());
    is_resp && id.is_none_or(|id| v.get("id") == Some(id) || v.get("id") == Some(&Value::Null))
}

/// True when the operating system refused the TCP connection: nothing listens on the
/// port. reqwest wraps the connector's `io::Error` a few sources down; its kind says it,
/// whatever the platform's wording.
pub fn connection_refused(e: &(dyn std::error::Error + 'static)) -> bool {
    io_error_in(e, std::io::ErrorKind::ConnectionRefused)
}

/// True when an `io::Error` of `kind` is among the error's sources.
fn io_error_in(e: &(dyn std::error::Error + 'static), kind: std::io::ErrorKind) -> bool {
    let mut cur = Some(e);
    while let Some(c) = cur {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == kind)
        {
            return true;
        }
        cur = c.source();
    }
    false
}

/// An error with its sources, on one line.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let cs = c.to_string();
        if !s.contains(&cs) {
            s.push_str(": ");
            s.push_str(&cs);
        }
        cur = c.source();
    }
    s
}

/// Mutable per-wire HTTP state: the session id, and the standalone GET stream the wire
/// keeps open for the server's requests (told to stop when the wire closes).
#[derive(Debug, Default)]
pub struct HttpState {
    pub session: Mutex<Option<String>>,
    pub listening: Mutex<Option<tokio::sync::watch::Sender<bool>>>,
}

/// One Streamable HTTP wire: a URL and a session (legacy era) over the shared client.
#[derive(Debug, Clone)]
pub struct HttpWire {
    pub clients: Arc<HttpClients>,
    pub url: String,
    pub state: Arc<HttpState>,
}

impl HttpWire {
    /// A wire without a session.
    pub fn new(clients: Arc<HttpClients>, url: String) -> Self {
        HttpWire {
            clients,
            url,
            state: Arc::new(HttpState::default()),
        }
    }

    /// The current `Mcp-Session-Id`.
    pub fn session(&self) -> Option<String> {
        self.state
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sets (or clears) the session id.
    pub fn set_session(&self, s: Option<String>) {
        *self.state.session.lock().unwrap_or_else(|e| e.into_inner()) = s;
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;
    use crate::transport::limiter::RateLimiter;

    #[tokio::test]
    async fn an_abandoned_request_is_written_whole_and_its_connection_closed_unread() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/mcp?x=1", listener.local_addr().expect("addr"));
        // The server reads everything the client sends until it closes its side; it never
        // gets to answer.
        let server = tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.expect("accept");
            let mut got = Vec::new();
            tcp.read_to_end(&mut got).await.expect("read");
            String::from_utf8(got).expect("utf-8")
        });
        let clients =
            HttpClients::new(Vec::new(), "trace".into(), RateLimiter::new(None)).expect("clients");
        let recorder = Recorder::new();
        let body = r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#;
        let reply = exchange(
            &clients,
            &recorder,
            None,
            HttpRequest {
                method: "POST".into(),
                url,
                headers: vec![
                    ("Mcp-Session-Id".into(), "s-1".into()),
                    ("X-Bad".into(), "a\r\nInjected: yes".into()),
                ],
                body: Some(body.into()),
                expect_id: Some(serde_json::json!("a")),
                timeout: Duration::from_secs(5),
                max_body: 1 << 20,
                stop: None,
                pad: None,
                abandon: true,
                answer: None,
                first_message_only: false,
                opened: None,
                end_after: 0,
                first_message: None,
            },
        )
        .await;
        let seen = tokio::time::timeout(Duration::from_secs(5), server)
            .await
            .expect("the connection was closed")
            .expect("server task");
        assert!(seen.starts_with("POST /mcp?x=1 HTTP/1.1\r\n"), "{seen}");
        assert!(seen.contains("\r\nMcp-Session-Id: s-1\r\n"), "{seen}");
        assert!(
            seen.contains(&format!("\r\nContent-Length: {}\r\n", body.len())),
            "{seen}"
        );
        assert!(!seen.contains("Injected"), "{seen}");
        assert!(seen.ends_with(&format!("\r\n\r\n{body}")), "{seen}");
        assert_eq!(reply.outcome, Outcome::NoResponse);
        assert!(reply.http.is_none());
        assert_eq!(reply.evidence.len(), 1);
        let kept = recorder.take();
        let ExchangeKind::Http(ex) = &kept[0].kind else {
            panic!("an HTTP exchange")
        };
        assert_eq!(ex.error.as_deref(), Some(ABANDONED));
        assert_eq!(ex.status, None);
    }

    #[tokio::test]
    async fn an_abandoned_https_request_starts_a_tls_handshake_of_its_own() {
        // Previously https:// had no connection of its own: scout waited 1 ms, which only a
        // loopback server can beat. Now the request goes out on a TLS connection scout
        // opens itself: the listener sees a TLS ClientHello (record type 22, version 3.x),
        // and a peer that is no TLS server is a clear error, not a hang or an abandon.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!(
            "https://localhost:{}/mcp",
            listener.local_addr().expect("addr").port()
        );
        let server = tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.expect("accept");
            let mut hello = [0u8; 3];
            tcp.read_exact(&mut hello).await.expect("read");
            hello
        });
        let req = HttpRequest {
            method: "POST".into(),
            url,
            headers: Vec::new(),
            body: Some("{}".into()),
            expect_id: None,
            timeout: Duration::from_secs(5),
            max_body: 1 << 20,
            stop: None,
            pad: None,
            abandon: true,
            answer: None,
            first_message_only: false,
            opened: None,
            end_after: 0,
            first_message: None,
        };
        let outcome = tokio::time::timeout(Duration::from_secs(5), abandon(&req))
            .await
            .expect("no hang");
        assert!(outcome.is_err(), "not a TLS server: {outcome:?}");
        let hello = server.await.expect("server task");
        assert_eq!(hello[0], 22, "a TLS handshake record: {hello:?}");
        assert_eq!(hello[1], 3, "{hello:?}");
    }

    #[tokio::test]
    async fn a_refused_connection_is_known_by_its_kind_and_other_failures_are_not() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            l.local_addr().expect("addr").port()
        };
        let e = reqwest::Client::new()
            .get(format!("http://127.0.0.1:{port}/mcp"))
            .send()
            .await
            .expect_err("nothing listens");
        assert!(connection_refused(&e), "{}", error_chain(&e));
        // A reset connection, or a message that merely says "connection refused", is not.
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "connection refused");
        assert!(!connection_refused(&reset));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            if let Ok((sock, _)) = listener.accept().await {
                drop(sock);
            }
        });
        let e = reqwest::Client::new()
            .get(format!("http://{addr}/mcp"))
            .send()
            .await
            .expect_err("the connection is closed unanswered");
        assert!(!connection_refused(&e), "{}", error_chain(&e));
    }
}
