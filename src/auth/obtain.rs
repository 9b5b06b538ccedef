//! Getting a token outside a check run (`scout connect`, `tools`, `call`): the same discovery
//! and grants as the auth phase, without findings. A ready token needs nothing here (the
//! connector sends it from the start); a token stored by `scout auth login` is used while it
//! is valid.

use serde_json::json;

use crate::auth::http::AuthHttp;
use crate::auth::metadata::{self, canonical};
use crate::auth::{AuthSpec, Grant, Resolved, challenge, store, token};

/// The bearer token to send to `url`, when the configured source gives one. `Ok(None)`: no
/// token needed or configured (the server may be open); `Err`: one line saying why not.
pub async fn obtain(
    http: &AuthHttp,
    url: &str,
    spec: &AuthSpec,
    resolved: &Resolved,
) -> Result<Option<String>, String> {
    let grant = spec.grant();
    match grant {
        Grant::Static => return Ok(None),
        Grant::None => {
            let saved = store::dir().and_then(|d| store::load(&d, url));
            return Ok(saved.filter(|t| !t.expired(store::now())).map(|t| {
                http.secret(&t.access_token);
                t.access_token
            }));
        }
        Grant::ClientCredentials | Grant::Refresh => {}
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "scout", "version": env!("CARGO_PKG_VERSION")}}});
    let first = http.post_json(url, &body).await;
    if first.status != Some(401) {
        return Ok(None);
    }
    let header = challenge::bearer(first.headers_named("www-authenticate"))
        .and_then(|c| c.param("resource_metadata").map(str::to_string));
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
    let issuer = prm
        .strings("authorization_servers")
        .and_then(|v| v.into_iter().next())
        .ok_or_else(|| format!("the metadata at {} names no authorization server", prm.url))?;
    let asd = metadata::discover(http, metadata::authorization_server_urls(&issuer)).await;
    let endpoint = asd
        .found
        .as_ref()
        .filter(|d| d.str("issuer") == Some(issuer.as_str()))
        .and_then(|d| d.str("token_endpoint"))
        .map(str::to_string)
        .ok_or_else(|| {
            format!("the authorization server {issuer} publishes no usable metadata with a token endpoint")
        })?;
    let server = canonical(url).unwrap_or_else(|| url.to_string());
    let resource = prm
        .str("resource")
        .and_then(canonical)
        .filter(|r| *r == server || server.starts_with(&format!("{r}/")))
        .unwrap_or(server);
    let client_id = spec.client_id.clone().unwrap_or_default();
    let client = token::Client {
        token_endpoint: &endpoint,
        client_id: &client_id,
        client_secret: resolved.client_secret.as_deref(),
    };
    let got = if grant == Grant::Refresh {
        let rt = resolved.refresh_token.clone().unwrap_or_default();
        token::refresh(http, client, &rt, spec.scope.as_deref(), &resource).await
    } else {
        token::client_credentials(http, client, spec.scope.as_deref(), &resource).await
    };
    got.map(|t| Some(t.token)).map_err(|e| e.message)
}
