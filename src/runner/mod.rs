//! Runs the servers of a config with bounded parallelism (`--jobs`) and shards, and gathers
//! their reports into one [`Report`], finished by [`finalise`] (cross-server rules,
//! `[checks] ignore`, the baseline, scores and the gate, once each). One server's failure
//! never stops the others.

pub mod finalise;
pub mod merge;
pub mod progress;
pub mod shard;

use std::sync::Arc;
use std::time::Instant;

use time::OffsetDateTime;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::probe;
use crate::report::gate::{GateConfig, GateResult};
use crate::report::model::{EraKind, Report, ServerReport};
use crate::report::score;
use crate::spec::{RunContext, ServerSpec};
use finalise::{Finalise, Gates};
pub use shard::Shard;

/// How long past its deadline a server run may take to shut down before the runner gives up.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// One server to run and the gate its report must meet.
#[derive(Debug, Clone)]
pub struct Planned {
    pub spec: ServerSpec,
    pub gate: GateConfig,
    /// A folder the server's files were unpacked into (an MCPB bundle), held until its run
    /// ends and removed then.
    pub workdir: Option<Arc<tempfile::TempDir>>,
}

/// How to run the plan.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Servers checked at the same time (at least 1).
    pub jobs: usize,
    /// Only the servers of this shard.
    pub shard: Option<Shard>,
    /// `[checks] ignore`: (id, reason).
    pub ignore: Vec<(String, String)>,
    /// Draw the progress line (on a TTY).
    pub progress: bool,
    /// `--baseline`: accepted findings, and whether stale entries are allowed.
    pub baseline: Option<(crate::report::baseline::Baseline, bool)>,
    /// Live progress (the terminal run view, `scout serve`): every server run reports its
    /// phases and findings here as they happen. `None` = nobody watches.
    pub observer: Option<crate::telemetry::events::Observer>,
}

/// The servers of `plan` that belong to `shard`.
pub fn select(plan: Vec<Planned>, shard: Option<Shard>) -> Vec<Planned> {
    match shard {
        Some(s) => plan
            .into_iter()
            .filter(|p| s.contains(&p.spec.name))
            .collect(),
        None => plan,
    }
}

/// Runs every planned server and builds the finished, gated report. `cancel` flips to true
/// on Ctrl-C: running servers stop at their next phase and are reported as interrupted.
pub async fn run(plan: Vec<Planned>, options: RunOptions, cancel: watch::Receiver<bool>) -> Report {
    let started_at = OffsetDateTime::now_utc();
    let clock = Instant::now();
    // One id for the whole run: the report's `run_id` and every request's X-MCP-Trace-ID.
    let run_id = uuid::Uuid::new_v4().to_string();
    let plan = select(plan, options.shard);
    // `--rps` holds per remote host across the whole run: servers on one host:port share
    // one limiter, which every HTTP request of theirs waits for.
    let specs: Vec<&ServerSpec> = plan.iter().map(|p| &p.spec).collect();
    let contexts: Vec<RunContext> = share_per_host(&specs)
        .into_iter()
        .map(|limiter| RunContext {
            run_id: run_id.clone(),
            limiter,
            observer: options.observer.clone(),
        })
        .collect();
    if plan.is_empty()
        && let Some(s) = options.shard
    {
        tracing::warn!(
            "shard {}/{} holds none of the configured servers",
            s.index,
            s.count
        );
    }
    let progress = progress::Progress::new(plan.len(), options.progress);
    let ticker = progress.spawn();
    let permits = Arc::new(Semaphore::new(options.jobs.max(1)));
    let gates: Vec<(String, GateConfig)> = plan
        .iter()
        .map(|p| (p.spec.name.clone(), p.gate.clone()))
        .collect();

    let mut set = JoinSet::new();
    let mut names = std::collections::HashMap::new();
    for (p, ctx) in plan.into_iter().zip(contexts) {
        let permits = permits.clone();
        let cancel = cancel.clone();
        let progress = progress.clone();
        let spec = p.spec;
        let name = spec.name.clone();
        let workdir = p.workdir;
        let handle = set.spawn(async move {
            // Dropped when this server's run ends, whichever way it ends.
            let _workdir = workdir;
            // The semaphore is never closed, so acquire only fails if it was; then run anyway.
            let _permit = permits.acquire_owned().await.ok();
            // Cancelled while waiting for a slot: report it as not run rather than start it.
            if *cancel.borrow() {
                return (
                    not_started(spec, "interrupted (Ctrl-C) before this server started"),
                    None,
                );
            }
            progress.started(&spec.name);
            let name = spec.name.clone();
            let observer = ctx.observer.clone();
            crate::telemetry::events::emit(&observer, || {
                crate::telemetry::events::RunEvent::ServerStarted {
                    server: name.clone(),
                }
            });
            // Safety net: run_server honours the deadline itself; if shutting a server down
            // hangs anyway, give up after a grace period instead of hanging the whole run.
            let limit = spec.deadline + SHUTDOWN_GRACE;
            let fallback = spec.clone();
            let (report, exposure) =
                match tokio::time::timeout(limit, probe::run_server_exposing(spec, ctx, cancel))
                    .await
                {
                    Ok(r) => r,
                    Err(_) => {
                        let mut r = not_started(
                            fallback,
                            "scout gave up on this server: it did not finish within its deadline",
                        );
                        r.blocked = Some(format!(
                            "the run did not finish within the deadline plus {}s",
                            SHUTDOWN_GRACE.as_secs()
                        ));
                        (r, None)
                    }
                };
            progress.finished(&name);
            crate::telemetry::events::emit(&observer, || {
                crate::telemetry::events::RunEvent::ServerFinished {
                    server: name.clone(),
                    score: report.score,
                }
            });
            (report, exposure)
        });
        names.insert(handle.id(), (name, p.gate.clone()));
    }

    let mut servers = Vec::new();
    let mut exposures = Vec::new();
    while let Some(joined) = set.join_next_with_id().await {
        match joined {
            Ok((_, (report, exposure))) => {
                servers.push(report);
                exposures.extend(exposure);
            }
            Err(e) => {
                // A panicking server run is a scout bug; the others still finish and this
                // one is reported as blocked, so the gate cannot pass by accident.
                if let Some((name, _)) = names.get(&e.id()) {
                    tracing::error!(server = %name, "internal error: {e}");
                    servers.push(crashed(name, &e.to_string()));
                }
            }
        }
    }
    if let Some(t) = ticker {
        t.abort();
    }
    progress.clear();

    let mut report = Report {
        run_id,
        scout_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at,
        duration_ms: u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX),
        servers,
        // Set by the finalise step.
        gate: GateResult {
            passed: false,
            reasons: Vec::new(),
            thresholds: Vec::new(),
        },
    };
    finalise::finalise(
        &mut report,
        exposures,
        Finalise {
            whole_run: options.shard.is_none(),
            ignore: &options.ignore,
            baseline: options.baseline.as_ref().map(|(b, allow)| (b, *allow)),
            gates: Gates::PerServer(&gates),
        },
    );
    report
}

/// The report of a server that never ran: every check skipped as not assessed, marked
/// interrupted so the gate cannot pass.
pub fn not_started(spec: ServerSpec, why: &str) -> ServerReport {
    let expectation = &probe::expectations::EXPECTATION;
    let mut findings: Vec<_> = probe::registry::all()
        .filter(|c| !std::ptr::eq(*c, expectation))
        .filter_map(|c| {
            c.skip(crate::report::SkipReason::NotAssessed, why)
                .build(|_| false)
                .ok()
        })
        .collect();
    // Each expectation is its own finding, as in a run that started.
    findings.extend(spec.expect.iter().filter_map(|x| {
        expectation
            .skip(crate::report::SkipReason::NotAssessed, why)
            .named(&x.id, &x.name)
            .subject(x.target.describe())
            .build(|_| false)
            .ok()
    }));
    let mut report = ServerReport {
        name: spec.name.clone(),
        transport: match spec.target {
            crate::spec::TargetSpec::Http { .. } => crate::report::TransportKind::Http,
            crate::spec::TargetSpec::Stdio(..) => crate::report::TransportKind::Stdio,
        },
        target: spec.target_display(),
        era: EraKind::Unknown,
        protocol_versions: Vec::new(),
        server_info: None,
        score: None,
        categories: Vec::new(),
        findings,
        exchanges: Vec::new(),
        blocked: None,
        interrupted: true,
        anchor: spec.anchor.clone(),
        duration_ms: 0,
        exchange_count: None,
        notes: Default::default(),
        internal_errors: Vec::new(),
    };
    score::rescore(&mut report);
    report
}

/// The report of a server whose run panicked: a scout bug, so an internal error (exit 3).
fn crashed(name: &str, why: &str) -> ServerReport {
    ServerReport {
        name: name.to_string(),
        transport: crate::report::TransportKind::Http,
        target: String::new(),
        era: EraKind::Unknown,
        protocol_versions: Vec::new(),
        server_info: None,
        score: None,
        categories: score::categories(&[]),
        findings: Vec::new(),
        exchanges: Vec::new(),
        blocked: Some(format!("scout internal error: {why}")),
        interrupted: true,
        anchor: None,
        duration_ms: 0,
        exchange_count: None,
        notes: Default::default(),
        internal_errors: vec![format!("the run of this server crashed: {why}")],
    }
}

/// One limiter per `host:port` for every remote HTTP server, in the order of `specs`, shared
/// by all servers on that host, at the lowest `rps` any of them is configured with. Servers
/// that are not remote get none (their transport builds an unthrottled one).
pub fn share_per_host(
    specs: &[&crate::spec::ServerSpec],
) -> Vec<Option<crate::transport::limiter::RateLimiter>> {
    let mut rates: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    for s in specs.iter() {
        if let Some(key) = remote_key(s) {
            let rps = s
                .rps
                .unwrap_or(crate::transport::limiter::DEFAULT_REMOTE_RPS);
            rates
                .entry(key)
                .and_modify(|r| *r = r.min(rps))
                .or_insert(rps);
        }
    }
    let limiters: std::collections::HashMap<String, crate::transport::limiter::RateLimiter> = rates
        .into_iter()
        .map(|(k, rps)| (k, crate::transport::limiter::RateLimiter::new(Some(rps))))
        .collect();
    specs
        .iter()
        .map(|s| remote_key(s).and_then(|k| limiters.get(&k).cloned()))
        .collect()
}

/// The host key of a remote HTTP server (an unparsable URL gets a key of its own).
fn remote_key(s: &crate::spec::ServerSpec) -> Option<String> {
    match &s.target {
        crate::spec::TargetSpec::Http { url, .. } if s.is_remote() => {
            Some(crate::transport::limiter::host_key(url).unwrap_or_else(|| url.clone()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::process::ProcessConfig;

    fn http(url: &str) -> crate::spec::ServerSpec {
        crate::spec::ServerSpec::new(
            "s",
            crate::spec::TargetSpec::Http {
                url: url.into(),
                headers: vec![],
                auth: Default::default(),
                start: None,
            },
        )
    }

    #[test]
    fn servers_on_one_host_share_one_limiter_at_the_lowest_rate() {
        let mut a = http("https://example.com/a");
        a.rps = Some(10.0);
        let mut b = http("https://EXAMPLE.com:443/b");
        b.rps = Some(4.0);
        let c = http("https://other.example.com/mcp");
        let d = http("http://127.0.0.1:9/mcp");
        let specs = [&a, &b, &c, &d];
        let [a, b, c, d]: [_; 4] = share_per_host(&specs).try_into().expect("four");
        let (a, b, c) = (
            a.expect("shared"),
            b.expect("shared"),
            c.expect("own limiter"),
        );
        assert_eq!(a, b, "one schedule for one host");
        assert_eq!(a.interval(), Some(std::time::Duration::from_millis(250)));
        assert_ne!(a, c);
        assert_eq!(c.interval(), Some(std::time::Duration::from_millis(500)));
        assert!(d.is_none(), "loopback is not throttled");
    }

    use crate::report::finding::{Finding, Phase, Severity, Status};

    fn server(name: &str, findings: Vec<Finding>) -> ServerReport {
        let mut s = ServerReport {
            name: name.into(),
            transport: crate::report::TransportKind::Stdio,
            target: "x".into(),
            era: EraKind::Legacy,
            protocol_versions: vec![],
            server_info: None,
            score: None,
            categories: vec![],
            findings,
            exchanges: vec![],
            blocked: None,
            interrupted: false,
            anchor: None,
            duration_ms: 1,
            exchange_count: None,
            notes: Default::default(),
            internal_errors: vec![],
        };
        score::rescore(&mut s);
        s
    }

    fn evaluate(servers: &[ServerReport], gates: &[(String, GateConfig)]) -> GateResult {
        finalise::evaluate(servers, Gates::PerServer(gates), Vec::new())
    }

    fn finalised(
        servers: Vec<ServerReport>,
        ignore: &[(String, String)],
        gates: &[(String, GateConfig)],
    ) -> Report {
        let mut report = Report {
            run_id: "r".into(),
            scout_version: "0".into(),
            started_at: OffsetDateTime::UNIX_EPOCH,
            duration_ms: 0,
            servers,
            gate: evaluate(&[], &[]),
        };
        finalise::finalise(
            &mut report,
            Vec::new(),
            Finalise {
                whole_run: true,
                ignore,
                baseline: None,
                gates: Gates::PerServer(gates),
            },
        );
        report
    }

    fn fail(id: &str) -> Finding {
        Finding {
            id: id.into(),
            phase: Phase::Protocol,
            title: "t".into(),
            status: Status::Fail,
            severity: Some(Severity::Critical),
            detail: String::new(),
            advice: String::new(),
            spec: None,
            subject: None,
            era: None,
            revision: None,
            evidence: vec![1],
            skip_reason: None,
            suppressed: None,
        }
    }

    #[test]
    fn ignores_are_applied_before_scoring() {
        let s = server("a", vec![fail("protocol.batch")]);
        assert_eq!(s.score, Some(0));
        let s = finalised(vec![s], &[("protocol.batch".into(), "known".into())], &[])
            .servers
            .remove(0);
        assert!(matches!(
            s.findings[0].suppressed,
            Some(crate::report::finding::Suppression::Ignored { .. })
        ));
        // Nothing counted is left, so the category is no longer assessed.
        assert_eq!(s.score, None);
    }

    #[test]
    fn a_server_that_never_ran_fails_the_gate() {
        let spec = ServerSpec::new(
            "late",
            crate::spec::TargetSpec::Stdio(ProcessConfig {
                command: vec!["srv".into()],
                env_forward: vec![],
                env_set: vec![],
                dir: None,
            }),
        );
        let r = not_started(spec, "interrupted");
        assert!(r.interrupted);
        assert_eq!(r.score, None);
        assert!(r.findings.iter().all(|f| f.status == Status::Skip));
        // Every registered check but the one that stands for the (here no) expectations.
        assert_eq!(r.findings.len(), probe::registry::all().count() - 1);
        assert!(!evaluate(&[r], &[]).passed);
    }

    #[test]
    fn each_server_meets_its_own_gate() {
        let a = server("a", vec![fail("protocol.batch")]);
        let gates = vec![(
            "a".to_string(),
            GateConfig {
                fail_under: Some(50),
                ..GateConfig::default()
            },
        )];
        let g = evaluate(std::slice::from_ref(&a), &gates);
        assert!(!g.passed);
        assert_eq!(g.reasons, vec!["a: score 0 < 50".to_string()]);
        assert!(evaluate(&[a], &[]).passed);
    }
}
