//! The Markdown PR summary (also appended to `$GITHUB_STEP_SUMMARY` under GitHub Actions).
//!
//! Per server: a headline with score, gate verdict and era, a category table, the failing
//! and warning checks with advice and evidence, then a collapsed `<details>` section with
//! the passes, infos and skips. Order is deterministic (servers as in the report, findings
//! most severe first, then by id and subject). Text that came from a server is escaped so a
//! hostile server cannot inject Markdown or HTML into the PR page. The output stays under
//! GitHub's 1 MiB step-summary limit: past [`MAX_BYTES`] it is cut at a line with a note.

use std::io::Write;

use crate::emit::sarif::{evidence_text, rank};
use crate::report::finding::{Finding, Status, Suppression};
use crate::report::model::{Report, ServerReport};

/// GitHub refuses step summaries over 1 MiB; we stop a little below it.
pub const MAX_BYTES: usize = 1024 * 1024 - 4096;

/// Escapes text for use inside Markdown paragraphs and table cells.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// True when no gate reason names this server (gate reasons are `"<server>: …"`).
pub(crate) fn server_passed(report: &Report, server: &ServerReport) -> bool {
    let prefix = format!("{}: ", server.name);
    !report.gate.reasons.iter().any(|r| r.starts_with(&prefix))
}

/// Findings sorted for display: most severe first, then id, subject, era.
pub(crate) fn sorted<'a>(findings: impl Iterator<Item = &'a Finding>) -> Vec<&'a Finding> {
    let mut v: Vec<&Finding> = findings.collect();
    v.sort_by(|a, b| {
        rank(b)
            .cmp(&rank(a))
            .then_with(|| a.id.cmp(&b.id))
            .then_with(|| a.subject.cmp(&b.subject))
            .then_with(|| a.era.cmp(&b.era))
    });
    v
}

fn label(f: &Finding) -> String {
    let mut s = format!("`{}`", f.id);
    if let Some(subject) = &f.subject {
        s.push_str(&format!(" ({})", esc(subject)));
    }
    if let Some(era) = f.era {
        s.push_str(&format!(" [{}]", era.as_str()));
    }
    s
}

fn suppression(f: &Finding) -> Option<String> {
    f.suppressed.as_ref().map(|s| match s {
        Suppression::Baselined { reason } => format!("baselined: {}", esc(reason)),
        Suppression::Ignored { reason } => format!("ignored: {}", esc(reason)),
    })
}

fn judged_item(out: &mut String, f: &Finding) {
    let sev = match (f.status, f.severity) {
        (Status::Fail, Some(s)) => s.as_str(),
        (Status::Fail, None) => "fail",
        _ => "warn",
    };
    out.push_str(&format!(
        "- **{}** {} — {}: {}\n",
        sev,
        label(f),
        esc(&f.title),
        esc(&f.detail)
    ));
    if let Some(why) = suppression(f) {
        out.push_str(&format!("  - not counted ({why})\n"));
    }
    if !f.advice.is_empty() {
        out.push_str(&format!("  - advice: {}\n", esc(&f.advice)));
    }
    if !f.evidence.is_empty() {
        out.push_str(&format!("  - evidence: {}\n", evidence_text(&f.evidence)));
    }
    if let Some(spec) = &f.spec {
        out.push_str(&format!(
            "  - spec: <{}>\n",
            spec.replace(['<', '>', ' '], "")
        ));
    }
}

fn server_section(out: &mut String, report: &Report, s: &ServerReport) {
    let verdict = if server_passed(report, s) {
        "✅ gate passed"
    } else {
        "❌ gate failed"
    };
    let score = s
        .score
        .map(|n| format!("{n}/100"))
        .unwrap_or_else(|| "not scored".into());
    out.push_str(&format!(
        "## {} — {} · {} · era {}\n\n",
        esc(&s.name),
        score,
        verdict,
        s.era.as_str()
    ));
    out.push_str(&format!(
        "{} `{}`",
        s.transport.as_str(),
        s.target.replace('`', "'")
    ));
    if !s.protocol_versions.is_empty() {
        out.push_str(&format!(
            " · versions {}",
            esc(&s.protocol_versions.join(", "))
        ));
    }
    out.push_str(&format!(" · {} exchanges\n\n", s.exchange_total()));
    if let Some(why) = &s.blocked {
        out.push_str(&format!("> **Blocked:** {}\n\n", esc(why)));
    }
    if s.interrupted {
        out.push_str("> **Interrupted** before the run finished.\n\n");
    }
    out.push_str("| category | score |\n|---|---:|\n");
    for c in &s.categories {
        let v = if c.assessed {
            c.score.to_string()
        } else {
            "—".into()
        };
        out.push_str(&format!("| {} | {} |\n", c.phase.as_str(), v));
    }
    out.push('\n');
    out.push_str(&crate::emit::pinning::markdown_section(s));
    let judged = sorted(
        s.findings
            .iter()
            .filter(|f| matches!(f.status, Status::Fail | Status::Warn)),
    );
    let (fails, warns): (Vec<&Finding>, Vec<&Finding>) =
        judged.into_iter().partition(|f| f.status == Status::Fail);
    for (heading, list) in [("Failing checks", fails), ("Warnings", warns)] {
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("### {heading} ({})\n\n", list.len()));
        for f in list {
            judged_item(out, f);
        }
        out.push('\n');
    }
    // The collapsed list is for looking things up, so it is ordered by check id.
    let mut rest: Vec<&Finding> = s
        .findings
        .iter()
        .filter(|f| matches!(f.status, Status::Pass | Status::Info | Status::Skip))
        .collect();
    rest.sort_by(|a, b| {
        (&a.id, &a.subject, a.era, a.status).cmp(&(&b.id, &b.subject, b.era, b.status))
    });
    if !rest.is_empty() {
        let count = |st: Status| rest.iter().filter(|f| f.status == st).count();
        out.push_str(&format!(
            "<details><summary>{} passed, {} info, {} skipped</summary>\n\n",
            count(Status::Pass),
            count(Status::Info),
            count(Status::Skip)
        ));
        out.push_str("| check | status | detail |\n|---|---|---|\n");
        for f in rest {
            let status = match (f.status, f.skip_reason) {
                (Status::Skip, Some(r)) => format!("skip ({})", r.as_str()),
                (st, _) => st.as_str().to_string(),
            };
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                label(f),
                status,
                esc(&f.detail)
            ));
        }
        out.push_str("\n</details>\n\n");
    }
}

/// Renders the summary, cut to [`MAX_BYTES`].
pub fn render(report: &Report) -> String {
    render_limited(report, MAX_BYTES)
}

/// Renders the summary, cut at a line boundary to at most `max_bytes` with a note saying so.
pub fn render_limited(report: &Report, max_bytes: usize) -> String {
    let mut out = String::from("# scout report\n\n");
    if report.gate.passed {
        out.push_str("**Gate: ✅ passed**\n\n");
    } else {
        out.push_str("**Gate: ❌ failed**\n\n");
        for r in &report.gate.reasons {
            out.push_str(&format!("- {}\n", esc(r)));
        }
        out.push('\n');
    }
    for s in &report.servers {
        server_section(&mut out, report, s);
    }
    out.push_str(&format!(
        "<sub>scout {} · run {}</sub>\n",
        esc(&report.scout_version),
        esc(&report.run_id)
    ));
    truncate(out, max_bytes)
}

fn truncate(out: String, max_bytes: usize) -> String {
    if out.len() <= max_bytes {
        return out;
    }
    let note_room = 256;
    let mut cut = max_bytes.saturating_sub(note_room);
    while cut > 0 && !out.is_char_boundary(cut) {
        cut -= 1;
    }
    let keep_to = out[..cut].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let mut kept = out[..keep_to].to_string();
    // Close a collapsed section we cut into, so the note is visible.
    if kept.matches("<details>").count() > kept.matches("</details>").count() {
        kept.push_str("\n</details>\n");
    }
    kept.push_str(&format!(
        "\n> **Truncated:** {} more bytes did not fit GitHub's 1 MiB summary limit; the JSON, SARIF and JUnit reports have everything.\n",
        out.len() - keep_to
    ));
    kept
}

/// Appends the summary to the file named by `$GITHUB_STEP_SUMMARY`, when that is set.
/// Returns whether it wrote anything.
pub fn append_step_summary(report: &Report) -> std::io::Result<bool> {
    match std::env::var_os("GITHUB_STEP_SUMMARY") {
        Some(path) if !path.is_empty() => {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?;
            file.write_all(render(report).as_bytes())?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_from_servers() {
        assert_eq!(
            esc("<img src=x> | *a*\n[x](y)"),
            "&lt;img src=x&gt; \\| \\*a\\* \\[x\\](y)"
        );
    }

    #[test]
    fn truncation_closes_details_and_notes_it() {
        let text = format!("a\n<details>\n{}", "line\n".repeat(1000));
        let cut = truncate(text, 1024);
        assert!(cut.len() <= 1024, "{}", cut.len());
        assert!(cut.contains("</details>"));
        assert!(cut.contains("Truncated"));
    }
}
