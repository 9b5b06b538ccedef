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
use crate::report::exchange::{ExchangeKind, jsonrpc_messages};
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
    /// When the request went out and when its answer was complete, in milliseconds since
    /// the Unix epoch, from the recorded exchange; `None` when the server never got it (no
    /// HTTP status) or nothing was recorded.
    pub span: Option<(f64, f64)>,
}

/// The requests of both clients, pair by pair (each pair sent at once, with the same id).
#[derive(Debug, Clone, Default)]
pub struct ConcurrentRun {
    /// How the two clients were set up (`initialize` replies in the handshake era).
    pub setup: Vec<Reply>,
    pub pairs: Vec<(Sent, Sent)>,
    /// [`SESSIONS`] or [`CONNECTIONS`].
    pub clients: &'static str,
    /// The slow request sent in the last rounds, if the run had one.
    pub slow: Option<Slow>,
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

/// The slowest request the run saw answered with a result that this probe may send again:
/// a `tools/call` of a tool the policy lets scout call, a `resources/read` or a
/// `prompts/get`, as it was sent. Sent by both clients at once, it keeps both requests in
/// the server for as long as it takes, where millisecond methods may never meet.
#[derive(Debug, Clone, PartialEq)]
pub struct Slow {
    pub method: String,
    /// Its params as the run sent them, without `_meta`.
    pub params: Value,
    /// The tool's `inputSchema` (for the 2026-07-28 `Mcp-Param-*` headers); `Null` otherwise.
    pub input_schema: Value,
    /// How long the run's request took, in milliseconds.
    pub took_ms: f64,
}

/// Rounds of the slow request (see [`Slow`]): in the first two both clients send it, in the
/// other two one of them sends the list instead, so a crossed answer shows by its shape.
pub const SLOW_ROUNDS: usize = 4;
/// A request that took longer than this is not repeated (the rounds would outlast the
/// probe's purpose); the next slowest is.
const SLOW_CAP_MS: f64 = 3000.0;

/// The [`Slow`] request of the `era` wire, if the run recorded one: read from the timings of
/// the ordinary requests answered with a result (either transport), each request's params
/// from its recorded exchanges. One that reported progress wins over a slower one that did
/// not.
pub fn slowest_request(s: &Session, era: Era) -> Option<Slow> {
    let tool = |name: &str| {
        s.catalogs
            .iter()
            .filter(|c| c.era == Some(era))
            .flat_map(|c| &c.tools)
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    };
    s.recorder
        .timings()
        .into_iter()
        .filter(|t| t.era == Some(era) && t.elapsed.as_secs_f64() * 1000.0 <= SLOW_CAP_MS)
        .filter(|t| {
            matches!(
                t.method.as_str(),
                "tools/call" | "resources/read" | "prompts/get"
            )
        })
        .filter_map(|t| {
            let messages: Vec<Value> = t
                .evidence
                .iter()
                .filter_map(|seq| s.recorder.get(*seq))
                .flat_map(|e| jsonrpc_messages(&e))
                .collect();
            let req = messages
                .iter()
                .find(|m| m.get("method").and_then(Value::as_str) == Some(t.method.as_str()))?;
            let id = req.get("id")?;
            let mut params = req.get("params")?.as_object()?.clone();
            params.remove("_meta");
            let input_schema = if t.method == "tools/call" {
                let tool = tool(params.get("name")?.as_str()?)?;
                if !crate::policy::decide(tool, &s.spec.policy).allows() {
                    return None;
                }
                tool.get("inputSchema").cloned().unwrap_or(Value::Null)
            } else {
                Value::Null
            };
            // Answered with a result, not a tool error: the same call again is then an
            // ordinary request that does its work.
            let succeeded = messages.iter().any(|m| {
                m.get("id") == Some(id)
                    && m.get("result")
                        .is_some_and(|r| r.get("isError").and_then(Value::as_bool) != Some(true))
            });
            let progressed = messages
                .iter()
                .any(|m| m.get("method").and_then(Value::as_str) == Some("notifications/progress"));
            succeeded.then(|| {
                let slow = Slow {
                    method: t.method.clone(),
                    params: Value::Object(params),
                    input_schema,
                    took_ms: t.elapsed.as_secs_f64() * 1000.0,
                };
                (progressed, slow)
            })
        })
        // A request that reported progress first: the server says it is at work on it,
        // where another may only have waited behind it.
        .max_by(|(pa, a), (pb, b)| pa.cmp(pb).then(a.took_ms.total_cmp(&b.took_ms)))
        .map(|(_, slow)| slow)
}

/// The slow request with id `id` and progress token `token`.
pub(super) fn slow_probe(slow: &Slow, id: &str, token: &str, modern: bool) -> Probe {
    let mut params = slow.params.clone();
    if let Some(p) = params.as_object_mut() {
        p.insert("_meta".into(), json!({"progressToken": token}));
    }
    let headers = if modern && slow.method == "tools/call" {
        let args = slow.params.get("arguments").cloned().unwrap_or(json!({}));
        crate::transport::headers::param_headers(&args, &slow.input_schema)
            .into_iter()
            .map(|(k, v)| (k, Some(v)))
            .collect()
    } else {
        Vec::new()
    };
    Probe {
        id: IdKind::Str(id.to_string()),
        headers,
        ..Probe::request(&slow.method, params)
    }
}

/// One pair of [`Sent`], spans not yet read.
fn pair(a: (String, Option<String>, Reply), b: (String, Option<String>, Reply)) -> (Sent, Sent) {
    let sent = |client, (method, token, reply)| Sent {
        client,
        method,
        token,
        reply,
        span: None,
    };
    (sent('A', a), sent('B', b))
}

/// The recorded span of a reply's exchange (see [`Sent::span`]).
fn span_of(w: &Connection, r: &Reply) -> Option<(f64, f64)> {
    let e = w.connector().recorder().get(*r.evidence.first()?)?;
    let ExchangeKind::Http(h) = &e.kind else {
        return None;
    };
    h.status?;
    let start = (e.started_at.unix_timestamp_nanos() as f64) / 1e6;
    Some((start, start + e.duration_ms))
}

/// Runs the probe on `w` (HTTP); `progress`: a read-only tool that reports progress; `slow`:
/// the slowest request scout may send again. Both clients are opened at once; the rounds go
/// out beside the progress calls (other ids), so a slow tool does not hold up the rounds;
/// the slow rounds come last.
pub async fn probe(
    w: &Connection,
    progress: Option<ProgressTool>,
    slow: Option<Slow>,
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
    let modern = w.era() == Era::Modern;
    let era = if modern { "modern" } else { "legacy" };
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
            pairs.push(pair((ma.into(), None, ra), (mb.into(), None, rb)));
        }
        pairs
    };
    let progress = async {
        let tool = progress?;
        let id = format!("{ID_PREFIX}-{era}-progress");
        let headers: Vec<(String, Option<String>)> = if modern {
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
        Some(pair(
            ("tools/call".into(), Some(ta), ra),
            ("tools/call".into(), Some(tb), rb),
        ))
    };
    let (pairs, progress) = tokio::join!(rounds, progress);
    run.pairs = pairs;
    run.pairs.extend(progress);
    if let Some(slow) = &slow {
        for round in 0..SLOW_ROUNDS {
            let id = format!("{ID_PREFIX}-{era}-slow-{round}");
            let (ta, tb) = (
                format!("{ID_PREFIX}-{era}-a-{round}"),
                format!("{ID_PREFIX}-{era}-b-{round}"),
            );
            // Every request carries its client's own progress token, the list too: progress
            // of one client's slow request reaching the other shows on either.
            let build = |slow_one: bool, token: &str| {
                if slow_one {
                    slow_probe(slow, &id, token, modern)
                } else {
                    Probe {
                        id: IdKind::Str(id.clone()),
                        ..Probe::request(list, json!({"_meta": {"progressToken": token}}))
                    }
                }
            };
            let (sa, sb) = match round {
                0 | 1 => (true, true),
                r if r % 2 == 0 => (true, false),
                _ => (false, true),
            };
            let (pa, pb) = (build(sa, &ta), build(sb, &tb));
            let (ra, rb) = tokio::join!(a.send(pa), b.send(pb));
            let m = |s: bool| if s { slow.method.clone() } else { list.into() };
            run.pairs
                .push(pair((m(sa), Some(ta), ra), (m(sb), Some(tb), rb)));
        }
    }
    run.slow = slow;
    for (x, y) in &mut run.pairs {
        x.span = span_of(w, &x.reply);
        y.span = span_of(w, &y.reply);
    }
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
        "resources/read" => has("contents"),
        "prompts/get" => has("messages"),
        _ => return None,
    })
}

fn token_of(n: &Value) -> Option<&Value> {
    n.get("params").and_then(|p| p.get("progressToken"))
}

/// What went wrong for one client, if anything. `theirs`: the other client's progress
/// tokens (its progress may not reach any of this client's requests, the rounds sent beside
/// the progress calls included).
fn problem(me: &Sent, other: &Sent, theirs: &[&str], sessions: bool) -> Option<Problem> {
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
    let stray = me
        .reply
        .notifications
        .iter()
        .filter(|n| {
            token_of(n)
                .and_then(Value::as_str)
                .is_some_and(|t| theirs.contains(&t))
        })
        .count();
    if stray > 0 {
        return Some(Problem::Mixed(format!(
            "client {} received {stray} progress notification(s) for client {}'s token with its {} (req#{seq})",
            me.client, other.client, me.method
        )));
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
    let tokens = |client: char| -> Vec<&str> {
        run.pairs
            .iter()
            .flat_map(|(a, b)| [a, b])
            .filter(|s| s.client == client)
            .filter_map(|s| s.token.as_deref())
            .collect()
    };
    let (tokens_a, tokens_b) = (tokens('A'), tokens('B'));
    let sessions = run.clients == SESSIONS;
    let found: Vec<Problem> = run
        .pairs
        .iter()
        .flat_map(|(a, b)| {
            [
                problem(a, b, &tokens_b, sessions),
                problem(b, a, &tokens_a, sessions),
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
    let slow_pairs = if run.slow.is_some() {
        SLOW_ROUNDS.min(run.pairs.len())
    } else {
        0
    };
    let (early, slow) = run.pairs.split_at(run.pairs.len() - slow_pairs);
    let notes = |pairs: &[(Sent, Sent)]| -> usize {
        pairs
            .iter()
            .map(|(a, b)| a.reply.notifications.len() + b.reply.notifications.len())
            .sum()
    };
    let progress_pair: Vec<_> = early
        .iter()
        .filter(|(a, _)| a.token.is_some())
        .cloned()
        .collect();
    let mut with_progress = if progress_pair.is_empty() {
        String::new()
    } else {
        format!(
            ", then both called a read-only tool with their own progress token ({} progress notification(s), each to its own client)",
            notes(&progress_pair)
        )
    };
    if let Some(s) = &run.slow {
        with_progress.push_str(&format!(
            ", then {} round(s) of {}, the slowest request the run had answered ({:.0} ms), each request with its client's own progress token ({} progress notification(s))",
            slow.len(),
            slow_name(s),
            s.took_ms,
            notes(slow)
        ));
    }
    let with_progress = if ended.is_empty() {
        with_progress
    } else {
        format!(
            "{with_progress}; {} request(s) got HTTP 404, the server ending a session, which it may do at any time (not counted)",
            ended.len()
        )
    };
    let together = in_flight_together(run);
    if problems.is_empty() && together == 0 {
        return CONCURRENT_SESSIONS
            .skip(
                SkipReason::NotAssessed,
                format!(
                    "Not assessed: no request of one client was in flight while the other's was (by their recorded send and answer times), so nothing shows whether the server keeps two clients apart ({} pair(s) sent{with_progress}).",
                    run.pairs.len()
                ),
            )
            .evidence(ev);
    }
    if problems.is_empty() {
        CONCURRENT_SESSIONS
            .pass(format!(
                "{} sent requests with the same ids at once, {} round(s) of different methods{with_progress}: each got its own answer; {together} of {} pair(s) were in flight together.",
                capitalise(run.clients),
                early.iter().filter(|(a, _)| a.token.is_none()).count(),
                run.pairs.len()
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

/// How many pairs had both requests in flight at once: each sent before the other's answer
/// was complete, by the recorded times. A request the server never got has no span.
fn in_flight_together(run: &ConcurrentRun) -> usize {
    run.pairs
        .iter()
        .filter(|(a, b)| match (a.span, b.span) {
            (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
            _ => false,
        })
        .count()
}

/// The slow request as the detail names it: `tools/call of slow_report`.
pub(super) fn slow_name(s: &Slow) -> String {
    let name = s
        .params
        .get("name")
        .or_else(|| s.params.get("uri"))
        .and_then(Value::as_str);
    match name {
        Some(n) => format!("{} of {n}", s.method),
        None => s.method.clone(),
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
            // Both requests of a pair in flight together unless a test says otherwise.
            span: Some((0.0, 10.0)),
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
            slow: None,
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
            slow: None,
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
            slow: None,
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
            slow: None,
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
            slow: None,
        };
        assert_eq!(judge(&unimplemented).status(), Status::Pass);
        // Without sessions (2026-07-28) a 404 is an answer lost.
        run.pairs.truncate(1);
        run.clients = CONNECTIONS;
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        assert!(f.detail.contains("lost"), "{}", f.detail);
    }

    #[test]
    fn a_run_with_no_two_requests_in_flight_together_is_not_assessed() {
        // Each pair answered one after the other (as with one request slot): nothing shows
        // whether the server keeps two clients apart, so this is never a pass.
        let mut run = ConcurrentRun {
            setup: vec![],
            pairs: vec![(
                sent(
                    'A',
                    "tools/list",
                    None,
                    reply(1, Some(json!({"tools": []})), vec![]),
                ),
                sent('B', "ping", None, reply(2, Some(json!({})), vec![])),
            )],
            clients: SESSIONS,
            slow: None,
        };
        run.pairs[0].0.span = Some((0.0, 5.0));
        run.pairs[0].1.span = Some((5.0, 9.0));
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Skip, "{}", f.detail);
        assert!(f.detail.contains("in flight"), "{}", f.detail);
        // A request the server never got overlaps nothing either.
        run.pairs[0].1.span = None;
        assert_eq!(judge(&run).status(), Status::Skip);
        // Overlapping by a millisecond is in flight together.
        run.pairs[0].1.span = Some((4.0, 9.0));
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        assert!(f.detail.contains("1 of 1 pair(s)"), "{}", f.detail);
    }

    #[test]
    fn progress_of_a_slow_round_reaching_the_other_client_fails() {
        let slow = Slow {
            method: "resources/read".into(),
            params: json!({"uri": "fixture://slow"}),
            input_schema: Value::Null,
            took_ms: 120.0,
        };
        let read = json!({"contents": []});
        let mut run = ConcurrentRun {
            setup: vec![],
            pairs: vec![(
                sent(
                    'A',
                    "resources/read",
                    Some("ta0"),
                    reply(1, Some(read.clone()), vec![progress("ta0")]),
                ),
                sent(
                    'B',
                    "resources/read",
                    Some("tb0"),
                    reply(2, Some(read.clone()), vec![progress("tb0")]),
                ),
            )],
            clients: SESSIONS,
            slow: Some(slow),
        };
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        assert!(
            f.detail.contains("resources/read of fixture://slow"),
            "{}",
            f.detail
        );
        // B's token reaching A, on a later round of its own token.
        run.pairs.push((
            sent(
                'A',
                "resources/read",
                Some("ta1"),
                reply(3, Some(read.clone()), vec![progress("tb0")]),
            ),
            sent(
                'B',
                "tools/list",
                Some("tb1"),
                reply(4, Some(json!({"tools": []})), vec![]),
            ),
        ));
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        assert!(f.detail.contains("client B's token"), "{}", f.detail);
        // A list answer reaching the client that read: crossed by its shape.
        run.pairs[1].0.reply = reply(3, Some(json!({"tools": []})), vec![]);
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        assert!(f.detail.contains("tools/list result"), "{}", f.detail);
    }
}
