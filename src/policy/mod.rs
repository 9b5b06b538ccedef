//! The safety policy (docs/safety.md): which tools scout may call, read from their annotations as
//! the spec's defaults say, and the library side of `scout tools` (the catalogue as the
//! policy sees it) and `scout call` (one call, policy applied, result rendered).
//!
//! Submodules: [`args`] (schema-driven arguments), [`nowhere`] (generated values that point
//! nowhere), [`schema`] (JSON Schema handling without external `$ref` resolution),
//! [`limiter`] (the `--rps` rate limiter).

pub mod args;
pub mod nowhere;
pub mod schema;

use serde::Serialize;
use serde_json::{Value, json};

use crate::client::Connection;
use crate::spec::PolicySpec;
use crate::transport::{Outcome, Reply};

/// A tool's annotations as the policy reads them: the spec's defaults fill what is missing
/// or not a boolean (readOnly false, destructive true, idempotent false, openWorld true).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    /// The tool carried an `annotations` object at all.
    pub annotated: bool,
}

impl Hints {
    /// Reads `tool.annotations` with the spec's defaults.
    pub fn of(tool: &Value) -> Hints {
        let ann = tool.get("annotations").filter(|a| a.is_object());
        let flag = |key: &str, default: bool| {
            ann.and_then(|a| a.get(key))
                .and_then(Value::as_bool)
                .unwrap_or(default)
        };
        Hints {
            read_only: flag("readOnlyHint", false),
            destructive: flag("destructiveHint", true),
            idempotent: flag("idempotentHint", false),
            open_world: flag("openWorldHint", true),
            annotated: ann.is_some(),
        }
    }

    /// One word for tables: read-only, mutating or destructive.
    pub fn kind(&self) -> &'static str {
        if self.read_only {
            "read-only"
        } else if self.destructive {
            "destructive"
        } else {
            "mutating"
        }
    }
}

/// What the policy does with one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Decision {
    /// scout may call it.
    Call,
    /// scout will not call it: why (a predicate of "it": `is not read-only`), and the flag or
    /// setting that would allow it.
    Skip { reason: String, allow_with: String },
}

impl Decision {
    /// True when the tool may be called.
    pub fn allows(&self) -> bool {
        matches!(self, Decision::Call)
    }

    /// The one word a tool list shows (the `scout tools` table and its selector alike).
    pub fn verdict(&self) -> &'static str {
        match self {
            Decision::Call => "may call",
            Decision::Skip { .. } => "refused",
        }
    }

    /// What would allow a refused tool, as an instruction (`None` when it may be called).
    pub fn how_to_allow(&self) -> Option<String> {
        match self {
            Decision::Call => None,
            Decision::Skip { allow_with, .. } if allow_with.starts_with("--") => {
                Some(format!("start scout again with {allow_with}"))
            }
            Decision::Skip { allow_with, .. } => Some(format!("{allow_with} in the config")),
        }
    }

    /// The verdict with its reason: `may call`, or `refused: it is not read-only …; to
    /// allow it, start scout again with --allow-mutations`.
    pub fn explain(&self) -> String {
        match (self, self.how_to_allow()) {
            (Decision::Skip { reason, .. }, Some(how)) => {
                format!("refused: it {reason}; to allow it, {how}")
            }
            _ => self.verdict().to_string(),
        }
    }
}

/// Decides whether `tool` may be called under `policy`. `deny_tools` wins over everything;
/// a non-empty `allow_tools` restricts calls to its names but does not override the
/// annotations.
pub fn decide(tool: &Value, policy: &PolicySpec) -> Decision {
    let name = tool_name(tool);
    if policy.deny_tools.iter().any(|d| d == name) {
        return Decision::Skip {
            reason: "is listed in deny_tools".into(),
            allow_with: "remove it from deny_tools".into(),
        };
    }
    if !policy.allow_tools.is_empty() && !policy.allow_tools.iter().any(|a| a == name) {
        return Decision::Skip {
            reason: "is not listed in allow_tools".into(),
            allow_with: "add it to allow_tools".into(),
        };
    }
    let h = Hints::of(tool);
    if h.read_only || policy.allow_destructive {
        return Decision::Call;
    }
    if !h.destructive {
        if policy.allow_mutations {
            return Decision::Call;
        }
        return Decision::Skip {
            reason: "is not read-only (readOnlyHint is not true)".into(),
            allow_with: "--allow-mutations".into(),
        };
    }
    let reason = if h.annotated {
        "may be destructive (destructiveHint is not false)"
    } else {
        "has no annotations, so the spec's defaults make it destructive"
    };
    Decision::Skip {
        reason: reason.into(),
        allow_with: "--allow-destructive (dangerous: the server's data may be changed or deleted)"
            .into(),
    }
}

/// The `name` of a Tool object ("" when missing).
pub fn tool_name(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// One row of `scout tools`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolRow {
    pub name: String,
    /// `title`, else `annotations.title` (the spec's display precedence).
    pub title: Option<String>,
    pub hints: Hints,
    pub decision: Decision,
    /// e.g. `a: integer*, b: string` (`*` = required).
    pub schema: String,
    /// The tool's `inputSchema` exactly as the server listed it (JSON only): a script
    /// reading `scout tools --json` gets every keyword, `$schema`, `$defs` and `$ref` included.
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
}

/// The catalogue as the policy sees it, in the server's order.
pub fn tool_table(tools: &[Value], policy: &PolicySpec) -> Vec<ToolRow> {
    tools
        .iter()
        .map(|t| ToolRow {
            name: tool_name(t).to_string(),
            title: t
                .get("title")
                .or_else(|| t.get("annotations").and_then(|a| a.get("title")))
                .and_then(Value::as_str)
                .map(str::to_string),
            hints: Hints::of(t),
            decision: decide(t, policy),
            schema: schema_summary(t.get("inputSchema").unwrap_or(&Value::Null)),
            input_schema: t.get("inputSchema").cloned().unwrap_or(Value::Null),
        })
        .collect()
}

/// A one-line summary of an input schema's top-level properties.
pub fn schema_summary(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return "(no arguments)".into();
    };
    if props.is_empty() {
        return "(no arguments)".into();
    }
    props
        .iter()
        .map(|(k, v)| {
            let ty = match v.get("type") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("|"),
                _ => "any".into(),
            };
            let star = if required.contains(&k.as_str()) {
                "*"
            } else {
                ""
            };
            format!("{k}: {ty}{star}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `scout tools` for humans: one block per tool.
pub fn render_tool_table(rows: &[ToolRow]) -> String {
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("The server lists no tools.\n");
        return out;
    }
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).min(40);
    for r in rows {
        let ann = if r.hints.annotated {
            r.hints.kind().to_string()
        } else {
            format!("{} (no annotations)", r.hints.kind())
        };
        out.push_str(&format!(
            "{:<width$}  {ann}  — {}\n",
            r.name,
            r.decision.explain()
        ));
        if let Some(t) = &r.title {
            out.push_str(&format!("{:<width$}  title: {t}\n", ""));
        }
        out.push_str(&format!("{:<width$}  args: {}\n", "", r.schema));
    }
    out
}

/// `scout tools --json`: the rows as a JSON array.
pub fn tool_table_json(rows: &[ToolRow]) -> Value {
    serde_json::to_value(rows).unwrap_or(Value::Null)
}

/// Why `scout call` could not call a tool.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    /// The policy refuses the call (exit 1).
    #[error("scout will not call `{tool}`: it {reason}; allow it with {allow_with}")]
    Refused {
        tool: String,
        reason: String,
        allow_with: String,
    },
    /// The server does not list the tool.
    #[error("the server lists no tool named `{0}`")]
    UnknownTool(String),
    /// The request did not produce a response (timeout, transport error).
    #[error("{method} got no response: {why}")]
    NoResponse { method: String, why: String },
    /// The server answered with a JSON-RPC error.
    #[error("{method} failed: JSON-RPC error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        message: String,
    },
    /// The server still asks for input (2026-07-28 `input_required`) that scout could not
    /// or would not give: the call did not complete.
    #[error("{method} did not complete: the server asked for input and {why}")]
    Incomplete { method: String, why: String },
}

/// The most pages `list_tools` follows before giving up (a cursor loop must not hang a CLI).
pub const MAX_PAGES: usize = 100;

/// Lists every tool on `conn`, following `nextCursor` (at most [`MAX_PAGES`] pages).
pub async fn list_tools(conn: &Connection) -> Result<Vec<Value>, CallError> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let reply = conn.request("tools/list", params).await;
        let result = answered(&reply, "tools/list")?;
        if let Some(page) = result.get("tools").and_then(Value::as_array) {
            tools.extend(page.iter().cloned());
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) if Some(next) != cursor.as_deref() => cursor = Some(next.to_string()),
            _ => return Ok(tools),
        }
    }
    Ok(tools)
}

/// The `result` of a reply, or the typed error saying why there is none.
fn answered<'a>(reply: &'a Reply, method: &str) -> Result<&'a Value, CallError> {
    if let Some(code) = reply.error_code() {
        return Err(CallError::Rpc {
            method: method.into(),
            code,
            message: reply.error_message().unwrap_or_default().into(),
        });
    }
    match (&reply.outcome, reply.result()) {
        (Outcome::Answered, Some(r)) => Ok(r),
        (Outcome::TransportError(why), _) => Err(CallError::NoResponse {
            method: method.into(),
            why: why.clone(),
        }),
        (other, _) => Err(CallError::NoResponse {
            method: method.into(),
            why: format!("{other:?}"),
        }),
    }
}

/// `scout call`: checks the policy against the listed `tools`, then calls `name` with
/// `arguments` and returns the `CallToolResult`. A refusal names the flag that would allow
/// the call.
pub async fn call(
    conn: &Connection,
    tools: &[Value],
    policy: &PolicySpec,
    name: &str,
    arguments: Value,
) -> Result<Value, CallError> {
    let tool = tools
        .iter()
        .find(|t| tool_name(t) == name)
        .ok_or_else(|| CallError::UnknownTool(name.to_string()))?;
    if let Decision::Skip { reason, allow_with } = decide(tool, policy) {
        return Err(CallError::Refused {
            tool: name.into(),
            reason,
            allow_with,
        });
    }
    // call_tool adds the 2026-07-28 Mcp-Param-* headers the tool's schema declares.
    let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
    let reply = conn.call_tool(name, arguments, &schema).await;
    let result = answered(&reply, "tools/call")?;
    if crate::client::rounds::result_type(result) == Some(crate::client::rounds::INPUT_REQUIRED) {
        // An input_required result is no answer of the tool's: say why the rounds stopped.
        let why = conn
            .input_chains()
            .last()
            .and_then(|c| c.rounds.last().and_then(|r| r.stopped.as_ref()))
            .map_or_else(|| "scout stopped answering".into(), ToString::to_string);
        return Err(CallError::Incomplete {
            method: "tools/call".into(),
            why: format!("scout stopped: {why}"),
        });
    }
    Ok(result.clone())
}

/// Renders a `CallToolResult` for a terminal: text blocks verbatim, other blocks as one
/// descriptive line, `structuredContent` pretty-printed, an `isError` result marked.
pub fn render_call_result(result: &Value) -> String {
    let mut out = String::new();
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        out.push_str("The tool reported an error:\n");
    }
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let s = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default();
        match s("type") {
            "text" => out.push_str(s("text")),
            "image" | "audio" => out.push_str(&format!(
                "[{} {}, {} base64 characters]",
                s("type"),
                s("mimeType"),
                s("data").len()
            )),
            "resource_link" => out.push_str(&format!("[link {}] {}", s("name"), s("uri"))),
            "resource" => {
                let r = block.get("resource").unwrap_or(&Value::Null);
                let uri = r.get("uri").and_then(Value::as_str).unwrap_or_default();
                match r.get("text").and_then(Value::as_str) {
                    Some(t) => out.push_str(&format!("[resource {uri}]\n{t}")),
                    None => out.push_str(&format!("[resource {uri}, binary]")),
                }
            }
            other => out.push_str(&format!("[{other} block]")),
        }
        out.push('\n');
    }
    if let Some(sc) = result.get("structuredContent") {
        out.push_str("structuredContent:\n");
        out.push_str(&serde_json::to_string_pretty(sc).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, ann: Value) -> Value {
        let mut t = json!({"name": name, "inputSchema": {"type": "object"}});
        if !ann.is_null() {
            t["annotations"] = ann;
        }
        t
    }

    fn catalogue() -> Vec<Value> {
        vec![
            tool("read", json!({"readOnlyHint": true})),
            tool(
                "write",
                json!({"readOnlyHint": false, "destructiveHint": false}),
            ),
            tool("wipe", json!({"destructiveHint": true})),
            tool("bare", Value::Null),
            tool("stringly", json!({"readOnlyHint": "true"})),
        ]
    }

    fn called(p: &PolicySpec) -> Vec<String> {
        tool_table(&catalogue(), p)
            .into_iter()
            .filter(|r| r.decision.allows())
            .map(|r| r.name)
            .collect()
    }

    #[test]
    fn default_policy_calls_only_read_only() {
        assert_eq!(called(&PolicySpec::default()), vec!["read"]);
    }

    #[test]
    fn mutations_and_destructive_flags() {
        let m = PolicySpec {
            allow_mutations: true,
            ..Default::default()
        };
        assert_eq!(called(&m), vec!["read", "write"]);
        let d = PolicySpec {
            allow_destructive: true,
            ..Default::default()
        };
        assert_eq!(
            called(&d),
            vec!["read", "write", "wipe", "bare", "stringly"]
        );
    }

    #[test]
    fn deny_wins_and_allow_restricts() {
        let p = PolicySpec {
            allow_destructive: true,
            allow_tools: vec!["read".into(), "wipe".into()],
            deny_tools: vec!["wipe".into()],
            ..Default::default()
        };
        assert_eq!(called(&p), vec!["read"]);
        let rows = tool_table(&catalogue(), &p);
        assert!(
            matches!(&rows[2].decision, Decision::Skip { reason, .. } if reason.contains("deny_tools"))
        );
        assert!(
            matches!(&rows[1].decision, Decision::Skip { reason, .. } if reason.contains("allow_tools"))
        );
    }

    #[test]
    fn skip_reasons_name_the_flag() {
        let rows = tool_table(&catalogue(), &PolicySpec::default());
        let flag = |i: usize| match &rows[i].decision {
            Decision::Skip { allow_with, .. } => allow_with.clone(),
            Decision::Call => String::new(),
        };
        assert_eq!(flag(1), "--allow-mutations");
        assert!(flag(2).starts_with("--allow-destructive"));
        assert!(flag(3).starts_with("--allow-destructive"));
        assert!(
            matches!(&rows[3].decision, Decision::Skip { reason, .. } if reason.contains("no annotations"))
        );
        assert!(!rows[3].hints.annotated && rows[3].hints.destructive);
    }

    #[test]
    fn table_renders_human_and_json() {
        let rows = tool_table(&catalogue(), &PolicySpec::default());
        let text = render_tool_table(&rows);
        assert!(text.contains("read") && text.contains("may call"), "{text}");
        assert!(
            text.contains("refused: it is not read-only")
                && text.contains("start scout again with --allow-mutations"),
            "{text}"
        );
        let j = tool_table_json(&rows);
        assert_eq!(j[0]["decision"]["action"], "call");
        assert_eq!(j[1]["decision"]["allow_with"], "--allow-mutations");
        assert_eq!(j[3]["hints"]["annotated"], false);
    }

    #[test]
    fn schema_summary_marks_required() {
        let s = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}}, "required": ["a"]});
        assert_eq!(schema_summary(&s), "a: integer*, b: string|null");
        assert_eq!(schema_summary(&json!({"type": "object"})), "(no arguments)");
    }

    #[test]
    fn call_result_rendering() {
        let r = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "mimeType": "image/png", "data": "aGk="},
            {"type": "resource", "resource": {"uri": "x://y", "text": "inner"}}],
            "structuredContent": {"sum": 3}});
        let out = render_call_result(&r);
        assert!(
            out.starts_with(
                "hello\n[image image/png, 4 base64 characters]\n[resource x://y]\ninner\n"
            ),
            "{out}"
        );
        assert!(out.contains("\"sum\": 3"));
        let e = render_call_result(
            &json!({"isError": true, "content": [{"type": "text", "text": "bad"}]}),
        );
        assert!(e.starts_with("The tool reported an error:\nbad"));
    }

    #[test]
    fn refusal_names_the_flag() {
        let e = CallError::Refused {
            tool: "wipe".into(),
            reason: "may be destructive".into(),
            allow_with: "--allow-destructive".into(),
        };
        assert!(e.to_string().contains("--allow-destructive"));
    }
}
