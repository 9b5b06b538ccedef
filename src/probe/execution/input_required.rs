//! `execution.input_required`: the 2026-07-28 multi round-trip requests scout completed
//! (see `client::rounds`), judged by how they ended. A request the server answered with
//! `input_required` must end, once scout has answered what it asked, in a result that is
//! complete (an `isError` tool result is a complete answer too); one that ends in an error,
//! in no answer, or that keeps asking past scout's bound is a warning. What a server asks of a
//! client that did not declare it is `protocol.input_required_shape`'s business, and such a
//! request is not judged here.

use serde_json::Value;

use crate::client::rounds::{InputChain, Stop};
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};

crate::checks! { phase: Execution;
    INPUT_REQUIRED = "execution.input_required", Minor, "Requests that ask for input complete once the client answered", crate::report::check::spec_url::MRTR26,
        "2026-07-28: a tools/call, prompts/get or resources/read the server answers with resultType input_required is completed as a client must: scout answers every input request as its persona does (the full persona declines forms unless [client] says otherwise, answers sampling with a fixed message naming scout, lists the configured roots), and sends the request again with a new id, the answers as inputResponses and the requestState exactly as it came (none when none came), at most 8 times. The request must then end in a complete result; an error after scout answered, no answer, or input_required past the bound is a warning. Each outcome names its round trips. Not applicable when no request was answered with input_required.",
        "After the client answered what you asked (decline and cancel included), finish the request: return the result, or ask again for what is still missing, rather than an error.";
}

/// One chain's outcome: `Ok(sentence)` when it completed, `Err(sentence)` when it ended
/// otherwise, `None` when scout could not answer what it was asked (not judged here).
fn outcome(c: &InputChain) -> Option<Result<String, String>> {
    let what = format!("{} ({})", c.subject, c.method);
    let n = c.rounds.len();
    let trips = format!("{} round trip(s)", n + 1);
    if let Some(stop) = c.rounds.last().and_then(|r| r.stopped.as_ref()) {
        return match stop {
            Stop::Cannot(_) => None,
            Stop::Rounds => Some(Err(format!("{what}: {stop}"))),
        };
    }
    if c.completed() {
        let kind = c
            .last
            .result()
            .and_then(|r| r.get("isError"))
            .and_then(Value::as_bool)
            .filter(|e| *e)
            .map_or("a complete result", |_| "a complete (isError) result");
        return Some(Ok(format!("{what} ended in {kind} after {trips}")));
    }
    if let Some(code) = c.last.error_code() {
        return Some(Err(format!(
            "{what}: the retry after scout answered got error {code} ({}) after {trips}",
            c.last.error_message().unwrap_or_default()
        )));
    }
    Some(Err(format!(
        "{what}: the retry after scout answered got no result ({}) after {trips}",
        c.last.describe()
    )))
}

/// `execution.input_required` over every chain of a wire (the bare client's and the full
/// persona's connection's).
pub fn input_required(chains: &[InputChain]) -> FindingBuilder {
    if chains.is_empty() {
        return INPUT_REQUIRED.skip(
            SkipReason::NotApplicable,
            "no request was answered with input_required",
        );
    }
    let mut done = Vec::new();
    let mut wrong = Vec::new();
    let mut evidence: Vec<Seq> = Vec::new();
    for c in chains {
        match outcome(c) {
            Some(Ok(s)) => done.push(s),
            Some(Err(s)) => wrong.push(s),
            None => continue,
        }
        evidence.extend(c.evidence());
    }
    // The bare client's and the full persona's calls of one tool often end alike.
    done.dedup();
    wrong.dedup();
    if !wrong.is_empty() {
        return INPUT_REQUIRED
            .warn(format!(
                "{} request(s) that asked for input did not end well: {}",
                wrong.len(),
                wrong.join("; ")
            ))
            .evidence(evidence);
    }
    if done.is_empty() {
        return INPUT_REQUIRED.skip(
            SkipReason::NotAssessed,
            "every request that was answered with input_required asked for something scout had not declared (see protocol.input_required_shape)",
        );
    }
    INPUT_REQUIRED
        .pass(format!(
            "{} request(s) that asked for input ended well: {}",
            done.len(),
            done.join("; ")
        ))
        .evidence(evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::rounds::InputRound;
    use crate::probe::catalog::tests::reply;
    use crate::report::finding::Status;
    use serde_json::json;

    fn chain(last: Value, stopped: Option<Stop>) -> InputChain {
        InputChain {
            method: "tools/call".into(),
            subject: "confirm".into(),
            rounds: vec![InputRound {
                result: json!({"resultType": "input_required", "requestState": "s"}),
                responses: None,
                stopped,
                evidence: vec![1],
            }],
            last: reply(2, last),
        }
    }

    fn status(chains: &[InputChain]) -> (Status, String) {
        let f = input_required(chains)
            .build(|_| true)
            .expect("a finding within its basis");
        (f.status, f.detail)
    }

    #[test]
    fn a_complete_result_after_the_retry_passes_and_names_its_round_trips() {
        let ok = chain(
            json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": []}}),
            None,
        );
        let (st, detail) = status(&[ok]);
        assert_eq!(st, Status::Pass, "{detail}");
        assert!(detail.contains("after 2 round trip(s)"), "{detail}");
    }

    #[test]
    fn an_error_after_scout_answered_or_endless_asking_warns() {
        let err = chain(
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "boom"}}),
            None,
        );
        assert_eq!(status(&[err]).0, Status::Warn);
        let endless = chain(
            json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "input_required", "requestState": "s"}}),
            Some(Stop::Rounds),
        );
        assert_eq!(status(&[endless]).0, Status::Warn);
    }

    #[test]
    fn what_scout_could_not_answer_is_left_to_the_shape_check() {
        let undeclared = chain(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}}),
            Some(Stop::Cannot("sampling".into())),
        );
        assert_eq!(status(&[undeclared]).0, Status::Skip);
        assert_eq!(status(&[]).0, Status::Skip);
    }
}
