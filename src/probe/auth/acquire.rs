//! Getting the token the run sends, from the configured source: a ready token, OAuth client
//! credentials or a refresh token at the token endpoint discovery found, or the token
//! `scout auth login` stored (renewed with its refresh token once expired). A failure is
//! `auth.token_acquired` failing and the run blocked; nothing configured is a skip.

use crate::auth::http::AuthHttp;
use crate::auth::metadata::{Discovery, canonical};
use crate::auth::{Grant, store, token};
use crate::probe::Session;
use crate::probe::auth::{TOKEN_ACQUIRED, describe_token, stored};
use crate::probe::spec::TargetSpec;
use crate::report::finding::SkipReason;
use crate::telemetry::Seq;

/// A token obtained from the configured source.
pub(super) struct Got {
    pub token: String,
    pub how: String,
    pub evidence: Vec<Seq>,
}

/// The RFC 8707 `resource` for this server: the metadata's `resource` when it names the
/// server (or a parent of its URL), else the server's canonical URL.
pub(super) fn resource_for(s: &Session, url: &str) -> String {
    let server = canonical(url).unwrap_or_else(|| url.to_string());
    s.oauth
        .prm
        .as_ref()
        .and_then(|p| p.found.as_ref())
        .and_then(|d| d.str("resource"))
        .and_then(canonical)
        .filter(|r| *r == server || server.starts_with(&format!("{r}/")))
        .unwrap_or(server)
}

/// The token endpoint the discovery found.
pub(super) fn token_endpoint(s: &Session) -> Option<(String, Vec<Seq>)> {
    let d = s.oauth.server.as_ref()?;
    let doc = d.found.as_ref()?;
    Some((doc.str("token_endpoint")?.to_string(), vec![doc.seq]))
}

/// Gets the token of the configured source. `Ok(None)`: nothing configured (and nothing
/// stored), recorded as a skip; `Err`: a failure, recorded and the run blocked.
pub(super) async fn acquire(
    s: &mut Session,
    http: &AuthHttp,
    url: &str,
    resource: &str,
    grant: Grant,
) -> Result<Option<Got>, ()> {
    let TargetSpec::Http { auth, .. } = s.spec.target.clone() else {
        return Ok(None);
    };
    let resolved = s
        .connector
        .as_ref()
        .map(|c| c.resolved().clone())
        .unwrap_or_default();
    let fail = |s: &mut Session, detail: String, ev: Vec<Seq>| {
        let f = TOKEN_ACQUIRED.fail(detail.clone());
        let f = if ev.is_empty() {
            f.without_exchange()
        } else {
            f.evidence(ev)
        };
        s.add(f);
        s.block(format!("scout could not get a token: {detail}"));
        Err(())
    };
    match grant {
        Grant::Static => {
            let Some(t) = resolved.token else {
                return fail(
                    s,
                    "the configured token could not be read".into(),
                    Vec::new(),
                );
            };
            let from = auth
                .token
                .as_ref()
                .map(|x| x.describe())
                .unwrap_or_default();
            Ok(Some(Got {
                how: format!(
                    "A ready bearer token from {from}: {}",
                    describe_token(&t, None, None)
                ),
                token: t,
                evidence: Vec::new(),
            }))
        }
        Grant::ClientCredentials | Grant::Refresh => {
            let Some((endpoint, ev)) = token_endpoint(s) else {
                let why = "scout found no token endpoint: the protected resource metadata or the authorization server metadata is missing (see the discovery findings)".to_string();
                let ev = s
                    .oauth
                    .prm
                    .as_ref()
                    .map(Discovery::evidence)
                    .unwrap_or_default();
                return fail(s, why, ev);
            };
            let client_id = auth.client_id.clone().unwrap_or_default();
            let client = token::Client {
                token_endpoint: &endpoint,
                client_id: &client_id,
                client_secret: resolved.client_secret.as_deref(),
            };
            let scope = auth.scope.as_deref();
            let (outcome, what) = if grant == Grant::Refresh {
                let rt = resolved.refresh_token.clone().unwrap_or_default();
                (
                    token::refresh(http, client, &rt, scope, resource).await,
                    format!("the refresh token grant (client `{client_id}`)"),
                )
            } else {
                (
                    token::client_credentials(http, client, scope, resource).await,
                    format!("OAuth client credentials (client `{client_id}`)"),
                )
            };
            match outcome {
                Ok(t) => {
                    let mut how = format!(
                        "A token from {what} at {endpoint} for resource {resource}: {}",
                        describe_token(&t.token, t.expires_in, t.scope.as_deref())
                    );
                    if grant == Grant::Refresh && t.refresh_token.is_some() {
                        how.push_str(". The authorization server issued a new refresh token (rotation): the one scout was given may no longer work, and scout cannot show the new one");
                    }
                    let mut evidence = ev;
                    evidence.extend(t.evidence.iter().copied());
                    Ok(Some(Got {
                        token: t.token,
                        how,
                        evidence,
                    }))
                }
                Err(e) => {
                    let mut evidence = ev;
                    evidence.extend(e.evidence.iter().copied());
                    fail(s, format!("{what}: {}", e.message), evidence)
                }
            }
        }
        Grant::None => {
            let Some(saved) = stored(url) else {
                let headers = match &s.spec.target {
                    TargetSpec::Http { headers, .. } => headers
                        .iter()
                        .map(|(k, _)| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    TargetSpec::Stdio { .. } => String::new(),
                };
                let why = if headers.is_empty() {
                    "no credentials are configured for this server (and none stored by `scout auth login`)".to_string()
                } else {
                    format!(
                        "no bearer token is configured; the authenticated client sends the fixed headers ({headers}) instead"
                    )
                };
                s.add(TOKEN_ACQUIRED.skip(SkipReason::NotApplicable, why));
                return Ok(None);
            };
            http.secret(&saved.access_token);
            if let Some(r) = &saved.refresh_token {
                http.secret(r);
            }
            if !saved.expired(store::now()) {
                return Ok(Some(Got {
                    how: format!(
                        "The token `scout auth login` stored for this server (issuer {}, client `{}`): {}",
                        saved.issuer,
                        saved.client_id,
                        describe_token(
                            &saved.access_token,
                            saved.expires_at.map(|t| t.saturating_sub(store::now())),
                            saved.scope.as_deref()
                        )
                    ),
                    token: saved.access_token,
                    evidence: Vec::new(),
                }));
            }
            let Some(rt) = saved.refresh_token.clone() else {
                return fail(
                    s,
                    "the token `scout auth login` stored for this server has expired and came without a refresh token; run `scout auth login` again".into(),
                    Vec::new(),
                );
            };
            let client = token::Client {
                token_endpoint: &saved.token_endpoint,
                client_id: &saved.client_id,
                client_secret: None,
            };
            match token::refresh(http, client, &rt, saved.scope.as_deref(), resource).await {
                Ok(t) => {
                    let now = store::now();
                    let renewed = store::StoredToken {
                        access_token: t.token.clone(),
                        refresh_token: t.refresh_token.clone().or(Some(rt)),
                        expires_at: t.expires_in.map(|e| now + e),
                        scope: t.scope.clone().or(saved.scope.clone()),
                        saved_at: now,
                        ..saved.clone()
                    };
                    if let Some(dir) = store::dir() {
                        let _ = store::save(&dir, &renewed);
                    }
                    Ok(Some(Got {
                        how: format!(
                            "The token `scout auth login` stored had expired; scout renewed it with the stored refresh token at {}: {}",
                            saved.token_endpoint,
                            describe_token(&t.token, t.expires_in, t.scope.as_deref())
                        ),
                        token: t.token,
                        evidence: t.evidence,
                    }))
                }
                Err(e) => fail(
                    s,
                    format!(
                        "the stored login expired and renewing it failed: {}; run `scout auth login` again",
                        e.message
                    ),
                    e.evidence,
                ),
            }
        }
    }
}
