//! Scoring: a pure function of the findings (docs/checks.md, scoring).
//!
//! - A category (phase) is *assessed* when at least one counted finding of it is a
//!   judgement: pass, warn or fail. Observations (info) and skips judge nothing, so a
//!   category of only those is "not assessed" and stays out of the mean.
//! - Each check id and subject costs its category once per server: on a dual-era server
//!   the worst of the findings across the two wires costs, and both findings stay in the
//!   reports. Costs: critical fail zeroes the category, major 40, minor 15, warn 5; never
//!   below 0.
//! - The overall score is the rounded mean of the assessed categories other than `compat`
//!   (host rules, scored on their own so they inform without moving it); a server has no
//!   overall score (`None`) when none was assessed, or when its run was blocked or
//!   interrupted: a score over the few checks that ran before that would look green
//!   although most of the server was never checked.

use std::collections::BTreeMap;

use crate::report::finding::{Finding, Phase, Severity, Status};
use crate::report::model::{CategoryScore, Report, ServerReport};

/// What a counted finding costs its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cost {
    Points(u32),
    /// A critical fail: the category is zero.
    Zero,
}

fn cost(f: &Finding) -> Cost {
    match (f.status, f.severity) {
        (Status::Fail, Some(Severity::Critical)) => Cost::Zero,
        (Status::Fail, Some(Severity::Major)) => Cost::Points(40),
        (Status::Fail, Some(Severity::Minor)) => Cost::Points(15),
        (Status::Fail, None) => Cost::Points(40),
        (Status::Warn, _) => Cost::Points(5),
        _ => Cost::Points(0),
    }
}

/// True for the statuses that judge the server (info observes, skip does not assess).
pub fn is_judgement(status: Status) -> bool {
    matches!(status, Status::Pass | Status::Warn | Status::Fail)
}

/// Scores every phase.
pub fn categories(findings: &[Finding]) -> Vec<CategoryScore> {
    Phase::ALL
        .into_iter()
        .map(|phase| {
            let mine: Vec<&Finding> = findings
                .iter()
                .filter(|f| f.phase == phase && f.counts())
                .collect();
            let assessed = mine.iter().any(|f| is_judgement(f.status));
            // One cost per (check id, subject): the worst across eras (and repeats).
            let mut worst: BTreeMap<(&str, Option<&str>), Cost> = BTreeMap::new();
            for f in &mine {
                let c = cost(f);
                let slot = worst
                    .entry((f.id.as_str(), f.subject.as_deref()))
                    .or_insert(c);
                *slot = (*slot).max(c);
            }
            let mut score: i64 = 100;
            for c in worst.values() {
                match c {
                    Cost::Zero => score = 0,
                    Cost::Points(p) => score -= i64::from(*p),
                }
            }
            CategoryScore {
                phase,
                score: assessed.then_some(score.clamp(0, 100) as u8),
            }
        })
        .collect()
}

/// The rounded mean of the assessed categories (`None` if none was). The `compat` category
/// is not part of it: a host's rule is not the MCP spec, so it is scored on its own (and can
/// gate with `--fail-under-category compat=N`) without moving the overall score.
pub fn overall(categories: &[CategoryScore]) -> Option<u8> {
    let assessed: Vec<u32> = categories
        .iter()
        .filter(|c| c.phase != Phase::Compat)
        .filter_map(|c| c.score.map(u32::from))
        .collect();
    if assessed.is_empty() {
        return None;
    }
    let sum: u32 = assessed.iter().sum();
    Some(((f64::from(sum) / assessed.len() as f64).round()) as u8)
}

/// Recomputes a server's category scores and overall score from its findings. The one
/// place a server's score is set: a blocked or interrupted run has no overall score.
pub fn rescore(server: &mut ServerReport) {
    server.categories = categories(&server.findings);
    server.score = if server.completed() {
        overall(&server.categories)
    } else {
        None
    };
}

/// The score of a whole report, for the places that show one number (the GitHub `score`
/// output, the badge): the lowest server score, or `None` when any server has no score
/// (or there are no servers) — one unscored server must not let the others look green.
pub fn lowest(report: &Report) -> Option<u8> {
    if report.servers.is_empty() {
        return None;
    }
    report
        .servers
        .iter()
        .map(|s| s.score)
        .collect::<Option<Vec<u8>>>()
        .and_then(|v| v.into_iter().min())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::{Era, SkipReason, Suppression};

    fn f(phase: Phase, status: Status, severity: Option<Severity>) -> Finding {
        Finding {
            id: format!("{}.x", phase.as_str()),
            phase,
            title: "t".into(),
            status,
            severity,
            detail: String::new(),
            advice: String::new(),
            spec: None,
            subject: None,
            era: None,
            revision: None,
            evidence: vec![1],
            skip_reason: (status == Status::Skip).then_some(SkipReason::NotApplicable),
            suppressed: None,
        }
    }

    /// `f` with its own check id, so several of them cost separately.
    fn g(id: &str, phase: Phase, status: Status, severity: Option<Severity>) -> Finding {
        Finding {
            id: format!("{}.{id}", phase.as_str()),
            ..f(phase, status, severity)
        }
    }

    fn score_of(phase: Phase, fs: &[Finding]) -> Option<u8> {
        let c = categories(fs);
        c.iter()
            .find(|c| c.phase == phase)
            .expect("phase scored")
            .score
    }

    #[test]
    fn each_penalty() {
        let p = Phase::Protocol;
        assert_eq!(score_of(p, &[f(p, Status::Pass, None)]), Some(100));
        assert_eq!(score_of(p, &[f(p, Status::Warn, None)]), Some(95));
        assert_eq!(
            score_of(p, &[f(p, Status::Fail, Some(Severity::Minor))]),
            Some(85)
        );
        assert_eq!(
            score_of(p, &[f(p, Status::Fail, Some(Severity::Major))]),
            Some(60)
        );
        assert_eq!(
            score_of(
                p,
                &[
                    f(p, Status::Fail, Some(Severity::Critical)),
                    g("y", p, Status::Pass, None)
                ]
            ),
            Some(0)
        );
        assert_eq!(
            score_of(
                p,
                &[
                    g("a", p, Status::Warn, None),
                    g("b", p, Status::Fail, Some(Severity::Minor)),
                    g("c", p, Status::Warn, None)
                ]
            ),
            Some(75)
        );
    }

    #[test]
    fn floor_at_zero() {
        let p = Phase::Catalog;
        let fs: Vec<Finding> = (0..4)
            .map(|i| g(&format!("c{i}"), p, Status::Fail, Some(Severity::Major)))
            .collect();
        assert_eq!(score_of(p, &fs), Some(0));
    }

    #[test]
    fn observations_alone_do_not_assess_a_category() {
        // auth.open can only be info or skip, performance.latency info or warn: a category
        // of observations judged nothing and must not hand out a free 100.
        let fs = vec![
            g("open", Phase::Auth, Status::Info, None),
            g("latency", Phase::Performance, Status::Info, None),
            g("latency2", Phase::Performance, Status::Skip, None),
            g(
                "batch",
                Phase::Protocol,
                Status::Fail,
                Some(Severity::Major),
            ), // 60
        ];
        let cats = categories(&fs);
        assert_eq!(score_of(Phase::Auth, &fs), None);
        assert_eq!(score_of(Phase::Performance, &fs), None);
        assert_eq!(
            overall(&cats),
            Some(60),
            "observations stay out of the mean"
        );
        // A warn is a judgement: the category is then assessed.
        let warn = vec![g("latency", Phase::Performance, Status::Warn, None)];
        assert_eq!(score_of(Phase::Performance, &warn), Some(95));
        // Only observations anywhere: no score at all.
        assert_eq!(overall(&categories(&fs[..3])), None);
    }

    #[test]
    fn a_dual_era_defect_costs_once() {
        let p = Phase::Catalog;
        let on = |era: Era, status: Status, severity: Option<Severity>| {
            let mut x = g("annotations", p, status, severity);
            x.era = Some(era);
            x.subject = Some("echo".into());
            x
        };
        let single = vec![on(Era::Legacy, Status::Warn, None)];
        let dual = vec![
            on(Era::Legacy, Status::Warn, None),
            on(Era::Modern, Status::Warn, None),
        ];
        assert_eq!(score_of(p, &single), Some(95));
        assert_eq!(score_of(p, &dual), score_of(p, &single));
        // The worst across the eras costs.
        let mixed = vec![
            on(Era::Legacy, Status::Warn, None),
            on(Era::Modern, Status::Fail, Some(Severity::Major)),
        ];
        assert_eq!(score_of(p, &mixed), Some(60));
        let fixed_on_one = vec![
            on(Era::Legacy, Status::Pass, None),
            on(Era::Modern, Status::Fail, Some(Severity::Minor)),
        ];
        assert_eq!(score_of(p, &fixed_on_one), Some(85));
        // The revision matrix's findings of the same defect cost once too.
        let at = |revision: &str| {
            let mut x = on(Era::Legacy, Status::Fail, Some(Severity::Major));
            x.revision = Some(revision.into());
            x
        };
        let matrix = vec![
            on(Era::Legacy, Status::Fail, Some(Severity::Major)),
            at("2025-06-18"),
            at("2025-03-26"),
        ];
        assert_eq!(score_of(p, &matrix), Some(60));
        // Another subject is another cost.
        let mut other = on(Era::Modern, Status::Warn, None);
        other.subject = Some("add".into());
        let two_subjects = vec![on(Era::Legacy, Status::Warn, None), other];
        assert_eq!(score_of(p, &two_subjects), Some(90));
    }

    #[test]
    fn skipped_categories_are_excluded_from_the_mean() {
        let fs = vec![
            f(Phase::Protocol, Status::Fail, Some(Severity::Major)), // 60
            f(Phase::Catalog, Status::Pass, None),                   // 100
            f(Phase::Auth, Status::Skip, None),                      // not assessed
        ];
        let cats = categories(&fs);
        assert!(
            !cats
                .iter()
                .find(|c| c.phase == Phase::Auth)
                .expect("auth")
                .assessed()
        );
        assert!(
            !cats
                .iter()
                .find(|c| c.phase == Phase::Security)
                .expect("security")
                .assessed()
        );
        assert_eq!(overall(&cats), Some(80));
        assert_eq!(overall(&categories(&[])), None);
    }

    #[test]
    fn mean_is_rounded() {
        let fs = vec![
            f(Phase::Protocol, Status::Fail, Some(Severity::Minor)), // 85
            f(Phase::Catalog, Status::Pass, None),                   // 100
        ];
        assert_eq!(overall(&categories(&fs)), Some(93)); // 92.5 rounds half away from zero
    }

    #[test]
    fn suppressed_findings_do_not_count() {
        let mut fail = f(Phase::Protocol, Status::Fail, Some(Severity::Critical));
        fail.suppressed = Some(Suppression::Ignored {
            reason: "known".into(),
        });
        let fs = vec![fail, g("y", Phase::Protocol, Status::Pass, None)];
        assert_eq!(score_of(Phase::Protocol, &fs), Some(100));
    }

    fn server(findings: Vec<Finding>) -> ServerReport {
        ServerReport {
            name: "s".into(),
            transport: crate::report::TransportKind::Http,
            target: "http://127.0.0.1:1/mcp".into(),
            era: crate::report::EraKind::Unknown,
            protocol_versions: vec![],
            server_info: None,
            score: Some(100),
            categories: vec![],
            findings,
            exchanges: vec![],
            exchange_count: None,
            blocked: None,
            interrupted: false,
            anchor: None,
            duration_ms: 0,
            notes: Default::default(),
            internal_errors: vec![],
        }
    }

    #[test]
    fn a_blocked_or_interrupted_server_has_no_score() {
        // What a server answering only 401 yields: reachable (a pass), then blocked.
        let fs = vec![
            g("reachable", Phase::Discovery, Status::Pass, None),
            g("open", Phase::Auth, Status::Info, None),
        ];
        let mut s = server(fs);
        rescore(&mut s);
        assert_eq!(s.score, Some(100), "the same findings, run to the end");
        s.blocked = Some("every request got HTTP 401".into());
        rescore(&mut s);
        assert_eq!(s.score, None);
        // The categories still say what was seen.
        assert_eq!(s.categories[0].score, Some(100));
        s.blocked = None;
        s.interrupted = true;
        rescore(&mut s);
        assert_eq!(s.score, None);
    }

    #[test]
    fn the_report_score_is_none_when_any_server_is_unscored() {
        let mut a = server(vec![g("reachable", Phase::Discovery, Status::Pass, None)]);
        rescore(&mut a);
        let mut b = a.clone();
        b.findings.push(g(
            "batch",
            Phase::Protocol,
            Status::Fail,
            Some(Severity::Major),
        ));
        rescore(&mut b);
        let mut report = Report {
            run_id: "r".into(),
            scout_version: "0".into(),
            started_at: time::OffsetDateTime::UNIX_EPOCH,
            duration_ms: 0,
            servers: vec![a.clone(), b],
            gate: crate::report::GateResult {
                passed: true,
                reasons: vec![],
                thresholds: Vec::new(),
            },
        };
        assert_eq!(lowest(&report), Some(80));
        a.blocked = Some("x".into());
        rescore(&mut a);
        report.servers.push(a);
        assert_eq!(lowest(&report), None);
        report.servers.clear();
        assert_eq!(lowest(&report), None);
    }
}
