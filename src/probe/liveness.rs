//! Whether the server is still there. Asking: the request that shows a wire still serves
//! is one the server already answered in this run ([`liveness_request`]), and any
//! well-formed JSON-RPC answer to it counts ([`alive`]). A server that stopped during the
//! run: nothing scout sent after that can say how the server behaves, so every verdict
//! resting on such an exchange becomes "not assessed", and the stop itself is reported once,
//! by the check whose message the server died of (and by resilience when that message was
//! broken input).

use std::collections::HashMap;
use std::sync::Arc;

use crate::client::{Connection, Death};
use crate::probe::Session;
use crate::probe::resilience::{MALFORMED_SURVIVAL, OVERSIZED_REQUEST, STAYS_UP};
use crate::report::exchange::{Direction, Exchange, ExchangeKind, Seq, jsonrpc_messages};
use crate::report::finding::{Era, Finding, Phase, SkipReason, Status};
use crate::transport::{Outcome, Reply};

/// Requests that read nothing and need no params, in the order liveness prefers them on a
/// handshake-era wire: `ping` is the cheapest, but a server may not implement it (its
/// absence is `handshake.ping`'s to report, not a sign the server stopped).
const LEGACY_ASKS: [&str; 5] = [
    "ping",
    "tools/list",
    "resources/list",
    "prompts/list",
    "resources/templates/list",
];

/// The same on a 2026-07-28 wire, where `ping` does not exist and `server/discover` is
/// what every server serves.
const MODERN_ASKS: [&str; 5] = [
    "server/discover",
    "tools/list",
    "resources/list",
    "prompts/list",
    "resources/templates/list",
];

/// The request that shows `w` still serves: the first of the era's param-free, read-only
/// requests the server answered with a result earlier in this run, on this wire's era
/// (the revision matrix's own handshakes left out). A server that answered none of them
/// gets the era's baseline request (`ping`, or `server/discover` on 2026-07-28).
pub fn liveness_request(s: &Session, w: &Connection) -> &'static str {
    let dual = s.wires.len() > 1;
    let exchanges: Vec<Arc<Exchange>> = s
        .recorder
        .shared()
        .into_iter()
        .filter(|e| !s.matrix_seqs.contains(&e.seq))
        .filter(|e| !dual || e.era.is_none_or(|era| era == w.era()))
        .collect();
    let asks = asks(w.era());
    let answered = answered(&exchanges, &asks);
    asks.into_iter()
        .find(|m| answered.contains(m))
        .unwrap_or(asks[0])
}

fn asks(era: Era) -> [&'static str; 5] {
    match era {
        Era::Modern => MODERN_ASKS,
        Era::Legacy => LEGACY_ASKS,
    }
}

/// Which of `asks` got a JSON-RPC result in `exchanges`: requests are matched to results by
/// id, in order (over HTTP both are in one exchange; over stdio the answer is a later line,
/// and only scout's lines are requests of its own and only the server's are answers to them).
fn answered(exchanges: &[Arc<Exchange>], asks: &[&'static str]) -> Vec<&'static str> {
    let mut pending: HashMap<String, &'static str> = HashMap::new();
    let mut out = Vec::new();
    for e in exchanges {
        let sent = match &e.kind {
            ExchangeKind::Stdio(m) => Some(m.direction == Direction::Sent),
            ExchangeKind::Http(_) => None,
        };
        for m in jsonrpc_messages(e) {
            let request = m.get("method").is_some();
            if sent.is_some_and(|by_scout| by_scout != request) {
                continue;
            }
            let Some(id) = m
                .get("id")
                .filter(|id| !id.is_null())
                .map(|id| id.to_string())
            else {
                continue;
            };
            if let Some(method) = m.get("method").and_then(serde_json::Value::as_str) {
                match asks.iter().find(|a| **a == method) {
                    Some(a) => pending.insert(id, a),
                    None => pending.remove(&id),
                };
            } else if m.get("result").is_some()
                && let Some(a) = pending.remove(&id)
                && !out.contains(&a)
            {
                out.push(a);
            }
        }
    }
    out
}

/// True when `r` is a well-formed JSON-RPC answer, a result or an error: whatever it says,
/// the server read the request and answered it, so it is still serving.
pub fn alive(r: &Reply) -> bool {
    r.outcome == Outcome::Answered
        && r.response
            .as_ref()
            .is_some_and(|v| v.get("result").is_some() || v.get("error").is_some())
}

/// Whether the run's server stopped, and after which message.
pub fn death(s: &Session) -> Option<Death> {
    s.connector.as_ref().and_then(|c| c.death())
}

/// The skip reason of what could not be assessed after the server stopped.
pub fn not_assessed(d: &Death) -> String {
    d.describe()
}

/// Rewrites the findings of a run whose server stopped: a verdict that cites an exchange
/// sent after the stop is replaced by a not-assessed skip (a broken pipe says nothing about
/// a rule), unless the finding also cites the message the server died of (that check saw
/// the crash), or it is a pass or an observation over messages from before the stop too (a
/// judgement over the whole run, which read only what the server sent while it ran). Then
/// the crash is charged to resilience when the message was broken input.
pub fn settle(s: &mut Session) {
    let Some(d) = death(s) else {
        stays_up(s, None);
        return;
    };
    let why = not_assessed(&d);
    // A stop on an ordinary request is the server's own failure, reported once by
    // `resilience.stays_up`: the check whose request went unanswered saw only the stop (a
    // broken pipe, a reset connection), which says nothing about the rule it judges. A stop
    // on scout's deliberately broken input is that check's finding, and resilience's.
    let last_word = last_sign_of_life(s);
    // A server that never answered did not stop part-way: what it never said is judged as
    // before (discovery says it could not be reached).
    let charged_as_before = broken_input(s, d.after).is_some() || last_word == 0;
    let mut cut_off = http_without_answer(s);
    cut_off.extend(stdio_without_answer(s));
    // Over stdio the revision matrix's handshakes are processes of their own, which the
    // run's own process stopping does not stop: what rests on them alone stands.
    let own_process = matches!(s.spec.target, crate::spec::TargetSpec::Stdio(_));
    let matrix = &s.matrix_seqs;
    for f in &mut s.findings {
        let on_the_matrix = !f.evidence.is_empty() && f.evidence.iter().all(|e| matrix.contains(e));
        if own_process && on_the_matrix {
            continue;
        }
        let silent = |e: Seq| e > last_word || cut_off.contains(&e);
        // A step that met the stop before it was known skipped its checks for the error it
        // saw (a refused connection): they say why in the stop's words.
        let skipped_for_it =
            f.skip_reason == Some(SkipReason::NotAssessed) && f.evidence.iter().any(|e| silent(*e));
        let lost = !charged_as_before
            && (unanswered_at_the_stop(f, d.after)
                || rests_on_silence(f, silent)
                || skipped_for_it);
        if after_the_stop(f, d.after) || lost {
            mark_not_assessed(f, &why, d.after);
        }
    }
    if charged_as_before {
        charge_to_the_cause(s, &d);
        charge_to_resilience(s, &d);
    }
    stays_up(s, Some(d));
}

/// What kind of deliberately broken message `seq` was (an oversized one, or one that is not a
/// JSON-RPC 2.0 message: not JSON, not an object or batch, or a `jsonrpc` other than "2.0"),
/// or `None` for an ordinary message an agent could send.
fn broken_input(s: &Session, seq: Seq) -> Option<&'static crate::report::check::Check> {
    let ex = s.recorder.get(seq)?;
    let body = match &ex.kind {
        ExchangeKind::Stdio(m) => m.line.clone(),
        // A GET, DELETE or HEAD carries no message: what an agent's client sends too.
        ExchangeKind::Http(h) if h.method != "POST" => return None,
        ExchangeKind::Http(h) => h.request_body.clone().unwrap_or_default(),
    };
    if body.len() > 1024 * 1024 || body.contains(crate::transport::PAD_MARKER) {
        return Some(&OVERSIZED_REQUEST);
    }
    let well_formed = |v: &serde_json::Value| {
        v.as_object()
            .is_some_and(|o| o.get("jsonrpc").and_then(|j| j.as_str()) == Some("2.0"))
    };
    match serde_json::from_str::<serde_json::Value>(&body) {
        Ok(v) if well_formed(&v) => None,
        Ok(serde_json::Value::Array(items))
            if !items.is_empty() && items.iter().all(well_formed) =>
        {
            None
        }
        _ => Some(&MALFORMED_SURVIVAL),
    }
}

/// True when `f` judged the request the server stopped at, and found it unanswered: a
/// verdict that rests on a stop (reported by `resilience.stays_up`), not on the rule.
fn unanswered_at_the_stop(f: &Finding, cause: Seq) -> bool {
    cause > 0
        && !f.id.starts_with("stdio.")
        && f.evidence.contains(&cause)
        && matches!(f.status, Status::Fail | Status::Warn)
}

/// The last exchange in which the run's server showed it was alive: its last stdout line
/// (stdio), or its last HTTP answer. Requests are written by several tasks at once, so one
/// numbered before the line the server died on can still meet the closed pipe.
fn last_sign_of_life(s: &Session) -> Seq {
    s.recorder
        .shared()
        .iter()
        .filter(|e| !s.matrix_seqs.contains(&e.seq))
        .filter(|e| match &e.kind {
            ExchangeKind::Stdio(m) => m.direction == crate::report::exchange::Direction::Received,
            ExchangeKind::Http(h) => h.status.is_some(),
        })
        .map(|e| e.seq)
        .max()
        .unwrap_or(0)
}

/// The HTTP requests of the run that got no HTTP answer at all (the connection broke or was
/// refused): a server that exits takes the requests it was still working on with it, even
/// ones sent before its last answer.
fn http_without_answer(s: &Session) -> Vec<Seq> {
    s.recorder
        .shared()
        .iter()
        .filter(|e| match &e.kind {
            ExchangeKind::Http(h) => h.status.is_none() || request_left_unanswered(e),
            ExchangeKind::Stdio(_) => false,
        })
        .map(|e| e.seq)
        .collect()
}

/// True when `e` is an HTTP request with an id whose answer carried no JSON-RPC response (a
/// status line, then nothing): a server that exits while writing takes the body with it.
/// Only read once the server is known to have stopped.
fn request_left_unanswered(e: &Exchange) -> bool {
    let messages = jsonrpc_messages(e);
    let asked = messages
        .first()
        .is_some_and(|m| m.get("method").is_some() && m.get("id").is_some_and(|id| !id.is_null()));
    asked
        && !messages
            .iter()
            .skip(1)
            .any(|m| m.get("result").is_some() || m.get("error").is_some())
}

/// The stdio requests of the run that never got an answer (no line the server wrote carries
/// their id): scout writes requests from several tasks at once, so one numbered before the
/// server's last line can still have met the closed pipe, and what it "got" was the stop.
fn stdio_without_answer(s: &Session) -> Vec<Seq> {
    let mut asked: Vec<(String, Seq)> = Vec::new();
    let mut answered: std::collections::HashSet<String> = std::collections::HashSet::new();
    for e in s.recorder.shared().iter() {
        let ExchangeKind::Stdio(m) = &e.kind else {
            continue;
        };
        for msg in jsonrpc_messages(e) {
            let Some(id) = msg
                .get("id")
                .filter(|id| !id.is_null())
                .map(|id| id.to_string())
            else {
                continue;
            };
            match (m.direction, msg.get("method").is_some()) {
                (Direction::Sent, true) => asked.push((id, e.seq)),
                (Direction::Received, false) => {
                    answered.insert(id);
                }
                _ => {}
            }
        }
    }
    asked
        .into_iter()
        .filter(|(id, _)| !answered.contains(id))
        .map(|(_, seq)| seq)
        .collect()
}

/// True when `f` is a verdict against the server that cites an exchange `silent` says the
/// stop cut off: the silence there was the stop, not an answer.
fn rests_on_silence(f: &Finding, silent: impl Fn(Seq) -> bool) -> bool {
    !f.id.starts_with("stdio.")
        && matches!(f.status, Status::Fail | Status::Warn)
        && f.evidence.iter().any(|e| silent(*e))
}

/// `resilience.stays_up`, judged once over the whole run: a stop on an ordinary request fails
/// (critical, naming the request), a stop on scout's broken input is left to the resilience
/// check that judges it, and a run that ended with the server still serving passes. Nothing
/// is said of a run that never reached the server, nor of one whose resilience phase was
/// not run (its skip stands).
fn stays_up(s: &mut Session, d: Option<Death>) {
    let judged = |s: &Session| {
        s.findings
            .iter()
            .any(|f| f.id == STAYS_UP.id && f.status != Status::Skip)
    };
    if judged(s) {
        return;
    }
    match d {
        Some(d) if d.after == 0 || last_sign_of_life(s) == 0 => {}
        Some(d) => {
            if let Some(check) = broken_input(s, d.after) {
                s.add(
                    STAYS_UP
                        .skip(
                            SkipReason::NotApplicable,
                            format!(
                                "{} scout's own {} message, judged by {}",
                                d.describe().replacen("after", "on", 1),
                                if check.id == OVERSIZED_REQUEST.id {
                                    "oversized"
                                } else {
                                    "malformed"
                                },
                                check.id
                            ),
                        )
                        .evidence([d.after]),
                );
                return;
            }
            let how = match d.kind {
                crate::client::DeathKind::Exited => "its process ended",
                crate::client::DeathKind::StoppedAnswering => {
                    "later connections were refused or closed unanswered"
                }
            };
            s.add(
                STAYS_UP
                    .fail(format!(
                        "Part-way through the run {} ({how}), an ordinary request, not scout's broken input: nothing sent after it was answered, so what scout had still to check is not assessed.",
                        d.describe()
                    ))
                    .evidence([d.after]),
            );
        }
        None => {
            // Only a run whose resilience phase ran (no skip recorded for it) is judged.
            if s.findings.iter().any(|f| f.id == STAYS_UP.id) || s.blocked.is_some() {
                return;
            }
            let Some(last) = s.recorder.shared().last().map(|e| e.seq) else {
                return;
            };
            s.add(
                STAYS_UP
                    .pass("The server was still serving at the end of the run; the last exchange is cited.")
                    .evidence([last]),
            );
        }
    }
}

/// The check whose own message the server died of saw the crash: a warning it gave over that
/// message (typically "no reply", the other answers lost to broken pipes) is a failure, since
/// a server that exits on a client's message serves nobody after it. Passes stay (the check
/// found the message handled as it requires, e.g. a notification that needs no answer), and
/// so does a check whose basis cannot fail.
fn charge_to_the_cause(s: &mut Session, d: &Death) {
    if d.after == 0 {
        return;
    }
    for f in &mut s.findings {
        if f.status != Status::Warn
            || f.id.starts_with("stdio.")
            || !f.evidence.contains(&d.after)
            || !matches!(
                f.phase,
                Phase::Protocol | Phase::Resilience | Phase::Execution
            )
        {
            continue;
        }
        let Some(check) = crate::probe::registry::lookup(&f.id) else {
            continue;
        };
        if !check.basis().allows(Status::Fail) {
            continue;
        }
        f.status = Status::Fail;
        f.severity = Some(check.severity);
        f.detail = format!(
            "The server exited on this check's message (req#{}): {}",
            d.after, f.detail
        );
    }
}

/// True when `f` rests on what was sent after the server stopped.
fn after_the_stop(f: &Finding, cause: Seq) -> bool {
    if f.status == Status::Skip || f.id.starts_with("stdio.") {
        return false;
    }
    if !f.evidence.iter().any(|e| *e > cause) || f.evidence.contains(&cause) {
        return false;
    }
    let also_before = f.evidence.iter().any(|e| *e < cause);
    !(also_before && matches!(f.status, Status::Pass | Status::Info))
}

fn mark_not_assessed(f: &mut Finding, why: &str, cause: Seq) {
    f.status = Status::Skip;
    f.severity = None;
    f.skip_reason = Some(SkipReason::NotAssessed);
    f.detail = format!("{why}; what was sent after it cannot show this check");
    // The message the server stopped after is what a reader needs to see.
    f.evidence = if cause > 0 { vec![cause] } else { Vec::new() };
}

/// The stop, charged once to resilience: a malformed message (one that is not a JSON-RPC 2.0
/// message, see [`broken_input`]) that took the server down fails `malformed_survival`, an oversized one
/// `oversized_request`, on the wire that sent it. The check whose probe sent the message
/// keeps its own verdict; a resilience check that judged the message itself is left as is.
fn charge_to_resilience(s: &mut Session, d: &Death) {
    let Some(ex) = s.recorder.get(d.after) else {
        return;
    };
    let era = ex.era;
    let already = |id: &str| {
        s.findings.iter().any(|f| {
            f.id == id
                && f.phase == Phase::Resilience
                && f.status != Status::Skip
                && f.evidence.contains(&d.after)
        })
    };
    let Some(check) = broken_input(s, d.after) else {
        return;
    };
    let oversized = check.id == OVERSIZED_REQUEST.id;
    if already(check.id) {
        return;
    }
    let sender = s
        .findings
        .iter()
        .find(|f| f.evidence.contains(&d.after) && !f.id.starts_with("stdio."))
        .map(|f| format!(" sent by {}", f.id))
        .unwrap_or_default();
    let detail = format!(
        "{}, a {} message{sender}; nothing sent after it was answered.",
        d.describe(),
        if oversized { "oversized" } else { "malformed" }
    );
    s.findings
        .retain(|f| !(f.id == check.id && (era.is_none() || f.era == era || f.era.is_none())));
    let mut f = check.fail(detail).evidence([d.after]);
    if let Some(e) = era
        && s.wires.len() > 1
    {
        f = f.era(e);
    }
    s.add(f);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Severity;
    use crate::transport::process::ProcessConfig;

    fn finding(status: Status, evidence: Vec<Seq>) -> Finding {
        Finding {
            id: "protocol.notification".into(),
            phase: Phase::Protocol,
            title: "t".into(),
            status,
            severity: (status == Status::Fail).then_some(Severity::Major),
            detail: "broken pipe".into(),
            advice: String::new(),
            spec: None,
            subject: None,
            era: None,
            revision: None,
            evidence,
            skip_reason: None,
            suppressed: None,
        }
    }

    #[test]
    fn a_warning_over_the_message_the_server_died_of_is_a_failure() {
        // Previously: a server that exited on `"jsonrpc":"1.0"` got only a warning from
        // protocol.invalid_request ("no reply", then broken pipes).
        let mut f = finding(Status::Warn, vec![10]);
        f.id = "protocol.invalid_request".into();
        let d = Death {
            kind: crate::client::DeathKind::Exited,
            after: 10,
        };
        let mut s = crate::probe::Session::new(crate::spec::ServerSpec::new(
            "s",
            crate::spec::TargetSpec::Stdio(ProcessConfig {
                command: vec!["srv".into()],
                env_forward: vec![],
                env_set: vec![],
                dir: None,
            }),
        ));
        s.findings.push(f);
        let mut other = finding(Status::Warn, vec![9]);
        other.id = "protocol.null_id".into();
        s.findings.push(other);
        charge_to_the_cause(&mut s, &d);
        assert_eq!(s.findings[0].status, Status::Fail);
        assert!(
            s.findings[0].detail.contains("req#10"),
            "{}",
            s.findings[0].detail
        );
        assert_eq!(
            s.findings[1].status,
            Status::Warn,
            "not the message it died of"
        );
    }

    #[test]
    fn a_verdict_on_what_was_sent_after_the_stop_is_not_assessed() {
        // Previously: protocol.notification failed on the broken pipe of a dead process.
        assert!(after_the_stop(&finding(Status::Fail, vec![12, 13]), 10));
        assert!(after_the_stop(&finding(Status::Pass, vec![12]), 10));
        // A fail over a mix of before and after may rest on the dead part.
        assert!(after_the_stop(&finding(Status::Fail, vec![3, 12]), 10));
    }

    #[test]
    fn the_cause_and_what_came_before_keep_their_verdicts() {
        assert!(!after_the_stop(&finding(Status::Fail, vec![10, 11]), 10));
        assert!(!after_the_stop(&finding(Status::Fail, vec![3, 9]), 10));
        // A whole-run judgement read what the server sent while it ran.
        assert!(!after_the_stop(&finding(Status::Pass, vec![3, 12]), 10));
        assert!(!after_the_stop(&finding(Status::Skip, vec![12]), 10));
        let mut alive = finding(Status::Fail, vec![12]);
        alive.id = "stdio.alive".into();
        assert!(!after_the_stop(&alive, 10));
    }

    fn http(seq: Seq, request: &str, response: &str) -> Arc<Exchange> {
        Arc::new(Exchange {
            seq,
            started_at: time::OffsetDateTime::UNIX_EPOCH,
            duration_ms: 0.0,
            era: None,
            kind: ExchangeKind::Http(crate::report::exchange::HttpExchange {
                method: "POST".into(),
                url: "http://x/mcp".into(),
                request_headers: vec![],
                request_body: Some(request.into()),
                status: Some(200),
                response_headers: vec![],
                response_body: Some(response.into()),
                truncated: false,
                error: None,
            }),
        })
    }

    #[test]
    fn liveness_asks_what_the_server_already_answered() {
        // Previously every resilience probe asked `ping`, and a server without it (-32601)
        // was read as one that stopped serving.
        let run = [
            http(
                1,
                r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope"}}"#,
            ),
            http(
                2,
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
                r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#,
            ),
            // An event stream's answer counts too.
            http(
                3,
                r#"{"jsonrpc":"2.0","id":4,"method":"prompts/list"}"#,
                "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"prompts\":[]}}\n\n",
            ),
        ];
        assert_eq!(
            answered(&run, &LEGACY_ASKS),
            vec!["tools/list", "prompts/list"]
        );
        let served_ping = http(
            4,
            r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        );
        assert_eq!(answered(&[served_ping], &LEGACY_ASKS), vec!["ping"]);
        // Over stdio a request of the server's own (here with the id of scout's pending
        // ping) is no answer, and scout's reply to it is no result of the server's.
        let line = |seq: Seq, direction: Direction, line: &str| {
            Arc::new(Exchange {
                seq,
                started_at: time::OffsetDateTime::UNIX_EPOCH,
                duration_ms: 0.0,
                era: None,
                kind: ExchangeKind::Stdio(crate::report::exchange::StdioMessage {
                    direction,
                    method: None,
                    line: line.into(),
                    not_jsonrpc: false,
                }),
            })
        };
        let stdio = [
            line(
                1,
                Direction::Sent,
                r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            ),
            line(
                2,
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":7,"method":"roots/list"}"#,
            ),
            line(
                3,
                Direction::Sent,
                r#"{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}"#,
            ),
            line(
                4,
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"x"}}"#,
            ),
            line(
                5,
                Direction::Sent,
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#,
            ),
            line(
                6,
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":8,"result":{"tools":[]}}"#,
            ),
        ];
        assert_eq!(answered(&stdio, &LEGACY_ASKS), vec!["tools/list"]);
    }

    #[test]
    fn any_well_formed_answer_is_alive() {
        let reply = |seq: Seq, outcome: Outcome, response: Option<serde_json::Value>| Reply {
            evidence: vec![seq],
            outcome,
            response,
            notifications: vec![],
            server_requests: vec![],
            http: None,
            elapsed: std::time::Duration::ZERO,
            refused: false,
        };
        let err = serde_json::json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}});
        assert!(alive(&reply(1, Outcome::Answered, Some(err))));
        let ok = serde_json::json!({"jsonrpc":"2.0","id":1,"result":{}});
        assert!(alive(&reply(2, Outcome::Answered, Some(ok))));
        assert!(!alive(&reply(3, Outcome::TimedOut, None)));
        assert!(!alive(&reply(
            4,
            Outcome::TransportError("exited".into()),
            None
        )));
        assert!(!alive(&reply(5, Outcome::NoResponse, None)));
    }

    #[test]
    fn a_verdict_on_what_the_stop_cut_off_is_not_its_own() {
        // Previously: a tools/list numbered before the last line the server read, written
        // after it exited, failed catalog.tools_list with "Broken pipe".
        let cut_off = |e: Seq| e > 14;
        assert!(rests_on_silence(
            &finding(Status::Fail, vec![3, 15]),
            cut_off
        ));
        assert!(rests_on_silence(&finding(Status::Warn, vec![16]), cut_off));
        // What the server answered before it stopped stands, and so does a pass.
        assert!(!rests_on_silence(
            &finding(Status::Fail, vec![3, 14]),
            cut_off
        ));
        assert!(!rests_on_silence(&finding(Status::Pass, vec![15]), cut_off));
        let mut alive = finding(Status::Fail, vec![15]);
        alive.id = "stdio.alive".into();
        assert!(!rests_on_silence(&alive, cut_off));
        // The request it stopped at: unanswered, so not the check's own verdict either.
        assert!(unanswered_at_the_stop(
            &finding(Status::Fail, vec![3, 6]),
            6
        ));
        assert!(!unanswered_at_the_stop(&finding(Status::Pass, vec![6]), 6));
    }

    #[test]
    fn a_skipped_verdict_says_after_which_message() {
        let mut f = finding(Status::Fail, vec![12, 13]);
        let d = Death {
            kind: crate::client::DeathKind::Exited,
            after: 10,
        };
        mark_not_assessed(&mut f, &not_assessed(&d), 10);
        assert_eq!(f.status, Status::Skip);
        assert_eq!(f.severity, None);
        assert_eq!(f.skip_reason, Some(SkipReason::NotAssessed));
        assert!(
            f.detail.starts_with("the server exited after req#10"),
            "{}",
            f.detail
        );
        assert_eq!(f.evidence, vec![10]);
    }
}
