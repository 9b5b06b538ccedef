//! What the runner hands the probes for one server: the target, its settings and policy
//! (plain data), and the handles it shares with the rest of the run ([`RunContext`]).
//! Built by `config` from the merged layers; read by `probe`, `client` and `transport`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::report::finding::Phase;
use crate::report::model::Anchor;
use crate::transport::process::ProcessConfig;

/// A header value or secret as configured: literal, or read from an environment variable.
/// Values from the environment are secrets: registered with the redactor before the first
/// request and shown as the variable name in `config show`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueSource {
    Literal(String),
    Env(String),
    /// Text and environment variables joined in order (a manifest's header template,
    /// `Bearer {api_key}`): the whole value, and each variable's, are secrets.
    Joined(Vec<ValueSource>),
}

impl ValueSource {
    /// Parses `env:VAR` or a literal.
    pub fn parse(s: &str) -> Self {
        match s.strip_prefix("env:") {
            Some(var) => ValueSource::Env(var.to_string()),
            None => ValueSource::Literal(s.to_string()),
        }
    }

    /// The environment variables the value is read from, in order.
    pub fn env_vars(&self) -> Vec<&str> {
        match self {
            ValueSource::Literal(_) => Vec::new(),
            ValueSource::Env(v) => vec![v.as_str()],
            ValueSource::Joined(parts) => parts.iter().flat_map(ValueSource::env_vars).collect(),
        }
    }

    /// True when any part is read from the environment (so the value is a secret).
    pub fn reads_env(&self) -> bool {
        !self.env_vars().is_empty()
    }
}

/// How to reach the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TargetSpec {
    /// Streamable HTTP (or legacy HTTP+SSE, detected).
    Http {
        url: String,
        /// Fixed headers sent by the authenticated client.
        headers: Vec<(String, ValueSource)>,
        /// Where the bearer token comes from (a ready token, or an OAuth grant).
        auth: crate::auth::AuthSpec,
        /// A command scout starts before the check and stops after it.
        start: Option<Vec<String>>,
    },
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout: what to start.
    Stdio(ProcessConfig),
}

/// What scout may do to a server: which tools it may call, and whether it may load it
/// (docs/safety.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicySpec {
    /// Also call tools that are not read-only but not destructive.
    pub allow_mutations: bool,
    /// Call everything, destructive tools included. Dangerous.
    pub allow_destructive: bool,
    /// Only these tools may be called (empty = no allow list).
    pub allow_tools: Vec<String>,
    /// These tools are never called.
    pub deny_tools: Vec<String>,
    /// Allow the performance load ramp (`performance.throughput`), and stress probes on a
    /// remote server.
    #[serde(default)]
    pub allow_load: bool,
}

impl PolicySpec {
    /// This policy with every permission beyond the default taken back; the server's allow
    /// and deny lists are kept (they only narrow what may be called).
    pub fn default_permissions(&self) -> PolicySpec {
        PolicySpec {
            allow_tools: self.allow_tools.clone(),
            deny_tools: self.deny_tools.clone(),
            ..PolicySpec::default()
        }
    }
}

/// Fixed arguments for one tool (`[[servers.tools]]`); they always win over generated ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolArgs {
    pub name: String,
    pub arguments: Value,
}

/// What an expectation or one of its setup steps sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectTarget {
    /// `tools/call` of this tool.
    Call(String),
    /// `prompts/get` of this prompt.
    Prompt(String),
    /// `resources/read` of this URI.
    Resource(String),
}

impl ExpectTarget {
    /// `tool search`, `prompt greet`, `resource demo://x`: for details and subjects.
    pub fn describe(&self) -> String {
        match self {
            ExpectTarget::Call(n) => format!("tool {n}"),
            ExpectTarget::Prompt(n) => format!("prompt {n}"),
            ExpectTarget::Resource(u) => format!("resource {u}"),
        }
    }
}

/// What an expectation allows beyond read-only tools (it still needs the run's flag).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectAllow {
    /// Read-only tools, prompts and resources only.
    #[default]
    ReadOnly,
    /// Also tools that are not read-only but not destructive (with `--allow-mutations`).
    Mutations,
    /// Every tool (with `--allow-destructive`).
    Destructive,
}

/// One `[[servers.expect.setup]]` step: a call whose result later steps can read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetupStep {
    pub target: ExpectTarget,
    pub arguments: Value,
    /// Variable name → JSON path into the step's result (`id` → `$.structuredContent.id`).
    pub capture: Vec<(String, String)>,
}

/// Where a server's snapshots live and how they are compared (docs/expectations.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotSpec {
    /// The snapshot folder; each server writes under `<dir>/<server name>/`.
    pub dir: std::path::PathBuf,
    /// Accept this run's state: write every file, remove pending `.new` ones.
    pub update: bool,
    /// JSONPath patterns whose values are masked before comparing (validated).
    pub ignore: Vec<String>,
}

/// One `[[servers.expect]]`: the author's assertion about one call, validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expectation {
    /// As written: the finding's title.
    pub name: String,
    /// `expect.<slug of name>`: the finding's id.
    pub id: String,
    pub target: ExpectTarget,
    /// Arguments (tools) or prompt arguments; `{{var}}` is replaced by a captured value.
    pub arguments: Value,
    /// Whether the result must be an error (`isError`, or a JSON-RPC error).
    pub is_error: bool,
    /// Substrings that must each occur in the text of the content blocks (of a JSON-RPC
    /// error: its message and data).
    pub contains: Vec<String>,
    /// JSON path → the value it must select, in config order.
    pub json: Vec<(String, Value)>,
    /// The JSON Schema (as written, and as read) that structuredContent, else the whole
    /// result (of a JSON-RPC error: the error object), must validate against.
    pub schema: Option<(String, Value)>,
    /// The slowest a trial may answer, in milliseconds.
    pub max_ms: Option<u64>,
    /// How many times the call is made; every trial must hold.
    pub trials: u32,
    pub allow: ExpectAllow,
    pub setup: Vec<SetupStep>,
}

/// Parses a JSON path (RFC 9535, as `serde_json_path` reads it).
pub fn parse_path(path: &str) -> Result<serde_json_path::JsonPath, String> {
    serde_json_path::JsonPath::parse(path).map_err(|e| e.to_string())
}

/// The names of the `{{name}}` placeholders in `s`.
pub fn placeholders(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push(&after[..end]);
        rest = &after[end + 2..];
    }
    out
}

/// Everything one server run needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerSpec {
    pub name: String,
    pub target: TargetSpec,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Whole-server deadline.
    pub deadline: Duration,
    pub policy: PolicySpec,
    pub tools: Vec<ToolArgs>,
    /// The author's own assertions about the server (`[[servers.expect]]`), in config order.
    #[serde(default)]
    pub expect: Vec<Expectation>,
    /// `--snapshots DIR`: where the catalogue and call results are kept and compared.
    #[serde(default)]
    pub snapshots: Option<SnapshotSpec>,
    /// Requests per second towards this host when it [is remote](ServerSpec::is_remote)
    /// (`None` = the default, 2). Loopback and stdio servers are never throttled.
    pub rps: Option<f64>,
    /// Treat a loopback HTTP server as remote for every policy decision (rate limit, and
    /// whatever else differs for remote hosts). For tests and for loopback tunnels to a
    /// remote server; the config key `treat_as_remote`.
    #[serde(default)]
    pub treat_as_remote: bool,
    /// Requests in flight at once towards this server (the run plan's bound; `--concurrency`,
    /// default 8). Towards remote hosts the `rps` limiter is the tighter rule.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Go straight to the handshake path.
    pub skip_era_check: bool,
    /// The handshake revisions the revision matrix asks about beside the run's own wire
    /// (empty = every handshake revision; the matrix keeps those the server accepts).
    #[serde(default)]
    pub revisions: Vec<String>,
    /// Phases to run (empty = all) and to skip.
    pub only: Vec<Phase>,
    pub skip: Vec<Phase>,
    /// The host profiles the `compat` category judges (empty = every profile).
    pub compat: Vec<crate::report::host::HostProfile>,
    /// Response body cap in bytes.
    pub max_body_bytes: usize,
    /// Warn when the catalogue is estimated above this many tokens.
    pub context_warn_tokens: u64,
    /// Where the server was declared (for report anchors).
    pub anchor: Option<Anchor>,
    /// What `scout.lock` says about this server (`security.catalog_pinning`).
    #[serde(default)]
    pub pin: PinSpec,
    /// What a published manifest (the registry's `server.json`, an MCPB bundle's
    /// `manifest.json`) promises about this target,
    /// when the target was derived from one (`manifest.*`).
    #[serde(default)]
    pub manifest: Option<ManifestClaims>,
    /// The client scout plays (`[client]`): what it declares and answers when the server
    /// asks (elicitation, sampling, roots).
    #[serde(default)]
    pub client: crate::transport::answer::Persona,
    /// `[client] trigger`: what makes the server's lists change, so that
    /// `protocol.subscriptions` can judge the delivery of list-changed notifications.
    #[serde(default)]
    pub list_trigger: Option<ListTrigger>,
}

/// What makes a server's lists change (`[client] trigger`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ListTrigger {
    /// A tool scout calls (the safety policy still decides whether it may).
    Tool { name: String, arguments: Value },
    /// A command scout runs (no shell), bounded by the request timeout.
    Command(Vec<String>),
}

/// What a published manifest says about the one target derived from it. Every claim carries
/// the manifest's JSON pointer, so a finding can name the line the author has to change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ManifestClaims {
    /// The manifest as the user named it (a file name), for messages.
    pub source: String,
    /// What was wrong with the manifest itself before anything was started (schema and
    /// the registry's semantic rules), each at its pointer.
    #[serde(default)]
    pub problems: Vec<Claim>,
    /// The server's own version (`/version`), compared with `serverInfo.version`.
    #[serde(default)]
    pub version: Option<Claim>,
    /// The transport the entry declares (`stdio`, `streamable-http`, `sse`), at its pointer.
    #[serde(default)]
    pub transport: Option<Claim>,
    /// The environment variables the entry declares as required (`isRequired`), by name.
    /// Their values are never kept here: the runner takes them from its own environment.
    #[serde(default)]
    pub required_env: Vec<Claim>,
    /// The required variables that were not set in scout's environment when the target
    /// was started (by name, at their pointer).
    #[serde(default)]
    pub missing_env: Vec<Claim>,
    /// The tools the manifest lists (an MCPB bundle's `tools`), each at its pointer
    /// (`/tools/2`) with its name; `None` when the manifest has no such list (no claim).
    #[serde(default)]
    pub tools: Option<Vec<Claim>>,
    /// The manifest says the server makes tools at runtime (`tools_generated`): a live tool
    /// it does not list is no drift.
    #[serde(default)]
    pub tools_generated: bool,
    /// The prompts the manifest lists (`prompts`), like `tools`.
    #[serde(default)]
    pub prompts: Option<Vec<Claim>>,
    /// `prompts_generated`, like `tools_generated`.
    #[serde(default)]
    pub prompts_generated: bool,
    /// The user settings a host would ask for that have no default (an MCPB bundle's
    /// required `user_config` entries): started with a placeholder, named at their pointer
    /// (`/user_config/api_key`) with the placeholder given.
    #[serde(default)]
    pub placeholders: Vec<Claim>,
    /// What an MCPB manifest's `compatibility` asks of the host; `None` when it has none.
    #[serde(default)]
    pub compatibility: Option<Box<Compatibility>>,
    /// Which format the manifest is: it decides what `/version` promises (a `server.json`'s
    /// is the server's own, an MCPB bundle's the bundle's).
    #[serde(default)]
    pub kind: ManifestKind,
    /// Why the manifest was not validated against a schema (a `$schema` version scout does
    /// not carry); `None` when it was. The registry's own rules were still held.
    #[serde(default)]
    pub schema_unchecked: Option<String>,
    /// The headers a remote declares required that scout could not fill (no value in the
    /// manifest, nothing in the environment under the documented name), each at its pointer
    /// with the header's name and the variable that would have filled it.
    #[serde(default)]
    pub unfilled_headers: Vec<UnfilledHeader>,
}

/// A header a manifest declares required that scout could not fill.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnfilledHeader {
    /// Where the manifest declares it (`/remotes/0/headers/1`).
    pub pointer: String,
    /// The header's name (`X-API-Key`).
    pub name: String,
    /// The environment variable that would have filled it (`SCOUT_HEADER_X_API_KEY`).
    pub env: String,
}

/// The format of a manifest a target was derived from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ManifestKind {
    /// The MCP Registry's `server.json`.
    #[default]
    ServerJson,
    /// An MCPB bundle's `manifest.json`.
    Mcpb,
}

/// An MCPB manifest's `compatibility`: the platforms and runtimes the bundle needs, and
/// the client versions it names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Compatibility {
    /// The host platform the bundle was started for (`linux`, `darwin`, `win32`).
    pub host_platform: String,
    /// `platforms` (`/compatibility/platforms`), the names as listed; `None` when omitted.
    #[serde(default)]
    pub platforms: Option<Vec<String>>,
    /// `runtimes`: each range at its pointer (`/compatibility/runtimes/node`).
    #[serde(default)]
    pub runtimes: Vec<Runtime>,
    /// The client version constraints (`claude_desktop`, any other client), at their pointers.
    #[serde(default)]
    pub clients: Vec<Claim>,
}

/// One runtime range of `compatibility.runtimes` and the program that would run it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Runtime {
    /// `node` or `python`.
    pub name: String,
    /// The range, at its pointer.
    pub range: Claim,
    /// The program asked for its version (`node`, `python3`, or the bundle's own command
    /// when it is that runtime).
    pub program: String,
}

/// One statement of a manifest: where it is (an RFC 6901 JSON pointer) and what it says.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub pointer: String,
    pub value: String,
}

impl Claim {
    pub fn new(pointer: impl Into<String>, value: impl Into<String>) -> Self {
        Claim {
            pointer: pointer.into(),
            value: value.into(),
        }
    }
}

/// What one server's run shares with the rest of the run: handles, not settings. The
/// runner builds one per server; a spec stays plain data that can be shown and compared.
#[derive(Debug, Clone, Default)]
pub struct RunContext {
    /// The run's id, sent as `X-MCP-Trace-ID` so server logs can be matched with the report
    /// (empty: the session makes one up).
    pub run_id: String,
    /// The rate limiter shared by every server on this one's host (`None` = the transport
    /// builds its own from the spec's `rps`).
    pub limiter: Option<crate::transport::limiter::RateLimiter>,
    /// Where live progress goes (the terminal run view and `scout serve`; `None` = nobody
    /// watches).
    pub observer: Option<crate::telemetry::events::Observer>,
}

impl RunContext {
    /// A context of its own for a run of one server, under `run_id`.
    pub fn alone(run_id: impl Into<String>) -> Self {
        RunContext {
            run_id: run_id.into(),
            ..RunContext::default()
        }
    }
}

/// The lock file's entry for one server, as the config found it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub enum PinSpec {
    /// No lock file was found.
    #[default]
    NoLock,
    /// The lock exists but does not list this server.
    Unpinned { lock: PathBuf },
    /// The server's pinned catalogue.
    Pinned {
        lock: PathBuf,
        server: crate::pin::PinnedServer,
    },
}

/// Requests in flight at once per server when the config says nothing.
pub const DEFAULT_CONCURRENCY: usize = 8;

fn default_concurrency() -> usize {
    DEFAULT_CONCURRENCY
}

impl ServerSpec {
    /// A spec with the built-in defaults for `target`.
    pub fn new(name: impl Into<String>, target: TargetSpec) -> Self {
        ServerSpec {
            name: name.into(),
            target,
            timeout: Duration::from_secs(10),
            deadline: Duration::from_secs(120),
            policy: PolicySpec::default(),
            tools: Vec::new(),
            expect: Vec::new(),
            snapshots: None,
            rps: None,
            treat_as_remote: false,
            concurrency: DEFAULT_CONCURRENCY,
            skip_era_check: false,
            revisions: Vec::new(),
            only: Vec::new(),
            compat: Vec::new(),
            skip: Vec::new(),
            max_body_bytes: 16 * 1024 * 1024,
            context_warn_tokens: 20_000,
            anchor: None,
            pin: PinSpec::NoLock,
            manifest: None,
            client: crate::transport::answer::Persona::default(),
            list_trigger: None,
        }
    }

    /// True when `phase` was selected by `--only` / `--skip`.
    pub fn runs(&self, phase: Phase) -> bool {
        (self.only.is_empty() || self.only.contains(&phase)) && !self.skip.contains(&phase)
    }

    /// True when the host profile `p` was selected (`compat`, `--compat`; none named = all).
    pub fn judges(&self, p: crate::report::host::HostProfile) -> bool {
        if self.compat.is_empty() {
            p.is_default()
        } else {
            self.compat.contains(&p)
        }
    }

    /// True when scout treats this server as remote (docs/safety.md): an HTTP target whose host is
    /// not loopback, or any HTTP target with `treat_as_remote`. stdio never is.
    pub fn is_remote(&self) -> bool {
        match &self.target {
            TargetSpec::Http { url, .. } => self.treat_as_remote || !is_loopback_url(url),
            TargetSpec::Stdio(..) => false,
        }
    }

    /// The target as shown in reports: the URL, or the command line.
    pub fn target_display(&self) -> String {
        match &self.target {
            TargetSpec::Http { url, .. } => url.clone(),
            TargetSpec::Stdio(ProcessConfig { command, .. }) => command.join(" "),
        }
    }
}

pub use crate::transport::limiter::is_loopback_url;

#[cfg(test)]
mod tests {
    use super::*;

    fn http(url: &str) -> ServerSpec {
        ServerSpec::new(
            "s",
            TargetSpec::Http {
                url: url.into(),
                headers: vec![],
                auth: Default::default(),
                start: None,
            },
        )
    }

    #[test]
    fn remote_means_a_non_loopback_host_or_the_setting() {
        assert!(!http("http://127.0.0.1:1/mcp").is_remote());
        assert!(!http("http://localhost/mcp").is_remote());
        assert!(!http("http://[::1]:9/mcp").is_remote());
        assert!(http("https://mcp.example.com/mcp").is_remote());
        let mut local = http("http://127.0.0.1:1/mcp");
        local.treat_as_remote = true;
        assert!(local.is_remote());
        let mut stdio = ServerSpec::new(
            "s",
            TargetSpec::Stdio(ProcessConfig {
                command: vec!["x".into()],
                env_forward: vec![],
                env_set: vec![],
                dir: None,
            }),
        );
        stdio.treat_as_remote = true;
        assert!(!stdio.is_remote());
    }
}
