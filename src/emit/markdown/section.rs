//! One server's section of the PR summary: the headline, the category table with bars,
//! one row per failing or warning check (both eras of a dual-era server in one row, the
//! details folded), and with a base run the fixed problems. Three levels of detail, so
//! the summary can shrink a server's section instead of dropping it.

use std::collections::BTreeMap;

use super::{
    DETAIL_CHARS, MAX_ROWS, MAX_ROWS_COMPACT, SUMMARY_CHARS, clip, delta_text, esc, server_passed,
};
use crate::emit::common::{evidence_text, rank};
use crate::report::diff::{Change, Presence, ServerDiff};
use crate::report::finding::{Era, Finding, Status, Suppression};
use crate::report::model::{CategoryScore, Report, ServerReport};

/// A ten-cell bar for a category score.
pub(super) fn bar(score: u8) -> String {
    // Ten cells of ten points, each full or half: every 5 points draw differently (95 is
    // not 100, 85 is not 90).
    let steps = usize::from(score.min(100)) / 5;
    let (full, half) = (steps / 2, steps % 2);
    format!(
        "`{}{}{}`",
        "█".repeat(full),
        "▌".repeat(half),
        "░".repeat(10 - full - half)
    )
}

/// One table row: the failing or warning findings of one check id and subject.
pub(super) struct Row<'a> {
    pub(super) findings: Vec<&'a Finding>,
    pub(super) counted: bool,
    pub(super) new: bool,
}

impl Row<'_> {
    pub(super) fn worst(&self) -> &Finding {
        self.findings
            .iter()
            .copied()
            .max_by_key(|f| rank(f))
            .expect("a row has findings")
    }

    fn eras(&self) -> Vec<Era> {
        let mut eras: Vec<Era> = self.findings.iter().filter_map(|f| f.era).collect();
        eras.sort();
        eras.dedup();
        eras
    }
}

/// The fails and warns of a server as rows, counted before not counted, then most severe
/// first, then by check id and subject.
pub(super) fn rows<'a>(s: &'a ServerReport, diff: Option<&ServerDiff>) -> Vec<Row<'a>> {
    let mut groups: BTreeMap<(&str, Option<&str>), Vec<&Finding>> = BTreeMap::new();
    for f in &s.findings {
        if matches!(f.status, Status::Fail | Status::Warn) {
            groups
                .entry((f.id.as_str(), f.subject.as_deref()))
                .or_default()
                .push(f);
        }
    }
    let mut rows: Vec<Row> = groups
        .into_values()
        .map(|findings| {
            let counted = findings.iter().any(|f| f.counts());
            let new = diff.is_some_and(|d| findings.iter().any(|f| d.is_new(f)));
            Row {
                findings,
                counted,
                new,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.counted
            .cmp(&a.counted)
            .then_with(|| rank(b.worst()).cmp(&rank(a.worst())))
            .then_with(|| a.worst().id.cmp(&b.worst().id))
            .then_with(|| a.worst().subject.cmp(&b.worst().subject))
    });
    rows
}

fn status_label(f: &Finding) -> String {
    match (f.status, f.severity) {
        (Status::Fail, Some(s)) => format!("❌ {}", s.as_str()),
        (Status::Fail, None) => "❌ fail".into(),
        (Status::Warn, _) => "⚠️ warn".into(),
        (st, _) => st.as_str().into(),
    }
}

pub(super) fn check_label(f: &Finding) -> String {
    let mut s = format!("`{}`", f.id);
    if let Some(subject) = f.subject_shown() {
        s.push_str(&format!(" ({})", esc(&clip(subject, 80))));
    }
    s
}

fn suppression(f: &Finding) -> Option<String> {
    f.suppressed.as_ref().map(|s| match s {
        Suppression::Baselined { reason } => format!("baselined: {}", esc(&clip(reason, 200))),
        Suppression::Ignored { reason } => format!("ignored: {}", esc(&clip(reason, 200))),
    })
}

/// The "what scout saw" cell: a short summary, the rest (the whole detail of each era when
/// it was cut or differs, evidence, advice, spec) folded under it.
fn detail_cell(row: &Row) -> String {
    let worst = row.worst();
    let summary_of = |f: &Finding| {
        let text = if f.detail.is_empty() {
            &f.title
        } else {
            &f.detail
        };
        esc(&clip(text, SUMMARY_CHARS))
    };
    let summary = summary_of(worst);
    let mut folded: Vec<String> = Vec::new();
    let several = row.findings.len() > 1;
    for f in &row.findings {
        let clipped = clip(&f.detail, DETAIL_CHARS);
        let full = esc_lines(&clipped);
        let evidence =
            (!f.evidence.is_empty()).then(|| format!("evidence {}", evidence_text(&f.evidence)));
        let mut line = match (several, f.era) {
            (true, Some(e)) => format!("**{}** ({}): {full}", e.as_str(), f.status.as_str()),
            (true, None) => format!("**{}**: {full}", f.status.as_str()),
            // One finding whose detail is the summary already: only its evidence.
            (false, _) if esc(&clipped) == summary => String::new(),
            (false, _) => full,
        };
        if let Some(ev) = evidence {
            if line.is_empty() {
                line = ev;
            } else {
                line.push_str(&format!(" ({ev})"));
            }
        }
        if !line.is_empty() {
            folded.push(line);
        }
    }
    if let Some(why) = suppression(worst) {
        folded.push(format!("not counted ({why})"));
    }
    if !worst.advice.is_empty() {
        folded.push(format!(
            "**advice:** {}",
            esc(&clip(&worst.advice, DETAIL_CHARS))
        ));
    }
    if let Some(spec) = &worst.spec {
        folded.push(format!(
            "**spec:** <{}>",
            spec.replace(['<', '>', ' ', '|'], "")
        ));
    }
    if folded.is_empty() {
        return summary;
    }
    format!(
        "<details><summary>{summary}</summary>{}</details>",
        folded.join("<br>")
    )
}

/// `esc` line by line, the lines kept apart by `<br>` and their indent by no-break spaces: a
/// table cell holds no newline, and a diff (a snapshot's, an expectation's) run into one line
/// cannot be read.
fn esc_lines(s: &str) -> String {
    s.lines()
        .map(|l| {
            let body = l.trim_start_matches(' ');
            let indent = l.len() - body.len();
            format!("{}{}", "&nbsp;".repeat(indent), esc(body))
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

fn row_line(row: &Row, fold: bool) -> String {
    let worst = row.worst();
    let mut status = status_label(worst);
    if !row.counted {
        status = format!("~~{status}~~");
    }
    if row.new {
        status = format!("🆕 {status}");
    }
    let eras = row
        .eras()
        .iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let cell = if fold {
        detail_cell(row)
    } else {
        esc(&clip(&worst.detail, SUMMARY_CHARS))
    };
    format!("| {status} | {} | {eras} | {cell} |\n", check_label(worst))
}

fn headline(report: &Report, s: &ServerReport, d: Option<&ServerDiff>) -> String {
    let verdict = if server_passed(report, s) {
        "✅"
    } else {
        "❌"
    };
    let mut score = match s.score {
        Some(n) => format!("{n}/100"),
        None => "not assessed".into(),
    };
    if let Some(d) = d {
        let delta = delta_text(d.base_score, d.head_score);
        match (d.presence, d.base_score) {
            (Presence::Added, _) => score.push_str(" · new server"),
            _ if !delta.is_empty() => score.push_str(&format!(" {delta}")),
            (_, Some(b)) => score.push_str(&format!(" (base {b})")),
            (_, None) => score.push_str(" (base not assessed)"),
        }
    }
    format!("## {verdict} {} — {score}\n\n", esc(&s.name))
}

/// How much of a server's section to show: everything, the rows without their folded
/// details, or only a few lines (when the comment is running out of room).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Detail {
    Full,
    Compact,
    Minimal,
}

pub(super) fn server_section(
    report: &Report,
    s: &ServerReport,
    d: Option<&ServerDiff>,
    detail: Detail,
) -> String {
    let mut out = headline(report, s, d);
    out.push_str(&format!(
        "{} `{}` · era {}",
        s.transport.as_str(),
        clip(&s.target, 200).replace('`', "'"),
        s.era.as_str()
    ));
    if !s.protocol_versions.is_empty() {
        out.push_str(&format!(
            " · versions {}",
            esc(&s.protocol_versions.join(", "))
        ));
    }
    out.push_str(&format!(" · {} exchanges\n\n", s.exchange_total()));
    if let Some(why) = &s.blocked {
        out.push_str(&format!(
            "> **Blocked:** {} — the run has no score.\n\n",
            esc(&clip(why, DETAIL_CHARS))
        ));
    }
    if s.interrupted {
        out.push_str("> **Interrupted** before the run finished — the run has no score.\n\n");
    }
    for e in &s.internal_errors {
        out.push_str(&format!(
            "> **Internal error:** {} — scout could not record this, so the report may be missing a finding.\n\n",
            esc(&clip(e, DETAIL_CHARS))
        ));
    }

    if detail == Detail::Minimal {
        minimal_body(&mut out, s, d);
    } else {
        full_body(&mut out, s, d, detail);
    }
    out.push_str(&format!("<sub>{}</sub>\n\n", tally(s)));
    out
}

/// `N passed · N info · N skipped`, counting findings (each era's own); on a dual-era server
/// it says so and gives each era's passes, since the rows above count a check once.
fn tally(s: &ServerReport) -> String {
    let count = |st: Status, era: Option<Era>| {
        s.findings
            .iter()
            .filter(|f| f.status == st && (era.is_none() || f.era == era))
            .count()
    };
    let mut line = format!(
        "{} passed · {} info · {} skipped",
        count(Status::Pass, None),
        count(Status::Info, None),
        count(Status::Skip, None)
    );
    let both = [Era::Legacy, Era::Modern]
        .iter()
        .all(|e| s.findings.iter().any(|f| f.era == Some(*e)));
    if both {
        line.push_str(&format!(
            " — both eras counted (passed: {} legacy, {} modern, {} not tied to an era)",
            count(Status::Pass, Some(Era::Legacy)),
            count(Status::Pass, Some(Era::Modern)),
            s.findings
                .iter()
                .filter(|f| f.status == Status::Pass && f.era.is_none())
                .count()
        ));
    }
    line
}

/// The category table and one row per failing or warning check.
fn full_body(out: &mut String, s: &ServerReport, d: Option<&ServerDiff>, detail: Detail) {
    // Categories: the assessed ones with a bar, the rest named on one line.
    let assessed: Vec<(&CategoryScore, u8)> = s
        .categories
        .iter()
        .filter_map(|c| c.score.map(|n| (c, n)))
        .collect();
    if !assessed.is_empty() {
        if d.is_some() {
            out.push_str("| category | score | | Δ |\n|---|---:|---|---:|\n");
        } else {
            out.push_str("| category | score | |\n|---|---:|---|\n");
        }
        for &(c, n) in &assessed {
            out.push_str(&format!("| {} | {n} | {} |", c.phase.as_str(), bar(n)));
            if let Some(d) = d {
                let base = d
                    .categories
                    .iter()
                    .find(|x| x.phase == c.phase)
                    .and_then(|x| x.base);
                let dl = delta_text(base, c.score);
                out.push_str(&format!(" {} |", if dl == "±0" { "" } else { &dl }));
            }
            out.push('\n');
        }
        out.push('\n');
    }
    let unassessed: Vec<&str> = s
        .categories
        .iter()
        .filter(|c| !c.assessed())
        .map(|c| c.phase.as_str())
        .collect();
    if !unassessed.is_empty() {
        out.push_str(&format!(
            "Not assessed (only observations or skips): {}\n\n",
            unassessed.join(", ")
        ));
    }
    // Catalogue changes since scout.lock, as a reviewable list (security.catalog_pinning).
    out.push_str(&crate::emit::pinning::markdown_section(s));

    let rows = rows(s, d);
    if !rows.is_empty() {
        let fails = rows
            .iter()
            .filter(|r| r.counted && r.worst().status == Status::Fail)
            .count();
        let warns = rows
            .iter()
            .filter(|r| r.counted && r.worst().status == Status::Warn)
            .count();
        out.push_str(&format!(
            "**{fails} failing, {warns} warning** (one row per check; both eras of a dual-era server share a row)\n\n"
        ));
        out.push_str("| | check | era | what scout saw |\n|---|---|---|---|\n");
        let max = if detail == Detail::Full {
            MAX_ROWS
        } else {
            MAX_ROWS_COMPACT
        };
        for row in rows.iter().take(max) {
            out.push_str(&row_line(row, detail == Detail::Full));
        }
        if rows.len() > max {
            out.push_str(&format!(
                "\n… and {} more failing or warning check(s); see the full report.\n",
                rows.len() - max
            ));
        }
        out.push('\n');
    }
    if let Some(d) = d {
        fixed_section(out, d);
    }
}

/// A few lines: categories, the failing and warning check ids, what changed.
fn minimal_body(out: &mut String, s: &ServerReport, d: Option<&ServerDiff>) {
    let cats: Vec<String> = s
        .categories
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c.phase.as_str(),
                c.score.map_or("–".into(), |n| n.to_string())
            )
        })
        .collect();
    out.push_str(&format!("Categories: {}\n\n", cats.join(" · ")));
    let rows = rows(s, d);
    if !rows.is_empty() {
        let ids: Vec<String> = rows
            .iter()
            .take(10)
            .map(|r| {
                let mark = if r.new { "🆕 " } else { "" };
                format!("{mark}{}", check_label(r.worst()))
            })
            .collect();
        let more = rows.len().saturating_sub(10);
        out.push_str(&format!(
            "Failing or warning: {}{}\n\n",
            ids.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if let Some(d) = d {
        let fixed = grouped(&d.fixed).len();
        if fixed > 0 {
            out.push_str(&format!("Fixed since the base run: {fixed}\n\n"));
        }
    }
}

/// Changes grouped like the check rows: one group per check id and subject, eras merged.
pub(super) fn grouped(changes: &[Change]) -> Vec<Vec<&Change>> {
    let mut groups: BTreeMap<(&str, Option<&str>), Vec<&Change>> = BTreeMap::new();
    for c in changes {
        groups
            .entry((c.finding.id.as_str(), c.finding.subject.as_deref()))
            .or_default()
            .push(c);
    }
    let mut v: Vec<Vec<&Change>> = groups.into_values().collect();
    v.sort_by_key(|g| std::cmp::Reverse(g.iter().map(|c| rank(&c.finding)).max()));
    v
}

/// The fixed and the no-longer-checked problems of a compared server.
fn fixed_section(out: &mut String, d: &ServerDiff) {
    let fixed = grouped(&d.fixed);
    if !fixed.is_empty() {
        out.push_str(&format!(
            "**Fixed since the base run ({})**\n\n| was | check | era | now |\n|---|---|---|---|\n",
            fixed.len()
        ));
        for g in fixed.iter().take(MAX_ROWS) {
            let worst = g
                .iter()
                .map(|c| &c.finding)
                .max_by_key(|f| rank(f))
                .expect("a group has changes");
            let mut eras: Vec<&str> = g
                .iter()
                .filter_map(|c| c.finding.era.map(|e| e.as_str()))
                .collect();
            eras.dedup();
            let mut now: Vec<&str> = g
                .iter()
                .map(|c| c.head.map_or("not reported", |st| st.as_str()))
                .collect();
            now.sort_unstable();
            now.dedup();
            out.push_str(&format!(
                "| ✅ {} | {} | {} | {} |\n",
                status_label(worst),
                check_label(worst),
                eras.join(", "),
                now.join(", ")
            ));
        }
        if fixed.len() > MAX_ROWS {
            out.push_str(&format!("\n… and {} more.\n", fixed.len() - MAX_ROWS));
        }
        out.push('\n');
    }
    let unverified = grouped(&d.unverified);
    if !unverified.is_empty() {
        let ids: Vec<String> = unverified
            .iter()
            .take(MAX_ROWS)
            .map(|g| check_label(&g[0].finding))
            .collect();
        out.push_str(&format!(
            "Not re-checked in this run ({}), so not counted as fixed: {}\n\n",
            unverified.len(),
            ids.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::esc_lines;

    #[test]
    fn a_diff_keeps_its_lines_and_indent_in_a_table_cell() {
        let diff = "@@ -1 +1 @@\n-  \"v\": 1\n+  \"v\": 2 | *x*\n";
        assert_eq!(
            esc_lines(diff),
            "@@ -1 +1 @@<br>-  \"v\": 1<br>+  \"v\": 2 \\| \\*x\\*"
        );
        assert_eq!(esc_lines("  a\n  b"), "&nbsp;&nbsp;a<br>&nbsp;&nbsp;b");
        assert!(!esc_lines("a\r\nb").contains('\n'));
    }
}
