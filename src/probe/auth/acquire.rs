//! Getting the token the run sends, from the configured source: a ready token, OAuth client
//! credentials or a refresh token at the token endpoint discovery found, or the token
//! `scout auth login` stored (renewed with its refresh token once expired). A failure is
//! `auth.token_acquired` failing and the run blocked; nothing configured is a skip.
//!
//! A credential goes only to an authorization server whose metadata passed discovery
//! ([`binding`]): when the configuration binds it elsewhere (`issuer`), or a refresh token
//! from the environment would be lost to rotation, the run stops before the grant with a
//! `policy` skip, which `scout check` turns into exit 2 (the operator's configuration).

use crate::auth::binding::{self, Bound, Refusal};
use crate::auth::http::AuthHttp;
use crate::auth::metadata::{Discovery, canonical};
use crate::auth::token::{AuthMethod, SigningKey};
use crate::auth::{AuthSpec, Grant, Resolved, SecretSource, store, token};
use crate::probe::Session;
use crate::probe::auth::{TOKEN_ACQUIRED, describe_token, stored};
use crate::report::exchange::Seq;
use crate::report::finding::SkipReason;
use crate::spec::TargetSpec;

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
        .filter(|r| binding::resource_identifies(r, url))
        .and_then(canonical)
        .unwrap_or(server)
}

/// The authorization server a credential may go to, with the metadata exchanges that showed
/// it, or why none may. `issuer`: the one the credential is bound to (configured, or the one
/// a stored login came from).
/// The authorization server the configured credential may be used with, for probes that
/// ask it for extra tokens (see [`bound`]).
pub(super) fn bound_server(s: &Session) -> Option<Bound> {
    bound(s, None).ok().map(|(b, _)| b)
}

fn bound(s: &Session, issuer: Option<&str>) -> Result<(Bound, Vec<Seq>), Refusal> {
    let url = match &s.spec.target {
        TargetSpec::Http { url, .. } => url.as_str(),
        TargetSpec::Stdio(..) => "",
    };
    let missing = || {
        Refusal::Metadata("scout found no token endpoint: the protected resource metadata or the authorization server metadata is missing (see the discovery findings)".to_string())
    };
    let prm = s
        .oauth
        .prm
        .as_ref()
        .and_then(|p| p.found.as_ref())
        .ok_or_else(missing)?;
    // The resource first: metadata for another resource names nothing scout may use.
    binding::check_resource(url, prm)?;
    let followed = s.oauth.issuer.as_deref().ok_or_else(missing)?;
    binding::check_issuer_binding(issuer, followed)?;
    let server = s
        .oauth
        .server
        .as_ref()
        .and_then(|d| d.found.as_ref())
        .ok_or_else(missing)?;
    let b = binding::check(
        binding::Found {
            server_url: url,
            prm,
            issuer: followed,
            server,
            treat_as_remote: s.spec.treat_as_remote,
        },
        issuer,
    )?;
    Ok((b, vec![prm.seq, server.seq]))
}

/// The evidence of the discovery so far (for a refusal that cites what it read).
fn discovery_evidence(s: &Session) -> Vec<Seq> {
    let mut ev: Vec<Seq> = [&s.oauth.prm, &s.oauth.server]
        .into_iter()
        .flatten()
        .flat_map(Discovery::evidence)
        .collect();
    ev.sort_unstable();
    ev.dedup();
    ev
}

/// The client as configured, authenticating the way the authorization server takes: a key
/// signs a `private_key_jwt` assertion; a secret goes where the server's
/// `token_endpoint_auth_methods_supported` says.
pub(super) fn configured_client<'a>(
    b: &'a Bound,
    client_id: &'a str,
    resolved: &'a Resolved,
) -> token::Authenticated<'a> {
    let base = token::Client {
        token_endpoint: &b.token_endpoint,
        client_id,
        client_secret: resolved.client_secret.as_deref(),
    };
    match &resolved.client_key {
        Some(pem) => base.with_key(SigningKey {
            pem,
            audience: &b.issuer,
            algorithms: b.signing_algs.as_deref(),
        }),
        None => base.with_method(AuthMethod::choose(
            b.auth_methods.as_deref(),
            resolved.client_secret.is_some(),
            false,
        )),
    }
}

/// After a refresh grant: keeps a rotated refresh token where the old one came from, before
/// anything else happens, so the next run has a token that works. `Ok(note)` for the
/// finding; `Err` when the file could not be written.
fn keep_rotated(auth: &AuthSpec, new: Option<&str>) -> Result<String, String> {
    let Some(new) = new else {
        return Ok(String::new());
    };
    match &auth.refresh_token {
        Some(SecretSource::File(path)) => store::replace_secret_file(path, new)
            .map(|()| format!(". The authorization server issued a new refresh token (rotation); scout wrote it to {} (0600) in place of the one it used", path.display()))
            .map_err(|e| format!("the authorization server issued a new refresh token (rotation) but scout could not write it to {}: {e}; the old one may no longer work, so put a fresh one there before the next run", path.display())),
        _ => Ok(". The authorization server issued a new refresh token (rotation): the one scout was given may no longer work, and scout cannot show the new one (--allow-refresh-rotation)".to_string()),
    }
}

/// Stops the run because the configuration says not to send the credential: a `policy`
/// skip (exit 2 in `scout check`) and the run blocked, with one line.
fn config_stop(s: &mut Session, why: String) -> Result<Option<Got>, ()> {
    s.add(TOKEN_ACQUIRED.skip(SkipReason::Policy, why.clone()));
    s.block(why);
    Err(())
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
    match grant {
        Grant::Static => {
            let from = auth
                .token
                .as_ref()
                .map(|x| x.describe())
                .unwrap_or_default();
            acquire_static(s, resolved.token, &from)
        }
        Grant::ClientCredentials | Grant::Refresh => {
            acquire_grant(s, http, resource, grant, &auth, &resolved).await
        }
        Grant::None => acquire_stored(s, http, url, resource).await,
    }
}

/// Records the token failure, blocks the run, and gives up.
fn fail(s: &mut Session, detail: String, ev: Vec<Seq>) -> Result<Option<Got>, ()> {
    let f = TOKEN_ACQUIRED.fail(detail.clone());
    let f = if ev.is_empty() {
        f.without_exchange()
    } else {
        f.evidence(ev)
    };
    s.add(f);
    s.block(format!("scout could not get a token: {detail}"));
    Err(())
}

/// A ready bearer token from the configuration.
fn acquire_static(s: &mut Session, token: Option<String>, from: &str) -> Result<Option<Got>, ()> {
    let Some(t) = token else {
        return fail(
            s,
            "the configured token could not be read".into(),
            Vec::new(),
        );
    };
    Ok(Some(Got {
        how: format!(
            "A ready bearer token from {from}: {}",
            describe_token(&t, None, None)
        ),
        token: t,
        evidence: Vec::new(),
    }))
}

/// A token from the client-credentials or refresh-token grant at the bound issuer's token
/// endpoint.
async fn acquire_grant(
    s: &mut Session,
    http: &AuthHttp,
    resource: &str,
    grant: Grant,
    auth: &AuthSpec,
    resolved: &Resolved,
) -> Result<Option<Got>, ()> {
    if grant == Grant::Refresh
        && let Some(why) = auth.refresh_rotation_refusal()
    {
        return config_stop(s, why);
    }
    let (b, ev) = match bound(s, auth.issuer.as_deref()) {
        Ok(x) => x,
        Err(Refusal::Config(why)) => return config_stop(s, why),
        Err(Refusal::Metadata(why)) => {
            let ev = discovery_evidence(s);
            return fail(s, why, ev);
        }
    };
    let client_id = auth.client_id.clone().unwrap_or_default();
    let client = configured_client(&b, &client_id, resolved);
    let method = client.method.as_str();
    let endpoint = b.token_endpoint.clone();
    let scope = auth.scope.as_deref();
    let (outcome, what) = if grant == Grant::Refresh {
        let rt = resolved.refresh_token.clone().unwrap_or_default();
        (
            token::refresh(http, client, &rt, scope, resource).await,
            format!("the refresh token grant (client `{client_id}`, {method})"),
        )
    } else {
        (
            token::client_credentials(http, client, scope, resource).await,
            format!("OAuth client credentials (client `{client_id}`, {method})"),
        )
    };
    match outcome {
        Ok(t) => {
            let mut evidence = ev;
            evidence.extend(t.evidence.iter().copied());
            let kept = if grant == Grant::Refresh {
                keep_rotated(auth, t.refresh_token.as_deref())
            } else {
                Ok(String::new())
            };
            let note = match kept {
                Ok(note) => note,
                Err(why) => return fail(s, why, evidence),
            };
            let how = format!(
                "A token from {what} at {endpoint} (issuer {}) for resource {resource}: {}{note}",
                b.issuer,
                describe_token(&t.token, t.expires_in, t.scope.as_deref())
            );
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

/// The token `scout auth login` stored for this server, renewed with its refresh token at
/// the issuer that issued it when it has expired.
async fn acquire_stored(
    s: &mut Session,
    http: &AuthHttp,
    url: &str,
    resource: &str,
) -> Result<Option<Got>, ()> {
    let Some(saved) = stored(url) else {
        let headers = match &s.spec.target {
            TargetSpec::Http { headers, .. } => headers
                .iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            TargetSpec::Stdio(..) => String::new(),
        };
        let why = if headers.is_empty() {
            "no credentials are configured for this server (and none stored by `scout auth login`)"
                .to_string()
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
    // The stored refresh token belongs to the issuer that issued it: renewed only there.
    let b = match bound(s, Some(&saved.issuer)) {
        Ok((b, _)) => b,
        Err(r) => {
            let why = format!(
                "the token `scout auth login` stored for this server has expired, and scout will not renew it: {}; run `scout auth login` again",
                r.message()
            );
            let ev = discovery_evidence(s);
            return fail(s, why, ev);
        }
    };
    let client = token::Client {
        token_endpoint: &b.token_endpoint,
        client_id: &saved.client_id,
        client_secret: None,
    };
    match token::refresh(http, client, &rt, saved.scope.as_deref(), resource).await {
        Ok(t) => {
            let now = store::now();
            let renewed = store::StoredToken {
                token_endpoint: b.token_endpoint.clone(),
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
                    b.token_endpoint,
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
