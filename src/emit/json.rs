//! The JSON report, version 1 (`"schema": "scout/report/v1"`, docs/outputs.md).
//!
//! The wire shape is a set of frozen DTOs defined here and built from the model, never the
//! model types serialised directly: a renamed field in `report::model` must not silently
//! change what users script against. Enum values are written with the model's `as_str`
//! names, which are themselves public API. [`parse`] reads a v1 report back (for
//! `scout report merge` and baselines); the exchanges themselves are not part of v1, only
//! their count, which is kept in [`ServerReport::exchange_count`].

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::report::finding::{Era, Finding, Phase, Severity, SkipReason, Status, Suppression};
use crate::report::gate::GateResult;
use crate::report::model::{Anchor, CategoryScore, EraKind, Report, ServerReport, TransportKind};

/// The value of the `schema` field this module writes and reads.
pub const SCHEMA: &str = "scout/report/v1";

/// Why a JSON report could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Not JSON, or not the v1 shape.
    #[error("not a scout JSON report: {0}")]
    Json(#[from] serde_json::Error),
    /// A report of another schema version.
    #[error("unsupported report schema {found:?} (expected {SCHEMA:?})")]
    Schema { found: String },
    /// An enum field with a value v1 does not define.
    #[error("server {server:?}: unknown {field} {value:?}")]
    Value {
        server: String,
        field: &'static str,
        value: String,
    },
}

/// The whole report.
#[derive(Debug, Serialize, Deserialize)]
struct ReportV1 {
    schema: String,
    scout_version: String,
    run_id: String,
    #[serde(with = "time::serde::rfc3339")]
    started_at: OffsetDateTime,
    duration_ms: u64,
    servers: Vec<ServerV1>,
    gate: GateV1,
}

#[derive(Debug, Serialize, Deserialize)]
struct GateV1 {
    passed: bool,
    reasons: Vec<String>,
    /// The thresholds applied, in words; empty when none was set.
    #[serde(default)]
    thresholds: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ServerV1 {
    name: String,
    transport: String,
    target: String,
    era: String,
    protocol_versions: Vec<String>,
    #[serde(default)]
    server_info: Option<serde_json::Value>,
    score: Option<u8>,
    categories: Vec<CategoryV1>,
    findings: Vec<FindingV1>,
    /// How many exchanges were recorded (they are in the HAR, not here).
    exchanges: u64,
    #[serde(default)]
    blocked: Option<String>,
    #[serde(default)]
    interrupted: bool,
    #[serde(default)]
    anchor: Option<AnchorV1>,
    #[serde(default)]
    duration_ms: u64,
    /// What scout itself got wrong on this server (a finding it could not record, a run
    /// that crashed); empty on a clean run. Any entry makes the run exit 3.
    #[serde(default)]
    internal_errors: Vec<String>,
    /// HTTP sessions scout opened on the server and closed (DELETE) before the run ended;
    /// absent when the server issued none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sessions: Option<crate::report::model::SessionCount>,
    /// What the server exposes to an agent, written by a sharded run (`--shard`) for the
    /// cross-server rules that `report merge` applies; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cross_exposure: Option<crate::report::exposure::Exposure>,
}

#[derive(Debug, Serialize, Deserialize)]
struct AnchorV1 {
    path: String,
    line: u32,
}

#[derive(Debug, Serialize, Deserialize)]
struct CategoryV1 {
    phase: String,
    /// `null` when the category was not assessed.
    score: Option<u8>,
    assessed: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct FindingV1 {
    id: String,
    phase: String,
    status: String,
    severity: Option<String>,
    title: String,
    detail: String,
    advice: String,
    subject: Option<String>,
    era: Option<String>,
    /// The handshake revision a finding of the revision matrix was judged at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    revision: Option<String>,
    spec: Option<String>,
    evidence: Vec<u64>,
    skip_reason: Option<String>,
    /// Present when the finding is reported but not counted (baseline, `[checks] ignore`).
    #[serde(default)]
    suppressed: Option<SuppressedV1>,
}

#[derive(Debug, Serialize, Deserialize)]
struct SuppressedV1 {
    /// `baselined` or `ignored`.
    kind: String,
    reason: String,
}

/// Renders the v1 JSON report (pretty-printed, trailing newline).
pub fn render(report: &Report) -> String {
    let dto = ReportV1 {
        schema: SCHEMA.to_string(),
        scout_version: report.scout_version.clone(),
        run_id: report.run_id.clone(),
        started_at: report.started_at,
        duration_ms: report.duration_ms,
        servers: report.servers.iter().map(server_dto).collect(),
        gate: GateV1 {
            passed: report.gate.passed,
            reasons: report.gate.reasons.clone(),
            thresholds: report.gate.thresholds.clone(),
        },
    };
    // Serialising plain DTOs of strings, numbers and `Value`s cannot fail.
    let mut out = serde_json::to_string_pretty(&dto).unwrap_or_default();
    out.push('\n');
    out
}

fn server_dto(s: &ServerReport) -> ServerV1 {
    ServerV1 {
        name: s.name.clone(),
        transport: s.transport.as_str().to_string(),
        target: s.target.clone(),
        era: s.era.as_str().to_string(),
        protocol_versions: s.protocol_versions.clone(),
        server_info: s.server_info.clone(),
        score: s.score,
        categories: s
            .categories
            .iter()
            .map(|c| CategoryV1 {
                phase: c.phase.as_str().to_string(),
                score: c.score,
                assessed: c.assessed(),
            })
            .collect(),
        findings: s.findings.iter().map(finding_dto).collect(),
        exchanges: s.exchange_total(),
        blocked: s.blocked.clone(),
        interrupted: s.interrupted,
        anchor: s.anchor.as_ref().map(|a| AnchorV1 {
            path: a.path.clone(),
            line: a.line,
        }),
        duration_ms: s.duration_ms,
        internal_errors: s.internal_errors.clone(),
        sessions: s.notes.sessions,
        cross_exposure: s.notes.exposure.clone(),
    }
}

/// One finding as the v1 report writes it (the diff reuses the shape).
pub(crate) fn finding_value(f: &Finding) -> serde_json::Value {
    serde_json::to_value(finding_dto(f)).unwrap_or(serde_json::Value::Null)
}

fn finding_dto(f: &Finding) -> FindingV1 {
    FindingV1 {
        id: f.id.clone(),
        phase: f.phase.as_str().to_string(),
        status: f.status.as_str().to_string(),
        severity: f.severity.map(|s| s.as_str().to_string()),
        title: f.title.clone(),
        detail: f.detail.clone(),
        advice: f.advice.clone(),
        subject: f.subject.clone(),
        era: f.era.map(|e| e.as_str().to_string()),
        revision: f.revision.clone(),
        spec: f.spec.clone(),
        evidence: f.evidence.clone(),
        skip_reason: f.skip_reason.map(|r| r.as_str().to_string()),
        suppressed: f.suppressed.as_ref().map(|s| match s {
            Suppression::Baselined { reason } => SuppressedV1 {
                kind: "baselined".into(),
                reason: reason.clone(),
            },
            Suppression::Ignored { reason } => SuppressedV1 {
                kind: "ignored".into(),
                reason: reason.clone(),
            },
        }),
    }
}

/// Reads a v1 JSON report back. Exchanges come back empty with their count kept in
/// [`ServerReport::exchange_count`].
pub fn parse(text: &str) -> Result<Report, ParseError> {
    let dto: ReportV1 = serde_json::from_str(text)?;
    if dto.schema != SCHEMA {
        return Err(ParseError::Schema { found: dto.schema });
    }
    let servers = dto
        .servers
        .into_iter()
        .map(server_model)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Report {
        run_id: dto.run_id,
        scout_version: dto.scout_version,
        started_at: dto.started_at,
        duration_ms: dto.duration_ms,
        servers,
        gate: GateResult {
            passed: dto.gate.passed,
            reasons: dto.gate.reasons,
            thresholds: dto.gate.thresholds,
        },
    })
}

/// Finds the model value whose `as_str` name is `value`.
fn by_name<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    value: &str,
    server: &str,
    field: &'static str,
) -> Result<T, ParseError> {
    all.iter()
        .copied()
        .find(|v| name(*v) == value)
        .ok_or_else(|| ParseError::Value {
            server: server.to_string(),
            field,
            value: value.to_string(),
        })
}

const STATUSES: [Status; 5] = [
    Status::Pass,
    Status::Info,
    Status::Warn,
    Status::Fail,
    Status::Skip,
];
const SEVERITIES: [Severity; 3] = [Severity::Minor, Severity::Major, Severity::Critical];
const SKIPS: [SkipReason; 4] = [
    SkipReason::NotApplicable,
    SkipReason::Policy,
    SkipReason::Blocked,
    SkipReason::NotAssessed,
];
const ERAS: [Era; 2] = [Era::Legacy, Era::Modern];
const ERA_KINDS: [EraKind; 4] = [
    EraKind::Legacy,
    EraKind::Modern,
    EraKind::Dual,
    EraKind::Unknown,
];
const TRANSPORTS: [TransportKind; 3] = [
    TransportKind::Http,
    TransportKind::LegacySse,
    TransportKind::Stdio,
];

fn server_model(s: ServerV1) -> Result<ServerReport, ParseError> {
    let n = s.name.clone();
    let n = n.as_str();
    let categories = s
        .categories
        .into_iter()
        .map(|c| {
            Ok(CategoryScore {
                phase: by_name(&Phase::ALL, Phase::as_str, &c.phase, n, "phase")?,
                // A score is only meaningful on an assessed category; never invent one.
                score: c.score.filter(|_| c.assessed),
            })
        })
        .collect::<Result<Vec<_>, ParseError>>()?;
    let findings = s
        .findings
        .into_iter()
        .map(|f| finding_model(f, n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ServerReport {
        transport: by_name(
            &TRANSPORTS,
            TransportKind::as_str,
            &s.transport,
            n,
            "transport",
        )?,
        era: by_name(&ERA_KINDS, EraKind::as_str, &s.era, n, "era")?,
        name: s.name,
        target: s.target,
        protocol_versions: s.protocol_versions,
        server_info: s.server_info,
        score: s.score,
        categories,
        findings,
        exchanges: Vec::new(),
        exchange_count: Some(s.exchanges),
        blocked: s.blocked,
        interrupted: s.interrupted,
        anchor: s.anchor.map(|a| Anchor {
            path: a.path,
            line: a.line,
        }),
        duration_ms: s.duration_ms,
        notes: crate::report::model::RunNotes {
            sessions: s.sessions,
            exposure: s.cross_exposure,
        },
        internal_errors: s.internal_errors,
    })
}

fn finding_model(f: FindingV1, n: &str) -> Result<Finding, ParseError> {
    let severity = f
        .severity
        .map(|v| by_name(&SEVERITIES, Severity::as_str, &v, n, "severity"))
        .transpose()?;
    let era = f
        .era
        .map(|v| by_name(&ERAS, Era::as_str, &v, n, "finding era"))
        .transpose()?;
    let skip_reason = f
        .skip_reason
        .map(|v| by_name(&SKIPS, SkipReason::as_str, &v, n, "skip_reason"))
        .transpose()?;
    let suppressed = match f.suppressed {
        None => None,
        Some(s) if s.kind == "baselined" => Some(Suppression::Baselined { reason: s.reason }),
        Some(s) if s.kind == "ignored" => Some(Suppression::Ignored { reason: s.reason }),
        Some(s) => {
            return Err(ParseError::Value {
                server: n.to_string(),
                field: "suppressed.kind",
                value: s.kind,
            });
        }
    };
    Ok(Finding {
        phase: by_name(&Phase::ALL, Phase::as_str, &f.phase, n, "phase")?,
        status: by_name(&STATUSES, Status::as_str, &f.status, n, "status")?,
        id: f.id,
        title: f.title,
        severity,
        detail: f.detail,
        advice: f.advice,
        spec: f.spec,
        subject: f.subject,
        era,
        revision: f.revision,
        evidence: f.evidence,
        skip_reason,
        suppressed,
    })
}
