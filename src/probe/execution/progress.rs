//! `execution.progress` and `execution.cancellation`: what a server sends about a call
//! while it runs, and after it was cancelled.

use std::time::Duration;

use serde_json::{Value, json};

use super::{CANCELLATION, PROGRESS};
use crate::client::Connection;
use crate::probe::catalog::describe;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::{IdKind, Outcome, Probe, Reply};

/// A reply to a cancelled call that arrives this long after the call was sent came after the
/// server had the cancellation (sent [`CANCEL_AFTER`] after the call), however loaded the
/// machine; a call meant to run for less is judged at half its run (see [`late_after`]).
const LATE_AFTER_CANCEL: Duration = Duration::from_millis(500);

/// A reply later than this came after the server had the cancellation: half the time the
/// call should run (by then a cancellation sent [`CANCEL_AFTER`] into it has long arrived),
/// and never more than [`LATE_AFTER_CANCEL`].
fn late_after(runs_for: Duration) -> Duration {
    (runs_for / 2).min(LATE_AFTER_CANCEL)
}

/// How long scout waits for an answer to the cancelled call: half as long again as the call
/// would run if the server ignored the cancellation (a server that ignores it answers by
/// then), and never past the request timeout. Over stdio nothing else tells that no answer
/// is coming: the server never says it dropped the call.
fn answer_window(runs_for: Duration, timeout: Duration) -> Duration {
    (runs_for * 3 / 2).min(timeout)
}

/// The call the cancellation probe makes and cancels.
pub(super) struct CancelledCall<'a> {
    pub name: &'a str,
    pub arguments: &'a Value,
    pub input_schema: &'a Value,
    /// How long the call would run if the server ignored the cancellation.
    pub runs_for: Duration,
}

/// How long after the call scout sends the cancellation: the call's line is on the wire and
/// being worked on by then.
const CANCEL_AFTER: Duration = Duration::from_millis(20);

/// A tool whose first call took at least this long is still running when a cancellation
/// sent [`CANCEL_AFTER`] into its second call arrives, however loaded the machine; a
/// quicker one (with no wait argument to lengthen) would only race its own answer, and
/// whether it won would change the report from run to run.
pub(super) const SLOW_ENOUGH_TO_CANCEL: Duration = Duration::from_millis(200);

/// `execution.cancellation` for a tool too quick to cancel: nothing is sent.
pub(super) fn too_quick_to_cancel(first_call: Duration) -> FindingBuilder {
    CANCELLATION
        .skip(
            SkipReason::NotApplicable,
            format!(
                "the tool scout may call answered in {} ms and has no wait argument to make it run longer, so a cancellation would only race its answer; none was sent",
                first_call.as_millis()
            ),
        )
        .without_exchange()
}

/// Calls a tool and cancels it right away (stdio): afterwards the server should send nothing
/// more for that id. A reply that raced the cancellation is allowed (the receiver MAY ignore
/// a cancellation for a request that already finished).
pub(super) async fn cancellation(
    wire: &Connection,
    call: CancelledCall<'_>,
    timeout: Duration,
) -> FindingBuilder {
    let id = "scout-cancel-1";
    let wait = answer_window(call.runs_for, timeout);
    let probe = Probe {
        id: IdKind::Str(id.into()),
        timeout: Some(wait),
        ..wire.tool_call(
            json!({"name": call.name, "arguments": call.arguments}),
            call.input_schema,
        )
    };
    // A call answered before the cancellation is due is not cancelled at all: a cancellation
    // for a finished request says nothing about the server, and it is the one moment an SDK
    // that races the two can crash on it.
    let send = wire.send(probe);
    tokio::pin!(send);
    let early = tokio::select! {
        reply = &mut send => Some(reply),
        () = tokio::time::sleep(CANCEL_AFTER) => None,
    };
    if let Some(reply) = early {
        return answered_before_cancel(&reply);
    }
    let (reply, cancel) = tokio::join!(
        send,
        wire.notify(
            "notifications/cancelled",
            Some(json!({"requestId": id, "reason": "scout cancellation probe"})),
        )
    );
    judge_cancellation(&reply, &cancel, late_after(call.runs_for))
}

/// `execution.cancellation` when the call was answered before scout sent the cancellation
/// (so none was sent).
pub fn answered_before_cancel(reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.clone();
    match &reply.outcome {
        Outcome::TransportError(e) => CANCELLATION
            .skip(
                SkipReason::NotAssessed,
                format!("the call to be cancelled broke before the cancellation was sent: {e}"),
            )
            .evidence(ev),
        _ => CANCELLATION
            .info(format!(
                "the call was answered in {} ms, before the cancellation was due ({} ms), so there was nothing to cancel",
                reply.elapsed.as_millis(),
                CANCEL_AFTER.as_millis()
            ))
            .evidence(ev),
    }
}

/// `execution.cancellation` from the call's reply and the notification's; a reply `late`
/// or more after the call came after the server had the cancellation.
pub fn judge_cancellation(reply: &Reply, cancel: &Reply, late: Duration) -> FindingBuilder {
    let ev: Vec<_> = reply
        .evidence
        .iter()
        .chain(&cancel.evidence)
        .copied()
        .collect();
    match &reply.outcome {
        Outcome::TimedOut | Outcome::NoResponse => CANCELLATION
            .pass("after notifications/cancelled the server sent nothing more for the cancelled request")
            .evidence(ev),
        // A reply long after the cancellation was sent means the server had it and answered
        // anyway (a SHOULD: warn); a quick one may simply have raced it (allowed).
        Outcome::Answered if reply.elapsed >= late => CANCELLATION
            .warn(format!(
                "the server answered the cancelled call {} ms after the call was sent; after notifications/cancelled it should stop and not respond",
                reply.elapsed.as_millis()
            ))
            .evidence(ev),
        Outcome::Answered => CANCELLATION
            .info("the call finished before the cancellation took effect (allowed: a receiver may ignore a cancellation for a finished request)")
            .evidence(ev),
        Outcome::TransportError(e) => CANCELLATION
            .fail(format!("the connection broke after notifications/cancelled: {e}"))
            .evidence(ev),
        Outcome::Truncated => CANCELLATION.info("the cancelled call's reply was cut at the size cap").evidence(ev),
    }
}

/// How long scout listens for stray progress after a result (stdio).
pub(super) const AFTER_RESULT_WAIT: Duration = Duration::from_millis(150);

/// Sequence numbers of `notifications/progress` for `token` recorded after `after`.
pub fn late_progress(
    inbox: &[(crate::report::exchange::Seq, Value)],
    token: &str,
    after: crate::report::exchange::Seq,
) -> Vec<crate::report::exchange::Seq> {
    inbox
        .iter()
        .filter(|(seq, m)| {
            *seq > after
                && m.get("method").and_then(Value::as_str) == Some("notifications/progress")
                && m.get("params")
                    .and_then(|p| p.get("progressToken"))
                    .and_then(Value::as_str)
                    == Some(token)
        })
        .map(|(seq, _)| *seq)
        .collect()
}

/// True when `n` carries another progress token scout issued in this run. Calls run
/// concurrently, and on stdio a notification is gathered by whichever call is in flight when
/// it arrives: progress for another of scout's calls (early, or late after its own result)
/// belongs to that call, and is judged there, not here.
fn for_another_call(token: &str, n: &Value) -> bool {
    n.get("params")
        .and_then(|p| p.get("progressToken"))
        .and_then(Value::as_str)
        .is_some_and(|t| t != token && t.starts_with(TOKEN_PREFIX))
}

/// Every progress token scout sends starts with this.
pub const TOKEN_PREFIX: &str = "scout-progress-";

/// `execution.progress`: every notification that came with the call echoes the token and
/// progress strictly increases (a warning otherwise); the call itself must still answer. "None after the result" is judged by the caller on stdio
/// (where late messages land in the wire's inbox), with [`late_progress`].
pub fn progress(token: &str, reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    let progress: Vec<&Value> = reply
        .notifications
        .iter()
        .filter(|n| n.get("method").and_then(Value::as_str) == Some("notifications/progress"))
        .filter(|n| !for_another_call(token, n))
        .collect();
    if reply.result().is_none() && reply.error_code().is_none() {
        return PROGRESS
            .fail(format!(
                "the call with a progressToken got {}",
                describe(reply)
            ))
            .evidence(ev);
    }
    if progress.is_empty() {
        return PROGRESS.info("the call with a progressToken got no progress notifications (servers may send none)").evidence(ev);
    }
    let mut problems = Vec::new();
    let mut last: Option<f64> = None;
    for n in &progress {
        let p = n.get("params").unwrap_or(&Value::Null);
        if p.get("progressToken").and_then(Value::as_str) != Some(token) {
            problems.push(format!(
                "a notification carries progressToken {} instead of {token:?}",
                p.get("progressToken").unwrap_or(&Value::Null)
            ));
        }
        match p.get("progress").and_then(Value::as_f64) {
            None => problems.push("a notification has no numeric progress".into()),
            Some(v) => {
                if last.is_some_and(|l| v <= l) {
                    problems.push(format!(
                        "progress went from {} to {v}; it must increase",
                        last.unwrap_or_default()
                    ));
                }
                last = Some(v);
            }
        }
    }
    if problems.is_empty() {
        PROGRESS
            .pass(format!(
                "{} progress notification(s) echoed the token with increasing progress",
                progress.len()
            ))
            .evidence(ev)
    } else {
        // Progress only drives what the agent shows while it waits: a wrong token or a value
        // that does not increase is a deviation it can live with (the call's result is
        // intact), so a warning. A call that fails because it carries a token is a failure.
        PROGRESS.warn(problems.join("; ")).evidence(ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, ok};
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn progress_judgement() {
        let note = |tok: &str, p: f64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": tok, "progress": p}});
        let mut r = ok(9, json!({"content": []}));
        assert_eq!(built(progress("k", &r)).status, Status::Info);
        r.notifications = vec![note("k", 1.0), note("k", 2.5)];
        assert_eq!(built(progress("k", &r)).status, Status::Pass);
        // Misbehaving notifications warn: the agent still gets its result.
        r.notifications = vec![note("k", 2.0), note("k", 2.0)];
        assert_eq!(built(progress("k", &r)).status, Status::Warn);
        r.notifications = vec![note("other", 1.0)];
        assert_eq!(built(progress("k", &r)).status, Status::Warn);
        // Progress for another of scout's concurrent calls is that call's, not a wrong token.
        let (mine, theirs) = ("scout-progress-legacy-1", "scout-progress-legacy-0");
        r.notifications = vec![note(theirs, 1.0), note(mine, 1.0), note(mine, 2.0)];
        assert_eq!(built(progress(mine, &r)).status, Status::Pass);
        r.notifications = vec![note(theirs, 1.0)];
        assert_eq!(built(progress(mine, &r)).status, Status::Info);
        // A call that breaks because it carries a token fails.
        let mut broken = ok(9, json!({}));
        broken.response = None;
        broken.outcome = crate::transport::Outcome::TransportError("closed".into());
        assert_eq!(built(progress("k", &broken)).status, Status::Fail);
    }
}
