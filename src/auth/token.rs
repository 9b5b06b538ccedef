//! Getting a bearer token at an authorization server's token endpoint with the `oauth2`
//! crate: client credentials, a refresh token, or an authorization code with its PKCE
//! verifier. Every grant sends the RFC 8707 `resource` parameter (the MCP server's canonical
//! URI). Every token, refresh token and secret is registered with the run's redactor the
//! moment it exists; the requests go through [`AuthHttp`], so they are recorded (masked).
//!
//! The client authenticates the way it is registered (RFC 7591 `token_endpoint_auth_method`):
//! `client_secret_basic`, `client_secret_post`, `none`, or `private_key_jwt` with a signed
//! assertion (RFC 7523 §2.2).

use base64::Engine as _;
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthorizationCode, ClientId, ClientSecret, PkceCodeVerifier, RedirectUrl,
    RefreshToken, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use serde_json::{Map, Value};

use crate::auth::http::{AuthHttp, TransportError};
use crate::report::exchange::Seq;

/// A token the authorization server issued. The values are secrets: `Debug` hides them.
#[derive(Clone, PartialEq)]
pub struct Acquired {
    /// The access token.
    pub token: String,
    /// Lifetime in seconds, when the token endpoint said.
    pub expires_in: Option<u64>,
    /// The granted scope, when the token endpoint said.
    pub scope: Option<String>,
    /// A refresh token, when one was issued (a new one after a refresh: rotation).
    pub refresh_token: Option<String>,
    /// The token request(s).
    pub evidence: Vec<Seq>,
}

impl std::fmt::Debug for Acquired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Acquired")
            .field("token", &"[secret]")
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "[secret]"),
            )
            .field("evidence", &self.evidence)
            .finish()
    }
}

/// A token request that did not produce a token.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct TokenError {
    /// One line: what the authorization server said, or why it could not be asked.
    pub message: String,
    /// The OAuth `error` code, when the server sent one (`invalid_client`, `invalid_target` …).
    pub error: Option<String>,
    pub evidence: Vec<Seq>,
}

/// The client scout acts as at one token endpoint.
#[derive(Clone, Copy)]
pub struct Client<'a> {
    pub token_endpoint: &'a str,
    pub client_id: &'a str,
    /// Confidential clients only (never printed).
    pub client_secret: Option<&'a str>,
}

impl std::fmt::Debug for Client<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.map(|_| "[secret]"))
            .finish()
    }
}

/// How a client authenticates at the token endpoint: the values of RFC 7591
/// `token_endpoint_auth_method` scout speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// A public client: only `client_id` in the body.
    None,
    /// The secret in an HTTP Basic header (RFC 6749 §2.3.1), OAuth's default.
    ClientSecretBasic,
    /// The secret in the form body.
    ClientSecretPost,
    /// A JWT signed with the client's private key (RFC 7523 §2.2).
    PrivateKeyJwt,
}

impl AuthMethod {
    /// The registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::None => "none",
            AuthMethod::ClientSecretBasic => "client_secret_basic",
            AuthMethod::ClientSecretPost => "client_secret_post",
            AuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// A registered name scout speaks.
    pub fn parse(name: &str) -> Option<AuthMethod> {
        match name {
            "none" => Some(AuthMethod::None),
            "client_secret_basic" => Some(AuthMethod::ClientSecretBasic),
            "client_secret_post" => Some(AuthMethod::ClientSecretPost),
            "private_key_jwt" => Some(AuthMethod::PrivateKeyJwt),
            _ => None,
        }
    }

    /// The method for a client holding a secret or a key, given the authorization server's
    /// `token_endpoint_auth_methods_supported` (RFC 8414: absent means
    /// `client_secret_basic`). A secret goes in the Basic header unless the server lists only
    /// the body.
    pub fn choose(supported: Option<&[String]>, has_secret: bool, has_key: bool) -> AuthMethod {
        let lists = |m: &str| supported.is_none_or(|s| s.iter().any(|x| x == m));
        if has_key {
            AuthMethod::PrivateKeyJwt
        } else if !has_secret {
            AuthMethod::None
        } else if !lists("client_secret_basic") && lists("client_secret_post") {
            AuthMethod::ClientSecretPost
        } else {
            AuthMethod::ClientSecretBasic
        }
    }
}

/// A client with the way it authenticates. `From<Client>` keeps the old default: the secret
/// in the Basic header when there is one, else a public client.
#[derive(Debug, Clone, Copy)]
pub struct Authenticated<'a> {
    pub client: Client<'a>,
    pub method: AuthMethod,
    /// For `private_key_jwt`: the PEM of the key, and the assertion's audience (the
    /// authorization server's issuer) and the algorithms it accepts.
    pub key: Option<SigningKey<'a>>,
}

/// What signs a `private_key_jwt` assertion.
#[derive(Clone, Copy)]
pub struct SigningKey<'a> {
    pub pem: &'a str,
    pub audience: &'a str,
    /// `token_endpoint_auth_signing_alg_values_supported`, when the server lists it.
    pub algorithms: Option<&'a [String]>,
}

impl std::fmt::Debug for SigningKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("pem", &"[secret]")
            .field("audience", &self.audience)
            .finish()
    }
}

impl<'a> From<Client<'a>> for Authenticated<'a> {
    fn from(client: Client<'a>) -> Self {
        let method = if client.client_secret.is_some() {
            AuthMethod::ClientSecretBasic
        } else {
            AuthMethod::None
        };
        Authenticated {
            client,
            method,
            key: None,
        }
    }
}

impl<'a> Client<'a> {
    /// This client authenticating with `method`.
    pub fn with_method(self, method: AuthMethod) -> Authenticated<'a> {
        Authenticated {
            client: self,
            method,
            key: None,
        }
    }

    /// This client authenticating with a signed assertion (`private_key_jwt`).
    pub fn with_key(self, key: SigningKey<'a>) -> Authenticated<'a> {
        Authenticated {
            client: self,
            method: AuthMethod::PrivateKeyJwt,
            key: Some(key),
        }
    }
}

type Outcome = Result<BasicTokenResponse, RequestTokenError<TransportError, BasicErrorResponse>>;

/// Client credentials (RFC 6749 §4.4) for `resource`, with `scope` when given.
pub async fn client_credentials<'a>(
    http: &AuthHttp,
    c: impl Into<Authenticated<'a>>,
    scope: Option<&str>,
    resource: &str,
) -> Result<Acquired, TokenError> {
    let c = c.into();
    let client = basic(&c)?;
    let mut req = client
        .exchange_client_credentials()
        .add_scopes(scopes(scope))
        .add_extra_param("resource", resource.to_string());
    for (k, v) in assertion(http, &c)? {
        req = req.add_extra_param(k, v);
    }
    let outcome = req.request_async(&http.oauth2()).await;
    finish(http, outcome, "client credentials")
}

/// The refresh token grant (RFC 6749 §6) for `resource`.
pub async fn refresh<'a>(
    http: &AuthHttp,
    c: impl Into<Authenticated<'a>>,
    refresh_token: &str,
    scope: Option<&str>,
    resource: &str,
) -> Result<Acquired, TokenError> {
    http.secret(refresh_token);
    let c = c.into();
    let client = basic(&c)?;
    let rt = RefreshToken::new(refresh_token.to_string());
    let mut req = client
        .exchange_refresh_token(&rt)
        .add_scopes(scopes(scope))
        .add_extra_param("resource", resource.to_string());
    for (k, v) in assertion(http, &c)? {
        req = req.add_extra_param(k, v);
    }
    let outcome = req.request_async(&http.oauth2()).await;
    finish(http, outcome, "the refresh token grant")
}

/// The authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636) for `resource`.
pub async fn authorization_code<'a>(
    http: &AuthHttp,
    c: impl Into<Authenticated<'a>>,
    code: &str,
    verifier: &str,
    redirect_uri: &str,
    resource: &str,
) -> Result<Acquired, TokenError> {
    http.secret(code);
    http.secret(verifier);
    let c = c.into();
    let client =
        basic(&c)?.set_redirect_uri(RedirectUrl::new(redirect_uri.to_string()).map_err(|e| {
            TokenError {
                message: format!("the redirect URI {redirect_uri} is not a URL: {e}"),
                error: None,
                evidence: Vec::new(),
            }
        })?);
    let req = client
        .exchange_code(AuthorizationCode::new(code.to_string()))
        .set_pkce_verifier(PkceCodeVerifier::new(verifier.to_string()))
        .add_extra_param("resource", resource.to_string());
    let outcome = req.request_async(&http.oauth2()).await;
    finish(http, outcome, "the authorization code grant")
}

fn scopes(scope: Option<&str>) -> Vec<Scope> {
    scope
        .unwrap_or("")
        .split_whitespace()
        .map(|s| Scope::new(s.to_string()))
        .collect()
}

type Basic = oauth2::Client<
    BasicErrorResponse,
    BasicTokenResponse,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

fn basic(a: &Authenticated<'_>) -> Result<Basic, TokenError> {
    let c = a.client;
    let url = TokenUrl::new(c.token_endpoint.to_string()).map_err(|e| TokenError {
        message: format!("the token endpoint {} is not a URL: {e}", c.token_endpoint),
        error: None,
        evidence: Vec::new(),
    })?;
    let client = BasicClient::new(ClientId::new(c.client_id.to_string())).set_token_uri(url);
    // oauth2 sends `client_id` in the body whenever no secret is set: a public client, or one
    // that proves itself with an assertion instead.
    Ok(match (a.method, c.client_secret) {
        (AuthMethod::ClientSecretBasic, Some(s)) => {
            client.set_client_secret(ClientSecret::new(s.to_string()))
        }
        (AuthMethod::ClientSecretPost, Some(s)) => client
            .set_client_secret(ClientSecret::new(s.to_string()))
            .set_auth_type(AuthType::RequestBody),
        _ => client,
    })
}

/// The RFC 7523 parameters of a `private_key_jwt` client (none for the other methods).
fn assertion(
    http: &AuthHttp,
    a: &Authenticated<'_>,
) -> Result<Vec<(&'static str, String)>, TokenError> {
    if a.method != AuthMethod::PrivateKeyJwt {
        return Ok(Vec::new());
    }
    let Some(key) = a.key else {
        return Err(TokenError {
            message: "the client is registered for private_key_jwt but no key is configured (client_key_file / --client-key-file)".into(),
            error: None,
            evidence: Vec::new(),
        });
    };
    let jwt = client_assertion(a.client.client_id, key).map_err(|why| TokenError {
        message: why,
        error: None,
        evidence: Vec::new(),
    })?;
    // A bearer credential for its lifetime: masked like the secret it replaces.
    http.secret(&jwt);
    Ok(vec![
        (
            "client_assertion_type",
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_string(),
        ),
        ("client_assertion", jwt),
    ])
}

/// A client assertion (RFC 7523 §3): `iss` and `sub` the client id, `aud` the authorization
/// server's issuer, a minute's lifetime and a fresh `jti`, signed with the client's key. The
/// algorithm follows the key (EC → ES256/ES384, RSA → RS256/PS256, Ed25519 → EdDSA),
/// preferring one the server lists.
pub fn client_assertion(client_id: &str, key: SigningKey<'_>) -> Result<String, String> {
    use jsonwebtoken::{Algorithm, EncodingKey, Header};
    let listed = |a: &str| key.algorithms.is_some_and(|l| l.iter().any(|x| x == a));
    let pem = key.pem.as_bytes();
    let (alg, enc) = if let Ok(k) = EncodingKey::from_ec_pem(pem) {
        let alg = if listed("ES384") && !listed("ES256") {
            Algorithm::ES384
        } else {
            Algorithm::ES256
        };
        (alg, k)
    } else if let Ok(k) = EncodingKey::from_rsa_pem(pem) {
        let alg = if listed("PS256") && !listed("RS256") {
            Algorithm::PS256
        } else {
            Algorithm::RS256
        };
        (alg, k)
    } else if let Ok(k) = EncodingKey::from_ed_pem(pem) {
        (Algorithm::EdDSA, k)
    } else {
        return Err(
            "the client key (client_key_file) is not a PEM EC, RSA or Ed25519 private key".into(),
        );
    };
    let now = crate::auth::store::now();
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": key.audience,
        "iat": now,
        "exp": now + 60,
        "jti": uuid::Uuid::new_v4().to_string(),
    });
    jsonwebtoken::encode(&Header::new(alg), &claims, &enc)
        .map_err(|e| format!("could not sign the client assertion with the client key: {e}"))
}

fn finish(http: &AuthHttp, outcome: Outcome, grant: &str) -> Result<Acquired, TokenError> {
    let evidence = http.take_oauth2_seqs();
    match outcome {
        Ok(r) => {
            let token = r.access_token().secret().to_string();
            http.secret(&token);
            let refresh_token = r.refresh_token().map(|t| t.secret().to_string());
            if let Some(t) = &refresh_token {
                http.secret(t);
            }
            Ok(Acquired {
                token,
                expires_in: r.expires_in().map(|d| d.as_secs()),
                scope: r
                    .scopes()
                    .map(|s| s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(" ")),
                refresh_token,
                evidence,
            })
        }
        Err(RequestTokenError::ServerResponse(e)) => {
            let code = e.error().as_ref().to_string();
            let desc = e
                .error_description()
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            Err(TokenError {
                message: format!("the token endpoint refused {grant} with `{code}`{desc}"),
                error: Some(code),
                evidence,
            })
        }
        Err(RequestTokenError::Request(e)) => Err(TokenError {
            message: format!("the token endpoint could not be reached for {grant}: {e}"),
            error: None,
            evidence,
        }),
        Err(RequestTokenError::Parse(e, _body)) => Err(TokenError {
            // Never the body: it may hold a token.
            message: format!(
                "the token endpoint's answer to {grant} is not a token response ({})",
                e.path()
            ),
            error: None,
            evidence,
        }),
        Err(RequestTokenError::Other(why)) => Err(TokenError {
            message: format!("the token endpoint's answer to {grant} was not usable: {why}"),
            error: None,
            evidence,
        }),
    }
}

/// The claims of a JWT access token, decoded without verification (scout only reads `aud`
/// and `exp` to describe the token; the server is the one that must verify it). `None` for
/// opaque tokens.
pub fn jwt_claims(token: &str) -> Option<Map<String, Value>> {
    let mut parts = token.split('.');
    let (_h, p, _s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(p.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice::<Value>(&bytes).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// The `aud` claim as a list.
pub fn audiences(claims: &Map<String, Value>) -> Vec<String> {
    match claims.get("aud") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// A random bearer token that no authorization server issued: well-formed (RFC 6750
/// `b64token` characters), 43 characters like a 256-bit base64url value.
pub fn garbage_token() -> String {
    let raw = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()];
    let bytes: Vec<u8> = raw.iter().flat_map(|u| *u.as_bytes()).collect();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&bytes[..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_jwt_claims_and_ignores_opaque_tokens() {
        let b = |v: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
        let jwt = format!(
            "{}.{}.sig",
            b(r#"{"alg":"RS256"}"#),
            b(r#"{"aud":["https://a/mcp","x"],"exp":5}"#)
        );
        let c = jwt_claims(&jwt).expect("claims");
        assert_eq!(audiences(&c), ["https://a/mcp", "x"]);
        assert_eq!(c["exp"], 5);
        assert!(jwt_claims("opaque-token").is_none());
        assert!(jwt_claims("a.b.c.d").is_none());
        assert!(jwt_claims("a.!!!.c").is_none());
    }

    #[test]
    fn the_auth_method_follows_what_the_server_lists() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // RFC 8414: an absent list means client_secret_basic.
        assert_eq!(
            AuthMethod::choose(None, true, false),
            AuthMethod::ClientSecretBasic
        );
        let post = list(&["client_secret_post"]);
        assert_eq!(
            AuthMethod::choose(Some(&post), true, false),
            AuthMethod::ClientSecretPost
        );
        let both = list(&["client_secret_post", "client_secret_basic"]);
        assert_eq!(
            AuthMethod::choose(Some(&both), true, false),
            AuthMethod::ClientSecretBasic
        );
        assert_eq!(
            AuthMethod::choose(Some(&post), false, false),
            AuthMethod::None
        );
        assert_eq!(
            AuthMethod::choose(None, false, true),
            AuthMethod::PrivateKeyJwt
        );
        for m in [
            "none",
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
        ] {
            assert_eq!(AuthMethod::parse(m).map(AuthMethod::as_str), Some(m));
        }
        assert_eq!(AuthMethod::parse("tls_client_auth"), None);
    }

    /// A throwaway P-256 key made for this test only.
    const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg8UZ48MB7Owux4Dqr\n6nzw7s4a9W7MZ76uIDYrRE3SpNOhRANCAAQlcdw9i70iSxRhIBErczAMMfrqjQXR\nEfXCjmIB+D+FlpAdQRxDACo4kmHphagmcG46Y2v4ZUm58/R89gvu6LFf\n-----END PRIVATE KEY-----";
    const TEST_PUB: &str = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEJXHcPYu9IksUYSARK3MwDDH66o0F\n0RH1wo5iAfg/hZaQHUEcQwAqOJJh6YWoJnBuOmNr+GVJufP0fPYL7uixXw==\n-----END PUBLIC KEY-----";

    #[test]
    fn a_client_assertion_is_signed_for_the_issuer_by_the_client() {
        let jwt = client_assertion(
            "client-1",
            SigningKey {
                pem: TEST_KEY,
                audience: "https://auth.example.com",
                algorithms: None,
            },
        )
        .expect("signed");
        let key = jsonwebtoken::DecodingKey::from_ec_pem(TEST_PUB.as_bytes()).expect("public key");
        let mut v = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        v.set_audience(&["https://auth.example.com"]);
        v.set_issuer(&["client-1"]);
        let got = jsonwebtoken::decode::<serde_json::Value>(&jwt, &key, &v).expect("verifies");
        assert_eq!(got.claims["sub"], "client-1");
        assert!(got.claims["jti"].as_str().is_some_and(|j| !j.is_empty()));
        let exp = got.claims["exp"].as_u64().unwrap_or(0);
        assert!(exp <= crate::auth::store::now() + 60, "{exp}");
        assert!(
            client_assertion(
                "c",
                SigningKey {
                    pem: "not a key",
                    audience: "a",
                    algorithms: None
                }
            )
            .is_err()
        );
    }

    #[test]
    fn garbage_tokens_are_well_formed_and_fresh() {
        let a = garbage_token();
        assert_eq!(a.len(), 43);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert_ne!(a, garbage_token());
    }
}
