//! The HTTP client of the auth code: metadata documents, token requests and the auth probes
//! of the MCP endpoint. It carries no credential of its own (only what a request adds
//! explicitly), follows no redirects (metadata and token endpoints answer where they are
//! published, and a redirect is a URL the server names), and records every exchange, so a
//! finding can cite it and the redactor masks what it carried.
//!
//! Requests to the MCP server's own origin go out as configured, with `X-MCP-Trace-ID`. A URL
//! on any other origin was named by the server (a challenge, a metadata document): it is sent
//! only where [`Reach`] allows, on a client whose DNS resolver drops every address it may not
//! reach, and without the trace id; what it answers is kept only when it is JSON.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;

use crate::auth::reach::{Guarded, Reach, Route, refusal_in};
use crate::report::exchange::{ExchangeKind, HttpExchange, Seq};
use crate::telemetry::Recorder;
use crate::transport::limiter::RateLimiter;

/// How the outcome of a request scout refused to make begins ("not fetched: 10.0.0.1 is a
/// private-network address, …"), in findings and in the recorded exchange.
pub const NOT_FETCHED: &str = "not fetched: ";

/// What one request got back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fetched {
    /// The recorded exchange (cite it).
    pub seq: Seq,
    /// None when no response arrived.
    pub status: Option<u16>,
    /// Response headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    pub content_type: Option<String>,
    /// The body as text, up to the cap.
    pub body: String,
    /// Why there is no (complete) response.
    pub error: Option<String>,
    /// Why scout did not send the request (a server-named URL it may not reach), when so.
    pub refused: Option<String>,
}

impl Fetched {
    /// The first value of a response header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a response header.
    pub fn headers_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as a JSON object, when it is one.
    pub fn json_object(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        match serde_json::from_str::<serde_json::Value>(&self.body) {
            Ok(serde_json::Value::Object(m)) => Some(m),
            _ => None,
        }
    }

    /// True when the content type is JSON (`application/json` or `+json`).
    pub fn is_json_type(&self) -> bool {
        self.content_type.as_deref().is_some_and(|c| {
            let c = c
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            c == "application/json" || c.ends_with("+json")
        })
    }

    /// "HTTP 404", "no answer (timed out)", "not fetched: …".
    pub fn describe(&self) -> String {
        if let Some(why) = &self.refused {
            return format!("{NOT_FETCHED}{why}");
        }
        match (self.status, &self.error) {
            (Some(s), _) => format!("HTTP {s}"),
            (None, Some(e)) => format!("no answer ({e})"),
            (None, None) => "no answer".into(),
        }
    }
}

/// Why an oauth2 request did not reach the server (for the oauth2 crate's error type).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TransportError(pub String);

/// A recorded, credential-free HTTP client.
#[derive(Debug, Clone)]
pub struct AuthHttp {
    /// For the MCP server's own origin.
    client: reqwest::Client,
    /// For URLs the server names on other origins: its resolver is [`Guarded`].
    named: reqwest::Client,
    reach: Arc<Reach>,
    recorder: Recorder,
    trace_id: String,
    timeout: Duration,
    /// How much of an answer of the MCP endpoint is read.
    max_body: usize,
    /// How much of any other answer (metadata, token endpoints) is read: those documents are
    /// a few KiB, and a server must not fill the reports through a URL it names.
    max_document: usize,
    /// The sequence numbers of the requests made through [`AuthHttp::oauth2`].
    oauth2_seqs: Arc<Mutex<Vec<Seq>>>,
    /// The run's rate limiter for this host (`--rps`): metadata, token and probe requests
    /// count against the same budget as every other request of the run.
    limiter: Option<RateLimiter>,
}

impl AuthHttp {
    /// A client for the MCP server at `mcp_url` whose every request is recorded in
    /// `recorder`; requests to the server's own origin carry `X-MCP-Trace-ID`.
    /// `treat_as_remote`: server-named URLs may reach public addresses only, whatever
    /// address the server is on.
    pub fn new(
        recorder: Recorder,
        trace_id: &str,
        timeout: Duration,
        mcp_url: &str,
        treat_as_remote: bool,
    ) -> Result<Self, String> {
        let reach = Reach::new(mcp_url, treat_as_remote);
        let build = |b: reqwest::ClientBuilder| {
            b.redirect(reqwest::redirect::Policy::none())
                .connect_timeout(Duration::from_secs(10))
                .build()
                .map_err(|e| format!("cannot build the HTTP client: {e}"))
        };
        let client = build(crate::transport::tls::with_extra_roots(
            reqwest::Client::builder(),
        ))?;
        // No proxy: through one, the proxy would connect to an address scout never checked.
        let named = build(
            crate::transport::tls::with_extra_roots(reqwest::Client::builder())
                .no_proxy()
                .dns_resolver(Arc::new(Guarded(reach.clone()))),
        )?;
        Ok(AuthHttp {
            client,
            named,
            reach,
            recorder,
            trace_id: trace_id.to_string(),
            timeout,
            max_body: 1024 * 1024,
            max_document: 64 * 1024,
            oauth2_seqs: Arc::new(Mutex::new(Vec::new())),
            limiter: None,
        })
    }

    /// The same client, waiting for `limiter` before every request.
    pub fn with_limiter(mut self, limiter: RateLimiter) -> Self {
        self.limiter = Some(limiter);
        self
    }

    /// The recorder (its redactor is where secrets are registered).
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// Registers a secret with the run's redactor: from now on it is masked everywhere.
    pub fn secret(&self, value: &str) {
        self.recorder.redactor().register(value);
    }

    /// Sends one request and records it.
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: Vec<(String, String)>,
        body: Option<Vec<u8>>,
    ) -> Fetched {
        if let Some(l) = &self.limiter {
            l.wait().await;
        }
        let route = self.reach.judge(url).await;
        let pending = self.recorder.begin();
        let seq = pending.seq;
        // The trace id names this run to the MCP server; nobody else needs it.
        let mut all = Vec::new();
        if route == Route::Own {
            all.push(("X-MCP-Trace-ID".to_string(), self.trace_id.clone()));
        }
        all.extend(headers);
        let mut ex = HttpExchange {
            method: method.to_string(),
            url: url.to_string(),
            request_headers: all.clone(),
            request_body: body
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            ..HttpExchange::default()
        };
        let mut out = Fetched {
            seq,
            ..Fetched::default()
        };
        let client = match &route {
            Route::Own => &self.client,
            Route::Named => &self.named,
            Route::Refused(why) => {
                ex.error = Some(format!("{NOT_FETCHED}{why}"));
                out.refused = Some(why.clone());
                out.error = ex.error.clone();
                self.recorder.finish(pending, None, ExchangeKind::Http(ex));
                return out;
            }
        };
        let verb = reqwest::Method::from_bytes(method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let mut rb = client.request(verb, url).timeout(self.timeout);
        for (k, v) in &all {
            rb = rb.header(k, v);
        }
        if let Some(b) = body {
            rb = rb.body(b);
        }
        match rb.send().await {
            Err(e) => {
                if let Some(r) = refusal_in(&e) {
                    out.refused = Some(r.to_string());
                    ex.error = Some(format!("{NOT_FETCHED}{r}"));
                    out.error = ex.error.clone();
                    self.recorder.finish(pending, None, ExchangeKind::Http(ex));
                    return out;
                }
                let msg = if e.is_timeout() {
                    "timed out".to_string()
                } else {
                    crate::transport::http::error_chain(&e)
                };
                // The URL may carry a probe token: the redactor masks the registered value.
                ex.error = Some(msg.clone());
                out.error = Some(msg);
            }
            Ok(resp) => {
                out.status = Some(resp.status().as_u16());
                out.headers = resp
                    .headers()
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().to_ascii_lowercase(),
                            String::from_utf8_lossy(v.as_bytes()).into_owned(),
                        )
                    })
                    .collect();
                out.content_type = out.header("content-type").map(str::to_string);
                let max = if self.is_endpoint(url) {
                    self.max_body
                } else {
                    self.max_document
                };
                let mut body: Vec<u8> = Vec::new();
                let mut stream = resp.bytes_stream();
                while let Some(chunk) = stream.next().await {
                    match chunk {
                        Ok(c) => {
                            let room = max.saturating_sub(body.len());
                            body.extend_from_slice(&c[..room.min(c.len())]);
                            if room < c.len() {
                                ex.truncated = true;
                                out.error = Some(format!("body cut at {} KiB", max / 1024));
                                break;
                            }
                        }
                        Err(e) => {
                            out.error = Some(crate::transport::http::error_chain(&e));
                            break;
                        }
                    }
                }
                out.body = String::from_utf8_lossy(&body).into_owned();
                if !self.keeps_body(url, &out.body) {
                    out.body = format!(
                        "[not kept: {} bytes of {}, not a JSON document]",
                        body.len(),
                        out.content_type.as_deref().unwrap_or("no content type")
                    );
                }
                ex.status = out.status;
                ex.response_headers = out.headers.clone();
                ex.response_body = Some(out.body.clone());
                ex.error = out.error.clone();
            }
        }
        self.recorder.finish(pending, None, ExchangeKind::Http(ex));
        out
    }

    /// True when the answer to a request to `url` is kept (in the report and for the caller):
    /// always from the MCP endpoint, whose answers are the evidence of the auth probes;
    /// from anywhere else (metadata, token endpoints) only when it is JSON, the only form
    /// scout reads there, so an HTML page or a large blob never reaches an artifact.
    fn keeps_body(&self, url: &str, body: &str) -> bool {
        self.is_endpoint(url)
            || body.is_empty()
            || serde_json::from_str::<serde::de::IgnoredAny>(body).is_ok()
    }

    /// True when `url` is the MCP endpoint itself (its query aside).
    fn is_endpoint(&self, url: &str) -> bool {
        url::Url::parse(url).is_ok_and(|u| self.reach.is_endpoint(&u))
    }

    /// `GET url` asking for JSON.
    pub async fn get_json(&self, url: &str) -> Fetched {
        self.send(
            "GET",
            url,
            vec![("Accept".into(), "application/json".into())],
            None,
        )
        .await
    }

    /// `POST url` with a JSON body.
    pub async fn post_json(&self, url: &str, body: &serde_json::Value) -> Fetched {
        self.send(
            "POST",
            url,
            vec![
                ("Accept".into(), "application/json".into()),
                ("Content-Type".into(), "application/json".into()),
            ],
            Some(body.to_string().into_bytes()),
        )
        .await
    }

    /// Takes the sequence numbers of the requests the oauth2 adapter made so far.
    pub fn take_oauth2_seqs(&self) -> Vec<Seq> {
        std::mem::take(&mut *self.oauth2_seqs.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// This client as the oauth2 crate's async HTTP client: every token request is recorded.
    pub fn oauth2(
        &self,
    ) -> impl Fn(
        oauth2::HttpRequest,
    ) -> Pin<
        Box<dyn Future<Output = Result<oauth2::HttpResponse, TransportError>> + Send>,
    > + '_ {
        move |req: oauth2::HttpRequest| {
            let this = self.clone();
            Box::pin(async move {
                let method = req.method().as_str().to_string();
                let url = req.uri().to_string();
                let headers: Vec<(String, String)> = req
                    .headers()
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().to_string(),
                            String::from_utf8_lossy(v.as_bytes()).into_owned(),
                        )
                    })
                    .collect();
                let body = req.into_body();
                let got = this
                    .send(&method, &url, headers, (!body.is_empty()).then_some(body))
                    .await;
                this.oauth2_seqs
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(got.seq);
                let Some(status) = got.status else {
                    // The oauth2 crate's message does not name the endpoint: a refusal does.
                    let why = match &got.refused {
                        Some(why) => format!("{NOT_FETCHED}{url}: {why}"),
                        None => got.describe(),
                    };
                    return Err(TransportError(why));
                };
                let mut builder = oauth2::http::Response::builder().status(status);
                for (k, v) in &got.headers {
                    builder = builder.header(k.as_str(), v.as_str());
                }
                builder
                    .body(got.body.into_bytes())
                    .map_err(|e| TransportError(e.to_string()))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    }

    /// A listener nobody may reach: after the request, a connection would wait in its
    /// backlog, so a non-blocking accept that finds none proves none was made.
    fn untouched(l: &TcpListener) -> bool {
        l.set_nonblocking(true).expect("non-blocking");
        matches!(l.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
    }

    #[test]
    fn a_name_resolving_to_loopback_is_refused_at_connect_time_for_a_remote_server() {
        // `send` judges `localhost` as loopback before any lookup; the guarded client is
        // called directly here so that its resolver refuses it, as it does any name whose
        // addresses are all refused (DNS rebinding included: the check is at connect time).
        let canary = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = canary.local_addr().expect("addr").port();
        let http = AuthHttp::new(
            Recorder::new(),
            "trace",
            Duration::from_secs(5),
            "http://127.0.0.3:1/mcp",
            true,
        )
        .expect("client");
        rt().block_on(async {
            let err = http
                .named
                .get(format!("https://localhost:{port}/x"))
                .send()
                .await
                .expect_err("refused");
            let r = refusal_in(&err).expect("the refusal is in the error chain");
            assert!(
                r.to_string().contains("127.0.0.1 is a loopback address"),
                "{r}"
            );
            let got = http.get_json(&format!("https://localhost:{port}/x")).await;
            assert!(got.refused.is_some() && got.status.is_none(), "{got:?}");
            assert!(
                got.describe().starts_with(NOT_FETCHED),
                "{}",
                got.describe()
            );
        });
        assert!(untouched(&canary));
    }

    #[test]
    fn an_ip_literal_of_another_loopback_address_is_refused_and_recorded_as_not_fetched() {
        let canary = TcpListener::bind("127.0.0.2:0").expect("bind 127.0.0.2");
        let port = canary.local_addr().expect("addr").port();
        let recorder = Recorder::new();
        let http = AuthHttp::new(
            recorder.clone(),
            "trace",
            Duration::from_secs(5),
            "http://127.0.0.1:1/mcp",
            true,
        )
        .expect("client");
        let url = format!("http://127.0.0.2:{port}/.well-known/oauth-protected-resource");
        let got = rt().block_on(http.get_json(&url));
        let why = got.refused.clone().expect("refused");
        assert!(why.contains("127.0.0.2 is a loopback address"), "{why}");
        assert!(untouched(&canary));
        let recorded = recorder.snapshot();
        let ExchangeKind::Http(ex) = &recorded[0].kind else {
            panic!("an HTTP exchange");
        };
        assert_eq!(ex.url, url);
        assert!(ex.status.is_none() && ex.response_body.is_none());
        assert!(
            ex.error
                .as_deref()
                .is_some_and(|e| e.starts_with(NOT_FETCHED))
        );
        assert!(
            !ex.request_headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("x-mcp-trace-id")),
            "the trace id is for the MCP server only"
        );
    }

    /// Answers each of `n` connections with `body` as text/html.
    fn html_server(n: usize, body: String) -> u16 {
        use std::io::{BufRead, BufReader, Write};
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = l.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            for conn in l.incoming().take(n) {
                let Ok(mut conn) = conn else { continue };
                let mut reader = BufReader::new(conn.try_clone().expect("clone"));
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = conn.write_all(head.as_bytes());
                let _ = conn.write_all(body.as_bytes());
            }
        });
        port
    }

    #[test]
    fn only_json_is_kept_from_anything_but_the_mcp_endpoint() {
        let page = format!("<html>{}</html>", "x".repeat(100 * 1024));
        let port = html_server(2, page.clone());
        let recorder = Recorder::new();
        let home = format!("http://127.0.0.1:{port}/mcp");
        let http = AuthHttp::new(recorder.clone(), "t", Duration::from_secs(5), &home, false)
            .expect("client");
        let rt = rt();
        let doc = rt.block_on(http.get_json(&format!("http://127.0.0.1:{port}/.well-known/x")));
        assert_eq!(doc.status, Some(200));
        assert!(
            doc.body.starts_with("[not kept: 65536 bytes of text/html"),
            "{}",
            doc.body
        );
        let endpoint = rt.block_on(http.get_json(&home));
        assert_eq!(
            endpoint.body, page,
            "the MCP endpoint's answer is evidence: kept whole"
        );
        let recorded = recorder.snapshot();
        let ExchangeKind::Http(first) = &recorded[0].kind else {
            panic!("an HTTP exchange");
        };
        assert!(first.truncated);
        assert!(
            first
                .response_body
                .as_deref()
                .is_some_and(|b| b.len() < 100 && !b.contains("<html>"))
        );
    }
}
