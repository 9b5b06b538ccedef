//! Resilience: whether the server keeps serving after bad input, an abandoned request, an
//! oversized body or an ended session ([`recovery`]), whether its answers depend on the
//! connection ([`stateless`]), whether two clients at once stay apart ([`concurrent`]), and
//! whether what it sends over the whole run fits in what scout keeps (`output_volume`,
//! judged after the last phase).

pub mod concurrent;
mod recovery;
mod stateless;

pub use recovery::{ABANDONED_ID, OVERSIZED_BYTES};
use serde_json::json;

use crate::client::Connection;
use crate::probe::Session;
use crate::probe::liveness::{alive, liveness_request};
use crate::report::check::spec_url;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::telemetry::recorder::{self, Overflow};
use crate::transport::{Outcome, Probe, Reply};

crate::checks! { phase: Resilience;
    MALFORMED_SURVIVAL = "resilience.malformed_survival", Major, "The server still serves after garbage", spec_url::B26,
        "scout sends a burst of malformed messages (truncated JSON, a bare string, an array of garbage, invalid UTF-8 replaced text) and then a request the server already answered in this run (server/discover on 2026-07-28 wires; ping in the handshake era when the server served it, otherwise a list it served), which must still get a JSON-RPC answer (a result or an error). Over stdio a crash here kills the session an agent depends on.",
        "Handle malformed input per message: answer or drop it, never tear down the process or connection.";
    TIMEOUT_RECOVERY = "resilience.timeout_recovery", Major, "The server still serves after an abandoned request", "",
        "scout abandons a request, as an agent that gives up does, then sends a request the server already answered in this run (as for malformed_survival), which must get a JSON-RPC answer. The request abandoned is the run's slowest answered request that scout may send again (one that reported progress first: a tools/call the policy allows, a resources/read or a prompts/get), if it took 200 ms or more, sent with a progress token and given up once its first progress notification shows the server at work on it (or, from a server that reports none, after half the time it took before), then cancelled with notifications/cancelled; on stdio and Streamable HTTP alike. Without such a request, or when that request is answered before scout gives up on it (it had only waited behind others), it is tools/list, abandoned at once (stdio: the line is written and its answer never awaited; Streamable HTTP, http:// and https:// alike, local or remote: the request is written whole on a connection of its own, which is closed unread as soon as the write completed). A tools/list that could not be written, or that was answered before scout gave up on it, leaves the check not assessed.",
        "Do not let one slow or abandoned request block the others: handle requests concurrently, or at least let the next one through once the client has gone.";
    OVERSIZED_REQUEST = "resilience.oversized_request", Major, "An oversized request is refused, not fatal", "",
        "scout sends one read-only request the server already answered in this run (as for malformed_survival) whose params carry a 4 MiB padding string, then the same request without the padding, which must get a JSON-RPC answer. Refusing the big one (HTTP 413 or another 4xx, a JSON-RPC error, or closing the connection before taking the whole body, as a server does after an early 413 that scout may not get to read) or serving it passes; a 5xx or a connection dropped after the whole body was written is a warning; a crash, a hang, or a next request that is not served fails.",
        "Cap the size of request bodies and answer 413 (HTTP) or a JSON-RPC error above the cap, without tearing down the process or connection.";
    STATELESS = "resilience.stateless", Major, "Answers do not depend on the connection", spec_url::B26,
        "2026-07-28 wires: tools/list is sent first on a fresh, independent connection (a second stdio process, or a new HTTP wire), then twice on the run's own wire with server/discover in between. The tools must be the same every time (cursors and _meta may differ).",
        "Keep no per-connection state: answer every request from its own params and _meta.";
    SESSION_RECOVERY = "resilience.session_recovery", Minor, "A client can start over after its session ended", spec_url::T25C,
        "Handshake era over Streamable HTTP: scout opens a throw-away session, ends it with DELETE, checks that its id now gets 404, and then sends a new initialize, whose session must answer a request the server already answered in this run (as for malformed_survival). Servers that refuse DELETE (405) or keep the ended session are left to protocol.delete.",
        "After a session ends, accept a new initialize without a session id and issue a new session, as clients re-initialize on 404.";
    CONCURRENT_SESSIONS = "resilience.concurrent_sessions", Critical, "Two clients at once stay apart", "",
        "Streamable HTTP: scout opens two clients at once (two sessions in the handshake era, two independent connections on 2026-07-28) and, in 3 rounds, sends from both at the same moment requests with the same id whose answers show whom they were meant for (a list, and server/discover or ping; the clients swap every round). When the execution phase found a read-only tool that reports progress, both also call it at once with the same id and their own progressToken. Then both repeat, in 4 rounds with the same id each, the slowest request the run had answered that scout may send again (a tools/call the policy allows, a resources/read or a prompts/get, up to 3 s), each with its own progressToken; in the last two rounds one client sends the list instead. A response or progress notification of one client reaching the other, or an answer lost, fails. A run in which no request of one client was in flight while the other's was (by the recorded send and answer times) is not assessed. Only requests the policy allows are sent. stdio: not applicable (each client is its own process).",
        "Key in-flight requests by session or connection and request id, never by id alone, and send each response and notification on the stream of the request it belongs to.";
    OUTPUT_VOLUME = "resilience.output_volume", Minor, "The server's output fits in what scout keeps", "",
        "Judged over the whole run, from the spawn or first request to the shutdown. scout keeps at most 20,000 exchanges and 64 MiB of bodies, lines and headers per server. Messages the server sends on its own past that (notifications, stray stdout lines, unmatched replies, HTTP+SSE events) are counted but neither kept nor judged: a server that floods its client this way fails, and checks that read those messages saw only the part before the cap. When only scout's own exchanges pass the byte cap, they are kept with their bodies cut to the first 512 bytes, and this is a warning.",
        "Do not write unsolicited output in bulk: send logs to stderr (stdio) or as occasional logging notifications, and keep results small or paginated.";
    STAYS_UP = "resilience.stays_up", Critical, "The server keeps answering for the whole run", spec_url::B26,
        "Judged over the whole run, on every transport: a server that stops answering part-way (the stdio process exits, or the HTTP server refuses connections or drops them unanswered) fails, naming the request it stopped at, and the gate fails with it whatever its thresholds; every verdict scout could no longer make is not assessed, saying why. A stop caused by scout's own malformed or oversized message is charged to resilience.malformed_survival or resilience.oversized_request instead.",
        "Keep serving for as long as the client is connected: find out from the server's log why it exited or stopped listening part-way through the session.";
}

/// The garbage sent before the follow-up request.
pub const GARBAGE: [&str; 4] = [
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":",
    "\"just a string\"",
    "[1,2,{\"x\":]",
    "\u{fffd}\u{fffd}not json at all",
];

/// Judges the follow-up request after the garbage.
pub fn malformed_survival(
    era: Option<Era>,
    garbage: &[Reply],
    follow_up: &Reply,
) -> FindingBuilder {
    let evidence: Vec<_> = garbage
        .iter()
        .chain(std::iter::once(follow_up))
        .flat_map(|r| r.evidence.iter().copied())
        .collect();
    let mut f = if alive(follow_up) {
        MALFORMED_SURVIVAL.pass(format!(
            "After {} malformed messages the next request was answered.",
            garbage.len()
        ))
    } else {
        let what = match &follow_up.outcome {
            Outcome::TimedOut => "timed out".to_string(),
            Outcome::TransportError(e) => format!("failed at the transport ({e})"),
            _ => "got no JSON-RPC answer".to_string(),
        };
        MALFORMED_SURVIVAL.fail(format!(
            "After {} malformed messages the next ordinary request {what}.",
            garbage.len()
        ))
    }
    .evidence(evidence);
    if let Some(e) = era {
        f = f.era(e);
    }
    f
}

/// The exchanges of several replies, in order.
fn cite<'a>(replies: impl IntoIterator<Item = &'a Reply>) -> Vec<crate::report::exchange::Seq> {
    replies
        .into_iter()
        .flat_map(|r| r.evidence.iter().copied())
        .collect()
}

fn tag(f: FindingBuilder, era: Era, dual: bool) -> FindingBuilder {
    if dual { f.era(era) } else { f }
}

/// Runs this phase's probes against the session.
pub async fn run(s: &mut Session) {
    run_sessions(s).await;
    run_late(s).await;
}

/// `concurrent_sessions`: two extra clients of their own that only read, so the run plan
/// takes it beside the security phase, after the broken-input stage (and after execution,
/// which finds the tool that reports progress).
pub async fn run_sessions(s: &mut Session) {
    let wires = s.wires.clone();
    if wires.is_empty() {
        return;
    }
    let dual = wires.len() > 1;
    if let Some(skip) = crate::probe::classes::refused(&s.spec, &CONCURRENT_SESSIONS) {
        s.add(skip);
        return;
    }
    concurrent_sessions(s, &wires, dual).await;
}

/// Every other probe of the phase: broken and oversized input, abandoned requests, second
/// connections and ended sessions. One after another and alone on the wire (the final
/// stage): if the server falls over, scout must know which request did it.
pub async fn run_late(s: &mut Session) {
    let wires = s.wires.clone();
    let dual = wires.len() > 1;
    malformed(s, &wires, dual).await;
    if wires.is_empty() {
        return;
    }
    for w in &wires {
        let ask = liveness_request(s, w);
        let slow = concurrent::slowest_request(s, w.era());
        let (abandoned, next) = recovery::probe_timeout(w, slow.as_ref(), ask).await;
        s.add(tag(
            recovery::timeout_recovery(&abandoned, &next),
            w.era(),
            dual,
        ));
        if let Some(skip) = crate::probe::classes::refused(&s.spec, &OVERSIZED_REQUEST) {
            s.add(tag(skip, w.era(), dual));
            continue;
        }
        let (big, next) = recovery::probe_oversized(w, ask).await;
        s.add(tag(recovery::oversized_request(&big, &next), w.era(), dual));
    }
    match wires.iter().find(|w| w.era() == Era::Modern) {
        Some(w) if !w.declares("tools") => s.add(STATELESS.skip(
            SkipReason::NotApplicable,
            "The server declares no tools capability, and tools/list is what scout compares.",
        )),
        Some(w) => match stateless::probe(w).await {
            Ok(run) => s.add(stateless::stateless(&run)),
            Err(e) => s.add(STATELESS.skip(
                SkipReason::NotAssessed,
                format!("No second connection could be opened: {e}."),
            )),
        },
        None => s.add(STATELESS.skip(
            SkipReason::NotApplicable,
            "The server does not speak 2026-07-28.",
        )),
    }
    match wires.iter().find(|w| w.era() == Era::Legacy) {
        Some(w) if w.transport() == TransportKind::Http => {
            match recovery::probe_session(w, liveness_request(s, w)).await {
                Ok(run) => s.add(recovery::session_recovery(&run)),
                Err(e) => s.add(SESSION_RECOVERY.skip(
                    SkipReason::NotAssessed,
                    format!("No second connection could be opened: {e}."),
                )),
            }
        }
        Some(w) => s.add(recovery::session_not_applicable(w.transport())),
        None => s.add(SESSION_RECOVERY.skip(
            SkipReason::NotApplicable,
            "Sessions belong to the handshake era; this server speaks only 2026-07-28.",
        )),
    }
}

/// `concurrent_sessions` on every Streamable HTTP wire.
async fn concurrent_sessions(s: &mut Session, wires: &[Connection], dual: bool) {
    let http: Vec<&Connection> = wires
        .iter()
        .filter(|w| w.transport() == TransportKind::Http)
        .collect();
    if http.is_empty() {
        s.add(CONCURRENT_SESSIONS.skip(
            SkipReason::NotApplicable,
            match wires.first().map(Connection::transport) {
                Some(TransportKind::Stdio) => {
                    "Over stdio each client starts its own server process: there is nothing for two clients to share."
                }
                _ => "Two clients at once are probed over Streamable HTTP only.",
            },
        ));
        return;
    }
    for w in http {
        let progress = concurrent::progress_tool(s, w.era());
        let slow = concurrent::slowest_request(s, w.era());
        let f = match concurrent::probe(w, progress, slow).await {
            Ok(run) => concurrent::judge(&run),
            Err((why, setup)) => concurrent::not_assessed(&why, setup),
        };
        s.add(tag(f, w.era(), dual));
    }
}

/// `malformed_survival` on every wire.
async fn malformed(s: &mut Session, wires: &[Connection], dual: bool) {
    // On a remote target the garbage goes to the server once, on the first wire: it is
    // unparsable, so the revision a wire speaks cannot change what it means.
    let once = crate::probe::classes::malformed_once(&s.spec);
    let mut sent_on = None;
    for w in wires {
        if let Some(era) = sent_on {
            s.add(crate::probe::classes::sent_once(&MALFORMED_SURVIVAL, era).era(w.era()));
            continue;
        }
        if once {
            sent_on = Some(w.era());
        }
        // Sent together: each waits a short quiet period for a reply, and the waits overlap.
        let garbage = futures_util::future::join_all(GARBAGE.iter().map(|g| {
            w.send(Probe {
                raw_body: Some(g.to_string()),
                expect_no_reply: true,
                ..Probe::default()
            })
        }))
        .await;
        // A request the server already answered in this run: one it does not implement
        // (`ping` on a server without it) would say nothing about the garbage.
        let follow = w.request(liveness_request(s, w), json!({})).await;
        s.add(malformed_survival(
            dual.then_some(w.era()),
            &garbage,
            &follow,
        ));
    }
}

/// Judges what the recorder's caps held back over the run.
pub fn output_volume(o: &Overflow, kept: usize, bytes: usize) -> FindingBuilder {
    let caps = format!(
        "scout keeps {} exchanges and {} MiB per server run",
        recorder::MAX_EXCHANGES,
        recorder::MAX_BYTES / (1024 * 1024)
    );
    if o.dropped > 0 {
        let f = OUTPUT_VOLUME.fail(format!(
            "The server sent {} message(s) ({} bytes) on its own beyond what {caps}: they were counted, not kept or judged{}.{}",
            o.dropped,
            o.dropped_bytes,
            o.kept_before_drop
                .map(|s| format!(" (the last exchange kept before them is req#{s})"))
                .unwrap_or_default(),
            if o.cut > 0 {
                format!(
                    " {} exchange(s) of scout's own were kept with bodies cut to {} bytes.",
                    o.cut,
                    recorder::KEPT_PREFIX
                )
            } else {
                String::new()
            }
        ));
        return match o.kept_before_drop {
            Some(seq) => f.evidence([seq]),
            None => f.without_exchange(),
        };
    }
    if o.cut > 0 {
        let f = OUTPUT_VOLUME.warn(format!(
            "The run passed the byte cap ({caps}): {} exchange(s) were kept with bodies cut to their first {} bytes, first req#{}.",
            o.cut,
            recorder::KEPT_PREFIX,
            o.first_cut.unwrap_or_default()
        ));
        return match o.first_cut {
            Some(seq) => f.evidence([seq]),
            None => f.without_exchange(),
        };
    }
    OUTPUT_VOLUME
        .info(format!(
            "Every exchange was kept: {kept} exchange(s), {:.1} MiB ({caps}).",
            bytes as f64 / (1024.0 * 1024.0)
        ))
        .without_exchange()
}

/// Records `output_volume` at the end of the run (after every wire was closed). A cap that
/// was reached is reported even when the phase was not selected or did not run; otherwise a
/// skip already recorded for it stands.
pub fn record_output_volume(s: &mut Session) {
    let o = s.recorder.overflow();
    let present = s.findings.iter().any(|f| f.id == OUTPUT_VOLUME.id);
    if present && !o.any() {
        return;
    }
    s.findings.retain(|f| f.id != OUTPUT_VOLUME.id);
    let f = output_volume(&o, s.recorder.len(), s.recorder.bytes());
    s.add(f);
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::report::finding::Status;

    /// A reply for the judges' tests (also used by the child modules' tests).
    pub(super) fn reply(seq: u64, outcome: Outcome, response: Option<serde_json::Value>) -> Reply {
        Reply {
            evidence: vec![seq],
            outcome,
            response,
            notifications: vec![],
            server_requests: vec![],
            http: None,
            elapsed: Duration::from_millis(1),
            refused: false,
        }
    }

    #[test]
    fn the_follow_up_decides_and_every_exchange_is_cited() {
        let garbage: Vec<Reply> = (1..=4)
            .map(|i| reply(i, Outcome::NoResponse, None))
            .collect();
        let ok = reply(
            5,
            Outcome::Answered,
            Some(json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}})),
        );
        let f = malformed_survival(Some(Era::Legacy), &garbage, &ok)
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Pass);
        assert_eq!(f.evidence, vec![1, 2, 3, 4, 5]);
        assert_eq!(f.era, Some(Era::Legacy));
        let dead = reply(6, Outcome::TransportError("process exited".into()), None);
        let f = malformed_survival(None, &garbage, &dead)
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("process exited"), "{}", f.detail);
        // Any JSON-RPC answer is "still serving": previously an error to the follow-up
        // (a server without `ping` answering -32601) failed the check.
        let refused = reply(
            7,
            Outcome::Answered,
            Some(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}})),
        );
        assert_eq!(
            malformed_survival(None, &garbage, &refused).status(),
            Status::Pass
        );
        assert_eq!(
            malformed_survival(None, &garbage, &reply(8, Outcome::TimedOut, None)).status(),
            Status::Fail
        );
    }
}
