//! Recovery probes: whether the server keeps serving after a request scout abandoned
//! (`timeout_recovery`), after an oversized body (`oversized_request`), and after a
//! handshake-era session was ended (`session_recovery`).

use std::time::Duration;

use serde_json::{Value, json};

use super::concurrent::{Slow, slow_probe};
use super::{OVERSIZED_REQUEST, SESSION_RECOVERY, TIMEOUT_RECOVERY, cite};
use crate::client::{Connection, lifecycle};
use crate::probe::liveness::alive;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::transport::{IdKind, Outcome, Probe, Reply, SessionMode};

/// The size of the padding string in the oversized request's params: 4 MiB, past the
/// 4 MB body limit common HTTP frameworks (and the TypeScript SDK) apply.
pub const OVERSIZED_BYTES: usize = 4 * 1024 * 1024;

/// The id prefix of the abandoned request (fixtures that stall "the request scout gives
/// up on" match it).
pub const ABANDONED_ID: &str = "scout-abandoned";

/// What `timeout_recovery` abandoned.
pub(super) struct Abandoned {
    /// The request scout gave up on (`tools/list`, or the run's slowest request).
    pub what: String,
    pub reply: Reply,
    /// How scout knew the request had started before giving up on it (slow requests).
    pub started: Option<&'static str>,
    /// The `notifications/cancelled` sent for it (slow requests).
    pub cancel: Option<Reply>,
}

/// The shortest time a request of the run must have taken to be abandoned mid-work.
pub(super) const SLOW_ENOUGH_TO_ABANDON_MS: f64 = 200.0;

/// The shortest time scout waits for a slow request's progress before giving up on it.
const GIVE_UP_FLOOR: Duration = Duration::from_millis(50);

/// Abandons a request, then sends `ask`, a request the server already answered. With `slow` (the run's slowest request
/// scout may send again, see [`Slow`]): sends it with a progress token and gives up at its
/// first progress notification, the server's word that it is at work on it, or, from a
/// server that reports none, at half the time the same request took before (a client's
/// timeout); then cancels it with `notifications/cancelled`, as an agent that gives up
/// does. Without: sends `tools/list` and abandons it at once (stdio: without waiting for
/// its answer; HTTP: written whole on a connection of its own, `https://` included, which
/// is closed unread once the write completed).
pub(super) async fn probe_timeout(
    w: &Connection,
    slow: Option<&Slow>,
    ask: &str,
) -> (Abandoned, Reply) {
    let id = format!("{ABANDONED_ID}-{}", era_tag(w.era()));
    // A request quicker than this would be answered before scout gave up on it.
    let Some(slow) = slow.filter(|s| s.took_ms >= SLOW_ENOUGH_TO_ABANDON_MS) else {
        let what = format!(
            "tools/list (no request of the run took {SLOW_ENOUGH_TO_ABANDON_MS:.0} ms or more, to be abandoned while at work)"
        );
        return abandon_at_once(w, id, what, ask).await;
    };
    let give_up = Duration::from_secs_f64(slow.took_ms / 2000.0).max(GIVE_UP_FLOOR);
    let mut probe = slow_probe(slow, &id, &id, w.era() == Era::Modern);
    // Reading ends at the first message that is not the answer: its progress.
    probe.end_after = 1;
    probe.timeout = Some(give_up);
    let reply = w.send(probe).await;
    if reply.response.is_some() {
        // It had only waited behind other requests when it was slow: nothing was abandoned,
        // so tools/list is, as when the run has no slow request.
        let what = format!(
            "tools/list ({} was answered before scout could give up on it)",
            crate::probe::resilience::concurrent::slow_name(slow)
        );
        return abandon_at_once(w, format!("{id}-list"), what, ask).await;
    }
    let progressed = reply
        .notifications
        .iter()
        .any(|n| n.get("method").and_then(Value::as_str) == Some("notifications/progress"));
    let cancel = w
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": id, "reason": "scout gave up on the request"})),
        )
        .await;
    let next = w.request(ask, json!({})).await;
    let abandoned = Abandoned {
        what: crate::probe::resilience::concurrent::slow_name(slow),
        reply,
        started: Some(if progressed {
            "at its first progress notification"
        } else {
            "after half the time it took before"
        }),
        cancel: Some(cancel),
    };
    (abandoned, next)
}

/// Sends `tools/list` with id `id` and abandons it at once, then `ask`.
async fn abandon_at_once(
    w: &Connection,
    id: String,
    what: String,
    ask: &str,
) -> (Abandoned, Reply) {
    let stdio = w.transport() == TransportKind::Stdio;
    let reply = w
        .send(Probe {
            id: IdKind::Str(id),
            // Bounds the write of the request over HTTP (and keeps it out of the latency
            // timings: it is not an ordinary request).
            timeout: Some(w.connector().timeout()),
            expect_no_reply: stdio,
            abandon: !stdio,
            ..Probe::request("tools/list", json!({}))
        })
        .await;
    let next = w.request(ask, json!({})).await;
    let abandoned = Abandoned {
        what,
        reply,
        started: None,
        cancel: None,
    };
    (abandoned, next)
}

fn era_tag(e: Era) -> &'static str {
    match e {
        Era::Legacy => "legacy",
        Era::Modern => "modern",
    }
}

/// Judges `timeout_recovery`: only a request scout really stopped waiting for counts as
/// abandoned (one written without waiting, one whose reading scout ended before its
/// answer, or one that timed out).
pub(super) fn timeout_recovery(a: &Abandoned, next: &Reply) -> FindingBuilder {
    let ev = cite(
        std::iter::once(&a.reply)
            .chain(a.cancel.iter())
            .chain(std::iter::once(next)),
    );
    let what = &a.what;
    // A slow request's reading ends at its first progress notification, whatever the
    // transport calls that outcome: given up on as long as its response had not come.
    let given_up = match (&a.reply.outcome, a.started) {
        (Outcome::TransportError(_), _) => false,
        (Outcome::TimedOut, _) => true,
        (_, Some(_)) => a.reply.response.is_none(),
        (Outcome::NoResponse, None) => a.reply.http.is_none(),
        _ => false,
    };
    if !given_up {
        return TIMEOUT_RECOVERY
            .skip(
                SkipReason::NotAssessed,
                format!(
                    "The {what} scout meant to abandon was not abandoned ({} before scout gave up), so there was nothing to recover from.",
                    describe(&a.reply)
                ),
            )
            .evidence(ev);
    }
    let how = match a.started {
        Some(when) => format!("After scout gave up on {what} {when} and cancelled it"),
        None => format!("After scout gave up on {what} without waiting for its answer"),
    };
    if alive(next) {
        TIMEOUT_RECOVERY
            .pass(format!("{how}, the next request was answered normally."))
            .evidence(ev)
    } else {
        TIMEOUT_RECOVERY
            .fail(format!(
                "{how}, the next ordinary request {}.",
                describe(next)
            ))
            .evidence(ev)
    }
}

/// Sends `ask` (a read-only request the server already answered) with a
/// [`OVERSIZED_BYTES`] padding string in its params, then `ask` again, plain.
pub(super) async fn probe_oversized(w: &Connection, ask: &str) -> (Reply, Reply) {
    // The padding is streamed (over HTTP), never held in memory at once.
    let mut probe = crate::transport::Probe::request(
        ask,
        json!({"scoutPadding": crate::transport::PAD_MARKER}),
    );
    probe.pad = Some(OVERSIZED_BYTES);
    let big = w.send(probe).await;
    let next = w.request(ask, json!({})).await;
    (big, next)
}

/// Judges `oversized_request`: refusing (413, any 4xx, a JSON-RPC error) or serving the
/// big request is fine; a crash, a hang or a server that stops serving is not.
pub(super) fn oversized_request(big: &Reply, next: &Reply) -> FindingBuilder {
    let ev = cite([big, next]);
    let mib = OVERSIZED_BYTES / (1024 * 1024);
    if !alive(next) {
        return OVERSIZED_REQUEST
            .fail(format!(
                "After a request of over {mib} MiB ({}), the next ordinary request {}.",
                describe(big),
                describe(next)
            ))
            .evidence(ev);
    }
    let status = big.status();
    let b = match &big.outcome {
        Outcome::TimedOut => OVERSIZED_REQUEST.fail(format!(
            "A request of over {mib} MiB was neither answered nor refused before the timeout (the next request was served)."
        )),
        Outcome::TransportError(e) if e.starts_with(crate::transport::http::BODY_NOT_TAKEN) => {
            OVERSIZED_REQUEST.pass(format!(
                "A request of over {mib} MiB was refused: {e}. An early answer (413) and then closing the connection is how a server refuses a body past its limit (whichever of the two scout sees first); the next request was served."
            ))
        }
        Outcome::TransportError(e) => OVERSIZED_REQUEST.warn(format!(
            "A request of over {mib} MiB broke the connection ({e}) instead of being refused with 413 or a JSON-RPC error; the next request was served."
        )),
        _ if status.is_some_and(|s| s >= 500) => OVERSIZED_REQUEST.warn(format!(
            "A request of over {mib} MiB got HTTP {} (a server fault) instead of 413 or a JSON-RPC error; the next request was served.",
            status.unwrap_or_default()
        )),
        _ if status == Some(413) => OVERSIZED_REQUEST.pass(format!(
            "A request of over {mib} MiB was refused with 413; the next request was served."
        )),
        _ if big.error_code().is_some() => OVERSIZED_REQUEST.pass(format!(
            "A request of over {mib} MiB got JSON-RPC error {}; the next request was served.",
            big.error_code().unwrap_or_default()
        )),
        _ if status.is_some_and(|s| (400..500).contains(&s)) => OVERSIZED_REQUEST.pass(format!(
            "A request of over {mib} MiB was refused with HTTP {}; the next request was served.",
            status.unwrap_or_default()
        )),
        _ if big.result().is_some() || big.outcome == Outcome::Truncated => {
            OVERSIZED_REQUEST.pass(format!(
                "A request of over {mib} MiB was accepted and answered; the next request was served."
            ))
        }
        _ => OVERSIZED_REQUEST.warn(format!(
            "A request of over {mib} MiB got {} instead of 413 or a JSON-RPC error; the next request was served.",
            describe(big)
        )),
    };
    b.evidence(ev)
}

/// What `session_recovery` saw on a throw-away session.
pub(super) struct SessionRun {
    pub init: Reply,
    pub delete: Option<Reply>,
    /// A request carrying the ended session's id.
    pub stale: Option<Reply>,
    /// The new `initialize` and a request on its session.
    pub reinit: Option<Reply>,
    pub after: Option<Reply>,
}

impl SessionRun {
    fn all(&self) -> impl Iterator<Item = &Reply> {
        std::iter::once(&self.init)
            .chain(self.delete.iter())
            .chain(self.stale.iter())
            .chain(self.reinit.iter())
            .chain(self.after.iter())
    }
}

/// Opens a throw-away session on a fresh wire, ends it with DELETE, sends `ask` (a request
/// the server already answered) with the ended id, then a new `initialize` and `ask` on
/// the new session.
pub(super) async fn probe_session(w: &Connection, ask: &str) -> Result<SessionRun, String> {
    let fresh = w.fresh().await.map_err(|e| e.to_string())?;
    let version = w.protocol_version().to_string();
    let init = lifecycle::initialize(&fresh, &version).await;
    let mut run = SessionRun {
        init,
        delete: None,
        stale: None,
        reinit: None,
        after: None,
    };
    let Some(old) = fresh.session_id() else {
        return Ok(run);
    };
    let _ = fresh.notify("notifications/initialized", None).await;
    run.delete = fresh.close().await;
    if !run
        .delete
        .as_ref()
        .and_then(Reply::status)
        .is_some_and(|s| (200..300).contains(&s))
    {
        return Ok(run);
    }
    let stale = fresh
        .send(Probe {
            session: SessionMode::Custom(old),
            ..Probe::request(ask, json!({}))
        })
        .await;
    let ended = stale.status() == Some(404);
    run.stale = Some(stale);
    if !ended {
        return Ok(run);
    }
    let reinit = lifecycle::initialize(&fresh, &version).await;
    let ok = reinit.result().is_some();
    run.reinit = Some(reinit);
    if ok {
        let _ = fresh.notify("notifications/initialized", None).await;
        run.after = Some(fresh.request(ask, json!({})).await);
    }
    fresh.close().await;
    Ok(run)
}

/// Judges `session_recovery` from [`probe_session`].
pub(super) fn session_recovery(run: &SessionRun) -> FindingBuilder {
    let ev = cite(run.all());
    let skip = |reason, why: String| SESSION_RECOVERY.skip(reason, why).evidence(ev.clone());
    if run.init.result().is_none() {
        return skip(
            SkipReason::NotAssessed,
            format!(
                "A throw-away session could not be opened (initialize {}).",
                describe(&run.init)
            ),
        );
    }
    let Some(del) = &run.delete else {
        return skip(
            SkipReason::NotApplicable,
            "The server issues no Mcp-Session-Id, so there is no session to end.".into(),
        );
    };
    let Some(stale) = &run.stale else {
        return skip(
            SkipReason::NotApplicable,
            format!(
                "DELETE did not end the session ({}); protocol.delete judges that.",
                describe(del)
            ),
        );
    };
    if stale.status() != Some(404) {
        return skip(
            SkipReason::NotAssessed,
            format!(
                "A request with the ended session's id got {} rather than 404; protocol.delete judges that.",
                describe(stale)
            ),
        );
    }
    match (&run.reinit, &run.after) {
        (Some(_), Some(a)) if served_on_its_session(a) => SESSION_RECOVERY
            .pass("After the ended session's id got 404, a new initialize opened a session that served the next request.")
            .evidence(ev),
        (Some(r), None) => SESSION_RECOVERY
            .fail(format!(
                "After the ended session's id got 404, a new initialize {}.",
                describe(r)
            ))
            .evidence(ev),
        (_, Some(a)) => SESSION_RECOVERY
            .fail(format!(
                "After the ended session's id got 404, a new initialize was answered but the next request on its session {}.",
                describe(a)
            ))
            .evidence(ev),
        (None, None) => SESSION_RECOVERY
            .fail("After the ended session's id got 404, no new initialize could be sent.")
            .evidence(ev),
    }
}

/// True when the new session answered: any JSON-RPC answer, but not one the transport
/// refused (an HTTP 4xx or 5xx says the session itself was not accepted).
fn served_on_its_session(r: &Reply) -> bool {
    alive(r) && r.status().is_none_or(|s| s < 400)
}

/// Skips `session_recovery` where it does not apply (no handshake-era HTTP wire).
pub(super) fn session_not_applicable(transport: TransportKind) -> FindingBuilder {
    SESSION_RECOVERY.skip(
        SkipReason::NotApplicable,
        match transport {
            TransportKind::Http => {
                "Sessions belong to the handshake era; this server speaks only 2026-07-28."
            }
            _ => "Sessions exist only on Streamable HTTP.",
        },
    )
}

/// A short account of what a reply was, for details.
pub(super) fn describe(r: &Reply) -> String {
    match &r.outcome {
        Outcome::TimedOut => "timed out".into(),
        Outcome::TransportError(e) => format!("failed at the transport ({e})"),
        _ => {
            let http = r
                .status()
                .map(|s| format!("HTTP {s}, "))
                .unwrap_or_default();
            if let Some(code) = r.error_code() {
                format!("got {http}JSON-RPC error {code}")
            } else if r.result().is_some() {
                format!("got {http}a result")
            } else {
                format!("got {http}no JSON-RPC response")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::report::finding::Status;
    use crate::transport::HttpInfo;

    use crate::probe::resilience::tests::reply;
    fn ok(seq: u64) -> Reply {
        reply(
            seq,
            Outcome::Answered,
            Some(json!({"jsonrpc":"2.0","id":1,"result":{}})),
        )
    }
    fn status(seq: u64, code: u16) -> Reply {
        Reply {
            http: Some(HttpInfo {
                status: code,
                ..HttpInfo::default()
            }),
            ..reply(seq, Outcome::NoResponse, None)
        }
    }

    fn at_once(reply: Reply) -> Abandoned {
        Abandoned {
            what: "tools/list".into(),
            reply,
            started: None,
            cancel: None,
        }
    }

    #[test]
    fn timeout_recovery_needs_a_real_abandon() {
        let timed_out = || at_once(reply(1, Outcome::TimedOut, None));
        let f = timeout_recovery(&timed_out(), &ok(2));
        assert_eq!(f.status(), Status::Pass);
        let dead = reply(2, Outcome::TimedOut, None);
        assert_eq!(timeout_recovery(&timed_out(), &dead).status(), Status::Fail);
        // stdio: written without waiting for the answer.
        let unawaited = at_once(reply(1, Outcome::NoResponse, None));
        assert_eq!(timeout_recovery(&unawaited, &ok(2)).status(), Status::Pass);
        // Answered within the short timeout: nothing was abandoned, so no verdict.
        assert_eq!(
            timeout_recovery(&at_once(ok(1)), &ok(2)).status(),
            Status::Skip
        );
        // HTTP answered without a JSON-RPC response: not abandoned either.
        assert_eq!(
            timeout_recovery(&at_once(status(1, 202)), &ok(2)).status(),
            Status::Skip
        );
    }

    #[test]
    fn a_slow_request_given_up_at_its_progress_is_abandoned() {
        // Over HTTP scout stops reading the stream at the first progress notification: an
        // HTTP answer without the response, abandoned all the same; then it cancels.
        let slow = Abandoned {
            what: "tools/call of slow".into(),
            reply: status(1, 200),
            started: Some("at its first progress notification"),
            cancel: Some(status(2, 202)),
        };
        let f = timeout_recovery(&slow, &ok(3))
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        assert_eq!(f.evidence, vec![1, 2, 3]);
        let hung = reply(3, Outcome::TimedOut, None);
        let f = timeout_recovery(&slow, &hung)
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        assert!(f.detail.contains("tools/call of slow"), "{}", f.detail);
        assert!(f.detail.contains("cancelled it"), "{}", f.detail);
    }

    #[test]
    fn oversized_refusals_pass_and_crashes_fail() {
        assert_eq!(
            oversized_request(&status(1, 413), &ok(2)).status(),
            Status::Pass
        );
        let err = reply(
            1,
            Outcome::Answered,
            Some(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"too big"}})),
        );
        assert_eq!(oversized_request(&err, &ok(2)).status(), Status::Pass);
        assert_eq!(oversized_request(&ok(1), &ok(2)).status(), Status::Pass);
        assert_eq!(
            oversized_request(&status(1, 500), &ok(2)).status(),
            Status::Warn
        );
        let gone = reply(1, Outcome::TransportError("process exited".into()), None);
        let next = reply(2, Outcome::TransportError("stdin is closed".into()), None);
        let f = oversized_request(&gone, &next)
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert_eq!(f.evidence, vec![1, 2]);
        // Closed before the body's end (an early 413 lost with it): previously a warning
        // or a pass depending on which scout saw first; a refusal either way.
        let cut = reply(
            1,
            Outcome::TransportError(format!(
                "{} (262144 of 4194350 bytes written): Broken pipe",
                crate::transport::http::BODY_NOT_TAKEN
            )),
            None,
        );
        assert_eq!(oversized_request(&cut, &ok(2)).status(), Status::Pass);
        let broken = reply(1, Outcome::TransportError("connection reset".into()), None);
        assert_eq!(oversized_request(&broken, &ok(2)).status(), Status::Warn);
        let hang = reply(1, Outcome::TimedOut, None);
        assert_eq!(oversized_request(&hang, &ok(2)).status(), Status::Fail);
    }

    #[test]
    fn session_recovery_is_judged_only_after_a_404() {
        let mut run = SessionRun {
            init: ok(1),
            delete: Some(status(2, 200)),
            stale: Some(status(3, 404)),
            reinit: Some(ok(4)),
            after: Some(ok(5)),
        };
        let f = session_recovery(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass);
        assert_eq!(f.evidence, vec![1, 2, 3, 4, 5]);
        run.after = None;
        run.reinit = Some(status(4, 400));
        assert_eq!(session_recovery(&run).status(), Status::Fail);
        run.stale = Some(ok(3));
        assert_eq!(session_recovery(&run).status(), Status::Skip);
        run.stale = None;
        run.delete = Some(status(2, 405));
        assert_eq!(session_recovery(&run).status(), Status::Skip);
    }
}
