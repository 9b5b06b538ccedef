//! Resilience: whether the server keeps serving after bad input. (`stateless`,
//! `timeout_recovery`, `oversized_request`, `session_recovery` and `concurrent_sessions` are
//! later work and not registered yet.)

use serde_json::json;

use crate::probe::Session;
use crate::probe::registry::spec;
use crate::report::finding::{Era, FindingBuilder};
use crate::transport::{Outcome, Probe, Reply};

crate::checks! { phase: Resilience;
    MALFORMED_SURVIVAL = "resilience.malformed_survival", Major, "The server still serves after garbage", spec::B26,
        "scout sends a burst of malformed messages (truncated JSON, a bare string, an array of garbage, invalid UTF-8 replaced text) and then an ordinary request, which must still be answered. Over stdio a crash here kills the session an agent depends on.",
        "Handle malformed input per message: answer or drop it, never tear down the process or connection.";
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
