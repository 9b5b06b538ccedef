//! Who may talk to `scout serve`: the page token (256 random bits, compared in constant
//! time), the cookie it is traded for, and the `Host` / `Origin` checks that keep a page on
//! another site — or a rebound DNS name pointing at 127.0.0.1 — from using the server.
//!
//! Order of the checks, and their answers: a `Host` this server does not answer to → 421;
//! an `Origin` that is not the page's own → 403; no valid token (cookie or
//! `Authorization: Bearer`) → 401. No `Access-Control-*` header is ever sent, so a browser
//! lets no other origin read an answer.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

/// The secret in the page's URL. 32 bytes from the operating system's CSPRNG, written as 64
/// hex digits.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// A fresh token.
    pub fn generate() -> Result<Token, String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| format!("could not get random bytes for the page token: {e}"))?;
        Ok(Token(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The token's text (for the printed URL only).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when `given` is this token; the comparison takes the same time wherever the
    /// first difference is.
    pub fn matches(&self, given: &str) -> bool {
        self.0.as_bytes().ct_eq(given.as_bytes()).into()
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// What the guard checks requests against.
#[derive(Debug, Clone)]
pub struct Guard {
    pub token: Token,
    /// The address the server is bound to.
    pub bound: SocketAddr,
    /// `--public`: any IP-literal `Host` with the right port is accepted (an IP literal
    /// cannot be rebound), plus the names of `--allow-host`.
    pub public: bool,
    /// Extra host names (`--allow-host`) the server answers to.
    pub allow_hosts: Vec<String>,
}

impl Guard {
    /// The cookie's name: one per port, because browsers share cookies between the ports of
    /// one host, and a second `scout serve` must not overwrite the first one's cookie.
    pub fn cookie_name(&self) -> String {
        format!("scout_serve_{}", self.bound.port())
    }

    /// The `Set-Cookie` value that carries the token: for this server only (`Path=/`, no
    /// `Domain`), unreadable by scripts and never sent by another site's page.
    pub fn set_cookie(&self) -> String {
        format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            self.cookie_name(),
            self.token.expose()
        )
    }

    /// True when `host` (the `Host` header) names this server.
    pub fn host_allowed(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else {
            return false;
        };
        if port != self.bound.port() {
            return false;
        }
        let name = name.to_ascii_lowercase();
        if name == "localhost"
            || self
                .allow_hosts
                .iter()
                .any(|h| h.eq_ignore_ascii_case(&name))
        {
            return true;
        }
        let Ok(ip) = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        else {
            return false;
        };
        if self.public {
            return true;
        }
        ip == self.bound.ip() || (self.bound.ip().is_loopback() && ip.is_loopback())
    }

    /// The token a request carries (cookie, else bearer header), if it is the right one.
    pub fn authorized(&self, headers: &HeaderMap) -> bool {
        let name = self.cookie_name();
        let from_cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(k, v)| k == name && self.token.matches(v));
        let from_bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|t| self.token.matches(t.trim()));
        from_cookie || from_bearer
    }
}

/// `host:port` → (host, port); `None` without a port or with a bad one.
fn split_host(host: &str) -> Option<(&str, u16)> {
    let (name, port) = host.rsplit_once(':')?;
    if name.is_empty() || (name.contains(':') && !name.starts_with('[')) {
        return None;
    }
    Some((name, port.parse().ok()?))
}

/// A plain-text refusal.
pub fn refuse(status: StatusCode, message: &str) -> Response {
    let mut r = (status, format!("scout serve: {message}\n")).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// The middleware in front of every route.
pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !guard.host_allowed(host) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "this server does not answer to that Host (open the URL scout serve printed; with --public, name other host names with --allow-host)",
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let own = format!("http://{host}");
        if origin.to_str().ok() != Some(own.as_str()) {
            return refuse(
                StatusCode::FORBIDDEN,
                "requests from another origin are refused (no cross-origin use of this page)",
            );
        }
    }
    // The token in the URL is traded for the cookie, then taken out of the address bar.
    if request.uri().path() == "/"
        && let Some(given) = request.uri().query().and_then(token_param)
    {
        if !guard.token.matches(&given) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "that token is not this server's (open the URL this scout serve printed)",
            );
        }
        let mut r = (StatusCode::SEE_OTHER, "").into_response();
        let h = r.headers_mut();
        h.insert(header::LOCATION, HeaderValue::from_static("/"));
        if let Ok(v) = HeaderValue::from_str(&guard.set_cookie()) {
            h.insert(header::SET_COOKIE, v);
        }
        return secure(r);
    }
    if !guard.authorized(request.headers()) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "this page needs the token: open the URL scout serve printed when it started",
        );
    }
    secure(next.run(request).await)
}

/// The `token` query parameter.
fn token_param(query: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
}

/// Headers every answer carries: nothing cached, no framing, no sniffing, no referrer (the
/// page's URL never leaves it), and scripts only from this server.
fn secure(mut r: Response) -> Response {
    let h = r.headers_mut();
    for (name, value) in [
        (header::CACHE_CONTROL, "no-store"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(public: bool) -> Guard {
        Guard {
            token: Token::generate().expect("token"),
            bound: if public {
                "0.0.0.0:4000".parse().expect("addr")
            } else {
                "127.0.0.1:4000".parse().expect("addr")
            },
            public,
            allow_hosts: vec!["desk.example".into()],
        }
    }

    #[test]
    fn tokens_are_256_bits_and_differ() {
        let a = Token::generate().expect("token");
        let b = Token::generate().expect("token");
        assert_eq!(a.expose().len(), 64);
        assert!(a.expose().chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a.expose(), b.expose());
        assert!(a.matches(a.expose()));
        assert!(!a.matches(b.expose()));
        assert!(!a.matches(&a.expose()[..63]));
        assert!(!a.matches(""));
    }

    #[test]
    fn hosts_are_this_server_only() {
        let g = guard(false);
        for ok in [
            "127.0.0.1:4000",
            "localhost:4000",
            "LOCALHOST:4000",
            "127.0.0.2:4000",
        ] {
            assert!(g.host_allowed(ok), "{ok}");
        }
        for bad in [
            "127.0.0.1:4001",
            "127.0.0.1",
            "evil.example:4000",
            "10.0.0.1:4000",
            "",
            "[::1]",
        ] {
            assert!(!g.host_allowed(bad), "{bad}");
        }
        assert!(g.host_allowed("desk.example:4000"));
        let p = guard(true);
        assert!(p.host_allowed("192.0.2.7:4000"));
        assert!(p.host_allowed("[2001:db8::1]:4000"));
        assert!(!p.host_allowed("rebound.example:4000"));
    }

    #[test]
    fn the_token_comes_from_this_ports_cookie_or_a_bearer_header() {
        let g = guard(false);
        let mut h = HeaderMap::new();
        assert!(!g.authorized(&h));
        let other_port = format!("scout_serve_4001={}", g.token.expose());
        h.insert(
            header::COOKIE,
            HeaderValue::from_str(&other_port).expect("v"),
        );
        assert!(!g.authorized(&h));
        let ours = format!("a=b; scout_serve_4000={}", g.token.expose());
        h.insert(header::COOKIE, HeaderValue::from_str(&ours).expect("v"));
        assert!(g.authorized(&h));
        let mut h = HeaderMap::new();
        let bearer = format!("Bearer {}", g.token.expose());
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&bearer).expect("v"),
        );
        assert!(g.authorized(&h));
        let cookie = g.set_cookie();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    }
}
