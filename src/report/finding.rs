//! The one `Finding` model every emitter reads, and the builder that enforces its invariants.

use serde::{Deserialize, Serialize};

use crate::report::check::Check;
use crate::report::exchange::Seq;

/// The nine phases of an MCP check in run order, `expectations` (the author's own), the
/// `compat` category (host rules, judged from the catalogue) and the `manifest` category
/// (what the published manifests promise). Their `as_str` names are the
/// category names in every report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Discovery,
    Auth,
    Handshake,
    Protocol,
    Catalog,
    Execution,
    /// The author's own assertions (`[[servers.expect]]`), run after the execution probes.
    Expectations,
    Performance,
    Resilience,
    Security,
    /// Host compatibility: the catalogue judged against the rules of named hosts (judged
    /// right after the catalog phase, listed last so that the nine MCP categories keep
    /// their place in every report).
    Compat,
    /// What the server's published manifests (the registry's `server.json`) promise,
    /// compared with what the live server did. Judged after everything else; it counts in
    /// the overall score, since a manifest that drifts from the server is a defect of
    /// what the author publishes.
    Manifest,
}

impl Phase {
    /// Every phase in report order: the nine MCP phases in run order, with the author's
    /// `expectations` after execution, then `compat` and `manifest`.
    pub const ALL: [Phase; 12] = [
        Phase::Discovery,
        Phase::Auth,
        Phase::Handshake,
        Phase::Protocol,
        Phase::Catalog,
        Phase::Execution,
        Phase::Expectations,
        Phase::Performance,
        Phase::Resilience,
        Phase::Security,
        Phase::Compat,
        Phase::Manifest,
    ];

    /// The stable lower-case name (`protocol`), used in ids, config keys and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Discovery => "discovery",
            Phase::Auth => "auth",
            Phase::Handshake => "handshake",
            Phase::Protocol => "protocol",
            Phase::Catalog => "catalog",
            Phase::Execution => "execution",
            Phase::Expectations => "expectations",
            Phase::Performance => "performance",
            Phase::Resilience => "resilience",
            Phase::Security => "security",
            Phase::Compat => "compat",
            Phase::Manifest => "manifest",
        }
    }

    /// Parses a phase name as written on the command line or in config.
    pub fn parse(s: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.as_str() == s.trim())
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a check concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A request showed the property.
    Pass,
    /// An observation, no judgement.
    Info,
    /// A deviation an agent can live with (costs 5 points).
    Warn,
    /// A deviation an agent cannot live with (costs by severity).
    Fail,
    /// Not assessed, with a typed reason.
    Skip,
}

impl Status {
    /// Lower-case name as in the JSON report.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Info => "info",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// How bad a failure is; drives the score (critical zeroes the category, major −40, minor −15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Minor,
    Major,
    Critical,
}

impl Severity {
    /// Lower-case name as in the JSON report and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Minor => "minor",
            Severity::Major => "major",
            Severity::Critical => "critical",
        }
    }

    /// Parses `critical|major|minor`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "critical" => Some(Severity::Critical),
            "major" => Some(Severity::Major),
            "minor" => Some(Severity::Minor),
            _ => None,
        }
    }
}

/// Why a check was not assessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The check has no subject here (wrong era or transport, capability not declared).
    NotApplicable,
    /// The safety policy forbade the request that would have assessed it.
    Policy,
    /// An earlier phase found the server unreachable or locked; nothing later could run.
    Blocked,
    /// The check could not be assessed this run (deadline, interrupted, phase not selected).
    NotAssessed,
}

impl SkipReason {
    /// Lower-case name as in the JSON report.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::NotApplicable => "not_applicable",
            SkipReason::Policy => "policy",
            SkipReason::Blocked => "blocked",
            SkipReason::NotAssessed => "not_assessed",
        }
    }
}

/// The protocol generation a finding is about (a dual-era server is probed on both wires).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Era {
    /// The handshake revisions, 2024-11-05 … 2025-11-25 (`initialize`).
    Legacy,
    /// The stateless 2026-07-28 revision (`server/discover`, `_meta` on every request).
    Modern,
}

impl Era {
    /// Lower-case name as in the JSON report.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

/// Why a finding does not count for the gate although it is reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Suppression {
    /// Listed in `[checks] ignore` with this reason.
    Ignored { reason: String },
    /// Listed in the `--baseline` file with this reason.
    Baselined { reason: String },
}

/// One conclusion of one check about one subject, citing the exchanges that showed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable `phase.snake_case` id from the registry.
    pub id: String,
    /// The category it is scored in.
    pub phase: Phase,
    /// The check's title.
    pub title: String,
    pub status: Status,
    /// Set exactly when `status` is `fail`.
    pub severity: Option<Severity>,
    /// What was seen, in one or a few sentences.
    pub detail: String,
    /// What to do about it.
    pub advice: String,
    /// The spec section the check enforces.
    pub spec: Option<String>,
    /// What it is about: a tool name, a method, a header.
    pub subject: Option<String>,
    /// Which wire it was observed on, for servers probed on both.
    pub era: Option<Era>,
    /// The protocol revision it was judged at, for findings of a server probed at several
    /// handshake revisions (`2025-06-18`); `None` for the run's own wires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Recorder sequence numbers of the exchanges that showed it.
    pub evidence: Vec<Seq>,
    /// Set exactly when `status` is `skip`.
    pub skip_reason: Option<SkipReason>,
    /// Reported but not counted (ignored in config or baselined).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<Suppression>,
}

impl Finding {
    /// The subject as a reader should see it: an empty one (a tool with an empty name) is
    /// shown as `""`, so that it does not read as a missing subject.
    pub fn subject_shown(&self) -> Option<&str> {
        self.subject
            .as_deref()
            .map(|s| if s.is_empty() { "\"\"" } else { s })
    }

    /// True when the finding takes part in scoring and gating.
    pub fn counts(&self) -> bool {
        self.suppressed.is_none()
    }

    /// How bad it is, for ordering: critical fail 5, major 4, minor 3, warn 2, info 1,
    /// pass and skip 0.
    pub fn rank(&self) -> u8 {
        match (self.status, self.severity) {
            (Status::Fail, Some(Severity::Critical)) => 5,
            (Status::Fail, Some(Severity::Major)) | (Status::Fail, None) => 4,
            (Status::Fail, Some(Severity::Minor)) => 3,
            (Status::Warn, _) => 2,
            (Status::Info, _) => 1,
            _ => 0,
        }
    }
}

/// Why a finding could not be built. These are programming errors in a phase; the session
/// logs them and records nothing, so a broken check can never produce a false finding.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FindingError {
    #[error("{id}: a {status} finding must cite at least one exchange (or say it has none)")]
    NoEvidence {
        id: &'static str,
        status: &'static str,
    },
    #[error("{id}: evidence #{seq} was never recorded")]
    UnknownEvidence { id: &'static str, seq: Seq },
    #[error("{id}: a skip needs a reason")]
    SkipWithoutReason { id: &'static str },
    #[error(
        "{id}: a {status} is beyond the check's basis ({basis}), which allows no worse than {allowed}"
    )]
    BeyondBasis {
        id: &'static str,
        status: &'static str,
        basis: &'static str,
        allowed: &'static str,
    },
}

/// Builds a [`Finding`] from a registered [`Check`]; see `Check::pass` and friends.
#[derive(Debug, Clone)]
#[must_use = "a finding builder does nothing until it is recorded"]
pub struct FindingBuilder {
    check: &'static Check,
    status: Status,
    severity: Option<Severity>,
    detail: String,
    advice: Option<String>,
    subject: Option<String>,
    era: Option<Era>,
    revision: Option<String>,
    evidence: Vec<Seq>,
    skip_reason: Option<SkipReason>,
    no_exchange: bool,
    /// The id and title of a finding of a check declared at run time (an expectation of
    /// the config), in place of the registered check's.
    named: Option<(String, String)>,
}

impl FindingBuilder {
    pub(crate) fn new(check: &'static Check, status: Status, detail: String) -> Self {
        FindingBuilder {
            check,
            status,
            severity: (status == Status::Fail).then_some(check.severity),
            detail,
            advice: None,
            subject: None,
            era: None,
            revision: None,
            evidence: Vec::new(),
            skip_reason: None,
            no_exchange: false,
            named: None,
        }
    }

    /// Gives the finding its own id and title: one registered check stands for every
    /// expectation of the config (the registry is a static list; the expectations are
    /// the user's, read at run time), and each expectation is its own finding.
    pub fn named(mut self, id: impl Into<String>, title: impl Into<String>) -> Self {
        self.named = Some((id.into(), title.into()));
        self
    }

    pub(crate) fn skip_reason(mut self, reason: SkipReason) -> Self {
        self.skip_reason = Some(reason);
        self
    }

    /// The check this finding belongs to.
    pub fn check(&self) -> &'static Check {
        self.check
    }

    /// The status it will be recorded with.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The detail it will be recorded with (before the first letter is capitalised).
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The exchanges it cites so far.
    pub fn cited(&self) -> &[Seq] {
        &self.evidence
    }

    /// Overrides the registry's default severity (only meaningful on a fail).
    pub fn severity(mut self, severity: Severity) -> Self {
        if self.status == Status::Fail {
            self.severity = Some(severity);
        }
        self
    }

    /// Cites exchanges by sequence number (duplicates are removed, order kept sorted).
    pub fn evidence(mut self, seqs: impl IntoIterator<Item = Seq>) -> Self {
        self.evidence.extend(seqs);
        self.evidence.sort_unstable();
        self.evidence.dedup();
        self
    }

    /// What the finding is about (a tool, a method, a header).
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// The wire it was observed on.
    pub fn era(mut self, era: Era) -> Self {
        self.era = Some(era);
        self
    }

    /// The revision it was judged at (a finding of the revision matrix).
    pub fn revision(mut self, revision: impl Into<String>) -> Self {
        self.revision = Some(revision.into());
        self
    }

    /// Replaces the registry's advice with something specific to what was seen.
    pub fn advice(mut self, advice: impl Into<String>) -> Self {
        self.advice = Some(advice.into());
        self
    }

    /// Declares that this observation was not an exchange (a process that did not start,
    /// what was handed to a child), so it legitimately cites none.
    pub fn without_exchange(mut self) -> Self {
        self.no_exchange = true;
        self
    }

    /// Checks the invariants and produces the finding. `known` says whether a sequence
    /// number was recorded in this run.
    pub fn build(self, known: impl Fn(Seq) -> bool) -> Result<Finding, FindingError> {
        let id = self.check.id;
        if matches!(self.status, Status::Pass | Status::Fail | Status::Warn)
            && self.evidence.is_empty()
            && !self.no_exchange
        {
            return Err(FindingError::NoEvidence {
                id,
                status: self.status.as_str(),
            });
        }
        if let Some(seq) = self.evidence.iter().copied().find(|s| !known(*s)) {
            return Err(FindingError::UnknownEvidence { id, seq });
        }
        if self.status == Status::Skip && self.skip_reason.is_none() {
            return Err(FindingError::SkipWithoutReason { id });
        }
        // A SHOULD cannot fail a server and an observation cannot judge it: a verdict beyond
        // the check's basis is scout's bug, reported as such rather than charged to the server.
        let basis = self.check.basis();
        if !basis.allows(self.status) {
            return Err(FindingError::BeyondBasis {
                id,
                status: self.status.as_str(),
                basis: basis.as_str(),
                allowed: if basis.allows(Status::Warn) {
                    "warn"
                } else {
                    "info"
                },
            });
        }
        let (id, title) = self
            .named
            .unwrap_or_else(|| (id.to_string(), self.check.title.to_string()));
        Ok(Finding {
            id,
            phase: self.check.phase,
            title,
            status: self.status,
            severity: if self.status == Status::Fail {
                self.severity.or(Some(self.check.severity))
            } else {
                None
            },
            // Probes write clauses; every report shows sentences (see `wording`).
            detail: crate::report::wording::sentence(self.detail),
            advice: self
                .advice
                .map(crate::report::wording::sentence)
                .unwrap_or_else(|| self.check.advice.to_string()),
            spec: (!self.check.spec.is_empty()).then(|| self.check.spec.to_string()),
            subject: self.subject,
            era: self.era,
            revision: self.revision,
            evidence: self.evidence,
            skip_reason: if self.status == Status::Skip {
                self.skip_reason
            } else {
                None
            },
            suppressed: None,
        })
    }
}
