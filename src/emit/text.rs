//! The terminal report: a pure function of a finished [`Report`]. Per server a headline
//! (name, target, era, versions, score, verdict), the score of each category with its failing
//! and warning checks (fails first, with advice and evidence), counts of the rest, and a final
//! gate line. Colour is decided by the caller ([`TextStyle`]); nothing here looks at the
//! terminal or the environment.

use std::io::Write;

use crate::report::exchange::Seq;
use crate::report::finding::{Finding, Phase, Status, Suppression};
use crate::report::model::{Report, ServerReport};

/// How to render.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextStyle {
    /// ANSI colours (only on a TTY and without `NO_COLOR`; the caller decides).
    pub color: bool,
    /// Wrap lines at word boundaries to this many columns (the terminal's width; `None`:
    /// do not wrap, as in a pipe or a file, where the reader's tool decides).
    pub width: Option<usize>,
}

/// ANSI styles used, by meaning rather than by colour.
#[derive(Clone, Copy)]
enum Paint {
    Bad,
    Warn,
    Good,
    Dim,
    Bold,
}

impl TextStyle {
    fn paint(&self, p: Paint, text: &str) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match p {
            Paint::Bad => "1;31",
            Paint::Warn => "33",
            Paint::Good => "32",
            Paint::Dim => "2",
            Paint::Bold => "1",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// Renders the whole report.
pub fn render(report: &Report, style: TextStyle) -> String {
    let mut out = String::new();
    for server in &report.servers {
        render_server(&mut out, report, server, style);
        out.push('\n');
    }
    if report.servers.is_empty() {
        out.push_str("no servers were checked\n\n");
    }
    let cited = report
        .servers
        .iter()
        .flat_map(|s| &s.findings)
        .any(|f| matches!(f.status, Status::Fail | Status::Warn) && !f.evidence.is_empty());
    if cited {
        out.push_str(&format!(
            "{}\n",
            style.paint(
                Paint::Dim,
                "evidence req#N: the exchange is in the HAR and JSON reports (--out-dir DIR) and on the page of `scout serve`"
            )
        ));
    }
    out.push_str(&format!("{}\n", report.gate.thresholds_line()));
    if report.gate.passed {
        out.push_str(&format!("gate: {}\n", style.paint(Paint::Good, "passed")));
    } else {
        out.push_str(&format!("gate: {}\n", style.paint(Paint::Bad, "FAILED")));
        for r in &report.gate.reasons {
            out.push_str(&format!("  - {r}\n"));
        }
    }
    out
}

/// `text` with every line longer than `width` columns wrapped at word boundaries, each
/// continuation indented two columns deeper than its line. A word longer than the width is
/// never split (a URL stays one URL); colour codes take no room.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if textwrap::core::display_width(body) <= width {
            out.push_str(line);
            continue;
        }
        let words = body.trim_start_matches(' ');
        let indent = &body[..body.len() - words.len()];
        let hanging = format!("{indent}  ");
        let options = textwrap::Options::new(width)
            .initial_indent(indent)
            .subsequent_indent(&hanging)
            .break_words(false)
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        let wrapped = textwrap::wrap(words, options);
        out.push_str(&wrapped.join("\n"));
        out.push_str(newline);
    }
    out
}

/// Writes the rendered report to stdout (wrapped to `style.width`); a closed pipe
/// (`scout check | head`) is not an error.
pub fn print(report: &Report, style: TextStyle) -> std::io::Result<()> {
    let text = render(report, style);
    let text = match style.width {
        Some(w) => wrap(&text, w),
        None => text,
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

fn render_server(out: &mut String, report: &Report, s: &ServerReport, style: TextStyle) {
    let prefix = format!("{}: ", s.name);
    let server_failed = report.gate.reasons.iter().any(|r| r.starts_with(&prefix));
    let verdict = if server_failed {
        style.paint(Paint::Bad, "FAILED")
    } else {
        style.paint(Paint::Good, "passed")
    };
    // No score is "not assessed", never a number: a blocked run must not read as green.
    let score = s
        .score
        .map(|n| n.to_string())
        .unwrap_or_else(|| "not assessed".into());
    out.push_str(&format!(
        "{}  {}\n",
        style.paint(Paint::Bold, &s.name),
        s.target
    ));
    let versions = if s.protocol_versions.is_empty() {
        "none".to_string()
    } else {
        s.protocol_versions.join(", ")
    };
    out.push_str(&format!(
        "  {} · era {} · versions {versions} · {} exchanges in {} ms · score {score} · {verdict}\n",
        s.transport.as_str(),
        s.era.as_str(),
        s.exchange_total(),
        s.duration_ms,
    ));
    if let Some(why) = &s.blocked {
        out.push_str(&format!(
            "  {} {why}\n",
            style.paint(Paint::Bad, "blocked:")
        ));
    }
    if s.interrupted {
        out.push_str(&format!(
            "  {}\n",
            style.paint(
                Paint::Warn,
                "interrupted: the run stopped before every phase finished"
            )
        ));
    }
    for e in &s.internal_errors {
        out.push_str(&format!(
            "  {} {e}\n",
            style.paint(Paint::Bad, "internal error:")
        ));
    }
    for phase in Phase::ALL {
        let Some(cat) = s.categories.iter().find(|c| c.phase == phase) else {
            continue;
        };
        let mine: Vec<&Finding> = s.findings.iter().filter(|f| f.phase == phase).collect();
        let score = match cat.score {
            Some(n) => {
                let paint = match n {
                    90..=100 => Paint::Good,
                    60..=89 => Paint::Warn,
                    _ => Paint::Bad,
                };
                style.paint(paint, &format!("{n:>3}"))
            }
            None => style.paint(Paint::Dim, "  -"),
        };
        let tally = tally(&mine, cat.assessed());
        out.push_str(&format!(
            "  {:<13}{score}  {}\n",
            phase.as_str(),
            style.paint(Paint::Dim, &tally)
        ));
        let mut shown: Vec<&&Finding> = mine
            .iter()
            .filter(|f| matches!(f.status, Status::Fail | Status::Warn))
            .collect();
        // Counted before ignored, fails before warns, the worst fails first; report order
        // otherwise (the sort is stable).
        shown.sort_by_key(|f| {
            (
                f.suppressed.is_some(),
                f.status != Status::Fail,
                std::cmp::Reverse(f.severity),
            )
        });
        for f in shown {
            render_finding(out, f, style);
        }
    }
}

/// `1 passed, 2 skipped (blocked), 1 ignored`: the counts that are not zero.
fn tally(mine: &[&Finding], assessed: bool) -> String {
    let count = |st: Status| {
        mine.iter()
            .filter(|f| f.status == st && f.suppressed.is_none())
            .count()
    };
    let mut parts = Vec::new();
    if !assessed {
        parts.push("not assessed".to_string());
    }
    for (st, word) in [
        (Status::Fail, "failed"),
        (Status::Warn, "warned"),
        (Status::Pass, "passed"),
        (Status::Info, "info"),
    ] {
        let n = count(st);
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    let skips: Vec<&&Finding> = mine
        .iter()
        .filter(|f| f.status == Status::Skip && f.suppressed.is_none())
        .collect();
    if !skips.is_empty() {
        let mut reasons: Vec<&str> = skips
            .iter()
            .filter_map(|f| f.skip_reason.map(|r| r.as_str()))
            .collect();
        reasons.sort_unstable();
        reasons.dedup();
        parts.push(format!("{} skipped ({})", skips.len(), reasons.join(", ")));
    }
    let ignored = mine.iter().filter(|f| f.suppressed.is_some()).count();
    if ignored > 0 {
        parts.push(format!("{ignored} ignored"));
    }
    parts.join(", ")
}

fn render_finding(out: &mut String, f: &Finding, style: TextStyle) {
    let label = match (f.status, f.severity) {
        _ if f.suppressed.is_some() => style.paint(Paint::Dim, "IGNORED"),
        (Status::Fail, Some(sev)) => style.paint(Paint::Bad, &format!("FAIL {}", sev.as_str())),
        (Status::Fail, None) => style.paint(Paint::Bad, "FAIL"),
        _ => style.paint(Paint::Warn, "WARN"),
    };
    let subject = f
        .subject_shown()
        .map(|s| format!(" [{s}]"))
        .unwrap_or_default();
    let era = crate::emit::common::era_label(f)
        .map(|e| format!(" ({e})"))
        .unwrap_or_default();
    out.push_str(&format!(
        "    {label}  {}{subject}{era}: {}\n",
        f.id, f.title
    ));
    if let Some(Suppression::Ignored { reason } | Suppression::Baselined { reason }) = &f.suppressed
    {
        out.push_str(&format!(
            "      {}\n",
            style.paint(Paint::Dim, &format!("not counted: {reason}"))
        ));
    }
    if !f.detail.is_empty() {
        out.push_str(&format!("      {}\n", f.detail));
    }
    if !f.advice.is_empty() {
        out.push_str(&format!("      → {}\n", f.advice));
    }
    if !f.evidence.is_empty() {
        out.push_str(&format!(
            "      {}\n",
            style.paint(Paint::Dim, &format!("evidence {}", evidence(&f.evidence)))
        ));
    }
}

/// `req#12,13` for two numbers, `req#12-14` for runs of three or more, mixed as needed.
pub fn evidence(seqs: &[Seq]) -> String {
    let mut sorted = seqs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        match end - start {
            0 => parts.push(start.to_string()),
            1 => parts.push(format!("{start},{end}")),
            _ => parts.push(format!("{start}-{end}")),
        }
        i += 1;
    }
    format!("req#{}", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::{Era, Severity, SkipReason};
    use crate::report::gate::GateResult;
    use crate::report::model::{Anchor, EraKind, TransportKind};
    use crate::report::score;

    #[test]
    fn evidence_ranges() {
        assert_eq!(evidence(&[12]), "req#12");
        assert_eq!(evidence(&[12, 13]), "req#12,13");
        assert_eq!(evidence(&[14, 12, 13]), "req#12-14");
        assert_eq!(evidence(&[1, 2, 3, 7, 9, 10]), "req#1-3,7,9,10");
    }

    fn finding(
        id: &str,
        phase: Phase,
        status: Status,
        severity: Option<Severity>,
        evidence: Vec<Seq>,
    ) -> Finding {
        Finding {
            id: id.into(),
            phase,
            title: format!("title of {id}"),
            status,
            severity,
            detail: format!("detail of {id}"),
            advice: format!("advice for {id}"),
            spec: Some("https://modelcontextprotocol.io/specification/2025-11-25/basic".into()),
            subject: None,
            era: None,
            revision: None,
            evidence,
            skip_reason: (status == Status::Skip).then_some(SkipReason::NotApplicable),
            suppressed: None,
        }
    }

    /// A report with a pass, info, warn, fail, skip and an ignored fail, two servers, one
    /// blocked.
    fn sample() -> Report {
        let mut warn = finding(
            "protocol.content_type",
            Phase::Protocol,
            Status::Warn,
            None,
            vec![7],
        );
        warn.subject = Some("tools/list".into());
        warn.era = Some(Era::Legacy);
        let mut ignored = finding(
            "protocol.batch",
            Phase::Protocol,
            Status::Fail,
            Some(Severity::Minor),
            vec![9],
        );
        ignored.suppressed = Some(Suppression::Ignored {
            reason: "batching is off by design".into(),
        });
        let findings = vec![
            finding(
                "discovery.reachable",
                Phase::Discovery,
                Status::Pass,
                None,
                vec![1],
            ),
            finding(
                "handshake.server_info",
                Phase::Handshake,
                Status::Info,
                None,
                vec![2],
            ),
            finding(
                "protocol.parse_error",
                Phase::Protocol,
                Status::Pass,
                None,
                vec![3],
            ),
            warn,
            finding(
                "protocol.unknown_method",
                Phase::Protocol,
                Status::Fail,
                Some(Severity::Major),
                vec![12, 13, 14],
            ),
            ignored,
            finding(
                "catalog.prompts",
                Phase::Catalog,
                Status::Skip,
                None,
                vec![],
            ),
        ];
        let mut good = ServerReport {
            name: "everything".into(),
            transport: TransportKind::Http,
            target: "http://127.0.0.1:3001/mcp".into(),
            era: EraKind::Legacy,
            protocol_versions: vec!["2025-11-25".into()],
            server_info: None,
            score: None,
            categories: vec![],
            findings,
            exchanges: vec![],
            blocked: None,
            interrupted: false,
            anchor: Some(Anchor {
                path: "scout.toml".into(),
                line: 4,
            }),
            duration_ms: 812,
            exchange_count: None,
            notes: Default::default(),
            internal_errors: vec![],
        };
        score::rescore(&mut good);
        let down_findings = vec![
            finding(
                "discovery.reachable",
                Phase::Discovery,
                Status::Fail,
                Some(Severity::Critical),
                vec![1],
            ),
            {
                let mut s = finding(
                    "handshake.initialize",
                    Phase::Handshake,
                    Status::Skip,
                    None,
                    vec![],
                );
                s.skip_reason = Some(SkipReason::Blocked);
                s
            },
        ];
        let mut down = ServerReport {
            name: "down".into(),
            transport: TransportKind::Http,
            target: "http://127.0.0.1:9/mcp".into(),
            era: EraKind::Unknown,
            protocol_versions: vec![],
            server_info: None,
            score: None,
            categories: vec![],
            findings: down_findings,
            exchanges: vec![],
            blocked: Some("connection refused".into()),
            interrupted: false,
            anchor: None,
            duration_ms: 3,
            exchange_count: None,
            notes: Default::default(),
            internal_errors: vec![],
        };
        score::rescore(&mut down);
        Report {
            run_id: "00000000-0000-4000-8000-000000000000".into(),
            scout_version: "0.1.0".into(),
            started_at: time::macros::datetime!(2026-01-01 00:00 UTC),
            duration_ms: 815,
            servers: vec![down, good],
            gate: GateResult {
                passed: false,
                reasons: vec![
                    "down: run blocked: connection refused".into(),
                    "everything: score 78 < 90".into(),
                ],
                thresholds: vec!["score >= 90".into()],
            },
        }
    }

    #[test]
    fn snapshot_without_colour() {
        insta::assert_snapshot!(render(
            &sample(),
            TextStyle {
                color: false,
                width: None
            }
        ));
    }

    #[test]
    fn colour_only_when_asked() {
        let plain = render(
            &sample(),
            TextStyle {
                color: false,
                width: None,
            },
        );
        assert!(!plain.contains('\x1b'));
        let coloured = render(
            &sample(),
            TextStyle {
                color: true,
                width: None,
            },
        );
        assert!(coloured.contains("\x1b[1;31mFAILED\x1b[0m"));
    }

    #[test]
    fn long_lines_wrap_at_words_with_a_hanging_indent_and_long_words_stay_whole() {
        let url = format!("https://example.com/{}", "a".repeat(40));
        let text = format!("short\n    FAIL major  one two three four five six seven {url} end\n");
        let wrapped = wrap(&text, 30);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert_eq!(lines[0], "short");
        assert!(lines[1].starts_with("    FAIL major"), "{wrapped}");
        assert!(
            lines[2..].iter().all(|l| l.starts_with("      ")),
            "continuations are indented two deeper: {wrapped}"
        );
        assert!(
            lines.iter().any(|l| l.trim() == url),
            "the URL is whole: {wrapped}"
        );
        assert!(
            lines
                .iter()
                .all(|l| l.chars().count() <= 30 || l.trim() == url),
            "{wrapped}"
        );
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(words(&wrapped), words(&text));
        assert!(wrapped.ends_with('\n'));
        // Colour codes take no room.
        let red = "\x1b[1;31mFAILED\x1b[0m";
        assert_eq!(
            wrap(&format!("gate: {red}\n"), 12),
            format!("gate: {red}\n")
        );
    }

    #[test]
    fn passing_gate_line() {
        let mut r = sample();
        r.servers.retain(|s| s.name == "everything");
        r.gate = GateResult {
            passed: true,
            reasons: vec![],
            thresholds: Vec::new(),
        };
        let text = render(&r, TextStyle::default());
        assert!(text.ends_with("gate: passed\n"), "{text}");
        assert!(text.contains("score 78 · passed"), "{text}");
    }

    #[test]
    fn no_score_reads_not_assessed_and_internal_errors_are_shown() {
        let mut r = sample();
        let text = render(&r, TextStyle::default());
        // `down` is blocked: its reachable check ran, but the run has no score.
        assert!(
            text.contains("score not assessed · FAILED"),
            "a blocked server never shows a number: {text}"
        );
        // handshake has only an info: an observation assesses nothing.
        assert!(
            text.contains("  handshake      -  not assessed, 1 info"),
            "{text}"
        );
        r.servers[1]
            .internal_errors
            .push("protocol.batch could not be recorded as fail: no evidence".into());
        let text = render(&r, TextStyle::default());
        assert!(
            text.contains(
                "  internal error: protocol.batch could not be recorded as fail: no evidence\n"
            ),
            "{text}"
        );
    }
}
