//! The nine phases, the compat category and the config's expectations, their registry (the one
//! list of checks), and the Session they share.
//! `run_server` runs the phases in order over one Session and turns it into a ServerReport.

pub mod auth;
pub mod catalog;
pub mod classes;
pub mod compat;
pub mod conformance;
pub mod discovery;
pub mod execution;
pub mod expectations;
pub mod handshake;
pub mod liveness;
pub mod manifest;
pub mod performance;
pub mod protocol;
pub mod registry;
pub mod resilience;
pub mod security;
pub mod session;
pub mod snapshots;
pub mod stdio;

use std::time::Instant;

use tokio::sync::watch;

use crate::report::finding::{Phase, SkipReason};
use crate::report::model::ServerReport;
use crate::report::score;
use crate::spec::{self, RunContext, ServerSpec};
use crate::telemetry::events;
pub use session::{Catalog, Session};

/// Signals that the user asked the run to stop (Ctrl-C). `true` = stop.
pub type CancelRx = watch::Receiver<bool>;

/// A future on the heap, made there and polled through a pointer the optimiser cannot see
/// through. A future built in place is a temporary of its caller's stack frame, and an
/// inlined poll merges the callee's frame into the caller's: LLVM gave the run's poll
/// chain frames of 100–200 KiB each, 600 KiB of stack for one server (every page of it
/// resident). Built in a function of its own and polled by an indirect call, each frame
/// holds only its own locals.
#[inline(never)]
pub(crate) fn on_heap<'a, T, F>(
    make: impl FnOnce() -> F,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>
where
    F: std::future::Future<Output = T> + Send + 'a,
{
    Box::pin(make())
}

/// Runs one phase's probes (the protocol phase is split in two: see [`Step`]).
async fn run_phase(phase: Phase, s: &mut Session) {
    // Each phase's future is boxed: held inline, the largest of them sized every caller's
    // future, and a test's 2 MiB thread stack overflowed.
    match phase {
        Phase::Discovery => on_heap(|| discovery::run(s)).await,
        Phase::Auth => on_heap(|| auth::run(s)).await,
        Phase::Handshake => on_heap(|| handshake::run(s)).await,
        Phase::Protocol => {
            let early = on_heap(|| protocol::run_early(s, None)).await;
            on_heap(|| protocol::run_late(s, early)).await
        }
        Phase::Catalog => on_heap(|| catalog::run(s)).await,
        Phase::Execution => on_heap(|| execution::run(s)).await,
        Phase::Expectations => {
            on_heap(|| expectations::run(s)).await;
            snapshots::run(s);
            // Counted after the expectations, whose calls count as exercised too.
            execution::coverage::run(s);
        }
        Phase::Performance => on_heap(|| performance::run(s)).await,
        Phase::Resilience => on_heap(|| resilience::run(s)).await,
        Phase::Security => on_heap(|| security::run(s)).await,
        Phase::Compat => on_heap(|| compat::run(s)).await,
        Phase::Manifest => on_heap(|| manifest::run(s)).await,
    }
}

/// Records every check of `phase` that has no finding yet as skipped for `reason`.
fn skip_rest_of(s: &mut Session, phase: Phase, reason: SkipReason, why: &str) {
    // Each expectation is its own finding; the one check that stands for them is not.
    if phase == Phase::Expectations {
        expectations::skip_all(s, reason, why);
        // Coverage and snapshots are taken after the expectations, in their step.
        for check in [&execution::coverage::COVERAGE, &snapshots::SNAPSHOT] {
            let wanted = check.id != snapshots::SNAPSHOT.id || s.spec.snapshots.is_some();
            if wanted && !s.findings.iter().any(|f| f.id == check.id) {
                s.add(check.skip(reason, why));
            }
        }
        return;
    }
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
    run_server_exposing(spec, RunContext::default(), cancel)
        .await
        .0
}

/// One step of the run plan: a whole phase, or one half of the protocol phase.
#[derive(Debug, Clone, Copy)]
enum Step {
    Phase(Phase),
    /// The protocol probes that change nothing and cannot upset a server (the GET stream
    /// window, an unknown notification): run beside the catalog and execution phases.
    ProtocolEarly,
    /// The protocol probes that send deliberately broken input or end sessions, and the
    /// phase's judgements over both halves: run in the final stage.
    ProtocolLate,
    /// The performance phase's latency samples: they need only the handshake's wires.
    PerformanceSample,
    /// The performance phase's judgements over what was recorded (cold start, payload
    /// size, latency) after the catalog and execution traffic they read, then the load
    /// ramp (`--allow-load`) while nothing else is in flight.
    PerformanceObserved,
    /// The resilience phase's broken input, abandoned requests, second connections and
    /// ended sessions: the final stage, alone on the wire.
    ResilienceLate,
    /// The resilience phase's `concurrent_sessions` (two extra read-only clients) and the
    /// phase's skips: after the security phase's probes, alone, so that no two probes that
    /// open sessions overlap (a server that caps its sessions would end one of them).
    ResilienceSessions,
    /// The security phase's probes (the Origin check on the run's own session, then the
    /// session ids, which open several sessions).
    SecurityProbes,
    /// The security phase's judgements over every message of the run, after the last probe.
    SecurityJudge,
    /// The execution phase's cancellation probes (stdio), planned by the phase and run last
    /// of the probes, alone: a server that mishandles a cancellation racing its own reply
    /// can exit on it. It sends no phase events (the phase has already finished on the
    /// live view; its finding is counted there all the same).
    ExecutionCancel,
}

impl Step {
    fn phase(self) -> Phase {
        match self {
            Step::Phase(p) => p,
            Step::ExecutionCancel => Phase::Execution,
            Step::ProtocolEarly | Step::ProtocolLate => Phase::Protocol,
            Step::PerformanceSample | Step::PerformanceObserved => Phase::Performance,
            Step::ResilienceSessions | Step::ResilienceLate => Phase::Resilience,
            Step::SecurityProbes | Step::SecurityJudge => Phase::Security,
        }
    }

    /// The first half of a split phase: it emits the phase's start and records no skips.
    fn opens_only(self) -> bool {
        matches!(
            self,
            Step::ProtocolEarly
                | Step::PerformanceSample
                | Step::ResilienceLate
                | Step::SecurityProbes
        )
    }

    /// The second half of a split phase: it emits the phase's end and records the skips.
    fn closes_only(self) -> bool {
        matches!(
            self,
            Step::ProtocolLate
                | Step::PerformanceObserved
                | Step::ResilienceSessions
                | Step::SecurityJudge
        )
    }
}

/// What one branch of the run carries from step to step.
struct Branch {
    deadline: tokio::time::Instant,
    cancel: CancelRx,
    /// Why the run stopped early (deadline, Ctrl-C); every later step is skipped with it.
    interrupted: Option<String>,
    /// The protocol phase's first half, for its second.
    deferred: Option<protocol::Deferred>,
    /// Ends the GET stream window of the protocol phase's first half.
    stop: Option<watch::Receiver<bool>>,
    protocol_ran: bool,
}

impl Branch {
    fn new(deadline: tokio::time::Instant, cancel: CancelRx) -> Self {
        Branch {
            deadline,
            cancel,
            interrupted: None,
            deferred: None,
            stop: None,
            protocol_ran: false,
        }
    }

    /// A branch of the concurrent stage, starting from this one's state (a run already
    /// interrupted stays interrupted).
    fn fork(&self) -> Self {
        Branch {
            interrupted: self.interrupted.clone(),
            ..Branch::new(self.deadline, self.cancel.clone())
        }
    }

    /// Takes over what a finished branch learnt.
    fn join(&mut self, other: Branch) {
        if self.interrupted.is_none() {
            self.interrupted = other.interrupted;
        }
        if other.deferred.is_some() {
            self.deferred = other.deferred;
        }
        self.protocol_ran |= other.protocol_ran;
    }
}

/// [`run_server`], plus what the server exposes to an agent (when the security phase judged
/// it), for the rules over every server of a run (`security::cross`).
///
/// The run plan (docs/scheduling.md):
///
/// 1. **discovery → auth → handshake**, in order: each needs what the one before learnt.
/// 2. **The concurrent stage.** Three branches, each on its own [`Session::fork`] (sharing
///    the recorder, so sequence numbers stay unique): the protocol phase's harmless half
///    (the GET stream window, which only waits, and an unknown notification), catalog →
///    execution, and performance's latency samples. Inside a phase, independent requests
///    (and the wires of a dual-era server) run together, bounded by `--concurrency` per
///    server (and by `--rps` towards remote hosts). Then performance's judgements over
///    what was recorded (cold start, payload size).
/// 3. **The final stage**, one phase after another and alone on the wire: the protocol
///    phase's deliberately broken input (garbage bodies, invalid requests, batches, ended
///    sessions), then resilience (malformed bodies, abandoned requests, the oversized body,
///    session recovery), then security (which reads every message of the run), with the
///    execution phase's cancellation probe (stdio) last before the security judgements: a
///    server that races a cancellation against its own reply can exit on it. A probe
///    that could crash or stall the server never overlaps a probe whose verdict would be
///    wrong if it did: within this stage only the protocol groups overlap each other (on
///    HTTP, as they always did) and the unparsable body goes last and alone, and each
///    finding cites only its own exchanges. Over stdio the revision matrix runs beside
///    this stage, on processes of its own, and the security judgements wait for it.
/// 4. The whole-run judgements over every recorded exchange.
///
/// Findings are sorted by registry order (then era) at the end, so reports do not depend
/// on which request finished first.
pub async fn run_server_exposing(
    spec: ServerSpec,
    ctx: RunContext,
    cancel: CancelRx,
) -> (ServerReport, Option<crate::report::exposure::Exposure>) {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + spec.deadline;
    let mut s = Session::in_run(spec, ctx);
    s.deadline = Some(deadline);
    if let Some(why) = manifest::unfilled_headers(&s.spec) {
        s.block(why);
    }
    let mut main = Branch::new(deadline, cancel);

    // 1. In order.
    for phase in [Phase::Discovery, Phase::Auth, Phase::Handshake] {
        step(&mut s, Step::Phase(phase), &mut main).await;
    }

    // The official schemas of the revisions the wires speak, and of those the revision
    // matrix will ask about, compile while the run waits.
    let matrix = protocol::revisions::planned(&s);
    crate::probe::protocol::official::prewarm(
        s.protocol_versions.iter().map(String::as_str),
        &matrix,
    );

    // 2. The concurrent stage.
    let (mut s_early, mut b_early) = (s.fork(), main.fork());
    let (mut s_main, mut b_main) = (s.fork(), main.fork());
    let (mut s_perf, mut b_perf) = (s.fork(), main.fork());
    // The GET stream window listens while the catalog and execution phases work, and no
    // longer.
    let (stop_tx, stop_rx) = watch::channel(false);
    b_early.stop = Some(stop_rx);
    Box::pin(async {
        futures_util::join!(
            step(&mut s_early, Step::ProtocolEarly, &mut b_early),
            async {
                // The author's expectations run after scout's own execution probes, on
                // the same wires and sessions.
                for phase in [
                    Phase::Catalog,
                    Phase::Compat,
                    Phase::Execution,
                    Phase::Expectations,
                ] {
                    step(&mut s_main, Step::Phase(phase), &mut b_main).await;
                }
                let _ = stop_tx.send(true);
            },
            step(&mut s_perf, Step::PerformanceSample, &mut b_perf),
        )
    })
    .await;
    for (branch_s, branch_b) in [(s_early, b_early), (s_main, b_main), (s_perf, b_perf)] {
        s.join(branch_s);
        main.join(branch_b);
    }
    step(&mut s, Step::PerformanceObserved, &mut main).await;

    // 3. The final stage, one step after another and alone on the wire: the broken input
    // first, then the probes that open sessions, one at a time, then the cancellation that
    // can end a server, then the judgements over every message of the run.
    // Over stdio the revision matrix runs beside it, on processes of its own; the security
    // judgements wait for both, as they read every message of the run. Boxed, in a function
    // of its own: a run's future, and the stack its polling takes, must stay small.
    on_heap(|| final_stage(&mut s, &mut main, deadline)).await;
    step(&mut s, Step::SecurityJudge, &mut main).await;
    // The manifest's claims are compared with what the handshake showed, once every branch
    // has folded its findings in (a branch starts without them).
    step(&mut s, Step::Phase(Phase::Manifest), &mut main).await;

    // 4. Checks over every message of the run (schema, resultType, cache hints, error
    // codes) are judged last, so that the catalog and execution traffic counts too.
    if main.protocol_ran {
        let found = protocol::whole_run_findings(&s);
        // Judged here, per wire, over the whole run: a skip recorded for one of them before,
        // when a step was cut short by a server that stopped, says less than these, and
        // whether it was recorded at all was the schedule's choice.
        let whole_run: Vec<&str> = protocol::WHOLE_RUN.iter().map(|c| c.id).collect();
        s.findings.retain(|f| {
            !(f.status == crate::report::finding::Status::Skip
                && f.era.is_none()
                && whole_run.contains(&f.id.as_str()))
        });
        s.add_all(found);
    }

    // auth.open of an open remote server needed the catalogue.
    auth::finish_open(&mut s);

    // A connection that broke in the last step is asked about as at every step's start:
    // whether the server stopped must not depend on which step met the stop.
    // A run blocked before the server answered anything has no stop to find.
    if let Some(c) = s.connector.as_ref()
        && s.blocked.is_none()
    {
        c.confirm_http_stop().await;
    }
    // Every HTTP session the server issued to scout is ended before the run ends.
    end_sessions(&s).await;

    // The wire is closed on every path out; stdio servers are shut down and reaped here.
    stdio::finish(&mut s).await;
    // A server that stopped during the run: what was sent after it is not assessed.
    liveness::settle(&mut s);
    // After the last reader stopped: how much of what the server sent was kept.
    resilience::record_output_volume(&mut s);
    let exposure = security::cross::exposure(&s);
    (
        finish_report(s, main.interrupted.is_some(), started),
        exposure,
    )
}

/// The final stage's steps before the security judgements, with the revision matrix beside
/// them over stdio (see [`run_server_exposing`]).
async fn final_stage(s: &mut Session, main: &mut Branch, deadline: tokio::time::Instant) {
    const STEPS: [Step; 5] = [
        Step::ProtocolLate,
        Step::ResilienceLate,
        Step::SecurityProbes,
        Step::ResilienceSessions,
        Step::ExecutionCancel,
    ];
    let planned = matrix_beside(s, main);
    // With a cancellation to make, the matrix's servers start beside it: its window only
    // waits, while the steps before it work the run's own process.
    let at_cancel = planned && !s.cancellations.is_empty();
    let (before, beside_steps) = STEPS.split_at(if at_cancel { 4 } else { 0 });
    for late in before {
        step(s, *late, main).await;
    }
    let beside = planned && matrix_beside(s, main);
    let mut s_matrix = s.fork();
    let mut cancel = main.cancel.clone();
    let (_, matrix) = futures_util::join!(
        async {
            for late in beside_steps {
                step(s, *late, main).await;
            }
        },
        async {
            if !beside {
                return None;
            }
            tokio::select! {
                // On the heap: the matrix's future is large.
                r = tokio::time::timeout_at(deadline, on_heap(|| protocol::revisions::matrix(&s_matrix))) => Some(r.ok()),
                _ = cancel.wait_for(|c| *c) => Some(None),
            }
        }
    );
    match matrix {
        Some(Some(m)) => m.record(&mut s_matrix),
        Some(None) => protocol::revisions::Matrix::cut_short().record(&mut s_matrix),
        // Planned, but the run was interrupted before the cancellation.
        None if planned => protocol::revisions::Matrix::cut_short().record(&mut s_matrix),
        None => {}
    }
    s.join(s_matrix);
}

/// True when the revision matrix runs beside the final stage (stdio, see
/// `protocol::revisions::runs_beside`): only when the protocol phase would run it there.
fn matrix_beside(s: &Session, main: &Branch) -> bool {
    main.interrupted.is_none()
        && s.blocked.is_none()
        && s.spec.runs(Phase::Protocol)
        && protocol::revisions::runs_beside(s)
}

/// Sends DELETE for every HTTP session the server issued to scout that no probe ended, so
/// that a gateway that keeps a backend per session does not keep scout's. Nothing is sent
/// to a server that stopped, nor after it answered a DELETE with 405 (it does not let
/// clients end sessions; the protocol phase judges that once).
async fn end_sessions(s: &Session) {
    let Some(connector) = s.connector.as_ref() else {
        return;
    };
    if liveness::death(s).is_some() {
        return;
    }
    let Some(wire) = s.wires.iter().find(|w| {
        w.era() == crate::report::finding::Era::Legacy
            && w.transport() == crate::report::TransportKind::Http
    }) else {
        return;
    };
    let (open, _) = connector.open_sessions();
    for id in open {
        if connector.open_sessions().1 {
            break;
        }
        if let Some(conn) = wire.for_session(&id).await {
            conn.close().await;
        }
    }
}

/// Sorts findings by a key that does not depend on scheduling: the check's place in the
/// registry, then the era. The sort is stable: the findings of one check on one wire come
/// from one piece of code, in the order it recorded them (which may carry meaning, e.g.
/// the worst catalogue change first), and the branches of the run plan are joined in a
/// fixed order.
fn sort_findings(findings: &mut [crate::report::finding::Finding], expect: &[spec::Expectation]) {
    let order: std::collections::HashMap<&str, usize> = registry::all()
        .enumerate()
        .map(|(i, c)| (c.id, i))
        .collect();
    // An expectation's finding sits where the check that stands for them all is
    // registered, in config order.
    let expect_at = order
        .get(expectations::EXPECTATION.id)
        .copied()
        .unwrap_or(usize::MAX);
    let rank = |f: &crate::report::finding::Finding| match order.get(f.id.as_str()) {
        Some(i) => (*i, 0),
        None => match expect.iter().position(|x| x.id == f.id) {
            Some(n) => (expect_at, n),
            None => (usize::MAX, 0),
        },
    };
    findings.sort_by(|a, b| (rank(a), &a.id, a.era).cmp(&(rank(b), &b.id, b.era)));
}

/// One verdict per check, wire and subject: a skip is dropped when the same check was judged
/// for what it covers (its wire and subject, or any when it names none: the skips of a step
/// cut short after another step of the phase had judged the check), and so is a second
/// identical skip.
fn one_verdict_per_subject(findings: &mut Vec<crate::report::finding::Finding>) {
    use crate::report::finding::{Finding, Status};
    let covers = |skip: &Finding, f: &Finding| {
        f.id == skip.id
            && (skip.era.is_none() || skip.era == f.era)
            && (skip.subject.is_none() || skip.subject == f.subject)
    };
    let judged: Vec<Finding> = findings
        .iter()
        .filter(|f| f.status != Status::Skip)
        .cloned()
        .collect();
    let mut skipped = std::collections::HashSet::new();
    findings.retain(|f| {
        f.status != Status::Skip
            || (!judged.iter().any(|j| covers(f, j))
                && skipped.insert((f.id.clone(), f.era, f.subject.clone())))
    });
}

/// Turns a finished session into a scored, redacted report.
fn finish_report(mut s: Session, interrupted: bool, started: Instant) -> ServerReport {
    one_verdict_per_subject(&mut s.findings);
    sort_findings(&mut s.findings, &s.spec.expect);
    let mut report = ServerReport {
        name: s.spec.name.clone(),
        transport: s
            .wires
            .first()
            .map(|w| w.transport())
            .unwrap_or(match s.spec.target {
                spec::TargetSpec::Http { .. } => crate::report::TransportKind::Http,
                spec::TargetSpec::Stdio(..) => crate::report::TransportKind::Stdio,
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
        notes: Default::default(),
        internal_errors: s.internal_errors,
    };
    report.notes.sessions = s.connector.as_ref().and_then(|c| {
        let (opened, closed) = c.session_count();
        (opened > 0).then_some(crate::report::model::SessionCount {
            opened: opened as u32,
            closed: closed as u32,
            delete_refused: c.open_sessions().1,
        })
    });
    score::rescore(&mut report);
    // The recorder's redactor knows every secret registered or learnt during the run.
    s.recorder.redactor().report(&mut report);
    report
}

/// Runs one step (or records why its phase was skipped) within the deadline and the
/// cancel signal, between the phase's start and end events.
async fn step(s: &mut Session, step: Step, b: &mut Branch) {
    let phase = step.phase();
    let silent = matches!(step, Step::ExecutionCancel);
    // A split phase starts with its first half and ends with its second.
    if !step.closes_only() && !silent {
        events::emit(&s.ctx.observer, || events::RunEvent::PhaseStarted {
            server: s.spec.name.clone(),
            phase,
        });
    }
    // Boxed: a phase's future is large (several probes in flight at once), and a run's
    // future must stay small enough for a caller that runs many servers on one stack.
    on_heap(|| run_step(s, step, phase, b)).await;
    if !step.opens_only() && !silent {
        events::emit(&s.ctx.observer, || events::RunEvent::PhaseFinished {
            server: s.spec.name.clone(),
            phase,
        });
    }
}

async fn run_step(s: &mut Session, step: Step, phase: Phase, b: &mut Branch) {
    // The first half records nothing when it cannot run: the second half records the skips.
    let skips = !step.opens_only();
    if let Some(why) = b.interrupted.clone() {
        if skips {
            skip_rest_of(s, phase, SkipReason::NotAssessed, &why);
        }
        return;
    }
    if let Some(why) = s.blocked.clone() {
        if skips {
            skip_rest_of(s, phase, SkipReason::Blocked, &why);
        }
        return;
    }
    // A server that stopped is not probed any further; what a judgement over the recorded
    // messages can still say, it says (the security judgements read what was sent before).
    if let Some(c) = s.connector.as_ref() {
        c.confirm_http_stop().await;
    }
    if !matches!(step, Step::SecurityJudge)
        && let Some(d) = liveness::death(s)
    {
        // Dead before anything reached it: never reached, so blocked like a server that
        // exits at once (discovery could only see that it had started).
        if d.after == 0 && stdio::exited_before_the_first_message(s).await {
            if skips {
                let why = s.blocked.clone().unwrap_or_default();
                skip_rest_of(s, phase, SkipReason::Blocked, &why);
            }
            return;
        }
        if skips {
            skip_rest_of(
                s,
                phase,
                SkipReason::NotAssessed,
                &liveness::not_assessed(&d),
            );
        }
        return;
    }
    if !s.spec.runs(phase) {
        if skips {
            skip_rest_of(
                s,
                phase,
                SkipReason::NotAssessed,
                "phase not selected (--only/--skip)",
            );
        }
        return;
    }
    tracing::debug!(server = %s.spec.name, %phase, ?step, "step starts");
    let deferred = match step {
        Step::ProtocolLate => b.deferred.take(),
        _ => None,
    };
    let mut early = None;
    let outcome = {
        let fut = async {
            match step {
                Step::Phase(p) => run_phase(p, s).await,
                Step::ProtocolEarly => {
                    let stop = b.stop.clone();
                    early = Some(on_heap(|| protocol::run_early(s, stop)).await);
                }
                Step::ProtocolLate => {
                    let d = match deferred {
                        Some(d) => d,
                        None => on_heap(|| protocol::run_early(s, None)).await,
                    };
                    on_heap(|| protocol::run_late(s, d)).await
                }
                Step::PerformanceSample => on_heap(|| performance::sample(s)).await,
                Step::PerformanceObserved => on_heap(|| performance::judge_observed(s)).await,
                Step::ResilienceSessions => on_heap(|| resilience::run_sessions(s)).await,
                Step::ResilienceLate => on_heap(|| resilience::run_late(s)).await,
                Step::SecurityProbes => on_heap(|| security::probe(s)).await,
                Step::SecurityJudge => security::judge(s),
                Step::ExecutionCancel => on_heap(|| execution::run_cancellations(s)).await,
            }
        };
        tokio::select! {
            r = tokio::time::timeout_at(b.deadline, fut) => r.map_err(|_| "the server's --deadline passed".to_string()),
            _ = b.cancel.wait_for(|c| *c) => Err("interrupted (Ctrl-C)".to_string()),
        }
    };
    if early.is_some() {
        b.deferred = early;
    }
    if let Err(why) = outcome {
        tracing::warn!(server = %s.spec.name, %phase, "{why}");
        if skips {
            skip_rest_of(s, phase, SkipReason::NotAssessed, &why);
        }
        b.interrupted = Some(why);
    } else {
        if matches!(step, Step::ProtocolLate) && !s.wires.is_empty() {
            b.protocol_ran = true;
        }
        // The server stopped during the run: the checks whose probes it did not live to
        // see (the first half's, which records no skips) are not assessed, never missing.
        if skips && let Some(d) = liveness::death(s) {
            skip_rest_of(
                s,
                phase,
                SkipReason::NotAssessed,
                &liveness::not_assessed(&d),
            );
        }
    }
}
