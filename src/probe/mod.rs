//! The nine phases, their registry (the one list of checks), and the Session they share.
//! `run_server` runs the phases in order over one Session and turns it into a ServerReport.

pub mod auth;
pub mod catalog;
pub mod discovery;
pub mod events;
pub mod execution;
pub mod handshake;
pub mod performance;
pub mod protocol;
pub mod registry;
pub mod resilience;
pub mod security;
pub mod session;
pub mod spec;
pub mod stdio;
pub mod version_negotiation;

use std::time::Instant;

use tokio::sync::watch;

use crate::report::finding::{Phase, SkipReason};
use crate::report::model::ServerReport;
use crate::report::score;
pub use session::{Catalog, Session};
pub use spec::ServerSpec;

/// Signals that the user asked the run to stop (Ctrl-C). `true` = stop.
pub type CancelRx = watch::Receiver<bool>;

/// Runs one phase's probes.
async fn run_phase(phase: Phase, s: &mut Session) {
    match phase {
        Phase::Discovery => discovery::run(s).await,
        Phase::Auth => auth::run(s).await,
        Phase::Handshake => handshake::run(s).await,
        Phase::Protocol => protocol::run(s).await,
        Phase::Catalog => catalog::run(s).await,
        Phase::Execution => execution::run(s).await,
        Phase::Performance => performance::run(s).await,
        Phase::Resilience => resilience::run(s).await,
        Phase::Security => security::run(s).await,
    }
}

/// Records every check of `phase` that has no finding yet as skipped for `reason`.
fn skip_rest_of(s: &mut Session, phase: Phase, reason: SkipReason, why: &str) {
    for (p, table) in registry::tables() {
        if p != phase {
            continue;
        }
        for check in table {
            // stdio.* checks are reported by the stdio wire itself, whatever the phase state.
            if check.id.starts_with("stdio.") {
                continue;
            }
            if !s.findings.iter().any(|f| f.id == check.id) {
                s.add(check.skip(reason, why));
            }
        }
    }
}

/// Runs every selected phase against one server and builds its report. Never panics on a
/// bad server; a deadline or a cancel leaves a partial report marked interrupted.
pub async fn run_server(spec: ServerSpec, cancel: CancelRx) -> ServerReport {
    run_server_exposing(spec, cancel).await.0
}

/// [`run_server`], plus what the server exposes to an agent (when the security phase judged
/// it), for the rules over every server of a run (`security::cross`).
pub async fn run_server_exposing(
    spec: ServerSpec,
    mut cancel: CancelRx,
) -> (ServerReport, Option<security::cross::Exposure>) {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + spec.deadline;
    let mut s = Session::new(spec);
    let mut interrupted: Option<String> = None;
    let mut protocol_ran = false;

    for phase in Phase::ALL {
        events::emit(&s.spec.observer, || events::RunEvent::PhaseStarted {
            server: s.spec.name.clone(),
            phase,
        });
        run_or_skip_phase(
            &mut s,
            phase,
            deadline,
            &mut cancel,
            &mut interrupted,
            &mut protocol_ran,
        )
        .await;
        events::emit(&s.spec.observer, || events::RunEvent::PhaseFinished {
            server: s.spec.name.clone(),
            phase,
        });
    }

    // Checks over every message of the run (schema, resultType, cache hints, error codes)
    // are judged last, so that the catalog and execution traffic counts too.
    if protocol_ran {
        let found = protocol::whole_run_findings(&s);
        s.add_all(found);
    }

    // auth.open of an open remote server needed the catalogue.
    auth::finish_open(&mut s);

    // The wire is closed on every path out; stdio servers are shut down and reaped here.
    stdio::finish(&mut s).await;
    // After the last reader stopped: how much of what the server sent was kept.
    resilience::record_output_volume(&mut s);
    let exposure = security::cross::exposure(&s);
    (finish_report(s, interrupted.is_some(), started), exposure)
}

/// Turns a finished session into a scored, redacted report.
fn finish_report(s: Session, interrupted: bool, started: Instant) -> ServerReport {
    let mut report = ServerReport {
        name: s.spec.name.clone(),
        transport: s
            .wires
            .first()
            .map(|w| w.transport())
            .unwrap_or(match s.spec.target {
                spec::TargetSpec::Http { .. } => crate::report::TransportKind::Http,
                spec::TargetSpec::Stdio { .. } => crate::report::TransportKind::Stdio,
            }),
        target: s.spec.target_display(),
        era: s.era,
        protocol_versions: s.protocol_versions.clone(),
        server_info: s.server_info.clone(),
        score: None,
        categories: Vec::new(),
        findings: s.findings,
        exchanges: s.recorder.take(),
        exchange_count: None,
        blocked: s.blocked.clone(),
        interrupted,
        anchor: s.spec.anchor.clone(),
        duration_ms: started.elapsed().as_millis() as u64,
        internal_errors: s.internal_errors,
    };
    score::rescore(&mut report);
    // The recorder's redactor knows every secret registered or learnt during the run.
    s.recorder.redactor().report(&mut report);
    report
}

/// Runs `phase` (or records why it was skipped) within the deadline and the cancel signal.
async fn run_or_skip_phase(
    s: &mut Session,
    phase: Phase,
    deadline: tokio::time::Instant,
    cancel: &mut CancelRx,
    interrupted: &mut Option<String>,
    protocol_ran: &mut bool,
) {
    if let Some(why) = interrupted.clone() {
        skip_rest_of(s, phase, SkipReason::NotAssessed, &why);
        return;
    }
    if let Some(why) = s.blocked.clone() {
        skip_rest_of(s, phase, SkipReason::Blocked, &why);
        return;
    }
    if !s.spec.runs(phase) {
        skip_rest_of(
            s,
            phase,
            SkipReason::NotAssessed,
            "phase not selected (--only/--skip)",
        );
        return;
    }
    tracing::debug!(server = %s.spec.name, %phase, "phase starts");
    let outcome = {
        let fut = run_phase(phase, s);
        tokio::select! {
            r = tokio::time::timeout_at(deadline, fut) => r.map_err(|_| "the server's --deadline passed".to_string()),
            _ = cancel.wait_for(|c| *c) => Err("interrupted (Ctrl-C)".to_string()),
        }
    };
    if let Err(why) = outcome {
        tracing::warn!(server = %s.spec.name, %phase, "{why}");
        skip_rest_of(s, phase, SkipReason::NotAssessed, &why);
        *interrupted = Some(why);
    } else if phase == Phase::Protocol && !s.wires.is_empty() {
        *protocol_ran = true;
    }
}
