//! `scout report merge`: one report from the JSON reports of sharded runs (`--shard I/N`).
//!
//! Servers are concatenated and sorted by name; a server name that occurs in two shards is
//! an error (the shards overlapped, or two different runs were mixed). Run ids are combined
//! (`a+b`, sorted), the start is the earliest start and the duration spans to the latest
//! end. Scores are recomputed from each server's findings with [`score::rescore`] (the
//! same pure function the run used, so a merged report equals the unsharded one, and a
//! blocked server never comes out with a score); the cross-server rules, which no shard can
//! apply alone, are applied over the servers of every shard; the gate is re-evaluated over all servers
//! with the given thresholds. Gate
//! reasons that did not come from the servers (stale baseline entries) are not carried
//! over: apply the baseline to the merged report again (`report::baseline`).

use time::Duration;

use crate::report::gate::{self, GateConfig};
use crate::report::model::Report;
use crate::report::score;

/// Why reports could not be merged.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    #[error("no reports to merge")]
    Empty,
    #[error("server {0:?} appears in more than one report; shards must not overlap")]
    DuplicateServer(String),
    #[error(
        "reports were written by different scout versions ({0} and {1}); merge reports of one run"
    )]
    VersionMismatch(String, String),
}

/// The rules over every server of a run, which no shard could apply alone: each sharded
/// run kept what its servers expose, and the merged report gets the findings an unsharded
/// run would have given. What was kept for this is dropped afterwards, as an unsharded
/// report does not carry it.
fn apply_cross_server_rules(servers: &mut [crate::report::model::ServerReport]) {
    let exposures: Vec<_> = servers
        .iter_mut()
        .filter_map(|s| s.notes.exposure.take())
        .collect();
    crate::probe::security::cross::apply(servers, &exposures);
}

/// Merges shard reports into one, re-evaluating the gate with `gate`.
pub fn merge(reports: Vec<Report>, gate: &GateConfig) -> Result<Report, MergeError> {
    let first = reports.first().ok_or(MergeError::Empty)?;
    let version = first.scout_version.clone();
    if let Some(other) = reports.iter().find(|r| r.scout_version != version) {
        return Err(MergeError::VersionMismatch(
            version,
            other.scout_version.clone(),
        ));
    }
    let started_at = reports
        .iter()
        .map(|r| r.started_at)
        .min()
        .unwrap_or(first.started_at);
    let ended_at = reports
        .iter()
        .map(|r| r.started_at + Duration::milliseconds(r.duration_ms as i64))
        .max()
        .unwrap_or(started_at);
    let mut run_ids: Vec<String> = reports.iter().map(|r| r.run_id.clone()).collect();
    run_ids.sort();
    run_ids.dedup();

    let mut servers = Vec::new();
    for r in reports {
        servers.extend(r.servers);
    }
    servers.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(pair) = servers.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(MergeError::DuplicateServer(pair[0].name.clone()));
    }
    for s in &mut servers {
        score::rescore(s);
    }
    apply_cross_server_rules(&mut servers);
    let gate = gate::evaluate(&servers, gate, Vec::new());
    Ok(Report {
        run_id: run_ids.join("+"),
        scout_version: version,
        started_at,
        duration_ms: (ended_at - started_at).whole_milliseconds().max(0) as u64,
        servers,
        gate,
    })
}
