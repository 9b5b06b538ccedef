//! The command tree (clap derive). Flag groups are reusable: [`TargetArgs`] (what to connect
//! to) and [`OutputArgs`] (where reports go) are shared by the commands that need them, and
//! [`SettingsArgs`] are the flags that are also config keys (the highest config layer): they
//! serialize under the config keys' names, and that serialization is the flags' layer.

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use serde::Serialize;

use crate::report::finding::{Phase, Severity};
use crate::runner::Shard;

/// Checks MCP servers the way an agent uses them, and tells CI whether they really work.
///
/// Exit codes: 0 gate passed · 1 gate failed · 2 usage or config error · 3 scout could not
/// finish.
#[derive(Debug, Parser)]
#[command(
    name = "scout",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub verbosity: Verbosity,
    #[command(subcommand)]
    pub command: Command,
}

/// `-v` / `-q` / `--no-tui`: how much scout prints on the terminal, and how. Accepted before
/// or after the subcommand.
#[derive(Debug, Clone, Copy, Args)]
pub struct Verbosity {
    /// More diagnostics on stderr: -v debug, -vv trace (SCOUT_LOG overrides)
    #[arg(short, long, action = ArgAction::Count, global = true, help_heading = "Diagnostics")]
    pub verbose: u8,
    /// Only errors on stderr, and no terminal report
    #[arg(
        short,
        long,
        global = true,
        conflicts_with = "verbose",
        help_heading = "Diagnostics"
    )]
    pub quiet: bool,
    /// Plain output even on a terminal: no live phase list for `check`, no interactive
    /// selector for `tools` (also off in CI and whenever stdout or stderr is not a terminal)
    #[arg(
        long = "no-tui",
        global = true,
        env = "SCOUT_NO_TUI",
        value_parser = clap::builder::FalseyValueParser::new(),
        help_heading = "Diagnostics"
    )]
    pub no_tui: bool,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every phase against one server (URL or --stdio) or the servers of the config
    Check(Box<CheckArgs>),
    /// Open a conversation and show era, versions, server info and capabilities (no checks)
    Connect(Box<crate::cli::connect::ConnectArgs>),
    /// List the server's tools with their annotations and what the safety policy would do
    Tools(Box<crate::cli::tools::ToolsArgs>),
    /// Call one tool, with the safety policy applied
    Call(Box<crate::cli::tools::CallArgs>),
    /// Inspect the configuration
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print a shell completion script
    Completions {
        /// The shell to generate for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout
    Man,
    /// Your own tests of the server (expectations): write a starter file from a run
    #[command(subcommand)]
    Expect(crate::cli::expect::ExpectCommand),
    /// Review the pending snapshots (.new files) of `check --snapshots`, accept or reject them
    #[command(subcommand)]
    Snapshots(crate::cli::snapshots::SnapshotsCommand),
    /// Work with reports of earlier runs
    #[command(subcommand)]
    Report(crate::cli::report::ReportCommand),
    /// Baselines: import the official conformance suite's expected-failures.yml
    #[command(subcommand)]
    Baseline(crate::cli::baseline::BaselineCommand),
    /// Log in to an OAuth-protected server at a desk (authorization code + PKCE)
    #[command(subcommand)]
    Auth(crate::cli::auth::AuthCommand),
    /// Pin what the servers offer an agent in scout.lock; --update accepts changes
    Pin(Box<crate::cli::pin::PinArgs>),
    /// A local web page to run checks and read their reports (loopback, token-protected)
    Serve(Box<crate::cli::serve::ServeArgs>),
    /// Run as the GitHub Action: read the INPUT_* variables, check, write outputs and summary
    Action(Box<crate::cli::action::ActionArgs>),
}

/// `scout config …`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the merged configuration and where each value came from
    Show(Box<ShowArgs>),
}

/// `scout config show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub format: ShowFormat,
    #[command(flatten)]
    pub source: ConfigSourceArgs,
    #[command(flatten)]
    pub settings: SettingsArgs,
}

/// How `config show` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    /// `key = value  # source` lines
    Text,
    /// One JSON document
    Json,
}

/// `scout check`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  scout check http://127.0.0.1:3001/mcp --fail-under 80\n  scout check --stdio --stdio-env TZ -- python3 -m mcp_server_time\n  scout check --config scout.toml --profile ci --out-dir scout-report"
)]
pub struct CheckArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub source: ConfigSourceArgs,
    #[command(flatten)]
    pub outputs: OutputArgs,
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

/// What to connect to. Without a URL or --stdio, the servers of the config are checked.
#[derive(Debug, Clone, Default, Args)]
pub struct TargetArgs {
    /// URL of a Streamable HTTP (or legacy HTTP+SSE) endpoint, e.g. http://127.0.0.1:3001/mcp
    #[arg(
        value_name = "URL",
        conflicts_with = "stdio",
        display_order = 1,
        help_heading = "Target"
    )]
    pub url: Option<String>,
    /// Check every remote and package of a registry server.json, and compare each with what
    /// the manifest declares (the `manifest` category, docs/manifests.md)
    #[arg(
        long = "server-json",
        value_name = "FILE",
        conflicts_with_all = ["url", "stdio"],
        display_order = 4,
        help_heading = "Target"
    )]
    pub server_json: Option<PathBuf>,
    /// Check the server of an MCPB bundle (a .mcpb file, or a folder with manifest.json),
    /// started as its manifest says, and compare it with the manifest (docs/manifests.md)
    #[arg(
        long = "mcpb",
        value_name = "BUNDLE",
        conflicts_with_all = ["url", "stdio", "server_json"],
        display_order = 4,
        help_heading = "Target"
    )]
    pub mcpb: Option<PathBuf>,
    /// Start the command after `--` as a stdio server (no shell, no splitting)
    #[arg(long, requires = "command", display_order = 5, help_heading = "Target")]
    pub stdio: bool,
    /// Forward this variable from scout's environment to the stdio server (repeatable)
    #[arg(
        long = "stdio-env",
        value_name = "NAME",
        requires = "stdio",
        display_order = 6,
        help_heading = "Target"
    )]
    pub stdio_env: Vec<String>,
    /// Set a variable for the stdio server (repeatable)
    #[arg(long = "stdio-set", value_name = "NAME=VALUE", value_parser = parse_assignment, requires = "stdio", display_order = 7, help_heading = "Target")]
    pub stdio_set: Vec<(String, String)>,
    /// Working directory of the stdio server
    #[arg(
        long = "stdio-dir",
        value_name = "DIR",
        requires = "stdio",
        display_order = 8,
        help_heading = "Target"
    )]
    pub stdio_dir: Option<PathBuf>,
    /// The stdio server's program and arguments, after `--`
    #[arg(
        last = true,
        value_name = "CMD",
        requires = "stdio",
        display_order = 9,
        help_heading = "Target"
    )]
    pub command: Vec<String>,
    /// Send this header to the HTTP server (repeatable); VALUE may be env:VAR
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_assignment, display_order = 2, help_heading = "Target")]
    pub header: Vec<(String, String)>,
    /// Read a bearer token for the HTTP server from this environment variable
    #[arg(
        long = "token-env",
        value_name = "VAR",
        display_order = 3,
        help_heading = "Target"
    )]
    pub token_env: Option<String>,
    #[command(flatten)]
    pub credentials: CredentialArgs,
    /// Start the HTTP server first: one program argument per --start, in order (no shell)
    #[arg(
        long,
        value_name = "ARG",
        allow_hyphen_values = true,
        display_order = 4,
        help_heading = "Target"
    )]
    pub start: Vec<String>,
}

/// How scout gets a token for the HTTP server named on the command line (secrets are named,
/// never given: a variable or a file). The same keys exist per server in the config and as
/// top-level keys (`SCOUT_CLIENT_ID`, `SCOUT_CLIENT_SECRET_ENV`, …).
#[derive(Debug, Clone, Default, Args)]
pub struct CredentialArgs {
    /// Read a bearer token for the HTTP server from this file
    #[arg(
        long = "token-file",
        value_name = "PATH",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub token_file: Option<PathBuf>,
    /// OAuth client id registered with the server's authorization server
    #[arg(
        long = "client-id",
        value_name = "ID",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub client_id: Option<String>,
    /// Read the OAuth client secret from this variable (client credentials grant)
    #[arg(
        long = "client-secret-env",
        value_name = "VAR",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub client_secret_env: Option<String>,
    /// Read the OAuth client secret from this file
    #[arg(
        long = "client-secret-file",
        value_name = "PATH",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub client_secret_file: Option<PathBuf>,
    /// Read a refresh token from this variable and exchange it at the start
    #[arg(
        long = "refresh-token-env",
        value_name = "VAR",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub refresh_token_env: Option<String>,
    /// Read a refresh token from this file and exchange it at the start
    #[arg(
        long = "refresh-token-file",
        value_name = "PATH",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub refresh_token_file: Option<PathBuf>,
    /// Scope to ask the authorization server for (space-separated)
    #[arg(
        long,
        value_name = "SCOPE",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub scope: Option<String>,
    /// A scope too small for the server: scout expects 403 insufficient_scope with it
    #[arg(
        long = "limited-scope",
        value_name = "SCOPE",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub limited_scope: Option<String>,
    /// The issuer of the authorization server the client is registered with: scout sends the
    /// credentials to no other (a mismatch stops the run, exit 2)
    #[arg(
        long,
        value_name = "URL",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub issuer: Option<String>,
    /// Authenticate the client with this private key (PEM) instead of a secret:
    /// private_key_jwt, RFC 7523
    #[arg(
        long = "client-key-file",
        value_name = "PATH",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub client_key_file: Option<PathBuf>,
    /// Use a refresh token from --refresh-token-env although a rotating authorization server
    /// invalidates it (a file given with --refresh-token-file is updated instead)
    #[arg(
        long = "allow-refresh-rotation",
        display_order = 3,
        help_heading = "Credentials"
    )]
    pub allow_refresh_rotation: bool,
}

impl CredentialArgs {
    /// The flags given, as `--flag` names (for usage errors).
    pub fn given(&self) -> Vec<&'static str> {
        [
            (self.token_file.is_some(), "--token-file"),
            (self.client_id.is_some(), "--client-id"),
            (self.client_secret_env.is_some(), "--client-secret-env"),
            (self.client_secret_file.is_some(), "--client-secret-file"),
            (self.refresh_token_env.is_some(), "--refresh-token-env"),
            (self.refresh_token_file.is_some(), "--refresh-token-file"),
            (self.scope.is_some(), "--scope"),
            (self.limited_scope.is_some(), "--limited-scope"),
            (self.issuer.is_some(), "--issuer"),
            (self.client_key_file.is_some(), "--client-key-file"),
            (self.allow_refresh_rotation, "--allow-refresh-rotation"),
        ]
        .into_iter()
        .filter_map(|(g, f)| g.then_some(f))
        .collect()
    }
}

/// Which config file and profile.
#[derive(Debug, Clone, Default, Args)]
pub struct ConfigSourceArgs {
    /// Config file (default: ./scout.toml if present)
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,
    /// Profile of the config file to apply over [default]
    #[arg(
        long,
        value_name = "NAME",
        env = "SCOUT_PROFILE",
        help_heading = "Config"
    )]
    pub profile: Option<String>,
}

/// Where reports are written.
#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Write the JSON report (scout/report/v1) here
    #[arg(long, value_name = "PATH", help_heading = "Reports")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here
    #[arg(long, value_name = "PATH", help_heading = "Reports")]
    pub junit: Option<PathBuf>,
    /// Write a SARIF 2.1.0 report here
    #[arg(long, value_name = "PATH", help_heading = "Reports")]
    pub sarif: Option<PathBuf>,
    /// Write a Markdown summary here
    #[arg(long, value_name = "PATH", help_heading = "Reports")]
    pub markdown: Option<PathBuf>,
    /// Write a GitLab Code Quality report here
    #[arg(long, value_name = "PATH", help_heading = "Reports")]
    pub gitlab: Option<PathBuf>,
    /// Write one HAR file per server into this folder
    #[arg(long, value_name = "DIR", help_heading = "Reports")]
    pub har: Option<PathBuf>,
    /// Write the run's events as NDJSON here
    #[arg(long, value_name = "FILE", help_heading = "Reports")]
    pub events: Option<PathBuf>,
    /// Write a score badge (SVG, shields.io style; grey "not assessed" without a score) here
    #[arg(long, value_name = "PATH", help_heading = "Reports")]
    pub badge: Option<PathBuf>,
}

/// The safety flags (shared by `check`, `tools` and `call`).
#[derive(Debug, Clone, Default, Args, Serialize)]
pub struct PolicyArgs {
    /// Also call tools that change state but are not destructive
    #[arg(long = "allow-mutations", help_heading = "Safety")]
    #[serde(skip_serializing_if = "not_given")]
    pub allow_mutations: bool,
    /// Call every tool, destructive ones included. DANGEROUS: only against throwaway servers
    #[arg(long = "allow-destructive", help_heading = "Safety")]
    #[serde(skip_serializing_if = "not_given")]
    pub allow_destructive: bool,
    /// Requests per second towards remote (non-loopback) hosts [default: 2]
    #[arg(long, value_name = "N", help_heading = "Safety")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rps: Option<f64>,
}

/// A switch left off says nothing (a lower layer may have turned it on).
fn not_given(on: &bool) -> bool {
    !*on
}

/// `--fail-under-category` as the config's table (phase name → score).
fn category_table<S: serde::Serializer>(v: &[(Phase, u8)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(p, n)| (p.as_str(), n)))
}

/// The gate's thresholds (shared by `check` and `report merge`).
#[derive(Debug, Clone, Default, Args, Serialize)]
pub struct GateArgs {
    /// Fail when a server's overall score is below N (0-100)
    #[arg(long = "fail-under", value_name = "N", value_parser = clap::value_parser!(u8).range(0..=100), help_heading = "Gate")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_under: Option<u8>,
    /// Fail when a category's score is below N, e.g. protocol=90 (repeatable)
    #[arg(long = "fail-under-category", value_name = "PHASE=N", value_parser = parse_category_threshold, help_heading = "Gate")]
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "category_table"
    )]
    pub fail_under_category: Vec<(Phase, u8)>,
    /// Fail on any failing check at or above this severity
    #[arg(long = "fail-on", value_name = "SEVERITY", value_parser = parse_severity, help_heading = "Gate")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<Severity>,
}

/// Flags that are also config keys: the highest config layer. Each field serializes under
/// its key's name and only when given (`config::layer::from_flags` reads them).
#[derive(Debug, Clone, Default, Args, Serialize)]
pub struct SettingsArgs {
    /// Write every report (or the config's `formats`) into this folder under fixed names
    #[arg(long = "out-dir", value_name = "DIR", help_heading = "Reports")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_dir: Option<PathBuf>,
    #[command(flatten)]
    #[serde(flatten)]
    pub gate: GateArgs,
    /// Compare with this baseline file: findings listed there do not count
    #[arg(long, value_name = "FILE", help_heading = "Gate")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<PathBuf>,
    /// Handshake revisions to check beside the one the run negotiates, each on its own wire
    /// (comma-separated: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25) [default: every
    /// one the server accepts]
    #[arg(long = "revision", value_name = "REVISION,…", value_delimiter = ',', value_parser = parse_revision, help_heading = "Run")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<String>,
    /// Run only these phases (comma-separated)
    #[arg(long, value_name = "PHASE,…", value_delimiter = ',', value_parser = parse_phase, help_heading = "Run")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<Phase>,
    /// Skip these phases (comma-separated)
    #[arg(long, value_name = "PHASE,…", value_delimiter = ',', value_parser = parse_phase, help_heading = "Run")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<Phase>,
    /// Judge only these host profiles in the compat category (comma-separated: anthropic, openai, openai-strict, gemini, first-page; default: all but openai-strict)
    #[arg(long, value_name = "PROFILE,…", value_delimiter = ',', value_parser = parse_host_profile, help_heading = "Run")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compat: Vec<crate::report::host::HostProfile>,
    /// Timeout of a single request, e.g. 10s or 500ms [default: 10s]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_text, help_heading = "Run")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// Deadline for a whole server run, e.g. 2m [default: 120s]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_text, help_heading = "Run")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<String>,
    /// Servers checked at the same time [default: 4]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Run")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs: Option<u32>,
    /// Requests in flight at once per server on loopback HTTP and stdio (remote hosts are
    /// paced by --rps) [default: 8]
    #[arg(long, value_name = "N", value_parser = parse_concurrency, help_heading = "Run")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Cap on a response body in bytes [default: 16 MiB]
    #[arg(long = "max-body", value_name = "BYTES", help_heading = "Run")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_body: Option<u64>,
    /// Go straight to the handshake (initialize) path, skipping era detection
    #[arg(long = "skip-era-check", help_heading = "Run")]
    #[serde(skip_serializing_if = "not_given")]
    pub skip_era_check: bool,
    #[command(flatten)]
    #[serde(flatten)]
    pub policy: PolicyArgs,
    /// Allow the performance load ramp (performance.throughput: up to 400 concurrent read-only requests in about 3 s; remote hosts stay within --rps)
    #[arg(long = "allow-load", help_heading = "Safety")]
    #[serde(skip_serializing_if = "not_given")]
    pub allow_load: bool,
    /// Keep the catalogue and every read-only call result in DIR (one file per item) and compare them with earlier runs; a difference fails expect.snapshot with a diff
    #[arg(long = "snapshots", value_name = "DIR", help_heading = "Snapshots")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<PathBuf>,
    /// Accept this run's state: write every snapshot file and remove the pending .new ones
    #[arg(long = "update-snapshots", help_heading = "Snapshots")]
    #[serde(skip_serializing_if = "not_given")]
    pub update_snapshots: bool,
    /// Mask the values this JSONPath selects before comparing snapshots (repeatable), e.g. '$.._meta'
    #[arg(
        long = "snapshot-ignore",
        value_name = "JSONPATH",
        help_heading = "Snapshots"
    )]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub snapshot_ignore: Vec<String>,
}

/// Flags of a check run that are not config keys.
#[derive(Debug, Clone, Default, Args)]
pub struct RunArgs {
    /// Check only shard I of N (servers chosen by a stable hash of their name)
    #[arg(long, value_name = "I/N", value_parser = Shard::parse, help_heading = "Run")]
    pub shard: Option<Shard>,
    /// Write the current findings as a new baseline file
    #[arg(long = "write-baseline", value_name = "FILE", help_heading = "Gate")]
    pub write_baseline: Option<PathBuf>,
    /// Do not fail the gate because baseline entries no longer occur
    #[arg(long = "allow-stale-baseline", help_heading = "Gate")]
    pub allow_stale_baseline: bool,
    /// Also list the official conformance suite's scenarios (frozen sets 2025-11-25 and
    /// 2026-07-28), each judged from the scout checks that cover it, on stdout and in the
    /// Markdown summary
    #[arg(long = "conformance-summary", help_heading = "Reports")]
    pub conformance_summary: bool,
    /// Fail (exit 1) when a server's execution.coverage is under N percent of its listed tools, prompts and resources
    #[arg(long = "fail-under-coverage", value_name = "N", value_parser = clap::value_parser!(u8).range(0..=100), help_heading = "Gate")]
    pub fail_under_coverage: Option<u8>,
}

/// `NAME=VALUE`.
pub fn parse_assignment(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.to_string())),
        _ => Err(format!("expected NAME=VALUE, got `{s}`")),
    }
}

/// `PHASE=N` for `--fail-under-category`.
pub fn parse_category_threshold(s: &str) -> Result<(Phase, u8), String> {
    let (p, n) = s
        .split_once('=')
        .ok_or_else(|| format!("expected PHASE=N (e.g. protocol=90), got `{s}`"))?;
    let phase = parse_phase(p)?;
    let n: u8 = n
        .trim()
        .parse()
        .ok()
        .filter(|n| *n <= 100)
        .ok_or_else(|| format!("expected a score 0-100 after `=`, got `{}`", n.trim()))?;
    Ok((phase, n))
}

/// A phase name.
pub fn parse_phase(s: &str) -> Result<Phase, String> {
    Phase::parse(s).ok_or_else(|| {
        format!(
            "`{s}` is not a phase; expected one of {}",
            Phase::ALL.map(|p| p.as_str()).join(", ")
        )
    })
}

/// A protocol revision (`--revision`).
pub fn parse_revision(s: &str) -> Result<String, String> {
    crate::config::parse_revision(s)
}

/// A host profile name (`--compat`).
pub fn parse_host_profile(s: &str) -> Result<crate::report::host::HostProfile, String> {
    use crate::report::host::HostProfile;
    HostProfile::parse(s).ok_or_else(|| {
        format!(
            "`{s}` is not a host profile; expected one of {}",
            HostProfile::known()
        )
    })
}

/// `critical|major|minor`.
pub fn parse_severity(s: &str) -> Result<Severity, String> {
    Severity::parse(s).ok_or_else(|| format!("expected critical, major or minor, got `{s}`"))
}

/// A duration, validated now but kept as text (it becomes a config value).
pub fn parse_duration_text(s: &str) -> Result<String, String> {
    crate::config::duration::parse(s).map(|_| s.trim().to_string())
}

/// `--concurrency N`: a whole number of requests in flight, at least 1.
pub fn parse_concurrency(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("expected at least 1 request in flight, got 0".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a whole number of requests in flight (1 or more), got `{s}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every flag that is a config key reaches the flags' layer under that key: given all at
    /// once, each sets its key, and none names a key the layer does not have.
    #[test]
    fn every_settings_flag_is_a_config_key() {
        #[derive(Debug, Parser)]
        struct Only {
            #[command(flatten)]
            settings: SettingsArgs,
        }
        let argv = [
            "t",
            "--out-dir",
            "d",
            "--fail-under",
            "5",
            "--fail-under-category",
            "protocol=90",
            "--fail-on",
            "major",
            "--baseline",
            "b.json",
            "--only",
            "protocol",
            "--revision",
            "2025-06-18",
            "--skip",
            "security",
            "--compat",
            "anthropic,openai",
            "--timeout",
            "1s",
            "--deadline",
            "2s",
            "--jobs",
            "2",
            "--concurrency",
            "3",
            "--max-body",
            "9",
            "--skip-era-check",
            "--allow-mutations",
            "--allow-destructive",
            "--rps",
            "1.5",
            "--allow-load",
            "--snapshots",
            "snaps",
            "--update-snapshots",
            "--snapshot-ignore",
            "$.._meta",
        ];
        let flags = Only::try_parse_from(argv)
            .expect("every flag parses")
            .settings;
        let layer = crate::config::layer::from_flags(&flags).expect("the flags fit the layer");
        let set = match serde_json::to_value(&layer).expect("serializes") {
            serde_json::Value::Object(m) => m,
            other => panic!("an object: {other:?}"),
        };
        let given = Only::command()
            .get_arguments()
            .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
            .count();
        assert_eq!(set.len(), given, "one key per flag: {set:?}");
        assert_eq!(layer.fail_under_category.expect("set")["protocol"], 90);
        assert_eq!(layer.fail_on.as_deref(), Some("major"));
        assert_eq!(layer.allow_load, Some(true));
        assert_eq!(layer.jobs, Some(2));
        // Flags not given say nothing: a lower layer decides.
        let none = Only::try_parse_from(["t"]).expect("parses").settings;
        let empty = crate::config::layer::from_flags(&none).expect("fits");
        assert_eq!(empty, crate::config::Layer::default());
    }

    #[test]
    fn command_tree_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every argument of every command explains itself in `--help`.
    #[test]
    fn every_flag_has_help_text() {
        fn walk(cmd: &clap::Command, path: &str) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                assert!(
                    arg.get_help()
                        .is_some_and(|h| !h.to_string().trim().is_empty()),
                    "{path} {id} has no help text"
                );
            }
            for sub in cmd.get_subcommands() {
                assert!(
                    sub.get_about().is_some(),
                    "{path} {} has no about",
                    sub.get_name()
                );
                walk(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        walk(&Cli::command(), "scout");
    }

    #[test]
    fn category_thresholds() {
        assert_eq!(
            parse_category_threshold("protocol=90"),
            Ok((Phase::Protocol, 90))
        );
        assert_eq!(
            parse_category_threshold(" security = 0"),
            Ok((Phase::Security, 0))
        );
        for bad in [
            "protocol",
            "protocol=101",
            "protocl=90",
            "protocol=x",
            "=90",
        ] {
            assert!(parse_category_threshold(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn assignments() {
        assert_eq!(
            parse_assignment("X-Api-Key=env:KEY"),
            Ok(("X-Api-Key".into(), "env:KEY".into()))
        );
        assert_eq!(parse_assignment("A=b=c"), Ok(("A".into(), "b=c".into())));
        assert!(parse_assignment("novalue").is_err());
    }

    #[test]
    fn stdio_command_after_double_dash() {
        let cli = Cli::try_parse_from([
            "scout",
            "check",
            "--stdio",
            "--stdio-env",
            "TZ",
            "--",
            "python3",
            "-m",
            "srv",
            "--x",
        ])
        .expect("parses");
        let Command::Check(c) = cli.command else {
            panic!("check");
        };
        assert!(c.target.stdio);
        assert_eq!(c.target.command, ["python3", "-m", "srv", "--x"]);
        assert_eq!(c.target.stdio_env, ["TZ"]);
    }

    #[test]
    fn start_builds_argv() {
        let cli = Cli::try_parse_from([
            "scout",
            "check",
            "http://127.0.0.1:1/mcp",
            "--start",
            "node",
            "--start",
            "--port=1",
        ])
        .expect("parses");
        let Command::Check(c) = cli.command else {
            panic!("check");
        };
        assert_eq!(c.target.start, ["node", "--port=1"]);
    }
}
