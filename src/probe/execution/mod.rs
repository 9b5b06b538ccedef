//! Execution: whether the tools, resources and prompts work when an agent uses them, within
//! the safety policy.
//!
//! [`run`] decides what may be called and sends the calls; the verdicts are pure functions,
//! one file per family: [`tools`] (calls, structured output, unknown tools, invalid
//! arguments), [`content`] (content blocks), [`progress`] (progress and cancellation),
//! [`reads`] (resources and prompts) and [`safety`] (what the policy did).

pub mod content;
pub mod coverage;
pub mod error_reporting;
pub mod input_required;
pub mod progress;
pub mod reads;
pub mod safety;
pub mod talkback;
pub mod tasks;
pub mod templates;
pub mod tools;

use serde_json::{Value, json};

pub use content::{content_block_problems, content_blocks, resource_contents_problems};
pub use progress::{judge_cancellation, late_progress, progress};
pub use reads::{prompt_arguments, prompt_get, prompt_problems, read_problems, resource_read};
pub use tools::{judge_invalid_arguments, judge_tool_call, judge_unknown_tool, structured_output};

use crate::client::Connection;
use crate::policy::{self, Decision, args};
use crate::probe::catalog::describe;
use crate::probe::on_heap;
use crate::probe::session::{Catalog, Session};
use crate::report::check::spec_url;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::transport::limiter::RateLimiter;
use progress::{AFTER_RESULT_WAIT, cancellation};

crate::checks! { phase: Execution;
    TOOL_CALL = "execution.tool_call", Major, "Allowed tools answer with a valid result", spec_url::TL26,
        "Each tool the policy allows is called once with schema-generated (or configured) arguments; the answer must be a valid CallToolResult. isError results are the tool's own error and are reported as such.",
        "Make the tool return a CallToolResult with a content array.";
    STRUCTURED_OUTPUT = "execution.structured_output", Major, "Structured output matches the output schema", spec_url::TL26,
        "With an outputSchema, structuredContent must be present and validate; a text block with its serialisation should be there too.",
        "Return structuredContent conforming to the declared outputSchema.";
    CONTENT_BLOCKS = "execution.content_blocks", Major, "Content blocks are well formed", spec_url::TL26,
        "Content block types must be valid for the revision; base64 data must decode; image and audio need a mimeType; embedded resources need a uri and text or blob.",
        "Fix the content blocks the cited result returned.";
    UNKNOWN_TOOL = "execution.unknown_tool", Minor, "An unknown tool gets a JSON-RPC error", spec_url::TL26,
        "tools/call with a made-up name must get a JSON-RPC error (-32602 expected). An isError result is a warning (the agent still reads an error); a successful result is a failure.",
        "Answer calls to unknown tools with a -32602 error.";
    INVALID_ARGUMENTS = "execution.invalid_arguments", Major, "Invalid arguments are refused", spec_url::TL26,
        "Arguments that violate the input schema must be refused: a JSON-RPC error about them (-32602 Invalid params) or an isError result that says what was wrong; a silent success fails. -32603 Internal error is the tool crashing on bad input, a warning, and so is an isError result with no text; -32601 Method not found says nothing about the arguments and is reported as an observation.",
        "Validate arguments against the inputSchema before running the tool.";
    ERROR_REPORTING = "execution.error_reporting", Minor, "Tool failures are reported with isError", spec_url::TL26,
        "Every tool result is read for a failure dressed as success: isError false or absent while the payload (structuredContent, or a text block that is a whole JSON object) says it failed at its top level (success: false, ok: false, status: \"error\", or a non-empty error member). An agent reads such a result as a success. A heuristic over the payload, so a warning that quotes the field; prose that merely mentions an error is not read.",
        "Report a failed tool call with isError: true and the reason in its text.";
    PROGRESS = "execution.progress", Minor, "Progress notifications are well behaved", spec_url::PROGRESS26,
        "With a progressToken, the call must still answer, and the notifications that arrive with it must echo the token and progress must strictly increase. Over stdio, progress for the token must not arrive after the result (over HTTP the response stream ends with the result). A misbehaving notification is a warning: the agent still gets its result.",
        "Echo the progressToken, increase progress on every notification and stop after the result.";
    CANCELLATION = "execution.cancellation", Minor, "Cancelled requests go quiet", spec_url::CANCEL26,
        "stdio: a tool call is cancelled 20 ms after it was sent (last in the run, alone on the wire); after notifications/cancelled the server must send no further messages for it. Only a call that will still be running is cancelled: one whose wait argument scout lengthened, or a tool whose first call took at least 200 ms; a quicker tool would only race its answer, so the check is not applicable there. A lengthened wait lasts 0.5 s (longer where the schema's bounds or whole seconds say so). scout then listens for an answer half as long again as the call would run (the wait it asked for, or the first call's time), at most the request timeout: silence passes; an answer after half the call's run (at most 500 ms) came after the server had the cancellation, a warning; an earlier one raced it (an observation). A call answered before the cancellation was due is not cancelled (an observation).",
        "Stop work on cancellation and send nothing more for that request.";
    RESOURCE_READ = "execution.resource_read", Major, "Resources can be read; missing ones are errors", spec_url::R26,
        "Listed resources are read and must return contents with uri and text or blob; a listed resource answered with a JSON-RPC error (an internal error: the backend behind it unreachable) or with an empty contents array is a warning, with the error. A missing URI should get an error: -32002 in the handshake revisions, -32602 in 2026-07-28 (another error code, or a success, is a warning); on 2026-07-28 an empty contents array for it fails (servers MUST NOT return one for a non-existent resource). A declared resources capability whose resources/read answers -32601 (Method not found) fails.",
        "Return contents for listed resources and an error for unknown URIs.";
    PROMPT_GET = "execution.prompt_get", Major, "Prompts can be fetched; unknown ones are errors", spec_url::PR26,
        "Each prompt is fetched with generated string arguments and must return messages; an unknown prompt must get -32602. A server that declares prompts but answers prompts/get with -32601 (Method not found) does not serve the capability it declared: a failure.",
        "Return messages for prompts/get and -32602 for unknown prompt names.";
    POLICY = "execution.policy", Minor, "What was not called, and why", "",
        "Information: every tool the safety policy kept scout from calling, with the reason and the flag that would allow it, and every open-world tool it called (openWorldHint true or absent). Generated URLs, hostnames and e-mail addresses use the reserved .invalid domain, so such a call cannot be made to reach a third party.",
        "Use --allow-mutations or --allow-destructive (dangerous) only against servers you can afford to change.";
}

/// The most resources and prompts read per wire (a catalogue can be long; a sample shows
/// whether reading works).
pub(crate) const MAX_READS: usize = 10;

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
    let limiter = RateLimiter::new(None);
    let catalogs: Vec<Catalog> = wires
        .iter()
        .map(|wire| {
            s.catalogs
                .iter()
                .find(|c| c.era == Some(wire.era()))
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    // The wires of a dual-era server are independent connections: each is exercised on a
    // branch of the session, at the same time.
    let mut branches: Vec<Session> = wires.iter().map(|_| s.fork()).collect();
    futures_util::future::join_all(
        branches
            .iter_mut()
            .zip(wires.iter().zip(&catalogs))
            .map(|(b, (wire, catalog))| on_heap(|| execute_wire(b, wire, &limiter, catalog))),
    )
    .await;
    for b in branches {
        s.join(b);
    }
}

/// True when this run's execution phase is likely to open the full persona's connection
/// over stdio (a process of its own; see `talkback`): a stdio target, a bare client, and the
/// catalog and execution phases selected (whether the server speaks a handshake revision is
/// not known yet). The run starts that process ahead of need; one no wire takes is shut down
/// at the end.
pub fn may_open_full_persona(spec: &crate::spec::ServerSpec) -> bool {
    use crate::report::finding::Phase;
    matches!(spec.target, crate::spec::TargetSpec::Stdio(_))
        && !spec.client.is_full()
        && spec.runs(Phase::Catalog)
        && spec.runs(Phase::Execution)
}

/// A tool the policy lets scout call, with the arguments it gets.
struct Allowed {
    tool: Value,
    arguments: Value,
    /// The arguments of the call the cancellation probe cancels: waits long enough to still
    /// be running when the cancellation arrives.
    cancel_arguments: Value,
    /// How long the waits in `cancel_arguments` make the call run, when scout generated them.
    cancel_runs_for: Option<std::time::Duration>,
    source: args::ArgsSource,
}

impl Allowed {
    fn new(
        tool: &Value,
        arguments: Value,
        source: args::ArgsSource,
        fixed: &[crate::spec::ToolArgs],
    ) -> Allowed {
        let (cancel_arguments, cancel_runs_for) = args::arguments_to_cancel(tool, fixed);
        Allowed {
            tool: tool.clone(),
            arguments,
            cancel_arguments,
            cancel_runs_for,
            source,
        }
    }
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

    let (allowed, dropped) = decide_calls(s, wire, catalog);
    // Every request below is independent of the others: the tool calls, the unknown tool,
    // the invalid arguments and the reads all go out together (bounded by the server's
    // `--concurrency` slots and, towards remote hosts, the rate limiter). The findings are
    // recorded afterwards in a fixed order.
    let skip_policy = allowed.is_empty() && !catalog.tools.is_empty();
    let timeout = s.spec.timeout;
    let candidates: Vec<tasks::Candidate> = allowed
        .iter()
        .map(|a| tasks::Candidate {
            tool: &a.tool,
            arguments: &a.arguments,
        })
        .collect();
    // Each on the heap: inline, the join's poll took a 57 KiB stack frame.
    let (calls, unknown, invalid, resources, templates, prompts, tasks) = futures_util::join!(
        on_heap(|| call_tools(wire, limiter, &allowed, era, timeout)),
        on_heap(|| unknown_tool(wire, limiter, tools_declared)),
        on_heap(|| invalid_arguments(wire, limiter, &allowed, skip_policy)),
        on_heap(|| read_resources(wire, limiter, catalog, era)),
        on_heap(|| templates::read_templates(wire, limiter, catalog)),
        on_heap(|| get_prompts(wire, limiter, catalog, &version)),
        on_heap(|| tasks::probe(wire, limiter, &catalog.tools, &candidates)),
    );

    // ---- tool_call, structured_output, content_blocks, progress, cancellation
    let mut structured_seen = false;
    let mut blocks_seen = false;
    // What the calls answered, for the judges of what the server asked during them.
    let replies: Vec<(String, Option<crate::transport::Reply>)> = calls
        .calls
        .iter()
        .map(|(n, r, _)| (n.clone(), r.clone()))
        .collect();
    // `calls.calls` is in the order of `allowed`.
    for (a, (name, reply, call)) in allowed.iter().zip(calls.calls) {
        let Some(call) = call else {
            s.add(
                TOOL_CALL
                    .skip(SkipReason::NotApplicable, "the tool requires task augmentation (execution.taskSupport: required), so it is called as a task by execution.tasks")
                    .subject(name)
                    .era(era),
            );
            continue;
        };
        s.add(call.era(era));
        let Some(reply) = reply else {
            continue;
        };
        let Some(result) = reply.result() else {
            continue;
        };
        if let Some(f) = content_blocks(&name, result, &version, &reply.evidence) {
            blocks_seen = true;
            s.add(f.era(era));
        }
        if let Some(f) = structured_output(&a.tool, result, &version, &reply.evidence) {
            structured_seen = true;
            s.add(f.era(era));
        }
    }
    let (no_call, why) = if catalog.tools.is_empty() {
        ("the server lists no tools", SkipReason::NotApplicable)
    } else if dropped == catalog.tools.len() {
        (
            "every listed tool was dropped for invalid x-mcp-header declarations",
            SkipReason::NotApplicable,
        )
    } else {
        (
            "the policy allowed no tool to be called",
            SkipReason::Policy,
        )
    };
    if allowed.is_empty() {
        s.add(TOOL_CALL.skip(why, no_call).era(era));
    }
    if !blocks_seen {
        s.add(
            CONTENT_BLOCKS
                .skip(
                    if skip_policy {
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
    match calls.progress {
        Some((progress, cancel)) => {
            s.add(progress.era(era));
            match cancel {
                Cancel::Judged(f) => s.add(f.era(era)),
                Cancel::Planned(p) => s.cancellations.push(*p),
            }
        }
        None => {
            for c in [&PROGRESS, &CANCELLATION] {
                s.add(
                    c.skip(
                        if skip_policy {
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
    s.add(error_reporting::error_reporting(&replies).era(era));
    for f in [unknown, invalid, resources, templates, prompts] {
        s.add(f.era(era));
    }
    // On a 2026-07-28 wire the tasks are those the full persona is handed (talkback).
    let tasks = if tasks.is_modern() {
        Some(tasks)
    } else {
        s.add(
            tasks
                .judge(&catalog.tools, &catalog.evidence, &replies)
                .era(era),
        );
        None
    };
    // Boxed: a connection of its own and its calls would grow every run's future.
    Box::pin(talkback::run(s, wire, catalog, &replies, tasks)).await;
}

/// Which listed tools scout may call on this wire, with their arguments (the safety policy
/// and the x-mcp-header rule decide; each tool kept back gets its finding), and how many
/// were dropped for invalid x-mcp-header declarations.
fn decide_calls(s: &mut Session, wire: &Connection, catalog: &Catalog) -> (Vec<Allowed>, usize) {
    let era = wire.era();
    // A 2026-07-28 client on Streamable HTTP must exclude a tool with invalid x-mcp-header
    // declarations from the tools it offers; scout does not call one either.
    let drops = crate::probe::catalog::x_mcp_header::drops_invalid(wire);
    let mut allowed = Vec::new();
    let mut dropped = 0;
    for t in &catalog.tools {
        let reasons = if drops {
            crate::probe::catalog::x_mcp_header::drop_reasons(t)
        } else {
            Vec::new()
        };
        if !reasons.is_empty() {
            dropped += 1;
            s.add(safety::dropped(policy::tool_name(t), &reasons).era(era));
            continue;
        }
        match policy::decide(t, &s.spec.policy) {
            Decision::Call => {
                let (arguments, source) = args::arguments_for(t, &s.spec.tools);
                if let Some(f) = safety::open_world(t, source) {
                    s.add(f.era(era));
                }
                allowed.push(Allowed::new(t, arguments, source, &s.spec.tools));
            }
            Decision::Skip { reason, allow_with } => {
                s.add(safety::not_called(policy::tool_name(t), &reason, &allow_with).era(era))
            }
        }
    }
    if !catalog.tools.is_empty() && allowed.len() + dropped == catalog.tools.len() {
        s.add(
            POLICY
                .info(format!("the policy allowed all {} tool(s)", allowed.len()))
                .era(era),
        );
    }

    (allowed, dropped)
}

/// What the tool calls produced: per allowed tool (in catalogue order) its name, the reply
/// and the `tool_call` verdict (`None` when the tool was not called), and the progress and
/// cancellation verdicts.
struct Calls {
    calls: Vec<(
        String,
        Option<crate::transport::Reply>,
        Option<FindingBuilder>,
    )>,
    progress: Option<(FindingBuilder, Cancel)>,
}

/// The cancellation verdict of a wire: judged at once (not applicable), or a probe to run
/// in the final stage.
enum Cancel {
    Judged(FindingBuilder),
    Planned(Box<PlannedCancel>),
}

/// The cancellation probe of one stdio wire, planned by the execution phase (which chose
/// the tool) and run by [`run_cancellations`] in the final stage of the run.
#[derive(Clone)]
pub struct PlannedCancel {
    era: crate::report::finding::Era,
    wire: Connection,
    name: String,
    arguments: Value,
    input_schema: Value,
    /// How long the tool's first call (with the shortest waits) took to answer.
    first_call: std::time::Duration,
    /// Whether `arguments` make the tool wait longer than its first call did.
    lengthened: bool,
    /// How long the waits scout put in `arguments` make the call run (when it did).
    runs_for: Option<std::time::Duration>,
}

impl PlannedCancel {
    /// How long the cancelled call would run if the server ignored the cancellation: the
    /// wait scout asked for, or (with no wait of scout's) as long as the first call took.
    fn expected_run(&self) -> std::time::Duration {
        match self.runs_for {
            Some(asked) if self.lengthened => asked.max(self.first_call),
            _ => self.first_call,
        }
    }
}

/// Runs the cancellation probes the execution phase planned, one wire after another:
/// last, alone on the wire, because a server that mishandles a cancellation racing its
/// reply may exit on it.
pub async fn run_cancellations(s: &mut Session) {
    let timeout = s.spec.timeout;
    for p in std::mem::take(&mut s.cancellations) {
        // The wires of a dual-era stdio server may share one process: once a cancellation
        // ended it, the next is not sent.
        let f = match crate::probe::liveness::death(s) {
            Some(d) => CANCELLATION.skip(
                SkipReason::NotAssessed,
                crate::probe::liveness::not_assessed(&d),
            ),
            None if !p.lengthened && p.first_call < progress::SLOW_ENOUGH_TO_CANCEL => {
                progress::too_quick_to_cancel(p.first_call)
            }
            None => {
                let call = progress::CancelledCall {
                    name: &p.name,
                    arguments: &p.arguments,
                    input_schema: &p.input_schema,
                    runs_for: p.expected_run(),
                };
                cancellation(&p.wire, call, timeout).await
            }
        };
        s.add(f.era(p.era));
    }
}

/// Calls every allowed tool once, all at the same time, each with a `progressToken` of its
/// own: the one call serves `tool_call`, `content_blocks`, `structured_output` and
/// `progress` alike. Progress is judged on the call that best shows it (one that sent
/// progress notifications, else one whose description speaks of progress, else the first
/// that answered); cancellation (stdio) calls that tool once more and cancels it.
async fn call_tools(
    wire: &Connection,
    limiter: &RateLimiter,
    allowed: &[Allowed],
    era: crate::report::finding::Era,
    timeout: std::time::Duration,
) -> Calls {
    let token = |i: usize| format!("{}{}-{i}", progress::TOKEN_PREFIX, era.as_str());
    let replies = futures_util::future::join_all(allowed.iter().enumerate().map(|(i, a)| {
        let token = token(i);
        async move {
            let name = policy::tool_name(&a.tool).to_string();
            // 2025-11-25 tasks: a tool that requires task augmentation refuses a plain call
            // (-32600), so the call would say nothing about the tool; execution.tasks runs it
            // as a task.
            if a.tool
                .pointer("/execution/taskSupport")
                .and_then(Value::as_str)
                == Some("required")
            {
                return (name, None, None);
            }
            limiter.wait().await;
            let reply = wire
                .send_completing(wire.tool_call(
                    json!({"name": name, "arguments": a.arguments, "_meta": {"progressToken": token}}),
                    input_schema(&a.tool),
                ))
                .await;
            let call = judge_tool_call(&name, a.source, &reply);
            (name, Some(reply), Some(call))
        }
    }))
    .await;

    // The call progress is judged on.
    let sent_progress = |r: &crate::transport::Reply| {
        r.notifications
            .iter()
            .any(|n| n.get("method").and_then(Value::as_str) == Some("notifications/progress"))
    };
    let speaks_of_progress = |t: &Value| {
        t.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.to_ascii_lowercase().contains("progress"))
    };
    let chosen = replies
        .iter()
        .enumerate()
        .filter_map(|(i, (_, reply, call))| {
            let (reply, call) = (reply.as_ref()?, call.as_ref()?);
            (call.status() != crate::report::finding::Status::Fail && reply.result().is_some())
                .then_some((i, reply))
        })
        .min_by_key(|(i, reply)| {
            let rank = if sent_progress(reply) {
                0
            } else if speaks_of_progress(&allowed[*i].tool) {
                1
            } else {
                2
            };
            (rank, *i)
        });
    let progress = match chosen {
        None => None,
        Some((i, reply)) => {
            let a = &allowed[i];
            let token = token(i);
            let name = policy::tool_name(&a.tool).to_string();
            let late = async {
                let mut finding = progress(&token, reply);
                // stdio: progress for this token that arrives after the result lands in the
                // wire's inbox; once the server has answered what scout sent after it (a
                // sentinel), anything it was going to send is in. Then look.
                if let Some(stdio) = wire.stdio() {
                    stdio.settle(timeout, AFTER_RESULT_WAIT).await;
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
                finding
            };
            // stdio: the cancellation probe is planned here and run in the final stage,
            // alone on the wire: a server that races a cancellation against its own reply
            // can crash on it, and nothing else of the run may then be lost to the crash.
            let cancel = if wire.transport() == TransportKind::Stdio {
                Cancel::Planned(Box::new(PlannedCancel {
                    era,
                    wire: wire.clone(),
                    name,
                    arguments: a.cancel_arguments.clone(),
                    input_schema: input_schema(&a.tool).clone(),
                    first_call: reply.elapsed,
                    lengthened: a.cancel_arguments != a.arguments,
                    runs_for: a.cancel_runs_for,
                }))
            } else {
                Cancel::Judged(CANCELLATION.skip(
                    SkipReason::NotApplicable,
                    "cancellation is probed on stdio only",
                ))
            };
            Some((late.await, cancel))
        }
    };
    Calls {
        calls: replies,
        progress,
    }
}

/// A tool's `inputSchema` (`Null` when it has none).
fn input_schema(tool: &Value) -> &Value {
    tool.get("inputSchema").unwrap_or(&Value::Null)
}

/// `unknown_tool`: a call to a made-up name.
async fn unknown_tool(wire: &Connection, limiter: &RateLimiter, declared: bool) -> FindingBuilder {
    if !declared {
        return UNKNOWN_TOOL.skip(
            SkipReason::NotApplicable,
            "the server does not declare the tools capability",
        );
    }
    limiter.wait().await;
    let reply = wire
        .request("tools/call", json!({"name": MADE_UP_TOOL, "arguments": {}}))
        .await;
    judge_unknown_tool(&reply)
}

/// `invalid_arguments`: only tools the policy allows.
async fn invalid_arguments(
    wire: &Connection,
    limiter: &RateLimiter,
    allowed: &[Allowed],
    skip_policy: bool,
) -> FindingBuilder {
    let target = allowed.iter().find_map(|a| {
        let sch = a.tool.get("inputSchema")?;
        args::invalid(sch).map(|bad| (policy::tool_name(&a.tool).to_string(), bad, sch))
    });
    match target {
        Some((name, bad, schema)) => {
            limiter.wait().await;
            // The headers mirror the invalid arguments: the server is to refuse the
            // arguments, not a missing Mcp-Param-* header.
            let reply = wire
                .send(wire.tool_call(json!({"name": name, "arguments": bad}), schema))
                .await;
            judge_invalid_arguments(&name, &reply)
        }
        None => INVALID_ARGUMENTS.skip(
            if skip_policy {
                SkipReason::Policy
            } else {
                SkipReason::NotApplicable
            },
            "no allowed tool has a required or declared argument to get wrong",
        ),
    }
}

/// `resource_read`: up to [`MAX_READS`] listed resources and one missing URI, all at once.
async fn read_resources(
    wire: &Connection,
    limiter: &RateLimiter,
    catalog: &Catalog,
    era: crate::report::finding::Era,
) -> FindingBuilder {
    if !crate::probe::catalog::declared(wire.capabilities(), "resources") {
        return RESOURCE_READ.skip(
            SkipReason::NotApplicable,
            "the server does not declare the resources capability",
        );
    }
    let uris: Vec<&str> = catalog
        .resources
        .iter()
        .take(MAX_READS)
        .filter_map(|r| r.get("uri").and_then(Value::as_str))
        .collect();
    let read = |uri: &str| {
        let params = json!({"uri": uri});
        async move {
            limiter.wait().await;
            wire.request_completing("resources/read", params).await
        }
    };
    let (replies, missing) = futures_util::join!(
        futures_util::future::join_all(uris.iter().map(|u| read(u))),
        read(MISSING_URI),
    );
    let mut ev = Vec::new();
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (uri, reply) in uris.iter().zip(&replies) {
        ev.extend(reply.evidence.iter().copied());
        let (hard, soft) = reads::listed_read(uri, reply);
        problems.extend(hard);
        refused.extend(soft);
    }
    resource_read(
        catalog.resources.len().min(MAX_READS),
        &problems,
        &refused,
        ev,
        era,
        &missing,
    )
}

/// `prompt_get`: up to [`MAX_READS`] listed prompts and one unknown name, all at once.
async fn get_prompts(
    wire: &Connection,
    limiter: &RateLimiter,
    catalog: &Catalog,
    version: &str,
) -> FindingBuilder {
    if !crate::probe::catalog::declared(wire.capabilities(), "prompts") {
        return PROMPT_GET.skip(
            SkipReason::NotApplicable,
            "the server does not declare the prompts capability",
        );
    }
    let listed: Vec<(&Value, &str)> = catalog
        .prompts
        .iter()
        .take(MAX_READS)
        .filter_map(|p| Some((p, p.get("name").and_then(Value::as_str)?)))
        .collect();
    let get = |params: Value| async move {
        limiter.wait().await;
        wire.request_completing("prompts/get", params).await
    };
    let (replies, unknown) = futures_util::join!(
        futures_util::future::join_all(
            listed
                .iter()
                .map(|(p, name)| get(json!({"name": name, "arguments": prompt_arguments(p)})))
        ),
        get(json!({"name": MADE_UP_PROMPT, "arguments": {}})),
    );
    let mut ev = Vec::new();
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for ((p, name), reply) in listed.iter().zip(&replies) {
        ev.extend(reply.evidence.iter().copied());
        // As with tools: scout cannot tell whether "scout" was a fitting value for the
        // prompt's arguments, so an error to generated arguments is a warning.
        let has_args = p
            .get("arguments")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        if reply.error_code() == Some(reads::METHOD_NOT_FOUND) {
            problems.push(reads::method_not_served(name, reply));
        } else if has_args && reply.error_code().is_some() {
            refused.push(format!(
                "prompts/get `{name}` answered scout's generated arguments with {}",
                describe(reply)
            ));
        } else {
            problems.extend(prompt_problems(name, reply, version));
        }
    }
    prompt_get(
        catalog.prompts.len().min(MAX_READS),
        &problems,
        &refused,
        ev,
        &unknown,
    )
}

/// Fail with every problem (and the soft ones after them), else warn with the soft ones,
/// else pass with `pass`.
fn verdict(
    check: &'static crate::report::check::Check,
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
