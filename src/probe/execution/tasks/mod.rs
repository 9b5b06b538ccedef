//! `execution.tasks`: the 2025-11-25 tasks utility, on a server that declares it. The
//! capability and the tools' `execution.taskSupport` must have the schema's shapes; a
//! `tasks/get` of an id the server never issued must get -32602; a call that did not ask
//! for a task must never be answered with a task handle; and, on a tool the policy allows
//! that supports tasks, scout runs two tasks through their lifecycle: created
//! (`CreateTaskResult`), waited for with `tasks/result` (which blocks until the task ends,
//! so scout asks instead of polling on a clock), read again with `tasks/get` (now in a
//! terminal status), found in `tasks/list`, and refused when cancelled after it ended. The
//! two task ids are judged as `security.session_entropy` judges session ids.
//!
//! 2026-07-28 moved tasks into an extension (`io.modelcontextprotocol/tasks`) with other
//! methods and rules, judged in [`modern`].

use serde_json::{Value, json};

use crate::client::Connection;
use crate::policy;
use crate::probe::security::sessions::{Verdict, judge_ids_named};
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::transport::Reply;
use crate::transport::limiter::RateLimiter;

pub mod modern;

/// The 2025-11-25 tasks utility.
pub const TASKS25: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks";

crate::checks! { phase: Execution;
    TASKS = "execution.tasks", Major, "Tasks run through their lifecycle as the revision says", TASKS25,
        "2025-11-25, when the server declares the tasks capability: the capability's members and each tool's execution.taskSupport (required, optional or forbidden) must have the schema's shapes; tasks/get of an id the server never issued must get -32602; a tools/call that did not ask for a task must not be answered with a task handle (CreateTaskResult). On a tool the policy allows whose taskSupport is optional or required (required first), two task-augmented calls are made (task.ttl 60000): each must return a CreateTaskResult whose task has a string taskId, a valid status, createdAt and lastUpdatedAt; tasks/result (which must block until the task ends; bounded by the request timeout) must carry the io.modelcontextprotocol/related-task _meta naming the task and return a CallToolResult or the call's JSON-RPC error; tasks/get afterwards must show a terminal status with ttl, createdAt and lastUpdatedAt; with tasks.list the task must be listed (up to 5 pages); with tasks.cancel, cancelling the ended task must get -32602. The two task ids are judged as session ids are (distinct, no counter, no clock, enough entropy): guessable ids fail when scout ran without credentials (the server must then make ids unguessable) and warn with credentials (the server must bind tasks to the authorization context, which one identity cannot see). A tool that asks for a task and gets an ordinary result, a refused task-augmented call or a task that outlives the timeout is a warning. 2026-07-28, when the server declares the io.modelcontextprotocol/tasks extension: no call of the bare client (which declares nothing) may be answered with a task (resultType task); tasks/get from it must get -32021 and, declaring the extension, tasks/get of an id never issued -32602; the full persona declares the extension, and each task it is handed is polled with tasks/get at the server's pollIntervalMs (its input requests answered once with tasks/update) until it ends or the request timeout passes: the CreateTaskResult and every tasks/get must carry taskId, a task status, createdAt, lastUpdatedAt and ttlMs, every tasks/get resultType complete, a completed task its result, a failed one its error, an input_required one its inputRequests, and tasks/update an empty result; two or more task ids are judged as session ids are. A task that does not end within the timeout is a warning. Not applicable when the server declares neither, or on a handshake-era wire older than 2025-11-25.",
        "Declare tasks only with the shapes the schema gives, answer a task-augmented call with a CreateTaskResult, make tasks/result block and carry the related-task _meta, answer unknown task ids and cancellation of ended tasks with -32602, and generate task ids from a secure random source.";
}

/// A task id no server issued.
pub const UNKNOWN_TASK: &str = "scout-no-such-task-7f3a";
/// How long scout asks the server to keep its tasks.
const TTL_MS: u64 = 60_000;
/// Pages of tasks/list scout reads looking for its task.
const LIST_PAGES: usize = 5;
/// The statuses 2025-11-25 defines, and those that end a task.
const STATUSES: [&str; 5] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];
const RELATED: &str = "io.modelcontextprotocol/related-task";

/// One task scout created and followed to its end.
#[derive(Debug, Clone, Default)]
pub struct Followed {
    pub tool: String,
    /// The task-augmented tools/call.
    pub created: Reply,
    /// tasks/result, when a task id came back.
    pub result: Option<Reply>,
    /// tasks/get after tasks/result.
    pub after: Option<Reply>,
}

impl Followed {
    /// The id the CreateTaskResult gave, when it gave a string.
    pub fn task_id(&self) -> Option<&str> {
        self.created
            .result()
            .and_then(|r| r.pointer("/task/taskId"))
            .and_then(Value::as_str)
    }
}

/// What the probes of one wire saw.
#[derive(Debug, Default)]
pub struct Observed<'a> {
    /// `capabilities.tasks`, as declared.
    pub capability: Option<&'a Value>,
    pub tools: &'a [Value],
    /// The ordinary (not task-augmented) calls of the execution phase: tool and reply.
    pub plain: &'a [(String, Option<Reply>)],
    pub unknown_get: Option<&'a Reply>,
    pub followed: &'a [Followed],
    /// Why no task was followed, when none was.
    pub not_followed: Option<String>,
    /// The pages of tasks/list, with tasks.list declared.
    pub listed: &'a [Reply],
    /// tasks/cancel of the first followed task after it ended, with tasks.cancel declared.
    pub cancel_ended: Option<&'a Reply>,
    /// Whether scout sent credentials (an authorization context the server can bind to).
    pub authorized: bool,
    /// The exchanges that showed the capability and the tools (handshake and catalogue).
    pub context: &'a [Seq],
}

/// What the judge collects: fails, warnings, what held, and the exchanges that showed it.
#[derive(Default)]
struct Tally {
    fail: Vec<String>,
    warn: Vec<String>,
    held: Vec<String>,
    /// The tasks that ran to their end: (tool, id, final status).
    ended: Vec<(String, String, String)>,
    evidence: Vec<Seq>,
}

impl Tally {
    fn cite(&mut self, r: &Reply) {
        self.evidence.extend(r.evidence.iter().copied());
    }
}

/// Whether `v` is a JSON object (the schema's `{}` members).
fn is_object(v: Option<&Value>) -> bool {
    v.is_some_and(Value::is_object)
}

/// A CreateTaskResult: a result with a `task` object and no content of a tool result.
fn is_task_handle(result: &Value) -> bool {
    result.get("task").is_some_and(Value::is_object) && result.get("content").is_none()
}

/// Problems with the members every task response must carry.
fn task_fields(what: &str, task: &Value, with_ttl: bool) -> Vec<String> {
    let mut p = Vec::new();
    if !task.get("taskId").is_some_and(Value::is_string) {
        p.push(format!("{what}: taskId is missing or not a string"));
    }
    match task.get("status").and_then(Value::as_str) {
        Some(s) if STATUSES.contains(&s) => {}
        Some(s) => p.push(format!("{what}: status \"{s}\" is not a task status")),
        None => p.push(format!("{what}: status is missing")),
    }
    for key in ["createdAt", "lastUpdatedAt"] {
        match task.get(key).and_then(Value::as_str) {
            Some(t) => {
                if time::OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339)
                    .is_err()
                {
                    p.push(format!(
                        "{what}: {key} \"{t}\" is not an RFC 3339 timestamp"
                    ));
                }
            }
            None => p.push(format!("{what}: {key} is missing")),
        }
    }
    if with_ttl
        && !task
            .get("ttl")
            .is_some_and(|t| t.is_number() || t.is_null())
    {
        p.push(format!(
            "{what}: ttl (a number, or null for unlimited) is missing"
        ));
    }
    p
}

/// The capability's shape: every member the schema gives is an object.
fn capability_problems(cap: &Value) -> Vec<String> {
    if !cap.is_object() {
        return vec!["capabilities.tasks is not an object".into()];
    }
    let mut p = Vec::new();
    for path in [
        "/list",
        "/cancel",
        "/requests",
        "/requests/tools",
        "/requests/tools/call",
    ] {
        if let Some(v) = cap.pointer(path)
            && !v.is_object()
        {
            p.push(format!(
                "capabilities.tasks{} is not an object",
                path.replace('/', ".")
            ));
        }
    }
    p
}

/// How a tool declares task support, when it does.
fn task_support(tool: &Value) -> Option<&Value> {
    tool.pointer("/execution/taskSupport")
}

/// Whether the capability lets tools/call be task-augmented.
fn tools_call_tasks(cap: Option<&Value>) -> bool {
    is_object(cap.and_then(|c| c.pointer("/requests/tools/call")))
}

/// Judges everything [`Observed`] holds.
pub fn judge(o: &Observed) -> FindingBuilder {
    let mut t = Tally::default();
    // "Receivers that do not declare the task capability for a request type MUST process
    // requests of that type normally"; one that does may refuse a plain request, never
    // answer it with a task.
    for (tool, reply) in o.plain {
        if let Some(r) = reply
            && r.result().is_some_and(is_task_handle)
        {
            t.fail.push(format!(
                "the call of {tool}, which asked for no task, was answered with a task handle (CreateTaskResult)"
            ));
            t.cite(r);
        }
    }
    let Some(cap) = o.capability else {
        return if t.fail.is_empty() {
            TASKS.skip(
                SkipReason::NotApplicable,
                "the server declares no tasks capability",
            )
        } else {
            TASKS.fail(t.fail.join("; ")).evidence(t.evidence)
        };
    };
    t.evidence.extend(o.context.iter().copied());
    t.fail.extend(capability_problems(cap));
    judge_tools(o, &mut t);
    judge_unknown(o, &mut t);
    for f in o.followed {
        judge_followed(f, &mut t);
    }
    if let Some((tool, ..)) = t.ended.first() {
        let ends: Vec<String> = t
            .ended
            .iter()
            .map(|(_, id, status)| format!("{id} {status}"))
            .collect();
        let line = format!(
            "{} task(s) of {tool} were created, returned their results through tasks/result and ended ({})",
            t.ended.len(),
            ends.join(", ")
        );
        t.held.insert(0, line);
    }
    judge_ids(o, &mut t);
    judge_list(o, &mut t);
    judge_cancel(o, &mut t);
    if let Some(why) = &o.not_followed {
        t.held.push(format!("no task was run: {why}"));
    }
    let detail = |mut lead: Vec<String>, t: &Tally| {
        lead.extend(t.held.iter().cloned());
        lead.join("; ")
    };
    let f = if !t.fail.is_empty() {
        let mut lead = t.fail.clone();
        lead.extend(t.warn.iter().cloned());
        TASKS.fail(detail(lead, &t))
    } else if !t.warn.is_empty() {
        TASKS.warn(detail(t.warn.clone(), &t))
    } else {
        TASKS.pass(detail(Vec::new(), &t))
    };
    f.evidence(t.evidence)
}

fn judge_tools(o: &Observed, t: &mut Tally) {
    let calls = tools_call_tasks(o.capability);
    for tool in o.tools {
        let name = policy::tool_name(tool);
        match task_support(tool) {
            None => {}
            // "If a server's capabilities do not include tasks.requests.tools.call, then
            // clients MUST NOT attempt to use task augmentation on that server's tools."
            Some(Value::String(s)) if !calls && (s == "required" || s == "optional") => {
                t.warn.push(format!(
                    "{name} has taskSupport \"{s}\" but the capability does not include tasks.requests.tools.call, so no client may call it as a task"
                ));
            }
            Some(Value::String(s)) if ["required", "optional", "forbidden"].contains(&s.as_str()) => {}
            Some(v) => t.fail.push(format!(
                "{name}: execution.taskSupport {v} is not \"required\", \"optional\" or \"forbidden\""
            )),
        }
    }
}

fn judge_unknown(o: &Observed, t: &mut Tally) {
    let Some(r) = o.unknown_get else { return };
    t.cite(r);
    match (r.result(), r.error_code()) {
        (_, Some(-32602)) => t
            .held
            .push("tasks/get of an id the server never issued got -32602".into()),
        (Some(_), _) => t.fail.push(
            "tasks/get of an id the server never issued was answered with a result; it must get -32602".into(),
        ),
        _ => t.fail.push(format!(
            "tasks/get of an id the server never issued got {}; it must get -32602",
            r.describe()
        )),
    }
}

fn judge_followed(f: &Followed, t: &mut Tally) {
    t.cite(&f.created);
    let Some(result) = f.created.result() else {
        t.warn.push(format!(
            "the task-augmented call of {} was refused: {}",
            f.tool,
            f.created.describe()
        ));
        return;
    };
    let Some(task) = result.get("task").filter(|v| v.is_object()) else {
        // "Receivers that accept a task-augmented request MUST return a CreateTaskResult";
        // one that ran the call as an ordinary one did not accept the task.
        t.warn.push(format!(
            "the call of {} asked for a task and got an ordinary result instead of a CreateTaskResult",
            f.tool
        ));
        return;
    };
    let problems = task_fields(&format!("the task of {}", f.tool), task, false);
    if !problems.is_empty() {
        t.fail.extend(problems);
        return;
    }
    let id = f.task_id().unwrap_or_default();
    let Some(r) = &f.result else { return };
    t.cite(r);
    match (r.result(), r.error_code()) {
        (Some(res), _) => {
            let related = res
                .pointer("/_meta")
                .and_then(|m| m.get(RELATED))
                .and_then(|m| m.get("taskId"))
                .and_then(Value::as_str);
            match related {
                Some(named) if named == id => {}
                Some(other) => t.fail.push(format!(
                    "tasks/result of {id} names the related task \"{other}\""
                )),
                None => t.fail.push(format!(
                    "tasks/result of {id} lacks the {RELATED} _meta, which its response must include"
                )),
            }
            if !res.get("content").is_some_and(Value::is_array) {
                t.fail.push(format!(
                    "tasks/result of {id} is not a CallToolResult (no content array), though the task wraps a tools/call"
                ));
            }
        }
        (None, Some(_)) => {}
        (None, None) => {
            t.warn.push(format!(
                "tasks/result of {id} ({}) got {}; the task may still be running",
                f.tool,
                r.describe()
            ));
            return;
        }
    }
    let Some(after) = &f.after else { return };
    t.cite(after);
    let Some(state) = after.result() else {
        t.fail.push(format!(
            "tasks/get of {id} after its result got {}",
            after.describe()
        ));
        return;
    };
    let problems = task_fields(&format!("tasks/get of {id}"), state, true);
    if !problems.is_empty() {
        t.fail.extend(problems);
        return;
    }
    let status = state.get("status").and_then(Value::as_str).unwrap_or("");
    if TERMINAL.contains(&status) {
        t.ended
            .push((f.tool.clone(), id.to_string(), status.to_string()));
    } else {
        // "it MUST block the response until the task reaches a terminal status"
        t.fail.push(format!(
            "tasks/result of {id} returned while the task was still \"{status}\"; it must block until the task ends"
        ));
    }
}

fn judge_ids(o: &Observed, t: &mut Tally) {
    let ids: Vec<String> = o
        .followed
        .iter()
        .filter_map(|f| f.task_id().map(str::to_string))
        .collect();
    if ids.len() < 2 {
        return;
    }
    let verdict = match judge_ids_named("task", &ids) {
        Verdict::Pass(s) => Verdict::Pass(s.trim_end_matches('.').to_string()),
        Verdict::Warn(s) => Verdict::Warn(s.trim_end_matches('.').to_string()),
        Verdict::Fail(s) => Verdict::Fail(s.trim_end_matches('.').to_string()),
        Verdict::Unjudged(s) => Verdict::Unjudged(s.trim_end_matches('.').to_string()),
    };
    match verdict {
        Verdict::Pass(s) => t.held.push(s),
        Verdict::Warn(s) => t.warn.push(s),
        // "If context-binding is unavailable, receivers MUST generate cryptographically
        // secure task IDs"; with credentials the server may bind tasks to them instead.
        Verdict::Fail(s) if o.authorized => t.warn.push(format!(
            "{s}; with credentials the server must bind tasks to them instead, which one identity cannot check"
        )),
        Verdict::Fail(s) => t.fail.push(s),
        Verdict::Unjudged(s) => t.held.push(s),
    }
}

fn judge_list(o: &Observed, t: &mut Tally) {
    let Some(id) = o.followed.first().and_then(Followed::task_id) else {
        return;
    };
    if o.listed.is_empty() {
        return;
    }
    for (i, page) in o.listed.iter().enumerate() {
        t.cite(page);
        let Some(res) = page.result() else {
            t.fail.push(format!(
                "tasks/list (declared) got {} on page {}",
                page.describe(),
                i + 1
            ));
            return;
        };
        let listed = res
            .get("tasks")
            .and_then(Value::as_array)
            .is_some_and(|ts| {
                ts.iter()
                    .any(|x| x.get("taskId").and_then(Value::as_str) == Some(id))
            });
        if listed {
            t.held.push(format!("tasks/list lists {id}"));
            return;
        }
        if res.get("nextCursor").is_none() {
            // "If a task is retrievable via tasks/get for a requestor, it MUST be retrievable
            // via tasks/list for that requestor."
            t.fail.push(format!(
                "tasks/list does not list {id}, which tasks/get retrieves"
            ));
            return;
        }
    }
    t.held.push(format!(
        "{id} was not on the first {LIST_PAGES} pages of tasks/list"
    ));
}

fn judge_cancel(o: &Observed, t: &mut Tally) {
    let Some(r) = o.cancel_ended else { return };
    t.cite(r);
    match (r.result(), r.error_code()) {
        (_, Some(-32602)) => t.held.push("cancelling the ended task got -32602".into()),
        (Some(_), _) => t.fail.push(
            "tasks/cancel of a task that had ended was accepted; it must be rejected with -32602"
                .into(),
        ),
        _ => t.fail.push(format!(
            "tasks/cancel of a task that had ended got {}; it must get -32602",
            r.describe()
        )),
    }
}

/// A tool scout may run as a task: allowed by the policy, with its arguments.
pub struct Candidate<'a> {
    pub tool: &'a Value,
    pub arguments: &'a Value,
}

/// What the probes of one wire sent and got, before the ordinary calls are known.
#[derive(Default)]
pub struct Probed {
    /// The verdict when the check does not apply to the wire.
    skip: Option<FindingBuilder>,
    capability: Option<Value>,
    authorized: bool,
    handshake: Vec<Seq>,
    unknown_get: Option<Reply>,
    followed: Vec<Followed>,
    not_followed: Option<String>,
    listed: Vec<Reply>,
    cancel_ended: Option<Reply>,
    /// 2026-07-28 (the tasks extension): tasks/get of an unknown id from a client that did
    /// not declare the extension (`unknown_get` is the one that did).
    bare_get: Option<Reply>,
    /// 2026-07-28: whether the server declares the extension.
    extension: bool,
    modern: bool,
}

impl Probed {
    /// True on a 2026-07-28 wire, whose verdict waits for the tasks the full persona was
    /// handed (see [`Probed::judge_modern`]).
    pub fn is_modern(&self) -> bool {
        self.skip.is_none() && self.modern
    }

    /// The 2026-07-28 verdict: the probes, the bare client's calls and the tasks the full
    /// persona (which declares the extension when the server does) was handed.
    pub fn judge_modern(
        self,
        plain: &[(String, Option<Reply>)],
        chains: &[crate::client::tasks::TaskChain],
    ) -> FindingBuilder {
        modern::judge(&modern::Observed {
            extension: self.extension,
            plain,
            bare_get: self.bare_get.as_ref(),
            declared_get: self.unknown_get.as_ref(),
            chains,
            context: &self.handshake,
        })
    }

    /// The verdict, with the ordinary calls of the execution phase (made at the same time).
    pub fn judge(
        self,
        tools: &[Value],
        listed_by: &[Seq],
        plain: &[(String, Option<Reply>)],
    ) -> FindingBuilder {
        if let Some(skip) = self.skip {
            return skip;
        }
        let context: Vec<Seq> = self.handshake.iter().chain(listed_by).copied().collect();
        judge(&Observed {
            capability: self.capability.as_ref(),
            tools,
            plain,
            unknown_get: self.unknown_get.as_ref(),
            followed: &self.followed,
            not_followed: self.not_followed,
            listed: &self.listed,
            cancel_ended: self.cancel_ended.as_ref(),
            authorized: self.authorized,
            context: &context,
        })
    }
}

/// Runs the probes on one wire.
pub async fn probe(
    wire: &Connection,
    limiter: &RateLimiter,
    tools: &[Value],
    candidates: &[Candidate<'_>],
) -> Probed {
    let skip = |why: String| Probed {
        skip: Some(TASKS.skip(SkipReason::NotApplicable, why)),
        ..Probed::default()
    };
    if wire.era() == Era::Modern {
        return modern::probe(wire, limiter).await;
    }
    if wire.protocol_version() != "2025-11-25" {
        return skip(format!(
            "tasks came with 2025-11-25; this wire speaks {}",
            wire.protocol_version()
        ));
    }
    let capability = wire.capabilities().get("tasks").cloned();
    let mut o = Probed {
        capability: capability.clone(),
        authorized: !wire.connector().secrets().is_empty(),
        handshake: wire.handshake_evidence().to_vec(),
        ..Probed::default()
    };
    let Some(cap) = capability else {
        return o;
    };
    limiter.wait().await;
    o.unknown_get = Some(
        wire.request("tasks/get", json!({"taskId": UNKNOWN_TASK}))
            .await,
    );
    // Required first: such a tool cannot be called any other way.
    let chosen = candidates
        .iter()
        .filter(|c| {
            matches!(
                task_support(c.tool).and_then(Value::as_str),
                Some("required" | "optional")
            )
        })
        .min_by_key(|c| task_support(c.tool).and_then(Value::as_str) != Some("required"));
    o.followed = match chosen {
        _ if !tools_call_tasks(Some(&cap)) => {
            o.not_followed =
                Some("the capability does not include tasks.requests.tools.call".into());
            Vec::new()
        }
        None => {
            o.not_followed = Some(not_followed_why(tools));
            Vec::new()
        }
        Some(c) => follow_two(wire, limiter, c).await,
    };
    let first = o.followed.first().cloned();
    if let Some(id) = first.as_ref().and_then(Followed::task_id)
        && is_object(cap.get("list"))
    {
        o.listed = list_until(wire, limiter, id).await;
    }
    let ended = |f: &Followed| {
        f.after.as_ref().is_some_and(|a| {
            a.result()
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str)
                .is_some_and(|s| TERMINAL.contains(&s))
        })
    };
    if let Some(f) = first.as_ref().filter(|f| ended(f))
        && is_object(cap.get("cancel"))
    {
        limiter.wait().await;
        o.cancel_ended = Some(
            wire.request("tasks/cancel", json!({"taskId": f.task_id()}))
                .await,
        );
    }
    o
}

/// Why no listed tool was run as a task.
fn not_followed_why(tools: &[Value]) -> String {
    let supporting: Vec<&str> = tools
        .iter()
        .filter(|t| {
            matches!(
                task_support(t).and_then(Value::as_str),
                Some("required" | "optional")
            )
        })
        .map(policy::tool_name)
        .collect();
    if supporting.is_empty() {
        "no listed tool supports tasks (execution.taskSupport optional or required)".into()
    } else {
        format!(
            "the policy allowed none of the tools that support tasks ({}); see execution.policy for the flag that would",
            supporting.join(", ")
        )
    }
}

/// Two task-augmented calls of one tool, made together, each followed to its end.
async fn follow_two(wire: &Connection, limiter: &RateLimiter, c: &Candidate<'_>) -> Vec<Followed> {
    let name = policy::tool_name(c.tool).to_string();
    let one = |_: usize| {
        let name = name.clone();
        async move {
            limiter.wait().await;
            let created = wire
                .request(
                    "tools/call",
                    json!({"name": name, "arguments": c.arguments, "task": {"ttl": TTL_MS}}),
                )
                .await;
            let mut f = Followed {
                tool: name,
                created,
                ..Followed::default()
            };
            let Some(id) = f.task_id().map(str::to_string) else {
                return f;
            };
            limiter.wait().await;
            let result = wire.request("tasks/result", json!({"taskId": id})).await;
            let answered = result.result().is_some() || result.error_code().is_some();
            f.result = Some(result);
            if answered {
                limiter.wait().await;
                f.after = Some(wire.request("tasks/get", json!({"taskId": id})).await);
            }
            f
        }
    };
    futures_util::future::join_all((0..2).map(one)).await
}

/// tasks/list, page after page, until `id` is listed, the list ends or [`LIST_PAGES`] were read.
async fn list_until(wire: &Connection, limiter: &RateLimiter, id: &str) -> Vec<Reply> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..LIST_PAGES {
        limiter.wait().await;
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = wire.request("tasks/list", params).await;
        let res = page.result();
        let found = res
            .and_then(|r| r.get("tasks"))
            .and_then(Value::as_array)
            .is_some_and(|ts| {
                ts.iter()
                    .any(|x| x.get("taskId").and_then(Value::as_str) == Some(id))
            });
        cursor = res
            .and_then(|r| r.get("nextCursor"))
            .and_then(Value::as_str)
            .map(str::to_string);
        pages.push(page);
        if found || cursor.is_none() {
            break;
        }
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{err as error, ok};
    use crate::report::finding::Status;

    fn task(id: &str, status: &str) -> Value {
        json!({"taskId": id, "status": status, "createdAt": "2025-11-25T10:30:00Z",
               "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttl": 60000})
    }
    fn followed(id: &str, related: bool) -> Followed {
        let mut out = json!({"content": [{"type": "text", "text": "done"}]});
        if related {
            out["_meta"] = json!({RELATED: {"taskId": id}});
        }
        Followed {
            tool: "report".into(),
            created: ok(1, json!({"task": task(id, "working")})),
            result: Some(ok(2, out)),
            after: Some(ok(3, task(id, "completed"))),
        }
    }
    fn cap() -> Value {
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    }
    /// The builder's fields, detail included.
    fn detail(f: &FindingBuilder) -> String {
        format!("{f:?}")
    }
    const A: &str = "0c8a4d1ef27b4f0f9a3b6d2e8c1f7a50";
    const B: &str = "e91b7c3a5d2f48e6b0a4c9d1f3e7b826";

    #[test]
    fn a_lifecycle_by_the_rules_passes_and_each_broken_rule_fails() {
        let c = cap();
        let tools = [json!({"name": "report", "execution": {"taskSupport": "required"}})];
        let unknown = error(4, -32602);
        let listed = [ok(5, json!({"tasks": [task(A, "completed")]}))];
        let cancel = error(6, -32602);
        let runs = [followed(A, true), followed(B, true)];
        let good = Observed {
            capability: Some(&c),
            tools: &tools,
            unknown_get: Some(&unknown),
            followed: &runs,
            listed: &listed,
            cancel_ended: Some(&cancel),
            ..Observed::default()
        };
        let f = judge(&good);
        assert_eq!(f.status(), Status::Pass, "{}", detail(&f));
        assert!(detail(&f).contains("2 task(s) of report"), "{}", detail(&f));

        // tasks/result without the related-task _meta ("The tasks/result operation MUST
        // include this metadata in its response").
        let runs = [followed(A, false), followed(B, true)];
        let f = judge(&Observed {
            followed: &runs,
            ..good_clone(&good)
        });
        assert_eq!(f.status(), Status::Fail);
        assert!(detail(&f).contains("related-task"), "{}", detail(&f));

        // An unknown task id answered with a task ("Invalid or nonexistent taskId in
        // tasks/get … -32602").
        let found = ok(4, task("made-up", "working"));
        let f = judge(&Observed {
            unknown_get: Some(&found),
            ..good_clone(&good)
        });
        assert_eq!(f.status(), Status::Fail);

        // Cancelling an ended task accepted ("MUST reject cancellation requests for tasks
        // already in a terminal status … with error code -32602").
        let accepted = ok(6, task(A, "cancelled"));
        let f = judge(&Observed {
            cancel_ended: Some(&accepted),
            ..good_clone(&good)
        });
        assert_eq!(f.status(), Status::Fail);

        // Listed nowhere though tasks/get retrieves it.
        let empty = [ok(5, json!({"tasks": []}))];
        let f = judge(&Observed {
            listed: &empty,
            ..good_clone(&good)
        });
        assert_eq!(f.status(), Status::Fail);
        assert!(detail(&f).contains("does not list"), "{}", detail(&f));
    }

    fn good_clone<'a>(o: &Observed<'a>) -> Observed<'a> {
        Observed {
            capability: o.capability,
            tools: o.tools,
            plain: o.plain,
            unknown_get: o.unknown_get,
            followed: o.followed,
            not_followed: o.not_followed.clone(),
            listed: o.listed,
            cancel_ended: o.cancel_ended,
            authorized: o.authorized,
            context: o.context,
        }
    }

    #[test]
    fn counting_task_ids_fail_without_credentials_and_warn_with_them() {
        let c = cap();
        let runs = [followed("task-1", true), followed("task-2", true)];
        let o = Observed {
            capability: Some(&c),
            followed: &runs,
            ..Observed::default()
        };
        let f = judge(&o);
        assert_eq!(f.status(), Status::Fail);
        assert!(detail(&f).contains("count up"), "{}", detail(&f));
        let f = judge(&Observed {
            authorized: true,
            ..good_clone(&o)
        });
        assert_eq!(f.status(), Status::Warn);
    }

    #[test]
    fn a_task_handle_to_a_plain_call_fails_even_without_the_capability() {
        let plain = [(
            "sum".to_string(),
            Some(ok(1, json!({"task": task(A, "working")}))),
        )];
        let f = judge(&Observed {
            plain: &plain,
            ..Observed::default()
        });
        assert_eq!(f.status(), Status::Fail);
        let ordinary = [("sum".to_string(), Some(ok(1, json!({"content": []}))))];
        let f = judge(&Observed {
            plain: &ordinary,
            ..Observed::default()
        });
        assert_eq!(f.status(), Status::Skip);
    }

    #[test]
    fn shapes_the_schema_does_not_allow_fail() {
        let c = json!({"list": true, "requests": {"tools": {"call": {}}}});
        let tools = [json!({"name": "x", "execution": {"taskSupport": "always"}})];
        let f = judge(&Observed {
            capability: Some(&c),
            tools: &tools,
            ..Observed::default()
        });
        assert_eq!(f.status(), Status::Fail);
        assert!(
            detail(&f).contains("capabilities.tasks.list"),
            "{}",
            detail(&f)
        );
        assert!(detail(&f).contains("always"), "{}", detail(&f));
    }
}
