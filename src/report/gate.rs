//! The gate: whether a run's reports meet the configured thresholds (README: exit codes). A pure
//! function of the server reports.

use serde::{Deserialize, Serialize};

use crate::report::finding::{Phase, Severity, Status};
use crate::report::model::ServerReport;

/// The check whose failures fail the gate on their own (`security.catalog_pinning`).
pub const PINNING_CHECK: &str = "security.catalog_pinning";

/// The check that fails when the server stopped answering part-way through the run: what
/// came after is not assessed, so no threshold can vouch for the run.
pub const STAYS_UP_CHECK: &str = "resilience.stays_up";

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

/// What every output says when no threshold was set, so that a failing finding under a
/// passing gate does not read as a bug.
pub const NO_THRESHOLD: &str = "no threshold set: the gate passes unless scout could not finish (a server blocked, interrupted, stopped part-way or not assessed, an internal error) or a catalogue drifted from scout.lock";

impl GateConfig {
    /// The thresholds in words, one per threshold (empty: none set).
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(min) = self.fail_under {
            out.push(format!("score >= {min}"));
        }
        for (phase, min) in &self.fail_under_category {
            out.push(format!("{phase} score >= {min}"));
        }
        if let Some(level) = self.fail_on {
            out.push(format!("no counted fail at or above {}", level.as_str()));
        }
        out
    }
}

/// The verdict, with one reason per broken threshold, and the thresholds it applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateResult {
    pub passed: bool,
    pub reasons: Vec<String>,
    /// The thresholds applied, in words (`server: …` when servers had different ones);
    /// empty when none was set (see [`NO_THRESHOLD`]).
    #[serde(default)]
    pub thresholds: Vec<String>,
}

impl GateResult {
    /// The thresholds as one line: `thresholds: a; b`, or [`NO_THRESHOLD`].
    pub fn thresholds_line(&self) -> String {
        if self.thresholds.is_empty() {
            NO_THRESHOLD.to_string()
        } else {
            format!("thresholds: {}", self.thresholds.join("; "))
        }
    }
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
    if !server.internal_errors.is_empty() {
        reasons.push(format!(
            "{name}: scout hit {} internal error(s), so this result may be missing findings: {}",
            server.internal_errors.len(),
            server.internal_errors[0]
        ));
    }
    // A finished run that judged nothing has no score, and a gate cannot vouch for it.
    // (A blocked or interrupted run has no score either; its reason is above.)
    if server.score.is_none() && server.completed() {
        reasons.push(format!(
            "{name}: not assessed: no check made a judgement (every finding was an observation or a skip), so there is no score{}",
            gate.fail_under
                .map(|min| format!(" to compare with {min}"))
                .unwrap_or_default()
        ));
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
    if let Some(f) = server
        .findings
        .iter()
        .find(|f| f.counts() && f.status == Status::Fail && f.id == STAYS_UP_CHECK)
    {
        reasons.push(format!(
            "{name}: the server stopped answering part-way through the run ({STAYS_UP_CHECK}{}); what came after is not assessed",
            f.evidence
                .first()
                .map(|seq| format!(", at req#{seq}"))
                .unwrap_or_default()
        ));
    }
    if let (Some(min), Some(s)) = (gate.fail_under, server.score)
        && s < min
    {
        reasons.push(format!("{name}: score {s} < {min}"));
    }
    for (phase, min) in &gate.fail_under_category {
        if let Some(c) = server.categories.iter().find(|c| c.phase == *phase) {
            match c.score {
                Some(s) if s < *min => {
                    reasons.push(format!("{name}: {phase} score {s} < {min}"));
                }
                Some(_) => {}
                None => reasons.push(format!(
                    "{name}: {phase} was not assessed (threshold {min})"
                )),
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
        thresholds: gate.describe(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::{Finding, Status};
    use crate::report::model::{EraKind, TransportKind};
    use crate::report::score;

    fn server(status: Status, blocked: bool) -> ServerReport {
        let mut s = ServerReport {
            name: "s".into(),
            transport: TransportKind::Http,
            target: "http://127.0.0.1:1/mcp".into(),
            era: EraKind::Legacy,
            protocol_versions: vec![],
            server_info: None,
            score: None,
            categories: vec![],
            findings: vec![Finding {
                id: "auth.open".into(),
                phase: Phase::Auth,
                title: "t".into(),
                status,
                severity: None,
                detail: String::new(),
                advice: String::new(),
                spec: None,
                subject: None,
                era: None,
                revision: None,
                evidence: vec![1],
                skip_reason: None,
                suppressed: None,
            }],
            exchanges: vec![],
            exchange_count: None,
            blocked: blocked.then(|| "every request got HTTP 401".into()),
            interrupted: false,
            anchor: None,
            duration_ms: 0,
            notes: Default::default(),
            internal_errors: vec![],
        };
        score::rescore(&mut s);
        s
    }

    #[test]
    fn a_server_without_a_score_never_passes() {
        let none = GateConfig::default();
        let with_min = GateConfig {
            fail_under: Some(50),
            ..GateConfig::default()
        };
        // Judged: passes.
        assert!(server_reasons(&server(Status::Pass, false), &with_min).is_empty());
        // Only an observation: nothing was judged, so there is no score to pass with.
        let r = server_reasons(&server(Status::Info, false), &none);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("s: not assessed: no check made a judgement"),
            "{r:?}"
        );
        // Blocked: one clear reason, and no score is compared.
        let r = server_reasons(&server(Status::Pass, true), &with_min);
        assert_eq!(
            r,
            vec!["s: run blocked: every request got HTTP 401".to_string()]
        );
    }

    #[test]
    fn a_server_that_stopped_mid_run_fails_the_gate_without_thresholds() {
        // Previously: a server that exited part-way passed with score 100 when the only
        // judged categories were those before the stop.
        let mut s = server(Status::Pass, false);
        let mut stop = s.findings[0].clone();
        stop.id = STAYS_UP_CHECK.into();
        stop.phase = Phase::Resilience;
        stop.status = Status::Fail;
        stop.severity = Some(Severity::Critical);
        stop.evidence = vec![6];
        s.findings.push(stop);
        let r = server_reasons(&s, &GateConfig::default());
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].contains("stopped answering"), "{r:?}");
        assert!(r[0].contains("req#6"), "{r:?}");
        // Its pass says nothing to the gate.
        s.findings[1].status = Status::Pass;
        s.findings[1].severity = None;
        assert!(server_reasons(&s, &GateConfig::default()).is_empty());
    }

    #[test]
    fn internal_errors_fail_the_gate() {
        let mut s = server(Status::Pass, false);
        s.internal_errors
            .push("auth.open could not be recorded as fail: no evidence".into());
        let r = server_reasons(&s, &GateConfig::default());
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].contains("1 internal error(s)"), "{r:?}");
        assert!(r[0].contains("auth.open could not be recorded"), "{r:?}");
    }

    #[test]
    fn an_unassessed_category_threshold_names_it() {
        let gate = GateConfig {
            fail_under_category: vec![(Phase::Auth, 80)],
            ..GateConfig::default()
        };
        let mut s = server(Status::Info, false);
        s.findings.push(Finding {
            id: "discovery.reachable".into(),
            phase: Phase::Discovery,
            status: Status::Pass,
            ..s.findings[0].clone()
        });
        score::rescore(&mut s);
        assert_eq!(
            server_reasons(&s, &gate),
            vec!["s: auth was not assessed (threshold 80)".to_string()]
        );
    }
}
