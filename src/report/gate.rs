//! The gate: whether a run's reports meet the configured thresholds (DESIGN §3). A pure
//! function of the server reports.

use serde::{Deserialize, Serialize};

use crate::report::finding::{Phase, Severity, Status};
use crate::report::model::ServerReport;

/// The check whose failures fail the gate on their own (`security.catalog_pinning`).
pub const PINNING_CHECK: &str = "security.catalog_pinning";

/// The thresholds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateConfig {
    /// Fail when a server's overall score is below this.
    pub fail_under: Option<u8>,
    /// Fail when a category's score is below its threshold.
    pub fail_under_category: Vec<(Phase, u8)>,
    /// Fail on any counted failure at or above this severity.
    pub fail_on: Option<Severity>,
}

/// The verdict, with one reason per broken threshold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateResult {
    pub passed: bool,
    pub reasons: Vec<String>,
}

/// Reasons one server breaks the gate (empty = it passes).
pub fn server_reasons(server: &ServerReport, gate: &GateConfig) -> Vec<String> {
    let mut reasons = Vec::new();
    let name = &server.name;
    // An incomplete run never looks green.
    if let Some(why) = &server.blocked {
        reasons.push(format!("{name}: run blocked: {why}"));
    }
    if server.interrupted {
        reasons.push(format!("{name}: run interrupted before it finished"));
    }
    // A catalogue that differs from scout.lock fails whatever the thresholds: the change
    // has to be reviewed and accepted (`scout pin --update`) or ignored with a reason.
    let drift = server
        .findings
        .iter()
        .filter(|f| f.counts() && f.status == Status::Fail && f.id == PINNING_CHECK)
        .count();
    if drift > 0 {
        reasons.push(format!(
            "{name}: {drift} catalogue change(s) not pinned in scout.lock; review them and run `scout pin --update`"
        ));
    }
    if let Some(min) = gate.fail_under {
        match server.score {
            Some(s) if s < min => reasons.push(format!("{name}: score {s} < {min}")),
            None => reasons.push(format!(
                "{name}: no category was assessed, so no score to compare with {min}"
            )),
            _ => {}
        }
    }
    for (phase, min) in &gate.fail_under_category {
        if let Some(c) = server.categories.iter().find(|c| c.phase == *phase) {
            if c.assessed && c.score < *min {
                reasons.push(format!("{name}: {phase} score {} < {min}", c.score));
            } else if !c.assessed {
                reasons.push(format!(
                    "{name}: {phase} was not assessed (threshold {min})"
                ));
            }
        }
    }
    if let Some(level) = gate.fail_on {
        let worst = server
            .findings
            .iter()
            .filter(|f| f.counts() && f.status == Status::Fail)
            .filter_map(|f| f.severity.map(|s| (s, f)))
            .filter(|(s, _)| *s >= level)
            .collect::<Vec<_>>();
        if let Some((s, f)) = worst.iter().max_by_key(|(s, _)| *s) {
            reasons.push(format!(
                "{name}: {} failing check(s) at or above {} (e.g. {} is {})",
                worst.len(),
                level.as_str(),
                f.id,
                s.as_str()
            ));
        }
    }
    reasons
}

/// Applies the gate to every server; extra reasons (stale baseline entries) fail it too.
pub fn evaluate(servers: &[ServerReport], gate: &GateConfig, extra: Vec<String>) -> GateResult {
    let mut reasons: Vec<String> = servers
        .iter()
        .flat_map(|s| server_reasons(s, gate))
        .collect();
    reasons.extend(extra);
    GateResult {
        passed: reasons.is_empty(),
        reasons,
    }
}
