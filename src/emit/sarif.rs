//! SARIF 2.1.0 for GitHub code scanning (and Jenkins' warnings-ng), built with `serde-sarif`.
//!
//! One run for the whole report. Rules come from the registry for the check ids that have a
//! result; results are the warn and fail findings (levels `warning` / `error`). GitHub
//! rejects a whole upload when one result lacks a physical location, so every result gets
//! one: the server's [`Anchor`] (the config line that declared it, or the workflow file when
//! the CLI set that), else the stable
//! repository-relative pseudo-path `mcp/<server>` line 1 — never a URI with a scheme.
//! `partialFingerprints.primaryLocationLineHash` is derived from (check id, server, subject,
//! era), not from the line, so alerts survive reruns and close when fixed.
//! `automationDetails.id` is `scout/<server>/`, or `scout/<a>+<b>/` (names sorted) when one
//! report covers several servers: one upload is one category.

use std::collections::BTreeMap;

use serde_json::json;
use serde_sarif::sarif;

use super::common::{anchor_of, evidence_text, fingerprint, rank};
use crate::probe::{conformance, registry};
use crate::report::check::Check;
use crate::report::finding::{Finding, Phase, Severity, Status, Suppression};
use crate::report::model::{Anchor, Report, ServerReport};

/// Where scout's docs live; `helpUri` falls back to a check's anchor there.
pub const DOCS_CHECKS: &str = "https://github.com/scout-mcp/scout/blob/main/docs/checks.md";

/// Where expectations are documented: the `helpUri` of an expectation's rule.
pub const DOCS_EXPECTATIONS: &str =
    "https://github.com/scout-mcp/scout/blob/main/docs/expectations.md";
/// `tool.driver.informationUri`.
pub const INFORMATION_URI: &str = "https://github.com/scout-mcp/scout";
/// Results kept per run. GitHub accepts 25 000 but shows only the 5 000 most severe; with
/// messages capped at [`MAX_MESSAGE`] this bound also keeps a log well under GitHub's
/// 10 MB gzip limit (about 30 MB uncompressed at worst, of very repetitive JSON).
pub const MAX_RESULTS: usize = 5_000;
/// Descriptions longer than this are cut (GitHub's limit for rule descriptions).
const MAX_DESCRIPTION: usize = 1024;
/// Messages longer than this are cut, which keeps a full run far below 10 MB gzip.
const MAX_MESSAGE: usize = 4096;

/// The `automationDetails.id` (code-scanning category) of a report.
pub fn automation_id(report: &Report) -> String {
    let mut names: Vec<&str> = report.servers.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    format!("scout/{}/", names.join("+"))
}

/// Cuts `s` to at most `max` characters, marking the cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `security-severity` (CVSS-like, as a string) for security checks.
fn security_severity(sev: Severity) -> &'static str {
    match sev {
        Severity::Critical => "9.5",
        Severity::Major => "7.5",
        Severity::Minor => "4.0",
    }
}

/// `protocol.unknown_method` → `ProtocolUnknownMethod` (SARIF's human-readable rule name).
fn rule_name(id: &str) -> String {
    id.split(['.', '_'])
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// What a rule says about a check: from the registry, or from the finding itself when the
/// report was written by a scout that knew a check this one does not.
struct RuleInfo {
    id: String,
    phase: Phase,
    severity: Severity,
    title: String,
    description: String,
    advice: String,
    help_uri: String,
}

fn rule_info(f: &Finding) -> RuleInfo {
    match registry::lookup(&f.id) {
        Some(c) => from_check(c),
        None => RuleInfo {
            id: f.id.clone(),
            phase: f.phase,
            severity: f.severity.unwrap_or(Severity::Major),
            title: f.title.clone(),
            description: f.title.clone(),
            advice: f.advice.clone(),
            // An expectation's id is the user's, with no anchor in docs/checks.md.
            help_uri: f.spec.clone().unwrap_or_else(|| {
                if f.id.starts_with("expect.") {
                    DOCS_EXPECTATIONS.to_string()
                } else {
                    format!("{DOCS_CHECKS}#{}", f.id.replace(['.', '_'], "-"))
                }
            }),
        },
    }
}

fn from_check(c: &Check) -> RuleInfo {
    RuleInfo {
        id: c.id.to_string(),
        phase: c.phase,
        severity: c.severity,
        title: c.title.to_string(),
        description: c.description.to_string(),
        advice: c.advice.to_string(),
        help_uri: if c.spec.is_empty() {
            format!("{DOCS_CHECKS}#{}", c.anchor())
        } else {
            c.spec.to_string()
        },
    }
}

fn rule(r: &RuleInfo) -> sarif::ReportingDescriptor {
    let mut props = BTreeMap::new();
    if r.phase == Phase::Security {
        props.insert(
            "security-severity".to_string(),
            json!(security_severity(r.severity)),
        );
    }
    props.insert("precision".to_string(), json!("high"));
    // Tags must be unique (the schema says so); the security phase is its own tag.
    let mut tags = vec!["mcp".to_string(), r.phase.as_str().to_string()];
    tags.extend(conformance_tags(&r.id));
    let markdown = format!("{}\n\nSee [{}]({}).", r.advice, r.help_uri, r.help_uri);
    sarif::ReportingDescriptor::builder()
        .id(r.id.clone())
        .name(rule_name(&r.id))
        .short_description(
            sarif::MultiformatMessageString::builder()
                .text(clip(&r.title, MAX_DESCRIPTION))
                .build(),
        )
        .full_description(
            sarif::MultiformatMessageString::builder()
                .text(clip(&r.description, MAX_DESCRIPTION))
                .build(),
        )
        .help(
            sarif::MultiformatMessageString::builder()
                .text(r.advice.clone())
                .markdown(markdown)
                .build(),
        )
        .help_uri(r.help_uri.clone())
        .default_configuration(
            sarif::ReportingConfiguration::builder()
                .level(json!("error"))
                .build(),
        )
        .properties(
            sarif::PropertyBag::builder()
                .tags(tags)
                .additional_properties(props)
                .build(),
        )
        .build()
}

/// `conformance:<scenario>` for each official scenario the check covers (distinct).
fn conformance_tags(id: &str) -> Vec<String> {
    conformance::scenarios(id)
        .into_iter()
        .map(|s| format!("conformance:{s}"))
        .collect()
}

fn result(server: &ServerReport, anchor: &Anchor, f: &Finding, rule_index: usize) -> sarif::Result {
    let mut text = format!("{}. {}", f.title, f.detail);
    if !f.evidence.is_empty() {
        text.push_str(&format!(" (evidence: {})", evidence_text(&f.evidence)));
    }
    let mut logical = vec![
        sarif::LogicalLocation::builder()
            .name(server.name.clone())
            .kind("module")
            .build(),
    ];
    if let Some(subject) = &f.subject {
        logical.push(
            sarif::LogicalLocation::builder()
                .name(subject.clone())
                .fully_qualified_name(format!("{}/{}", server.name, subject))
                .kind("function")
                .build(),
        );
    }
    let location = sarif::Location::builder()
        .physical_location(
            sarif::PhysicalLocation::builder()
                .artifact_location(
                    sarif::ArtifactLocation::builder()
                        .uri(anchor.path.clone())
                        .build(),
                )
                .region(
                    sarif::Region::builder()
                        .start_line(i64::from(anchor.line.max(1)))
                        .build(),
                )
                .build(),
        )
        .logical_locations(logical)
        .build();
    let mut props = BTreeMap::new();
    props.insert("server".to_string(), json!(server.name));
    props.insert("evidence".to_string(), json!(f.evidence));
    if let Some(sev) = f.severity {
        props.insert("severity".to_string(), json!(sev.as_str()));
    }
    if let Some(era) = f.era {
        props.insert("era".to_string(), json!(era.as_str()));
    }
    if let Some(revision) = &f.revision {
        props.insert("revision".to_string(), json!(revision));
    }
    let mut fingerprints = BTreeMap::new();
    fingerprints.insert(
        "primaryLocationLineHash".to_string(),
        fingerprint(&server.name, f),
    );
    let level = if f.status == Status::Fail {
        sarif::ResultLevel::Error
    } else {
        sarif::ResultLevel::Warning
    };
    let mut b = sarif::Result::builder()
        .rule_id(f.id.clone())
        .rule_index(rule_index as i64)
        .level(level)
        .message(
            sarif::Message::builder()
                .text(clip(&text, MAX_MESSAGE))
                .build(),
        )
        .locations(vec![location])
        .partial_fingerprints(fingerprints)
        .properties({
            let tags = conformance_tags(&f.id);
            let bag = sarif::PropertyBag::builder().additional_properties(props);
            if tags.is_empty() {
                bag.build()
            } else {
                bag.tags(tags).build()
            }
        })
        .build();
    // A baselined or ignored finding is reported as an accepted external suppression, which
    // code scanning shows as dismissed instead of open.
    if let Some(s) = &f.suppressed {
        let reason = match s {
            Suppression::Baselined { reason } => format!("baselined: {reason}"),
            Suppression::Ignored { reason } => format!("ignored: {reason}"),
        };
        b.suppressions = Some(vec![
            sarif::Suppression::builder()
                .kind(json!("external"))
                .status(json!("accepted"))
                .justification(reason)
                .build(),
        ]);
    }
    b
}

/// Renders the SARIF log (pretty JSON, trailing newline).
pub fn render(report: &Report) -> String {
    let mut rules: Vec<sarif::ReportingDescriptor> = Vec::new();
    let mut rule_ids: Vec<String> = Vec::new();
    let mut results = Vec::new();
    let mut dropped = 0usize;
    // Most severe first so that a capped run keeps what matters.
    let mut judged: Vec<(&ServerReport, &Finding)> = report
        .servers
        .iter()
        .flat_map(|s| s.findings.iter().map(move |f| (s, f)))
        .filter(|(_, f)| matches!(f.status, Status::Warn | Status::Fail))
        .collect();
    judged.sort_by_key(|(_, f)| std::cmp::Reverse(rank(f)));
    for (server, f) in judged {
        if results.len() >= MAX_RESULTS {
            dropped += 1;
            continue;
        }
        let index = match rule_ids.iter().position(|id| *id == f.id) {
            Some(i) => i,
            None => {
                rules.push(rule(&rule_info(f)));
                rule_ids.push(f.id.clone());
                rules.len() - 1
            }
        };
        results.push(result(server, &anchor_of(server), f, index));
    }
    let mut run_props = BTreeMap::new();
    run_props.insert("runId".to_string(), json!(report.run_id));
    run_props.insert(
        "gate".to_string(),
        json!({
            "passed": report.gate.passed,
            "thresholds": report.gate.thresholds_line(),
        }),
    );
    if dropped > 0 {
        run_props.insert(
            "truncated".to_string(),
            json!(format!(
                "{dropped} results beyond the first {MAX_RESULTS} were left out (least severe first)"
            )),
        );
    }
    let driver = sarif::ToolComponent::builder()
        .name("scout")
        .full_name(format!("scout {}", report.scout_version))
        .version(report.scout_version.clone())
        .semantic_version(report.scout_version.clone())
        .information_uri(INFORMATION_URI)
        .rules(rules)
        .build();
    let mut run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .automation_details(
            sarif::RunAutomationDetails::builder()
                .id(automation_id(report))
                .build(),
        )
        .results(results)
        .properties(
            sarif::PropertyBag::builder()
                .additional_properties(run_props)
                .build(),
        )
        .build();
    if let Some(invocation) = internal_errors(report) {
        run.invocations = Some(vec![invocation]);
    }
    let log = sarif::Sarif::builder()
        .schema("https://json.schemastore.org/sarif-2.1.0.json")
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build();
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

/// An unsuccessful invocation with one error notification per internal error (a finding
/// scout could not record, a crashed run), or `None` on a clean run.
fn internal_errors(report: &Report) -> Option<sarif::Invocation> {
    let notes: Vec<sarif::Notification> = report
        .servers
        .iter()
        .flat_map(|s| {
            s.internal_errors.iter().map(move |e| {
                sarif::Notification::builder()
                    .level(json!("error"))
                    .message(
                        sarif::Message::builder()
                            .text(clip(
                                &format!("scout internal error on {}: {e}", s.name),
                                MAX_MESSAGE,
                            ))
                            .build(),
                    )
                    .build()
            })
        })
        .collect();
    (!notes.is_empty()).then(|| {
        sarif::Invocation::builder()
            .execution_successful(false)
            .tool_execution_notifications(notes)
            .build()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_are_camel_case() {
        assert_eq!(
            rule_name("protocol.unknown_method"),
            "ProtocolUnknownMethod"
        );
    }

    #[test]
    fn clip_marks_the_cut() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
