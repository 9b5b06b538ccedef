//! GitLab Code Quality (`artifacts:reports:codequality`): a JSON array of issues.
//!
//! One issue per counted warn or fail (baselined and ignored findings are left out: GitLab
//! has no notion of an accepted issue). Severity mapping:
//!
//! | scout | GitLab |
//! |---|---|
//! | fail, critical | `critical` |
//! | fail, major | `major` |
//! | fail, minor | `minor` |
//! | warn | `info` |
//!
//! A warn maps to `info` because GitLab ranks `minor` with real defects, and a scout warn is
//! by definition something an agent can live with. `fingerprint` is the SARIF fingerprint
//! of (check id, server, subject, era), made unique within the report when one check
//! reports the same subject twice. `location` is the server's anchor.

use std::collections::HashSet;

use serde::Serialize;

use crate::emit::common::{anchor_of, evidence_text, fingerprint, rank};
use crate::report::finding::{Finding, Severity, Status};
use crate::report::model::{Report, ServerReport};

#[derive(Serialize)]
struct Issue {
    #[serde(rename = "type")]
    kind: &'static str,
    description: String,
    check_name: String,
    fingerprint: String,
    severity: &'static str,
    categories: Vec<&'static str>,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u32,
}

/// The GitLab severity of a counted warn or fail.
pub fn severity(f: &Finding) -> &'static str {
    match (f.status, f.severity) {
        (Status::Fail, Some(Severity::Critical)) => "critical",
        (Status::Fail, Some(Severity::Minor)) => "minor",
        (Status::Fail, _) => "major",
        _ => "info",
    }
}

fn issue(server: &ServerReport, f: &Finding, seen: &mut HashSet<String>) -> Issue {
    let mut fp = fingerprint(&server.name, f);
    let mut n = 1;
    while !seen.insert(fp.clone()) {
        n += 1;
        fp = format!("{}-{n}", fingerprint(&server.name, f));
    }
    let mut description = format!("{}: {} — {}", server.name, f.title, f.detail);
    if let Some(subject) = f.subject_shown() {
        description = format!("{}: [{subject}] {} — {}", server.name, f.title, f.detail);
    }
    if !f.evidence.is_empty() {
        description.push_str(&format!(" ({})", evidence_text(&f.evidence)));
    }
    let anchor = anchor_of(server);
    Issue {
        kind: "issue",
        description,
        check_name: f.id.clone(),
        fingerprint: fp,
        severity: severity(f),
        categories: vec![if f.phase == crate::report::Phase::Security {
            "Security"
        } else {
            "Compatibility"
        }],
        location: Location {
            path: anchor.path,
            lines: Lines {
                begin: anchor.line.max(1),
            },
        },
    }
}

/// Renders the Code Quality report (pretty JSON array, trailing newline).
pub fn render(report: &Report) -> String {
    let mut seen = HashSet::new();
    let mut issues = Vec::new();
    for server in &report.servers {
        let mut counted: Vec<&Finding> = server
            .findings
            .iter()
            .filter(|f| f.counts() && matches!(f.status, Status::Fail | Status::Warn))
            .collect();
        counted.sort_by_key(|f| std::cmp::Reverse(rank(f)));
        for f in counted {
            issues.push(issue(server, f, &mut seen));
        }
    }
    let mut out = serde_json::to_string_pretty(&issues).unwrap_or_else(|_| "[]".into());
    out.push('\n');
    out
}
