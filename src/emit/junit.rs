//! JUnit XML, built with `quick-junit`, in the dialect GitLab (`artifacts:reports:junit`),
//! Jenkins and the GitHub reporters read.
//!
//! One `<testsuite>` per server × phase (named `server.phase`), one `<testcase>` per finding:
//! `name` = check id, or `id[subject]` when the check judges several subjects, with
//! ` (era)` appended for findings of one wire of a dual-era server; `classname` =
//! `server.phase`. A `(classname, name)` pair never repeats: a remaining duplicate gets
//! ` #2`, ` #3`… `file`/`line` are the server's anchor (the same as SARIF's).
//!
//! - fail → `<failure message="title: detail" type="id/severity">` with detail, advice,
//!   evidence and spec in the body;
//! - skip → `<skipped message="reason: detail">`;
//! - pass, info, warn → passing cases with the detail in `<system-out>`;
//! - a baselined or ignored fail/warn → passing, its `<system-out>` saying why it does not
//!   count (it does not fail the gate, so it must not fail the CI test report either).
//!
//! `time` is the summed duration of the cited exchanges (0 when none were kept).
//!
//! A case of a check that covers scenarios of the official conformance suite carries one
//! `<property name="conformance" value="scenario[:check-id]"/>` per alias, in the suite's own
//! `expected-failures.yml` syntax (see `probe::conformance`).
//!
//! A server with internal errors (a finding scout could not record, a crashed run) gets one
//! more suite, `server.scout`, with one `<error>` case `internal_error` per error: CI shows
//! that scout, not the server, could not produce a trustworthy result.

use std::collections::HashMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite, XmlString};

use crate::emit::common::{anchor_of, evidence_text};
use crate::probe::conformance;
use crate::report::finding::{Finding, Phase, Status, Suppression};
use crate::report::model::{Report, ServerReport};

/// The case name of a finding before de-duplication.
fn base_name(f: &Finding) -> String {
    let mut name = f.id.clone();
    if let Some(subject) = &f.subject {
        name.push_str(&format!("[{subject}]"));
    }
    if let Some(era) = crate::emit::common::era_label(f) {
        name.push_str(&format!(" ({era})"));
    }
    // De-duplicate what will be written: XmlString drops control characters and ANSI
    // escapes, which could otherwise turn two distinct subjects into one name.
    XmlString::new(name).into_string()
}

/// Seconds spent in the exchanges a finding cites.
fn finding_time(server: &ServerReport, f: &Finding) -> Duration {
    let ms: f64 = server
        .exchanges
        .iter()
        .filter(|e| f.evidence.contains(&e.seq))
        .map(|e| e.duration_ms.max(0.0))
        .sum();
    Duration::from_secs_f64(ms / 1000.0)
}

/// The body of a failure, and the system-out of other cases.
fn body(f: &Finding) -> String {
    let mut lines = vec![f.detail.clone()];
    // Advice is what to do about a problem; on a pass it would only be noise.
    if !f.advice.is_empty() && matches!(f.status, Status::Warn | Status::Fail) {
        lines.push(format!("advice: {}", f.advice));
    }
    if !f.evidence.is_empty() {
        lines.push(format!("evidence: {}", evidence_text(&f.evidence)));
    }
    if let Some(spec) = &f.spec {
        lines.push(format!("spec: {spec}"));
    }
    lines.join("\n")
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn case(server: &ServerReport, f: &Finding, name: String, classname: &str) -> TestCase {
    let status = match (f.status, &f.suppressed) {
        (Status::Fail, None) => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let sev = f.severity.map(|s| s.as_str()).unwrap_or("major");
            st.set_message(format!("{}: {}", f.title, first_line(&f.detail)))
                .set_type(format!("{}/{sev}", f.id))
                .set_description(body(f));
            st
        }
        (Status::Skip, _) => {
            let mut st = TestCaseStatus::skipped();
            let reason = f.skip_reason.map(|r| r.as_str()).unwrap_or("not_assessed");
            st.set_message(format!("{reason}: {}", first_line(&f.detail)));
            st
        }
        _ => TestCaseStatus::success(),
    };
    let mut tc = TestCase::new(name, status);
    tc.set_classname(classname.to_string());
    tc.set_time(finding_time(server, f));
    let anchor = anchor_of(server);
    tc.extra
        .insert(XmlString::new("file"), XmlString::new(&anchor.path));
    tc.extra.insert(
        XmlString::new("line"),
        XmlString::new(anchor.line.to_string()),
    );
    for alias in conformance::aliases(&f.id) {
        tc.add_property(Property::new("conformance", *alias));
    }
    let counted_fail = f.status == Status::Fail && f.suppressed.is_none();
    if !counted_fail && f.status != Status::Skip {
        let mut out = format!("[{}] {}", f.status.as_str(), body(f));
        if let Some(s) = &f.suppressed {
            let why = match s {
                Suppression::Baselined { reason } => format!("baselined: {reason}"),
                Suppression::Ignored { reason } => format!("ignored: {reason}"),
            };
            out.push_str(&format!("\nnot counted ({why})"));
        }
        tc.set_system_out(out);
    }
    tc
}

fn suite(server: &ServerReport, phase: Phase, findings: &[&Finding]) -> TestSuite {
    let classname = format!("{}.{}", server.name, phase.as_str());
    let mut suite = TestSuite::new(classname.clone());
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut total = Duration::ZERO;
    for f in findings {
        let base = base_name(f);
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        let name = if *n == 1 {
            base
        } else {
            format!("{base} #{n}")
        };
        let tc = case(server, f, name, &classname);
        total += tc.time.unwrap_or_default();
        suite.add_test_case(tc);
    }
    suite.set_time(total);
    let category = server.categories.iter().find(|c| c.phase == phase);
    let props = [
        (
            "score",
            server
                .score
                .map(|s| s.to_string())
                .unwrap_or_else(|| "not assessed".into()),
        ),
        (
            "category_score",
            match category.and_then(|c| c.score) {
                Some(n) => n.to_string(),
                None => "not assessed".into(),
            },
        ),
        ("era", server.era.as_str().to_string()),
        ("protocol_versions", server.protocol_versions.join(",")),
        ("transport", server.transport.as_str().to_string()),
        ("target", server.target.clone()),
    ];
    for (k, v) in props {
        suite.add_property(Property::new(k, v));
    }
    suite
}

/// The `server.scout` suite: one `<error>` case per internal error.
fn internal_suite(server: &ServerReport) -> TestSuite {
    let classname = format!("{}.scout", server.name);
    let mut suite = TestSuite::new(classname.clone());
    for (i, e) in server.internal_errors.iter().enumerate() {
        let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
        st.set_message(format!("scout internal error: {}", first_line(e)))
            .set_type("internal_error")
            .set_description(format!(
                "{e}\nscout could not record this result; the report may be missing a finding. Please report this as a scout bug."
            ));
        let name = if i == 0 {
            "internal_error".to_string()
        } else {
            format!("internal_error #{}", i + 1)
        };
        let mut tc = TestCase::new(name, st);
        tc.set_classname(classname.clone());
        let anchor = anchor_of(server);
        tc.extra
            .insert(XmlString::new("file"), XmlString::new(&anchor.path));
        tc.extra.insert(
            XmlString::new("line"),
            XmlString::new(anchor.line.to_string()),
        );
        suite.add_test_case(tc);
    }
    suite
}

/// Renders the JUnit XML document.
pub fn render(report: &Report) -> String {
    let mut junit = quick_junit::Report::new("scout");
    junit.set_time(Duration::from_millis(report.duration_ms));
    for server in &report.servers {
        for phase in Phase::ALL {
            let findings: Vec<&Finding> = server
                .findings
                .iter()
                .filter(|f| f.phase == phase)
                .collect();
            if findings.is_empty() {
                continue;
            }
            let mut suite = suite(server, phase, &findings);
            // Every suite carries the gate's thresholds: a reader of one suite sees why a
            // failing case did (or did not) fail the job.
            suite.add_property(Property::new("gate", report.gate.thresholds_line()));
            junit.add_test_suite(suite);
        }
        if !server.internal_errors.is_empty() {
            junit.add_test_suite(internal_suite(server));
        }
    }
    // quick-junit only fails on I/O errors of the writer; a String cannot have them.
    junit.to_string().unwrap_or_default()
}
