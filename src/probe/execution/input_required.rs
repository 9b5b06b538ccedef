//! `execution.input_required`: the 2026-07-28 multi round-trip requests scout completed
//! (see `client::rounds`), judged by how they ended. A request the server answered with
//! `input_required` must end, once scout has answered what it asked, in a result that is
//! complete (an `isError` tool result is a complete answer too); one that ends in an error,
//! in no answer, or that keeps asking past scout's bound is a warning. What a server asks of a
//! client that did not declare it is `protocol.input_required_shape`'s business, and such a
//! request is not judged here. On one completed request per persona, [`variants`] sends the
//! retry again without the answers, with one answer too many and with an altered state.

use serde_json::{Value, json};

use crate::client::Connection;
use crate::client::rounds::{
    INPUT_REQUIRED as INPUT_REQUIRED_TYPE, InputChain, Stop, result_type, retry_of,
};
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::Reply;

crate::checks! { phase: Execution;
    INPUT_REQUIRED = "execution.input_required", Minor, "Requests that ask for input complete once the client answered", crate::report::check::spec_url::MRTR26,
        "2026-07-28: a tools/call, prompts/get or resources/read the server answers with resultType input_required is completed as a client must: scout answers every input request as its persona does (the full persona declines forms unless [client] says otherwise, answers sampling with a fixed message naming scout, lists the configured roots), and sends the request again with a new id, the answers as inputResponses and the requestState exactly as it came (none when none came), at most 8 times. The request must then end in a complete result; an error after scout answered or no answer is a warning; a server that still asks past the bound is reported as information (servers may return input_required on multiple attempts). Each outcome names its round trips. On one completed request of each persona scout then sends the retry again three ways: without the answers asked for (the server should ask again, or complete without them, rather than return an error), with an extra answer no one asked for (which should be ignored), and with the requestState altered (scout appends .scout-tampered to it); an error to either of the first two is a warning, and so is a request completed on the altered state (the page requires integrity protection unless tampering can cause nothing worse than request failure, which a client cannot see; a refusal passes). Not applicable when no request was answered with input_required.",
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

/// The chain stopped because the server still asked for input after scout's bound of
/// rounds, each time after scout had answered (declines included).
fn kept_asking(c: &InputChain) -> bool {
    matches!(
        c.rounds.last().and_then(|r| r.stopped.as_ref()),
        Some(Stop::Rounds)
    )
}

/// How a server took answers that were not quite what it asked for, on one completed chain:
/// the retry sent again with no answers (`missing`), with an answer it never asked for
/// added (`extra`), and with the `requestState` altered (`tampered`).
#[derive(Debug, Clone, Default)]
pub struct Variants {
    /// "tool (tools/call)".
    pub chain: String,
    pub missing: Option<Reply>,
    pub extra: Option<Reply>,
    pub tampered: Option<Reply>,
}

/// What scout appends to a `requestState` to alter it.
const TAMPER_SUFFIX: &str = ".scout-tampered";

/// The key of the answer scout adds that no server asked for.
pub const UNREQUESTED: &str = "scout-unrequested";

/// Sends the three variants of `chain` (each where the chain gives it a meaning) on `conn`,
/// the connection that completed it.
pub async fn variants(conn: &Connection, chain: &InputChain) -> Variants {
    let asked = |r: &&crate::client::rounds::InputRound| {
        r.result
            .get("inputRequests")
            .and_then(Value::as_object)
            .is_some_and(|m| !m.is_empty())
    };
    // "If the client fails to send all the information requested … the server SHOULD
    // respond with a new InputRequiredResult requesting the missing information again".
    let missing = chain
        .rounds
        .iter()
        .find(asked)
        .map(|r| retry_of(&chain.probe, &r.result, Some(json!({}))));
    // "If additional, unexpected parameters are provided in the InputResponses object, the
    // server SHOULD ignore any information it does not recognize or need."
    let extra = chain.rounds.last().and_then(|r| {
        let mut responses = r.responses.clone()?;
        responses
            .as_object_mut()?
            .insert(UNREQUESTED.into(), json!({"action": "decline"}));
        Some(retry_of(&chain.probe, &r.result, Some(responses)))
    });
    // "servers MUST treat requestState as an attacker-controlled input".
    let tampered = chain
        .rounds
        .iter()
        .find(|r| r.result.get("requestState").is_some_and(Value::is_string))
        .map(|r| {
            let mut p = retry_of(&chain.probe, &r.result, r.responses.clone());
            if let Some(params) = p.params.as_mut()
                && let Some(state) = params.get("requestState").and_then(Value::as_str)
            {
                params["requestState"] = Value::String(format!("{state}{TAMPER_SUFFIX}"));
            }
            p
        });
    let send = |p: Option<crate::transport::Probe>| async move {
        match p {
            Some(p) => Some(conn.send(p).await),
            None => None,
        }
    };
    let (missing, extra, tampered) =
        futures_util::join!(send(missing), send(extra), send(tampered));
    Variants {
        chain: format!("{} ({})", chain.subject, chain.method),
        missing,
        extra,
        tampered,
    }
}

/// What each variant showed: sentences that held, and those that should not have happened.
fn judge_variants(v: &Variants, held: &mut Vec<String>, wrong: &mut Vec<String>) {
    let kind = |r: &Reply| match (r.result(), r.error_code()) {
        (Some(res), _) if result_type(res) == Some(INPUT_REQUIRED_TYPE) => {
            "asked again".to_string()
        }
        (Some(_), _) => "completed".to_string(),
        (None, Some(code)) => format!("got error {code}"),
        (None, None) => format!("got {}", r.describe()),
    };
    if let Some(r) = &v.missing {
        let k = kind(r);
        if r.result().is_some() {
            held.push(format!(
                "{}: a retry without the answers it asked for {k}",
                v.chain
            ));
        } else {
            wrong.push(format!(
                "{}: a retry without the answers it asked for {k}; the server should ask for them again rather than return an error",
                v.chain
            ));
        }
    }
    if let Some(r) = &v.extra {
        let k = kind(r);
        if r.result().is_some() {
            held.push(format!(
                "{}: an unrequested extra answer was ignored ({k})",
                v.chain
            ));
        } else {
            wrong.push(format!(
                "{}: a retry with an extra answer nobody asked for ({UNREQUESTED}) {k}; unrecognised answers should be ignored",
                v.chain
            ));
        }
    }
    // The MRTR page requires integrity protection of requestState unless tampering "can
    // cause nothing worse than request failure", a condition a client cannot see: a request
    // completed on a state that fails any integrity check is a warning, a refusal holds.
    if let Some(r) = &v.tampered {
        let k = kind(r);
        if r.result()
            .is_some_and(|res| result_type(res) != Some(INPUT_REQUIRED_TYPE))
        {
            wrong.push(format!(
                "{}: the retry with its requestState altered (scout appended \"{TAMPER_SUFFIX}\") {k}; the server should refuse a state that fails its integrity check",
                v.chain
            ));
        } else {
            held.push(format!(
                "{}: an altered requestState {k} (not accepted)",
                v.chain
            ));
        }
    }
}

/// `execution.input_required` over every chain of a wire (the bare client's and the full
/// persona's connection's) and the variants sent on some of them.
pub fn input_required(chains: &[InputChain], variants: &[Variants]) -> FindingBuilder {
    if chains.is_empty() {
        return INPUT_REQUIRED.skip(
            SkipReason::NotApplicable,
            "no request was answered with input_required",
        );
    }
    let mut done = Vec::new();
    let mut wrong = Vec::new();
    let mut again = Vec::new();
    let mut evidence: Vec<Seq> = Vec::new();
    for c in chains {
        if kept_asking(c) {
            // "Servers MAY choose to return an InputRequiredResult on multiple attempts":
            // asking again after scout's answers (a decline included) is the server's choice.
            again.push(format!(
                "{} ({}): asked again after each of scout's answers, for {} round trip(s)",
                c.subject,
                c.method,
                c.rounds.len() + 1
            ));
            evidence.extend(c.evidence());
            continue;
        }
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
    again.dedup();
    let asked_again = if again.is_empty() {
        String::new()
    } else {
        format!(
            "; {} (servers may return input_required on multiple attempts)",
            again.join("; ")
        )
    };
    let mut held = Vec::new();
    let mut deviations = Vec::new();
    for v in variants {
        judge_variants(v, &mut held, &mut deviations);
        for r in [&v.missing, &v.extra, &v.tampered].into_iter().flatten() {
            evidence.extend(r.evidence.iter().copied());
        }
    }
    let varied = if held.is_empty() {
        String::new()
    } else {
        format!("; {}", held.join("; "))
    };
    if !wrong.is_empty() || !deviations.is_empty() {
        let mut lines = Vec::new();
        if !wrong.is_empty() {
            lines.push(format!(
                "{} request(s) that asked for input did not end well: {}",
                wrong.len(),
                wrong.join("; ")
            ));
        }
        lines.extend(deviations);
        return INPUT_REQUIRED
            .warn(format!("{}{varied}{asked_again}", lines.join("; ")))
            .evidence(evidence);
    }
    if done.is_empty() && !again.is_empty() {
        return INPUT_REQUIRED
            .info(format!(
                "no request that asked for input completed: {}{varied} (servers may return input_required on multiple attempts)",
                again.join("; ")
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
            "{} request(s) that asked for input ended well: {}{varied}{asked_again}",
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
            probe: crate::transport::Probe::request("tools/call", json!({"name": "confirm"})),
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
        let f = input_required(chains, &[])
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
    fn an_error_after_scout_answered_warns() {
        let err = chain(
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "boom"}}),
            None,
        );
        assert_eq!(status(&[err]).0, Status::Warn);
    }

    #[test]
    fn asking_again_after_each_answer_is_the_servers_choice() {
        let endless = chain(
            json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "input_required", "requestState": "s"}}),
            Some(Stop::Rounds),
        );
        let (st, detail) = status(std::slice::from_ref(&endless));
        assert_eq!(st, Status::Info, "{detail}");
        assert!(
            detail.contains("asked again after each of scout's answers"),
            "{detail}"
        );
        let ok = chain(
            json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": []}}),
            None,
        );
        assert_eq!(status(&[ok, endless]).0, Status::Pass);
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
