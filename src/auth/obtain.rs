//! Getting a token outside a check run (`scout connect`, `tools`, `call`): the same discovery
//! and grants as the auth phase, without findings. A ready token needs nothing here (the
//! connector sends it from the start); a token stored by `scout auth login` is used while it
//! is valid.

use serde_json::json;

use crate::auth::http::AuthHttp;
use crate::auth::metadata;
use crate::auth::{AuthSpec, Grant, Resolved, SecretSource, binding, challenge, store, token};

/// Why no token was obtained: one line, and whether the operator's configuration stopped
/// it (an `issuer` binding the server's authorization server does not match, a refresh token
/// from the environment without `allow_refresh_rotation`), a usage error with exit code 2,
/// rather than the server or its authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObtainError {
    pub message: String,
    pub config: bool,
}

impl From<String> for ObtainError {
    fn from(message: String) -> Self {
        ObtainError {
            message,
            config: false,
        }
    }
}

impl From<binding::Refusal> for ObtainError {
    fn from(r: binding::Refusal) -> Self {
        ObtainError {
            message: r.message().to_string(),
            config: matches!(r, binding::Refusal::Config(_)),
        }
    }
}

/// A token obtained, and the scope it carries (the granted one when the token endpoint
/// said, else the one asked for): what a later step-up adds to.
#[derive(Clone, PartialEq, Eq)]
pub struct Obtained {
    pub token: String,
    pub scope: Option<String>,
}

impl std::fmt::Debug for Obtained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Obtained")
            .field("token", &"[secret]")
            .field("scope", &self.scope)
            .finish()
    }
}

/// A grant again, in the middle of a conversation: the challenge the server sent (so no
/// request without credentials is needed to provoke one) and the scope to ask for.
#[derive(Debug, Clone, Copy)]
pub struct Again<'a> {
    pub seen: &'a challenge::Seen,
    pub scope: Option<&'a str>,
}

/// The bearer token to send to `url`, when the configured source gives one. `Ok(None)`: no
/// token needed or configured (the server may be open); `Err`: one line saying why not. A
/// credential goes only where [`binding::check`] allows, as in a check run. `again`: a
/// re-authorization after a challenge (a stored login is not reused then; the caller logs in
/// again).
pub async fn obtain(
    http: &AuthHttp,
    url: &str,
    spec: &AuthSpec,
    resolved: &Resolved,
    treat_as_remote: bool,
    again: Option<Again<'_>>,
) -> Result<Option<Obtained>, ObtainError> {
    let grant = spec.grant();
    if grant == Grant::Refresh
        && let Some(why) = spec.refresh_rotation_refusal()
    {
        return Err(ObtainError {
            message: why,
            config: true,
        });
    }
    match grant {
        Grant::Static => return Ok(None),
        Grant::None if again.is_some() => return Ok(None),
        Grant::None => {
            let saved = store::dir().and_then(|d| store::load(&d, url));
            return Ok(saved.filter(|t| !t.expired(store::now())).map(|t| {
                http.secret(&t.access_token);
                Obtained {
                    token: t.access_token,
                    scope: t.scope,
                }
            }));
        }
        Grant::ClientCredentials | Grant::Refresh => {}
    }
    let header = match again {
        Some(a) => a.seen.resource_metadata.clone(),
        None => {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "scout", "version": env!("CARGO_PKG_VERSION")}}});
            let first = http.post_json(url, &body).await;
            if first.status != Some(401) {
                return Ok(None);
            }
            challenge::bearer(first.headers_named("www-authenticate"))
                .and_then(|c| c.param("resource_metadata").map(str::to_string))
        }
    };
    let scope = again
        .and_then(|a| a.scope)
        .or(spec.scope.as_deref())
        .map(str::to_string);
    let prm = metadata::discover(
        http,
        metadata::resource_metadata_urls(url, header.as_deref()),
    )
    .await;
    let tried = prm.tried();
    let prm = prm.found.ok_or_else(|| {
        format!(
            "{url} asks for a token but publishes no protected resource metadata (tried {tried})"
        )
    })?;
    // Metadata for another resource names nothing scout may use (RFC 9728 §3.3).
    binding::check_resource(url, &prm)?;
    let issuer = prm
        .strings("authorization_servers")
        .and_then(|v| v.into_iter().next())
        .ok_or_else(|| format!("the metadata at {} names no authorization server", prm.url))?;
    binding::check_issuer_binding(spec.issuer.as_deref(), &issuer)?;
    let asd = metadata::discover(http, metadata::authorization_server_urls(&issuer)).await;
    let server = asd.found.as_ref().ok_or_else(|| {
        format!(
            "the authorization server {issuer} publishes no metadata (tried {})",
            asd.tried()
        )
    })?;
    let b = binding::check(
        binding::Found {
            server_url: url,
            prm: &prm,
            issuer: &issuer,
            server,
            treat_as_remote,
        },
        spec.issuer.as_deref(),
    )?;
    let client_id = spec.client_id.clone().unwrap_or_default();
    let base = token::Client {
        token_endpoint: &b.token_endpoint,
        client_id: &client_id,
        client_secret: resolved.client_secret.as_deref(),
    };
    let client = match &resolved.client_key {
        Some(pem) => base.with_key(token::SigningKey {
            pem,
            audience: &b.issuer,
            algorithms: b.signing_algs.as_deref(),
        }),
        None => base.with_method(token::AuthMethod::choose(
            b.auth_methods.as_deref(),
            resolved.client_secret.is_some(),
            false,
        )),
    };
    let got = if grant == Grant::Refresh {
        let rt = resolved.refresh_token.clone().unwrap_or_default();
        let got = token::refresh(http, client, &rt, scope.as_deref(), &b.resource).await;
        if let (Ok(t), Some(SecretSource::File(path))) = (&got, &spec.refresh_token)
            && let Some(new) = &t.refresh_token
        {
            store::replace_secret_file(path, new).map_err(|e| {
                format!(
                    "the authorization server rotated the refresh token but scout could not write the new one to {}: {e}",
                    path.display()
                )
            })?;
        }
        got
    } else {
        token::client_credentials(http, client, scope.as_deref(), &b.resource).await
    };
    got.map(|t| {
        Some(Obtained {
            token: t.token,
            scope: t.scope.or(scope),
        })
    })
    .map_err(|e| ObtainError::from(e.message))
}
