//! What the runner hands the probes for one server: the target, its settings and policy.
//! Built by `config` from the merged layers; read by `probe`, `client` and `transport`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::report::finding::Phase;
use crate::report::model::Anchor;

/// A header value or secret as configured: literal, or read from an environment variable.
/// Values from the environment are secrets: registered with the redactor before the first
/// request and shown as the variable name in `config show`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueSource {
    Literal(String),
    Env(String),
}

impl ValueSource {
    /// Parses `env:VAR` or a literal.
    pub fn parse(s: &str) -> Self {
        match s.strip_prefix("env:") {
            Some(var) => ValueSource::Env(var.to_string()),
            None => ValueSource::Literal(s.to_string()),
        }
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
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// Program and arguments, no shell.
        command: Vec<String>,
        /// Variables forwarded from scout's environment by name.
        env_forward: Vec<String>,
        /// Variables set to exactly these values.
        env_set: Vec<(String, String)>,
        /// Working directory.
        dir: Option<PathBuf>,
    },
}

/// Which tools scout may call (DESIGN §5).
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
}

/// Fixed arguments for one tool (`[[servers.tools]]`); they always win over generated ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolArgs {
    pub name: String,
    pub arguments: Value,
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
    /// Requests per second towards this host (`None` = unthrottled).
    pub rps: Option<f64>,
    /// Allow the performance burst.
    pub allow_load: bool,
    /// Go straight to the handshake path.
    pub skip_era_check: bool,
    /// Phases to run (empty = all) and to skip.
    pub only: Vec<Phase>,
    pub skip: Vec<Phase>,
    /// Response body cap in bytes.
    pub max_body_bytes: usize,
    /// Warn when the catalogue is estimated above this many tokens.
    pub context_warn_tokens: u64,
    /// Where the server was declared (for report anchors).
    pub anchor: Option<Anchor>,
    /// The run's id, sent as `X-MCP-Trace-ID` so server logs can be matched with the report
    /// (empty: the session makes one up).
    #[serde(default)]
    pub run_id: String,
    /// Apply the rules for remote servers to a loopback target too (the auth rules that
    /// differ: `auth.open` and HTTPS for authorization server endpoints).
    #[serde(default)]
    pub treat_as_remote: bool,
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
            rps: None,
            allow_load: false,
            skip_era_check: false,
            only: Vec::new(),
            skip: Vec::new(),
            max_body_bytes: 16 * 1024 * 1024,
            context_warn_tokens: 20_000,
            anchor: None,
            run_id: String::new(),
            treat_as_remote: false,
        }
    }

    /// True when the target is an HTTP URL on a non-loopback host, or is to be treated as one.
    pub fn is_remote(&self) -> bool {
        match &self.target {
            TargetSpec::Http { url, .. } => {
                self.treat_as_remote || !crate::auth::metadata::is_loopback(url)
            }
            TargetSpec::Stdio { .. } => false,
        }
    }

    /// True when `phase` was selected by `--only` / `--skip`.
    pub fn runs(&self, phase: Phase) -> bool {
        (self.only.is_empty() || self.only.contains(&phase)) && !self.skip.contains(&phase)
    }

    /// The target as shown in reports: the URL, or the command line.
    pub fn target_display(&self) -> String {
        match &self.target {
            TargetSpec::Http { url, .. } => url.clone(),
            TargetSpec::Stdio { command, .. } => command.join(" "),
        }
    }
}
