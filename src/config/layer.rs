//! One layer of configuration as written by a person: a profile table of `scout.toml`, the
//! `SCOUT_*` environment, or the flags. Every field is optional (a layer says only what it
//! sets) and unknown keys are refused, so a typo is an error and not a silently ignored
//! setting.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The keys every layer may set (docs/configuration.md). `None` = this layer does not set it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_under: Option<u8>,
    /// Phase name → minimum category score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_under_category: Option<BTreeMap<String, u8>>,
    /// `critical`, `major` or `minor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_dir: Option<PathBuf>,
    /// Report formats written into `out_dir`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formats: Option<List>,
    /// Per-request timeout (`10s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<DurationText>,
    /// Whole-server deadline (`2m`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DurationText>,
    /// Requests per second towards remote hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps: Option<f64>,
    /// Servers checked at the same time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<usize>,
    /// Requests in flight at once per server (loopback HTTP and stdio; remote hosts are
    /// paced by `rps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_mutations: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_load: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_era_check: Option<bool>,
    /// Treat loopback HTTP servers as remote for every policy decision (the rate limit…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub treat_as_remote: Option<bool>,
    /// Response body cap in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_body: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_warn_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<List>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<List>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<ChecksTable>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<PathBuf>,
    // Credentials: defaults for every HTTP server whose entry sets none of its own.
    /// Environment variable holding a ready bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    /// File holding a ready bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_file: Option<PathBuf>,
    /// OAuth client id (pre-registered with the authorization server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Environment variable holding the OAuth client secret (client credentials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_env: Option<String>,
    /// File holding the OAuth client secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_file: Option<PathBuf>,
    /// Environment variable holding a refresh token exchanged at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token_env: Option<String>,
    /// File holding a refresh token exchanged at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token_file: Option<PathBuf>,
    /// Scope to ask the authorization server for (space-separated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// A scope too small for the server, for `auth.scope_challenge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_scope: Option<String>,
    /// The issuer of the authorization server the credentials belong to: scout sends them
    /// to no other one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// File holding the client's private key (PEM), for `private_key_jwt` (RFC 7523).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_key_file: Option<PathBuf>,
    /// Use a refresh token from an environment variable although rotation invalidates it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_refresh_rotation: Option<bool>,
    /// The catalogue lock file (default: `scout.lock` beside the config file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<PathBuf>,
    /// PEM certificates trusted beside the web PKI roots (a company's own certificate
    /// authority), for every HTTPS request scout makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<ServerEntry>>,
}

/// The top-level keys of a layer, in the order `config show` prints them.
pub const KEYS: &[&str] = &[
    "fail_under",
    "fail_under_category",
    "fail_on",
    "out_dir",
    "formats",
    "timeout",
    "deadline",
    "rps",
    "jobs",
    "concurrency",
    "allow_mutations",
    "allow_destructive",
    "allow_load",
    "skip_era_check",
    "treat_as_remote",
    "max_body",
    "context_warn_tokens",
    "only",
    "skip",
    "checks",
    "baseline",
    "token_env",
    "token_file",
    "client_id",
    "client_secret_env",
    "client_secret_file",
    "refresh_token_env",
    "refresh_token_file",
    "scope",
    "limited_scope",
    "issuer",
    "client_key_file",
    "allow_refresh_rotation",
    "lock",
    "ca_file",
    "servers",
];

/// The credential keys (top level and per server); a server that sets any of them ignores
/// the top-level ones.
pub const CREDENTIAL_KEYS: &[&str] = &[
    "token_env",
    "token_file",
    "client_id",
    "client_secret_env",
    "client_secret_file",
    "refresh_token_env",
    "refresh_token_file",
    "scope",
    "limited_scope",
    "issuer",
    "client_key_file",
    "allow_refresh_rotation",
];

/// A list written either as an array or as one comma-separated string (handy in `SCOUT_ONLY`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum List {
    Items(Vec<String>),
    Csv(String),
}

impl List {
    /// The items, trimmed, empty ones dropped.
    pub fn items(&self) -> Vec<String> {
        let raw: Vec<String> = match self {
            List::Items(v) => v.clone(),
            List::Csv(s) => s.split(',').map(str::to_string).collect(),
        };
        raw.into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    }
}

/// A duration as written: `"10s"` or a bare number of seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DurationText {
    Text(String),
    Seconds(f64),
}

impl DurationText {
    /// The text `duration::parse` reads.
    pub fn text(&self) -> String {
        match self {
            DurationText::Text(s) => s.clone(),
            DurationText::Seconds(n) => n.to_string(),
        }
    }
}

/// `[<profile>.checks]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChecksTable {
    /// Findings of these checks are reported as ignored and do not count.
    #[serde(default)]
    pub ignore: Vec<IgnoreEntry>,
}

/// One `{ id, reason }` of `[checks] ignore`; the reason is required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IgnoreEntry {
    pub id: String,
    pub reason: String,
}

/// One `[[<profile>.servers]]` entry: where the server is and its per-server overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Program and arguments of a stdio server; no shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// A command scout starts before checking an HTTP server and stops after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Vec<String>>,
    /// Fixed headers; a value `env:VAR` is read from the environment (and is a secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    // The credential keys again, as in `Layer` (the top-level defaults): written out rather
    // than a `#[serde(flatten)]` struct, because flatten turns off `deny_unknown_fields`, and
    // a misspelt key must stay an error that names it. `credential_keys!` reads both alike.
    /// Environment variable holding a ready bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    /// File holding a ready bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_file: Option<PathBuf>,
    /// OAuth client id (pre-registered with the authorization server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Environment variable holding the OAuth client secret (client credentials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_env: Option<String>,
    /// File holding the OAuth client secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_file: Option<PathBuf>,
    /// Environment variable holding a refresh token exchanged at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token_env: Option<String>,
    /// File holding a refresh token exchanged at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token_file: Option<PathBuf>,
    /// Scope to ask the authorization server for (space-separated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// A scope too small for the server, for `auth.scope_challenge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_scope: Option<String>,
    /// The issuer of the authorization server the credentials belong to: scout sends them
    /// to no other one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// File holding the client's private key (PEM), for `private_key_jwt` (RFC 7523).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_key_file: Option<PathBuf>,
    /// Use a refresh token from an environment variable although rotation invalidates it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_refresh_rotation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdio_env: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdio_set: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdio_dir: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<DurationText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DurationText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_mutations: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_under: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolEntry>>,
}

/// The credential keys of a layer or a server entry, as one group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CredentialKeys {
    pub token_env: Option<String>,
    pub token_file: Option<PathBuf>,
    pub client_id: Option<String>,
    pub client_secret_env: Option<String>,
    pub client_secret_file: Option<PathBuf>,
    pub refresh_token_env: Option<String>,
    pub refresh_token_file: Option<PathBuf>,
    pub scope: Option<String>,
    pub limited_scope: Option<String>,
    pub issuer: Option<String>,
    pub client_key_file: Option<PathBuf>,
    pub allow_refresh_rotation: Option<bool>,
}

macro_rules! credential_keys {
    ($t:ty) => {
        impl $t {
            /// The credential keys this one sets.
            pub fn credentials(&self) -> CredentialKeys {
                CredentialKeys {
                    token_env: self.token_env.clone(),
                    token_file: self.token_file.clone(),
                    client_id: self.client_id.clone(),
                    client_secret_env: self.client_secret_env.clone(),
                    client_secret_file: self.client_secret_file.clone(),
                    refresh_token_env: self.refresh_token_env.clone(),
                    refresh_token_file: self.refresh_token_file.clone(),
                    scope: self.scope.clone(),
                    limited_scope: self.limited_scope.clone(),
                    issuer: self.issuer.clone(),
                    client_key_file: self.client_key_file.clone(),
                    allow_refresh_rotation: self.allow_refresh_rotation,
                }
            }
        }
    };
}
credential_keys!(Layer);
credential_keys!(ServerEntry);

impl CredentialKeys {
    /// True when no key is set.
    pub fn is_empty(&self) -> bool {
        *self == CredentialKeys::default()
    }
}

/// `[[<profile>.servers.tools]]`: fixed arguments for one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolEntry {
    pub name: String,
    #[serde(default = "empty_object")]
    pub arguments: serde_json::Value,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// The built-in defaults (the lowest layer).
pub fn defaults() -> Layer {
    Layer {
        timeout: Some(DurationText::Text("10s".into())),
        deadline: Some(DurationText::Text("120s".into())),
        rps: Some(2.0),
        jobs: Some(4),
        concurrency: Some(crate::spec::DEFAULT_CONCURRENCY),
        allow_mutations: Some(false),
        allow_destructive: Some(false),
        allow_load: Some(false),
        skip_era_check: Some(false),
        max_body: Some(16 * 1024 * 1024),
        context_warn_tokens: Some(20_000),
        ..Layer::default()
    }
}
