//! The official MCP schema of each revision, and one message validated against it.
//!
//! The schemas are the published definitions of 2024-11-05, 2025-03-26, 2025-06-18,
//! 2025-11-25 and 2026-07-28, built into the binary by `build.rs` from the `rust-mcp-schema`
//! crate (see there for how, and for the one way they differ from the published files).
//! Each definition is compiled once, on first use, with no external reference ever fetched.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::policy::schema::NoRetrieval;

/// The revisions scout holds a schema for, oldest first, with the built document.
static DOCUMENTS: &[(&str, &str)] = &[
    (
        "2024-11-05",
        include_str!(concat!(env!("OUT_DIR"), "/mcp-schema-2024-11-05.json")),
    ),
    (
        "2025-03-26",
        include_str!(concat!(env!("OUT_DIR"), "/mcp-schema-2025-03-26.json")),
    ),
    (
        "2025-06-18",
        include_str!(concat!(env!("OUT_DIR"), "/mcp-schema-2025-06-18.json")),
    ),
    (
        "2025-11-25",
        include_str!(concat!(env!("OUT_DIR"), "/mcp-schema-2025-11-25.json")),
    ),
    (
        "2026-07-28",
        include_str!(concat!(env!("OUT_DIR"), "/mcp-schema-2026-07-28.json")),
    ),
];

/// The revisions scout holds a schema for, oldest first.
pub fn revisions() -> impl DoubleEndedIterator<Item = &'static str> {
    DOCUMENTS.iter().map(|(r, _)| *r)
}

/// The schema a wire that negotiated `version` is held to: that revision's, or for a dated
/// version scout does not know, the newest one before it (a server that speaks a revision
/// newer than scout still owes everything the last one scout knows asked). `None` for a
/// version older than every schema or not a date.
pub fn revision_for(version: &str) -> Option<&'static str> {
    let dated = version.len() == 10
        && version.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !dated {
        return None;
    }
    revisions().rev().find(|r| *r <= version)
}

/// One revision's definitions, parsed.
struct Schema {
    /// The document (`$schema` and the definitions), as built. Parsed again for each
    /// definition compiled rather than kept parsed: a parsed document takes a dozen times its
    /// text's memory, for the whole run, and compiling needs a copy of its own anyway.
    text: &'static str,
    /// `$defs` (2025-11-25 on) or `definitions` (before).
    key: &'static str,
    /// Definition names by their case- and underscore-free form.
    names: HashMap<String, String>,
    /// The definition of each method's request or notification.
    methods: HashMap<String, String>,
}

fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

impl Schema {
    fn parse(text: &'static str) -> Schema {
        // Built by build.rs from a JSON value: it parses.
        let document: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let key = if document.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let defs = document.get(key).and_then(Value::as_object);
        let mut names = HashMap::new();
        let mut methods = HashMap::new();
        for (name, def) in defs.into_iter().flatten() {
            names.insert(folded(name), name.clone());
            let is_message = name.ends_with("Request") || name.ends_with("Notification");
            // `ClientRequest`, `ServerNotification`, … are unions, not one method's message.
            let is_union = name.starts_with("Client") || name.starts_with("Server");
            if let Some(m) = def
                .pointer("/properties/method/const")
                .and_then(Value::as_str)
                && is_message
                && !is_union
            {
                methods.insert(m.to_string(), name.clone());
            }
        }
        Schema {
            text,
            key,
            names,
            methods,
        }
    }

    /// The definition named `name` (in any case), as the document spells it.
    fn name(&self, name: &str) -> Option<&str> {
        self.names.get(&folded(name)).map(String::as_str)
    }
}

static SCHEMAS: LazyLock<HashMap<&'static str, Schema>> = LazyLock::new(|| {
    DOCUMENTS
        .iter()
        .map(|(r, text)| (*r, Schema::parse(text)))
        .collect()
});

type Compiled = HashMap<(&'static str, String), Arc<Validator>>;
static VALIDATORS: LazyLock<Mutex<Compiled>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The validator of one definition of one revision, compiled on first use.
fn validator(revision: &'static str, definition: &str) -> Option<Arc<Validator>> {
    // Two threads may compile the same definition at once (the prewarm and a judge): both
    // results are the same validator, and the second insert just replaces the first.
    let key = (revision, definition.to_string());
    if let Some(v) = VALIDATORS.lock().ok()?.get(&key) {
        return Some(v.clone());
    }
    compile(revision, &[definition]);
    VALIDATORS.lock().ok()?.get(&key).cloned()
}

/// Compiles `definitions` of `revision` (those not compiled yet) from one parse of its
/// document, and keeps them. Each is compiled against only the definitions it reaches:
/// given the whole document, the compiler copied and walked every definition of the
/// revision (two hundred) for each validator, a fifth of a check's CPU time.
fn compile(revision: &'static str, definitions: &[&str]) {
    let Some(schema) = SCHEMAS.get(revision) else {
        return;
    };
    let Ok(mut document) = serde_json::from_str::<Value>(schema.text) else {
        return;
    };
    let dialect = document["$schema"].take();
    let Value::Object(defs) = document[schema.key].take() else {
        return;
    };
    drop(document);
    for definition in definitions {
        let key = (revision, definition.to_string());
        if VALIDATORS.lock().map_or(true, |v| v.contains_key(&key)) {
            continue;
        }
        let mut root = serde_json::Map::new();
        root.insert("$schema".into(), dialect.clone());
        root.insert(
            "$ref".into(),
            Value::String(format!("#/{}/{definition}", schema.key)),
        );
        root.insert(
            schema.key.into(),
            Value::Object(reachable(&defs, schema.key, definition)),
        );
        let Ok(compiled) = jsonschema::options()
            .with_retriever(NoRetrieval)
            .should_validate_formats(false)
            .should_ignore_unknown_formats(true)
            .build(&Value::Object(root))
        else {
            continue;
        };
        if let Ok(mut v) = VALIDATORS.lock() {
            v.insert(key, Arc::new(compiled));
        }
    }
}

/// `name` and every definition its `$ref`s reach, transitively (copies).
fn reachable(
    defs: &serde_json::Map<String, Value>,
    key: &str,
    name: &str,
) -> serde_json::Map<String, Value> {
    let prefix = format!("#/{key}/");
    let mut out = serde_json::Map::new();
    let mut todo = vec![name.to_string()];
    while let Some(next) = todo.pop() {
        if out.contains_key(&next) {
            continue;
        }
        let Some(def) = defs.get(&next) else {
            continue;
        };
        refs_in(def, &prefix, &mut todo);
        out.insert(next, def.clone());
    }
    out
}

/// The definitions the `$ref`s in `v` name (those under `prefix`, this document's own).
fn refs_in(v: &Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match x.as_str().and_then(|r| r.strip_prefix(prefix)) {
                    Some(target) if k == "$ref" => {
                        out.push(target.split('/').next().unwrap_or(target).to_string());
                    }
                    _ => refs_in(x, prefix, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in(x, prefix, out)),
        _ => {}
    }
}

/// The definitions nearly every run validates against: the envelopes and the common results.
const COMMON: [&str; 14] = [
    "JSONRPCRequest",
    "JSONRPCNotification",
    "JSONRPCResultResponse",
    "JSONRPCErrorResponse",
    "InitializeResult",
    "DiscoverResult",
    "ListToolsResult",
    "CallToolResult",
    "ListResourcesResult",
    "ListResourceTemplatesResult",
    "ReadResourceResult",
    "ListPromptsResult",
    "GetPromptResult",
    "LoggingMessageNotification",
];

/// What the revision matrix's handshakes and lists are held to (no calls or reads).
const MATRIX: [&str; 8] = [
    "JSONRPCResultResponse",
    "JSONRPCErrorResponse",
    "JSONRPCNotification",
    "InitializeResult",
    "ListToolsResult",
    "ListResourcesResult",
    "ListResourceTemplatesResult",
    "ListPromptsResult",
];

/// Compiles, on a thread of its own, the [`COMMON`] definitions at the revisions of `wires`
/// (the versions the run's wires negotiated) and the [`MATRIX`] ones at the revisions the
/// revision matrix will ask about, so that the work overlaps the run's waits on the server
/// instead of adding to its end. What is compiled stays for the process (a fleet's servers
/// share it); anything else compiles on first use.
pub fn prewarm<'a>(wires: impl IntoIterator<Item = &'a str>, matrix: &[&'static str]) {
    static DONE: Mutex<Vec<(&'static str, bool)>> = Mutex::new(Vec::new());
    let todo: Vec<(&'static str, bool)> = {
        let Ok(mut done) = DONE.lock() else {
            return;
        };
        let own = wires
            .into_iter()
            .filter_map(revision_for)
            .map(|r| (r, true));
        let asked = matrix
            .iter()
            .filter_map(|v| revision_for(v))
            .map(|r| (r, false));
        let mut todo = Vec::new();
        for key in own.chain(asked) {
            if !done.contains(&key) {
                done.push(key);
                todo.push(key);
            }
        }
        todo
    };
    if todo.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("scout-schema".into())
        .spawn(move || {
            for (revision, common) in todo {
                let Some(schema) = SCHEMAS.get(revision) else {
                    continue;
                };
                let definitions: &[&str] = if common { &COMMON } else { &MATRIX };
                let names: Vec<&str> = definitions.iter().filter_map(|d| schema.name(d)).collect();
                compile(revision, &names);
            }
        });
    // Without the thread the definitions compile on first use, as they otherwise would.
    drop(spawned);
}

/// What a message is, for choosing its definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A request of this revision's: its own definition.
    Request,
    /// A notification.
    Notification,
    /// A result to a request.
    Result,
    /// An error response.
    Error,
}

/// The definitions a message of `method` (for a response: the method of the request it
/// answers) is held to at `revision`, as `(pointer of the part, definition)`: the JSON-RPC
/// envelope, and the method's own request, notification or result where the revision defines
/// one. `task` is true for the answer to a task-augmented request (2025-11-25: a
/// `CreateTaskResult`, not the method's result); `result_type` is the result's `resultType`
/// (2026-07-28: an `input_required` result is an `InputRequiredResult`; a kind the core
/// schema does not define, such as an extension's, is held to the envelope only).
pub fn definitions(
    revision: &'static str,
    shape: Shape,
    method: Option<&str>,
    task: bool,
    result_type: Option<&str>,
) -> Vec<(&'static str, String)> {
    let Some(schema) = SCHEMAS.get(revision) else {
        return Vec::new();
    };
    let own = method.and_then(|m| schema.methods.get(m));
    let named = |n: &str| schema.name(n).map(str::to_string);
    let mut out = Vec::new();
    match shape {
        Shape::Request | Shape::Notification => {
            let envelope = if shape == Shape::Request {
                "JSONRPCRequest"
            } else {
                "JSONRPCNotification"
            };
            match own {
                Some(def) => out.push(("", def.clone())),
                None => out.extend(named(envelope).map(|d| ("", d))),
            }
        }
        Shape::Error => {
            out.extend(
                named("JSONRPCErrorResponse")
                    .or_else(|| named("JSONRPCError"))
                    .map(|d| ("", d)),
            );
        }
        Shape::Result => {
            out.extend(
                named("JSONRPCResultResponse")
                    .or_else(|| named("JSONRPCResponse"))
                    .map(|d| ("", d)),
            );
            let result = match result_type {
                Some("input_required") => named("InputRequiredResult"),
                Some(t) if t != "complete" => None,
                _ if task => named("CreateTaskResult"),
                _ => own.and_then(|d| {
                    let base = d.strip_suffix("Request")?;
                    named(&format!("{base}Result")).or_else(|| named("Result"))
                }),
            };
            out.extend(result.map(|d| ("/result", d)));
        }
    }
    out
}

/// One way a message breaks its definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer to the offending element, from the message's root.
    pub pointer: String,
    /// The definition the message was held to (`CallToolResult`).
    pub definition: String,
    /// The innermost definition the element failed (`EmbeddedResource`), when another.
    pub within: Option<String>,
    /// The keyword that failed (`required`, `maximum`, `anyOf`, …).
    pub keyword: String,
    /// What is wrong, in the schema validator's words (the value masked when long).
    pub message: String,
}

/// Validates `part` of a message (at `pointer`) against `definition` of `revision`.
pub fn validate(
    revision: &'static str,
    definition: &str,
    pointer: &str,
    part: &Value,
) -> Vec<Violation> {
    let Some(v) = validator(revision, definition) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in v.iter_errors(part) {
        explain(&e.to_owned(), definition, pointer, &mut out);
    }
    out
}

/// The definition a schema location sits in (the last `$defs/X` or `definitions/X` on it).
fn innermost(schema_path: &str) -> Option<String> {
    let parts: Vec<&str> = schema_path.split('/').collect();
    parts
        .windows(2)
        .rev()
        .find(|w| w[0] == "$defs" || w[0] == "definitions")
        .map(|w| w[1].to_string())
}

/// True when `e` says a union branch is the wrong kind: its `type` or `method` discriminator
/// (one level under `base`) has another value.
fn wrong_kind(e: &ValidationError<'static>, base: &str) -> bool {
    let path = e.instance_path().to_string();
    let discriminates = [format!("{base}/type"), format!("{base}/method")].contains(&path);
    discriminates
        && matches!(
            e.kind(),
            ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
        )
}

/// Turns one validator error into violations. A union (`anyOf`, `oneOf`) that nothing
/// matched is followed into the one branch of the element's own kind, so the violation
/// names the field that is wrong (`/content/1/annotations/priority`), not just the union;
/// when no branch is of its kind (an unknown content block type), the union itself is the
/// violation.
fn explain(e: &ValidationError<'static>, definition: &str, prefix: &str, out: &mut Vec<Violation>) {
    let base = e.instance_path().to_string();
    let branches = match e.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            Some(context)
        }
        _ => None,
    };
    if let Some(branches) = branches {
        let own_kind = branches
            .iter()
            .filter(|b| !b.is_empty() && !b.iter().any(|x| wrong_kind(x, &base)))
            .min_by_key(|b| b.len());
        if let Some(branch) = own_kind {
            for x in branch {
                explain(x, definition, prefix, out);
            }
            return;
        }
    }
    let schema_path = e.schema_path().to_string();
    let keyword = schema_path
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let within = innermost(&schema_path).filter(|d| d != definition);
    let message = match e.kind() {
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            let kind = e
                .instance()
                .get("type")
                .and_then(Value::as_str)
                .map(|t| format!(" (type \"{}\")", short(t)))
                .unwrap_or_default();
            format!("matches none of the kinds allowed here{kind}")
        }
        _ if short_value(e.instance()) => e.to_string(),
        _ => e.masked().to_string(),
    };
    out.push(Violation {
        pointer: format!("{prefix}{base}"),
        definition: definition.to_string(),
        within,
        keyword,
        message,
    });
}

/// At most 40 characters of a string.
fn short(s: &str) -> String {
    s.chars().take(40).collect()
}

/// True when a value is small enough to quote in a finding.
fn short_value(v: &Value) -> bool {
    match v {
        Value::String(s) => s.chars().count() <= 40,
        Value::Object(_) | Value::Array(_) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_definition_is_compiled_with_every_definition_it_reaches_and_no_other() {
        for r in revisions() {
            let schema = &SCHEMAS[r];
            let document: Value = serde_json::from_str(schema.text).expect("built");
            let defs = document[schema.key].as_object().expect("definitions");
            let prefix = format!("#/{}/", schema.key);
            let result = schema.name("CallToolResult").expect("defined");
            let kept = reachable(defs, schema.key, result);
            // Closed: every reference inside resolves inside.
            let mut named = Vec::new();
            for def in kept.values() {
                refs_in(def, &prefix, &mut named);
            }
            for n in &named {
                assert!(
                    kept.contains_key(n),
                    "{r}: {result} reaches {n}, which was left out"
                );
            }
            // And lean: a tool call's result never needs the initialize request.
            assert!(kept.contains_key(result), "{r}");
            assert!(
                !kept.contains_key("InitializeRequest"),
                "{r}: {:?}",
                kept.keys()
            );
            assert!(
                kept.len() < defs.len() / 2,
                "{r}: {} of {}",
                kept.len(),
                defs.len()
            );
        }
    }

    #[test]
    fn every_revision_is_built_and_compiles() {
        for r in revisions() {
            let s = &SCHEMAS[r];
            assert!(s.methods.contains_key("tools/call"), "{r}");
            let d = definitions(r, Shape::Result, Some("tools/list"), false, None);
            assert_eq!(d.len(), 2, "{r}: {d:?}");
            assert_eq!(d[1].1, "ListToolsResult");
            assert!(validator(r, &d[0].1).is_some(), "{r}");
        }
    }

    #[test]
    fn revisions_map_by_date() {
        assert_eq!(revision_for("2025-06-18"), Some("2025-06-18"));
        assert_eq!(revision_for("2025-07-01"), Some("2025-06-18"));
        assert_eq!(revision_for("2027-01-01"), Some("2026-07-28"));
        assert_eq!(revision_for("2024-01-01"), None);
        assert_eq!(revision_for("DRAFT-2026-v1"), None);
    }

    #[test]
    fn a_content_block_is_followed_into_its_own_kind() {
        let result = json!({"content": [
            {"type": "text", "text": "fine"},
            {"type": "text", "text": "x", "annotations": {"priority": 2, "audience": ["robot"]}},
            {"type": "resource", "resource": {"text": "no uri"}},
            {"type": "hologram"}
        ]});
        let v = validate("2025-11-25", "CallToolResult", "/result", &result);
        let at: Vec<&str> = v.iter().map(|x| x.pointer.as_str()).collect();
        assert!(
            at.contains(&"/result/content/1/annotations/priority"),
            "{v:#?}"
        );
        assert!(
            at.contains(&"/result/content/1/annotations/audience/0"),
            "{v:#?}"
        );
        assert!(at.contains(&"/result/content/2/resource"), "{v:#?}");
        assert!(at.contains(&"/result/content/3"), "{v:#?}");
        let unknown = v
            .iter()
            .find(|x| x.pointer == "/result/content/3")
            .expect("the unknown block");
        assert!(unknown.message.contains("hologram"), "{unknown:?}");
        let priority = v
            .iter()
            .find(|x| x.pointer.ends_with("priority"))
            .expect("the priority");
        assert_eq!(priority.keyword, "maximum");
        assert_eq!(priority.within.as_deref(), Some("Annotations"));
    }

    #[test]
    fn a_title_is_judged_by_its_revision() {
        let list = json!({"tools": [{"name": "a", "title": 7, "inputSchema": {"type": "object"}}]});
        let v = validate("2025-11-25", "ListToolsResult", "/result", &list);
        assert_eq!(v.len(), 1, "{v:#?}");
        assert_eq!(v[0].pointer, "/result/tools/0/title");
        // 2025-03-26's Tool has no title: an extra member, which its schema allows.
        assert!(validate("2025-03-26", "ListToolsResult", "/result", &list).is_empty());
    }
}
