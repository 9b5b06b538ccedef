//! Auth: whether the server asks for credentials, whether it refuses the ones it must refuse,
//! and getting the token the rest of the run uses.
//!
//! The negative probes (no token, a made-up token, a token in the query string, a token for
//! another resource, a token without the needed scope) are the discovery phase's first
//! request sent again through the bare auth client ([`AuthHttp`]), so they never carry the
//! operator's credentials by accident. The token from the configured source is
//! put into the authenticated client's slot here; every later phase sends it.

mod acquire;
mod probes;

use crate::auth::http::AuthHttp;
use crate::auth::{Grant, store, token};
use crate::probe::Session;
use crate::report::check::Check;
use crate::report::exchange::{ExchangeKind, Seq};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::spec::TargetSpec;

crate::checks! { phase: Auth;
    CHALLENGE = "auth.challenge", Major, "401 carries a Bearer challenge that points at the metadata", crate::report::check::spec_url::ASD26,
        "The first request of a protected server, sent without credentials, must get 401 with a `WWW-Authenticate` header (RFC 9110 requires it on every 401); every field line is read, and a line may hold several challenges. A challenge of another scheme only (an API key, Basic) is a warning: authorization is optional, and HTTP servers should follow the spec's OAuth profile. The Bearer challenge's `resource_metadata` parameter (RFC 9728 §5.1) is graded by the revision the server negotiates: 2025-06-18 requires it (a fail without it); from 2025-11-25 the metadata at a well-known URI is enough (a warning without it, a fail when no well-known URI serves it either); 2025-03-26 and older predate it. A missing `scope` parameter (SHOULD from 2025-11-25) and an `error` code on a request that sent no credentials (RFC 6750 §3.1) are warnings. A server protected by a fixed bearer token (discovery found no OAuth metadata at all, its origin's included) gets one warning for the OAuth profile it does not follow, whatever it negotiated.",
        "Answer a request without a token with 401 and `WWW-Authenticate: Bearer resource_metadata=\"https://…/.well-known/oauth-protected-resource/…\", scope=\"…\"`, with no `error` parameter when no token was sent.";
    GARBAGE_TOKEN = "auth.garbage_token", Critical, "A made-up token is refused with 401", crate::report::check::spec_url::AU26,
        "Authorization must come with every HTTP request, even inside one session, so the server must check it on every request. scout sends, with a random well-formed bearer token no authorization server issued (and, when a credential header such as an API key is configured, with that header garbled): the first request again; `ping` inside a session it opens with the valid credential (`initialize` first; closed with DELETE afterwards), where it also sends no credential at all; and a list the server declared on the stateless 2026-07-28 wire. Invalid tokens must get 401. Serving any of them (or answering like the valid credential) is critical, a server error (5xx) is major, any other status is minor; the worst decides.",
        "Validate the credential on every request, not only on `initialize` (signature or introspection, expiry, issuer, audience); answer a bad one with 401 and `WWW-Authenticate: Bearer error=\"invalid_token\"`.";
    QUERY_TOKEN = "auth.query_token", Major, "A token in the query string is refused", crate::report::check::spec_url::AU26,
        "scout never puts a real token in a URL (servers, proxies and logs keep URLs): it sends a random, well-formed token that no authorization server issued as `?access_token=…`, with no Authorization header, on the first request, inside its session and on the stateless wire. The spec's MUST NOT binds the client, and resource servers MAY read `access_token` (RFC 6750 §2.3), so this is a warning at most: when the request is served, or answered like the one with the valid credential (the server reads tokens from the URL and did not even refuse an invalid one), or when its 401 says `error=\"invalid_token\"` where the same request without credentials got no error code (the server read the URL). A 401 like a request without credentials passes.",
        "Read bearer tokens only from the Authorization header and ignore `access_token` in the query string.";
    AUDIENCE = "auth.audience", Critical, "A token issued for another resource is refused", crate::report::check::spec_url::SECAU26,
        "With client credentials, scout asks the authorization server for a token for another resource (RFC 8707 `resource=https://scout-audience-probe.invalid/mcp`, a name that never resolves) and sends it on the first request, inside its session and on the stateless wire. Servers must accept only tokens issued for themselves and answer others with 401. Not assessed when the authorization server refuses such a token, ignores `resource`, or issues opaque tokens whose audience scout cannot read.",
        "Check every token's audience (the JWT `aud` claim or the introspection result) against your server's canonical URL and refuse other tokens with 401.";
    TOKEN_ACQUIRED = "auth.token_acquired", Major, "The configured credentials give a token the server accepts", crate::report::check::spec_url::AU26,
        "How scout got the bearer token the rest of the run sends: a ready token (token_env / token_file), OAuth client credentials, a refresh token, or a token stored by `scout auth login`; the scope and lifetime the token endpoint reported and, for a JWT, its audience — never the token. An observation when the token works; a failure when the grant is refused or the server answers the first request carrying the token with 401. A credential goes only to an authorization server whose metadata passed discovery: when the protected resource metadata is for another resource (RFC 9728 §3.3), the authorization server metadata names another issuer (RFC 8414 §3.3) or its token endpoint is not HTTPS off loopback, nothing is sent and the check fails; when the configured `issuer` is not the server's authorization server, or a refresh token from an environment variable would be spent by rotation, nothing is sent and the check is skipped by policy (exit 2).",
        "Check the client id, secret and scope with the authorization server's operator; the token must be issued for this server's URL (RFC 8707 `resource`).";
    SCOPE_CHALLENGE = "auth.scope_challenge", Minor, "A token without the needed scope gets 403 insufficient_scope", crate::report::check::spec_url::AU26,
        "With `limited_scope` configured, scout asks for a second token with only that scope and sends the first request with it. The spec's answer is 403 with `WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"…\"` (and `resource_metadata`), so a client can ask for what it lacks; 401, or a challenge without those, is a warning. When the server accepts the limited token nothing was beyond it, and the check is not assessed.",
        "Answer a valid token that lacks a scope with 403 and `WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"<every scope the operation needs>\", resource_metadata=\"…\"`.";
    OPEN = "auth.open", Minor, "Whether the server asks for credentials", crate::report::check::spec_url::AU26,
        "The first request of the run (server/discover, from the discovery phase) is sent on the bare client, without the configured token or headers. A 401 means the server protects its endpoint; an answer means anyone who can reach it may use it. An observation for local servers, many of which are open by design; a warning when a remote (non-loopback) server serves tools that are not read-only to anyone, without credentials.",
        "If the server is reachable by others, protect it with OAuth 2.1 as the authorization section of the spec describes.";
}

/// The resource scout asks a token for in `auth.audience`: not this server, and never
/// resolvable (RFC 6761 `.invalid`).
pub const AUDIENCE_PROBE_RESOURCE: &str = "https://scout-audience-probe.invalid/mcp";

/// What the first unauthenticated request got back.
#[derive(Debug, Clone, PartialEq)]
pub struct BareAnswer {
    pub seq: Seq,
    pub status: Option<u16>,
    pub challenge: Option<String>,
}

/// A bearer token the run holds (hidden from `Debug`).
#[derive(Clone, PartialEq, Eq)]
pub struct Token(pub String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token([secret])")
    }
}

/// What the discovery and auth phases learnt, shared through the session.
#[derive(Debug, Clone, Default)]
pub struct State {
    /// The bare first contact.
    pub first: Option<BareAnswer>,
    /// Protected Resource Metadata discovery (protected servers only).
    pub prm: Option<crate::auth::metadata::Discovery>,
    /// The issuer followed, and its metadata discovery.
    pub issuer: Option<String>,
    pub server: Option<crate::auth::metadata::Discovery>,
    /// The recorded, credential-free client of the auth requests.
    pub http: Option<AuthHttp>,
    /// The token the authenticated client sends.
    pub token: Option<Token>,
    /// An open remote server: `auth.open` waits for the catalogue (see [`finish_open`]).
    pub open_pending: bool,
    /// The requests that carried a made-up credential (a random bearer token, a garbled
    /// API key): they show how the server treats a bad credential, and handed over none.
    pub made_up: Vec<Seq>,
    /// The server asks for a bearer token but shows no sign of OAuth (no metadata named or
    /// served, none at its origin): a fixed token it checks itself.
    pub static_token: bool,
}

/// The discovery phase's first contact: the first POST, made on the bare client.
pub fn first_contact(s: &Session) -> Option<BareAnswer> {
    s.recorder
        .snapshot()
        .into_iter()
        .find_map(|e| match e.kind {
            ExchangeKind::Http(h) if h.method == "POST" => Some(BareAnswer {
                seq: e.seq,
                status: h.status,
                challenge: joined_challenges(&h.response_headers),
            }),
            _ => None,
        })
}

/// Every `WWW-Authenticate` field line of a response as one value. The field "can occur
/// multiple times" (RFC 9110 §11.6.1) and is a comma-separated list, so its lines join with
/// ", " without changing their meaning: a Bearer challenge on a second line, beside `Basic`
/// on the first, is kept with its `resource_metadata`.
pub fn joined_challenges(headers: &[(String, String)]) -> Option<String> {
    let lines: Vec<&str> = headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("www-authenticate"))
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
        .collect();
    (!lines.is_empty()).then(|| lines.join(", "))
}

/// Judges the bare request (`auth.open`), for every case but an open remote server with no
/// credentials configured, which [`finish_open`] judges once the catalogue is known.
pub fn judge(answer: &BareAnswer, has_credentials: bool) -> FindingBuilder {
    let ev = [answer.seq];
    match answer.status {
        Some(401) => {
            let challenge = answer
                .challenge
                .as_ref()
                .map(|c| format!(" (WWW-Authenticate: {c})"))
                .unwrap_or_else(|| " without a WWW-Authenticate challenge".into());
            OPEN.info(format!(
                "The server is protected: a request without credentials got HTTP 401{challenge}."
            ))
            .evidence(ev)
        }
        Some(403) => OPEN
            .info("A request without credentials was refused with HTTP 403.")
            .evidence(ev),
        Some(status) => {
            let extra = if has_credentials {
                " although credentials are configured for it"
            } else {
                ""
            };
            OPEN.info(format!(
                "The server is open: a request without credentials got HTTP {status}{extra}."
            ))
            .evidence(ev)
        }
        None => OPEN.skip(
            SkipReason::NotAssessed,
            "The request without credentials got no HTTP answer.",
        ),
    }
}

/// The auth checks that need a protected server, in report order.
const PROTECTED_ONLY: [&Check; 6] = [
    &CHALLENGE,
    &GARBAGE_TOKEN,
    &QUERY_TOKEN,
    &AUDIENCE,
    &TOKEN_ACQUIRED,
    &SCOPE_CHALLENGE,
];

/// Runs this phase.
pub async fn run(s: &mut Session) {
    let (has_credentials, grant, url) = match &s.spec.target {
        TargetSpec::Http {
            headers, auth, url, ..
        } => (
            auth.grant() != Grant::None || !headers.is_empty(),
            auth.grant(),
            url.clone(),
        ),
        TargetSpec::Stdio(..) => {
            s.add(OPEN.skip(
                SkipReason::NotApplicable,
                "A stdio server has no credentials to ask for: the trust decision was made when the command was chosen.",
            ));
            for c in PROTECTED_ONLY {
                s.add(c.skip(
                    SkipReason::NotApplicable,
                    "stdio servers take credentials from their environment, not from OAuth",
                ));
            }
            return;
        }
    };
    let Some(first) = s.oauth.first.clone().or_else(|| first_contact(s)) else {
        s.add(OPEN.skip(
            SkipReason::NotAssessed,
            "No request without credentials was made.",
        ));
        skip_all(
            s,
            SkipReason::NotAssessed,
            "no request without credentials was made",
        );
        return;
    };
    let remote_open = first.status.is_some_and(|c| (200..300).contains(&c))
        && s.spec.is_remote()
        && !has_credentials;
    if remote_open {
        s.oauth.open_pending = true;
    } else {
        s.add(judge(&first, has_credentials));
    }
    if first.status != Some(401) {
        let why = format!(
            "the server answered the request without credentials with {} (req#{}): there is no protection to probe",
            first
                .status
                .map_or_else(|| "no HTTP status".to_string(), |c| format!("HTTP {c}")),
            first.seq
        );
        skip_all(s, SkipReason::NotApplicable, &why);
        return;
    }
    probes::protected(s, &url, &first, grant).await;
}

fn skip_all(s: &mut Session, reason: SkipReason, why: &str) {
    for c in PROTECTED_ONLY {
        if !s.findings.iter().any(|f| f.id == c.id) {
            s.add(c.skip(reason, why));
        }
    }
}

/// The one-line message of a run that stops because the server wants credentials scout does
/// not have: the authorization server it found and the keys that would get a token.
pub fn credentials_message(s: &Session) -> String {
    format!(
        "the server requires credentials (HTTP 401 without them) and none are configured; {}",
        how_to_get_a_token(s)
    )
}

/// The one-line message of a handshake that got nothing but 401 although credentials were
/// configured (fixed headers the server does not accept).
pub fn refused_message(s: &Session) -> String {
    format!(
        "the server requires credentials (every request got HTTP 401, the configured ones too); {}",
        how_to_get_a_token(s)
    )
}

fn how_to_get_a_token(s: &Session) -> String {
    let found = match (
        &s.oauth.issuer,
        s.oauth.prm.as_ref().and_then(|p| p.found.as_ref()),
    ) {
        (Some(issuer), Some(prm)) => format!(
            "its authorization server is {issuer} (named by {}); get a token with client_id + client_secret_env (--client-id ID --client-secret-env VAR) for client credentials, client_id + refresh_token_env (--refresh-token-env VAR), or run `scout auth login URL` at a desk; ",
            prm.url
        ),
        _ => "scout found no authorization server (no protected resource metadata); ".to_string(),
    };
    // A flag that was given is not advised again: the headers that were sent are named.
    let sent: Vec<&str> = match &s.spec.target {
        crate::spec::TargetSpec::Http { headers, .. } => {
            headers.iter().map(|(n, _)| n.as_str()).collect()
        }
        crate::spec::TargetSpec::Stdio(_) => Vec::new(),
    };
    if sent.is_empty() {
        format!(
            "{found}a ready token works too: token_env / token_file (--token-env VAR / --token-file PATH), or a header with --header NAME=env:VAR"
        )
    } else {
        format!(
            "{found}a ready token works too: token_env / token_file (--token-env VAR / --token-file PATH); the headers given ({}) were sent",
            sent.join(", ")
        )
    }
}

/// Judges `auth.open` for an open remote server once the catalogue is known: tools that are
/// not read-only, served to anyone, are a warning. Called after every phase has run.
pub fn finish_open(s: &mut Session) {
    if !s.oauth.open_pending || s.findings.iter().any(|f| f.id == OPEN.id) {
        return;
    }
    s.oauth.open_pending = false;
    let Some(first) = s.oauth.first.clone() else {
        return;
    };
    let status = first.status.unwrap_or(0);
    let mut evidence = vec![first.seq];
    let mut writable: Vec<String> = Vec::new();
    let mut read = false;
    for c in &s.catalogs {
        if c.tools.is_empty() && c.evidence.is_empty() {
            continue;
        }
        read = true;
        evidence.extend(c.evidence.iter().copied());
        for t in &c.tools {
            let ro = t
                .get("annotations")
                .and_then(|a| a.get("readOnlyHint"))
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
            if !ro
                && let Some(name) = t.get("name").and_then(serde_json::Value::as_str)
                && !writable.iter().any(|n| n == name)
            {
                writable.push(name.to_string());
            }
        }
    }
    let f = if !read {
        OPEN.info(format!(
            "The remote server is open: a request without credentials got HTTP {status}. Its catalogue was not read, so scout cannot say what an anonymous caller may do."
        ))
    } else if writable.is_empty() {
        OPEN.info(format!(
            "The remote server is open (a request without credentials got HTTP {status}); every tool it lists is read-only."
        ))
    } else {
        OPEN.warn(format!(
            "The remote server is open (a request without credentials got HTTP {status}) and serves tools that are not read-only to anyone: {}.",
            writable.join(", ")
        ))
    };
    s.add(f.evidence(evidence));
}

/// A token stored by `scout auth login` for `url`, when the user has one.
fn stored(url: &str) -> Option<store::StoredToken> {
    store::load(&store::dir()?, url)
}

/// `expires in 3600 s`, `scope mcp`, audience from a JWT: what can be said about a token.
fn describe_token(tok: &str, expires_in: Option<u64>, scope: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(sc) = scope {
        parts.push(format!("scope `{sc}`"));
    }
    let claims = token::jwt_claims(tok);
    let exp = expires_in.map(|e| format!("expires in {e} s")).or_else(|| {
        claims
            .as_ref()
            .and_then(|c| c.get("exp"))
            .and_then(serde_json::Value::as_u64)
            .map(|t| {
                let left = t.saturating_sub(store::now());
                format!("expires in {left} s (JWT exp)")
            })
    });
    parts.push(exp.unwrap_or_else(|| "lifetime not stated".into()));
    match &claims {
        Some(c) => {
            let aud = token::audiences(c);
            if aud.is_empty() {
                parts.push("a JWT without an audience".into());
            } else {
                parts.push(format!("a JWT for audience {}", aud.join(", ")));
            }
        }
        None => parts.push("an opaque token (its audience is not readable)".into()),
    }
    parts.join(", ")
}

/// The run's rate limiter for this server's host: the one its HTTP clients wait for, so the
/// auth phase's own requests count against the same `--rps` budget.
pub(crate) fn run_limiter(s: &Session) -> crate::transport::limiter::RateLimiter {
    s.connector
        .as_ref()
        .and_then(|c| c.http_clients())
        .map(|h| h.limiter())
        .unwrap_or_else(|| crate::client::connect::limiter_for(&s.spec, s.ctx.limiter.as_ref()))
}
