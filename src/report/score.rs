//! Scoring: a pure function of the findings (DESIGN §3). Per category 100 minus penalties
//! (critical zeroes it, major 40, minor 15, each warn 5), never below 0; overall = rounded
//! mean of the assessed categories.

use crate::report::finding::{Finding, Phase, Severity, Status};
use crate::report::model::CategoryScore;

/// Points a single counted finding costs its category (`None` = zeroes the category).
fn penalty(f: &Finding) -> Option<u32> {
    match (f.status, f.severity) {
        (Status::Fail, Some(Severity::Critical)) => None,
        (Status::Fail, Some(Severity::Major)) => Some(40),
        (Status::Fail, Some(Severity::Minor)) => Some(15),
        (Status::Fail, None) => Some(40),
        (Status::Warn, _) => Some(5),
        _ => Some(0),
    }
}

/// Scores every phase. A category is assessed when at least one counted finding of it is
/// not a skip.
pub fn categories(findings: &[Finding]) -> Vec<CategoryScore> {
    Phase::ALL
        .into_iter()
        .map(|phase| {
            let mine: Vec<&Finding> = findings
                .iter()
                .filter(|f| f.phase == phase && f.counts())
                .collect();
            let assessed = mine.iter().any(|f| f.status != Status::Skip);
            let mut score: i64 = 100;
            for f in &mine {
                match penalty(f) {
                    None => score = 0,
                    Some(p) => score -= i64::from(p),
                }
                if score <= 0 {
                    score = 0;
                    break;
                }
            }
            CategoryScore {
                phase,
                score: if assessed { score as u8 } else { 0 },
                assessed,
            }
        })
        .collect()
}

/// The overall score: the rounded mean of the assessed categories (`None` if none was).
pub fn overall(categories: &[CategoryScore]) -> Option<u8> {
    let assessed: Vec<u32> = categories
        .iter()
        .filter(|c| c.assessed)
        .map(|c| u32::from(c.score))
        .collect();
    if assessed.is_empty() {
        return None;
    }
    let sum: u32 = assessed.iter().sum();
    Some(((f64::from(sum) / assessed.len() as f64).round()) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::{SkipReason, Suppression};

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
            evidence: vec![1],
            skip_reason: (status == Status::Skip).then_some(SkipReason::NotApplicable),
            suppressed: None,
        }
    }

    fn score_of(phase: Phase, fs: &[Finding]) -> (u8, bool) {
        let c = categories(fs);
        let c = c.iter().find(|c| c.phase == phase).expect("phase scored");
        (c.score, c.assessed)
    }

    #[test]
    fn each_penalty() {
        let p = Phase::Protocol;
        assert_eq!(score_of(p, &[f(p, Status::Pass, None)]), (100, true));
        assert_eq!(score_of(p, &[f(p, Status::Info, None)]), (100, true));
        assert_eq!(score_of(p, &[f(p, Status::Warn, None)]), (95, true));
        assert_eq!(
            score_of(p, &[f(p, Status::Fail, Some(Severity::Minor))]),
            (85, true)
        );
        assert_eq!(
            score_of(p, &[f(p, Status::Fail, Some(Severity::Major))]),
            (60, true)
        );
        assert_eq!(
            score_of(
                p,
                &[
                    f(p, Status::Fail, Some(Severity::Critical)),
                    f(p, Status::Pass, None)
                ]
            ),
            (0, true)
        );
        assert_eq!(
            score_of(
                p,
                &[
                    f(p, Status::Warn, None),
                    f(p, Status::Fail, Some(Severity::Minor)),
                    f(p, Status::Warn, None)
                ]
            ),
            (75, true)
        );
    }

    #[test]
    fn floor_at_zero() {
        let p = Phase::Catalog;
        let fs: Vec<Finding> = (0..4)
            .map(|_| f(p, Status::Fail, Some(Severity::Major)))
            .collect();
        assert_eq!(score_of(p, &fs), (0, true));
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
                .assessed
        );
        assert!(
            !cats
                .iter()
                .find(|c| c.phase == Phase::Security)
                .expect("security")
                .assessed
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
        let fs = vec![fail, f(Phase::Protocol, Status::Pass, None)];
        assert_eq!(score_of(Phase::Protocol, &fs), (100, true));
    }
}
