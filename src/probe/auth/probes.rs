//! The probes of a protected server (its first contact got 401): the challenge, the token
//! from the configured source, and the tokens that must be refused. Each probe is the first
//! request sent again through the bare auth client with exactly one thing changed, and is
//! judged against the same request with the valid token (the baseline).

use crate::auth::challenge::{self, Challenge};
use crate::auth::http::{AuthHttp, Fetched};
use crate::auth::metadata::{Discovery, canonical};
use crate::auth::{Grant, token};
use crate::probe::Session;
use crate::probe::auth::acquire::{acquire, resource_for, token_endpoint};
use crate::probe::auth::{
    AUDIENCE, AUDIENCE_PROBE_RESOURCE, BareAnswer, CHALLENGE, GARBAGE_TOKEN, QUERY_TOKEN,
    SCOPE_CHALLENGE, TOKEN_ACQUIRED, Token, credentials_message, skip_all,
};
use crate::probe::spec::TargetSpec;
use crate::report::finding::{FindingBuilder, Severity, SkipReason};
use crate::telemetry::{ExchangeKind, Seq};

/// The first request, as recorded, to send again.
#[derive(Debug, Clone)]
pub struct Replay {
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
    let mut url = r.url.clone();
    if let Some(t) = query_token
        && let Ok(mut u) = url::Url::parse(&r.url)
    {
        u.query_pairs_mut().append_pair("access_token", t);
        url = u.to_string();
    }
    let mut headers = r.headers.clone();
    if let Some(t) = bearer {
        headers.push(("Authorization".into(), format!("Bearer {t}")));
    }
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

/// Runs every probe of a protected server.
pub(super) async fn protected(s: &mut Session, url: &str, first: &BareAnswer, grant: Grant) {
    let http = match s.oauth.http.clone() {
        Some(h) => h,
        None => match AuthHttp::new(
            s.recorder.clone(),
            &s.run_id,
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
    s.add(judge_challenge(first, s.oauth.prm.as_ref()));

    let resource = resource_for(s, url);
    let got = acquire(s, &http, url, &resource, grant).await;
    let garbage = token::garbage_token();
    let g = send(&http, &replay, Some(&garbage), None).await;
    let (got, baseline) = match got {
        Ok(Some(got)) => {
            if let Some(c) = s.connector.as_ref().and_then(|c| c.http_clients()) {
                c.set_bearer(Some(got.token.clone()));
            }
            s.oauth.token = Some(Token(got.token.clone()));
            let b = send(&http, &replay, Some(&got.token), None).await;
            (Some(got), Some(b))
        }
        Ok(None) => (None, None),
        Err(()) => (None, None),
    };
    s.add(judge_garbage(&g, baseline.as_ref(), &replay.rpc));

    match (&got, &baseline) {
        (Some(got), Some(b)) => {
            let mut ev = got.evidence.clone();
            ev.push(b.seq);
            if b.status == Some(401) {
                s.add(
                    TOKEN_ACQUIRED
                        .fail(format!(
                            "{}; but the server refused it: {} with it got HTTP 401 (req#{}).",
                            got.how, replay.rpc, b.seq
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
                            replay.rpc,
                            b.describe(),
                            b.seq
                        ))
                        .evidence(ev),
                );
            }
            let q = send(&http, &replay, None, Some(&got.token)).await;
            s.add(judge_query(&q, b, &replay.rpc));
        }
        _ => {
            s.add(QUERY_TOKEN.skip(
                SkipReason::NotApplicable,
                "scout has no valid token to put in the query string",
            ));
        }
    }
    audience(s, &http, &replay, &resource, grant, baseline.as_ref()).await;
    scope_challenge(s, &http, &replay, &resource, baseline.as_ref()).await;
    // Fixed headers may be the credentials (an API key): the handshake will tell.
    let headers = matches!(&s.spec.target, TargetSpec::Http { headers, .. } if !headers.is_empty());
    if got.is_none() && s.blocked.is_none() && !headers {
        let why = credentials_message(s);
        s.block(why);
    }
}

/// `auth.challenge`, from the bare first contact.
pub fn judge_challenge(first: &BareAnswer, prm: Option<&Discovery>) -> FindingBuilder {
    let ev = [first.seq];
    let Some(header) = &first.challenge else {
        return CHALLENGE
            .fail("HTTP 401 without a WWW-Authenticate header: RFC 9110 requires one on every 401, and a client cannot tell how to authenticate.")
            .evidence(ev);
    };
    let Some(b) = challenge::bearer([header.as_str()]) else {
        return CHALLENGE
            .fail(format!(
                "HTTP 401 with `WWW-Authenticate: {header}`, which has no Bearer challenge."
            ))
            .evidence(ev);
    };
    let mut fails: Vec<String> = Vec::new();
    let mut warns: Vec<String> = Vec::new();
    let well_known = prm
        .and_then(|p| p.found.as_ref())
        .is_some_and(|d| !d.label.contains("challenge"));
    match b.param("resource_metadata") {
        None if well_known => warns.push(
            "it has no resource_metadata parameter (RFC 9728 §5.1): clients find the metadata only by trying the well-known URIs".into(),
        ),
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
    if b.param("scope").is_none() {
        warns.push("it has no scope parameter (the spec says SHOULD, so clients know which scopes to ask for)".into());
    }
    let summary = format!("HTTP 401 with `WWW-Authenticate: {header}`");
    let f = if !fails.is_empty() {
        fails.extend(warns);
        CHALLENGE.fail(format!("{summary}; but {}.", fails.join("; ")))
    } else if !warns.is_empty() {
        CHALLENGE.warn(format!("{summary}; but {}.", warns.join("; ")))
    } else {
        CHALLENGE.pass(format!("{summary}."))
    };
    f.evidence(ev)
}

/// `auth.garbage_token`.
pub fn judge_garbage(g: &Fetched, baseline: Option<&Fetched>, rpc: &str) -> FindingBuilder {
    let mut ev = vec![g.seq];
    let with = |b: &Fetched| format!(" (with the valid token: {}, req#{})", b.describe(), b.seq);
    let f = match g.status {
        None => {
            return GARBAGE_TOKEN
                .skip(
                    SkipReason::NotAssessed,
                    format!("{rpc} with a made-up token got {}", g.describe()),
                )
                .evidence(ev);
        }
        Some(401) => {
            let invalid = challenge::bearer(g.headers_named("www-authenticate"))
                .and_then(|c| c.param("error").map(str::to_string));
            GARBAGE_TOKEN.pass(format!(
                "{rpc} with a random bearer token got HTTP 401{}.",
                invalid
                    .map(|e| format!(" (error=\"{e}\")"))
                    .unwrap_or_default()
            ))
        }
        Some(c) if is_success(Some(c)) => GARBAGE_TOKEN.fail(format!(
            "{rpc} with a random bearer token no authorization server issued got HTTP {c}: the server served it."
        )),
        Some(c) if baseline.is_some_and(|b| b.status == Some(c)) => {
            let b = baseline.expect("checked");
            ev.push(b.seq);
            GARBAGE_TOKEN.fail(format!(
                "{rpc} with a random bearer token got HTTP {c}, the same answer as{}: the token was accepted.",
                with(b)
            ))
        }
        Some(c) if c >= 500 => GARBAGE_TOKEN
            .fail(format!(
                "{rpc} with a random bearer token got HTTP {c}: an invalid token must get 401, not a server error."
            ))
            .severity(Severity::Major),
        Some(c) => GARBAGE_TOKEN
            .fail(format!(
                "{rpc} with a random bearer token got HTTP {c}: an invalid token must get 401."
            ))
            .severity(Severity::Minor),
    };
    f.evidence(ev)
}

/// `auth.query_token`.
pub fn judge_query(q: &Fetched, baseline: &Fetched, rpc: &str) -> FindingBuilder {
    let ev = [q.seq, baseline.seq];
    let with = format!(
        "with the token in the Authorization header it got {} (req#{})",
        baseline.describe(),
        baseline.seq
    );
    let f = match q.status {
        None => {
            return QUERY_TOKEN
                .skip(
                    SkipReason::NotAssessed,
                    format!("{rpc} with the token in the query string got {}", q.describe()),
                )
                .evidence(ev);
        }
        Some(401) => QUERY_TOKEN.pass(format!(
            "{rpc} with the valid token only as ?access_token= got HTTP 401; {with}."
        )),
        Some(c) if is_success(Some(c)) || baseline.status == Some(c) => QUERY_TOKEN.fail(format!(
            "{rpc} with the valid token only as ?access_token= got HTTP {c}; {with}: the server accepts tokens in the query string."
        )),
        Some(c) if c >= 500 => QUERY_TOKEN.warn(format!(
            "{rpc} with the token only in the query string got HTTP {c}: refused, but with a server error instead of 401; {with}."
        )),
        Some(c) => QUERY_TOKEN.pass(format!(
            "{rpc} with the valid token only as ?access_token= was refused with HTTP {c}; {with}."
        )),
    };
    f.evidence(ev)
}

/// `auth.audience`: a token for another resource must be refused.
async fn audience(
    s: &mut Session,
    http: &AuthHttp,
    replay: &Replay,
    resource: &str,
    grant: Grant,
    baseline: Option<&Fetched>,
) {
    let (Grant::ClientCredentials, Some(b)) = (grant, baseline) else {
        s.add(AUDIENCE.skip(
            SkipReason::NotApplicable,
            "needs client credentials (client_id + client_secret_env) and a working token, so scout can ask the authorization server for a token for another resource",
        ));
        return;
    };
    let (Some((endpoint, _)), TargetSpec::Http { auth, .. }) = (token_endpoint(s), &s.spec.target)
    else {
        return;
    };
    let client_id = auth.client_id.clone().unwrap_or_default();
    let scope = auth.scope.clone();
    let secret = s
        .connector
        .as_ref()
        .and_then(|c| c.resolved().client_secret.clone());
    let client = token::Client {
        token_endpoint: &endpoint,
        client_id: &client_id,
        client_secret: secret.as_deref(),
    };
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
    let mut ev = t.evidence.clone();
    ev.extend([a.seq, b.seq]);
    let rpc = &replay.rpc;
    let with = format!("with its own token: {}, req#{}", b.describe(), b.seq);
    let f = match a.status {
        None => AUDIENCE.skip(
            SkipReason::NotAssessed,
            format!("{rpc} with the other resource's token got {}", a.describe()),
        ),
        Some(401) => AUDIENCE.pass(format!(
            "{rpc} with a token the authorization server issued for {AUDIENCE_PROBE_RESOURCE} got HTTP 401 ({with})."
        )),
        Some(c) if is_success(Some(c)) || b.status == Some(c) => AUDIENCE.fail(format!(
            "{rpc} with a token issued for {AUDIENCE_PROBE_RESOURCE} (aud {}) got HTTP {c} ({with}): the server accepts tokens meant for another resource.",
            aud.join(", ")
        )),
        Some(c) if c >= 500 => AUDIENCE
            .fail(format!(
                "{rpc} with a token issued for another resource got HTTP {c}: it must get 401, not a server error."
            ))
            .severity(Severity::Major),
        Some(c) => AUDIENCE
            .fail(format!(
                "{rpc} with a token issued for another resource got HTTP {c}: an invalid token must get 401."
            ))
            .severity(Severity::Minor),
    };
    s.add(f.evidence(ev));
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
    let (Some(b), Some((endpoint, _))) = (baseline, token_endpoint(s)) else {
        s.add(SCOPE_CHALLENGE.skip(
            SkipReason::NotAssessed,
            "scout has no working token and token endpoint to ask for a limited one",
        ));
        return;
    };
    let client_id = auth.client_id.clone().unwrap_or_default();
    let secret = s
        .connector
        .as_ref()
        .and_then(|c| c.resolved().client_secret.clone());
    let client = token::Client {
        token_endpoint: &endpoint,
        client_id: &client_id,
        client_secret: secret.as_deref(),
    };
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
pub fn judge_scope(r: &Fetched, baseline: &Fetched, limited: &str, rpc: &str) -> FindingBuilder {
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
        assert_eq!(judge_challenge(&ok, None).status(), Status::Pass);
        let err = bare(Some(
            r#"Bearer error="invalid_token", resource_metadata="http://h/prm", scope="mcp""#,
        ));
        assert_eq!(judge_challenge(&err, None).status(), Status::Warn);
        assert_eq!(judge_challenge(&bare(None), None).status(), Status::Fail);
        assert_eq!(
            judge_challenge(&bare(Some("Basic realm=\"x\"")), None).status(),
            Status::Fail
        );
        assert_eq!(
            judge_challenge(&bare(Some("Bearer scope=\"mcp\"")), None).status(),
            Status::Fail,
            "no metadata anywhere"
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
        assert_eq!(
            judge_query(&answer(3, 401, None), &base, "m").status(),
            Status::Pass
        );
        assert_eq!(
            judge_query(&answer(3, 200, None), &base, "m").status(),
            Status::Fail
        );
        assert_eq!(
            judge_query(&answer(3, 400, None), &answer(9, 400, None), "m").status(),
            Status::Fail
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
