//! Resilience: whether the server keeps serving after bad input, and whether what it sends
//! over the whole run fits in what scout keeps (`output_volume`, judged after the last
//! phase). (`stateless`, `timeout_recovery`, `oversized_request`, `session_recovery` and
//! `concurrent_sessions` are later work and not registered yet.)

use serde_json::json;

use crate::probe::Session;
use crate::probe::registry::spec;
use crate::report::finding::{Era, FindingBuilder};
use crate::telemetry::recorder::{self, Overflow};
use crate::transport::{Outcome, Probe, Reply};

crate::checks! { phase: Resilience;
    MALFORMED_SURVIVAL = "resilience.malformed_survival", Major, "The server still serves after garbage", spec::B26,
        "scout sends a burst of malformed messages (truncated JSON, a bare string, an array of garbage, invalid UTF-8 replaced text) and then an ordinary request, which must still be answered. Over stdio a crash here kills the session an agent depends on.",
        "Handle malformed input per message: answer or drop it, never tear down the process or connection.";
    OUTPUT_VOLUME = "resilience.output_volume", Minor, "The server's output fits in what scout keeps", "",
        "Judged over the whole run, from the spawn or first request to the shutdown. scout keeps at most 20,000 exchanges and 64 MiB of bodies, lines and headers per server. Messages the server sends on its own past that (notifications, stray stdout lines, unmatched replies, HTTP+SSE events) are counted but neither kept nor judged: a server that floods its client this way fails, and checks that read those messages saw only the part before the cap. When only scout's own exchanges pass the byte cap, they are kept with their bodies cut to the first 512 bytes, and this is a warning.",
        "Do not write unsolicited output in bulk: send logs to stderr (stdio) or as occasional logging notifications, and keep results small or paginated.";
}

/// The garbage sent before the follow-up request.
pub const GARBAGE: [&str; 4] = [
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":",
    "\"just a string\"",
    "[1,2,{\"x\":]",
    "\u{fffd}\u{fffd}not json at all",
];

/// Judges the follow-up request after the garbage.
pub fn judge(era: Option<Era>, garbage: &[Reply], follow_up: &Reply) -> FindingBuilder {
    let evidence: Vec<_> = garbage
        .iter()
        .chain(std::iter::once(follow_up))
        .flat_map(|r| r.evidence.iter().copied())
        .collect();
    let mut f = if follow_up.outcome == Outcome::Answered && follow_up.result().is_some() {
        MALFORMED_SURVIVAL.pass(format!(
            "After {} malformed messages the next request was answered normally.",
            garbage.len()
        ))
    } else {
        let what = match &follow_up.outcome {
            Outcome::TimedOut => "timed out".to_string(),
            Outcome::TransportError(e) => format!("failed at the transport ({e})"),
            _ if follow_up.error_code().is_some() => {
                format!("got error {}", follow_up.error_code().unwrap_or_default())
            }
            _ => "got no result".to_string(),
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

/// Runs this phase's probes against the session.
pub async fn run(s: &mut Session) {
    let wires = s.wires.clone();
    let dual = wires.len() > 1;
    for w in wires {
        // Sent together: each waits a short quiet period for a reply, and the waits overlap.
        let garbage = futures_util::future::join_all(GARBAGE.iter().map(|g| {
            w.send(Probe {
                raw_body: Some(g.to_string()),
                expect_no_reply: true,
                ..Probe::default()
            })
        }))
        .await;
        let method = if w.era() == Era::Modern {
            "server/discover"
        } else {
            "tools/list"
        };
        let follow = w.request(method, json!({})).await;
        s.add(judge(dual.then_some(w.era()), &garbage, &follow));
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

    fn reply(seq: u64, outcome: Outcome, response: Option<serde_json::Value>) -> Reply {
        Reply {
            evidence: vec![seq],
            outcome,
            response,
            notifications: vec![],
            server_requests: vec![],
            http: None,
            elapsed: Duration::from_millis(1),
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
        let f = judge(Some(Era::Legacy), &garbage, &ok)
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Pass);
        assert_eq!(f.evidence, vec![1, 2, 3, 4, 5]);
        assert_eq!(f.era, Some(Era::Legacy));
        let dead = reply(6, Outcome::TransportError("process exited".into()), None);
        let f = judge(None, &garbage, &dead).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("process exited"), "{}", f.detail);
        // An error is not "still serving": the ordinary request must get a result.
        let refused = reply(
            7,
            Outcome::Answered,
            Some(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}})),
        );
        assert_eq!(judge(None, &garbage, &refused).status(), Status::Fail);
        assert_eq!(
            judge(None, &garbage, &reply(8, Outcome::TimedOut, None)).status(),
            Status::Fail
        );
    }
}
