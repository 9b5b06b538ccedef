//! Execution: whether the tools, resources and prompts work when an agent uses them, within
//! the safety policy.
//!
//! [`run`] decides what may be called and sends the calls; the verdicts are pure functions,
//! one file per family: [`tools`] (calls, structured output, unknown tools, invalid
//! arguments), [`content`] (content blocks), [`progress`] (progress and cancellation),
//! [`reads`] (resources and prompts) and [`safety`] (what the policy did).

pub mod content;
pub mod progress;
pub mod reads;
pub mod safety;
pub mod tools;

use serde_json::{Value, json};

pub use content::{content_block_problems, judge_content_blocks, resource_contents_problems};
pub use progress::{judge_cancellation, judge_progress, late_progress};
pub use reads::{
    judge_prompt_get, judge_resource_read, prompt_arguments, prompt_problems, read_problems,
};
pub use tools::{
    judge_invalid_arguments, judge_structured_output, judge_tool_call, judge_unknown_tool,
};

use crate::client::Connection;
use crate::policy::{self, Decision, args, limiter::RateLimiter};
use crate::probe::catalog::describe;
use crate::probe::registry::spec;
use crate::probe::session::{Catalog, Session};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use progress::{AFTER_RESULT_WAIT, cancellation};

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
        "tools/call with a made-up name must get a JSON-RPC error (-32602 expected). An isError result is a warning (the agent still reads an error); a successful result is a failure.",
        "Answer calls to unknown tools with a -32602 error.";
    INVALID_ARGUMENTS = "execution.invalid_arguments", Major, "Invalid arguments are refused", spec::TL26,
        "Arguments that violate the input schema must get a JSON-RPC error or an isError result, never a silent success.",
        "Validate arguments against the inputSchema before running the tool.";
    PROGRESS = "execution.progress", Minor, "Progress notifications are well behaved", spec::PROGRESS26,
        "With a progressToken, the call must still answer, and the notifications that arrive with it must echo the token and progress must strictly increase. Over stdio, progress for the token must not arrive after the result (over HTTP the response stream ends with the result). A misbehaving notification is a warning: the agent still gets its result.",
        "Echo the progressToken, increase progress on every notification and stop after the result.";
    CANCELLATION = "execution.cancellation", Minor, "Cancelled requests go quiet", spec::CANCEL26,
        "stdio: after notifications/cancelled for a request the server must send no further messages for it.",
        "Stop work on cancellation and send nothing more for that request.";
    RESOURCE_READ = "execution.resource_read", Major, "Resources can be read; missing ones are errors", spec::R26,
        "Listed resources are read and must return contents with uri and text or blob. A missing URI must give an error, never a success: -32002 in the handshake revisions, -32602 in 2026-07-28 (another error code is a warning).",
        "Return contents for listed resources and an error for unknown URIs.";
    PROMPT_GET = "execution.prompt_get", Major, "Prompts can be fetched; unknown ones are errors", spec::PR26,
        "Each prompt is fetched with generated string arguments and must return messages; an unknown prompt must get -32602.",
        "Return messages for prompts/get and -32602 for unknown prompt names.";
    POLICY = "execution.policy", Minor, "What was not called, and why", "",
        "Information: every tool the safety policy kept scout from calling, with the reason and the flag that would allow it, and every open-world tool it called (openWorldHint true or absent). Generated URLs, hostnames and e-mail addresses use the reserved .invalid domain, so such a call cannot be made to reach a third party.",
        "Use --allow-mutations or --allow-destructive (dangerous) only against servers you can afford to change.";
}

/// The most resources and prompts read per wire (a catalogue can be long; a sample shows
/// whether reading works).
const MAX_READS: usize = 10;

/// A resource URI no server offers.
pub const MISSING_URI: &str = "scout-missing://no/such/resource";

/// A prompt name no server offers.
pub const MADE_UP_PROMPT: &str = "scout_no_such_prompt";

/// A tool name no server offers.
pub const MADE_UP_TOOL: &str = "scout_no_such_tool_7f3a";

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
                if let Some(f) = safety::open_world(t, source) {
                    s.add(f.era(era));
                }
                allowed.push(Allowed {
                    tool: t.clone(),
                    arguments,
                    source,
                });
            }
            Decision::Skip { reason, allow_with } => {
                s.add(safety::not_called(policy::tool_name(t), &reason, &allow_with).era(era))
            }
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
                    // Late progress is noise the agent can ignore (a warning, like the
                    // other progress deviations).
                    finding = PROGRESS
                        .warn(format!(
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
            .request("resources/read", json!({"uri": MISSING_URI}))
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
                json!({"name": MADE_UP_PROMPT, "arguments": {}}),
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
