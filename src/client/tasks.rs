//! The client side of the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`): a
//! server may answer a `tools/call` of a client that declared the extension with a task
//! (`resultType: "task"`) instead of the result. scout then does what a client must: it
//! polls `tasks/get` at the interval the server suggests (`pollIntervalMs`), answers the
//! input requests of an `input_required` task once each with `tasks/update` (as its persona
//! answers any request), and stops at a terminal status or when the request timeout has
//! passed. Every exchange is kept for `execution.tasks`.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Connection;
use super::rounds::input_responses;
use crate::report::exchange::Seq;
use crate::transport::Reply;

/// The `resultType` of a `CreateTaskResult`.
pub const TASK: &str = "task";
/// The statuses that end a task.
pub const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];
/// At most this many polls of one task.
const MAX_POLLS: usize = 64;
/// The interval scout polls at when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(250);

/// One task scout was handed and followed.
#[derive(Debug, Clone)]
pub struct TaskChain {
    /// The tool whose call became the task.
    pub subject: String,
    /// The `tools/call` answered with the `CreateTaskResult`.
    pub created: Reply,
    /// Each `tasks/get`, in order.
    pub polls: Vec<Reply>,
    /// Each `tasks/update` scout sent for an `input_required` task.
    pub updates: Vec<Reply>,
    /// Why scout stopped before a terminal status, when it did.
    pub stopped: Option<String>,
}

impl TaskChain {
    /// The task's id, as the `CreateTaskResult` gave it.
    pub fn task_id(&self) -> Option<&str> {
        self.created
            .result()
            .and_then(|r| r.get("taskId"))
            .and_then(Value::as_str)
    }

    /// The status the last `tasks/get` showed.
    pub fn last_status(&self) -> Option<&str> {
        self.polls
            .last()
            .and_then(Reply::result)
            .and_then(|r| r.get("status"))
            .and_then(Value::as_str)
    }

    /// Every exchange of the task, in order.
    pub fn evidence(&self) -> Vec<Seq> {
        self.created
            .evidence
            .iter()
            .chain(self.polls.iter().flat_map(|p| &p.evidence))
            .chain(self.updates.iter().flat_map(|u| &u.evidence))
            .copied()
            .collect()
    }
}

/// The interval a task state suggests, within what is left of `deadline`.
fn interval(state: Option<&Value>, deadline: Instant) -> Duration {
    let asked = state
        .and_then(|s| s.get("pollIntervalMs"))
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis);
    asked.min(deadline.saturating_duration_since(Instant::now()))
}

impl Connection {
    /// Follows the task `created` handed out for the call of `subject` (see the module).
    pub(super) async fn follow_task(&self, subject: &str, created: &Reply) -> TaskChain {
        let mut chain = TaskChain {
            subject: subject.to_string(),
            created: created.clone(),
            polls: Vec::new(),
            updates: Vec::new(),
            stopped: None,
        };
        let Some(id) = chain.task_id().map(str::to_string) else {
            chain.stopped = Some("the CreateTaskResult has no string taskId".into());
            return chain;
        };
        let deadline = Instant::now() + self.connector.timeout();
        let mut answered: BTreeSet<String> = BTreeSet::new();
        let mut state = created.result().cloned();
        loop {
            if chain.polls.len() >= MAX_POLLS || Instant::now() >= deadline {
                chain.stopped = Some(format!(
                    "the task had not ended after {} poll(s) within the request timeout",
                    chain.polls.len()
                ));
                return chain;
            }
            // The server suggests how often to ask ("Clients SHOULD respect the
            // pollIntervalMs"); the first poll follows the CreateTaskResult's suggestion too.
            tokio::time::sleep(interval(state.as_ref(), deadline)).await;
            let poll = self.request("tasks/get", json!({"taskId": id})).await;
            state = poll.result().cloned();
            chain.polls.push(poll);
            let Some(s) = state.as_ref() else {
                chain.stopped = Some("tasks/get gave no result".into());
                return chain;
            };
            let status = s.get("status").and_then(Value::as_str).unwrap_or("");
            if TERMINAL.contains(&status) {
                return chain;
            }
            if status != "input_required" {
                continue;
            }
            // Answer each input request once ("Clients SHOULD deduplicate inputRequests
            // keys across consecutive polls").
            let mut fresh = s.clone();
            if let Some(requests) = fresh
                .get_mut("inputRequests")
                .and_then(Value::as_object_mut)
            {
                requests.retain(|k, _| !answered.contains(k));
                if requests.is_empty() {
                    continue;
                }
            }
            match input_responses(&self.persona, &fresh, Some(subject)) {
                Ok(Some(responses)) => {
                    if let Some(keys) = responses.as_object() {
                        answered.extend(keys.keys().cloned());
                    }
                    let update = self
                        .request(
                            "tasks/update",
                            json!({"taskId": id, "inputResponses": responses}),
                        )
                        .await;
                    chain.updates.push(update);
                }
                Ok(None) => {}
                Err(why) => {
                    chain.stopped = Some(why);
                    return chain;
                }
            }
        }
    }

    /// Every task scout followed on this wire, in order.
    pub fn task_chains(&self) -> Vec<TaskChain> {
        self.chains.tasks()
    }
}
