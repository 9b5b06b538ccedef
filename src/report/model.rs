//! `Report` and `ServerReport`: what a run produced. Emitters read a finished, redacted
//! `Report` and nothing else.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::report::exchange::Exchange;
use crate::report::finding::{Finding, Phase};
use crate::report::gate::GateResult;

/// How scout reached the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// Streamable HTTP.
    Http,
    /// The deprecated 2024-11-05 HTTP+SSE transport.
    LegacySse,
    /// A child process on stdin/stdout.
    Stdio,
}

impl TransportKind {
    /// Name as in the JSON report.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Http => "http",
            TransportKind::LegacySse => "legacy_sse",
            TransportKind::Stdio => "stdio",
        }
    }
}

/// Which protocol generations the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EraKind {
    /// Only the handshake revisions (≤ 2025-11-25).
    Legacy,
    /// Only 2026-07-28.
    Modern,
    /// Both, on one endpoint or process.
    Dual,
    /// Not decided (the server could not be reached).
    Unknown,
}

impl EraKind {
    /// Name as in the JSON report.
    pub fn as_str(self) -> &'static str {
        match self {
            EraKind::Legacy => "legacy",
            EraKind::Modern => "modern",
            EraKind::Dual => "dual",
            EraKind::Unknown => "unknown",
        }
    }
}

/// The score of one category (phase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryScore {
    pub phase: Phase,
    /// 0–100, or `None` when the category was not assessed: no counted finding of this
    /// phase was a judgement (pass, warn or fail) — only observations (info), skips, or
    /// nothing at all because the phase did not run.
    pub score: Option<u8>,
}

impl CategoryScore {
    /// True when at least one counted judgement of this phase was made.
    pub fn assessed(&self) -> bool {
        self.score.is_some()
    }
}

/// Where a server was declared, for SARIF / JUnit / annotation anchors (repository-relative).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    /// Repository-relative path, never a URI with a scheme.
    pub path: String,
    /// 1-based line.
    pub line: u32,
}

/// Everything learnt about one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerReport {
    pub name: String,
    pub transport: TransportKind,
    /// The URL, or the command line for stdio servers (arguments as given, no environment).
    pub target: String,
    pub era: EraKind,
    /// Versions actually used on the wire (negotiated or sent in `_meta`).
    pub protocol_versions: Vec<String>,
    /// `serverInfo` as the server gave it.
    #[serde(default)]
    pub server_info: Option<serde_json::Value>,
    /// Overall score; `None` when the server has no score: no category was assessed, or
    /// the run was blocked or interrupted (see `report::score::rescore`).
    pub score: Option<u8>,
    pub categories: Vec<CategoryScore>,
    pub findings: Vec<Finding>,
    /// Every recorded exchange, already redacted.
    pub exchanges: Vec<Exchange>,
    /// How many exchanges were recorded when `exchanges` was not kept (a report read back
    /// from JSON, where v1 carries only the count); `None` means `exchanges.len()`.
    #[serde(default)]
    pub exchange_count: Option<u64>,
    /// Why the run could not go on (unreachable, process died), when it could not.
    pub blocked: Option<String>,
    /// The run was cut short by Ctrl-C or the deadline.
    pub interrupted: bool,
    /// The config line that declared the server, when it came from a config file.
    pub anchor: Option<Anchor>,
    pub duration_ms: u64,
    /// What scout itself got wrong on this server: a finding a phase tried to record but
    /// that broke the finding invariants (e.g. a fail citing no exchange), or a run that
    /// crashed. Shown in every report; the run then exits 3 because scout cannot stand
    /// behind a result that may be missing a finding.
    #[serde(default)]
    pub internal_errors: Vec<String>,
    /// What the run did to the server beyond its findings (sessions opened and closed), and
    /// what a sharded run carries for `report merge` (the cross-server rules' input).
    #[serde(default)]
    pub notes: RunNotes,
}

/// What a server run leaves beside its findings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunNotes {
    /// HTTP sessions scout opened on this server and closed again (DELETE sent) before the
    /// run ended; `None` for a server that issued none (stdio, stateless HTTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions: Option<SessionCount>,
    /// What the server exposes to an agent, kept by a sharded run so that `report merge`
    /// can apply the rules over every server of the run (they need all shards).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposure: Option<crate::report::exposure::Exposure>,
}

/// How many HTTP sessions a run opened and how many of them it closed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionCount {
    pub opened: u32,
    pub closed: u32,
    /// The server answered a DELETE with 405 Method Not Allowed (the spec lets it refuse
    /// to let clients end sessions): scout sent no more DELETEs, so the sessions it could
    /// not end are among `opened` but not `closed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delete_refused: bool,
}

impl ServerReport {
    /// True when the run covered every selected phase (not blocked, not interrupted).
    pub fn completed(&self) -> bool {
        self.blocked.is_none() && !self.interrupted
    }

    /// The number of recorded exchanges, whether or not they were kept.
    pub fn exchange_total(&self) -> u64 {
        self.exchange_count
            .unwrap_or(self.exchanges.len() as u64)
            .max(self.exchanges.len() as u64)
    }
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub run_id: String,
    pub scout_version: String,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    pub duration_ms: u64,
    pub servers: Vec<ServerReport>,
    pub gate: GateResult,
}
