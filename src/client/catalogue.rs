//! Lists what a live server offers an agent, for `scout pin`: the wire an agent would use
//! (2026-07-28 when the server speaks it), every page of `tools/list`, `prompts/list` and
//! `resources/templates/list` for the capabilities it declares, and its instructions. Every
//! session opened is closed and every process started is stopped before returning.

use serde_json::{Value, json};

use crate::client::Connection;
use crate::client::summary;
use crate::pin::Listed;
use crate::spec::ServerSpec;

/// Pages followed per list before scout gives up (a server that pages forever).
const MAX_PAGES: usize = 100;

/// Why a catalogue could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The connection could not be opened (`config` = the operator's configuration is at
    /// fault, e.g. a token variable that is not set).
    #[error("could not connect: {why}")]
    Connect { why: String, config: bool },
    /// A list request did not answer with a result.
    #[error("{method} failed: {why}")]
    List { method: String, why: String },
}

/// Every item of a paged list method.
async fn list_all(wire: &Connection, method: &str, key: &str) -> Result<Vec<Value>, FetchError> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let reply = wire.request(method, params).await;
        let Some(result) = reply.result() else {
            return Err(FetchError::List {
                method: method.to_string(),
                why: describe(&reply),
            });
        };
        items.extend(
            result
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) if seen.insert(next.to_string()) => cursor = Some(next.to_string()),
            Some(next) => {
                return Err(FetchError::List {
                    method: method.to_string(),
                    why: format!("the cursor {next:?} came back twice (a loop)"),
                });
            }
            None => return Ok(items),
        }
    }
    Err(FetchError::List {
        method: method.to_string(),
        why: format!("still paging after {MAX_PAGES} pages"),
    })
}

/// What a reply was instead of a result, in a few words.
fn describe(reply: &crate::transport::Reply) -> String {
    if let Some(code) = reply.error_code() {
        return format!(
            "JSON-RPC error {code} {:?}",
            reply.error_message().unwrap_or_default()
        );
    }
    match (&reply.outcome, reply.status()) {
        (crate::transport::Outcome::TimedOut, _) => "no answer within the timeout".into(),
        (crate::transport::Outcome::TransportError(e), _) => format!("a transport error ({e})"),
        (_, Some(status)) => format!("HTTP {status} without a result"),
        _ => "no result".into(),
    }
}

fn declares(wire: &Connection, capability: &str) -> bool {
    matches!(wire.capabilities().get(capability), Some(v) if !v.is_null() && v != &Value::Bool(false))
}

/// Lists the catalogue of `wire` as the server sent it, with the operator's secrets masked
/// by value (they never reach the lock file); see [`Listed::masked`].
pub async fn list(wire: &Connection) -> Result<Listed, FetchError> {
    let mut listed = Listed {
        instructions: wire.instructions().map(str::to_string),
        ..Listed::default()
    };
    if declares(wire, "tools") {
        listed.tools = list_all(wire, "tools/list", "tools").await?;
    }
    if declares(wire, "prompts") {
        listed.prompts = list_all(wire, "prompts/list", "prompts").await?;
    }
    if declares(wire, "resources") {
        listed.resource_templates = list_all(wire, "resources/templates/list", "resourceTemplates")
            .await
            .or_else(|e| match e {
                // A server with resources but no templates may not know the method.
                FetchError::List { ref why, .. } if why.starts_with("JSON-RPC error -32601") => {
                    Ok(Vec::new())
                }
                other => Err(other),
            })?;
    }
    Ok(listed.masked(wire.connector().recorder().redactor()))
}

/// Connects to the server of `spec`, lists what an agent would read, and closes everything.
pub async fn catalogue(spec: &ServerSpec) -> Result<Listed, FetchError> {
    let opened = summary::open(spec, None)
        .await
        .map_err(|e| FetchError::Connect {
            config: e.is_config_error(),
            why: e.to_string(),
        })?;
    let result = match opened.preferred() {
        Some(wire) => list(wire).await,
        None => Err(FetchError::Connect {
            why: "the server opened no wire".into(),
            config: false,
        }),
    };
    for w in &opened.wires {
        let _ = w.close().await;
    }
    opened.close().await;
    result
}
