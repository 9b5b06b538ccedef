//! The Markdown summary's "catalogue changes" section: every `security.catalog_pinning`
//! failure of a server as one line of a `diff` block, so the reviewer of a pull request sees
//! what an agent would now read differently before anyone runs `scout pin --update`.

use crate::report::finding::{Finding, Severity, Status};
use crate::report::gate::PINNING_CHECK;
use crate::report::model::ServerReport;

/// One line of server text, safe inside a code block: no line breaks, no control characters.
fn flat(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect()
}

/// The section for `server`, or an empty string when its catalogue matched the lock.
pub fn markdown_section(server: &ServerReport) -> String {
    let mut changes: Vec<&Finding> = server
        .findings
        .iter()
        .filter(|f| f.id == PINNING_CHECK && f.status == Status::Fail)
        .collect();
    if changes.is_empty() {
        return String::new();
    }
    changes.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.subject.cmp(&b.subject)));
    let lines: Vec<String> = changes
        .iter()
        .map(|f| {
            let mark = match f.severity {
                Some(Severity::Critical) => '!',
                _ if f.detail.contains(": added: ") => '+',
                _ if f.detail.contains(": removed: ") => '-',
                _ => '~',
            };
            let sev = f.severity.map(Severity::as_str).unwrap_or("fail");
            let note = if f.suppressed.is_some() {
                " (not counted)"
            } else {
                ""
            };
            format!("{mark} [{sev}]{note} {}", flat(&f.detail))
        })
        .collect();
    // A fence longer than any run of backticks in the text, so a server cannot close it.
    let longest = lines
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let mut out = format!(
        "### Catalogue changes since scout.lock ({})\n\nWhat an agent reads from this server changed. Review each line; accept intended changes with `scout pin --update` and commit the new scout.lock.\n\n{fence}diff\n",
        changes.len()
    );
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(&format!("{fence}\n\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Phase;
    use crate::report::model::{EraKind, TransportKind};

    fn finding(detail: &str, severity: Severity) -> Finding {
        Finding {
            id: PINNING_CHECK.into(),
            phase: Phase::Security,
            title: "t".into(),
            status: Status::Fail,
            severity: Some(severity),
            detail: detail.into(),
            advice: String::new(),
            spec: None,
            subject: Some(detail.into()),
            era: None,
            revision: None,
            evidence: vec![1],
            skip_reason: None,
            suppressed: None,
        }
    }

    fn server(findings: Vec<Finding>) -> ServerReport {
        ServerReport {
            name: "s".into(),
            transport: TransportKind::Stdio,
            target: "x".into(),
            era: EraKind::Legacy,
            protocol_versions: vec![],
            server_info: None,
            score: None,
            categories: vec![],
            findings,
            notes: Default::default(),
            internal_errors: vec![],
            exchanges: vec![],
            blocked: None,
            interrupted: false,
            anchor: None,
            duration_ms: 1,
            exchange_count: None,
        }
    }

    #[test]
    fn lists_changes_most_severe_first_in_a_fence_the_server_cannot_close() {
        let s = server(vec![
            finding(
                "tool a: description changed: x{+ ```\n# injected+}",
                Severity::Major,
            ),
            finding(
                "tool b: annotation flipped: readOnlyHint true → false",
                Severity::Critical,
            ),
        ]);
        let md = markdown_section(&s);
        assert!(
            md.starts_with("### Catalogue changes since scout.lock (2)"),
            "{md}"
        );
        assert!(md.contains("````diff\n! [critical] tool b"), "{md}");
        assert!(
            md.contains("~ [major] tool a: description changed: x{+ ``` # injected+}"),
            "{md}"
        );
        assert!(md.ends_with("````\n\n"), "{md}");
        assert_eq!(markdown_section(&server(vec![])), "");
    }
}
