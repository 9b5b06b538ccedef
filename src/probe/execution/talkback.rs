//! When the server talks back: `execution.elicitation`, `execution.sampling`,
//! `execution.roots`, and (on the wire the run plays bare) `protocol.capability_use`; on a
//! 2026-07-28 wire, where the server asks inside `input_required` results instead, also
//! `execution.input_required`.
//!
//! A server asks a client only for what the client declared, so a bare client never sees
//! most of these requests. After a handshake-era wire's ordinary calls, scout opens one more
//! connection that plays the full persona (declares roots, sampling and elicitation form
//! and url, answers as `[client]` says) and calls on it, one at a time and under the same
//! policy, the tools the policy allows: first those listed to the full client alone and
//! those during whose call on the bare wire the server asked anything, then the rest (a
//! tool may ask only a client that can answer), at most [`MAX_TALKBACK_CALLS`].
//! docs/scheduling.md says why a second connection.

use serde_json::Value;

use crate::client::rounds::InputChain;
use crate::client::{Connection, lifecycle};
use crate::policy::{self, Decision, args};
use crate::probe::execution::input_required::{INPUT_REQUIRED, input_required, variants};
use crate::probe::session::{Catalog, Session};
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::transport::answer::{Asked, Persona, PersonaKind};
use crate::transport::{Outcome, Reply};

/// The 2025-11-25 client pages.
const ELICITATION25: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation";
const SAMPLING25: &str = "https://modelcontextprotocol.io/specification/2025-11-25/client/sampling";
const ROOTS25: &str = "https://modelcontextprotocol.io/specification/2025-11-25/client/roots";

crate::checks! { phase: Execution;
    ELICITATION = "execution.elicitation", Major, "Elicitation requests are well formed and the call completes", ELICITATION25,
        "Handshake era, on the connection that plays the full persona (it declares elicitation form and url): each elicitation/create must use a declared mode (none means form) with a message; a form must carry a flat requestedSchema of primitive properties (string with an allowed format, number, integer, boolean, the enum forms of the revision; no nested objects); a URL request a valid url and an elicitationId (2025-11-25 on; URL mode does not exist before). scout declines (or answers as [client] says; it never opens a URL), and the tool call that asked must then complete: no answer fails, a JSON-RPC error after scout answered is a warning naming the call and the answer, a result (isError true included) completes it. A form field whose name or title reads as a secret (password, API key, access token, card number…) is a warning: secrets belong in URL mode, and the words are a heuristic. A call refused with -32042 (URL elicitation required, 2025-11-25) must list its elicitations in data.elicitations, each in URL mode with an elicitationId. Not applicable when the server asked for nothing.",
        "Send only flat forms of primitive fields in a declared mode, and finish the tool call whatever the user answered (decline and cancel included).";
    SAMPLING = "execution.sampling", Major, "Sampling requests are well formed and the call completes", SAMPLING25,
        "Handshake era, on the connection that plays the full persona (it declares sampling, without tools): each sampling/createMessage must carry messages (role user or assistant, with content) and an integer maxTokens, and no tools or toolChoice, since sampling.tools was not declared; includeContext thisServer or allServers without sampling.context is a warning. scout answers with one fixed assistant message naming scout (no model is called), and the tool call that asked must then complete (a JSON-RPC error after scout answered is a warning naming the call and the answer; a result, isError true included, completes it).",
        "Send tools in sampling only to a client that declared sampling.tools, and finish the tool call with whatever the client's model answered.";
    ROOTS = "execution.roots", Minor, "Roots requests are well formed and the call completes", ROOTS25,
        "Handshake era, on the connection that plays the full persona (it declares roots): each roots/list must be a well-formed request (params absent or an object); scout answers with the configured roots (none by default), and a tool call during which the server asked must then complete (a JSON-RPC error after scout answered is a warning naming the call and the answer; a result, isError true included, completes it).",
        "Ask for roots with a plain roots/list and carry on with the list the client gives, even an empty one.";
}

/// At most this many tools are called on the full persona's connection.
const MAX_TALKBACK_CALLS: usize = 20;

/// What the full persona's connection showed: what the server asked, the calls made (tool
/// name and reply), and why nothing was called when nothing was.
struct Talkback {
    asks: Vec<Asked>,
    calls: Vec<(String, Reply)>,
    /// Tools the policy kept from being called, each with the flag that would allow it.
    refused: Vec<String>,
    version: String,
    /// When scout sent `notifications/initialized` on the full persona's own connection.
    initialized_at: Option<Seq>,
}

impl Talkback {
    /// What a wire that already plays the full persona showed: its own calls and `asks`.
    fn of_own_calls(
        asks: Vec<Asked>,
        wire: &Connection,
        calls: &[(String, Option<Reply>)],
    ) -> Self {
        Talkback {
            asks,
            calls: calls
                .iter()
                .filter_map(|(n, r)| Some((n.clone(), r.clone()?)))
                .collect(),
            refused: Vec::new(),
            version: wire.protocol_version().to_string(),
            initialized_at: None,
        }
    }
}

/// Judges a handshake-era `wire` (after its ordinary calls, whose replies are `calls`) and
/// the full persona's connection; records the four findings.
pub async fn run(
    s: &mut Session,
    wire: &Connection,
    catalog: &Catalog,
    calls: &[(String, Option<Reply>)],
    tasks: Option<super::tasks::Probed>,
) {
    let era = wire.era();
    if era == Era::Modern {
        return modern(s, wire, catalog, calls, tasks.unwrap_or_default()).await;
    }
    s.add(
        INPUT_REQUIRED
            .skip(
                SkipReason::NotApplicable,
                "a 2026-07-28 rule; this wire speaks the handshake era",
            )
            .era(era),
    );
    if wire.transport() == crate::report::model::TransportKind::LegacySse {
        // The server's requests on the one HTTP+SSE stream are neither answered nor
        // logged yet: a pass would claim what nothing showed.
        let why = "the HTTP+SSE transport (2024-11-05): scout does not answer the server's requests on its event stream yet";
        s.add(
            crate::probe::protocol::capability_use::CAPABILITY_USE
                .skip(SkipReason::NotAssessed, why)
                .era(era),
        );
        for c in CHECKS {
            s.add(c.skip(SkipReason::NotAssessed, why).era(era));
        }
        return;
    }
    let bare_asks = wire.asked();
    let capability_use = crate::probe::protocol::capability_use::capability_use(
        wire.persona(),
        &bare_asks,
        &catalog.evidence,
    );
    let talkback = if wire.persona().is_full() {
        // The run already plays the full persona: its own calls are the ones to judge.
        Talkback::of_own_calls(bare_asks, wire, calls)
    } else {
        match full_connection(s, wire, catalog, &bare_asks).await {
            Ok(t) => t,
            Err(why) => {
                s.add(capability_use.era(era));
                for c in CHECKS {
                    s.add(c.skip(SkipReason::NotAssessed, why.clone()).era(era));
                }
                return;
            }
        }
    };
    s.add(
        crate::probe::protocol::capability_use::before_initialized(
            capability_use,
            &talkback.asks,
            talkback.initialized_at,
        )
        .era(era),
    );
    for f in judge(&talkback) {
        s.add(f.era(era));
    }
}

/// A 2026-07-28 wire: the server asks only inside results (`input_required`), which scout
/// completes on every call (`client::rounds`). The bare client's calls are the run's own;
/// then, on the same wire, requests that play the full persona (they declare roots, sampling
/// and elicitation in `_meta`) call the tools again, one at a time. What was asked on both
/// is judged: the round trips (`execution.input_required`) and each input request as
/// elicitation, sampling or roots.
async fn modern(
    s: &mut Session,
    wire: &Connection,
    catalog: &Catalog,
    calls: &[(String, Option<Reply>)],
    tasks: super::tasks::Probed,
) {
    let era = wire.era();
    // The bare client's calls: a server that needs what they did not declare refuses them.
    let bare: Vec<(String, &Reply)> = calls
        .iter()
        .filter_map(|(n, r)| Some((format!("tools/call {n}"), r.as_ref()?)))
        .collect();
    s.add(crate::probe::protocol::capability_use::missing_capability(&bare).era(era));
    let mut chains = wire.input_chains();
    let mut task_chains = wire.task_chains();
    // On one completed chain of each persona, the answers are varied (none, one too many,
    // an altered state) to see how the server takes them.
    let mut varied = Vec::new();
    if let Some(c) = chains.iter().find(|c| c.completed()) {
        varied.push(variants(wire, c).await);
    }
    let talkback = if wire.persona().is_full() {
        Ok(Talkback::of_own_calls(asks_of(&chains), wire, calls))
    } else {
        let persona = Persona {
            kind: PersonaKind::Full,
            // The tasks extension, when the server declares it: the full persona may be
            // handed tasks, which it follows (`execution.tasks` judges them).
            tasks: super::tasks::modern::declares_extension(wire.capabilities()),
            ..s.spec.client.clone()
        };
        match wire.as_persona(persona) {
            // Each 2026-07-28 request declares its persona: the same wire serves both.
            Some(full) => {
                let t = calls_that_may_ask(s, &full, catalog, &[]).await;
                task_chains.extend(full.task_chains());
                let full_chains = full.input_chains();
                let asks = asks_of(&full_chains);
                // The full persona's answers are the ones a server can miss.
                if let Some(c) = full_chains
                    .iter()
                    .find(|c| c.completed() && c.rounds.iter().any(|r| r.responses.is_some()))
                {
                    varied.push(variants(&full, c).await);
                }
                chains.extend(full_chains);
                t.map(|t| Talkback { asks, ..t })
            }
            None => Err("no 2026-07-28 wire for the full persona".to_string()),
        }
    };
    s.add(input_required(&chains, &varied).era(era));
    s.add(tasks.judge_modern(calls, &task_chains).era(era));
    match talkback {
        Ok(t) => {
            for f in judge(&t) {
                s.add(f.era(era));
            }
        }
        Err(why) => {
            for c in CHECKS {
                s.add(c.skip(SkipReason::NotAssessed, why.clone()).era(era));
            }
        }
    }
}

/// The input requests of `chains` that scout answered, as the judges of the handshake era's
/// server requests read them: each request with its key as id, scout's answer as the result.
fn asks_of(chains: &[InputChain]) -> Vec<Asked> {
    let mut out = Vec::new();
    for c in chains {
        let tool = (c.method == "tools/call").then(|| c.subject.clone());
        for r in &c.rounds {
            let (Some(requests), Some(responses)) = (
                r.result.get("inputRequests").and_then(Value::as_object),
                r.responses.as_ref(),
            ) else {
                continue;
            };
            for (key, request) in requests {
                out.push(Asked {
                    request: serde_json::json!({
                        "id": key,
                        "method": request.get("method").cloned().unwrap_or(Value::Null),
                        "params": request.get("params").cloned().unwrap_or(Value::Null),
                    }),
                    answer: serde_json::json!({"result": responses.get(key).cloned().unwrap_or(Value::Null)}),
                    tool: tool.clone(),
                    evidence: r.evidence.clone(),
                });
            }
        }
    }
    out
}

/// Opens the full persona's connection, calls the tools that may make the server ask, and
/// closes it again.
async fn full_connection(
    s: &Session,
    wire: &Connection,
    catalog: &Catalog,
    bare_asks: &[Asked],
) -> Result<Talkback, String> {
    let persona = Persona {
        kind: PersonaKind::Full,
        ..s.spec.client.clone()
    };
    let fresh = wire
        .fresh()
        .await
        .map_err(|e| format!("no connection for the full persona: {e}"))?
        .with_persona(persona);
    let (full, init, note) = lifecycle::open_legacy(&fresh).await;
    let full =
        full.ok_or_else(|| format!("initialize as the full persona failed: {}", init.describe()))?;
    let result = calls_that_may_ask(s, &full, catalog, bare_asks).await;
    let _ = full.close().await;
    result.map(|t| Talkback {
        initialized_at: note.and_then(|n| n.evidence.first().copied()),
        ..t
    })
}

async fn calls_that_may_ask(
    s: &Session,
    full: &Connection,
    catalog: &Catalog,
    bare_asks: &[Asked],
) -> Result<Talkback, String> {
    let tools = policy::list_tools(full)
        .await
        .map_err(|e| format!("tools/list as the full persona failed: {e}"))?;
    // A 2026-07-28 tool with invalid x-mcp-header declarations is one a client must not
    // offer (the catalog phase says why); the full persona does not call it either.
    let (tools, _) = crate::probe::catalog::x_mcp_header::split_dropped(full, tools);
    let bare_names: Vec<&str> = catalog.tools.iter().map(policy::tool_name).collect();
    let asked_during: Vec<&str> = bare_asks.iter().filter_map(|a| a.tool.as_deref()).collect();
    let mut refused = Vec::new();
    let mut first = Vec::new();
    let mut rest = Vec::new();
    for t in &tools {
        let name = policy::tool_name(t);
        // A tool that requires task augmentation refuses a plain call, and scout does not
        // run tasks (see the execution phase).
        if t.pointer("/execution/taskSupport").and_then(Value::as_str) == Some("required") {
            continue;
        }
        match policy::decide(t, &s.spec.policy) {
            Decision::Call if !bare_names.contains(&name) || asked_during.contains(&name) => {
                first.push(t.clone())
            }
            Decision::Call => rest.push(t.clone()),
            Decision::Skip { allow_with, .. } => refused.push(format!("{name} ({allow_with})")),
        }
    }
    first.extend(rest);
    first.truncate(MAX_TALKBACK_CALLS);
    // One at a time: over stdio a request of the server's names no request of scout's, and
    // only a call alone on the wire tells which call asked.
    let mut calls = Vec::new();
    for t in &first {
        let name = policy::tool_name(t).to_string();
        let (arguments, _) = args::arguments_for(t, &s.spec.tools);
        let schema = t.get("inputSchema").cloned().unwrap_or(Value::Null);
        let reply = full.call_tool(&name, arguments, &schema).await;
        calls.push((name, reply));
    }
    Ok(Talkback {
        asks: full.asked(),
        calls,
        refused,
        version: full.protocol_version().to_string(),
        initialized_at: None,
    })
}

/// The three verdicts from what the full persona's connection showed.
fn judge(t: &Talkback) -> Vec<FindingBuilder> {
    let persona_declared = Persona::full().capabilities();
    [
        (&ELICITATION, "elicitation/create"),
        (&SAMPLING, "sampling/createMessage"),
        (&ROOTS, "roots/list"),
    ]
    .into_iter()
    .map(|(check, method)| {
        let asks: Vec<&Asked> = t.asks.iter().filter(|a| a.method() == method).collect();
        // 2025-11-25: a call may be refused with -32042 (URL elicitation required) instead.
        let url_required: Vec<(&String, &Reply)> = t
            .calls
            .iter()
            .filter(|(_, r)| method == "elicitation/create" && r.error_code() == Some(-32042))
            .map(|(n, r)| (n, r))
            .collect();
        if asks.is_empty() && url_required.is_empty() {
            let called: Vec<&str> = t.calls.iter().map(|(n, _)| n.as_str()).collect();
            let called = if called.is_empty() {
                "no tool was called".to_string()
            } else {
                format!("tools called: {}", called.join(", "))
            };
            if t.refused.is_empty() {
                return check.skip(
                    SkipReason::NotApplicable,
                    format!("the server sent no {method} to the full persona ({called})"),
                );
            }
            return check.skip(
                SkipReason::Policy,
                format!(
                    "the server sent no {method} to the full persona ({called}); the policy kept scout from calling {}",
                    t.refused.join(", ")
                ),
            );
        }
        let mut fails = Vec::new();
        let mut warns = Vec::new();
        let mut evidence: Vec<Seq> = Vec::new();
        for (tool, reply) in &url_required {
            evidence.extend(reply.evidence.iter().copied());
            let data = reply
                .response
                .as_ref()
                .and_then(|r| r.pointer("/error/data"));
            fails.extend(
                url_required_problems(data)
                    .into_iter()
                    .map(|p| format!("the -32042 refusal of {tool}: {p}")),
            );
        }
        for a in &asks {
            evidence.extend(a.evidence.iter().copied());
            let params = a.request.get("params").unwrap_or(&Value::Null);
            let problems = match method {
                "elicitation/create" => {
                    warns.extend(
                        sensitive_form_fields(params)
                            .into_iter()
                            .map(|f| format!("elicitation/create: {f}")),
                    );
                    elicitation_problems(params, &t.version)
                }
                "sampling/createMessage" => {
                    let (f, w) = sampling_problems(params, &persona_declared);
                    warns.extend(w);
                    f
                }
                _ => roots_problems(params),
            };
            fails.extend(problems.into_iter().map(|p| format!("{method}: {p}")));
            if let Some(tool) = &a.tool
                && let Some((_, reply)) = t.calls.iter().find(|(n, _)| n == tool)
            {
                evidence.extend(reply.evidence.iter().copied());
                if reply.outcome != Outcome::Answered {
                    fails.push(format!(
                        "the call of {tool} did not complete after scout answered {}: {}",
                        answer_of(a),
                        reply.describe()
                    ));
                } else if let Some(w) = ended_in_error(tool, a, reply) {
                    warns.push(w);
                }
            }
        }
        let n = asks.len() + url_required.len();
        if !fails.is_empty() {
            fails.dedup();
            check.fail(fails.join("; ")).evidence(evidence)
        } else if !warns.is_empty() {
            warns.dedup();
            check.warn(warns.join("; ")).evidence(evidence)
        } else {
            let mut during: Vec<&str> = asks.iter().filter_map(|a| a.tool.as_deref()).collect();
            during.dedup();
            let completed = if during.is_empty() {
                String::new()
            } else {
                format!(
                    "; the call(s) that asked ({}) completed after scout answered",
                    during.join(", ")
                )
            };
            let answered = asks
                .first()
                .map(|a| format!(", answered {}", answer_of(a)))
                .unwrap_or_default();
            let refusals = if url_required.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} of them -32042 refusals naming URL elicitations)",
                    url_required.len()
                )
            };
            check
                .pass(format!(
                    "{n} {method} request(s) well formed{refusals}{answered}{completed}"
                ))
                .evidence(evidence)
        }
    })
    .collect()
}

/// A call that asked, was answered, and then ended in a JSON-RPC error: an answer came, but
/// not a completion ("Servers should handle each state appropriately", a decline included).
/// A result with `isError: true` is a completion: the tool reported its own failure. A
/// -32042 refusal is judged as such elsewhere.
fn ended_in_error(tool: &str, a: &Asked, reply: &Reply) -> Option<String> {
    let code = reply.error_code().filter(|c| *c != -32042)?;
    Some(format!(
        "the call of {tool} ended in JSON-RPC error {code} ({:?}) after scout answered {}, instead of a result",
        reply.error_message().unwrap_or_default(),
        answer_of(a)
    ))
}

/// What scout answered, in a few words (`decline`, an error code, a result).
fn answer_of(a: &Asked) -> String {
    if let Some(action) = a.answer.pointer("/result/action").and_then(Value::as_str) {
        return format!("with {action}");
    }
    if let Some(code) = a.answer.pointer("/error/code") {
        return format!("with error {code}");
    }
    "with a result".to_string()
}

/// What is wrong with the `data` of a -32042 (URL elicitation required) refusal: "The error
/// MUST include a list of elicitations that are required to complete before the original
/// can be retried. Any elicitations returned in the error MUST be URL mode elicitations and
/// have an elicitationId property."
pub fn url_required_problems(data: Option<&Value>) -> Vec<String> {
    let Some(list) = data
        .and_then(|d| d.get("elicitations"))
        .and_then(Value::as_array)
        .filter(|l| !l.is_empty())
    else {
        return vec!["data.elicitations is missing or empty".to_string()];
    };
    let mut out = Vec::new();
    for (i, e) in list.iter().enumerate() {
        if e.get("mode").and_then(Value::as_str) != Some("url") {
            out.push(format!(
                "data.elicitations[{i}] is not a URL-mode elicitation"
            ));
        }
        if !e.get("elicitationId").is_some_and(Value::is_string) {
            out.push(format!("data.elicitations[{i}] has no elicitationId"));
        }
    }
    out
}

/// Words that name secrets in a form field's name or title: "Servers MUST NOT use form mode
/// elicitation to request sensitive information such as passwords, API keys, access tokens,
/// or payment credentials". Read from text, so a warning at most.
const SENSITIVE: [&str; 12] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "apikey",
    "accesstoken",
    "refreshtoken",
    "privatekey",
    "creditcard",
    "cardnumber",
    "cvv",
    "cvc",
];

/// The fields of a form-mode elicitation that ask for a secret, by name or title.
pub fn sensitive_form_fields(params: &Value) -> Vec<String> {
    if params.get("mode").and_then(Value::as_str).unwrap_or("form") != "form" {
        return Vec::new();
    }
    let Some(props) = params
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let squash = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase()
    };
    props
        .iter()
        .filter(|(name, p)| {
            let title = p.get("title").and_then(Value::as_str).unwrap_or("");
            let text = format!("{} {}", squash(name), squash(title));
            SENSITIVE.iter().any(|w| text.contains(w))
        })
        .map(|(name, _)| {
            format!(
                "the form asks for {name:?}, which reads as a secret; secrets belong in URL mode, never in a form"
            )
        })
        .collect()
}

/// What is wrong with an `elicitation/create`'s params at `version` (the mode against what
/// the full persona declared: form and url).
pub fn elicitation_problems(params: &Value, version: &str) -> Vec<String> {
    let mut out = Vec::new();
    if params.get("message").and_then(Value::as_str).is_none() {
        out.push("no message string".to_string());
    }
    let mode = params.get("mode").and_then(Value::as_str);
    // URL mode and the `mode` field came with 2025-11-25.
    let has_modes = version >= "2025-11-25";
    match mode.unwrap_or("form") {
        "form" => out.extend(form_schema_problems(
            params.get("requestedSchema"),
            has_modes,
        )),
        "url" if !has_modes => {
            out.push(format!("URL mode does not exist in {version}"));
        }
        "url" => {
            let url = params.get("url").and_then(Value::as_str);
            if url.is_none_or(|u| url::Url::parse(u).is_err()) {
                out.push("a URL-mode request without a valid url".to_string());
            }
            // 2026-07-28 dropped the elicitationId: a URL request rides an input_required
            // result, and the retry is what ties the answer to it.
            if version < crate::client::MODERN_VERSION
                && params
                    .get("elicitationId")
                    .and_then(Value::as_str)
                    .is_none()
            {
                out.push("a URL-mode request without an elicitationId".to_string());
            }
        }
        other => out.push(format!("mode {other:?} was not declared by the client")),
    }
    out
}

/// What is wrong with a form's `requestedSchema`: it must be a flat object of primitive
/// properties (`multi_select`: the 2025-11-25 array enums are allowed).
fn form_schema_problems(schema: Option<&Value>, multi_select: bool) -> Vec<String> {
    let Some(schema) = schema.and_then(Value::as_object) else {
        return vec!["a form without a requestedSchema object".to_string()];
    };
    let mut out = Vec::new();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        out.push("requestedSchema is not of type object".to_string());
    }
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        out.push("requestedSchema has no properties object".to_string());
        return out;
    };
    const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];
    for (name, p) in props {
        let ty = p.get("type").and_then(Value::as_str);
        match ty {
            Some("string") => {
                if let Some(f) = p.get("format").and_then(Value::as_str)
                    && !FORMATS.contains(&f)
                {
                    out.push(format!(
                        "property {name}: format {f:?} is not one of {FORMATS:?}"
                    ));
                }
                if p.get("enum").is_some_and(|e| !e.is_array()) {
                    out.push(format!("property {name}: enum is not an array"));
                }
            }
            Some("number" | "integer" | "boolean") => {}
            Some("array") if multi_select => {
                let items = p.get("items");
                let enumerated = items.is_some_and(|i| {
                    i.get("enum").is_some_and(Value::is_array)
                        || i.get("anyOf").is_some_and(Value::is_array)
                });
                if !enumerated {
                    out.push(format!(
                        "property {name}: an array that is not a multi-select enum"
                    ));
                }
            }
            other => out.push(format!(
                "property {name}: type {} is not a primitive (flat forms only)",
                other.map_or_else(|| "missing".to_string(), |t| format!("{t:?}"))
            )),
        }
    }
    out
}

/// What is wrong with a `sampling/createMessage`'s params for a client that declared
/// `declared`: (fails, warnings).
pub fn sampling_problems(params: &Value, declared: &Value) -> (Vec<String>, Vec<String>) {
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    match params.get("messages").and_then(Value::as_array) {
        None => fails.push("no messages array".to_string()),
        Some(ms) => {
            for (i, m) in ms.iter().enumerate() {
                let role = m.get("role").and_then(Value::as_str);
                if !matches!(role, Some("user" | "assistant")) {
                    fails.push(format!("message {i}: role is not user or assistant"));
                }
                if !m
                    .get("content")
                    .is_some_and(|c| c.is_object() || c.is_array())
                {
                    fails.push(format!("message {i}: no content"));
                }
            }
        }
    }
    if !params
        .get("maxTokens")
        .is_some_and(crate::report::integer::is_integer)
    {
        fails.push("no integer maxTokens".to_string());
    }
    let has = |path: &str| declared.pointer(path).is_some_and(|v| !v.is_null());
    if (params.get("tools").is_some() || params.get("toolChoice").is_some())
        && !has("/sampling/tools")
    {
        // client/sampling: "Servers MUST NOT send tool-enabled sampling requests to Clients
        // that have not declared support for tool use via the `sampling.tools` capability."
        fails.push("tools sent to a client that did not declare sampling.tools".to_string());
    }
    let context = params.get("includeContext").and_then(Value::as_str);
    if matches!(context, Some("thisServer" | "allServers")) && !has("/sampling/context") {
        // client/sampling: servers "SHOULD NOT use them unless the client declares
        // `sampling.context` capability".
        warns.push(format!(
            "includeContext {:?} without sampling.context declared",
            context.unwrap_or_default()
        ));
    }
    (fails, warns)
}

/// What is wrong with a `roots/list`'s params.
fn roots_problems(params: &Value) -> Vec<String> {
    if params.is_null() || params.is_object() {
        Vec::new()
    } else {
        vec!["params is not an object".to_string()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_in_a_form_warn_and_a_url_refusal_must_list_url_elicitations() {
        let form = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string"}, "Api-Key": {"type": "string"},
            "x": {"type": "string", "title": "Your password"}}}});
        let found = sensitive_form_fields(&form);
        assert_eq!(found.len(), 2, "{found:?}");
        let url = json!({"mode": "url", "message": "m", "url": "https://a.invalid/"});
        assert!(sensitive_form_fields(&url).is_empty());
        assert!(!url_required_problems(None).is_empty());
        let listed = json!({"elicitations": [{"mode": "url", "elicitationId": "e", "url": "https://a.invalid/", "message": "m"}]});
        assert!(url_required_problems(Some(&listed)).is_empty());
        let form_in = json!({"elicitations": [{"mode": "form", "message": "m"}]});
        assert_eq!(url_required_problems(Some(&form_in)).len(), 2);
    }

    #[test]
    fn elicitation_shapes_follow_the_revision() {
        let form = json!({"message": "?", "requestedSchema": {"type": "object", "properties": {
            "a": {"type": "string", "format": "email"}, "b": {"type": "boolean"},
            "c": {"type": "array", "items": {"enum": ["x", "y"]}}}}});
        assert!(elicitation_problems(&form, "2025-11-25").is_empty());
        // Multi-select enums came with 2025-11-25.
        assert_eq!(elicitation_problems(&form, "2025-06-18").len(), 1);
        let nested = json!({"message": "?", "requestedSchema": {"type": "object", "properties": {
            "a": {"type": "object", "properties": {}}}}});
        assert!(elicitation_problems(&nested, "2025-11-25")[0].contains("not a primitive"));
        let url = json!({"mode": "url", "message": "?", "url": "https://example.com/x", "elicitationId": "1"});
        assert!(elicitation_problems(&url, "2025-11-25").is_empty());
        assert!(elicitation_problems(&url, "2025-06-18")[0].contains("does not exist"));
        let bad_url = json!({"mode": "url", "message": "?", "url": "not a url"});
        assert_eq!(elicitation_problems(&bad_url, "2025-11-25").len(), 2);
        let odd = json!({"mode": "telepathy", "message": "?"});
        assert!(elicitation_problems(&odd, "2025-11-25")[0].contains("not declared"));
    }

    #[test]
    fn sampling_tools_need_the_declaration() {
        let declared = Persona::full().capabilities();
        let ok = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
        assert_eq!(sampling_problems(&ok, &declared), (vec![], vec![]));
        let mut with_tools = ok.clone();
        with_tools["tools"] = json!([]);
        assert_eq!(sampling_problems(&with_tools, &declared).0.len(), 1);
        let mut context = ok.clone();
        context["includeContext"] = json!("allServers");
        assert_eq!(sampling_problems(&context, &declared).1.len(), 1);
        assert_eq!(sampling_problems(&json!({}), &declared).0.len(), 2);
    }

    #[test]
    fn a_call_that_hangs_after_the_answer_fails() {
        let asked = |method: &str, tool: Option<&str>| Asked {
            request: json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {
                "message": "?", "requestedSchema": {"type": "object", "properties": {}}}}),
            answer: json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}),
            tool: tool.map(str::to_string),
            evidence: vec![5],
        };
        let hung = Reply {
            evidence: vec![4],
            outcome: Outcome::TimedOut,
            ..Reply::default()
        };
        let done = Reply {
            evidence: vec![4],
            outcome: Outcome::Answered,
            response: Some(json!({"jsonrpc": "2.0", "id": 9, "result": {"content": []}})),
            ..Reply::default()
        };
        let t = |reply: Reply| Talkback {
            asks: vec![asked("elicitation/create", Some("ask"))],
            calls: vec![("ask".into(), reply)],
            refused: vec![],
            version: "2025-11-25".into(),
            initialized_at: None,
        };
        use crate::report::finding::Status;
        let verdicts = judge(&t(hung));
        assert_eq!(verdicts[0].status(), Status::Fail);
        assert_eq!(verdicts[1].status(), Status::Skip);
        let verdicts = judge(&t(done));
        assert_eq!(verdicts[0].status(), Status::Pass);
        let errored = Reply {
            evidence: vec![4],
            outcome: Outcome::Answered,
            response: Some(
                json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "no unit system chosen"}}),
            ),
            ..Reply::default()
        };
        let verdicts = judge(&t(errored));
        assert_eq!(verdicts[0].status(), Status::Warn);
        assert!(
            verdicts[0]
                .detail()
                .contains("ask ended in JSON-RPC error -32603 (\"no unit system chosen\") after scout answered with decline"),
            "{}",
            verdicts[0].detail()
        );
        let is_error = Reply {
            evidence: vec![4],
            outcome: Outcome::Answered,
            response: Some(
                json!({"jsonrpc": "2.0", "id": 9, "result": {"content": [], "isError": true}}),
            ),
            ..Reply::default()
        };
        assert_eq!(judge(&t(is_error))[0].status(), Status::Pass);
        let nothing = Talkback {
            asks: vec![],
            calls: vec![],
            refused: vec!["t (--allow-mutations)".into()],
            version: "2025-11-25".into(),
            initialized_at: None,
        };
        assert!(judge(&nothing).iter().all(|f| f.status() == Status::Skip));
    }
}
