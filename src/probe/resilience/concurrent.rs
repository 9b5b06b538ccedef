//! `concurrent_sessions`: two clients at once — two sessions in the handshake era, two
//! independent connections on 2026-07-28 — sending requests with the same ids, each of a
//! kind whose answer shows whom it was meant for, and (where the run found a read-only tool
//! that reports progress) each calling it with its own progress token. No response or
//! progress notification of one client may reach the other, and neither may lose its answer.
//! A server with one shared transport, or an in-flight table keyed only by request id,
//! fails.

use serde_json::{Value, json};

use super::{CONCURRENT_SESSIONS, cite};
use crate::client::{Connection, lifecycle};
use crate::probe::Session;
use crate::probe::liveness::alive;
use crate::probe::resilience::recovery::describe;
use crate::report::exchange::ExchangeKind;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::transport::{IdKind, Probe, Reply};

/// Rounds of simultaneous requests; the clients swap methods every round.
pub const ROUNDS: usize = 3;
/// At most this many problems are told in the detail (all exchanges are cited).
const MAX_TOLD: usize = 2;
/// The id prefix both clients use (the same id on both, per round).
pub const ID_PREFIX: &str = "scout-concurrent";

/// [`ConcurrentRun::clients`] in the handshake era.
pub const SESSIONS: &str = "two sessions";
/// [`ConcurrentRun::clients`] on 2026-07-28 wires.
pub const CONNECTIONS: &str = "two independent connections";

/// What one client sent in one exchange of the probe and what came back.
#[derive(Debug, Clone)]
pub struct Sent {
    /// Which client: `A` or `B`.
    pub client: char,
    pub method: String,
    /// The progress token it sent, if any.
    pub token: Option<String>,
    pub reply: Reply,
}

/// The requests of both clients, pair by pair (each pair sent at once, with the same id).
#[derive(Debug, Clone, Default)]
pub struct ConcurrentRun {
    /// How the two clients were set up (`initialize` replies in the handshake era).
    pub setup: Vec<Reply>,
    pub pairs: Vec<(Sent, Sent)>,
    /// [`SESSIONS`] or [`CONNECTIONS`].
    pub clients: &'static str,
}

/// A read-only tool that reports progress, found in what the run recorded: the execution
/// phase called it with a progress token and got progress notifications back.
#[derive(Debug, Clone)]
pub struct ProgressTool {
    pub name: String,
    /// The arguments the execution phase called it with.
    pub arguments: Value,
    /// Its `inputSchema` (for the 2026-07-28 `Mcp-Param-*` headers).
    pub input_schema: Value,
}

/// The [`ProgressTool`] of the `era` wire, if the run found one.
pub fn progress_tool(s: &Session, era: Era) -> Option<ProgressTool> {
    // Only a tool the catalogue marks read-only: this probe never calls anything else.
    let read_only = |name: &str| {
        s.catalogs
            .iter()
            .filter(|c| c.era == Some(era))
            .flat_map(|c| &c.tools)
            .find(|t| {
                t.get("name").and_then(Value::as_str) == Some(name)
                    && t.get("annotations")
                        .and_then(|a| a.get("readOnlyHint"))
                        .and_then(Value::as_bool)
                        == Some(true)
            })
            .map(|t| t.get("inputSchema").cloned().unwrap_or(Value::Null))
    };
    s.recorder.shared().iter().find_map(|e| {
        if e.era != Some(era) {
            return None;
        }
        let ExchangeKind::Http(h) = &e.kind else {
            return None;
        };
        let req: Value = serde_json::from_str(h.request_body.as_deref()?).ok()?;
        let params = req.get("params")?;
        let token = params.get("_meta")?.get("progressToken")?.as_str()?;
        let sent_progress = h
            .response_body
            .as_deref()
            .is_some_and(|b| b.contains("notifications/progress"));
        if req.get("method")?.as_str()? != "tools/call"
            || !token.starts_with("scout-progress-")
            || !sent_progress
        {
            return None;
        }
        let name = params.get("name")?.as_str()?;
        read_only(name).map(|input_schema| ProgressTool {
            name: name.to_string(),
            arguments: params.get("arguments").cloned().unwrap_or(json!({})),
            input_schema,
        })
    })
}

/// Two requests whose answers tell them apart: a list and the wire's cheap request
/// (`server/discover` on 2026-07-28, `ping` otherwise).
fn methods(w: &Connection) -> (&'static str, &'static str) {
    let list = if w.declares("tools") {
        "tools/list"
    } else if w.declares("resources") {
        "resources/list"
    } else if w.declares("prompts") {
        "prompts/list"
    } else if w.era() == Era::Modern {
        "server/discover"
    } else {
        "ping"
    };
    let cheap = if w.era() == Era::Modern {
        "server/discover"
    } else {
        "ping"
    };
    (list, cheap)
}

/// Opens one client: a fresh wire, with a session of its own in the handshake era. The
/// exchanges that set it up are returned either way.
async fn open_client(w: &Connection) -> (Result<Connection, String>, Vec<Reply>) {
    let mut setup = Vec::new();
    // A client of its own down to the TCP connection: two wires of one pooled client
    // could share a keep-alive or HTTP/2 connection, and a server that keeps state per
    // connection would then look right.
    let c = match w.independent().await {
        Ok(c) => c,
        Err(e) => return (Err(e.to_string()), setup),
    };
    if w.era() == Era::Modern {
        return (Ok(c), setup);
    }
    let init = lifecycle::initialize(&c, w.protocol_version()).await;
    let ok = init.result().is_some();
    let why = describe(&init);
    setup.push(init);
    if !ok {
        c.close().await;
        return (Err(format!("initialize {why}")), setup);
    }
    let note = c.notify("notifications/initialized", None).await;
    setup.push(note);
    (Ok(c), setup)
}

/// Runs the probe on `w` (HTTP); `progress`: a read-only tool that reports progress.
/// Both clients are opened at once; the rounds go out beside the progress calls (other
/// ids), so a slow tool does not hold up the rounds.
pub async fn probe(
    w: &Connection,
    progress: Option<ProgressTool>,
) -> Result<ConcurrentRun, (String, Vec<Reply>)> {
    let mut run = ConcurrentRun {
        clients: if w.era() == Era::Modern {
            CONNECTIONS
        } else {
            SESSIONS
        },
        ..ConcurrentRun::default()
    };
    let ((a, setup_a), (b, setup_b)) = tokio::join!(open_client(w), open_client(w));
    run.setup.extend(setup_a);
    run.setup.extend(setup_b);
    let (a, b) = match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), other) | (other, Err(e)) => {
            if let Ok(c) = other {
                c.close().await;
            }
            return Err((e, run.setup));
        }
    };
    let (list, cheap) = methods(w);
    let era = match w.era() {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    };
    let rounds = async {
        let mut pairs = Vec::new();
        for round in 0..ROUNDS {
            let id = format!("{ID_PREFIX}-{era}-{round}");
            let (ma, mb) = if round % 2 == 0 {
                (list, cheap)
            } else {
                (cheap, list)
            };
            let probe = |m: &str| Probe {
                id: IdKind::Str(id.clone()),
                ..Probe::request(m, json!({}))
            };
            let (ra, rb) = tokio::join!(a.send(probe(ma)), b.send(probe(mb)));
            pairs.push((
                Sent {
                    client: 'A',
                    method: ma.into(),
                    token: None,
                    reply: ra,
                },
                Sent {
                    client: 'B',
                    method: mb.into(),
                    token: None,
                    reply: rb,
                },
            ));
        }
        pairs
    };
    let progress = async {
        let tool = progress?;
        let id = format!("{ID_PREFIX}-{era}-progress");
        let headers: Vec<(String, Option<String>)> = if w.era() == Era::Modern {
            crate::transport::headers::param_headers(&tool.arguments, &tool.input_schema)
                .into_iter()
                .map(|(k, v)| (k, Some(v)))
                .collect()
        } else {
            Vec::new()
        };
        let call = |token: &str| Probe {
            id: IdKind::Str(id.clone()),
            headers: headers.clone(),
            ..Probe::request(
                "tools/call",
                json!({"name": tool.name, "arguments": tool.arguments, "_meta": {"progressToken": token}}),
            )
        };
        let (ta, tb) = (format!("{ID_PREFIX}-a"), format!("{ID_PREFIX}-b"));
        let (ra, rb) = tokio::join!(a.send(call(&ta)), b.send(call(&tb)));
        Some((
            Sent {
                client: 'A',
                method: "tools/call".into(),
                token: Some(ta),
                reply: ra,
            },
            Sent {
                client: 'B',
                method: "tools/call".into(),
                token: Some(tb),
                reply: rb,
            },
        ))
    };
    let (pairs, progress) = tokio::join!(rounds, progress);
    run.pairs = pairs;
    run.pairs.extend(progress);
    tokio::join!(a.close(), b.close());
    Ok(run)
}

/// Whether `result` is an answer to `method`: `None` when the shape cannot tell.
fn fits(method: &str, result: &Value) -> Option<bool> {
    let has = |k: &str| result.get(k).is_some();
    Some(match method {
        "tools/list" => has("tools"),
        "resources/list" => has("resources"),
        "prompts/list" => has("prompts"),
        "server/discover" => has("supportedVersions"),
        "ping" => !(has("tools") || has("resources") || has("prompts") || has("supportedVersions")),
        "tools/call" => has("content") || has("structuredContent"),
        _ => return None,
    })
}

fn token_of(n: &Value) -> Option<&Value> {
    n.get("params").and_then(|p| p.get("progressToken"))
}

/// What went wrong for one client, if anything. `theirs`: the other client's progress
/// token, if it sent one (its progress may not reach any of this client's requests, the
/// rounds sent beside the progress calls included).
fn problem(me: &Sent, other: &Sent, theirs: Option<&str>, sessions: bool) -> Option<Problem> {
    let seq = me.reply.evidence.first().copied().unwrap_or_default();
    if unimplemented_ping(me) {
        return None;
    }
    let Some(result) = me.reply.result() else {
        if sessions && ended(&me.reply) {
            return Some(Problem::Ended(format!(
                "client {}'s {} (req#{seq}) got HTTP 404: the server had ended its session",
                me.client, me.method
            )));
        }
        return Some(Problem::Mixed(format!(
            "client {}'s {} (req#{seq}) {}: its answer was lost",
            me.client,
            me.method,
            describe(&me.reply)
        )));
    };
    if me.method != other.method
        && fits(&me.method, result) == Some(false)
        && fits(&other.method, result) == Some(true)
    {
        return Some(Problem::Mixed(format!(
            "client {}'s {} (req#{seq}) was answered with a {} result, the answer to client {}'s request with the same id",
            me.client, me.method, other.method, other.client
        )));
    }
    if let Some(theirs) = theirs {
        let stray = me
            .reply
            .notifications
            .iter()
            .filter(|n| token_of(n).and_then(Value::as_str) == Some(theirs))
            .count();
        if stray > 0 {
            return Some(Problem::Mixed(format!(
                "client {} received {stray} progress notification(s) for client {}'s token with its {} (req#{seq})",
                me.client, other.client, me.method
            )));
        }
    }
    None
}

/// True when the request was a `ping` answered "Method not found" (-32601): a server
/// without `ping` (its absence is `handshake.ping`'s to report) answered this client, and
/// the error names nothing of the other client's request, so the answer was neither lost
/// nor crossed.
fn unimplemented_ping(me: &Sent) -> bool {
    me.method == "ping" && alive(&me.reply) && me.reply.error_code() == Some(-32601)
}

/// What went wrong for one client.
#[derive(Debug, Clone, PartialEq)]
enum Problem {
    /// An answer that reached the wrong client, or one that was lost: the server mixed
    /// the clients up.
    Mixed(String),
    /// A 404 on a handshake-era session: the server ended it. A server may end a session
    /// at any time (the client then starts a new one), so this shows nothing about two
    /// clients at once.
    Ended(String),
}

/// True when the reply is HTTP 404 without a JSON-RPC result: on a session-bearing
/// request, the server saying the session is gone.
fn ended(r: &Reply) -> bool {
    r.status() == Some(404) && r.result().is_none()
}

/// Judges [`ConcurrentRun`].
pub fn judge(run: &ConcurrentRun) -> FindingBuilder {
    let ev = cite(
        run.setup
            .iter()
            .chain(run.pairs.iter().flat_map(|(a, b)| [&a.reply, &b.reply])),
    );
    let token = |client: char| {
        run.pairs
            .iter()
            .flat_map(|(a, b)| [a, b])
            .find(|s| s.client == client && s.token.is_some())
            .and_then(|s| s.token.as_deref())
    };
    let (token_a, token_b) = (token('A'), token('B'));
    let sessions = run.clients == SESSIONS;
    let found: Vec<Problem> = run
        .pairs
        .iter()
        .flat_map(|(a, b)| {
            [
                problem(a, b, token_b, sessions),
                problem(b, a, token_a, sessions),
            ]
        })
        .flatten()
        .collect();
    let problems: Vec<String> = found
        .iter()
        .filter_map(|p| match p {
            Problem::Mixed(m) => Some(m.clone()),
            Problem::Ended(_) => None,
        })
        .collect();
    let ended: Vec<&str> = found
        .iter()
        .filter_map(|p| match p {
            Problem::Ended(m) => Some(m.as_str()),
            Problem::Mixed(_) => None,
        })
        .collect();
    // Answers that reached their own client, beside the 404s of ended sessions: with two or
    // more of them the clients were kept apart while both ran, and the 404s are noted.
    let answered = run.pairs.len() * 2 - ended.len();
    if problems.is_empty() && !ended.is_empty() && answered < 2 {
        return CONCURRENT_SESSIONS
            .skip(
                SkipReason::NotAssessed,
                format!(
                    "Not assessed: {}. A server may end a session at any time (the client then starts a new one), so this does not show two clients mixed up; the rest of the answers reached their own client.",
                    ended.join("; ")
                ),
            )
            .evidence(ev);
    }
    let progress = run
        .pairs
        .iter()
        .filter(|(a, _)| a.token.is_some())
        .map(|(a, b)| a.reply.notifications.len() + b.reply.notifications.len())
        .sum::<usize>();
    let with_progress = if run.pairs.iter().any(|(a, _)| a.token.is_some()) {
        format!(
            ", then both called a read-only tool with their own progress token ({progress} progress notification(s), each to its own client)"
        )
    } else {
        String::new()
    };
    let with_progress = if ended.is_empty() {
        with_progress
    } else {
        format!(
            "{with_progress}; {} request(s) got HTTP 404, the server ending a session, which it may do at any time (not counted)",
            ended.len()
        )
    };
    if problems.is_empty() {
        CONCURRENT_SESSIONS
            .pass(format!(
                "{} sent requests with the same ids at once, {} round(s) of different methods{with_progress}: each got its own answer.",
                capitalise(run.clients),
                run.pairs.iter().filter(|(a, _)| a.token.is_none()).count()
            ))
            .evidence(ev)
    } else {
        let more = match problems.len() {
            n if n > MAX_TOLD => format!("; and {} more", n - MAX_TOLD),
            _ => String::new(),
        };
        CONCURRENT_SESSIONS
            .fail(format!(
                "With {} sending requests with the same ids at once: {}{more}. The server mixes up clients (one shared transport, or in-flight requests keyed only by their id).",
                run.clients,
                problems[..problems.len().min(MAX_TOLD)].join("; ")
            ))
            .evidence(ev)
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The skip for a probe that could not set up its two clients.
pub fn not_assessed(why: &str, setup: Vec<Reply>) -> FindingBuilder {
    let f = CONCURRENT_SESSIONS.skip(
        SkipReason::NotAssessed,
        format!("Two clients could not be set up: {why}."),
    );
    let ev = cite(setup.iter());
    if ev.is_empty() { f } else { f.evidence(ev) }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::report::finding::Status;
    use crate::transport::Outcome;

    fn reply(seq: u64, result: Option<Value>, notes: Vec<Value>) -> Reply {
        Reply {
            evidence: vec![seq],
            outcome: if result.is_some() {
                Outcome::Answered
            } else {
                Outcome::TimedOut
            },
            response: result.map(|r| json!({"jsonrpc":"2.0","id":"x","result": r})),
            notifications: notes,
            server_requests: vec![],
            http: None,
            elapsed: Duration::from_millis(1),
            refused: false,
        }
    }

    fn sent(client: char, method: &str, token: Option<&str>, reply: Reply) -> Sent {
        Sent {
            client,
            method: method.into(),
            token: token.map(str::to_string),
            reply,
        }
    }

    fn progress(token: &str) -> Value {
        json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken": token, "progress": 1}})
    }

    #[test]
    fn own_answers_pass_and_crossed_or_lost_ones_fail() {
        let tools = json!({"tools": []});
        let mut run = ConcurrentRun {
            setup: vec![],
            pairs: vec![(
                sent(
                    'A',
                    "tools/list",
                    None,
                    reply(1, Some(tools.clone()), vec![]),
                ),
                sent('B', "ping", None, reply(2, Some(json!({})), vec![])),
            )],
            clients: SESSIONS,
        };
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        assert_eq!(f.evidence, vec![1, 2]);
        // B got A's tools list; A's answer never came.
        run.pairs[0].1.reply = reply(2, Some(tools), vec![]);
        run.pairs[0].0.reply = reply(1, None, vec![]);
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("lost"), "{}", f.detail);
        assert!(f.detail.contains("client B's ping"), "{}", f.detail);
    }

    #[test]
    fn progress_for_the_other_client_fails() {
        let done = json!({"content": []});
        let run = ConcurrentRun {
            setup: vec![],
            pairs: vec![(
                sent(
                    'A',
                    "tools/call",
                    Some("a"),
                    reply(1, Some(done.clone()), vec![progress("a"), progress("b")]),
                ),
                sent('B', "tools/call", Some("b"), reply(2, Some(done), vec![])),
            )],
            clients: CONNECTIONS,
        };
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("client B's token"), "{}", f.detail);
    }

    #[test]
    fn progress_for_the_other_client_on_a_round_request_fails() {
        // The rounds go out beside the progress calls: B's progress reaching A's tools/list
        // (sent at the same time, another id) is as wrong as reaching A's own call.
        let done = json!({"content": []});
        let run = ConcurrentRun {
            setup: vec![],
            pairs: vec![
                (
                    sent(
                        'A',
                        "tools/list",
                        None,
                        reply(1, Some(json!({"tools": []})), vec![progress("b")]),
                    ),
                    sent('B', "ping", None, reply(2, Some(json!({})), vec![])),
                ),
                (
                    sent(
                        'A',
                        "tools/call",
                        Some("a"),
                        reply(3, Some(done.clone()), vec![progress("a")]),
                    ),
                    sent('B', "tools/call", Some("b"), reply(4, Some(done), vec![])),
                ),
            ],
            clients: SESSIONS,
        };
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert!(
            f.detail.contains("client A received 1 progress notification(s) for client B's token with its tools/list"),
            "{}",
            f.detail
        );
    }

    fn not_found(seq: u64) -> Reply {
        Reply {
            http: Some(crate::transport::HttpInfo {
                status: 404,
                ..Default::default()
            }),
            outcome: Outcome::NoResponse,
            ..reply(seq, None, vec![])
        }
    }

    #[test]
    fn a_404_on_an_ended_session_is_not_mixed_up_clients() {
        // Previously a fail ("the server mixes up clients"): a server may end a session at
        // any time, so a 404 there says nothing about two clients at once.
        let mut run = ConcurrentRun {
            setup: vec![],
            pairs: vec![(
                sent(
                    'A',
                    "tools/list",
                    None,
                    reply(1, Some(json!({"tools": []})), vec![]),
                ),
                sent('B', "ping", None, not_found(2)),
            )],
            clients: SESSIONS,
        };
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Skip, "{}", f.detail);
        assert!(f.detail.contains("404"), "{}", f.detail);
        assert_eq!(f.evidence, vec![1, 2]);
        // A crossed answer beside it still fails.
        run.pairs.push((
            sent(
                'A',
                "ping",
                None,
                reply(3, Some(json!({"tools": []})), vec![]),
            ),
            sent(
                'B',
                "tools/list",
                None,
                reply(4, Some(json!({"tools": []})), vec![]),
            ),
        ));
        assert_eq!(judge(&run).status(), Status::Fail);
        // A server without `ping` answers it -32601: previously "its answer was lost".
        let mut no_ping = reply(5, None, vec![]);
        no_ping.outcome = Outcome::Answered;
        no_ping.response =
            Some(json!({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}));
        let unimplemented = ConcurrentRun {
            setup: vec![],
            pairs: vec![(
                sent(
                    'A',
                    "tools/list",
                    None,
                    reply(6, Some(json!({"tools": []})), vec![]),
                ),
                sent('B', "ping", None, no_ping),
            )],
            clients: SESSIONS,
        };
        assert_eq!(judge(&unimplemented).status(), Status::Pass);
        // Without sessions (2026-07-28) a 404 is an answer lost.
        run.pairs.truncate(1);
        run.clients = CONNECTIONS;
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        assert!(f.detail.contains("lost"), "{}", f.detail);
    }
}
