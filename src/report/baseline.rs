//! Baselines: findings a team has accepted for now, each with a reason.
//!
//! A baselined finding is still reported (marked `Baselined`) but does not count for the
//! score or the gate. An entry that matches nothing any more is *stale*: the problem was
//! fixed (or the check renamed), and the gate fails until the entry is removed, unless the
//! caller allows stale entries (`--allow-stale-baseline`). That keeps baselines shrinking.
//!
//! The file is TOML:
//!
//! ```toml
//! version = 1
//!
//! [[accepted]]
//! check = "protocol.batch"
//! server = "everything"
//! subject = "tools/call"   # optional: only this subject
//! era = "legacy"           # optional: only on this wire of a dual-era server
//! reason = "batching is tracked in ISSUE-123"
//! ```
//!
//! `scout baseline import` writes entries from an official conformance suite baseline with
//! two more keys: `any_subject = true` (the official entry names a scenario, not one of
//! scout's subjects) and `official = "scenario[:check-id]"`, the official entry it came from.
//! The entries of one official entry are stale together: only when none of them matches,
//! as the suite calls its entry stale only when the scenario (or check) passes.
//!
//! Call order (the CLI does this after the run, before any emitter):
//! 1. `let stale = baseline::apply(&mut report, &baseline);`
//! 2. `let extra = baseline::stale_reasons(&stale, allow_stale);`
//! 3. `baseline::rescore(&mut report, &gate_config, extra);` — scores and the gate are
//!    recomputed from the findings, so pass every extra gate reason again here.
//! 4. emit.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::report::finding::{Era, Finding, Status, Suppression};
use crate::report::gate::{self, GateConfig};
use crate::report::model::Report;
use crate::report::score;

/// The only file version this module reads and writes.
pub const VERSION: u32 = 1;

/// Why a baseline could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read baseline {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("baseline {path} is not valid: {message}")]
    Parse { path: String, message: String },
    #[error("baseline {path}: unsupported version {found} (this scout reads version {VERSION})")]
    Version { path: String, found: u32 },
    #[error("baseline {path}: entry {index} ({check}) has an empty reason; say why it is accepted")]
    NoReason {
        path: String,
        index: usize,
        check: String,
    },
    #[error("cannot write baseline {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// A baseline file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    #[serde(default)]
    pub accepted: Vec<Entry>,
}

/// One accepted finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The check id.
    pub check: String,
    /// The server name as in the config.
    pub server: String,
    /// Only this subject; absent = only findings without a subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Only this wire; absent = either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<Era>,
    /// Why it is accepted (required, shown in every report).
    pub reason: String,
    /// Every subject of the check (an imported official entry names no subject).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any_subject: bool,
    /// The official conformance baseline entry this one was imported from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub official: Option<String>,
}

impl Entry {
    fn matches(&self, server: &str, f: &Finding) -> bool {
        self.check == f.id
            && self.server == server
            && (self.any_subject || self.subject == f.subject)
            && self.era.is_none_or(|e| f.era == Some(e))
    }

    /// `server: check[subject] (era)` for messages.
    pub fn label(&self) -> String {
        let mut s = format!("{}: {}", self.server, self.check);
        if let Some(subject) = &self.subject {
            s.push_str(&format!("[{subject}]"));
        } else if self.any_subject {
            s.push_str("[*]");
        }
        if let Some(era) = self.era {
            s.push_str(&format!(" ({})", era.as_str()));
        }
        if let Some(official) = &self.official {
            s.push_str(&format!(" (official {official})"));
        }
        s
    }
}

/// An entry that matched no finding of a server that was in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleEntry {
    pub entry: Entry,
}

impl std::fmt::Display for StaleEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Starts with "<server>: " like every gate reason, so per-server verdicts find it.
        write!(
            f,
            "{} no longer occurs; remove it from the baseline (it was accepted because: {})",
            self.entry.label(),
            self.entry.reason
        )
    }
}

impl Baseline {
    /// Parses baseline TOML; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Baseline, BaselineError> {
        let b: Baseline = toml::from_str(text).map_err(|e| BaselineError::Parse {
            path: origin.to_string(),
            message: e.to_string().trim().replace('\n', " "),
        })?;
        if b.version != VERSION {
            return Err(BaselineError::Version {
                path: origin.to_string(),
                found: b.version,
            });
        }
        if let Some((index, e)) = b
            .accepted
            .iter()
            .enumerate()
            .find(|(_, e)| e.reason.trim().is_empty())
        {
            return Err(BaselineError::NoReason {
                path: origin.to_string(),
                index: index + 1,
                check: e.check.clone(),
            });
        }
        Ok(b)
    }

    /// The TOML text of this baseline (entries sorted, so diffs stay small).
    pub fn to_toml(&self) -> String {
        let mut sorted = self.clone();
        sorted.accepted.sort();
        let body = toml::to_string_pretty(&sorted).unwrap_or_default();
        format!(
            "# scout baseline: accepted findings, each with a reason. Remove an entry once its\n\
             # problem is fixed; an entry that no longer occurs fails the gate.\n{body}"
        )
    }

    /// Writes the baseline atomically.
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        super::file::write_atomic(path, self.to_toml().as_bytes()).map_err(|source| {
            BaselineError::Write {
                path: path.display().to_string(),
                source,
            }
        })
    }
}

/// Reads a baseline file.
pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
    let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Baseline::parse(&text, &path.display().to_string())
}

/// A baseline accepting every counted fail and warn of `report` with `reason` (findings
/// already baselined keep their own reason).
pub fn from_report(report: &Report, reason: &str) -> Baseline {
    let mut entries = BTreeSet::new();
    for s in &report.servers {
        for f in &s.findings {
            if !matches!(f.status, Status::Fail | Status::Warn) {
                continue;
            }
            let reason = match &f.suppressed {
                None => reason.to_string(),
                Some(Suppression::Baselined { reason }) => reason.clone(),
                Some(Suppression::Ignored { .. }) => continue,
            };
            entries.insert(Entry {
                check: f.id.clone(),
                server: s.name.clone(),
                subject: f.subject.clone(),
                era: f.era,
                reason,
                any_subject: false,
                official: None,
            });
        }
    }
    Baseline {
        version: VERSION,
        accepted: entries.into_iter().collect(),
    }
}

/// Marks every counted fail and warn that an entry matches as `Baselined`, and returns the
/// entries that matched nothing. Entries for servers absent from the report (another shard)
/// are neither applied nor stale. Scores are not touched: call [`rescore`] next.
pub fn apply(report: &mut Report, baseline: &Baseline) -> Vec<StaleEntry> {
    let mut used = vec![false; baseline.accepted.len()];
    for s in &mut report.servers {
        for f in &mut s.findings {
            if !matches!(f.status, Status::Fail | Status::Warn) {
                continue;
            }
            // An entry also "occurs" when it matches a finding that was already baselined;
            // every entry that matches occurs (the first one's reason is shown).
            let mut hit = None;
            for (i, e) in baseline.accepted.iter().enumerate() {
                if e.matches(&s.name, f) {
                    used[i] = true;
                    hit = hit.or(Some(e));
                }
            }
            if let Some(e) = hit
                && (f.counts() || matches!(f.suppressed, Some(Suppression::Baselined { .. })))
            {
                f.suppressed = Some(Suppression::Baselined {
                    reason: e.reason.clone(),
                });
            }
        }
    }
    // An imported official entry occurs when any of the scout entries made from it does.
    let official_used: BTreeSet<(&str, &str)> = baseline
        .accepted
        .iter()
        .zip(&used)
        .filter(|(_, used)| **used)
        .filter_map(|(e, _)| e.official.as_deref().map(|o| (e.server.as_str(), o)))
        .collect();
    baseline
        .accepted
        .iter()
        .zip(used)
        .filter(|(e, used)| {
            !used
                && e.official
                    .as_deref()
                    .is_none_or(|o| !official_used.contains(&(e.server.as_str(), o)))
                && report.servers.iter().any(|s| s.name == e.server)
        })
        .map(|(e, _)| StaleEntry { entry: e.clone() })
        .collect()
}

/// The gate reasons stale entries add (none when `allow_stale`).
pub fn stale_reasons(stale: &[StaleEntry], allow_stale: bool) -> Vec<String> {
    if allow_stale {
        return Vec::new();
    }
    stale.iter().map(|s| s.to_string()).collect()
}

/// Recomputes every server's category and overall scores from its (now suppressed)
/// findings and re-evaluates the gate with `extra` reasons (stale entries and any other
/// reason the caller had added before).
pub fn rescore(report: &mut Report, gate: &GateConfig, extra: Vec<String>) {
    for s in &mut report.servers {
        score::rescore(s);
    }
    report.gate = gate::evaluate(&report.servers, gate, extra);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_requires_a_reason_and_the_version() {
        let ok = "version = 1\n[[accepted]]\ncheck = \"protocol.batch\"\nserver = \"a\"\nreason = \"r\"\n";
        assert_eq!(
            Baseline::parse(ok, "b.toml").expect("valid").accepted.len(),
            1
        );
        let no_reason = ok.replace("reason = \"r\"", "reason = \" \"");
        assert!(matches!(
            Baseline::parse(&no_reason, "b.toml"),
            Err(BaselineError::NoReason { index: 1, .. })
        ));
        let v2 = ok.replace("version = 1", "version = 2");
        assert!(matches!(
            Baseline::parse(&v2, "b.toml"),
            Err(BaselineError::Version { found: 2, .. })
        ));
        let unknown = ok.replace("reason", "why");
        let err = Baseline::parse(&unknown, "b.toml").expect_err("unknown key");
        assert!(err.to_string().contains("b.toml"), "{err}");
    }

    #[test]
    fn toml_round_trips() {
        let b = Baseline {
            version: VERSION,
            accepted: vec![Entry {
                check: "protocol.batch".into(),
                server: "a".into(),
                subject: Some("tools/call".into()),
                era: Some(Era::Modern),
                reason: "tracked".into(),
                any_subject: true,
                official: Some("tools-list:tools-name-format".into()),
            }],
        };
        assert_eq!(Baseline::parse(&b.to_toml(), "x").expect("parses"), b);
    }
}
