//! How a run of the page ended, in the words "Recent runs" and the report's banner use:
//! *unreachable* (scout never reached the server: nothing answered, or the program exited at
//! once), *blocked* (it reached it, but the run could not go on: credentials refused, no
//! handshake), *stopped* (Stop or Ctrl-C), *finished*. For a run that did not finish, the
//! reason is broken into its causes so that the page can say it once, readably, instead of
//! on every skipped finding.

use serde::Serialize;

use crate::report::Report;
use crate::report::finding::Status;
use crate::report::model::ServerReport;

/// How one server's run ended; the order is the precedence of a run with several servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    Finished,
    Blocked,
    Unreachable,
    Stopped,
}

impl Ended {
    /// The word the page shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Ended::Finished => "finished",
            Ended::Blocked => "blocked",
            Ended::Unreachable => "unreachable",
            Ended::Stopped => "stopped",
        }
    }
}

/// One server's ending, for the page's banner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ending {
    pub state: Ended,
    /// One sentence: what happened (absent when the run finished).
    pub headline: Option<String>,
    /// The failure: an unreachable server's error broken at its causes, outermost first
    /// (`POST … failed`, `client error (Connect)`, `Connection refused (os error 111)`); a
    /// blocked run's reason as one line.
    pub chain: Vec<String>,
    /// What the program wrote when the failure quotes it (a stdio server's stderr; empty
    /// when it wrote nothing).
    pub output: Option<String>,
    /// The texts findings carry that only repeat this reason (the blocked reason, the
    /// failed reachability's detail): the page points at the banner instead.
    pub repeats: Vec<String>,
}

/// The id of the check whose failure means scout never reached the server.
const REACHABLE: &str = "discovery.reachable";

/// How `server`'s run ended.
pub fn of_server(server: &ServerReport) -> Ending {
    let unreached = server
        .findings
        .iter()
        .find(|f| f.id == REACHABLE && f.status == Status::Fail)
        .map(|f| f.detail.clone());
    let blocked = server.blocked.clone();
    let state = if server.interrupted {
        Ended::Stopped
    } else if unreached.is_some() {
        Ended::Unreachable
    } else if blocked.is_some() {
        Ended::Blocked
    } else {
        Ended::Finished
    };
    // An unreachable server's detail is a transport error with its sources; a blocked run's
    // reason is scout's own sentence (its colons introduce advice, not causes): kept whole.
    let (chain, output) = match state {
        Ended::Unreachable => unreached.as_deref().map(split).unwrap_or_default(),
        Ended::Blocked => (blocked.iter().map(|b| capitalised(b)).collect(), None),
        Ended::Stopped | Ended::Finished => (Vec::new(), None),
    };
    let headline = match state {
        Ended::Finished => None,
        Ended::Stopped => Some("The run was stopped before every phase finished.".to_string()),
        Ended::Blocked => Some(
            "scout reached the server, but the run could not go on: the later phases were not run."
                .to_string(),
        ),
        // A reason of its own (a stdio server that exited) says more than the generic line.
        Ended::Unreachable => Some(match (&blocked, &unreached) {
            (Some(b), Some(u)) if !same(b, u) => format!("{}.", capitalised(b)),
            _ => format!("scout could not reach {}.", server.target),
        }),
    };
    let repeats = [unreached, blocked]
        .into_iter()
        .flatten()
        .filter(|_| state != Ended::Finished)
        .collect();
    Ending {
        state,
        headline,
        chain,
        output,
        repeats,
    }
}

/// How a whole run ended: the most telling of its servers' endings.
pub fn of_report(report: &Report) -> Ended {
    report
        .servers
        .iter()
        .map(|s| of_server(s).state)
        .max()
        .unwrap_or(Ended::Finished)
}

/// True when two texts are the same but for the first letter's case (the finding builder
/// capitalises details; the blocked reason is kept as written).
fn same(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

fn capitalised(s: &str) -> String {
    let mut c = s.trim().chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A failure as scout writes it (`error_chain` joins an error and its sources with `": "`;
/// a program's output follows a line break) → its causes and the output.
fn split(text: &str) -> (Vec<String>, Option<String>) {
    let (head, output) = match text.split_once('\n') {
        Some((h, rest)) => (h, Some(rest.trim_end().to_string())),
        None => (text, None),
    };
    let head = match &output {
        // "…; stderr:" introduces the output, shown apart.
        Some(_) => head
            .trim_end()
            .trim_end_matches("stderr:")
            .trim_end()
            .trim_end_matches([';', ':', ','])
            .trim_end(),
        None => head.trim_end(),
    };
    let mut chain: Vec<String> = Vec::new();
    for part in causes(head) {
        let mut part = part.trim().to_string();
        // reqwest names the URL again in its own message; the first cause already did.
        if let Some(start) = part.find(" for url (") {
            let url = part[start + " for url (".len()..].trim_end_matches(')');
            if chain.iter().any(|c| c.contains(url)) {
                part.truncate(start);
            }
        }
        if !part.is_empty() && !chain.iter().any(|c| same(c, &part)) {
            chain.push(part);
        }
    }
    (chain, output)
}

/// `text` cut at every `": "` outside brackets and quotes (`exit status: 3` in parentheses,
/// or a quoted body, stays whole).
fn causes(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'(' | b'[' | b'{' if !quoted => depth += 1,
            b')' | b']' | b'}' if !quoted => depth -= 1,
            b':' if !quoted && depth <= 0 && bytes.get(i + 1) == Some(&b' ') => {
                out.push(&text[start..i]);
                start = i + 2;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Era;
    use crate::report::model::{EraKind, TransportKind};

    fn server(blocked: Option<&str>, reachable: Option<&str>) -> ServerReport {
        let mut s = ServerReport {
            name: "s".into(),
            transport: TransportKind::Http,
            target: "http://127.0.0.1:1/mcp".into(),
            era: EraKind::Unknown,
            protocol_versions: vec![],
            server_info: None,
            score: None,
            categories: vec![],
            findings: vec![],
            exchanges: vec![],
            blocked: None,
            interrupted: false,
            anchor: None,
            duration_ms: 0,
            exchange_count: None,
            notes: Default::default(),
            internal_errors: vec![],
        };
        s.blocked = blocked.map(str::to_string);
        if let Some(detail) = reachable {
            s.findings.push(
                crate::probe::discovery::REACHABLE
                    .fail(detail)
                    .without_exchange()
                    .era(Era::Legacy)
                    .build(|_| true)
                    .expect("finding"),
            );
        }
        s
    }

    const REFUSED: &str = "POST http://127.0.0.1:1/mcp failed: error sending request for url (http://127.0.0.1:1/mcp): client error (Connect): tcp connect error: Connection refused (os error 111)";

    #[test]
    fn an_unreachable_url_is_one_chain_of_causes_without_the_url_twice() {
        let e = of_server(&server(Some(REFUSED), Some(REFUSED)));
        assert_eq!(e.state, Ended::Unreachable);
        assert_eq!(
            e.chain,
            [
                "POST http://127.0.0.1:1/mcp failed",
                "error sending request",
                "client error (Connect)",
                "tcp connect error",
                "Connection refused (os error 111)"
            ]
        );
        assert_eq!(
            e.headline.as_deref(),
            Some("scout could not reach http://127.0.0.1:1/mcp.")
        );
        assert_eq!(e.output, None);
        assert_eq!(e.repeats.len(), 2);
    }

    #[test]
    fn a_program_that_exits_at_once_keeps_its_status_whole_and_its_stderr_apart() {
        let e = of_server(&server(
            Some("the stdio server exited before the first request"),
            Some(
                "The process exited right after it started (exit status: 3); stderr:\nboom: it broke\n",
            ),
        ));
        assert_eq!(e.state, Ended::Unreachable);
        assert_eq!(
            e.chain,
            ["The process exited right after it started (exit status: 3)"]
        );
        assert_eq!(e.output.as_deref(), Some("boom: it broke"));
        assert_eq!(
            e.headline.as_deref(),
            Some("The stdio server exited before the first request.")
        );
    }

    #[test]
    fn blocked_stopped_and_finished_runs_are_told_apart() {
        let e = of_server(&server(Some("every request got HTTP 401: no token"), None));
        assert_eq!(e.state, Ended::Blocked);
        assert_eq!(e.chain, ["Every request got HTTP 401: no token"]);
        let mut s = server(None, None);
        assert_eq!(of_server(&s).state, Ended::Finished);
        assert!(of_server(&s).repeats.is_empty() && of_server(&s).headline.is_none());
        s.interrupted = true;
        assert_eq!(of_server(&s).state, Ended::Stopped);
    }

    #[test]
    fn quoted_bodies_are_not_cut() {
        let (chain, _) = split(r#"HTTP 400, body "bad: very bad": the server refused"#);
        assert_eq!(
            chain,
            [r#"HTTP 400, body "bad: very bad""#, "the server refused"]
        );
    }
}
