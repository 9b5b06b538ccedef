//! `scout auth login`: the authorization code flow with PKCE (S256) and a loopback redirect,
//! for people at a desk. Discovery follows the spec's order (401 challenge → Protected
//! Resource Metadata → authorization server metadata); the client is the pre-registered one
//! given with `--client-id`, else one registered dynamically (RFC 7591). The browser comes
//! back to `http://127.0.0.1:PORT/callback`; `state` and, where the server sends it, `iss`
//! (RFC 9207) are checked before the code is exchanged.

use std::time::Duration;

use oauth2::{CsrfToken, PkceCodeChallenge};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::auth::http::AuthHttp;
use crate::auth::metadata::{self, Document, canonical, is_loopback};
use crate::auth::store::{StoredToken, now};
use crate::auth::token::AuthMethod;
use crate::auth::token::{self, Client};
use crate::auth::{binding, challenge};

/// What the person asked for.
#[derive(Debug, Clone)]
pub struct LoginRequest {
    pub server_url: String,
    /// A client registered with the authorization server beforehand.
    pub client_id: Option<String>,
    /// Its secret, for a confidential pre-registered client (never printed).
    pub client_secret: Option<String>,
    /// Scope to ask for (default: the challenge's, else the server's `scopes_supported`).
    pub scope: Option<String>,
    /// Loopback port for the redirect (0: any free port).
    pub port: u16,
    /// How long to wait for the browser to come back.
    pub wait: Duration,
    /// A challenge the server already sent in the middle of a conversation (a 401, or 403
    /// `insufficient_scope`): discovery starts from it instead of from a request without
    /// credentials, which such a server may well serve.
    pub seen: Option<challenge::Seen>,
}

/// Why the login did not produce a token: one line for the person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LoginError(pub String);

fn err(s: impl Into<String>) -> LoginError {
    LoginError(s.into())
}

/// What discovery found for a protected server.
struct Found {
    resource: String,
    challenge_scope: Option<String>,
    /// None for a 2025-03-26 server, which publishes none.
    prm: Option<Document>,
    server: Document,
}

/// The label of the endpoints a 2025-03-26 server without metadata has by default.
const LEGACY_DEFAULTS: &str = "the 2025-03-26 default endpoints";

/// A server of the 2025-03-26 revision, which has no Protected Resource Metadata: its
/// authorization server is at the origin of the MCP URL (path discarded), described by RFC
/// 8414 metadata there, or else by the default endpoints `/authorize`, `/token` and
/// `/register` at that origin. None when the URL has no origin.
async fn legacy_server(http: &AuthHttp, url: &str) -> Option<(String, Document)> {
    let origin = url::Url::parse(url).ok()?.origin().ascii_serialization();
    if origin == "null" {
        return None;
    }
    let candidates = vec![(
        "RFC 8414 at the server's origin (2025-03-26)",
        format!("{origin}/.well-known/oauth-authorization-server"),
    )];
    let asd = metadata::discover(http, candidates).await;
    if let Some(doc) = asd.found {
        return Some((origin, doc));
    }
    let fields = json!({
        "issuer": origin,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "registration_endpoint": format!("{origin}/register"),
    });
    let seq = asd.attempts.last().map_or(0, |a| a.seq);
    Some((
        origin.clone(),
        Document {
            url: origin,
            label: LEGACY_DEFAULTS,
            seq,
            fields: fields.as_object().cloned().unwrap_or_default(),
            content_type: None,
            json_type: false,
        },
    ))
}

async fn discover(
    http: &AuthHttp,
    url: &str,
    seen: Option<&challenge::Seen>,
) -> Result<Found, LoginError> {
    let seen = match seen {
        Some(s) => s.clone(),
        None => {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "scout", "version": env!("CARGO_PKG_VERSION")}}});
            let first = http.post_json(url, &body).await;
            if first.status != Some(401) {
                return Err(err(format!(
                    "{url} answered a request without credentials with {}: it does not ask for OAuth, so there is nothing to log in to (a server that asks only on later requests: `scout connect --login` logs in when it does)",
                    first.describe()
                )));
            }
            challenge::bearer(first.headers_named("www-authenticate"))
                .as_ref()
                .map(challenge::Seen::of)
                .unwrap_or_default()
        }
    };
    let header_url = seen.resource_metadata.clone();
    let prm = metadata::discover(
        http,
        metadata::resource_metadata_urls(url, header_url.as_deref()),
    )
    .await;
    let tried = prm.tried();
    let (prm, resource, issuer, server) = match prm.found {
        Some(prm) => {
            // Metadata for another resource names nothing scout may use (RFC 9728 §3.3):
            // refused before the authorization server is even asked.
            let resource = binding::check_resource(url, &prm).map_err(|r| err(r.message()))?;
            let issuer = prm
                .strings("authorization_servers")
                .and_then(|v| v.into_iter().next())
                .ok_or_else(|| {
                    err(format!(
                        "the protected resource metadata at {} names no authorization server",
                        prm.url
                    ))
                })?;
            let asd = metadata::discover(http, metadata::authorization_server_urls(&issuer)).await;
            let tried = asd.tried();
            let server = asd.found.ok_or_else(|| {
                err(format!(
                    "the authorization server {issuer} publishes no metadata (tried {tried})"
                ))
            })?;
            (Some(prm), resource, issuer, server)
        }
        None => {
            let (issuer, server) = legacy_server(http, url).await.ok_or_else(|| {
                err(format!(
                    "{url} publishes no protected resource metadata (tried {tried}); scout cannot find its authorization server"
                ))
            })?;
            let resource = canonical(url).unwrap_or_else(|| url.to_string());
            (None, resource, issuer, server)
        }
    };
    if server.str("issuer") != Some(issuer.as_str()) {
        return Err(err(format!(
            "the metadata at {} says issuer {:?}, not {issuer}: the spec says to discard it",
            server.url,
            server.str("issuer").unwrap_or("(none)")
        )));
    }
    let methods = server
        .strings("code_challenge_methods_supported")
        .unwrap_or_default();
    // The 2025-03-26 default endpoints come with no metadata to advertise PKCE; scout uses
    // S256 there all the same, as that revision required of every client.
    if server.label != LEGACY_DEFAULTS && !methods.iter().any(|m| m == "S256") {
        return Err(err(format!(
            "the authorization server {issuer} does not advertise PKCE S256 (code_challenge_methods_supported: {methods:?}); the spec says clients must refuse to proceed"
        )));
    }
    for key in ["authorization_endpoint", "token_endpoint"] {
        let Some(e) = server.str(key) else {
            return Err(err(format!(
                "the authorization server {issuer} has no {key}"
            )));
        };
        if !is_loopback(e) && !e.starts_with("https://") {
            return Err(err(format!(
                "the {key} {e} is not HTTPS; the spec requires HTTPS for every authorization server endpoint"
            )));
        }
    }
    Ok(Found {
        resource,
        challenge_scope: seen.scope.clone(),
        prm,
        server,
    })
}

/// A client registered dynamically: what the authorization server issued, kept as issued
/// (RFC 7591 §3.2.1): the secret, when there is one, and the way to authenticate with it.
struct Registered {
    client_id: String,
    client_secret: Option<String>,
    method: AuthMethod,
}

/// Registers a client for the loopback redirect (RFC 7591), asking to be a public one; the
/// authorization server decides, and scout authenticates as it registered the client.
async fn register(
    http: &AuthHttp,
    endpoint: &str,
    redirect: &str,
    supported: Option<&[String]>,
) -> Result<Registered, LoginError> {
    let body = json!({
        "client_name": "scout",
        "redirect_uris": [redirect],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    });
    let got = http.post_json(endpoint, &body).await;
    let fields = got.json_object().unwrap_or_default();
    match (got.status, fields.get("client_id").and_then(Value::as_str)) {
        (Some(200 | 201), Some(id)) => {
            let secret = fields
                .get("client_secret")
                .and_then(Value::as_str)
                .map(str::to_string);
            if let Some(s) = &secret {
                http.secret(s);
            }
            let registered = fields
                .get("token_endpoint_auth_method")
                .and_then(Value::as_str);
            let method = match registered.and_then(AuthMethod::parse) {
                Some(m) => m,
                None if registered.is_some() => {
                    return Err(err(format!(
                        "dynamic client registration at {endpoint} registered the client for token_endpoint_auth_method `{}`, which scout does not speak (it speaks none, client_secret_basic, client_secret_post, private_key_jwt)",
                        registered.unwrap_or_default()
                    )));
                }
                None => AuthMethod::choose(supported, secret.is_some(), false),
            };
            Ok(Registered {
                client_id: id.to_string(),
                client_secret: secret,
                method,
            })
        }
        _ => Err(err(format!(
            "dynamic client registration at {endpoint} failed ({}{}); register a client with the server's operator and pass --client-id",
            got.describe(),
            fields
                .get("error")
                .and_then(Value::as_str)
                .map(|e| format!(", {e}"))
                .unwrap_or_default()
        ))),
    }
}

/// Runs the whole flow. `show` is called once with the URL the person must open.
pub async fn login(
    http: &AuthHttp,
    req: &LoginRequest,
    show: impl FnOnce(&str),
) -> Result<StoredToken, LoginError> {
    let found = discover(http, &req.server_url, req.seen.as_ref()).await?;
    let issuer = found.server.str("issuer").unwrap_or_default().to_string();
    let listener = TcpListener::bind(("127.0.0.1", req.port))
        .await
        .map_err(|e| {
            err(format!(
                "cannot listen on 127.0.0.1:{} for the redirect: {e}",
                req.port
            ))
        })?;
    let port = listener
        .local_addr()
        .map_err(|e| err(e.to_string()))?
        .port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let supported = found
        .server
        .strings("token_endpoint_auth_methods_supported");
    let client = match &req.client_id {
        Some(id) => Registered {
            client_id: id.clone(),
            client_secret: req.client_secret.clone(),
            method: AuthMethod::choose(supported.as_deref(), req.client_secret.is_some(), false),
        },
        None => match found.server.str("registration_endpoint") {
            Some(ep) => register(http, ep, &redirect, supported.as_deref()).await?,
            None => {
                return Err(err(format!(
                    "the authorization server {issuer} offers no dynamic client registration; register a client with its operator (redirect URI http://127.0.0.1:PORT/callback) and pass --client-id ID --port PORT"
                )));
            }
        },
    };
    let client_id = client.client_id.clone();
    let scope = req
        .scope
        .clone()
        .or(found.challenge_scope.clone())
        .or_else(|| {
            found
                .prm
                .as_ref()
                .and_then(|p| p.strings("scopes_supported"))
                .map(|s| s.join(" "))
                .filter(|s| !s.is_empty())
        });
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    http.secret(verifier.secret());
    let state = CsrfToken::new_random().secret().to_string();
    let authorize = found
        .server
        .str("authorization_endpoint")
        .unwrap_or_default();
    let mut url = url::Url::parse(authorize).map_err(|e| {
        err(format!(
            "the authorization endpoint {authorize} is not a URL: {e}"
        ))
    })?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", &client_id)
            .append_pair("redirect_uri", &redirect)
            .append_pair("code_challenge", challenge.as_str())
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", &found.resource);
        if let Some(s) = &scope {
            q.append_pair("scope", s);
        }
    }
    show(url.as_str());
    let params = tokio::time::timeout(req.wait, callback(&listener))
        .await
        .map_err(|_| {
            err(format!(
                "the browser did not come back to {redirect} within {} s",
                req.wait.as_secs()
            ))
        })?;
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    if let Some(code) = get("code") {
        http.secret(&code);
    }
    // RFC 9207: a present `iss` must be the recorded issuer; an advertised one must be present.
    let advertised = found
        .server
        .fields
        .get("authorization_response_iss_parameter_supported")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    match get("iss") {
        Some(iss) if iss != issuer => {
            return Err(err(format!(
                "the authorization response came from issuer {iss}, not {issuer}: refused (RFC 9207)"
            )));
        }
        None if advertised => {
            return Err(err(
                "the authorization response has no `iss` although the server advertises it: refused (RFC 9207)",
            ));
        }
        _ => {}
    }
    if get("state").as_deref() != Some(state.as_str()) {
        return Err(err(
            "the authorization response's state does not match the request: refused",
        ));
    }
    if let Some(e) = get("error") {
        return Err(err(format!(
            "the authorization server refused: {e}{}",
            get("error_description")
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        )));
    }
    let code = get("code").ok_or_else(|| err("the authorization response has no code"))?;
    let token_endpoint = found.server.str("token_endpoint").unwrap_or_default();
    let got = token::authorization_code(
        http,
        Client {
            token_endpoint,
            client_id: &client_id,
            client_secret: client.client_secret.as_deref(),
        }
        .with_method(client.method),
        &code,
        verifier.secret(),
        &redirect,
        &found.resource,
    )
    .await
    .map_err(|e| err(e.message))?;
    let saved_at = now();
    Ok(StoredToken {
        server: canonical(&req.server_url).unwrap_or_else(|| req.server_url.clone()),
        issuer,
        token_endpoint: token_endpoint.to_string(),
        client_id,
        access_token: got.token,
        refresh_token: got.refresh_token,
        expires_at: got.expires_in.map(|s| saved_at + s),
        scope: got.scope.or(scope),
        saved_at,
    })
}

/// True under `CI=true`, where nobody is at the desk to log in: the login refuses to start.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true"))
}

/// Best effort: hands the URL to the desktop's opener. Failure is fine, the URL was printed.
pub fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Ok(mut child) = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        // Reaped in the background: the opener returns at once or stays with the browser.
        std::thread::spawn(move || {
            let _ = child.wait();
        });
    }
}

/// Serves the loopback redirect until a request to `/callback` arrives; returns its query.
async fn callback(listener: &TcpListener) -> Vec<(String, String)> {
    loop {
        let Ok((mut sock, _)) = listener.accept().await else {
            continue;
        };
        let mut buf = Vec::new();
        let mut chunk = [0u8; 2048];
        // One request head, at most 16 KiB, at most 10 s.
        let read = tokio::time::timeout(Duration::from_secs(10), async {
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
                match sock.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
        })
        .await;
        if read.is_err() {
            continue;
        }
        let head = String::from_utf8_lossy(&buf);
        let target = head
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("/");
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        if path != "/callback" {
            let _ = sock
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
            continue;
        }
        let page = "<!doctype html><title>scout</title><p>scout received the authorization response. You can close this window.</p>";
        let _ = sock
            .write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                )
                .as_bytes(),
            )
            .await;
        return url::form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
    }
}
