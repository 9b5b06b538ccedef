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

mod section;

use std::io::Write;

use crate::report::diff::{Presence, ReportDiff, ServerDiff};
use crate::report::finding::Status;
use crate::report::model::{Report, ServerReport};
use section::{Detail, grouped, rows, server_section};

/// GitHub refuses comments over 65,536 characters; we stop 1 KiB below, leaving room for
/// the marker a sticky-comment action adds. Bytes bound characters from above.
pub const MAX_BYTES: usize = 65_536 - 1024;

/// At most this many check rows per server; the rest are counted in a note.
pub(crate) const MAX_ROWS: usize = 40;
/// At most this many check rows per server when the comment is running out of room.
pub(crate) const MAX_ROWS_COMPACT: usize = 15;
/// The names of servers left out are listed up to about this many bytes.
const NAMES_CHARS: usize = 400;
/// At most this many gate reasons are listed.
const MAX_REASONS: usize = 10;
/// Longer details are clipped in the row's summary (the whole text is folded below it).
pub(crate) const SUMMARY_CHARS: usize = 160;
/// Longer texts are clipped even inside the fold.
pub(crate) const DETAIL_CHARS: usize = 600;

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
    /// Add the official conformance scenarios of every server (`--conformance-summary`),
    /// after the servers' sections while it fits.
    pub conformance: bool,
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
/// `s` with its first letter in upper case.
fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

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

/// `s` cut to at most `max` characters with an ellipsis, at the end of a word: a summary
/// cut mid-token ("req#1", "-3260…") reads as a different value. Only a text with no space in
/// the last half of the budget (one long token) is cut inside it.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max.saturating_sub(1)).collect();
    let next = s.chars().nth(head.chars().count());
    let cut = if next.is_some_and(char::is_whitespace) {
        head.as_str()
    } else {
        match head.rfind(char::is_whitespace) {
            Some(at) if head[..at].chars().count() >= max / 2 => &head[..at],
            _ => head.as_str(),
        }
    };
    let mut out = cut
        .trim_end_matches(|c: char| c.is_whitespace() || ",;:".contains(c))
        .to_string();
    out.push('…');
    out
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

/// The top of a diff's Markdown: its title, what was compared with what, a loud warning
/// when no server paired, and the gate `--fail-on-new` applies (or that none does).
fn diff_head(d: &ReportDiff) -> String {
    let mut out = String::from("# scout report diff\n\n");
    out.push_str(&format!(
        "Base **{}** → head **{}**.\n\n",
        esc(&clip(&d.base_label, 100)),
        esc(&clip(&d.head_label, 100))
    ));
    if d.unpaired() {
        out.push_str("> **⚠️ No server of the head run was paired with one of the base run** (by name, then by target): nothing was compared, and no finding counts as new. Give each server the same `name` in both runs.\n\n");
    }
    let new = d.new_fails().len();
    if !d.fail_on_new {
        out.push_str("**Diff gate: none**: `--fail-on-new` was not given, so new failures do not fail this job.\n\n");
    } else if new == 0 {
        out.push_str("**Diff gate (`--fail-on-new`): ✅ passed**: no new failing check on a server of both runs.\n\n");
    } else {
        out.push_str(&format!(
            "**Diff gate (`--fail-on-new`): ❌ failed**: {new} new failing check(s) on servers of both runs.\n\n"
        ));
    }
    out
}

/// The run's gate under `title`: the verdict, the reasons it failed, the thresholds.
fn gate_block(report: &Report, title: &str) -> String {
    let mut out = String::new();
    if report.gate.passed {
        out.push_str(&format!("**{title}: ✅ passed**\n\n"));
    } else {
        out.push_str(&format!("**{title}: ❌ failed**\n\n"));
        for r in report.gate.reasons.iter().take(MAX_REASONS) {
            out.push_str(&format!("- {}\n", esc(&clip(r, 500))));
        }
        if report.gate.reasons.len() > MAX_REASONS {
            out.push_str(&format!(
                "- … and {} more reason(s)\n",
                report.gate.reasons.len() - MAX_REASONS
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{}.\n\n",
        esc(&capitalised(&report.gate.thresholds_line()))
    ));
    out
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

    let mut head = match opts.diff {
        Some(d) => diff_head(d),
        None => String::from("# scout report\n\n"),
    };
    let title = if opts.diff.is_some() {
        "The head run's own gate"
    } else {
        "Gate"
    };
    head.push_str(&gate_block(report, title));

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
    if opts.conformance {
        let section = crate::emit::conformance::render_markdown(report, esc);
        if out.len() + section.len() <= budget {
            out.push_str(&section);
        } else {
            out.push_str("> **Left out:** the official conformance scenarios did not fit GitHub's 65,536-character comment limit; `scout check --conformance-summary` prints them.\n\n");
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
    #[test]
    fn clip_cuts_at_the_end_of_a_word() {
        let text = "the server answered -32601 on req#12 and then req#13";
        let cut = super::clip(text, 30);
        assert_eq!(cut, "the server answered -32601 on…");
        assert!(cut.chars().count() <= 30);
        for max in 20..text.len() {
            let cut = super::clip(text, max);
            let kept = cut.trim_end_matches('…');
            assert!(text.starts_with(kept), "{cut}");
            let rest = &text[kept.len()..];
            assert!(rest.starts_with(' '), "cut mid-word at {max}: {cut:?}");
        }
        assert_eq!(super::clip("short", 30), "short");
        let token = "x".repeat(50);
        assert_eq!(
            super::clip(&token, 10).chars().count(),
            10,
            "one long token is cut"
        );
    }

    use super::section::bar;
    use super::*;

    #[test]
    fn an_empty_subject_is_shown_quoted() {
        let f = |subject: &str| {
            crate::probe::catalog::TOOL_NAMES
                .warn("a tool name is empty")
                .subject(subject)
                .evidence([1])
                .build(|_| true)
                .expect("a valid finding")
        };
        assert_eq!(
            super::section::check_label(&f("")),
            "`catalog.tool_names` (\"\")"
        );
        assert_eq!(
            super::section::check_label(&f("echo")),
            "`catalog.tool_names` (echo)"
        );
    }

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
        assert_eq!(bar(67), "`██████▌░░░`");
        // Every 5 points show.
        assert_eq!(bar(95), "`█████████▌`");
        assert_ne!(bar(95), bar(100));
        assert_ne!(bar(85), bar(90));
        let all: std::collections::BTreeSet<String> = (0..=20).map(|i| bar(i * 5)).collect();
        assert_eq!(all.len(), 21);
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
