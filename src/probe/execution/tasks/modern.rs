//! `execution.tasks` on a 2026-07-28 wire: the tasks extension (`io.modelcontextprotocol/tasks`).
//! A server that declares it may answer a `tools/call` of a client that declared it too with
//! a task (`resultType: "task"`), which the client polls with `tasks/get` until it ends. The
//! bare client declares nothing, so no call of its may be answered with a task, and its
//! `tasks/get` must be refused with -32021; the full persona declares the extension, and the
//! tasks it is handed (followed by `client::tasks`) are judged here, with the server's
//! answers to `tasks/get` of an id it never issued.

use serde_json::{Value, json};

use super::{Probed, TASKS, UNKNOWN_TASK};
use crate::client::Connection;
use crate::client::rounds::result_type;
use crate::client::tasks::{TASK, TERMINAL, TaskChain};
use crate::probe::security::sessions::{Verdict, judge_ids_named};
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::Reply;
use crate::transport::answer::{Persona, PersonaKind, TASKS_EXTENSION};
use crate::transport::limiter::RateLimiter;

/// The statuses a task may have.
const STATUSES: [&str; 5] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];

/// Whether the capabilities declare the tasks extension.
pub fn declares_extension(capabilities: &Value) -> bool {
    capabilities
        .pointer("/extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some()
}

/// The probes of a 2026-07-28 wire: with the extension declared by the server, `tasks/get`
/// of an id it never issued, once from the bare client and once declaring the extension.
pub async fn probe(wire: &Connection, limiter: &RateLimiter) -> Probed {
    let extension = declares_extension(wire.capabilities());
    let mut o = Probed {
        modern: true,
        extension,
        handshake: wire.handshake_evidence().to_vec(),
        ..Probed::default()
    };
    if !extension {
        return o;
    }
    let declaring = wire.as_persona(Persona {
        kind: PersonaKind::Bare,
        tasks: true,
        ..Persona::default()
    });
    let get = |conn: Connection| async move {
        limiter.wait().await;
        conn.request("tasks/get", json!({"taskId": UNKNOWN_TASK}))
            .await
    };
    let (bare, declared) = futures_util::join!(get(wire.clone()), async {
        match declaring {
            Some(c) => Some(get(c).await),
            None => None,
        }
    });
    o.bare_get = Some(bare);
    o.unknown_get = declared;
    o
}

/// What the judge reads.
pub struct Observed<'a> {
    pub extension: bool,
    pub plain: &'a [(String, Option<Reply>)],
    pub bare_get: Option<&'a Reply>,
    pub declared_get: Option<&'a Reply>,
    pub chains: &'a [TaskChain],
    pub context: &'a [Seq],
}

/// Problems with the members every task carries (a CreateTaskResult or a tasks/get answer).
fn task_problems(what: &str, task: &Value) -> Vec<String> {
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
        if !task.get(key).is_some_and(Value::is_string) {
            p.push(format!("{what}: {key} is missing"));
        }
    }
    if !task
        .get("ttlMs")
        .is_some_and(|t| t.is_number() || t.is_null())
    {
        p.push(format!("{what}: ttlMs (a number, or null) is missing"));
    }
    p
}

/// Problems with one `tasks/get` answer: "The resultType field MUST be set to complete",
/// and each status carries its payload (result, error, inputRequests).
fn poll_problems(id: &str, poll: &Reply) -> Vec<String> {
    let Some(r) = poll.result() else {
        return vec![format!("tasks/get of {id} got {}", poll.describe())];
    };
    let what = format!("tasks/get of {id}");
    let mut p = task_problems(&what, r);
    if result_type(r) != Some("complete") {
        p.push(format!(
            "{what}: resultType is {}, not \"complete\"",
            r.get("resultType")
                .map_or("missing".into(), Value::to_string)
        ));
    }
    let payload = match r.get("status").and_then(Value::as_str) {
        Some("completed") => Some("result"),
        Some("failed") => Some("error"),
        Some("input_required") => Some("inputRequests"),
        _ => None,
    };
    if let Some(key) = payload
        && !r.get(key).is_some_and(Value::is_object)
    {
        p.push(format!(
            "{what}: a {} task without its {key}",
            r["status"].as_str().unwrap_or_default()
        ));
    }
    p
}

/// The verdict of the tasks extension on one wire.
pub fn judge(o: &Observed) -> FindingBuilder {
    let mut fail = Vec::new();
    let mut warn = Vec::new();
    let mut held = Vec::new();
    let mut evidence: Vec<Seq> = o.context.to_vec();
    // "A server MUST NOT return CreateTaskResult to a client that did not include the
    // extension capability on its request, regardless of prior declarations."
    for (tool, reply) in o.plain {
        if let Some(r) = reply
            && r.result().and_then(result_type) == Some(TASK)
        {
            fail.push(format!(
                "the call of {tool} by a client that did not declare the tasks extension was answered with a task"
            ));
            evidence.extend(r.evidence.iter().copied());
        }
    }
    if !o.extension {
        return if fail.is_empty() {
            TASKS.skip(
                SkipReason::NotApplicable,
                "the server does not declare the io.modelcontextprotocol/tasks extension",
            )
        } else {
            TASKS.fail(fail.join("; ")).evidence(evidence)
        };
    }
    // "Servers MUST return this error [-32021] for non-declaring clients issuing tasks/get".
    if let Some(r) = o.bare_get {
        evidence.extend(r.evidence.iter().copied());
        match r.error_code() {
            Some(-32021) => held.push(
                "tasks/get from a client that did not declare the extension got -32021".into(),
            ),
            _ => fail.push(format!(
                "tasks/get from a client that did not declare the extension got {}; it must get -32021",
                r.describe()
            )),
        }
    }
    // "Invalid or nonexistent taskId: -32602 … Servers MUST return this error for tasks/get."
    if let Some(r) = o.declared_get {
        evidence.extend(r.evidence.iter().copied());
        match r.error_code() {
            Some(-32602) => {
                held.push("tasks/get of an id the server never issued got -32602".into())
            }
            _ => fail.push(format!(
                "tasks/get of an id the server never issued got {}; it must get -32602",
                r.describe()
            )),
        }
    }
    for c in o.chains {
        evidence.extend(c.evidence());
        let created = c.created.result().cloned().unwrap_or(Value::Null);
        let problems = task_problems(&format!("the task of {}", c.subject), &created);
        if !problems.is_empty() {
            fail.extend(problems);
            continue;
        }
        let id = c.task_id().unwrap_or_default();
        for poll in &c.polls {
            fail.extend(poll_problems(id, poll));
        }
        for u in &c.updates {
            if u.result().and_then(result_type) != Some("complete") {
                fail.push(format!(
                    "tasks/update of {id} got {}; its acknowledgement must be an empty result with resultType \"complete\"",
                    u.describe()
                ));
            }
        }
        match (&c.stopped, c.last_status()) {
            (Some(why), _) => warn.push(format!("the task {id} of {}: {why}", c.subject)),
            (None, Some(status)) if TERMINAL.contains(&status) => held.push(format!(
                "the task {id} of {} ended {status} after {} poll(s){}",
                c.subject,
                c.polls.len(),
                if c.updates.is_empty() {
                    String::new()
                } else {
                    format!(" and {} tasks/update", c.updates.len())
                }
            )),
            _ => {}
        }
    }
    if o.chains.is_empty() {
        held.push(
            "no call of the full persona was answered with a task (the server decides per request)"
                .into(),
        );
    }
    let ids: Vec<String> = o
        .chains
        .iter()
        .filter_map(|c| c.task_id().map(str::to_string))
        .collect();
    if ids.len() >= 2 {
        // "Servers MUST generate them with sufficient entropy that a third party cannot
        // enumerate or guess them."
        match judge_ids_named("task", &ids) {
            Verdict::Pass(s) | Verdict::Unjudged(s) => held.push(s.trim_end_matches('.').into()),
            Verdict::Warn(s) => warn.push(s.trim_end_matches('.').into()),
            Verdict::Fail(s) => fail.push(s.trim_end_matches('.').into()),
        }
    }
    let tail = if held.is_empty() {
        String::new()
    } else {
        format!("; {}", held.join("; "))
    };
    // A defect of every poll is named once.
    let mut seen = std::collections::HashSet::new();
    fail.retain(|f| seen.insert(f.clone()));
    let f = if !fail.is_empty() {
        fail.extend(warn);
        TASKS.fail(format!("{}{tail}", fail.join("; ")))
    } else if !warn.is_empty() {
        TASKS.warn(format!("{}{tail}", warn.join("; ")))
    } else {
        TASKS.pass(held.join("; "))
    };
    f.evidence(evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{err as error, ok};
    use crate::report::finding::Status;

    fn task(id: &str, status: &str, rt: &str) -> Value {
        json!({"resultType": rt, "taskId": id, "status": status,
            "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:01Z",
            "ttlMs": 60000})
    }
    fn chain(id: &str, done: Value) -> TaskChain {
        TaskChain {
            subject: "report".into(),
            created: ok(1, task(id, "working", "task")),
            polls: vec![ok(2, task(id, "working", "complete")), ok(3, done)],
            updates: Vec::new(),
            stopped: None,
        }
    }
    fn completed(id: &str) -> Value {
        let mut t = task(id, "completed", "complete");
        t["result"] = json!({"content": []});
        t
    }
    const A: &str = "0c8a4d1ef27b4f0f9a3b6d2e8c1f7a50";

    #[test]
    fn tasks_by_the_extension_pass_and_a_completed_task_without_its_result_fails() {
        let bare = error(4, -32021);
        let declared = error(5, -32602);
        let good = [chain(A, completed(A))];
        let o = Observed {
            extension: true,
            plain: &[],
            bare_get: Some(&bare),
            declared_get: Some(&declared),
            chains: &good,
            context: &[],
        };
        assert_eq!(judge(&o).status(), Status::Pass, "{:?}", judge(&o));
        let bad = [chain(A, task(A, "completed", "complete"))];
        let f = judge(&Observed { chains: &bad, ..o });
        assert_eq!(f.status(), Status::Fail);
        assert!(format!("{f:?}").contains("without its result"));
    }

    #[test]
    fn a_task_to_a_client_that_did_not_declare_the_extension_fails_even_without_it() {
        let plain = [(
            "report".to_string(),
            Some(ok(1, task(A, "working", "task"))),
        )];
        let o = Observed {
            extension: false,
            plain: &plain,
            bare_get: None,
            declared_get: None,
            chains: &[],
            context: &[],
        };
        assert_eq!(judge(&o).status(), Status::Fail);
        let f = judge(&Observed { plain: &[], ..o });
        assert_eq!(f.status(), Status::Skip);
        // A bare tasks/get that is served instead of refused with -32021 fails.
        let served = error(4, -32602);
        let f = judge(&Observed {
            extension: true,
            plain: &[],
            bare_get: Some(&served),
            declared_get: None,
            chains: &[],
            context: &[],
        });
        assert_eq!(f.status(), Status::Fail);
    }
}
