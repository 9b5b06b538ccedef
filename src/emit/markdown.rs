//! The Markdown PR summary: what `--markdown` writes, what is appended to
//! `$GITHUB_STEP_SUMMARY`, and (with a base report) what `scout report diff --markdown`
//! writes for a pull-request comment.
//!
//! Layout: the gate verdict with its reasons; one table row per server (verdict, score,
//! the delta from the base run when there is one, fails, warnings, era); then per server a
//! headline, a compact category table with small bars, and one row per failing or warning
//! check — fails first, most severe first — where a check seen on both wires of a dual-era
//! server is one row naming both eras. Details, advice, evidence and spec are folded in a
//! `<details>` element. With a base report, new problems are marked and the fixed ones are
//! listed. Passes, infos and skips are only counted (the JSON report has them all).
//!
//! Size: a PR comment may hold at most 65,536 characters. The summary stays within
//! [`MAX_BYTES`] bytes (so characters): servers whose gate failed come first, a server's
//! section that no longer fits is left out and named, and a note says where the full
//! report is. Text that came from a server is escaped, so a hostile server cannot add
//! Markdown or HTML to the page. Output is deterministic.

use std::collections::BTreeMap;
use std::io::Write;

use crate::emit::sarif::{evidence_text, rank};
use crate::report::diff::{Change, Presence, ReportDiff, ServerDiff};
use crate::report::finding::{Era, Finding, Status, Suppression};
use crate::report::model::{Report, ServerReport};

/// GitHub refuses comments over 65,536 characters; we stop 1 KiB below, leaving room for
/// the marker a sticky-comment action adds. Bytes bound characters from above.
pub const MAX_BYTES: usize = 65_536 - 1024;

/// At most this many check rows per server; the rest are counted in a note.
const MAX_ROWS: usize = 40;
/// At most this many check rows per server when the comment is running out of room.
const MAX_ROWS_COMPACT: usize = 15;
/// The names of servers left out are listed up to about this many bytes.
const NAMES_CHARS: usize = 400;
/// At most this many gate reasons are listed.
const MAX_REASONS: usize = 10;
/// Longer details are clipped in the row's summary (the whole text is folded below it).
const SUMMARY_CHARS: usize = 160;
/// Longer texts are clipped even inside the fold.
const DETAIL_CHARS: usize = 600;

/// How to render.
#[derive(Debug, Clone, Default)]
pub struct Options<'a> {
    /// The run this one is compared with (`scout report diff`): adds deltas, marks new
    /// problems and lists the fixed ones.
    pub diff: Option<&'a ReportDiff>,
    /// Where the full report is, as Markdown (see [`full_report_note`]); named in the
    /// truncation note and the footer.
    pub full_report: Option<String>,
    /// The size limit in bytes (0 = [`MAX_BYTES`]).
    pub max_bytes: usize,
}

/// "the artifacts of [this workflow run](URL)" and/or "`path`", for [`Options::full_report`].
pub fn full_report_note(run_url: Option<&str>, path: Option<&str>) -> Option<String> {
    let link = run_url
        .filter(|u| u.starts_with("https://") && !u.contains([' ', '(', ')', '<', '>']))
        .map(|u| format!("the artifacts of [this workflow run]({u})"));
    let path = path.map(|p| format!("`{}`", p.replace('`', "'")));
    match (link, path) {
        (Some(l), Some(p)) => Some(format!("{p} in {l}")),
        (l, p) => l.or(p),
    }
}

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

/// `s` cut to `max` characters with an ellipsis.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// True when no gate reason names this server (gate reasons are `"<server>: …"`).
pub(crate) fn server_passed(report: &Report, server: &ServerReport) -> bool {
    let prefix = format!("{}: ", server.name);
    !report.gate.reasons.iter().any(|r| r.starts_with(&prefix))
}

/// `67`, or "not assessed" — never a number for a server without a score.
fn score_text(score: Option<u8>) -> String {
    score
        .map(|n| n.to_string())
        .unwrap_or_else(|| "not assessed".into())
}

/// `▲ 5` / `▼ 12` / `±0`, or empty when either side has no score.
pub(crate) fn delta_text(base: Option<u8>, head: Option<u8>) -> String {
    match (base, head) {
        (Some(b), Some(h)) if h > b => format!("▲ {}", h - b),
        (Some(b), Some(h)) if h < b => format!("▼ {}", b - h),
        (Some(_), Some(_)) => "±0".into(),
        _ => String::new(),
    }
}

/// A ten-cell bar for a category score.
fn bar(score: u8) -> String {
    let full = (usize::from(score.min(100)) + 5) / 10;
    format!("`{}{}`", "█".repeat(full), "░".repeat(10 - full))
}

/// One table row: the failing or warning findings of one check id and subject.
struct Row<'a> {
    findings: Vec<&'a Finding>,
    counted: bool,
    new: bool,
}

impl Row<'_> {
    fn worst(&self) -> &Finding {
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
fn rows<'a>(s: &'a ServerReport, diff: Option<&ServerDiff>) -> Vec<Row<'a>> {
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

fn check_label(f: &Finding) -> String {
    let mut s = format!("`{}`", f.id);
    if let Some(subject) = &f.subject {
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
        let full = esc(&clip(&f.detail, DETAIL_CHARS));
        let evidence =
            (!f.evidence.is_empty()).then(|| format!("evidence {}", evidence_text(&f.evidence)));
        let mut line = match (several, f.era) {
            (true, Some(e)) => format!("**{}** ({}): {full}", e.as_str(), f.status.as_str()),
            (true, None) => format!("**{}**: {full}", f.status.as_str()),
            // One finding whose detail is the summary already: only its evidence.
            (false, _) if full == summary => String::new(),
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
enum Detail {
    Full,
    Compact,
    Minimal,
}

fn server_section(
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
    let count = |st: Status| s.findings.iter().filter(|f| f.status == st).count();
    out.push_str(&format!(
        "<sub>{} passed · {} info · {} skipped</sub>\n\n",
        count(Status::Pass),
        count(Status::Info),
        count(Status::Skip)
    ));
    out
}

/// The category table and one row per failing or warning check.
fn full_body(out: &mut String, s: &ServerReport, d: Option<&ServerDiff>, detail: Detail) {
    // Categories: the assessed ones with a bar, the rest named on one line.
    let assessed: Vec<(&crate::report::CategoryScore, u8)> = s
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
fn grouped(changes: &[Change]) -> Vec<Vec<&Change>> {
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

/// The servers, those whose gate failed first, then by name.
fn ordered(report: &Report) -> Vec<&ServerReport> {
    let mut v: Vec<&ServerReport> = report.servers.iter().collect();
    v.sort_by(|a, b| {
        server_passed(report, a)
            .cmp(&server_passed(report, b))
            .then_with(|| a.name.cmp(&b.name))
    });
    v
}

fn overview_row(report: &Report, s: &ServerReport, d: Option<&ServerDiff>) -> String {
    let verdict = if server_passed(report, s) {
        "✅"
    } else {
        "❌"
    };
    // Counted like the check rows: one per check id and subject, both eras together.
    let rows = rows(s, None);
    let counted = |st: Status| {
        rows.iter()
            .filter(|r| r.counted && r.worst().status == st)
            .count()
    };
    let mut line = format!(
        "| {verdict} | {} | {} |",
        esc(&clip(&s.name, 100)),
        score_text(s.score)
    );
    if let Some(d) = d {
        let delta = match d.presence {
            Presence::Added => "new".to_string(),
            _ => delta_text(d.base_score, d.head_score),
        };
        line.push_str(&format!(
            " {delta} | {} | {} |",
            grouped(&d.new).len(),
            grouped(&d.fixed).len()
        ));
    }
    line.push_str(&format!(
        " {} | {} | {} |\n",
        counted(Status::Fail),
        counted(Status::Warn),
        s.era.as_str()
    ));
    line
}

/// Renders the summary with the default options (no base run, [`MAX_BYTES`]).
pub fn render(report: &Report) -> String {
    render_with(report, &Options::default())
}

/// Renders the summary within `opts.max_bytes`.
pub fn render_with(report: &Report, opts: &Options) -> String {
    let max = if opts.max_bytes == 0 {
        MAX_BYTES
    } else {
        opts.max_bytes
    };
    let diff_of = |s: &ServerReport| opts.diff.and_then(|d| d.server(&s.name));

    let mut head = String::from("# scout report\n\n");
    if let Some(d) = opts.diff {
        head.push_str(&format!(
            "Compared with the base run `{}`.\n\n",
            esc(&clip(&d.base_run_id, 100))
        ));
    }
    if report.gate.passed {
        head.push_str("**Gate: ✅ passed**\n\n");
    } else {
        head.push_str("**Gate: ❌ failed**\n\n");
        for r in report.gate.reasons.iter().take(MAX_REASONS) {
            head.push_str(&format!("- {}\n", esc(&clip(r, 500))));
        }
        if report.gate.reasons.len() > MAX_REASONS {
            head.push_str(&format!(
                "- … and {} more reason(s)\n",
                report.gate.reasons.len() - MAX_REASONS
            ));
        }
        head.push('\n');
    }

    let footer = format!(
        "<sub>scout {} · run {}{}</sub>\n",
        esc(&report.scout_version),
        esc(&clip(&report.run_id, 200)),
        opts.full_report
            .as_ref()
            .map(|w| format!(" · full report: {w}"))
            .unwrap_or_default()
    );
    // The truncation note: fixed text, at most NAMES_CHARS of names, the full report.
    let note_room = 400 + NAMES_CHARS + opts.full_report.as_ref().map_or(0, String::len);
    let budget = max.saturating_sub(footer.len() + note_room);

    // One row per server; the table itself is capped for very large fleets.
    let servers = ordered(report);
    let mut table = if opts.diff.is_some() {
        String::from(
            "| | server | score | Δ | new | fixed | fails | warnings | era |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n",
        )
    } else {
        String::from(
            "| | server | score | fails | warnings | era |\n|---|---|---:|---:|---:|---|\n",
        )
    };
    let mut listed = 0;
    for s in &servers {
        let row = overview_row(report, s, diff_of(s));
        if head.len() + table.len() + row.len() > budget / 2 {
            break;
        }
        table.push_str(&row);
        listed += 1;
    }
    if listed < servers.len() {
        table.push_str(&format!(
            "\n{} more server(s) not listed.\n",
            servers.len() - listed
        ));
    }
    table.push('\n');
    let mut out = head;
    if !servers.is_empty() {
        out.push_str(&table);
    } else {
        out.push_str("No servers were checked.\n\n");
    }
    if let Some(d) = opts.diff {
        let removed: Vec<String> = d
            .servers
            .iter()
            .filter(|s| s.presence == Presence::Removed)
            .map(|s| esc(&s.name))
            .collect();
        if !removed.is_empty() {
            out.push_str(&format!(
                "Not in this run (only in the base run): {}\n\n",
                removed.join(", ")
            ));
        }
    }

    // Per-server sections while they fit; the rest are named in a note.
    // Each server as fully as still fits — a server with others after it gets at most half
    // the room left for its rows, so one long server cannot crowd out the rest — and once
    // not even a few lines fit, the remaining servers are named instead.
    let mut omitted: Vec<&str> = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        let left = budget.saturating_sub(out.len());
        let share = if i + 1 < servers.len() {
            left / 2
        } else {
            left
        };
        let fitting = [Detail::Full, Detail::Compact, Detail::Minimal]
            .into_iter()
            .map(|detail| (detail, server_section(report, s, diff_of(s), detail)))
            .find(|(detail, section)| {
                section.len()
                    <= if *detail == Detail::Minimal {
                        left
                    } else {
                        share
                    }
            })
            .map(|(_, section)| section);
        match fitting {
            Some(section) if omitted.is_empty() => out.push_str(&section),
            _ => omitted.push(&s.name),
        }
    }
    if !omitted.is_empty() {
        let mut names: Vec<String> = Vec::new();
        for n in &omitted {
            let n = esc(&clip(n, 60));
            if names.iter().map(|x| x.len() + 2).sum::<usize>() + n.len() > NAMES_CHARS {
                break;
            }
            names.push(n);
        }
        let more = if omitted.len() > names.len() {
            format!(" and {} more", omitted.len() - names.len())
        } else {
            String::new()
        };
        out.push_str(&format!(
            "> **Truncated:** the details of {} server(s) ({}{more}) did not fit GitHub's 65,536-character comment limit; see the full report{}.\n\n",
            omitted.len(),
            names.join(", "),
            opts.full_report
                .as_ref()
                .map(|w| format!(": {w}"))
                .unwrap_or_else(|| " (the JSON, SARIF and JUnit reports have everything)".into())
        ));
    }
    out.push_str(&footer);
    truncate(out, max)
}

/// The last guard: cut at a line boundary to at most `max_bytes`, with a note.
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
    kept.push_str(&format!(
        "\n> **Truncated:** {} more bytes did not fit the comment limit; the JSON, SARIF and JUnit reports have everything.\n",
        out.len() - keep_to
    ));
    kept
}

/// Appends the summary to the file named by `$GITHUB_STEP_SUMMARY`, when that is set.
/// Returns whether it wrote anything.
pub fn append_step_summary(report: &Report, opts: &Options) -> std::io::Result<bool> {
    match std::env::var_os("GITHUB_STEP_SUMMARY") {
        Some(path) if !path.is_empty() => {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?;
            file.write_all(render_with(report, opts).as_bytes())?;
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
    fn truncation_is_a_last_resort_with_a_note() {
        let text = format!("a\n{}", "line\n".repeat(1000));
        let cut = truncate(text, 1024);
        assert!(cut.len() <= 1024, "{}", cut.len());
        assert!(cut.contains("Truncated"));
    }

    #[test]
    fn deltas_and_bars() {
        assert_eq!(delta_text(Some(80), Some(85)), "▲ 5");
        assert_eq!(delta_text(Some(85), Some(80)), "▼ 5");
        assert_eq!(delta_text(Some(80), Some(80)), "±0");
        assert_eq!(delta_text(None, Some(80)), "");
        assert_eq!(delta_text(Some(80), None), "");
        assert_eq!(bar(100), "`██████████`");
        assert_eq!(bar(0), "`░░░░░░░░░░`");
        assert_eq!(bar(67), "`███████░░░`");
    }

    #[test]
    fn full_report_notes_only_link_https() {
        assert_eq!(
            full_report_note(Some("https://github.com/o/r/actions/runs/1"), Some("out/scout.json")),
            Some("`out/scout.json` in the artifacts of [this workflow run](https://github.com/o/r/actions/runs/1)".into())
        );
        assert_eq!(full_report_note(Some("javascript:alert(1)"), None), None);
        assert_eq!(full_report_note(None, Some("a`b")), Some("`a'b`".into()));
    }
}
