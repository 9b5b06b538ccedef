//! Multi round-trip requests (2026-07-28, basic/patterns/mrtr): a `tools/call`,
//! `prompts/get` or `resources/read` the server answers with
//! `resultType: "input_required"` is completed the way a client must: scout answers each
//! of the result's `inputRequests` as its persona answers the server's requests on the
//! handshake era (a declined form, the fixed sampling message, the configured roots), and
//! sends the original request again as a new request (a new JSON-RPC id) carrying those
//! answers as `inputResponses` and the `requestState` exactly as it came — or none, when
//! none came. Every round is recorded, and the rounds of each request are kept on the wire
//! for the judges.

use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::client::Connection;
use crate::report::exchange::Seq;
use crate::report::finding::Era;
use crate::transport::{IdKind, Probe, Reply};

/// The methods a server may answer with `input_required` ("Servers MUST NOT send
/// InputRequiredResult responses on any other client requests").
pub const INPUT_METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// How many `input_required` answers to one request scout completes before it gives up: a
/// server may ask again when something it needs is still missing, but a server that never
/// stops asking would otherwise hold the run.
pub const INPUT_ROUNDS: usize = 8;

/// The result type that asks the client for more.
pub const INPUT_REQUIRED: &str = "input_required";

/// One `input_required` answer and what scout did with it.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRound {
    /// The `input_required` result as the server gave it.
    pub result: Value,
    /// The `inputResponses` the retry carried (`None` when the result asked for nothing
    /// and the retry carried only the state, or when scout did not retry).
    pub responses: Option<Value>,
    /// Why scout did not retry, when it did not.
    pub stopped: Option<Stop>,
    /// The exchanges of this answer.
    pub evidence: Vec<Seq>,
}

/// Why scout stopped answering a multi round-trip request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// It cannot answer an input request (one whose capability it did not declare, or one
    /// that is no request at all): the sentence says which.
    Cannot(String),
    /// The server still asked after [`INPUT_ROUNDS`] rounds.
    Rounds,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Cannot(why) => f.write_str(why),
            Stop::Rounds => write!(
                f,
                "the server still asked for input after {INPUT_ROUNDS} rounds"
            ),
        }
    }
}

/// One request that took more than one round trip.
#[derive(Debug, Clone)]
pub struct InputChain {
    /// The request as first sent (its retries are built from it).
    pub probe: Probe,
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    pub subject: String,
    /// Each `input_required` answer, in order.
    pub rounds: Vec<InputRound>,
    /// The answer that ended the chain (complete, an error, or the last `input_required`).
    pub last: Reply,
}

impl InputChain {
    /// True when the chain ended in a result that is not `input_required`.
    pub fn completed(&self) -> bool {
        self.last
            .result()
            .is_some_and(|r| result_type(r) != Some(INPUT_REQUIRED))
    }

    /// Every exchange of the chain, in order.
    pub fn evidence(&self) -> Vec<Seq> {
        let mut all: Vec<Seq> = self
            .rounds
            .iter()
            .flat_map(|r| r.evidence.iter().copied())
            .collect();
        all.extend(self.last.evidence.iter().copied());
        all
    }
}

/// The chains of one wire, shared by its clones: the multi round-trip requests, and the
/// tasks (2026-07-28 tasks extension) scout followed.
#[derive(Debug, Default)]
pub struct ChainLog(Mutex<Vec<InputChain>>, Mutex<Vec<super::tasks::TaskChain>>);

/// At most this many chains are kept per wire for the judges.
const CHAINS_KEPT: usize = 64;

impl ChainLog {
    fn push(&self, chain: InputChain) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() < CHAINS_KEPT {
            all.push(chain);
        }
    }

    /// Every chain so far, in order.
    pub fn all(&self) -> Vec<InputChain> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(super) fn push_task(&self, task: super::tasks::TaskChain) {
        let mut all = self.1.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() < CHAINS_KEPT {
            all.push(task);
        }
    }

    /// Every task followed so far, in order.
    pub fn tasks(&self) -> Vec<super::tasks::TaskChain> {
        self.1.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The `resultType` of a result, when it has one.
pub fn result_type(result: &Value) -> Option<&str> {
    result.get("resultType").and_then(Value::as_str)
}

/// The answers to a result's `inputRequests`, keyed as they were, as `persona` gives them;
/// `Err` names the first request scout cannot answer (one whose capability it did not
/// declare, or one that is not a request at all).
pub fn input_responses(
    persona: &crate::transport::answer::Persona,
    result: &Value,
    tool: Option<&str>,
) -> Result<Option<Value>, String> {
    let Some(requests) = result.get("inputRequests") else {
        return Ok(None);
    };
    let Some(requests) = requests.as_object() else {
        return Err("its inputRequests is not an object".into());
    };
    let mut responses = Map::new();
    for (key, request) in requests {
        let Some(method) = request.get("method").and_then(Value::as_str) else {
            return Err(format!("input request {key:?} names no method"));
        };
        let params = request.get("params").unwrap_or(&Value::Null);
        match persona.result_for(method, params, tool) {
            Ok(answer) => {
                responses.insert(key.clone(), answer);
            }
            Err((_, why)) => {
                return Err(format!(
                    "input request {key:?} is {method}, which this client cannot answer ({why})"
                ));
            }
        }
    }
    Ok(Some(Value::Object(responses)))
}

impl Connection {
    /// Sends `probe` and, on a 2026-07-28 wire, completes the multi round-trip request it
    /// starts: while the server answers `input_required` (at most [`INPUT_ROUNDS`] times),
    /// scout answers its input requests and sends the request again with a new id. The
    /// reply returned is the last one, citing every round; the rounds are kept for
    /// [`Connection::input_chains`]. Any other wire, method or answer: one plain send.
    ///
    /// The reply's `elapsed` is the request's whole time, from the first send to the final
    /// result (every round and a followed task included): what an agent waits, and what a
    /// time budget such as an expectation's `max_ms` holds to.
    pub async fn send_completing(&self, probe: Probe) -> Reply {
        let started = std::time::Instant::now();
        let method = probe.method.clone().unwrap_or_default();
        let mut reply = self.send(probe.clone()).await;
        if self.era != Era::Modern || !INPUT_METHODS.contains(&method.as_str()) {
            return reply;
        }
        let key = if method == "resources/read" {
            "uri"
        } else {
            "name"
        };
        let subject = probe
            .params
            .as_ref()
            .and_then(|p| p.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let tool = (method == "tools/call").then_some(subject.as_str());
        let mut rounds: Vec<InputRound> = Vec::new();
        while let Some(result) = reply
            .result()
            .filter(|r| result_type(r) == Some(INPUT_REQUIRED))
            .cloned()
        {
            let mut round = InputRound {
                result: result.clone(),
                responses: None,
                stopped: None,
                evidence: reply.evidence.clone(),
            };
            if rounds.len() >= INPUT_ROUNDS {
                round.stopped = Some(Stop::Rounds);
                rounds.push(round);
                break;
            }
            match input_responses(&self.persona, &result, tool) {
                Err(why) => {
                    round.stopped = Some(Stop::Cannot(why));
                    rounds.push(round);
                    break;
                }
                Ok(responses) => {
                    let retry = retry_of(&probe, &result, responses.clone());
                    round.responses = responses;
                    rounds.push(round);
                    reply = self.send(retry).await;
                }
            }
        }
        // The tasks extension: a tools/call of a client that declared it may be answered
        // with a task, which scout follows to its end.
        if method == "tools/call"
            && self.persona.tasks
            && reply.result().and_then(result_type) == Some(super::tasks::TASK)
        {
            let task = self.follow_task(&subject, &reply).await;
            reply.evidence.extend(task.evidence());
            reply.elapsed = started.elapsed();
            self.chains.push_task(task);
        }
        if rounds.is_empty() {
            return reply;
        }
        reply.elapsed = started.elapsed();
        let chain = InputChain {
            probe,
            method,
            subject,
            rounds,
            last: reply.clone(),
        };
        reply.evidence = chain.evidence();
        self.chains.push(chain);
        reply
    }

    /// Every request on this wire that took more than one round trip, in order.
    pub fn input_chains(&self) -> Vec<InputChain> {
        self.chains.all()
    }
}

/// The retry of `probe` after `result`: a new request (a new id) with the original params,
/// `inputResponses` when there are any, and `requestState` exactly as the server sent it;
/// "If the InputRequiredResult does not contain a requestState field, the client MUST NOT
/// include one in the retry."
pub fn retry_of(probe: &Probe, result: &Value, responses: Option<Value>) -> Probe {
    let mut retry = probe.clone();
    retry.id = IdKind::Auto;
    let mut params = match retry.params.take() {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    params.remove("inputResponses");
    params.remove("requestState");
    if let Some(r) = responses {
        params.insert("inputResponses".into(), r);
    }
    if let Some(state) = result.get("requestState") {
        params.insert("requestState".into(), state.clone());
    }
    retry.params = Some(Value::Object(params));
    retry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::answer::Persona;
    use serde_json::json;

    #[test]
    fn the_retry_echoes_the_state_exactly_and_carries_the_answers_under_their_keys() {
        let probe = Probe::request("tools/call", json!({"name": "t", "arguments": {"a": 1}}));
        let result = json!({"resultType": "input_required", "requestState": "  opaque==\u{e9} ",
            "inputRequests": {"confirm": {"method": "elicitation/create",
                "params": {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}}}});
        let responses = input_responses(&Persona::full(), &result, Some("t")).expect("answers");
        let retry = retry_of(&probe, &result, responses);
        let p = retry.params.expect("params");
        assert_eq!(p["requestState"], json!("  opaque==\u{e9} "));
        assert_eq!(p["inputResponses"]["confirm"]["action"], "decline");
        assert_eq!(p["arguments"], json!({"a": 1}));
        assert_eq!(retry.id, IdKind::Auto);
    }

    #[test]
    fn without_a_state_the_retry_carries_none_even_when_the_first_request_had_one() {
        let probe = Probe::request(
            "tools/call",
            json!({"name": "t", "requestState": "old", "inputResponses": {"x": {}}}),
        );
        let result = json!({"resultType": "input_required",
            "inputRequests": {"r": {"method": "roots/list"}}});
        let responses = input_responses(&Persona::full(), &result, None).expect("answers");
        let p = retry_of(&probe, &result, responses).params.expect("params");
        assert!(p.get("requestState").is_none(), "{p}");
        assert_eq!(p["inputResponses"], json!({"r": {"roots": []}}));
    }

    #[test]
    fn a_bare_client_cannot_answer_what_it_did_not_declare() {
        let result = json!({"resultType": "input_required",
            "inputRequests": {"s": {"method": "sampling/createMessage", "params": {}}}});
        let why = input_responses(&Persona::bare(), &result, None).expect_err("refused");
        assert!(why.contains("sampling/createMessage"), "{why}");
        // A state alone needs no answer.
        let state_only = json!({"resultType": "input_required", "requestState": "s1"});
        assert_eq!(
            input_responses(&Persona::bare(), &state_only, None),
            Ok(None)
        );
    }
}
