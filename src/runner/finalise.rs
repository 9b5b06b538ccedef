//! The one step between the servers' runs and the emitters, shared by `scout check`,
//! `scout serve` and `scout report merge`: the rules over every server, `[checks] ignore`,
//! the baseline, then the scores and the gate, each exactly once and in that order. A score
//! or a gate computed before the last change to the findings would be a lie, so nothing
//! else re-scores a finished run.

use crate::report::baseline::{self, Baseline};
use crate::report::exposure::Exposure;
use crate::report::finding::Suppression;
use crate::report::gate::{self, GateConfig, GateResult};
use crate::report::model::{Report, ServerReport};
use crate::report::score;

/// The thresholds the gate applies.
#[derive(Debug, Clone, Copy)]
pub enum Gates<'a> {
    /// Each server its own (a config's servers); a server not listed gets the defaults.
    PerServer(&'a [(String, GateConfig)]),
    /// One for every server (`scout report merge`).
    One(&'a GateConfig),
}

impl Gates<'_> {
    fn of(&self, server: &str) -> GateConfig {
        match self {
            Gates::PerServer(gates) => gates
                .iter()
                .find(|(n, _)| n == server)
                .map(|(_, g)| g.clone())
                .unwrap_or_default(),
            Gates::One(g) => (*g).clone(),
        }
    }
}

/// How to finish a run's report.
#[derive(Debug, Clone, Copy)]
pub struct Finalise<'a> {
    /// Apply the rules over every server of the run. A shard sees only some of the servers:
    /// rather than judge a part as the whole, each server keeps what it exposes in its
    /// report, and `report merge` applies the rules over all shards.
    pub whole_run: bool,
    /// `[checks] ignore`: (check id, reason).
    pub ignore: &'a [(String, String)],
    /// `--baseline`: the accepted findings, and whether stale entries are allowed.
    pub baseline: Option<(&'a Baseline, bool)>,
    pub gates: Gates<'a>,
}

/// Finishes `report` (whose servers are the runs' own reports) with what the servers
/// expose: sorts the servers by name, applies the cross-server rules (or keeps the
/// exposures for a later merge), marks ignored and baselined findings, scores every server
/// and evaluates the gate, stale baseline entries included.
pub fn finalise(report: &mut Report, mut exposures: Vec<Exposure>, how: Finalise<'_>) {
    report.servers.sort_by(|a, b| a.name.cmp(&b.name));
    exposures.sort_by(|a, b| a.server.cmp(&b.server));
    if how.whole_run {
        crate::probe::security::cross::apply(&mut report.servers, &exposures);
    } else {
        for e in exposures {
            if let Some(s) = report.servers.iter_mut().find(|s| s.name == e.server) {
                s.notes.exposure = Some(e);
            }
        }
    }
    for s in &mut report.servers {
        mark_ignored(s, how.ignore);
    }
    let stale = match how.baseline {
        Some((b, allow_stale)) => baseline::stale_reasons(&baseline::apply(report, b), allow_stale),
        None => Vec::new(),
    };
    for s in &mut report.servers {
        score::rescore(s);
    }
    report.gate = evaluate(&report.servers, how.gates, stale);
}

/// Marks the findings of ignored checks as suppressed (scores are not touched).
fn mark_ignored(server: &mut ServerReport, ignore: &[(String, String)]) {
    for f in &mut server.findings {
        if let Some((_, reason)) = ignore.iter().find(|(id, _)| *id == f.id) {
            f.suppressed = Some(Suppression::Ignored {
                reason: reason.clone(),
            });
        }
    }
}

/// The gate over every server, each with its thresholds, and the `extra` reasons.
pub fn evaluate(servers: &[ServerReport], gates: Gates<'_>, extra: Vec<String>) -> GateResult {
    let mut reasons: Vec<String> = servers
        .iter()
        .flat_map(|s| gate::server_reasons(s, &gates.of(&s.name)))
        .collect();
    reasons.extend(extra);
    GateResult {
        passed: reasons.is_empty(),
        reasons,
        thresholds: thresholds(servers, gates),
    }
}

/// The thresholds applied, in words: once when every server had the same, otherwise per
/// server (`name: …`, only for servers that had any).
fn thresholds(servers: &[ServerReport], gates: Gates<'_>) -> Vec<String> {
    let each: Vec<(&str, Vec<String>)> = servers
        .iter()
        .map(|s| (s.name.as_str(), gates.of(&s.name).describe()))
        .collect();
    match each.first() {
        None => match gates {
            Gates::One(g) => g.describe(),
            Gates::PerServer(_) => Vec::new(),
        },
        Some((_, first)) if each.iter().all(|(_, t)| t == first) => first.clone(),
        Some(_) => each
            .iter()
            .filter(|(_, t)| !t.is_empty())
            .map(|(name, t)| format!("{name}: {}", t.join(", ")))
            .collect(),
    }
}
