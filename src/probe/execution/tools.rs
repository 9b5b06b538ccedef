//! Calling tools: `execution.tool_call`, `structured_output`, `unknown_tool` and
//! `invalid_arguments`. Pure functions of the replies; `super` sends the calls.

use serde_json::Value;

use super::{INVALID_ARGUMENTS, MADE_UP_TOOL, STRUCTURED_OUTPUT, TOOL_CALL, UNKNOWN_TOOL};
use crate::policy::{self, args, schema};
use crate::probe::catalog::describe;
use crate::report::finding::FindingBuilder;
use crate::transport::{Outcome, Reply};

/// `execution.tool_call` for one call.
pub fn judge_tool_call(name: &str, source: args::ArgsSource, reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    let Some(result) = reply.result() else {
        // 2026-07-28: the tool needs a client capability the request did not declare (the
        // bare client declares none); the refusal's form is protocol.capability_use's.
        if reply.error_code() == Some(-32021) {
            return TOOL_CALL
                .info(format!(
                    "`{name}` needs a client capability the request did not declare (-32021)"
                ))
                .subject(name)
                .evidence(ev);
        }
        // scout cannot tell whether its made-up values (a timezone "scout") caused the error,
        // so with generated arguments an error is a warning; with configured ones a failure.
        if reply.error_code().is_some() && source == args::ArgsSource::Generated {
            return TOOL_CALL
                .warn(format!("`{name}` answered scout's generated arguments with {}; give it fixed arguments (a server entry's `tools` key) to assess it", describe(reply)))
                .subject(name)
                .evidence(ev);
        }
        // A slow tool is not a broken one: a timeout is a warning that names the setting.
        if reply.outcome == Outcome::TimedOut {
            return TOOL_CALL
                .warn(format!(
                    "`{name}` did not answer {} arguments within the timeout ({} ms); raise --timeout if the tool is slow by design",
                    source.as_str(),
                    reply.elapsed.as_millis()
                ))
                .subject(name)
                .evidence(ev);
        }
        return TOOL_CALL
            .fail(format!(
                "calling `{name}` with {} arguments got {}",
                source.as_str(),
                describe(reply)
            ))
            .subject(name)
            .evidence(ev);
    };
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return TOOL_CALL
            .info(format!(
                "`{name}` still asked for input when scout stopped answering (execution.input_required says why)"
            ))
            .subject(name)
            .evidence(ev);
    }
    if input_required_without_type(result) {
        // Its shape (and the missing resultType) is judged by protocol.result_type and
        // protocol.input_required_shape, on whichever call returns it; it is not a tool
        // result, so the missing content array says nothing here.
        return TOOL_CALL
            .info(format!(
                "`{name}` answered with an InputRequiredResult that lacks resultType (inputRequests or requestState, no content); protocol.result_type judges it"
            ))
            .subject(name)
            .evidence(ev);
    }
    let Some(content) = result.get("content") else {
        return TOOL_CALL
            .fail(format!(
                "`{name}` returned a result without a content array"
            ))
            .subject(name)
            .evidence(ev);
    };
    if !content.is_array() {
        return TOOL_CALL
            .fail(format!(
                "`{name}` returned content that is {}, not an array",
                schema::kind(content)
            ))
            .subject(name)
            .evidence(ev);
    }
    match result.get("isError") {
        None | Some(Value::Bool(false)) => TOOL_CALL
            .pass(format!(
                "`{name}` answered with a valid result to {} arguments",
                source.as_str()
            ))
            .subject(name)
            .evidence(ev),
        // The tool's own failure (an API error, a business rule): reported as information,
        // not as a defect of the server's protocol handling (the spec makes these results).
        Some(Value::Bool(true)) => TOOL_CALL
            .info(format!(
                "`{name}` reported its own error (isError: true) for {} arguments: {}",
                source.as_str(),
                first_text(result)
            ))
            .subject(name)
            .evidence(ev),
        Some(other) => TOOL_CALL
            .fail(format!(
                "`{name}`: isError is {}, not a boolean",
                schema::kind(other)
            ))
            .subject(name)
            .evidence(ev),
    }
}

/// The first text block of a result, shortened, for details.
fn first_text(result: &Value) -> String {
    let t = result
        .get("content")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find_map(|b| b.get("text").and_then(Value::as_str)))
        .filter(|t| !t.trim().is_empty())
        .unwrap_or("(no text)");
    t.chars().take(160).collect()
}

/// `execution.structured_output` for a tool with an outputSchema (`None` otherwise, or for an
/// isError result: the spec does not say those must match the schema).
pub fn structured_output(
    tool: &Value,
    result: &Value,
    version: &str,
    evidence: &[u64],
) -> Option<FindingBuilder> {
    let out_schema = tool.get("outputSchema")?;
    if result.get("isError").and_then(Value::as_bool) == Some(true)
        || result.get("resultType").and_then(Value::as_str) == Some("input_required")
    {
        return None;
    }
    let name = policy::tool_name(tool);
    let ev = evidence.iter().copied();
    let Some(sc) = result.get("structuredContent") else {
        return Some(
            STRUCTURED_OUTPUT
                .fail(format!(
                    "`{name}` declares an outputSchema but returned no structuredContent"
                ))
                .subject(name)
                .evidence(ev),
        );
    };
    if matches!(version, "2025-06-18" | "2025-11-25") && !sc.is_object() {
        return Some(
            STRUCTURED_OUTPUT
                .fail(format!(
                    "`{name}`: structuredContent is {}; {version} requires an object",
                    schema::kind(sc)
                ))
                .subject(name)
                .evidence(ev),
        );
    }
    if let Err(e) = schema::validate(out_schema, sc) {
        return Some(
            STRUCTURED_OUTPUT
                .fail(format!(
                    "`{name}`: structuredContent does not match the outputSchema: {e}"
                ))
                .subject(name)
                .evidence(ev),
        );
    }
    let serialised = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .any(|t| serde_json::from_str::<Value>(t).is_ok_and(|v| &v == sc));
    Some(if serialised {
        STRUCTURED_OUTPUT.pass(format!("`{name}`: structuredContent matches the outputSchema and is serialised in a text block")).subject(name).evidence(ev)
    } else {
        STRUCTURED_OUTPUT.warn(format!("`{name}`: structuredContent matches the outputSchema, but no text block carries its serialisation (clients without structured output see nothing)")).subject(name).evidence(ev)
    })
}

/// `execution.unknown_tool`: a JSON-RPC error (-32602 expected). An isError result is a
/// warning, a successful result a failure.
pub fn judge_unknown_tool(reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    match (reply.error_code(), reply.result()) {
        (Some(-32602), _) => UNKNOWN_TOOL.pass(format!("a call to the made-up tool `{MADE_UP_TOOL}` got -32602")).evidence(ev),
        (Some(code), _) => UNKNOWN_TOOL.warn(format!("a call to the made-up tool `{MADE_UP_TOOL}` got error {code}; -32602 (Invalid params) is expected")).evidence(ev),
        // The high-level SDK servers (TypeScript McpServer, Python FastMCP) answer this way.
        // The spec asks for a protocol error, but an agent still receives an error it can
        // read and act on: a deviation it can live with, so a warning.
        (None, Some(r)) if r.get("isError").and_then(Value::as_bool) == Some(true) => UNKNOWN_TOOL
            .warn(format!("a call to the made-up tool `{MADE_UP_TOOL}` got an isError result instead of a JSON-RPC error (-32602); an agent still reads it as an error, but the spec makes unknown tools a protocol error"))
            .evidence(ev),
        // A success tells the agent the tool ran: it cannot tell the call went nowhere.
        (None, Some(_)) => UNKNOWN_TOOL.fail(format!("a call to the made-up tool `{MADE_UP_TOOL}` was answered with a successful result, so an agent would believe the tool ran")).evidence(ev),
        (None, None) => UNKNOWN_TOOL.fail(format!("a call to the made-up tool `{MADE_UP_TOOL}` got {}", describe(reply))).evidence(ev),
    }
}

/// `execution.invalid_arguments`: arguments that violate the schema must be refused. A
/// refusal is an answer about the arguments: `-32602` (Invalid params) or another error the
/// server defines for them, or an isError result that says what was wrong (the feedback a
/// model corrects itself from). `-32603` (Internal error) is the tool crashing on bad input,
/// a warning; `-32601` (Method not found) is no answer about the arguments at all, reported
/// as what came; a success is a failure.
pub fn judge_invalid_arguments(name: &str, reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    let message = reply.error_message().unwrap_or_default();
    match reply.error_code() {
        Some(-32603) => {
            return INVALID_ARGUMENTS
                .warn(format!(
                    "`{name}` crashed on arguments that violate its schema: internal error -32603 {message:?}, not a refusal saying what was wrong (-32602 or an isError result)"
                ))
                .subject(name)
                .evidence(ev)
                .advice("Validate arguments against the inputSchema before running the tool, and refuse bad ones with -32602 or an isError result naming the problem.");
        }
        Some(-32601) => {
            return INVALID_ARGUMENTS
                .info(format!(
                    "`{name}` with arguments that violate its schema got -32601 Method not found {message:?}: an answer about the method, not the arguments, so not a refusal"
                ))
                .subject(name)
                .evidence(ev);
        }
        Some(code) => {
            return INVALID_ARGUMENTS
                .pass(format!(
                    "`{name}` refused arguments that violate its schema with error {code}"
                ))
                .subject(name)
                .evidence(ev);
        }
        None => {}
    }
    match reply.result() {
        Some(r) if r.get("isError").and_then(Value::as_bool) == Some(true) => {
            if says_something(r) {
                INVALID_ARGUMENTS
                    .pass(format!(
                        "`{name}` refused arguments that violate its schema with an isError result"
                    ))
                    .subject(name)
                    .evidence(ev)
            } else {
                INVALID_ARGUMENTS
                    .warn(format!(
                        "`{name}` refused arguments that violate its schema with an isError result that says nothing about what was wrong (no text)"
                    ))
                    .subject(name)
                    .evidence(ev)
                    .advice("Say in the isError result's text what was wrong with the arguments, so a model can correct them.")
            }
        }
        Some(_) => INVALID_ARGUMENTS
            .fail(format!(
                "`{name}` accepted arguments that violate its inputSchema and reported success"
            ))
            .subject(name)
            .evidence(ev),
        None => INVALID_ARGUMENTS
            .fail(format!(
                "`{name}` with invalid arguments got {}",
                describe(reply)
            ))
            .subject(name)
            .evidence(ev),
    }
}

/// True when a result carries some text for the model to read: a non-empty text block, or
/// structured content.
fn says_something(result: &Value) -> bool {
    let text = result
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks.iter().any(|b| {
                b.get("text")
                    .and_then(Value::as_str)
                    .is_some_and(|t| !t.trim().is_empty())
            })
        });
    text || result
        .get("structuredContent")
        .is_some_and(|v| !v.is_null())
}

/// A result that reads as an InputRequiredResult (it carries `inputRequests` or
/// `requestState`, and no `content`) but lacks `resultType`.
fn input_required_without_type(result: &Value) -> bool {
    result.get("resultType").is_none()
        && result.get("content").is_none()
        && (result.get("inputRequests").is_some() || result.get("requestState").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, err, ok};
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn tool_call_judgement() {
        let g = args::ArgsSource::Generated;
        let f = built(judge_tool_call("t", g, &ok(4, json!({"content": []}))));
        assert_eq!(
            (f.status, f.evidence, f.subject.as_deref()),
            (Status::Pass, vec![4], Some("t"))
        );
        assert_eq!(
            built(judge_tool_call(
                "t",
                g,
                &ok(4, json!({"content": [], "isError": true}))
            ))
            .status,
            Status::Info
        );
        assert_eq!(
            built(judge_tool_call("t", g, &ok(4, json!({})))).status,
            Status::Fail
        );
        assert_eq!(
            built(judge_tool_call("t", g, &err(4, -32602))).status,
            Status::Warn
        );
        assert_eq!(
            built(judge_tool_call(
                "t",
                args::ArgsSource::Configured,
                &err(4, -32602)
            ))
            .status,
            Status::Fail
        );
        assert_eq!(
            built(judge_tool_call("t", g, &err(4, -32603))).status,
            Status::Warn
        );
        assert_eq!(
            built(judge_tool_call(
                "t",
                args::ArgsSource::Configured,
                &err(4, -32603)
            ))
            .status,
            Status::Fail
        );
    }

    #[test]
    fn an_input_required_result_without_result_type_is_no_tool_result() {
        let g = args::ArgsSource::Generated;
        let untyped =
            json!({"inputRequests": {"q": {"method": "roots/list"}}, "requestState": "s"});
        let f = built(judge_tool_call("t", g, &ok(4, untyped)));
        assert_eq!(f.status, Status::Info, "{}", f.detail);
        assert!(f.detail.contains("lacks resultType"), "{}", f.detail);
        // A bare {} is still a tool result without content.
        assert_eq!(
            built(judge_tool_call(
                "t",
                g,
                &ok(4, json!({"requestState": 1, "content": 2}))
            ))
            .status,
            Status::Fail
        );
    }

    #[test]
    fn a_timed_out_call_warns() {
        let mut r = ok(4, json!({}));
        r.response = None;
        r.outcome = Outcome::TimedOut;
        let f = built(judge_tool_call("slow", args::ArgsSource::Generated, &r));
        assert_eq!(f.status, Status::Warn);
        assert!(f.detail.contains("--timeout"), "{}", f.detail);
        r.outcome = Outcome::TransportError("process exited".into());
        let f = built(judge_tool_call("slow", args::ArgsSource::Generated, &r));
        assert_eq!(f.status, Status::Fail);
    }

    #[test]
    fn structured_output_judgement() {
        let tool = json!({"name": "add", "outputSchema": {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}});
        let j = |r: Value| {
            structured_output(&tool, &r, "2025-11-25", &[6])
                .map(built)
                .map(|f| f.status)
        };
        assert_eq!(
            j(
                json!({"content": [{"type": "text", "text": "{\"sum\": 3}"}], "structuredContent": {"sum": 3}})
            ),
            Some(Status::Pass)
        );
        assert_eq!(
            j(json!({"content": [], "structuredContent": {"sum": 3}})),
            Some(Status::Warn)
        );
        assert_eq!(
            j(json!({"content": [], "structuredContent": {"sum": "3"}})),
            Some(Status::Fail)
        );
        assert_eq!(j(json!({"content": []})), Some(Status::Fail));
        assert_eq!(j(json!({"content": [], "isError": true})), None);
        assert_eq!(
            structured_output(&json!({"name": "x"}), &json!({}), "2025-11-25", &[6]).map(|_| ()),
            None
        );
    }

    #[test]
    fn unknown_tool_and_invalid_arguments() {
        assert_eq!(
            built(judge_unknown_tool(&err(7, -32602))).status,
            Status::Pass
        );
        assert_eq!(
            built(judge_unknown_tool(&err(7, -32601))).status,
            Status::Warn
        );
        assert_eq!(
            built(judge_unknown_tool(&ok(
                7,
                json!({"content": [], "isError": true})
            )))
            .status,
            Status::Warn
        );
        assert_eq!(
            built(judge_unknown_tool(&ok(7, json!({"content": []})))).status,
            Status::Fail
        );
        assert_eq!(
            built(judge_invalid_arguments("t", &err(8, -32602))).status,
            Status::Pass
        );
        assert_eq!(
            built(judge_invalid_arguments(
                "t",
                &ok(8, json!({"content": [{"type": "text", "text": "a must be an integer"}], "isError": true}))
            ))
            .status,
            Status::Pass
        );
        // An isError result that says nothing gives the model nothing to correct.
        assert_eq!(
            built(judge_invalid_arguments(
                "t",
                &ok(8, json!({"content": [], "isError": true}))
            ))
            .status,
            Status::Warn
        );
        assert_eq!(
            built(judge_invalid_arguments("t", &ok(8, json!({"content": []})))).status,
            Status::Fail
        );
    }

    /// An internal error is a crash on bad input, not a refusal; a method-not-found says
    /// nothing about the arguments. Both used to pass as "refused".
    #[test]
    fn invalid_arguments_crash_and_method_not_found_are_not_refusals() {
        let crash = built(judge_invalid_arguments("t", &err(8, -32603)));
        assert_eq!(crash.status, Status::Warn);
        assert!(crash.detail.contains("crashed"), "{}", crash.detail);
        let missing = built(judge_invalid_arguments("t", &err(8, -32601)));
        assert_eq!(missing.status, Status::Info);
        assert!(
            missing.detail.contains("not a refusal"),
            "{}",
            missing.detail
        );
    }
}
