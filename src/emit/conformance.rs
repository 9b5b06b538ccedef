//! The parity view (`scout check --conformance-summary`, and a section of the Markdown
//! summary): each server scenario of the official suite's frozen requirement sets, judged
//! from scout's own findings of the checks that cover it (`probe::conformance`).
//!
//! A set is judged on the wire of its revision: 2025-11-25 on the handshake wire, 2026-07-28
//! on the stateless one; a server that does not speak it gets *not applicable* throughout.
//! Per scenario: *failed* when a check mapped to any of its checks failed on that wire (even
//! if baselined: the official suite would fail it too), or a whole-run schema verdict failed
//! on a message of a method the scenario sends (the suite's `wire-schema-valid`), *passed* when a covering check passed or warned and
//! none failed, *not applicable* when the covering checks only skipped or did not run (the
//! server does not offer the feature), *needs fixture tools* when the scenario calls the
//! official everything-server's fixtures by name, and *not covered* when no scout check
//! judges it. Each verdict names the findings it rests on and their exchanges.

use crate::emit::common::evidence_text;
use crate::probe::conformance::{self, Coverage};
use crate::report::finding::{Era, Finding, Status};
use crate::report::model::{EraKind, Report, ServerReport};

/// Where docs/conformance.md is published (beside docs/checks.md).
const DOCS: &str = "https://github.com/scout-mcp/scout/blob/main/docs/conformance.md";

/// What scout says about one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    NotApplicable,
    NeedsFixture,
    NotCovered,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "covered and passed",
            Verdict::Failed => "covered and failed",
            Verdict::NotApplicable => "not applicable",
            Verdict::NeedsFixture => "needs fixture tools",
            Verdict::NotCovered => "not covered",
        }
    }
}

/// One scenario's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub scenario: &'static str,
    pub verdict: Verdict,
    /// The findings it rests on (`check: status, req#…`), or why there are none.
    pub evidence: String,
}

/// One frozen set for one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetSummary {
    pub revision: &'static str,
    pub rows: Vec<Row>,
}

impl SetSummary {
    /// How many rows have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == verdict).count()
    }
}

/// The frozen sets, each with the wire its scenarios run on.
const SETS: [(&str, Era); 2] = [("2025-11-25", Era::Legacy), ("2026-07-28", Era::Modern)];

fn speaks(server: &ServerReport, era: Era) -> bool {
    match server.era {
        EraKind::Dual => true,
        EraKind::Legacy => era == Era::Legacy,
        EraKind::Modern => era == Era::Modern,
        EraKind::Unknown => false,
    }
}

fn cite(f: &Finding) -> String {
    let mut s = format!("{} {}", f.id, f.status.as_str());
    if let Some(subject) = &f.subject {
        s.push_str(&format!(" [{subject}]"));
    }
    if !f.evidence.is_empty() {
        // The first exchanges say where to look; the JSON report has them all.
        let shown = &f.evidence[..f.evidence.len().min(EXCHANGES)];
        let more = if f.evidence.len() > EXCHANGES {
            format!(" and {} more", f.evidence.len() - EXCHANGES)
        } else {
            String::new()
        };
        s.push_str(&format!(" ({}{more})", evidence_text(shown)));
    }
    s
}

/// At most this many exchanges are cited per finding.
const EXCHANGES: usize = 4;

/// At most this many findings are cited per row; the rest are counted.
const CITED: usize = 3;

fn cited(findings: &[&Finding]) -> String {
    let mut parts: Vec<String> = findings.iter().take(CITED).map(|f| cite(f)).collect();
    if findings.len() > CITED {
        parts.push(format!("{} more", findings.len() - CITED));
    }
    parts.join("; ")
}

/// The summary of `server` for every frozen set.
pub fn summary(server: &ServerReport) -> Vec<SetSummary> {
    SETS.iter()
        .map(|(revision, era)| {
            let set = if *revision == "2025-11-25" {
                conformance::REQUIRED_2025_11_25
            } else {
                conformance::REQUIRED_2026_07_28
            };
            let rows = set
                .iter()
                .map(|id| row(server, id, revision, *era))
                .collect();
            SetSummary { revision, rows }
        })
        .collect()
}

fn row(server: &ServerReport, id: &'static str, revision: &str, era: Era) -> Row {
    let coverage = conformance::scenario(id).map_or(Coverage::NotCovered, |s| s.coverage);
    let mk = |verdict, evidence: String| Row {
        scenario: id,
        verdict,
        evidence,
    };
    if !speaks(server, era) {
        return mk(
            Verdict::NotApplicable,
            format!("the server does not speak {revision}"),
        );
    }
    if coverage == Coverage::NotCovered {
        let why = conformance::scenario(id).map_or("", |s| s.note);
        return mk(Verdict::NotCovered, why.to_string());
    }
    let checks = conformance::checks_of(id);
    // A finding without an era judged the only wire, or the whole run.
    let on_wire: Vec<&Finding> = server
        .findings
        .iter()
        .filter(|f| checks.contains(&f.id.as_str()) && f.era.is_none_or(|e| e == era))
        .collect();
    let with = |status: &[Status]| -> Vec<&Finding> {
        on_wire
            .iter()
            .copied()
            .filter(|f| status.contains(&f.status))
            .collect()
    };
    let mut fails = with(&[Status::Fail]);
    fails.extend(schema_fails(server, id, era));
    let judged = with(&[Status::Pass, Status::Warn]);
    if coverage == Coverage::NeedsFixture {
        let seen = with(&[Status::Fail, Status::Warn, Status::Pass]);
        let scout = if seen.is_empty() {
            String::new()
        } else {
            format!("; scout's own checks: {}", cited(&seen))
        };
        // Whether the server lists the fixture tool the scenario calls, from its catalogue.
        // A finding about the tool (scout called or skipped it) shows it is listed too.
        let fixture = match conformance::fixture_tool(id) {
            Some(tool) => {
                let named = server
                    .findings
                    .iter()
                    .any(|f| f.id.starts_with("execution.") && f.subject.as_deref() == Some(tool));
                match &server.notes.exposure {
                    _ if named => format!("the server lists the fixture tool {tool}"),
                    Some(x) if x.tools.iter().any(|t| t["name"] == tool) => {
                        format!("the server lists the fixture tool {tool}")
                    }
                    Some(_) => format!("the server lists no tool {tool}"),
                    None => format!("the suite calls the fixture tool {tool}"),
                }
            }
            None => "the suite's exact expectations need its fixtures".to_string(),
        };
        return mk(Verdict::NeedsFixture, format!("{fixture}{scout}"));
    }
    if !fails.is_empty() {
        return mk(Verdict::Failed, cited(&fails));
    }
    if !judged.is_empty() {
        // A partly covered scenario passed only as far as scout judges it.
        let part = if coverage == Coverage::Partly {
            "scout's part of it: "
        } else {
            ""
        };
        return mk(Verdict::Passed, format!("{part}{}", cited(&judged)));
    }
    let skipped = with(&[Status::Skip, Status::Info]);
    if skipped.is_empty() {
        return mk(
            Verdict::NotApplicable,
            format!("no finding of {}", checks.join(", ")),
        );
    }
    let detail = skipped
        .iter()
        .take(CITED)
        .map(|f| format!("{}: {}", f.id, f.detail.lines().next().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("; ");
    mk(Verdict::NotApplicable, detail)
}

/// The failed whole-run schema verdicts on `era` that cite a message of a method scenario
/// `id` sends: the suite validates every message of a scenario against the schema
/// (`wire-schema-valid`), so a tools/list result without the cache hints the 2026-07-28
/// schema requires fails `tools-list` there, whichever scout check owns the missing member.
fn schema_fails<'a>(server: &'a ServerReport, id: &str, era: Era) -> Vec<&'a Finding> {
    let methods = conformance::methods_of(id);
    if methods.is_empty() {
        return Vec::new();
    }
    let schema = |check: &str| {
        conformance::EVERY_SCENARIO.iter().any(|(_, c)| *c == check)
            || (era == Era::Modern && conformance::SCHEMA_PARTS.contains(&check))
    };
    server
        .findings
        .iter()
        .filter(|f| f.status == Status::Fail && schema(&f.id) && f.era.is_none_or(|e| e == era))
        .filter(|f| {
            f.evidence
                .iter()
                .filter_map(|q| method_of(server, *q))
                .any(|m| methods.contains(&m.as_str()))
        })
        .collect()
}

/// The JSON-RPC method exchange `seq` belongs to: its request's method, or, for a stdio line
/// that answers one, the method of the latest request sent before it with the same id.
fn method_of(server: &ServerReport, seq: u64) -> Option<String> {
    use crate::report::exchange::{Direction, ExchangeKind, jsonrpc_messages};
    let at = server.exchanges.iter().position(|e| e.seq == seq)?;
    let messages = jsonrpc_messages(&server.exchanges[at]);
    if let Some(m) = messages
        .iter()
        .find_map(|m| m.get("method").and_then(serde_json::Value::as_str))
    {
        return Some(m.to_string());
    }
    let id = messages.iter().find_map(|m| m.get("id"))?;
    server.exchanges[..at]
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            ExchangeKind::Stdio(line) if line.direction == Direction::Sent => {
                let sent = jsonrpc_messages(e);
                let m = sent.first()?;
                (m.get("id") == Some(id)).then(|| line.method.clone())?
            }
            _ => None,
        })
}

/// Why a whole set does not apply (the server does not speak its revision): one line
/// instead of a row per scenario.
fn unspoken(set: &SetSummary) -> Option<String> {
    let why = format!("the server does not speak {}", set.revision);
    set.rows
        .iter()
        .all(|r| r.verdict == Verdict::NotApplicable && r.evidence == why)
        .then_some(why)
}

fn totals(set: &SetSummary) -> String {
    format!(
        "{} passed, {} failed, {} not applicable, {} need fixture tools, {} not covered",
        set.count(Verdict::Passed),
        set.count(Verdict::Failed),
        set.count(Verdict::NotApplicable),
        set.count(Verdict::NeedsFixture),
        set.count(Verdict::NotCovered)
    )
}

/// The plain-text view, one block per server and set.
pub fn render_text(report: &Report) -> String {
    let mut out = format!(
        "Official conformance scenarios ({} {}; docs/conformance.md)\n",
        conformance::SUITE,
        conformance::SUITE_VERSION
    );
    for server in &report.servers {
        for set in summary(server) {
            if let Some(why) = unspoken(&set) {
                out.push_str(&format!(
                    "\n{} · {} ({} scenarios): not applicable, {why}\n",
                    server.name,
                    set.revision,
                    set.rows.len()
                ));
                continue;
            }
            out.push_str(&format!(
                "\n{} · {} ({} scenarios): {}\n",
                server.name,
                set.revision,
                set.rows.len(),
                totals(&set)
            ));
            let width = set.rows.iter().map(|r| r.scenario.len()).max().unwrap_or(0);
            for r in &set.rows {
                out.push_str(&format!(
                    "  {:width$}  {:<19}  {}\n",
                    r.scenario,
                    r.verdict.as_str(),
                    r.evidence
                ));
            }
        }
    }
    out
}

/// The Markdown section: per server and set a folded table. `esc` escapes text that came
/// from a server (subjects and details).
pub fn render_markdown(report: &Report, esc: impl Fn(&str) -> String) -> String {
    let mut out = format!(
        "## Official conformance scenarios\n\n{} {}: each scenario of the frozen requirement sets, judged from scout's checks that cover it ([docs/conformance.md]({DOCS})).\n\n",
        conformance::SUITE,
        conformance::SUITE_VERSION
    );
    for server in &report.servers {
        for set in summary(server) {
            if let Some(why) = unspoken(&set) {
                out.push_str(&format!(
                    "{} · {}: not applicable, {why}.\n\n",
                    esc(&server.name),
                    set.revision
                ));
                continue;
            }
            out.push_str(&format!(
                "<details><summary>{} · {}: {}</summary>\n\n| scenario | verdict | evidence |\n|---|---|---|\n",
                esc(&server.name),
                set.revision,
                totals(&set)
            ));
            for r in &set.rows {
                out.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    r.scenario,
                    r.verdict.as_str(),
                    esc(&r.evidence)
                ));
            }
            out.push_str("\n</details>\n\n");
        }
    }
    out
}
