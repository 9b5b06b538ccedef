//! GitHub Actions: workflow-command annotations and step outputs.
//!
//! [`annotations`] gives one `::error` per counted fail and one `::warning` per counted
//! warn, most severe first, at most [`MAX_PER_LEVEL`] of each (GitHub shows only 10 per
//! level and step anyway), each at the server's anchor (the same file/line SARIF uses),
//! then one `::notice` summary; a server's internal errors come first, one `::error` each,
//! outside the cap. Everything a server said is escaped, so a hostile detail cannot start a
//! workflow command of its own. [`outputs`] gives the `$GITHUB_OUTPUT` lines (`score`,
//! `passed`, and each report path relative to the workspace).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::emit::common::{anchor_of, evidence_text, rank};
use crate::report::finding::{Finding, Status};
use crate::report::model::{Report, ServerReport};
use crate::report::score;

/// At most this many `::error` and this many `::warning` lines.
pub const MAX_PER_LEVEL: usize = 10;

/// Escapes a workflow-command message.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow-command property value (`file=`, `title=` …).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(level: &str, server: &ServerReport, f: &Finding) -> String {
    let anchor = anchor_of(server);
    let mut title = format!("{} ({})", f.id, server.name);
    if let Some(subject) = f.subject_shown() {
        title = format!("{}[{}] ({})", f.id, subject, server.name);
    }
    let mut msg = format!("{}: {}", f.title, f.detail);
    if !f.advice.is_empty() {
        msg.push_str(&format!("\nAdvice: {}", f.advice));
    }
    if !f.evidence.is_empty() {
        msg.push_str(&format!("\nEvidence: {}", evidence_text(&f.evidence)));
    }
    // Other control characters (ANSI escapes from a server) have no business in a log line.
    let strip = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_control() || matches!(c, '\n' | '\r'))
            .collect()
    };
    let (title, msg) = (strip(&title), strip(&msg));
    format!(
        "::{level} file={},line={},title={}::{}",
        escape_property(&anchor.path),
        anchor.line.max(1),
        escape_property(&title),
        escape_data(&msg)
    )
}

/// The annotation lines (each ending in a newline).
pub fn annotations(report: &Report) -> String {
    let mut counted: Vec<(&ServerReport, &Finding)> = report
        .servers
        .iter()
        .flat_map(|s| s.findings.iter().map(move |f| (s, f)))
        .filter(|(_, f)| f.counts() && matches!(f.status, Status::Fail | Status::Warn))
        .collect();
    // Stable: most severe first, then report order.
    counted.sort_by_key(|(_, f)| std::cmp::Reverse(rank(f)));
    let fails = counted.iter().filter(|(_, f)| f.status == Status::Fail);
    let warns = counted.iter().filter(|(_, f)| f.status == Status::Warn);
    let (n_fail, n_warn) = (fails.clone().count(), warns.clone().count());
    let mut out = String::new();
    for s in &report.servers {
        let anchor = anchor_of(s);
        for e in &s.internal_errors {
            let msg: String = format!(
                "scout could not record this result, so the report may be missing a finding: {e}"
            )
            .chars()
            .filter(|c| !c.is_control() || matches!(c, '\n' | '\r'))
            .collect();
            out.push_str(&format!(
                "::error file={},line={},title={}::{}\n",
                escape_property(&anchor.path),
                anchor.line.max(1),
                escape_property(&format!("scout internal error ({})", s.name)),
                escape_data(&msg)
            ));
        }
    }
    for (s, f) in fails.take(MAX_PER_LEVEL) {
        out.push_str(&command("error", s, f));
        out.push('\n');
    }
    for (s, f) in warns.take(MAX_PER_LEVEL) {
        out.push_str(&command("warning", s, f));
        out.push('\n');
    }
    let scores = report
        .servers
        .iter()
        .map(|s| match s.score {
            Some(n) => format!("{} {n}", s.name),
            None => format!("{} not assessed", s.name),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let mut summary = format!(
        "gate {}; scores: {scores}; {n_fail} failing, {n_warn} warning check(s)",
        if report.gate.passed {
            "passed"
        } else {
            "failed"
        }
    );
    if n_fail > MAX_PER_LEVEL || n_warn > MAX_PER_LEVEL {
        summary.push_str(&format!(
            " (annotated the {MAX_PER_LEVEL} most severe of each; see the reports)"
        ));
    }
    out.push_str(&format!(
        "::notice title=scout::{}\n",
        escape_data(&summary)
    ));
    out
}

/// The page of the current workflow run (where its artifacts are), from
/// `GITHUB_SERVER_URL`, `GITHUB_REPOSITORY` and `GITHUB_RUN_ID`; `None` outside Actions.
pub fn run_url() -> Option<String> {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    run_url_of(
        get("GITHUB_SERVER_URL").as_deref(),
        get("GITHUB_REPOSITORY").as_deref(),
        get("GITHUB_RUN_ID").as_deref(),
    )
}

/// [`run_url`] from explicit values; `None` unless all three look right.
pub fn run_url_of(
    server: Option<&str>,
    repo: Option<&str>,
    run_id: Option<&str>,
) -> Option<String> {
    let (server, repo, run_id) = (server?, repo?, run_id?);
    let ok = server.starts_with("https://")
        && repo.split('/').count() == 2
        && repo
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && run_id.chars().all(|c| c.is_ascii_digit());
    ok.then(|| {
        format!(
            "{}/{repo}/actions/runs/{run_id}",
            server.trim_end_matches('/')
        )
    })
}

/// `path` relative to `workspace` when it lies inside it.
fn relative(path: &Path, workspace: Option<&Path>) -> PathBuf {
    match workspace.and_then(|w| path.strip_prefix(w).ok()) {
        Some(rel) => rel.to_path_buf(),
        None => path.to_path_buf(),
    }
}

/// One `name=value` output, using the multi-line delimiter form when the value needs it.
fn output_line(name: &str, value: &str) -> String {
    if value.contains('\n') || value.contains('\r') {
        let delim = format!("ghadelimiter_{}", uuid::Uuid::new_v4());
        format!("{name}<<{delim}\n{value}\n{delim}\n")
    } else {
        format!("{name}={value}\n")
    }
}

/// The `$GITHUB_OUTPUT` lines: `score` (the lowest server score, empty when any server has
/// no score — blocked, interrupted or not assessed — see [`score::lowest`]), `passed` (`true`/`false`), and `<name>=<path>` for each report written, made
/// relative to `$GITHUB_WORKSPACE` (or the current directory) when inside it.
pub fn outputs(report: &Report, paths: &[(&str, &Path)]) -> String {
    let workspace = std::env::var_os("GITHUB_WORKSPACE")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    outputs_in(report, paths, workspace.as_deref())
}

/// [`outputs`] with an explicit workspace folder.
pub fn outputs_in(report: &Report, paths: &[(&str, &Path)], workspace: Option<&Path>) -> String {
    let score = score::lowest(report)
        .map(|n| n.to_string())
        .unwrap_or_default();
    let mut out = output_line("score", &score);
    out.push_str(&output_line("passed", &report.gate.passed.to_string()));
    for (name, path) in paths {
        out.push_str(&output_line(
            name,
            &relative(path, workspace).to_string_lossy(),
        ));
    }
    out
}

/// When `GITHUB_ACTIONS=true`: writes the annotations to stdout and appends the outputs to
/// `$GITHUB_OUTPUT` (when set). Returns whether it was running under Actions.
pub fn write_if_actions(report: &Report, paths: &[(&str, &Path)]) -> std::io::Result<bool> {
    if std::env::var("GITHUB_ACTIONS").as_deref() != Ok("true") {
        return Ok(false);
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(annotations(report).as_bytes())?;
    stdout.flush()?;
    if let Some(file) = std::env::var_os("GITHUB_OUTPUT").filter(|p| !p.is_empty()) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)?;
        f.write_all(outputs(report, paths).as_bytes())?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_toolkit() {
        assert_eq!(escape_data("50%\r\nnext"), "50%25%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn run_url_needs_all_three_parts() {
        assert_eq!(
            run_url_of(Some("https://github.com"), Some("o/r"), Some("42")).as_deref(),
            Some("https://github.com/o/r/actions/runs/42")
        );
        assert_eq!(
            run_url_of(Some("https://github.com"), Some("o/r"), None),
            None
        );
        assert_eq!(run_url_of(Some("http://x"), Some("o/r"), Some("1")), None);
        assert_eq!(run_url_of(Some("https://x"), Some("o/r)"), Some("1")), None);
    }

    fn server(name: &str, score: Option<u8>, blocked: bool) -> ServerReport {
        ServerReport {
            name: name.into(),
            transport: crate::report::TransportKind::Http,
            target: "http://127.0.0.1:1/mcp".into(),
            era: crate::report::EraKind::Unknown,
            protocol_versions: vec![],
            server_info: None,
            score,
            categories: vec![],
            findings: vec![],
            exchanges: vec![],
            exchange_count: None,
            blocked: blocked.then(|| "every request got HTTP 401".into()),
            interrupted: false,
            anchor: None,
            duration_ms: 0,
            notes: Default::default(),
            internal_errors: vec![],
        }
    }

    #[test]
    fn the_score_output_is_empty_when_any_server_has_no_score() {
        let mut report = Report {
            run_id: "r".into(),
            scout_version: "0".into(),
            started_at: time::OffsetDateTime::UNIX_EPOCH,
            duration_ms: 0,
            servers: vec![server("a", Some(90), false), server("b", Some(70), false)],
            gate: crate::report::GateResult {
                passed: false,
                reasons: vec![],
                thresholds: Vec::new(),
            },
        };
        assert!(outputs_in(&report, &[], None).starts_with("score=70\n"));
        // A blocked server has no score; the others must not stand in for it.
        report.servers.push(server("locked", None, true));
        assert!(outputs_in(&report, &[], None).starts_with("score=\n"));
        assert!(annotations(&report).contains("locked not assessed"));
    }

    #[test]
    fn paths_inside_the_workspace_become_relative() {
        assert_eq!(
            relative(Path::new("/w/repo/out/r.sarif"), Some(Path::new("/w/repo"))),
            PathBuf::from("out/r.sarif")
        );
        assert_eq!(
            relative(Path::new("/elsewhere/r.sarif"), Some(Path::new("/w/repo"))),
            PathBuf::from("/elsewhere/r.sarif")
        );
    }
}
