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
    /// The handshake revisions the revision matrix asks about (none named: every one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revisions: Option<List>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<List>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<List>,
    /// The host profiles the `compat` category judges (none named: every profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<List>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<ChecksTable>,
    /// `[client]`: the client scout plays and what it answers when the server asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientTable>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<PathBuf>,
    /// The snapshot folder (docs/expectations.md#snapshots); in a file, relative to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<PathBuf>,
    /// Accept this run's state as the snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_snapshots: Option<bool>,
    /// JSONPath patterns masked before snapshots are compared. A flat key rather than a
    /// `[snapshots]` table: `snapshots` already names the folder, and a flat list is what
    /// `SCOUT_SNAPSHOT_IGNORE` and the repeatable flag can set alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_ignore: Option<List>,
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
    "revisions",
    "only",
    "skip",
    "compat",
    "checks",
    "client",
    "baseline",
    "snapshots",
    "update_snapshots",
    "snapshot_ignore",
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

/// `[client]` (docs/configuration.md#client): the persona and its answers, as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientTable {
    /// `bare` (the default: declares nothing) or `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
    /// The answer to a form-mode elicitation: `decline` (default), `accept` (with the
    /// schema's defaults) or `cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<String>,
    /// Per tool name: the answer to elicitations made during that tool's call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<BTreeMap<String, String>>,
    /// What `roots/list` answers (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootEntry>>,
    /// What makes the server's lists change: `{ tool = "…", arguments = {…} }` or
    /// `{ command = ["…", …] }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<TriggerEntry>,
}

/// `[client] trigger`, as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
}

/// One `{ uri, name }` of `[client] roots`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RootEntry {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
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
    // a misspelt key must stay an error that names it. `credentials()` reads both alike.
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
    /// A registry `server.json` (relative to the config file): one target per remote and
    /// package it lists, each judged against the manifest's claims. With `command`, every
    /// package is started with that command instead of npx, uvx or docker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_json: Option<PathBuf>,
    /// An MCPB bundle (`.mcpb`, or a folder with `manifest.json`; relative to the config
    /// file) instead of `url`/`command`: started as its `server.mcp_config` says and judged
    /// against its manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcpb: Option<PathBuf>,
    /// Beside `server_json`: the command that starts a package, by its `identifier`
    /// (before `command`, which starts every other package).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_commands: Option<BTreeMap<String, Vec<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<DurationText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DurationText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_mutations: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_destructive: Option<bool>,
    /// `[servers.client]`: this server's own persona and answers (replaces `[client]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientTable>,
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
    /// The author's own assertions about the server (docs/expectations.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Vec<ExpectEntry>>,
}

/// The credential keys of a layer or a server entry, as one group. Read off either by
/// their serde names ([`Layer::credentials`], [`ServerEntry::credentials`]), so a key added
/// to both structs and here is read alike with no copy to keep in step.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// The keys of `value` (a layer or an entry, serialized: only the keys it sets) read into
/// `T`, keys `T` does not have left out.
fn project<T: serde::de::DeserializeOwned + Default>(value: &impl Serialize) -> T {
    // Both sides are this module's own plain structs of strings, paths, numbers and
    // booleans: the round trip cannot fail, and an empty group is the safe answer if it did.
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .unwrap_or_default()
}

impl Layer {
    /// The credential keys this layer sets.
    pub fn credentials(&self) -> CredentialKeys {
        project(self)
    }

    /// `top` laid over `self`: every key `top` sets replaces this layer's (tables and lists
    /// whole, as figment merges a higher layer's value).
    pub fn under(&self, top: &impl Serialize) -> Result<Layer, String> {
        let mut base = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        if let Ok(serde_json::Value::Object(over)) = serde_json::to_value(top) {
            base.extend(over);
        }
        serde_json::from_value(serde_json::Value::Object(base)).map_err(|e| e.to_string())
    }
}

impl ServerEntry {
    /// The credential keys this entry sets.
    pub fn credentials(&self) -> CredentialKeys {
        project(self)
    }

    /// The settings this entry overrides for its server: its keys that are also top-level
    /// keys of a layer (`timeout`, `rps`, `allow_mutations`, …), credentials aside (a server
    /// that sets any credential key replaces the top-level group whole). Read by name, so a
    /// key added to both structs is a per-server override without further code.
    pub fn overrides(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut own = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        own.retain(|k, _| KEYS.contains(&k.as_str()) && !CREDENTIAL_KEYS.contains(&k.as_str()));
        own
    }
}

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

/// `[[<profile>.servers.expect]]` as written (docs/expectations.md); `config::expect`
/// turns it into a `spec::Expectation` and says which key is wrong.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<Vec<String>>,
    /// JSON path → expected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<BTreeMap<String, serde_json::Value>>,
    /// A JSON Schema file, relative to the config file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<u32>,
    /// `mutations` or `destructive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<Vec<SetupEntry>>,
}

/// `[[<profile>.servers.expect.setup]]`: a call made before the expectation's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Value>,
    /// Variable name → JSON path into this step's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<BTreeMap<String, String>>,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// The flags' layer: whatever serializes under the keys' names, only what was given. A
/// field that names no key is refused here (and by the test that gives every flag).
pub fn from_flags(flags: &impl Serialize) -> Result<Layer, String> {
    Layer::default().under(flags)
}

/// A layer that takes back every permission beyond the default (for `scout serve`'s runs,
/// whatever the config says).
pub fn default_permissions() -> Layer {
    let d = defaults();
    Layer {
        allow_mutations: d.allow_mutations,
        allow_destructive: d.allow_destructive,
        allow_load: d.allow_load,
        ..Layer::default()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The field names serde knows for `T`: refusing an unknown key, serde lists them all.
    fn fields_of<T: serde::de::DeserializeOwned + std::fmt::Debug>() -> Vec<String> {
        let err = serde_json::from_str::<T>(r#"{"name": "x", "__not_a_key__": 0}"#)
            .expect_err("unknown keys are refused")
            .to_string();
        let list = err
            .split("expected one of ")
            .nth(1)
            .unwrap_or_else(|| panic!("serde names the fields: {err}"));
        let mut fields: Vec<String> = regex::Regex::new(r"`([a-z_]+)`")
            .expect("regex")
            .captures_iter(list)
            .map(|c| c[1].to_string())
            .collect();
        fields.sort();
        fields
    }

    fn sorted(keys: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        v.sort();
        v
    }

    /// `KEYS` decides what `config show` prints and which `SCOUT_*` variables are read: a
    /// field missing from it could be set in a file but never from the environment.
    #[test]
    fn keys_are_exactly_the_fields_of_a_layer() {
        assert_eq!(sorted(KEYS), fields_of::<Layer>());
    }

    #[test]
    fn credential_keys_are_keys_of_a_layer_and_of_a_server_entry() {
        // Every field of the group serializes (none is skipped when unset).
        let mut group: Vec<String> = match serde_json::to_value(CredentialKeys::default()) {
            Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
            other => panic!("an object: {other:?}"),
        };
        group.sort();
        assert_eq!(sorted(CREDENTIAL_KEYS), group);
        let layer = fields_of::<Layer>();
        let entry = fields_of::<ServerEntry>();
        for k in CREDENTIAL_KEYS {
            assert!(layer.contains(&k.to_string()), "{k} is not a layer key");
            assert!(entry.contains(&k.to_string()), "{k} is not a server key");
        }
    }

    #[test]
    fn credentials_are_read_off_a_layer_and_an_entry_alike() {
        let layer = Layer {
            token_env: Some("T".into()),
            scope: Some("a b".into()),
            allow_refresh_rotation: Some(true),
            timeout: Some(DurationText::Text("1s".into())),
            ..Layer::default()
        };
        let entry = ServerEntry {
            name: "x".into(),
            token_env: Some("T".into()),
            scope: Some("a b".into()),
            allow_refresh_rotation: Some(true),
            rps: Some(3.0),
            ..ServerEntry::default()
        };
        assert_eq!(layer.credentials(), entry.credentials());
        assert_eq!(layer.credentials().token_env.as_deref(), Some("T"));
        assert!(Layer::default().credentials().is_empty());
    }

    #[test]
    fn an_entry_overrides_the_layer_keys_it_sets_and_no_credential() {
        let entry = ServerEntry {
            name: "x".into(),
            url: Some("http://127.0.0.1:1/mcp".into()),
            token_env: Some("T".into()),
            rps: Some(3.0),
            allow_mutations: Some(true),
            ..ServerEntry::default()
        };
        let own: Vec<String> = entry.overrides().keys().cloned().collect();
        assert_eq!(own, ["allow_mutations", "rps"]);
        let merged = defaults().under(&entry.overrides()).expect("a layer");
        assert_eq!(merged.rps, Some(3.0));
        assert_eq!(merged.allow_mutations, Some(true));
        assert_eq!(merged.jobs, defaults().jobs);
        assert_eq!(merged.token_env, None);
    }
}
