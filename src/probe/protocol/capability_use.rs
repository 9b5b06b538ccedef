//! `protocol.capability_use`: a handshake-era server asks its client only for what the
//! client declared in `initialize`. Judged from what the server asked on a wire (every
//! request of the server's is answered and logged by the transports, see
//! `transport::answer`), against the persona that wire played. On 2026-07-28 the server
//! asks only inside results (`protocol.input_required_shape`), and what it may not do for
//! want of a capability it must refuse with -32021: that refusal's form is judged here.

use serde_json::Value;

use crate::report::check::spec_url;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::answer::{Asked, Persona};

crate::checks! { phase: Protocol;
    CAPABILITY_USE = "protocol.capability_use", Major, "The server asks only for client capabilities that were declared", spec_url::L25,
        "Handshake era: every request the server sends while scout works with it (handshake, catalogue, tool calls) is answered and logged. sampling/createMessage needs the client's sampling capability, roots/list its roots capability, and elicitation/create its elicitation capability with the request's mode (no mode is form mode; an empty elicitation object declares form only). A request for a capability the client did not declare fails; a server that asked nothing undeclared passes. A request other than ping that reaches the full persona's connection before scout sent notifications/initialized is a warning (the lifecycle's SHOULD NOT). 2026-07-28 has no requests from the server outside a response (input_required results replace them, judged by protocol.input_required_shape); there a request the server cannot serve without an undeclared capability must be refused with -32021 whose data.requiredCapabilities names the missing capabilities, with HTTP 400 on Streamable HTTP: each such refusal of scout's calls is judged, and the check is not applicable when none came.",
        "Read the client's capabilities from initialize and send sampling, roots or elicitation requests (of a mode it declared) only to a client that declared them; otherwise return a tool error or a default.";
}

/// `capability_use` with the full persona's connection read too: "The server SHOULD NOT send
/// requests other than pings and logging before receiving the initialized notification". A
/// request of the server's that came before scout sent `notifications/initialized`
/// (`initialized_at`) turns a pass into a warning; a fail stays a fail.
pub fn before_initialized(
    verdict: FindingBuilder,
    asks: &[Asked],
    initialized_at: Option<Seq>,
) -> FindingBuilder {
    let Some(at) = initialized_at else {
        return verdict;
    };
    let early: Vec<&Asked> = asks
        .iter()
        .filter(|a| {
            a.evidence.first().is_some_and(|s| *s < at)
                && a.request.get("method").and_then(Value::as_str) != Some("ping")
        })
        .collect();
    if early.is_empty() || verdict.status() == crate::report::finding::Status::Fail {
        return verdict;
    }
    let methods: Vec<&str> = early
        .iter()
        .filter_map(|a| a.request.get("method").and_then(Value::as_str))
        .collect();
    CAPABILITY_USE
        .warn(format!(
            "the server sent {} to the full persona before scout's notifications/initialized; only pings and logging should come before it",
            methods.join(", ")
        ))
        .evidence(
            verdict
                .cited()
                .iter()
                .copied()
                .chain(early.iter().flat_map(|a| a.evidence.iter().copied()))
                .chain([at]),
        )
}

/// The capability `asked` needs and whether `declared` (the client's `capabilities`)
/// has it: `None` for a request that needs none (ping, anything else).
pub fn needs(asked: &Value, declared: &Value) -> Option<(String, bool)> {
    let method = asked.get("method").and_then(Value::as_str)?;
    let has = |k: &str| declared.get(k).is_some_and(|v| !v.is_null());
    match method {
        "sampling/createMessage" => Some(("sampling".into(), has("sampling"))),
        "roots/list" => Some(("roots".into(), has("roots"))),
        "elicitation/create" => {
            let mode = asked
                .pointer("/params/mode")
                .and_then(Value::as_str)
                .unwrap_or("form");
            let elicitation = declared.get("elicitation").filter(|v| !v.is_null());
            // client/elicitation: "an empty capabilities object is equivalent to declaring
            // support for `form` mode only".
            let ok = match elicitation.and_then(Value::as_object) {
                None => false,
                Some(o) if o.is_empty() => mode == "form",
                Some(o) => o.contains_key(mode),
            };
            Some((format!("elicitation ({mode} mode)"), ok))
        }
        _ => None,
    }
}

/// The verdict for one handshake-era wire: what the server asked (`asks`) of a client
/// playing `persona`; `seen` cites the exchanges a pass rests on (the catalogue's, when
/// the server asked nothing).
pub fn capability_use(persona: &Persona, asks: &[Asked], seen: &[Seq]) -> FindingBuilder {
    let declared = persona.capabilities();
    let mut undeclared = Vec::new();
    let mut evidence = Vec::new();
    let mut asked_declared = 0;
    for a in asks {
        match needs(&a.request, &declared) {
            Some((what, false)) => {
                let during = a
                    .tool
                    .as_deref()
                    .map(|t| format!(" during the call of {t}"))
                    .unwrap_or_default();
                undeclared.push(format!("{}{during} needs {what}", a.method()));
                evidence.extend(a.evidence.iter().copied());
            }
            Some((_, true)) => {
                asked_declared += 1;
                evidence.extend(a.evidence.iter().copied());
            }
            None => {}
        }
    }
    let what_declared = if declared.as_object().is_some_and(|o| o.is_empty()) {
        "no client capability".to_string()
    } else {
        let keys: Vec<&str> = declared
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.join(", ")
    };
    if !undeclared.is_empty() {
        undeclared.dedup();
        return CAPABILITY_USE
            .fail(format!(
                "scout declared {what_declared}, yet the server sent: {} (scout refused each with a JSON-RPC error)",
                undeclared.join("; ")
            ))
            .evidence(evidence);
    }
    if asked_declared > 0 {
        return CAPABILITY_USE
            .pass(format!(
                "the server's {asked_declared} request(s) to the client each needed a capability scout declared ({what_declared})"
            ))
            .evidence(evidence);
    }
    if seen.is_empty() {
        return CAPABILITY_USE.skip(
            SkipReason::NotAssessed,
            "nothing was exchanged after the handshake to judge",
        );
    }
    CAPABILITY_USE
        .pass(format!(
            "scout declared {what_declared}; through the handshake, the catalogue and the calls the server sent no request needing a capability"
        ))
        .evidence(seen.iter().copied())
}

/// The 2026-07-28 verdict: every -32021 (MissingRequiredClientCapability) among `replies`
/// (scout's calls on a modern wire) names the missing capabilities in
/// `data.requiredCapabilities` and, over HTTP, came with status 400 ("If processing a
/// request requires a capability the client did not include in clientCapabilities, the
/// server MUST return a MissingRequiredClientCapabilityError (-32021) whose
/// data.requiredCapabilities lists the missing capabilities. On HTTP, the response status
/// MUST be 400 Bad Request", 2026-07-28 basic).
pub fn missing_capability(replies: &[(String, &crate::transport::Reply)]) -> FindingBuilder {
    let refusals: Vec<&(String, &crate::transport::Reply)> = replies
        .iter()
        .filter(|(_, r)| r.error_code() == Some(-32021))
        .collect();
    if refusals.is_empty() {
        return CAPABILITY_USE.skip(
            SkipReason::NotApplicable,
            "no call was refused for a client capability it needed (-32021); what a 2026-07-28 server asks inside its results is protocol.input_required_shape's",
        );
    }
    let mut problems = Vec::new();
    let mut evidence = Vec::new();
    let mut named = Vec::new();
    for (what, r) in &refusals {
        evidence.extend(r.evidence.iter().copied());
        let required = r
            .response
            .as_ref()
            .and_then(|v| v.pointer("/error/data/requiredCapabilities"));
        match required.and_then(Value::as_object) {
            Some(o) if !o.is_empty() => {
                named.push(format!(
                    "{what} ({})",
                    o.keys().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
            _ => problems.push(format!(
                "{what}: -32021 without data.requiredCapabilities naming what is missing"
            )),
        }
        if let Some(status) = r.status()
            && status != 400
        {
            problems.push(format!("{what}: -32021 with HTTP {status}, not 400"));
        }
    }
    if problems.is_empty() {
        CAPABILITY_USE
            .pass(format!(
                "{} call(s) refused for a capability scout had not declared, each naming it: {}",
                refusals.len(),
                named.join("; ")
            ))
            .evidence(evidence)
    } else {
        CAPABILITY_USE.fail(problems.join("; ")).evidence(evidence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Status;
    use serde_json::json;

    fn asked(method: &str, params: Value) -> Asked {
        Asked {
            request: json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
            answer: json!({}),
            tool: Some("t".into()),
            evidence: vec![3, 4],
        }
    }

    #[test]
    fn undeclared_requests_fail_and_declared_ones_pass() {
        let bare = Persona::bare();
        let full = Persona::full();
        let form = asked("elicitation/create", json!({"message": "?"}));
        let sampling = asked("sampling/createMessage", json!({}));
        let f = capability_use(&bare, &[form.clone(), sampling.clone()], &[1]);
        assert_eq!(f.status(), Status::Fail);
        let detail = f.build(|_| true).expect("valid").detail;
        assert!(detail.contains("elicitation (form mode)"), "{detail}");
        assert!(detail.contains("during the call of t"), "{detail}");
        assert_eq!(
            capability_use(&full, &[form, sampling], &[1]).status(),
            Status::Pass
        );
        // Nothing asked: a pass resting on what was exchanged, a skip without it.
        assert_eq!(capability_use(&bare, &[], &[1]).status(), Status::Pass);
        assert_eq!(capability_use(&bare, &[], &[]).status(), Status::Skip);
        // A ping needs nothing.
        let ping = asked("ping", json!({}));
        assert_eq!(capability_use(&bare, &[ping], &[1]).status(), Status::Pass);
    }

    #[test]
    fn elicitation_modes_follow_the_declaration() {
        let url = json!({"method": "elicitation/create", "params": {"mode": "url"}});
        let form = json!({"method": "elicitation/create", "params": {}});
        let form_only = json!({"elicitation": {}});
        assert_eq!(needs(&form, &form_only).map(|n| n.1), Some(true));
        assert_eq!(needs(&url, &form_only).map(|n| n.1), Some(false));
        let both = json!({"elicitation": {"form": {}, "url": {}}});
        assert_eq!(needs(&url, &both).map(|n| n.1), Some(true));
        assert_eq!(needs(&url, &json!({})).map(|n| n.1), Some(false));
        assert_eq!(needs(&json!({"method": "ping"}), &json!({})), None);
    }
}
