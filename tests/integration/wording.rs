//! Every finding reads as a sentence that names its subject. scout runs against
//! fixture servers that trigger many findings; each finding's title, detail and advice is
//! checked (no placeholder left in, no doubled space, no empty quotes, no sentence that lost
//! its verb, a capital or a code span first, the subject named), and the terminal and
//! Markdown reports rendered from them are checked for leftovers too.

use futures_util::future::join_all;
use scout::emit::{markdown, text};
use scout::probe::registry;
use scout::report::finding::Finding;
use scout::report::model::{Report, ServerReport};
use scout::spec::{PolicySpec, ServerSpec};

use crate::phase_fixtures::{fixture, fixture_http, run, with_policy};

/// Fixtures run through every phase: between them they reach every phase's passing,
/// warning, failing and skipping findings on both transports.
const EVERY_PHASE: [&str; 3] = [
    "minimal_server.py",
    "lenient_errors.py",
    "made_up_version.py",
];
const EVERY_PHASE_HTTP: [&str; 2] = ["minimal_server.py", "header_mismatch_ignored.py"];
/// Fixtures whose defects show in the catalog and execution phases (run through the phases
/// up to execution only, to keep the test short).
const CATALOG_AND_EXECUTION: [&str; 12] = [
    "bad_call_results.py",
    "incomplete_entries.py",
    "reaches_out.py",
    "records_calls.py",
    "duplicate_tool_names.py",
    "bad_input_schema.py",
    "structured_output_mismatch.py",
    "cursor_loop.py",
    "invalid_x_mcp_header.py",
    "tools_list_broken.py",
    "undeclared_prompts.py",
    "progress_backwards.py",
];

/// Every phase, against one fixture.
fn all_phases(mut spec: ServerSpec) -> ServerSpec {
    spec.only = Vec::new();
    spec.deadline = std::time::Duration::from_secs(90);
    spec
}

/// What is wrong with one piece of a finding's text, if anything.
fn defects(what: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let placeholder = regex::Regex::new(r"\{[A-Za-z_0-9]*(:[^}\s]*)?\}").expect("regex");
    if let Some(m) = placeholder.find(text)
        && m.as_str() != "{}"
    {
        out.push(format!("{what} has the placeholder {}", m.as_str()));
    }
    if text.contains("  ") {
        out.push(format!("{what} has a doubled space"));
    }
    for empty in ["''", "``", "\"\""] {
        if text.contains(empty) {
            out.push(format!("{what} has empty quotes {empty}"));
        }
    }
    if text.contains("it not ") || text.contains(": it not") {
        out.push(format!("{what} lost its verb (\"it not\")"));
    }
    if text.trim() != text {
        out.push(format!("{what} has surrounding whitespace"));
    }
    match text.chars().next() {
        None => out.push(format!("{what} is empty")),
        Some(c) if c.is_uppercase() || c.is_ascii_digit() || c == '`' => {}
        Some(c) => out.push(format!(
            "{what} does not start a sentence (starts with {c:?})"
        )),
    }
    out
}

/// Every defect of one finding's title, detail and advice.
fn finding_defects(f: &Finding) -> Vec<String> {
    let mut out = defects("title", &f.title);
    out.extend(defects("detail", &f.detail));
    out.extend(defects("advice", &f.advice));
    if let Some(subject) = &f.subject
        && !f.detail.contains(subject.as_str())
    {
        out.push(format!("detail does not name its subject {subject:?}"));
    }
    out
}

/// Titles and advice are copied into findings as they are registered.
#[test]
fn every_registered_title_and_advice_reads_as_a_sentence() {
    let mut bad = Vec::new();
    for c in registry::all() {
        for d in defects("title", c.title)
            .into_iter()
            .chain(defects("advice", c.advice))
        {
            bad.push(format!("{}: {d}", c.id));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_finding_reads_as_a_sentence_naming_its_subject() {
    let mut specs: Vec<ServerSpec> = EVERY_PHASE
        .iter()
        .map(|f| all_phases(fixture(f, &[])))
        .collect();
    specs.extend(EVERY_PHASE_HTTP.iter().map(|f| all_phases(fixture_http(f))));
    specs.extend(CATALOG_AND_EXECUTION.iter().map(|f| fixture(f, &[])));
    // The policy's "not called" findings for every reason a tool is not called.
    specs.push(with_policy(
        fixture("records_calls.py", &[]),
        PolicySpec {
            deny_tools: vec!["read_only".into()],
            allow_tools: vec!["read_only".into(), "mutating".into()],
            ..PolicySpec::default()
        },
    ));
    let mut servers: Vec<ServerReport> = Vec::new();
    let mut pending = specs.into_iter();
    loop {
        let batch: Vec<_> = pending.by_ref().take(4).map(run).collect();
        if batch.is_empty() {
            break;
        }
        servers.extend(join_all(batch).await);
    }

    let mut bad = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for s in &servers {
        for f in &s.findings {
            seen.insert(f.id.clone());
            for d in finding_defects(f) {
                bad.push(format!(
                    "{} {} [{:?}]: {d}: {:?}",
                    s.name, f.id, f.subject, f.detail
                ));
            }
        }
    }
    // Sanity: the fixtures reach every phase and many checks.
    assert!(
        seen.len() > 60,
        "only {} checks reached: {seen:?}",
        seen.len()
    );

    // The reports people read: no placeholder or lost verb survives rendering.
    let report = Report {
        run_id: "wording".into(),
        scout_version: "test".into(),
        started_at: time::OffsetDateTime::UNIX_EPOCH,
        duration_ms: 0,
        servers,
        gate: scout::report::gate::GateResult {
            passed: true,
            reasons: Vec::new(),
            thresholds: Vec::new(),
        },
    };
    let rendered = [
        (
            "terminal",
            text::render(
                &report,
                text::TextStyle {
                    color: false,
                    width: None,
                },
            ),
        ),
        ("markdown", markdown::render(&report)),
    ];
    for (name, out) in rendered {
        for line in out.lines() {
            if line.contains("it not ") || regex_placeholder(line) {
                bad.push(format!("{name}: {line}"));
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "{} defects:\n{}", bad.len(), bad.join("\n"));
}

fn regex_placeholder(line: &str) -> bool {
    regex::Regex::new(r"\{[A-Za-z_][A-Za-z_0-9]*(:[^}\s]*)?\}|\{:\??\}")
        .expect("regex")
        .is_match(line)
}
