//! What scout answers when the server asks: the client persona. A server may send requests
//! of its own (`elicitation/create`, `sampling/createMessage`, `roots/list`, `ping`) while a
//! request of scout's waits; left unanswered, they hang that request until its timeout.
//! Every transport answers each one at once, on the channel the server expects, with what
//! [`Persona::answer`] says. Answers are pure functions of the request and the persona: no
//! model is called, no URL is opened, nothing leaves for a third party.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Which client scout plays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PersonaKind {
    /// Declares no client capability and refuses every request that would need one.
    #[default]
    Bare,
    /// Declares `roots`, `sampling` and `elicitation` (`form` and `url`) and answers them.
    Full,
}

/// How the full persona answers a form-mode `elicitation/create`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAnswer {
    /// `action: "decline"`: the user said no.
    #[default]
    Decline,
    /// `action: "accept"` with the schema's `default` values (and nothing else).
    Accept,
    /// `action: "cancel"`: the user dismissed the form.
    Cancel,
}

/// A root the full persona lists (`roots/list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The client scout plays on a wire: what it declares and what it answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Persona {
    pub kind: PersonaKind,
    /// The answer to a form-mode elicitation (full persona), unless `per_tool` names the
    /// tool whose call asked.
    #[serde(default)]
    pub elicitation: ElicitAnswer,
    /// Per tool name: the answer to elicitations made during that tool's call.
    #[serde(default)]
    pub per_tool: BTreeMap<String, ElicitAnswer>,
    /// What `roots/list` returns (full persona); empty by default.
    #[serde(default)]
    pub roots: Vec<Root>,
    /// The full persona declares the 2026-07-28 tasks extension (set when the server
    /// advertises it; a task it is handed is followed to its end).
    #[serde(skip)]
    pub tasks: bool,
}

/// The 2026-07-28 tasks extension's identifier.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// At most this many of the server's requests on one HTTP stream are answered (each answer
/// is a POST of its own); a server flooding requests gets no more.
pub const ANSWERS_PER_STREAM: usize = 256;

/// JSON-RPC "Method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC "Invalid params".
pub const INVALID_PARAMS: i64 = -32602;

/// The text of the one assistant message the full persona answers every sampling request
/// with: it names scout, so that a server (or its author) reading it knows no model spoke.
pub const SAMPLING_TEXT: &str =
    "scout (an MCP conformance checker) answered this sampling request; no model was called.";

impl Persona {
    /// The bare persona (today's default).
    pub fn bare() -> Self {
        Persona::default()
    }

    /// The full persona with the default answers.
    pub fn full() -> Self {
        Persona {
            kind: PersonaKind::Full,
            ..Persona::default()
        }
    }

    /// True for the full persona.
    pub fn is_full(&self) -> bool {
        self.kind == PersonaKind::Full
    }

    /// The `capabilities` scout declares in `initialize`.
    pub fn capabilities(&self) -> Value {
        let mut declared = match self.kind {
            PersonaKind::Bare => json!({}),
            PersonaKind::Full => json!({
                "roots": {"listChanged": false},
                "sampling": {},
                "elicitation": {"form": {}, "url": {}},
            }),
        };
        if self.tasks {
            declared["extensions"] = json!({TASKS_EXTENSION: {}});
        }
        declared
    }

    /// True when this persona declared elicitation `mode` (`form` or `url`).
    pub fn declares_mode(&self, mode: &str) -> bool {
        self.is_full() && matches!(mode, "form" | "url")
    }

    /// The whole JSON-RPC response to the server's `request` (a message with a `method`
    /// and an `id`); `tool` is the tool whose call the request came during, when known.
    pub fn answer(&self, request: &Value, tool: Option<&str>) -> Value {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let params = request.get("params").unwrap_or(&Value::Null);
        match self.result_for(method, params, tool) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        }
    }

    /// The result this persona gives the server's request `method` with `params`, or the
    /// JSON-RPC error (code, message) it refuses it with. The same answer goes back as a
    /// response (handshake era) or as one entry of a retry's `inputResponses` (2026-07-28
    /// multi round-trip requests).
    pub fn result_for(
        &self,
        method: &str,
        params: &Value,
        tool: Option<&str>,
    ) -> Result<Value, (i64, String)> {
        match method {
            // Either side may ping; the receiver "MUST respond promptly with an empty
            // response" (basic/utilities/ping), whatever it declared.
            "ping" => Ok(json!({})),
            "elicitation/create" => self.elicit(params, tool),
            "sampling/createMessage" if self.is_full() => Ok(json!({
                "role": "assistant",
                "content": {"type": "text", "text": SAMPLING_TEXT},
                "model": "scout",
                "stopReason": "endTurn",
            })),
            "roots/list" if self.is_full() => Ok(json!({"roots": self.roots})),
            _ => Err((
                METHOD_NOT_FOUND,
                format!("scout does not offer {method:?} to this server"),
            )),
        }
    }

    fn elicit(&self, params: &Value, tool: Option<&str>) -> Result<Value, (i64, String)> {
        // "Clients MUST treat requests without a `mode` field as form mode."
        let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
        if !self.declares_mode(mode) {
            // client/elicitation, Error Handling: "Clients MUST return standard JSON-RPC
            // errors for common failure cases: Server sends an `elicitation/create` request
            // with a mode not declared in client capabilities: `-32602` (Invalid params)".
            // The bare persona declares no mode at all.
            return Err((
                INVALID_PARAMS,
                format!("elicitation mode {mode:?} was not declared by this client"),
            ));
        }
        if mode == "url" {
            // A URL is never opened (it could reach anyone): the user declines.
            return Ok(json!({"action": "decline"}));
        }
        let answer = tool
            .and_then(|t| self.per_tool.get(t))
            .copied()
            .unwrap_or(self.elicitation);
        Ok(match answer {
            ElicitAnswer::Decline => json!({"action": "decline"}),
            ElicitAnswer::Cancel => json!({"action": "cancel"}),
            ElicitAnswer::Accept => json!({"action": "accept", "content": schema_defaults(params)}),
        })
    }
}

/// The `default` of every property of the request's `requestedSchema` that has one.
fn schema_defaults(params: &Value) -> Value {
    let props = params
        .get("requestedSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let content: serde_json::Map<String, Value> = props
        .into_iter()
        .flatten()
        .filter_map(|(k, p)| p.get("default").map(|d| (k.clone(), d.clone())))
        .collect();
    Value::Object(content)
}

/// At most this many of the server's requests are kept per wire for the judges (each is
/// answered whether kept or not).
pub const ASKED_KEPT: usize = 256;

/// One request of the server's and scout's answer to it, as the judges read them.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The server's request as it arrived.
    pub request: Value,
    /// The whole response scout sent.
    pub answer: Value,
    /// The tool whose call the request came during, when known.
    pub tool: Option<String>,
    /// The exchanges that carried the request and the answer (those the recorder kept).
    pub evidence: Vec<crate::report::exchange::Seq>,
}

impl Asked {
    /// The request's method.
    pub fn method(&self) -> &str {
        self.request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// A wire's log of what the server asked (shared by the clones of one wire).
#[derive(Debug, Default)]
pub struct AskLog(std::sync::Mutex<Vec<Asked>>);

impl AskLog {
    /// Keeps `asked`, up to [`ASKED_KEPT`].
    pub fn push(&self, asked: Asked) {
        let mut log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if log.len() < ASKED_KEPT {
            log.push(asked);
        }
    }

    /// Everything kept so far, in order.
    pub fn all(&self) -> Vec<Asked> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// True when `message` is a request of the server's: a `method` and an `id`.
pub fn is_server_request(message: &Value) -> bool {
    message.get("method").is_some() && message.get("id").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    }

    #[test]
    fn the_bare_persona_refuses_what_it_did_not_declare() {
        let bare = Persona::bare();
        assert_eq!(bare.capabilities(), json!({}));
        let e = bare.answer(&req("elicitation/create", json!({"message": "?"})), None);
        assert_eq!(e["error"]["code"], INVALID_PARAMS);
        assert_eq!(e["id"], 7);
        let s = bare.answer(&req("sampling/createMessage", json!({})), None);
        assert_eq!(s["error"]["code"], METHOD_NOT_FOUND);
        let r = bare.answer(&req("roots/list", json!({})), None);
        assert_eq!(r["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(
            bare.answer(&req("ping", json!({})), None)["result"],
            json!({})
        );
    }

    #[test]
    fn the_full_persona_declines_samples_and_lists_roots() {
        let mut full = Persona::full();
        assert!(full.capabilities()["elicitation"].get("url").is_some());
        let form = req(
            "elicitation/create",
            json!({"message": "?", "requestedSchema": {"type": "object", "properties": {
                "a": {"type": "string", "default": "x"}, "b": {"type": "boolean"}}}}),
        );
        assert_eq!(
            full.answer(&form, None)["result"],
            json!({"action": "decline"})
        );
        let url = req(
            "elicitation/create",
            json!({"mode": "url", "url": "https://example.com", "elicitationId": "1", "message": "?"}),
        );
        full.elicitation = ElicitAnswer::Accept;
        // A URL is never opened, whatever the answer configured for forms.
        assert_eq!(
            full.answer(&url, None)["result"],
            json!({"action": "decline"})
        );
        assert_eq!(
            full.answer(&form, None)["result"],
            json!({"action": "accept", "content": {"a": "x"}})
        );
        full.per_tool.insert("t".into(), ElicitAnswer::Cancel);
        assert_eq!(full.answer(&form, Some("t"))["result"]["action"], "cancel");
        let other = req(
            "elicitation/create",
            json!({"mode": "telepathy", "message": "?"}),
        );
        assert_eq!(full.answer(&other, None)["error"]["code"], INVALID_PARAMS);
        let s = full.answer(&req("sampling/createMessage", json!({})), None);
        assert_eq!(s["result"]["role"], "assistant");
        assert!(
            s["result"]["content"]["text"]
                .as_str()
                .unwrap_or("")
                .contains("scout")
        );
        assert_eq!(
            full.answer(&req("roots/list", json!({})), None)["result"],
            json!({"roots": []})
        );
        full.roots.push(Root {
            uri: "file:///nowhere".into(),
            name: None,
        });
        assert_eq!(
            full.answer(&req("roots/list", json!({})), None)["result"]["roots"][0]["uri"],
            "file:///nowhere"
        );
        let unknown = full.answer(&req("tasks/list", json!({})), None);
        assert_eq!(unknown["error"]["code"], METHOD_NOT_FOUND);
    }
}
