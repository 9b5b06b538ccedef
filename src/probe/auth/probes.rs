//! The probes of a protected server (its first contact got 401): the challenge, the token
//! from the configured source, and the credentials that must be refused. Each probe is a
//! request sent again through a credential-free client with exactly one thing changed, and
//! is judged against the same request with the valid credential (the baseline).
//!
//! A server may check the credential only on the first request of a conversation, yet the
//! spec says authorization "MUST be included in every HTTP request from client to server,
//! even if they are part of the same logical session". So the refusals are probed three
//! ways: on the first request (session-less `server/discover`), inside a session scout opens
//! with the valid credential (`initialize`, then `ping` with the session id), and on an
//! ordinary 2026-07-28 request (a list the server declared). That session is closed
//! (DELETE) before the phase ends.

use serde_json::{Value, json};

use crate::auth::challenge::{self, Challenge};
use crate::auth::http::{AuthHttp, Fetched};
use crate::auth::metadata::{Discovery, canonical};
use crate::auth::{Grant, token};
use crate::client::{Connection, MODERN_VERSION, lifecycle};
use crate::probe::Session;
use crate::probe::auth::acquire::{acquire, resource_for};
use crate::probe::auth::{
    AUDIENCE, AUDIENCE_PROBE_RESOURCE, BareAnswer, CHALLENGE, GARBAGE_TOKEN, QUERY_TOKEN,
    SCOPE_CHALLENGE, TOKEN_ACQUIRED, Token, credentials_message, skip_all,
};
use crate::report::check::Check;
use crate::report::exchange::{ExchangeKind, Seq};
use crate::report::finding::{Era, FindingBuilder, Severity, SkipReason, Status};
use crate::spec::TargetSpec;
use crate::transport::{Probe, Reply};

/// The first request, as recorded, to send again.
#[derive(Debug, Clone)]
pub(super) struct Replay {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// The JSON-RPC method, for details.
    pub rpc: String,
}

fn replay_of(s: &Session, seq: Seq) -> Option<Replay> {
    s.recorder
        .snapshot()
        .into_iter()
        .find_map(|e| match e.kind {
            ExchangeKind::Http(h) if e.seq == seq => {
                let rpc = h
                    .request_body
                    .as_deref()
                    .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
                    .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_string))
                    .unwrap_or_else(|| "the first request".into());
                Some(Replay {
                    method: h.method,
                    url: h.url,
                    headers: h
                        .request_headers
                        .into_iter()
                        .filter(|(k, _)| {
                            !k.eq_ignore_ascii_case("x-mcp-trace-id")
                                && !k.eq_ignore_ascii_case("authorization")
                        })
                        .collect(),
                    body: h.request_body,
                    rpc,
                })
            }
            _ => None,
        })
}

/// Sends the replay with a bearer token in the header, or in the query string.
async fn send(
    http: &AuthHttp,
    r: &Replay,
    bearer: Option<&str>,
    query_token: Option<&str>,
) -> Fetched {
    let extra: Vec<(String, String)> = bearer
        .map(|t| vec![("Authorization".to_string(), format!("Bearer {t}"))])
        .unwrap_or_default();
    send_with(http, r, extra, query_token).await
}

/// Sends the replay with `extra` headers (replacing any of the same name).
async fn send_with(
    http: &AuthHttp,
    r: &Replay,
    extra: Vec<(String, String)>,
    query_token: Option<&str>,
) -> Fetched {
    let mut url = r.url.clone();
    if let Some(t) = query_token
        && let Ok(mut u) = url::Url::parse(&r.url)
    {
        u.query_pairs_mut().append_pair("access_token", t);
        url = u.to_string();
    }
    let mut headers = r.headers.clone();
    headers.retain(|(k, _)| !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)));
    headers.extend(extra);
    http.send(
        &r.method,
        &url,
        headers,
        r.body.clone().map(String::into_bytes),
    )
    .await
}

fn is_success(status: Option<u16>) -> bool {
    status.is_some_and(|c| (200..300).contains(&c))
}

/// The configured headers that carry a credential (an API key, a fixed `Authorization`),
/// with their values as the authenticated client sends them: a value read from the
/// environment, or a header whose name says it is secret.
fn credential_headers(s: &Session) -> Vec<(String, String)> {
    let TargetSpec::Http { headers, .. } = &s.spec.target else {
        return Vec::new();
    };
    let names: Vec<&String> = headers
        .iter()
        .filter(|(name, value)| {
            value.reads_env()
                || crate::telemetry::redact::is_secret_header(name)
                || name.eq_ignore_ascii_case("authorization")
        })
        .map(|(name, _)| name)
        .collect();
    let sent = s
        .connector
        .as_ref()
        .and_then(|c| c.http_clients())
        .map(|c| c.credentials())
        .unwrap_or_default();
    sent.into_iter()
        .filter(|(k, _)| names.iter().any(|n| n.eq_ignore_ascii_case(k)))
        .collect()
}

/// A made-up value shaped like `real`: `Bearer <random>` for a bearer header, else random.
fn garbled(real: &str) -> String {
    let fresh = token::garbage_token();
    match real.split_once(' ') {
        Some((scheme, _)) if scheme.eq_ignore_ascii_case("bearer") => format!("{scheme} {fresh}"),
        _ => fresh,
    }
}

/// A request answered by the transport, as the judges read it.
fn fetched(r: &Reply) -> Fetched {
    let mut f = Fetched {
        seq: r.evidence.first().copied().unwrap_or_default(),
        ..Fetched::default()
    };
    match &r.http {
        Some(h) => {
            f.status = Some(h.status);
            f.headers = h.headers.clone();
            f.content_type = h.content_type.clone();
            f.body = h.body.clone();
        }
        None => f.error = Some(crate::probe::handshake::describe(r)),
    }
    f
}

/// One more place the refusals are probed: an ordinary request on a wire scout opened with
/// the valid credential, and that request's answer with it.
struct Context {
    /// "`ping` inside a session", for details.
    rpc: String,
    wire: Connection,
    probe: Probe,
    baseline: Fetched,
}

impl Context {
    /// The request with the credential headers replaced by `headers` (none: no credential).
    async fn without(&self, headers: Vec<(String, String)>) -> Fetched {
        let probe = Probe {
            bare: true,
            headers: headers.into_iter().map(|(k, v)| (k, Some(v))).collect(),
            ..self.probe.clone()
        };
        fetched(&self.wire.send(probe).await)
    }
}

/// What the contexts taught: the wires to close, and the handshake revision the server
/// negotiated (the challenge is graded by it).
#[derive(Default)]
struct Contexts {
    list: Vec<Context>,
    /// Wires to close at the end (the session).
    opened: Vec<Connection>,
    /// The revision `initialize` negotiated, or 2026-07-28 for a stateless-only server.
    revision: Option<String>,
}

/// Opens the contexts with the valid credential (set on the authenticated client): a
/// session (`initialize`, `notifications/initialized`, then `ping` in it) when the server
/// speaks a handshake revision, and an ordinary stateless request when its
/// `server/discover` with the credential returned a DiscoverResult that declares a list.
async fn open_contexts(s: &Session, discover: Option<&Fetched>) -> Contexts {
    let mut out = Contexts::default();
    let Some(connector) = s.connector.clone() else {
        return out;
    };
    if let Ok(conn) = connector.open().await {
        let (legacy, _, _) = lifecycle::open_legacy(&conn).await;
        if let Some(l) = legacy {
            out.revision = Some(l.protocol_version().to_string());
            let where_ = if l.session_id().is_some() {
                "inside the session scout opened with the valid credential"
            } else {
                "after an initialize with the valid credential (the server issued no session id)"
            };
            let probe = Probe::request("ping", json!({}));
            let baseline = fetched(&l.send(probe.clone()).await);
            out.opened.push(l.clone());
            out.list.push(Context {
                rpc: format!("`ping` {where_}"),
                wire: l,
                probe,
                baseline,
            });
        }
    }
    let caps = discover
        .filter(|d| is_success(d.status))
        .and_then(|d| serde_json::from_str::<Value>(&d.body).ok())
        .and_then(|v| v.get("result").and_then(|r| r.get("capabilities")).cloned())
        .filter(Value::is_object);
    if let (Some(caps), Ok(conn)) = (caps, connector.open().await) {
        if out.revision.is_none() {
            out.revision = Some(MODERN_VERSION.to_string());
        }
        let modern = conn.established(Era::Modern, MODERN_VERSION, caps, None, None);
        let list = [
            ("tools", "tools/list"),
            ("resources", "resources/list"),
            ("prompts", "prompts/list"),
        ]
        .into_iter()
        .find(|(cap, _)| modern.declares(cap));
        if let Some((_, method)) = list {
            let probe = Probe::request(method, json!({}));
            let baseline = fetched(&modern.send(probe.clone()).await);
            out.list.push(Context {
                rpc: format!("`{method}` on the stateless 2026-07-28 wire"),
                wire: modern,
                probe,
                baseline,
            });
        }
    }
    // A context whose baseline was refused shows nothing about refusals.
    out.list
        .retain(|c| c.baseline.status.is_some_and(|st| st != 401 && st != 403));
    out
}

/// One finding of `check` from the findings of each place it was probed: the worst verdict
/// decides, and the detail says what every place showed.
fn combine(check: &'static Check, parts: Vec<FindingBuilder>) -> FindingBuilder {
    let built: Vec<_> = parts
        .into_iter()
        .filter_map(|p| p.build(|_| true).ok())
        .collect();
    let Some(worst) = built.iter().max_by_key(|f| f.rank()).cloned() else {
        return check.skip(SkipReason::NotAssessed, "nothing was probed");
    };
    let assessed: Vec<_> = built.iter().filter(|f| f.status != Status::Skip).collect();
    if assessed.is_empty() {
        return check.skip(
            worst.skip_reason.unwrap_or(SkipReason::NotAssessed),
            built
                .iter()
                .map(|f| f.detail.clone())
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    let worst = assessed
        .iter()
        .copied()
        .max_by_key(|f| f.rank())
        .expect("not empty");
    let mut lines = vec![worst.detail.clone()];
    lines.extend(
        built
            .iter()
            .filter(|f| !std::ptr::eq(*f, worst))
            .map(|f| f.detail.clone()),
    );
    let detail = lines.join(" ");
    let ev: Vec<Seq> = assessed.iter().flat_map(|f| f.evidence.clone()).collect();
    let f = match worst.status {
        Status::Fail => check
            .fail(detail)
            .severity(worst.severity.unwrap_or(check.severity)),
        Status::Warn => check.warn(detail),
        Status::Info => check.info(detail),
        _ => check.pass(detail),
    };
    f.evidence(ev)
}

/// Runs every probe of a protected server.
pub(super) async fn protected(s: &mut Session, url: &str, first: &BareAnswer, grant: Grant) {
    let http = match s.oauth.http.clone() {
        Some(h) => h,
        None => match AuthHttp::new(
            s.recorder.clone(),
            &s.ctx.run_id,
            s.spec.timeout,
            url,
            s.spec.treat_as_remote,
        )
        .map(|h| h.with_limiter(super::run_limiter(s)))
        {
            Ok(h) => h,
            Err(e) => {
                skip_all(s, SkipReason::NotAssessed, &e);
                return;
            }
        },
    };
    let Some(replay) = replay_of(s, first.seq) else {
        skip_all(
            s,
            SkipReason::NotAssessed,
            "the first request was not recorded",
        );
        return;
    };

    let resource = resource_for(s, url);
    let got = acquire(s, &http, url, &resource, grant).await;
    let garbage = token::garbage_token();
    let g = send(&http, &replay, Some(&garbage), None).await;
    let keys = credential_headers(s);
    let got = match got {
        Ok(Some(got)) => {
            if let Some(c) = s.connector.as_ref().and_then(|c| c.http_clients()) {
                c.set_bearer(Some(got.token.clone()));
            }
            s.oauth.token = Some(Token(got.token.clone()));
            Some(got)
        }
        Ok(None) | Err(()) => None,
    };
    // The first request with what the authenticated client sends: the token, or the
    // configured credential headers (an API key).
    let baseline = match &got {
        Some(got) => Some(send(&http, &replay, Some(&got.token), None).await),
        None if !keys.is_empty() => Some(send_with(&http, &replay, keys.clone(), None).await),
        None => None,
    };
    let mut made_up = vec![g.seq];
    let mut garbage_parts = vec![judge_garbage(&g, baseline.as_ref(), &replay.rpc)];
    for (name, value) in keys
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("authorization"))
    {
        let k = send_with(&http, &replay, vec![(name.clone(), garbled(value))], None).await;
        made_up.push(k.seq);
        garbage_parts.push(judge_refused(
            &k,
            baseline.as_ref(),
            &replay.rpc,
            &format!("a made-up `{name}` header"),
        ));
    }

    if let (Some(got), Some(b)) = (&got, &baseline) {
        token_acquired(s, got, b, &replay.rpc);
    }

    // Inside a session and on a stateless request, when the credential works.
    let working = baseline.as_ref().is_some_and(|b| b.status != Some(401));
    let contexts = if working {
        open_contexts(s, baseline.as_ref()).await
    } else {
        Contexts::default()
    };
    for c in &contexts.list {
        let g = c
            .without(vec![(
                "Authorization".into(),
                format!("Bearer {}", token::garbage_token()),
            )])
            .await;
        made_up.push(g.seq);
        garbage_parts.push(judge_garbage(&g, Some(&c.baseline), &c.rpc));
        let none = c.without(Vec::new()).await;
        garbage_parts.push(judge_refused(
            &none,
            Some(&c.baseline),
            &c.rpc,
            "no credentials",
        ));
        for (name, value) in keys
            .iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case("authorization"))
        {
            let k = c.without(vec![(name.clone(), garbled(value))]).await;
            made_up.push(k.seq);
            garbage_parts.push(judge_refused(
                &k,
                Some(&c.baseline),
                &c.rpc,
                &format!("a made-up `{name}` header"),
            ));
        }
    }
    s.oauth.made_up.extend(made_up);
    s.add(combine(&GARBAGE_TOKEN, garbage_parts));

    // A made-up token in the query string, never a real one: a URL ends up in logs.
    query_token(s, &http, &replay, first, baseline.as_ref(), &contexts).await;
    audience(
        s,
        &http,
        &replay,
        &resource,
        grant,
        baseline.as_ref(),
        &contexts,
    )
    .await;
    scope_challenge(s, &http, &replay, &resource, baseline.as_ref()).await;
    for w in &contexts.opened {
        let _ = w.close().await;
    }
    s.add(if s.oauth.static_token {
        static_challenge(first)
    } else {
        challenge(first, s.oauth.prm.as_ref(), contexts.revision.as_deref())
    });
    // Fixed headers may be the credentials (an API key): the handshake will tell.
    let headers = matches!(&s.spec.target, TargetSpec::Http { headers, .. } if !headers.is_empty());
    if got.is_none() && s.blocked.is_none() && !headers {
        let why = credentials_message(s);
        s.block(why);
    }
}

/// `auth.token_acquired` once the token was tried on the first request (`b`): refused with
/// HTTP 401 blocks the run; otherwise what scout got, for the record.
fn token_acquired(s: &mut Session, got: &super::acquire::Got, b: &Fetched, rpc: &str) {
    let mut ev = got.evidence.clone();
    ev.push(b.seq);
    if b.status == Some(401) {
        s.add(
            TOKEN_ACQUIRED
                .fail(format!(
                    "{}; but the server refused it: {} with it got HTTP 401 (req#{}).",
                    got.how, rpc, b.seq
                ))
                .evidence(ev),
        );
        s.block(format!(
            "the server refused the token scout got ({}): HTTP 401 on req#{}",
            got.how, b.seq
        ));
    } else {
        s.add(
            TOKEN_ACQUIRED
                .info(format!(
                    "{}. {} with it got {} (req#{}); every later request of the authenticated client carries it.",
                    got.how,
                    rpc,
                    b.describe(),
                    b.seq
                ))
                .evidence(ev),
        );
    }
}

/// `auth.query_token`: a made-up token in the query string, on the first request and in
/// each context, compared with what the working credential got.
async fn query_token(
    s: &mut Session,
    http: &AuthHttp,
    replay: &Replay,
    first: &BareAnswer,
    baseline: Option<&Fetched>,
    contexts: &Contexts,
) {
    match baseline {
        Some(b) => {
            let q = send(http, replay, None, Some(&token::garbage_token())).await;
            let without = Fetched {
                seq: first.seq,
                status: first.status,
                headers: first
                    .challenge
                    .iter()
                    .map(|c| ("www-authenticate".to_string(), c.clone()))
                    .collect(),
                ..Fetched::default()
            };
            let mut parts = vec![judge_query(&q, b, &without, &replay.rpc)];
            for c in &contexts.list {
                let none = c.without(Vec::new()).await;
                let parts_q = match replay_of(s, none.seq) {
                    Some(r) => {
                        let q = send(http, &r, None, Some(&token::garbage_token())).await;
                        judge_query(&q, &c.baseline, &none, &c.rpc)
                    }
                    None => continue,
                };
                parts.push(parts_q);
            }
            s.add(combine(&QUERY_TOKEN, parts));
        }
        None => {
            s.add(QUERY_TOKEN.skip(
                SkipReason::NotApplicable,
                "scout has no working credential to compare a token in the query string with",
            ));
        }
    }
}

/// True when `revision` is one whose authorization section requires the 401 challenge to
/// name the metadata: 2025-06-18 says "MCP servers MUST use the HTTP header
/// `WWW-Authenticate` when returning a 401 Unauthorized to indicate the location of the
/// resource server metadata URL"; from 2025-11-25 on, the header or a well-known URI will do.
fn challenge_must_name_metadata(revision: &str) -> bool {
    revision == "2025-06-18"
}

/// True for the revisions before Protected Resource Metadata (2025-03-26 and older): their
/// 401 names no metadata.
fn predates_resource_metadata(revision: &str) -> bool {
    revision < "2025-06-18"
}

/// `auth.challenge`, from the bare first contact, graded by the revision the server
/// negotiated (`None` when no conversation with a credential was possible).
pub(super) fn challenge(
    first: &BareAnswer,
    prm: Option<&Discovery>,
    revision: Option<&str>,
) -> FindingBuilder {
    let ev = [first.seq];
    let Some(header) = &first.challenge else {
        return CHALLENGE
            .fail("HTTP 401 without a WWW-Authenticate header: RFC 9110 requires one on every 401, and a client cannot tell how to authenticate.")
            .evidence(ev);
    };
    let Some(b) = challenge::bearer([header.as_str()]) else {
        // Authorization is optional; HTTP servers only SHOULD follow the OAuth profile.
        return CHALLENGE
            .warn(format!(
                "HTTP 401 with `WWW-Authenticate: {header}`: the server asks for {} credentials, not an OAuth bearer token. The spec says HTTP servers should follow its OAuth authorization, so agents can obtain a token on their own.",
                challenge::schemes(header).unwrap_or_else(|| "non-Bearer".into())
            ))
            .evidence(ev);
    };
    let mut fails: Vec<String> = Vec::new();
    let mut warns: Vec<String> = Vec::new();
    let well_known = prm
        .and_then(|p| p.found.as_ref())
        .is_some_and(|d| !d.label.contains("challenge"));
    let negotiated = revision
        .map(|r| format!(" (the server negotiated {r})"))
        .unwrap_or_default();
    match b.param("resource_metadata") {
        None if revision.is_some_and(predates_resource_metadata) => {}
        None if revision.is_some_and(challenge_must_name_metadata) => fails.push(format!(
            "it has no resource_metadata parameter{negotiated}: 2025-06-18 requires the 401's WWW-Authenticate to point at the protected resource metadata"
        )),
        None if well_known => warns.push(format!(
            "it has no resource_metadata parameter{negotiated} (RFC 9728 §5.1): clients find the metadata only by trying the well-known URIs{}",
            if revision.is_none() {
                "; a server that negotiates 2025-06-18 must name it"
            } else {
                ""
            }
        )),
        None => fails.push(
            "it has no resource_metadata parameter and no well-known URI serves the metadata: clients cannot discover the authorization server".into(),
        ),
        Some(u) if url::Url::parse(u).is_err() => {
            fails.push(format!("its resource_metadata `{u}` is not a URL"))
        }
        Some(_) => {}
    }
    if let Some(e) = b.param("error") {
        warns.push(format!(
            "it carries error=\"{e}\" although the request sent no credentials (RFC 6750 §3.1: no error code then)"
        ));
    }
    // The scope parameter is a SHOULD from 2025-11-25 on.
    if b.param("scope").is_none() && revision.is_none_or(|r| r >= "2025-11-25") {
        warns.push("it has no scope parameter (the spec says SHOULD, so clients know which scopes to ask for)".into());
    }
    let summary = format!("HTTP 401 with `WWW-Authenticate: {header}`");
    let f = if !fails.is_empty() {
        fails.extend(warns);
        CHALLENGE.fail(format!("{summary}; but {}.", fails.join("; ")))
    } else if !warns.is_empty() {
        CHALLENGE.warn(format!("{summary}; but {}.", warns.join("; ")))
    } else {
        CHALLENGE.pass(format!("{summary}{negotiated}."))
    };
    f.evidence(ev)
}

/// `auth.challenge` for a server protected by a fixed token (discovery found no OAuth
/// metadata anywhere): the parameters that point an OAuth client at metadata belong to the
/// spec's OAuth profile, which HTTP servers only SHOULD follow, so their absence is one
/// warning. A 401 without any challenge still breaks RFC 9110.
pub(super) fn static_challenge(first: &BareAnswer) -> FindingBuilder {
    let Some(header) = &first.challenge else {
        return challenge(first, None, None);
    };
    CHALLENGE
        .warn(format!(
            "HTTP 401 with `WWW-Authenticate: {header}`: the server asks for a bearer token but advertises no OAuth (no resource_metadata, no metadata at the well-known URIs or its origin), so an agent cannot obtain a token on its own. The spec says HTTP servers should follow its OAuth authorization."
        ))
        .evidence([first.seq])
}

/// `auth.garbage_token` for one request that carried a random bearer token.
pub(super) fn judge_garbage(g: &Fetched, baseline: Option<&Fetched>, rpc: &str) -> FindingBuilder {
    judge_refused(g, baseline, rpc, "a random bearer token")
}

/// `auth.garbage_token` for one request that carried `what` (a made-up credential, or none)
/// instead of the valid credential: it must get 401.
pub(super) fn judge_refused(
    g: &Fetched,
    baseline: Option<&Fetched>,
    rpc: &str,
    what: &str,
) -> FindingBuilder {
    let mut ev = vec![g.seq];
    let with = |b: &Fetched| {
        format!(
            " (with the valid credential: {}, req#{})",
            b.describe(),
            b.seq
        )
    };
    let f = match g.status {
        None => {
            return GARBAGE_TOKEN
                .skip(
                    SkipReason::NotAssessed,
                    format!("{rpc} with {what} got {}.", g.describe()),
                )
                .evidence(ev);
        }
        Some(401) => {
            let invalid = challenge::bearer(g.headers_named("www-authenticate"))
                .and_then(|c| c.param("error").map(str::to_string));
            GARBAGE_TOKEN.pass(format!(
                "{rpc} with {what} got HTTP 401{} (req#{}).",
                invalid
                    .map(|e| format!(" (error=\"{e}\")"))
                    .unwrap_or_default(),
                g.seq
            ))
        }
        Some(c) if is_success(Some(c)) => GARBAGE_TOKEN.fail(format!(
            "{rpc} with {what} got HTTP {c} (req#{}): the server served it.",
            g.seq
        )),
        Some(c) if baseline.is_some_and(|b| b.status == Some(c)) => {
            let b = baseline.expect("checked");
            ev.push(b.seq);
            GARBAGE_TOKEN.fail(format!(
                "{rpc} with {what} got HTTP {c} (req#{}), the same answer as{}: it was accepted.",
                g.seq,
                with(b)
            ))
        }
        Some(c) if c >= 500 => GARBAGE_TOKEN
            .fail(format!(
                "{rpc} with {what} got HTTP {c} (req#{}): an invalid credential must get 401, not a server error.",
                g.seq
            ))
            .severity(Severity::Major),
        Some(c) => GARBAGE_TOKEN
            .fail(format!(
                "{rpc} with {what} got HTTP {c} (req#{}): an invalid credential must get 401.",
                g.seq
            ))
            .severity(Severity::Minor),
    };
    f.evidence(ev)
}

/// The `error` parameter of an answer's Bearer challenge.
fn challenge_error(f: &Fetched) -> Option<String> {
    challenge::bearer(f.headers_named("www-authenticate"))
        .and_then(|c| c.param("error").map(str::to_string))
}

/// `auth.query_token` for one request that carried a made-up token only as
/// `?access_token=` (never a real token: URLs end up in logs). `baseline` is the request
/// with the valid credential, `without` the same request without any credential.
/// Resource servers MAY read tokens from the query (RFC 6750 §2.3) and the spec's MUST NOT
/// binds the client, so what a server shows here is a warning at most.
pub(super) fn judge_query(
    q: &Fetched,
    baseline: &Fetched,
    without: &Fetched,
    rpc: &str,
) -> FindingBuilder {
    let ev = [q.seq, baseline.seq, without.seq];
    let with = format!(
        "with the valid credential it got {} (req#{})",
        baseline.describe(),
        baseline.seq
    );
    let f = match q.status {
        None => {
            return QUERY_TOKEN
                .skip(
                    SkipReason::NotAssessed,
                    format!(
                        "{rpc} with a made-up token in the query string got {}.",
                        q.describe()
                    ),
                )
                .evidence(ev);
        }
        Some(c) if is_success(Some(c)) || (baseline.status == Some(c) && c != 401) => {
            QUERY_TOKEN.warn(format!(
                "{rpc} with a made-up token only as ?access_token= (req#{}) got HTTP {c}; {with}: the server reads tokens from the query string and served a token no authorization server issued, which is at least as wrong as accepting a valid one there.",
                q.seq
            ))
        }
        Some(401) => {
            let said = challenge_error(q);
            let before = challenge_error(without);
            match (said.as_deref(), before.as_deref()) {
                (Some("invalid_token"), None) => QUERY_TOKEN.warn(format!(
                    "{rpc} with a made-up token only as ?access_token= (req#{}) got HTTP 401 with error=\"invalid_token\", where the same request without any credential (req#{}) got no error code: the server read the token in the URL. Tokens in a query string end up in logs.",
                    q.seq, without.seq
                )),
                _ => QUERY_TOKEN.pass(format!(
                    "{rpc} with a made-up token only as ?access_token= (req#{}) got HTTP 401, as without any credential; {with}.",
                    q.seq
                )),
            }
        }
        Some(c) if c >= 500 => QUERY_TOKEN.warn(format!(
            "{rpc} with a made-up token only in the query string (req#{}) got HTTP {c}: refused, but with a server error instead of 401; {with}.",
            q.seq
        )),
        Some(c) => QUERY_TOKEN.pass(format!(
            "{rpc} with a made-up token only as ?access_token= (req#{}) was refused with HTTP {c}; {with}.",
            q.seq
        )),
    };
    f.evidence(ev)
}

/// `auth.audience`: a token for another resource must be refused, on the first request and
/// in every context.
async fn audience(
    s: &mut Session,
    http: &AuthHttp,
    replay: &Replay,
    resource: &str,
    grant: Grant,
    baseline: Option<&Fetched>,
    contexts: &Contexts,
) {
    let (Grant::ClientCredentials, Some(b)) = (grant, baseline) else {
        s.add(AUDIENCE.skip(
            SkipReason::NotApplicable,
            "needs client credentials (client_id + client_secret_env) and a working token, so scout can ask the authorization server for a token for another resource",
        ));
        return;
    };
    let (Some(bound), Some(connector), TargetSpec::Http { auth, .. }) = (
        super::acquire::bound_server(s),
        s.connector.clone(),
        &s.spec.target,
    ) else {
        return;
    };
    let client_id = auth.client_id.clone().unwrap_or_default();
    let scope = auth.scope.clone();
    // Authenticated as the configured grant is (a key's assertion, or the method the
    // server lists), not always with Basic.
    let client = super::acquire::configured_client(&bound, &client_id, connector.resolved());
    let t = match token::client_credentials(http, client, scope.as_deref(), AUDIENCE_PROBE_RESOURCE)
        .await
    {
        Ok(t) => t,
        Err(e) => {
            s.add(
                AUDIENCE
                    .skip(
                        SkipReason::NotAssessed,
                        format!(
                            "the authorization server issued no token for another resource ({AUDIENCE_PROBE_RESOURCE}): {}; so there is no such token to send",
                            e.message
                        ),
                    )
                    .evidence(e.evidence),
            );
            return;
        }
    };
    let Some(claims) = token::jwt_claims(&t.token) else {
        s.add(
            AUDIENCE
                .skip(
                    SkipReason::NotAssessed,
                    "the token issued for another resource is opaque: scout cannot tell whether the authorization server bound it to that resource, so the server's answer would prove nothing",
                )
                .evidence(t.evidence),
        );
        return;
    };
    let aud = token::audiences(&claims);
    if !aud.iter().any(|a| a == AUDIENCE_PROBE_RESOURCE)
        || aud
            .iter()
            .any(|a| canonical(a).as_deref() == Some(resource))
    {
        s.add(
            AUDIENCE
                .skip(
                    SkipReason::NotAssessed,
                    format!(
                        "the authorization server ignored the resource parameter: the token asked for {AUDIENCE_PROBE_RESOURCE} has audience [{}]",
                        aud.join(", ")
                    ),
                )
                .evidence(t.evidence),
        );
        return;
    }
    let a = send(http, replay, Some(&t.token), None).await;
    let mut parts = vec![judge_audience(&a, b, &replay.rpc, &aud).evidence(t.evidence.clone())];
    for c in &contexts.list {
        let a = c
            .without(vec![(
                "Authorization".into(),
                format!("Bearer {}", t.token),
            )])
            .await;
        parts.push(judge_audience(&a, &c.baseline, &c.rpc, &aud));
    }
    s.add(combine(&AUDIENCE, parts));
}

/// `auth.audience` for one request that carried the token issued for another resource.
pub(super) fn judge_audience(
    a: &Fetched,
    b: &Fetched,
    rpc: &str,
    aud: &[String],
) -> FindingBuilder {
    let ev = [a.seq, b.seq];
    let with = format!("with its own token: {}, req#{}", b.describe(), b.seq);
    let f = match a.status {
        None => AUDIENCE.skip(
            SkipReason::NotAssessed,
            format!("{rpc} with the other resource's token got {}.", a.describe()),
        ),
        Some(401) => AUDIENCE.pass(format!(
            "{rpc} with a token the authorization server issued for {AUDIENCE_PROBE_RESOURCE} got HTTP 401 (req#{}; {with}).",
            a.seq
        )),
        Some(c) if is_success(Some(c)) || b.status == Some(c) => AUDIENCE.fail(format!(
            "{rpc} with a token issued for {AUDIENCE_PROBE_RESOURCE} (aud {}) got HTTP {c} (req#{}; {with}): the server accepts tokens meant for another resource.",
            aud.join(", "),
            a.seq
        )),
        Some(c) if c >= 500 => AUDIENCE
            .fail(format!(
                "{rpc} with a token issued for another resource got HTTP {c} (req#{}): it must get 401, not a server error.",
                a.seq
            ))
            .severity(Severity::Major),
        Some(c) => AUDIENCE
            .fail(format!(
                "{rpc} with a token issued for another resource got HTTP {c} (req#{}): an invalid token must get 401.",
                a.seq
            ))
            .severity(Severity::Minor),
    };
    f.evidence(ev)
}

/// `auth.scope_challenge`: a token with only the limited scope.
async fn scope_challenge(
    s: &mut Session,
    http: &AuthHttp,
    replay: &Replay,
    resource: &str,
    baseline: Option<&Fetched>,
) {
    let TargetSpec::Http { auth, .. } = s.spec.target.clone() else {
        return;
    };
    let Some(limited) = auth.limited_scope.clone() else {
        s.add(SCOPE_CHALLENGE.skip(
            SkipReason::NotApplicable,
            "no limited_scope is configured (--limited-scope SCOPE): scout needs a scope too small for the server to provoke the challenge",
        ));
        return;
    };
    let (Some(b), Some(bound), Some(connector)) = (
        baseline,
        super::acquire::bound_server(s),
        s.connector.clone(),
    ) else {
        s.add(SCOPE_CHALLENGE.skip(
            SkipReason::NotAssessed,
            "scout has no working token and token endpoint to ask for a limited one",
        ));
        return;
    };
    let client_id = auth.client_id.clone().unwrap_or_default();
    let client = super::acquire::configured_client(&bound, &client_id, connector.resolved());
    let t = match token::client_credentials(http, client, Some(&limited), resource).await {
        Ok(t) => t,
        Err(e) => {
            s.add(
                SCOPE_CHALLENGE
                    .skip(
                        SkipReason::NotAssessed,
                        format!(
                            "the authorization server issued no token with only scope `{limited}`: {}",
                            e.message
                        ),
                    )
                    .evidence(e.evidence),
            );
            return;
        }
    };
    let r = send(http, replay, Some(&t.token), None).await;
    let mut ev = t.evidence.clone();
    ev.extend([r.seq, b.seq]);
    s.add(judge_scope(&r, b, &limited, &replay.rpc).evidence(ev));
}

/// `auth.scope_challenge`, from the answer to the limited token.
pub(super) fn judge_scope(
    r: &Fetched,
    baseline: &Fetched,
    limited: &str,
    rpc: &str,
) -> FindingBuilder {
    let header = r
        .headers_named("www-authenticate")
        .collect::<Vec<_>>()
        .join(", ");
    let bearer: Option<Challenge> = challenge::bearer(r.headers_named("www-authenticate"));
    match r.status {
        None => SCOPE_CHALLENGE.skip(
            SkipReason::NotAssessed,
            format!("{rpc} with the limited token got {}", r.describe()),
        ),
        Some(403) => {
            let b = bearer.unwrap_or_default();
            let mut missing = Vec::new();
            if b.param("error") != Some("insufficient_scope") {
                missing.push("error=\"insufficient_scope\"");
            }
            if b.param("scope").is_none() {
                missing.push("a scope parameter");
            }
            if b.param("resource_metadata").is_none() {
                missing.push("resource_metadata");
            }
            let summary = format!(
                "{rpc} with a token of scope `{limited}` got HTTP 403 with `WWW-Authenticate: {header}`"
            );
            if missing.is_empty() {
                SCOPE_CHALLENGE.pass(format!("{summary}."))
            } else {
                SCOPE_CHALLENGE.warn(format!(
                    "{summary}, which lacks {}: a client cannot tell which scopes to ask for.",
                    missing.join(", ")
                ))
            }
        }
        Some(401) => SCOPE_CHALLENGE.warn(format!(
            "{rpc} with a valid token of scope `{limited}` got HTTP 401: a token lacking a scope should get 403 with error=\"insufficient_scope\" and the scopes needed, so the client can step up instead of starting over."
        )),
        Some(c) if is_success(Some(c)) || baseline.status == Some(c) => SCOPE_CHALLENGE.skip(
            SkipReason::NotAssessed,
            format!(
                "the server accepted a token with only scope `{limited}` for {rpc} (HTTP {c}, as with the full token): nothing scout sent was beyond that scope"
            ),
        ),
        Some(c) => SCOPE_CHALLENGE.warn(format!(
            "{rpc} with a token of scope `{limited}` got HTTP {c}: a token lacking a scope should get 403 with error=\"insufficient_scope\"."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    fn answer(seq: Seq, status: u16, www: Option<&str>) -> Fetched {
        Fetched {
            seq,
            status: Some(status),
            headers: www
                .map(|w| vec![("www-authenticate".to_string(), w.to_string())])
                .unwrap_or_default(),
            ..Fetched::default()
        }
    }

    fn bare(www: Option<&str>) -> BareAnswer {
        BareAnswer {
            seq: 1,
            status: Some(401),
            challenge: www.map(str::to_string),
        }
    }

    #[test]
    fn challenge_grades() {
        let ok = bare(Some(
            r#"Bearer resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope="mcp""#,
        ));
        assert_eq!(challenge(&ok, None, None).status(), Status::Pass);
        let err = bare(Some(
            r#"Bearer error="invalid_token", resource_metadata="http://h/prm", scope="mcp""#,
        ));
        assert_eq!(challenge(&err, None, None).status(), Status::Warn);
        assert_eq!(challenge(&bare(None), None, None).status(), Status::Fail);
        assert_eq!(
            challenge(&bare(Some("Bearer scope=\"mcp\"")), None, None).status(),
            Status::Fail,
            "no metadata anywhere"
        );
    }

    #[test]
    fn a_non_oauth_scheme_is_a_warning_not_a_major_fail() {
        // Previously a major fail ("no Bearer challenge"): authorization is optional and
        // HTTP servers only SHOULD follow the OAuth profile.
        for www in ["ApiKey header=\"X-API-Key\"", "Basic realm=\"x\""] {
            let f = challenge(&bare(Some(www)), None, None)
                .build(|_| true)
                .expect("finding");
            assert_eq!(f.status, Status::Warn, "{www}");
            assert!(
                f.detail.contains(www.split(' ').next().unwrap_or("")),
                "{}",
                f.detail
            );
        }
    }

    #[test]
    fn resource_metadata_in_the_challenge_is_graded_by_the_negotiated_revision() {
        let prm = Discovery {
            attempts: Vec::new(),
            found: Some(crate::auth::metadata::Document {
                url: "http://h/.well-known/oauth-protected-resource/mcp".into(),
                label: "the path-suffixed well-known URI",
                seq: 3,
                fields: serde_json::Map::new(),
                content_type: Some("application/json".into()),
                json_type: true,
            }),
        };
        let no_pointer = bare(Some(r#"Bearer scope="mcp""#));
        // 2025-06-18: "MCP servers MUST use the HTTP header WWW-Authenticate … to indicate
        // the location of the resource server metadata URL".
        assert_eq!(
            challenge(&no_pointer, Some(&prm), Some("2025-06-18")).status(),
            Status::Fail
        );
        // From 2025-11-25 a well-known URI is enough.
        for r in ["2025-11-25", "2026-07-28"] {
            assert_eq!(
                challenge(&no_pointer, Some(&prm), Some(r)).status(),
                Status::Warn,
                "{r}"
            );
        }
        // Before Protected Resource Metadata existed there is nothing to point at.
        assert_eq!(
            challenge(&no_pointer, Some(&prm), Some("2025-03-26")).status(),
            Status::Pass
        );
    }

    #[test]
    fn the_worst_place_decides_and_every_place_is_told() {
        // The first request refused, the same token served inside the session: a critical
        // fail (it used to pass, the session was never probed).
        let base = answer(9, 200, None);
        let first = judge_garbage(&answer(2, 401, None), Some(&base), "`server/discover`");
        let inside = judge_garbage(&answer(5, 200, None), Some(&base), "`ping` inside");
        let f = combine(&GARBAGE_TOKEN, vec![first, inside])
            .build(|_| true)
            .expect("finding");
        assert_eq!(f.status, Status::Fail);
        assert_eq!(f.severity, Some(Severity::Critical));
        assert!(f.detail.starts_with("`ping` inside"), "{}", f.detail);
        assert!(f.detail.contains("`server/discover`"), "{}", f.detail);
        assert_eq!(f.evidence, vec![2, 5]);
        let none = judge_refused(
            &answer(6, 401, None),
            Some(&base),
            "`ping`",
            "no credentials",
        );
        assert_eq!(combine(&GARBAGE_TOKEN, vec![none]).status(), Status::Pass);
        let skipped = judge_garbage(&Fetched::default(), None, "m");
        assert_eq!(
            combine(&GARBAGE_TOKEN, vec![skipped]).status(),
            Status::Skip
        );
    }

    #[test]
    fn garbage_grades() {
        let base = answer(9, 200, None);
        assert_eq!(
            judge_garbage(&answer(2, 401, None), Some(&base), "m").status(),
            Status::Pass
        );
        let served = judge_garbage(&answer(2, 200, None), Some(&base), "m");
        assert_eq!(served.status(), Status::Fail);
        let crash = judge_garbage(&answer(2, 500, None), None, "m")
            .build(|_| true)
            .expect("finding");
        assert_eq!(crash.severity, Some(Severity::Major));
        let like_valid = judge_garbage(&answer(2, 400, None), Some(&answer(9, 400, None)), "m")
            .build(|_| true)
            .expect("finding");
        assert_eq!(like_valid.severity, Some(Severity::Critical));
        let other = judge_garbage(&answer(2, 403, None), Some(&base), "m")
            .build(|_| true)
            .expect("finding");
        assert_eq!(other.severity, Some(Severity::Minor));
    }

    #[test]
    fn query_and_scope_grades() {
        let base = answer(9, 200, None);
        let without = answer(1, 401, Some(r#"Bearer scope="mcp""#));
        assert_eq!(
            judge_query(&answer(3, 401, None), &base, &without, "m").status(),
            Status::Pass
        );
        // Serving a made-up token from the URL, or reading it there, is a warning: resource
        // servers MAY read `access_token` (RFC 6750 §2.3). Previously a major fail.
        assert_eq!(
            judge_query(&answer(3, 200, None), &base, &without, "m").status(),
            Status::Warn
        );
        assert_eq!(
            judge_query(&answer(3, 400, None), &answer(9, 400, None), &without, "m").status(),
            Status::Warn
        );
        let read = answer(3, 401, Some(r#"Bearer error="invalid_token", scope="mcp""#));
        assert_eq!(
            judge_query(&read, &base, &without, "m").status(),
            Status::Warn
        );
        let always = answer(1, 401, Some(r#"Bearer error="invalid_token""#));
        assert_eq!(
            judge_query(&read, &base, &always, "m").status(),
            Status::Pass,
            "a server that always says invalid_token shows nothing"
        );
        let good = answer(
            4,
            403,
            Some(
                r#"Bearer error="insufficient_scope", scope="mcp", resource_metadata="http://h/prm""#,
            ),
        );
        assert_eq!(
            judge_scope(&good, &base, "other", "m").status(),
            Status::Pass
        );
        let bare403 = answer(4, 403, None);
        assert_eq!(
            judge_scope(&bare403, &base, "other", "m").status(),
            Status::Warn
        );
        assert_eq!(
            judge_scope(&answer(4, 401, None), &base, "other", "m").status(),
            Status::Warn
        );
        assert_eq!(
            judge_scope(&answer(4, 200, None), &base, "other", "m").status(),
            Status::Skip
        );
    }
}
