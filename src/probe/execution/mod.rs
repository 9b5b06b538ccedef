//! Execution: whether the tools, resources and prompts work when an agent uses them, within
//! the safety policy.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::client::Connection;
use crate::policy::{self, Decision, args, limiter::RateLimiter, schema};
use crate::probe::catalog::describe;
use crate::probe::registry::spec;
use crate::probe::session::{Catalog, Session};
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::transport::{IdKind, Outcome, Probe, Reply};

crate::checks! { phase: Execution;
    TOOL_CALL = "execution.tool_call", Major, "Allowed tools answer with a valid result", spec::TL26,
        "Each tool the policy allows is called once with schema-generated (or configured) arguments; the answer must be a valid CallToolResult. isError results are the tool's own error and are reported as such.",
        "Make the tool return a CallToolResult with a content array.";
    STRUCTURED_OUTPUT = "execution.structured_output", Major, "Structured output matches the output schema", spec::TL26,
        "With an outputSchema, structuredContent must be present and validate; a text block with its serialisation should be there too.",
        "Return structuredContent conforming to the declared outputSchema.";
    CONTENT_BLOCKS = "execution.content_blocks", Major, "Content blocks are well formed", spec::TL26,
        "Content block types must be valid for the revision; base64 data must decode; image and audio need a mimeType; embedded resources need a uri and text or blob.",
        "Fix the content blocks the cited result returned.";
    UNKNOWN_TOOL = "execution.unknown_tool", Minor, "An unknown tool gets a JSON-RPC error", spec::TL26,
        "tools/call with a made-up name must get a JSON-RPC error (-32602 expected), not an isError result.",
        "Answer calls to unknown tools with a -32602 error.";
    INVALID_ARGUMENTS = "execution.invalid_arguments", Major, "Invalid arguments are refused", spec::TL26,
        "Arguments that violate the input schema must get a JSON-RPC error or an isError result, never a silent success.",
        "Validate arguments against the inputSchema before running the tool.";
    PROGRESS = "execution.progress", Minor, "Progress notifications are well behaved", spec::PROGRESS26,
        "With a progressToken, the notifications that arrive with the call must echo it and progress must strictly increase. Over stdio, progress for the token that arrives after the result is a failure (over HTTP the response stream ends with the result).",
        "Echo the progressToken, increase progress on every notification and stop after the result.";
    CANCELLATION = "execution.cancellation", Minor, "Cancelled requests go quiet", spec::CANCEL26,
        "stdio: after notifications/cancelled for a request the server must send no further messages for it.",
        "Stop work on cancellation and send nothing more for that request.";
    RESOURCE_READ = "execution.resource_read", Major, "Resources can be read; missing ones are errors", spec::R26,
        "Listed resources are read and must return contents with uri and text or blob. A missing URI must give -32002 (handshake revisions) or -32602 (2026-07-28), never an empty success.",
        "Return contents for listed resources and an error for unknown URIs.";
    PROMPT_GET = "execution.prompt_get", Major, "Prompts can be fetched; unknown ones are errors", spec::PR26,
        "Each prompt is fetched with generated string arguments and must return messages; an unknown prompt must get -32602.",
        "Return messages for prompts/get and -32602 for unknown prompt names.";
    POLICY = "execution.policy", Minor, "What was not called, and why", "",
        "Information: every tool the safety policy kept scout from calling, with the reason and the flag that would allow it.",
        "Use --allow-mutations or --allow-destructive (dangerous) only against servers you can afford to change.";
}

/// The most resources and prompts read per wire (a catalogue can be long; a sample shows
/// whether reading works).
const MAX_READS: usize = 10;

/// A reply to a cancelled call that arrives this long after the call was sent came after the
/// server had the cancellation (sent 20 ms after the call).
const LATE_AFTER_CANCEL: Duration = Duration::from_millis(500);

/// A tool name no server offers.
const MADE_UP_TOOL: &str = "scout_no_such_tool_7f3a";

/// Runs the execution probes on every wire, within the safety policy.
pub async fn run(s: &mut Session) {
    let wires = s.wires.clone();
    if wires.is_empty() || s.catalogs.is_empty() {
        for c in CHECKS {
            s.add(c.skip(
                SkipReason::NotAssessed,
                "the catalog phase did not run, so there is nothing to call",
            ));
        }
        return;
    }
    let limiter = RateLimiter::for_spec(&s.spec);
    for wire in &wires {
        let catalog = s
            .catalogs
            .iter()
            .find(|c| c.era == Some(wire.era()))
            .cloned()
            .unwrap_or_default();
        execute_wire(s, wire, &limiter, &catalog).await;
    }
}

/// A tool the policy lets scout call, with the arguments it gets.
struct Allowed {
    tool: Value,
    arguments: Value,
    source: args::ArgsSource,
}

async fn execute_wire(
    s: &mut Session,
    wire: &Connection,
    limiter: &RateLimiter,
    catalog: &Catalog,
) {
    let era = wire.era();
    let version = wire.protocol_version().to_string();
    let tools_declared = crate::probe::catalog::declared(wire.capabilities(), "tools");

    // ---- policy
    let mut allowed = Vec::new();
    for t in &catalog.tools {
        match policy::decide(t, &s.spec.policy) {
            Decision::Call => {
                let (arguments, source) = args::arguments_for(t, &s.spec.tools);
                allowed.push(Allowed {
                    tool: t.clone(),
                    arguments,
                    source,
                });
            }
            Decision::Skip { reason, allow_with } => s.add(
                POLICY
                    .info(format!("not called: it {reason}; allow with {allow_with}"))
                    .subject(policy::tool_name(t))
                    .era(era),
            ),
        }
    }
    if !catalog.tools.is_empty() && allowed.len() == catalog.tools.len() {
        s.add(
            POLICY
                .info(format!("the policy allowed all {} tool(s)", allowed.len()))
                .era(era),
        );
    }

    // ---- tool_call, structured_output, content_blocks
    let mut structured_seen = false;
    let mut blocks_seen = false;
    let mut first_ok: Option<&Allowed> = None;
    for a in &allowed {
        let name = policy::tool_name(&a.tool).to_string();
        // 2025-11-25 tasks: a tool that requires task augmentation refuses a plain call
        // (-32600); scout does not run tasks, so the call would say nothing about the tool.
        if a.tool
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str)
            == Some("required")
        {
            s.add(
                TOOL_CALL
                    .skip(SkipReason::NotApplicable, "the tool requires task augmentation (execution.taskSupport: required), which scout does not use")
                    .subject(name)
                    .era(era),
            );
            continue;
        }
        limiter.wait().await;
        let reply = wire
            .request(
                "tools/call",
                json!({"name": name, "arguments": a.arguments}),
            )
            .await;
        let call = judge_tool_call(&name, a.source, &reply);
        let answered_ok = call.status() != crate::report::finding::Status::Fail;
        s.add(call.era(era));
        let Some(result) = reply.result() else {
            continue;
        };
        // Progress and cancellation reuse a tool (and arguments) that answered a call,
        // preferably one that says it reports progress.
        let reports_progress = |t: &Value| {
            t.get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| d.to_ascii_lowercase().contains("progress"))
        };
        let better = match first_ok {
            None => true,
            Some(f) => reports_progress(&a.tool) && !reports_progress(&f.tool),
        };
        if answered_ok && better {
            first_ok = Some(a);
        }
        if let Some(f) = judge_content_blocks(&name, result, &version, &reply.evidence) {
            blocks_seen = true;
            s.add(f.era(era));
        }
        if let Some(f) = judge_structured_output(&a.tool, result, &version, &reply.evidence) {
            structured_seen = true;
            s.add(f.era(era));
        }
    }
    let no_call = if catalog.tools.is_empty() {
        "the server lists no tools"
    } else {
        "the policy allowed no tool to be called"
    };
    if allowed.is_empty() {
        s.add(
            TOOL_CALL
                .skip(
                    if catalog.tools.is_empty() {
                        SkipReason::NotApplicable
                    } else {
                        SkipReason::Policy
                    },
                    no_call,
                )
                .era(era),
        );
    }
    if !blocks_seen {
        s.add(
            CONTENT_BLOCKS
                .skip(
                    if allowed.is_empty() && !catalog.tools.is_empty() {
                        SkipReason::Policy
                    } else {
                        SkipReason::NotApplicable
                    },
                    "no tool call returned a result to inspect",
                )
                .era(era),
        );
    }
    if !structured_seen {
        s.add(
            STRUCTURED_OUTPUT
                .skip(
                    SkipReason::NotApplicable,
                    "no called tool declares an outputSchema",
                )
                .era(era),
        );
    }

    // ---- unknown_tool
    if tools_declared {
        limiter.wait().await;
        let reply = wire
            .request("tools/call", json!({"name": MADE_UP_TOOL, "arguments": {}}))
            .await;
        s.add(judge_unknown_tool(&reply).era(era));
    } else {
        s.add(
            UNKNOWN_TOOL
                .skip(
                    SkipReason::NotApplicable,
                    "the server does not declare the tools capability",
                )
                .era(era),
        );
    }

    // ---- invalid_arguments: only tools the policy allows
    let target = allowed.iter().find_map(|a| {
        let sch = a.tool.get("inputSchema")?;
        args::invalid(sch).map(|bad| (policy::tool_name(&a.tool).to_string(), bad))
    });
    match target {
        Some((name, bad)) => {
            limiter.wait().await;
            let reply = wire
                .request("tools/call", json!({"name": name, "arguments": bad}))
                .await;
            s.add(judge_invalid_arguments(&name, &reply).era(era));
        }
        None => s.add(
            INVALID_ARGUMENTS
                .skip(
                    if allowed.is_empty() && !catalog.tools.is_empty() {
                        SkipReason::Policy
                    } else {
                        SkipReason::NotApplicable
                    },
                    "no allowed tool has a required or declared argument to get wrong",
                )
                .era(era),
        ),
    }

    // ---- progress and cancellation use the first tool that answered
    match first_ok {
        Some(a) => {
            let name = policy::tool_name(&a.tool).to_string();
            limiter.wait().await;
            let token = format!("scout-progress-{}", era.as_str());
            let reply = wire
                .request(
                    "tools/call",
                    json!({"name": name, "arguments": a.arguments, "_meta": {"progressToken": token}}),
                )
                .await;
            let mut finding = judge_progress(&token, &reply);
            // stdio: progress for this token that arrives after the result lands in the
            // wire's inbox; give a late sender a moment, then look.
            if let Some(stdio) = wire.stdio()
                && reply.result().is_some()
            {
                tokio::time::sleep(AFTER_RESULT_WAIT).await;
                let last = reply.evidence.iter().copied().max().unwrap_or(0);
                let late = late_progress(&stdio.inbox(), &token, last);
                if !late.is_empty() {
                    finding = PROGRESS
                        .fail(format!(
                            "{} progress notification(s) for the token arrived after the result; none may follow it",
                            late.len()
                        ))
                        .evidence(reply.evidence.iter().copied().chain(late));
                }
            }
            s.add(finding.era(era));
            if wire.transport() == TransportKind::Stdio {
                limiter.wait().await;
                let f = cancellation(wire, &name, &a.arguments, s.spec.timeout).await;
                s.add(f.era(era));
            } else {
                s.add(
                    CANCELLATION
                        .skip(
                            SkipReason::NotApplicable,
                            "cancellation is probed on stdio only",
                        )
                        .era(era),
                );
            }
        }
        None => {
            for c in [&PROGRESS, &CANCELLATION] {
                s.add(
                    c.skip(
                        if allowed.is_empty() && !catalog.tools.is_empty() {
                            SkipReason::Policy
                        } else {
                            SkipReason::NotApplicable
                        },
                        "no allowed tool answered a call",
                    )
                    .era(era),
                );
            }
        }
    }

    // ---- resources
    if crate::probe::catalog::declared(wire.capabilities(), "resources") {
        let mut ev = Vec::new();
        let mut problems = Vec::new();
        for r in catalog.resources.iter().take(MAX_READS) {
            let Some(uri) = r.get("uri").and_then(Value::as_str) else {
                continue;
            };
            limiter.wait().await;
            let reply = wire.request("resources/read", json!({"uri": uri})).await;
            ev.extend(reply.evidence.iter().copied());
            problems.extend(read_problems(uri, &reply));
        }
        limiter.wait().await;
        let missing = wire
            .request(
                "resources/read",
                json!({"uri": "scout-missing://no/such/resource"}),
            )
            .await;
        s.add(
            judge_resource_read(
                catalog.resources.len().min(MAX_READS),
                &problems,
                ev,
                era,
                &missing,
            )
            .era(era),
        );
    } else {
        s.add(
            RESOURCE_READ
                .skip(
                    SkipReason::NotApplicable,
                    "the server does not declare the resources capability",
                )
                .era(era),
        );
    }

    // ---- prompts
    if crate::probe::catalog::declared(wire.capabilities(), "prompts") {
        let mut ev = Vec::new();
        let mut problems = Vec::new();
        let mut refused = Vec::new();
        for p in catalog.prompts.iter().take(MAX_READS) {
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            limiter.wait().await;
            let reply = wire
                .request(
                    "prompts/get",
                    json!({"name": name, "arguments": prompt_arguments(p)}),
                )
                .await;
            ev.extend(reply.evidence.iter().copied());
            // As with tools: scout cannot tell whether "scout" was a fitting value for the
            // prompt's arguments, so an error to generated arguments is a warning.
            let has_args = p
                .get("arguments")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
            if has_args && reply.error_code().is_some() {
                refused.push(format!(
                    "prompts/get `{name}` answered scout's generated arguments with {}",
                    describe(&reply)
                ));
            } else {
                problems.extend(prompt_problems(name, &reply, &version));
            }
        }
        limiter.wait().await;
        let unknown = wire
            .request(
                "prompts/get",
                json!({"name": "scout_no_such_prompt", "arguments": {}}),
            )
            .await;
        s.add(
            judge_prompt_get(
                catalog.prompts.len().min(MAX_READS),
                &problems,
                &refused,
                ev,
                &unknown,
            )
            .era(era),
        );
    } else {
        s.add(
            PROMPT_GET
                .skip(
                    SkipReason::NotApplicable,
                    "the server does not declare the prompts capability",
                )
                .era(era),
        );
    }
}

/// Calls a tool and cancels it right away (stdio): afterwards the server should send nothing
/// more for that id. A reply that raced the cancellation is allowed (the receiver MAY ignore
/// a cancellation for a request that already finished).
async fn cancellation(
    wire: &Connection,
    name: &str,
    arguments: &Value,
    timeout: Duration,
) -> FindingBuilder {
    let id = "scout-cancel-1";
    let wait = timeout.min(Duration::from_millis(1500));
    let call = Probe {
        id: IdKind::Str(id.into()),
        timeout: Some(wait),
        ..Probe::request("tools/call", json!({"name": name, "arguments": arguments}))
    };
    let cancel_wire = wire.clone();
    let (reply, cancel) = tokio::join!(wire.send(call), async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        cancel_wire
            .notify(
                "notifications/cancelled",
                Some(json!({"requestId": id, "reason": "scout cancellation probe"})),
            )
            .await
    });
    judge_cancellation(&reply, &cancel)
}

/// `execution.cancellation` from the call's reply and the notification's.
pub fn judge_cancellation(reply: &Reply, cancel: &Reply) -> FindingBuilder {
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
        Outcome::Answered if reply.elapsed >= LATE_AFTER_CANCEL => CANCELLATION
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

/// `execution.tool_call` for one call.
pub fn judge_tool_call(name: &str, source: args::ArgsSource, reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    let Some(result) = reply.result() else {
        // scout cannot tell whether its made-up values (a timezone "scout") caused the error,
        // so with generated arguments an error is a warning; with configured ones a failure.
        if reply.error_code().is_some() && source == args::ArgsSource::Generated {
            return TOOL_CALL
                .warn(format!("`{name}` answered scout's generated arguments with {}; give it fixed arguments in [[servers.tools]] to assess it", describe(reply)))
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
                "`{name}` asked for more input (InputRequiredResult); scout does not answer it"
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
        .unwrap_or("(no text)");
    t.chars().take(160).collect()
}

/// Which content-block types a revision knows.
fn block_types(version: &str) -> &'static [&'static str] {
    match version {
        "2024-11-05" => &["text", "image", "resource"],
        "2025-03-26" => &["text", "image", "audio", "resource"],
        _ => &["text", "image", "audio", "resource", "resource_link"],
    }
}

/// What is wrong with one content block under `version` (empty = well formed).
pub fn content_block_problems(block: &Value, version: &str) -> Vec<String> {
    let mut p = Vec::new();
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let Some(ty) = str_of(block, "type") else {
        return vec!["a block has no string `type`".into()];
    };
    if !block_types(version).contains(&ty.as_str()) {
        p.push(format!(
            "type `{ty}` is not a content block type in {version}"
        ));
        return p;
    }
    let b64 = |s: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .is_ok()
    };
    match ty.as_str() {
        "text" if str_of(block, "text").is_none() => {
            p.push("a text block has no string `text`".into());
        }
        "image" | "audio" => {
            match str_of(block, "data") {
                None => p.push(format!("an {ty} block has no string `data`")),
                Some(d) if !b64(&d) => p.push(format!("an {ty} block's data is not valid base64")),
                _ => {}
            }
            if str_of(block, "mimeType").is_none_or(|m| m.is_empty()) {
                p.push(format!("an {ty} block has no mimeType"));
            }
        }
        "resource_link" => {
            for k in ["uri", "name"] {
                if str_of(block, k).is_none() {
                    p.push(format!("a resource_link has no string `{k}`"));
                }
            }
        }
        "resource" => match block.get("resource") {
            Some(r) if r.is_object() => p.extend(
                resource_contents_problems(r)
                    .into_iter()
                    .map(|e| format!("embedded resource: {e}")),
            ),
            _ => p.push("a resource block has no `resource` object".into()),
        },
        _ => {}
    }
    p
}

/// Problems of one `ResourceContents`: a uri and exactly one of text / base64 blob.
pub fn resource_contents_problems(r: &Value) -> Vec<String> {
    let mut p = Vec::new();
    if r.get("uri").and_then(Value::as_str).is_none() {
        p.push("no string `uri`".to_string());
    }
    let text = r.get("text");
    let blob = r.get("blob");
    match (text, blob) {
        (Some(t), None) if t.is_string() => {}
        (None, Some(Value::String(b))) => {
            if base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .is_err()
            {
                p.push("`blob` is not valid base64".into());
            }
        }
        (Some(_), Some(_)) => p.push("both `text` and `blob`".into()),
        (None, None) => p.push("neither `text` nor `blob`".into()),
        _ => p.push("`text`/`blob` is not a string".into()),
    }
    p
}

/// `execution.content_blocks` for one result (`None` when the result has no blocks).
pub fn judge_content_blocks(
    name: &str,
    result: &Value,
    version: &str,
    evidence: &[u64],
) -> Option<FindingBuilder> {
    let blocks = result.get("content")?.as_array()?;
    if blocks.is_empty() {
        return None;
    }
    let problems: Vec<String> = blocks
        .iter()
        .enumerate()
        .flat_map(|(i, b)| {
            content_block_problems(b, version)
                .into_iter()
                .map(move |e| format!("block {i}: {e}"))
        })
        .collect();
    let ev = evidence.iter().copied();
    Some(if problems.is_empty() {
        CONTENT_BLOCKS
            .pass(format!(
                "`{name}` returned {} well-formed block(s)",
                blocks.len()
            ))
            .subject(name)
            .evidence(ev)
    } else {
        CONTENT_BLOCKS
            .fail(format!("`{name}`: {}", problems.join("; ")))
            .subject(name)
            .evidence(ev)
    })
}

/// `execution.structured_output` for a tool with an outputSchema (`None` otherwise, or for an
/// isError result: the spec does not say those must match the schema).
pub fn judge_structured_output(
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

/// `execution.unknown_tool`: a JSON-RPC error (-32602 expected), not an isError result.
pub fn judge_unknown_tool(reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    match (reply.error_code(), reply.result()) {
        (Some(-32602), _) => UNKNOWN_TOOL.pass("a call to a tool that does not exist got -32602").evidence(ev),
        (Some(code), _) => UNKNOWN_TOOL.warn(format!("a call to a tool that does not exist got error {code}; -32602 (Invalid params) is expected")).evidence(ev),
        (None, Some(r)) if r.get("isError").and_then(Value::as_bool) == Some(true) => UNKNOWN_TOOL
            .fail("a call to a tool that does not exist got an isError result; the spec requires a JSON-RPC error (-32602)")
            .evidence(ev),
        (None, Some(_)) => UNKNOWN_TOOL.fail("a call to a tool that does not exist succeeded").evidence(ev),
        (None, None) => UNKNOWN_TOOL.fail(format!("a call to a tool that does not exist got {}", describe(reply))).evidence(ev),
    }
}

/// `execution.invalid_arguments`: a JSON-RPC error or isError, never a silent success.
pub fn judge_invalid_arguments(name: &str, reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    if let Some(code) = reply.error_code() {
        return INVALID_ARGUMENTS
            .pass(format!(
                "`{name}` refused arguments that violate its schema with error {code}"
            ))
            .subject(name)
            .evidence(ev);
    }
    match reply.result() {
        Some(r) if r.get("isError").and_then(Value::as_bool) == Some(true) => INVALID_ARGUMENTS
            .pass(format!(
                "`{name}` refused arguments that violate its schema with an isError result"
            ))
            .subject(name)
            .evidence(ev),
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

/// How long scout listens for stray progress after a result (stdio).
const AFTER_RESULT_WAIT: Duration = Duration::from_millis(150);

/// Sequence numbers of `notifications/progress` for `token` recorded after `after`.
pub fn late_progress(
    inbox: &[(crate::telemetry::Seq, Value)],
    token: &str,
    after: crate::telemetry::Seq,
) -> Vec<crate::telemetry::Seq> {
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

/// `execution.progress`: every notification that came with the call echoes the token and
/// progress strictly increases. "None after the result" is judged by the caller on stdio
/// (where late messages land in the wire's inbox), with [`late_progress`].
pub fn judge_progress(token: &str, reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    let progress: Vec<&Value> = reply
        .notifications
        .iter()
        .filter(|n| n.get("method").and_then(Value::as_str) == Some("notifications/progress"))
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
        PROGRESS.fail(problems.join("; ")).evidence(ev)
    }
}

/// Problems of one `resources/read` of a listed resource.
pub fn read_problems(uri: &str, reply: &Reply) -> Vec<String> {
    let Some(r) = reply.result() else {
        return vec![format!("reading {uri} got {}", describe(reply))];
    };
    match r.get("contents").and_then(Value::as_array) {
        None => vec![format!("reading {uri} returned no contents array")],
        Some(c) if c.is_empty() => vec![format!("reading {uri} returned empty contents")],
        Some(c) => c
            .iter()
            .flat_map(resource_contents_problems)
            .map(|e| format!("{uri}: {e}"))
            .collect(),
    }
}

/// `execution.resource_read`: listed resources read; a missing URI is an error with the
/// era's code (-32002 in the handshake revisions, -32602 in 2026-07-28).
pub fn judge_resource_read(
    read: usize,
    problems: &[String],
    mut ev: Vec<u64>,
    era: Era,
    missing: &Reply,
) -> FindingBuilder {
    ev.extend(missing.evidence.iter().copied());
    let mut problems = problems.to_vec();
    let mut soft = Vec::new();
    let expected = if era == Era::Modern { -32602 } else { -32002 };
    match (missing.error_code(), missing.result()) {
        (Some(c), _) if c == expected => {}
        (Some(-32002), _) => problems
            .push("a missing resource got -32002, which 2026-07-28 forbids (use -32602)".into()),
        (Some(c), _) => soft.push(format!(
            "a missing resource got error {c}; {expected} is expected"
        )),
        (None, Some(r)) => {
            let empty = r
                .get("contents")
                .and_then(Value::as_array)
                .is_none_or(|c| c.is_empty());
            problems.push(if empty {
                "a missing resource got an empty success instead of an error".into()
            } else {
                "a made-up resource URI was answered with contents instead of an error".into()
            });
        }
        (None, None) => problems.push(format!(
            "reading a missing resource got {}",
            describe(missing)
        )),
    }
    verdict(
        &RESOURCE_READ,
        problems,
        soft,
        format!("{read} listed resource(s) read; a missing URI got {expected}"),
    )
    .evidence(ev)
}

/// Fail with every problem (and the soft ones after them), else warn with the soft ones,
/// else pass with `pass`.
fn verdict(
    check: &'static crate::probe::registry::Check,
    mut problems: Vec<String>,
    soft: Vec<String>,
    pass: String,
) -> FindingBuilder {
    if !problems.is_empty() {
        problems.extend(soft);
        check.fail(problems.join("; "))
    } else if !soft.is_empty() {
        check.warn(soft.join("; "))
    } else {
        check.pass(pass)
    }
}

/// String arguments for a prompt: every declared argument gets `"scout"`.
pub fn prompt_arguments(prompt: &Value) -> Value {
    let mut m = serde_json::Map::new();
    for a in prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(n) = a.get("name").and_then(Value::as_str) {
            m.insert(n.to_string(), json!("scout"));
        }
    }
    Value::Object(m)
}

/// Problems of one `prompts/get`.
pub fn prompt_problems(name: &str, reply: &Reply, version: &str) -> Vec<String> {
    let Some(r) = reply.result() else {
        return vec![format!("prompts/get `{name}` got {}", describe(reply))];
    };
    if r.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Vec::new();
    }
    let Some(msgs) = r.get("messages").and_then(Value::as_array) else {
        return vec![format!("prompts/get `{name}` returned no messages array")];
    };
    let mut p = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        if !matches!(
            m.get("role").and_then(Value::as_str),
            Some("user" | "assistant")
        ) {
            p.push(format!(
                "`{name}` message {i}: role is not user or assistant"
            ));
        }
        match m.get("content") {
            Some(c) => p.extend(
                content_block_problems(c, version)
                    .into_iter()
                    .map(|e| format!("`{name}` message {i}: {e}")),
            ),
            None => p.push(format!("`{name}` message {i} has no content")),
        }
    }
    p
}

/// `execution.prompt_get`: prompts fetched; an unknown prompt gets -32602. `problems` fail,
/// `refused` (errors to generated arguments) warn.
pub fn judge_prompt_get(
    fetched: usize,
    problems: &[String],
    refused: &[String],
    mut ev: Vec<u64>,
    unknown: &Reply,
) -> FindingBuilder {
    ev.extend(unknown.evidence.iter().copied());
    let mut problems = problems.to_vec();
    let mut soft = refused.to_vec();
    match (unknown.error_code(), unknown.result()) {
        (Some(-32602), _) => {}
        (Some(c), _) => soft.push(format!(
            "an unknown prompt got error {c}; -32602 is expected"
        )),
        (None, Some(_)) => {
            problems.push("an unknown prompt name was answered with a result".into())
        }
        (None, None) => problems.push(format!(
            "prompts/get for an unknown prompt got {}",
            describe(unknown)
        )),
    }
    verdict(
        &PROMPT_GET,
        problems,
        soft,
        format!("{fetched} prompt(s) fetched; an unknown prompt got -32602"),
    )
    .evidence(ev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, err, ok};
    use crate::report::finding::Status;

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
    fn content_block_rules() {
        let v = "2025-11-25";
        assert!(content_block_problems(&json!({"type": "text", "text": "x"}), v).is_empty());
        assert!(
            content_block_problems(
                &json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}),
                v
            )
            .is_empty()
        );
        assert_eq!(
            content_block_problems(&json!({"type": "image", "data": "!!", "mimeType": ""}), v)
                .len(),
            2
        );
        assert_eq!(
            content_block_problems(
                &json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}),
                "2024-11-05"
            )
            .len(),
            1
        );
        assert_eq!(
            content_block_problems(&json!({"type": "resource_link", "uri": "x://"}), v).len(),
            1
        );
        assert!(
            content_block_problems(
                &json!({"type": "resource", "resource": {"uri": "x://", "blob": "aGk="}}),
                v
            )
            .is_empty()
        );
        assert_eq!(content_block_problems(&json!({"type": "resource", "resource": {"uri": "x://", "text": "a", "blob": "aGk="}}), v).len(), 1);
        assert_eq!(
            content_block_problems(&json!({"type": "video"}), v).len(),
            1
        );
        let f =
            judge_content_blocks("t", &json!({"content": [{"type": "text"}]}), v, &[5]).map(built);
        assert_eq!(
            f.map(|f| (f.status, f.evidence)),
            Some((Status::Fail, vec![5]))
        );
    }

    #[test]
    fn structured_output_judgement() {
        let tool = json!({"name": "add", "outputSchema": {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}});
        let j = |r: Value| {
            judge_structured_output(&tool, &r, "2025-11-25", &[6])
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
            judge_structured_output(&json!({"name": "x"}), &json!({}), "2025-11-25", &[6])
                .map(|_| ()),
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
            Status::Fail
        );
        assert_eq!(
            built(judge_invalid_arguments("t", &err(8, -32602))).status,
            Status::Pass
        );
        assert_eq!(
            built(judge_invalid_arguments(
                "t",
                &ok(8, json!({"content": [], "isError": true}))
            ))
            .status,
            Status::Pass
        );
        assert_eq!(
            built(judge_invalid_arguments("t", &ok(8, json!({"content": []})))).status,
            Status::Fail
        );
    }

    #[test]
    fn progress_judgement() {
        let note = |tok: &str, p: f64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": tok, "progress": p}});
        let mut r = ok(9, json!({"content": []}));
        assert_eq!(built(judge_progress("k", &r)).status, Status::Info);
        r.notifications = vec![note("k", 1.0), note("k", 2.5)];
        assert_eq!(built(judge_progress("k", &r)).status, Status::Pass);
        r.notifications = vec![note("k", 2.0), note("k", 2.0)];
        assert_eq!(built(judge_progress("k", &r)).status, Status::Fail);
        r.notifications = vec![note("other", 1.0)];
        assert_eq!(built(judge_progress("k", &r)).status, Status::Fail);
    }

    #[test]
    fn resource_read_codes_per_era() {
        let read = || vec![1u64];
        assert_eq!(
            built(judge_resource_read(
                1,
                &[],
                read(),
                Era::Legacy,
                &err(2, -32002)
            ))
            .status,
            Status::Pass
        );
        assert_eq!(
            built(judge_resource_read(
                1,
                &[],
                read(),
                Era::Modern,
                &err(2, -32602)
            ))
            .status,
            Status::Pass
        );
        assert_eq!(
            built(judge_resource_read(
                1,
                &[],
                read(),
                Era::Modern,
                &err(2, -32002)
            ))
            .status,
            Status::Fail
        );
        assert_eq!(
            built(judge_resource_read(
                1,
                &[],
                read(),
                Era::Legacy,
                &err(2, -32603)
            ))
            .status,
            Status::Warn
        );
        assert_eq!(
            built(judge_resource_read(
                1,
                &[],
                read(),
                Era::Legacy,
                &ok(2, json!({"contents": []}))
            ))
            .status,
            Status::Fail
        );
        assert_eq!(
            read_problems(
                "x://",
                &ok(3, json!({"contents": [{"uri": "x://", "text": "t"}]}))
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            read_problems("x://", &ok(3, json!({"contents": [{"uri": "x://"}]}))).len(),
            1
        );
    }

    #[test]
    fn prompt_get_judgement() {
        let good = ok(
            3,
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
        );
        assert!(prompt_problems("p", &good, "2025-11-25").is_empty());
        let bad = ok(
            3,
            json!({"messages": [{"role": "system", "content": {"type": "text", "text": "hi"}}]}),
        );
        assert_eq!(prompt_problems("p", &bad, "2025-11-25").len(), 1);
        assert_eq!(
            built(judge_prompt_get(1, &[], &[], vec![3], &err(4, -32602))).status,
            Status::Pass
        );
        assert_eq!(
            built(judge_prompt_get(
                1,
                &[],
                &[],
                vec![3],
                &ok(4, json!({"messages": []}))
            ))
            .status,
            Status::Fail
        );
        let refused = ["`p` answered scout's generated arguments with -32603".to_string()];
        assert_eq!(
            built(judge_prompt_get(1, &[], &refused, vec![3], &err(4, -32602))).status,
            Status::Warn
        );
        assert_eq!(
            prompt_arguments(&json!({"arguments": [{"name": "who"}]})),
            json!({"who": "scout"})
        );
    }
}
