//! What the operator configured for a server's credentials: where a bearer token, a client
//! secret or a refresh token comes from (never the value itself), and which OAuth grant scout
//! uses to get a token. Built by `config`, read by `client` (which resolves the secrets) and
//! by the auth phase (which runs the grant).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where a secret is read from. Secrets are never written in the config or on the command
/// line: only the name of the variable or the path of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SecretSource {
    /// An environment variable.
    Env(String),
    /// A file whose content (trimmed) is the secret.
    File(PathBuf),
}

impl SecretSource {
    /// "the environment variable X" / "the file P", for messages.
    pub fn describe(&self) -> String {
        match self {
            SecretSource::Env(v) => format!("the environment variable {v}"),
            SecretSource::File(p) => format!("the file {}", p.display()),
        }
    }

    /// Reads the secret. `what` names it in the error ("the client secret").
    pub fn read(&self, what: &str) -> Result<String, SecretError> {
        let value = match self {
            SecretSource::Env(var) => std::env::var(var).map_err(|_| SecretError::MissingEnv {
                var: var.clone(),
                what: what.to_string(),
            })?,
            SecretSource::File(path) => {
                std::fs::read_to_string(path).map_err(|e| SecretError::File {
                    path: path.clone(),
                    what: what.to_string(),
                    why: e.to_string(),
                })?
            }
        };
        let value = value.trim().to_string();
        if value.is_empty() {
            return Err(SecretError::Empty {
                from: self.describe(),
                what: what.to_string(),
            });
        }
        Ok(value)
    }
}

/// A secret that cannot be read: always the operator's configuration (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("{what} is read from the environment variable {var}, which is not set")]
    MissingEnv { var: String, what: String },
    #[error("{what} is read from the file {}, which cannot be read: {why}", path.display())]
    File {
        path: PathBuf,
        what: String,
        why: String,
    },
    #[error("{what} is read from {from}, which is empty")]
    Empty { from: String, what: String },
}

/// The credential settings of one HTTP server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthSpec {
    /// A ready bearer token (`token_env` / `token_file`).
    pub token: Option<SecretSource>,
    /// A client registered with the authorization server (`client_id`).
    pub client_id: Option<String>,
    /// Its secret (`client_secret_env` / `client_secret_file`): client credentials grant.
    pub client_secret: Option<SecretSource>,
    /// A refresh token (`refresh_token_env` / `refresh_token_file`) exchanged at the start.
    pub refresh_token: Option<SecretSource>,
    /// Scope to ask for (space-separated, as OAuth writes it).
    pub scope: Option<String>,
    /// A scope too small for the server: scout asks for a second token with only this
    /// scope and expects `403 insufficient_scope` (`auth.scope_challenge`).
    pub limited_scope: Option<String>,
    /// The `issuer` of the authorization server these credentials were registered with
    /// (`issuer` / `--issuer`). The spec binds pre-registered credentials to their issuer: when
    /// the server names another one, scout stops before sending anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// A private key (PEM) the client authenticates with instead of a secret
    /// (`client_key_file`): `private_key_jwt`, RFC 7523 (client credentials). Boxed: rarely
    /// set, and it keeps the HTTP target no larger than the stdio one needs to be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_key: Option<Box<SecretSource>>,
    /// Use a refresh token read from an environment variable even though a rotating
    /// authorization server invalidates it (`allow_refresh_rotation` /
    /// `--allow-refresh-rotation`).
    #[serde(default)]
    pub allow_refresh_rotation: bool,
}

/// How scout gets the bearer token it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// No credentials configured (a token stored by `scout auth login` may still apply).
    None,
    /// A ready token from the environment or a file.
    Static,
    /// OAuth client credentials (client id + secret).
    ClientCredentials,
    /// OAuth refresh token grant.
    Refresh,
}

impl AuthSpec {
    /// True when nothing is configured.
    pub fn is_empty(&self) -> bool {
        *self == AuthSpec::default()
    }

    /// The grant these settings select (after [`AuthSpec::validate`]).
    pub fn grant(&self) -> Grant {
        if self.token.is_some() {
            Grant::Static
        } else if self.refresh_token.is_some() {
            Grant::Refresh
        } else if self.client_id.is_some()
            && (self.client_secret.is_some() || self.client_key.is_some())
        {
            Grant::ClientCredentials
        } else {
            Grant::None
        }
    }

    /// Refuses combinations that do not name one way to a token, saying which keys to use.
    pub fn validate(&self) -> Result<(), String> {
        let oauth = self.client_id.is_some()
            || self.client_secret.is_some()
            || self.client_key.is_some()
            || self.refresh_token.is_some();
        if self.token.is_some() && oauth {
            return Err("a ready token (token_env / token_file) cannot be combined with OAuth settings (client_id, client_secret_env/_file, refresh_token_env/_file); keep one way to the token".into());
        }
        if self.client_id.is_none()
            && (self.client_secret.is_some()
                || self.client_key.is_some()
                || self.refresh_token.is_some())
        {
            return Err("a client secret, client key or refresh token needs `client_id` (--client-id): the client the authorization server issued it to".into());
        }
        if self.client_secret.is_some() && self.client_key.is_some() {
            return Err("`client_secret_env`/`_file` and `client_key_file` are two ways to authenticate the same client; keep the one the authorization server registered".into());
        }
        if self
            .issuer
            .as_deref()
            .is_some_and(|i| url::Url::parse(i).is_err())
        {
            return Err(format!(
                "`issuer` must be the authorization server's issuer URL (e.g. https://auth.example.com), got `{}`",
                self.issuer.as_deref().unwrap_or_default()
            ));
        }
        if self.issuer.is_some() && matches!(self.grant(), Grant::Static | Grant::None) {
            return Err("`issuer` binds credentials scout sends to an authorization server (client_id with a secret, key or refresh token); a ready token is sent to the MCP server only".into());
        }
        if self.client_id.is_some()
            && self.client_secret.is_none()
            && self.client_key.is_none()
            && self.refresh_token.is_none()
        {
            return Err("`client_id` alone gets no token: add `client_secret_env` (--client-secret-env) for client credentials or `refresh_token_env` (--refresh-token-env); at a desk, run `scout auth login URL --client-id ID`".into());
        }
        if self.limited_scope.is_some() && self.grant() != Grant::ClientCredentials {
            return Err("`limited_scope` needs client credentials (client_id + client_secret_env): scout asks the authorization server for a second token with only that scope".into());
        }
        if self.scope.is_some() && matches!(self.grant(), Grant::Static | Grant::None) {
            return Err("`scope` applies to tokens scout asks for (client credentials or refresh token); a ready token already has its scope".into());
        }
        Ok(())
    }

    /// Every configured secret source with what it holds, for early checks and messages.
    pub fn sources(&self) -> Vec<(&SecretSource, &'static str)> {
        let mut v = Vec::new();
        if let Some(s) = &self.token {
            v.push((s, "the bearer token"));
        }
        if let Some(s) = &self.client_secret {
            v.push((s, "the client secret"));
        }
        if let Some(s) = &self.refresh_token {
            v.push((s, "the refresh token"));
        }
        if let Some(s) = &self.client_key {
            v.push((&**s, "the client key"));
        }
        v
    }

    /// Refuses, before any request, a refresh token that a rotating authorization server
    /// would invalidate with no place to keep its successor: one read from an environment
    /// variable (a file is written back). `--allow-refresh-rotation` accepts the risk.
    pub fn refresh_rotation_refusal(&self) -> Option<String> {
        match &self.refresh_token {
            Some(SecretSource::Env(var)) if !self.allow_refresh_rotation => Some(format!(
                "the refresh token comes from the environment variable {var}, where scout cannot keep the new one a rotating authorization server issues (the old one then stops working, and under reuse detection using it again revokes the whole grant); put it in a file with refresh_token_file (--refresh-token-file PATH), which scout updates in place, or pass --allow-refresh-rotation to use it anyway"
            )),
            _ => None,
        }
    }

    /// Reads every configured secret.
    pub fn resolve(&self) -> Result<Resolved, SecretError> {
        Ok(Resolved {
            token: self
                .token
                .as_ref()
                .map(|s| s.read("the bearer token"))
                .transpose()?,
            client_secret: self
                .client_secret
                .as_ref()
                .map(|s| s.read("the client secret"))
                .transpose()?,
            refresh_token: self
                .refresh_token
                .as_ref()
                .map(|s| s.read("the refresh token"))
                .transpose()?,
            client_key: self
                .client_key
                .as_ref()
                .map(|s| s.read("the client key"))
                .transpose()?,
        })
    }
}

/// The secrets of an [`AuthSpec`], read. Never printed (no `Debug` of the values).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    pub token: Option<String>,
    pub client_secret: Option<String>,
    pub refresh_token: Option<String>,
    /// The PEM of `client_key_file`.
    pub client_key: Option<String>,
}

impl std::fmt::Debug for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolved")
            .field("token", &self.token.as_ref().map(|_| "[secret]"))
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[secret]"),
            )
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "[secret]"),
            )
            .field("client_key", &self.client_key.as_ref().map(|_| "[secret]"))
            .finish()
    }
}

impl Resolved {
    /// Every value, to register with the redactor before the first request.
    pub fn values(&self) -> Vec<&str> {
        [
            &self.token,
            &self.client_secret,
            &self.refresh_token,
            &self.client_key,
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(v: &str) -> Option<SecretSource> {
        Some(SecretSource::Env(v.into()))
    }

    #[test]
    fn grants_and_their_rules() {
        let cc = AuthSpec {
            client_id: Some("c".into()),
            client_secret: env("S"),
            scope: Some("mcp".into()),
            limited_scope: Some("other".into()),
            ..AuthSpec::default()
        };
        assert_eq!(cc.grant(), Grant::ClientCredentials);
        assert!(cc.validate().is_ok());
        let refresh = AuthSpec {
            client_id: Some("c".into()),
            refresh_token: env("R"),
            ..AuthSpec::default()
        };
        assert_eq!(refresh.grant(), Grant::Refresh);
        assert!(refresh.validate().is_ok());
        let token = AuthSpec {
            token: env("T"),
            ..AuthSpec::default()
        };
        assert_eq!(token.grant(), Grant::Static);
        for bad in [
            AuthSpec {
                client_id: Some("c".into()),
                ..AuthSpec::default()
            },
            AuthSpec {
                client_secret: env("S"),
                ..AuthSpec::default()
            },
            AuthSpec {
                token: env("T"),
                client_id: Some("c".into()),
                client_secret: env("S"),
                ..AuthSpec::default()
            },
            AuthSpec {
                token: env("T"),
                limited_scope: Some("x".into()),
                ..AuthSpec::default()
            },
            AuthSpec {
                token: env("T"),
                scope: Some("x".into()),
                ..AuthSpec::default()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn keys_issuer_and_rotation_rules() {
        let key = AuthSpec {
            client_id: Some("c".into()),
            client_key: Some(Box::new(SecretSource::File("k.pem".into()))),
            issuer: Some("https://auth.example.com".into()),
            ..AuthSpec::default()
        };
        assert_eq!(key.grant(), Grant::ClientCredentials);
        assert!(key.validate().is_ok());
        let both = AuthSpec {
            client_secret: env("S"),
            ..key.clone()
        };
        assert!(both.validate().is_err(), "a secret and a key");
        let bad_issuer = AuthSpec {
            issuer: Some("auth.example.com".into()),
            ..key.clone()
        };
        assert!(bad_issuer.validate().is_err());
        let token_with_issuer = AuthSpec {
            token: env("T"),
            issuer: Some("https://auth.example.com".into()),
            ..AuthSpec::default()
        };
        assert!(token_with_issuer.validate().is_err());

        let from_env = AuthSpec {
            client_id: Some("c".into()),
            refresh_token: env("R"),
            ..AuthSpec::default()
        };
        let why = from_env.refresh_rotation_refusal().expect("refused");
        assert!(why.contains("refresh_token_file") && why.contains("--allow-refresh-rotation"));
        let allowed = AuthSpec {
            allow_refresh_rotation: true,
            ..from_env.clone()
        };
        assert!(allowed.refresh_rotation_refusal().is_none());
        let from_file = AuthSpec {
            refresh_token: Some(SecretSource::File("rt".into())),
            ..from_env
        };
        assert!(from_file.refresh_rotation_refusal().is_none());
    }

    #[test]
    fn secrets_from_files_are_trimmed_and_never_debug_printed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("tok");
        std::fs::write(&p, "  tok-from-file-123\n").expect("write");
        let spec = AuthSpec {
            token: Some(SecretSource::File(p.clone())),
            ..AuthSpec::default()
        };
        let r = spec.resolve().expect("resolves");
        assert_eq!(r.token.as_deref(), Some("tok-from-file-123"));
        assert!(!format!("{r:?}").contains("tok-from-file"));
        std::fs::write(&p, "\n").expect("write");
        assert!(matches!(spec.resolve(), Err(SecretError::Empty { .. })));
        let missing = AuthSpec {
            token: Some(SecretSource::File(dir.path().join("none"))),
            ..AuthSpec::default()
        };
        assert!(matches!(missing.resolve(), Err(SecretError::File { .. })));
    }
}
